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
#include "tests/upmc_test.h"

static int counter_named(struct upmc_set *set, const char *name)
{
	int i;

	for (i = 0; i < upmc_count(set); i++)
		if (!strcmp(upmc_counter_name(set, (unsigned)i), name))
			return i;
	return -1;
}

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
	EXPECT_EQ(upmc_metric_count(set), 6); /* IPC, and TopdownL1's of every kind of CPU */
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "no CPU PMU");
	EXPECT_CONTAINS(upmc_metric_reason(set, 1), "'retiring' needs the events of Intel");
	upmc_metrics(set, s, s, v);
	for (unsigned j = 0; j < 6; j++)
		EXPECT_MSG(isnan(v[j]), "metric %u is %g", j, v[j]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Metrics listed, of them computed here, and the name of one not computed
 * here ("" when all are). */
struct listed {
	unsigned n, computed;
	char missing[64];
};

static int count_available(const struct upmc_metric_info *info, void *arg)
{
	struct listed *l = arg;

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
	struct listed l = {0, 0, ""};

	fake_boot("x86-intel");
	ASSERT(upmc_list_metrics(count_available, &l) > 0);
	EXPECT_EQ(l.n, 17);        /* the generic ones, Intel's topdown, AMD's */
	EXPECT_EQ(l.computed, 12); /* not AMD's: libpfm4 does not take it for a Zen 4 */
	memset(&l, 0, sizeof(l));
	fake_boot("arm64-pmuv3"); /* no STALL_SLOT events */
	upmc_list_metrics(count_available, &l);
	EXPECT_EQ(l.n, 12); /* the generic ones and Arm's topdown */
	EXPECT(l.computed >= 1 && l.computed <= 8);
	memset(&l, 0, sizeof(l));
	fake_boot("vm-no-pmu");
	upmc_list_metrics(count_available, &l);
	EXPECT_EQ(l.n, 21); /* no kind of CPU: every variant */
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
