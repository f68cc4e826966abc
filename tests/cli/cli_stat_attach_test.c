/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat -p` and `-t`: counting processes and threads that already
 * run, as perf stat does: every thread of a process, the threads it starts
 * later too; one thread alone; one block per thread; until they end, a
 * command ends, or Ctrl-C.
 *
 * The workload (tests/cli/stat_workload) touches known numbers of pages
 * (one page fault each) once it gets SIGUSR1; upmc's first interval (-I)
 * says that its counters run, and only then is the workload released.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

#define WORKLOAD "tests/cli/stat_workload"
#define PAGES    400

struct workload {
	pid_t pid;
	int tid[4]; /* its threads, with -w early */
	unsigned n_tid;
};

/* Starts the workload with args; it prints "ready PID TID..." once it
 * waits for SIGUSR1. 0, or -1. */
static int start_workload(struct workload *w, const char *const *args)
{
	char line[256], *p, *end;
	const char *argv[16] = {WORKLOAD};
	unsigned n = 1;
	int fds[2];
	FILE *f;

	memset(w, 0, sizeof(*w));
	while (args[n - 1] && n < 15) {
		argv[n] = args[n - 1];
		n++;
	}
	if (pipe(fds) < 0 || (w->pid = fork()) < 0)
		return -1;
	if (w->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(WORKLOAD, (char **)argv);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f || !fgets(line, sizeof(line), f) || strncmp(line, "ready ", 6)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	strtol(line + 6, &p, 10);
	while (w->n_tid < 4 && (w->tid[w->n_tid] = (int)strtol(p, &end, 10)) > 0 && end != p) {
		w->n_tid++;
		p = end;
	}
	return 0;
}

static void end_workload(struct workload *w)
{
	kill(w->pid, SIGUSR1);
	waitpid(w->pid, NULL, 0);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Waits until `file` holds a whole line (upmc's first interval) or upmc
 * ended; 0 when the line came. */
static int wait_for_line(const struct cli_job *job, const char *file)
{
	int i;

	for (i = 0; i < CLI_RUN_TIMEOUT_S * 100; i++) {
		char *text = cli_read_file(file);
		int got = text && strchr(text, '\n');
		free(text);
		if (got)
			return 0;
		if (waitpid(job->pid, NULL, WNOHANG) != 0)
			return -1;
		sleep_ms(10);
	}
	return -1;
}

static const struct cli_how plain = {NULL, CLI_OUT_CAPTURED, 0, 0};

/* Runs upmc with args while the workload waits; releases it at upmc's
 * first line; returns upmc's result once upmc ended. */
static void count_workload(struct cli_result *r, struct workload *w, const char *const *args)
{
	struct cli_job job;

	memset(r, 0, sizeof(*r));
	ASSERT(cli_start(&job, &plain, args) == 0);
	EXPECT_MSG(wait_for_line(&job, job.err_name) == 0, "upmc printed no interval");
	kill(w->pid, SIGUSR1);
	cli_finish(&job, r);
	waitpid(w->pid, NULL, 0);
}

/* The sum over -I's CSV rows of `event` whose first fields are `lead`
 * ("" for every row, or a thread's "comm-tid"). */
static long sum_rows(const char *text, const char *lead, const char *event)
{
	char needle[128], line[1024];
	const char *p, *end;
	long sum = 0;

	snprintf(needle, sizeof(needle), ",,%s,", event);
	for (p = text; p && *p; p = end ? end + 1 : NULL) {
		const char *value;
		end = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
		if (!strstr(line, needle) || (lead[0] && !strstr(line, lead)))
			continue;
		value = strchr(line, ',') + 1; /* after the timestamp */
		if (lead[0])
			value = strchr(value, ',') + 1; /* after the thread */
		sum += atol(value);
	}
	return sum;
}

/* -p: every thread of the process, and the threads it starts once counted
 * (inherit): 400 pages in the main thread, 400, 800 and 1200 in three
 * threads started after upmc attached, 2800 in all; without those threads
 * 400. The rest, under 1000, is the threads' own start and stacks. upmc
 * ends when the process does. */
TEST(cli_stat_attach, process_and_the_threads_it_starts)
{
	const char *const w_args[] = {"-w", "late", "-t", "3", "400", NULL};
	struct workload w;
	struct cli_result r;
	char pid[32];
	long faults;

	ASSERT(start_workload(&w, w_args) == 0);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	{
		const char *const args[] = {"stat", "-p", pid,  "-I",          "20",
		                            "-x",   ",",  "-e", "page-faults", NULL};
		count_workload(&r, &w, args);
	}
	EXPECT_EQ(r.status, 0);
	faults = sum_rows(r.err, "", "page-faults");
	EXPECT_MSG(faults >= 7 * PAGES && faults < 7 * PAGES + 1000 + SANITIZER_FAULTS,
	           "%ld page faults:\n%s", faults, r.err);
	cli_result_free(&r);
}

/* --per-thread: a block per thread (perf stat's comm-tid names it); the
 * threads ran before upmc attached, thread 0 touches 400 pages, thread 1
 * 800. -t: that thread alone. */
TEST(cli_stat_attach, per_thread_and_one_thread)
{
	const char *const w_args[] = {"-w", "early", "-t", "2", "400", NULL};
	struct workload w;
	struct cli_result r;
	char pid[32], tid[32], lead[64];
	long faults;

	ASSERT(start_workload(&w, w_args) == 0);
	ASSERT(w.n_tid == 2);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	{
		const char *const args[] = {"stat", "-p", pid,  "--per-thread", "-I", "20",
		                            "-x",   ",",  "-e", "page-faults",  NULL};
		count_workload(&r, &w, args);
	}
	EXPECT_EQ(r.status, 0);
	snprintf(lead, sizeof(lead), "stat_workload-%d,", w.tid[0]);
	faults = sum_rows(r.err, lead, "page-faults");
	EXPECT_MSG(faults >= PAGES && faults < 2 * PAGES, "%s: %ld:\n%s", lead, faults, r.err);
	snprintf(lead, sizeof(lead), "stat_workload-%d,", w.tid[1]);
	faults = sum_rows(r.err, lead, "page-faults");
	EXPECT_MSG(faults >= 2 * PAGES && faults < 3 * PAGES, "%s: %ld:\n%s", lead, faults, r.err);
	snprintf(lead, sizeof(lead), "stat_workload-%d,", (int)w.pid);
	EXPECT_MSG(sum_rows(r.err, lead, "page-faults") >= PAGES, "no main thread:\n%s", r.err);
	cli_result_free(&r);

	ASSERT(start_workload(&w, w_args) == 0);
	snprintf(tid, sizeof(tid), "%d", w.tid[1]);
	{
		const char *const args[] = {"stat", "-t", tid,  "-I",          "20",
		                            "-x",   ",",  "-e", "page-faults", NULL};
		count_workload(&r, &w, args);
	}
	EXPECT_EQ(r.status, 0);
	faults = sum_rows(r.err, "", "page-faults");
	/* 800 of its own; the process as a whole touched 1600 */
	EXPECT_MSG(faults >= 2 * PAGES && faults < 3 * PAGES, "%ld:\n%s", faults, r.err);
	cli_result_free(&r);
}

/* The perf events upmc has open (its counters are, once they are). */
static unsigned perf_fds(pid_t pid)
{
	char dir[64], path[320], target[64];
	struct dirent *d;
	unsigned n = 0;
	DIR *fds;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	fds = opendir(dir);
	while (fds && (d = readdir(fds))) {
		ssize_t len;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = '\0';
			n += !strcmp(target, "anon_inode:[perf_event]");
		}
	}
	if (fds)
		closedir(fds);
	return n;
}

/* Ctrl-C ends counting a running process: the report, then exit status 0,
 * and the process runs on. (upmc takes SIGINT before it opens counters.) */
TEST(cli_stat_attach, ctrl_c_ends_counting)
{
	const char *const w_args[] = {"-w", "early", "0", NULL};
	struct workload w;
	struct cli_job job;
	struct cli_result r;
	const struct jdoc *ids;
	struct jdoc *doc;
	char pid[32], err[128];
	int i;

	ASSERT(start_workload(&w, w_args) == 0);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	{
		const char *const args[] = {
		        "stat", "--json", "-p", pid, "-e", "task-clock,page-faults", NULL};
		ASSERT(cli_start(&job, &plain, args) == 0);
	}
	for (i = 0; i < CLI_RUN_TIMEOUT_S * 100 && perf_fds(job.pid) < 2; i++)
		sleep_ms(10);
	kill(job.pid, SIGINT);
	cli_finish(&job, &r);
	EXPECT_EQ(r.signal, 0);
	EXPECT_EQ(r.status, 0);
	EXPECT_MSG(kill(w.pid, 0) == 0, "the process did not run on");
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON (%s): %s", err, r.err);
	EXPECT(!strcmp(jdoc_string(doc, "target"), "processes"));
	ids = jdoc_get(doc, "ids");
	ASSERT(ids && ids->n == 1);
	EXPECT(jdoc_at(ids, 0)->number == w.pid);
	EXPECT(jdoc_is_null(doc, "exit_status"));
	EXPECT(jdoc_get(doc, "counters")->n == 2);
	jdoc_free(doc);
	cli_result_free(&r);
	end_workload(&w);
}

/* With a command, -p counts the process while the command runs, and upmc
 * exits with the command's status. */
TEST(cli_stat_attach, a_command_sets_how_long)
{
	const char *const w_args[] = {"-w", "early", "0", NULL};
	struct workload w;
	struct cli_result r;
	char pid[32], title[128];

	ASSERT(start_workload(&w, w_args) == 0);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	CLI_RUN(r, NULL, "stat", "-p", pid, "-e", "task-clock", "--", "sh", "-c", "exit 3");
	EXPECT_EQ(r.status, 3);
	snprintf(title, sizeof(title), " Performance counter stats for process id '%s':", pid);
	EXPECT_CONTAINS(r.err, title);
	EXPECT_CONTAINS(r.err, " task-clock ");
	EXPECT(!strstr(r.err, "seconds user")); /* the command's times are not the process's */
	EXPECT_MSG(kill(w.pid, 0) == 0, "the process did not run on");
	cli_result_free(&r);
	end_workload(&w);
}

TEST(cli_stat_attach, no_such_process)
{
	struct cli_result r;
	char pid[32];
	pid_t gone = fork();

	ASSERT(gone >= 0);
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	snprintf(pid, sizeof(pid), "%d", (int)gone);
	CLI_RUN(r, NULL, "stat", "-p", pid);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc stat: -p ");
	EXPECT_CONTAINS(r.err, ": no such process\n");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "-t", pid);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, ": no such thread\n");
	cli_result_free(&r);
}

/* SIGTERM ends counting too: the report, then upmc dies of it (it was
 * told to end, not to stop counting). */
TEST(cli_stat_attach, sigterm_ends_counting_and_upmc)
{
	const char *const w_args[] = {"-w", "early", "0", NULL};
	struct workload w;
	struct cli_job job;
	struct cli_result r;
	char pid[32];
	int i;

	ASSERT(start_workload(&w, w_args) == 0);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	{
		const char *const args[] = {"stat", "-p", pid, "-e", "task-clock", NULL};
		ASSERT(cli_start(&job, &plain, args) == 0);
	}
	for (i = 0; i < CLI_RUN_TIMEOUT_S * 100 && perf_fds(job.pid) < 1; i++)
		sleep_ms(10);
	kill(job.pid, SIGTERM);
	cli_finish(&job, &r);
	EXPECT_EQ(r.signal, SIGTERM);
	EXPECT_CONTAINS(r.err, " Performance counter stats for process id '");
	EXPECT_CONTAINS(r.err, " task-clock ");
	cli_result_free(&r);
	end_workload(&w);
}
