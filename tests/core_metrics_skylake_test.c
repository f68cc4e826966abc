/* SPDX-License-Identifier: MIT */
/*
 * Intel's TopdownL1 before PERF_METRICS (Sandy Bridge to Cascade Lake: 4
 * slots a cycle) on the fake kernel's Skylake server, with libpfm4 taking
 * the CPU for one (LIBPFM_FORCE_PMU, set before libpfm4 starts: a program
 * of its own): perf's formula over events by libpfm4's names, exact
 * values; and only where /proc/cpuinfo says an Intel CPU. TopdownL2 on
 * Skylake to Cascade Lake and on Haswell, perf 6.1's, in both SMT states
 * (Haswell's memory bound by perf's comparisons), and what it has not
 * there, said.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

TEST(metrics_skylake, four_slots_a_cycle)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	/* IDQ_UOPS_NOT_DELIVERED.CORE, UOPS_ISSUED.ANY, UOPS_RETIRED.RETIRE_SLOTS,
	 * INT_MISC.RECOVERY_CYCLES, as Intel's Skylake event list codes them */
	static const uint64_t config[] = {0x19c, 0x10e, 0x2c2, 0x10d};
	struct upmc_set *set;
	double v[4];
	unsigned k;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-skylake-x"); /* no slots, no topdown events */
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	EXPECT_EQ(upmc_count(set), 5); /* cycles and four events, shared once */
	for (k = 0; k < 4; k++)
		EXPECT_MSG(fake_event_with(PERF_TYPE_RAW, config[k]) >= 0,
		           "no event of config %#llx", (unsigned long long)config[k]);
	EXPECT(fake_event_with(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) >= 0);
	/* 1000 cycles: 4000 slots */
	after[counter_named(set, "cycles")] = 1000;
	after[counter_named(set, "UOPS_RETIRED:RETIRE_SLOTS")] = 1600;
	after[counter_named(set, "UOPS_ISSUED:ANY")] = 1800;
	after[counter_named(set, "INT_MISC:RECOVERY_CYCLES")] = 50;
	after[counter_named(set, "IDQ_UOPS_NOT_DELIVERED:CORE")] = 600;
	ASSERT(upmc_metrics(set, before, after, v) == 4);
	EXPECT_MSG(v[0] == 0.4, "retiring %.17g", v[0]);
	EXPECT_MSG(v[1] == 0.1, "bad speculation %.17g", v[1]); /* (1800 - 1600 + 200) / 4000 */
	EXPECT_MSG(v[2] == 0.15, "frontend bound %.17g", v[2]);
	EXPECT_MSG(v[3] == 1 - 2600.0 / 4000, "backend bound %.17g", v[3]); /* 0.35 */
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* An AMD CPU whose libpfm4 takes it for a Skylake server (as
 * LIBPFM_FORCE_PMU does): Intel's events resolve, but /proc/cpuinfo says
 * AMD, and TopdownL1 is not Intel's. */
TEST(metrics_skylake, not_on_another_cpu)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("amd-zen4");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &time_only) == 0, "%s", upmc_last_error());
	EXPECT_EQ(counter_named(set, "UOPS_RETIRED:RETIRE_SLOTS"), -1);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "cannot be computed on this CPU (AMD Zen 4)");
	upmc_close(set);
}

/* An Ice Lake-SP whose PMU does not expose PERF_METRICS (a virtual PMU
 * without it), with libpfm4 taking it for a Skylake server: the 4-slot
 * formula is not its (a 5-wide core), and TopdownL1 says what it lacks. */
TEST(metrics_skylake, not_on_ice_lake_without_perf_metrics)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-ice-lake-no-metrics");
	EXPECT(upmc_open(&set, "TopdownL1", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "does not expose PERF_METRICS");
	EXPECT_CONTAINS(upmc_last_error(), "'slots' is not an event here");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &time_only) == 0, "%s", upmc_last_error());
	EXPECT_EQ(counter_named(set, "UOPS_RETIRED:RETIRE_SLOTS"), -1);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "Intel Ice Lake");
	upmc_close(set);
}

/* SMT on (the kernel's smt/active): perf's form per logical CPU, the
 * core's cycles as one thread sees them and its recovery cycles halved. */
