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

/* perf's L1MPKI, L2MPKI and L3MPKI: retired demand loads that missed each
 * level, per 1000 instructions. The events are MEM_LOAD_RETIRED.L1_MISS,
 * L2_MISS and L3_MISS (MEM_LOAD_UOPS_RETIRED.* before Skylake, LLC_MISS on
 * Ivy Bridge): event 0xd1, umask 0x08, 0x10 and 0x20 on every model here,
 * raw codes, so the models are listed as perf 6.1's mapfile.csv matches
 * them. Not on the hybrid CPUs (their E-cores count other events). */
#define MPKI_CPUS "Intel, Ivy Bridge to Sapphire Rapids, not hybrid"
/* Ivy Bridge, Ivy Town, Haswell, Haswell-X, Broadwell, Broadwell-DE/X,
 * Skylake to Comet Lake, Skylake-X to Cooper Lake, Ice Lake, Ice Lake-X,
 * Tiger Lake, Rocket Lake, Sapphire Rapids */
#define MPKI_IDS                                                                   \
	"GenuineIntel-6-3A GenuineIntel-6-3E GenuineIntel-6-3C GenuineIntel-6-45 " \
	"GenuineIntel-6-46 GenuineIntel-6-3F GenuineIntel-6-3D GenuineIntel-6-47 " \
	"GenuineIntel-6-4F GenuineIntel-6-56 GenuineIntel-6-4E GenuineIntel-6-5E " \
	"GenuineIntel-6-8E GenuineIntel-6-9E GenuineIntel-6-A5 GenuineIntel-6-A6 " \
	"GenuineIntel-6-55 GenuineIntel-6-7D GenuineIntel-6-7E GenuineIntel-6-6A " \
	"GenuineIntel-6-6C GenuineIntel-6-8C GenuineIntel-6-8D GenuineIntel-6-A7 " \
	"GenuineIntel-6-8F"
#define MPKI_SOURCE                                                                          \
	"the kernel's tools/perf/pmu-events/arch/x86/*/*-metrics.json of perf 6.1 (L1MPKI, " \
	"L2MPKI, L3MPKI: 1000 * MEM_LOAD_RETIRED.Ln_MISS / INST_RETIRED.ANY; "               \
	"tma_info_memory_l1mpki and the others in later kernels)"
#define INTEL_MPKI(name, event, level)                                              \
	{                                                                           \
		name, "", event ",instructions", "1000 * " event " / instructions", \
		        "per 1000 insns", 0,                                        \
		        "retired demand loads that missed the " level ", per 1000 " \
		        "instructions",                                             \
		        MPKI_CPUS, MPKI_SOURCE, "x86", MPKI_IDS                     \
	}
/* perf's cpu_operating_frequency: the kernel counts CPU_CLK_UNHALTED.THREAD
 * for cycles and CPU_CLK_UNHALTED.REF_TSC, which ticks at the TSC's rate,
 * for ref-cycles (intel_perfmon_event_map). */
#define FREQ_SOURCE                                                                        \
	"the kernel's tools/perf/pmu-events/arch/x86/sapphirerapids/spr-metrics.json "     \
	"(cpu_operating_frequency: CPU_CLK_UNHALTED.THREAD / CPU_CLK_UNHALTED.REF_TSC * "  \
	"#SYSTEM_TSC_FREQ / 1e9; the same in skylakex, icelakex, emeraldrapids, "          \
	"graniterapids, sierraforest; #SYSTEM_TSC_FREQ as tools/perf/arch/x86/util/tsc.c " \
	"finds it)"

/* Gracemont, the E-core of Alder Lake-N (no P-core): 5 issue slots a
 * cycle, counted by its own TOPDOWN_* events (TOPDOWN_FE_BOUND.ALL 0x71,
 * TOPDOWN_BE_BOUND.ALL 0x74, TOPDOWN_RETIRING.ALL 0xc2, umask 0): raw
 * codes, so the model is named. cycles is CPU_CLK_UNHALTED.CORE. */
#define GRT_SLOTS "( 5 * cycles )"
#define GRT_FE    "r71"
#define GRT_BE    "r74"
#define GRT_RET   "rc2"
#define GRT_CPUS  "Intel Alder Lake-N (Gracemont E-cores alone, 5 slots a cycle)"
#define GRT_ID    "GenuineIntel-6-BE"
#define GRT_SOURCE                                                                              \
	"the kernel's tools/perf/pmu-events/arch/x86/alderlaken/adln-metrics.json (TopdownL1: " \
	"tma_retiring, tma_bad_speculation, tma_frontend_bound, tma_backend_bound; SLOTS = 5 "  \
	"x CPU_CLK_UNHALTED.CORE), events from alderlaken/pipeline.json"

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
        /* Intel: misses per kilo-instruction of retired loads, perf's. */
        INTEL_MPKI("L1MPKI", "r8d1", "L1 data cache"),
        INTEL_MPKI("L2MPKI", "r10d1", "L2 cache"),
        INTEL_MPKI("L3MPKI", "r20d1", "L3 cache"),
        /* Intel: the frequency the thread's cycles ran at. */
        {"cpu_operating_frequency", "", "cycles,ref-cycles",
         "cycles / ref-cycles * #SYSTEM_TSC_FREQ / 1000000000", "GHz", 0,
         "the core clock's average frequency while the thread ran unhalted: its cycles per "
         "reference cycle (the TSC's rate) times the TSC's frequency",
         "Intel (ref-cycles is CPU_CLK_UNHALTED.REF_TSC; the TSC's frequency from CPUID leaf "
         "0x15 or the model name)",
         FREQ_SOURCE, "x86", "GenuineIntel-"},
        /* Intel Alder Lake-N: Gracemont's TOPDOWN_* events, 5 slots a cycle. */
        {"retiring", "TopdownL1", GRT_RET ",cycles", GRT_RET " / " GRT_SLOTS, "retiring", 1,
         "slots that retired an operation", GRT_CPUS, GRT_SOURCE, "x86", GRT_ID},
        {"bad-speculation", "TopdownL1", GRT_FE "," GRT_BE "," GRT_RET ",cycles",
         "( " GRT_SLOTS " - ( " GRT_FE " + " GRT_BE " + " GRT_RET " ) ) / " GRT_SLOTS,
         "bad speculation", 1, "slots no other category took: wasted on mispredictions and clears",
         GRT_CPUS, GRT_SOURCE, "x86", GRT_ID},
        {"frontend-bound", "TopdownL1", GRT_FE ",cycles", GRT_FE " / " GRT_SLOTS, "frontend bound",
         1, "slots the front end left empty", GRT_CPUS, GRT_SOURCE, "x86", GRT_ID},
        {"backend-bound", "TopdownL1", GRT_BE ",cycles", GRT_BE " / " GRT_SLOTS, "backend bound", 1,
         "slots stalled on the back end", GRT_CPUS, GRT_SOURCE, "x86", GRT_ID},
};
const unsigned upmc_metrics_intel_n = sizeof(upmc_metrics_intel) / sizeof(upmc_metrics_intel[0]);
