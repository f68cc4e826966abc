/* SPDX-License-Identifier: MIT */
/*
 * Metrics on the fake kernel: a spec naming metrics opens the events they
 * need (shared ones once), and upmc_metrics() gives each formula's value
 * over given counts, exactly; not counted, a zero denominator and a
 * multiplexed interval; topdown by its group name on Intel and on Arm
 * (#slots from sysfs); a metric a machine cannot compute, refused or, time
 * only, said.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

TEST(metrics, events_once_and_exact_values)
{
	struct upmc_set *set;
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	double v[4];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "IPC,cycles,CPI,branch-miss-ratio", NULL) == 0, "%s",
	           upmc_last_error());
	/* instructions, cycles (named by IPC, then by the spec: once), branches */
	EXPECT_EQ(upmc_count(set), 4);
	ASSERT(upmc_metric_count(set) == 3);
	EXPECT(!strcmp(upmc_metric_name(set, 0), "IPC"));
	EXPECT(!strcmp(upmc_metric_unit(set, 0), "insn per cycle"));
	EXPECT_EQ(upmc_metric_is_percent(set, 2), 1);
	EXPECT(!strcmp(upmc_metric_reason(set, 0), ""));
	after[counter_named(set, "instructions")] = 3000;
	after[counter_named(set, "cycles")] = 1000;
	after[counter_named(set, "branch-misses")] = 5;
	after[counter_named(set, "branches")] = 200;
	ASSERT(upmc_metrics(set, before, after, v) == 3);
	EXPECT(v[0] == 3.0);
	EXPECT(v[1] == 1000.0 / 3000.0);
	EXPECT(v[2] == 0.025);
	/* an input that did not count, and a denominator of 0 */
	after[counter_named(set, "cycles")] = UPMC_NOT_COUNTED;
	after[counter_named(set, "branches")] = 0;
	upmc_metrics(set, before, after, v);
	EXPECT(isnan(v[0]) && isnan(v[1]) && isnan(v[2]));
	EXPECT_EQ(upmc_metrics(set, before, NULL, v), -EINVAL);
	EXPECT(upmc_metric_name(set, 3) == NULL);
	upmc_close(set);
}

/* upmc_metrics() takes a ratio ("instructions / cycles") and any other
 * formula straight from the two snapshots; they agree with
 * upmc_metrics_of_counts() of the interval's counts (the evaluator's steps)
 * between snapshots that do not start at 0, and give NAN where an input
 * did not count at either end or the denominator did not move. */
TEST(metrics, straight_from_the_snapshots_as_from_the_counts)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	uint64_t counts[UPMC_MAX_COUNTERS];
	double v[2], w[2], c[UPMC_MAX_COUNTERS];
	struct upmc_set *set;
	int insn, cycles, misses, i;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "IPC,branch-MPKI", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 2);
	insn = counter_named(set, "instructions");
	cycles = counter_named(set, "cycles");
	misses = counter_named(set, "branch-misses");
	before[insn] = 1000003, after[insn] = 4000009;
	before[cycles] = 77, after[cycles] = 1000077;
	before[misses] = 5, after[misses] = 4005;
	ASSERT(upmc_metrics(set, before, after, v) == 2);
	ASSERT(upmc_interval(set, before, after, counts, NULL) == upmc_count(set));
	for (i = 0; i < upmc_count(set); i++)
		c[i] = (double)counts[i];
	ASSERT(upmc_metrics_of_counts(set, c, w) == 2);
	EXPECT_MSG(v[0] == w[0] && v[0] == 3000006.0 / 1000000.0, "IPC %.17g, %.17g", v[0], w[0]);
	EXPECT_MSG(v[1] == w[1] && v[1] == 1000.0 * 4000 / 3000006, "MPKI %.17g, %.17g", v[1],
	           w[1]);
	/* of counts: a denominator of 0, then an input that is NAN */
	c[cycles] = 0;
	upmc_metrics_of_counts(set, c, w);
	EXPECT(isnan(w[0]) && w[1] == v[1]);
	c[insn] = NAN;
	upmc_metrics_of_counts(set, c, w);
	EXPECT(isnan(w[0]) && isnan(w[1]));
	for (i = 0; i < upmc_count(set); i++)
		c[i] = (double)counts[i];
	upmc_metrics_of_counts(set, c, w);
	/* instructions not counted at the start: both metrics need them */
	before[insn] = UPMC_NOT_COUNTED;
	upmc_metrics(set, before, after, v);
	EXPECT(isnan(v[0]) && isnan(v[1]));
	/* cycles not counted at the end; then counted, but the same at both ends */
	before[insn] = 1000003;
	after[cycles] = UPMC_NOT_COUNTED;
	upmc_metrics(set, before, after, v);
	EXPECT(isnan(v[0]) && v[1] == w[1]);
	after[cycles] = before[cycles];
	upmc_metrics(set, before, after, v);
	EXPECT(isnan(v[0]) && v[1] == w[1]);
	upmc_close(set);
}

