/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's Intel metrics: topdown from PERF_METRICS, and before it
 * (lib/core/metrics.c reads the catalogue). Each variant names the CPUs it
 * is for by the ids of the kernel's tools/perf/pmu-events/arch/x86/
 * mapfile.csv, and its formula is perf's for them (Linux 6.1's
 * pmu-events, as Debian's perf prints them; docs/metrics.md).
 */
#include "metric_def.h"

/* What a CPU with PERF_METRICS lacks when the kernel lists no slots. */
#define NO_PERF_METRICS                                                                      \
	"its PMU does not expose PERF_METRICS (a virtual PMU without it, or a kernel older " \
	"than the CPU)"
/* What an Intel CPU of a model the catalogue does not list lacks when the
 * kernel lists no slots: the CPU may have no PERF_METRICS at all. */
#define NO_SLOTS                                                                               \
	"its PMU lists no slots: the CPU has no PERF_METRICS (a model before Ice Lake, or an " \
	"Atom, that the catalogue does not list), or a virtual PMU or a kernel older than "    \
	"the CPU hides it"
#define NO_TMA4_EVENTS                                                                     \
	"libpfm4 does not name its events here (upmc built without libpfm4, or a libpfm4 " \
	"that does not know the CPU)"

/* The level 1 events, and the sum of their values: perf divides each
 * field by it (the slots since the fields' reset, to within their
 * rounding). */
#define INTEL_L1 "slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound"
#define L1_SUM   "( topdown-fe-bound + topdown-bad-spec + topdown-retiring + topdown-be-bound )"
#define SHARE(f) "( " f " / " L1_SUM " )"

/* INT_MISC.UOP_DROPPING and INT_MISC.CLEARS_COUNT as raw codes: the CPU's
 * id says which CPU they are for. INT_MISC is event 0x0d on Ice Lake to
 * Rocket Lake and 0xad from Golden Cove on (perf's icelake and
 * sapphirerapids pipeline.json): UOP_DROPPING is umask 0x10; CLEARS_COUNT
 * umask 0x01, edge, cmask 1 (perf's INT_MISC.RECOVERY_CYCLES with
 * cmask=1,edge). */
#define ICL_UOP_DROPPING "r100d"
#define CLEARS_COUNT     "r104010d"
#define SPR_UOP_DROPPING "r10ad"

/* Ice Lake, Tiger Lake, Ice Lake-SP and Rocket Lake: perf's tma_* of
 * icelake, tigerlake, icelakex and rocketlake (Linux 6.1). */
#define ICL_IDS                                                                        \
	"GenuineIntel-6-7D- GenuineIntel-6-7E- GenuineIntel-6-A7- GenuineIntel-6-6A- " \
	"GenuineIntel-6-6C- GenuineIntel-6-8C- GenuineIntel-6-8D-"
#define ICL_CPUS   "Intel Ice Lake, Tiger Lake, Ice Lake-SP and Rocket Lake"
#define ICL_EVENTS INTEL_L1 "," ICL_UOP_DROPPING "," CLEARS_COUNT
#define ICL_FE     SHARE("topdown-fe-bound") " - " ICL_UOP_DROPPING " / slots"
#define ICL_BE     SHARE("topdown-be-bound") " + 5 * " CLEARS_COUNT " / slots"
#define ICL_SOURCE                                                                            \
	"perf's tma_* of Linux 6.1 tools/perf/pmu-events/arch/x86/icelakex/icx-metrics.json " \
	"(the same in icelake, tigerlake, rocketlake), over PERF_METRICS"

/* Their level 2, perf 6.1's, from events beside PERF_METRICS' four
 * fields, as raw codes (perf's icelake, icelakex, tigerlake and rocketlake
 * pipeline.json, frontend.json): IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE
 * (0x9c, umask 1, cmask 5), MACHINE_CLEARS.COUNT (0xc3, umask 1, edge,
 * cmask 1), CYCLE_ACTIVITY.STALLS_MEM_ANY (0xa3, umask and cmask 0x14),
 * CYCLE_ACTIVITY.STALLS_TOTAL (0xa3, umask and cmask 4),
 * EXE_ACTIVITY.BOUND_ON_STORES (0xa6, umask 0x40, cmask 2), .1_PORTS_UTIL
 * and .2_PORTS_UTIL (0xa6, umask 2 and 4). branch-misses is
 * BR_MISP_RETIRED.ALL_BRANCHES (the kernel's intel_perfmon_event_map). */
#define ICL_FE_NONE   "r500019c"
#define ICL_CLEARS    "r10401c3"
#define ICL_MEM_ANY   "r140014a3"
#define ICL_STALLS    "r40004a3"
#define ICL_ON_STORES "r20040a6"
#define ICL_1_PORT    "r2a6"
#define ICL_2_PORTS   "r4a6"
#define ICL_RET       SHARE("topdown-retiring")
#define ICL_BAD       "max ( 1 - ( " ICL_FE " + " ICL_BE " + " ICL_RET " ) , 0 )"
#define ICL_FETCH_LAT "( 5 * " ICL_FE_NONE " - " ICL_UOP_DROPPING " ) / slots"
#define ICL_MISP      "( branch-misses / ( branch-misses + " ICL_CLEARS " ) ) * ( " ICL_BAD " )"
#define ICL_MEM                                                                        \
	"( ( " ICL_MEM_ANY " + " ICL_ON_STORES " ) / ( " ICL_STALLS " + ( " ICL_1_PORT \
	" + " ICL_RET " * " ICL_2_PORTS " ) + " ICL_ON_STORES " ) ) * ( " ICL_BE " )"
#define ICL_MEM_EVENTS                                                                            \
	INTEL_L1 "," CLEARS_COUNT "," ICL_MEM_ANY "," ICL_ON_STORES "," ICL_STALLS "," ICL_1_PORT \
	         "," ICL_2_PORTS
#define ICL_L2_SOURCE                                                                          \
	"perf's tma_* of TopdownL2 in Linux 6.1 tools/perf/pmu-events/arch/x86/icelakex/"      \
	"icx-metrics.json (the same in icelake, tigerlake, rocketlake); heavy and light "      \
	"operations are not in the catalogue here (perf's need the microcode sequencer's and " \
	"the decoders' events)"

/* Alder Lake's and Raptor Lake's P-cores, Sapphire, Emerald and Granite
 * Rapids, Meteor Lake: 8 PERF_METRICS fields. */
#define SPR_IDS                                                                        \
	"GenuineIntel-6-97- GenuineIntel-6-9A- GenuineIntel-6-B7- GenuineIntel-6-BA- " \
	"GenuineIntel-6-BF- GenuineIntel-6-8F- GenuineIntel-6-CF- GenuineIntel-6-AD- " \
	"GenuineIntel-6-AE- GenuineIntel-6-AA- GenuineIntel-6-AC- GenuineIntel-6-B5-"
#define SPR_CPUS                                                                           \
	"Intel Alder Lake and Raptor Lake P-cores, Sapphire, Emerald and Granite Rapids, " \
	"Meteor Lake"
#define SPR_EVENTS(more) INTEL_L1 "," SPR_UOP_DROPPING more
#define SPR_FE           SHARE("topdown-fe-bound") " - " SPR_UOP_DROPPING " / slots"
#define SPR_BE           SHARE("topdown-be-bound")
#define SPR_RET          SHARE("topdown-retiring")
#define SPR_BAD          "max ( 1 - ( " SPR_FE " + " SPR_BE " + " SPR_RET " ) , 0 )"
#define SPR_SOURCE                                                                          \
	"perf's tma_* of Linux 6.1 tools/perf/pmu-events/arch/x86/sapphirerapids/"          \
	"spr-metrics.json (the same in alderlake's cpu_core; emeraldrapids, graniterapids " \
	"and meteorlake in the kernel's current JSON), over PERF_METRICS"

/* Arrow Lake's and Lunar Lake's P-cores (Lion Cove): each field over the
 * level 1 sum, as the tma_* of Unit cpu_core in the kernel's
 * arrowlake/arl-metrics.json (at 67f8bc848ee3) and lunarlake/
 * lnl-metrics.json (at 23878069de30): no INT_MISC.UOP_DROPPING correction
 * there, and bad speculation is its own field, not the remainder. */
#define LNC_IDS  "GenuineIntel-6-C5- GenuineIntel-6-C6- GenuineIntel-6-BD-"
#define LNC_CPUS "Intel Arrow Lake and Lunar Lake P-cores (Lion Cove)"
#define LNC_SOURCE                                                                        \
	"the kernel's tools/perf/pmu-events/arch/x86/arrowlake/arl-metrics.json and "     \
	"lunarlake/lnl-metrics.json (tma_* of Unit cpu_core: each field over the sum of " \
	"the four of level 1), over PERF_METRICS"
#define LNC_ROW(name, group, events, formula, unit, desc)                                  \
	ROW(name, group, events, formula, unit, desc, LNC_CPUS, LNC_SOURCE, LNC_IDS, NULL, \
	    NO_PERF_METRICS)
/* max(0, a - b) of two fields' shares: perf's level 2 remainders. */
#define SHARE_LESS(a, b) "max ( 0 , " SHARE(a) " - " SHARE(b) " )"

/* Other Intel CPUs with PERF_METRICS (a model not listed above): the
 * fields as fractions of slots, as the kernel's
 * tools/perf/Documentation/topdown.txt reads them. */
#define PLAIN_CPUS "Intel with PERF_METRICS, other models"
/* The vendor they are for: another's CPU takes the rows that say so. */
#define INTEL_ONLY "vendor=GenuineIntel"
#define PLAIN_SOURCE                                                                       \
	"the kernel's tools/perf/Documentation/topdown.txt (slots and the topdown metric " \
	"events)"
#define PLAIN_L2_CPUS "Intel with 8 PERF_METRICS fields, other models"
#define PLAIN_L2_SOURCE                                                                  \
	"the kernel's tools/perf/Documentation/topdown.txt (the level 2 topdown metric " \
	"events)"

/* Sandy Bridge to Cascade Lake: 4 slots a cycle, no PERF_METRICS, events
 * by libpfm4's names. perf's forms: with SMT off, slots are 4 x the
 * thread's cycles; with SMT on (and a per-thread count), 4 x the core's
 * cycles as one logical CPU sees them, (cycles / 2) x (1 +
 * ONE_THREAD_ACTIVE / REF_XCLK), and the recovery cycles of the core,
 * halved. */
/* Sandy Bridge to Broadwell (perf's sandybridge, jaketown, ivybridge,
 * ivytown, haswell, haswellx, broadwell, broadwellde, broadwellx), then
 * Skylake to Cascade Lake (skylake: Skylake, Kaby, Coffee and Comet Lake;
 * skylakex and cascadelakex: 55). */
