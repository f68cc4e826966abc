# SPDX-License-Identifier: MIT
"""upmc.measure (upmc_bench) and the upmc.measured decorator (regions)."""
import errno
import mmap
import signal
import subprocess
import sys
import threading

import pytest

import upmc
from conftest import NO_PMU, PAGE, busy, python_env, run_python, software_or_skip


def fresh_pages(pages):
    with mmap.mmap(-1, pages * PAGE) as m:
        for i in range(pages):
            m[i * PAGE] = 1


def test_measure_batches_as_asked(no_fd_leak):
    calls = []
    r = upmc.measure(calls.append, 1, repeats=5, samples=7)
    # one warm-up batch, then the samples, for fn and nothing else
    assert len(calls) == 5 * (1 + 7)
    assert (r.repeats, r.samples, r.dropped) == (5, 7, 0)
    assert r.ns.count == 7 and r.ns.min <= r.ns.median <= r.ns.max
    assert r.counters == {} and set(r.overhead) == {"ns"}
    assert "time only" in r.summary or "timer" in r.summary


def test_measure_grows_the_batch_to_min_ns(no_fd_leak):
    r = upmc.measure(busy, 20000, min_ns=1000000, samples=3)
    # 20 us of CPU a call: 100 calls last 1 ms whatever else runs
    assert r.repeats in (1, 10, 100) and r.samples == 3


def test_measure_counts_per_call(no_fd_leak):
    software_or_skip("task-clock,page-faults").close()
    r = upmc.measure(fresh_pages, 16, spec="task-clock,page-faults", repeats=10, samples=9)
    assert 15.5 <= r.counters["page-faults"].median <= 24
    r = upmc.measure(busy, 50000, spec="task-clock", repeats=10, samples=9)
    assert r.counters["task-clock"].median >= 45000  # ns of CPU per call
    assert r.paths["task-clock"].how in ("user", "syscall")


def test_measure_time_only_fallback(no_fd_leak):
    r = upmc.measure(busy, 10000, spec="task-clock," + NO_PMU, time_only=True, samples=5)
    assert r.counters[NO_PMU] is None
    assert r.paths[NO_PMU].how == "unavailable"
    assert r.ns.count == 5 and r.ns.median > 0


def test_measure_raises_what_fn_raised(no_fd_leak):
    calls = []

    def fails():
        calls.append(1)
        raise RuntimeError("from fn")

    with pytest.raises(RuntimeError, match="from fn"):
        upmc.measure(fails)
    assert len(calls) == 1  # no call after it


def test_measure_bad_input(no_fd_leak):
    with pytest.raises(TypeError, match="callable"):
        upmc.measure(None)
    with pytest.raises(ValueError, match="repeats"):
        upmc.measure(len, "x", repeats=0)
    with pytest.raises(upmc.Error) as e:
        upmc.measure(len, "x", spec="cyclez")
    assert e.value.errno == errno.ENOENT and "did you mean" in e.value.strerror


# Each bad argument of measure() in one fresh interpreter: unchecked, a
# negative samples or min_ns wrapped around in C and ran for hours.
BAD_ARGUMENTS = r"""
import upmc
calls = []
for bad in ({"samples": -1}, {"samples": 0}, {"samples": 2.5}, {"samples": True},
            {"min_ns": -5}, {"min_ns": "1ms"}, {"repeats": 0}, {"repeats": 2.0}):
    try:
        upmc.measure(calls.append, 1, **bad)
        print("accepted", bad)
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
print(len(calls), "calls")
"""


def test_measure_checks_its_arguments(no_fd_leak):
    run = run_python(BAD_ARGUMENTS)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "ValueError measure: samples must be 1 or more, not -1",
        "ValueError measure: samples must be 1 or more, not 0",
        "TypeError measure: samples must be an int, not float",
        "TypeError measure: samples must be an int, not bool",
        "ValueError measure: min_ns must be 0 or more, not -5",
        "TypeError measure: min_ns must be an int, not str",
        "ValueError measure: repeats must be 1 or more, not 0",
        "TypeError measure: repeats must be an int, not float",
        "0 calls"]


# The first exception of fn ends measure() at once, however many calls
# were asked for: a fresh interpreter, in case it does not.
FIRST_EXCEPTION = r"""
import upmc
calls = []
def fails():
    calls.append(1)
    raise RuntimeError("from fn")
try:
    upmc.measure(fails, repeats=10**12)
except RuntimeError as e:
    print(e, len(calls))
"""


def test_measure_stops_at_the_first_exception():
    run = run_python(FIRST_EXCEPTION)
    assert (run.returncode, run.stdout) == (0, "from fn 1\n"), run.stderr


