/* SPDX-License-Identifier: MIT */
/*
 * A set that upmc_open() leaves without counters (a spec of metrics this
 * machine cannot compute, time only) is opened all the same: registered
 * for fork() and given the OS layer's data, both of which upmc_close()
 * undoes. It undid them only for a set with counters, which left the
 * registry pointing into freed memory, for the next open or close to
 * write there (AddressSanitizer), and leaked the OS layer's data
 * (LeakSanitizer): --config=asan runs this test.
 */
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(empty_set, closes_without_leaving_a_dangling_set)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *empty, *counted, *again;

	fake_boot("x86-intel"); /* smt-contention is AMD Zen 4's alone */
	ASSERT_MSG(upmc_open(&empty, "smt-contention", &time_only) == 0, "%s", upmc_last_error());
	ASSERT(upmc_count(empty) == 0);
	EXPECT_EQ(upmc_metric_count(empty), 1);
	EXPECT(strlen(upmc_metric_reason(empty, 0)) > 0);
	ASSERT_MSG(upmc_open(&counted, "cycles", NULL) == 0, "%s", upmc_last_error());
	upmc_close(empty);
	/* each walks the registry past where the empty set was */
	upmc_close(counted);
	ASSERT_MSG(upmc_open(&again, "cycles", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_count(again), 1);
	upmc_close(again);
}