/* Each input's interval scaled by its own times, then the formula. */
TEST(metrics, multiplexed_inputs_are_scaled_intervals)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double ipc;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "IPC", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_snapshot_words(set) == 6);
	/* instructions: 1000 counted in half the interval; cycles: all of it */
	after[0] = 1000, after[2] = 4000, after[4] = 2000;
	after[1] = 1000, after[3] = 4000, after[5] = 4000;
	ASSERT(upmc_metrics(set, before, after, &ipc) == 1);
	EXPECT(ipc == 2.0);
	upmc_close(set);
}

TEST(metrics, a_group_names_its_metrics)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[4];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	EXPECT_EQ(upmc_count(set), 5); /* slots once, and a topdown event per metric */
	EXPECT(!strcmp(upmc_metric_name(set, 0), "retiring"));
	after[counter_named(set, "slots")] = 4000;
	after[counter_named(set, "topdown-retiring")] = 1000;
	after[counter_named(set, "topdown-bad-spec")] = 400;
	after[counter_named(set, "topdown-fe-bound")] = 600;
	after[counter_named(set, "topdown-be-bound")] = 2000;
	upmc_metrics(set, before, after, v);
	EXPECT(v[0] == 0.25 && v[1] == 0.1 && v[2] == 0.15 && v[3] == 0.5);
	upmc_close(set);
}

TEST(metrics, arm_topdown_takes_slots_from_sysfs)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[4];

	fake_boot("arm64-neoverse");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	/* 8 slots a cycle: 1000 cycles are 8000 slots */
	after[counter_named(set, "cpu_cycles")] = 1000;
	after[counter_named(set, "stall_slot")] = 4000;
	after[counter_named(set, "stall_slot_frontend")] = 1000;
	after[counter_named(set, "stall_slot_backend")] = 3000;
	after[counter_named(set, "op_spec")] = 500;
	after[counter_named(set, "op_retired")] = 400;
	upmc_metrics(set, before, after, v);
	EXPECT(fabs(v[0] - 0.8 * 0.5) < 1e-12); /* retiring */
	EXPECT(fabs(v[1] - 0.2 * 0.5) < 1e-12); /* bad speculation */
	EXPECT(v[2] == 1000.0 / 8000 && v[3] == 3000.0 / 8000);
	upmc_close(set);
}

/* AMD Zen 5 (family 0x1a in the fixture's /proc/cpuinfo, whatever CPU runs
 * the test): five metrics over 8 dispatch slots a cycle, its events raw
 * codes of perf's amdzen5 JSON, exact values. */
