/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's Arm metrics: topdown from the STALL_SLOT events
 * (lib/core/metrics.c reads the catalogue).
 */
#include "metric_def.h"

#define ARM_TOPDOWN                                                                            \
	"the kernel's tools/perf/pmu-events/arch/arm64/sbsa.json (Arm's topdown methodology, " \
	"STALL_SLOT events of PMUv3.5)"

const struct upmc_metric_def upmc_metrics_arm[] = {
        /* Arm, PMUv3.5 STALL_SLOT events; #slots per cycle from sysfs. */
        {"retiring", "TopdownL1", "op_retired,op_spec,stall_slot,cpu_cycles",
         "op_retired / op_spec * ( 1 - stall_slot / ( #slots * cpu_cycles ) )", "retiring", 1,
         "slots that retired an operation", "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN,
         "arm64", NULL},
        {"bad-speculation", "TopdownL1", "op_retired,op_spec,stall_slot,cpu_cycles",
         "( 1 - op_retired / op_spec ) * ( 1 - stall_slot / ( #slots * cpu_cycles ) )",
         "bad speculation", 1, "slots wasted on operations that did not retire",
         "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN, "arm64", NULL},
        {"frontend-bound", "TopdownL1", "stall_slot_frontend,cpu_cycles",
         "stall_slot_frontend / ( #slots * cpu_cycles )", "frontend bound", 1,
         "slots the front end left empty", "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN,
         "arm64", NULL},
        {"backend-bound", "TopdownL1", "stall_slot_backend,cpu_cycles",
         "stall_slot_backend / ( #slots * cpu_cycles )", "backend bound", 1,
         "slots stalled on the back end", "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN,
         "arm64", NULL},
};
const unsigned upmc_metrics_arm_n = sizeof(upmc_metrics_arm) / sizeof(upmc_metrics_arm[0]);
