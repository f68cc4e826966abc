# SPDX-License-Identifier: MIT
"""upmc.Counters on the real kernel: software events, the time-only
fallback, hardware events that this machine may or may not have, bad input."""
import errno
import mmap
import os
import threading
import time

import pytest

import upmc
from conftest import NO_PMU, PAGE, busy, software_or_skip


def touch_fresh_pages(pages):
    with mmap.mmap(-1, pages * PAGE) as m:
        for i in range(pages):
            m[i * PAGE] = 1


def test_page_faults_count_fresh_pages(no_fd_leak):
    with software_or_skip("task-clock,page-faults") as c:
        touch_fresh_pages(64)
    c.close()
    assert set(c.values) == {"task-clock", "page-faults"}
    assert c.values["page-faults"] >= 64
    assert c.paths["page-faults"].how in ("user", "syscall")
    assert c.paths["page-faults"].why
    assert c.summary.startswith("2 counters")


def test_task_clock_is_the_threads_cpu_time(no_fd_leak):
    wall0 = time.perf_counter_ns()
    with software_or_skip("task-clock") as c:
        busy(5000000)
    wall = time.perf_counter_ns() - wall0
    c.close()
    # 5 ms of this thread's CPU time passed inside, and no more wall time
    # than outside; the block's own clock agrees (calibrated within 1%).
    assert 4500000 <= c.values["task-clock"] <= wall
    assert c.values["task-clock"] <= c.ns * 1.02 and c.ns <= wall * 1.02


def test_context_switches_count_sleeps(no_fd_leak):
    with software_or_skip("context-switches") as c:
        for _ in range(3):
            time.sleep(0.001)
    c.close()
    assert c.values["context-switches"] >= 3


def test_time_only_block_measures_time(no_fd_leak):
    wall0 = time.perf_counter_ns()
    with upmc.Counters("") as c:
        time.sleep(0.01)
    wall = time.perf_counter_ns() - wall0
    c.close()
    assert c.values == {} and c.paths == {} and c.ratios == {}
    assert "time only" in c.summary or "timer" in c.summary
    # the calibrated clock is within 1%
    assert 9900000 <= c.ns <= wall + wall // 50


def test_time_only_option_keeps_what_cannot_count(no_fd_leak):
    spec = "task-clock," + NO_PMU
    with pytest.raises(upmc.Error) as e:
        upmc.Counters(spec)
    assert e.value.errno == errno.ENODEV
    assert "no PMU 'nosuchpmu'" in e.value.strerror
    with upmc.Counters(spec, time_only=True) as c:
        busy(100000)
    c.close()
    assert c.values[NO_PMU] is None
    assert c.values["task-clock"] > 0
    assert c.paths[NO_PMU].how == "unavailable"
    assert "no PMU 'nosuchpmu'" in c.paths[NO_PMU].why
    assert "1 unavailable" in c.summary
    assert c.ratios[NO_PMU] == 0.0 and c.ratios["task-clock"] == 1.0
    assert c.ns > 0


def test_a_time_only_set_of_nothing_countable_still_times(no_fd_leak):
    with upmc.Counters(NO_PMU, time_only=True) as c:
        time.sleep(0.001)
    c.close()
    assert c.values == {NO_PMU: None}
    assert c.ns >= 990000


def test_hardware_events_count_or_say_why_not(no_fd_leak):
    """Counts on a machine with a PMU; elsewhere (this project's VMs) the
    open fails with the library's explanation, or reads None in time_only."""
    spec = "cycles,instructions,branch-misses"
    try:
        c = upmc.Counters(spec)
    except upmc.Error as e:
        assert e.errno > 0
        assert "'cycles'" in e.strerror, e.strerror
        with upmc.Counters(spec, time_only=True) as c:
            busy(100000)
        c.close()
        assert all(c.paths[name].how == "unavailable" for name in c.names)
        assert c.values == dict.fromkeys(c.names)
        return
    with c:
        busy(100000)
    c.close()
    assert c.values["instructions"] > 0 and c.values["cycles"] > 0


def test_multiplexed_software_events_report_full_ratio(no_fd_leak):
    with software_or_skip("task-clock,page-faults", multiplex=True) as c:
        touch_fresh_pages(4)
    c.close()
    assert c.ratios == {"task-clock": 1.0, "page-faults": 1.0}
    assert c.values["page-faults"] >= 4


