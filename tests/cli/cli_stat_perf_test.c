/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat` beside Debian's perf stat (package linux-perf): the same
 * workload counted by both gives the same software counts, and -x's CSV
 * has perf stat's fields in perf stat's order (plain, with -r, with -I).
 * Skipped, with the reason, where perf is missing or does not run.
 *
 * The workload (tests/cli/stat_workload) is made to be counted:
 * - page faults: it touches 1000 fresh pages, and so do its 2 children:
 *   3000 faults, one per page (huge pages off). Beside them each tool sees
 *   the exec, the dynamic loader and libc, about 150 faults here, the same
 *   for both (both count from the exec, children included): measured, the
 *   two differ by 3 at most over 10 runs, 5 of them beside two CPU hogs.
 *   The bound, 100, leaves room for another libc or kernel, and is a tenth
 *   of what a child's 1000 pages would add were one tool to miss them.
 * - context switches: it passes a byte to a child and back 200 times on one
 *   CPU, each side blocking once a round: at least 400 switches. Around
 *   them, forks, waits and preemption add 40 to 65 here; measured, the two
 *   differ by 21 at most over 15 runs, beside CPU hogs too. The bound, 100,
 *   is a quarter of the 400 that the workload forces.
 * - CPU migrations: it moves itself between CPUs 0 and 1 20 times, then
 *   stays pinned (its children too): 19 or 20 (the first move is none when
 *   it already runs on CPU 0), plus any move of the scheduler before the
 *   first pin, during the dynamic loading. Measured: 19 or 20, both tools.
 *   The bound, 5, leaves room for those early moves.
 *
 * Unsandboxed (BUILD): in Bazel's sandbox neither tool may count context
 * switches, which happen in the kernel.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"
#include "tests/upmc_test.h"

#define WORKLOAD "tests/cli/stat_workload"
#define EVENTS   "page-faults,context-switches,cpu-migrations"
#define PAGES    1000
#define CHILDREN 2
#define ROUNDS   200
#define MOVES    20

/* Runs argv (a program on PATH or a path), stdout to /dev/null; its stderr
 * (where both tools report), or NULL when it could not run. *status: its
 * exit status. */
static char *run_capture(const char *const *argv, int *status)
{
	char name[512];
	int err, st = -1;
	pid_t pid;

	cli_temp_name(name, sizeof(name), "perf-side");
	err = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (err < 0)
		return NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(err, 2);
		execvp(argv[0], (char **)argv);
		_exit(127);
	}
	close(err);
	if (pid > 0)
		waitpid(pid, &st, 0);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
	{
		char *text = cli_read_file(name);
		unlink(name);
		return text;
	}
}

/* Why perf stat cannot be compared with here, or NULL when it can. */
static const char *perf_missing(char *why, size_t size)
{
	const char *const argv[] = {"perf", "stat", "-x", ",", "-e", "task-clock", "true", NULL};
	int status;
	char *text = run_capture(argv, &status);

	if (!text || status == 127)
		snprintf(why, size, "perf is not installed (Debian: apt-get install linux-perf)");
	else if (status != 0 || !strstr(text, ",task-clock,"))
		snprintf(why, size, "perf stat does not run here (status %d): %.200s", status,
		         text);
	else
		why = NULL;
	free(text);
	return why;
}

static long online_cpus(void)
{
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* The workload, counted by `tool`'s stat -x, with extra options. */
static char *count_with(const char *tool, const char *extra, int *status)
{
	char moves[16], rounds[16], pages[16], children[16];
	const char *argv[24];
	unsigned n = 0;

	snprintf(moves, sizeof(moves), "%d", online_cpus() >= 2 ? MOVES : 0);
	snprintf(rounds, sizeof(rounds), "%d", ROUNDS);
	snprintf(pages, sizeof(pages), "%d", PAGES);
	snprintf(children, sizeof(children), "%d", CHILDREN);
	argv[n++] = tool;
	argv[n++] = "stat";
	argv[n++] = "-x";
	argv[n++] = ",";
	if (extra) {
		argv[n++] = extra;
		argv[n++] = !strcmp(extra, "-r") ? "3" : "10";
	}
	argv[n++] = "-e";
	argv[n++] = !extra ? EVENTS : "task-clock,page-faults,cycles";
	argv[n++] = WORKLOAD;
	argv[n++] = "-c";
	argv[n++] = children;
	argv[n++] = "-m";
	argv[n++] = moves;
	argv[n++] = "-s";
	argv[n++] = rounds;
	argv[n++] = pages;
	argv[n] = NULL;
	return run_capture(argv, status);
}

/* The value of event's row; -1 when it has none, or not a number. */
static long value_of(const char *csv, const char *event)
{
	char needle[64], line[512];

	snprintf(needle, sizeof(needle), ",,%s,", event);
	if (cli_line_with(csv, needle, line, sizeof(line)) || !isdigit((unsigned char)line[0]))
		return -1;
	return atol(line);
}

static void expect_close(const char *event, long upmc, long perf, long at_least, long bound)
{
	printf("%-16s upmc %6ld  perf %6ld  (at least %ld, apart by at most %ld)\n", event, upmc,
	       perf, at_least, bound);
	EXPECT_MSG(upmc >= at_least, "%s: upmc counted %ld, the workload makes %ld", event, upmc,
	           at_least);
	EXPECT_MSG(perf >= at_least, "%s: perf counted %ld, the workload makes %ld", event, perf,
	           at_least);
	EXPECT_MSG(labs(upmc - perf) <= bound, "%s: upmc %ld, perf %ld: more than %ld apart", event,
	           upmc, perf, bound);
}

TEST(cli_stat_perf, same_counts_as_perf_stat)
{
	char why[300], *upmc, *perf;
	int upmc_status, perf_status;

	if (perf_missing(why, sizeof(why)))
		SKIP("%s", why);
	perf = count_with("perf", NULL, &perf_status);
	upmc = count_with("cli/upmc", NULL, &upmc_status);
	ASSERT(perf && upmc);
	EXPECT_EQ(perf_status, 0);
	EXPECT_EQ(upmc_status, 0);
	expect_close("page-faults", value_of(upmc, "page-faults"), value_of(perf, "page-faults"),
	             PAGES * (1 + CHILDREN), 100);
	if (value_of(upmc, "context-switches") < 0 || value_of(perf, "context-switches") < 0) {
		printf("upmc:\n%s\nperf:\n%s\n", upmc, perf);
		free(upmc);
		free(perf);
		SKIP("context switches are not counted here (kernel events: root or "
		     "perf_event_paranoid <= 1)");
	}
	expect_close("context-switches", value_of(upmc, "context-switches"),
	             value_of(perf, "context-switches"), 2 * ROUNDS, 100);
	expect_close("cpu-migrations", value_of(upmc, "cpu-migrations"),
	             value_of(perf, "cpu-migrations"), online_cpus() >= 2 ? MOVES - 1 : 0, 5);
	free(upmc);
	free(perf);
}

/* What kind of field f is: a number, a percentage, empty, or its text. A
 * rate's prefix (K/sec, M/sec) follows the value, so it is left out. */
static void kind_of(const char *f, size_t len, char *kind, size_t size)
{
	size_t i, digits = 0;

	for (i = 0; i < len; i++)
		digits += isdigit((unsigned char)f[i]) || f[i] == '.' || f[i] == ' ';
	if (!len)
		snprintf(kind, size, "empty");
	else if (digits == len)
		snprintf(kind, size, "number");
	else if (digits == len - 1 && f[len - 1] == '%')
		snprintf(kind, size, "percent");
	else if (len >= 5 && strchr("KMG", f[0]) && !strncmp(f + 1, "/sec", 4))
		snprintf(kind, size, "/sec");
	else
		snprintf(kind, size, "%.*s", (int)len, f);
}

/* A CSV line as the kinds of its fields, "number|msec|task-clock|...". */
static void shape_of(const char *line, char *shape, size_t size)
{
	const char *f = line, *end;
	size_t used = 0;

	shape[0] = '\0';
	do {
		char kind[128];
		end = strpbrk(f, ",\n");
		kind_of(f, end ? (size_t)(end - f) : strlen(f), kind, sizeof(kind));
		used += (size_t)snprintf(shape + used, used < size ? size - used : 0, "%s%s",
		                         used ? "|" : "", kind);
		f = end ? end + 1 : NULL;
	} while (end && *end == ',');
}

/* The shape of the first line with `event` as a field and a count: an -I
 * interval in which perf's counter did not run (the machine is loaded) is
 * "<not counted>" in perf's row and 0 in upmc's (docs/cli.md, -I), so
 * such rows are passed over in both. */
static int first_shape(const char *csv, const char *event, char *shape, size_t size)
{
	char needle[64], line[512];
	const char *p, *end;

	snprintf(needle, sizeof(needle), ",%s,", event);
	for (p = csv; p && *p; p = end ? end + 1 : NULL) {
		end = strchr(p, '\n');
		snprintf(line, sizeof(line), "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
		if (!strstr(line, needle) || strstr(line, "<not counted>"))
			continue;
		shape_of(line, shape, size);
		return 0;
	}
	return -1;
}

/* -x's fields, as perf stat writes them: plain, with -r 3 (its +- after
 * the event's name) and with -I (a timestamp first). */
TEST(cli_stat_perf, csv_fields_in_perf_stat_order)
{
	static const struct {
		const char *option;  /* NULL: plain */
		const char *rows[3]; /* the events whose rows are compared */
	} layouts[] = {
	        {NULL, {"page-faults", "context-switches", "cpu-migrations"}},
	        {"-r", {"task-clock", "page-faults", "cycles"}},
	        {"-I", {"task-clock", "page-faults", "cycles"}},
	};
	char why[300], upmc_shape[512], perf_shape[512];
	size_t l, e;

	if (perf_missing(why, sizeof(why)))
		SKIP("%s", why);
	for (l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		const char *option = layouts[l].option ? layouts[l].option : "plain";
		int perf_status, upmc_status;
		char *perf = count_with("perf", layouts[l].option, &perf_status);
		char *upmc = count_with("cli/upmc", layouts[l].option, &upmc_status);

		ASSERT(perf && upmc);
		for (e = 0; e < 3; e++) {
			const char *event = layouts[l].rows[e];
			ASSERT_MSG(first_shape(perf, event, perf_shape, sizeof(perf_shape)) == 0,
			           "perf printed no %s row:\n%s", event, perf);
			ASSERT_MSG(first_shape(upmc, event, upmc_shape, sizeof(upmc_shape)) == 0,
			           "upmc printed no %s row:\n%s", event, upmc);
			printf("%-5s %-16s perf %s\n%-5s %-16s upmc %s\n", option, event,
			       perf_shape, option, event, upmc_shape);
			EXPECT_MSG(!strcmp(upmc_shape, perf_shape), "%s, %s: upmc %s, perf %s",
			           option, event, upmc_shape, perf_shape);
		}
		free(perf);
		free(upmc);
	}
}
