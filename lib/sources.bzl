"""The portable library's files by layer (docs/hacking.md): each layer's
package builds its own; the simulated-kernel build of all of them is
//tests:core_sim."""

# Sets, reads, intervals, the clock, events, errors: lib/core.
CORE_SRCS = [
    "clock.c",
    "error.c",
    "events.c",
    "formula.c",
    "interval.c",
    "json.c",
    "metrics.c",
    "metrics_amd.c",
    "metrics_arm.c",
    "metrics_generic.c",
    "metrics_intel.c",
    "metrics_list.c",
    "read.c",
    "set.c",
    "spec.c",
    "stats.c",
    "topdown.c",
]

CORE_HDRS = [
    "internal.h",
    "metric_def.h",
    "os.h",
    "stats.h",
    "topdown.h",
]

# Regions, bench, UPMC_PROF, upmc_measure_call's shared part: lib/measure.
MEASURE_SRCS = [
    "bench.c",
    "call.c",
    "prof.c",
    "region.c",
]

MEASURE_HDRS = ["measure.h"]

# Zones: recording, collection, the view the writers read, the writers.
ZONE_SRCS = [
    "chrome.c",
    "chunk.c",
    "collect.c",
    "names.c",
    "perfetto.c",
    "profile.c",
    "protobuf.c",
    "record.c",
    "repair.c",
    "request.c",
    "sequence.c",
    "speedscope.c",
    "stream.c",
    "table.c",
    "threads.c",
    "view.c",
    "write.c",
]

ZONE_HDRS = [
    "perfetto_internal.h",
    "zone_internal.h",
]

def portable_files():
    """Every file of the three layers, as labels."""
    return (["//lib/core:" + f for f in CORE_SRCS + CORE_HDRS] +
            ["//lib/measure:" + f for f in MEASURE_SRCS + MEASURE_HDRS] +
            ["//lib/zone:" + f for f in ZONE_SRCS + ZONE_HDRS])