def test_options_reach_the_library(no_fd_leak):
    with software_or_skip("task-clock", force_syscall=True) as c:
        pass
    c.close()
    assert c.paths["task-clock"].how == "syscall"
    # Software events are never read in user space.
    with pytest.raises(upmc.Error) as e:
        upmc.Counters("task-clock", require_user_read=True)
    assert e.value.errno == errno.EPERM
    assert "cannot be read from user space" in e.value.strerror
    with pytest.raises(upmc.Error) as e:
        upmc.Counters("task-clock", force_syscall=True, require_user_read=True)
    assert e.value.errno == errno.EINVAL


def test_read_gives_running_totals(no_fd_leak):
    c = software_or_skip("task-clock,page-faults")
    a = c.read()
    touch_fresh_pages(8)
    b = c.read()
    assert c.ratio("page-faults") == 1.0
    with pytest.raises(KeyError, match="no counter named 'cycles'"):
        c.ratio("cycles")
    c.close()
    assert len(a) == len(b) == 2
    assert b[0] > a[0] and b[1] - a[1] >= 8
    assert upmc.Counters("").read() == []


def test_a_block_that_raises_still_measures(no_fd_leak):
    c = software_or_skip("page-faults")
    with pytest.raises(KeyError):
        with c:
            raise KeyError("inside")
    assert not c.closed and c.values["page-faults"] is not None
    with c:  # and the set goes on
        touch_fresh_pages(2)
    c.close()
    assert c.values["page-faults"] >= 2


def test_unknown_event_says_what_was_meant(no_fd_leak):
    with pytest.raises(upmc.Error) as e:
        upmc.Counters("task-clock,branch-mises")
    assert e.value.errno == errno.ENOENT
    assert "did you mean 'branch-misses'" in e.value.strerror
    assert isinstance(e.value, OSError)
    assert "branch-mises" in str(e.value)


@pytest.mark.parametrize("spec,error,words", [
    (None, upmc.Error, "event spec is NULL"),
    (42, TypeError, "spec must be a str"),
    (b"task-clock", TypeError, "spec must be a str"),
    ("task\0-clock", ValueError, "NUL"),
    ("task-clock,task-clock", ValueError, "names an event twice"),
    ("task-clock,,page-faults", upmc.Error, "empty item"),
    ("r" + "f" * 17, upmc.Error, "64 bits"),
])
def test_bad_specs_raise_clearly(spec, error, words, no_fd_leak):
    with pytest.raises(error, match=words):
        upmc.Counters(spec)


def test_unknown_option_is_refused(no_fd_leak):
    with pytest.raises(TypeError, match="unknown option 'timeonly'"):
        upmc.Counters("task-clock", timeonly=True)


def test_use_after_close_raises(no_fd_leak):
    c = software_or_skip("task-clock")
    c.close()
    c.close()  # again: nothing
    for use in (c.read, c.__enter__, lambda: c.ratio("task-clock")):
        with pytest.raises(upmc.Error) as e:
            use()
        assert e.value.errno == errno.EBADF and "closed" in e.value.strerror
    with software_or_skip("task-clock") as c:
        pass
    c.close()  # a block leaves the set open; close() ends it
    with pytest.raises(upmc.Error, match="closed"):
        with c:
            pass


def read_in_another_thread(c):
    """What c.read() raised in another thread (None when it returned)."""
    raised = []

    def other():
        try:
            c.read()
        except upmc.Error as e:
            raised.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    return raised[0] if raised else None


def test_a_set_belongs_to_its_thread(no_fd_leak):
    # Refused before the C call: the inline reader (a set read in user
    # space) does not check the thread. A timer shows it on any machine:
    # the library has nothing to refuse there.
    for c in (software_or_skip("task-clock"), upmc.Counters("")):
        e = read_in_another_thread(c)
        assert e is not None and e.errno == errno.EPERM, e
        assert "upmc.Counters.read" in e.strerror and "one set per thread" in e.strerror
        c.read()  # still the opening thread's
        c.close()


def test_a_later_thread_is_not_the_exited_owner(no_fd_leak):
    # threading.get_ident() repeats for a thread started after another
    # exited; the owner check must not take the later thread for the owner.
    opened = []
    for _ in range(2):
        t = threading.Thread(target=lambda: opened.append(upmc.Counters("")))
        t.start()
        t.join()
    for c in opened:
        e = read_in_another_thread(c)
        assert e is not None and e.errno == errno.EPERM, e
        c.close()


