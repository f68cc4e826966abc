/* SPDX-License-Identifier: MIT */
/*
 * A set mixing software and hardware events (instructions,task-clock,cycles)
 * on the fake kernel: one group, one read(2) for the whole set, and the
 * paths and the summary say so. (Reading the hardware counters in user
 * space beside a read(2) of the software event alone measured 15-19% more
 * instructions under QEMU: docs/read-protocol.md.) On a hybrid CPU the
 * software event has a group of its own, read(2) too.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(mixed_set, one_read_of_the_whole_set)
{
	struct upmc_set *set;
	uint64_t v[3];
	unsigned i;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "instructions,task-clock,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	for (i = 0; i < 3; i++)
		EXPECT_EQ(upmc_counter_path(set, i), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "for 'task-clock' in it");
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "software event");
	EXPECT_CONTAINS(upmc_summary(set), "3 counters: 3 by syscall");
	EXPECT(!strstr(upmc_summary(set), "rdpmc"));
	fake.syscall_ns = 0;
	fake_run(9000);
	fake.reads = 0;
	fake.counter_reads = 0;
	ASSERT(upmc_read(set, v) == 3);
	ASSERT(upmc_read_n(set, v, 1) == 1);
	EXPECT_EQ(fake.reads, 2);
	EXPECT_EQ(fake.counter_reads, 0);
	EXPECT_EQ_U64(v[0], fake_count(fake_find(PERF_TYPE_HARDWARE, 1)));
	ASSERT(upmc_read(set, v) == 3);
	EXPECT_EQ_U64(v[1], fake_count(fake_find(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK)));
	EXPECT_EQ_U64(v[2], fake_count(fake_find(PERF_TYPE_HARDWARE, 0)));
	upmc_close(set);
}

TEST(mixed_set, hardware_alone_stays_in_user_space)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "instructions,cycles", NULL) == 0, "%s", upmc_last_error());
	EXPECT_CONTAINS(upmc_summary(set), "2 counters, user-space rdpmc");
	fake.reads = 0;
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(fake.reads, 0);
	upmc_close(set);
}

TEST(mixed_set, read_times_are_the_groups)
{
	struct upmc_set *set;
	uint64_t en, run;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "task-clock,cycles", NULL) == 0, "%s", upmc_last_error());
	fake.syscall_ns = 0;
	fake_run(3000);
	fake_switch_out();
	fake_run(2000);
	fake_run_on(0);
	ASSERT(upmc_read_times(set, &en, &run) == 0);
	EXPECT_EQ_U64(run, fake_find(PERF_TYPE_HARDWARE, 0)->running_ns);
	EXPECT(en >= run + 2000);
	upmc_close(set);
}
