# SPDX-License-Identifier: MIT
"""Zones from Python: nesting, threads, counters, the library's writers."""
import ctypes
import errno
import json
import math
import os
import threading
import time
import zlib

import pytest

import upmc
from conftest import NO_PMU, busy, run_python, software_or_skip


@upmc.zone()
def leaf():
    busy(20000)


def frame():
    with upmc.zone("frame"):
        leaf()
        leaf()


def test_zones_nest_and_carry_their_counters(no_fd_leak):
    software_or_skip("task-clock").close()
    with upmc.Profile("task-clock") as p:
        upmc.thread_name("main")
        for _ in range(3):
            frame()
            upmc.frame_mark()
        zones = p.zones()
        stats = p.stats()
    assert p.closed
    assert [z.name for z in zones] == ["frame", "leaf", "leaf"] * 3
    assert [z.depth for z in zones] == [0, 1, 1] * 3
    assert {z.thread for z in zones} == {"main"}
    assert stats["frames"] == 3 and stats["dropped"] == 0 and stats["refused"] == 0
    f, a, b = zones[:3]
    assert f.begin_ns <= a.begin_ns <= a.end_ns <= b.begin_ns <= b.end_ns <= f.end_ns
    assert a.counters["task-clock"] >= 18000  # 20 us of CPU, within the clocks' rounding
    assert f.self["task-clock"] == \
        f.counters["task-clock"] - a.counters["task-clock"] - b.counters["task-clock"]


def test_zones_raises_what_its_callback_raised(monkeypatch, no_fd_leak):
    """An exception while zones() makes a zone (here the second) is raised
    to the caller, not printed by ctypes with the list returned short."""
    real, made = upmc._zones.Zone, []

    def zone(*fields):
        if len(made) == 1:
            raise MemoryError("the second zone")
        made.append(real(*fields))
        return made[-1]

    with upmc.Profile() as p:
        for _ in range(3):
            with upmc.zone("z"):
                pass
        monkeypatch.setattr(upmc._zones, "Zone", zone)
        with pytest.raises(MemoryError, match="the second zone"):
            p.zones()
        monkeypatch.setattr(upmc._zones, "Zone", real)
        assert len(p.zones()) == 3


def test_zones_of_threads(no_fd_leak):
    def worker(i):
        upmc.thread_name("worker %d" % i)
        with upmc.zone("work"):
            leaf()
        upmc.flush()

    with upmc.Profile() as p:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        zones = p.zones()
    work = [z for z in zones if z.name == "work"]
    assert sorted(z.thread for z in work) == ["worker 0", "worker 1", "worker 2"]
    assert len({z.thread_id for z in work}) == 3
    assert sum(z.name == "leaf" for z in zones) == 3


def varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at += 1
        if byte < 0x80:
            return value, at
        shift += 7


def inflated(trace):
    """A Perfetto trace with each compressed chunk (a TracePacket holding
    compressed_packets, field 50) replaced by the packets it inflates to."""
    out, at = b"", 0
    while at < len(trace):
        assert trace[at] == 0x0A  # Trace.packet
        n, body = varint(trace, at + 1)
        packet, at = trace[body:body + n], body + n
        if packet[:2] == b"\x92\x03":
            size, start = varint(packet, 2)
            assert start + size == len(packet)
            out += zlib.decompress(packet[start:])
        else:
            out += trace[start_of(trace, at, n):at]
    return out


def start_of(trace, end, n):
    """Where the packet of n bytes that ends at end begins (its tag)."""
    at = end - n - 1
    while trace[at] != 0x0A or varint(trace, at + 1) != (n, end - n):
        at -= 1
    return at


def test_exports_by_the_librarys_writers(tmp_path, no_fd_leak):
    with upmc.Profile() as p:
        for _ in range(2):
            frame()
        p.save(tmp_path / "trace.json", "chrome")
        speedscope = json.loads(p.export("speedscope"))
        perfetto = p.export("perfetto")
        plain = p.export("perfetto-uncompressed")
        table = p.table()
        aggregates = json.loads(p.export("json"))
    chrome = json.loads((tmp_path / "trace.json").read_text())
    spans = [e for e in chrome["traceEvents"] if e.get("ph") == "X"]
    assert sorted(e["name"] for e in spans) == ["frame"] * 2 + ["leaf"] * 4
    assert "speedscope" in speedscope["$schema"]
    assert {"frame", "leaf"} <= {f["name"] for f in speedscope["shared"]["frames"]}
    assert b"frame" in plain and b"leaf" in plain
    assert inflated(perfetto) == plain  # one chunk: the very same packets
    assert "frame" in table and "leaf" in table
    assert aggregates  # the same aggregates as the table, as JSON
    # A decorated function's location is its definition; a with block's
    # where its name was first used.
    where = {f["name"]: f for f in speedscope["shared"]["frames"]}
    assert where["leaf"]["file"].endswith("test_zones.py")
    assert where["leaf"]["line"] == leaf.__wrapped__.__code__.co_firstlineno
    assert where["frame"]["file"].endswith("test_zones.py")
    assert where["frame"]["line"] == frame.__code__.co_firstlineno + 1


