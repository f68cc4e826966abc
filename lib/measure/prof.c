/* SPDX-License-Identifier: MIT */
/* <upmc/prof.h>: a lazily opened region per call site, printed per pass. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <upmc/prof.h>

#include "lib/core/internal.h"

static const struct upmc_options time_only = {sizeof(struct upmc_options), UPMC_OPT_TIME_ONLY};

static int prof_open(struct upmc_prof *p)
{
	if (p->set && p->set->state->forked)
		upmc_prof_close(p); /* a forked worker: the parent's set counts the parent */
	if (p->region || p->failed)
		return p->region ? 0 : -1;
	if (upmc_open(&p->set, p->events, &time_only) < 0 ||
	    upmc_region_open(&p->region, p->set, p->name) < 0) {
		fprintf(stderr, "upmc %s: %s\n", p->name, upmc_last_error());
		upmc_close(p->set);
		p->set = NULL;
		p->failed = 1;
		return -1;
	}
	return 0;
}

static int prof_null(const struct upmc_prof *p, const char *fn)
{
	return p ? 0 : upmc_fail(-EINVAL, "%s: the prof pointer is NULL", fn);
}

UPMC_API void upmc_prof_begin(struct upmc_prof *p)
{
	if (prof_null(p, "upmc_prof_begin") == 0 && prof_open(p) == 0)
		upmc_region_begin(p->region);
}

/*
 * v as "%.0f" prints it (to nearest, ties to even, "-0" for a negative
 * value that rounds to 0), by an integer conversion: printf's formatting
 * of a double is most of what a line costs, and the more so the larger
 * the value (the ns grow with the clock).
 */
static void print_rounded(FILE *out, double v)
{
	long long t = (long long)v; /* toward zero */
	const double frac = v - (double)t;

	if (frac > 0.5 || (frac == 0.5 && (t & 1)))
		t++;
	else if (frac < -0.5 || (frac == -0.5 && (t & 1)))
		t--;
	fprintf(out, t == 0 && v < 0 ? "-%lld" : "%lld", t);
}

/* The last region's metrics, as upmc_metrics() gives them (from its
 * counts less the bias): ", IPC 1.23, branch-miss-ratio 2.50%". */
static void print_metrics(const struct upmc_prof *p, FILE *out)
{
	const int n = upmc_metric_count(p->set);
	double v;
	int j;

	for (j = 0; j < n; j++) {
		const char *name = upmc_metric_name(p->set, (unsigned)j);
		if (upmc_region_metric_last(p->region, (unsigned)j, 1, &v) < 0)
			fprintf(out, ", %s n/a", name);
		else if (upmc_metric_is_percent(p->set, (unsigned)j))
			fprintf(out, ", %s %.2f%%", name, 100 * v);
		else
			fprintf(out, ", %s %.2f", name, v);
	}
}

UPMC_API void upmc_prof_end(struct upmc_prof *p, FILE *out)
{
	double v = 0; /* set by every upmc_region_last() that succeeds; gcc -O3 cannot tell */
	unsigned i;

	if (prof_null(p, "upmc_prof_end") < 0 || !p->region)
		return;
	if (!out)
		out = stderr;
	upmc_region_end(p->region);
	if (upmc_region_dropped(p->region) > p->dropped) {
		p->dropped = upmc_region_dropped(p->region);
		fprintf(out, "upmc %s: dropped (%s), %llu so far\n", p->name,
		        upmc_last_error()[0] ? upmc_last_error() : "a begin had no end",
		        (unsigned long long)p->dropped);
		return;
	}
	if (upmc_region_last(p->region, UPMC_NS, 1, &v) < 0) {
		fprintf(out, "upmc %s: %s\n", p->name, upmc_last_error());
		return;
	}
	fprintf(out, "upmc %s: ", p->name);
	print_rounded(out, v);
	fputs(" ns", out);
	for (i = 0; i < p->set->n; i++) {
		if (upmc_region_last(p->region, i, 1, &v) < 0) {
			fprintf(out, ", %s n/a", upmc_counter_name(p->set, i));
		} else {
			fprintf(out, ", %s ", upmc_counter_name(p->set, i));
			print_rounded(out, v);
		}
	}
	print_metrics(p, out);
	fprintf(out, "\n");
}

UPMC_API void upmc_prof_close(struct upmc_prof *p)
{
	if (prof_null(p, "upmc_prof_close") < 0)
		return;
	upmc_region_close(p->region);
	upmc_close(p->set);
	p->region = NULL;
	p->set = NULL;
}
