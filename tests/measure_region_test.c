/* SPDX-License-Identifier: MIT */
/*
 * Regions, their calibration and statistics, the bench harness and
 * prof.h, against the simulated kernel: its counters advance by a fixed
 * cost at every read, as an instructions counter counts the read itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/prof.h>

#include "lib/core/stats.h"
#include "tests/upmc_test.h"

static struct upmc_set *open_sim(const char *spec, uint64_t read_cost)
{
	struct upmc_set *set = NULL;

	sim_reset(48);
	sim.read_cost = read_cost;
	return upmc_open(&set, spec, NULL) < 0 ? NULL : set;
}

/* Doubles computed two ways agree to the last bits: i686's x87 computes in
 * 80 bits and rounds where SSE does not (tools/ci-platforms.sh runs these
 * tests there). */
static int same(double a, double b)
{
	return fabs(a - b) <= 1e-14 * fmax(fabs(a), fabs(b));
}

TEST(stats, known_inputs)
{
	static struct upmc_samples s;
	struct upmc_stat st;
	uint64_t x;

	upmc_samples_reset(&s);
	for (x = 1; x <= 101; x++)
		upmc_samples_add(&s, x);
	upmc_samples_stat(&s, 0, &st);
	EXPECT_EQ(st.count, 101);
	EXPECT(st.min == 1 && st.max == 101 && st.mean == 51 && st.median == 51);
	upmc_samples_stat(&s, 1.5, &st);
	EXPECT(st.min == -0.5 && st.max == 99.5 && st.mean == 49.5 && st.median == 49.5);
	upmc_samples_add(&s, 1000); /* 102 samples: the median is between 51 and 52 */
	upmc_samples_stat(&s, 0, &st);
	EXPECT(st.median == 51.5);
}

/* Doubles (a metric's values) keep their order, negative ones included. */
TEST(stats, doubles_in_order)
{
	static struct upmc_samples s;
	const double x[] = {2.0, -1.5, 0.0, -0.25, 0.5};
	struct upmc_stat st;
	unsigned k;

	upmc_samples_reset(&s);
	upmc_samples_stat_doubles(&s, &st);
	EXPECT(st.count == 0 && isnan(st.min) && isnan(st.median) && isnan(st.mean));
	for (k = 0; k < 4; k++)
		upmc_samples_add_double(&s, x[k]);
	upmc_samples_stat_doubles(&s, &st);
	EXPECT_EQ(st.count, 4);
	EXPECT(same(st.min, -1.5) && same(st.max, 2.0) && same(st.mean, 0.25 / 4));
	EXPECT_MSG(same(st.median, -0.125), "%g", st.median);
	upmc_samples_add_double(&s, x[4]);
	upmc_samples_stat_doubles(&s, &st);
	EXPECT(same(st.median, 0.0) && same(st.mean, 0.75 / 5));
	for (k = 0; k < 5; k++)
		EXPECT(upmc_key_double(upmc_double_key(x[k])) == x[k]);
}

TEST(stats, beyond_the_kept_samples)
{
	static struct upmc_samples s;
	struct upmc_stat st;
	uint64_t x;

	upmc_samples_reset(&s);
	for (x = 0; x < 100000; x++)
		upmc_samples_add(&s, x);
	upmc_samples_stat(&s, 0, &st);
	EXPECT_EQ(st.count, 100000);
	EXPECT(st.min == 0 && st.max == 99999 && st.mean == 49999.5);
	/* the median of a uniform random subset of 4096 of them */
	EXPECT_MSG(st.median > 47000 && st.median < 53000, "median %.0f", st.median);
}

/*
 * The reservoir keeps a uniform subset however many samples come: of 10^6
 * samples numbered in order, as many kept from each tenth (the skip drawn
 * at each kept sample passes over as many as one draw per sample would,
 * by algorithm X up to 22 x 4096 samples and by algorithm L beyond).
 * The random numbers are seeded: the counts are the same at every run.
 */
TEST(stats, the_kept_samples_are_uniform_over_a_million)
{
	static struct upmc_samples s;
	unsigned tenth[10] = {0}, i;
	uint64_t x;

	upmc_samples_reset(&s);
	for (x = 0; x < 1000000; x++)
		upmc_samples_add(&s, x);
	for (i = 0; i < UPMC_SAMPLES_KEPT; i++)
		tenth[s.kept[i] / 100000]++;
	for (i = 0; i < 10; i++)
		/* 409.6 expected, binomial sd 19: within 5 sd */
		EXPECT_MSG(tenth[i] > 310 && tenth[i] < 510, "tenth %u: %u kept", i, tenth[i]);
	EXPECT_EQ(s.count, 1000000);
	EXPECT(s.min == 0 && s.max == 999999);
}

/*
 * Algorithm L from its first draw of W on: sample j is kept with chance
 * n / (j + 1), so from sample t to 2t the number kept is n ln 2 (2839,
 * a sample every t / n or so at first), binomial-like, sd 53: within 5 sd.
 * A run drawn twice as long, or a W drawn from the wrong distribution,
 * is far outside. Seeded: the same count at every run.
 */
