/* SPDX-License-Identifier: MIT */
/*
 * Regions: statistics of the counters and nanoseconds of a piece of code,
 * with the bias of the measurement itself calibrated and subtracted (the
 * way nanoBench and libpfc do it).
 *
 * begin and end only record raw values (a timestamp and the set's counters
 * at each end) into a buffer of pending records; the differences and the
 * statistics are folded in off the hot path: when the buffer is full, and
 * whenever a result is asked for.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/internal.h"
#include "lib/core/stats.h"

#if defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#define SERIES  (UPMC_MAX_COUNTERS + 1) /* counters, then ns (UPMC_NS) */
#define PENDING 1024                    /* records folded at a time */

/*
 * A record is [t0, s0, t1, s1], s0 and s1 snapshots of the set (its n
 * values, or for a multiplexed set its counts and their times: the fold
 * takes their interval, lib/interval.c). begin takes the next record and
 * fills its first half; end fills the second half of the record begun last.
 * Nothing is checked on the hot path that the fold can check instead:
 * - a read that fails leaves every value UPMC_NOT_COUNTED (upmc_read_slow):
 *   the fold drops a record whose counters all read that at either end,
 *   unless none of them can count (UPMC_OPT_TIME_ONLY without a PMU), where
 *   a good read reads that too and the region keeps its nanoseconds;
 * - a begin without an end leaves an old second half, whose t1 is before
 *   t0: the fold drops it; an end without a begin rewrites the second half
 *   of the last record (before the first, a spare record in front).
 */
struct upmc_region {
	/* What begin and end use, in the order they load it, so that the
	 * compiler pairs the loads (ldp): begin full and next, then the
	 * reader and half (a record is two halves: an add with a shift), and
	 * the set last, into the register of the reader's first argument,
	 * once the region's own stores are done (loaded before, it would take
	 * that register from the region's pointer: a copy more); end next and
	 * read, then half and the set. Sizes are in bytes, which spares a
	 * shift. */
	uint64_t *full;   /* one past the last pending record */
	uint64_t *next;   /* the record begin takes */
	upmc_reader read; /* the set's snapshot reader; NULL for a timer-only set */
	size_t half;      /* bytes per half record: 8 * (1 + snapshot words) */
	struct upmc_set *set;
	size_t record;     /* bytes per record */
	unsigned n;        /* the set's counters */
	unsigned counting; /* of them, not UPMC_PATH_UNAVAILABLE */
	uint64_t *buffer;  /* the spare record, then the pending ones */
	uint64_t *pending;
	uint64_t dropped; /* regions dropped: a read failed or counted nothing,
	                     or a begin had no end */
	char name[UPMC_NAME_MAX];
	uint64_t last[SERIES];     /* the last region's, ns in ticks; last[UPMC_NS]
	                              UPMC_NOT_COUNTED: none */
	struct upmc_samples *into; /* samples, or bias_samples while calibrating */
	struct upmc_samples samples[SERIES];
	struct upmc_samples bias_samples[SERIES];
	double bias_min[SERIES], bias_median[SERIES];
	struct region_metric *metric; /* the set's upmc_metric_count(); NULL for none */
};

/* The bias subtracted or not: raw and corrected values of a metric. */
enum { METRIC_RAW, METRIC_CORRECTED };

/*
 * A metric of the set per region: its value from each record's counts
 * (and from them less the bias), and the sums of its inputs' counts over
 * the same records, of which the metric of the totals is computed. A
 * record whose value cannot be computed (an input did not count, a
 * denominator of 0, a topdown interval too short) is in neither.
 */
struct region_metric {
	struct upmc_samples samples[2];
	double last[2];                /* the last record's; NAN: none */
	uint64_t records;              /* in the sums */
	double sum[UPMC_MAX_COUNTERS]; /* of the counts of its inputs */
};

static int counted_nothing(const uint64_t *v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i] != UPMC_NOT_COUNTED)
			return 0;
	return n > 0;
}

/* The metrics of one kept record, out of the hot loop: from its two
 * snapshots by upmc_metrics()' rule, and from its counts less the bias. */
