/* SPDX-License-Identifier: MIT */
/*
 * `upmc bench`: it runs, its CSV has the header and one row per case, each
 * measured or skipped with a reason; its JSON judges the targets
 * consistently. (The targets themselves are checked by the benchmark's
 * output, not here: timing in tests would make them flaky.)
 *
 * Every run asks for few repeats: a repeat measures each case for about
 * 0.1 ms of its own, so the default 1001 take seconds, many more under a
 * sanitizer on a loaded machine. What is checked is the output's shape,
 * the same for 3 repeats as for 1001.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

static const char *const cases[] = {
        "raw rdtsc pair",
        "raw serialized pair",
        "upmc_timestamp pair",
        "upmc_timestamp_serialized pair",
        "region begin+end, time only",
        "clock_gettime pair",
        "read(2) of task-clock",
        "raw rdpmc",
        "upmc_read_counter",
        "upmc_read_n, 2 counters",
        "upmc_read_n, 4 counters",
        "upmc_read_n, 7 counters",
        "region begin+end, 4 counters",
        "raw syscalls of open+close",
        "upmc_open+close, 2 events",
        "upmc_open, 2 events",
        "zone begin+end, time only",
        "zone begin+end, 4 counters",
        "zone begin+end, no profile open",
        "first zone of a thread, 2 events",
        "collect a zone, 1 thread",
        "collect a zone, 2 threads",
        "collect a zone, 8 threads",
};
#define N_CASES (sizeof(cases) / sizeof(cases[0]))

/* Cases every Linux machine can run (x86-64 and arm64 have the raw ones):
 * all but those that read hardware counters. */
static int always_runs(size_t i)
{
	return i <= 6 || (i >= 13 && i != 17);
}

/* One CSV row: "name",ns,min,instr,ratio,"baseline","skipped". */
static void expect_row(const char *row, size_t i)
{
	char name[96], rest[1024];
	double ns = NAN, min = NAN;

	ASSERT_MSG(sscanf(row, "\"%95[^\"]\",%1023[^\n]", name, rest) == 2, "bad row: %s", row);
	EXPECT_MSG(!strcmp(name, cases[i]), "row %zu is '%s', expected '%s'", i, name, cases[i]);
	if (sscanf(rest, "%lf,%lf,", &ns, &min) == 2) {
		EXPECT_MSG(ns > 0 && min > 0 && min <= ns, "%s: median %g, min %g", name, ns, min);
		EXPECT_MSG(rest[strlen(rest) - 1] == ',', "%s: measured and skipped: %s", name,
		           rest);
		return;
	}
	EXPECT_MSG(!always_runs(i), "%s was not measured: %s", name, rest);
	EXPECT_MSG(!strncmp(rest, ",,,,,\"", 6) && strlen(rest) > 8,
	           "%s: skipped without a reason: %s", name, rest);
}

TEST(cli_bench, csv)
{
	struct cli_result r;
	char *line, *save = NULL;
	size_t rows = 0;

	CLI_RUN(r, NULL, "bench", "--csv", "--repeats", "3");
	EXPECT_EQ(r.status, 0);
	ASSERT(r.out);
	line = strtok_r(r.out, "\n", &save);
	ASSERT(line);
	EXPECT(!strcmp(line, "case,ns_per_op,ns_min,instructions_per_op,ratio,baseline,skipped"));
	while ((line = strtok_r(NULL, "\n", &save)) && rows < N_CASES)
		expect_row(line, rows++);
	EXPECT_EQ(rows, N_CASES);
	EXPECT(strtok_r(NULL, "\n", &save) == NULL); /* nothing after the table */
	cli_result_free(&r);
}

