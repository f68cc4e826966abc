#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What one Python-level read costs, beside time.perf_counter_ns() in the same
run: each call is timed in rounds that alternate between the calls, and the
median round of each is printed with its ratio to perf_counter_ns().

    python3 python/bench.py [ROUNDS]

The figures in docs/python.md come from this script.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import upmc  # noqa: E402

CALLS = 2000  # per round, ten to a loop pass so that the loop costs little
OPENS = 20  # per round for the calls that open a set


def per_call(fn, calls):
    clock = time.perf_counter_ns
    t0 = clock()
    for _ in range(calls // 10):
        fn(); fn(); fn(); fn(); fn(); fn(); fn(); fn(); fn(); fn()  # noqa: E702
    return (clock() - t0) / calls


def empty_with(counters):
    def run():
        with counters():
            pass
    return run


def candidates():
    """(name, the call, calls per round, what it is) for each thing this
    machine can read."""
    yield "time.perf_counter_ns()", time.perf_counter_ns, CALLS, "Python's clock"
    yield "time.thread_time_ns()", time.thread_time_ns, CALLS, "the thread's CPU time"
    timer = upmc.Counters("")
    yield 'Counters("").read()', timer.read, CALLS, timer.summary
    for spec in ("task-clock", "cycles", "cycles,instructions",
                 "cycles,instructions,branch-misses"):
        try:
            c = upmc.Counters(spec)
        except upmc.Error as e:
            print("%s: not here: %s" % (spec, e.strerror[:100]))
            continue
        yield 'Counters("%s").read()' % spec, c.read, CALLS, c.summary
    yield 'with Counters("task-clock"): pass', empty_with(lambda: upmc.Counters("task-clock")), \
        OPENS, "open, 2 reads and 2 timestamps, close"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    found = list(candidates())
    times = {name: [] for name, _, _, _ in found}
    for _ in range(rounds):
        for name, fn, calls, _ in found:
            times[name].append(per_call(fn, calls))
    base = statistics.median(times[found[0][0]])
    print("%d rounds, median round (%s)" % (rounds, upmc.library))
    print("%-44s %10s %8s  %s" % ("call", "ns/call", "ratio", "how"))
    for name, _, _, how in found:
        ns = statistics.median(times[name])
        print("%-44s %10.1f %7.2fx  %s" % (name, ns, ns / base, how[:80]))


if __name__ == "__main__":
    main()