static void fold_metrics(struct upmc_region *r, const uint64_t *v0, const uint64_t *v1)
{
	const struct upmc_set *set = r->set;
	uint64_t counts[UPMC_MAX_COUNTERS];
	double value[UPMC_MAX_METRICS], less_bias[UPMC_MAX_COUNTERS];
	unsigned i, j;

	upmc_metrics_between(set, v0, v1, counts, value);
	for (i = 0; i < r->n; i++)
		less_bias[i] =
		        counts[i] == UPMC_NOT_COUNTED ? NAN : (double)counts[i] - r->bias_median[i];
	for (j = 0; j < set->state->n_metrics; j++) {
		const struct upmc_metric *m = &set->state->metric[j];
		struct region_metric *rm = &r->metric[j];
		rm->last[METRIC_RAW] = value[j];
		rm->last[METRIC_CORRECTED] = NAN;
		if (isnan(value[j]))
			continue;
		upmc_samples_add_double(&rm->samples[METRIC_RAW], value[j]);
		rm->last[METRIC_CORRECTED] = upmc_metric_value_of(m, less_bias);
		if (!isnan(rm->last[METRIC_CORRECTED]))
			upmc_samples_add_double(&rm->samples[METRIC_CORRECTED],
			                        rm->last[METRIC_CORRECTED]);
		rm->records++;
		for (i = 0; i < m->n_in; i++)
			rm->sum[m->in[i]] += (double)counts[m->in[i]];
	}
}

/* A dropped record has no metric either. */
static void no_last_metrics(struct upmc_region *r)
{
	unsigned j;

	for (j = 0; r->metric && j < r->set->state->n_metrics; j++)
		r->metric[j].last[METRIC_RAW] = r->metric[j].last[METRIC_CORRECTED] = NAN;
}

/* One record's differences into the statistics (or its drop). */
static void fold_record(struct upmc_region *r, const uint64_t *rec)
{
	const uint64_t *end_half = (const uint64_t *)((const char *)rec + r->half);
	const uint64_t *v0 = rec + 1, *v1 = end_half + 1;
	uint64_t t0 = rec[0], t1 = end_half[0];
	unsigned i;

	if (t1 < t0 || (r->counting && (counted_nothing(v0, r->n) || counted_nothing(v1, r->n)))) {
		r->last[UPMC_NS] = UPMC_NOT_COUNTED; /* nothing of it is known */
		r->dropped++;
		if (r->into == r->samples)
			no_last_metrics(r);
		return;
	}
	if (r->set->state->multiplexed) {
		upmc_interval_of(1, r->n, v0, v1, r->last, NULL);
		for (i = 0; i < r->n; i++)
			if (r->last[i] != UPMC_NOT_COUNTED)
				upmc_samples_add(&r->into[i], r->last[i]);
	} else {
		/* upmc_interval_of()'s rule, without a call per record */
		for (i = 0; i < r->n; i++) {
			if (v0[i] == UPMC_NOT_COUNTED || v1[i] == UPMC_NOT_COUNTED) {
				r->last[i] = UPMC_NOT_COUNTED;
				continue;
			}
			r->last[i] = v1[i] - v0[i];
			upmc_samples_add(&r->into[i], r->last[i]);
		}
	}
	r->last[UPMC_NS] = t1 - t0;
	upmc_samples_add(&r->into[UPMC_NS], t1 - t0);
	if (r->metric && r->into == r->samples) /* the calibration's empty regions have none */
		fold_metrics(r, v0, v1);
}

/*
 * A batch of records folds a column at a time: one series' samples over
 * every record, count, min, max and sum in registers, nothing tested per
 * record but what the statistics need. A column is its two ends, `from`
 * and `to`, words apart by `stride` from one record to the next; sample k
 * is to[k * stride] - from[k * stride].
 */
struct column {
	const uint64_t *from, *to;
	size_t stride, n;
};

static uint64_t sample_of(const struct column *c, size_t k)
{
	return c->to[k * c->stride] - c->from[k * c->stride];
}

/* The first n samples of the column into kept[0..n-1]. */
static void fill_in_order(uint64_t *kept, const struct column *c, size_t n)
{
	const uint64_t *from = c->from, *to = c->to;
	const size_t stride = c->stride; /* kept[] might alias *c for all gcc knows */
	size_t k;

	for (k = 0; k < n; k++, from += stride, to += stride)
		kept[k] = *to - *from;
}

/* Whether the series make the same draws: the same count, next sample
 * kept and random state (algorithm L's W too). They do unless a record
 * had a counter that could not be read while the others could. */
static int in_step(struct upmc_samples *const *s, unsigned m)
{
	unsigned i;

	for (i = 1; i < m; i++)
		if (s[i]->count != s[0]->count || s[i]->next != s[0]->next ||
		    s[i]->rng != s[0]->rng || s[i]->w != s[0]->w)
			return 0;
	return 1;
}

/*
 * The samples of the columns that the reservoirs of their series keep:
 * the first UPMC_SAMPLES_KEPT in order, then each one the last draw named,
 * so that a sample passed over costs nothing here. Series in step share
 * the draws of the first (one draw per kept record, whatever the number
 * of series); each makes its own otherwise.
 */
