/* SPDX-License-Identifier: MIT */
/*
 * A bench harness: grows the batch until it lasts long enough to measure
 * (which also warms the code up), then measures batches as regions.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lib/core/internal.h"

static int read_bench_options(const struct upmc_bench_options *opts, struct upmc_bench_options *o)
{
	int err;

	o->size = sizeof(*o);
	o->min_repeats = 1;
	o->min_ns = 1000000;
	o->max_repeats = 1000000000;
	o->samples = 31;
	if (!opts)
		return 0;
	if (opts->size < sizeof(*o))
		return upmc_fail(-EINVAL,
		                 "upmc_bench_options.size is %zu: set it to "
		                 "sizeof(struct upmc_bench_options)",
		                 opts->size);
	err = upmc_check_struct_size(opts, opts->size, sizeof(*opts), "upmc_bench_options");
	if (err < 0)
		return err;
	o->min_repeats = opts->min_repeats ? opts->min_repeats : o->min_repeats;
	o->min_ns = opts->min_ns ? opts->min_ns : o->min_ns;
	o->max_repeats = opts->max_repeats ? opts->max_repeats : o->max_repeats;
	o->samples = opts->samples ? opts->samples : o->samples;
	if (o->min_repeats > o->max_repeats)
		return upmc_fail(-EINVAL, "upmc_bench: min_repeats %llu > max_repeats %llu",
		                 (unsigned long long)o->min_repeats,
		                 (unsigned long long)o->max_repeats);
	return 0;
}

static void batch(struct upmc_region *r, void (*fn)(void *), void *arg, uint64_t repeats)
{
	uint64_t k;

	upmc_region_begin(r);
	for (k = 0; k < repeats; k++)
		fn(arg);
	upmc_region_end(r);
}

/* Per-call statistics: each batch's corrected value over the batch size. */
static void per_call(const struct upmc_region *r, unsigned what, uint64_t repeats,
                     struct upmc_stat *out)
{
	upmc_region_stat(r, what, 1, out);
	out->min /= (double)repeats;
	out->max /= (double)repeats;
	out->median /= (double)repeats;
	out->mean /= (double)repeats;
}

/* The set's metrics, bias subtracted: per sample, and of the totals. A
 * metric is a ratio of counts, the same per batch as per call. */
static void metrics_of_samples(const struct upmc_region *r, const struct upmc_set *set,
                               struct upmc_bench_result *out)
{
	unsigned j;

	out->metrics = set->state->n_metrics;
	for (j = 0; j < out->metrics; j++) {
		upmc_region_metric_stat(r, j, 1, &out->metric[j]);
		upmc_region_metric_of_totals(r, j, 1, &out->metric_of_totals[j]);
	}
}

/* Metrics without per-sample values (none, or from passes whose sets have
 * no metrics): NAN, and of the totals from the per-call means when every
 * input has some (each mean is of its pass's samples). */
static void metrics_of_means(const struct upmc_set *set, struct upmc_bench_result *out)
{
	double mean[UPMC_MAX_COUNTERS];
	unsigned i, j;

	for (i = 0; i < set->n; i++)
		mean[i] = out->counter[i].count ? out->counter[i].mean : NAN;
	out->metrics = set->state->n_metrics;
	for (j = 0; j < out->metrics; j++) {
		out->metric[j] = (struct upmc_stat){0, NAN, NAN, NAN, NAN};
		out->metric_of_totals[j] = upmc_metric_value_of(&set->state->metric[j], mean);
	}
}

/* Sizing batches whose read failed, at most, before the samples begin. */
#define SIZING_FAILURES 3

/* Every sample dropped: the failed read's sentence, in a sentence of its own. */
static int all_dropped(unsigned samples)
{
	char why[UPMC_REASON_MAX];

	upmc_format(why, sizeof(why), "%s", upmc_last_error());
	return upmc_fail(-ENODATA, "upmc_bench: all %u samples were dropped: %s", samples, why);
}

/* ---- rotation: the set's perf groups in pinned passes ---- */

/* Counters of the set that one pass measures, by their index in the set. */
struct pass {
	unsigned n;
	unsigned idx[UPMC_MAX_COUNTERS];
};

/* The perf group counter i is in (perf_open.c's rule): its metrics' group,
 * or one of its own. */
static unsigned group_of(const struct upmc_set *set, unsigned i)
{
	unsigned g = set->state->counter[i].event.metric_group;

	return g ? g : UPMC_MAX_METRICS + 1 + i;
}

/* The pass's counters as a set of their own, pinned: all of them on the
 * PMU together, or the open fails. */
static int open_pass(const struct upmc_set *set, const struct pass *p, struct upmc_set **out)
{
	struct upmc_options o = {sizeof(o),
	                         set->state->flags & ~(UPMC_OPT_MULTIPLEX | UPMC_OPT_TIME_ONLY)};
	char spec[UPMC_MAX_COUNTERS * (UPMC_NAME_MAX + 1)] = "";
	size_t len = 0;
	unsigned k;

	for (k = 0; k < p->n; k++) {
		upmc_format(spec + len, sizeof(spec) - len, "%s%s", k ? "," : "",
		            set->state->counter[p->idx[k]].event.name);
		len += strlen(spec + len);
	}
	return upmc_open(out, spec, &o);
}

