/* SPDX-License-Identifier: MIT */
/*
 * Sapphire Rapids' level 3 under memory bound on the fake kernel: perf's
 * tma_l1_bound, tma_l2_bound, tma_l3_bound, tma_dram_bound and
 * tma_store_bound over the thread's cycles, exact values; their group's
 * name opens their events once, as one perf group when multiplexed; and
 * the raw codes are not taken on another CPU.
 */
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

/* EXE_ACTIVITY.BOUND_ON_LOADS and BOUND_ON_STORES, MEMORY_ACTIVITY's
 * STALLS_L1D_MISS, STALLS_L2_MISS and STALLS_L3_MISS */
static const char *const names[] = {"r50021a6", "r20040a6", "r3000347", "r5000547", "r9000947"};
static const uint64_t configs[] = {0x50021a6, 0x20040a6, 0x3000347, 0x5000547, 0x9000947};

TEST(metrics_memory_bound, level_3_over_cycles)
{
	uint64_t before[UPMC_SNAPSHOT_MAX] = {0}, after[UPMC_SNAPSHOT_MAX] = {0};
	static const uint64_t counts[] = {3000, 500, 2000, 1500, 1000};
	static const char *const metric[] = {"l1-bound", "l2-bound", "l3-bound", "dram-bound",
	                                     "store-bound"};
	struct upmc_set *set;
	double v[5];
	unsigned k;

	fake_boot("intel-sapphire-rapids");
	ASSERT_MSG(upmc_open(&set, "tma_memory_bound_group", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 5);
	EXPECT_EQ(upmc_count(set), 6); /* five events and cycles, once each */
	for (k = 0; k < 5; k++) {
		EXPECT(!strcmp(upmc_metric_name(set, k), metric[k]));
		EXPECT_MSG(fake_event_with(PERF_TYPE_RAW, configs[k]) >= 0,
		           "no event of config %#llx", (unsigned long long)configs[k]);
		after[counter_named(set, names[k])] = counts[k];
	}
	after[counter_named(set, "cycles")] = 10000;
	ASSERT(upmc_metrics(set, before, after, v) == 5);
	EXPECT_MSG(v[0] == 0.1, "l1-bound %.17g", v[0]);     /* (3000 - 2000) / 10000 */
	EXPECT_MSG(v[1] == 0.05, "l2-bound %.17g", v[1]);    /* (2000 - 1500) / 10000 */
	EXPECT_MSG(v[2] == 0.05, "l3-bound %.17g", v[2]);    /* (1500 - 1000) / 10000 */
	EXPECT_MSG(v[3] == 0.1, "dram-bound %.17g", v[3]);   /* 1000 / 10000 */
	EXPECT_MSG(v[4] == 0.05, "store-bound %.17g", v[4]); /* 500 / 10000 */
	/* perf clamps L1 bound at 0 when the L1-miss stalls exceed the load-bound cycles */
	after[counter_named(set, names[0])] = 1500;
	upmc_metrics(set, before, after, v);
	EXPECT_MSG(v[0] == 0, "l1-bound %.17g", v[0]);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Multiplexed, a group's metrics are one perf group: each event once, all
 * under one leader. */
TEST(metrics_memory_bound, one_perf_group_when_multiplexed)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	struct upmc_set *set;
	int leader;
	unsigned k;

	fake_boot("intel-sapphire-rapids");
	ASSERT_MSG(upmc_open(&set, "tma_memory_bound_group", &mux) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_count(set), 6);
	leader = fake_event_with(PERF_TYPE_RAW, configs[0]);
	ASSERT(leader >= 0);
	EXPECT_EQ(fake.ev[fake_event_with(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)].leader,
	          fake.ev[leader].leader);
	for (k = 1; k < 5; k++) {
		int e = fake_event_with(PERF_TYPE_RAW, configs[k]);
		ASSERT(e >= 0);
		EXPECT_EQ(fake.ev[e].leader, fake.ev[leader].leader);
	}
	upmc_close(set);
}

TEST(metrics_memory_bound, not_on_another_cpu)
{
	struct upmc_set *set;

	fake_boot("intel-skylake-x");
	EXPECT(upmc_open(&set, "dram-bound", NULL) < 0);
	EXPECT_CONTAINS(upmc_last_error(), "upmc has it for Intel Sapphire Rapids");
	EXPECT_EQ(fake_open_events(), 0);
}
