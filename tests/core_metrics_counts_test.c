/* SPDX-License-Identifier: MIT */
/*
 * upmc_metrics_of_counts() on the fake kernel: each metric of the set from
 * counts the caller has (fractional per-call means), exactly; NAN for an
 * input that is NAN or a denominator of 0; NULL refused with a sentence.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/set_util.h"
#include "tests/upmc_test.h"

TEST(metrics_of_counts, each_formula_over_the_given_counts)
{
	struct upmc_set *set;
	double counts[UPMC_MAX_COUNTERS] = {0}, v[3];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "IPC,CPI,branch-miss-ratio", NULL) == 0, "%s",
	           upmc_last_error());
	ASSERT(upmc_metric_count(set) == 3);
	counts[counter_named(set, "instructions")] = 1500.5;
	counts[counter_named(set, "cycles")] = 500.25;
	counts[counter_named(set, "branches")] = 40;
	counts[counter_named(set, "branch-misses")] = 2.5;
	ASSERT(upmc_metrics_of_counts(set, counts, v) == 3);
	EXPECT(v[0] == 1500.5 / 500.25);
	EXPECT(v[1] == 500.25 / 1500.5);
	EXPECT(v[2] == 2.5 / 40);
	/* an input without a count, and a denominator of 0 */
	counts[counter_named(set, "cycles")] = NAN;
	counts[counter_named(set, "branches")] = 0;
	upmc_metrics_of_counts(set, counts, v);
	EXPECT(isnan(v[0]) && isnan(v[1]) && isnan(v[2]));
	EXPECT_EQ(upmc_metrics_of_counts(set, NULL, v), -EINVAL);
	EXPECT(strstr(upmc_last_error(), "upmc_metrics_of_counts") != NULL);
	EXPECT_EQ(upmc_metrics_of_counts(NULL, counts, v), -EINVAL);
	upmc_close(set);
}

/* A set that names no metric has none to give. */
TEST(metrics_of_counts, no_metrics)
{
	struct upmc_set *set;
	double counts[1] = {7}, v[1] = {-1};

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_metrics_of_counts(set, counts, v), 0);
	EXPECT(v[0] == -1);
	upmc_close(set);
}
