/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's misses per kilo-instruction, miss rates and frequency on
 * the fake kernel, exact values: perf's generic cache events (their
 * PERF_TYPE_HW_CACHE encodings) on any CPU; perf's L1MPKI, L2MPKI and
 * L3MPKI on the Intel models perf defines them for (raw codes, so only on
 * those: the fixture's CPU id says which); cpu_operating_frequency from
 * ref-cycles and the TSC frequency of the fixture's model name.
 */
#include <math.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

/* perf's cache encoding: cache id | op << 8 | result << 16 (L1D 0, LL 2,
 * DTLB 3, ITLB 4; read 0; access 0, miss 1). */
static uint64_t cache_event(unsigned cache, unsigned miss)
{
	return cache | (uint64_t)miss << 16;
}

TEST(metrics_mpki, generic_events_per_kilo_instruction)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	static const unsigned caches[] = {0, 2, 3, 4};
	struct upmc_set *set;
	double v[5];
	unsigned k;

	fake_boot("x86-intel");
	ASSERT_MSG(
	        upmc_open(&set,
	                  "branch-MPKI,L1d-load-MPKI,LLC-load-MPKI,dTLB-load-MPKI,iTLB-load-MPKI",
	                  NULL) == 0,
	        "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 5);
	EXPECT_EQ(upmc_count(set), 6); /* instructions once, and five kinds of miss */
	EXPECT(!strcmp(upmc_metric_unit(set, 0), "per 1000 insns"));
	EXPECT_EQ(upmc_metric_is_percent(set, 0), 0);
	for (k = 0; k < 4; k++)
		EXPECT_MSG(fake_event_with(PERF_TYPE_HW_CACHE, cache_event(caches[k], 1)) >= 0,
		           "no cache event %u's misses", caches[k]);
	EXPECT(fake_event_with(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES) >= 0);
	after[counter_named(set, "instructions")] = 200000;
	after[counter_named(set, "branch-misses")] = 1000;
	after[counter_named(set, "L1-dcache-load-misses")] = 6000;
	after[counter_named(set, "LLC-load-misses")] = 100;
	after[counter_named(set, "dTLB-load-misses")] = 50;
	after[counter_named(set, "iTLB-load-misses")] = 10;
	ASSERT(upmc_metrics(set, before, after, v) == 5);
	EXPECT_MSG(v[0] == 5.0, "branch MPKI %.17g", v[0]);
	EXPECT_MSG(v[1] == 30.0, "L1d MPKI %.17g", v[1]);
	EXPECT_MSG(v[2] == 0.5, "LLC MPKI %.17g", v[2]);
	EXPECT_MSG(v[3] == 0.25, "dTLB MPKI %.17g", v[3]);
	EXPECT_MSG(v[4] == 0.05, "iTLB MPKI %.17g", v[4]);
	after[counter_named(set, "instructions")] = 0; /* no instructions: no value */
	upmc_metrics(set, before, after, v);
	for (k = 0; k < 5; k++)
		EXPECT_MSG(isnan(v[k]), "metric %u is %g", k, v[k]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(metrics_mpki, generic_miss_rates_by_perfs_names)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	static const unsigned caches[] = {2, 3, 4};
	struct upmc_set *set;
	double v[3];
	unsigned k;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "llc_miss_rate,dtlb_miss_rate,itlb_miss_rate", NULL) == 0, "%s",
	           upmc_last_error());
	ASSERT(upmc_metric_count(set) == 3);
	EXPECT_EQ(upmc_count(set), 6);
	EXPECT_EQ(upmc_metric_is_percent(set, 1), 1);
	for (k = 0; k < 3; k++) {
		EXPECT(fake_event_with(PERF_TYPE_HW_CACHE, cache_event(caches[k], 0)) >= 0);
		EXPECT(fake_event_with(PERF_TYPE_HW_CACHE, cache_event(caches[k], 1)) >= 0);
	}
	after[counter_named(set, "LLC-loads")] = 800;
	after[counter_named(set, "LLC-load-misses")] = 200;
	after[counter_named(set, "dTLB-loads")] = 50000;
	after[counter_named(set, "dTLB-load-misses")] = 500;
	after[counter_named(set, "iTLB-loads")] = 40;
	after[counter_named(set, "iTLB-load-misses")] = 10;
	ASSERT(upmc_metrics(set, before, after, v) == 3);
	EXPECT_MSG(v[0] == 0.25, "llc_miss_rate %.17g", v[0]);
	EXPECT_MSG(v[1] == 0.01, "dtlb_miss_rate %.17g", v[1]);
	EXPECT_MSG(v[2] == 0.25, "itlb_miss_rate %.17g", v[2]);
	upmc_close(set);
}

