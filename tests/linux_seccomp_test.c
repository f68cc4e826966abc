/* SPDX-License-Identifier: MIT */
/* Time-only mode makes no system call after open (seccomp proves it). */
#define _GNU_SOURCE
#include <stdio.h>

#include <upmc/upmc.h>

#include "os/linux/probe.h"
#include "tests/seccomp_trap.h"
#include "tests/upmc_test.h"

#define READS 100000

TEST(seccomp, positive_control_is_trapped)
{
	EXPECT_EQ(syscalls_made_by(NULL, make_two_syscalls, NULL), 2);
}

static void time_reads(void *arg)
{
	struct upmc_set *set = arg;
	uint64_t sum = 0;
	int i;

	for (i = 0; i < READS; i++) {
		uint64_t t0 = upmc_timestamp_serialized();
		uint64_t t1 = upmc_timestamp();
		sum += upmc_ticks_to_ns(set, t1) - upmc_ticks_to_ns(set, t0);
	}
	__asm__ __volatile__("" ::"r"(sum));
}

TEST(seccomp, timestamps_make_no_syscall)
{
	struct upmc_set *set;

	ASSERT(upmc_open_timer(&set) == 0);
	EXPECT_EQ(syscalls_made_by(NULL, time_reads, set), 0);
	upmc_close(set);
}

static void set_reads(void *arg)
{
	struct upmc_set *set = arg;
	uint64_t v[2];
	int i;

	for (i = 0; i < READS; i++)
		upmc_read(set, v);
}

/* In the child, before the filter (a set of the parent's reads nothing
 * there); NULL unless its counters are all unavailable. */
static void *open_time_only(void *arg)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	(void)arg;
	if (upmc_open(&set, "cycles,instructions", &opts) < 0)
		return NULL;
	return upmc_counter_path(set, 0) == UPMC_PATH_UNAVAILABLE ? set : NULL;
}

TEST(seccomp, time_only_set_reads_make_no_syscall)
{
	struct upmc_linux_probe probe;

	upmc_linux_probe(&probe);
	if (probe.n_core)
		SKIP("this machine has a CPU PMU: a set of hardware events is not time-only here");
	EXPECT_EQ(syscalls_made_by(open_time_only, set_reads, NULL), 0);
	printf("seccomp: %d timestamp pairs and %d reads of a time-only set: 0 syscalls\n", READS,
	       READS);
}