TEST(stats, algorithm_l_keeps_n_ln_2_from_t_to_2t)
{
	static struct upmc_samples s;
	const uint64_t t = 10000000;
	unsigned kept = 0;

	upmc_samples_reset(&s);
	s.count = t - 1; /* as though sample t - 1 were kept now */
	for (;;) {
		upmc_samples_slot(&s);
		if (s.next >= 2 * t)
			break;
		s.count = s.next;
		kept++;
	}
	EXPECT_MSG(kept > 2839 - 266 && kept < 2839 + 266, "%u kept from 10^7 to 2 x 10^7", kept);
}

/* ln and exp without libm: within a few units in the last place of
 * libm's over the range the reservoir uses and beyond. */
TEST(stats, ln_and_exp_match_libm)
{
	double x, y, worst_ln = 0, worst_exp = 0;
	int k;

	for (x = 0x1p-1000; x < 0x1p1000; x *= 1.0137)
		worst_ln = fmax(worst_ln, fabs(upmc_ln(x) - log(x)) / fmax(fabs(log(x)), 1e-300));
	for (k = 1; k <= 100000; k++) { /* (0, 1], and near 1 where ln is small */
		x = k / 100000.0;
		worst_ln = fmax(worst_ln, fabs(upmc_ln(x) - log(x)) / fmax(fabs(log(x)), 1e-300));
		x = 1 + k * 0x1p-52;
		worst_ln = fmax(worst_ln, fabs(upmc_ln(x) - log(x)) / fabs(log(x)));
	}
	for (y = -700; y <= 700; y += 0.01234)
		worst_exp = fmax(worst_exp, fabs(upmc_exp(y) - exp(y)) / exp(y));
	EXPECT_MSG(worst_ln < 4 * 0x1p-52, "ln: relative error %.3g", worst_ln);
	EXPECT_MSG(worst_exp < 4 * 0x1p-52, "exp: relative error %.3g", worst_exp);
	EXPECT(upmc_exp(-750) == 0 && upmc_exp(0) == 1 && upmc_ln(1) == 0);
}

/* The short series of algorithm L's draws, against libm's exp and log1p
 * over the whole range each is used in: as close as upmc_ln and upmc_exp. */
TEST(stats, the_short_series_match_libm)
{
	double y, w, worst_exp = 0, worst_ln = 0;
	int k;

	for (k = -100000; k <= 100000; k++) {
		y = k / 100000.0 / 64;
		worst_exp = fmax(worst_exp, fabs(upmc_exp_near_0(y) - exp(y)) / exp(y));
	}
	for (w = 0x1p-60; w <= 1.0 / 16; w *= 1.0003)
		worst_ln = fmax(worst_ln, fabs(upmc_ln_1_minus_small(w) - log1p(-w)) / -log1p(-w));
	worst_ln = fmax(worst_ln, fabs(upmc_ln_1_minus_small(1.0 / 16) - log1p(-1.0 / 16)) /
	                                  -log1p(-1.0 / 16));
	EXPECT_MSG(worst_exp < 4 * 0x1p-52, "e^y near 0: relative error %.3g", worst_exp);
	EXPECT_MSG(worst_ln < 4 * 0x1p-52, "ln(1 - w): relative error %.3g", worst_ln);
	EXPECT(upmc_exp_near_0(0) == 1 && upmc_ln_1_minus_small(0) == 0);
}

TEST(region, calibration_cancels_the_reads_own_cost)
{
	struct upmc_set *set = open_sim("instructions,cycles", 37);
	struct upmc_region *r;
	struct upmc_stat st;
	double min, median, last;
	int k;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "empty") == 0);
	EXPECT(!strcmp(upmc_region_name(r), "empty"));
	ASSERT(upmc_region_bias(r, 0, &min, &median) == 0);
	EXPECT(min == 37 && median == 37); /* one read's worth, every time */
	for (k = 0; k < 100; k++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT(st.count == 100 && st.min == 37 && st.max == 37);
	ASSERT(upmc_region_stat(r, 1, 1, &st) == 0);
	EXPECT(st.min == 0 && st.max == 0 && st.median == 0 && st.mean == 0);
	/* a region with work: exactly the work after correction */
	upmc_region_reset(r);
	upmc_region_begin(r);
	sim_tick(0, 1000);
	upmc_region_end(r);
	ASSERT(upmc_region_last(r, 0, 1, &last) == 0);
	EXPECT(last == 1000);
	ASSERT(upmc_region_last(r, 0, 0, &last) == 0);
	EXPECT(last == 1037);
	ASSERT(upmc_region_bias(r, UPMC_NS, &min, &median) == 0);
	EXPECT(min > 0 && median >= min);
	upmc_region_close(r);
	upmc_close(set);
}

/* A region's work: instructions and cycles. */
static void region_of(struct upmc_region *r, uint64_t instructions, uint64_t cycles)
{
	upmc_region_begin(r);
	sim_tick(0, instructions);
	sim_tick(1, cycles);
	upmc_region_end(r);
}

/*
 * Each region's IPC, and the IPC of the summed counts, which weighs each
 * region by its cycles: 3, 1 and 2/7 per region, 600 / 900 of the totals.
 * Raw, each count has a read's worth (10) more.
 */
