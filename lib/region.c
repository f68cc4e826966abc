/* SPDX-License-Identifier: MIT */
/*
 * Regions: statistics of the counters and nanoseconds of a piece of code,
 * with the bias of the measurement itself calibrated and subtracted (the
 * way nanoBench and libpfc do it).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stats.h"

#define SERIES (UPMC_MAX_COUNTERS + 1) /* counters, then ns (UPMC_NS) */

struct upmc_region {
	struct upmc_set *set;
	unsigned n;                         /* the set's counters */
	int begin_read;                     /* upmc_read()'s result at begin */
	uint64_t t0, v0[UPMC_MAX_COUNTERS]; /* the begin sample */
	uint64_t dropped;                   /* regions a failed read dropped */
	char name[UPMC_NAME_MAX];
	uint64_t last[SERIES];
	struct upmc_samples *into; /* samples, or bias_samples while calibrating */
	struct upmc_samples samples[SERIES];
	struct upmc_samples bias_samples[SERIES];
	double bias_min[SERIES], bias_median[SERIES];
};

/* A region's end when a read at either end failed: dropped and counted. */
static UPMC_COLD void drop(struct upmc_region *r)
{
	r->dropped++;
}

/* The same instructions at begin and at end: a serialized timestamp, then
 * the set read (a timer-only set reads no counters), so their cost is a
 * constant that calibration measures. */
static UPMC_ALWAYS_INLINE int sample(struct upmc_region *r, uint64_t *t, uint64_t *v)
{
	*t = upmc_timestamp_serialized();
	return r->n ? upmc_read(r->set, v) : 0;
}

UPMC_API __attribute__((noinline)) void upmc_region_begin(struct upmc_region *r)
{
	if (UPMC_UNLIKELY(!r))
		return;
	r->begin_read = sample(r, &r->t0, r->v0);
}

UPMC_API __attribute__((noinline)) void upmc_region_end(struct upmc_region *r)
{
	uint64_t t, v[UPMC_MAX_COUNTERS];
	unsigned i;

	if (UPMC_UNLIKELY(!r))
		return;
	if (UPMC_UNLIKELY(sample(r, &t, v) < 0 || r->begin_read < 0)) {
		drop(r);
		return;
	}
	for (i = 0; i < r->n; i++) {
		int counted = v[i] != UPMC_NOT_COUNTED && r->v0[i] != UPMC_NOT_COUNTED;
		r->last[i] = counted ? v[i] - r->v0[i] : UPMC_NOT_COUNTED;
		if (counted)
			upmc_samples_add(&r->into[i], r->last[i]);
	}
	r->last[UPMC_NS] = upmc_ticks_to_ns(r->set, t) - upmc_ticks_to_ns(r->set, r->t0);
	upmc_samples_add(&r->into[UPMC_NS], r->last[UPMC_NS]);
}

UPMC_API uint64_t upmc_region_dropped(const struct upmc_region *r)
{
	return r ? r->dropped : 0;
}

static void reset_all(struct upmc_samples *s)
{
	unsigned i;

	for (i = 0; i < SERIES; i++)
		upmc_samples_reset(&s[i]);
}

UPMC_API int upmc_region_calibrate(struct upmc_region *r, unsigned repeats)
{
	struct upmc_stat st;
	unsigned i;

	if (!r || !repeats)
		return upmc_fail(-EINVAL, "upmc_region_calibrate: NULL region or 0 repeats");
	reset_all(r->bias_samples);
	r->into = r->bias_samples;
	for (i = 0; i < repeats; i++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	r->into = r->samples;
	for (i = 0; i < SERIES; i++) {
		upmc_samples_stat(&r->bias_samples[i], 0, &st);
		r->bias_min[i] = st.min;
		r->bias_median[i] = st.median;
	}
	return 0;
}

UPMC_API int upmc_region_open(struct upmc_region **out, struct upmc_set *set, const char *name)
{
	struct upmc_region *r;
	int err;

	if (!out || !set)
		return upmc_fail(-EINVAL, "upmc_region_open: NULL region pointer or set");
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return upmc_fail(-ENOMEM, "out of memory allocating a region");
	r->set = set;
	r->n = set->n;
	upmc_format(r->name, sizeof(r->name), "%s", name ? name : "");
	reset_all(r->samples);
	r->into = r->samples;
	err = upmc_region_calibrate(r, 1000);
	if (err < 0) {
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

UPMC_API void upmc_region_close(struct upmc_region *r)
{
	free(r);
}

UPMC_API void upmc_region_reset(struct upmc_region *r)
{
	if (r) {
		r->dropped = 0;
		reset_all(r->samples);
	}
}

UPMC_API const char *upmc_region_name(const struct upmc_region *r)
{
	if (!r)
		upmc_fail(-EINVAL, "upmc_region_name: the region is NULL");
	return r ? r->name : NULL;
}

static int check_series(const struct upmc_region *r, unsigned what, const char *fn)
{
	if (!r)
		return upmc_fail(-EINVAL, "%s: the region is NULL", fn);
	if (what != UPMC_NS && what >= r->set->n)
		return upmc_fail(-EINVAL, "%s: counter %u does not exist (the set has %u)", fn,
		                 what, r->set->n);
	return 0;
}

UPMC_API int upmc_region_stat(const struct upmc_region *r, unsigned what, int corrected,
                              struct upmc_stat *stat)
{
	int err = check_series(r, what, "upmc_region_stat");

	if (err < 0)
		return err;
	if (!stat)
		return upmc_fail(-EINVAL, "upmc_region_stat: stat is NULL");
	upmc_samples_stat(&r->samples[what], corrected ? r->bias_median[what] : 0, stat);
	return 0;
}

UPMC_API int upmc_region_bias(const struct upmc_region *r, unsigned what, double *min,
                              double *median)
{
	int err = check_series(r, what, "upmc_region_bias");

	if (err < 0)
		return err;
	if (min)
		*min = r->bias_min[what];
	if (median)
		*median = r->bias_median[what];
	return 0;
}

UPMC_API int upmc_region_last(const struct upmc_region *r, unsigned what, int corrected,
                              double *value)
{
	int err = check_series(r, what, "upmc_region_last");

	if (err < 0)
		return err;
	if (!value)
		return upmc_fail(-EINVAL, "upmc_region_last: value is NULL");
	if (r->last[what] == UPMC_NOT_COUNTED)
		return upmc_fail(-ENODATA, "upmc_region_last: counter %u did not count", what);
	*value = (double)r->last[what] - (corrected ? r->bias_median[what] : 0);
	return 0;
}
