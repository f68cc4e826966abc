/* SPDX-License-Identifier: MIT */
/*
 * fork() on the real kernel: in the child, a set the parent opened counts
 * the parent. Every read of it fails with -ECHILD and a sentence, closing it
 * closes the child's copies of its descriptors and none the child reused
 * (PERF_EVENT_IOC_ID tells), and sets opened in the
 * child, timer sets and UPMC_PROF sites work there. (Pages the child does
 * not get are the simulated kernel's part: core_fork_pages_test, and the arm64
 * harness on a real PMU.)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <upmc/prof.h>
#include <upmc/upmc.h>

#include "tests/linux_util.h"
#include "tests/upmc_test.h"

static const char *every_read_fails(void *arg)
{
	struct upmc_set *set = arg, *own;
	uint64_t v[2] = {1, 1}, one = 1, en, run;

	CHILD_CHECK(upmc_read(set, v) == -ECHILD);
	CHILD_CHECK(v[0] == UPMC_NOT_COUNTED && v[1] == UPMC_NOT_COUNTED);
	CHILD_CHECK(strstr(upmc_last_error(), "upmc_read: the set was opened before fork()"));
	CHILD_CHECK(strstr(upmc_last_error(), "open a new set in the child"));
	CHILD_CHECK(upmc_read_n(set, v, 2) == -ECHILD);
	CHILD_CHECK(upmc_read_counter(set, 1, &one) == -ECHILD && one == UPMC_NOT_COUNTED);
	CHILD_CHECK(upmc_read_times(set, &en, &run) == -ECHILD);
	/* a set of the child's own counts the child */
	CHILD_CHECK(upmc_open(&own, "task-clock,page-faults", NULL) == 0);
	CHILD_CHECK(upmc_read(own, v) == 2 && v[0] > 0 && v[0] != UPMC_NOT_COUNTED);
	upmc_close(own);
	upmc_close(set);
	return NULL;
}

