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

/* a * b + c, in one instruction where the target has a fused
 * multiply-add (math.h's FP_FAST_FMA: arm64), whose one rounding is the
 * closer; elsewhere a multiply and an add. Never a call: the library does
 * not link libm. */
static inline double mul_add(double a, double b, double c)
{
#ifdef FP_FAST_FMA
	return __builtin_fma(a, b, c);
#else
	return a * b + c;
#endif
}

/* 1 / (2k + 1), k = 10 down to 0: atanh(s) / s = sum of s^2k / (2k + 1).
 * The series below load their coefficients from tables like this one. */
static const double atanh_terms[] = {1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11,
                                     1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1};

/* 1 / k!, k = 13 down to 2: e^r's series beyond 1 + r. */
static const double exp_terms[] = {1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
                                   1.0 / 362880,     1.0 / 40320,     1.0 / 5040,     1.0 / 720,
                                   1.0 / 120,        1.0 / 24,        1.0 / 6,        1.0 / 2};

/* The address of a table of coefficients, hidden from the compiler so
 * that it loads them from there (arm64: two a load), rather than build
 * each constant apart (two or three instructions each). */
static inline const double *terms(const double *table)
{
	__asm__("" : "+r"(table));
	return table;
}

/* c[0] x^(n-1) + c[1] x^(n-2) + ... + c[n-1], by Horner; n a constant,
 * so that the loop unrolls. */
static UPMC_ALWAYS_INLINE double horner(const double *c, const unsigned n, double x)
{
	double sum = c[0];
	unsigned i;

#pragma GCC unroll 16
	for (i = 1; i < n; i++)
		sum = mul_add(sum, x, c[i]);
	return sum;
}

/* e^x by its series to x^(n+1): 1 + x + x^2 (c[n-1] + ... + c[0] x^(n-1)),
 * c from exp_terms; the two 1s are constants, not loads. */
static UPMC_ALWAYS_INLINE double exp_series(const double *c, const unsigned n, double x)
{
	return mul_add(mul_add(horner(c, n, x), x, 1), x, 1);
}

/*
 * ln and exp to the last bits or so, without libm (the library does not
 * link it). ln: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s),
 * s = (m - 1) / (m + 1), |s| < 0.172, whose series to s^21 is exact to
 * 1e-17. x > 0 and finite.
 */
double upmc_ln(double x)
{
	const double ln2 = 0.69314718055994530942;
	uint64_t bits;
	double m, s;
	int e;

	memcpy(&bits, &x, sizeof(bits));
	e = (int)((bits >> 52) & 0x7ff) - 1023;
	bits = (bits & ((1ull << 52) - 1)) | 1023ull << 52;
	memcpy(&m, &bits, sizeof(m));
	if (m > 1.41421356237309504880) {
		m /= 2;
		e++;
	}
	s = (m - 1) / (m + 1);
	return mul_add(e, ln2, 2 * s * horner(terms(atanh_terms), 11, s * s));
}

/* exp: y = k ln 2 + r, |r| <= ln 2 / 2, e^r by its series to r^13 (the
 * next term is below 5e-18), times 2^k built in the exponent's bits; 0
 * below -700. */
double upmc_exp(double y)
{
	const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
	const double inv_ln2 = 1.44269504088896340736;
	const double *c = terms(exp_terms);
	double k, r, e_r, scale;
	uint64_t bits;

	if (y < -700)
		return 0;
	k = (double)(int64_t)(y * inv_ln2 + (y < 0 ? -0.5 : 0.5));
	r = (y - k * ln2_hi) - k * ln2_lo;
	e_r = exp_series(c, 12, r);
	bits = (uint64_t)((int64_t)k + 1023) << 52;
	memcpy(&scale, &bits, sizeof(scale));
	return e_r * scale;
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
 * Li's algorithm L (K.-H. Li, Reservoir-sampling algorithms of time
 * complexity O(n(1 + log(N/n))), ACM TOMS 20(4), 1994). Give each sample
 * a uniform key and keep the n = KEPT smallest: the largest key kept, W,
 * is all there is to know. A sample is kept when its key is below W, so
 * the run passed over is geometric, P(run >= r) = (1 - W)^r, drawn as
 * floor(ln u / ln(1 - W)); the keys kept are then n uniforms below W,
 * and the next W their largest: W u^(1/n).
 *
 * Where algorithm X drew the runs so far, W is the n-th smallest key of
 * the t samples seen, whichever were kept, drawn once. From the other
 * end: 1 minus the smallest key is the largest of t uniforms, u^(1/t);
 * the others are uniform below it, the next largest u'^(1/(t-1)) times
 * it, and so on; so ln(1 - W) is the sum over i < n of ln(u_i) / (t - i).
 * Returns ln(1 - W).
 */