TEST(metrics_skylake, smt_on_takes_the_per_thread_form)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	struct upmc_set *set;
	double v[4], clks, slots;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-skylake-x-smt");
	ASSERT_MSG(upmc_open(&set, "retiring", &mux) == 0, "%s", upmc_last_error());
	ASSERT(counter_named(set, "CPU_CLK_UNHALTED:REF_XCLK") >= 0);
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "retiring", NULL) == 0, "%s", upmc_last_error());
	after[counter_named(set, "cycles")] = 1000;
	after[counter_named(set, "UOPS_RETIRED:RETIRE_SLOTS")] = 1500;
	after[counter_named(set, "CPU_CLK_UNHALTED:ONE_THREAD_ACTIVE")] = 20;
	after[counter_named(set, "CPU_CLK_UNHALTED:REF_XCLK")] = 100;
	ASSERT(upmc_metrics(set, before, after, v) == 1);
	clks = (1000.0 / 2) * (1 + 20.0 / 100);
	slots = 4 * clks;
	EXPECT_MSG(v[0] == 1500 / slots, "retiring %.17g, want %.17g", v[0], 1500 / slots);
	upmc_close(set);
}

/* The general counters the thread's events of group `leader` take on the
 * fake kernel (cycles and instructions take fixed counters). */
static unsigned general_in_group(int leader)
{
	unsigned i, n = 0;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		n += fake.ev[i].used && fake.ev[i].pmu >= 0 && fake.ev[i].leader == leader &&
		     !(fake.ev[i].attr.type == PERF_TYPE_HARDWARE &&
		       (fake.ev[i].attr.config == PERF_COUNT_HW_CPU_CYCLES ||
		        fake.ev[i].attr.config == PERF_COUNT_HW_INSTRUCTIONS));
	return n;
}

/* The most general counters one of the thread's groups takes. */
static unsigned most_general_in_a_group(void)
{
	unsigned i, most = 0;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && (int)i == fake.ev[i].leader &&
		    general_in_group((int)i) > most)
			most = general_in_group((int)i);
	return most;
}

static int says_apart(const struct upmc_metric_info *info, void *arg)
{
	if (!strcmp(info->name, "bad-speculation") && strstr(info->cpus, "SMT on"))
		*(const char **)arg = info->desc;
	return 0;
}

/* SMT on, where the core gives a thread 4 general counters (CPUID's count
 * then): bad speculation's and backend bound's inputs are 5 general
 * counters' events, which no group of the thread's holds (the kernel's
 * validate_group() refuses it). A multiplexed set counts those inputs each
 * alone, as perf 6.1 does once the kernel refuses its weak group; no
 * group it opens needs more than 4 general counters; the metric says so.
 * TopdownL2's metrics need 6 together: each is a group of its own. */
TEST(metrics_skylake, smt_on_inputs_beyond_a_threads_counters_count_alone)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	const char *desc = NULL;
	struct upmc_set *set;
	int issued;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-skylake-x-smt");
	fake.pmu[fake_pmu_named("cpu")].gp = 4;
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	EXPECT_MSG(most_general_in_a_group() <= 4, "a group takes %u general counters",
	           most_general_in_a_group());
	issued = fake_event_with(PERF_TYPE_RAW, 0x10e); /* UOPS_ISSUED.ANY */
	ASSERT(issued >= 0);
	EXPECT_EQ(fake.ev[issued].leader, issued);
	EXPECT_EQ(general_in_group(issued), 1u);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
	ASSERT_MSG(upmc_open(&set, "TopdownL2", &mux) == 0, "%s", upmc_last_error());
	EXPECT_MSG(most_general_in_a_group() <= 4, "a group takes %u general counters",
	           most_general_in_a_group());
	upmc_close(set);
	upmc_list_metrics(says_apart, &desc);
	ASSERT(desc != NULL);
	EXPECT_CONTAINS(desc, "its inputs need 5 general counters where a thread has 4");
}

/* A kernel without smt/active (before Linux 4.19): the SMT state from the
 * CPUs' topology, as perf's smt_on() falls back to it. cpu0 and cpu28
 * share a core, so SMT is on and the per-thread form is taken. */
