/* SPDX-License-Identifier: MIT */
/*
 * Every public macro and inline function, used as a program would use
 * them: built by tools/ci-dist.sh (its every-macro-* checks) with gcc and
 * clang, as C11 and C++17, at -O0, -O2 and -O3 with -Wall -Wextra -Werror
 * -pedantic, against the installed headers and against the single-file upmc.h (-DUPMC_SINGLE_FILE),
 * also with -DUPMC_DEBUG and -DUPMC_NO_ZONES; and run. Exits 0 when every
 * value read is consistent, 1 with the reason when one is not. Works on a
 * machine without a PMU (counters it cannot count read UPMC_NOT_COUNTED).
 */
#include <stdio.h>
#include <string.h>

#ifdef UPMC_SINGLE_FILE
#include "upmc.h"
#else
#include <upmc/call.h>
#include <upmc/prof.h>
#include <upmc/upmc.h>
#include <upmc/zone.h>
#endif

static volatile uint64_t sink;

static void work(void *arg)
{
	uint64_t i;

	for (i = 0; i < 1000; i++)
		sink = sink + i + (arg ? 1 : 0);
}

static int failed(const char *what)
{
	fprintf(stderr, "every_macro: %s: %s\n", what, upmc_last_error());
	return 1;
}

/* Each value read later is not below the one read before, or not counted. */
static int later(const uint64_t *a, const uint64_t *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i] != UPMC_NOT_COUNTED && b[i] != UPMC_NOT_COUNTED && b[i] < a[i])
			return 0;
	return 1;
}

static int reads(struct upmc_set *set)
{
	uint64_t a[UPMC_MAX_COUNTERS], b[UPMC_MAX_COUNTERS], one, enabled, running;
	uint64_t t0 = upmc_timestamp(), t1, t2, t3;
	int n = upmc_count(set);

	t1 = upmc_timestamp_serialized();
	if (upmc_read(set, a) != n || upmc_read_n(set, b, 1) != 1 || upmc_read_n(set, b, 2) != 2 ||
	    upmc_read_n(set, b, 3) != 3 || upmc_read_n(set, b, 4) != 4 ||
	    upmc_read_n(set, b, 5) != 5 || upmc_read_n(set, b, 6) != 6 ||
	    upmc_read_n(set, b, 7) != 7 || upmc_read_n(set, b, 8) != 8 ||
	    upmc_read_n(set, b, 9) != 9)
		return failed("upmc_read, upmc_read_n");
	if (!later(a, b, 9))
		return failed("a counter went backwards");
	if (upmc_read_counter(set, 0, &one) != 0)
		return failed("upmc_read_counter");
	if (upmc_read_times(set, &enabled, &running) != 0 || running > enabled)
		return failed("upmc_read_times");
	t2 = upmc_timestamp_after();
	t3 = upmc_timestamp();
	if (t1 < t0 || t2 < t1 || t3 < t2 || upmc_ticks_to_ns(set, t3) < upmc_ticks_to_ns(set, t0))
		return failed("the timestamps went backwards");
	return 0;
}

static int region_and_bench(struct upmc_set *set)
{
	struct upmc_bench_options opts = {sizeof(opts), 1, 1000, 1000, 3};
	struct upmc_bench_result result;
	struct upmc_region *region;
	struct upmc_stat stat;

	if (upmc_region_open(&region, set, "work") != 0)
		return failed("upmc_region_open");
	upmc_region_begin(region);
	work(NULL);
	upmc_region_end(region);
	if (upmc_region_stat(region, UPMC_NS, 1, &stat) != 0 || stat.count != 1)
		return failed("upmc_region_stat");
	upmc_region_close(region);
	if (upmc_bench(set, work, NULL, &opts, &result) != 0 || result.samples != 3)
		return failed("upmc_bench");
	return 0;
}

static void zones(void)
{
	UPMC_ZONE("block");
	UPMC_ZONE_BEGIN("explicit");
	work(NULL);
	UPMC_ZONE_END();
}

/* Zone macros share a line: each names its own location and scope. */
/* clang-format off */
static void zones_on_one_line(void)
{
	UPMC_ZONE("a"); UPMC_ZONE_BEGIN("b"); UPMC_ZONE_DYNAMIC("c"); UPMC_ZONE_END();
}
/* clang-format on */

static void function_zone(void)
{
	UPMC_ZONE_FUNCTION();
	work(NULL);
}

static int profile(void)
{
	struct upmc_profile_stats stats;
	struct upmc_profile *p;

	if (upmc_profile_open(&p, NULL, NULL) != 0)
		return failed("upmc_profile_open");
	zones();
	zones_on_one_line();
	function_zone();
	upmc_frame_mark();
	upmc_zone_flush();
	if (upmc_profile_stats(p, &stats) != 0)
		return failed("upmc_profile_stats");
	upmc_profile_close(p);
#ifdef UPMC_NO_ZONES
	if (stats.zones != 0)
		return failed("UPMC_NO_ZONES left zones");
#else
	if (stats.zones != 6 || stats.frames != 1)
		return failed("the zones were not all recorded");
#endif
	return 0;
}

static void prof(void)
{
	UPMC_PROF_BEGIN(every_macro, "task-clock");
	work(NULL);
	UPMC_PROF_END(every_macro, stdout);
	UPMC_PROF_CLOSE(every_macro);
}

static int call(void)
{
	struct upmc_call_result r;

	if (upmc_measure_call("task-clock", work, NULL, &r) != 0 || r.n != 1)
		return failed("upmc_measure_call");
	return 0;
}

int main(void)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	const char *spec = "task-clock,instructions,cycles,page-faults,branch-misses,"
	                   "context-switches,cpu-migrations,minor-faults,major-faults";
	struct upmc_set *set;
	uint64_t shared = 7;
	int err;

	if (UPMC_UNLIKELY(upmc_open(&set, spec, &opts) != 0))
		return failed("upmc_open");
	err = reads(set) || region_and_bench(set);
	if (UPMC_LIKELY(!err) && upmc_counter_ratio(set, 0) < UPMC_LOW_CONFIDENCE)
		err = failed("task-clock is not always on the PMU");
	upmc_close(set);
	upmc_barrier();
	if (err || profile() || call())
		return 1;
	prof();
	printf("upmc %d.%d: every macro and inline function, %s\n", UPMC_VERSION_MAJOR,
	       UPMC_VERSION_MINOR, UPMC_READ_ONCE(shared) == 7 ? "consistent" : "wrong");
	return 0;
}