def test_time_only_fallback(no_fd_leak):
    with pytest.raises(upmc.Error) as e:
        upmc.Profile(NO_PMU)
    assert "nosuchpmu" in e.value.strerror
    with upmc.Profile(NO_PMU, time_only=True) as p:
        frame()
        zones = p.zones()
    assert [z.name for z in zones] == ["frame", "leaf", "leaf"]
    assert zones[0].counters == {NO_PMU: None}
    assert zones[0].end_ns > zones[0].begin_ns


def test_zones_outside_a_profile_do_nothing():
    frame()  # no profile: nothing recorded, nothing raised
    with upmc.Profile() as p:
        zones = p.zones()
    assert zones == []


def test_one_profile_at_a_time(no_fd_leak):
    with upmc.Profile():
        with pytest.raises(upmc.Error) as e:
            upmc.Profile()
        assert e.value.errno == errno.EBUSY
    upmc.Profile().close()  # the first one closed: a new one opens


def test_bad_input_raises(no_fd_leak):
    for name, error in ((None, TypeError), (7, TypeError), ("", ValueError),
                        ("x" * 128, ValueError), ("a\0b", ValueError)):
        with pytest.raises(error):
            with upmc.zone(name):
                pass
    with upmc.Profile() as p:
        with pytest.raises(ValueError, match="format 'svg' unknown"):
            p.save("x.svg", "svg")
        with pytest.raises(upmc.Error):
            p.save("/nonexistent/dir/trace.json", "chrome")
        with pytest.raises(TypeError):
            p.save(None, "chrome")
    with pytest.raises(TypeError, match="unknown option"):
        upmc.Profile(bufer_bytes=5)
    with pytest.raises(upmc.Error) as e:
        upmc.Profile(buffer_bytes=100)
    assert e.value.errno == errno.EINVAL


def test_topdown_reset_refused_with_the_reason(no_fd_leak):
    """A profile that reads no Intel topdown metric in user space has no
    period to restart (EOPNOTSUPP, the library's sentence)."""
    with upmc.Profile() as p:
        with pytest.raises(upmc.Error) as e:
            p.topdown_reset()
        assert e.value.errno == errno.EOPNOTSUPP
        assert "reads no Intel topdown metric in user space" in e.value.strerror


def test_topdown_reset_restarts_every_thread(no_fd_leak):
    """Where PERF_METRICS is read in user space, the reset of a profile
    works from another thread than its opener's."""
    with upmc.Profile("TopdownL1", time_only=True) as p:
        errors = []

        def reset():
            try:
                p.topdown_reset()
            except upmc.Error as e:
                errors.append(e)
        t = threading.Thread(target=reset)
        t.start()
        t.join()
        if errors and errors[0].errno == errno.EOPNOTSUPP:
            pytest.skip("no Intel topdown read in user space here: %s" % errors[0].strerror)
        assert not errors, errors[0]


def test_use_after_close_raises(no_fd_leak):
    p = upmc.Profile()
    p.close()
    p.close()
    for use in (p.zones, p.stats, p.table, p.collect, p.clear, p.topdown_reset, p.__enter__,
                lambda: p.save("t.json", "chrome")):
        with pytest.raises(upmc.Error) as e:
            use()
        assert e.value.errno == errno.EBADF and "closed" in e.value.strerror


def test_no_leak_over_many_profiles(no_fd_leak):
    software_or_skip("task-clock,page-faults").close()
    for _ in range(50):
        with upmc.Profile("task-clock,page-faults") as p:
            frame()
            p.zones()
        upmc.Profile("task-clock")  # never closed: the garbage collector does it
        time.sleep(0)


def test_save_takes_str_bytes_and_path_like_names(tmp_path, no_fd_leak):
    # A file name need not be UTF-8: os.fsencode's bytes reach the file
    # system, and the same name comes back from os.listdir.
    odd = b"trace-\xff\xfe.json"
    with upmc.Profile() as p:
        frame()
        p.save(str(tmp_path / "str.json"), "chrome")
        p.save(os.fsencode(tmp_path / "bytes.json"), "chrome")
        p.save(tmp_path / os.fsdecode(odd), "chrome")
        p.save(os.path.join(os.fsencode(tmp_path), odd), "table")
        with pytest.raises(ValueError, match="NUL"):
            p.save(b"a\0b", "chrome")
        with pytest.raises(TypeError):
            p.save(42, "chrome")
    assert sorted(os.listdir(os.fsencode(tmp_path))) == [b"bytes.json", b"str.json", odd]
    assert json.loads((tmp_path / "bytes.json").read_text()) == \
        json.loads((tmp_path / "str.json").read_text())
    assert b"frame" in (tmp_path / os.fsdecode(odd)).read_bytes()


