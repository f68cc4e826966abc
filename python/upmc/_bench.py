# SPDX-License-Identifier: MIT
"""measure(): a function's per-call cost (batches as upmc_bench runs them);
measured: every call of a function counted (a region)."""
import ctypes
import errno
import functools
import math
import threading
import weakref
from collections import namedtuple
from itertools import repeat

from ._counters import Counters, _text, c_string
from ._lib import NS, Error, Stat, fail, lib, thread_token, unchecked

# Statistics of one series, per call: samples, min, max, median, mean.
Stats = namedtuple("Stats", "count min max median mean")

# upmc_bench's limits (lib/measure/bench.c), which measure() follows: batches grow
# tenfold up to this many calls, and a sizing batch whose read failed is
# run again, SIZING_FAILURES times in all at most.
MAX_REPEATS = 10**9
SIZING_FAILURES = 3


def _nothing(*args):
    pass


class Result:
    """Per-call statistics: ns (Stats of nanoseconds), counters (Stats by
    event name, None for a counter that did not count), overhead (what was
    subtracted from each, per call, by "ns" and event name), metrics (by
    name, for the metrics the spec names: each of its inputs' per-call
    mean, overhead subtracted; None where it has no value, why in
    metric_info), repeats (calls per sample), samples, dropped (samples a
    read failed in), paths and summary (as in Counters). No statistic is
    below 0."""

    def __init__(self, counters, ns, by_name, overhead, repeats, samples, dropped):
        self.ns = ns
        self.counters = by_name
        self.overhead = overhead
        self.metrics = _metrics_of_means(counters, by_name)
        self.metric_info = counters.metric_info
        self.repeats = repeats
        self.samples = samples
        self.dropped = dropped
        self.paths = counters.paths
        self.summary = counters.summary

    def __str__(self):
        if self.ns is None:
            return "no samples"
        lines = ["%-16s %12.1f  (min %.1f, max %.1f, %d samples of %d calls)"
                 % ("ns/call median", self.ns.median, self.ns.min, self.ns.max,
                    self.ns.count, self.repeats)]
        for name, st in self.counters.items():
            lines.append("%-16s %12s  (%s)" % (name, "%.1f" % st.median if st else "-",
                                               self.paths[name].how))
        for name, value in self.metrics.items():
            info = self.metric_info[name]
            if value is None:
                shown, note = "-", info.why or "an input did not count, or a denominator is 0"
            else:
                shown = "%.1f%%" % (100 * value) if info.percent else "%.3f" % value
                note = "of the per-call means"
            lines.append("%-16s %12s  (%s)" % (name, shown, note))
        return "\n".join(lines)


def _metrics_of_means(counters, by_name):
    """Each metric of counters' set from its inputs' per-call means, the
    overhead already subtracted (upmc_metrics_of_counts): the metric of the
    counts of all the calls measured, each call less its overhead. Not
    from the medians: each counter's can come from another sample, and a
    ratio of two samples' counts is no sample's."""
    names = counters.metric_names
    if not names:
        return {}
    means = (ctypes.c_double * max(1, len(counters.names)))(
        *(by_name[name].mean if by_name[name] else math.nan for name in counters.names))
    values = (ctypes.c_double * len(names))()
    err = lib.upmc_metrics_of_counts(counters._set, means, values)
    if err < 0:
        fail(err)
    return {name: None if math.isnan(v) else v for name, v in zip(names, values)}


def _series(region, what, corrected, calls=1):
    """Stats of a region's series per call (None when it has no sample);
    corrected: the region's reads subtracted."""
    st = Stat()
    err = lib.upmc_region_stat(region, what, corrected, ctypes.byref(st))
    if err < 0:
        fail(err)
    if not st.count:
        return None
    return Stats(st.count, st.min / calls, st.max / calls, st.median / calls, st.mean / calls)


def _less(stats, minus):
    """stats less minus, never below 0: no cost or count is, though noise
    can take the difference there."""
    if stats is None:
        return None
    return Stats(stats.count, *(max(0.0, v - (minus or 0.0)) for v in stats[1:]))


def _series_of(counters):
    yield "ns", NS
    for i, name in enumerate(counters.names):
        yield name, i


def _calls(fn, args, n):
    for _ in repeat(None, n):
        fn(*args)


def _loop_only(fn, args, n):
    """_calls without the call: the loop that measure() subtracts."""
    for _ in repeat(None, n):
        pass


