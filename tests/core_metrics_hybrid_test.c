/* SPDX-License-Identifier: MIT */
/*
 * Topdown on a hybrid CPU (Alder Lake: cpu_core and cpu_atom) on the fake
 * kernel: each core type's metric from its own events, in one set, as
 * perf prints a metric per PMU. The P-cores' is the PERF_METRICS formula
 * (named cpu_core/NAME/), the E-cores' Gracemont's TOPDOWN_* events over
 * 5 slots a cycle (cpu_atom/NAME/), exact values; a core type can be named
 * alone; a metric with no variant per core type keeps its one name.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
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

TEST(metrics_hybrid, each_core_type_has_its_own_topdown)
{
	static const char *const names[] = {"retiring", "bad-speculation", "frontend-bound",
	                                    "backend-bound"};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	char name[64];
	struct upmc_set *set;
	unsigned k, atom;

	fake_boot("intel-alder-lake");
	atom = fake_pmu_named("cpu_atom");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 8);
	for (k = 0; k < 4; k++) {
		snprintf(name, sizeof(name), "cpu_core/%s/", names[k]);
		EXPECT_MSG(metric_named(set, name) >= 0, "no metric %s", name);
		snprintf(name, sizeof(name), "cpu_atom/%s/", names[k]);
		EXPECT_MSG(metric_named(set, name) >= 0, "no metric %s", name);
	}
	/* TOPDOWN_RETIRING.ALL, FE_BOUND.ALL, BE_BOUND.ALL and the cycles, on
	 * the E-cores' PMU alone */
	EXPECT(fake_event_with(fake.pmu[atom].type, 0xc2) >= 0);
	EXPECT(fake_event_with(fake.pmu[atom].type, 0x71) >= 0);
	EXPECT(fake_event_with(fake.pmu[atom].type, 0x74) >= 0);
	EXPECT(fake_event_with(fake.pmu[atom].type, 0x3c) >= 0);
	/* 1000 cycles on the E-cores: 5000 slots */
	counts[counter_named(set, "cpu_atom/event=0x3c/")] = 1000;
	counts[counter_named(set, "cpu_atom/event=0xc2/")] = 2000;
	counts[counter_named(set, "cpu_atom/event=0x71/")] = 1000;
	counts[counter_named(set, "cpu_atom/event=0x74/")] = 1500;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(v[metric_named(set, "cpu_atom/retiring/")] == 0.4, "retiring %.17g",
	           v[metric_named(set, "cpu_atom/retiring/")]);
	EXPECT_MSG(v[metric_named(set, "cpu_atom/bad-speculation/")] == 0.1,
	           "bad speculation %.17g", v[metric_named(set, "cpu_atom/bad-speculation/")]);
	EXPECT_MSG(v[metric_named(set, "cpu_atom/frontend-bound/")] == 0.2, "frontend %.17g",
	           v[metric_named(set, "cpu_atom/frontend-bound/")]);
	EXPECT_MSG(v[metric_named(set, "cpu_atom/backend-bound/")] == 0.3, "backend %.17g",
	           v[metric_named(set, "cpu_atom/backend-bound/")]);
	/* the P-cores' from PERF_METRICS, which the E-cores' counts do not touch */
	counts[counter_named(set, "slots")] = 6000;
	counts[counter_named(set, "topdown-retiring")] = 3000;
	counts[counter_named(set, "topdown-fe-bound")] = 1000;
	counts[counter_named(set, "topdown-bad-spec")] = 1000;
	counts[counter_named(set, "topdown-be-bound")] = 1000;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(v[metric_named(set, "cpu_core/retiring/")] == 0.5, "P-core retiring %.17g",
	           v[metric_named(set, "cpu_core/retiring/")]);
	EXPECT_MSG(v[metric_named(set, "cpu_atom/retiring/")] == 0.4, "E-core retiring %.17g",
	           v[metric_named(set, "cpu_atom/retiring/")]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Gracemont's level 2 that perf has: mispredicts and machine clears. */
TEST(metrics_hybrid, e_core_level_two)
{
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	struct upmc_set *set;

	fake_boot("intel-alder-lake");
	ASSERT_MSG(upmc_open(&set, "cpu_atom/TopdownL2/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 2);
	EXPECT(!strcmp(upmc_metric_name(set, 0), "cpu_atom/branch-mispredicts/"));
	EXPECT(!strcmp(upmc_metric_name(set, 1), "cpu_atom/machine-clears/"));
	counts[counter_named(set, "cpu_atom/event=0x3c/")] = 1000;
	counts[counter_named(set, "cpu_atom/event=0x73,umask=0x4/")] = 500;
	counts[counter_named(set, "cpu_atom/event=0x73,umask=0x3/")] = 250;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 2);
	EXPECT_MSG(v[0] == 0.1, "branch mispredicts %.17g", v[0]);
	EXPECT_MSG(v[1] == 0.05, "machine clears %.17g", v[1]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Gracemont's core bound, perf 6.1's: backend bound less the load and
 * store bound (at most backend bound), by its name alone; six general
 * counters' events, as many as a Gracemont has. */
TEST(metrics_hybrid, e_core_core_bound)
{
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	double be = 2000 / 5000.0, load_store = 300 / 1000.0 + (500 / 5000.0) * (40.0 / 200);
	struct upmc_set *set;

	fake_boot("intel-alder-lake");
	ASSERT_MSG(upmc_open(&set, "cpu_atom/core-bound/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 1);
	/* 1000 cycles on the E-cores: 5000 slots */
	counts[counter_named(set, "cpu_atom/event=0x3c/")] = 1000;
	counts[counter_named(set, "cpu_atom/event=0x74/")] = 2000;          /* BE_BOUND.ALL */
	counts[counter_named(set, "cpu_atom/event=0x5,umask=0xff/")] = 300; /* LD_HEAD */
	counts[counter_named(set, "cpu_atom/event=0x74,umask=0x2/")] = 500; /* MEM_SCHEDULER */
	counts[counter_named(set, "cpu_atom/event=0x4,umask=0x1/")] = 40;   /* store buffer */
	counts[counter_named(set, "cpu_atom/event=0x4,umask=0x7/")] = 200;  /* all blocks */
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 1);
	EXPECT_MSG(fabs(v[0] - (be - load_store)) < 1e-15, "core bound %.17g", v[0]);
	/* loads and stores past backend bound: perf's min() makes it 0 */
	counts[counter_named(set, "cpu_atom/event=0x5,umask=0xff/")] = 900;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 1);
	EXPECT_MSG(v[0] == 0, "core bound %.17g", v[0]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Meteor Lake's E-cores (Crestmont): 6 slots a cycle, TOPDOWN_*.ALL_P and
 * the kernel JSON's level 2 of Unit cpu_atom, machine clears among it. */
TEST(metrics_hybrid, meteor_lake_e_core_level_two)
{
	static const char *const names[] = {"cpu_atom/branch-mispredicts/",
	                                    "cpu_atom/machine-clears/", "cpu_atom/core-bound/"};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	struct upmc_set *set;
	unsigned k;

	fake_boot("intel-meteor-lake");
	ASSERT_MSG(upmc_open(&set, "cpu_atom/TopdownL2/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 3);
	for (k = 0; k < 3; k++)
		EXPECT_MSG(!strcmp(upmc_metric_name(set, k), names[k]), "metric %u is %s", k,
		           upmc_metric_name(set, k));
	/* 1000 cycles: 6000 slots */
	counts[counter_named(set, "cpu_atom/event=0x3c/")] = 1000;
	counts[counter_named(set, "cpu_atom/event=0x73,umask=0x4/")] = 600;
	counts[counter_named(set, "cpu_atom/event=0x73,umask=0x3/")] = 300;
	counts[counter_named(set, "cpu_atom/event=0x74,umask=0x1/")] = 1200;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 3);
	EXPECT_MSG(v[0] == 0.1, "branch mispredicts %.17g", v[0]);
	EXPECT_MSG(v[1] == 0.05, "machine clears %.17g", v[1]);
	EXPECT_MSG(v[2] == 0.2, "core bound %.17g", v[2]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Lunar Lake's E-cores (Skymont): 8 slots a cycle; retiring and frontend
 * bound from the E-cores' fixed counters 6 and 5 (event 0, umask 7 and 6),
 * backend bound from 0xa4 umask 2, as lnl-metrics.json's tma_* of Unit
 * cpu_atom; the P-cores keep their own variant beside them. */
TEST(metrics_hybrid, lunar_lake_e_core_level_one)
{
	static const char *const names[] = {"cpu_atom/retiring/", "cpu_atom/bad-speculation/",
	                                    "cpu_atom/frontend-bound/", "cpu_atom/backend-bound/"};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	struct upmc_set *set;
	unsigned k;

	fake_boot("intel-lunar-lake");
	ASSERT_MSG(upmc_open(&set, "cpu_atom/TopdownL1/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	for (k = 0; k < 4; k++)
		EXPECT_MSG(!strcmp(upmc_metric_name(set, k), names[k]), "metric %u is %s", k,
		           upmc_metric_name(set, k));
	/* 1000 cycles: 8000 slots */
	counts[counter_named(set, "cpu_atom/event=0x3c/")] = 1000;
	counts[counter_named(set, "cpu_atom/event=0x0,umask=0x7/")] = 4000;
	counts[counter_named(set, "cpu_atom/event=0x73/")] = 800;
	counts[counter_named(set, "cpu_atom/event=0x0,umask=0x6/")] = 1200;
	counts[counter_named(set, "cpu_atom/event=0xa4,umask=0x2/")] = 2000;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 4);
	EXPECT_MSG(v[0] == 0.5, "retiring %.17g", v[0]);
	EXPECT_MSG(v[1] == 0.1, "bad speculation %.17g", v[1]);
	EXPECT_MSG(v[2] == 0.15, "frontend bound %.17g", v[2]);
	EXPECT_MSG(v[3] == 0.25, "backend bound %.17g", v[3]);
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_metric_count(set), 8);
	EXPECT(metric_named(set, "cpu_core/retiring/") >= 0);
	EXPECT(metric_named(set, "cpu_atom/retiring/") >= 0);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Lunar Lake's P-cores (Lion Cove): each PERF_METRICS field over the sum
 * of the four of level 1, as lnl-metrics.json's tma_* of Unit cpu_core;
 * not over slots, and bad speculation its own field. */
TEST(metrics_hybrid, lunar_lake_p_core_level_one)
{
	static const char *const names[] = {"cpu_core/retiring/", "cpu_core/bad-speculation/",
	                                    "cpu_core/frontend-bound/", "cpu_core/backend-bound/"};
	static const double want[] = {0.4, 0.1, 0.2, 0.3};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	struct upmc_set *set;
	unsigned k;

	fake_boot("intel-lunar-lake");
	ASSERT_MSG(upmc_open(&set, "cpu_core/TopdownL1/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	/* the fields sum to half the slots: the shares are of their sum */
	counts[counter_named(set, "slots")] = 20000;
	counts[counter_named(set, "topdown-retiring")] = 4000;
	counts[counter_named(set, "topdown-bad-spec")] = 1000;
	counts[counter_named(set, "topdown-fe-bound")] = 2000;
	counts[counter_named(set, "topdown-be-bound")] = 3000;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 4);
	for (k = 0; k < 4; k++) {
		int j = metric_named(set, names[k]);

		ASSERT_MSG(j >= 0, "no metric %s", names[k]);
		EXPECT_MSG(fabs(v[j] - want[k]) < 1e-12, "%s %.17g", names[k], v[j]);
	}
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Arrow Lake-H's P-cores: level 2 as arl-metrics.json's tma_* of Unit
 * cpu_core, each field over the level 1 sum, the remainders clamped at 0
 * (named cpu_core/NAME/ where the E-cores have the metric too). */
TEST(metrics_hybrid, arrow_lake_p_core_level_two)
{
	static const char *const names[] = {
	        "heavy-operations", "light-operations", "branch-mispredicts", "machine-clears",
	        "fetch-latency",    "fetch-bandwidth",  "memory-bound",       "core-bound"};
	static const double want[] = {0.15, 0.25, 0.06, 0.04, 0.25, 0, 0.1, 0.2};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	char name[64];
	struct upmc_set *set;
	unsigned k;

	fake_boot("intel-arrow-lake-h");
	ASSERT_MSG(upmc_open(&set, "TopdownL2", NULL) == 0, "%s", upmc_last_error());
	counts[counter_named(set, "slots")] = 20000;
	counts[counter_named(set, "topdown-retiring")] = 4000;
	counts[counter_named(set, "topdown-bad-spec")] = 1000;
	counts[counter_named(set, "topdown-fe-bound")] = 2000;
	counts[counter_named(set, "topdown-be-bound")] = 3000;
	counts[counter_named(set, "topdown-heavy-ops")] = 1500;
	counts[counter_named(set, "topdown-br-mispredict")] = 600;
	/* fetch latency above frontend bound: fetch bandwidth clamped at 0 */
	counts[counter_named(set, "topdown-fetch-lat")] = 2500;
	counts[counter_named(set, "topdown-mem-bound")] = 1000;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == upmc_metric_count(set));
	for (k = 0; k < 8; k++) {
		int j;

		snprintf(name, sizeof(name), "cpu_core/%s/", names[k]);
		j = metric_named(set, name) >= 0 ? metric_named(set, name)
		                                 : metric_named(set, names[k]);
		ASSERT_MSG(j >= 0, "no metric %s", names[k]);
		EXPECT_MSG(fabs(v[j] - want[k]) < 1e-12, "%s %.17g", names[k], v[j]);
	}
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Arrow Lake-H's low-power E-cores (the third core PMU, cpu_lowpower):
 * perf's metrics have no Unit of them, so a metric named on them is
 * refused with why, never given another core type's formula; the E-cores
 * of cpu_atom take Skymont's. */
TEST(metrics_hybrid, arrow_lake_h_low_power_cores_have_no_metrics)
{
	struct upmc_set *set;

	fake_boot("intel-arrow-lake-h");
	EXPECT_EQ(upmc_open(&set, "cpu_lowpower/retiring/", NULL), -ENOENT);
	EXPECT_MSG(strstr(upmc_last_error(),
	                  "'retiring' has no variant for the low-power E-cores (the core PMU "
	                  "cpu_lowpower): perf's metrics define none for them"),
	           "%s", upmc_last_error());
	EXPECT_EQ(upmc_open(&set, "cpu_lowpower/TopdownL1/", NULL), -ENOENT);
	EXPECT_MSG(strstr(upmc_last_error(), "'TopdownL1' has no variant for the low-power"), "%s",
	           upmc_last_error());
	ASSERT_MSG(upmc_open(&set, "cpu_atom/backend-bound/", NULL) == 0, "%s", upmc_last_error());
	EXPECT(counter_named(set, "cpu_atom/event=0xa4,umask=0x2/") >= 0);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* One core type named alone: its metric only, its events only. */
TEST(metrics_hybrid, one_core_type_named_alone)
{
	struct upmc_set *set;

	fake_boot("intel-alder-lake");
	ASSERT_MSG(upmc_open(&set, "cpu_atom/retiring/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 1);
	EXPECT(!strcmp(upmc_metric_name(set, 0), "cpu_atom/retiring/"));
	EXPECT_EQ(upmc_count(set), 2);
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "cpu_core/retiring/", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 1);
	EXPECT(!strcmp(upmc_metric_name(set, 0), "cpu_core/retiring/"));
	EXPECT(counter_named(set, "slots") >= 0);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* IPC counts every core type's cycles and instructions: one metric, and
 * no core type's alone. */
TEST(metrics_hybrid, a_metric_over_every_core_type_keeps_its_name)
{
	struct upmc_set *set;

	fake_boot("intel-alder-lake");
	ASSERT_MSG(upmc_open(&set, "IPC", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 1);
	EXPECT(!strcmp(upmc_metric_name(set, 0), "IPC"));
	upmc_close(set);
	EXPECT_EQ(upmc_open(&set, "cpu_atom/IPC/", NULL), -ENOENT);
	EXPECT_MSG(strstr(upmc_last_error(), "one metric over every core type"), "%s",
	           upmc_last_error());
	EXPECT_EQ(fake_open_events(), 0);
}

/* A CPU with one core type: the names are the metrics' own. */
TEST(metrics_hybrid, one_core_type_one_name)
{
	struct upmc_set *set;

	fake_boot("intel-sapphire-rapids");
	ASSERT_MSG(upmc_open(&set, "retiring", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 1);
	EXPECT(!strcmp(upmc_metric_name(set, 0), "retiring"));
	upmc_close(set);
	EXPECT(upmc_open(&set, "cpu_atom/retiring/", NULL) < 0);
	EXPECT_EQ(fake_open_events(), 0);
}