TEST(region, metrics_per_region_and_of_the_totals)
{
	struct upmc_set *set = open_sim("IPC", 10);
	struct upmc_region *r;
	struct upmc_stat st;
	double v;

	ASSERT(set);
	ASSERT(upmc_metric_count(set) == 1 && upmc_count(set) == 2);
	ASSERT(upmc_region_open(&r, set, "ipc") == 0);
	ASSERT(upmc_region_metric_stat(r, 0, 1, &st) == 0);
	EXPECT(st.count == 0 && isnan(st.median));
	EXPECT_EQ(upmc_region_metric_of_totals(r, 0, 1, &v), -ENODATA);
	EXPECT(isnan(v));
	region_of(r, 300, 100);
	region_of(r, 100, 100);
	region_of(r, 200, 700);
	ASSERT(upmc_region_metric_stat(r, 0, 1, &st) == 0);
	EXPECT_EQ_U64(st.count, 3);
	EXPECT(same(st.min, 200.0 / 700.0) && same(st.max, 3.0) && same(st.median, 1.0));
	EXPECT_MSG(same(st.mean, (3.0 + 1.0 + 200.0 / 700.0) / 3), "%.17g", st.mean);
	ASSERT(upmc_region_metric_of_totals(r, 0, 1, &v) == 0);
	EXPECT_MSG(same(v, 600.0 / 900.0), "%.17g", v);
	ASSERT(upmc_region_metric_last(r, 0, 1, &v) == 0);
	EXPECT(same(v, 200.0 / 700.0));
	/* raw: the reads' own counts in them */
	ASSERT(upmc_region_metric_stat(r, 0, 0, &st) == 0);
	EXPECT(same(st.min, 210.0 / 710.0) && same(st.max, 310.0 / 110.0) && same(st.median, 1.0));
	ASSERT(upmc_region_metric_of_totals(r, 0, 0, &v) == 0);
	EXPECT(same(v, 630.0 / 930.0));
	ASSERT(upmc_region_metric_last(r, 0, 0, &v) == 0);
	EXPECT(same(v, 210.0 / 710.0));
	/* the counters' own statistics are unchanged by it */
	ASSERT(upmc_region_stat(r, 0, 1, &st) == 0);
	EXPECT(st.count == 3 && st.mean == 200);
	/* reset forgets them; a recalibration takes in no metric */
	upmc_region_reset(r);
	ASSERT(upmc_region_calibrate(r, 100) == 0);
	ASSERT(upmc_region_metric_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 0);
	EXPECT_EQ(upmc_region_metric_last(r, 0, 0, &v), -ENODATA);
	EXPECT_EQ(upmc_region_metric_stat(r, 1, 0, &st), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "metric 1 does not exist");
	EXPECT_EQ(upmc_region_metric_stat(r, 0, 0, NULL), -EINVAL);
	EXPECT_EQ(upmc_region_metric_of_totals(NULL, 0, 0, &v), -EINVAL);
	upmc_region_close(r);
	upmc_close(set);
}

/* A region without branches has no branch-miss ratio: in no statistic,
 * and said; the one with branches is. */
TEST(region, a_metric_without_a_denominator_has_no_value)
{
	struct upmc_set *set = open_sim("branch-miss-ratio", 0);
	struct upmc_region *r;
	struct upmc_stat st;
	double v;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, NULL) == 0);
	region_of(r, 0, 0); /* branch-misses, branches */
	EXPECT_EQ(upmc_region_metric_last(r, 0, 1, &v), -ENODATA);
	EXPECT_CONTAINS(upmc_last_error(), "branch-miss-ratio has no value of the last region");
	ASSERT(upmc_region_metric_stat(r, 0, 1, &st) == 0);
	EXPECT_EQ_U64(st.count, 0);
	EXPECT_EQ(upmc_region_metric_of_totals(r, 0, 1, &v), -ENODATA);
	region_of(r, 5, 200);
	ASSERT(upmc_region_metric_stat(r, 0, 1, &st) == 0);
	EXPECT(st.count == 1 && same(st.median, 0.025));
	ASSERT(upmc_region_metric_of_totals(r, 0, 1, &v) == 0);
	EXPECT(same(v, 0.025));
	upmc_region_close(r);
	upmc_close(set);
}

TEST(region, bias_is_the_same_every_calibration)
{
	struct upmc_set *set = open_sim("instructions", 11);
	struct upmc_region *r;
	double first, again;
	int k;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, NULL) == 0);
	ASSERT(upmc_region_bias(r, 0, NULL, &first) == 0);
	for (k = 0; k < 5; k++) {
		ASSERT(upmc_region_calibrate(r, 500) == 0);
		ASSERT(upmc_region_bias(r, 0, NULL, &again) == 0);
		EXPECT(again == first);
	}
	upmc_region_close(r);
	upmc_close(set);
}

