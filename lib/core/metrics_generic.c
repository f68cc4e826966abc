/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's metrics of perf's generic events, for any CPU that
 * counts them (lib/core/metrics.c reads the catalogue).
 */
#include "metric_def.h"

#define PERF_GENERIC "perf's generic events (tools/perf/util/stat-shadow.c)"

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
};
const unsigned upmc_metrics_generic_n =
        sizeof(upmc_metrics_generic) / sizeof(upmc_metrics_generic[0]);
