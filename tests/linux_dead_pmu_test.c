/* SPDX-License-Identifier: MIT */
/*
 * A PMU that takes events and never counts them (a hypervisor that shows a
 * PMU it does not implement) is found at open by a known loop, and said as
 * the "no PMU" sentence says it: -ENODEV, or unavailable counters beside
 * the software ones with UPMC_OPT_TIME_ONLY.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(dead_pmu, found_at_open)
{
	struct upmc_set *set;

	fake_boot("x86-intel");
	fake.pmu[0].never_counts = 1;
	EXPECT_EQ(upmc_open(&set, "cycles,instructions", NULL), -ENODEV);
	EXPECT_CONTAINS(upmc_last_error(), "takes events but counts nothing");
	EXPECT_CONTAINS(upmc_last_error(), "-cpu host,pmu=on");
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(dead_pmu, time_only_keeps_software_counters)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	fake.pmu[0].never_counts = 1;
	ASSERT_MSG(upmc_open(&set, "cycles,task-clock", &opts) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "counts nothing");
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	fake_run(5000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[0], UPMC_NOT_COUNTED);
	EXPECT(v[1] >= 5000);
	upmc_close(set);
}

TEST(dead_pmu, a_counting_pmu_passes)
{
	struct upmc_set *set;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(fake_open_events(), 1); /* the check's own event is closed */
	upmc_close(set);
}

/* The check runs once per PMU and process: a later open trusts its verdict
 * (the fake's PMU changes under it here, which a real one does not). */
TEST(dead_pmu, checked_once_per_pmu)
{
	struct upmc_set *set;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	upmc_close(set);
	EXPECT_EQ(fake.opens, 2); /* the check's event, then cycles */
	fake.pmu[0].never_counts = 1;
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	upmc_close(set);
	EXPECT_EQ(fake.opens, 3);

	fake_boot("x86-intel"); /* forgets the verdict */
	fake.pmu[0].never_counts = 1;
	EXPECT_EQ(upmc_open(&set, "cycles", NULL), -ENODEV);
	fake.pmu[0].never_counts = 0;
	EXPECT_EQ(upmc_open(&set, "cycles", NULL), -ENODEV);
	EXPECT_EQ(fake.opens, 1);
	EXPECT_EQ(fake_open_events(), 0);
}

/* Only counters on a core PMU are checked: software ones and one whose PMU
 * is missing (UPMC_OPT_TIME_ONLY) open without the check, on a dead PMU too. */
TEST(dead_pmu, only_core_pmu_counters_are_checked)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	fake_boot("x86-intel");
	fake.pmu[0].never_counts = 1;
	ASSERT_MSG(upmc_open(&set, "task-clock,nosuchpmu/event=1/", &opts) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(fake.opens, 2); /* task-clock, and a dummy event whose page gives the clock */
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "no PMU 'nosuchpmu'");
	upmc_close(set);
}
