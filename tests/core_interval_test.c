/* SPDX-License-Identifier: MIT */
/*
 * Multiplexed counters measured over an interval, on the fake kernel. An
 * event counts fast, goes off the PMU while another user holds the
 * counters (its scaled total keeps growing by extrapolation), then counts
 * 9000 in the interval measured. The interval is 9000, scaled by the
 * interval's own times, in every layer: upmc_interval(), a region,
 * upmc_bench(), upmc_measure_call()'s rule; never the difference of two
 * scaled totals (which here wraps below zero).
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"
#include <upmc/zone.h>

static const struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};

/* x86-intel's general counters all taken, or all given back. */
static void take_all(int taken)
{
	fake_take_counters(0, taken ? fake.pmu[0].gp : 0);
}

/* 10 per ns for 1 us, then off the PMU for 99 us (a scaled total of
 * 10^6), then back on, counting 1 per ns. */
static void fast_then_taken(void)
{
	fake.pmu[0].rate = 10;
	fake_run(1000);
	take_all(1);
	fake_run(99000);
	take_all(0);
	fake.pmu[0].rate = 1;
}

/* branch-misses on a general counter, counted so. */
static struct upmc_set *counted_fast_then_taken(void)
{
	struct upmc_set *set;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	if (upmc_open(&set, "branch-misses", &mux) < 0)
		return NULL;
	fast_then_taken();
	return set;
}

TEST(multiplex, an_interval_is_scaled_by_its_own_times)
{
	struct upmc_set *set = counted_fast_then_taken();
	uint64_t s0[UPMC_SNAPSHOT_MAX], s1[UPMC_SNAPSHOT_MAX], total0, total1, count;
	double ratio;

	ASSERT_MSG(set, "%s", upmc_last_error());
	EXPECT_EQ(upmc_snapshot_words(set), 3);
	ASSERT(upmc_read(set, &total0) == 1);
	EXPECT_EQ_U64(total0, 1000000); /* 10^4 counted in 1% of the time */
	EXPECT(upmc_counter_ratio(set, 0) < 0.02);
	ASSERT(upmc_snapshot(set, s0) == 1);
	fake_run(9000);
	ASSERT(upmc_snapshot(set, s1) == 1);
	ASSERT(upmc_read(set, &total1) == 1);
	EXPECT(total1 < total0); /* the scaled totals: their difference is no count */
	ASSERT(upmc_interval(set, s0, s1, &count, &ratio) == 1);
	EXPECT_EQ_U64(count, 9000);
	EXPECT(ratio == 1);
	upmc_close(set);
}

TEST(multiplex, part_of_an_interval_off_the_pmu_is_extrapolated)
{
	struct upmc_set *set = counted_fast_then_taken();
	uint64_t s0[UPMC_SNAPSHOT_MAX], s1[UPMC_SNAPSHOT_MAX], count;
	double ratio;

	ASSERT_MSG(set, "%s", upmc_last_error());
	ASSERT(upmc_snapshot(set, s0) == 1);
	fake_run(3000);
	take_all(1);
	fake_run(3000);
	ASSERT(upmc_snapshot(set, s1) == 1);
	ASSERT(upmc_interval(set, s0, s1, &count, &ratio) == 1);
	EXPECT_EQ_U64(count, 6000); /* 3000 counted in half the interval */
	EXPECT(ratio == 0.5);
	upmc_close(set);
}

TEST(multiplex, an_interval_that_never_ran_is_not_counted)
{
	struct upmc_set *set = counted_fast_then_taken();
	uint64_t s0[UPMC_SNAPSHOT_MAX], s1[UPMC_SNAPSHOT_MAX], count;
	double ratio;

	ASSERT_MSG(set, "%s", upmc_last_error());
	take_all(1);
	ASSERT(upmc_snapshot(set, s0) == 1);
	fake_run(5000);
	ASSERT(upmc_snapshot(set, s1) == 1);
	ASSERT(upmc_interval(set, s0, s1, &count, &ratio) == 1);
	EXPECT_EQ_U64(count, UPMC_NOT_COUNTED);
	EXPECT(ratio == 0);
	upmc_close(set);
}

