# SPDX-License-Identifier: MIT
"""A Python program with zones (upmc.zone) and a profile of its own
(upmc.Profile), for `upmc stat --zones`:

    zone_python_workload.py SPEC

opens its profile of SPEC, then main: 10 "outer", each with 3 "inner"
that touch 16 fresh pages; a thread: 5 "work"; prints its own table
(Profile.table()) and exits 0.
"""
import mmap
import sys
import threading

import upmc

PAGE = 4096


def touch(pages):
    m = mmap.mmap(-1, pages * PAGE)
    for i in range(pages):
        m[i * PAGE] = 1
    m.close()


@upmc.zone("inner")
def inner():
    touch(16)


def worker():
    upmc.thread_name("worker")
    for _ in range(5):
        with upmc.zone("work"):
            touch(4)
    # Its last zone collectable before the thread's exit has run, which
    # join() does not wait for.
    upmc.flush()


def main():
    with upmc.Profile(sys.argv[1]) as p:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        for _ in range(10):
            with upmc.zone("outer"):
                for _ in range(3):
                    inner()
        sys.stdout.write(p.table())


if __name__ == "__main__":
    main()
