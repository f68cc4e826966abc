/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's AMD metrics: the dispatch slots of Zen 4 and Zen 5
 * (lib/core/metrics.c reads the catalogue).
 */
#include "metric_def.h"

#define AMD_PIPELINE                                                                         \
	"the kernel's tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json (AMD's pipeline " \
	"utilisation, PipelineL1)"
/* Zen 4's events as libpfm4 names them: they resolve where libpfm4 takes
 * the CPU for a Zen 4 (6 dispatch slots a cycle). */
#define ZEN4(event) "amd64_fam19h_zen4::" event
#define ZEN4_SLOTS  "( 6 * " ZEN4("CYCLES_NOT_IN_HALT") " )"
#define ZEN4_CPUS   "AMD Zen 4"
/* Family 0x19 less Zen 3's models (perf's mapfile.csv: amdzen3 is
 * models 0x00-0x0f and 0x20-0x5f, amdzen4 the others). */
#define ZEN4_ID                                                                            \
	"AuthenticAMD-25-1?- AuthenticAMD-25-3?- AuthenticAMD-25-6?- AuthenticAMD-25-7?- " \
	"AuthenticAMD-25-8?- AuthenticAMD-25-9?- AuthenticAMD-25-A?- AuthenticAMD-25-B?- " \
	"AuthenticAMD-25-C?- AuthenticAMD-25-D?- AuthenticAMD-25-E?- AuthenticAMD-25-F?-"
#define ZEN3_ID                                                                        \
	"AuthenticAMD-23- AuthenticAMD-25-?- AuthenticAMD-25-2?- AuthenticAMD-25-4?- " \
	"AuthenticAMD-25-5?-"
/* Families before Zen's 0x17 (ids in decimal): to K8's 0x0f, K10's 0x10,
 * 0x11, 0x12, Bobcat's 0x14, Bulldozer to Excavator's 0x15, Jaguar's 0x16. */
#define BEFORE_ZEN_ID \
	"AuthenticAMD-?- AuthenticAMD-1?- AuthenticAMD-20- AuthenticAMD-21- AuthenticAMD-22-"

/* Zen 5 dispatches 8 ops a cycle. libpfm4 4.13 does not know it, so its
 * events are raw codes (AMD's event[7:0] | umask << 8 | event[11:8] <<
 * 32), which resolve on any CPU: the CPU's id says it is a Zen 5 (family
 * 0x1a, as perf's mapfile.csv matches amdzen5). */
#define ZEN5_CYCLES   "r76"        /* ls_not_halted_cyc */
#define ZEN5_RET_OPS  "rc1"        /* ex_ret_ops */
#define ZEN5_DISP_OPS "r7aa"       /* de_src_op_disp.all */
#define ZEN5_FE_NO_OP "r1000001a0" /* de_no_dispatch_per_slot.no_ops_from_frontend */
#define ZEN5_BE_STALL "r100001ea0" /* de_no_dispatch_per_slot.backend_stalls */
#define ZEN5_SMT      "r1000060a0" /* de_no_dispatch_per_slot.smt_contention */
#define ZEN5_SLOTS    "( 8 * " ZEN5_CYCLES " )"
#define ZEN5_CPUS     "AMD Zen 5 (family 0x1a, models 0x00-0x2f, 0x40-0x4f, 0x60-0x7f)"
/* Zen 5's models of family 0x1a, as the kernel's arch/x86/kernel/cpu/amd.c
 * tells them from Zen 6's (0x50-0x5f, 0x80-0xaf, 0xc0-0xcf). */
#define ZEN5_ID                                                                           \
	"AuthenticAMD-26-?- AuthenticAMD-26-1?- AuthenticAMD-26-2?- AuthenticAMD-26-4?- " \
	"AuthenticAMD-26-6?- AuthenticAMD-26-7?-"
#define AMD_PIPELINE_ZEN5                                                                      \
	"the kernel's tools/perf/pmu-events/arch/x86/amdzen5/pipeline.json (PipelineL1), its " \
	"events' codes from amdzen5/decode.json, execution.json and load-store.json"