#define TMA4_OLD_IDS                                                                   \
	"GenuineIntel-6-2A- GenuineIntel-6-2D- GenuineIntel-6-3A- GenuineIntel-6-3E- " \
	"GenuineIntel-6-3C- GenuineIntel-6-45- GenuineIntel-6-46- GenuineIntel-6-3F- " \
	"GenuineIntel-6-3D- GenuineIntel-6-47- GenuineIntel-6-56- GenuineIntel-6-4F-"
#define SKL_IDS                                                                        \
	"GenuineIntel-6-4E- GenuineIntel-6-5E- GenuineIntel-6-8E- GenuineIntel-6-9E- " \
	"GenuineIntel-6-A5- GenuineIntel-6-A6- GenuineIntel-6-55-"
#define TMA4_IDS      TMA4_OLD_IDS " " SKL_IDS
#define TMA4_CPUS     "Intel, Sandy Bridge to Cascade Lake (4 slots a cycle), SMT off"
#define TMA4_SMT_CPUS "Intel, Sandy Bridge to Cascade Lake (4 slots a cycle), SMT on"
#define TMA4                                                                                  \
	"perf's tma_* of Linux 6.1 tools/perf/pmu-events/arch/x86/skylakex/skx-metrics.json " \
	"(the same in sandybridge to cascadelakex), events by libpfm4's names"
#define TMA4_SLOTS "( 4 * cycles )"
#define TMA4_REC   "4 * INT_MISC:RECOVERY_CYCLES"
/* SMT on: the core's clocks per logical CPU, and its recovery cycles. */
#define SMT_CLKS                                                         \
	"( ( cycles / 2 ) * ( 1 + CPU_CLK_UNHALTED:ONE_THREAD_ACTIVE / " \
	"CPU_CLK_UNHALTED:REF_XCLK ) )"
#define SMT_SLOTS      "( 4 * " SMT_CLKS " )"
#define SMT_CLK_EVENTS "cycles,CPU_CLK_UNHALTED:ONE_THREAD_ACTIVE,CPU_CLK_UNHALTED:REF_XCLK"
#define SMT_REC        "4 * ( INT_MISC:RECOVERY_CYCLES_ANY / 2 )"
/* Level 1 over slots S, with the recovery slots R. */
#define TMA4_RET(S)    "UOPS_RETIRED:RETIRE_SLOTS / " S
#define TMA4_FE(S)     "IDQ_UOPS_NOT_DELIVERED:CORE / " S
#define TMA4_BAD(S, R) "( UOPS_ISSUED:ANY - UOPS_RETIRED:RETIRE_SLOTS + " R " ) / " S
#define TMA4_BE(S, R)  "1 - " TMA4_FE(S) " - ( UOPS_ISSUED:ANY + " R " ) / " S
/* SMT on: bad speculation's and backend bound's inputs are 5 general
 * counters' events (UOPS_ISSUED.ANY, RETIRE_SLOTS or IDQ_UOPS_NOT_DELIVERED,
 * RECOVERY_CYCLES_ANY, ONE_THREAD_ACTIVE, REF_XCLK) beside cycles, where
 * the core gives a thread 4: counted alone (upmc_metrics_apart). */
#define APART(state, need, has)                                                                \
	"; " state "its inputs need " need " general counters where a thread has " has ", so " \
	"they are never one group: a multiplexed set (upmc stat's) counts each alone, scaled " \
	"by its own time on the counters, as perf 6.1 does when the kernel refuses the group"
#define SMT_APART APART("with SMT on ", "5", "4")

/* Skylake to Cascade Lake: perf 6.1's level 2 (skl-metrics.json,
 * skx-metrics.json, clx-metrics.json, the same formulas), over the same
 * slots as level 1, its events beyond level 1's as raw codes (perf's
 * skylake and skylakex frontend.json, pipeline.json):
 * IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE (0x9c, umask 1, cmask 4),
 * MACHINE_CLEARS.COUNT (0xc3, umask 1, edge, cmask 1),
 * UOPS_RETIRED.MACRO_FUSED (0xc2, umask 4). branch-misses is
 * BR_MISP_RETIRED.ALL_BRANCHES, instructions INST_RETIRED.ANY (the
 * kernel's intel_perfmon_event_map). perf 6.1 clamps none of these
 * differences at 0 here. */
#define SKL_FE_NONE      "r400019c"
#define SKL_CLEARS       "r10401c3"
#define SKL_MACRO_FUSED  "r4c2"
#define SKL_FETCH_LAT(S) "4 * " SKL_FE_NONE " / " S
#define SKL_MISP_SHARE   "( branch-misses / ( branch-misses + " SKL_CLEARS " ) )"
#define SKL_MISP(S, R)   SKL_MISP_SHARE " * ( " TMA4_BAD(S, R) " )"
#define SKL_HEAVY(S)     "( UOPS_RETIRED:RETIRE_SLOTS + " SKL_MACRO_FUSED " - instructions ) / " S
#define SKL_OPS_EVENTS   "UOPS_RETIRED:RETIRE_SLOTS," SKL_MACRO_FUSED ",instructions"
#define SKL_CPUS         "Intel Skylake to Cascade Lake (4 slots a cycle), SMT off"
#define SKL_SMT_CPUS     "Intel Skylake to Cascade Lake (4 slots a cycle), SMT on"
#define SKL_SOURCE                                                                               \
	"perf's tma_* of TopdownL2 in Linux 6.1 tools/perf/pmu-events/arch/x86/skylakex/"        \
	"skx-metrics.json (the same in skylake, cascadelakex), events from their frontend.json " \
	"and pipeline.json"
#define SKL_ROW(name, events, formula, unit, desc, cpus, when)                               \
	ROW(name, "TopdownL2", events, formula, unit, desc, cpus, SKL_SOURCE, SKL_IDS, when, \
	    NO_TMA4_EVENTS)
/* A level 2 name these CPUs cannot count in one group, and why. */
/* Memory bound's events beyond level 1's (perf's skylake and skylakex
 * pipeline.json, memory.json): CYCLE_ACTIVITY.STALLS_MEM_ANY and
 * STALLS_TOTAL, EXE_ACTIVITY.1_PORTS_UTIL and 2_PORTS_UTIL as on Ice Lake
 * (ICL_MEM_ANY ...), EXE_ACTIVITY.BOUND_ON_STORES without Ice Lake's
 * cmask (0xa6, umask 0x40). With level 1's they are 9 general counters'
 * events (11 with SMT on) where the core gives a thread 8 (4): counted
 * alone (upmc_metrics_apart), as branch mispredicts' and machine clears'
 * 7 are with SMT on. */
#define SKL_ON_STORES "r40a6"
/* and level 1's, with the recovery cycles and clocks of one SMT state */
#define SKL_MEM_EVENTS(rec_clk)                                         \
	ICL_MEM_ANY                                                     \
	"," SKL_ON_STORES "," ICL_STALLS "," ICL_1_PORT "," ICL_2_PORTS \
	",UOPS_RETIRED:RETIRE_SLOTS,IDQ_UOPS_NOT_DELIVERED:CORE,UOPS_ISSUED:ANY," rec_clk
/* memory bound's share of backend bound, over slots S */
#define SKL_MEM_SHARE(S)                                                               \
	"( ( " ICL_MEM_ANY " + " SKL_ON_STORES " ) / ( " ICL_STALLS " + ( " ICL_1_PORT \
	" + ( " TMA4_RET(S) " ) * " ICL_2_PORTS " ) + " SKL_ON_STORES " ) )"
#define SKL_MEM(S, R) SKL_MEM_SHARE(S) " * ( " TMA4_BE(S, R) " )"
/* Sandy Bridge to Broadwell: perf 6.1's level 2 (snb-, jkt-, ivb-, ivt-,
 * hsw-, hsx-, bdw-, bdx- and bdwde-metrics.json), over the same slots as
 * level 1, its events beyond
 * level 1's as raw codes (perf's sandybridge to broadwellx frontend.json,
 * pipeline.json): IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE and
 * MACHINE_CLEARS.COUNT as on Skylake, IDQ.MS_UOPS (0x79, umask 0x30).
 * Heavy operations are the microcode sequencer's share; Sandy Bridge to
 * Haswell cap fetch latency's cycles at the thread's, Broadwell does not. */
#define SNB_IVB_IDS      "GenuineIntel-6-2A- GenuineIntel-6-2D- GenuineIntel-6-3A- GenuineIntel-6-3E-"
#define HSW_IDS          "GenuineIntel-6-3C- GenuineIntel-6-45- GenuineIntel-6-46- GenuineIntel-6-3F-"
#define SNB_IDS          SNB_IVB_IDS " " HSW_IDS
#define BDW_IDS          "GenuineIntel-6-3D- GenuineIntel-6-47- GenuineIntel-6-56- GenuineIntel-6-4F-"
#define SNB_MS_UOPS      "r3079"
#define SNB_FETCH_LAT(S) "4 * min ( cycles , " SKL_FE_NONE " ) / " S
#define SNB_HEAVY(S)     "( UOPS_RETIRED:RETIRE_SLOTS / UOPS_ISSUED:ANY ) * " SNB_MS_UOPS " / " S
#define SNB_OPS_EVENTS   "UOPS_RETIRED:RETIRE_SLOTS,UOPS_ISSUED:ANY," SNB_MS_UOPS
#define SNB_L2_CPUS      "Intel Sandy Bridge to Haswell (4 slots a cycle), SMT off"
#define SNB_L2_SMT_CPUS  "Intel Sandy Bridge to Haswell (4 slots a cycle), SMT on"
#define BDW_L2_CPUS      "Intel Broadwell (4 slots a cycle), SMT off"
#define BDW_L2_SMT_CPUS  "Intel Broadwell (4 slots a cycle), SMT on"
#define SNB_L2_SOURCE                                                                         \
	"perf's tma_* of TopdownL2 in Linux 6.1 tools/perf/pmu-events/arch/x86/haswellx/"     \
	"hsx-metrics.json (the same in sandybridge, jaketown, ivybridge, ivytown, haswell), " \
	"events from their frontend.json and pipeline.json"
#define BDW_L2_SOURCE                                                                       \
	"perf's tma_* of TopdownL2 in Linux 6.1 tools/perf/pmu-events/arch/x86/broadwellx/" \
	"bdx-metrics.json (the same in broadwell, broadwellde), events from their "         \
	"frontend.json and pipeline.json"
