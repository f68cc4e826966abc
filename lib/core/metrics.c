/* SPDX-License-Identifier: MIT */
/*
 * Metrics: answers computed from counters (IPC, miss ratios, topdown).
 *
 * A metric is data: a name, the events it needs, a formula over their
 * counts in an interval, and where the formula comes from; one small
 * evaluator computes them all (docs/metrics.md). A spec that names a
 * metric, or a group of them, gets the events it needs added to the set
 * (shared events once) and the metric computed by upmc_metrics() from two
 * snapshots: the interval rule of lib/core/interval.c, never totals.
 *
 * A name may have several variants, one per kind of CPU (topdown is read
 * from different events on Intel, AMD and Arm): the first that is for
 * this CPU (its arch and cpu_id) and whose events this machine resolves is
 * taken. A row without events says a kind of CPU has none of a group.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

struct upmc_metric_def {
	const char *name;
	const char *group;   /* perf's metric group, or "" */
	const char *events;  /* what it needs, comma-separated, as a spec names them */
	const char *formula; /* over those names and #constants; operators spaced */
	const char *unit;    /* what its value is */
	int percent;         /* a fraction, shown as a percentage */
	const char *desc;
	const char *cpus; /* which CPUs have its events */
	const char *source;
	const char *arch; /* the kind of CPU it is defined for (upmc_os_core_kind()); NULL: any */
	/* The CPUs it is for, as the start of their upmc_os_cpu_id()
	 * ("AuthenticAMD-26-": family 0x1a); NULL: any of its arch. For the
	 * variants whose events would resolve elsewhere too (raw codes,
	 * libpfm4 taking the CPU for another, as LIBPFM_FORCE_PMU can). */
	const char *cpu_id;
};

#define PERF_GENERIC "perf's generic events (tools/perf/util/stat-shadow.c)"
#define INTEL_TOPDOWN                                                                       \
	"the kernel's tools/perf/Documentation/topdown.txt (Ice Lake and later: slots and " \
	"the topdown metric events)"
#define AMD_PIPELINE                                                                         \
	"the kernel's tools/perf/pmu-events/arch/x86/amdzen4/pipeline.json (AMD's pipeline " \
	"utilisation, PipelineL1)"
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
/* Zen 4's events as libpfm4 names them: they resolve where libpfm4 takes
 * the CPU for a Zen 4 (6 dispatch slots a cycle). */
#define ZEN4(event) "amd64_fam19h_zen4::" event
#define ZEN4_SLOTS  "( 6 * " ZEN4("CYCLES_NOT_IN_HALT") " )"
#define ZEN4_CPUS   "AMD Zen 4"
#define ZEN4_ID     "AuthenticAMD-25-"

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
#define ZEN5_CPUS     "AMD Zen 5 (family 0x1a)"
#define ZEN5_ID       "AuthenticAMD-26-"
#define AMD_PIPELINE_ZEN5                                                                      \
	"the kernel's tools/perf/pmu-events/arch/x86/amdzen5/pipeline.json (PipelineL1), its " \
	"events' codes from amdzen5/decode.json, execution.json and load-store.json"

#define ARM_TOPDOWN                                                                            \
	"the kernel's tools/perf/pmu-events/arch/arm64/sbsa.json (Arm's topdown methodology, " \
	"STALL_SLOT events of PMUv3.5)"