static void expect_target(const struct jdoc *t)
{
	const char *verdict = jdoc_string(t, "verdict");
	double measured = jdoc_number(t, "measured", NAN), limit = jdoc_number(t, "limit", NAN);

	ASSERT(verdict && jdoc_string(t, "target"));
	if (!strcmp(verdict, "met") || !strcmp(verdict, "missed")) {
		ASSERT(!isnan(measured) && !isnan(limit));
		/* The JSON has 10 significant digits: a figure that close to its
		 * limit may have been judged on either side of it. */
		if (fabs(measured - limit) <= 1e-9 * fabs(limit))
			return;
		EXPECT_MSG((measured <= limit) == !strcmp(verdict, "met"),
		           "%s: %s with %.10g against %.10g", jdoc_string(t, "target"), verdict,
		           measured, limit);
	} else if (!strcmp(verdict, "not checked")) {
		EXPECT(jdoc_is_null(t, "measured"));
		EXPECT(jdoc_string(t, "reason") && jdoc_string(t, "reason")[0]);
	} else {
		EXPECT_MSG(!strcmp(verdict, "info"), "verdict %s", verdict);
	}
}

TEST(cli_bench, json_targets)
{
	const struct jdoc *list, *targets;
	struct cli_result r;
	struct jdoc *doc;
	char err[128];
	size_t i;

	CLI_RUN(r, NULL, "bench", "--json", "--repeats", "11");
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.out, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	EXPECT(jdoc_number(doc, "repeats", 0) == 11);
	list = jdoc_get(doc, "cases");
	ASSERT(list && list->n == N_CASES);
	for (i = 0; i < N_CASES; i++) {
		const struct jdoc *c = jdoc_at(list, i);
		EXPECT(!strcmp(jdoc_string(c, "case"), cases[i]));
		if (always_runs(i))
			EXPECT_MSG(jdoc_number(c, "samples", 0) == 11, "%s", cases[i]);
	}
	/* the raw instruction is its own baseline */
	EXPECT(jdoc_number(jdoc_at(list, 0), "ratio", 0) == 1);
	targets = jdoc_get(doc, "targets");
	ASSERT(targets && targets->n == 23); /* with the zones' measured once */
	for (i = 0; i < targets->n; i++)
		expect_target(jdoc_at(targets, i));
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_bench, text_names_the_targets)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "bench", "--repeats", "5");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "median and minimum of 5 repeats");
	EXPECT_CONTAINS(r.out, "upmc_timestamp pair <= 1.1x raw rdtsc pair: ");
	EXPECT_CONTAINS(r.out, "region begin+end, time only <= 1.3x raw serialized pair: ");
	EXPECT_CONTAINS(r.out, "upmc_read_counter <= raw rdpmc + 10 instructions");
	EXPECT_CONTAINS(r.out, "read(2) of task-clock against the user-space path: ");
	EXPECT_CONTAINS(r.out, "zone begin+end, time only <= 1.2x raw rdtsc pair: ");
	EXPECT_CONTAINS(r.out, "zone begin+end, no profile open <= 0.1x raw rdtsc pair: ");
	EXPECT_CONTAINS(r.out, "upmc_open+close, 2 events <= 2.0x raw syscalls of open+close: ");
	EXPECT_CONTAINS(r.out, "first zone of a thread, 2 events <= 2.0x upmc_open, 2 events: ");
	EXPECT_CONTAINS(r.out, "collect a zone, 8 threads <= 2.0x zone begin+end, time only: ");
	EXPECT_CONTAINS(r.out, "collected every 1 ms: dropped <= 0%: ");
	EXPECT_CONTAINS(r.out,
	                "stream a zone (collect, encode, compress, write) <= 2x zone begin+end, "
	                "time only: ");
	EXPECT_CONTAINS(r.out, "stream bytes per zone, time only <= 1.5: ");
	EXPECT_CONTAINS(r.out, "Perfetto bytes per zone, time only <= 1.5: ");
	EXPECT_CONTAINS(r.out, "Perfetto uncompressed bytes per zone, time only <= 12: ");
	cli_result_free(&r);
}
