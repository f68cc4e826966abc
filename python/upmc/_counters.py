# SPDX-License-Identifier: MIT
"""Counters: a set of the calling thread's counters, read around a block."""
import ctypes
import errno
import weakref
from collections import namedtuple

import math

from ._lib import (LIST_FN, METRIC_FN, NOT_COUNTED, Error, Options, closed, fail, lib, thread_token,
                   unchecked)

OPTIONS = {"kernel": 1, "time_only": 2, "force_syscall": 4, "require_user_read": 8,
           "multiplex": 16}
PATHS = {1: "user", 2: "syscall", 3: "unavailable"}

# What Counters() counts when it is given no events, as cirron's Collector
# counts instructions, branch misses and page faults: opened time_only, so
# that it opens on any machine and counts what the machine can.
DEFAULT_EVENTS = "cycles,instructions,branch-misses,task-clock,page-faults"

# Empty blocks that subtract_overhead=True measures, once per Counters; the
# least of each series is the overhead.
OVERHEAD_BLOCKS = 20

# How a counter is read: how ("user", "syscall" or "unavailable") and why.
Path = namedtuple("Path", "how why")

# A metric of a set: its unit, whether it is a fraction (percent), and why
# it cannot be computed ("" when it can).
MetricOf = namedtuple("MetricOf", "unit percent why")

_read = unchecked("upmc_read", ctypes.c_int)  # (c_void_p, c_uint64 array)
_snapshot = unchecked("upmc_snapshot", ctypes.c_int)  # (c_void_p, c_uint64 array)
lib.upmc_snapshot_words.restype = ctypes.c_int
lib.upmc_snapshot_words.argtypes = [ctypes.c_void_p]
lib.upmc_interval.restype = ctypes.c_int
lib.upmc_interval.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                              ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                              ctypes.POINTER(ctypes.c_double)]
_timestamp_serialized = lib.upmc_timestamp_serialized
_timestamp_after = lib.upmc_timestamp_after
_ticks_to_ns = lib.upmc_ticks_to_ns


