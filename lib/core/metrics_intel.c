/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's Intel metrics: topdown from PERF_METRICS, and before it
 * (lib/core/metrics.c reads the catalogue).
 */
#include "metric_def.h"

#define INTEL_TOPDOWN                                                                       \
	"the kernel's tools/perf/Documentation/topdown.txt (Ice Lake and later: slots and " \
	"the topdown metric events)"
/* Each of them needs all four level 1 events: their values add up to the
 * slots since PERF_METRICS was last reset, which tells whether an interval
 * is long enough to measure (lib/core/topdown.c). */
#define INTEL_L1 "slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound"
/* Level 2 splits each level 1 category in two: the PERF_METRICS fields 4-7
 * give one half, the other is its category less that half. Each needs the
 * level 1 events too, for the same reason. */
#define INTEL_L2(event) INTEL_L1 "," event
#define INTEL_L2_CPUS                                                                        \
	"Intel with 8 PERF_METRICS fields: Sapphire Rapids, Alder Lake's and Raptor Lake's " \
	"P-cores, and later"
#define INTEL_TOPDOWN_L2                                                                 \
	"the kernel's tools/perf/Documentation/topdown.txt (the level 2 topdown metric " \
	"events) and tools/perf/pmu-events/arch/x86/sapphirerapids/spr-metrics.json (TopdownL2)"
/* Before Ice Lake, Intel's big cores issue 4 uops a cycle and have no
 * PERF_METRICS: perf's formula with SMT off, over events as libpfm4 names
 * them, which it knows from Sandy Bridge to Cascade Lake only (Ice Lake
 * renamed UOPS_RETIRED.RETIRE_SLOTS; the Atoms have no IDQ). cycles is
 * CPU_CLK_UNHALTED.THREAD on a fixed counter, so that the four others
 * fit the four counters a thread has with SMT on. */
#define TMA4_SLOTS "( 4 * cycles )"
#define TMA4_CPUS  "Intel, Sandy Bridge to Cascade Lake (4 slots a cycle, no PERF_METRICS)"
#define TMA4_ID    "GenuineIntel-6-"
#define TMA4                                                                                 \
	"the kernel's tools/perf/pmu-events/arch/x86/skylakex/skx-metrics.json (TopdownL1, " \
	"tma_retiring and the others, with SMT off; the same in sandybridge, ivybridge, "    \
	"haswell, broadwell, skylake and their servers'), events by libpfm4's names"
#define TMA4_BAD "UOPS_ISSUED:ANY - UOPS_RETIRED:RETIRE_SLOTS + 4 * INT_MISC:RECOVERY_CYCLES"

