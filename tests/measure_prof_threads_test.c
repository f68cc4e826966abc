/* SPDX-License-Identifier: MIT */
/*
 * UPMC_PROF's state is per thread: a thread that exits without
 * UPMC_PROF_CLOSE has its call sites' sets and regions closed at its exit,
 * not left behind (a descriptor and about 2 MB each), on the real kernel.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>

#include <upmc/prof.h>

#include "tests/linux_util.h"
#include "tests/upmc_test.h"

#define THREADS 32

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static FILE *devnull;

/* Two call sites, a pass each, and no UPMC_PROF_CLOSE. */
static void *worker(void *arg)
{
	(void)arg;
	UPMC_PROF_BEGIN(outer, "task-clock");
	UPMC_PROF_BEGIN(inner, "task-clock,page-faults");
	UPMC_PROF_END(inner, devnull);
	UPMC_PROF_END(outer, devnull);
	return NULL;
}

/* A thread that closes one of its two call sites before it exits. */
static void *closing_worker(void *arg)
{
	(void)arg;
	UPMC_PROF_BEGIN(closed, "task-clock");
	UPMC_PROF_END(closed, devnull);
	UPMC_PROF_CLOSE(closed);
	UPMC_PROF_BEGIN(reopened, "task-clock");
	UPMC_PROF_END(reopened, devnull);
	return NULL;
}

/* Bytes malloc holds for the program (arenas and mmap'd blocks). */
static size_t allocated(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t;
	int k;

	for (k = 0; k < n; k++) {
		ASSERT(pthread_create(&t, NULL, fn, NULL) == 0);
		ASSERT(pthread_join(t, NULL) == 0);
	}
}

TEST(prof, a_thread_that_exits_leaves_nothing_open)
{
	struct upmc_set *set;
	size_t before;
	int fds, maps, counting;

	devnull = fopen("/dev/null", "w");
	ASSERT(devnull);
	/* a set of task-clock has a descriptor where the kernel lets it open */
	counting = upmc_open(&set, "task-clock", NULL) == 0;
	if (counting)
		upmc_close(set);
	run_threads(worker, 4); /* the thread-exit key and the allocator's arenas */
	fds = open_fd_count();
	maps = perf_mapping_count();
	before = allocated();
	run_threads(worker, THREADS);
	run_threads(closing_worker, THREADS);
	EXPECT_EQ(open_fd_count(), fds);
	EXPECT_EQ(perf_mapping_count(), maps);
#ifndef UNDER_ASAN /* ASan's allocator keeps its own books */
	/* a region alone is megabytes: 96 left open would be hundreds */
	EXPECT_MSG(allocated() - before < (1u << 20), "%zu bytes more after %d threads",
	           allocated() - before, 2 * THREADS);
#else
	(void)before;
#endif
	if (!counting)
		SKIP("task-clock cannot be opened here (%s): the memory was checked, not the "
		     "descriptors",
		     upmc_last_error());
	fclose(devnull);
}