TEST(metrics, zen5_topdown_takes_8_dispatch_slots)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	/* ls_not_halted_cyc, ex_ret_ops, de_src_op_disp.all, and
	 * de_no_dispatch_per_slot's no_ops_from_frontend, backend_stalls and
	 * smt_contention: event 0x1a0's bit 8 goes to config bit 32 */
	static const uint64_t config[] = {0x76, 0xc1, 0x7aa, 0x1000001a0, 0x100001ea0, 0x1000060a0};
	struct upmc_set *set;
	double v[5];
	unsigned k;

	fake_boot("amd-zen5");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 5);
	EXPECT(!strcmp(upmc_metric_name(set, 4), "smt-contention"));
	EXPECT_EQ(upmc_count(set), 6);
	for (k = 0; k < 6; k++)
		EXPECT_MSG(fake_event_with(PERF_TYPE_RAW, config[k]) >= 0,
		           "no event of config %#llx", (unsigned long long)config[k]);
	/* 1000 cycles: 8000 slots */
	after[counter_named(set, "r76")] = 1000;
	after[counter_named(set, "rc1")] = 4000;
	after[counter_named(set, "r7aa")] = 4800;
	after[counter_named(set, "r1000001a0")] = 1200;
	after[counter_named(set, "r100001ea0")] = 1600;
	after[counter_named(set, "r1000060a0")] = 400;
	ASSERT(upmc_metrics(set, before, after, v) == 5);
	EXPECT(v[0] == 0.5);  /* retiring */
	EXPECT(v[1] == 0.1);  /* bad speculation */
	EXPECT(v[2] == 0.15); /* frontend bound */
	EXPECT(v[3] == 0.2);  /* backend bound */
	EXPECT(v[4] == 0.05); /* SMT contention */
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* No PMU: refused with the reason, or, time only, kept and said. */
TEST(metrics, a_machine_without_the_events_says_why)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	uint64_t s[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[6];

	fake_boot("vm-no-pmu");
	EXPECT(upmc_open(&set, "IPC", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "'instructions' cannot be counted");
	ASSERT_MSG(upmc_open(&set, "IPC,TopdownL1,task-clock", &time_only) == 0, "%s",
	           upmc_last_error());
	/* IPC, and TopdownL1's of the Intel CPU with PERF_METRICS that the
	 * fixture's /proc/cpuinfo does not name, each said */
	EXPECT_EQ(upmc_metric_count(set), 5);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "no CPU PMU");
	EXPECT_CONTAINS(upmc_metric_reason(set, 1), "'retiring' cannot be computed on this CPU");
	EXPECT_CONTAINS(upmc_metric_reason(set, 1), "no CPU PMU is visible");
	upmc_metrics(set, s, s, v);
	for (unsigned j = 0; j < 5; j++)
		EXPECT_MSG(isnan(v[j]), "metric %u is %g", j, v[j]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* A spec of metrics none of which this machine computes, time only: a set
 * of no counter, which opens nothing and closes whole (nothing left
 * registered or allocated: ASan's leak check runs this too). */
TEST(metrics, only_metrics_not_computed_here_make_a_timer)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[5];

	fake_boot("vm-no-pmu");
	ASSERT_MSG(upmc_open(&set, "IPC", &time_only) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_count(set), 2);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	ASSERT(upmc_metric_count(set) == 1);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "no CPU PMU");
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "smt-contention", &time_only) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_count(set), 0);
	ASSERT(upmc_metric_count(set) == 1); /* AMD's alone: no variant for this CPU */
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "no variant of 'smt-contention'");
	EXPECT(upmc_snapshot(set, before) >= 0);
	EXPECT(upmc_snapshot(set, after) >= 0);
	ASSERT(upmc_metrics(set, before, after, v) == 1);
	for (unsigned j = 0; j < 1; j++)
		EXPECT_MSG(isnan(v[j]), "metric %u is %g", j, v[j]);
	EXPECT_EQ(fake_open_events(), 0);
	upmc_close(set);
}

/* Metrics listed, of them computed here, and the name of one not computed
 * here ("" when all are). */
struct listed {
	unsigned n, computed;
	char missing[64];
	char zen5[512]; /* why Zen 5's retiring is not computed here */
	char none[512]; /* why an AMD row that says some CPUs have none */
};

static int count_available(const struct upmc_metric_info *info, void *arg)
{
	struct listed *l = arg;

	if (!strcmp(info->name, "retiring") && strstr(info->cpus, "Zen 5"))
		snprintf(l->zen5, sizeof(l->zen5), "%s", info->why_not);
	if (!info->events[0] && strstr(info->cpus, "Zen 3"))
		snprintf(l->none, sizeof(l->none), "%s", info->why_not);
	l->n++;
	l->computed += !info->why_not[0];
	if (info->why_not[0] && !l->missing[0])
		snprintf(l->missing, sizeof(l->missing), "%s", info->name);
	return 0;
}