static void keep_columns(struct upmc_samples *const *s, const struct column *c, unsigned m)
{
	struct upmc_samples *lead = s[0];
	const uint64_t first = lead->count, after = first + c[0].n;
	uint64_t j;
	unsigned i;

	if (!in_step(s, m)) {
		for (i = 0; i < m; i++)
			keep_columns(&s[i], &c[i], 1);
		return;
	}
	j = after < UPMC_SAMPLES_KEPT - 1 ? after : UPMC_SAMPLES_KEPT - 1;
	if (j > first) { /* filling: each sample kept, in order */
		for (i = 0; i < m; i++)
			fill_in_order(s[i]->kept + first, &c[i], (size_t)(j - first));
		lead->next = j;
	}
	while (lead->next < after) {
		/* the same record of every column: the same offset */
		const size_t at = (size_t)(lead->next - first) * c[0].stride;
		size_t slot;
		lead->count = lead->next;
		slot = upmc_samples_slot(lead);
		for (i = 0; i < m; i++)
			s[i]->kept[slot] = c[i].to[at] - c[i].from[at];
	}
	for (i = 0; i < m; i++) {
		s[i]->count = after;
		s[i]->next = lead->next;
		s[i]->rng = lead->rng;
		s[i]->w = lead->w;
	}
}

/* A column's min, max and sum, before they go into its series. */
struct column_stat {
	uint64_t min, max, sum;
};

/* Vectors of two words (the GNU C vector extension; arm64 and x86 both
 * have 2 x 64-bit lanes), for the folds of whole batches. */
typedef uint64_t u64x2 __attribute__((vector_size(16)));

/* Lanes i of a and of b, as one vector (arm64: one zip). */
#if defined(__clang__) || __GNUC__ >= 12
#define EVERY_OTHER(a, b, i) __builtin_shufflevector(a, b, i, 2 + i)
#else
#define EVERY_OTHER(a, b, i) __builtin_shuffle(a, b, (u64x2){i, 2 + i})
#endif

/* Min, max and sum of the differences of a vector of two columns, and the
 * OR of their begin values. */
struct pair_stat {
	u64x2 min, max, sum, high;
};

/* Lane by lane, x into *low where it is lower, into *high where it is
 * higher. Through a pointer: a function that returns a vector by value
 * changes the ABI where vectors have no registers (gcc -Wpsabi, i686
 * without SSE). */
static UPMC_ALWAYS_INLINE void keep_lower(u64x2 *low, u64x2 x)
{
	const u64x2 x_lower = (u64x2)(x < *low);

	*low = (x & x_lower) | (*low & ~x_lower);
}

static UPMC_ALWAYS_INLINE void keep_higher(u64x2 *high, u64x2 x)
{
	const u64x2 x_higher = (u64x2)(x > *high);

	*high = (x & x_higher) | (*high & ~x_higher);
}

static UPMC_ALWAYS_INLINE void add_pair(struct pair_stat *p, u64x2 from, u64x2 to)
{
	const u64x2 x = to - from;

	keep_lower(&p->min, x);
	keep_higher(&p->max, x);
	p->sum += x;
	p->high |= from;
}

/* The lower and the higher of two vectors of differences, lane by lane,
 * and their sum: one compare (the higher is the sum less the lower,
 * exactly, modulo 2^64 as every difference is). */
static UPMC_ALWAYS_INLINE void order_two(u64x2 xa, u64x2 xb, u64x2 *lower, u64x2 *higher,
                                         u64x2 *sum)
{
	*sum = xa + xb;
	*lower = xa;
	keep_lower(lower, xb);
	*higher = *sum - *lower;
}

/* The same for the same vector of two records, a and b: the lower of
 * their differences against the minimum, the higher against the maximum,
 * a compare fewer than one record after the other. */
static UPMC_ALWAYS_INLINE void add_pair_of_two(struct pair_stat *p, u64x2 from_a, u64x2 to_a,
                                               u64x2 from_b, u64x2 to_b)
{
	u64x2 lower, higher, sum;

	order_two(to_a - from_a, to_b - from_b, &lower, &higher, &sum);
	keep_lower(&p->min, lower);
	keep_higher(&p->max, higher);
	p->sum += sum;
	p->high |= from_a | from_b;
}

/* One column's min, max and sum from both lanes of p, each of which took
 * some of its records. */
static UPMC_ALWAYS_INLINE struct column_stat both_lanes(const struct pair_stat *p)
{
	return (struct column_stat){p->min[0] < p->min[1] ? p->min[0] : p->min[1],
	                            p->max[0] > p->max[1] ? p->max[0] : p->max[1],
	                            p->sum[0] + p->sum[1]};
}

