/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's metrics of perf's generic events, for any CPU that
 * counts them (lib/core/metrics.c reads the catalogue).
 */
#include "metric_def.h"

#define PERF_GENERIC "perf's generic events (tools/perf/util/stat-shadow.c)"

#define ANY_CPU "any CPU that counts perf's generic events"
/* Misses per 1000 instructions of perf's generic events: perf has no
 * metric of them (its vendor JSONs define L1MPKI and the others over
 * vendor events, metrics_intel.c), so the name is upmc's. */
#define PER_KILO                                                                           \
	"perf's generic events (tools/perf/util/stat-shadow.c), per 1000 instructions as " \
	"perf's *MPKI metrics count"
/* perf's own names for the miss rates of its generic cache events. */
#define PERF_COMMON                                                                   \
	"the kernel's tools/perf/pmu-events/arch/common/common/metrics.json (perf's " \
	"generic metrics; perf 6.1's stat-shadow.c prints the same ratios unnamed)"
#define MPKI(name, misses, what)                                                             \
	{                                                                                    \
		name, "", misses ",instructions", "1000 * " misses " / instructions",        \
		        "per 1000 insns", 0, what " per 1000 instructions retired", ANY_CPU, \
		        PER_KILO, NULL, NULL, NULL, NULL                                     \
	}

const struct upmc_metric_def upmc_metrics_generic[] = {
        {"IPC", "Default", "instructions,cycles", "instructions / cycles", "insn per cycle", 0,
         "instructions retired per cycle", "any CPU that counts perf's generic events",
         PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"CPI", "", "cycles,instructions", "cycles / instructions", "cycles per insn", 0,
         "cycles per instruction retired", "any CPU that counts perf's generic events",
         PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"branch-miss-ratio", "Default", "branch-misses,branches", "branch-misses / branches",
         "of all branches", 1, "mispredicted branches per branch retired",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"cache-miss-ratio", "", "cache-misses,cache-references", "cache-misses / cache-references",
         "of all cache refs", 1, "last-level cache misses per access (vendor-defined events)",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"L1d-load-miss-ratio", "", "L1-dcache-load-misses,L1-dcache-loads",
         "L1-dcache-load-misses / L1-dcache-loads", "of all L1-dcache accesses", 1,
         "L1 data cache load misses per load", "any CPU that counts perf's generic events",
         PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"frontend-stall-ratio", "", "stalled-cycles-frontend,cycles",
         "stalled-cycles-frontend / cycles", "frontend cycles idle", 1,
         "cycles the front end issued nothing, per cycle",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"backend-stall-ratio", "", "stalled-cycles-backend,cycles",
         "stalled-cycles-backend / cycles", "backend cycles idle", 1,
         "cycles the back end retired nothing, per cycle",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL, NULL, NULL},
        {"GHz", "", "cycles,task-clock", "cycles / task-clock", "GHz", 0,
         "cycles per nanosecond of the thread's CPU time",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL, NULL, NULL},
        /* Misses per kilo-instruction. */
        MPKI("branch-MPKI", "branch-misses", "mispredicted branches"),
        MPKI("L1d-load-MPKI", "L1-dcache-load-misses", "L1 data cache load misses"),
        MPKI("LLC-load-MPKI", "LLC-load-misses", "last-level cache load misses"),
        MPKI("dTLB-load-MPKI", "dTLB-load-misses", "data TLB load misses"),
        MPKI("iTLB-load-MPKI", "iTLB-load-misses", "instruction TLB misses"),
        /* Miss rates, by perf's names. */
        {"llc_miss_rate", "", "LLC-load-misses,LLC-loads", "LLC-load-misses / LLC-loads",
         "of all LLC loads", 1, "last-level cache load misses per load", ANY_CPU, PERF_COMMON, NULL,
         NULL, NULL, NULL},
        {"dtlb_miss_rate", "", "dTLB-load-misses,dTLB-loads", "dTLB-load-misses / dTLB-loads",
         "of all dTLB loads", 1, "data TLB load misses per load", ANY_CPU, PERF_COMMON, NULL, NULL,
         NULL, NULL},
        {"itlb_miss_rate", "", "iTLB-load-misses,iTLB-loads", "iTLB-load-misses / iTLB-loads",
         "of all iTLB loads", 1, "instruction TLB misses per access", ANY_CPU, PERF_COMMON, NULL,
         NULL, NULL, NULL},
};
const unsigned upmc_metrics_generic_n =
        sizeof(upmc_metrics_generic) / sizeof(upmc_metrics_generic[0]);