def c_string(value, what):
    """value as a C string: None stays None (NULL, which the library refuses
    with its own sentence); anything but str is a TypeError."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError("%s must be a str, not %s" % (what, type(value).__name__))
    if "\0" in value:
        raise ValueError("%s contains a NUL character" % what)
    return value.encode("utf-8")


def check_bool(name, value):
    """An option is True or False: "no", 0 or None would be taken for
    something they do not say."""
    if not isinstance(value, bool):
        raise TypeError("option %s must be True or False, not %r" % (name, value))
    return value


def flags_of(options):
    flags = 0
    for name, on in options.items():
        if name not in OPTIONS:
            raise TypeError("unknown option %r; the options are %s"
                            % (name, ", ".join(sorted(OPTIONS))))
        flags |= OPTIONS[name] if check_bool(name, on) else 0
    return flags


def open_set(spec, options):
    """The address of a new set: spec "" opens a timer (time only)."""
    flags = flags_of(options)
    encoded = c_string(spec, "spec")
    handle = ctypes.c_void_p()
    if encoded == b"":
        err = lib.upmc_open_timer(ctypes.byref(handle))
    else:
        opts = Options(ctypes.sizeof(Options), flags)
        err = lib.upmc_open(ctypes.byref(handle), encoded, ctypes.byref(opts))
    if err < 0:
        fail(err)
    return handle.value


def _text(raw):
    return raw.decode("utf-8", "replace") if raw is not None else ""


class Counters:
    """The counters of spec on the calling thread, counting from creation.

    c = upmc.Counters()   # DEFAULT_EVENTS, time_only
    with c:
        work()
    c.values   # {"cycles": 123, ...}; None for a counter that did not count
    c.ns       # nanoseconds the block took
    c.metrics  # {"IPC": 1.9, ...} for the metrics spec names ("IPC,TopdownL1")


    The set is opened here (an error raises upmc.Error) and stays open for
    any number of with blocks, one at a time, until close() (or until the
    object is collected); each block's values replace the last. spec ""
    opens no counter: time only. Options (keywords, True or False, False by
    default): time_only (events this machine cannot count are kept, reading
    None, instead of failing; True by default for DEFAULT_EVENTS),
    multiplex, kernel, force_syscall, require_user_read (UPMC_OPT_* in C);
    subtract_overhead (what an empty block reads, measured once here, is
    subtracted from every block's values and ns: c.overhead).
    A set counts the thread that opened it, and only that thread may use it.
    """

    def __init__(self, spec=DEFAULT_EVENTS, subtract_overhead=False, **options):
        check_bool("subtract_overhead", subtract_overhead)
        if spec == DEFAULT_EVENTS:
            options.setdefault("time_only", True)
        self._set = open_set(spec, options)
        self._close = weakref.finalize(self, lib.upmc_close, self._set)
        n = lib.upmc_count(self._set)
        self.names = tuple(_text(lib.upmc_counter_name(self._set, i)) for i in range(n))
        if len(set(self.names)) < n:
            self.close()
            raise ValueError("spec %r names an event twice: values are keyed by name" % spec)
        self.paths = {name: Path(PATHS.get(lib.upmc_counter_path(self._set, i), "unknown"),
                                 _text(lib.upmc_counter_reason(self._set, i)))
                      for i, name in enumerate(self.names)}
        self.metric_names = tuple(_text(lib.upmc_metric_name(self._set, j))
                                  for j in range(lib.upmc_metric_count(self._set)))
        self.metric_info = {name: MetricOf(_text(lib.upmc_metric_unit(self._set, j)),
                                           bool(lib.upmc_metric_is_percent(self._set, j)),
                                           _text(lib.upmc_metric_reason(self._set, j)))
                            for j, name in enumerate(self.metric_names)}
        self._metric_values = (ctypes.c_double * max(1, len(self.metric_names)))()
        self.summary = _text(lib.upmc_summary(self._set))
        self.advice = _text(lib.upmc_advice(self._set))
        self._buf = (ctypes.c_uint64 * n)()
        self._counts = (ctypes.c_uint64 * max(1, n))()
        self._ratios = (ctypes.c_double * max(1, n))()
        self._handle = ctypes.c_void_p(self._set)
        self._thread = thread_token()
        self.values = self.ns = self.ratios = self.metrics = self.overhead = None
        self._block = None  # the running block's start: (t0, snapshot)
        if subtract_overhead:
            self.overhead = self._measure_overhead()

    @property
    def closed(self):
        return self._set is None

    def close(self):
        """Stops counting and frees the set; later calls do nothing."""
        self._set = self._handle = None
        self._close()

    def read(self):
        """Every counter's running total now, as a list (NOT_COUNTED where
        one does not count); the cheapest call of this module."""
        handle = self._handle
        if handle is None:  # NULL would crash the inline reader
            raise closed("upmc.Counters")
        # The inline reader does not check the thread (the C slow path
        # does): in another thread it would read that CPU's counter (x86)
        # or trap (arm64).
        if thread_token() != self._thread:
            raise Error(errno.EPERM, "upmc.Counters.read: the set was opened by another "
                        "thread and counts that thread only: open one set per thread")
        n = _read(handle, self._buf)
        if n < 0:
            fail(n)
        return self._buf[:]

    def topdown_reset(self):
        """Starts a new period of Intel's topdown fields (upmc_topdown_reset()):
        slots, PERF_METRICS and every count of the set's topdown group
        restart from 0, as the kernel's topdown.txt recommends before a
        region and every few seconds of a long run. Raises upmc.Error:
        EOPNOTSUPP for a set that reads no topdown metric in user space,
        EBUSY during a with block of the set (its counts would not pair)."""
        if self._set is None:
            raise closed("upmc.Counters")
        if self._block is not None:
            raise Error(errno.EBUSY, "upmc.Counters.topdown_reset: a with block of this set "
                        "is running, and its counts from before a reset do not pair with "
                        "those after: reset before the block")
        err = lib.upmc_topdown_reset(self._set)
        if err < 0:
            fail(err)

    def ratio(self, name):
        """For a multiplexed set, the share of the time the counter ran at
        the last read (1.0 when always, 0.0 when never)."""
        if self._set is None:
            raise closed("upmc.Counters")
        if name not in self.names:
            raise KeyError("no counter named %r in %s" % (name, ",".join(self.names)))
        ratio = lib.upmc_counter_ratio(self._set, self.names.index(name))
        if ratio < 0:
            fail(int(ratio))
        return ratio

    def __enter__(self):
        if self._set is None:
            raise closed("upmc.Counters")
        if self._block is not None:
            raise Error(errno.EBUSY, "upmc.Counters: a with block of this set is running: "
                        "one block at a time (nest two Counters instead)")
        self.values = self.ns = self.ratios = self.metrics = None
        self._block = self._begin()
        return self

    def _begin(self):
        t0 = _timestamp_serialized()
        return t0, self._snapshot()

    def _snapshot(self):
        """What an interval needs of a read (upmc_snapshot(): for a
        multiplexed set, unscaled counts and their times)."""
        if thread_token() != self._thread:  # as in read()
            raise Error(errno.EPERM, "upmc.Counters: the set was opened by another "
                        "thread and counts that thread only: open one set per thread")
        snap = (ctypes.c_uint64 * max(1, lib.upmc_snapshot_words(self._set)))()
        err = _snapshot(self._handle, snap)
        if err < 0:
            fail(err)
        return snap

    def _end(self, begun):
        """(ns, {name: count or None}, {name: ratio}, {metric: value or
        None}) since begun."""
        t0, start = begun
        end = self._snapshot()
        t1 = _timestamp_after()
        ns = _ticks_to_ns(self._set, t1) - _ticks_to_ns(self._set, t0)
        # The interval's own scale for a multiplexed set (never the
        # difference of two scaled totals), and the share it ran.
        err = lib.upmc_interval(self._set, start, end, self._counts, self._ratios)
        if err < 0:
            fail(err)
        counts = {name: (self._counts[i] if self._counts[i] != NOT_COUNTED else None)
                  for i, name in enumerate(self.names)}
        metrics = None
        if self.metric_names:
            lib.upmc_metrics(self._set, start, end, self._metric_values)
            metrics = {name: None if math.isnan(v) else v
                       for name, v in zip(self.metric_names, self._metric_values)}
        return ns, counts, {name: self._ratios[i] for i, name in enumerate(self.names)}, metrics

    def _measure_overhead(self):
        """The least of each series over empty blocks: what a block reads
        of itself (None for a counter that does not count)."""
        least = None
        for _ in range(OVERHEAD_BLOCKS):
            ns, counts, _ratios, _metrics = self._end(self._begin())
            sample = dict(counts, ns=ns)
            least = sample if least is None else {
                k: None if v is None or least[k] is None else min(v, least[k])
                for k, v in sample.items()}
        return least

    def __exit__(self, exc_type, exc, tb):
        begun, self._block = self._block, None
        try:
            ns, counts, self.ratios, self.metrics = self._end(begun)
            less = self.overhead or {}
            # What the block itself read, never below 0.
            self.ns = max(0, ns - (less.get("ns") or 0))
            self.values = {name: None if v is None else max(0, v - (less.get(name) or 0))
                           for name, v in counts.items()}
        except Error:
            if exc_type is None:  # else the block's own exception goes on
                raise
        return False

    def __repr__(self):
        if self.values is None:
            return "<upmc.Counters %s%s>" % (",".join(self.names) or "time only",
                                             " closed" if self.closed else "")
        shown = ", ".join("%s=%s" % kv for kv in self.values.items())
        return "<upmc.Counters %sns=%d%s>" % (shown + ", " if shown else "", self.ns,
                                              ", overhead subtracted" if self.overhead else "")


Event = namedtuple("Event", "name pmu desc")


def events():
    """Every event upmc knows by name on this machine, as Event(name, pmu,
    desc) tuples grouped by PMU (upmc_list_events)."""
    found = []

    def add(info, _arg):
        i = info.contents
        found.append(Event(_text(i.name), _text(i.pmu), _text(i.desc)))
        return 0

    err = lib.upmc_list_events(LIST_FN(add), None)
    if err < 0:
        fail(err)
    return found


Metric = namedtuple("Metric", "name group unit percent desc events formula cpus source why_not")


def metrics():
    """The catalogue of metrics, as Metric tuples (upmc_list_metrics): a
    name may come once per kind of CPU; why_not is "" where this machine
    computes it, else why not."""
    found = []

    def add(info, _arg):
        i = info.contents
        found.append(Metric(_text(i.name), _text(i.group), _text(i.unit), bool(i.percent),
                            _text(i.desc), _text(i.events), _text(i.formula), _text(i.cpus),
                            _text(i.source), _text(i.why_not)))
        return 0

    err = lib.upmc_list_metrics(METRIC_FN(add), None)
    if err < 0:
        fail(err)
    return found
