/* SPDX-License-Identifier: MIT */
/*
 * upmc's side of the perf oracle (tests/core_metrics_perf_test.py): the
 * catalogue's metrics on one fixture machine of the fake kernel, and their
 * values, by the library's own evaluator, over counts the oracle draws.
 *
 *   metric_values FIXTURE rows
 *     the catalogue, a line a row: "R\tname\tevents\tformula" (rows that
 *     say a kind of CPU has none of a group left out)
 *   metric_values FIXTURE run
 *     answers the lines of stdin, each at once (stdout is flushed); a
 *     METRIC is a spec item: "cpu_atom/retiring/" names one core type's
 *     of a hybrid CPU:
 *     "? METRIC"  "M\tMETRIC\tcounter,counter,..." where this machine
 *                 computes it (the counters of a set of it alone), or
 *                 "U\tMETRIC\treason" where it does not
 *     "= METRIC"  opens a set of it alone: "C\tcounter,counter,..."
 *     "name=value ..."  counts of that set's counters: the metric's value
 *                 ("%.17g", "nan" when it has none)
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
#define COUNTERS_MAX 1024

static int print_row(const struct upmc_metric_info *info, void *arg)
{
	(void)arg;
	if (info->events[0]) /* a none row names a group */
		printf("R\t%s\t%s\t%s\n", info->name, info->events, info->formula);
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

/* A set of metric name alone (flags: upmc's options); where one group of
 * the thread's counters cannot hold its inputs (the pinned set's open
 * fails, or gives the metric a reason), a multiplexed set, as upmc stat
 * opens it: a metric whose inputs no such group holds (Skylake's memory
 * bound) counts each alone there, as perf does. */
static int open_alone(struct upmc_set **set, const char *name, unsigned flags)
{
	struct upmc_options pinned = {sizeof(pinned), flags};
	struct upmc_options multiplexed = {sizeof(multiplexed), flags | UPMC_OPT_MULTIPLEX};
	struct upmc_set *mux;
	const char *why;

	if (upmc_open(set, name, &pinned) < 0)
		return upmc_open(set, name, &multiplexed);
	why = upmc_metric_reason(*set, 0);
	if (why && why[0] && upmc_open(&mux, name, &multiplexed) == 0) {
		upmc_close(*set);
		*set = mux;
	}
	return 0;
}

/* A metric alone in a set: computed here when its open gives no reason. */
static void probe(const char *name)
{
	char counters[COUNTERS_MAX];
	struct upmc_set *set;
	const char *why;

	if (open_alone(&set, name, UPMC_OPT_TIME_ONLY) < 0) {
		printf("U\t%s\t%s\n", name, upmc_last_error());
		return;
	}
	why = upmc_metric_reason(set, 0);
	counters_of(set, counters, sizeof(counters));
	if (why && why[0])
		printf("U\t%s\t%s\n", name, why);
	else
		printf("M\t%s\t%s\n", name, counters);
	upmc_close(set);
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

/* One line of stdin answered; -1 on a line it cannot answer. */
static int answer(char *line, struct upmc_set **set)
{
	double counts[UPMC_MAX_COUNTERS], values[UPMC_MAX_METRICS];
	char counters[COUNTERS_MAX];

	line[strcspn(line, "\n")] = '\0';
	if (line[0] == '?') {
		probe(line + 2);
	} else if (line[0] == '=') {
		upmc_close(*set);
		*set = NULL;
		if (open_alone(set, line + 2, 0) < 0) {
			fprintf(stderr, "metric_values: %s\n", upmc_last_error());
			return -1;
		}
		counters_of(*set, counters, sizeof(counters));
		printf("C\t%s\n", counters);
	} else if (*set && parse_counts(*set, line, counts) == 0) {
		upmc_metrics_of_counts(*set, counts, values);
		printf("%.17g\n", values[0]); /* the first: the metric the line named */
	} else {
		fprintf(stderr, "metric_values: counts without a metric, or without a count of "
		                "each of its events\n");
		return -1;
	}
	return 0;
}

static int run(void)
{
	static char line[LINE_MAX_LEN];
	struct upmc_set *set = NULL;
	int err = 0;

	while (!err && fgets(line, sizeof(line), stdin)) {
		err = answer(line, &set);
		fflush(stdout);
	}
	upmc_close(set);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[2], "rows") && strcmp(argv[2], "run"))) {
		fprintf(stderr, "usage: metric_values FIXTURE rows | FIXTURE run\n");
		return 2;
	}
	fake_boot(argv[1]);
	if (!strcmp(argv[2], "rows"))
		return upmc_list_metrics(print_row, NULL) < 0;
	return run();
}
