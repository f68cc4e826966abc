/* SPDX-License-Identifier: MIT */
/*
 * TopdownL1 on Intel's Alder Lake-N (Gracemont E-cores alone, no
 * PERF_METRICS) on the fake kernel: perf's formula over Gracemont's own
 * TOPDOWN_* events (raw codes) and 5 slots a cycle, exact values, with
 * libpfm4 taking the CPU for a Gracemont (LIBPFM_FORCE_PMU, set before
 * libpfm4 starts: a program of its own), which knows none of the 4-slot
 * formula's events. And the same raw codes are not taken on another CPU.
 * Its level 2, and Sierra Forest's (Crestmont alone).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

TEST(metrics_atom, gracemont_five_slots_a_cycle)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	/* TOPDOWN_FE_BOUND.ALL, TOPDOWN_BE_BOUND.ALL, TOPDOWN_RETIRING.ALL */
	static const uint64_t config[] = {0x71, 0x74, 0xc2};
	struct upmc_set *set;
	double v[4];
	unsigned k;

	setenv("LIBPFM_FORCE_PMU", "adl_grt", 1);
	fake_boot("intel-alder-lake-n"); /* topdown-fe-bound and others, but no slots */
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	EXPECT_EQ(upmc_count(set), 4); /* cycles and the three TOPDOWN_* events, once each */
	for (k = 0; k < 3; k++)
		EXPECT_MSG(fake_event_with(PERF_TYPE_RAW, config[k]) >= 0,
		           "no event of config %#llx", (unsigned long long)config[k]);
	EXPECT(fake_event_with(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) >= 0);
	/* 1000 cycles: 5000 slots */
	after[counter_named(set, "cycles")] = 1000;
	after[counter_named(set, "rc2")] = 2000;
	after[counter_named(set, "r71")] = 1000;
	after[counter_named(set, "r74")] = 1500;
	ASSERT(upmc_metrics(set, before, after, v) == 4);
	EXPECT_MSG(v[0] == 0.4, "retiring %.17g", v[0]);
	EXPECT_MSG(v[1] == 0.1, "bad speculation %.17g", v[1]); /* (5000 - 4500) / 5000 */
	EXPECT_MSG(v[2] == 0.2, "frontend bound %.17g", v[2]);
	EXPECT_MSG(v[3] == 0.3, "backend bound %.17g", v[3]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Skylake-X's core PMU would open the same raw codes (other events there):
 * its CPU id is not Alder Lake-N's, and TopdownL1 is its own 4-slot one,
 * whose events this libpfm4 does not name. */
TEST(metrics_atom, not_on_another_cpu)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	setenv("LIBPFM_FORCE_PMU", "adl_grt", 1);
	fake_boot("intel-skylake-x");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &time_only) == 0, "%s", upmc_last_error());
	EXPECT_EQ(counter_named(set, "r71"), -1);
	EXPECT_EQ(upmc_count(set), 0);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "Sandy Bridge to Cascade Lake");
	upmc_close(set);
}

/* Sierra Forest (Crestmont alone): 6 slots a cycle, its TOPDOWN_*.ALL_P
 * events (raw codes), TopdownL1 and the level 2 the kernel's JSON has. */
TEST(metrics_atom, crestmont_six_slots_a_cycle)
{
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	static const char *const events[] = {"r72", "r73", "r71", "r74", "r473", "r373", "r174"};
	static const double slots[] = {2400, 600, 1200, 1800, 300, 240, 120};
	static const double want[] = {0.4, 0.1, 0.2, 0.3, 0.05, 0.04, 0.02};
	struct upmc_set *set;
	unsigned k;

	fake_boot("intel-sierra-forest");
	ASSERT_MSG(upmc_open(&set, "TopdownL1,TopdownL2", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 7); /* no heavy operations, fetch latency, ... */
	EXPECT_EQ(upmc_count(set), 8);       /* cycles and the seven TOPDOWN_* events */
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x72) >= 0);
	counts[counter_named(set, "cycles")] = 1000; /* 6000 slots */
	for (k = 0; k < 7; k++)
		counts[counter_named(set, events[k])] = slots[k];
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 7);
	for (k = 0; k < 7; k++)
		EXPECT_MSG(v[k] == want[k], "%s %.17g", upmc_metric_name(set, k), v[k]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Alder Lake-N's level 2, perf 6.1's: mispredicts and machine clears in
 * TopdownL2, whose other names are rows that say so; core bound, backend
 * bound less the loads' and stores' stalls, by its name (six general
 * counters' events: Gracemont's all). */
TEST(metrics_atom, gracemont_level_two)
{
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	double be = 2000 / 5000.0, load_store = 300 / 1000.0 + (500 / 5000.0) * (40.0 / 200);
	struct upmc_set *set;

	setenv("LIBPFM_FORCE_PMU", "adl_grt", 1);
	fake_boot("intel-alder-lake-n");
	ASSERT_MSG(upmc_open(&set, "TopdownL2", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 2);
	counts[counter_named(set, "cycles")] = 1000; /* 5000 slots */
	counts[counter_named(set, "r473")] = 500;    /* TOPDOWN_BAD_SPECULATION.MISPREDICT */
	counts[counter_named(set, "r373")] = 250;    /* TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS */
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 2);
	EXPECT_MSG(v[0] == 0.1, "%s %.17g", upmc_metric_name(set, 0), v[0]);
	EXPECT_MSG(v[1] == 0.05, "%s %.17g", upmc_metric_name(set, 1), v[1]);
	upmc_close(set);
	EXPECT_EQ(upmc_open(&set, "heavy-operations", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "the kernel's E-core metrics divide level 2 otherwise");
	ASSERT_MSG(upmc_open(&set, "core-bound", NULL) == 0, "%s", upmc_last_error());
	memset(counts, 0, sizeof(counts));
	counts[counter_named(set, "cycles")] = 1000;
	counts[counter_named(set, "r74")] = 2000;  /* TOPDOWN_BE_BOUND.ALL */
	counts[counter_named(set, "rff05")] = 300; /* LD_HEAD.ANY_AT_RET */
	counts[counter_named(set, "r274")] = 500;  /* TOPDOWN_BE_BOUND.MEM_SCHEDULER */
	counts[counter_named(set, "r104")] = 40;   /* MEM_SCHEDULER_BLOCK.ST_BUF */
	counts[counter_named(set, "r704")] = 200;  /* MEM_SCHEDULER_BLOCK.ALL */
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 1);
	EXPECT_MSG(fabs(v[0] - (be - load_store)) < 1e-15, "core bound %.17g", v[0]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Grand Ridge: Crestmont alone, as Sierra Forest (its grr-metrics.json has
 * the same formulas), not the PERF_METRICS fallback of other models. */
TEST(metrics_atom, grand_ridge_is_crestmont)
{
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	struct upmc_set *set;

	fake_boot("intel-grand-ridge");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	counts[counter_named(set, "cycles")] = 1000; /* 6000 slots */
	counts[counter_named(set, "r72")] = 2400;    /* TOPDOWN_RETIRING.ALL_P */
	ASSERT(upmc_metrics_of_counts(set, counts, v) > 0);
	EXPECT_MSG(v[0] == 0.4, "%s %.17g", upmc_metric_name(set, 0), v[0]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}
