/* SPDX-License-Identifier: MIT */
/*
 * TopdownL2 on Ice Lake-SP (four PERF_METRICS fields, no level 2 topdown
 * event) on the fake kernel: perf 6.1's level 2 there, from events beside
 * PERF_METRICS (raw codes of the Ice Lake models), exact values; heavy and
 * light operations, which the catalogue does not have there, said.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

/* The index of the metric named name in set; -1 when it has none. */
static int metric_named(const struct upmc_set *set, const char *name)
{
	int j;

	for (j = 0; j < upmc_metric_count(set); j++)
		if (!strcmp(upmc_metric_name(set, (unsigned)j), name))
			return j;
	return -1;
}

/* value into counts of every counter of set named name (a multiplexed
 * set counts an event again in each metric group that needs it). */
static void count_all(struct upmc_set *set, double *counts, const char *name, double value)
{
	int i;

	for (i = 0; i < upmc_count(set); i++)
		if (!strcmp(upmc_counter_name(set, (unsigned)i), name))
			counts[i] = value;
}

TEST(metrics_icelake, level_two_from_other_events)
{
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	double sum = 600 + 400 + 1000 + 2000, fe, be, ret, bad, lat, misp, mem;
	struct upmc_options multiplex = {sizeof(multiplex), UPMC_OPT_MULTIPLEX};
	struct upmc_set *set;

	fake_boot("intel-ice-lake");
	/* ten general counters' events beside slots: more than one group holds */
	EXPECT(upmc_open(&set, "TopdownL2", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "UPMC_OPT_MULTIPLEX");
	ASSERT_MSG(upmc_open(&set, "TopdownL2", &multiplex) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 6);
	EXPECT(metric_named(set, "heavy-operations") < 0);
	/* IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE, MACHINE_CLEARS.COUNT */
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x500019c) >= 0);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x10401c3) >= 0);
	count_all(set, counts, "slots", 4000);
	count_all(set, counts, "topdown-retiring", 1000);
	count_all(set, counts, "topdown-bad-spec", 400);
	count_all(set, counts, "topdown-fe-bound", 600);
	count_all(set, counts, "topdown-be-bound", 2000);
	count_all(set, counts, "r100d", 80);    /* INT_MISC.UOP_DROPPING */
	count_all(set, counts, "r104010d", 16); /* INT_MISC.CLEARS_COUNT */
	count_all(set, counts, "r500019c", 60); /* cycles no uop delivered */
	count_all(set, counts, "branch-misses", 30);
	count_all(set, counts, "r10401c3", 10);   /* machine clears */
	count_all(set, counts, "r140014a3", 300); /* CYCLE_ACTIVITY.STALLS_MEM_ANY */
	count_all(set, counts, "r20040a6", 50);   /* EXE_ACTIVITY.BOUND_ON_STORES */
	count_all(set, counts, "r40004a3", 500);  /* CYCLE_ACTIVITY.STALLS_TOTAL */
	count_all(set, counts, "r2a6", 200);      /* EXE_ACTIVITY.1_PORTS_UTIL */
	count_all(set, counts, "r4a6", 100);      /* EXE_ACTIVITY.2_PORTS_UTIL */
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 6);
	ret = 1000 / sum;
	fe = 600 / sum - 80.0 / 4000;
	be = 2000 / sum + 5 * 16.0 / 4000;
	bad = fmax(1 - (fe + be + ret), 0);
	lat = (5 * 60.0 - 80) / 4000;
	misp = 30.0 / (30 + 10) * bad;
	mem = (300.0 + 50) / (500 + (200 + ret * 100) + 50) * be;
	EXPECT_MSG(fabs(v[metric_named(set, "fetch-latency")] - lat) < 1e-15, "fetch latency %.17g",
	           v[metric_named(set, "fetch-latency")]);
	EXPECT_MSG(fabs(v[metric_named(set, "fetch-bandwidth")] - fmax(0, fe - lat)) < 1e-15,
	           "fetch bandwidth %.17g", v[metric_named(set, "fetch-bandwidth")]);
	EXPECT_MSG(fabs(v[metric_named(set, "branch-mispredicts")] - misp) < 1e-15,
	           "branch mispredicts %.17g", v[metric_named(set, "branch-mispredicts")]);
	EXPECT_MSG(fabs(v[metric_named(set, "machine-clears")] - fmax(0, bad - misp)) < 1e-15,
	           "machine clears %.17g", v[metric_named(set, "machine-clears")]);
	EXPECT_MSG(fabs(v[metric_named(set, "memory-bound")] - mem) < 1e-15, "memory bound %.17g",
	           v[metric_named(set, "memory-bound")]);
	EXPECT_MSG(fabs(v[metric_named(set, "core-bound")] - fmax(0, be - mem)) < 1e-15,
	           "core bound %.17g", v[metric_named(set, "core-bound")]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Heavy and light operations: said, not another CPU's formula. */
TEST(metrics_icelake, heavy_operations_said)
{
	struct upmc_set *set;

	fake_boot("intel-ice-lake");
	EXPECT_EQ(upmc_open(&set, "heavy-operations", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "Rocket Lake have no heavy-operations: perf 6.1's heavy "
	                                   "and light operations there need the microcode");
	EXPECT_EQ(fake_open_events(), 0);
}