TEST(multiplex, a_region_counts_the_interval)
{
	struct upmc_set *set = counted_fast_then_taken();
	struct upmc_region *region;
	struct upmc_stat st;
	double v;

	ASSERT_MSG(set, "%s", upmc_last_error());
	ASSERT_MSG(upmc_region_open(&region, set, "mux") == 0, "%s", upmc_last_error());
	/* the calibration's empty regions ran no time: the counter's bias is 0 */
	upmc_region_begin(region);
	fake_run(9000);
	upmc_region_end(region);
	ASSERT_MSG(upmc_region_last(region, 0, 1, &v) == 0, "%s", upmc_last_error());
	EXPECT(v == 9000);
	/* off the PMU for a whole region: no count, and nothing made up */
	take_all(1);
	upmc_region_begin(region);
	fake_run(9000);
	upmc_region_end(region);
	EXPECT_EQ(upmc_region_last(region, 0, 1, &v), -ENODATA);
	ASSERT(upmc_region_last(region, UPMC_NS, 0, &v) == 0);
	ASSERT(upmc_region_stat(region, 0, 1, &st) == 0);
	EXPECT_EQ_U64(st.count, 1);
	EXPECT(st.min == 9000 && st.max == 9000);
	EXPECT_EQ_U64(upmc_region_dropped(region), 0);
	upmc_region_close(region);
	upmc_close(set);
}

/* The benchmarked call: the counters come back at the first one. */
static void run_1us(void *arg)
{
	int *first = arg;

	if (*first) {
		take_all(0);
		fake.pmu[0].rate = 1;
		*first = 0;
	}
	fake_run(1000);
}

TEST(multiplex, bench_counts_per_call)
{
	struct upmc_bench_options opts = {sizeof(opts), 10, 1, 10, 5};
	struct upmc_bench_result res;
	struct upmc_set *set = counted_fast_then_taken();
	int first = 1;

	ASSERT_MSG(set, "%s", upmc_last_error());
	take_all(1);
	fake_run(50000);
	ASSERT_MSG(upmc_bench(set, run_1us, &first, &opts, &res) == 0, "%s", upmc_last_error());
	EXPECT_EQ_U64(res.repeats, 10);
	EXPECT_EQ_U64(res.counter[0].count, 5);
	EXPECT(res.counter[0].min == 1000 && res.counter[0].max == 1000);
	upmc_close(set);
}

