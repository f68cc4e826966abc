/* SPDX-License-Identifier: MIT */
/*
 * A bench harness: grows the batch until it lasts long enough to measure
 * (which also warms the code up), then measures batches as regions.
 */
#include <errno.h>
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

/* Sizing batches whose read failed, at most, before the samples begin. */
#define SIZING_FAILURES 3

/* Every sample dropped: the failed read's sentence, in a sentence of its own. */
static int all_dropped(unsigned samples)
{
	char why[UPMC_REASON_MAX];

	upmc_format(why, sizeof(why), "%s", upmc_last_error());
	return upmc_fail(-ENODATA, "upmc_bench: all %u samples were dropped: %s", samples, why);
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
	upmc_region_close(r);
	return result->dropped == result->samples ? all_dropped(result->samples) : 0;
}
