/* SPDX-License-Identifier: MIT */
/*
 * A set read from another thread than the one that opened it: rdpmc there
 * reads whatever that CPU counts (x86), mrs traps (arm64). Every read that
 * goes out of line fails with -EPERM and a sentence; built with UPMC_DEBUG,
 * the inline reads check too, before they touch a page. Against the
 * simulated kernel, whose user-space reads are counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>

#define UPMC_DEBUG
#include "tests/sim/sim_kernel.h"

#include "tests/upmc_test.h"

static const char *checks(struct upmc_set *set)
{
	uint64_t v[2] = {1, 1}, one = 1, en, run;
	unsigned reads = sim.counter_reads;

	if (upmc_read(set, v) != -EPERM || v[0] != UPMC_NOT_COUNTED)
		return "upmc_read";
	if (!strstr(upmc_last_error(), "the set was opened by another thread"))
		return "the sentence";
	if (upmc_read_n(set, v, 2) != -EPERM || upmc_read_counter(set, 0, &one) != -EPERM ||
	    upmc_read_times(set, &en, &run) != -EPERM)
		return "upmc_read_n, upmc_read_counter or upmc_read_times";
	v[0] = v[1] = 1;
	if (upmc_snapshot(set, v) != -EPERM || v[0] != UPMC_NOT_COUNTED || v[1] != UPMC_NOT_COUNTED)
		return "upmc_snapshot";
	/* the library's own reader has no UPMC_DEBUG: off the PMU, it goes
	 * out of line, and fails there */
	sim_stop(0);
	if (set->read(set, v) != -EPERM)
		return "the library's reader, out of line";
	sim_start(0, 4);
	return sim.counter_reads == reads ? NULL : "a page was read";
}

static void *other_thread(void *arg)
{
	return (void *)checks(arg);
}

TEST(sim_thread, reads_from_another_thread_fail)
{
	struct upmc_set *set = NULL;
	uint64_t v[2];
	pthread_t t;
	void *failed;

	sim_reset(48);
	ASSERT(upmc_open(&set, "cycles,instructions", NULL) == 0);
	ASSERT(set->user_n == 2);
	ASSERT(pthread_create(&t, NULL, other_thread, set) == 0);
	ASSERT(pthread_join(t, &failed) == 0);
	EXPECT_MSG(!failed, "in the other thread: %s", (const char *)failed);
	/* the owner reads on, inline */
	sim_tick(0, 9);
	EXPECT_EQ(upmc_read_n(set, v, 2), 2);
	EXPECT_EQ_U64(v[0], 9);
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
}

/* A thread that opens a set and exits; the set outlives it. */
static void *open_and_exit(void *arg)
{
	struct upmc_set **set = arg;

	return upmc_open(set, "cycles,instructions", NULL) == 0 ? NULL : (void *)"upmc_open";
}

static void *token_of_thread(void *arg)
{
	*(uint64_t *)arg = upmc_thread();
	return NULL;
}

/* glibc gives a new thread the stack and static TLS of one that exited: the
 * owner check must not take the new thread for the old one. */
TEST(sim_thread, a_thread_started_after_the_owner_exited_is_another)
{
	struct upmc_set *set = NULL;
	uint64_t token = 0;
	pthread_t t;
	void *failed;

	sim_reset(48);
	ASSERT(pthread_create(&t, NULL, open_and_exit, &set) == 0);
	ASSERT(pthread_join(t, &failed) == 0);
	ASSERT_MSG(!failed && set, "%s", upmc_last_error());
	ASSERT(pthread_create(&t, NULL, token_of_thread, &token) == 0);
	ASSERT(pthread_join(t, NULL) == 0);
	EXPECT(token != 0 && token != set->thread && token != upmc_thread());
	ASSERT(pthread_create(&t, NULL, other_thread, set) == 0);
	ASSERT(pthread_join(t, &failed) == 0);
	EXPECT_MSG(!failed, "in the later thread: %s", (const char *)failed);
	upmc_close(set);
}
