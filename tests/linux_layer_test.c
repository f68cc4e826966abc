/* SPDX-License-Identifier: MIT */
/*
 * The library's Linux layer on the fake kernel, on an ordinary x86 machine:
 * the fake's own model (user reads, scheduling out, pinned groups in error
 * state, counters taken by another user) seen through the public API.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(fake, user_reads_follow_the_kernel_count)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_USER);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_USER);
	EXPECT_EQ(set->user_n, 2);
	fake_run(5000);
	fake.reads = 0;
	EXPECT_EQ(upmc_read(set, v), 2);
	EXPECT_EQ(fake.reads, 0);
	EXPECT_EQ_U64(v[0], fake_count(fake_find(PERF_TYPE_HARDWARE, 0)));
	EXPECT_EQ_U64(v[1], fake_count(fake_find(PERF_TYPE_HARDWARE, 1)));
	EXPECT(v[0] >= 5000);
	EXPECT_EQ(fake.faults, 0);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(fake, switched_out_reads_by_syscall)
{
	struct upmc_set *set;
	uint64_t v[1], before;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	fake_run(3000);
	before = fake_count(fake_find(PERF_TYPE_HARDWARE, 0));
	fake_switch_out();
	EXPECT_EQ(set->page[0]->index, 0);
	fake.reads = 0;
	EXPECT_EQ(upmc_read(set, v), 1);
	EXPECT(fake.reads > 0);
	EXPECT_EQ_U64(v[0], before);
	upmc_close(set);
}

TEST(fake, counters_taken_by_another_user)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	fake.pmu[0].taken = 8;
	EXPECT_EQ(upmc_open(&set, "branches,branch-misses", NULL), -EBUSY);
	EXPECT_CONTAINS(upmc_last_error(), "another user holds them");
	EXPECT_CONTAINS(upmc_last_error(), "the set needs 2");
	EXPECT_EQ(fake_open_events(), 0);
	fake.pmu[0].taken = 0;
	ASSERT_MSG(upmc_open(&set, "branches,branch-misses", NULL) == 0, "%s", upmc_last_error());
	fake_take_counters(0, 7); /* the pinned group no longer fits */
	EXPECT_EQ(upmc_read(set, v), -EBUSY);
	EXPECT_EQ_U64(v[0], UPMC_NOT_COUNTED);
	upmc_close(set);
}

/* The same through read(2) alone: upmc_read() hands straight over to the
 * Linux layer, whose failed read leaves every value UPMC_NOT_COUNTED. */
TEST(fake, a_failed_read2_counts_nothing)
{
	struct upmc_options force = {sizeof(force), UPMC_OPT_FORCE_SYSCALL};
	struct upmc_set *set;
	uint64_t v[2] = {0, 0};

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "branches,branch-misses", &force) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_read(set, v), 2);
	EXPECT(v[0] != UPMC_NOT_COUNTED && v[1] != UPMC_NOT_COUNTED);
	fake_take_counters(0, 7);
	EXPECT_EQ(upmc_read(set, v), -EBUSY);
	EXPECT_CONTAINS(upmc_last_error(), "another user holds them");
	EXPECT_EQ_U64(v[0], UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(v[1], UPMC_NOT_COUNTED);
	upmc_close(set);
}