/* Each machine lists the metrics of its kind of CPU, and says which it
 * cannot compute. */
TEST(metrics, the_catalogue_says_what_this_machine_computes)
{
	struct listed l = {0, 0, "", "", ""};

	fake_boot("x86-intel");
	ASSERT(upmc_list_metrics(count_available, &l) > 0);
	/* the generic ones; Intel's topdown (two levels, and the 4-slot one),
	 * AMD's (Zen 4, Zen 5, and Zen 3's none); MPKI and frequency, Alder
	 * Lake-N's topdown, Sapphire Rapids' memory-bound level 3, the
	 * hybrid E-cores' topdown (Gracemont, Crestmont, Skymont), Arrow and
	 * Lunar Lake's P-cores' (Lion Cove), Ice Lake's and Skylake's level 2,
	 * Sierra Forest's topdown; the rows that say Intel's early Atoms,
	 * AMD before Zen, Hygon and other x86 vendors have none */
	EXPECT_EQ(l.n, 196);
	/* not TopdownL2 (4 PERF_METRICS fields), nor those of other CPUs, nor
	 * those of listed Intel models (this one names none) */
	EXPECT_EQ(l.computed, 20);
	EXPECT_CONTAINS(l.zen5, "it is for AMD Zen 5 (family 0x1a, models 0x00-0x2f, 0x40-0x4f, "
	                        "0x60-0x7f), and this CPU (id 'not in /proc/cpuinfo') takes the "
	                        "variant for Intel with PERF_METRICS, other models");
	EXPECT_CONTAINS(l.none, "AMD Zen 3 and earlier have no TopdownL1: their PMUs count no "
	                        "dispatch slots");
	memset(&l, 0, sizeof(l));
	fake_boot("arm64-pmuv3"); /* no STALL_SLOT events */
	upmc_list_metrics(count_available, &l);
	EXPECT_EQ(l.n, 23); /* the generic ones and Arm's topdown (sbsa.json's, the N2's) */
	EXPECT(l.computed >= 1 && l.computed <= 16);
	memset(&l, 0, sizeof(l));
	fake_boot("vm-no-pmu");
	upmc_list_metrics(count_available, &l);
	EXPECT_EQ(l.n, 196); /* no core PMU: those of the CPU the library runs on */
	EXPECT_EQ(l.computed, 0);
}

/* More events than the PMU has counters, pinned (the default): refused,
 * naming how many the group needs and how many the PMU took together. */
TEST(metrics, too_many_for_the_pmu_says_how_many)
{
	struct upmc_set *set;

	fake_boot("arm64-neoverse"); /* 6 event counters and the cycle counter */
	EXPECT_EQ(upmc_open(&set, "IPC,branch-miss-ratio,cache-miss-ratio,TopdownL1", NULL),
	          -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "does not fit in one group");
	EXPECT_CONTAINS(
	        upmc_last_error(),
	        "(the set needs 12 counters in this group; the PMU took 7 of them together)");
	EXPECT_CONTAINS(upmc_last_error(), "UPMC_OPT_MULTIPLEX");
	EXPECT_EQ(fake_open_events(), 0);
}

/* A metric's group larger than the PMU in a multiplexed set: the kernel
 * puts a group on the PMU whole, so time-sharing cannot help, and the
 * error does not tell the caller to pass the flag it passed. */
TEST(metrics, too_many_for_the_pmu_when_multiplexed_says_so)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	struct upmc_set *set;

	fake_boot("arm64-neoverse");
	fake.pmu[0].gp = 1; /* branch-miss-ratio's two events need 2 */
	EXPECT_EQ(upmc_open(&set, "branch-miss-ratio", &mux), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "does not fit in one group");
	EXPECT_CONTAINS(upmc_last_error(),
	                "the set is multiplexed already, but the kernel puts a group on the PMU "
	                "whole: name the metric's events instead, each counted alone (the set "
	                "needs 2 counters in this group");
	EXPECT(!strstr(upmc_last_error(), "pass UPMC_OPT_MULTIPLEX"));
	EXPECT_EQ(fake_open_events(), 0);
	/* its events by name: each alone, and counted */
	ASSERT_MSG(upmc_open(&set, "branches,branch-misses", &mux) == 0, "%s", upmc_last_error());
	upmc_close(set);
}