TEST(metrics_skylake, smt_state_from_the_topology_without_smt_active)
{
	struct upmc_set *set;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-skylake-x-siblings");
	ASSERT_MSG(upmc_open(&set, "retiring", NULL) == 0, "%s", upmc_last_error());
	EXPECT(counter_named(set, "CPU_CLK_UNHALTED:ONE_THREAD_ACTIVE") >= 0);
	EXPECT(counter_named(set, "CPU_CLK_UNHALTED:REF_XCLK") >= 0);
	upmc_close(set);
	/* no topology and no smt/active: not known, the SMT-off form */
	fake_boot("intel-skylake-x");
	ASSERT_MSG(upmc_open(&set, "retiring", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(counter_named(set, "CPU_CLK_UNHALTED:REF_XCLK"), -1);
	upmc_close(set);
}

/* The level 2 metrics of Skylake to Cascade Lake, in TopdownL2's order. */
static const char *const level_two[] = {
        "heavy-operations", "light-operations", "branch-mispredicts", "machine-clears",
        "fetch-latency",    "fetch-bandwidth",  "memory-bound",       "core-bound"};

/* The counts of level 2's events but the recovery cycles and the SMT
 * clocks: 1000 cycles; memory bound's beyond level 1's are
 * CYCLE_ACTIVITY.STALLS_MEM_ANY, EXE_ACTIVITY.BOUND_ON_STORES,
 * CYCLE_ACTIVITY.STALLS_TOTAL, EXE_ACTIVITY.1_PORTS_UTIL, 2_PORTS_UTIL;
 * memory_share(): its share of backend bound at retiring ret, as perf
 * 6.1's tma_memory_bound has it. */
static void count_level_two(struct upmc_set *set, double *counts)
{
	count_named(set, counts, "cycles", 1000);
	count_named(set, counts, "r400019c", 60);
	count_named(set, counts, "IDQ_UOPS_NOT_DELIVERED:CORE", 600);
	count_named(set, counts, "UOPS_ISSUED:ANY", 1800);
	count_named(set, counts, "UOPS_RETIRED:RETIRE_SLOTS", 1600);
	count_named(set, counts, "branch-misses", 30);
	count_named(set, counts, "r10401c3", 10);
	count_named(set, counts, "r4c2", 100);
	count_named(set, counts, "instructions", 1500);
	count_named(set, counts, "r140014a3", 300);
	count_named(set, counts, "r40a6", 50);
	count_named(set, counts, "r40004a3", 500);
	count_named(set, counts, "r2a6", 100);
	count_named(set, counts, "r4a6", 200);
}
static double memory_share(double ret)
{
	return (300.0 + 50) / (500 + (100 + ret * 200) + 50);
}

/* A pinned set cannot hold memory bound (or, with SMT on, branch
 * mispredicts): its inputs are one group, which the kernel refuses, and
 * the open says so, and that a multiplexed set counts it; `needs`
 * general counters and cycles, where the PMU took `took` together. */
static void pinned_does_not_fit(const char *metric, unsigned needs, unsigned took)
{
	char said[160];
	struct upmc_set *set;

	EXPECT_EQ(upmc_open(&set, metric, NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "does not fit in one group");
	snprintf(said, sizeof(said),
	         "pass UPMC_OPT_MULTIPLEX to time-share the counters (the set needs %u counters "
	         "in this group; the PMU took %u of them together)",
	         needs + 1, took);
	EXPECT_CONTAINS(upmc_last_error(), said);
	EXPECT_EQ(fake_open_events(), 0);
}

/* SMT off: perf 6.1's level 2 over 4 x cycles, its events beyond level 1's
 * as raw codes of Skylake's event list, exact values. Memory bound's
 * inputs are 9 general counters' events where a thread has 8: each is
 * counted alone. */
TEST(metrics_skylake, level_two_smt_off)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	/* 1000 cycles: 4000 slots; backend bound 0.35, retiring 0.4 */
	const double want[] = {(1600 + 100 - 1500) / 4000.0,
	                       1600 / 4000.0 - (1600 + 100 - 1500) / 4000.0,
	                       30.0 / (30 + 10) * ((1800 - 1600 + 4 * 50) / 4000.0),
	                       (1800 - 1600 + 4 * 50) / 4000.0 - 30.0 / (30 + 10) * 0.1,
	                       4 * 60 / 4000.0,
	                       600 / 4000.0 - 4 * 60 / 4000.0,
	                       memory_share(0.4) * 0.35,
	                       0.35 - memory_share(0.4) * 0.35};
	struct upmc_set *set;
	unsigned j;
	int stalls;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-skylake-x");
	ASSERT_MSG(upmc_open(&set, "TopdownL2", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 8);
	/* IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE, MACHINE_CLEARS.COUNT,
	 * UOPS_RETIRED.MACRO_FUSED */
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x400019c) >= 0);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x10401c3) >= 0);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x4c2) >= 0);
	EXPECT_MSG(most_general_in_a_group() <= 8, "a group takes %u general counters",
	           most_general_in_a_group());
	stalls = fake_event_with(PERF_TYPE_RAW, 0x140014a3); /* STALLS_MEM_ANY: alone */
	ASSERT(stalls >= 0);
	EXPECT_EQ(fake.ev[stalls].leader, stalls);
	EXPECT_EQ(general_in_group(stalls), 1u);
	count_level_two(set, counts);
	count_named(set, counts, "INT_MISC:RECOVERY_CYCLES", 50);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	for (j = 0; j < 8; j++) {
		EXPECT_MSG(!strcmp(upmc_metric_name(set, j), level_two[j]), "metric %u is %s", j,
		           upmc_metric_name(set, j));
		EXPECT_MSG(fabs(v[j] - want[j]) < 1e-15, "%s %.17g, want %.17g", level_two[j], v[j],
		           want[j]);
	}
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
	pinned_does_not_fit("memory-bound", 9, 8);
}

