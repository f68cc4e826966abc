/* SPDX-License-Identifier: MIT */
/*
 * Opening a set reads the machine's facts (its CPU, core PMUs, hypervisor)
 * once, and no setting no sentence asks for: after a process's first set,
 * a set of software events opens without opening a file or listing a
 * directory. A seccomp filter counts the calls, in a child process.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/syscall.h>

#include <upmc/upmc.h>

#include "tests/seccomp_trap.h"
#include "tests/upmc_test.h"

/* What opens a file. */
static const int file_calls[] = {
        SYS_openat,
#ifdef SYS_open
        SYS_open,
#endif
};
#define N_FILE_CALLS (sizeof(file_calls) / sizeof(file_calls[0]))

/* What lists a directory: counted apart, the files opening as usual, so
 * that each listing shows (its first read fails, and ends it). */
static const int listing_call[] = {SYS_getdents64};

struct open_case {
	const char *spec;
	unsigned flags;
};

static void open_close(void *arg)
{
	const struct open_case *c = arg;
	struct upmc_options opts = {sizeof(opts), c->flags};
	struct upmc_set *set;

	if (upmc_open(&set, c->spec, &opts) == 0)
		upmc_close(set);
}

/* The process's first set, before the filter: the facts are read here. */
static void *first_open(void *arg)
{
	open_close(arg);
	return arg;
}

/* Files opened (openat, open) and directories listed by a second open of c. */
static void count_second_open(struct open_case *c, long *files, long *listings)
{
	long counts[N_FILE_CALLS];
	unsigned i;

	*files = *listings = -1;
	if (syscalls_counted(file_calls, N_FILE_CALLS, counts, first_open, open_close, c) < 0 ||
	    syscalls_counted(listing_call, 1, listings, first_open, open_close, c) < 0)
		return;
	for (*files = 0, i = 0; i < N_FILE_CALLS; i++)
		*files += counts[i];
	printf("'%s': %ld files opened, %ld directories listed\n", c->spec, *files, *listings);
}

static int opens(const char *spec)
{
	struct upmc_set *set;

	if (upmc_open(&set, spec, NULL) < 0)
		return 0;
	upmc_close(set);
	return 1;
}

TEST(open_files, positive_control_counts_a_file)
{
	long counts[N_FILE_CALLS];
	struct open_case c = {"task-clock", 0};

	/* The first open of the process, under the filter: it reads the
	 * facts (and finds no file, each open refused). */
	ASSERT(syscalls_counted(file_calls, N_FILE_CALLS, counts, NULL, open_close, &c) == 0);
	EXPECT_MSG(counts[0] > 0, "openat %ld", counts[0]);
}

TEST(open_files, software_set_opens_no_file)
{
	struct open_case one = {"task-clock", 0}, two = {"task-clock,page-faults", 0};
	long files, listings;

	if (!opens("task-clock,page-faults"))
		SKIP("perf_event_open refuses software events here: %s", upmc_last_error());
	count_second_open(&one, &files, &listings);
	EXPECT_EQ(files, 0);
	EXPECT_EQ(listings, 0);
	count_second_open(&two, &files, &listings);
	EXPECT_EQ(files, 0);
	EXPECT_EQ(listings, 0);
}

/* A metric asks which kind of CPU this is: the facts, known by then. */
TEST(open_files, metric_set_lists_no_directory)
{
	struct open_case ghz = {"GHz", UPMC_OPT_TIME_ONLY};
	long files, listings;

	if (!opens("task-clock"))
		SKIP("perf_event_open refuses software events here: %s", upmc_last_error());
	count_second_open(&ghz, &files, &listings);
	EXPECT_EQ(listings, 0);
}
