/* SPDX-License-Identifier: MIT */
/*
 * Apple Silicon under Linux: the apple_* PMUs' driver refuses events that
 * would count guests (m1_pmu_set_event_filter(): exclude_guest or EOPNOTSUPP)
 * and offers no user-space read. upmc sets exclude_guest for them and reads
 * by read(2), per core type (the M1's icestorm and firestorm cores).
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(apple, events_exclude_guests_and_count)
{
	struct upmc_set *set;
	uint64_t v[2];
	unsigned i, hw = 0;

	fake_boot("apple-m1");
	ASSERT(fake.n_pmu == 2);
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", NULL) == 0, "%s", upmc_last_error());
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].pmu >= 0) {
			EXPECT(fake.ev[i].attr.exclude_guest);
			hw++;
		}
	EXPECT_EQ(hw, 4);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	fake_run_on(fake_pmu_named("apple_firestorm_pmu"));
	fake_run(5000);
	EXPECT(upmc_read(set, v) == 2 && v[0] >= 5000 && v[0] != UPMC_NOT_COUNTED);
	EXPECT_EQ(fake.counter_reads, 0);
	upmc_close(set);
}

TEST(apple, pmu_specs_exclude_guests_too)
{
	struct upmc_set *set;

	fake_boot("apple-m1");
	ASSERT_MSG(upmc_open(&set, "apple_icestorm_pmu/event=0x02/", NULL) == 0, "%s",
	           upmc_last_error());
	upmc_close(set);
}