def _batch(handle, loop, fn, args, n):
    _begin(handle)
    loop(fn, args, n)
    _end(handle)


def _batch_size(handle, loop, fn, args, min_ns):
    """Calls per batch: tenfold from 1 until a batch lasts min_ns (which
    warms fn up too), as upmc_bench sizes them."""
    n, failures, last = 1, 0, ctypes.c_double()
    while True:
        _batch(handle, loop, fn, args, n)
        if lib.upmc_region_last(handle, NS, 0, ctypes.byref(last)) < 0:
            # A failed read tells nothing of the batch's length.
            failures += 1
            if failures == SIZING_FAILURES:
                return n
        elif last.value >= min_ns or n > MAX_REPEATS // 10:
            return n
        else:
            n *= 10


def _batches(counters, loop, fn, args, repeats, min_ns, samples):
    """upmc_bench's batches of loop(fn, args, n) as regions of counters'
    set, run from Python: an exception of fn (KeyboardInterrupt too) ends
    them at once. Returns the per-call Stats by series (the reads
    subtracted), the calls per batch (repeats, or sized to last min_ns
    when None) and the samples dropped."""
    region = _open_region(counters)
    handle = ctypes.c_void_p(region)
    try:
        if repeats is None:
            repeats = _batch_size(handle, loop, fn, args, min_ns)
        else:
            _batch(handle, loop, fn, args, repeats)  # warms fn up
        lib.upmc_region_reset(handle)
        for _ in range(samples):
            _batch(handle, loop, fn, args, repeats)
        dropped = lib.upmc_region_dropped(handle)
        if dropped == samples:
            raise Error(errno.ENODATA, "upmc.measure: all %d samples were dropped: %s"
                        % (samples, _text(lib.upmc_last_error())))
        per_call = {what: _series(handle, i, 1, repeats) for what, i in _series_of(counters)}
    finally:
        lib.upmc_region_close(handle)
    return per_call, repeats, dropped


def _count(name, value, least):
    """value, checked to be an int of least or more (a bool is no count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("measure: %s must be an int, not %s" % (name, type(value).__name__))
    if value < least:
        raise ValueError("measure: %s must be %d or more, not %d" % (name, least, value))
    return value


def _own_overhead(what, options):
    """measure() and measured subtract their own overhead: Counters'
    subtract_overhead is not one of their options."""
    if "subtract_overhead" in options:
        raise TypeError("%s subtracts its own overhead (the result's .overhead): "
                        "subtract_overhead is an option of Counters only" % what)


def measure(fn, *args, spec="", repeats=None, samples=31, min_ns=1000000, **options):
    """Runs fn(*args) in batches until a batch lasts min_ns (or exactly
    `repeats` calls per batch when given), then `samples` batches, and
    returns a Result of per-call statistics. The library's reads are
    subtracted, and so is the loop around the calls (the same batches of
    a loop that calls nothing): what remains is the cost of the call
    fn(*args) in Python. fn's first exception, KeyboardInterrupt too, ends
    the calls and is raised. spec and options as for Counters ("": time
    only)."""
    if not callable(fn):
        raise TypeError("measure: fn must be callable, not %s" % type(fn).__name__)
    _own_overhead("measure()", options)
    if repeats is not None:
        _count("repeats", repeats, 1)
    _count("samples", samples, 1)
    _count("min_ns", min_ns, 0)
    counters = Counters(spec, **options)
    try:
        per_call, repeats, dropped = _batches(counters, _calls, fn, args, repeats, min_ns,
                                              samples)
        loop, _, _ = _batches(counters, _loop_only, fn, args, repeats, min_ns, samples)
        overhead = {what: st.median if st else None for what, st in loop.items()}
        by_name = {what: _less(st, overhead[what]) for what, st in per_call.items()}
        # the metrics are computed with the set, before it closes
        return Result(counters, by_name.pop("ns"), by_name, overhead, repeats, samples, dropped)
    finally:
        counters.close()


class _Region:
    """A region over a set of the thread that first called the function.
    running: a counted call is between its begin and end; readers: stats()
    calls reading it now, from any thread; closing: close() was called, and
    the region goes when the last of those ends (free(), once)."""

    def __init__(self, spec, options):
        self.counters = Counters(spec, **options)
        self.thread = thread_token()
        self.running = self.closing = False
        self.readers = 0
        # readers and closing change under it: a stats() on another thread
        # either counts itself a reader before close() or sees closing.
        self.lock = threading.Lock()
        try:
            self.region = _open_region(self.counters)
        except BaseException:
            self.counters.close()
            raise
        # The region before its set, which must outlive it.
        self.free = weakref.finalize(self, _close_region, self.region, self.counters)
        self.handle = ctypes.c_void_p(self.region)
        try:
            self.overhead = self._calibrate()
        except BaseException:
            self.free()
            raise

    def read(self):
        """Whether stats() may read the region (not closing); it is then a
        reader until done_reading()."""
        with self.lock:
            if self.closing:
                return False
            self.readers += 1
            return True

    def done_reading(self):
        with self.lock:
            self.readers -= 1
        self.free_if_unused()

    def close(self):
        with self.lock:
            self.closing = True
        self.free_if_unused()

    def free_if_unused(self):
        """Frees the closing region once no call and no stats() uses it.
        The call sets running before it looks at closing, close() sets
        closing before it looks at running: whatever the order the GIL
        gives them, one of the two sees the other's flag."""
        with self.lock:
            unused = self.closing and not self.running and not self.readers
        if unused:
            self.free()

    def _calibrate(self):
        """What the Python calls around a call cost: an empty call timed the
        same way, subtracted from the statistics with the library's reads."""
        calibration = _open_region(self.counters)
        try:
            handle = ctypes.c_void_p(calibration)
            for _ in range(1000):
                _begin(handle)
                _nothing()
                _end(handle)
            medians = {}
            for what, i in _series_of(self.counters):
                st = _series(handle, i, 0)
                medians[what] = st.median if st else None
            return medians
        finally:
            lib.upmc_region_close(calibration)


