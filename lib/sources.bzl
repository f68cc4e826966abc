"""The portable core's files: //lib:core, and the simulated-kernel build of
the same files in //tests:core_sim."""

CORE_SRCS = [
    "bench.c",
    "call.c",
    "clock.c",
    "error.c",
    "events.c",
    "interval.c",
    "json.c",
    "prof.c",
    "read.c",
    "region.c",
    "set.c",
    "stats.c",
    "stats.h",
    "zone.c",
    "zone_chrome.c",
    "zone_collect.c",
    "zone_internal.h",
    "zone_perfetto.c",
    "zone_speedscope.c",
    "zone_table.c",
    "zone_write.c",
]

CORE_HDRS = [
    "internal.h",
    "os.h",
]
