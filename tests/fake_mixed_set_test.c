/* SPDX-License-Identifier: MIT */
/*
 * A set mixing software and hardware events (instructions,task-clock,cycles)
 * on the fake kernel: the software event is its own group, read by read(2);
 * the hardware counters are read in user space, and their paths and the
 * summary say so. A software-only read(2) leaves the hardware events out.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(mixed_set, hardware_in_user_space_software_by_syscall)
{
	struct upmc_set *set;
	uint64_t v[3];
	unsigned before;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "instructions,task-clock,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_USER);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	EXPECT_EQ(upmc_counter_path(set, 2), UPMC_PATH_USER);
	EXPECT_CONTAINS(upmc_summary(set), "2 user-space rdpmc, 1 by syscall");
	EXPECT_CONTAINS(upmc_summary(set), "software event");
	fake.syscall_ns = 0;
	fake_run(9000);
	before = fake.counter_reads;
	fake.reads = 0;
	ASSERT(upmc_read(set, v) == 3);
	EXPECT_EQ(fake.reads, 1);                 /* the software group only */
	EXPECT(fake.counter_reads - before >= 2); /* the hardware counters */
	EXPECT_EQ_U64(v[0], fake_count(fake_find(PERF_TYPE_HARDWARE, 1)));
	EXPECT_EQ_U64(v[1], fake_count(fake_find(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK)));
	EXPECT_EQ_U64(v[2], fake_count(fake_find(PERF_TYPE_HARDWARE, 0)));
	/* the inline reader of the first counter needs no syscall */
	fake.reads = 0;
	ASSERT(upmc_read_n(set, v, 1) == 1);
	EXPECT_EQ(fake.reads, 0);
	upmc_close(set);
}

TEST(mixed_set, read_times_are_the_hardware_groups)
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

/* Where every read is a read(2), one read(2) reads the whole set. */
TEST(mixed_set, one_syscall_when_all_are_syscalls)
{
	struct upmc_options force = {sizeof(force), UPMC_OPT_FORCE_SYSCALL};
	struct upmc_set *set;
	uint64_t v[3];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "instructions,task-clock,cycles", &force) == 0, "%s",
	           upmc_last_error());
	fake.reads = 0;
	ASSERT(upmc_read(set, v) == 3);
	EXPECT_EQ(fake.reads, 1);
	EXPECT_EQ(fake.counter_reads, 0);
	upmc_close(set);

	fake_boot("x86-rdpmc-off");
	ASSERT_MSG(upmc_open(&set, "instructions,task-clock,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	fake.reads = 0;
	ASSERT(upmc_read(set, v) == 3);
	EXPECT_EQ(fake.reads, 1);
	upmc_close(set);
}
