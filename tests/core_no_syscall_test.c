/* SPDX-License-Identifier: MIT */
/* Reads over (simulated) kernel pages make no system call (seccomp proves it). */
#define _GNU_SOURCE
#include <stdio.h>

#include "tests/seccomp_trap.h"
#include "tests/sim/sim_kernel.h"
#include "tests/upmc_test.h"

#define READS 100000

TEST(sim_seccomp, positive_control_is_trapped)
{
	EXPECT_EQ(syscalls_made_by(NULL, make_two_syscalls, NULL), 2);
}

static void reads(void *arg)
{
	struct upmc_set *set = arg;
	uint64_t v[4], one;
	int i;

	for (i = 0; i < READS; i++) {
		sim_tick(i % 4, 3);
		upmc_read(set, v);
		upmc_read_counter(set, 2, &one);
	}
}

/* In the child, before the filter: a set of the parent's would read
 * nothing there (-ECHILD). NULL unless every counter reads in user space. */
static void *open_four(void *arg)
{
	struct upmc_set *set = NULL;

	(void)arg;
	sim_reset(48);
	if (upmc_open(&set, "cycles,instructions,branches,branch-misses", NULL) < 0)
		return NULL;
	return set->user_n ? set : NULL;
}

TEST(sim_seccomp, user_reads_make_no_syscall)
{
	EXPECT_EQ(syscalls_made_by(open_four, reads, NULL), 0);
	printf("sim_seccomp: %d set reads and %d single reads: 0 syscalls\n", READS, READS);
}

static void slow_read(void *arg)
{
	struct upmc_set *set = arg;
	uint64_t v[4];

	sim_stop(1); /* index 0: this read must enter the kernel */
	upmc_read(set, v);
}

TEST(sim_seccomp, index_zero_enters_the_kernel)
{
	EXPECT_EQ(syscalls_made_by(open_four, slow_read, NULL), 1);
}
