# SPDX-License-Identifier: MIT
"""Helpers for the tests: they test the upmc package that `import upmc`
finds (the installed one in CI; PYTHONPATH=python from a checkout)."""
import os
import time

import pytest

import upmc

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.sysconf("SC_PAGE_SIZE")
# A PMU no machine has: an event of it is unavailable everywhere.
NO_PMU = "nosuchpmu/event=1/"


def open_fds():
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_fd_leak():
    """Fails the test when it leaves a file descriptor open (every counter is one)."""
    before = open_fds()
    yield
    assert open_fds() == before, "file descriptors leaked"


def busy(cpu_ns):
    """Runs on the CPU until this thread has used cpu_ns more of it."""
    end = time.thread_time_ns() + cpu_ns
    while time.thread_time_ns() < end:
        pass


def software_or_skip(spec, **options):
    """Counters of software events, or a skip that says why they cannot open here."""
    try:
        return upmc.Counters(spec, **options)
    except upmc.Error as e:
        pytest.skip("%s cannot be opened here: %s" % (spec, e.strerror))