/* The six rows of one SMT state: slots S, recovery slots R, the clock
 * events clk and recovery cycles rec of that state, fetch latency FL;
 * bad and ops: what bad speculation's and the operations' rows say of
 * their inputs' counters (SNB_APART with SMT on). */
#define SNB_APART(need) APART("", need, "4")
#define SNB_L2(cpus, source, ids, when, S, R, clk, rec, FL, bad, ops)                             \
	ROW("fetch-latency", "TopdownL2", SKL_FE_NONE "," clk, FL, "fetch latency",               \
	    FETCH_LAT_DESC, cpus, source, ids, when, NO_TMA4_EVENTS),                             \
	        ROW("fetch-bandwidth", "TopdownL2",                                               \
	            "IDQ_UOPS_NOT_DELIVERED:CORE," SKL_FE_NONE "," clk, TMA4_FE(S) " - " FL,      \
	            "fetch bandwidth", FETCH_BW_DESC, cpus, source, ids, when, NO_TMA4_EVENTS),   \
	        ROW("branch-mispredicts", "TopdownL2", SKL_BAD_EVENTS(rec "," clk),               \
	            SKL_MISP(S, R), "branch mispredicts", MISP_DESC bad, cpus, source, ids, when, \
	            NO_TMA4_EVENTS),                                                              \
	        ROW("machine-clears", "TopdownL2", SKL_BAD_EVENTS(rec "," clk),                   \
	            TMA4_BAD(S, R) " - " SKL_MISP(S, R), "machine clears", CLEARS_DESC bad, cpus, \
	            source, ids, when, NO_TMA4_EVENTS),                                           \
	        ROW("heavy-operations", "TopdownL2", SNB_OPS_EVENTS "," clk, SNB_HEAVY(S),        \
	            "heavy operations", HEAVY_DESC ops, cpus, source, ids, when, NO_TMA4_EVENTS), \
	        ROW("light-operations", "TopdownL2", SNB_OPS_EVENTS "," clk,                      \
	            TMA4_RET(S) " - " SNB_HEAVY(S), "light operations", LIGHT_DESC ops, cpus,     \
	            source, ids, when, NO_TMA4_EVENTS)

/* Their memory bound and core bound, perf 6.1's: backend bound times the
 * share of the stalls on memory (loads pending, and the store buffer full:
 * RESOURCE_STALLS.SB) among the cycles the core executed little, whose
 * count perf chooses by comparisons. With IPC above 1.8: the cycles that
 * executed nothing, plus those that executed 1 or 2 uops; else, with
 * fetch latency above 0.1: those that executed 2 or more, less those the
 * scheduler was empty; else the store buffer's full cycles (so perf's
 * grammar binds 'a + b - c if x else d - e if y else f': the cycles that
 * executed nothing are in the first branch alone; Haswell's with SMT on,
 * over the core's uops halved, in the second alone). Core bound is backend bound less memory bound,
 * as backend bound x (1 - the share), which fits the evaluator's steps. Raw codes, the same on all
 * of them (their pipeline.json and memory.json): 0xa3, umask and cmask 6
 * (CYCLE_ACTIVITY.STALLS_L1D_PENDING on Sandy Bridge, STALLS_LDM_PENDING on Ivy Bridge and Haswell,
 * STALLS_MEM_ANY on Broadwell) and 4 (CYCLES_NO_DISPATCH, CYCLES_NO_EXECUTE, STALLS_TOTAL),
 * RESOURCE_STALLS.SB (0xa2, umask 8), RS_EVENTS.EMPTY_CYCLES (0x5e, umask
 * 1), 0xb1 umask 1 with cmask 1, 2, 3 (Sandy Bridge's
 * UOPS_DISPATCHED.THREAD, the others' UOPS_EXECUTED.CYCLES_GE_1_UOP_EXEC,
 * _2_, _3_), Haswell's UOPS_EXECUTED.CORE (0xb1, umask 2) with the same
 * cmasks. Their inputs are 11 general counters' events (13 with SMT on)
 * where a thread has 8 (4): counted alone (upmc_metrics_apart). */
#define OLD_LOADS      "r60006a3"
#define OLD_NO_EXECUTE "r40004a3"
#define OLD_SB         "r8a2"
#define OLD_RS_EMPTY   "r15e"
/* 0xb1 with cmask 1, 2, 3: the cycles that executed at least that many
 * uops, the thread's (umask 1) and Haswell's core's (umask 2) */
#define OLD_UOPS_1      "r10001b1"
#define OLD_UOPS_2      "r20001b1"
#define OLD_UOPS_3      "r30001b1"
#define HSW_UOPS_1      "r10002b1"
#define HSW_UOPS_2      "r20002b1"
#define HSW_UOPS_3      "r30002b1"
#define OLD_IPC_HIGH    "( instructions / cycles > 1.8 )"
#define OLD_CAPPED(e)   "min ( cycles , " e " )"
#define OLD_FL_HIGH(FL) "( " FL " > 0.1 )"
/* the cycles of little execution: stalls, the cycles of u1, u2, u3 uops
 * or more, fetch latency FL */
#define OLD_STALLS(stalls, u1, u2, u3, FL)                                               \
	"( " stalls " + " u1 " - " u3 " if " OLD_IPC_HIGH " else " u2 " - " OLD_RS_EMPTY \
	" if " OLD_FL_HIGH(FL) " else " OLD_SB " )"
/* Haswell's with SMT on: perf's #SMT_on branch */
#define HSW_UOPS_FEW "( " HSW_UOPS_1 " - " HSW_UOPS_3 " if " OLD_IPC_HIGH " else " HSW_UOPS_2 " )"
#define HSW_SMT_STALLS(FL)                                                        \
	"( " OLD_CAPPED(OLD_NO_EXECUTE) " + " HSW_UOPS_FEW " / 2 - " OLD_RS_EMPTY \
	                                " if " OLD_FL_HIGH(FL) " else " OLD_SB " )"
#define OLD_MEM_SHARE(loads, stalls) "( ( " loads " + " OLD_SB " ) / " stalls " )"
/* their events, with those of 1, 2, 3 uops and the recovery cycles and
 * clocks of one SMT state */
#define OLD_MEM_EVENTS(u1, u2, u3, rec_clk)                                           \
	OLD_LOADS "," OLD_SB "," OLD_NO_EXECUTE "," u1 "," u2 "," u3 "," OLD_RS_EMPTY \
	          ",instructions," SKL_FE_NONE                                        \
	          ",IDQ_UOPS_NOT_DELIVERED:CORE,UOPS_ISSUED:ANY," rec_clk
/* The two rows of one SMT state: slots S, recovery slots R, memory's
 * share of backend bound, what the description says of the inputs. */
#define OLD_MEM_CORE(cpus, source, ids, when, S, R, events, share, apart)                          \
	ROW("memory-bound", "TopdownL2", events, share " * ( " TMA4_BE(S, R) " )", "memory bound", \
	    MEM_DESC apart, cpus, source, ids, when, NO_TMA4_EVENTS),                              \
	        ROW("core-bound", "TopdownL2", events,                                             \
	            "( " TMA4_BE(S, R) " ) * ( 1 - " share " )", "core bound", CORE_DESC apart,    \
	            cpus, source, ids, when, NO_TMA4_EVENTS)
/* ... with SMT off and on (cpus, smt_cpus): loads pending, the CPU's
 * events (EVENTS of the recovery cycles and clocks), its stalls in each
 * state (STALLS, SMT_STALLS of fetch latency) and fetch latency (FL of
 * slots) */
#define OLD_MEM_CORE_BOTH(cpus, smt_cpus, source, ids, EVENTS, loads, STALLS, SMT_STALLS, FL)     \
	OLD_MEM_CORE(cpus, source, ids, "smt-off", TMA4_SLOTS, TMA4_REC, EVENTS(OFF_REC),         \
	             OLD_MEM_SHARE(loads, STALLS(FL(TMA4_SLOTS))), APART("", "11", "8")),         \
	        OLD_MEM_CORE(smt_cpus, source, ids, "smt-on", SMT_SLOTS, SMT_REC, EVENTS(ON_REC), \
	                     OLD_MEM_SHARE(loads, SMT_STALLS(FL(SMT_SLOTS))),                     \
	                     APART("", "13", "4"))
#define OFF_REC "INT_MISC:RECOVERY_CYCLES,cycles"
#define ON_REC  "INT_MISC:RECOVERY_CYCLES_ANY," SMT_CLK_EVENTS
/* each CPU's events, and its stalls at fetch latency FL */
#define OLD_EVENTS(rec_clk) OLD_MEM_EVENTS(OLD_UOPS_1, OLD_UOPS_2, OLD_UOPS_3, rec_clk)
#define HSW_EVENTS(rec_clk) OLD_MEM_EVENTS(HSW_UOPS_1, HSW_UOPS_2, HSW_UOPS_3, rec_clk)
#define SNB_IVB_STALLS(FL) \
	OLD_STALLS(OLD_CAPPED(OLD_NO_EXECUTE), OLD_UOPS_1, OLD_UOPS_2, OLD_UOPS_3, FL)
#define HSW_STALLS(FL) \
	OLD_STALLS(OLD_CAPPED(OLD_NO_EXECUTE), HSW_UOPS_1, HSW_UOPS_2, HSW_UOPS_3, FL)
#define BDW_STALLS(FL) OLD_STALLS(OLD_NO_EXECUTE, OLD_UOPS_1, OLD_UOPS_2, OLD_UOPS_3, FL)
#define SNB_MEM_SOURCE                                                                        \
	"perf's tma_memory_bound and tma_core_bound of Linux 6.1 "                            \
	"tools/perf/pmu-events/arch/x86/sandybridge/snb-metrics.json and ivybridge/"          \
	"ivb-metrics.json (the same formula over the same codes; jaketown and ivytown too), " \
	"events from their pipeline.json and memory.json"
#define HSW_MEM_SOURCE                                                                     \
	"perf's tma_memory_bound and tma_core_bound of Linux 6.1 "                         \
	"tools/perf/pmu-events/arch/x86/haswell/hsw-metrics.json (the same in haswellx), " \
	"events from their pipeline.json and memory.json"

/* Intel's Atom cores before Gracemont, and Xeon Phi, as perf's mapfile.csv
 * names them: bonnell (1C, 26, 27, 35, 36), silvermont (37, 4A, 4C, 4D,
 * 5A, 5D), goldmont (5C, 5F), goldmontplus (7A), snowridgex (86),
 * elkhartlake (96, 9C), knightslanding (57, 85). */