TEST(region, bad_input)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_region *r;
	struct upmc_stat st;
	double v;

	ASSERT(set);
	EXPECT_EQ(upmc_region_open(NULL, set, "x"), -EINVAL);
	EXPECT_EQ(upmc_region_open(&r, NULL, "x"), -EINVAL);
	ASSERT(upmc_region_open(&r, set, "x") == 0);
	EXPECT_EQ(upmc_region_stat(r, 1, 0, &st), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "counter 1 does not exist");
	EXPECT_EQ(upmc_region_stat(r, 0, 0, NULL), -EINVAL);
	EXPECT_EQ(upmc_region_calibrate(r, 0), -EINVAL);
	EXPECT_EQ(upmc_region_last(NULL, 0, 0, &v), -EINVAL);
	upmc_region_close(r);
	upmc_region_close(NULL);
	upmc_close(set);
}

static void seven_counts(void *arg)
{
	(void)arg;
	sim_tick(0, 7);
}

TEST(bench, per_call_counts_with_the_bias_removed)
{
	struct upmc_set *set = open_sim("instructions,cycles", 23);
	struct upmc_bench_options opts = {sizeof(opts), 10, 0, 10, 15};
	struct upmc_bench_result res;

	ASSERT(set);
	ASSERT_MSG(upmc_bench(set, seven_counts, NULL, &opts, &res) == 0, "%s", upmc_last_error());
	EXPECT_EQ(res.repeats, 10); /* max_repeats: the first batch is the last */
	EXPECT_EQ(res.samples, 15);
	EXPECT(res.counter[0].min == 7 && res.counter[0].median == 7 && res.counter[0].max == 7);
	EXPECT(res.counter[1].median == 0);
	EXPECT_EQ(res.ns.count, 15);
	upmc_close(set);
}

static void six_instructions_three_cycles(void *arg)
{
	(void)arg;
	sim_tick(0, 6);
	sim_tick(1, 3);
}

/* Each batch's IPC, its reads' counts subtracted: 2, as is that of the
 * totals. */
TEST(bench, metrics_per_sample_and_of_the_totals)
{
	struct upmc_set *set = open_sim("IPC", 23);
	struct upmc_bench_options opts = {sizeof(opts), 10, 0, 10, 15};
	struct upmc_bench_result res;

	ASSERT(set);
	ASSERT_MSG(upmc_bench(set, six_instructions_three_cycles, NULL, &opts, &res) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(res.metrics, 1);
	EXPECT_EQ_U64(res.metric[0].count, 15);
	EXPECT(res.metric[0].min == 2 && res.metric[0].median == 2 && res.metric[0].mean == 2 &&
	       res.metric[0].max == 2);
	EXPECT(res.metric_of_totals[0] == 2);
	EXPECT(res.counter[0].median == 6 && res.counter[1].median == 3);
	upmc_close(set);
}

/* A read that fails (another user took the counters) drops the region: it
 * is counted, and no statistic gets 0 - v0. */
TEST(region, a_failed_read_drops_the_sample_and_counts_it)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_region *r;
	struct upmc_stat st;
	double last, bias_min, bias_median, min, median;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "x") == 0);
	EXPECT_EQ(upmc_region_last(r, UPMC_NS, 0, &last), -ENODATA); /* none has ended */
	upmc_region_begin(r);
	sim_tick(0, 50);
	sim_stop(0); /* off the PMU: the end reads by read(2), which fails */
	sim.read_fails = 1;
	upmc_region_end(r);
	sim.read_fails = 0;
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ(st.count, 0);
	EXPECT_EQ(upmc_region_last(r, UPMC_NS, 0, &last), -ENODATA); /* not the calibration's */
	EXPECT_CONTAINS(upmc_last_error(), "or the last one was dropped");
	sim_start(0, 3);
	upmc_region_begin(r);
	sim_tick(0, 50);
	upmc_region_end(r);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ(st.count, 1);
	EXPECT(st.min == 50);
	ASSERT(upmc_region_last(r, 0, 0, &last) == 0);
	EXPECT(last == 50);
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	/* A calibration that cannot read fails, and drops nothing of the
	 * caller's nor the bias it had. */
	ASSERT(upmc_region_bias(r, 0, &bias_min, &bias_median) == 0);
	sim_stop(0);
	sim.read_fails = 1;
	EXPECT_EQ(upmc_region_calibrate(r, 10), -ENODATA);
	EXPECT_CONTAINS(upmc_last_error(), "all 10 empty regions were dropped, the bias is "
	                                   "unchanged: simulated: the pinned group");
	sim.read_fails = 0;
	sim_start(0, 3);
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	ASSERT(upmc_region_bias(r, 0, &min, &median) == 0);
	EXPECT(min == bias_min && median == bias_median);
	upmc_region_begin(NULL); /* bad input: nothing happens */
	upmc_region_end(NULL);
	EXPECT(upmc_region_name(NULL) == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "region is NULL");
	upmc_region_close(r);
	upmc_close(set);
}

/* begin and end only record; the statistics fold the records in when the
 * pending buffer fills and when asked. 5000 regions of 0..6 ticks of work,
 * one of them with a failed read at begin: all others are in the
 * statistics, exactly. */