TEST(fork, a_parent_set_reads_nothing_in_the_child)
{
	struct upmc_set *set;
	uint64_t v[2];
	char why[256];

	ASSERT_MSG(upmc_open(&set, "task-clock,page-faults", NULL) == 0, "%s", upmc_last_error());
	run_in_child(every_read_fails, set, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	EXPECT_EQ(upmc_read(set, v), 2); /* the parent's set is untouched */
	EXPECT(v[0] > 0 && v[0] != UPMC_NOT_COUNTED);
	upmc_close(set);
}

/* The descriptors perf_event_open() made, by number (fd_of[fd] set). */
static int perf_fds(char *fd_of, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	memset(fd_of, 0, (size_t)max);
	while (d && (e = readdir(d))) {
		char target[64];
		int fd = atoi(e->d_name);
		ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (len <= 0 || fd >= max)
			continue;
		target[len] = '\0';
		if (strstr(target, "perf_event"))
			fd_of[fd] = 1, n++;
	}
	if (d)
		closedir(d);
	return n;
}

#define MAX_FD 1024

struct reuse {
	struct upmc_set *set;
	char before[MAX_FD], after[MAX_FD]; /* perf fds before and after the open */
};

/* The child reuses the numbers of the set's descriptors (/dev/null there),
 * then closes the parent's set: they must stay open, and /dev/null. */
static const char *close_touches_nothing(void *arg)
{
	struct reuse *r = arg;
	struct stat null, st;
	int fd, devnull = open("/dev/null", O_RDONLY);

	CHILD_CHECK(devnull >= 0 && fstat(devnull, &null) == 0);
	for (fd = 0; fd < MAX_FD; fd++)
		if (r->after[fd] && !r->before[fd])
			CHILD_CHECK(dup2(devnull, fd) == fd);
	upmc_close(r->set);
	for (fd = 0; fd < MAX_FD; fd++)
		if (r->after[fd] && !r->before[fd]) {
			CHILD_CHECK(fcntl(fd, F_GETFD) >= 0);
			CHILD_CHECK(fstat(fd, &st) == 0 && st.st_rdev == null.st_rdev);
		}
	return NULL;
}

TEST(fork, closing_in_the_child_closes_nothing_of_the_childs)
{
	static struct reuse r;
	char why[256];

	perf_fds(r.before, MAX_FD);
	ASSERT_MSG(upmc_open(&r.set, "task-clock,page-faults,minor-faults", NULL) == 0, "%s",
	           upmc_last_error());
	ASSERT(perf_fds(r.after, MAX_FD) >= 3);
	run_in_child(close_touches_nothing, &r, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	upmc_close(r.set);
	EXPECT_EQ(perf_fds(r.after, MAX_FD), perf_fds(r.before, MAX_FD));
}

/* The child closes the parent's set without touching its descriptors:
 * the copies it inherited are the same events, and close with it. One
 * number the child closed and gave to a perf event of its own stays. */
static const char *close_closes_the_inherited_copies(void *arg)
{
	struct reuse *r = arg;
	char now[MAX_FD];
	struct upmc_set *own;
	int fd, mine = -1;

	for (fd = 0; fd < MAX_FD && mine < 0; fd++)
		if (r->after[fd] && !r->before[fd])
			mine = fd;
	CHILD_CHECK(mine >= 0 && close(mine) == 0);
	CHILD_CHECK(upmc_open(&own, "task-clock", NULL) == 0); /* takes the lowest free number */
	perf_fds(now, MAX_FD);
	CHILD_CHECK(now[mine]);
	upmc_close(r->set);
	perf_fds(now, MAX_FD);
	for (fd = 0; fd < MAX_FD; fd++)
		if (r->after[fd] && !r->before[fd] && fd != mine)
			CHILD_CHECK(!now[fd]);
	CHILD_CHECK(now[mine] && fcntl(mine, F_GETFD) >= 0);
	upmc_close(own);
	return NULL;
}

TEST(fork, closing_in_the_child_closes_its_copies)
{
	static struct reuse r;
	char why[256];

	perf_fds(r.before, MAX_FD);
	ASSERT_MSG(upmc_open(&r.set, "task-clock,page-faults,minor-faults,major-faults", NULL) == 0,
	           "%s", upmc_last_error());
	ASSERT(perf_fds(r.after, MAX_FD) >= 4);
	run_in_child(close_closes_the_inherited_copies, &r, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	upmc_close(r.set);
	EXPECT_EQ(perf_fds(r.after, MAX_FD), perf_fds(r.before, MAX_FD));
}

static const char *timer_and_region_in_child(void *arg)
{
	struct upmc_set *timer = arg, *counting;
	struct upmc_region *r;
	uint64_t t0 = upmc_timestamp(), t1, none[1];
	int k;

	/* A timer set has nothing of the parent's: it works on. */
	t1 = upmc_timestamp_serialized();
	CHILD_CHECK(upmc_ticks_to_ns(timer, t1) >= upmc_ticks_to_ns(timer, t0));
	CHILD_CHECK(upmc_read(timer, none) == 0);
	upmc_close(timer);
	/* A region over a new set counts; over nothing of the parent's. */
	CHILD_CHECK(upmc_open(&counting, "task-clock", NULL) == 0);
	CHILD_CHECK(upmc_region_open(&r, counting, "child") == 0);
	for (k = 0; k < 10; k++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	CHILD_CHECK(upmc_region_dropped(r) == 0);
	upmc_region_close(r);
	upmc_close(counting);
	return NULL;
}

TEST(fork, timer_sets_work_on_in_the_child)
{
	struct upmc_set *timer;
	char why[256];

	ASSERT(upmc_open_timer(&timer) == 0);
	run_in_child(timer_and_region_in_child, timer, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	upmc_close(timer);
}

/* A region over the parent's set: every region is dropped, none crashes. */
static const char *parent_region_drops(void *arg)
{
	struct upmc_region *r = arg;
	uint64_t before = upmc_region_dropped(r);
	struct upmc_stat st;
	int k;

	for (k = 0; k < 5; k++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	CHILD_CHECK(upmc_region_dropped(r) == before + 5);
	CHILD_CHECK(upmc_region_stat(r, 0, 0, &st) == 0 && st.count == 0);
	return NULL;
}

TEST(fork, a_parent_region_drops_in_the_child)
{
	struct upmc_set *set;
	struct upmc_region *r;
	char why[256];

	ASSERT(upmc_open(&set, "task-clock", NULL) == 0);
	ASSERT(upmc_region_open(&r, set, "parent") == 0);
	upmc_region_reset(r);
	run_in_child(parent_region_drops, r, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	upmc_region_close(r);
	upmc_close(set);
}

/* A pre-forked worker's UPMC_PROF site opens a set of its own. */
static char prof_out[1024];

static void prof_pass(void)
{
	FILE *out = fmemopen(prof_out, sizeof(prof_out), "w");

	UPMC_PROF_BEGIN(worker, "page-faults");
	UPMC_PROF_END(worker, out);
	fclose(out);
}

static const char *prof_in_child(void *arg)
{
	(void)arg;
	prof_pass();
	CHILD_CHECK(strstr(prof_out, "upmc worker: ") && strstr(prof_out, ", page-faults "));
	CHILD_CHECK(!strstr(prof_out, "dropped") && !strstr(prof_out, "n/a"));
	return NULL;
}

TEST(fork, a_prof_site_reopens_in_a_forked_worker)
{
	char why[256];

	prof_pass(); /* opened in the parent */
	EXPECT_CONTAINS(prof_out, ", page-faults ");
	run_in_child(prof_in_child, NULL, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
}