#define ATOM_IDS                                                                       \
	"GenuineIntel-6-1C- GenuineIntel-6-26- GenuineIntel-6-27- GenuineIntel-6-35- " \
	"GenuineIntel-6-36- GenuineIntel-6-37- GenuineIntel-6-4A- GenuineIntel-6-4C- " \
	"GenuineIntel-6-4D- GenuineIntel-6-5A- GenuineIntel-6-5D- GenuineIntel-6-5C- " \
	"GenuineIntel-6-5F- GenuineIntel-6-7A- GenuineIntel-6-86- GenuineIntel-6-96- " \
	"GenuineIntel-6-9C- GenuineIntel-6-57- GenuineIntel-6-85-"
#define ATOM_CPUS                                                                         \
	"Intel's Atoms before Gracemont (Bonnell to Tremont: Elkhart Lake, Jasper Lake, " \
	"Snow Ridge) and Xeon Phi"
#define MAPFILE "the kernel's tools/perf/pmu-events/arch/x86/mapfile.csv"
/* x86 CPUs of other vendors: Zhaoxin and VIA (CentaurHauls), ... */
#define OTHER_CPUS "x86 CPUs of vendors other than Intel, AMD and Hygon"
#define OTHER_DESC                                                                         \
	"upmc knows the topdown events of Intel's and AMD's CPUs alone, and the kernel's " \
	"perf has no metrics for theirs (its mapfile.csv names Intel and AMD CPUs alone)"
#define OTHER_VENDORS "vendor!=GenuineIntel AuthenticAMD HygonGenuine"
#define NONE(group, desc, cpus, ids, when)                                               \
	{                                                                                \
		group, group, "", "", "", 0, desc, cpus, MAPFILE, "x86", ids, when, NULL \
	}

#define ROW(name, group, events, formula, unit, desc, cpus, source, ids, when, lacks)              \
	{                                                                                          \
		name, group, events, formula, unit, 1, desc, cpus, source, "x86", ids, when, lacks \
	}

#define RET_DESC "slots that retired an operation"
#define BAD_DESC "slots wasted on operations that did not retire, and on recovering from them"
#define FE_DESC  "slots the front end left empty"
#define BE_DESC  "slots stalled on the back end"
#define FETCH_LAT_DESC \
	"slots the front end left empty while it fetched (cache, TLB misses, resteers)"
#define FETCH_BW_DESC "slots the front end left empty for want of decode bandwidth"
#define MISP_DESC     "slots wasted on mispredicted branches"
#define CLEARS_DESC   "slots wasted on machine clears (memory ordering, self-modifying code)"
#define HEAVY_DESC    "slots that retired operations of two or more uops, or microcode"
#define LIGHT_DESC    "slots that retired operations of one uop"
#define MEM_DESC      "slots stalled on the memory subsystem"
#define CORE_DESC     "slots stalled on the core's execution units, not on memory"
/* Bad speculation's events with branch-misses and MACHINE_CLEARS.COUNT,
 * and the recovery cycles and clocks of one SMT state. */
#define SKL_BAD_EVENTS(rec_clk) \
	"UOPS_ISSUED:ANY,UOPS_RETIRED:RETIRE_SLOTS,branch-misses," SKL_CLEARS "," rec_clk

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
#define MPKI_IDS                                                                       \
	"GenuineIntel-6-3A- GenuineIntel-6-3E- GenuineIntel-6-3C- GenuineIntel-6-45- " \
	"GenuineIntel-6-46- GenuineIntel-6-3F- GenuineIntel-6-3D- GenuineIntel-6-47- " \
	"GenuineIntel-6-4F- GenuineIntel-6-56- GenuineIntel-6-4E- GenuineIntel-6-5E- " \
	"GenuineIntel-6-8E- GenuineIntel-6-9E- GenuineIntel-6-A5- GenuineIntel-6-A6- " \
	"GenuineIntel-6-55- GenuineIntel-6-7D- GenuineIntel-6-7E- GenuineIntel-6-6A- " \
	"GenuineIntel-6-6C- GenuineIntel-6-8C- GenuineIntel-6-8D- GenuineIntel-6-A7- " \
	"GenuineIntel-6-8F-"
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
		        MPKI_CPUS, MPKI_SOURCE, "x86", MPKI_IDS, NULL, NULL         \
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
#define GRT_ID    "GenuineIntel-6-BE-"
#define GRT_SOURCE                                                                              \
	"the kernel's tools/perf/pmu-events/arch/x86/alderlaken/adln-metrics.json (TopdownL1: " \
	"tma_retiring, tma_bad_speculation, tma_frontend_bound, tma_backend_bound; TopdownL2: " \
	"tma_branch_mispredicts, tma_machine_clears, tma_core_bound; SLOTS = 5 x "              \
	"CPU_CLK_UNHALTED.CORE), events from alderlaken/pipeline.json and memory.json"
/* Gracemont's level 2 events, raw: TOPDOWN_BAD_SPECULATION.MISPREDICT and
 * .MACHINE_CLEARS (0x73 umask 4 and 3), and core bound's (GRT_CORE). */
#define GRT_MISP        "r473"
#define GRT_CLEARS      "r373"
#define GRT_CORE_EVENTS "r74,rff05,r274,r104,r704,cycles"
#define GRT_ROW(name, group, events, formula, unit, desc) \
	ROW(name, group, events, formula, unit, desc, GRT_CPUS, GRT_SOURCE, GRT_ID, NULL, NULL)

/* Gracemont's core bound, perf 6.1's: backend bound less the load and
 * store bound, which perf takes as at most backend bound: the cycles with
 * a load at the head of retirement (LD_HEAD.ANY_AT_RET, 0x05 umask 0xff),
 * and the memory scheduler's stalls (TOPDOWN_BE_BOUND.MEM_SCHEDULER, 0x74
 * umask 2) times the store buffer's part of its blocks
 * (MEM_SCHEDULER_BLOCK.ST_BUF and .ALL, 0x04 umask 1 and 7). */
#define GRT_CORE(be, ld, sched, st_buf, all, clk, slots)                                        \
	"max ( 0 , " be " / " slots " - min ( " be " / " slots " , " ld " / " clk " + ( " sched \
	" / " slots " ) * ( " st_buf " / " all " ) ) )"
/* Not in TopdownL2: with its mispredicts and machine clears, core bound
 * would need 7 general counters in one group, where Gracemont has 6 (and a
 * hybrid CPU's set is not multiplexed). perf 6.1's other group of it. */
#define GRT_CORE_GROUP "tma_backend_bound_group"
#define GRT_CORE_DESC                                                                         \
	"slots stalled on the back end for the core's own resources: backend bound less the " \
	"loads' and stores' stalls"
/* A level 2 name the kernel's E-core metrics do not have. */
#define ATOM_L2_NONE(name, cpus, source, ids, when)                                             \
	{                                                                                       \
		name, "TopdownL2", "", "", "", 0,                                               \
		        "the kernel's E-core metrics divide level 2 otherwise (tma_ifetch_"     \
		        "latency, tma_ifetch_bandwidth, tma_resource_bound), so upmc has only " \
		        "branch-mispredicts, machine-clears and core-bound there",              \
		        cpus, source, "x86", ids, when, NULL                                    \
	}
#define GRT_NONE(name) ATOM_L2_NONE(name, GRT_CPUS, GRT_SOURCE, GRT_ID, NULL)

/* The E-cores of hybrid CPUs (the core PMU cpu_atom), each counted by its
 * own TOPDOWN_* events as pmu/terms/ events of cpu_atom (a raw code would
 * go to cpu_core), over its own cycles (CPU_CLK_UNHALTED.CORE_P, event
 * 0x3c, which counts as the fixed CPU_CLK_UNHALTED.CORE): a set counts
 * them beside the P-cores' variant (lib/core/metrics.c). */
#define ATOM(code)    "cpu_atom/event=" code "/"
#define ATOM_CLK      ATOM("0x3c")
#define ATOM_SLOTS(n) "( " n " * " ATOM_CLK " )"
/* Gracemont, the E-core of Alder Lake and Raptor Lake: 5 slots a cycle;
 * TOPDOWN_RETIRING.ALL 0xc2, TOPDOWN_FE_BOUND.ALL 0x71, TOPDOWN_BE_BOUND.ALL
 * 0x74, TOPDOWN_BAD_SPECULATION.MISPREDICT 0x73 umask 4, .MACHINE_CLEARS
 * 0x73 umask 3 (perf 6.1's alderlake/pipeline.json, Unit cpu_atom). */
#define GRT_E_RET    ATOM("0xc2")
#define GRT_E_FE     ATOM("0x71")
#define GRT_E_BE     ATOM("0x74")
#define GRT_E_MISP   ATOM("0x73,umask=0x4")
#define GRT_E_CLEARS ATOM("0x73,umask=0x3")
#define GRT_E_SLOTS  ATOM_SLOTS("5")
#define GRT_E_LD     ATOM("0x5,umask=0xff")
#define GRT_E_SCHED  ATOM("0x74,umask=0x2")
#define GRT_E_ST_BUF ATOM("0x4,umask=0x1")
#define GRT_E_BLOCKS ATOM("0x4,umask=0x7")
#define GRT_E_IDS                                                                      \
	"GenuineIntel-6-97- GenuineIntel-6-9A- GenuineIntel-6-B7- GenuineIntel-6-BA- " \
	"GenuineIntel-6-BF-"
#define GRT_E_CPUS "Intel Alder Lake and Raptor Lake E-cores (Gracemont, 5 slots a cycle)"
#define GRT_E_SOURCE                                                                           \
	"perf's tma_* of Unit cpu_atom in Linux 6.1 tools/perf/pmu-events/arch/x86/alderlake/" \
	"adl-metrics.json (SLOTS = 5 x CLKS), events from alderlake/pipeline.json"
#define GRT_E(name, group, events, formula, unit, desc)                                    \
	ROW(name, group, events, formula, unit, desc, GRT_E_CPUS, GRT_E_SOURCE, GRT_E_IDS, \
	    UPMC_METRIC_E_CORE, NULL)
/* Crestmont, the E-core of Meteor Lake: 6 slots a cycle; TOPDOWN_*.ALL_P:
 * RETIRING 0x72, FE_BOUND 0x71, BE_BOUND 0x74, BAD_SPECULATION 0x73,
 * BAD_SPECULATION.MISPREDICT and .MACHINE_CLEARS 0x73 umask 4 and 3,
 * BE_BOUND.ALLOC_RESTRICTIONS 0x74 umask 1 (meteorlake/pipeline.json at
 * 0939bd2fcf33, Unit cpu_atom: Gracemont's codes, which Crestmont keeps). */
