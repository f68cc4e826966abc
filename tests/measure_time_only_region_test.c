/* SPDX-License-Identifier: MIT */
/*
 * A virtual machine without a PMU, as most are: with UPMC_OPT_TIME_ONLY a
 * set of hardware events opens with every counter unavailable, and its
 * regions (and so UPMC_PROF) still keep nanoseconds instead of dropping
 * every region as a failed read.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(time_only_region, keeps_nanoseconds_without_a_pmu)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	struct upmc_region *r;
	struct upmc_stat st;
	double v;
	int k;

	fake_boot("vm-no-pmu");
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", &opts) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_UNAVAILABLE);
	ASSERT_MSG(upmc_region_open(&r, set, "vm") == 0, "%s", upmc_last_error());
	for (k = 0; k < 100; k++) {
		upmc_region_begin(r);
		fake_run(1000);
		upmc_region_end(r);
	}
	EXPECT_EQ_U64(upmc_region_dropped(r), 0);
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 100);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 0);
	EXPECT_EQ(upmc_region_last(r, 1, 0, &v), -ENODATA);
	EXPECT_EQ(upmc_region_last(r, UPMC_NS, 0, &v), 0);
	upmc_region_close(r);
	upmc_close(set);
}

/* IPC without a PMU: no region has a value; the reason says why, and the
 * nanoseconds are still kept. */
static void fake_run_1us(void *arg)
{
	(void)arg;
	fake_run(1000);
}

TEST(time_only_region, a_metric_without_a_pmu_says_why)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_bench_options bench = {sizeof(bench), 10, 1, 10, 3};
	struct upmc_bench_result res;
	struct upmc_set *set;
	struct upmc_region *r;
	struct upmc_stat st;
	double v;
	int k;

	fake_boot("vm-no-pmu");
	ASSERT_MSG(upmc_open(&set, "IPC", &opts) == 0, "%s", upmc_last_error());
	ASSERT(upmc_metric_count(set) == 1);
	EXPECT(upmc_metric_reason(set, 0)[0] != '\0');
	ASSERT_MSG(upmc_region_open(&r, set, "vm") == 0, "%s", upmc_last_error());
	for (k = 0; k < 10; k++) {
		upmc_region_begin(r);
		fake_run(1000);
		upmc_region_end(r);
	}
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ_U64(st.count, 10);
	ASSERT(upmc_region_metric_stat(r, 0, 1, &st) == 0);
	EXPECT(st.count == 0 && isnan(st.min) && isnan(st.median) && isnan(st.mean));
	EXPECT_EQ(upmc_region_metric_of_totals(r, 0, 1, &v), -ENODATA);
	EXPECT(isnan(v));
	EXPECT_CONTAINS(upmc_last_error(), upmc_metric_reason(set, 0));
	EXPECT_EQ(upmc_region_metric_last(r, 0, 0, &v), -ENODATA);
	upmc_region_close(r);
	ASSERT_MSG(upmc_bench(set, fake_run_1us, NULL, &bench, &res) == 0, "%s", upmc_last_error());
	EXPECT(res.metrics == 1 && res.metric[0].count == 0 && isnan(res.metric_of_totals[0]));
	upmc_close(set);
}