/* Skylake-X (GenuineIntel-6-55): MEM_LOAD_RETIRED.L1_MISS, L2_MISS and
 * L3_MISS as raw codes, over instructions. */
TEST(metrics_mpki, intel_retired_load_misses)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	static const uint64_t config[] = {0x8d1, 0x10d1, 0x20d1};
	struct upmc_set *set;
	double v[3];
	unsigned k;

	fake_boot("intel-skylake-x");
	ASSERT_MSG(upmc_open(&set, "L1MPKI,L2MPKI,L3MPKI", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 3);
	EXPECT_EQ(upmc_count(set), 4);
	for (k = 0; k < 3; k++)
		EXPECT_MSG(fake_event_with(PERF_TYPE_RAW, config[k]) >= 0,
		           "no event of config %#llx", (unsigned long long)config[k]);
	after[counter_named(set, "instructions")] = 400000;
	after[counter_named(set, "r8d1")] = 10000;
	after[counter_named(set, "r10d1")] = 1000;
	after[counter_named(set, "r20d1")] = 100;
	ASSERT(upmc_metrics(set, before, after, v) == 3);
	EXPECT_MSG(v[0] == 25.0, "L1MPKI %.17g", v[0]);
	EXPECT_MSG(v[1] == 2.5, "L2MPKI %.17g", v[1]);
	EXPECT_MSG(v[2] == 0.25, "L3MPKI %.17g", v[2]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* The raw codes would open on any x86 CPU: on an AMD one (and on an Intel
 * machine that names no model) the metric is refused with the reason. */
TEST(metrics_mpki, intel_rows_only_on_their_models)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	fake_boot("amd-zen4");
	EXPECT(upmc_open(&set, "L2MPKI", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "no variant of 'L2MPKI' is for this CPU (id "
	                                   "'AuthenticAMD-25-61'); upmc has it for Intel, Ivy "
	                                   "Bridge to Sapphire Rapids, not hybrid");
	ASSERT_MSG(upmc_open(&set, "L1MPKI,cpu_operating_frequency", &time_only) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_count(set), 0);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "no variant of 'L1MPKI' is for this CPU");
	EXPECT_CONTAINS(upmc_metric_reason(set, 1),
	                "no variant of 'cpu_operating_frequency' is for this CPU");
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* cycles per ref-cycle times the TSC's frequency: the fixture's model name
 * says 2.40GHz (under a fixture root, CPUID's leaf 0x15 is not asked). */
TEST(metrics_mpki, cpu_operating_frequency)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[2];

	fake_boot("intel-skylake-x");
	ASSERT_MSG(upmc_open(&set, "cpu_operating_frequency,GHz", NULL) == 0, "%s",
	           upmc_last_error());
	ASSERT(upmc_metric_count(set) == 2);
	EXPECT(fake_event_with(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES) >= 0);
	EXPECT(!strcmp(upmc_metric_unit(set, 0), "GHz"));
	after[counter_named(set, "cycles")] = 3000000;
	after[counter_named(set, "ref-cycles")] = 2400000;
	after[counter_named(set, "task-clock")] = 1000000;
	ASSERT(upmc_metrics(set, before, after, v) == 2);
	EXPECT_MSG(v[0] == 3.0, "cpu_operating_frequency %.17g", v[0]); /* 1.25 x 2.4 GHz */
	EXPECT_MSG(v[1] == 3.0, "GHz %.17g", v[1]);
	upmc_close(set);
}

/* An Intel CPU whose model name says no frequency: the reason, not a guess. */
TEST(metrics_mpki, cpu_operating_frequency_needs_the_tsc_frequency)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	fake_boot("intel-sapphire-rapids");
	EXPECT(upmc_open(&set, "cpu_operating_frequency", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "#SYSTEM_TSC_FREQ");
	ASSERT_MSG(upmc_open(&set, "cpu_operating_frequency", &time_only) == 0, "%s",
	           upmc_last_error());
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "neither CPUID leaf 0x15 nor the model name");
	upmc_close(set);
}