#define CMT_E_RET   ATOM("0x72")
#define CMT_E_FE    ATOM("0x71")
#define CMT_E_BE    ATOM("0x74")
#define CMT_E_BAD   ATOM("0x73")
#define CMT_E_MISP  ATOM("0x73,umask=0x4")
#define CMT_E_ALLOC ATOM("0x74,umask=0x1")
#define CMT_E_CLEAR ATOM("0x73,umask=0x3")
#define CMT_E_SLOTS ATOM_SLOTS("6")
#define CMT_E_IDS   "GenuineIntel-6-AA- GenuineIntel-6-AC-"
#define CMT_E_CPUS  "Intel Meteor Lake E-cores (Crestmont, 6 slots a cycle)"
#define CMT_E_SOURCE                                                                         \
	"the kernel's tools/perf/pmu-events/arch/x86/meteorlake/mtl-metrics.json (tma_* of " \
	"Unit cpu_atom: TOPDOWN_*.ALL_P / (6 x CPU_CLK_UNHALTED.CORE)), events from "        \
	"meteorlake/pipeline.json"
#define CMT_E(name, group, event, unit, desc)                                                 \
	ROW(name, group, event "," ATOM_CLK, event " / " CMT_E_SLOTS, unit, desc, CMT_E_CPUS, \
	    CMT_E_SOURCE, CMT_E_IDS, UPMC_METRIC_E_CORE, NULL)

/* Skymont, the E-core of Arrow Lake and Lunar Lake: 8 slots a cycle. perf
 * reads TOPDOWN_RETIRING.ALL and TOPDOWN_FE_BOUND.ALL from the E-cores'
 * fixed counters 6 and 5, which pipeline.json gives as no event code and
 * umask 7 and 6, and counts them so here; TOPDOWN_BAD_SPECULATION.ALL_P
 * 0x73, TOPDOWN_BE_BOUND.ALL_P 0xa4 umask 2 (0x74 is Gracemont's), and
 * MISPREDICT, MACHINE_CLEARS and ALLOC_RESTRICTIONS as Crestmont's
 * (arrowlake/pipeline.json at 473f6c8f437b, lunarlake/pipeline.json at
 * 23878069de30, Unit cpu_atom). */
#define SKT_E_RET   ATOM("0x0,umask=0x7")
#define SKT_E_FE    ATOM("0x0,umask=0x6")
#define SKT_E_BE    ATOM("0xa4,umask=0x2")
#define SKT_E_SLOTS ATOM_SLOTS("8")
#define SKT_E_IDS   "GenuineIntel-6-C5- GenuineIntel-6-C6- GenuineIntel-6-BD-"
#define SKT_E_CPUS  "Intel Arrow Lake and Lunar Lake E-cores (Skymont, 8 slots a cycle)"
#define SKT_E_SOURCE                                                                  \
	"the kernel's tools/perf/pmu-events/arch/x86/arrowlake/arl-metrics.json and " \
	"lunarlake/lnl-metrics.json (tma_* of Unit cpu_atom: TOPDOWN_* / (8 x "       \
	"CPU_CLK_UNHALTED.CORE)), events from their pipeline.json"
#define SKT_E(name, group, event, unit, desc)                                                 \
	ROW(name, group, event "," ATOM_CLK, event " / " SKT_E_SLOTS, unit, desc, SKT_E_CPUS, \
	    SKT_E_SOURCE, SKT_E_IDS, UPMC_METRIC_E_CORE, NULL)

/* Sierra Forest and Grand Ridge: Crestmont cores alone (no P-core, no
 * PERF_METRICS), 6 slots a cycle, the same TOPDOWN_*.ALL_P events as raw
 * codes of their one core PMU (sierraforest/pipeline.json at 3ab7ae8e07f8:
 * RETIRING 0x72, FE_BOUND 0x71, BE_BOUND 0x74, BE_BOUND.ALLOC_RESTRICTIONS
 * 0x74 umask 1, BAD_SPECULATION.MISPREDICT and .MACHINE_CLEARS 0x73 umask 4
 * and 3; BAD_SPECULATION.ALL_P 0x73 as meteorlake's; grandridge/
 * pipeline.json at 100c85421b52 the same codes); cycles is
 * CPU_CLK_UNHALTED.CORE. Their metrics JSON have the same formulas. */
#define SRF_SLOTS "( 6 * cycles )"
#define SRF_ID    "GenuineIntel-6-AF- GenuineIntel-6-B6-"
#define SRF_CPUS  "Intel Sierra Forest and Grand Ridge (Crestmont cores alone, 6 slots a cycle)"
#define SRF_SOURCE                                                                           \
	"the kernel's tools/perf/pmu-events/arch/x86/sierraforest/srf-metrics.json (tma_*: " \
	"TOPDOWN_*.ALL_P / (6 x CPU_CLK_UNHALTED.CORE), at 4f9786035f9e; the same in "       \
	"grandridge/grr-metrics.json at 39c1471e3e53), events from their pipeline.json"
#define SRF(name, group, event, unit, desc)                                                        \
	ROW(name, group, event ",cycles", event " / " SRF_SLOTS, unit, desc, SRF_CPUS, SRF_SOURCE, \
	    SRF_ID, NULL, NULL)
/* A level 2 name Sierra Forest's and Grand Ridge's metrics do not have. */
#define SRF_NONE(name) ATOM_L2_NONE(name, SRF_CPUS, SRF_SOURCE, SRF_ID, NULL)

/* Sapphire Rapids: perf's level 3 under memory bound, fractions of the
 * thread's cycles (CPU_CLK_UNHALTED.THREAD): EXE_ACTIVITY.BOUND_ON_LOADS
 * (0xa6, umask 0x21, cmask 5) and BOUND_ON_STORES (0xa6, 0x40, cmask 2),
 * MEMORY_ACTIVITY.STALLS_L1D_MISS, STALLS_L2_MISS and STALLS_L3_MISS
 * (0x47, umask and cmask 3, 5 and 9), as raw codes. */
#define ON_LOADS   "r50021a6"
#define ON_STORES  "r20040a6"
#define STALLS_L1D "r3000347"
#define STALLS_L2  "r5000547"
#define STALLS_L3  "r9000947"
#define MEM_EVENTS ON_LOADS "," ON_STORES "," STALLS_L1D "," STALLS_L2 "," STALLS_L3 ",cycles"
#define MEM_GROUP  "tma_memory_bound_group"
#define MEM_CPUS   "Intel Sapphire Rapids"
#define MEM_IDS    "GenuineIntel-6-8F-"
#define MEM_SOURCE                                                                       \
	"perf's tma_l1_bound, tma_l2_bound, tma_l3_bound, tma_dram_bound and "           \
	"tma_store_bound of the kernel's tools/perf/pmu-events/arch/x86/sapphirerapids/" \
	"spr-metrics.json, events from its memory.json and pipeline.json"