INTERRUPTED = r"""
import signal, upmc
signal.signal(signal.SIGINT, signal.default_int_handler)
calls = 0
def fn():
    global calls
    calls += 1
    if calls == 1:
        print("running", flush=True)
try:
    upmc.measure(fn, repeats=10**12)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_measure_stops_on_ctrl_c():
    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED], env=python_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "running\n"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("measure() went on for 60 s after SIGINT")
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert (child.returncode, out) == (0, "interrupted\n"), err


def test_measure_reports_no_negative_cost(no_fd_leak):
    # len is cheaper than any Python function: with what an empty Python
    # call costs subtracted, its median came out below 0.
    r = upmc.measure(len, "abc", samples=9)
    assert r.ns.min >= 0 and r.ns.median >= 0 and r.ns.mean >= 0
    assert r.overhead["ns"] > 0


def test_measured_counts_every_call(no_fd_leak):
    software_or_skip("task-clock,page-faults").close()

    @upmc.measured("task-clock,page-faults")
    def work(pages):
        fresh_pages(pages)
        return pages

    with pytest.raises(upmc.Error) as e:
        work.stats()
    assert e.value.errno == errno.ENODATA
    assert [work(8) for _ in range(20)] == [8] * 20
    s = work.stats()
    assert s.ns.count == 20 and s.dropped == 0
    assert 7.5 <= s.counters["page-faults"].median <= 12
    assert s.counters["task-clock"].median > 0
    assert work.__name__ == "work"
    work.close()
    work.close()


def test_measured_counts_raising_calls_and_skips_others(no_fd_leak):
    @upmc.measured()
    def f(depth):
        if depth == "raise":
            raise ValueError("inside")
        if depth:
            return f(depth - 1)
        return 0

    f(3)  # one counted call, three inside it
    with pytest.raises(ValueError):
        f("raise")
    t = threading.Thread(target=f, args=(0,))
    t.start()
    t.join()
    assert f.stats().ns.count == 2
    assert f.uncounted() == 3 + 1
    f.close()


def test_measured_bad_input(no_fd_leak):
    with pytest.raises(TypeError):
        upmc.measured(5)

    @upmc.measured("cyclez")
    def g():
        pass

    with pytest.raises(upmc.Error, match="did you mean"):
        g()


# close() while a call runs, from inside it or from another thread, in a
# fresh interpreter (a crash fails the test). The set is one file
# descriptor: it stays open until the call ends its region, then closes.
CLOSE_DURING_A_CALL = r"""
import errno, os, sys, threading
import upmc

def fds():
    return len(os.listdir("/proc/self/fd"))

@upmc.measured("task-clock")
def f(close):
    at_close = fds()
    close()
    return fds() - at_close

def from_another_thread():
    inside, closed = threading.Event(), threading.Event()
    def close_it():
        inside.wait()
        f.close()
        closed.set()
    other = threading.Thread(target=close_it)
    other.start()
    inside.set()
    closed.wait()
    other.join()

before = fds()
kept = f({"inside": f.close, "thread": from_another_thread}[sys.argv[1]])
try:
    f.stats()
    stats_after = "counted"
except upmc.Error as e:
    stats_after = errno.errorcode[e.errno]
print(kept, fds() - before, stats_after)
f(lambda: None)  # a new region from this call on
print(f.stats().ns.count, fds() - before)
f.close()
print(fds() - before)
"""


@pytest.mark.parametrize("closer", ["inside", "thread"])
def test_measured_close_during_a_call_frees_at_its_end(closer):
    software_or_skip("task-clock").close()
    run = run_python(CLOSE_DURING_A_CALL, closer)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == "0 0 ENODATA\n1 1\n0\n"


# stats() inside a call, as a function that reports on itself does: each
# call counts when it ends (the query used to drop the call it ran in).
STATS_INSIDE_A_CALL = r"""
import upmc

@upmc.measured()
def f():
    return f.stats().ns

f()
so_far = [f().count for _ in range(20)]
s = f.stats()
print(so_far == list(range(1, 21)), s.ns.count, s.dropped)
f.close()
"""


def test_measured_stats_inside_a_call_counts_it():
    run = run_python(STATS_INSIDE_A_CALL, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == "True 21 0\n"


# close() on another thread while stats() reads the region: the region is
# freed when stats() is done with it, not under it (a use after free that
# ASan reports, and often a crash without it). The trace function makes
# the interleaving certain: stats() waits for the close() at its first
# read of a series.
STATS_RACING_CLOSE = r"""
import errno, os, sys, threading
import upmc

@upmc.measured("task-clock")
def f():
    pass

f()
fds = len(os.listdir("/proc/self/fd"))
go, closed = threading.Event(), threading.Event()

def closer():
    go.wait()
    f.close()
    closed.set()