/* The begin and end values of four time-only records [t0, t1] as two
 * vectors of two records each: records 0 and 2 (from_a, to_a), 1 and 3
 * (from_b, to_b). arm64 deinterleaves them as it loads them (one ld4);
 * elsewhere two loads of two records and four shuffles. */
static UPMC_ALWAYS_INLINE void load_four(const uint64_t *rec, u64x2 *from_a, u64x2 *to_a,
                                         u64x2 *from_b, u64x2 *to_b)
{
#if defined(__aarch64__) && defined(__ARM_NEON)
	const uint64x2x4_t v = vld4q_u64(rec);

	*from_a = (u64x2)v.val[0];
	*to_a = (u64x2)v.val[1];
	*from_b = (u64x2)v.val[2];
	*to_b = (u64x2)v.val[3];
#else
	u64x2 a, b, c, d;

	memcpy(&a, rec, sizeof(a));
	memcpy(&b, rec + 2, sizeof(b));
	memcpy(&c, rec + 4, sizeof(c));
	memcpy(&d, rec + 6, sizeof(d));
	*from_a = EVERY_OTHER(a, c, 0);
	*to_a = EVERY_OTHER(a, c, 1);
	*from_b = EVERY_OTHER(b, d, 0);
	*to_b = EVERY_OTHER(b, d, 1);
#endif
}

/*
 * The nanoseconds of a time-only batch, eight records a step in four
 * vectors of two, ordered in pairs and the pairs' lower against the
 * lower and higher against the higher (a tournament: each compare places
 * two lanes) before the running minimum and maximum; then two records a
 * step, then one. The region a timer gives is the one called most often,
 * and its fold is most of what it costs beyond its two timestamps.
 */
static void stat_of_times(const uint64_t *rec, size_t n, struct column_stat *st)
{
	struct pair_stat p = {{UINT64_MAX, UINT64_MAX}, {0, 0}, {0, 0}, {0, 0}};
	u64x2 f0, t0, f1, t1, f2, t2, f3, t3, lo01, hi01, sum01, lo23, hi23, sum23;
	size_t k;

	for (k = 0; k + 7 < n; k += 8) {
		load_four(rec + 2 * k, &f0, &t0, &f1, &t1);
		load_four(rec + 2 * k + 8, &f2, &t2, &f3, &t3);
		order_two(t0 - f0, t1 - f1, &lo01, &hi01, &sum01);
		order_two(t2 - f2, t3 - f3, &lo23, &hi23, &sum23);
		keep_lower(&lo01, lo23);
		keep_higher(&hi01, hi23);
		keep_lower(&p.min, lo01);
		keep_higher(&p.max, hi01);
		p.sum += sum01 + sum23;
	}
	for (; k + 1 < n; k += 2) {
		u64x2 a, b;
		memcpy(&a, rec + 2 * k, sizeof(a));
		memcpy(&b, rec + 2 * k + 2, sizeof(b));
		add_pair(&p, EVERY_OTHER(a, b, 0), EVERY_OTHER(a, b, 1));
	}
	*st = both_lanes(&p);
	if (k < n) {
		const uint64_t x = rec[2 * k + 1] - rec[2 * k];
		st->min = x < st->min ? x : st->min;
		st->max = x > st->max ? x : st->max;
		st->sum += x;
	}
}

/* A record's pairs of words into p[] (its last word, if the half has an
 * odd number, left for the caller). */
static UPMC_ALWAYS_INLINE void add_record(struct pair_stat *p, const uint64_t *rec,
                                          const unsigned words)
{
	u64x2 from, to;
	unsigned i;

	UPMC_UNROLL
	for (i = 0; i < words / 2; i++) {
		memcpy(&from, rec + 2 * i, sizeof(from));
		memcpy(&to, rec + words + 2 * i, sizeof(to));
		add_pair(&p[i], from, to);
	}
}

/* Two records' pairs of words into p[], each pair of both at once; their
 * last word, if a half has an odd number, left for the caller. */
static UPMC_ALWAYS_INLINE void add_two_records(struct pair_stat *p, const uint64_t *rec,
                                               const unsigned words)
{
	const uint64_t *b = rec + 2 * words;
	u64x2 from_a, to_a, from_b, to_b;
	unsigned i;

	UPMC_UNROLL
	for (i = 0; i < words / 2; i++) {
		memcpy(&from_a, rec + 2 * i, sizeof(from_a));
		memcpy(&to_a, rec + words + 2 * i, sizeof(to_a));
		memcpy(&from_b, b + 2 * i, sizeof(from_b));
		memcpy(&to_b, b + words + 2 * i, sizeof(to_b));
		add_pair_of_two(&p[i], from_a, to_a, from_b, to_b);
	}
}

