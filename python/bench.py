#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What upmc's Python-level calls cost, beside time.perf_counter_ns() in the
same run: in each table the calls are timed in rounds that alternate
between them, and the median round of each is printed with its ratio to
perf_counter_ns() of the same table.

    python3 python/bench.py [ROUNDS]

(run there, it imports the package beside it; a copy elsewhere imports the
installed one). The figures in docs/python.md come from this script.
"""
import statistics
import sys
import time

import upmc

CALLS = 2000  # per round, ten to a loop pass so that the loop costs little
OPENS = 20  # per round for a call that opens and closes a set


def per_call(fn, calls):
    clock = time.perf_counter_ns
    t0 = clock()
    for _ in range(calls // 10):
        fn(); fn(); fn(); fn(); fn(); fn(); fn(); fn(); fn(); fn()  # noqa: E702
    return (clock() - t0) / calls


def table(title, rows, rounds, between=None):
    """rows: (name, the call, calls per round, what it is); the first is
    perf_counter_ns(). between() runs after each call's round, untimed."""
    times = {name: [] for name, _, _, _ in rows}
    for _ in range(rounds):
        for name, fn, calls, _ in rows:
            times[name].append(per_call(fn, calls))
            if between:
                between()
    base = statistics.median(times[rows[0][0]])
    print("\n%s: %d rounds, median round" % (title, rounds))
    print("%-46s %10s %8s  %s" % ("call", "ns/call", "ratio", "what"))
    for name, _, _, what in rows:
        ns = statistics.median(times[name])
        print("%-46s %10.1f %7.2fx  %s" % (name, ns, ns / base, what[:90]))


CLOCK = ("time.perf_counter_ns()", time.perf_counter_ns, CALLS, "Python's clock")


def counter_rows():
    yield CLOCK
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

    def block():
        c = upmc.Counters("task-clock")
        with c:
            pass
        c.close()

    yield 'Counters("task-clock"), with, close()', block, OPENS, \
        "open, 2 timestamps and 2 reads, close"
    reused = upmc.Counters("task-clock")

    def reused_block():
        with reused:
            pass

    yield 'with c: pass (c reused)', reused_block, OPENS, "2 timestamps and 2 reads"


def zone_rows():
    made = upmc.zone("made once")

    def zone_made():
        with made:
            pass

    def zone_by_name():
        with upmc.zone("by name"):
            pass

    @upmc.zone()
    def decorated():
        pass

    yield CLOCK
    yield "with zone: pass", zone_made, CALLS, "a zone object made once"
    yield 'with upmc.zone("name"): pass', zone_by_name, CALLS, "a zone made each time"
    yield "@upmc.zone() function", decorated, CALLS, "a decorated empty function"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print("library: %s (%s)" % (upmc.library, upmc.library_source))
    table("reads", list(counter_rows()), rounds)
    for spec in ("", "task-clock"):
        with upmc.Profile(spec) as p:
            def collect():
                p.collect()
                p.clear()

            table('zones in Profile("%s"): %s' % (spec, ", ".join(p.names) or "time only"),
                  list(zone_rows()), rounds, collect)
            print("zones dropped (a full buffer): %d" % p.stats()["dropped"])


if __name__ == "__main__":
    main()
