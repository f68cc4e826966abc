# SPDX-License-Identifier: MIT
"""Helpers for the tests: they test the upmc package that `import upmc`
finds (the installed one in CI; PYTHONPATH=python from a checkout)."""
import os
import subprocess
import sys
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


def python_env():
    """The environment of a fresh interpreter that imports the package under
    test, wherever the tests found it."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(upmc.__file__))] +
        [p for p in [os.environ.get("PYTHONPATH")] if p]))


def run_python(code, *args, cwd=None, timeout=60):
    """Runs code in a fresh interpreter. One that does not end within
    timeout seconds (a deadlock, a loop that does not stop) fails the test
    rather than hanging it."""
    try:
        return subprocess.run([sys.executable, "-c", code] + list(args), cwd=cwd,
                              env=python_env(), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        # what it wrote comes as bytes here, text=True or not
        said = b"".join(out or b"" for out in (e.stdout, e.stderr))
        pytest.fail("did not end in %d s (killed):\n%s"
                    % (timeout, said.decode("utf-8", "replace")))