/*
 * Every series of a batch of records of counters in one pass, two records
 * a step: each half record a few vectors of two words (the time and
 * counter 0, counters 1 and 2, ...), and when there are an even number of
 * counters, the last word of both records as one more. Per word its
 * difference's min, max and sum, and the OR of the begin values. `words`
 * is a half record's (1 + counters); a constant where it is inlined, so
 * that the loop over its words unrolls and every sum stays in a register.
 * False unless each counter counted at both ends of every record: a
 * failed read leaves UPMC_NOT_COUNTED (2^64 - 1) at one end, which sets
 * bit 63 of the begin's value or of the difference (a count is below
 * 2^63), as does a begin without its end (t1 < t0); the caller then folds
 * the batch record by record, which tells them apart.
 */
static UPMC_ALWAYS_INLINE int stat_of_halves(const uint64_t *rec, size_t n, const unsigned words,
                                             struct column_stat *st)
{
	const struct pair_stat start = {{UINT64_MAX, UINT64_MAX}, {0, 0}, {0, 0}, {0, 0}};
	struct pair_stat p[(UPMC_MAX_COUNTERS + 1) / 2], last = start;
	const unsigned pairs = words / 2, stride = 2 * words;
	const uint64_t *at = rec, *lone = rec + (n - n % 2) * stride;
	u64x2 high = {0, 0};
	unsigned i;

	UPMC_UNROLL
	for (i = 0; i < pairs; i++)
		p[i] = start;
	for (; at != lone; at += 2 * stride) {
		add_two_records(p, at, words);
		if (words % 2)
			add_pair(&last, (u64x2){at[words - 1], at[stride + words - 1]},
			         (u64x2){at[stride - 1], at[2 * stride - 1]});
	}
	if (n % 2) { /* the last record of an odd batch: its last word in both
		        lanes, the second one's sum taken back */
		add_record(p, at, words);
		if (words % 2) {
			add_pair(&last, (u64x2){at[words - 1], at[words - 1]},
			         (u64x2){at[stride - 1], at[stride - 1]});
			last.sum[1] -= at[stride - 1] - at[words - 1];
		}
	}
	for (i = 0; i < pairs; i++) {
		st[2 * i] = (struct column_stat){p[i].min[0], p[i].max[0], p[i].sum[0]};
		st[2 * i + 1] = (struct column_stat){p[i].min[1], p[i].max[1], p[i].sum[1]};
		high |= p[i].high | p[i].max;
	}
	if (words % 2) {
		st[words - 1] = both_lanes(&last);
		high |= last.high | last.max;
	}
	return !((high[0] | high[1]) >> 63);
}

/* stat_of_halves() inlined for each set size that the inline readers
 * cover, so that the loop over a half record's words unrolls. */
static int stat_of_counters(const uint64_t *rec, size_t n, unsigned words, struct column_stat *st)
{
	switch (words) {
	case 2:
		return stat_of_halves(rec, n, 2, st);
	case 3:
		return stat_of_halves(rec, n, 3, st);
	case 4:
		return stat_of_halves(rec, n, 4, st);
	case 5:
		return stat_of_halves(rec, n, 5, st);
	case 6:
		return stat_of_halves(rec, n, 6, st);
	case 7:
		return stat_of_halves(rec, n, 7, st);
	case 8:
		return stat_of_halves(rec, n, 8, st);
	case 9:
		return stat_of_halves(rec, n, 9, st);
	default:
		return stat_of_halves(rec, n, words, st);
	}
}

/* A column's min, max and sum into its series. */
static void add_column(struct upmc_samples *s, const struct column_stat *st)
{
	s->min = st->min < s->min ? st->min : s->min;
	s->max = st->max > s->max ? st->max : s->max;
	s->sum += (double)st->sum; /* a batch's sum: far from 2^64 */
}

/*
 * A batch folded a column at a time, when no record of it is dropped and
 * each counter counted at both ends of every record: the usual case. A
 * record with t1 < t0 (a begin without its end) has a difference of 2^63
 * or more, which no region lasts: the maximum shows it. Otherwise (and
 * for a multiplexed set, whose counts need their times) 0: the batch
 * folds record by record. Metrics need a record's counts together: they
 * take a pass of their own.
 */
