/* SPDX-License-Identifier: MIT */
/*
 * fork() with pages read in user space, against the simulated kernel. The
 * real kernel does not copy perf pages into the child (VM_DONTCOPY), so a
 * read there must not touch them: every read of the parent's set goes out
 * of line and fails with -ECHILD, without one counter read. The parent's
 * set is as it was (its inline reader, its pages).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "tests/sim/sim_kernel.h"

#include "tests/linux_util.h"
#include "tests/upmc_test.h"

static const char *no_page_is_touched(void *arg)
{
	struct upmc_set *set = arg;
	uint64_t v[2] = {1, 1}, one = 1, en, run;
	unsigned reads = sim.counter_reads;
	struct upmc_region *r;

	CHILD_CHECK(upmc_read(set, v) == -ECHILD);
	CHILD_CHECK(v[0] == UPMC_NOT_COUNTED && v[1] == UPMC_NOT_COUNTED);
	CHILD_CHECK(upmc_read_n(set, v, 2) == -ECHILD);
	CHILD_CHECK(upmc_read_counter(set, 1, &one) == -ECHILD && one == UPMC_NOT_COUNTED);
	CHILD_CHECK(upmc_read_times(set, &en, &run) == -ECHILD);
	CHILD_CHECK(strstr(upmc_last_error(), "open a new set in the child"));
	/* a region over the parent's set cannot be opened in the child: its
	 * calibration reads nothing */
	CHILD_CHECK(upmc_region_open(&r, set, "child") == -ENODATA && r == NULL);
	CHILD_CHECK(strstr(upmc_last_error(), "empty regions were dropped"));
	CHILD_CHECK(strstr(upmc_last_error(), "open a new set in the child"));
	CHILD_CHECK(sim.counter_reads == reads);
	CHILD_CHECK(sim.slow_reads == 0);
	upmc_close(set);
	return NULL;
}

TEST(sim_fork, user_pages_are_not_read_in_the_child)
{
	struct upmc_set *set = NULL;
	int (*reader)(struct upmc_set *, uint64_t *);
	const volatile struct upmc_perf_page *page0;
	uint64_t v[2];
	char why[256];

	sim_reset(48);
	ASSERT(upmc_open(&set, "cycles,instructions", NULL) == 0);
	ASSERT(set->user_n == 2);
	reader = set->read;
	page0 = set->page[0];
	run_in_child(no_page_is_touched, set, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	/* the parent pays nothing: same reader, same pages, reads inline */
	EXPECT(set->read == reader && set->page[0] == page0 && set->user_n == 2);
	sim_tick(0, 5);
	EXPECT_EQ(upmc_read(set, v), 2);
	EXPECT_EQ_U64(v[0], 5);
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
}
