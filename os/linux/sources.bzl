"""The Linux layer's files: //os/linux:perf, and the single-file upmc.c."""

LINUX_SRCS = [
    "call_linux.c",
    "events_linux.c",
    "perf.c",
    "probe.c",
]

LINUX_HDRS = ["probe.h"]
