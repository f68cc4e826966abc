/* SPDX-License-Identifier: MIT */
/*
 * A PMU that is not the CPU's, on the real kernel: x86's msr PMU (the TSC,
 * APERF, MPERF as perf events) refuses every exclude bit, and opens as
 * upmc asks for it. Skips where the kernel has no msr PMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tests/linux_util.h"
#include "tests/upmc_test.h"
#include <upmc/upmc.h>

#define MSR_TSC "/sys/bus/event_source/devices/msr/events/tsc"

TEST(msr, tsc_counts_through_a_set)
{
	struct upmc_set *set;
	uint64_t a[2], b[2];
	int fds = open_fd_count(), err;

	if (access(MSR_TSC, R_OK) != 0)
		SKIP("this kernel has no msr PMU (" MSR_TSC " is absent)");
	err = upmc_open(&set, "msr/tsc/,task-clock", NULL);
	if (err == -EACCES) {
		/* a PMU that filters no level counts the kernel too */
		EXPECT_CONTAINS(upmc_last_error(), "needs perf_event_paranoid <= 1");
		EXPECT_EQ(open_fd_count(), fds);
		SKIP("perf_event_paranoid forbids this process to count kernel mode: %s",
		     upmc_last_error());
	}
	ASSERT_MSG(err == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "the PMU 'msr' is not the CPU's");
	ASSERT(upmc_read(set, a) == 2);
	ASSERT(upmc_read(set, b) == 2);
	/* the TSC ticks on: the second read is later */
	EXPECT(a[0] != UPMC_NOT_COUNTED && b[0] > a[0]);
	upmc_close(set);
	EXPECT_EQ(open_fd_count(), fds);
}

TEST(msr, a_privilege_filter_is_refused_with_a_sentence)
{
	struct upmc_set *set = NULL;
	int fds = open_fd_count();

	if (access(MSR_TSC, R_OK) != 0)
		SKIP("this kernel has no msr PMU (" MSR_TSC " is absent)");
	EXPECT_EQ(upmc_open(&set, "msr/tsc/u", NULL), -EINVAL);
	EXPECT(set == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "the PMU 'msr' counts every privilege level at once");
	EXPECT_EQ(open_fd_count(), fds);
}