static const struct upmc_metric_def catalogue[] = {
        {"IPC", "Default", "instructions,cycles", "instructions / cycles", "insn per cycle", 0,
         "instructions retired per cycle", "any CPU that counts perf's generic events",
         PERF_GENERIC, NULL, NULL},
        {"CPI", "", "cycles,instructions", "cycles / instructions", "cycles per insn", 0,
         "cycles per instruction retired", "any CPU that counts perf's generic events",
         PERF_GENERIC, NULL, NULL},
        {"branch-miss-ratio", "Default", "branch-misses,branches", "branch-misses / branches",
         "of all branches", 1, "mispredicted branches per branch retired",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL},
        {"cache-miss-ratio", "", "cache-misses,cache-references", "cache-misses / cache-references",
         "of all cache refs", 1, "last-level cache misses per access (vendor-defined events)",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL},
        {"L1d-load-miss-ratio", "", "L1-dcache-load-misses,L1-dcache-loads",
         "L1-dcache-load-misses / L1-dcache-loads", "of all L1-dcache accesses", 1,
         "L1 data cache load misses per load", "any CPU that counts perf's generic events",
         PERF_GENERIC, NULL, NULL},
        {"frontend-stall-ratio", "", "stalled-cycles-frontend,cycles",
         "stalled-cycles-frontend / cycles", "frontend cycles idle", 1,
         "cycles the front end issued nothing, per cycle",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL},
        {"backend-stall-ratio", "", "stalled-cycles-backend,cycles",
         "stalled-cycles-backend / cycles", "backend cycles idle", 1,
         "cycles the back end retired nothing, per cycle",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL},
        {"GHz", "", "cycles,task-clock", "cycles / task-clock", "GHz", 0,
         "cycles per nanosecond of the thread's CPU time",
         "any CPU that counts perf's generic events", PERF_GENERIC, NULL, NULL},
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
        /* AMD Zen 4: the dispatch slots of each cycle. */
        {"retiring", "TopdownL1", ZEN4("RETIRED_OPS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("RETIRED_OPS") " / " ZEN4_SLOTS, "retiring", 1,
         "dispatch slots that retired an operation", ZEN4_CPUS, AMD_PIPELINE, "x86", ZEN4_ID},
        {"bad-speculation", "TopdownL1",
         ZEN4("OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER") "," ZEN4(
                 "RETIRED_OPS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         "( " ZEN4("OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER") " - " ZEN4(
                 "RETIRED_OPS") " ) / " ZEN4_SLOTS,
         "bad speculation", 1, "dispatched operations that did not retire, per slot", ZEN4_CPUS,
         AMD_PIPELINE, "x86", ZEN4_ID},
        {"frontend-bound", "TopdownL1",
         ZEN4("DISPATCH_STALLS_1:FE_NO_OPS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("DISPATCH_STALLS_1:FE_NO_OPS") " / " ZEN4_SLOTS, "frontend bound", 1,
         "dispatch slots the front end left empty", ZEN4_CPUS, AMD_PIPELINE, "x86", ZEN4_ID},
        {"backend-bound", "TopdownL1",
         ZEN4("DISPATCH_STALLS_1:BE_STALLS") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("DISPATCH_STALLS_1:BE_STALLS") " / " ZEN4_SLOTS, "backend bound", 1,
         "dispatch slots stalled on the back end", ZEN4_CPUS, AMD_PIPELINE, "x86", ZEN4_ID},
        {"smt-contention", "TopdownL1",
         ZEN4("DISPATCH_STALLS_1:SMT_CONTENTION") "," ZEN4("CYCLES_NOT_IN_HALT"),
         ZEN4("DISPATCH_STALLS_1:SMT_CONTENTION") " / " ZEN4_SLOTS, "SMT contention", 1,
         "dispatch slots the other thread of the core took", ZEN4_CPUS, AMD_PIPELINE, "x86",
         ZEN4_ID},
        /* AMD Zen 5: 8 dispatch slots a cycle. */
        {"retiring", "TopdownL1", ZEN5_RET_OPS "," ZEN5_CYCLES, ZEN5_RET_OPS " / " ZEN5_SLOTS,
         "retiring", 1, "dispatch slots that retired an operation", ZEN5_CPUS, AMD_PIPELINE_ZEN5,
         "x86", ZEN5_ID},
        {"bad-speculation", "TopdownL1", ZEN5_DISP_OPS "," ZEN5_RET_OPS "," ZEN5_CYCLES,
         "( " ZEN5_DISP_OPS " - " ZEN5_RET_OPS " ) / " ZEN5_SLOTS, "bad speculation", 1,
         "dispatched operations that did not retire, per slot", ZEN5_CPUS, AMD_PIPELINE_ZEN5, "x86",
         ZEN5_ID},
        {"frontend-bound", "TopdownL1", ZEN5_FE_NO_OP "," ZEN5_CYCLES,
         ZEN5_FE_NO_OP " / " ZEN5_SLOTS, "frontend bound", 1,
         "dispatch slots the front end left empty", ZEN5_CPUS, AMD_PIPELINE_ZEN5, "x86", ZEN5_ID},
        {"backend-bound", "TopdownL1", ZEN5_BE_STALL "," ZEN5_CYCLES,
         ZEN5_BE_STALL " / " ZEN5_SLOTS, "backend bound", 1,
         "dispatch slots stalled on the back end", ZEN5_CPUS, AMD_PIPELINE_ZEN5, "x86", ZEN5_ID},
        {"smt-contention", "TopdownL1", ZEN5_SMT "," ZEN5_CYCLES, ZEN5_SMT " / " ZEN5_SLOTS,
         "SMT contention", 1, "dispatch slots the other thread of the core took", ZEN5_CPUS,
         AMD_PIPELINE_ZEN5, "x86", ZEN5_ID},
        /* AMD Zen 3 and earlier: no metric, said (events ""). */
        {"TopdownL1", "TopdownL1", "", "", "", 0,
         "their PMUs count no dispatch slots (no de_no_dispatch_per_slot event, which came "
         "with Zen 4), so neither perf nor upmc has a TopdownL1 for them",
         "AMD Zen 3 and earlier",
         "the kernel's tools/perf/pmu-events/arch/x86/amdzen1, amdzen2 and amdzen3 (no "
         "pipeline.json, no PipelineL1 metric; amdzen4's is the first)",
         "x86", NULL},
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
#define N_DEFS (sizeof(catalogue) / sizeof(catalogue[0]))

/* ---- formulas ---- */

/* The next token of a formula (separated by spaces) into tok; NULL at the end. */
static const char *token(const char *p, char *tok, size_t size)
{
	size_t n = 0;

	while (*p == ' ')
		p++;
	if (!*p)
		return NULL;
	while (p[n] && p[n] != ' ')
		n++;
	upmc_format(tok, size, "%.*s", (int)n, p);
	return p + n;
}

static int precedence(char op)
{
	return op == '+' || op == '-' ? 1 : op == '*' || op == '/' ? 2 : 0;
}

static int is_operator(const char *tok)
{
	return tok[1] == '\0' && strchr("+-*/()", tok[0]);
}

/* The index of name among the comma-separated events; -1 when not there. */
static int event_index(const char *events, const char *name)
{
	size_t len = strlen(name);
	int i = 0;

	for (const char *p = events; p; p = strchr(p, ','), p = p ? p + 1 : NULL, i++)
		if (!strncmp(p, name, len) && (p[len] == ',' || p[len] == '\0'))
			return i;
	return -1;
}

static int push_step(struct upmc_metric *m, char kind, unsigned input, double value)
{
	if (m->n_steps == UPMC_METRIC_STEPS)
		return -E2BIG;
	m->step[m->n_steps++] = (struct upmc_metric_step){kind, input, value};
	return 0;
}

/*
 * The formula in postfix order (shunting-yard): numbers and #constants as
 * values, event names as the metric's inputs. 0, or -errno with the reason
 * in m->reason (an unknown #constant: this machine does not publish it).
 */
static int compile(struct upmc_metric *m)
{
	char tok[UPMC_NAME_MAX], ops[UPMC_METRIC_STEPS];
	const char *p = m->def->formula;
	unsigned n_ops = 0;
	int err = 0;

	m->n_steps = 0;
	while (!err && (p = token(p, tok, sizeof(tok)))) {
		int input = event_index(m->def->events, tok);
		double value = 0; /* gcc cannot see that a failed lookup is never pushed */
		char *end;

		if (is_operator(tok) && tok[0] == '(') {
			ops[n_ops++] = '(';
		} else if (is_operator(tok) && tok[0] == ')') {
			while (n_ops && ops[n_ops - 1] != '(' && !err)
				err = push_step(m, ops[--n_ops], 0, 0);
			n_ops -= n_ops > 0;
		} else if (is_operator(tok)) {
			while (n_ops && precedence(ops[n_ops - 1]) >= precedence(tok[0]) && !err)
				err = push_step(m, ops[--n_ops], 0, 0);
			ops[n_ops++] = tok[0];
		} else if (tok[0] == '#') {
			err = upmc_os_metric_constant(tok + 1, &value);
			if (err < 0)
				upmc_format(
				        m->reason, sizeof(m->reason),
				        "this machine does not publish '%s', which '%s' needs: %s",
				        tok, m->def->name, upmc_last_error());
			else
				err = push_step(m, 'v', 0, value);
		} else if (input >= 0) {
			err = push_step(m, 'e', (unsigned)input, 0);
		} else {
			value = strtod(tok, &end);
			err = *end ? -EINVAL : push_step(m, 'v', 0, value);
		}
	}
	while (n_ops && !err)
		err = push_step(m, ops[--n_ops], 0, 0);
	return err;
}

/* The formula over the values of the metric's inputs (in[k] of input k);
 * NAN when an input is NAN (it did not count) or a division has no
 * denominator. */
static double evaluate(const struct upmc_metric *m, const double *in)
{
	double stack[UPMC_METRIC_STEPS];
	unsigned n = 0, i;

	for (i = 0; i < m->n_steps; i++) {
		const struct upmc_metric_step *s = &m->step[i];
		double a, b;

		if (s->kind == 'v' || s->kind == 'e') {
			stack[n] = s->kind == 'e' ? in[s->input] : s->value;
			if (isnan(stack[n++]))
				return NAN;
			continue;
		}
		if (n < 2)
			return NAN;
		b = stack[--n];
		a = stack[--n];
		if (s->kind == '/' && b == 0)
			return NAN;
		stack[n++] = s->kind == '+'   ? a + b
		             : s->kind == '-' ? a - b
		             : s->kind == '*' ? a * b
		                              : a / b;
	}
	return n == 1 ? stack[0] : NAN;
}

/* ---- a spec's metrics ---- */

/* A catalogue row that says a kind of CPU has none of a group's metrics. */
static int is_none(const struct upmc_metric_def *def)
{
	return !def->events[0];
}

/* Whether def is defined for this machine's kind of CPU (any, when no
 * core PMU says which). */
static int for_this_arch(const struct upmc_metric_def *def)
{
	const char *kind = upmc_os_core_kind();

	return !def->arch || !*kind || !strcmp(def->arch, kind);
}

/* The definitions item names: a metric or a group of them (every variant
 * for this architecture). */
static unsigned named_by(const char *item, const struct upmc_metric_def **found, unsigned max)
{
	unsigned i, n = 0;

	/* The names first: for_this_arch() asks the OS, which an item that
	 * names no metric (most: events) need not. */
	for (i = 0; i < N_DEFS && n < max; i++)
		if ((!strcmp(catalogue[i].name, item) || !strcmp(catalogue[i].group, item)) &&
		    for_this_arch(&catalogue[i]) && !is_none(&catalogue[i]))
			found[n++] = &catalogue[i];
	return n;
}

int upmc_is_metric(const char *item)
{
	const struct upmc_metric_def *def;

	return named_by(item, &def, 1) > 0;
}

/* Whether def is for this CPU (its cpu_id); why not in why. */
static int for_this_cpu(const struct upmc_metric_def *def, char *why, size_t size)
{
	char id[64];

	if (!def->cpu_id)
		return 1;
	upmc_os_cpu_id(id, sizeof(id));
	if (!strncmp(id, def->cpu_id, strlen(def->cpu_id)))
		return 1;
	upmc_format(why, size, "it is for %s, whose CPU id starts '%s', and this CPU's is '%s'",
	            def->cpus, def->cpu_id, id[0] ? id : "not in /proc/cpuinfo");
	return 0;
}

/* Whether every event of def resolves on this machine, and def is for
 * this CPU; why not in why. */
static int resolves(const struct upmc_metric_def *def, unsigned flags, char *why, size_t size)
{
	char name[UPMC_NAME_MAX];
	const char *p = def->events;
	struct upmc_event ev;

	if (!for_this_cpu(def, why, size))
		return 0;
	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		upmc_format(name, sizeof(name), "%.*s", (int)len, p);
		if (upmc_parse_spec(name, flags & ~UPMC_OPT_TIME_ONLY, &ev, 1) < 0) {
			upmc_format(why, size, "%s", upmc_last_error());
			return 0;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 1;
}

/* Of the variants with def's name, the first whose events this machine
 * resolves; NULL, with why none does, when there is none. */
static const struct upmc_metric_def *variant(const struct upmc_metric_def *def, unsigned flags,
                                             char *why, size_t size)
{
	char first[UPMC_REASON_MAX] = "", cpus[UPMC_REASON_MAX] = "";
	unsigned i;

	for (i = 0; i < N_DEFS; i++) {
		const struct upmc_metric_def *v = &catalogue[i];
		size_t len = strlen(cpus);
		if (strcmp(v->name, def->name) || !for_this_arch(v))
			continue;
		if (resolves(v, flags, why, size))
			return v;
		if (!first[0])
			upmc_format(first, sizeof(first), "%s", why);
		upmc_format(cpus + len, sizeof(cpus) - len, "%s%s", len ? "; or of " : "", v->cpus);
	}
	upmc_format(why, size, "'%s' needs the events of %s: %s", def->name, cpus, first);
	return NULL;
}

/* The set's counter of event name, added when the set has none, in metric
 * group `group` (0: any). A counter of another metric group is not taken:
 * its counts come from another schedule, so the event is counted again in
 * this group. -errno when the set is full. */
static int counter_of(struct upmc_spec *out, const char *name, unsigned flags, unsigned group)
{
	unsigned i;
	int err;

	for (i = 0; i < out->n; i++) {
		struct upmc_event *ev = upmc_spec_event(out, i);
		if (strcmp(ev->name, name) ||
		    (group && ev->metric_group && ev->metric_group != group))
			continue;
		ev->metric_group = (unsigned char)group;
		out->for_metrics |= 1u << i;
		return (int)i;
	}
	if (out->n == out->max)
		return upmc_fail(-E2BIG,
		                 "the metrics need more than %u events, the most one set holds",
		                 out->max);
	err = upmc_spec_add(out, name, flags);
	if (err < 0)
		return err;
	out->for_metrics |= 1u << (out->n - 1);
	upmc_spec_event(out, out->n - 1)->metric_group = (unsigned char)group;
	return (int)out->n - 1;
}

/* Whether every event of def is in metric group g. */
static int group_has_all(struct upmc_spec *out, const struct upmc_metric_def *def, unsigned g)
{
	char name[UPMC_NAME_MAX];
	const char *p;
	unsigned i;

	for (p = def->events; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
		const char *comma = strchr(p, ',');
		upmc_format(name, sizeof(name), "%.*s", (int)(comma ? comma - p : (long)strlen(p)),
		            p);
		for (i = 0; i < out->n; i++)
			if (upmc_spec_event(out, i)->metric_group == g &&
			    !strcmp(upmc_spec_event(out, i)->name, name))
				break;
		if (i == out->n)
			return 0;
	}
	return 1;
}

/*
 * The perf group a multiplexed set counts metric j's inputs in (0 when it
 * does not multiplex: one pinned group holds them all). The kernel
 * schedules a group whole, so inputs in one group share their times, and
 * the formula's ratio is that of counts from one schedule. A metric whose
 * events all are in an earlier metric's group shares it (IPC and CPI);
 * otherwise it gets its own group, and an event that an earlier metric's
 * group counts is counted again in it.
 */
static unsigned group_for_metric(struct upmc_spec *out, const struct upmc_metric_def *def,
                                 unsigned j, unsigned flags)
{
	unsigned k;

	if (!(flags & UPMC_OPT_MULTIPLEX))
		return 0;
	for (k = 0; k < j; k++)
		if (out->metrics[k].n_in && group_has_all(out, def, k + 1))
			return k + 1;
	return j + 1;
}

/* One metric of the spec: its variant's events in the set, its formula
 * compiled. A metric this machine cannot compute is refused, or, with
 * UPMC_OPT_TIME_ONLY, kept with its reason (it then reads NAN). */
static int add_metric(struct upmc_spec *out, const struct upmc_metric_def *def, unsigned flags,
                      unsigned *join)
{
	struct upmc_metric *m;
	char why[UPMC_REASON_MAX] = "", name[UPMC_NAME_MAX];
	const struct upmc_metric_def *v = variant(def, flags, why, sizeof(why));
	const char *p;
	unsigned i, group;
	int err;

	for (i = 0; i < out->n_metrics; i++)
		if (!strcmp(out->metrics[i].def->name, def->name))
			return 0; /* a metric named twice, or by its group too */
	if (out->n_metrics == UPMC_MAX_METRICS)
		return upmc_fail(-E2BIG, "the spec names more than %d metrics", UPMC_MAX_METRICS);
	if (!v && !(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(-ENOENT, "metric '%s' cannot be computed here: %s", def->name,
		                 why);
	m = &out->metrics[out->n_metrics++];
	memset(m, 0, sizeof(*m));
	m->def = v ? v : def;
	if (!v) {
		upmc_format(m->reason, sizeof(m->reason), "%s", why);
		return 0;
	}
	group = *join ? *join : group_for_metric(out, v, out->n_metrics - 1, flags);
	*join = group;
	for (p = v->events; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
		const char *comma = strchr(p, ',');
		upmc_format(name, sizeof(name), "%.*s", (int)(comma ? comma - p : (long)strlen(p)),
		            p);
		if (m->n_in == UPMC_METRIC_INPUTS)
			return upmc_fail(-E2BIG, "metric '%s' needs more than %d events", def->name,
			                 UPMC_METRIC_INPUTS);
		err = counter_of(out, name, flags, group);
		if (err < 0)
			return err;
		m->in[m->n_in++] = (unsigned)err;
	}
	err = compile(m);
	if (err < 0 && !m->reason[0])
		upmc_format(m->reason, sizeof(m->reason), "the formula of '%s' is malformed",
		            def->name);
	if (err < 0 && !(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(err, "metric '%s': %s", def->name, m->reason);
	return 0;
}

/* Whether some variant of def resolves here. */
static int resolvable(const struct upmc_metric_def *def, unsigned flags)
{
	char why[UPMC_REASON_MAX];

	return variant(def, flags, why, sizeof(why)) != NULL;
}

/*
 * A metric's name adds it; a group's name adds those of its metrics this
 * machine has (TopdownL1 has one more on AMD), or, when it has none, all
 * of them, so that each is refused or said as a metric named alone is.
 * A multiplexed set counts a group's metrics in one perf group: they are
 * one measurement (topdown's categories are shares of the same slots).
 */
int upmc_spec_add_metrics(struct upmc_spec *out, const char *item, unsigned flags)
{
	const struct upmc_metric_def *found[N_DEFS];
	unsigned n = named_by(item, found, N_DEFS), i, here = 0, join = 0;
	int group = strcmp(found[0]->name, item) != 0, err = 0;

	for (i = 0; group && i < n; i++)
		here += resolvable(found[i], flags);
	for (i = 0; i < n && err == 0; i++)
		if (!group || !here || resolvable(found[i], flags))
			err = add_metric(out, found[i], flags, group ? &join : &(unsigned){0});
	return err;
}

/* ---- the API ---- */

static int check_metric(const struct upmc_set *set, unsigned j, const char *fn)
{
	if (!set)
		return upmc_fail(-EINVAL, "%s: the set is NULL", fn);
	if (j >= set->state->n_metrics)
		return upmc_fail(-EINVAL, "%s: metric %u does not exist (the set has %u)", fn, j,
		                 set->state->n_metrics);
	return 0;
}

UPMC_API int upmc_metric_count(const struct upmc_set *set)
{
	if (!set)
		return upmc_fail(-EINVAL, "upmc_metric_count: the set is NULL");
	return (int)set->state->n_metrics;
}

UPMC_API const char *upmc_metric_name(const struct upmc_set *set, unsigned j)
{
	return check_metric(set, j, "upmc_metric_name") < 0 ? NULL
	                                                    : set->state->metric[j].def->name;
}

UPMC_API const char *upmc_metric_unit(const struct upmc_set *set, unsigned j)
{
	return check_metric(set, j, "upmc_metric_unit") < 0 ? NULL
	                                                    : set->state->metric[j].def->unit;
}

UPMC_API int upmc_metric_is_percent(const struct upmc_set *set, unsigned j)
{
	int err = check_metric(set, j, "upmc_metric_is_percent");

	return err < 0 ? err : set->state->metric[j].def->percent;
}

/* Why metric j cannot be computed now: its own reason, else that of an
 * input the set does not count. */
UPMC_API const char *upmc_metric_reason(const struct upmc_set *set, unsigned j)
{
	const struct upmc_metric *m;
	unsigned k;

	if (check_metric(set, j, "upmc_metric_reason") < 0)
		return NULL;
	m = &set->state->metric[j];
	if (m->reason[0])
		return m->reason;
	for (k = 0; k < m->n_in; k++)
		if (set->state->counter[m->in[k]].path == UPMC_PATH_UNAVAILABLE)
			return set->state->counter[m->in[k]].reason;
	return m->last_why;
}

double upmc_metric_value(const struct upmc_metric *m, const uint64_t *counts)
{
	double in[UPMC_METRIC_INPUTS];
	unsigned k;

	for (k = 0; k < m->n_in; k++)
		in[k] = counts[m->in[k]] == UPMC_NOT_COUNTED ? NAN : (double)counts[m->in[k]];
	return m->reason[0] ? NAN : evaluate(m, in);
}

double upmc_metric_value_of(const struct upmc_metric *m, const double *counts)
{
	double in[UPMC_METRIC_INPUTS];
	unsigned k;

	for (k = 0; k < m->n_in; k++)
		in[k] = counts[m->in[k]];
	return m->reason[0] ? NAN : evaluate(m, in);
}

void upmc_metrics_of(const struct upmc_set *set, const uint64_t *counts, double *values)
{
	unsigned j;

	for (j = 0; j < set->state->n_metrics; j++)
		values[j] = upmc_metric_value(&set->state->metric[j], counts);
}

static struct upmc_metric_info info_of(const struct upmc_metric_def *d, const char *why)
{
	return (struct upmc_metric_info){d->name, d->group, d->events, d->formula, d->unit,
	                                 d->desc, d->cpus,  d->source, d->percent, why};
}

void upmc_metric_describe(const struct upmc_metric *m, struct upmc_metric_info *info)
{
	*info = info_of(m->def, m->reason);
}

void upmc_metrics_between(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                          uint64_t *counts, double *values)
{
	unsigned j;

	upmc_interval_of(set->state->multiplexed, set->n, before, after, counts, NULL);
	upmc_topdown_counts(set, before, after, counts);
	for (j = 0; j < set->state->n_metrics; j++) {
		struct upmc_metric *m = &set->state->metric[j];
		m->last_why[0] = '\0';
		values[j] = upmc_topdown_unmeasured(set, m, before, after, m->last_why,
		                                    sizeof(m->last_why))
		                    ? NAN
		                    : upmc_metric_value(m, counts);
	}
}

UPMC_API int upmc_metrics(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                          double *values)
{
	uint64_t counts[UPMC_MAX_COUNTERS];

	if (!set || !before || !after || !values)
		return upmc_fail(-EINVAL, "upmc_metrics: the set, a snapshot or values is NULL");
	upmc_metrics_between(set, before, after, counts, values);
	return (int)set->state->n_metrics;
}

UPMC_API int upmc_metrics_of_counts(const struct upmc_set *set, const double *counts,
                                    double *values)
{
	unsigned j;

	if (!set || !counts || !values)
		return upmc_fail(-EINVAL,
		                 "upmc_metrics_of_counts: the set, counts or values is NULL");
	for (j = 0; j < set->state->n_metrics; j++)
		values[j] = upmc_metric_value_of(&set->state->metric[j], counts);
	return (int)set->state->n_metrics;
}

/* Whether this machine can compute def: its events open as one set, and
 * its constants are published; why not in why. */
static int computable(const struct upmc_metric_def *def, char *why, size_t size)
{
	struct upmc_metric m = {.def = def};
	struct upmc_set *set;

	if (is_none(def)) {
		upmc_format(why, size, "%s have no %s: %s", def->cpus, def->name, def->desc);
		return 0;
	}
	if (!for_this_cpu(def, why, size))
		return 0;
	if (upmc_open(&set, def->events, NULL) < 0) {
		upmc_format(why, size, "%s", upmc_last_error());
		return 0;
	}
	upmc_close(set);
	if (compile(&m) < 0) {
		upmc_format(why, size, "%s", m.reason[0] ? m.reason : "its formula is malformed");
		return 0;
	}
	return 1;
}

UPMC_API int upmc_list_metrics(int (*fn)(const struct upmc_metric_info *info, void *arg), void *arg)
{
	struct upmc_metric_info info;
	char why[UPMC_REASON_MAX];
	unsigned i, listed = 0;

	if (!fn)
		return upmc_fail(-EINVAL, "upmc_list_metrics: fn is NULL");
	for (i = 0; i < N_DEFS; i++) {
		const struct upmc_metric_def *d = &catalogue[i];
		if (!for_this_arch(d))
			continue;
		why[0] = '\0';
		info = info_of(d, why);
		computable(d, why, sizeof(why));
		listed++;
		if (fn(&info, arg))
			break;
	}
	return (int)listed;
}