def trace(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "_series" and not go.is_set():
        go.set()
        closed.wait(10)
    return None

t = threading.Thread(target=closer)
t.start()
sys.settrace(trace)
s = f.stats()
sys.settrace(None)
t.join()
print(closed.is_set(), s.ns.count, s.counters["task-clock"].count, s.dropped)
print(fds - len(os.listdir("/proc/self/fd")))  # the set's one, closed after stats()
try:
    f.stats()
except upmc.Error as e:
    print(errno.errorcode[e.errno])
"""


def test_measured_stats_racing_close_reads_then_frees():
    software_or_skip("task-clock").close()
    run = run_python(STATS_RACING_CLOSE, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == "True 1 1 0\n1\nENODATA\n"


# Per-call statistics that the region reports, scripted by event name: the
# calls of fn, and the empty loop that measure() subtracts.
METRIC_SPEC = "IPC,branch-miss-ratio"
OF_FN = {"instructions": upmc.Stats(9, 800.0, 5000.0, 900.0, 2100.0),
         "cycles": upmc.Stats(9, 300.0, 2000.0, 800.0, 1100.0),
         "branches": upmc.Stats(9, 100.0, 400.0, 200.0, 220.0),
         "branch-misses": upmc.Stats(9, 1.0, 40.0, 4.0, 12.0)}
OF_LOOP = {"instructions": upmc.Stats(9, 90.0, 120.0, 100.0, 104.0),
           "cycles": upmc.Stats(9, 90.0, 130.0, 100.0, 105.0),
           "branches": upmc.Stats(9, 19.0, 21.0, 20.0, 20.0),
           "branch-misses": upmc.Stats(9, 1.0, 3.0, 2.0, 2.0)}


def scripted_batches(monkeypatch, of_fn, of_loop):
    """measure()'s batches run as they do, their counters' statistics
    replaced by the script's (by event name; ns stays measured)."""
    real = upmc._bench._batches

    def batches(counters, loop, *rest):
        per_call, repeats, dropped = real(counters, loop, *rest)
        script = of_fn if loop is upmc._bench._calls else of_loop
        for i, name in enumerate(counters.names):
            per_call[name] = script[name]
        return per_call, repeats, dropped

    monkeypatch.setattr(upmc._bench, "_batches", batches)


def test_measure_metrics_of_the_corrected_means(monkeypatch, no_fd_leak):
    """A metric is computed from its inputs' per-call means, each less the
    loop's per-call median (r.overhead): (2100 - 100) / (1100 - 100)
    instructions per cycle, (12 - 2) / (220 - 20) of branches missed. Not
    from the medians (900 - 100) / (800 - 100), nor from the counts
    before the loop is subtracted (2100 / 1100)."""
    scripted_batches(monkeypatch, OF_FN, OF_LOOP)
    r = upmc.measure(len, "abc", spec=METRIC_SPEC, time_only=True, repeats=10, samples=9)
    assert r.overhead["instructions"] == 100.0 and r.overhead["cycles"] == 100.0
    assert r.counters["instructions"].mean == 2000.0 and r.counters["cycles"].mean == 1000.0
    assert r.metrics == {"IPC": 2.0, "branch-miss-ratio": 0.05}
    assert r.metric_info["IPC"].unit == "insn per cycle"
    assert r.metric_info["branch-miss-ratio"].percent is True
    text = str(r)
    assert "\nIPC                     2.000  (of the per-call means)" in text
    assert "\nbranch-miss-ratio         5.0%  (of the per-call means)" in text


def test_measure_metrics_without_a_value(monkeypatch, no_fd_leak):
    """An input that did not count, or a denominator the loop's cost takes
    to 0 (never below): the metric is None."""
    of_fn = dict(OF_FN, cycles=upmc.Stats(9, 50.0, 150.0, 90.0, 95.0), branches=None)
    scripted_batches(monkeypatch, of_fn, OF_LOOP)
    r = upmc.measure(len, "abc", spec=METRIC_SPEC, time_only=True, repeats=10, samples=9)
    assert r.counters["cycles"].mean == 0.0 and r.counters["branches"] is None
    assert r.metrics == {"IPC": None, "branch-miss-ratio": None}
    assert "\nIPC                         -  (" in str(r)


def test_measure_metrics_on_this_machine(no_fd_leak):
    """The same, counted: IPC from the per-call means where the machine
    counts its inputs, else None with the reason."""
    r = upmc.measure(busy, 10000, spec="IPC", time_only=True, repeats=10, samples=5)
    ins, cyc = r.counters["instructions"], r.counters["cycles"]
    if ins is None or cyc is None:
        assert r.metrics == {"IPC": None}
        assert "cannot be counted" in r.metric_info["IPC"].why
    else:
        assert r.metrics["IPC"] == pytest.approx(ins.mean / cyc.mean)
    assert upmc.measure(len, "", spec="task-clock", samples=3).metrics == {}


def test_measured_metrics_of_the_corrected_means(monkeypatch, no_fd_leak):
    """measured's metrics follow the same rule, less the cost of an empty
    call measured once (its overhead), scripted here with its series."""
    names = upmc.Counters(METRIC_SPEC, time_only=True)
    index = dict(zip(range(len(names.names)), names.names))
    names.close()
    monkeypatch.setattr(upmc._bench._Region, "_calibrate", lambda self: dict(
        {name: st.median for name, st in OF_LOOP.items()}, ns=10.0))
    real_series = upmc._bench._series
    monkeypatch.setattr(upmc._bench, "_series", lambda region, what, corrected, calls=1:
                        OF_FN[index[what]] if what in index
                        else real_series(region, what, corrected, calls))

    @upmc.measured(METRIC_SPEC, time_only=True)
    def f():
        pass

    f()
    s = f.stats()
    assert s.metrics == {"IPC": 2.0, "branch-miss-ratio": 0.05}
    f.close()
