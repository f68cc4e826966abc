# SPDX-License-Identifier: MIT
"""measure(): a function's per-call cost (upmc_bench); measured: every call
of a function counted (a region)."""
import ctypes
import errno
import functools
import threading
import weakref
from collections import namedtuple

from ._counters import Counters, c_string
from ._lib import BENCH_FN, NS, BenchOptions, BenchResult, Error, Stat, fail, lib, unchecked

# Statistics of one series, per call: samples, min, max, median, mean.
Stats = namedtuple("Stats", "count min max median mean")


def _nothing(*args):
    pass


class Result:
    """Per-call statistics: ns (Stats of nanoseconds), counters (Stats by
    event name, None for a counter that did not count), overhead (the medians
    of an empty call, by "ns" and event name, already subtracted), repeats
    (calls per sample), samples, dropped (samples a read failed in), paths
    and summary (as in Counters)."""

    def __init__(self, counters, ns, by_name, overhead, repeats, samples, dropped):
        self.ns = ns
        self.counters = by_name
        self.overhead = overhead
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
        return "\n".join(lines)


def _stats(stat, minus):
    if not stat.count:
        return None
    return Stats(stat.count, stat.min - minus, stat.max - minus, stat.median - minus,
                 stat.mean - minus)


def _bench(counters, call, opts):
    """upmc_bench over call(); an exception in it ends the calls and is raised."""
    raised = []

    def trampoline(_arg):
        if not raised:
            try:
                call()
            except BaseException as e:  # KeyboardInterrupt too: stop, then raise it
                raised.append(e)

    result = BenchResult()
    err = lib.upmc_bench(counters._set, BENCH_FN(trampoline), None, ctypes.byref(opts),
                         ctypes.byref(result))
    if raised:
        raise raised[0]
    if err < 0:
        fail(err)
    return result


def measure(fn, *args, spec="", repeats=None, samples=31, min_ns=1000000, **options):
    """Runs fn(*args) in batches until a batch lasts min_ns (or exactly
    `repeats` calls per batch when given), then `samples` batches, and
    returns a Result of per-call statistics. The library subtracts the cost
    of its own reads; the cost of calling a Python function from C is
    measured the same way with an empty function and subtracted too.
    spec and options as for Counters ("": time only)."""
    if not callable(fn):
        raise TypeError("measure: fn must be callable, not %s" % type(fn).__name__)
    if repeats is not None and (not isinstance(repeats, int) or repeats < 1):
        raise ValueError("measure: repeats must be a positive int")
    counters = Counters(spec, **options)
    try:
        opts = BenchOptions(ctypes.sizeof(BenchOptions), repeats or 1, min_ns, repeats or 0,
                            samples)
        res = _bench(counters, lambda: fn(*args), opts)
        # The empty call, batched exactly as fn was.
        opts.min_repeats = opts.max_repeats = res.repeats
        empty = _bench(counters, lambda: _nothing(*args), opts)
    finally:
        counters.close()
    overhead = {"ns": empty.ns.median}
    by_name = {}
    for i, name in enumerate(counters.names):
        overhead[name] = empty.counter[i].median
        by_name[name] = _stats(res.counter[i], overhead[name])
    return Result(counters, _stats(res.ns, overhead["ns"]), by_name, overhead,
                  res.repeats, res.samples, res.dropped)


class _Region:
    """A region over a set of the thread that first called the function.
    running: a counted call is between its begin and end; closing: close()
    was called, and the region goes when that call ends (free())."""

    def __init__(self, spec, options):
        self.counters = Counters(spec, **options)
        self.thread = threading.get_ident()
        self.running = self.closing = False
        try:
            self.region = _open_region(self.counters)
        except Error:
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
            return {what: _region_stat(calibration, i).median for what, i in self.series()}
        finally:
            lib.upmc_region_close(calibration)

    def series(self):
        yield "ns", NS
        for i, name in enumerate(self.counters.names):
            yield name, i


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


def _region_stat(region, what):
    """Statistics of a region's series as measured, the reads' cost included."""
    st = Stat()
    err = lib.upmc_region_stat(region, what, 0, ctypes.byref(st))
    if err < 0:
        fail(err)
    return st


def measured(spec="", **options):
    """Decorator: every call of the function counted, as a region.

    @upmc.measured("task-clock")
    def parse(text): ...

    parse.stats() returns a Result of per-call statistics so far (the cost
    of upmc's reads and of the Python calls around the function
    subtracted). The set and region open at the first call, for that
    thread: calls from other threads, and calls inside a call (recursion),
    run uncounted (parse.uncounted says how many). parse.close() frees them:
    during a call (inside it, or from another thread), when that call ends.
    """
    c_string(spec, "spec")

    def decorate(fn):
        state = {"region": None, "uncounted": 0}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            region = state["region"]
            if region is None:
                region = state["region"] = _Region(spec, options)
            if region.running or region.thread != threading.get_ident():
                state["uncounted"] += 1
                return fn(*args, **kwargs)
            # running, then closing, here; closing, then running, in
            # close(): whatever the order the GIL gives them, one of the
            # two sees the other's flag and frees the region after its
            # last use (free() runs once).
            region.running = True
            if region.closing:  # closed since it was looked up
                region.running = False
                region.free()
                state["uncounted"] += 1
                return fn(*args, **kwargs)
            _begin(region.handle)
            try:
                return fn(*args, **kwargs)
            finally:
                _end(region.handle)
                region.running = False
                if region.closing:
                    region.free()

        def stats():
            region = state["region"]
            if region is None:
                raise Error(errno.ENODATA, "%s has not been called yet" % fn.__name__)
            by = {what: _stats(_region_stat(region.region, i), region.overhead[what])
                  for what, i in region.series()}
            ns = by.pop("ns")
            return Result(region.counters, ns, by, region.overhead, 1,
                          ns.count if ns else 0, lib.upmc_region_dropped(region.region))

        def close():
            region, state["region"] = state["region"], None
            if region is not None:
                region.closing = True
                if not region.running:
                    region.free()

        wrapper.stats = stats
        wrapper.close = close
        wrapper.uncounted = lambda: state["uncounted"]
        return wrapper

    return decorate