def test_nothing_leaks_over_many_sets(no_fd_leak):
    for _ in range(200):
        upmc.Counters("task-clock,page-faults,context-switches", time_only=True).close()
        with pytest.raises(upmc.Error):
            upmc.Counters("page-faults,nosuchevent")
        with pytest.raises(ValueError):
            upmc.Counters("page-faults,page-faults")
        upmc.Counters("page-faults")  # never closed: the garbage collector does it


def test_events_lists_the_software_ones():
    found = {e.name: e for e in upmc.events()}
    assert found["task-clock"].pmu == "software"
    assert "cycles" in found


def test_a_forked_child_opens_its_own(no_fd_leak):
    c = software_or_skip("task-clock")
    pid = os.fork()
    if pid == 0:  # the child: the parent's set refuses, a new one counts
        try:
            c.read()
            os._exit(1)
        except upmc.Error as e:
            if e.errno != errno.ECHILD or "open a new set in the child" not in e.strerror:
                os._exit(2)
        with upmc.Counters("task-clock") as mine:
            busy(100000)
        mine.close()
        os._exit(0 if mine.values["task-clock"] > 0 else 3)
    _, status = os.waitpid(pid, 0)
    c.close()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_default_events_open_on_any_machine(no_fd_leak):
    c = upmc.Counters()
    assert c.names == tuple(upmc.DEFAULT_EVENTS.split(","))
    with c:
        touch_fresh_pages(8)
    c.close()
    assert set(c.values) == set(c.names) and c.ns > 0
    # What the machine cannot count reads None and says why; the rest counts.
    for name in c.names:
        if c.paths[name].how == "unavailable":
            assert c.values[name] is None and c.paths[name].why
        else:
            assert c.values[name] is not None
    if c.paths["page-faults"].how != "unavailable":
        assert c.values["page-faults"] >= 8


def test_default_events_take_time_only_false(no_fd_leak):
    probe = upmc.Counters()
    probe.close()
    unavailable = [name for name in probe.names if probe.paths[name].how == "unavailable"]
    if not unavailable:
        pytest.skip("this machine counts every default event: time_only=False opens too")
    with pytest.raises(upmc.Error) as e:
        upmc.Counters(time_only=False)
    assert "'%s'" % unavailable[0] in e.value.strerror


def test_one_counters_measures_many_blocks(no_fd_leak):
    c = software_or_skip("task-clock,page-faults")
    for pages in (4, 16, 64):
        with c:
            touch_fresh_pages(pages)
        assert not c.closed
        assert c.values["page-faults"] >= pages and c.values["task-clock"] > 0
    c.close()


def test_one_block_at_a_time(no_fd_leak):
    c = upmc.Counters("")
    with c:
        with pytest.raises(upmc.Error) as e:
            with c:
                pass
    c.close()
    assert e.value.errno == errno.EBUSY and "one block at a time" in e.value.strerror
    assert c.ns is not None  # the outer block measured


@pytest.mark.parametrize("value", ["no", "", 0, 1, None, "False"])
def test_options_are_true_or_false(value, no_fd_leak):
    makers = [lambda: upmc.Counters("task-clock", time_only=value),
              lambda: upmc.Counters("", subtract_overhead=value),
              lambda: upmc.Profile("", time_only=value),
              lambda: upmc.measure(len, "", kernel=value)]
    for make in makers:
        with pytest.raises(TypeError, match="must be True or False"):
            make()


def test_subtract_overhead_takes_the_least_of_empty_blocks(monkeypatch, no_fd_leak):
    # What the blocks read, scripted: the empty blocks measured at open
    # (1000 to 1020 ns, 1 or 2 page faults), then two blocks.
    spec = "page-faults," + NO_PMU
    empty = [(1000 + 10 * (i % 3), {"page-faults": 1 + i % 2, NO_PMU: None})
             for i in range(upmc._counters.OVERHEAD_BLOCKS)]
    blocks = [(5000, {"page-faults": 7, NO_PMU: None}), (900, {"page-faults": 0, NO_PMU: None})]
    script = iter(empty + blocks)
    monkeypatch.setattr(upmc.Counters, "_end",
                        lambda self, begun: next(script) + (dict.fromkeys(self.names, 1.0), None))
    c = upmc.Counters(spec, time_only=True, subtract_overhead=True)
    assert c.overhead == {"ns": 1000, "page-faults": 1, NO_PMU: None}
    with c:
        pass
    assert (c.ns, c.values) == (4000, {"page-faults": 6, NO_PMU: None})
    assert repr(c).endswith("ns=4000, overhead subtracted>")
    with c:  # less than the overhead: 0, never below
        pass
    assert (c.ns, c.values) == (0, {"page-faults": 0, NO_PMU: None})
    c.close()


