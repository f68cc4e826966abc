/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`: counts for a child process in perf stat's layout and as
 * JSON, its exit status passed through, and what it says when it cannot
 * count or cannot run the command.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <upmc/upmc.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

static int test_saw_refusal; /* for the log: which path ran */

static const char *const default_events[] = {
        "task-clock",   "context-switches", "page-faults",   "cycles",
        "instructions", "branches",         "branch-misses",
};
#define N_DEFAULT (sizeof(default_events) / sizeof(default_events[0]))

/* Whether this process can count `event` at all (any read path). */
static int can_count(const char *event)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	int ok;

	if (upmc_open(&set, event, &opts) < 0)
		return 0;
	ok = upmc_counter_path(set, 0) != UPMC_PATH_UNAVAILABLE;
	upmc_close(set);
	return ok;
}

/* A row of the table: "<value> <unit> <name> ..." with the value counted,
 * or "<not supported>"/"<not counted>" and a note number. */
static void expect_row(const char *text, const char *name)
{
	char needle[96], line[1024], note[32];
	const char *marker;
	unsigned n;

	snprintf(needle, sizeof(needle), " %s ", name);
	ASSERT_MSG(cli_line_with(text, needle, line, sizeof(line)) == 0, "no row for %s", name);
	if (!strstr(line, "<not supported>") && !strstr(line, "<not counted>")) {
		EXPECT_MSG(line[17] >= '0' && line[17] <= '9', "row without a value: %s", line);
		return;
	}
	marker = strstr(line, "  [");
	ASSERT_MSG(marker && sscanf(marker, "  [%u]", &n) == 1, "a row without its note: %s", line);
	snprintf(note, sizeof(note), "\n [%u] ", n); /* the note under the table */
	EXPECT_CONTAINS(text, note);
}

TEST(cli_stat, true_text)
{
	struct cli_result r;
	size_t i;

	CLI_RUN(r, NULL, "stat", "--", "true");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.err, "\n Performance counter stats for 'true':\n\n");
	EXPECT_CONTAINS(r.err, " msec task-clock ");
	EXPECT_CONTAINS(r.err, "CPUs utilized");
	EXPECT_CONTAINS(r.err, " seconds time elapsed\n");
	EXPECT_CONTAINS(r.err, " seconds user\n");
	for (i = 0; i < N_DEFAULT; i++)
		expect_row(r.err, default_events[i]);
	if (!can_count("cycles"))
		EXPECT_CONTAINS(r.err, "<not supported>      cycles");
	EXPECT(r.out && !r.out[0]); /* true prints nothing, and neither does upmc on stdout */
	cli_result_free(&r);
}

static void expect_counter_shape(const struct jdoc *c)
{
	const char *status = jdoc_string(c, "status"), *name = jdoc_string(c, "name");
	const struct jdoc *value = jdoc_get(c, "value");

	ASSERT(status && name && value);
	if (!strcmp(status, "counted")) {
		EXPECT_MSG(value->type == JDOC_NUMBER, "%s: counted without a value", name);
		EXPECT(jdoc_number(c, "enabled_ns", -1) >= jdoc_number(c, "running_ns", 0));
		EXPECT(jdoc_number(c, "running_ns", 0) > 0);
		return;
	}
	EXPECT_MSG(!strcmp(status, "not supported") || !strcmp(status, "not counted"), "%s: %s",
	           name, status);
	EXPECT_MSG(value->type == JDOC_NULL, "%s: not counted but valued", name);
	EXPECT_MSG(jdoc_string(c, "reason") && jdoc_string(c, "reason")[0], "%s: no reason", name);
	EXPECT(jdoc_is_null(c, "derived"));
}

/* task-clock: counted, at most the elapsed time on every CPU, and its
 * derived "CPUs utilized" is that ratio. */
static void expect_task_clock(const struct jdoc *doc, const struct jdoc *c)
{
	double elapsed = jdoc_number(doc, "elapsed_ns", -1), value = jdoc_number(c, "value", -1);
	const struct jdoc *derived = jdoc_get(c, "derived");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	ASSERT(!strcmp(jdoc_string(c, "status"), "counted"));
	EXPECT(!strcmp(jdoc_string(c, "unit"), "ns"));
	EXPECT_MSG(value > 0 && value <= elapsed * (double)cpus, "task-clock %g, elapsed %g", value,
	           elapsed);
	ASSERT(derived && derived->type == JDOC_OBJECT);
	EXPECT(!strcmp(jdoc_string(derived, "unit"), "CPUs utilized"));
	EXPECT_MSG(fabs(jdoc_number(derived, "value", -1) - value / elapsed) < 1e-6,
	           "derived %g, expected %g", jdoc_number(derived, "value", -1), value / elapsed);
}

/* context-switches count in the kernel: counted, or refused with the
 * paranoid level's sentence; then task-clock was refused kernel mode too
 * and counted user space only, saying so. (Bazel's sandbox takes the
 * privileges away: there the refusal is what runs.) */
static void expect_context_switches(const struct jdoc *cs, const struct jdoc *task_clock)
{
	if (!strcmp(jdoc_string(cs, "status"), "counted")) {
		EXPECT(jdoc_is_null(task_clock, "reason"));
		return;
	}
	EXPECT(!strcmp(jdoc_string(cs, "status"), "not counted"));
	EXPECT_CONTAINS(jdoc_string(cs, "reason"), "'context-switches' only happens in the kernel: "
	                                           "counting it needs perf_event_paranoid <= 1");
	EXPECT_CONTAINS(jdoc_string(task_clock, "reason"),
	                "'task-clock' counted user space only: ");
	test_saw_refusal = 1;
}

TEST(cli_stat, true_json)
{
	const struct jdoc *counters, *command;
	struct cli_result r;
	struct jdoc *doc;
	char err[128];
	size_t i;

	CLI_RUN(r, NULL, "stat", "--json", "--", "true");
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.err, err, sizeof(err)); /* perf stat's place: stderr */
	ASSERT_MSG(doc, "invalid JSON (%s): %s", err, r.err);
	command = jdoc_get(doc, "command");
	ASSERT(command && command->n == 1);
	EXPECT(!strcmp(jdoc_at(command, 0)->string, "true"));
	EXPECT(jdoc_number(doc, "exit_status", -1) == 0);
	EXPECT(jdoc_is_null(doc, "signal"));
	EXPECT(jdoc_number(doc, "elapsed_ns", -1) > 0);
	counters = jdoc_get(doc, "counters");
	ASSERT(counters && counters->n == N_DEFAULT);
	for (i = 0; i < N_DEFAULT; i++) {
		const struct jdoc *c = jdoc_at(counters, i);
		EXPECT(!strcmp(jdoc_string(c, "name"), default_events[i]));
		expect_counter_shape(c);
	}
	expect_task_clock(doc, jdoc_at(counters, 0));
	expect_context_switches(jdoc_at(counters, 1), jdoc_at(counters, 0));
	printf("context-switches: %s\n", test_saw_refusal ? "refused (unprivileged)" : "counted");
	EXPECT(jdoc_number(jdoc_at(counters, 2), "value", 0) > 0); /* page-faults of an exec */
	if (!can_count("cycles"))
		EXPECT(jdoc_is_null(jdoc_at(counters, 3), "value"));
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_stat, exit_status_passes_through)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "-e", "task-clock,page-faults", "--", "sh", "-c", "exit 3");
	EXPECT_EQ(r.status, 3);
	EXPECT_CONTAINS(r.err, "Performance counter stats for 'sh -c exit 3':");
	expect_row(r.err, "task-clock");
	expect_row(r.err, "page-faults");
	EXPECT(!strstr(r.err, "cycles")); /* only the events asked for */
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "--", "sh", "-c", "kill -9 $$");
	EXPECT_EQ(r.status, 128 + 9);
	cli_result_free(&r);
}

TEST(cli_stat, output_file_keeps_the_command_output_apart)
{
	char path[512];
	struct cli_result r;
	struct jdoc *doc;
	char err[128], *text;

	cli_temp_name(path, sizeof(path), "stat.json");
	CLI_RUN(r, NULL, "stat", "--json", "-o", path, "-e", "task-clock", "--", "sh", "-c",
	        "echo hello");
	EXPECT_EQ(r.status, 0);
	EXPECT(!strcmp(r.out, "hello\n"));
	EXPECT(!strcmp(r.err, ""));
	text = cli_read_file(path);
	doc = jdoc_parse(text, err, sizeof(err));
	EXPECT_MSG(doc, "invalid JSON: %s", err);
	EXPECT(jdoc_get(doc, "counters") && jdoc_get(doc, "counters")->n == 1);
	jdoc_free(doc);
	free(text);
	unlink(path);
	cli_result_free(&r);
}

/* inherit: a subshell's work is counted too. rusage of the waited-for
 * command includes its children; task-clock must account for most of it. */
TEST(cli_stat, children_are_counted)
{
	const char *busy = "(i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done); :";
	struct cli_result r;
	struct jdoc *doc;
	double cpu, task;
	char err[128];

	CLI_RUN(r, NULL, "stat", "--json", "-e", "task-clock", "--", "sh", "-c", busy);
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	cpu = jdoc_number(doc, "user_ns", 0) + jdoc_number(doc, "sys_ns", 0);
	task = jdoc_number(jdoc_at(jdoc_get(doc, "counters"), 0), "value", 0);
	EXPECT_MSG(cpu > 10e6, "the loop took %g ns of CPU only", cpu);
	EXPECT_MSG(task > 0.5 * cpu, "task-clock %g ns against %g ns of CPU time", task, cpu);
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_stat, command_not_found)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "--", "/nonexistent/upmc-test-command");
	EXPECT_EQ(r.status, 127);
	EXPECT_CONTAINS(r.err, "upmc stat: cannot run '/nonexistent/upmc-test-command': No such "
	                       "file or directory");
	EXPECT(!strstr(r.err, "Performance counter stats"));
	cli_result_free(&r);
}

TEST(cli_stat, bad_spec_runs_nothing)
{
	char marker[512], script[600];
	struct cli_result r;

	cli_temp_name(marker, sizeof(marker), "ran");
	snprintf(script, sizeof(script), "touch %s", marker);
	CLI_RUN(r, NULL, "stat", "-e", "cycels", "--", "sh", "-c", script);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc stat: event 'cycels' unknown; did you mean 'cycles'");
	EXPECT_MSG(access(marker, F_OK) != 0, "the command ran despite the bad spec");
	unlink(marker);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "-e", "task-clock,", "--", "true");
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "has an empty item at position 2");
	cli_result_free(&r);
}

/* perf stat counts every -e list. */
TEST(cli_stat, every_event_option_counts)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "-e", "page-faults", "--event=minor-faults",
	        "--", "true");
	EXPECT_EQ(r.status, 0);
	expect_row(r.err, "task-clock");
	expect_row(r.err, "page-faults");
	expect_row(r.err, "minor-faults");
	cli_result_free(&r);
}

/* An argument that is not UTF-8 (a Latin-1 file name) still makes valid
 * JSON: the byte as the code point of its number. */
TEST(cli_stat, json_of_an_argument_that_is_not_utf8)
{
	const struct jdoc *command;
	struct cli_result r;
	struct jdoc *doc;
	char err[128];

	CLI_RUN(r, NULL, "stat", "--json", "-e", "task-clock", "--", "sh", "-c", ":",
	        "caf\xe9 \xc3\xa9 \xff");
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON (%s): %s", err, r.err);
	command = jdoc_get(doc, "command");
	ASSERT(command && command->n == 4);
	EXPECT(!strcmp(jdoc_at(command, 3)->string, "caf\xc3\xa9 \xc3\xa9 \xc3\xbf"));
	jdoc_free(doc);
	cli_result_free(&r);
}

/* The -e lists have no length limit of their own: what is wrong with a
 * long one is said by the library (exit 1), never a usage error (2). */
TEST(cli_stat, long_event_lists)
{
	const char *args[2 * 400 + 4];
	char name[4097], padded[20][256], err[128];
	const struct jdoc *counters;
	struct cli_result r;
	struct jdoc *doc;
	size_t i, n = 0;

	/* a 4 KiB name: no such event */
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CLI_RUN(r, NULL, "stat", "-e", name, "--", "true");
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc stat: event name 'xxxx");
	EXPECT_CONTAINS(r.err, "is too long (at most 127 characters)");
	EXPECT(!strstr(r.err, "usage:"));
	cli_result_free(&r);

	/* 400 counters: more than a spec holds */
	args[n++] = "stat";
	for (i = 0; i < 400; i++) {
		args[n++] = "-e";
		args[n++] = "task-clock";
	}
	args[n++] = "--";
	args[n++] = "true";
	args[n] = NULL;
	ASSERT(cli_run(&r, NULL, args) == 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc stat: event spec has more than 32 events");
	EXPECT(!strstr(r.err, "usage:"));
	cli_result_free(&r);

	/* 20 lists of 250 bytes, blanks around a name (the spec allows them):
	 * 5 KiB that count */
	n = 0;
	args[n++] = "stat";
	args[n++] = "--json";
	for (i = 0; i < 20; i++) {
		snprintf(padded[i], sizeof(padded[i]), "%240s", "task-clock");
		args[n++] = "-e";
		args[n++] = padded[i];
	}
	args[n++] = "--";
	args[n++] = "true";
	args[n] = NULL;
	ASSERT(cli_run(&r, NULL, args) == 0);
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON (%s): %s", err, r.err);
	counters = jdoc_get(doc, "counters");
	ASSERT(counters && counters->n == 20);
	for (i = 0; i < 20; i++)
		EXPECT(!strcmp(jdoc_string(jdoc_at(counters, i), "name"), "task-clock"));
	jdoc_free(doc);
	cli_result_free(&r);
}

/* perf stat's way too: the first argument that is not an option starts the
 * command, whose own options stay its own. */
TEST(cli_stat, command_without_dashes)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "sh", "-c", "exit 4", "-e");
	EXPECT_EQ(r.status, 4);
	EXPECT_CONTAINS(r.err, "Performance counter stats for 'sh -c exit 4 -e':");
	expect_row(r.err, "task-clock");
	cli_result_free(&r);
}

/* The value of field `field` (0-based) of the CSV row for event (field 2),
 * in buf; 0 when there is such a row. */
static int csv_field(const char *text, const char *event, unsigned field, char *buf, size_t size)
{
	char needle[128], line[1024], *p, *end;
	unsigned i;

	snprintf(needle, sizeof(needle), ",%s,", event);
	if (cli_line_with(text, needle, line, sizeof(line)))
		return -1;
	for (p = line, i = 0; i < field && p; i++)
		p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
	if (!p)
		return -1;
	end = strchr(p, ',');
	snprintf(buf, size, "%.*s", end ? (int)(end - p) : (int)strlen(p), p);
	return 0;
}

/* -x: perf stat's CSV, one row per counter and nothing else. */
TEST(cli_stat, csv)
{
	struct cli_result r;
	char value[64], unit[64];
	const char *line;

	CLI_RUN(r, NULL, "stat", "-x", ",", "-e", "task-clock,page-faults,cycles", "true");
	EXPECT_EQ(r.status, 0);
	EXPECT(!strstr(r.err, "Performance counter stats"));
	for (line = r.err; *line; line = strchr(line, '\n') + 1) {
		EXPECT_MSG(cli_csv_fields(line) == 7, "not 7 fields: %s", line);
		if (!strchr(line, '\n'))
			break;
	}
	ASSERT(csv_field(r.err, "task-clock", 1, unit, sizeof(unit)) == 0);
	EXPECT(!strcmp(unit, "msec"));
	ASSERT(csv_field(r.err, "page-faults", 0, value, sizeof(value)) == 0);
	EXPECT_MSG(atol(value) > 0, "page-faults: %s", value);
	if (!can_count("cycles")) {
		ASSERT(csv_field(r.err, "cycles", 0, value, sizeof(value)) == 0);
		EXPECT(!strcmp(value, "<not supported>"));
	}
	cli_result_free(&r);
}

/* -r: the command runs N times; the means, with +- the spread; the exit
 * status is the last run's. */
TEST(cli_stat, repeats)
{
	char counter[512], script[1200], *runs;
	const struct jdoc *counters;
	struct cli_result r;
	struct jdoc *doc;
	char err[128];

	cli_temp_name(counter, sizeof(counter), "runs");
	snprintf(script, sizeof(script),
	         "n=$(cat %s 2>/dev/null || echo 0); n=$((n+1)); echo $n > %s; exit $n", counter,
	         counter);
	CLI_RUN(r, NULL, "stat", "-r", "3", "-e", "task-clock,page-faults", "--", "sh", "-c",
	        script);
	EXPECT_EQ(r.status, 3); /* the last run's */
	runs = cli_read_file(counter);
	EXPECT(runs && !strcmp(runs, "3\n"));
	free(runs);
	EXPECT_CONTAINS(r.err, " Performance counter stats for 'sh -c ");
	EXPECT_CONTAINS(r.err, "' (3 runs):\n");
	EXPECT_CONTAINS(r.err, " seconds time elapsed  ( +- ");
	EXPECT(!strstr(r.err, "seconds user"));
	expect_row(r.err, "page-faults");
	cli_result_free(&r);
	unlink(counter);

	CLI_RUN(r, NULL, "stat", "-r", "3", "--json", "-e", "task-clock,page-faults", "true");
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON (%s): %s", err, r.err);
	EXPECT(jdoc_number(doc, "runs", 0) == 3);
	EXPECT(jdoc_number(doc, "elapsed_noise_pct", -1) >= 0);
	counters = jdoc_get(doc, "counters");
	ASSERT(counters && counters->n == 2);
	EXPECT(jdoc_number(jdoc_at(counters, 1), "noise_pct", -1) >= 0);
	EXPECT(jdoc_number(jdoc_at(counters, 1), "value", 0) > 0);
	jdoc_free(doc);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "-r", "3", "-x", ";", "-e", "page-faults", "true");
	EXPECT_EQ(r.status, 0);
	EXPECT_MSG(strstr(r.err, ";;page-faults;") && strstr(r.err, "%;"), "%s", r.err);
	cli_result_free(&r);
}

/* --rotate: run r counts pass r mod 2 (each -e list one here), and each
 * figure says its pass; a rate takes no clock of another pass. Fewer runs
 * than passes is a usage error, before anything runs. */
TEST(cli_stat, rotate)
{
	char marker[512], script[600], line[512], err[128];
	const struct jdoc *counters;
	struct cli_result r;
	struct jdoc *doc;

	CLI_RUN(r, NULL, "stat", "--rotate", "-r", "4", "-e", "task-clock", "-e", "page-faults",
	        "true");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.err, " Performance counter stats for 'true' (4 runs, 2 passes):\n");
	ASSERT(cli_line_with(r.err, " task-clock ", line, sizeof(line)) == 0);
	EXPECT_CONTAINS(line, "CPUs utilized");
	EXPECT_CONTAINS(line, "  (pass 1/2, 2 of 4 runs)");
	ASSERT(cli_line_with(r.err, " page-faults ", line, sizeof(line)) == 0);
	EXPECT_CONTAINS(line, "  (pass 2/2, 2 of 4 runs)");
	EXPECT_MSG(!strstr(line, "/sec"), "a rate of another pass's clock: %s", line);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "--rotate", "-r", "2", "--json", "-e", "task-clock", "-e",
	        "page-faults", "true");
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON (%s): %s", err, r.err);
	EXPECT(jdoc_number(doc, "passes", 0) == 2);
	counters = jdoc_get(doc, "counters");
	ASSERT(counters && counters->n == 2);
	EXPECT(jdoc_number(jdoc_at(counters, 0), "pass", 0) == 1);
	EXPECT(jdoc_number(jdoc_at(counters, 1), "pass", 0) == 2);
	EXPECT(jdoc_is_null(jdoc_at(counters, 1), "derived"));
	jdoc_free(doc);
	cli_result_free(&r);

	cli_temp_name(marker, sizeof(marker), "rotated");
	snprintf(script, sizeof(script), "touch %s", marker);
	CLI_RUN(r, NULL, "stat", "--rotate", "-r", "1", "-e", "task-clock", "-e", "page-faults",
	        "sh", "-c", script);
	EXPECT_EQ(r.status, 2);
	EXPECT_CONTAINS(r.err, "upmc: stat: --rotate counts these events in 2 passes, one per "
	                       "run: -r needs at least 2 runs, not 1\n\nusage: upmc stat");
	EXPECT(access(marker, F_OK) != 0);
	cli_result_free(&r);
}

/* A line of -I's CSV: its timestamp, and the value of `event` in it. */
static int interval_row(const char *text, const char *event, double *at, long *value)
{
	const char *end = strchr(text, '\n');
	char line[1024], needle[128];

	snprintf(line, sizeof(line), "%.*s", end ? (int)(end - text) : (int)strlen(text), text);
	snprintf(needle, sizeof(needle), ",,%s,", event);
	if (!strstr(line, needle) || sscanf(line, "%lf,%ld,", at, value) != 2)
		return -1;
	return 0;
}

/* -I: a row per counter and interval, behind a timestamp that grows; the
 * intervals add up to the work (the workload touches 3 x 700 pages: one
 * page fault each). */
TEST(cli_stat, intervals)
{
	double at, last_at = 0;
	long value, faults = 0;
	unsigned rows = 0, lines = 0;
	struct cli_result r;
	const char *line;

	CLI_RUN(r, NULL, "stat", "-I", "20", "-x", ",", "-e", "page-faults,task-clock",
	        "tests/cli/stat_workload", "-c", "2", "700");
	EXPECT_EQ(r.status, 0);
	for (line = r.err; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		lines++;
		if (interval_row(line, "page-faults", &at, &value) < 0)
			continue;
		rows++;
		EXPECT_MSG(at > last_at, "a timestamp that does not grow: %s", line);
		last_at = at;
		faults += value;
	}
	EXPECT(rows >= 1);
	EXPECT_EQ(lines, 2 * rows); /* a task-clock row beside each */
	EXPECT_MSG(faults >= 3 * 700 && faults < 3 * 700 + 2000 + SANITIZER_FAULTS,
	           "%ld page faults", faults);
	cli_result_free(&r);
}

/* -I -o FILE: the intervals in FILE, whole once counting ends; stderr
 * stays the command's. */
TEST(cli_stat, intervals_to_a_file)
{
	char path[512], *text;
	struct cli_result r;
	double at;
	long value;

	cli_temp_name(path, sizeof(path), "intervals.csv");
	CLI_RUN(r, NULL, "stat", "-I", "20", "-x", ",", "-o", path, "-e", "page-faults", "sh", "-c",
	        "echo said >&2");
	EXPECT_EQ(r.status, 0);
	EXPECT(!strcmp(r.err, "said\n"));
	text = cli_read_file(path);
	ASSERT_MSG(text, "no %s", path);
	EXPECT_MSG(interval_row(text, "page-faults", &at, &value) == 0, "%s", text);
	free(text);
	unlink(path);
	cli_result_free(&r);
}

/* -I --json: one object per interval and line. */
TEST(cli_stat, intervals_as_json_lines)
{
	struct cli_result r;
	const char *line;
	unsigned n = 0;
	double last = 0;

	CLI_RUN(r, NULL, "stat", "-I", "20", "--json", "-e", "task-clock,page-faults",
	        "tests/cli/stat_workload", "-c", "1", "500");
	EXPECT_EQ(r.status, 0);
	for (line = r.err; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char text[8192], err[128];
		const struct jdoc *counters;
		struct jdoc *doc;
		const char *end = strchr(line, '\n');
		snprintf(text, sizeof(text), "%.*s", end ? (int)(end - line) : (int)strlen(line),
		         line);
		doc = jdoc_parse(text, err, sizeof(err));
		ASSERT_MSG(doc, "not a JSON object on its line (%s): %s", err, text);
		EXPECT(jdoc_number(doc, "interval", 0) > last);
		last = jdoc_number(doc, "interval", 0);
		counters = jdoc_get(doc, "counters");
		EXPECT(counters && counters->n == 2);
		jdoc_free(doc);
		n++;
	}
	EXPECT(n >= 1);
	cli_result_free(&r);
}

/* -I's text: perf stat's column heads, then rows behind a timestamp. */
TEST(cli_stat, intervals_as_text)
{
	struct cli_result r;
	double at;
	char name[64];

	CLI_RUN(r, NULL, "stat", "-I", "20", "-e", "page-faults", "tests/cli/stat_workload", "300");
	EXPECT_EQ(r.status, 0);
	EXPECT(!strncmp(r.err, "#           time             counts unit events\n", 48));
	ASSERT(strchr(r.err, '\n'));
	EXPECT_MSG(sscanf(strchr(r.err, '\n') + 1, "%lf %*s %63s", &at, name) == 2 &&
	                   !strcmp(name, "page-faults"),
	           "%s", r.err);
	cli_result_free(&r);
}
