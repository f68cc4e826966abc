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
	s->w = 0;
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

/*
 * ln and exp for algorithm Z, to the last bits or so, without libm (the
 * library does not link it). ln: x = m 2^e with m in [sqrt(1/2),
 * sqrt(2)), ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, whose
 * series to s^21 is exact to 1e-17. x > 0 and finite.
 */
static double z_ln(double x)
{
	const double ln2 = 0.69314718055994530942;
	uint64_t bits;
	double m, s, s2, p = 1.0 / 21;
	int e, k;

	memcpy(&bits, &x, sizeof(bits));
	e = (int)((bits >> 52) & 0x7ff) - 1023;
	bits = (bits & ((1ull << 52) - 1)) | 1023ull << 52;
	memcpy(&m, &bits, sizeof(m));
	if (m > 1.41421356237309504880) {
		m /= 2;
		e++;
	}
	s = (m - 1) / (m + 1);
	s2 = s * s;
	for (k = 19; k >= 1; k -= 2)
		p = p * s2 + 1.0 / k;
	return e * ln2 + 2 * s * p;
}

/* exp: y = k ln 2 + r, |r| <= ln 2 / 2, e^r by its series to r^16 (exact
 * to 1e-18), times 2^k built in the exponent's bits. */
static double z_exp(double y)
{
	const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
	double k, r, sum = 1, term = 1, scale;
	uint64_t bits;
	int i;

	if (y < -700)
		return 0;
	k = (double)(int64_t)(y / ln2_hi + (y < 0 ? -0.5 : 0.5));
	r = (y - k * ln2_hi) - k * ln2_lo;
	for (i = 1; i <= 16; i++) {
		term *= r / i;
		sum += term;
	}
	bits = (uint64_t)((int64_t)k + 1023) << 52;
	memcpy(&scale, &bits, sizeof(scale));
	return sum * scale;
}

/* Algorithm X: the first sample from number t on that the reservoir
 * keeps: each is passed over with chance (j + 1 - KEPT) / (j + 1), and the
 * run of those passed over is drawn at once by inverting its
 * distribution, a step per sample. */
static uint64_t next_kept_x(struct upmc_samples *s, uint64_t t)
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

/*
 * Algorithm Z (J. S. Vitter, Random sampling with a reservoir, ACM TOMS
 * 11(1), 1985), as PostgreSQL's sampling.c writes it: the run's length
 * drawn from a continuous envelope and accepted by a quick test (nearly
 * always) or the exact one; a few random numbers however long the run.
 * t samples seen; the number of the next one kept.
 */
static uint64_t next_kept_z(struct upmc_samples *s, uint64_t seen)
{
	const double n = UPMC_SAMPLES_KEPT, t = (double)seen, term = t - n + 1;
	double w = s->w > 0 ? s->w : z_exp(-z_ln(uniform(&s->rng)) / n), skip;

	for (;;) {
		const double u = uniform(&s->rng), x = t * (w - 1), quot = (t + 1) / term;
		double lhs, rhs, y, numer, numer_lim, denom;
		skip = (double)(uint64_t)x;
		lhs = z_exp(z_ln(((u * quot * quot) * (term + skip)) / (t + x)) / n);
		rhs = (((t + x) / (term + skip)) * term) / t;
		if (lhs <= rhs) {
			w = rhs / lhs;
			break;
		}
		y = (((u * (t + 1)) / term) * (t + skip + 1)) / (t + x);
		if (n < skip) {
			denom = t;
			numer_lim = term + skip;
		} else {
			denom = t - n + skip;
			numer_lim = t + 1;
		}
		for (numer = t + skip; numer >= numer_lim; numer -= 1) {
			y *= numer / denom;
			denom -= 1;
		}
		w = z_exp(-z_ln(uniform(&s->rng)) / n);
		if (z_exp(z_ln(y) / n) <= (t + x) / t)
			break;
	}
	s->w = w;
	return seen + (uint64_t)skip;
}

/* Where algorithm X's steps (about 7 instructions a sample passed over)
 * begin to cost more than Z's draws: Vitter's T = 22 samples kept. */
#define X_UNTIL (22 * (uint64_t)UPMC_SAMPLES_KEPT)

/* The first sample from number t on that the reservoir keeps. */
static uint64_t next_kept(struct upmc_samples *s, uint64_t t)
{
	return t <= X_UNTIL ? next_kept_x(s, t) : next_kept_z(s, t);
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