const struct upmc_metric_def upmc_metrics_intel[] = {
        /* Intel's Atoms before Gracemont and Xeon Phi: no formula, said. */
        NONE("TopdownL1",
             "upmc has no formula for their cores, which have no PERF_METRICS and not the big "
             "cores' 4-slot events (Tremont's TOPDOWN_* events are not in its catalogue)",
             ATOM_CPUS, ATOM_IDS, NULL),
        NONE("TopdownL2", "upmc has no level 2 formula for their cores, which have no PERF_METRICS",
             ATOM_CPUS, ATOM_IDS, NULL),
        /* Ice Lake to Rocket Lake: perf's level 1 over PERF_METRICS. */
        ROW("retiring", "TopdownL1", INTEL_L1, SHARE("topdown-retiring"), "retiring", RET_DESC,
            ICL_CPUS, ICL_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("bad-speculation", "TopdownL1", ICL_EVENTS,
            "max ( 1 - ( " ICL_FE " + " ICL_BE " + " SHARE("topdown-retiring") " ) , 0 )",
            "bad speculation", BAD_DESC, ICL_CPUS, ICL_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("frontend-bound", "TopdownL1", INTEL_L1 "," ICL_UOP_DROPPING, ICL_FE, "frontend bound",
            FE_DESC, ICL_CPUS, ICL_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("backend-bound", "TopdownL1", INTEL_L1 "," CLEARS_COUNT, ICL_BE, "backend bound",
            BE_DESC, ICL_CPUS, ICL_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        /* Alder Lake's P-cores to Granite Rapids: level 1 and 2. */
        ROW("retiring", "TopdownL1", INTEL_L1, SPR_RET, "retiring", RET_DESC, SPR_CPUS, SPR_SOURCE,
            SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("bad-speculation", "TopdownL1", SPR_EVENTS(""), SPR_BAD, "bad speculation", BAD_DESC,
            SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("frontend-bound", "TopdownL1", SPR_EVENTS(""), SPR_FE, "frontend bound", FE_DESC,
            SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("backend-bound", "TopdownL1", INTEL_L1, SPR_BE, "backend bound", BE_DESC, SPR_CPUS,
            SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("heavy-operations", "TopdownL2", INTEL_L1 ",topdown-heavy-ops",
            SHARE("topdown-heavy-ops"), "heavy operations", HEAVY_DESC, SPR_CPUS, SPR_SOURCE,
            SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("light-operations", "TopdownL2", INTEL_L1 ",topdown-heavy-ops",
            "max ( 0 , " SPR_RET " - " SHARE("topdown-heavy-ops") " )", "light operations",
            LIGHT_DESC, SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("branch-mispredicts", "TopdownL2", INTEL_L1 ",topdown-br-mispredict",
            SHARE("topdown-br-mispredict"), "branch mispredicts", MISP_DESC, SPR_CPUS, SPR_SOURCE,
            SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("machine-clears", "TopdownL2", SPR_EVENTS(",topdown-br-mispredict"),
            "max ( 0 , " SPR_BAD " - " SHARE("topdown-br-mispredict") " )", "machine clears",
            CLEARS_DESC, SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("fetch-latency", "TopdownL2", SPR_EVENTS(",topdown-fetch-lat"),
            SHARE("topdown-fetch-lat") " - " SPR_UOP_DROPPING " / slots", "fetch latency",
            FETCH_LAT_DESC, SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("fetch-bandwidth", "TopdownL2", INTEL_L1 ",topdown-fetch-lat",
            "max ( 0 , " SHARE("topdown-fe-bound") " - " SHARE("topdown-fetch-lat") " )",
            "fetch bandwidth", FETCH_BW_DESC, SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("memory-bound", "TopdownL2", INTEL_L1 ",topdown-mem-bound", SHARE("topdown-mem-bound"),
            "memory bound", MEM_DESC, SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        ROW("core-bound", "TopdownL2", INTEL_L1 ",topdown-mem-bound",
            "max ( 0 , " SPR_BE " - " SHARE("topdown-mem-bound") " )", "core bound", CORE_DESC,
            SPR_CPUS, SPR_SOURCE, SPR_IDS, NULL, NO_PERF_METRICS),
        /* Arrow Lake's and Lunar Lake's P-cores: each field over their sum. */
        LNC_ROW("retiring", "TopdownL1", INTEL_L1, SHARE("topdown-retiring"), "retiring", RET_DESC),
        LNC_ROW("bad-speculation", "TopdownL1", INTEL_L1, SHARE("topdown-bad-spec"),
                "bad speculation", BAD_DESC),
        LNC_ROW("frontend-bound", "TopdownL1", INTEL_L1, SHARE("topdown-fe-bound"),
                "frontend bound", FE_DESC),
        LNC_ROW("backend-bound", "TopdownL1", INTEL_L1, SHARE("topdown-be-bound"), "backend bound",
                BE_DESC),
        LNC_ROW("heavy-operations", "TopdownL2", INTEL_L1 ",topdown-heavy-ops",
                SHARE("topdown-heavy-ops"), "heavy operations", HEAVY_DESC),
        LNC_ROW("light-operations", "TopdownL2", INTEL_L1 ",topdown-heavy-ops",
                SHARE_LESS("topdown-retiring", "topdown-heavy-ops"), "light operations",
                LIGHT_DESC),
        LNC_ROW("branch-mispredicts", "TopdownL2", INTEL_L1 ",topdown-br-mispredict",
                SHARE("topdown-br-mispredict"), "branch mispredicts", MISP_DESC),
        LNC_ROW("machine-clears", "TopdownL2", INTEL_L1 ",topdown-br-mispredict",
                SHARE_LESS("topdown-bad-spec", "topdown-br-mispredict"), "machine clears",
                CLEARS_DESC),
        LNC_ROW("fetch-latency", "TopdownL2", INTEL_L1 ",topdown-fetch-lat",
                SHARE("topdown-fetch-lat"), "fetch latency", FETCH_LAT_DESC),
        LNC_ROW("fetch-bandwidth", "TopdownL2", INTEL_L1 ",topdown-fetch-lat",
                SHARE_LESS("topdown-fe-bound", "topdown-fetch-lat"), "fetch bandwidth",
                FETCH_BW_DESC),
        LNC_ROW("memory-bound", "TopdownL2", INTEL_L1 ",topdown-mem-bound",
                SHARE("topdown-mem-bound"), "memory bound", MEM_DESC),
        LNC_ROW("core-bound", "TopdownL2", INTEL_L1 ",topdown-mem-bound",
                SHARE_LESS("topdown-be-bound", "topdown-mem-bound"), "core bound", CORE_DESC),
        /* Ice Lake to Rocket Lake: perf's level 2, from other events. */
        ROW("fetch-latency", "TopdownL2", "slots," ICL_FE_NONE "," ICL_UOP_DROPPING, ICL_FETCH_LAT,
            "fetch latency", FETCH_LAT_DESC, ICL_CPUS, ICL_L2_SOURCE, ICL_IDS, NULL,
            NO_PERF_METRICS),
        ROW("fetch-bandwidth", "TopdownL2", INTEL_L1 "," ICL_UOP_DROPPING "," ICL_FE_NONE,
            "max ( 0 , " ICL_FE " - ( " ICL_FETCH_LAT " ) )", "fetch bandwidth", FETCH_BW_DESC,
            ICL_CPUS, ICL_L2_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("branch-mispredicts", "TopdownL2", ICL_EVENTS ",branch-misses," ICL_CLEARS, ICL_MISP,
            "branch mispredicts",
            "slots wasted on mispredicted branches: bad speculation's share of the "
            "mispredicts among mispredicts and machine clears",
            ICL_CPUS, ICL_L2_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("machine-clears", "TopdownL2", ICL_EVENTS ",branch-misses," ICL_CLEARS,
            /* perf's max(0, bad - mispredicts), as one product: bad
             * speculation's formula once fits the evaluator's steps */
            "max ( 0 , ( " ICL_BAD " ) * ( " ICL_CLEARS " / ( branch-misses + " ICL_CLEARS " ) ) )",
            "machine clears", CLEARS_DESC, ICL_CPUS, ICL_L2_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("memory-bound", "TopdownL2", ICL_MEM_EVENTS, ICL_MEM, "memory bound",
            "slots stalled on the memory subsystem: backend bound's share of the cycles "
            "stalled on memory or the store buffer",
            ICL_CPUS, ICL_L2_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        ROW("core-bound", "TopdownL2", ICL_MEM_EVENTS, "max ( 0 , " ICL_BE " - " ICL_MEM " )",
            "core bound", CORE_DESC, ICL_CPUS, ICL_L2_SOURCE, ICL_IDS, NULL, NO_PERF_METRICS),
        {"heavy-operations", "TopdownL2", "", "", "", 0,
         "perf 6.1's heavy and light operations there need the microcode sequencer's and the "
         "decoders' events, which the catalogue does not have; the rest of TopdownL2 is in",
         ICL_CPUS, ICL_L2_SOURCE, "x86", ICL_IDS, NULL, NULL},
        {"light-operations", "TopdownL2", "", "", "", 0,
         "perf 6.1's heavy and light operations there need the microcode sequencer's and the "
         "decoders' events, which the catalogue does not have; the rest of TopdownL2 is in",
         ICL_CPUS, ICL_L2_SOURCE, "x86", ICL_IDS, NULL, NULL},
        /* Sandy Bridge to Cascade Lake, SMT off. */
        ROW("retiring", "TopdownL1", "UOPS_RETIRED:RETIRE_SLOTS,cycles", TMA4_RET(TMA4_SLOTS),
            "retiring", RET_DESC, TMA4_CPUS, TMA4, TMA4_IDS, "smt-off", NO_TMA4_EVENTS),
        ROW("bad-speculation", "TopdownL1",
            "UOPS_ISSUED:ANY,UOPS_RETIRED:RETIRE_SLOTS,INT_MISC:RECOVERY_CYCLES,cycles",
            TMA4_BAD(TMA4_SLOTS, TMA4_REC), "bad speculation", BAD_DESC, TMA4_CPUS, TMA4, TMA4_IDS,
            "smt-off", NO_TMA4_EVENTS),
        ROW("frontend-bound", "TopdownL1", "IDQ_UOPS_NOT_DELIVERED:CORE,cycles",
            TMA4_FE(TMA4_SLOTS), "frontend bound", FE_DESC, TMA4_CPUS, TMA4, TMA4_IDS, "smt-off",
            NO_TMA4_EVENTS),
        ROW("backend-bound", "TopdownL1",
            "IDQ_UOPS_NOT_DELIVERED:CORE,UOPS_ISSUED:ANY,INT_MISC:RECOVERY_CYCLES,cycles",
            TMA4_BE(TMA4_SLOTS, TMA4_REC), "backend bound",
            "slots stalled on the back end: those no other category took", TMA4_CPUS, TMA4,
            TMA4_IDS, "smt-off", NO_TMA4_EVENTS),
        /* Sandy Bridge to Cascade Lake, SMT on: per logical CPU. */
        ROW("retiring", "TopdownL1", "UOPS_RETIRED:RETIRE_SLOTS," SMT_CLK_EVENTS,
            TMA4_RET(SMT_SLOTS), "retiring", RET_DESC, TMA4_SMT_CPUS, TMA4, TMA4_IDS, "smt-on",
            NO_TMA4_EVENTS),
        ROW("bad-speculation", "TopdownL1",
            "UOPS_ISSUED:ANY,UOPS_RETIRED:RETIRE_SLOTS,INT_MISC:RECOVERY_CYCLES_"
            "ANY," SMT_CLK_EVENTS,
            TMA4_BAD(SMT_SLOTS, SMT_REC), "bad speculation", BAD_DESC SMT_APART, TMA4_SMT_CPUS,
            TMA4, TMA4_IDS, "smt-on", NO_TMA4_EVENTS),
        ROW("frontend-bound", "TopdownL1", "IDQ_UOPS_NOT_DELIVERED:CORE," SMT_CLK_EVENTS,
            TMA4_FE(SMT_SLOTS), "frontend bound", FE_DESC, TMA4_SMT_CPUS, TMA4, TMA4_IDS, "smt-on",
            NO_TMA4_EVENTS),
        ROW("backend-bound", "TopdownL1",
            "IDQ_UOPS_NOT_DELIVERED:CORE,UOPS_ISSUED:ANY,INT_MISC:RECOVERY_CYCLES_"
            "ANY," SMT_CLK_EVENTS,
            TMA4_BE(SMT_SLOTS, SMT_REC), "backend bound",
            "slots stalled on the back end: those no other category took" SMT_APART, TMA4_SMT_CPUS,
            TMA4, TMA4_IDS, "smt-on", NO_TMA4_EVENTS),
        /* Skylake to Cascade Lake, SMT off: level 2 over 4 x cycles. */
        SKL_ROW("fetch-latency", SKL_FE_NONE ",cycles", SKL_FETCH_LAT(TMA4_SLOTS), "fetch latency",
                FETCH_LAT_DESC, SKL_CPUS, "smt-off"),
        SKL_ROW("fetch-bandwidth", "IDQ_UOPS_NOT_DELIVERED:CORE," SKL_FE_NONE ",cycles",
                TMA4_FE(TMA4_SLOTS) " - " SKL_FETCH_LAT(TMA4_SLOTS), "fetch bandwidth",
                FETCH_BW_DESC, SKL_CPUS, "smt-off"),
        SKL_ROW("branch-mispredicts", SKL_BAD_EVENTS("INT_MISC:RECOVERY_CYCLES,cycles"),
                SKL_MISP(TMA4_SLOTS, TMA4_REC), "branch mispredicts", MISP_DESC, SKL_CPUS,
                "smt-off"),
        SKL_ROW("machine-clears", SKL_BAD_EVENTS("INT_MISC:RECOVERY_CYCLES,cycles"),
                TMA4_BAD(TMA4_SLOTS, TMA4_REC) " - " SKL_MISP(TMA4_SLOTS, TMA4_REC),
                "machine clears", CLEARS_DESC, SKL_CPUS, "smt-off"),
        SKL_ROW("heavy-operations", SKL_OPS_EVENTS ",cycles", SKL_HEAVY(TMA4_SLOTS),
                "heavy operations", HEAVY_DESC, SKL_CPUS, "smt-off"),
        SKL_ROW("light-operations", SKL_OPS_EVENTS ",cycles",
                TMA4_RET(TMA4_SLOTS) " - " SKL_HEAVY(TMA4_SLOTS), "light operations", LIGHT_DESC,
                SKL_CPUS, "smt-off"),
        SKL_ROW("memory-bound", SKL_MEM_EVENTS("INT_MISC:RECOVERY_CYCLES,cycles"),
                SKL_MEM(TMA4_SLOTS, TMA4_REC), "memory bound", MEM_DESC APART("", "9", "8"),
                SKL_CPUS, "smt-off"),
        SKL_ROW("core-bound", SKL_MEM_EVENTS("INT_MISC:RECOVERY_CYCLES,cycles"),
                TMA4_BE(TMA4_SLOTS, TMA4_REC) " - " SKL_MEM(TMA4_SLOTS, TMA4_REC), "core bound",
                CORE_DESC APART("", "9", "8"), SKL_CPUS, "smt-off"),
        /* Skylake to Cascade Lake, SMT on: per logical CPU. */
        SKL_ROW("fetch-latency", SKL_FE_NONE "," SMT_CLK_EVENTS, SKL_FETCH_LAT(SMT_SLOTS),
                "fetch latency", FETCH_LAT_DESC, SKL_SMT_CPUS, "smt-on"),
        SKL_ROW("fetch-bandwidth", "IDQ_UOPS_NOT_DELIVERED:CORE," SKL_FE_NONE "," SMT_CLK_EVENTS,
                TMA4_FE(SMT_SLOTS) " - " SKL_FETCH_LAT(SMT_SLOTS), "fetch bandwidth", FETCH_BW_DESC,
                SKL_SMT_CPUS, "smt-on"),
        SKL_ROW("heavy-operations", SKL_OPS_EVENTS "," SMT_CLK_EVENTS, SKL_HEAVY(SMT_SLOTS),
                "heavy operations", HEAVY_DESC, SKL_SMT_CPUS, "smt-on"),
        SKL_ROW("light-operations", SKL_OPS_EVENTS "," SMT_CLK_EVENTS,
                TMA4_RET(SMT_SLOTS) " - " SKL_HEAVY(SMT_SLOTS), "light operations", LIGHT_DESC,
                SKL_SMT_CPUS, "smt-on"),
        SKL_ROW("branch-mispredicts",
                SKL_BAD_EVENTS("INT_MISC:RECOVERY_CYCLES_ANY," SMT_CLK_EVENTS),
                SKL_MISP(SMT_SLOTS, SMT_REC), "branch mispredicts", MISP_DESC APART("", "7", "4"),
                SKL_SMT_CPUS, "smt-on"),
        SKL_ROW("machine-clears", SKL_BAD_EVENTS("INT_MISC:RECOVERY_CYCLES_ANY," SMT_CLK_EVENTS),
                TMA4_BAD(SMT_SLOTS, SMT_REC) " - " SKL_MISP(SMT_SLOTS, SMT_REC), "machine clears",
                CLEARS_DESC APART("", "7", "4"), SKL_SMT_CPUS, "smt-on"),
        SKL_ROW("memory-bound", SKL_MEM_EVENTS("INT_MISC:RECOVERY_CYCLES_ANY," SMT_CLK_EVENTS),
                SKL_MEM(SMT_SLOTS, SMT_REC), "memory bound", MEM_DESC APART("", "11", "4"),
                SKL_SMT_CPUS, "smt-on"),
        /* perf's backend bound - memory bound, as backend bound x (1 -
         * memory bound's share): backend bound's formula once fits the
         * evaluator's steps */
        SKL_ROW("core-bound", SKL_MEM_EVENTS("INT_MISC:RECOVERY_CYCLES_ANY," SMT_CLK_EVENTS),
                "( " TMA4_BE(SMT_SLOTS, SMT_REC) " ) * ( 1 - " SKL_MEM_SHARE(SMT_SLOTS) " )",
                "core bound", CORE_DESC APART("", "11", "4"), SKL_SMT_CPUS, "smt-on"),
        /* Sandy Bridge to Haswell, then Broadwell, in both SMT states. */
        SNB_L2(SNB_L2_CPUS, SNB_L2_SOURCE, SNB_IDS, "smt-off", TMA4_SLOTS, TMA4_REC, "cycles",
               "INT_MISC:RECOVERY_CYCLES", SNB_FETCH_LAT(TMA4_SLOTS), "", ""),
        SNB_L2(SNB_L2_SMT_CPUS, SNB_L2_SOURCE, SNB_IDS, "smt-on", SMT_SLOTS, SMT_REC,
               SMT_CLK_EVENTS, "INT_MISC:RECOVERY_CYCLES_ANY", SNB_FETCH_LAT(SMT_SLOTS),
               SNB_APART("7"), SNB_APART("5")),
        SNB_L2(BDW_L2_CPUS, BDW_L2_SOURCE, BDW_IDS, "smt-off", TMA4_SLOTS, TMA4_REC, "cycles",
               "INT_MISC:RECOVERY_CYCLES", SKL_FETCH_LAT(TMA4_SLOTS), "", ""),
        SNB_L2(BDW_L2_SMT_CPUS, BDW_L2_SOURCE, BDW_IDS, "smt-on", SMT_SLOTS, SMT_REC,
               SMT_CLK_EVENTS, "INT_MISC:RECOVERY_CYCLES_ANY", SKL_FETCH_LAT(SMT_SLOTS),
               SNB_APART("7"), SNB_APART("5")),
        /* Their memory bound and core bound: Sandy Bridge and Ivy Bridge,
         * Haswell, Broadwell, each in both SMT states. */
        OLD_MEM_CORE_BOTH(SNB_L2_CPUS, SNB_L2_SMT_CPUS, SNB_MEM_SOURCE, SNB_IVB_IDS, OLD_EVENTS,
                          OLD_CAPPED(OLD_LOADS), SNB_IVB_STALLS, SNB_IVB_STALLS, SNB_FETCH_LAT),
        OLD_MEM_CORE_BOTH(SNB_L2_CPUS, SNB_L2_SMT_CPUS, HSW_MEM_SOURCE, HSW_IDS, HSW_EVENTS,
                          OLD_CAPPED(OLD_LOADS), HSW_STALLS, HSW_SMT_STALLS, SNB_FETCH_LAT),
        OLD_MEM_CORE_BOTH(BDW_L2_CPUS, BDW_L2_SMT_CPUS, BDW_L2_SOURCE, BDW_IDS, OLD_EVENTS,
                          OLD_LOADS, BDW_STALLS, BDW_STALLS, SKL_FETCH_LAT),
        /* Other Intel CPUs with PERF_METRICS: the fields over slots. */
        ROW("retiring", "TopdownL1", INTEL_L1, "topdown-retiring / slots", "retiring", RET_DESC,
            PLAIN_CPUS, PLAIN_SOURCE, NULL, INTEL_ONLY, NO_SLOTS),
        ROW("bad-speculation", "TopdownL1", INTEL_L1, "topdown-bad-spec / slots", "bad speculation",
            BAD_DESC, PLAIN_CPUS, PLAIN_SOURCE, NULL, INTEL_ONLY, NO_SLOTS),
        ROW("frontend-bound", "TopdownL1", INTEL_L1, "topdown-fe-bound / slots", "frontend bound",
            FE_DESC, PLAIN_CPUS, PLAIN_SOURCE, NULL, INTEL_ONLY, NO_SLOTS),
        ROW("backend-bound", "TopdownL1", INTEL_L1, "topdown-be-bound / slots", "backend bound",
            BE_DESC, PLAIN_CPUS, PLAIN_SOURCE, NULL, INTEL_ONLY, NO_SLOTS),
        ROW("heavy-operations", "TopdownL2", INTEL_L1 ",topdown-heavy-ops",
            "topdown-heavy-ops / slots", "heavy operations", HEAVY_DESC, PLAIN_L2_CPUS,
            PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("light-operations", "TopdownL2", INTEL_L1 ",topdown-heavy-ops",
            "( topdown-retiring - topdown-heavy-ops ) / slots", "light operations", LIGHT_DESC,
            PLAIN_L2_CPUS, PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("branch-mispredicts", "TopdownL2", INTEL_L1 ",topdown-br-mispredict",
            "topdown-br-mispredict / slots", "branch mispredicts", MISP_DESC, PLAIN_L2_CPUS,
            PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("machine-clears", "TopdownL2", INTEL_L1 ",topdown-br-mispredict",
            "( topdown-bad-spec - topdown-br-mispredict ) / slots", "machine clears", CLEARS_DESC,
            PLAIN_L2_CPUS, PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("fetch-latency", "TopdownL2", INTEL_L1 ",topdown-fetch-lat",
            "topdown-fetch-lat / slots", "fetch latency", FETCH_LAT_DESC, PLAIN_L2_CPUS,
            PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("fetch-bandwidth", "TopdownL2", INTEL_L1 ",topdown-fetch-lat",
            "( topdown-fe-bound - topdown-fetch-lat ) / slots", "fetch bandwidth", FETCH_BW_DESC,
            PLAIN_L2_CPUS, PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("memory-bound", "TopdownL2", INTEL_L1 ",topdown-mem-bound", "topdown-mem-bound / slots",
            "memory bound", MEM_DESC, PLAIN_L2_CPUS, PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        ROW("core-bound", "TopdownL2", INTEL_L1 ",topdown-mem-bound",
            "( topdown-be-bound - topdown-mem-bound ) / slots", "core bound", CORE_DESC,
            PLAIN_L2_CPUS, PLAIN_L2_SOURCE, NULL, INTEL_ONLY, NULL),
        /* x86 CPUs of other vendors: none, said. */
        NONE("TopdownL1", OTHER_DESC, OTHER_CPUS, NULL, OTHER_VENDORS),
        NONE("TopdownL2", OTHER_DESC, OTHER_CPUS, NULL, OTHER_VENDORS),
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
         FREQ_SOURCE, "x86", "GenuineIntel-", NULL, NULL},
        /* Intel Alder Lake-N: Gracemont's TOPDOWN_* events, 5 slots a cycle. */
        {"retiring", "TopdownL1", GRT_RET ",cycles", GRT_RET " / " GRT_SLOTS, "retiring", 1,
         "slots that retired an operation", GRT_CPUS, GRT_SOURCE, "x86", GRT_ID, NULL, NULL},
        {"bad-speculation", "TopdownL1", GRT_FE "," GRT_BE "," GRT_RET ",cycles",
         "( " GRT_SLOTS " - ( " GRT_FE " + " GRT_BE " + " GRT_RET " ) ) / " GRT_SLOTS,
         "bad speculation", 1, "slots no other category took: wasted on mispredictions and clears",
         GRT_CPUS, GRT_SOURCE, "x86", GRT_ID, NULL, NULL},
        {"frontend-bound", "TopdownL1", GRT_FE ",cycles", GRT_FE " / " GRT_SLOTS, "frontend bound",
         1, "slots the front end left empty", GRT_CPUS, GRT_SOURCE, "x86", GRT_ID, NULL, NULL},
        {"backend-bound", "TopdownL1", GRT_BE ",cycles", GRT_BE " / " GRT_SLOTS, "backend bound", 1,
         "slots stalled on the back end", GRT_CPUS, GRT_SOURCE, "x86", GRT_ID, NULL, NULL},
        GRT_ROW("branch-mispredicts", "TopdownL2", GRT_MISP ",cycles", GRT_MISP " / " GRT_SLOTS,
                "branch mispredicts", MISP_DESC),
        GRT_ROW("machine-clears", "TopdownL2", GRT_CLEARS ",cycles", GRT_CLEARS " / " GRT_SLOTS,
                "machine clears", CLEARS_DESC),
        GRT_ROW("core-bound", GRT_CORE_GROUP, GRT_CORE_EVENTS,
                GRT_CORE("r74", "rff05", "r274", "r104", "r704", "cycles", GRT_SLOTS), "core bound",
                GRT_CORE_DESC),
        GRT_NONE("heavy-operations"),
        GRT_NONE("light-operations"),
        GRT_NONE("fetch-latency"),
        GRT_NONE("fetch-bandwidth"),
        GRT_NONE("memory-bound"),
        /* Alder Lake's and Raptor Lake's E-cores: Gracemont's TOPDOWN_* events. */
        GRT_E("retiring", "TopdownL1", GRT_E_RET "," ATOM_CLK, GRT_E_RET " / " GRT_E_SLOTS,
              "retiring", RET_DESC),
        GRT_E("bad-speculation", "TopdownL1", GRT_E_FE "," GRT_E_BE "," GRT_E_RET "," ATOM_CLK,
              "( " GRT_E_SLOTS " - ( " GRT_E_FE " + " GRT_E_BE " + " GRT_E_RET
              " ) ) / " GRT_E_SLOTS,
              "bad speculation",
              "slots no other category took: wasted on mispredictions and clears"),
        GRT_E("frontend-bound", "TopdownL1", GRT_E_FE "," ATOM_CLK, GRT_E_FE " / " GRT_E_SLOTS,
              "frontend bound", FE_DESC),
        GRT_E("backend-bound", "TopdownL1", GRT_E_BE "," ATOM_CLK, GRT_E_BE " / " GRT_E_SLOTS,
              "backend bound", BE_DESC),
        GRT_E("branch-mispredicts", "TopdownL2", GRT_E_MISP "," ATOM_CLK,
              GRT_E_MISP " / " GRT_E_SLOTS, "branch mispredicts", MISP_DESC),
        GRT_E("core-bound", GRT_CORE_GROUP,
              GRT_E_BE "," GRT_E_LD "," GRT_E_SCHED "," GRT_E_ST_BUF "," GRT_E_BLOCKS "," ATOM_CLK,
              GRT_CORE(GRT_E_BE, GRT_E_LD, GRT_E_SCHED, GRT_E_ST_BUF, GRT_E_BLOCKS, ATOM_CLK,
                       GRT_E_SLOTS),
              "core bound", GRT_CORE_DESC),
        GRT_E("machine-clears", "TopdownL2", GRT_E_CLEARS "," ATOM_CLK,
              GRT_E_CLEARS " / " GRT_E_SLOTS, "machine clears", CLEARS_DESC),
        /* Meteor Lake's E-cores: Crestmont's TOPDOWN_*.ALL_P events. */
        CMT_E("retiring", "TopdownL1", CMT_E_RET, "retiring", RET_DESC),
        CMT_E("bad-speculation", "TopdownL1", CMT_E_BAD, "bad speculation", BAD_DESC),
        CMT_E("frontend-bound", "TopdownL1", CMT_E_FE, "frontend bound", FE_DESC),
        CMT_E("backend-bound", "TopdownL1", CMT_E_BE, "backend bound", BE_DESC),
        CMT_E("branch-mispredicts", "TopdownL2", CMT_E_MISP, "branch mispredicts", MISP_DESC),
        CMT_E("machine-clears", "TopdownL2", CMT_E_CLEAR, "machine clears", CLEARS_DESC),
        CMT_E("core-bound", "TopdownL2", CMT_E_ALLOC, "core bound",
              "slots the back end did not take for allocation restrictions, not memory"),
        /* Arrow Lake's and Lunar Lake's E-cores: Skymont's TOPDOWN_* events. */
        SKT_E("retiring", "TopdownL1", SKT_E_RET, "retiring", RET_DESC),
        SKT_E("bad-speculation", "TopdownL1", CMT_E_BAD, "bad speculation", BAD_DESC),
        SKT_E("frontend-bound", "TopdownL1", SKT_E_FE, "frontend bound", FE_DESC),
        SKT_E("backend-bound", "TopdownL1", SKT_E_BE, "backend bound", BE_DESC),
        SKT_E("branch-mispredicts", "TopdownL2", CMT_E_MISP, "branch mispredicts", MISP_DESC),
        SKT_E("machine-clears", "TopdownL2", CMT_E_CLEAR, "machine clears", CLEARS_DESC),
        SKT_E("core-bound", "TopdownL2", CMT_E_ALLOC, "core bound",
              "slots the back end did not take for allocation restrictions, not memory"),
        /* Sierra Forest and Grand Ridge: Crestmont's TOPDOWN_*.ALL_P events, raw. */
        SRF("retiring", "TopdownL1", "r72", "retiring", RET_DESC),
        SRF("bad-speculation", "TopdownL1", "r73", "bad speculation", BAD_DESC),
        SRF("frontend-bound", "TopdownL1", "r71", "frontend bound", FE_DESC),
        SRF("backend-bound", "TopdownL1", "r74", "backend bound", BE_DESC),
        SRF("branch-mispredicts", "TopdownL2", "r473", "branch mispredicts", MISP_DESC),
        SRF("machine-clears", "TopdownL2", "r373", "machine clears", CLEARS_DESC),
        SRF("core-bound", "TopdownL2", "r174", "core bound",
            "slots the back end did not take for allocation restrictions, not memory"),
        SRF_NONE("heavy-operations"),
        SRF_NONE("light-operations"),
        SRF_NONE("fetch-latency"),
        SRF_NONE("fetch-bandwidth"),
        SRF_NONE("memory-bound"),
        /* Sapphire Rapids: memory bound's level 3, each over cycles. */
        ROW("l1-bound", MEM_GROUP, MEM_EVENTS,
            "max ( ( " ON_LOADS " - " STALLS_L1D " ) / cycles , 0 )", "L1 bound",
            "cycles stalled with loads outstanding that did not miss the L1 data cache", MEM_CPUS,
            MEM_SOURCE, MEM_IDS, NULL, NULL),
        ROW("l2-bound", MEM_GROUP, MEM_EVENTS, "( " STALLS_L1D " - " STALLS_L2 " ) / cycles",
            "L2 bound", "cycles stalled on loads that missed the L1 and hit the L2", MEM_CPUS,
            MEM_SOURCE, MEM_IDS, NULL, NULL),
        ROW("l3-bound", MEM_GROUP, MEM_EVENTS, "( " STALLS_L2 " - " STALLS_L3 " ) / cycles",
            "L3 bound",
            "cycles stalled on loads that missed the L2 and hit the L3 (or a sibling core)",
            MEM_CPUS, MEM_SOURCE, MEM_IDS, NULL, NULL),
        ROW("dram-bound", MEM_GROUP, MEM_EVENTS, STALLS_L3 " / cycles", "DRAM bound",
            "cycles stalled on loads that missed the L3: memory", MEM_CPUS, MEM_SOURCE, MEM_IDS,
            NULL, NULL),
        ROW("store-bound", MEM_GROUP, MEM_EVENTS, ON_STORES " / cycles", "store bound",
            "cycles the store buffer was full and no load stalled", MEM_CPUS, MEM_SOURCE, MEM_IDS,
            NULL, NULL),
};
const unsigned upmc_metrics_intel_n = sizeof(upmc_metrics_intel) / sizeof(upmc_metrics_intel[0]);

/* SMT on, where a thread has 4 general counters: TopdownL1 together needs
 * 6, TopdownL2 6; each of their metrics is a group of its own. Those whose
 * inputs alone need more general counters than a thread has (5, 7 or 11
 * with SMT on, memory bound's 9 where it has 8 with SMT off) count each
 * input alone: before Skylake, heavy and light operations' 5 (UOPS_RETIRED,
 * UOPS_ISSUED, IDQ.MS_UOPS and the two SMT clocks) with SMT on too. */
const struct upmc_metric_apart upmc_metrics_apart[] = {
        {"bad-speculation", TMA4_SMT_CPUS, 1},
        {"backend-bound", TMA4_SMT_CPUS, 1},
        {"memory-bound", SKL_CPUS, 1},
        {"core-bound", SKL_CPUS, 1},
        {"branch-mispredicts", SKL_SMT_CPUS, 1},
        {"machine-clears", SKL_SMT_CPUS, 1},
        {"memory-bound", SKL_SMT_CPUS, 1},
        {"core-bound", SKL_SMT_CPUS, 1},
        {"memory-bound", SNB_L2_CPUS, 1},
        {"core-bound", SNB_L2_CPUS, 1},
        {"memory-bound", BDW_L2_CPUS, 1},
        {"core-bound", BDW_L2_CPUS, 1},
        {"memory-bound", SNB_L2_SMT_CPUS, 1},
        {"core-bound", SNB_L2_SMT_CPUS, 1},
        {"memory-bound", BDW_L2_SMT_CPUS, 1},
        {"core-bound", BDW_L2_SMT_CPUS, 1},
        {"branch-mispredicts", SNB_L2_SMT_CPUS, 1},
        {"machine-clears", SNB_L2_SMT_CPUS, 1},
        {"heavy-operations", SNB_L2_SMT_CPUS, 1},
        {"light-operations", SNB_L2_SMT_CPUS, 1},
        {"branch-mispredicts", BDW_L2_SMT_CPUS, 1},
        {"machine-clears", BDW_L2_SMT_CPUS, 1},
        {"heavy-operations", BDW_L2_SMT_CPUS, 1},
        {"light-operations", BDW_L2_SMT_CPUS, 1},
        {NULL, TMA4_SMT_CPUS, 0},
        {NULL, SKL_SMT_CPUS, 0},
        {NULL, SNB_L2_SMT_CPUS, 0},
        {NULL, BDW_L2_SMT_CPUS, 0},
};
const unsigned upmc_metrics_apart_n = sizeof(upmc_metrics_apart) / sizeof(upmc_metrics_apart[0]);
