/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s arithmetic: a counter's figure between two readings, by
 * the library's one rule for intervals, and the mean and spread of -r's
 * runs, as perf stat computes them.
 */
#include <math.h>

#include "cli/stat.h"

/*
 * A multiplexed counter's scale changes between two reads, so the
 * difference of two scaled totals is not the interval's count; the
 * library's rule scales the interval by its own times. A counter that was
 * never multiplexed is exact: its difference, even over a span its task did
 * not run (the times stand still, and so does the count).
 */
void stat_figure_between(struct stat_figure *f, const struct stat_reading *before,
                         const struct stat_reading *after)
{
	const uint64_t b[3] = {before->count, before->enabled, before->running};
	const uint64_t a[3] = {after->count, after->enabled, after->running};
	int multiplexed = after->running < after->enabled;

	upmc_interval_of(multiplexed, 1, b, a, &f->value, NULL);
	f->enabled = after->enabled - before->enabled;
	f->running = after->running - before->running;
	f->noise = 0;
	f->runs = f->planned = 0;
}

/* Units count apart: their counts and times add up (perf stat's
 * aggregation), and the sum is scaled as one. */
struct stat_reading stat_sum_units(const struct stat_run *run, const struct stat_reading *r,
                                   unsigned i)
{
	struct stat_reading sum = {0, 0, 0};
	unsigned u;

	for (u = 0; u < run->n_units; u++) {
		const struct stat_reading *one = &r[u * run->n + i];
		sum.count += one->count;
		sum.enabled += one->enabled;
		sum.running += one->running;
	}
	return sum;
}

void stat_spread_add(struct stat_spread *s, double x)
{
	double delta = x - s->mean;

	s->n++;
	s->mean += delta / s->n;
	s->m2 += delta * (x - s->mean);
}

double stat_spread_error(const struct stat_spread *s)
{
	if (s->n < 2)
		return 0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

double stat_spread_noise(const struct stat_spread *s)
{
	return s->mean ? 100.0 * stat_spread_error(s) / s->mean : 0;
}