static int fold_columns(struct upmc_region *r, const uint64_t *rec, const uint64_t *end)
{
	const size_t stride = r->record / sizeof(uint64_t), half = r->half / sizeof(uint64_t);
	const size_t n = (size_t)(end - rec) / stride;
	struct column c[SERIES];
	struct column_stat st[SERIES];
	struct upmc_samples *series[SERIES];
	unsigned i;

	if (r->n ? r->set->state->multiplexed || r->counting < r->n : stride != 2)
		return 0;
	if (!r->n) {
		stat_of_times(rec, n, &st[0]);
		if (st[0].max >> 63)
			return 0;
	} else if (!stat_of_counters(rec, n, (unsigned)half, st)) {
		return 0;
	}
	/* column 0 the nanoseconds, whose series leads the draws; then the
	 * counters, each a word further into the record's halves */
	for (i = 0; i <= r->n; i++)
		c[i] = (struct column){rec + i, rec + half + i, stride, n};
	for (i = 0; i <= r->n; i++) {
		const unsigned what = i ? i - 1 : UPMC_NS;
		series[i] = &r->into[what];
		add_column(series[i], &st[i]);
		r->last[what] = sample_of(&c[i], n - 1);
	}
	keep_columns(series, c, r->n + 1);
	if (r->metric && r->into == r->samples)
		for (; rec < end; rec += stride)
			fold_metrics(r, rec + 1, rec + half + 1);
	return 1;
}

/* The last record begun, when it has not ended yet (its end's timestamp
 * is before its begin's: an older record's end, or 0); NULL otherwise. */
static uint64_t *open_record(const struct upmc_region *r)
{
	uint64_t *rec;

	if (r->next == r->pending)
		return NULL;
	rec = (uint64_t *)((char *)r->next - r->record);
	return *(uint64_t *)((char *)rec + r->half) < rec[0] ? rec : NULL;
}

/*
 * Folds the pending records in. Queries call it on a const region: the
 * region is never defined const, and folding changes no result.
 * A query between a begin and its end (from inside the code measured)
 * folds the records before it and keeps that one pending, first in the
 * buffer, its end's timestamp 0, so that its end completes it there: the
 * region is counted when it ends. A begin that never ends is dropped at
 * the fold after the next begin.
 */
static void fold(const struct upmc_region *query)
{
	struct upmc_region *r = (struct upmc_region *)query;
	uint64_t *open = open_record(r);
	uint64_t *stop = open ? open : r->next;
	const uint64_t *rec;

	if (stop != r->pending && !fold_columns(r, r->pending, stop))
		for (rec = r->pending; rec < stop;
		     rec = (const uint64_t *)((const char *)rec + r->record))
			fold_record(r, rec);
	r->next = r->pending;
	if (open) {
		memmove(r->pending, open, r->half);
		*(uint64_t *)((char *)r->pending + r->half) = 0;
		r->next = (uint64_t *)((char *)r->pending + r->record);
	}
}

/* Timestamp ticks as ns, by the set's clock: the ns series is kept in
 * ticks (a conversion per record would cost more than the rest of its
 * fold), converted when asked. mul_shift() is monotonic, so min, max and
 * the order of the samples are the same either way. */
static double ticks_as_ns(const struct upmc_region *r, double ticks)
{
	return ticks * (double)r->set->clock.mult / (double)(1ull << (r->set->clock.shift & 63));
}

static uint64_t ns_of(const struct upmc_region *r, uint64_t ticks)
{
	return upmc_mul_shift(ticks, r->set->clock.mult, r->set->clock.shift);
}

/* Statistics of a series, nanoseconds converted from ticks. */
static void series_stat(const struct upmc_region *r, const struct upmc_samples *s, unsigned what,
                        double bias, struct upmc_stat *st)
{
	if (what != UPMC_NS) {
		upmc_samples_stat(s, bias, st);
		return;
	}
	upmc_samples_stat(s, 0, st);
	if (!st->count)
		return;
	/* All four by the one conversion: min and max by upmc_mul_shift()
	 * (which truncates) put the exact median above the max when every
	 * sample took the same ticks. */
	st->min = ticks_as_ns(r, (double)s->min) - bias;
	st->max = ticks_as_ns(r, (double)s->max) - bias;
	st->mean = ticks_as_ns(r, st->mean) - bias;
	st->median = ticks_as_ns(r, st->median) - bias;
}

/* A full buffer is folded out of line, and begin starts again. */
static UPMC_COLD void fold_and_begin(struct upmc_region *r)
{
	fold(r);
	upmc_region_begin(r);
}

/* A region of counters: each end ends in the set's reader as a tail call,
 * so that a region costs its two reads and little more. The reader is
 * loaded before the timestamp, whose barrier would load it again. */
static inline void end_counting(uint64_t *next, size_t half, upmc_reader read, struct upmc_set *set)
{
	uint64_t *rec = (uint64_t *)((char *)next - half);

	rec[0] = upmc_timestamp_after();
	read(set, rec + 1);
}

