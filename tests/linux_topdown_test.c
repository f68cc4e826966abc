/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown metric events on the fake kernel. x86_pmu_event_idx() gives
 * a metric event the index INTEL_PMC_FIXED_RDPMC_METRICS + 1: rdpmc of it
 * reads PERF_METRICS, 8-bit fractions of the slots since the last reset.
 * upmc reads a set of them and their slots leader with rdpmc, each metric
 * as its field times those slots over 255, and never by read(2) beside it
 * (the kernel's read resets slots and PERF_METRICS): a set whose topdown
 * group cannot be read whole in user space reads it by read(2) alone.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

/* The fake's slots counter: fixed counter 3 of the Intel PMU. */
static uint64_t raw_slots(void)
{
	return fake.pmu[0].bank[FAKE_FIXED + 3];
}

TEST(topdown, metrics_are_read_with_rdpmc)
{
	struct upmc_set *set;
	uint64_t v[3];
	unsigned reads, k;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cpu/slots/,cpu/topdown-retiring/,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	for (k = 0; k < 3; k++)
		EXPECT_EQ(upmc_counter_path(set, k), UPMC_PATH_USER);
	fake.syscall_ns = 0;
	fake_run(8000);
	reads = fake.reads;
	ASSERT(upmc_read(set, v) == 3);
	EXPECT_EQ(fake.metric_reads, 1); /* PERF_METRICS, once */
	EXPECT_EQ_U64(v[1], 64 * raw_slots() / 255);
	EXPECT_EQ_U64(v[0], fake_count(fake_find(4, 0x0400)));
	ASSERT(upmc_read_n(set, v, 2) == 2);
	EXPECT_EQ_U64(v[1], 64 * raw_slots() / 255);
	EXPECT_EQ(fake.reads, reads); /* no read(2) */
	upmc_close(set);
}

TEST(topdown, raw_metric_codes_too)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "r0400,r8100", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_USER);
	fake_run(2550);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(fake.metric_reads, 1);
	EXPECT_EQ_U64(v[1], 16 * raw_slots() / 255); /* bad speculation: field 1 */
	upmc_close(set);
}

/* A counter of the set only read(2) reads (msr's): the topdown group is
 * read by read(2) alone, and says so; rdpmc never reads PERF_METRICS. */
TEST(topdown, beside_read2_counters_the_group_is_read2_alone)
{
	struct upmc_set *set;
	uint64_t v[3];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cpu/slots/,cpu/topdown-retiring/,msr/tsc/", NULL) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "read(2) of its topdown group");
	EXPECT_EQ(upmc_topdown_reset(set), -EOPNOTSUPP);
	fake.syscall_ns = 0;
	fake_run(8000);
	ASSERT(upmc_read(set, v) == 3);
	ASSERT(upmc_read_n(set, v, 2) == 2);
	EXPECT_EQ(fake.metric_reads, 0);
	EXPECT_EQ_U64(v[1], fake_count(fake_find(4, 0x8000)));
	EXPECT(v[1] >= 64 * 8000 / 255);
	upmc_close(set);
}

/* Without user-space rdpmc (sysfs rdpmc 0): read(2), the kernel's count. */
TEST(topdown, without_rdpmc_read2_says_why)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	fake.user_access = 0;
	ASSERT_MSG(upmc_open(&set, "cpu/slots/,cpu/topdown-retiring/", NULL) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	fake.syscall_ns = 0;
	fake_run(2550);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(fake.metric_reads, 0);
	EXPECT_EQ_U64(v[1], fake_count(fake_find(4, 0x8000)));
	upmc_close(set);
}
