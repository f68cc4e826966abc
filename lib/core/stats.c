/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void upmc_samples_reset(struct upmc_samples *s)
{
	s->count = 0;
	s->min = UINT64_MAX;
	s->max = 0;
	s->sum = 0;
	s->rng = 0x9e3779b97f4a7c15ull;
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

void upmc_samples_add(struct upmc_samples *s, uint64_t x)
{
	/* Reservoir sampling: every sample so far is kept with equal chance. */
	if (s->count < UPMC_SAMPLES_KEPT) {
		s->kept[s->count] = x;
	} else {
		uint64_t slot = next_random(&s->rng) % (s->count + 1);
		if (slot < UPMC_SAMPLES_KEPT)
			s->kept[slot] = x;
	}
	s->count++;
	s->min = x < s->min ? x : s->min;
	s->max = x > s->max ? x : s->max;
	s->sum += (double)x;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The median of the kept samples (the mean of the middle two when even). */
static double median(const struct upmc_samples *s)
{
	size_t n = s->count < UPMC_SAMPLES_KEPT ? (size_t)s->count : UPMC_SAMPLES_KEPT;
	uint64_t *sorted = malloc(n * sizeof(*sorted));
	double m;

	if (!sorted)
		return 0;
	memcpy(sorted, s->kept, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_value);
	m = n % 2 ? (double)sorted[n / 2] : ((double)sorted[n / 2 - 1] + (double)sorted[n / 2]) / 2;
	free(sorted);
	return m;
}

void upmc_samples_stat(const struct upmc_samples *s, double bias, struct upmc_stat *out)
{
	memset(out, 0, sizeof(*out));
	out->count = s->count;
	if (!s->count)
		return;
	out->min = (double)s->min - bias;
	out->max = (double)s->max - bias;
	out->mean = s->sum / (double)s->count - bias;
	out->median = median(s) - bias;
}