TEST(region, every_region_is_folded_in_past_the_pending_buffer)
{
	struct upmc_set *set = open_sim("instructions,cycles", 5);
	struct upmc_region *r;
	struct upmc_stat st;
	double last;
	uint64_t k, sum = 0;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "many") == 0);
	for (k = 0; k < 5000; k++) {
		if (k == 2500) {
			sim_stop(0);
			sim.read_fails = 1;
		}
		upmc_region_begin(r);
		if (k == 2500) {
			sim.read_fails = 0;
			sim_start(0, 3);
		}
		sim_tick(0, k % 7);
		upmc_region_end(r);
		if (k != 2500)
			sum += k % 7;
	}
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	ASSERT(upmc_region_stat(r, 0, 1, &st) == 0);
	EXPECT_EQ(st.count, 4999);
	EXPECT(st.min == 0 && st.max == 6);
	EXPECT_MSG(fabs(st.mean * 4999 - (double)sum) < 1e-6, "mean %f, sum %llu", st.mean,
	           (unsigned long long)sum);
	ASSERT(upmc_region_stat(r, 1, 1, &st) == 0);
	EXPECT(st.count == 4999 && st.max == 0);
	ASSERT(upmc_region_last(r, 0, 1, &last) == 0);
	EXPECT(last == 4999 % 7);
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ(st.count, 4999);
	upmc_region_close(r);
	upmc_close(set);
}

/* When `now`, the next read fails: counter 0 off the PMU, and its
 * read(2) failing; reads_work_again() undoes it. */
static void reads_fail(int now)
{
	if (now) {
		sim_stop(0);
		sim.read_fails = 1;
	}
}

static void reads_work_again(int now)
{
	if (now) {
		sim.read_fails = 0;
		sim_start(0, 3);
	}
}

/* 3001 regions of a 4-counter set (the last batch an odd number of
 * records), a read failing at an end in the first batch and at a begin in
 * the second; with `each` set, each one's values read back as it ends (a
 * batch of one record), summed in sum[] with their min and max. The
 * region stays open, for its statistics. */
static struct upmc_region *four_counter_regions(struct upmc_set *set, int each, double *min,
                                                double *max, double *sum)
{
	struct upmc_region *r;
	uint64_t k;
	unsigned i;

	if (upmc_region_open(&r, set, "four") < 0)
		return NULL;
	for (i = 0; i < 4; i++) {
		min[i] = INFINITY;
		max[i] = sum[i] = 0;
	}
	for (k = 0; k < 3001; k++) {
		const int fails_at_end = k == 700, fails_at_begin = k == 1500;
		reads_fail(fails_at_begin);
		upmc_region_begin(r);
		reads_work_again(fails_at_begin);
		for (i = 0; i < 4; i++)
			sim_tick(i, k % 5 + 1);
		reads_fail(fails_at_end);
		upmc_region_end(r);
		reads_work_again(fails_at_end);
		for (i = 0; each && i < 4; i++) {
			double v;
			if (upmc_region_last(r, i, 0, &v) < 0)
				continue; /* dropped */
			min[i] = fmin(min[i], v);
			max[i] = fmax(max[i], v);
			sum[i] += v;
		}
	}
	return r;
}

/* A batch of records of 4 counters folds its every series in one pass;
 * one with a failed read folds record by record. Either way the
 * statistics are those of the same regions folded one at a time. */
TEST(region, four_counters_fold_past_failed_reads_at_either_end)
{
	struct upmc_set *set = open_sim("instructions,cycles,instructions,instructions", 5);
	struct upmc_region *r;
	struct upmc_stat st;
	double min[4], max[4], sum[4], unused[4];
	unsigned i;

	ASSERT(set);
	r = four_counter_regions(set, 1, min, max, sum);
	ASSERT(r);
	EXPECT_EQ_U64(upmc_region_dropped(r), 2);
	upmc_region_close(r);
	upmc_close(set);
	set = open_sim("instructions,cycles,instructions,instructions", 5);
	ASSERT(set);
	r = four_counter_regions(set, 0, unused, unused, unused);
	ASSERT(r);
	EXPECT_EQ_U64(upmc_region_dropped(r), 2);
	for (i = 0; i < 4; i++) {
		ASSERT(upmc_region_stat(r, i, 0, &st) == 0);
		EXPECT_EQ(st.count, 2999);
		EXPECT_MSG(st.min == min[i] && st.max == max[i],
		           "counter %u: min %f, max %f; one at a time %f, %f", i, st.min, st.max,
		           min[i], max[i]);
		EXPECT_MSG(fabs(st.mean * 2999 - sum[i]) < 1e-6, "counter %u: mean %f, sum %f", i,
		           st.mean, sum[i]);
	}
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ(st.count, 2999);
	upmc_region_close(r);
	upmc_close(set);
}

/* The fold takes two records' differences at once, the lower against the
 * minimum and the higher against the maximum: regions of decreasing work
 * (the second record of every pair the lower), over three batches and an
 * odd record, have the same min, max and mean as counted one by one. */