const struct upmc_metric_def upmc_metrics_intel[] = {
        /* Intel, Ice Lake and later: the PERF_METRICS fractions of slots. */
        {"retiring", "TopdownL1", INTEL_L1, "topdown-retiring / slots", "retiring", 1,
         "slots that retired an operation", "Intel, Ice Lake and later", INTEL_TOPDOWN, "x86",
         NULL},
        {"bad-speculation", "TopdownL1", INTEL_L1, "topdown-bad-spec / slots", "bad speculation", 1,
         "slots wasted on operations that did not retire", "Intel, Ice Lake and later",
         INTEL_TOPDOWN, "x86", NULL},
        {"frontend-bound", "TopdownL1", INTEL_L1, "topdown-fe-bound / slots", "frontend bound", 1,
         "slots the front end left empty", "Intel, Ice Lake and later", INTEL_TOPDOWN, "x86", NULL},
        {"backend-bound", "TopdownL1", INTEL_L1, "topdown-be-bound / slots", "backend bound", 1,
         "slots stalled on the back end", "Intel, Ice Lake and later", INTEL_TOPDOWN, "x86", NULL},
        /* Intel, Sandy Bridge to Cascade Lake: 4 slots a cycle. */
        {"retiring", "TopdownL1", "UOPS_RETIRED:RETIRE_SLOTS,cycles",
         "UOPS_RETIRED:RETIRE_SLOTS / " TMA4_SLOTS, "retiring", 1,
         "slots that retired an operation", TMA4_CPUS, TMA4, "x86", TMA4_ID},
        {"bad-speculation", "TopdownL1",
         "UOPS_ISSUED:ANY,UOPS_RETIRED:RETIRE_SLOTS,INT_MISC:RECOVERY_CYCLES,cycles",
         "( " TMA4_BAD " ) / " TMA4_SLOTS, "bad speculation", 1,
         "slots wasted on operations that did not retire, and on recovering from them", TMA4_CPUS,
         TMA4, "x86", TMA4_ID},
        {"frontend-bound", "TopdownL1", "IDQ_UOPS_NOT_DELIVERED:CORE,cycles",
         "IDQ_UOPS_NOT_DELIVERED:CORE / " TMA4_SLOTS, "frontend bound", 1,
         "slots the front end left empty", TMA4_CPUS, TMA4, "x86", TMA4_ID},
        {"backend-bound", "TopdownL1",
         "IDQ_UOPS_NOT_DELIVERED:CORE,UOPS_ISSUED:ANY,UOPS_RETIRED:RETIRE_SLOTS,INT_MISC:"
         "RECOVERY_CYCLES,cycles",
         "1 - ( IDQ_UOPS_NOT_DELIVERED:CORE + " TMA4_BAD
         " + UOPS_RETIRED:RETIRE_SLOTS ) / " TMA4_SLOTS,
         "backend bound", 1, "slots stalled on the back end: those no other category took",
         TMA4_CPUS, TMA4, "x86", TMA4_ID},
        /* Intel, Sapphire Rapids and later: PERF_METRICS' level 2 fields. */
        {"heavy-operations", "TopdownL2", INTEL_L2("topdown-heavy-ops"),
         "topdown-heavy-ops / slots", "heavy operations", 1,
         "slots that retired operations of two or more uops, or microcode", INTEL_L2_CPUS,
         INTEL_TOPDOWN_L2, "x86", NULL},
        {"light-operations", "TopdownL2", INTEL_L2("topdown-heavy-ops"),
         "( topdown-retiring - topdown-heavy-ops ) / slots", "light operations", 1,
         "slots that retired operations of one uop", INTEL_L2_CPUS, INTEL_TOPDOWN_L2, "x86", NULL},
        {"branch-mispredicts", "TopdownL2", INTEL_L2("topdown-br-mispredict"),
         "topdown-br-mispredict / slots", "branch mispredicts", 1,
         "slots wasted on mispredicted branches", INTEL_L2_CPUS, INTEL_TOPDOWN_L2, "x86", NULL},
        {"machine-clears", "TopdownL2", INTEL_L2("topdown-br-mispredict"),
         "( topdown-bad-spec - topdown-br-mispredict ) / slots", "machine clears", 1,
         "slots wasted on machine clears (memory ordering, self-modifying code)", INTEL_L2_CPUS,
         INTEL_TOPDOWN_L2, "x86", NULL},
        {"fetch-latency", "TopdownL2", INTEL_L2("topdown-fetch-lat"), "topdown-fetch-lat / slots",
         "fetch latency", 1,
         "slots the front end left empty while it fetched (cache, TLB misses, resteers)",
         INTEL_L2_CPUS, INTEL_TOPDOWN_L2, "x86", NULL},
        {"fetch-bandwidth", "TopdownL2", INTEL_L2("topdown-fetch-lat"),
         "( topdown-fe-bound - topdown-fetch-lat ) / slots", "fetch bandwidth", 1,
         "slots the front end left empty for want of decode bandwidth", INTEL_L2_CPUS,
         INTEL_TOPDOWN_L2, "x86", NULL},
        {"memory-bound", "TopdownL2", INTEL_L2("topdown-mem-bound"), "topdown-mem-bound / slots",
         "memory bound", 1, "slots stalled on the memory subsystem", INTEL_L2_CPUS,
         INTEL_TOPDOWN_L2, "x86", NULL},
        {"core-bound", "TopdownL2", INTEL_L2("topdown-mem-bound"),
         "( topdown-be-bound - topdown-mem-bound ) / slots", "core bound", 1,
         "slots stalled on the core's execution units, not on memory", INTEL_L2_CPUS,
         INTEL_TOPDOWN_L2, "x86", NULL},
};
const unsigned upmc_metrics_intel_n = sizeof(upmc_metrics_intel) / sizeof(upmc_metrics_intel[0]);