/* Multiplexed: a metric's inputs are one perf group, so that they share a
 * schedule. branch-misses and branches count alike (1, then 3 per ns);
 * for half the interval another user leaves one counter free. Events in
 * groups of their own would have put branch-misses alone on it, counting
 * 4000 against branches' 1000 scaled to 2000: a ratio of 2. In one group
 * both are off then, and the ratio is their true one. */
TEST(metrics, multiplexed_inputs_share_one_schedule)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX], counts[2];
	struct upmc_set *set;
	double ratio;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(upmc_open(&set, "branch-miss-ratio", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_snapshot(set, before) == 2);
	fake_run(1000);
	fake_take_counters(0, fake.pmu[0].gp - 1);
	fake.pmu[0].rate = 3;
	fake_run(1000);
	ASSERT(upmc_snapshot(set, after) == 2);
	ASSERT(upmc_interval(set, before, after, counts, NULL) == 2);
	EXPECT_EQ_U64(counts[0], 2000);
	EXPECT_EQ_U64(counts[1], 2000);
	ASSERT(upmc_metrics(set, before, after, &ratio) == 1);
	EXPECT(ratio == 1.0);
	upmc_close(set);
}

/* The leader of the open event of this type and config, the nth of them. */
static int leader_of_nth(uint32_t type, uint64_t config, unsigned nth)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].attr.type == type &&
		    fake.ev[i].attr.config == config && nth-- == 0)
			return fake.ev[i].leader;
	return -1;
}

/* An event two metrics need is counted once per metric's group when the
 * set multiplexes (twice here: cycles), once when pinned (one group holds
 * all); a metric whose events an earlier one's group has shares it. */
TEST(metrics, multiplexed_metrics_count_a_shared_event_in_each_group)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	struct upmc_set *set;
	int ipc, stall;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "IPC,frontend-stall-ratio,CPI,cycles", &mux) == 0, "%s",
	           upmc_last_error());
	ASSERT(upmc_metric_count(set) == 3);
	EXPECT_EQ(upmc_count(set), 4); /* instructions, cycles; stalled-cycles-frontend, cycles */
	EXPECT(!strcmp(upmc_counter_name(set, 3), "cycles"));
	ipc = leader_of_nth(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0);
	stall = leader_of_nth(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1);
	EXPECT(ipc >= 0 && stall >= 0 && ipc != stall);
	EXPECT_EQ(leader_of_nth(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0), ipc);
	EXPECT_EQ(leader_of_nth(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 0),
	          stall);
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "IPC,frontend-stall-ratio,CPI,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_count(set), 3);
	upmc_close(set);
	/* a group's metrics are one measurement: one perf group, slots once */
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &mux) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_count(set), 5);
	ipc = leader_of_nth(PERF_TYPE_RAW, 0x0400, 0); /* slots */
	EXPECT(ipc >= 0);
	for (unsigned k = 0; k < 4; k++)
		EXPECT_EQ(leader_of_nth(PERF_TYPE_RAW, 0x8000 + 0x100 * k, 0), ipc);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* The benchmarked call: 1 us, every counter on the PMU counting 1 per ns. */
static void run_1us(void *arg)
{
	(void)arg;
	fake_run(1000);
}

/* upmc_bench_rotating(): with 2 general counters free, the two metrics' groups
 * cannot be on the PMU together; each is measured pinned in a pass of its
 * own (instructions, on a fixed counter, joins the second), every count
 * whole: 1000 per call. */
