/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s report from made-up counts: the hardware ratios, a
 * multiplexed counter and shared notes, which this machine (no PMU, no
 * multiplexing of software events) cannot produce for real; and the
 * arithmetic under them.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"
#include "cli/cli.h"
#include "cli/stat.h"

#define SPEC                                                                      \
	"task-clock,cycles,instructions,branches,branch-misses,cache-references," \
	"cache-misses,context-switches,page-faults,stalled-cycles-frontend,ref-cycles"

static char *command[] = {"work", "--fast", NULL};

static void counted(struct stat_counter *c, uint64_t value, uint64_t enabled, uint64_t running)
{
	c->status = STAT_COUNTED;
	c->opened = 1;
	c->total.value = value;
	c->total.enabled = enabled;
	c->total.running = running;
}

static void refused(struct stat_counter *c, enum stat_status status, const char *why)
{
	c->status = status;
	upmc_format(c->reason, sizeof(c->reason), "'%s'%s", c->event.name, why);
}

/* A run as if a PMU machine had counted it; counter i is the spec's i-th. */
static int made_up_run(struct stat_run *run)
{
	struct upmc_event events[UPMC_MAX_COUNTERS];
	int n = upmc_parse_spec(SPEC, UPMC_OPT_KERNEL, events, UPMC_MAX_COUNTERS), i;

	if (n != 11)
		return -1;
	memset(run, 0, sizeof(*run));
	run->argv = command;
	run->runs = 1;
	run->n = (unsigned)n;
	run->elapsed_ns = 4000000;
	for (i = 0; i < n; i++)
		run->counter[i].event = events[i];
	counted(&run->counter[0], 2000000, 2000000, 2000000);  /* task-clock: 2 ms */
	counted(&run->counter[1], 6000000, 2000000, 1000000);  /* cycles, multiplexed */
	counted(&run->counter[2], 12000000, 2000000, 2000000); /* instructions */
	counted(&run->counter[3], 1000000, 2000000, 2000000);  /* branches */
	counted(&run->counter[4], 25000, 2000000, 2000000);    /* branch-misses */
	counted(&run->counter[5], 10000, 2000000, 2000000);    /* cache-references */
	counted(&run->counter[6], 1234, 2000000, 2000000);     /* cache-misses */
	refused(&run->counter[7], STAT_NOT_COUNTED, ": counting kernel mode needs paranoid <= 1");
	counted(&run->counter[8], 1234567, 2000000, 2000000); /* page-faults */
	refused(&run->counter[9], STAT_NOT_SUPPORTED, " cannot be counted: no PMU");
	refused(&run->counter[10], STAT_NOT_SUPPORTED, " cannot be counted: no PMU");
	return 0;
}

/* The report of run with these per-thread blocks, in that format. */
static char *report_of(struct stat_run *run, enum stat_format format,
                       const struct stat_block *blocks, unsigned n_blocks)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		return NULL;
	run->format = format;
	if (!run->separator)
		run->separator = ",";
	stat_print_report(out, run, blocks, n_blocks);
	fclose(out);
	return text;
}

static char *report(struct stat_run *run, enum stat_format format)
{
	return report_of(run, format, NULL, 0);
}

TEST(cli_stat_report, perf_stat_layout)
{
	static struct stat_run run;
	char *text;

	ASSERT(made_up_run(&run) == 0);
	text = report(&run, STAT_TEXT);
	ASSERT(text);
	EXPECT_CONTAINS(text, "\n Performance counter stats for 'work --fast':\n\n");
	EXPECT_CONTAINS(text, "              2.00 msec task-clock                        #    "
	                      "0.500 CPUs utilized\n");
	EXPECT_CONTAINS(text, "         6,000,000      cycles                            #    "
	                      "3.000 GHz  (50.00%)\n");
	EXPECT_CONTAINS(text, "        12,000,000      instructions                      #    "
	                      "2.000 insn per cycle\n");
	EXPECT_CONTAINS(text, "            25,000      branch-misses                     #    "
	                      "2.50% of all branches\n");
	EXPECT_CONTAINS(text, "             1,234      cache-misses                      #   "
	                      "12.34% of all cache refs\n");
	EXPECT_CONTAINS(text, "     <not counted>      context-switches                  [1]\n");
	EXPECT_CONTAINS(text, "         1,234,567      page-faults                       #  "
	                      "617.284 M/sec\n");
	EXPECT_CONTAINS(text, "   <not supported>      stalled-cycles-frontend           [2]\n");
	EXPECT_CONTAINS(text, "   <not supported>      ref-cycles                        [2]\n");
	EXPECT_CONTAINS(text, "\n       0.004000000 seconds time elapsed\n");
	EXPECT_CONTAINS(text, "\n [1] context-switches: 'context-switches': counting kernel mode "
	                      "needs paranoid <= 1\n");
	EXPECT_CONTAINS(text,
	                "\n [2] stalled-cycles-frontend, ref-cycles: 'stalled-cycles-frontend' "
	                "cannot be counted: no PMU\n");
	free(text);
}

