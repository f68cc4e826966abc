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
	c->value = value;
	c->enabled = enabled;
	c->running = running;
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

static char *report(const struct stat_run *run, int as_json)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		return NULL;
	if (as_json)
		stat_print_json(out, run);
	else
		stat_print_text(out, run);
	fclose(out);
	return text;
}

TEST(cli_stat_report, perf_stat_layout)
{
	static struct stat_run run;
	char *text;

	ASSERT(made_up_run(&run) == 0);
	text = report(&run, 0);
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
	text = report(&run, 1);
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
	run.n = 4;
	run.elapsed_ns = 1000;
	for (i = 0; i < 4; i++)
		run.counter[i].event = ev[i];
	counted(&run.counter[0], 4000, 1000, 1000);
	counted(&run.counter[1], 1000, 1000, 1000);
	counted(&run.counter[2], 3000, 1000, 1000);
	counted(&run.counter[3], 1000, 1000, 1000);
	text = report(&run, 1);
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
	char buf[8192] = "";
	FILE *out;

	ASSERT(made_up_run(&run) == 0);
	run.signal = 9;
	run.exit_status = 128 + 9;
	out = fmemopen(buf, sizeof(buf), "w");
	ASSERT(out);
	stat_print_text(out, &run);
	fclose(out);
	EXPECT_CONTAINS(buf, " 'work --fast' was killed by signal 9 (Killed)\n");
}
