/* SPDX-License-Identifier: MIT */
/* Samples of one series and their statistics (private to the library). */
#ifndef UPMC_STATS_H
#define UPMC_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <upmc/upmc.h>

/* Samples kept for the median; beyond, a uniform random subset of them. */
#define UPMC_SAMPLES_KEPT 4096

/*
 * Bounded whatever the count: min, max and the sum are exact; the median is
 * that of a uniform random subset of UPMC_SAMPLES_KEPT samples (a
 * reservoir: sample j, counted from 0, is kept with chance KEPT / (j + 1)).
 * Which sample is kept next is drawn once, when the last one is kept, so
 * that adding one costs a compare, not a random number and a division:
 * Vitter's algorithm X (the run passed over, a step per sample) while the
 * runs are short, then Li's algorithm L (the run at once, from the largest
 * of the random keys that a reservoir of the smallest keys holds, W).
 */
struct upmc_samples {
	uint64_t kept[UPMC_SAMPLES_KEPT];
	uint64_t count, min, max;
	uint64_t next; /* the count at which the next sample is kept */
	double sum;
	uint64_t rng;
	double w; /* algorithm L's W; 0 until it is first drawn */
};

void upmc_samples_reset(struct upmc_samples *s);

/* Keeps x, sample number s->count, and draws the next one kept. */
void upmc_samples_keep(struct upmc_samples *s, uint64_t x);

/* The same without the sample: where in kept[] sample number s->count
 * goes. Series whose counts, next and random state are the same make the
 * same draws: one draw can place the samples of them all. */
size_t upmc_samples_slot(struct upmc_samples *s);

/* The same, inline while the reservoir fills: each sample is kept, in
 * order, and the next is the one after it. */
static inline void upmc_samples_take(struct upmc_samples *s, uint64_t x)
{
	if (s->count + 1 < UPMC_SAMPLES_KEPT) {
		s->kept[s->count] = x;
		s->next = s->count + 1;
	} else {
		upmc_samples_keep(s, x);
	}
}

static inline void upmc_samples_add(struct upmc_samples *s, uint64_t x)
{
	if (UPMC_UNLIKELY(s->count == s->next))
		upmc_samples_take(s, x);
	s->count++;
	s->min = x < s->min ? x : s->min;
	s->max = x > s->max ? x : s->max;
	s->sum += (double)x;
}

/* ln(x) for x > 0 and finite, and exp(y), without libm: the library does
 * not link it. */
double upmc_ln(double x);
double upmc_exp(double y);

/* The short series of algorithm L's draws, to the last bits or so where
 * they are used: e^y for |y| <= 1/64 (W's factor u^(1/KEPT)), and
 * ln(1 - w) for 0 <= w <= 1/16 (the skip's denominator). */
double upmc_exp_near_0(double y);
double upmc_ln_1_minus_small(double w);

/* Statistics of the samples minus bias. */
void upmc_samples_stat(const struct upmc_samples *s, double bias, struct upmc_stat *out);

/*
 * A series of doubles (a metric's value per sample) is kept as integers of
 * the same order: a positive double's bits with the sign bit set, a
 * negative one's inverted. min, max and the median's order are then those
 * of the integers; the sum is of the doubles themselves. NAN is never
 * added: a sample without a value is in no statistic.
 */
static inline uint64_t upmc_double_key(double x)
{
	uint64_t bits;

	memcpy(&bits, &x, sizeof(bits));
	return bits >> 63 ? ~bits : bits | 1ull << 63;
}

static inline double upmc_key_double(uint64_t key)
{
	uint64_t bits = key >> 63 ? key & ~(1ull << 63) : ~key;
	double x;

	memcpy(&x, &bits, sizeof(x));
	return x;
}

static inline void upmc_samples_add_double(struct upmc_samples *s, double x)
{
	const uint64_t key = upmc_double_key(x);

	if (UPMC_UNLIKELY(s->count == s->next))
		upmc_samples_take(s, key);
	s->count++;
	s->min = key < s->min ? key : s->min;
	s->max = key > s->max ? key : s->max;
	s->sum += x;
}

/* Statistics of a series of doubles; NAN but the count when it is empty. */
void upmc_samples_stat_doubles(const struct upmc_samples *s, struct upmc_stat *out);

#endif