TEST(region, four_counters_fold_pairs_whichever_record_is_lower)
{
	struct upmc_set *set = open_sim("instructions,cycles,instructions,instructions", 0);
	struct upmc_region *r;
	struct upmc_stat st;
	const uint64_t n = 3 * 1024 + 1;
	uint64_t k;
	unsigned i;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "decreasing") == 0);
	for (k = 0; k < n; k++) {
		upmc_region_begin(r);
		for (i = 0; i < 4; i++)
			sim_tick(i, (n - k) * (i + 1));
		upmc_region_end(r);
	}
	for (i = 0; i < 4; i++) {
		ASSERT(upmc_region_stat(r, i, 0, &st) == 0);
		EXPECT_EQ(st.count, n);
		EXPECT_MSG(st.min == i + 1 && st.max == (double)(n * (i + 1)),
		           "counter %u: min %f, max %f", i, st.min, st.max);
		EXPECT_MSG(st.mean == (double)(n + 1) / 2 * (i + 1), "counter %u: mean %f", i,
		           st.mean);
	}
	upmc_region_close(r);
	upmc_close(set);
}

/*
 * A batch folds a column at a time, its samples kept by index: over 10^6
 * regions of 0 .. 10^6 - 1 instructions of work, in that order, count,
 * min, max and mean are exact, and the median of the kept samples is near
 * the middle (a reservoir that kept early or late regions more often
 * would not be: 4096 uniform samples put it within 2% of the middle, 5
 * standard deviations). The random numbers are seeded: the same at every
 * run. The second counter and the nanoseconds fold in the same batches.
 */
TEST(region, a_million_regions_keep_a_uniform_subset)
{
	struct upmc_set *set = open_sim("instructions,cycles", 5);
	struct upmc_region *r;
	struct upmc_stat st;
	double last;
	uint64_t k;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "million") == 0);
	for (k = 0; k < 1000000; k++) {
		upmc_region_begin(r);
		sim_tick(0, k);
		upmc_region_end(r);
	}
	EXPECT_EQ_U64(upmc_region_dropped(r), 0);
	ASSERT(upmc_region_stat(r, 0, 1, &st) == 0);
	EXPECT_EQ_U64(st.count, 1000000);
	EXPECT(st.min == 0 && st.max == 999999 && st.mean == 499999.5);
	EXPECT_MSG(fabs(st.median - 500000) < 10000, "median %.0f", st.median);
	ASSERT(upmc_region_stat(r, 1, 1, &st) == 0);
	EXPECT(st.count == 1000000 && st.min == 0 && st.max == 0 && st.median == 0);
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 1000000);
	ASSERT(upmc_region_last(r, 0, 1, &last) == 0);
	EXPECT(last == 999999);
	upmc_region_close(r);
	upmc_close(set);
}

/* A time-only region's batch with a begin without its end in it (in the
 * second batch) folds record by record: that region alone is dropped. */
TEST(region, time_only_drops_a_begin_without_its_end)
{
	struct upmc_set *set;
	struct upmc_region *r;
	struct upmc_stat st;
	double last;
	int k;

	sim_reset(48);
	ASSERT(upmc_open_timer(&set) == 0);
	ASSERT(upmc_region_open(&r, set, "time") == 0);
	for (k = 0; k < 3000; k++) {
		upmc_region_begin(r);
		if (k != 1500)
			upmc_region_end(r);
	}
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 2999);
	EXPECT(st.min <= st.median && st.median <= st.max);
	EXPECT(upmc_region_last(r, UPMC_NS, 0, &last) == 0);
	upmc_region_close(r);
	upmc_close(set);
}

/* A begin without its end is dropped and counted; an end without a begin
 * (even 3000 in a row, past the pending buffer) writes nothing out of
 * bounds (ASan checks) and only moves the last region's end. */
TEST(region, unbalanced_begin_and_end)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_region *r;
	struct upmc_stat st;
	double last;
	int k;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "unbalanced") == 0);
	for (k = 0; k < 3000; k++)
		upmc_region_end(r);
	upmc_region_begin(r);
	upmc_region_begin(r);
	sim_tick(0, 9);
	upmc_region_end(r);
	sim_tick(0, 4);
	upmc_region_end(r); /* again: the same region ends later */
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ(st.count, 1);
	ASSERT(upmc_region_last(r, 0, 0, &last) == 0);
	EXPECT(last == 13);
	upmc_region_close(r);
	upmc_close(set);
}

/* A query inside a region (the code measured asks for the statistics so
 * far) counts the regions before it and leaves that one to its end: 21
 * regions, each asking in its middle, are 21 samples, none dropped. With
 * counters and time only, and past the pending buffer (1024 records). */
