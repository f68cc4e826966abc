/* SPDX-License-Identifier: MIT */
/*
 * Intervals: a counter's count between two snapshots of its set. The one
 * rule every layer measures with (regions, upmc_bench, UPMC_PROF,
 * upmc_measure_call, zones, the bindings).
 *
 * A multiplexed counter is not on the PMU all the time: the kernel gives
 * its count and the time its group was enabled and running, and the count
 * is extrapolated by enabled / running. That scale changes between two
 * reads, so the difference of two scaled totals is not the interval's
 * count (it can even be negative). The interval is scaled by its own
 * times instead, as perf stat -I does: (c1 - c0) x (e1 - e0) / (r1 - r0).
 */
#include <errno.h>

#include "internal.h"

UPMC_API int upmc_snapshot_words(const struct upmc_set *set)
{
	if (!set)
		return upmc_fail(-EINVAL, "upmc_snapshot_words: the set is NULL");
	return (int)set->state->snapshot_words;
}

/* One multiplexed counter's interval from its count and times at both ends. */
static uint64_t scaled_interval(uint64_t c0, uint64_t c1, uint64_t e0, uint64_t e1, uint64_t r0,
                                uint64_t r1, double *ratio)
{
	*ratio = 0;
	if (c0 == UPMC_NOT_COUNTED || c1 == UPMC_NOT_COUNTED || c1 < c0 || r1 <= r0 || e1 < e0)
		return UPMC_NOT_COUNTED; /* it never ran in the interval: no count to scale */
	*ratio = e1 > e0 ? (double)(r1 - r0) / (double)(e1 - e0) : 1;
	return upmc_scale(c1 - c0, e1 - e0, r1 - r0);
}

/* upmc_interval_of() of a multiplexed set: each count scaled. */
static UPMC_COLD void scaled_intervals(unsigned n, const uint64_t *before, const uint64_t *after,
                                       uint64_t *counts, double *ratios)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		double ratio;
		counts[i] = scaled_interval(before[i], after[i], before[n + i], after[n + i],
		                            before[2 * n + i], after[2 * n + i], &ratio);
		if (ratios)
			ratios[i] = counts[i] == UPMC_NOT_COUNTED ? 0 : ratio;
	}
}

/* The multiplexed case out of line (its 128-bit division is a call): the
 * usual one, a difference per counter, then needs no frame (it runs for
 * every upmc_metrics()). */
void upmc_interval_of(int multiplexed, unsigned n, const uint64_t *before, const uint64_t *after,
                      uint64_t *counts, double *ratios)
{
	unsigned i;

	if (multiplexed) {
		scaled_intervals(n, before, after, counts, ratios);
		return;
	}
	for (i = 0; i < n; i++)
		counts[i] = upmc_count_between(before[i], after[i]);
	for (i = 0; ratios && i < n; i++)
		ratios[i] = counts[i] == UPMC_NOT_COUNTED ? 0 : 1;
}

UPMC_API int upmc_interval(const struct upmc_set *set, const uint64_t *before,
                           const uint64_t *after, uint64_t *counts, double *ratios)
{
	if (!set || !before || !after || !counts)
		return upmc_fail(-EINVAL, "upmc_interval: the set, a snapshot or counts is NULL");
	upmc_interval_of(set->state->multiplexed, set->n, before, after, counts, ratios);
	return (int)set->n;
}

uint64_t upmc_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
#ifdef __SIZEOF_INT128__
	__extension__ unsigned __int128 scaled;
#else
	long double scaled;
#endif

	if (!running || count == UPMC_NOT_COUNTED)
		return UPMC_NOT_COUNTED;
	if (enabled == running)
		return count;
#ifdef __SIZEOF_INT128__
	scaled = (__extension__(unsigned __int128) count * enabled) / running;
#else
	scaled = (long double)count * (long double)enabled / (long double)running;
#endif
	return scaled >= UPMC_NOT_COUNTED ? UPMC_NOT_COUNTED - 1 : (uint64_t)scaled;
}