_begin = unchecked("upmc_region_begin", None)  # (c_void_p)
_end = unchecked("upmc_region_end", None)


def _open_region(counters):
    """A new region over counters' set (its address)."""
    handle = ctypes.c_void_p()
    err = lib.upmc_region_open(ctypes.byref(handle), counters._set, None)
    if err < 0:
        fail(err)
    return handle.value


def _close_region(region, counters):
    lib.upmc_region_close(region)
    counters.close()


def measured(spec="", **options):
    """Decorator: every call of the function counted, as a region.

    @upmc.measured("task-clock")
    def parse(text): ...

    parse.stats() returns a Result of per-call statistics so far (the cost
    of upmc's reads and of the Python calls around the function subtracted,
    never below 0), from any thread; inside a call, of the calls before
    it (the call counts when it ends). The set and region open at the first call, for that
    thread: calls from other threads, and calls inside a call (recursion),
    run uncounted (parse.uncounted says how many). parse.close() frees them:
    during a call (inside it, or from another thread) or a stats() on
    another thread, when that ends.
    """
    c_string(spec, "spec")
    _own_overhead("measured", options)

    def decorate(fn):
        state = {"region": None, "uncounted": 0}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            region = state["region"]
            if region is None:
                region = state["region"] = _Region(spec, options)
            if region.running or region.thread != thread_token():
                state["uncounted"] += 1
                return fn(*args, **kwargs)
            # running, then closing, here; closing, then running, in
            # close() (free_if_unused()).
            region.running = True
            if region.closing:  # closed since it was looked up
                region.running = False
                region.free_if_unused()
                state["uncounted"] += 1
                return fn(*args, **kwargs)
            _begin(region.handle)
            try:
                return fn(*args, **kwargs)
            finally:
                _end(region.handle)
                region.running = False
                if region.closing:
                    region.free_if_unused()

        def stats():
            # A reader, so that a close() on another thread meanwhile
            # frees the region after this read of it, not during it.
            region = state["region"]
            if region is None or not region.read():
                raise Error(errno.ENODATA, "%s has not been called since it was made or closed"
                            % fn.__name__)
            try:
                by = {what: _less(_series(region.handle, i, 0), region.overhead[what])
                      for what, i in _series_of(region.counters)}
                ns = by.pop("ns")
                return Result(region.counters, ns, by, region.overhead, 1,
                              ns.count if ns else 0, lib.upmc_region_dropped(region.region))
            finally:
                region.done_reading()

        def close():
            region, state["region"] = state["region"], None
            if region is not None:
                region.close()

        wrapper.stats = stats
        wrapper.close = close
        wrapper.uncounted = lambda: state["uncounted"]
        return wrapper

    return decorate
