"""The Linux layer's files: //os/linux's targets, and the single-file
upmc.c (//:amalgamation)."""

LINUX_SRCS = [
    "call_linux.c",
    "events_linux.c",
    "perf.c",
    "plan.c",
    "probe.c",
]

LINUX_HDRS = [
    "probe.h",
    "sys.h",
]

# The system calls, apart so that tests can put a fake kernel in their place.
LINUX_SYS_SRCS = ["sys.c"]
