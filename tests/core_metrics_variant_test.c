/* SPDX-License-Identifier: MIT */
/*
 * A metric's variant is the CPU's, by its id, as perf's mapfile picks
 * it: Zen 3 is told it counts no dispatch slots, a Zen 6 is not taken for
 * a Zen 5, a Neoverse N2 gets perf's formula for its erratum, and a CPU
 * whose events are missing is told its real lack in whole sentences.
 */
#include <math.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

TEST(metric_variant, zen3_counts_no_dispatch_slots)
{
	struct upmc_set *set;

	fake_boot("amd-zen3");
	EXPECT(upmc_open(&set, "TopdownL1", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "AMD Zen 3 and earlier have no TopdownL1: their PMUs "
	                                   "count no dispatch slots");
}

TEST(metric_variant, zen6_is_not_a_zen5)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	fake_boot("amd-zen6");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &time_only) == 0, "%s", upmc_last_error());
	EXPECT_EQ(counter_named(set, "rc1"), -1);
	EXPECT_CONTAINS(upmc_metric_reason(set, 0), "AMD CPUs after Zen 5 have no TopdownL1");
	upmc_close(set);
}

/* Neoverse N2 r0p0 (MIDR 0x410fd490), 5 slots a cycle: perf's
 * neoverse-n2-v2 metrics take cpu_cycles off stall_slot and
 * stall_slot_frontend. */
TEST(metric_variant, neoverse_n2_takes_cycles_off_the_stall_slots)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[4], stalled;

	fake_boot("arm64-neoverse-n2");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 4);
	after[counter_named(set, "cpu_cycles")] = 1000; /* 5000 slots */
	after[counter_named(set, "stall_slot")] = 3000;
	after[counter_named(set, "stall_slot_frontend")] = 1500;
	after[counter_named(set, "stall_slot_backend")] = 1500;
	after[counter_named(set, "op_spec")] = 500;
	after[counter_named(set, "op_retired")] = 400;
	upmc_metrics(set, before, after, v);
	stalled = (3000.0 - 1000) / 5000;
	EXPECT_MSG(fabs(v[0] - 0.8 * (1 - stalled)) < 1e-12, "retiring %g", v[0]);
	EXPECT_MSG(fabs(v[1] - 0.2 * (1 - stalled)) < 1e-12, "bad speculation %g", v[1]);
	EXPECT_MSG(v[2] == (1500.0 - 1000) / 5000, "frontend bound %g", v[2]);
	EXPECT_MSG(v[3] == 1500.0 / 5000, "backend bound %g", v[3]);
	upmc_close(set);
}

/* Arm without STALL_SLOT: the PMU's lack, in whole sentences. */
TEST(metric_variant, reasons_name_the_real_lack)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	const char *why;

	fake_boot("arm64-pmuv3");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", &time_only) == 0, "%s", upmc_last_error());
	why = upmc_metric_reason(set, 0);
	EXPECT_CONTAINS(why, "its PMU lacks events of Arm's topdown");
	EXPECT_CONTAINS(why, "'op_retired' is not an event here");
	EXPECT(!strstr(why, "libpfm4"));
	EXPECT(!strstr(why, "did you mean"));
	EXPECT_MSG(strlen(why) < 300, "%s", why); /* whole, not cut */
	upmc_close(set);
}

/* What a CPU that no topdown variant is for is told: the open's error for
 * TopdownL1 and for a TopdownL2 metric, each checked for want and for
 * words no true sentence there holds. */
static void told(const char *fixture, const char *item, const char *want)
{
	struct upmc_set *set;
	const char *why;

	fake_boot(fixture);
	EXPECT(upmc_open(&set, item, NULL) < 0);
	why = upmc_last_error();
	EXPECT_MSG(strstr(why, want) != NULL, "%s: %s", fixture, why);
	EXPECT_MSG(!strstr(why, "does not expose PERF_METRICS"), "%s: %s", fixture, why);
	EXPECT_MSG(!strstr(why, "after Zen 5"), "%s: %s", fixture, why);
	EXPECT_MSG(!strstr(why, "did you mean"), "%s: %s", fixture, why);
}

/* x86 CPUs of other vendors (Zhaoxin, VIA say CentaurHauls): no Intel
 * fallback's "its PMU does not expose PERF_METRICS". */
TEST(metric_variant, other_x86_vendors_are_told_upmc_knows_none_of_their_topdown)
{
	told("x86-zhaoxin", "TopdownL1",
	     "x86 CPUs of vendors other than Intel, AMD and Hygon have no TopdownL1");
	told("x86-zhaoxin", "heavy-operations",
	     "x86 CPUs of vendors other than Intel, AMD and Hygon have no TopdownL2");
	told("x86-hygon", "TopdownL1", "Hygon CPUs have no TopdownL1");
}

/* Intel's E-core-only parts before Gracemont (Elkhart Lake's Tremont):
 * no PERF_METRICS to expose, and not the 4-slot big cores. */
TEST(metric_variant, atoms_before_gracemont_are_told_upmc_has_no_formula_for_them)
{
	told("intel-elkhart-lake", "TopdownL1", "Tremont");
	told("intel-elkhart-lake", "TopdownL1", "have no TopdownL1");
	told("intel-elkhart-lake", "heavy-operations", "have no TopdownL2");
}

/* AMD before Zen (Bulldozer's family 0x15): not a CPU after Zen 5. */
TEST(metric_variant, amd_before_zen_is_not_after_zen5)
{
	told("amd-bulldozer", "TopdownL1", "AMD before Zen");
	told("amd-bulldozer", "TopdownL1", "have no TopdownL1");
}