static const struct jdoc *counter(const struct jdoc *doc, size_t i)
{
	return jdoc_at(jdoc_get(doc, "counters"), i);
}

static double derived(const struct jdoc *doc, size_t i, const char *unit)
{
	const struct jdoc *d = jdoc_get(counter(doc, i), "derived");
	const char *u = jdoc_string(d, "unit");

	EXPECT_MSG(u && !strcmp(u, unit), "counter %zu: unit %s, expected %s", i, u ? u : "null",
	           unit);
	return jdoc_number(d, "value", NAN);
}

TEST(cli_stat_report, json)
{
	static struct stat_run run;
	struct jdoc *doc;
	char err[128], *text;

	ASSERT(made_up_run(&run) == 0);
	run.exit_status = 137;
	run.signal = 9;
	text = report(&run, STAT_JSON);
	doc = jdoc_parse(text, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	EXPECT(jdoc_number(doc, "exit_status", 0) == 137);
	EXPECT(jdoc_number(doc, "signal", 0) == 9);
	EXPECT(jdoc_get(doc, "command")->n == 2);
	EXPECT(fabs(derived(doc, 0, "CPUs utilized") - 0.5) < 1e-9);
	EXPECT(fabs(derived(doc, 1, "GHz") - 3.0) < 1e-9);
	EXPECT(jdoc_number(counter(doc, 1), "running_ns", 0) == 1000000);
	EXPECT(fabs(derived(doc, 2, "insn per cycle") - 2.0) < 1e-9);
	EXPECT(fabs(derived(doc, 4, "% of all branches") - 2.5) < 1e-9);
	EXPECT(fabs(derived(doc, 6, "% of all cache refs") - 12.34) < 1e-9);
	EXPECT(jdoc_is_null(counter(doc, 7), "value"));
	EXPECT(!strcmp(jdoc_string(counter(doc, 7), "status"), "not counted"));
	EXPECT(jdoc_is_null(counter(doc, 7), "enabled_ns")); /* never opened */
	EXPECT(!strcmp(jdoc_string(counter(doc, 9), "status"), "not supported"));
	EXPECT_CONTAINS(jdoc_string(counter(doc, 10), "reason"), "'ref-cycles' cannot be counted");
	EXPECT(jdoc_is_null(counter(doc, 3), "reason"));
	jdoc_free(doc);
	free(text);
}

/* instructions:u goes with cycles:u, not with cycles counting the kernel too. */
TEST(cli_stat_report, ratio_pairs_matching_levels)
{
	static struct stat_run run;
	struct upmc_event ev[4];
	struct jdoc *doc;
	char err[128], *text;
	int i;

	ASSERT(upmc_parse_spec("cycles,cycles:u,instructions:u,task-clock", UPMC_OPT_KERNEL, ev,
	                       4) == 4);
	memset(&run, 0, sizeof(run));
	run.argv = command;
	run.runs = 1;
	run.n = 4;
	run.elapsed_ns = 1000;
	for (i = 0; i < 4; i++)
		run.counter[i].event = ev[i];
	counted(&run.counter[0], 4000, 1000, 1000);
	counted(&run.counter[1], 1000, 1000, 1000);
	counted(&run.counter[2], 3000, 1000, 1000);
	counted(&run.counter[3], 1000, 1000, 1000);
	text = report(&run, STAT_JSON);
	doc = jdoc_parse(text, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	EXPECT(fabs(derived(doc, 2, "insn per cycle") - 3.0) < 1e-9);
	jdoc_free(doc);
	free(text);
}

TEST(cli_stat_report, arithmetic)
{
	char buf[64];

	cli_thousands(buf, sizeof(buf), 0);
	EXPECT(!strcmp(buf, "0"));
	cli_thousands(buf, sizeof(buf), 999);
	EXPECT(!strcmp(buf, "999"));
	cli_thousands(buf, sizeof(buf), 1000);
	EXPECT(!strcmp(buf, "1,000"));
	cli_thousands(buf, sizeof(buf), UINT64_MAX);
	EXPECT(!strcmp(buf, "18,446,744,073,709,551,615"));
	EXPECT(!strcmp(cli_after_quoted_name("'cycles' cannot", "cycles"), " cannot"));
	EXPECT(!strcmp(cli_after_quoted_name("'cycle' cannot", "cycles"), "'cycle' cannot"));
}

/* The text names the signal that ended the command. */
TEST(cli_stat_report, names_the_signal_that_killed_the_command)
{
	static struct stat_run run;
	char *text;

	ASSERT(made_up_run(&run) == 0);
	run.signal = 9;
	run.exit_status = 128 + 9;
	text = report(&run, STAT_TEXT);
	EXPECT_CONTAINS(text, " 'work --fast' was killed by signal 9 (Killed)\n");
	free(text);
}

/* -x: perf stat's fields and their order, as perf stat 6.1 writes them:
 * value, unit, event, time running, % running, derived value and unit
 * (rates with perf's K/M/G prefix, percentages with their %). No title,
 * no elapsed time, no notes: rows only. */
TEST(cli_stat_report, csv_in_perf_stat_order)
{
	static struct stat_run run;
	char *text;

	ASSERT(made_up_run(&run) == 0);
	text = report(&run, STAT_CSV);
	ASSERT(text);
	EXPECT(!strncmp(text, "2.00,msec,task-clock,2000000,100.00,0.500,CPUs utilized\n", 56));
	EXPECT_CONTAINS(text, "\n6000000,,cycles,1000000,50.00,3.000,GHz\n");
	EXPECT_CONTAINS(text, "\n12000000,,instructions,2000000,100.00,2.000,insn per cycle\n");
	EXPECT_CONTAINS(text, "\n25000,,branch-misses,2000000,100.00,2.50%,of all branches\n");
	EXPECT_CONTAINS(text, "\n<not counted>,,context-switches,0,100.00,,\n");
	EXPECT_CONTAINS(text, "\n1234567,,page-faults,2000000,100.00,617.284,M/sec\n");
	EXPECT_CONTAINS(text, "\n<not supported>,,ref-cycles,0,100.00,,\n");
	EXPECT(!strstr(text, "Performance counter stats") && !strstr(text, "elapsed") &&
	       !strstr(text, "[1]"));
	free(text);
	run.separator = ";"; /* any string */
	text = report(&run, STAT_CSV);
	EXPECT_CONTAINS(text, "\n6000000;;cycles;1000000;50.00;3.000;GHz\n");
	free(text);
}

/* The made-up run as the mean of `runs` runs, each counter counted in all. */
static void every_of(struct stat_run *run, unsigned runs)
{
	unsigned i;

	run->runs = runs;
	for (i = 0; i < run->n; i++)
		run->counter[i].total.runs = run->counter[i].total.planned = runs;
}

/* -r: the mean of each figure and "+-" the standard deviation of the mean
 * in % of it, where perf stat prints them: after the ratio in the text,
 * after the event's name in CSV (perf stat 6.1's place; its man page says
 * after the % running). The elapsed time with its own +-, no user and sys. */
TEST(cli_stat_report, repeats_print_the_mean_and_its_spread)
{
	static struct stat_run run;
	char *text;

	ASSERT(made_up_run(&run) == 0);
	every_of(&run, 3);
	run.counter[0].total.noise = 4.11;
	run.counter[8].total.noise = 1.2;
	run.elapsed_ns = 6180000;
	run.elapsed_noise = 28.89;
	text = report(&run, STAT_TEXT);
	EXPECT_CONTAINS(text, "\n Performance counter stats for 'work --fast' (3 runs):\n\n");
	EXPECT_CONTAINS(text, "              2.00 msec task-clock                        #    "
	                      "0.324 CPUs utilized            ( +-  4.11% )\n");
	EXPECT_CONTAINS(text, "         1,234,567      page-faults                       #  "
	                      "617.284 M/sec                    ( +-  1.20% )\n");
	/* no spread, nothing printed: as perf stat */
	EXPECT_CONTAINS(text, "#    2.000 insn per cycle\n");
	EXPECT_CONTAINS(text,
	                "\n           0.00618 +- 0.00179 seconds time elapsed  ( +- 28.89% )\n");
	EXPECT(!strstr(text, "seconds user"));
	free(text);
	text = report(&run, STAT_CSV);
	EXPECT(!strncmp(text, "2.00,msec,task-clock,4.11%,2000000,100.00,0.324,CPUs utilized\n",
	                62));
	EXPECT_CONTAINS(text,
	                "\n12000000,,instructions,0.00%,2000000,100.00,2.000,insn per cycle\n");
	free(text);
}

TEST(cli_stat_report, spread_of_the_runs)
{
	struct stat_spread s = {0, 0, 0};

	EXPECT(stat_spread_noise(&s) == 0);
	stat_spread_add(&s, 1);
	EXPECT(stat_spread_noise(&s) == 0); /* one run: no spread */
	stat_spread_add(&s, 2);
	stat_spread_add(&s, 3);
	EXPECT(fabs(s.mean - 2) < 1e-12);
	/* sample standard deviation 1; of the mean 1 / sqrt(3); in % of 2 */
	EXPECT(fabs(stat_spread_error(&s) - 1 / sqrt(3)) < 1e-12);
	EXPECT(fabs(stat_spread_noise(&s) - 50 / sqrt(3)) < 1e-9);
}

/* -I: a multiplexed counter's interval is scaled by the interval's own
 * times, (c1 - c0) x (e1 - e0) / (r1 - r0), not the difference of two
 * scaled totals; one that was never multiplexed is its difference, 0 over
 * an interval its task slept; a multiplexed one that never ran in the
 * interval has no count. */
TEST(cli_stat_report, interval_rule)
{
	struct stat_reading r0 = {1000, 2000, 1000}, r1 = {6000, 3000, 2000};
	struct stat_reading s0 = {10, 100, 100}, s1 = {30, 300, 300};
	struct stat_reading idle = {100, 200, 100}, idle_later = {100, 300, 100};
	struct stat_reading zero = {0, 0, 0};
	struct stat_figure f;

	stat_figure_between(&f, &r0, &r1);
	EXPECT_EQ_U64(f.value, 5000); /* the scaled totals differ by 9000 - 2000 */
	EXPECT_EQ_U64(f.enabled, 1000);
	EXPECT_EQ_U64(f.running, 1000);
	stat_figure_between(&f, &zero, &r1);
	EXPECT_EQ_U64(f.value, 9000); /* the whole count: scaled by its times */
	stat_figure_between(&f, &s0, &s1);
	EXPECT_EQ_U64(f.value, 20);
	stat_figure_between(&f, &s1, &s1);
	EXPECT_EQ_U64(f.value, 0);
	stat_figure_between(&f, &idle, &idle_later);
	EXPECT_EQ_U64(f.value, UPMC_NOT_COUNTED);
}

/* One interval in the three formats: a timestamp first (perf stat's
 * "%6lu.%09lu"), the derived ratios over the interval's length, a JSON
 * object on one line. */
TEST(cli_stat_report, interval_rows)
{
	static struct stat_run run;
	struct stat_figure fig[UPMC_MAX_COUNTERS];
	struct stat_block block;
	struct jdoc *doc;
	char *text = NULL, err[128];
	size_t size = 0, i;
	FILE *out;

	ASSERT(made_up_run(&run) == 0);
	for (i = 0; i < run.n; i++)
		fig[i] = run.counter[i].total;
	fig[1].value = UPMC_NOT_COUNTED; /* cycles never ran in this one */
	block.fig = fig;
	block.span_ns = 1000000; /* 1 ms: task-clock's 2 ms are 2 CPUs */
	block.thread = NULL;
	out = open_memstream(&text, &size);
	ASSERT(out);
	run.format = STAT_TEXT;
	stat_print_interval_start(out, &run);
	stat_print_interval(out, &run, 1500000000, &block, 1);
	run.format = STAT_CSV;
	run.separator = ",";
	stat_print_interval(out, &run, 1500000000, &block, 1);
	run.format = STAT_JSON;
	stat_print_interval(out, &run, 1500000000, &block, 1);
	fclose(out);
	EXPECT(!strncmp(text, "#           time             counts unit events\n", 48));
	EXPECT_CONTAINS(text, "\n     1.500000000               2.00 msec task-clock          "
	                      "              #    2.000 CPUs utilized\n");
	EXPECT_CONTAINS(text, "\n     1.500000000      <not counted>      cycles");
	EXPECT_CONTAINS(text, "\n     1.500000000            1234567      page-faults");
	EXPECT_CONTAINS(text, "\n     1.500000000,2.00,msec,task-clock,2000000,100.00,2.000,CPUs "
	                      "utilized\n");
	EXPECT_CONTAINS(text, "\n     1.500000000,<not counted>,,cycles,1000000,50.00,,\n");
	{
		const char *line = strstr(text, "{\"interval\"");
		const struct jdoc *cycles;
		ASSERT(line && !strchr(line, '\n')[1]); /* the last line, and one line */
		doc = jdoc_parse(line, err, sizeof(err));
		ASSERT_MSG(doc, "invalid JSON (%s): %s", err, line);
		EXPECT(fabs(jdoc_number(doc, "interval", 0) - 1.5) < 1e-9);
		cycles = jdoc_at(jdoc_get(doc, "counters"), 1);
		EXPECT(!strcmp(jdoc_string(cycles, "status"), "not counted"));
		EXPECT(jdoc_is_null(cycles, "value"));
		jdoc_free(doc);
	}
	free(text);
}

/* --per-thread: a block per thread, named as perf stat names threads
 * (comm-tid); in CSV that name is the first field; JSON has the totals and
 * "threads". */
TEST(cli_stat_report, per_thread_blocks)
{
	static struct stat_run run;
	struct stat_unit threads[2] = {{101, -1, "work"}, {102, -1, "helper"}};
	struct stat_figure fig[2][UPMC_MAX_COUNTERS];
	struct stat_block blocks[2];
	const struct jdoc *list;
	struct jdoc *doc;
	char *text, err[128];
	size_t t, i;

	ASSERT(made_up_run(&run) == 0);
	run.target = STAT_PROCESSES;
	run.targets = "101";
	run.per_thread = 1;
	for (t = 0; t < 2; t++) {
		for (i = 0; i < run.n; i++)
			fig[t][i] = run.counter[i].total;
		fig[t][8].value = 1000 * (t + 1); /* page-faults */
		blocks[t].fig = fig[t];
		blocks[t].span_ns = run.elapsed_ns;
		blocks[t].thread = &threads[t];
	}
	text = report_of(&run, STAT_TEXT, blocks, 2);
	EXPECT_CONTAINS(text, "\n Performance counter stats for process id '101':\n\n work-101:\n");
	EXPECT_CONTAINS(text, "\n\n helper-102:\n");
	EXPECT_CONTAINS(text, "             1,000      page-faults");
	EXPECT_CONTAINS(text, "             2,000      page-faults");
	EXPECT(!strstr(text, "seconds user")); /* not a command's */
	free(text);
	text = report_of(&run, STAT_CSV, blocks, 2);
	EXPECT(!strncmp(text, "work-101,2.00,msec,task-clock,", 30));
	EXPECT_CONTAINS(text, "\nwork-101,1000,,page-faults,2000000,100.00,");
	EXPECT_CONTAINS(text, "\nhelper-102,2000,,page-faults,2000000,100.00,");
	free(text);
	text = report_of(&run, STAT_JSON, blocks, 2);
	doc = jdoc_parse(text, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON (%s)", err);
	EXPECT(!strcmp(jdoc_string(doc, "target"), "processes"));
	list = jdoc_get(doc, "threads");
	ASSERT(list && list->n == 2);
	EXPECT(jdoc_number(jdoc_at(list, 1), "tid", 0) == 102);
	EXPECT(!strcmp(jdoc_string(jdoc_at(list, 1), "comm"), "helper"));
	EXPECT(jdoc_number(jdoc_at(jdoc_get(jdoc_at(list, 1), "counters"), 8), "value", 0) == 2000);
	EXPECT(jdoc_number(counter(doc, 8), "value", 0) == 1234567); /* the totals */
	EXPECT(jdoc_is_null(doc, "user_ns"));
	jdoc_free(doc);
	free(text);
}

/* The title names what was counted, as perf stat's does. */
TEST(cli_stat_report, titles)
{
	static struct stat_run run;
	static const struct {
		enum stat_target target;
		const char *targets, *title;
	} cases[] = {
	        {STAT_PROCESSES, "12,13", " Performance counter stats for process id '12,13':"},
	        {STAT_THREADS, "14", " Performance counter stats for thread id '14':"},
	        {STAT_CPUS, NULL, " Performance counter stats for 'system wide':"},
	        {STAT_CPUS, "0-1", " Performance counter stats for 'CPU(s) 0-1':"},
	};
	int cpus[2] = {0, 1};
	char *text;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT(made_up_run(&run) == 0);
		run.target = cases[i].target;
		run.targets = cases[i].targets;
		run.ids = cases[i].targets ? cpus : NULL;
		run.n_ids = cases[i].targets ? 2 : 0;
		text = report(&run, STAT_TEXT);
		EXPECT_CONTAINS(text, cases[i].title);
		free(text);
	}
}

/* -M IPC,CPI,GHz,branch-miss-ratio as a PMU machine would count it: each
 * metric beside the first of its events (a second one of the same event on
 * a line of its own), in the text, CSV and JSON; a metric whose events did
 * not count is n/a there and null in JSON. */
TEST(cli_stat_report, metrics_beside_their_first_event)
{
	static struct stat_run run;
	struct upmc_event events[UPMC_MAX_COUNTERS];
	struct jdoc *doc;
	char err[128], *text;
	const struct jdoc *m;
	int n;

	memset(&run, 0, sizeof(run));
	n = upmc_parse_spec_metrics("IPC,CPI,GHz,branch-miss-ratio", UPMC_OPT_KERNEL, events,
	                            UPMC_MAX_COUNTERS, run.metric, &run.n_metrics);
	ASSERT_MSG(n == 5, "%d: %s", n, upmc_last_error()); /* each event once */
	ASSERT(run.n_metrics == 4);
	run.argv = command;
	run.runs = 1;
	run.n = 5;
	run.elapsed_ns = 4000000;
	for (int i = 0; i < n; i++)
		run.counter[i].event = events[i];
	EXPECT_MSG(!strcmp(events[0].name, "instructions"), "%s", events[0].name);
	EXPECT_MSG(!strcmp(events[1].name, "cycles"), "%s", events[1].name);
	EXPECT_MSG(!strcmp(events[2].name, "task-clock"), "%s", events[2].name);
	counted(&run.counter[0], 12000000, 2000000, 2000000);
	counted(&run.counter[1], 6000000, 2000000, 2000000);
	counted(&run.counter[2], 2000000, 2000000, 2000000);
	counted(&run.counter[3], 25000, 2000000, 2000000); /* branch-misses */
	refused(&run.counter[4], STAT_NOT_SUPPORTED, " cannot be counted: no PMU");

	text = report(&run, STAT_TEXT);
	ASSERT(text);
	EXPECT_CONTAINS(text, "        12,000,000      instructions                      #    "
	                      "2.000 insn per cycle\n");
	EXPECT_CONTAINS(text, "         6,000,000      cycles                            #    "
	                      "0.500 cycles per insn\n"
	                      "                                                          #    "
	                      "3.000 GHz\n");
	EXPECT_CONTAINS(text, "            25,000      branch-misses                     #      "
	                      "n/a of all branches\n");
	free(text);

	text = report(&run, STAT_CSV);
	EXPECT_CONTAINS(text, "\n6000000,,cycles,2000000,100.00,0.500,cycles per insn\n"
	                      ",,,,,3.000,GHz\n");
	free(text);

	text = report(&run, STAT_JSON);
	doc = jdoc_parse(text, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	EXPECT(fabs(derived(doc, 0, "insn per cycle") - 2.0) < 1e-9);
	m = jdoc_get(doc, "metrics");
	ASSERT(m && m->n == 4);
	EXPECT_MSG(!strcmp(jdoc_string(jdoc_at(m, 2), "name"), "GHz"), "%s",
	           jdoc_string(jdoc_at(m, 2), "name"));
	EXPECT(fabs(jdoc_number(jdoc_at(m, 2), "value", NAN) - 3.0) < 1e-9);
	EXPECT_MSG(!strcmp(jdoc_string(jdoc_at(m, 3), "name"), "branch-miss-ratio"), "%s",
	           jdoc_string(jdoc_at(m, 3), "name"));
	EXPECT(jdoc_is_null(jdoc_at(m, 3), "value"));
	jdoc_free(doc);
	free(text);
}