# Another thread uses the profile (or forks) while p.zones() is running:
# zones() turns each collected zone into Python while the library holds its
# collector's lock. The first zone starts the other thread, and the GIL
# changes hands as often as it can while the rest are turned.
DURING_ZONES = r"""
import os, sys, threading
import upmc, upmc._zones

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)

use = {"stats": lambda p: p.stats(), "collect": lambda p: p.collect(),
       "clear": lambda p: p.clear(), "save": lambda p: p.save("trace.json", "chrome"),
       "close": lambda p: p.close(), "thread_name": lambda p: upmc.thread_name("other"),
       "fork": lambda p: fork()}[sys.argv[1]]
made = upmc._zones.Zone

def first_starts_the_other(*fields):
    if not other.is_alive() and other.ident is None:
        other.start()
    return made(*fields)

sys.setswitchinterval(1e-6)
with upmc.Profile() as p:
    for _ in range(20000):
        with upmc.zone("z"):
            pass
    upmc.flush()
    other = threading.Thread(target=use, args=(p,))
    upmc._zones.Zone = first_starts_the_other
    zones = p.zones()
    other.join()
print(len(zones))
"""


@pytest.mark.parametrize("use", ["stats", "collect", "clear", "save", "close", "thread_name",
                                 "fork"])
def test_other_threads_wait_for_zones(use, tmp_path):
    run = run_python(DURING_ZONES, use, cwd=str(tmp_path))
    assert run.returncode == 0 and run.stdout == "20000\n", run.stdout + run.stderr


# A writer blocked on a full pipe (a reader that is slow, a FIFO, a network
# file system) holds up no other thread: this one reads what it writes.
SAVE_TO_A_FIFO = r"""
import os, threading
import upmc

os.mkfifo("fifo")
with upmc.Profile() as p:
    for _ in range(5000):
        with upmc.zone("z"):
            pass
    writer = threading.Thread(target=p.save, args=("fifo", "chrome"))
    writer.start()
    with open("fifo", "rb") as f:
        written = f.read()
    writer.join()
print(len(written) > 1 << 16, written.count(b'"z"'))
"""


def test_save_lets_other_threads_run(tmp_path):
    run = run_python(SAVE_TO_A_FIFO, cwd=str(tmp_path))
    assert run.returncode == 0 and run.stdout == "True 5000\n", run.stdout + run.stderr


def test_zone_metrics_as_the_library_gives_them(monkeypatch, no_fd_leak):
    """Each zone's metrics are the library's values (struct upmc_zone_info's
    metric[j]) by the profile's metric names, None for a NAN: here a zone
    the library is scripted to give IPC 1.25 and no branch-miss-ratio."""
    values = (ctypes.c_double * 2)(1.25, math.nan)
    delta = (ctypes.c_uint64 * 4)(500, 400, upmc.NOT_COUNTED, 0)
    loc = upmc._zones.ZoneLoc(b"physics", None, None, 0)

    def zones(profile, fn, arg):
        info = upmc._zones.ZoneInfo(ctypes.pointer(loc), b"main", 7, 10, 20, 0, 4, delta,
                                    delta, None, None, 0, 0, 2, values)
        fn(ctypes.pointer(info), arg)
        return 1

    with upmc.Profile("IPC,branch-miss-ratio", time_only=True) as p:
        assert p.metric_names == ("IPC", "branch-miss-ratio")
        monkeypatch.setattr(upmc._zones.lib, "upmc_profile_zones", zones)
        (z,) = p.zones()
    assert z.metrics == {"IPC": 1.25, "branch-miss-ratio": None}
    assert z.name == "physics" and z.counters[p.names[2]] is None


def test_zone_metrics_on_this_machine(no_fd_leak):
    """The same, counted: IPC from the zone's own counts where it counts
    them, else None, and the profile says why once."""
    with upmc.Profile("IPC,task-clock", time_only=True) as p:
        with upmc.zone("work"):
            busy(100000)
        upmc.flush()
        (z,) = p.zones()
    assert p.metric_names == ("IPC",)
    ins, cyc = z.counters["instructions"], z.counters["cycles"]
    if ins is None or cyc is None:
        assert z.metrics == {"IPC": None}
        assert "cannot be counted" in p.metric_reasons["IPC"]
    else:
        assert p.metric_reasons["IPC"] == ""
        assert z.metrics["IPC"] == ins / cyc
    with upmc.Profile("task-clock", time_only=True) as q:
        assert q.metric_names == () and q.metric_reasons == {}