static void query_inside(struct upmc_region *r, unsigned what, int regions)
{
	struct upmc_stat st;
	double last;
	int k;

	for (k = 0; k < regions; k++) {
		upmc_region_begin(r);
		sim_tick(0, 5);
		ASSERT(upmc_region_stat(r, what, 0, &st) == 0);
		EXPECT_EQ_U64(st.count, (uint64_t)k);
		EXPECT_EQ_U64(upmc_region_dropped(r), 0);
		if (k)
			EXPECT(upmc_region_last(r, what, 0, &last) == 0);
		sim_tick(0, 5);
		upmc_region_end(r);
	}
	ASSERT(upmc_region_stat(r, what, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, (uint64_t)regions);
	EXPECT_EQ_U64(upmc_region_dropped(r), 0);
}

TEST(region, a_query_inside_a_region_keeps_it)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_region *r;
	struct upmc_stat st;
	double last;

	ASSERT(set);
	ASSERT(upmc_region_open(&r, set, "inside") == 0);
	query_inside(r, 0, 21);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT(st.min == 10 && st.max == 10);
	ASSERT(upmc_region_last(r, 0, 0, &last) == 0);
	EXPECT(last == 10);
	upmc_region_reset(r);
	query_inside(r, 0, 2100);
	/* a begin never ended is dropped once another begins */
	upmc_region_begin(r);
	EXPECT_EQ_U64(upmc_region_dropped(r), 0);
	upmc_region_begin(r);
	upmc_region_end(r);
	EXPECT_EQ_U64(upmc_region_dropped(r), 1);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 2101);
	upmc_region_close(r);
	upmc_close(set);
	ASSERT(upmc_open_timer(&set) == 0);
	ASSERT(upmc_region_open(&r, set, "inside, time only") == 0);
	query_inside(r, UPMC_NS, 21);
	upmc_region_close(r);
	upmc_close(set);
}

/* A read that fails reads UPMC_NOT_COUNTED, never a stale or 0 value. */
TEST(read, a_failed_read_counts_nothing)
{
	struct upmc_set *set = open_sim("instructions,cycles", 0);
	uint64_t v[2] = {1, 2}, one = 3;

	ASSERT(set);
	sim_stop(0);
	sim.read_fails = 1;
	EXPECT(upmc_read(set, v) < 0);
	EXPECT(v[0] == UPMC_NOT_COUNTED && v[1] == UPMC_NOT_COUNTED);
	v[0] = v[1] = 0;
	EXPECT(upmc_read_n(set, v, 2) < 0);
	EXPECT(v[0] == UPMC_NOT_COUNTED && v[1] == UPMC_NOT_COUNTED);
	EXPECT(upmc_read_counter(set, 0, &one) < 0);
	EXPECT(one == UPMC_NOT_COUNTED);
	sim.read_fails = 0;
	upmc_close(set);
}

/* Busy for us microseconds of CLOCK_MONOTONIC. */
static void busy_us(long long us)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while ((now.tv_sec - start.tv_sec) * 1000000ll + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

/* A region of a timer-only set, in a fresh simulated kernel. */
static struct upmc_region *timer_region(struct upmc_set **set)
{
	struct upmc_region *r;

	sim_reset(48);
	if (upmc_open_timer(set) < 0)
		return NULL;
	if (upmc_region_open(&r, *set, "time") < 0) {
		upmc_close(*set);
		return NULL;
	}
	return r;
}

/* A timer-only set: the region keeps nanoseconds only. */
TEST(region, time_only_keeps_nanoseconds)
{
	struct upmc_set *set;
	struct upmc_region *r = timer_region(&set);
	struct upmc_stat st;
	int k;

	ASSERT(r);
	ASSERT(upmc_count(set) == 0);
	for (k = 0; k < 3000; k++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ(st.count, 3000);
	EXPECT(st.min <= st.median && st.median <= st.max);
	EXPECT(upmc_region_stat(r, 0, 0, &st) == -EINVAL);
	upmc_region_close(r);
	upmc_close(set);
}

/* A time-only batch folds eight records a step, then two, then one: with
 * every fourth region busy for 200 us and the others empty, the maximum
 * is one of the busy ones, far above the median of the empty ones. 4003
 * regions: every sample kept, the last batch's steps of eight, two and
 * one record each taken. */
TEST(region, time_only_folds_eight_records_a_step)
{
	struct upmc_set *set;
	struct upmc_region *r = timer_region(&set);
	struct upmc_stat st;
	int k;

	ASSERT(r);
	for (k = 0; k < 4003; k++) {
		upmc_region_begin(r);
		if (k % 4 == 0 && k < 4000) /* none in the steps of two and one */
			busy_us(200);
		upmc_region_end(r);
	}
	EXPECT_EQ_U64(upmc_region_dropped(r), 0);
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ(st.count, 4003);
	EXPECT_MSG(st.max >= 100 * st.median && st.min <= st.median, "min %f, median %f, max %f ns",
	           st.min, st.median, st.max);
	upmc_region_close(r);
	upmc_close(set);
}

/* 16 time-only regions, two steps of eight in the fold, all of them
 * busy for 200 us but region `odd` (busy: 0) or none but it (busy: 1);
 * their nanoseconds. */
static void sixteen_with_one_odd(int odd, int busy, struct upmc_stat *st)
{
	struct upmc_set *set;
	struct upmc_region *r = timer_region(&set);
	int k;

	ASSERT(r);
	for (k = 0; k < 16; k++) {
		upmc_region_begin(r);
		if ((k == odd) == busy)
			busy_us(200);
		upmc_region_end(r);
	}
	EXPECT(upmc_region_stat(r, UPMC_NS, 0, st) == 0);
	EXPECT_EQ(st->count, 16);
	upmc_region_close(r);
	upmc_close(set);
}

/* The fold takes eight records a step in four vectors of two, ordered in
 * pairs before the running minimum and maximum: the longest region and
 * the shortest are found in each of the eight places of a step. */
TEST(region, time_only_finds_the_extremes_in_every_place_of_a_step)
{
	struct upmc_stat st;
	int place;

	for (place = 0; place < 8; place++) {
		sixteen_with_one_odd(8 + place, 1, &st);
		EXPECT_MSG(st.max >= 100 * st.median,
		           "the longest in place %d: max %f, median %f ns", place, st.max,
		           st.median);
		sixteen_with_one_odd(8 + place, 0, &st);
		EXPECT_MSG(100 * st.min <= st.median,
		           "the shortest in place %d: min %f, median %f ns", place, st.min,
		           st.median);
	}
}

static uint64_t calls;

static void counted_call(void *arg)
{
	(void)arg;
	calls++;
}

/*
 * No batch can last 10^15 ns, so the batch grows 10x per try until
 * max_repeats stops it: 1 + 10 + 100 + 1000 warm-up calls, then the samples.
 * Counting calls keeps the test free of the host's speed and load.
 */
TEST(bench, grows_the_batch_tenfold_up_to_max_repeats)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_bench_options opts = {sizeof(opts), 1, 1000000000000000ull, 1000, 5};
	struct upmc_bench_result res;

	ASSERT(set);
	calls = 0;
	ASSERT(upmc_bench(set, counted_call, NULL, &opts, &res) == 0);
	EXPECT_EQ(res.repeats, 1000);
	EXPECT_EQ_U64(calls, 1 + 10 + 100 + 1000 + 5 * 1000);
	opts.size = 4;
	EXPECT_EQ(upmc_bench(set, counted_call, NULL, &opts, &res), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "sizeof(struct upmc_bench_options)");
	upmc_close(set);
}

/*
 * Zero options are the defaults: min_ns 0 is 1 ms, so a call of a few ns is
 * batched (with min_ns taken as 0 the first batch, one call, would do).
 * A batch of one call outlasts 1 ms only when the thread is preempted
 * right there: three tries keep the host's load out of it.
 */
TEST(bench, zero_options_are_the_defaults)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_bench_options opts = {sizeof(opts), 0, 0, 0, 0};
	struct upmc_bench_result res;
	int tries;

	ASSERT(set);
	for (tries = 0; tries < 3; tries++) {
		ASSERT_MSG(upmc_bench(set, counted_call, NULL, &opts, &res) == 0, "%s",
		           upmc_last_error());
		if (res.repeats > 1)
			break;
	}
	EXPECT_MSG(res.repeats > 1, "%llu calls per batch", (unsigned long long)res.repeats);
	EXPECT_EQ(res.samples, 31);
	upmc_close(set);
}