static double draw_w(struct upmc_samples *s, uint64_t t)
{
	double ln_passed = 0;
	uint64_t i;

	for (i = 0; i < UPMC_SAMPLES_KEPT; i++)
		ln_passed += upmc_ln(uniform(&s->rng)) / (double)(t - i);
	s->w = 1 - upmc_exp(ln_passed);
	return ln_passed;
}

/* The two short series below are inlined into algorithm L's draw (a call
 * each would cost a few instructions more a draw); stats.h declares the
 * functions that call them, for their tests. */

/* e^y for |y| <= 1/64, by its series to y^7 (the next term is below
 * 2^-63): u^(1/KEPT) = e^(ln u / KEPT), ln u >= ln 2^-53 = -36.8,
 * is always that close to 1. exp_terms from 1 / 7!. */
static UPMC_ALWAYS_INLINE double exp_near_0(double y)
{
	return exp_series(terms(exp_terms + 6), 6, y);
}

/* ln(1 - w) for 0 <= w <= 1/16: 2 atanh(s), s = -w / (2 - w), |s| at
 * most 1/31, whose series to s^11 leaves out less than 2^-62 (upmc_ln()'s
 * without the exponent's reduction, which 1 - w near 1 does not need, and
 * without the terms that so small an s does not need). atanh_terms from
 * 1 / 11. */
static UPMC_ALWAYS_INLINE double ln_1_minus_small(double w)
{
	const double s = -w / (2 - w);

	return 2 * s * horner(terms(atanh_terms + 5), 6, s * s);
}

double upmc_exp_near_0(double y)
{
	return exp_near_0(y);
}

double upmc_ln_1_minus_small(double w)
{
	return ln_1_minus_small(w);
}

_Static_assert(UPMC_SAMPLES_KEPT >= 37 * 64, "ln(u) / KEPT must stay within exp_near_0()'s range");

/* Algorithm L: t samples seen; the number of the next one kept. */
static uint64_t next_kept_l(struct upmc_samples *s, uint64_t t)
{
	double ln_passed, run;

	if (s->w > 0) { /* a sample was kept since W was drawn */
		s->w *= exp_near_0(upmc_ln(uniform(&s->rng)) / UPMC_SAMPLES_KEPT);
		ln_passed = s->w <= 1.0 / 16 ? ln_1_minus_small(s->w) : upmc_ln(1 - s->w);
	} else {
		ln_passed = draw_w(s, t);
	}
	run = upmc_ln(uniform(&s->rng)) / ln_passed;
	return run < 0x1p62 ? t + (uint64_t)run : UINT64_MAX;
}

/* Where algorithm X's steps (about 7 instructions a sample passed over)
 * cost about as much as L's draws (two ln and two short series, three
 * random numbers a sample kept, and W's first draw once). W is then about
 * KEPT / t (1/22, then less), below 1/16, where ln(1 - W) takes the short
 * series. */
#define X_UNTIL (22 * (uint64_t)UPMC_SAMPLES_KEPT)

/* The first sample from number t on that the reservoir keeps. */
static uint64_t next_kept(struct upmc_samples *s, uint64_t t)
{
	return t <= X_UNTIL ? next_kept_x(s, t) : next_kept_l(s, t);
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
