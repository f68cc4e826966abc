/* SPDX-License-Identifier: MIT */
/*
 * AMD Zen 4's TopdownL1 (its pipeline utilisation) on the fake kernel, with
 * libpfm4 taking the CPU for a Zen 4 (LIBPFM_FORCE_PMU, set before libpfm4
 * starts: a program of its own): the events by libpfm4's names, five
 * metrics over 6 dispatch slots a cycle, exact values. And where the CPU
 * is another (a Zen 5), libpfm4's taking it for a Zen 4 does not make it
 * one.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

#define ZEN4(event) "amd64_fam19h_zen4::" event

TEST(metrics_zen4, dispatch_slots)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	struct upmc_set *set;
	double v[5];

	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	fake_boot("amd-zen4"); /* no topdown events: Intel's TopdownL1 is not its */
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 5);
	EXPECT(!strcmp(upmc_metric_name(set, 4), "smt-contention"));
	EXPECT_EQ(upmc_count(set), 6);
	/* 1000 cycles: 6000 slots */
	after[counter_named(set, ZEN4("CYCLES_NOT_IN_HALT"))] = 1000;
	after[counter_named(set, ZEN4("RETIRED_OPS"))] = 3000;
	after[counter_named(
	        set, ZEN4("OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER"))] =
	        3600;
	after[counter_named(set, ZEN4("DISPATCH_STALLS_1:FE_NO_OPS"))] = 900;
	after[counter_named(set, ZEN4("DISPATCH_STALLS_1:BE_STALLS"))] = 1200;
	after[counter_named(set, ZEN4("DISPATCH_STALLS_1:SMT_CONTENTION"))] = 300;
	upmc_metrics(set, before, after, v);
	EXPECT(v[0] == 0.5);  /* retiring */
	EXPECT(v[1] == 0.1);  /* bad speculation */
	EXPECT(v[2] == 0.15); /* frontend bound */
	EXPECT(v[3] == 0.2);  /* backend bound */
	EXPECT(v[4] == 0.05); /* SMT contention */
	upmc_close(set);
}

/* A Zen 5 whose libpfm4 takes it for a Zen 4 (an older libpfm4, or
 * LIBPFM_FORCE_PMU): the Zen 4 events resolve, but /proc/cpuinfo says
 * family 0x1a, and TopdownL1 is Zen 5's, over 8 slots a cycle. */
TEST(metrics_zen4, not_on_another_cpu)
{
	struct upmc_set *set;

	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen4", 1);
	fake_boot("amd-zen5");
	ASSERT_MSG(upmc_open(&set, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_metric_count(set), 5);
	EXPECT_EQ(counter_named(set, ZEN4("RETIRED_OPS")), -1);
	EXPECT(counter_named(set, "rc1") >= 0); /* Zen 5's ex_ret_ops */
	upmc_close(set);
}
