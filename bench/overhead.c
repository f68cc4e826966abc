/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's runner: sizes each case's batch, then measures every case
 * in every repeat, in a rotating order, so that whatever the machine does
 * meanwhile (interrupts, frequency, a neighbour's load) hits all of them
 * alike; reports the median and the minimum per operation.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/overhead.h"

#define DEFAULT_REPEATS 1001
#define BATCH_NS        100000ull /* a batch: long against the clock's own cost */
#define MAX_ITERS       (1ull << 24)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int setup(struct bench_case *c)
{
	char why[sizeof(c->skipped)];

	if (!c->ops->setup || c->ops->setup(c, why, sizeof(why)) == 0)
		return 0;
	snprintf(c->skipped, sizeof(c->skipped), "%s", why);
	return -1;
}

static void teardown(struct bench_case *c)
{
	if (c->ops->teardown)
		c->ops->teardown(c);
}

static uint64_t timed_batch(struct bench_case *c, uint64_t iters)
{
	uint64_t t0;

	if (c->ops->timed)
		return c->ops->timed(c, iters);
	t0 = now_ns();
	c->ops->run(c, iters);
	return now_ns() - t0;
}

/* Instructions per operation, from the set's counter 0 (instructions)
 * around an untimed batch; NAN when it cannot be read. */
static double instructions_per_op(struct bench_case *c)
{
	uint64_t before, after;

	if (!c->set || upmc_read_counter(c->set, 0, &before) < 0)
		return NAN;
	c->ops->run(c, c->iters);
	if (upmc_read_counter(c->set, 0, &after) < 0 || after < before)
		return NAN;
	return (double)(after - before) / (double)c->iters;
}

/* Doubles the batch until it lasts BATCH_NS; a first pass warms it up. */
static void size_batch(struct bench_case *c)
{
	uint64_t iters = c->slow ? 1 : 16;

	c->ops->run(c, iters);
	while (iters < MAX_ITERS && timed_batch(c, iters) < BATCH_NS)
		iters *= 2;
	c->iters = iters;
}

/* Sizes every case, with its resources open; skips those the machine cannot run. */
static void prepare(struct bench_case *cases, size_t n, unsigned repeats)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct bench_case *c = &cases[i];
		c->ns = calloc(repeats, sizeof(double));
		c->instr = calloc(repeats, sizeof(double));
		if (!c->ns || !c->instr) {
			snprintf(c->skipped, sizeof(c->skipped), "out of memory");
			continue;
		}
		if (setup(c) < 0)
			continue;
		size_batch(c);
		if (c->hardware)
			teardown(c); /* opened again for each of its batches */
	}
}

/* One batch of case c: its ns per operation (and instructions) recorded. */
static void measure(struct bench_case *c)
{
	char why[sizeof(c->skipped)];
	double instr;

	/* Hardware sets open one at a time: they never compete for counters. */
	if (c->hardware && c->ops->setup(c, why, sizeof(why)) < 0)
		return; /* a failed batch leaves no sample; none at all skips it */
	c->ns[c->samples++] = (double)timed_batch(c, c->iters) / (double)c->iters;
	if (c->hardware) {
		instr = instructions_per_op(c);
		if (!isnan(instr))
			c->instr[c->instr_samples++] = instr;
		teardown(c);
	}
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, unsigned n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void summarise(struct bench_case *c)
{
	if (c->skipped[0])
		return;
	if (!c->samples) {
		snprintf(c->skipped, sizeof(c->skipped), "no batch could be measured");
		return;
	}
	c->median = median(c->ns, c->samples);
	c->min = c->ns[0]; /* sorted by median() */
	c->instr_median = median(c->instr, c->instr_samples);
}

static void run_all(struct bench_case *cases, size_t n, unsigned repeats)
{
	unsigned r;
	size_t k;

	prepare(cases, n, repeats);
	for (r = 0; r < repeats; r++)
		for (k = 0; k < n; k++) {
			struct bench_case *c = &cases[(k + r) % n]; /* a rotating order */
			if (!c->skipped[0])
				measure(c);
		}
	for (k = 0; k < n; k++) {
		if (!cases[k].hardware && !cases[k].skipped[0])
			teardown(&cases[k]);
		summarise(&cases[k]);
	}
}

static void release(struct bench_case *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(cases[i].ns);
		free(cases[i].instr);
		cases[i].ns = cases[i].instr = NULL;
		cases[i].samples = cases[i].instr_samples = 0;
	}
}

enum format { TEXT, JSON, CSV };

static int usage(const char *prog, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr,
	        "\nusage: %s [--json | --csv] [--repeats N]   (N from 3 to 100000, "
	        "default %d)\n",
	        prog, DEFAULT_REPEATS);
	return 2;
}

static int parse_args(int argc, char **argv, const char *prog, enum format *format,
                      unsigned *repeats)
{
	int i;

	*format = TEXT;
	*repeats = DEFAULT_REPEATS;
	for (i = 0; i < argc; i++) {
		char *end;
		unsigned long v;
		if (!strcmp(argv[i], "--json")) {
			*format = JSON;
		} else if (!strcmp(argv[i], "--csv")) {
			*format = CSV;
		} else if (!strcmp(argv[i], "--repeats")) {
			if (i + 1 == argc)
				return usage(prog, "%s needs a number", argv[i]);
			v = strtoul(argv[++i], &end, 10);
			if (*end || v < 3 || v > 100000)
				return usage(prog, "bad repeat count '%s'", argv[i]);
			*repeats = (unsigned)v;
		} else {
			return usage(prog, "unknown option '%s'", argv[i]);
		}
	}
	return 0;
}

int upmc_overhead_main(int argc, char **argv, const char *prog)
{
	static struct bench_zones zones;
	struct bench_report report;
	struct bench_case *cases;
	enum format format;
	time_t now = time(NULL);
	int err = parse_args(argc, argv, prog, &format, &report.repeats);

	if (err)
		return err;
	report.n = bench_cases(&cases);
	report.cases = cases;
	report.batch_ns = BATCH_NS;
	strftime(report.date, sizeof(report.date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	run_all(cases, report.n, report.repeats);
	report.zones = NULL;
	if (format != CSV) { /* the CSV is the table alone */
		bench_measure_zones(&zones);
		report.zones = &zones;
	}
	if (format == JSON)
		bench_print_json(&report);
	else if (format == CSV)
		bench_print_csv(&report);
	else
		bench_print_text(&report);
	release(cases, report.n);
	return 0;
}