/* SMT on: the per-logical-CPU slots; branch mispredicts, machine clears,
 * memory bound and core bound read more general counters' events than a
 * thread has then (7, 7, 11, 11 where it has 4): each counted alone. */
TEST(metrics_skylake, level_two_smt_on)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	double slots = 4 * (1000.0 / 2) * (1 + 20.0 / 100);
	/* recovery cycles of the core, halved: 4 x 100 / 2 slots */
	double bad = (1800 - 1600 + 4 * (100 / 2.0)) / slots;
	double backend = 1 - 600 / slots - (1800 + 4 * (100 / 2.0)) / slots;
	struct upmc_set *set;
	int clears;

	setenv("LIBPFM_FORCE_PMU", "skx", 1);
	fake_boot("intel-skylake-x-smt");
	fake.pmu[fake_pmu_named("cpu")].gp = 4;
	ASSERT_MSG(upmc_open(&set, "TopdownL2", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 8);
	EXPECT_MSG(most_general_in_a_group() <= 4, "a group takes %u general counters",
	           most_general_in_a_group());
	clears = fake_event_with(PERF_TYPE_RAW, 0x10401c3); /* MACHINE_CLEARS.COUNT: alone */
	ASSERT(clears >= 0);
	EXPECT_EQ(fake.ev[clears].leader, clears);
	EXPECT_EQ(general_in_group(clears), 1u);
	count_level_two(set, counts);
	count_named(set, counts, "CPU_CLK_UNHALTED:ONE_THREAD_ACTIVE", 20);
	count_named(set, counts, "CPU_CLK_UNHALTED:REF_XCLK", 100);
	count_named(set, counts, "INT_MISC:RECOVERY_CYCLES_ANY", 100);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT(!strcmp(upmc_metric_name(set, 4), "fetch-latency"));
	EXPECT_MSG(fabs(v[4] - 4 * 60 / slots) < 1e-15, "fetch latency %.17g", v[4]);
	EXPECT_MSG(fabs(v[2] - 30.0 / 40 * bad) < 1e-15, "branch mispredicts %.17g", v[2]);
	EXPECT_MSG(fabs(v[3] - (bad - 30.0 / 40 * bad)) < 1e-15, "machine clears %.17g", v[3]);
	EXPECT_MSG(fabs(v[6] - memory_share(1600 / slots) * backend) < 1e-15, "memory bound %.17g",
	           v[6]);
	EXPECT_MSG(fabs(v[7] - (backend - memory_share(1600 / slots) * backend)) < 1e-15,
	           "core bound %.17g", v[7]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
	pinned_does_not_fit("branch-mispredicts", 7, 4);
	pinned_does_not_fit("core-bound", 11, 4);
}

/* Memory bound's events beyond level 1's on Haswell (0xa3 umask and cmask
 * 6: CYCLE_ACTIVITY.STALLS_LDM_PENDING; RESOURCE_STALLS.SB;
 * UOPS_EXECUTED.CORE with cmask 1, 2, 3; RS_EVENTS.EMPTY_CYCLES) and their
 * counts; cycles without execution (0xa3 umask and cmask 4) are
 * count_level_two()'s r40004a3, 500. */
static void count_haswell_memory(struct upmc_set *set, double *counts)
{
	count_named(set, counts, "r60006a3", 300);
	count_named(set, counts, "r8a2", 50);
	count_named(set, counts, "r10002b1", 700);
	count_named(set, counts, "r20002b1", 400);
	count_named(set, counts, "r30002b1", 200);
	count_named(set, counts, "r15e", 100);
}

/* Whether upmc_list_metrics() says this machine computes memory bound and
 * core bound (bit 0 and 1). */
static int lists_memory_and_core(const struct upmc_metric_info *info, void *arg)
{
	int *seen = arg;

	if (!info->why_not[0] && !strcmp(info->name, "memory-bound"))
		*seen |= 1;
	if (!info->why_not[0] && !strcmp(info->name, "core-bound"))
		*seen |= 2;
	return 0;
}

/* Haswell (Sandy Bridge to Broadwell), SMT off: perf 6.1's level 2 over 4
 * x cycles, exact values; fetch latency's cycles capped at the thread's as
 * perf's haswell files cap them; memory bound's share of the stalls, its
 * count chosen by perf's comparisons (IPC > 1.8, fetch latency > 0.1),
 * each branch; its inputs (11 general counters' events where a thread has
 * 8) each counted alone; upmc list shows both. */
TEST(metrics_skylake, level_two_on_haswell)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	/* 1000 cycles: 4000 slots; IDQ.MS_UOPS 200, bad speculation 0.1,
	 * backend bound 0.35 */
	const double heavy = (1600.0 / 1800) * 200 / 4000;
	const double want[] = {heavy,           1600 / 4000.0 - heavy,
	                       30.0 / 40 * 0.1, 0.1 - 30.0 / 40 * 0.1,
	                       4 * 60 / 4000.0, 600 / 4000.0 - 4 * 60 / 4000.0};
	struct upmc_set *set;
	unsigned j;
	int seen = 0, loads;

	setenv("LIBPFM_FORCE_PMU", "hsw", 1);
	fake_boot("intel-haswell");
	ASSERT_MSG(upmc_open(&set, "TopdownL2", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 8);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x3079) >= 0); /* IDQ.MS_UOPS */
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x400019c) >= 0);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x10401c3) >= 0);
	EXPECT(fake_event_with(PERF_TYPE_RAW, 0x30002b1) >= 0); /* UOPS_EXECUTED.CORE, cmask 3 */
	loads = fake_event_with(PERF_TYPE_RAW, 0x60006a3);      /* STALLS_LDM_PENDING: alone */
	ASSERT(loads >= 0);
	EXPECT_EQ(fake.ev[loads].leader, loads);
	EXPECT_EQ(general_in_group(loads), 1u);
	EXPECT_MSG(most_general_in_a_group() <= 8, "a group takes %u general counters",
	           most_general_in_a_group());
	count_level_two(set, counts);
	count_haswell_memory(set, counts);
	count_named(set, counts, "r3079", 200);
	count_named(set, counts, "INT_MISC:RECOVERY_CYCLES", 50);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	for (j = 0; j < 8; j++)
		EXPECT_MSG(!strcmp(upmc_metric_name(set, j), level_two[j]), "metric %u is %s", j,
		           upmc_metric_name(set, j));
	for (j = 0; j < 6; j++)
		EXPECT_MSG(fabs(v[j] - want[j]) < 1e-15, "%s %.17g, want %.17g", level_two[j], v[j],
		           want[j]);
	/* IPC 1.5, fetch latency 0.06: the store buffer's full cycles, 50 */
	EXPECT_MSG(fabs(v[6] - (300.0 + 50) / 50 * 0.35) < 1e-15, "memory bound %.17g", v[6]);
	EXPECT_MSG(fabs(v[7] - 0.35 * (1 - (300.0 + 50) / 50)) < 1e-14, "core bound %.17g", v[7]);
	/* fetch latency 0.2: the cycles of 2 uops or more less those the
	 * scheduler was empty, 400 - 100 */
	count_named(set, counts, "r400019c", 200);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(fabs(v[6] - 350.0 / 300 * 0.35) < 1e-15, "memory bound %.17g", v[6]);
	/* IPC 2: the cycles that executed nothing, 500, and those of 1 or 2
	 * uops, 700 - 200 */
	count_named(set, counts, "instructions", 2000);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(fabs(v[6] - 350.0 / 1000 * 0.35) < 1e-15, "memory bound %.17g", v[6]);
	/* more cycles without a uop delivered than the thread's cycles (the
	 * event counts the core's): perf's min() keeps the thread's */
	count_named(set, counts, "r400019c", 1200);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(v[4] == 1, "fetch latency %.17g", v[4]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
	pinned_does_not_fit("memory-bound", 12, 9);
	upmc_list_metrics(lists_memory_and_core, &seen);
	EXPECT_EQ(seen, 3);
}