TEST(multiplex, a_failed_snapshot_counts_nothing)
{
	struct upmc_set *set = counted_fast_then_taken();
	uint64_t s[UPMC_SNAPSHOT_MAX], count;
	unsigned i;

	ASSERT_MSG(set, "%s", upmc_last_error());
	EXPECT_EQ(upmc_snapshot(set, NULL), -EINVAL);
	EXPECT_EQ(upmc_interval(set, s, NULL, &count, NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_interval");
	upmc_close(set);
	/* another thread's set: -EPERM, and every word says "not counted" */
	set = counted_fast_then_taken();
	ASSERT(set);
	set->thread = ~set->thread;
	memset(s, 0, sizeof(s));
	EXPECT_EQ(upmc_snapshot(set, s), -EPERM);
	for (i = 0; i < 3; i++)
		EXPECT_EQ_U64(s[i], UPMC_NOT_COUNTED);
	set->thread = ~set->thread;
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

/* The zones of a profile, by name. */
struct seen {
	uint64_t outer, outer_self, inner, idle;
	double outer_ratio, idle_ratio;
	unsigned zones;
};

static int see(const struct upmc_zone_info *z, void *arg)
{
	struct seen *s = arg;

	s->zones++;
	if (!strcmp(z->loc->name, "outer")) {
		s->outer = z->delta[0];
		s->outer_self = z->self[0];
		s->outer_ratio = z->ratio[0];
	} else if (!strcmp(z->loc->name, "inner")) {
		s->inner = z->delta[0];
	} else {
		s->idle = z->delta[0];
		s->idle_ratio = z->ratio[0];
	}
	return 0;
}

TEST(multiplex, zones_count_their_own_interval)
{
	static const struct upmc_zone_loc outer = {"outer", NULL, NULL, 0},
	                                  inner = {"inner", NULL, NULL, 0},
	                                  idle = {"idle", NULL, NULL, 0};
	struct upmc_profile_options opts = {sizeof(opts), UPMC_OPT_MULTIPLEX, 0, 0, 0};
	struct upmc_profile *p;
	struct seen seen = {0};

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(upmc_profile_open(&p, "branch-misses", &opts) == 0, "%s", upmc_last_error());
	fast_then_taken();
	upmc_zone_begin(&outer);
	fake_run(2000);
	upmc_zone_begin(&inner);
	fake_run(9000);
	upmc_zone_end();
	fake_run(3000);
	take_all(1);
	fake_run(14000); /* off the PMU for half the outer zone */
	take_all(0);
	upmc_zone_end();
	take_all(1);
	upmc_zone_begin(&idle);
	fake_run(5000);
	upmc_zone_end();
	take_all(0);
	ASSERT(upmc_profile_zones(p, see, &seen) == 3);
	EXPECT_EQ_U64(seen.inner, 9000);
	EXPECT_EQ_U64(seen.outer, 28000); /* 14000 counted in half its time */
	EXPECT(seen.outer_ratio == 0.5);
	EXPECT_EQ_U64(seen.outer_self, 28000 - 9000);
	EXPECT_EQ_U64(seen.idle, UPMC_NOT_COUNTED);
	EXPECT(seen.idle_ratio == 0);
	upmc_profile_close(p);
	EXPECT_EQ(fake_open_events(), 0);
}

/* A counter track needs a running total, which a multiplexed counter does
 * not have: its slices end with the zone's count and the share it ran. */
TEST(multiplex, perfetto_slices_carry_the_zones_counts)
{
	static const struct upmc_zone_loc work = {"work", NULL, NULL, 0};
	struct upmc_profile_options opts = {sizeof(opts), UPMC_OPT_MULTIPLEX, 0, 0, 0};
	const struct pb_annotation *count, *ran;
	struct upmc_profile *p;
	struct pb_node *trace;
	struct pb_trace tr;
	char why[512], path[256];
	int unknown = 0, tracks = 0, ends = 0;
	size_t i;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: protobuf-compiler)");
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(upmc_profile_open(&p, "branch-misses", &opts) == 0, "%s", upmc_last_error());
	fast_then_taken();
	upmc_zone_begin(&work);
	fake_run(9000);
	upmc_zone_end();
	pb_trace_path(path, sizeof(path));
	ASSERT_MSG(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, path) == 0, "%s", upmc_last_error());
	trace = pb_decode_file(path, &unknown, why, sizeof(why));
	ASSERT_MSG(trace, "%s", why);
	EXPECT_EQ(unknown, 0);
	ASSERT_MSG(pb_interpret(trace, &tr, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; i < tr.n_tracks; i++)
		tracks += tr.track[i].is_counter;
	for (i = 0; i < tr.n; i++) {
		const struct pb_event *e = &tr.ev[i];
		if (e->type != 2)
			continue;
		ends++;
		EXPECT_EQ(e->n_values, 0);
		EXPECT_EQ(e->n_ann, 2);
		count = pb_annotation(e, "branch-misses");
		ran = pb_annotation(e, "branch-misses ran");
		EXPECT(count && count->is_uint && count->u == 9000);
		EXPECT(ran && ran->is_double && ran->d == 1);
	}
	EXPECT_EQ(tracks, 0);
	EXPECT_EQ(ends, 1);
	pb_trace_free(&tr);
	pb_free(trace);
	upmc_profile_close(p);
}