def test_subtract_overhead_on_the_real_kernel(no_fd_leak):
    c = upmc.Counters("", subtract_overhead=True)
    assert set(c.overhead) == {"ns"} and c.overhead["ns"] > 0
    with c:
        pass
    c.close()
    assert c.ns >= 0 and repr(c).endswith(", overhead subtracted>")
    d = upmc.Counters("")
    d.close()
    assert d.overhead is None


def test_measure_has_its_own_overhead(no_fd_leak):
    with pytest.raises(TypeError, match="subtract_overhead"):
        upmc.measure(len, "", subtract_overhead=True)
    with pytest.raises(TypeError, match="subtract_overhead"):
        upmc.measured(subtract_overhead=True)


def test_advice_is_said_once(no_fd_leak):
    c = upmc.Counters()
    c.close()
    if not c.advice:
        pytest.skip("nothing to advise on this machine: %s" % c.summary)
    assert "-cpu host,pmu=on" in c.advice
    assert not any("-cpu host,pmu=on" in path.why for path in c.paths.values())
    assert "-cpu host,pmu=on" not in c.summary


def test_metrics_by_name(no_fd_leak):
    """A spec names metrics as it names events: their events are counted
    (each once) and c.metrics has the block's values, computed from its own
    counts; where an event does not count, the metric is None and says why."""
    with upmc.Counters("IPC,task-clock,instructions", time_only=True) as c:
        busy(1000000)
    assert c.metric_names == ("IPC",)
    assert sorted(c.names) == ["cycles", "instructions", "task-clock"]
    info = c.metric_info["IPC"]
    assert info.unit == "insn per cycle" and info.percent is False
    if c.values["instructions"] is None or c.values["cycles"] is None:
        assert c.metrics == {"IPC": None}
        assert "cannot be counted" in info.why
    else:
        assert info.why == ""
        assert c.metrics["IPC"] == pytest.approx(c.values["instructions"] / c.values["cycles"])
    c.close()


def test_metrics_the_machine_cannot_compute_are_refused(no_fd_leak):
    """Without time_only a metric this machine cannot compute is an error
    that says why; the catalogue says the same of it."""
    missing = [m for m in upmc.metrics() if m.why_not]
    if not missing:
        pytest.skip("this machine computes every metric of the catalogue")
    with pytest.raises(upmc.Error) as e:
        upmc.Counters(missing[0].name)
    assert "cannot be" in e.value.strerror
    names = {m.name for m in upmc.metrics()}
    assert {"IPC", "CPI", "branch-miss-ratio", "retiring"} <= names


def test_topdown_reset_refused_with_the_reason(no_fd_leak):
    """A set that reads no Intel topdown metric in user space has nothing
    to reset (EOPNOTSUPP, the library's sentence); neither has a closed
    set, nor a set during one of its blocks (whose counts would not
    pair)."""
    c = software_or_skip("task-clock")
    with pytest.raises(upmc.Error) as e:
        c.topdown_reset()
    assert e.value.errno == errno.EOPNOTSUPP and "topdown" in e.value.strerror
    with c:
        with pytest.raises(upmc.Error) as e:
            c.topdown_reset()
        assert e.value.errno == errno.EBUSY
    assert c.values["task-clock"] is not None  # the block went on
    c.close()
    with pytest.raises(upmc.Error) as e:
        c.topdown_reset()
    assert e.value.errno == errno.EBADF


def test_topdown_reset_restarts_the_fields(no_fd_leak):
    """Where PERF_METRICS is read in user space (Intel, Ice Lake and
    later), a reset before a block leaves it long enough to measure: its
    four level 1 shares add up to the whole."""
    c = upmc.Counters("TopdownL1", time_only=True)
    try:
        c.topdown_reset()
    except upmc.Error as e:
        c.close()
        assert e.errno == errno.EOPNOTSUPP
        pytest.skip("no Intel topdown read in user space here: %s" % e.strerror)
    with c:
        busy(1000000)
    c.close()
    shares = [c.metrics[name] for name in
              ("retiring", "bad-speculation", "frontend-bound", "backend-bound")]
    assert None not in shares, c.metric_info
    assert sum(shares) == pytest.approx(1.0, abs=0.02)