static void two_ms_call(void *arg)
{
	(void)arg;
	busy_us(2000);
}

/* A call that alone outlasts min_ns (1 ms) is measured one call a batch. */
TEST(bench, stops_growing_once_a_batch_is_long_enough)
{
	struct upmc_set *set = open_sim("instructions", 0);
	struct upmc_bench_options opts = {sizeof(opts), 1, 1000000, 1000, 3};
	struct upmc_bench_result res;

	ASSERT(set);
	ASSERT_MSG(upmc_bench(set, two_ms_call, NULL, &opts, &res) == 0, "%s", upmc_last_error());
	EXPECT_EQ(res.repeats, 1);
	EXPECT_MSG(res.ns.min >= 1000000, "%.0f ns", res.ns.min);
	upmc_close(set);
}

TEST(prof, prints_one_line_per_pass)
{
	char buf[512] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");
	int k;

	ASSERT(out);
	sim_reset(48);
	sim.read_cost = 5;
	for (k = 0; k < 2; k++) {
		UPMC_PROF_BEGIN(demo, "instructions,cycles");
		sim_tick(0, 300);
		UPMC_PROF_END(demo, out);
		if (k == 1)
			UPMC_PROF_CLOSE(demo);
	}
	fclose(out);
	EXPECT_CONTAINS(buf, "upmc demo: ");
	EXPECT_CONTAINS(buf, " ns, instructions 300, cycles 0\nupmc demo: ");
}

/* A spec naming metrics: the line ends with the last region's. */
TEST(prof, prints_the_metrics_the_spec_names)
{
	char buf[512] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");

	ASSERT(out);
	sim_reset(48);
	sim.read_cost = 5;
	UPMC_PROF_BEGIN(ipc, "IPC,branch-miss-ratio");
	sim_tick(0, 300); /* instructions */
	sim_tick(1, 200); /* cycles */
	sim_tick(2, 1);   /* branch-misses */
	sim_tick(3, 40);  /* branches */
	UPMC_PROF_END(ipc, out);
	UPMC_PROF_CLOSE(ipc);
	fclose(out);
	EXPECT_CONTAINS(buf, ", instructions 300, cycles 200, branch-misses 1, branches 40, IPC "
	                     "1.50, branch-miss-ratio 2.50%\n");
}
