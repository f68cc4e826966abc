/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown metric events on the fake kernel. x86_pmu_event_idx() gives
 * a metric event the index INTEL_PMC_FIXED_RDPMC_METRICS + 1: rdpmc of it
 * reads PERF_METRICS, four 8-bit fractions, not a count. upmc reads metric
 * events by read(2), where the kernel turns the fractions into slots.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(topdown, metrics_are_read_by_syscall)
{
	struct upmc_set *set;
	uint64_t v[3];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cpu/slots/,cpu/topdown-retiring/,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	/* one read(2) of the group, for the metric in it */
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "for 'cpu/topdown-retiring/' in it");
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "PERF_METRICS");
	EXPECT_EQ(upmc_counter_path(set, 2), UPMC_PATH_SYSCALL);
	EXPECT_EQ(set->page[1]->index, 0);
	fake.syscall_ns = 0;
	fake_run(8000);
	ASSERT(upmc_read(set, v) == 3);
	ASSERT(upmc_read_n(set, v, 2) == 2);
	EXPECT_EQ(fake.metric_reads, 0);
	EXPECT_EQ_U64(v[1], fake_count(fake_find(4, 0x8000)));
	EXPECT(v[1] >= 2000);
	upmc_close(set);
}

TEST(topdown, raw_metric_codes_too)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "r0400,r8100", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(fake.metric_reads, 0);
	upmc_close(set);
}