/* Haswell with SMT on: the per-logical-CPU slots, and where the core gives
 * a thread 4 general counters, no group of more; branch mispredicts',
 * machine clears' (7), heavy and light operations' (5: UOPS_RETIRED,
 * UOPS_ISSUED, IDQ.MS_UOPS and the two SMT clocks) and memory and core
 * bound's (13) inputs counted alone; memory bound by perf's SMT-on form. */
TEST(metrics_skylake, level_two_on_haswell_smt_on)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	double counts[UPMC_MAX_COUNTERS] = {0}, v[UPMC_MAX_METRICS];
	double slots = 4 * (1000.0 / 2) * (1 + 20.0 / 100);
	double heavy = (1600.0 / 1800) * 200 / slots;
	/* recovery cycles of the core, halved: 4 x 100 / 2 slots */
	double backend = 1 - 600 / slots - (1800 + 4 * (100 / 2.0)) / slots;
	struct upmc_set *set;
	int ms_uops;

	setenv("LIBPFM_FORCE_PMU", "hsw", 1);
	fake_boot("intel-haswell-smt");
	fake.pmu[fake_pmu_named("cpu")].gp = 4;
	ASSERT_MSG(upmc_open(&set, "TopdownL2", &mux) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 8);
	EXPECT_MSG(most_general_in_a_group() <= 4, "a group takes %u general counters",
	           most_general_in_a_group());
	ms_uops = fake_event_with(PERF_TYPE_RAW, 0x3079);
	ASSERT(ms_uops >= 0);
	EXPECT_EQ(fake.ev[ms_uops].leader, ms_uops);
	EXPECT_EQ(general_in_group(ms_uops), 1u);
	count_level_two(set, counts);
	count_named(set, counts, "r3079", 200);
	count_named(set, counts, "CPU_CLK_UNHALTED:ONE_THREAD_ACTIVE", 20);
	count_named(set, counts, "CPU_CLK_UNHALTED:REF_XCLK", 100);
	count_haswell_memory(set, counts);
	count_named(set, counts, "INT_MISC:RECOVERY_CYCLES_ANY", 100);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(fabs(v[0] - heavy) < 1e-15, "heavy operations %.17g", v[0]);
	EXPECT_MSG(fabs(v[1] - (1600 / slots - heavy)) < 1e-15, "light operations %.17g", v[1]);
	EXPECT_MSG(fabs(v[4] - 4 * 60 / slots) < 1e-15, "fetch latency %.17g", v[4]);
	/* fetch latency 0.2, IPC 1.5: perf's SMT-on form, the cycles that
	 * executed nothing, 500, plus the core's of 2 uops or more halved,
	 * less the scheduler's empty ones: 500 + 400 / 2 - 100 */
	count_named(set, counts, "r400019c", 120);
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 8);
	EXPECT_MSG(fabs(v[6] - 350.0 / 600 * backend) < 1e-15, "memory bound %.17g", v[6]);
	EXPECT_MSG(fabs(v[7] - backend * (1 - 350.0 / 600)) < 1e-15, "core bound %.17g", v[7]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
	pinned_does_not_fit("heavy-operations", 5, 5); /* cycles on its fixed counter */
}