/* begin steps to the next record by twice the half record's size, which
 * a time-only region has too (one word: records [t0, t1]), before its
 * timestamp; then a region of counters loads the set, into the register
 * of the reader's first argument, which the region's pointer, no longer
 * needed, leaves free. */
UPMC_API __attribute__((noinline)) void upmc_region_begin(struct upmc_region *r)
{
	uint64_t *rec;
	upmc_reader read;
	size_t half;

	if (UPMC_UNLIKELY(!r))
		return;
	rec = r->next;
	read = r->read;
	half = r->half;
	if (UPMC_UNLIKELY(rec == r->full)) {
		fold_and_begin(r);
		return;
	}
	r->next = (uint64_t *)((char *)rec + 2 * half);
	if (read) {
		struct upmc_set *set = r->set;
		rec[0] = upmc_timestamp_serialized();
		read(set, rec + 1);
		return;
	}
	rec[0] = upmc_timestamp_serialized();
}

UPMC_API __attribute__((noinline)) void upmc_region_end(struct upmc_region *r)
{
	uint64_t *next;
	upmc_reader read;

	if (UPMC_UNLIKELY(!r))
		return;
	next = r->next;
	read = r->read;
	if (read)
		end_counting(next, r->half, read, r->set);
	else
		next[-1] = upmc_timestamp_after();
}

UPMC_API uint64_t upmc_region_dropped(const struct upmc_region *r)
{
	if (!r)
		return 0;
	fold(r);
	return r->dropped;
}

static void reset_all(struct upmc_samples *s)
{
	unsigned i;

	for (i = 0; i < SERIES; i++)
		upmc_samples_reset(&s[i]);
}

static void reset_metrics(struct upmc_region *r)
{
	unsigned j;

	for (j = 0; r->metric && j < r->set->state->n_metrics; j++) {
		struct region_metric *rm = &r->metric[j];
		upmc_samples_reset(&rm->samples[METRIC_RAW]);
		upmc_samples_reset(&rm->samples[METRIC_CORRECTED]);
		rm->records = 0;
		memset(rm->sum, 0, sizeof(rm->sum));
	}
	no_last_metrics(r);
}

/* No empty region could be read: the bias stays what it was (0 at open). */
static UPMC_COLD int all_calibration_dropped(unsigned repeats)
{
	char why[UPMC_REASON_MAX];

	upmc_format(why, sizeof(why), "%s", upmc_last_error());
	return upmc_fail(-ENODATA,
	                 "upmc_region_calibrate: all %u empty regions were dropped, the bias is "
	                 "unchanged: %s",
	                 repeats, why);
}

