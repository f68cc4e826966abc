# SPDX-License-Identifier: MIT
"""Nothing leaks: the process's memory and file descriptors after many
opens and closes, failed ones included, of every kind of object."""
import os

import pytest

import upmc
from conftest import NO_PMU, open_fds


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cycle():
    upmc.Counters("task-clock,page-faults", time_only=True).close()
    with upmc.Counters(NO_PMU, time_only=True):
        pass
    upmc.Counters("")  # closed by the garbage collector
    for bad in ("page-faults,nosuchevent", NO_PMU, "page-faults,page-faults"):
        with pytest.raises((upmc.Error, ValueError)):
            upmc.Counters(bad)
    with upmc.Profile("task-clock", buffer_bytes=1 << 20) as p:
        with upmc.zone("leak check"):
            pass
        p.zones()

    @upmc.measured()
    def f():
        pass

    f()
    f.stats()
    f.close()


def test_memory_and_descriptors_stay_flat():
    for _ in range(30):  # warm up the allocators
        cycle()
    fds, rss = open_fds(), resident_bytes()
    for _ in range(200):
        cycle()
    grown = resident_bytes() - rss
    assert open_fds() == fds
    # A set is kilobytes and each profile's thread buffer 1 MiB: 200 leaked
    # would be megabytes to hundreds of them.
    assert grown < 2 << 20, "%d bytes more after 200 rounds" % grown
