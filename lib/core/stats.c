/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

void upmc_samples_reset(struct upmc_samples *s)
{
	s->count = 0;
	s->min = UINT64_MAX;
	s->max = 0;
	s->sum = 0;
	s->next = 0;
	s->rng = 0x9e3779b97f4a7c15ull;
}

static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* A uniform double in (0, 1]: never 0, which no run passed over is below. */
static double uniform(uint64_t *state)
{
	return (double)((next_random(state) >> 11) + 1) * 0x1p-53;
}

/* The first sample from number t on that the reservoir keeps: each is
 * passed over with chance (j + 1 - KEPT) / (j + 1), and the run of those
 * passed over is drawn at once by inverting its distribution. */
static uint64_t next_kept(struct upmc_samples *s, uint64_t t)
{
	const double u = uniform(&s->rng);
	double others = (double)(t + 1 - UPMC_SAMPLES_KEPT), all = (double)(t + 1);
	double passed = others / all;

	while (passed > u) {
		t++;
		others += 1;
		all += 1;
		passed *= others / all;
	}
	return t;
}

size_t upmc_samples_slot(struct upmc_samples *s)
{
	size_t slot;

	if (s->count < UPMC_SAMPLES_KEPT) {
		slot = (size_t)s->count;
		s->next = s->count + 1;
		if (s->next < UPMC_SAMPLES_KEPT)
			return slot;
	} else {
		slot = (size_t)(next_random(&s->rng) % UPMC_SAMPLES_KEPT);
	}
	s->next = next_kept(s, s->count + 1);
	return slot;
}

void upmc_samples_keep(struct upmc_samples *s, uint64_t x)
{
	s->kept[upmc_samples_slot(s)] = x;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* A kept sample's value: the integer, or the double it is the key of. */
static double value_of(uint64_t kept, int doubles)
{
	return doubles ? upmc_key_double(kept) : (double)kept;
}

/* The median of the kept samples (the mean of the middle two when even). */
static double median(const struct upmc_samples *s, int doubles)
{
	size_t n = s->count < UPMC_SAMPLES_KEPT ? (size_t)s->count : UPMC_SAMPLES_KEPT;
	uint64_t *sorted = malloc(n * sizeof(*sorted));
	double m;

	if (!sorted)
		return 0;
	memcpy(sorted, s->kept, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_value);
	m = n % 2 ? value_of(sorted[n / 2], doubles)
	          : (value_of(sorted[n / 2 - 1], doubles) + value_of(sorted[n / 2], doubles)) / 2;
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
	out->median = median(s, 0) - bias;
}

void upmc_samples_stat_doubles(const struct upmc_samples *s, struct upmc_stat *out)
{
	out->count = s->count;
	if (!s->count) {
		out->min = out->max = out->median = out->mean = NAN;
		return;
	}
	out->min = upmc_key_double(s->min);
	out->max = upmc_key_double(s->max);
	out->mean = s->sum / (double)s->count;
	out->median = median(s, 1);
}