UPMC_API int upmc_region_calibrate(struct upmc_region *r, unsigned repeats)
{
	struct upmc_stat st;
	uint64_t dropped, lost;
	unsigned i;

	if (!r || !repeats)
		return upmc_fail(-EINVAL, "upmc_region_calibrate: NULL region or 0 repeats");
	fold(r);
	dropped = r->dropped;
	reset_all(r->bias_samples);
	r->into = r->bias_samples;
	for (i = 0; i < repeats; i++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	fold(r);
	r->into = r->samples;
	/* The empty regions are not the caller's: neither their drops nor
	 * their last value. */
	lost = r->dropped - dropped;
	r->dropped = dropped;
	r->last[UPMC_NS] = UPMC_NOT_COUNTED;
	if (lost >= repeats) /* and a region open across it, dropped with them */
		return all_calibration_dropped(repeats);
	for (i = 0; i < SERIES; i++) {
		series_stat(r, &r->bias_samples[i], i, 0, &st);
		r->bias_min[i] = st.min;
		r->bias_median[i] = st.median;
	}
	return 0;
}

UPMC_API int upmc_region_open(struct upmc_region **out, struct upmc_set *set, const char *name)
{
	struct upmc_region *r;
	unsigned i;
	int err;

	if (!out || !set)
		return upmc_fail(-EINVAL, "upmc_region_open: NULL region pointer or set");
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return upmc_fail(-ENOMEM, "out of memory allocating a region");
	r->set = set;
	r->n = set->n;
	for (i = 0; i < set->n; i++)
		r->counting += upmc_counter_path(set, i) != UPMC_PATH_UNAVAILABLE;
	r->read = set->n ? set->snapshot : NULL;
	r->half = (1 + (size_t)set->state->snapshot_words) * sizeof(uint64_t);
	r->record = 2 * r->half;
	r->buffer = calloc(1 + PENDING, r->record);
	if (!r->buffer) {
		free(r);
		return upmc_fail(-ENOMEM, "out of memory allocating a region");
	}
	if (set->state->n_metrics) {
		r->metric = calloc(set->state->n_metrics, sizeof(*r->metric));
		if (!r->metric) {
			upmc_region_close(r);
			return upmc_fail(-ENOMEM, "out of memory allocating a region");
		}
	}
	r->pending = (uint64_t *)((char *)r->buffer + r->record);
	r->next = r->pending;
	r->full = (uint64_t *)((char *)r->pending + PENDING * r->record);
	upmc_format(r->name, sizeof(r->name), "%s", name ? name : "");
	reset_all(r->samples);
	reset_metrics(r);
	r->into = r->samples;
	err = upmc_region_calibrate(r, 1000);
	if (err < 0) {
		upmc_region_close(r);
		return err;
	}
	*out = r;
	return 0;
}

UPMC_API void upmc_region_close(struct upmc_region *r)
{
	if (r) {
		free(r->buffer);
		free(r->metric);
	}
	free(r);
}

UPMC_API void upmc_region_reset(struct upmc_region *r)
{
	if (r) {
		r->next = r->pending;
		r->dropped = 0;
		reset_all(r->samples);
		reset_metrics(r);
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
	fold(r);
	series_stat(r, &r->samples[what], what, corrected ? r->bias_median[what] : 0, stat);
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
	fold(r);
	if (r->last[UPMC_NS] == UPMC_NOT_COUNTED)
		return upmc_fail(-ENODATA,
		                 "upmc_region_last: no region to report: none has ended "
		                 "since the calibration, or the last one was dropped (a "
		                 "read failed or counted nothing: upmc_region_dropped())");
	if (r->last[what] == UPMC_NOT_COUNTED)
		return upmc_fail(-ENODATA, "upmc_region_last: counter %u did not count", what);
	*value = (double)(what == UPMC_NS ? ns_of(r, r->last[what]) : r->last[what]) -
	         (corrected ? r->bias_median[what] : 0);
	return 0;
}

/* ---- metrics: per record, and of the totals ---- */

static int check_region_metric(const struct upmc_region *r, unsigned j, const void *out,
                               const char *fn)
{
	if (!r)
		return upmc_fail(-EINVAL, "%s: the region is NULL", fn);
	if (j >= r->set->state->n_metrics)
		return upmc_fail(-EINVAL, "%s: metric %u does not exist (the set has %u)", fn, j,
		                 r->set->state->n_metrics);
	if (!out)
		return upmc_fail(-EINVAL, "%s: the result pointer is NULL", fn);
	return 0;
}

/* -ENODATA for a metric without a value, with why. */
static int no_value(const struct upmc_region *r, unsigned j, const char *fn, const char *what)
{
	const char *why = upmc_metric_reason(r->set, j);

	return upmc_fail(-ENODATA, "%s: %s has no value of %s%s%s", fn, upmc_metric_name(r->set, j),
	                 what, why[0] ? ": " : " (an input counted nothing or a denominator was 0)",
	                 why);
}

UPMC_API int upmc_region_metric_stat(const struct upmc_region *r, unsigned j, int corrected,
                                     struct upmc_stat *stat)
{
	int err = check_region_metric(r, j, stat, "upmc_region_metric_stat");

	if (err < 0)
		return err;
	fold(r);
	upmc_samples_stat_doubles(&r->metric[j].samples[corrected ? METRIC_CORRECTED : METRIC_RAW],
	                          stat);
	return 0;
}

UPMC_API int upmc_region_metric_of_totals(const struct upmc_region *r, unsigned j, int corrected,
                                          double *value)
{
	const struct upmc_metric *m;
	const struct region_metric *rm;
	double sum[UPMC_MAX_COUNTERS];
	unsigned k;
	int err = check_region_metric(r, j, value, "upmc_region_metric_of_totals");

	if (err < 0)
		return err;
	fold(r);
	m = &r->set->state->metric[j];
	rm = &r->metric[j];
	for (k = 0; k < m->n_in; k++)
		sum[m->in[k]] = rm->sum[m->in[k]] -
		                (corrected ? (double)rm->records * r->bias_median[m->in[k]] : 0);
	*value = rm->records ? upmc_metric_value_of(m, sum) : NAN;
	return isnan(*value) ? no_value(r, j, "upmc_region_metric_of_totals", "the totals") : 0;
}

UPMC_API int upmc_region_metric_last(const struct upmc_region *r, unsigned j, int corrected,
                                     double *value)
{
	int err = check_region_metric(r, j, value, "upmc_region_metric_last");

	if (err < 0)
		return err;
	fold(r);
	*value = r->metric[j].last[corrected ? METRIC_CORRECTED : METRIC_RAW];
	return isnan(*value) ? no_value(r, j, "upmc_region_metric_last", "the last region") : 0;
}