TEST(metrics, a_rotating_bench_measures_each_group_in_a_pinned_pass)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	struct upmc_bench_options opts = {sizeof(opts), 10, 1, 10, 3};
	struct upmc_bench_result res;
	struct upmc_set *set;
	const unsigned pass[] = {0, 0, 1, 1, 1};

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	fake_take_counters(0, fake.pmu[0].gp - 2);
	ASSERT_MSG(upmc_open(&set, "branch-miss-ratio,cache-miss-ratio,instructions", &mux) == 0,
	           "%s", upmc_last_error());
	ASSERT(upmc_count(set) == 5);
	ASSERT_MSG(upmc_bench_rotating(set, run_1us, NULL, &opts, &res) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(res.passes, 2);
	EXPECT_EQ_U64(res.repeats, 10);
	EXPECT_EQ(res.samples, 6);
	EXPECT_EQ(res.dropped, 0);
	for (unsigned i = 0; i < 5; i++) {
		EXPECT_MSG(res.pass[i] == pass[i], "counter %u: pass %u", i, res.pass[i]);
		EXPECT_EQ_U64(res.counter[i].count, 3);
		EXPECT_MSG(res.counter[i].min == 1000 && res.counter[i].max == 1000,
		           "counter %u: %g to %g", i, res.counter[i].min, res.counter[i].max);
	}
	/* each metric of the totals from its own pass's counts; no
	 * per-sample values: the passes' sets have no metrics */
	EXPECT_EQ(res.metrics, 2);
	EXPECT(res.metric_of_totals[0] == 1.0 && res.metric_of_totals[1] == 1.0);
	EXPECT(res.metric[0].count == 0 && isnan(res.metric[0].median));
	/* without rotation: one pass, time-shared */
	ASSERT(upmc_bench(set, run_1us, NULL, &opts, &res) == 0);
	EXPECT_EQ(res.passes, 1);
	EXPECT_EQ(res.metrics, 2);
	EXPECT_EQ_U64(res.metric[0].count, 3);
	/* a group that does not fit by itself: the open's error */
	fake_take_counters(0, fake.pmu[0].gp - 1);
	EXPECT_EQ(upmc_bench_rotating(set, run_1us, NULL, &opts, &res), -EBUSY);
	EXPECT_CONTAINS(upmc_last_error(), "could not be put on the PMU together");
	EXPECT_EQ(upmc_bench_rotating(set, NULL, NULL, &opts, &res), -EINVAL);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Ice Lake-SP (GenuineIntel-6-6A): perf's tma_* of icx-metrics.json, each
 * PERF_METRICS field over the four's sum, INT_MISC.UOP_DROPPING / slots
 * off frontend-bound, 5 x INT_MISC.CLEARS_COUNT / slots onto
 * backend-bound, bad speculation the remainder. */
TEST(metrics, ice_lake_topdown_is_perfs)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[4], sum = 600 + 400 + 1000 + 2000, fe, be, ret;

	fake_boot("intel-ice-lake");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	EXPECT_EQ(upmc_count(set), 7); /* slots, 4 fields, UOP_DROPPING, CLEARS_COUNT */
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x100d) >= 0);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x104010d) >= 0);
	after[counter_named(set, "slots")] = 4000;
	after[counter_named(set, "topdown-retiring")] = 1000;
	after[counter_named(set, "topdown-bad-spec")] = 400;
	after[counter_named(set, "topdown-fe-bound")] = 600;
	after[counter_named(set, "topdown-be-bound")] = 2000;
	after[counter_named(set, "r100d")] = 80;
	after[counter_named(set, "r104010d")] = 16;
	upmc_metrics(set, before, after, v);
	ret = 1000 / sum;
	fe = 600 / sum - 80.0 / 4000;
	be = 2000 / sum + 5 * 16.0 / 4000;
	EXPECT_MSG(v[0] == ret, "retiring %.17g", v[0]);
	EXPECT_MSG(fabs(v[1] - fmax(1 - (fe + be + ret), 0)) < 1e-15, "bad speculation %.17g",
	           v[1]);
	EXPECT_MSG(fabs(v[2] - fe) < 1e-15, "frontend bound %.17g", v[2]); /* 0.13, not 0.15 */
	EXPECT_MSG(fabs(v[3] - be) < 1e-15, "backend bound %.17g", v[3]);  /* 0.52, not 0.5 */
	upmc_close(set);
}
