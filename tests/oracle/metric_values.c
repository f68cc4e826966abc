/* SPDX-License-Identifier: MIT */
/*
 * upmc's side of the perf oracle (tests/core_metrics_perf_test.py): the
 * catalogue's metrics on one fixture machine of the fake kernel, and their
 * values, by the library's own evaluator, over counts the oracle draws.
 *
 *   metric_values FIXTURE list
 *     one line a metric name of the catalogue:
 *       "M\tname\tformula\tcounter,counter,..." where this machine computes it
 *       (the formula of the first row it computes, for the oracle's messages)
 *       "U\tname\treason" where it does not
 *   metric_values FIXTURE eval
 *     for each line "= METRIC" of stdin, "C\tcounter,counter,..." (the
 *     counters of a set of that metric alone), then for each line of
 *     counts by counter name ("name=value ..."), the metric's value
 *     ("%.17g", "nan" when it has none)
 *
 * FIXTURE names tests/fixtures/FIXTURE under the working directory, where
 * the oracle writes a tree for each CPU id. LIBPFM_FORCE_PMU, when the
 * oracle sets it, is in the environment before libpfm4 starts.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"

#define LINE_MAX_LEN 8192

/* The catalogue's rows, as upmc_list_metrics() gives them (once: it opens
 * each row's events to say whether this machine computes it). */
struct row {
	char name[64], events[1024], formula[512];
};

struct rows {
	struct row row[96];
	unsigned n;
};

static int collect_row(const struct upmc_metric_info *info, void *arg)
{
	struct rows *rows = arg;
	struct row *r;

	if (!info->events[0] || rows->n == 96) /* a none row names a group */
		return 0;
	r = &rows->row[rows->n++];
	snprintf(r->name, sizeof(r->name), "%s", info->name);
	snprintf(r->events, sizeof(r->events), "%s", info->events);
	snprintf(r->formula, sizeof(r->formula), "%s", info->formula);
	return 0;
}

static void counters_of(struct upmc_set *set, char *out, size_t size)
{
	size_t len = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < upmc_count(set) && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "," : "",
		                        upmc_counter_name(set, (unsigned)i));
}

/* A metric alone in a set: computed here when its open gives no reason.
 * Its formula is that of the row whose events are the set's counters. */
static void list_one(const struct rows *rows, const char *name)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	char counters[1024];
	const char *why, *formula = "?";
	struct upmc_set *set;
	unsigned i;

	if (upmc_open(&set, name, &time_only) < 0) {
		printf("U\t%s\t%s\n", name, upmc_last_error());
		return;
	}
	why = upmc_metric_reason(set, 0);
	if (why && why[0]) {
		printf("U\t%s\t%s\n", name, why);
	} else {
		counters_of(set, counters, sizeof(counters));
		for (i = 0; i < rows->n; i++)
			if (!strcmp(rows->row[i].name, name) &&
			    !strcmp(rows->row[i].events, counters))
				formula = rows->row[i].formula;
		printf("M\t%s\t%s\t%s\n", name, formula, counters);
	}
	upmc_close(set);
}

static int list_all(void)
{
	static struct rows rows;
	unsigned i, j;

	upmc_list_metrics(collect_row, &rows);
	for (i = 0; i < rows.n; i++) {
		for (j = 0; j < i && strcmp(rows.row[j].name, rows.row[i].name); j++)
			;
		if (j == i) /* each name once */
			list_one(&rows, rows.row[i].name);
	}
	return 0;
}

/* "name=value ..." into counts, by the set's counter names; 0, or -1 when
 * a counter of the set has no value in the line. */
static int parse_counts(struct upmc_set *set, char *line, double *counts)
{
	int i, n = upmc_count(set);

	for (i = 0; i < n; i++)
		counts[i] = NAN;
	for (char *save = NULL, *tok = strtok_r(line, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		char *eq = strrchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		for (i = 0; i < n; i++)
			if (!strcmp(upmc_counter_name(set, (unsigned)i), tok))
				counts[i] = strtod(eq + 1, NULL);
	}
	for (i = 0; i < n; i++)
		if (isnan(counts[i]))
			return -1;
	return 0;
}

/* Each "= METRIC" line of stdin opens that metric alone in a set (and
 * prints "C\tits counters"); each other line is counts of the set's
 * counters, whose metric value is printed. */
static int eval_metrics(void)
{
	double counts[UPMC_MAX_COUNTERS], value;
	static char line[LINE_MAX_LEN], counters[1024];
	struct upmc_set *set = NULL;

	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == '=') {
			line[strcspn(line, "\n")] = '\0';
			upmc_close(set);
			if (upmc_open(&set, line + 2, NULL) < 0) {
				fprintf(stderr, "metric_values: %s\n", upmc_last_error());
				return 1;
			}
			counters_of(set, counters, sizeof(counters));
			printf("C\t%s\n", counters);
			continue;
		}
		if (!set || parse_counts(set, line, counts) < 0) {
			fprintf(stderr, "metric_values: a line of counts without a metric, or "
			                "without a count of each of its events\n");
			upmc_close(set);
			return 1;
		}
		upmc_metrics_of_counts(set, counts, &value);
		printf("%.17g\n", value);
	}
	upmc_close(set);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[2], "list") && strcmp(argv[2], "eval"))) {
		fprintf(stderr, "usage: metric_values FIXTURE list | FIXTURE eval\n");
		return 2;
	}
	fake_boot(argv[1]);
	return !strcmp(argv[2], "list") ? list_all() : eval_metrics();
}