static int pass_fits(const struct upmc_set *set, const struct pass *p)
{
	struct upmc_set *s;

	if (open_pass(set, p, &s) < 0)
		return 0;
	upmc_close(s);
	return 1;
}

/* The set's groups, in order, each added to the last pass while that one
 * still fits the PMU, else to a new pass. 0, or the error of a group that
 * does not fit by itself. Counters that cannot count are in no pass. */
static int plan_passes(const struct upmc_set *set, struct pass *passes, unsigned *n_passes)
{
	int placed[UPMC_MAX_COUNTERS] = {0};
	struct upmc_set *s;
	unsigned i, j, k;
	int err;

	*n_passes = 0;
	for (i = 0; i < set->n; i++) {
		struct pass grp = {0}, trial;
		if (placed[i] || set->state->counter[i].path == UPMC_PATH_UNAVAILABLE)
			continue;
		for (j = i; j < set->n; j++)
			if (!placed[j] && group_of(set, j) == group_of(set, i)) {
				grp.idx[grp.n++] = j;
				placed[j] = 1;
			}
		if (*n_passes) {
			trial = passes[*n_passes - 1];
			for (k = 0; k < grp.n; k++)
				trial.idx[trial.n++] = grp.idx[k];
			if (pass_fits(set, &trial)) {
				passes[*n_passes - 1] = trial;
				continue;
			}
		}
		err = open_pass(set, &grp, &s);
		if (err < 0)
			return err;
		upmc_close(s);
		passes[(*n_passes)++] = grp;
	}
	return 0;
}

/* One bench per pass, the later ones at the first one's batch size. */
static int bench_rotating(const struct upmc_set *set, void (*fn)(void *), void *arg,
                          const struct upmc_bench_options *o, struct upmc_bench_result *result)
{
	struct pass passes[UPMC_MAX_COUNTERS];
	struct upmc_bench_options each = *o;
	struct upmc_bench_result r;
	unsigned n_passes, p, k;
	int err = plan_passes(set, passes, &n_passes);

	if (err < 0)
		return err;
	result->passes = n_passes;
	for (p = 0; p < n_passes; p++) {
		struct upmc_set *s;
		err = open_pass(set, &passes[p], &s);
		if (err == 0) {
			err = upmc_bench(s, fn, arg, &each, &r);
			upmc_close(s);
		}
		if (err < 0)
			return err;
		if (p == 0) {
			result->repeats = r.repeats;
			result->ns = r.ns;
			each.min_repeats = each.max_repeats = r.repeats;
		}
		result->samples += r.samples;
		result->dropped += r.dropped;
		for (k = 0; k < passes[p].n; k++) {
			result->counter[passes[p].idx[k]] = r.counter[k];
			result->pass[passes[p].idx[k]] = p;
		}
	}
	metrics_of_means(set, result);
	return 0;
}

UPMC_API int upmc_bench(struct upmc_set *set, void (*fn)(void *), void *arg,
                        const struct upmc_bench_options *opts, struct upmc_bench_result *result)
{
	struct upmc_bench_options o;
	struct upmc_region *r;
	double ns = 0;
	unsigned i, failures = 0;
	int err;

	if (!set || !fn || !result)
		return upmc_fail(-EINVAL, "upmc_bench: set, fn or result is NULL");
	err = read_bench_options(opts, &o);
	if (err < 0)
		return err;
	err = upmc_region_open(&r, set, "bench");
	if (err < 0)
		return err;
	memset(result, 0, sizeof(*result));
	result->passes = 1;
	result->repeats = o.min_repeats;
	for (;;) {
		batch(r, fn, arg, result->repeats);
		/* A batch whose read failed tells nothing of its length: it is
		 * run again, at most SIZING_FAILURES times in all, and then the
		 * samples go on at this size (and are dropped too, while the
		 * counters stay taken) rather than growing it to max_repeats. */
		if (upmc_region_last(r, UPMC_NS, 0, &ns) < 0) {
			if (++failures == SIZING_FAILURES)
				break;
			continue;
		}
		if (ns >= (double)o.min_ns || result->repeats > o.max_repeats / 10)
			break;
		result->repeats *= 10;
	}
	upmc_region_reset(r);
	for (i = 0; i < o.samples; i++)
		batch(r, fn, arg, result->repeats);
	result->samples = o.samples;
	/* A batch whose read failed is in no statistic: counted here. */
	result->dropped = upmc_region_dropped(r);
	per_call(r, UPMC_NS, result->repeats, &result->ns);
	for (i = 0; i < set->n; i++)
		per_call(r, i, result->repeats, &result->counter[i]);
	if (result->dropped == result->samples) {
		metrics_of_means(set, result); /* NAN: no sample has a value */
		err = all_dropped(result->samples);
	} else {
		metrics_of_samples(r, set, result);
		err = 0;
	}
	upmc_region_close(r);
	return err;
}

UPMC_API int upmc_bench_rotating(struct upmc_set *set, void (*fn)(void *), void *arg,
                                 const struct upmc_bench_options *opts,
                                 struct upmc_bench_result *result)
{
	struct upmc_bench_options o;
	int err;

	if (!set || !fn || !result)
		return upmc_fail(-EINVAL, "upmc_bench_rotating: set, fn or result is NULL");
	err = read_bench_options(opts, &o);
	if (err < 0)
		return err;
	memset(result, 0, sizeof(*result));
	return bench_rotating(set, fn, arg, &o, result);
}