const struct upmc_metric_def upmc_metrics_amd[] = {
        /* AMD Zen 3 and earlier: no metric, said (events ""). */
        {"TopdownL1", "TopdownL1", "", "", "", 0,
         "their PMUs count no dispatch slots (no de_no_dispatch_per_slot "
         "event, which came "
         "with Zen 4), so neither perf nor upmc has a TopdownL1 for them",
         "AMD Zen 3 and earlier",
         "the kernel's tools/perf/pmu-events/arch/x86/amdzen1, amdzen2 and "
         "amdzen3 (no "
         "pipeline.json, no PipelineL1 metric; amdzen4's is the first)",
         "x86", ZEN3_ID, NULL, NULL},
        /* AMD Zen 4: the dispatch slots of each cycle. */
        {"retiring", "TopdownL1", ZEN4("RETIRED_OPS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("RETIRED_OPS") " / " ZEN4_SLOTS, "retiring", 1,
         "dispatch slots that retired an operation", ZEN4_CPUS, AMD_PIPELINE, "x86", ZEN4_ID, NULL,
         NULL},
        {"bad-speculation", "TopdownL1",
         ZEN4("OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_"
              "BUFFER") "," ZEN4("RETIRED_OPS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         "( " ZEN4("OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:"
                   "LOOP_BUFFER") " - " ZEN4("RETIRED_OPS") " ) / " ZEN4_SLOTS,
         "bad speculation", 1, "dispatched operations that did not retire, per slot", ZEN4_CPUS,
         AMD_PIPELINE, "x86", ZEN4_ID, NULL, NULL},
        {"frontend-bound", "TopdownL1",
         ZEN4("DISPATCH_STALLS_1:FE_NO_OPS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("DISPATCH_STALLS_1:FE_NO_OPS") " / " ZEN4_SLOTS, "frontend bound", 1,
         "dispatch slots the front end left empty", ZEN4_CPUS, AMD_PIPELINE, "x86", ZEN4_ID, NULL,
         NULL},
        {"backend-bound", "TopdownL1",
         ZEN4("DISPATCH_STALLS_1:BE_STALLS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("DISPATCH_STALLS_1:BE_STALLS") " / " ZEN4_SLOTS, "backend bound", 1,
         "dispatch slots stalled on the back end", ZEN4_CPUS, AMD_PIPELINE, "x86", ZEN4_ID, NULL,
         NULL},
        {"smt-contention", "TopdownL1",
         ZEN4("DISPATCH_STALLS_1:SMT_CONTENTION") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("DISPATCH_STALLS_1:SMT_CONTENTION") " / " ZEN4_SLOTS, "SMT contention", 1,
         "dispatch slots the other thread of the core took", ZEN4_CPUS, AMD_PIPELINE, "x86",
         ZEN4_ID, NULL, NULL},
        /* AMD Zen 5: 8 dispatch slots a cycle. */
        {"retiring", "TopdownL1", ZEN5_RET_OPS "," ZEN5_CYCLES, ZEN5_RET_OPS " / " ZEN5_SLOTS,
         "retiring", 1, "dispatch slots that retired an operation", ZEN5_CPUS, AMD_PIPELINE_ZEN5,
         "x86", ZEN5_ID, NULL, NULL},
        {"bad-speculation", "TopdownL1", ZEN5_DISP_OPS "," ZEN5_RET_OPS "," ZEN5_CYCLES,
         "( " ZEN5_DISP_OPS " - " ZEN5_RET_OPS " ) / " ZEN5_SLOTS, "bad speculation", 1,
         "dispatched operations that did not retire, per slot", ZEN5_CPUS, AMD_PIPELINE_ZEN5, "x86",
         ZEN5_ID, NULL, NULL},
        {"frontend-bound", "TopdownL1", ZEN5_FE_NO_OP "," ZEN5_CYCLES,
         ZEN5_FE_NO_OP " / " ZEN5_SLOTS, "frontend bound", 1,
         "dispatch slots the front end left empty", ZEN5_CPUS, AMD_PIPELINE_ZEN5, "x86", ZEN5_ID,
         NULL, NULL},
        {"backend-bound", "TopdownL1", ZEN5_BE_STALL "," ZEN5_CYCLES,
         ZEN5_BE_STALL " / " ZEN5_SLOTS, "backend bound", 1,
         "dispatch slots stalled on the back end", ZEN5_CPUS, AMD_PIPELINE_ZEN5, "x86", ZEN5_ID,
         NULL, NULL},
        {"smt-contention", "TopdownL1", ZEN5_SMT "," ZEN5_CYCLES, ZEN5_SMT " / " ZEN5_SLOTS,
         "SMT contention", 1, "dispatch slots the other thread of the core took", ZEN5_CPUS,
         AMD_PIPELINE_ZEN5, "x86", ZEN5_ID, NULL, NULL},
        /* AMD before Zen: no metric, said. */
        {"TopdownL1", "TopdownL1", "", "", "", 0,
         "their PMUs count no dispatch slots, and the kernel's perf has no metrics for them "
         "(its mapfile.csv names AMD's families 0x17 to 0x1a alone: Zen to Zen 5)",
         "AMD before Zen (families 0x0f to 0x16: K8, K10, Bobcat, Bulldozer to Excavator, "
         "Jaguar)",
         "the kernel's tools/perf/pmu-events/arch/x86/mapfile.csv", "x86", BEFORE_ZEN_ID, NULL,
         NULL},
        /* Hygon (Dhyana, family 0x18, and later): no metric, said. */
        {"TopdownL1", "TopdownL1", "", "", "", 0,
         "upmc knows no dispatch-slot events of theirs, and the kernel's perf has no metrics "
         "for them (its mapfile.csv names no Hygon CPU)",
         "Hygon CPUs", "the kernel's tools/perf/pmu-events/arch/x86/mapfile.csv", "x86",
         "HygonGenuine-", NULL, NULL},
        /* Later AMD CPUs (Zen 6: family 0x1a's other models; later
         * families): no metric known, said. */
        {"TopdownL1", "TopdownL1", "", "", "", 0,
         "upmc knows no dispatch-slot events of theirs (Zen 6 and later), "
         "so it has no "
         "TopdownL1 for them",
         "AMD CPUs after Zen 5", "the kernel's tools/perf/pmu-events/arch/x86/mapfile.csv", "x86",
         "AuthenticAMD-", NULL, NULL},
};
const unsigned upmc_metrics_amd_n = sizeof(upmc_metrics_amd) / sizeof(upmc_metrics_amd[0]);
