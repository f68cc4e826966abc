/* SPDX-License-Identifier: MIT */
/*
 * A counter read that fails (a pinned group in error state: another user
 * took the counters) drops the sample, counts it and says so, in upmc_bench
 * and in UPMC_PROF sites, against the simulated kernel, whose read(2) fails
 * with EBUSY on demand. Regions do the same (measure_region_test).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/prof.h>

#include "tests/upmc_test.h"

/* The reads from here on fail: the event is off the PMU, read(2) fails. */
static void counters_taken(void)
{
	sim_stop(0);
	sim.read_fails = 1;
}

static void counters_back(void)
{
	sim.read_fails = 0;
	sim_start(0, 2);
}

static unsigned calls;

/* One call a batch, the warm-up's first: the 4th call's batch ends with
 * its read failing, and the next one begins so; the 5th call gives the
 * counters back. Every call counts 7. */
static void fourth_batch_fails(void *arg)
{
	(void)arg;
	sim_tick(0, 7);
	if (++calls == 4)
		counters_taken();
	else if (calls == 5)
		counters_back();
}

TEST(failed_read, bench_drops_and_counts_the_samples)
{
	struct upmc_bench_options opts = {sizeof(opts), 1, 0, 1, 9};
	struct upmc_bench_result res;
	struct upmc_set *set = NULL;

	sim_reset(48);
	ASSERT(upmc_open(&set, "instructions", NULL) == 0);
	calls = 0;
	ASSERT_MSG(upmc_bench(set, fourth_batch_fails, NULL, &opts, &res) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(calls, 1 + 9); /* the warm-up batch, then the samples */
	EXPECT_EQ(res.samples, 9);
	EXPECT_EQ(res.dropped, 2); /* the 3rd sample's end, the 4th's begin */
	EXPECT_EQ(res.counter[0].count, 7);
	EXPECT(res.counter[0].min == 7 && res.counter[0].max == 7); /* never 0 - v0 */
	EXPECT_EQ(res.ns.count, 7);
	upmc_close(set);
}

static void always_taken(void *arg)
{
	(void)arg;
	calls++;
	counters_taken();
}

TEST(failed_read, bench_with_every_sample_dropped_fails)
{
	struct upmc_bench_options opts = {sizeof(opts), 1, 0, 1, 5};
	struct upmc_bench_result res;
	struct upmc_set *set = NULL;

	sim_reset(48);
	ASSERT(upmc_open(&set, "instructions", NULL) == 0);
	EXPECT_EQ(upmc_bench(set, always_taken, NULL, &opts, &res), -ENODATA);
	EXPECT_CONTAINS(upmc_last_error(), "all 5 samples were dropped: simulated: the pinned "
	                                   "group is in an error state");
	EXPECT_EQ(res.dropped, 5);
	EXPECT_EQ(res.counter[0].count, 0);
	counters_back();
	upmc_close(set);
}

/* With the default sizes (1 ms a sample, up to 10^9 calls): a failed read
 * does not make the batch grow ten times over and over; it is tried three
 * times at its size. */
TEST(failed_read, bench_does_not_grow_batches_it_cannot_measure)
{
	struct upmc_bench_options opts = {sizeof(opts), 0, 0, 0, 5};
	struct upmc_bench_result res;
	struct upmc_set *set = NULL;

	sim_reset(48);
	ASSERT(upmc_open(&set, "instructions", NULL) == 0);
	calls = 0;
	EXPECT_EQ(upmc_bench(set, always_taken, NULL, &opts, &res), -ENODATA);
	EXPECT_EQ(res.repeats, 1);
	EXPECT_EQ(calls, 3 + 5); /* the sizing batches, then the samples */
	counters_back();
	upmc_close(set);
}

/* The 1st call takes the counters and the 2nd gives them back: the first
 * two sizing batches are dropped (the 2nd begins without them), and the
 * batch then grows as ever: 1, 10, 100 (max_repeats / 10 < 100: done). */
static void taken_at_first(void *arg)
{
	(void)arg;
	if (++calls == 1)
		counters_taken();
	else if (calls == 2)
		counters_back();
}

TEST(failed_read, bench_sizing_goes_on_after_a_failed_batch)
{
	struct upmc_bench_options opts = {sizeof(opts), 1, 1000000000000ull, 100, 5};
	struct upmc_bench_result res;
	struct upmc_set *set = NULL;

	sim_reset(48);
	ASSERT(upmc_open(&set, "instructions", NULL) == 0);
	calls = 0;
	ASSERT_MSG(upmc_bench(set, taken_at_first, NULL, &opts, &res) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(res.repeats, 100);
	EXPECT_EQ(calls, 3 + 10 + 100 + 5 * 100);
	EXPECT_EQ(res.dropped, 0);
	upmc_close(set);
}

/* Three passes: the second cannot read its end. It prints a drop, not the
 * difference of a value and UPMC_NOT_COUNTED. */
TEST(failed_read, prof_prints_and_counts_a_dropped_pass)
{
	char buf[1024] = "";
	FILE *out = fmemopen(buf, sizeof(buf), "w");
	uint64_t dropped = 0;
	int k;

	ASSERT(out);
	sim_reset(48);
	for (k = 0; k < 3; k++) {
		UPMC_PROF_BEGIN(taken, "instructions");
		sim_tick(0, 300);
		if (k == 1)
			counters_taken();
		UPMC_PROF_END(taken, out);
		if (k == 1)
			counters_back();
		dropped = upmc_prof_taken.dropped;
		if (k == 2)
			UPMC_PROF_CLOSE(taken);
	}
	fclose(out);
	EXPECT_EQ_U64(dropped, 1);
	EXPECT_CONTAINS(buf, "ns, instructions 300\nupmc taken: dropped (simulated: the pinned "
	                     "group is in an error state), 1 so far\nupmc taken: ");
	EXPECT_CONTAINS(strstr(buf, "so far\n"), ", instructions 300\n");
}
