/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's Arm metrics: topdown from the STALL_SLOT events
 * (lib/core/metrics.c reads the catalogue).
 */
#include "metric_def.h"

#define ARM_TOPDOWN                                                                            \
	"the kernel's tools/perf/pmu-events/arch/arm64/sbsa.json (Arm's topdown methodology, " \
	"STALL_SLOT events of PMUv3.5)"

#define NO_STALL_SLOT                                                                        \
	"its PMU lacks events of Arm's topdown (PMUv3.5's STALL_SLOT, STALL_SLOT_FRONTEND, " \
	"STALL_SLOT_BACKEND, or OP_SPEC and OP_RETIRED), which the kernel lists where the "  \
	"PMU has them"

/* Neoverse N2 and V2 (MIDR implementer 0x41, architecture 0xf, part 0xd49,
 * 0xd4f, any variant and revision, as perf's arm64 mapfile.csv takes them): perf's
 * neoverse-n2-v2/metrics.json takes cpu_cycles off stall_slot and stall_slot_frontend where #slots
 * is 5 (the N2's erratum: they count one slot more each cycle), and is sbsa.json's formula
 * otherwise. */
#define N2_IDS  "0x0000000041?fd49? 0x0000000041?fd4f?"
#define N2_CPUS "Arm Neoverse N2 (5 slots a cycle)"
#define N2_SOURCE                                                                             \
	"the kernel's tools/perf/pmu-events/arch/arm64/arm/neoverse-n2-v2/metrics.json (its " \
	"erratum: #slots 5, cpu_cycles taken off stall_slot and stall_slot_frontend)"
#define N2_STALL "( 1 - ( stall_slot - cpu_cycles ) / ( #slots * cpu_cycles ) )"

const struct upmc_metric_def upmc_metrics_arm[] = {
        {"retiring", "TopdownL1", "op_retired,op_spec,stall_slot,cpu_cycles",
         "op_retired / op_spec * " N2_STALL, "retiring", 1, "slots that retired an operation",
         N2_CPUS, N2_SOURCE, "arm64", N2_IDS, "slots=5", NO_STALL_SLOT},
        {"bad-speculation", "TopdownL1", "op_retired,op_spec,stall_slot,cpu_cycles",
         "( 1 - op_retired / op_spec ) * " N2_STALL, "bad speculation", 1,
         "slots wasted on operations that did not retire", N2_CPUS, N2_SOURCE, "arm64", N2_IDS,
         "slots=5", NO_STALL_SLOT},
        {"frontend-bound", "TopdownL1", "stall_slot_frontend,cpu_cycles",
         "( stall_slot_frontend - cpu_cycles ) / ( #slots * cpu_cycles )", "frontend bound", 1,
         "slots the front end left empty", N2_CPUS, N2_SOURCE, "arm64", N2_IDS, "slots=5",
         NO_STALL_SLOT},
        /* Arm, PMUv3.5 STALL_SLOT events; #slots per cycle from sysfs. */
        {"retiring", "TopdownL1", "op_retired,op_spec,stall_slot,cpu_cycles",
         "op_retired / op_spec * ( 1 - stall_slot / ( #slots * cpu_cycles ) )", "retiring", 1,
         "slots that retired an operation", "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN,
         "arm64", NULL, NULL, NO_STALL_SLOT},
        {"bad-speculation", "TopdownL1", "op_retired,op_spec,stall_slot,cpu_cycles",
         "( 1 - op_retired / op_spec ) * ( 1 - stall_slot / ( #slots * cpu_cycles ) )",
         "bad speculation", 1, "slots wasted on operations that did not retire",
         "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN, "arm64", NULL, NULL, NO_STALL_SLOT},
        {"frontend-bound", "TopdownL1", "stall_slot_frontend,cpu_cycles",
         "stall_slot_frontend / ( #slots * cpu_cycles )", "frontend bound", 1,
         "slots the front end left empty", "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN,
         "arm64", NULL, NULL, NO_STALL_SLOT},
        {"backend-bound", "TopdownL1", "stall_slot_backend,cpu_cycles",
         "stall_slot_backend / ( #slots * cpu_cycles )", "backend bound", 1,
         "slots stalled on the back end", "Arm, PMUv3.5 and later (STALL_SLOT)", ARM_TOPDOWN,
         "arm64", NULL, NULL, NO_STALL_SLOT},
};
const unsigned upmc_metrics_arm_n = sizeof(upmc_metrics_arm) / sizeof(upmc_metrics_arm[0]);
