/* SPDX-License-Identifier: MIT */
/*
 * big.LITTLE kernels before 6.6 have no extended type (the PMU type in a
 * generic event's config[63:32]): perf_init_event() refuses it with ENOENT
 * for a PMU without PERF_PMU_CAP_EXTENDED_HW_TYPE. upmc then opens each
 * core PMU's own PMUv3 event for a generic hardware event and says so; a
 * generic cache event, which has no one PMUv3 code, fails with a sentence
 * naming the fix.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(arm_ext_type, generic_events_fall_back_to_each_pmus_own_event)
{
	struct upmc_set *set;
	uint64_t v[2];
	unsigned i, own = 0;

	fake_boot("arm64-big-little");
	fake.extended_type = 0;
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", NULL) == 0, "%s", upmc_last_error());
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].pmu >= 0) {
			EXPECT_EQ(fake.ev[i].attr.type, fake.pmu[fake.ev[i].pmu].type);
			own++;
		}
	EXPECT_EQ(own, 4);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "no extended type");
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "own event 0x11");
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "own event 0x08");
	fake.syscall_ns = 0;
	fake_run_on(0);
	fake_run(4000);
	fake_run_on(1);
	fake_run(6000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT(v[0] >= 10000 && v[0] != UPMC_NOT_COUNTED);
	upmc_close(set);
}

TEST(arm_ext_type, cache_events_say_what_to_write_instead)
{
	struct upmc_set *set;

	fake_boot("arm64-big-little");
	fake.extended_type = 0;
	EXPECT_EQ(upmc_open(&set, "L1-dcache-load-misses", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "Linux 6.6 added it");
	EXPECT_CONTAINS(upmc_last_error(), "armv8_cortex_a53/l1d_cache_refill/");
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(arm_ext_type, kernels_with_it_open_generic_events)
{
	struct upmc_set *set;
	unsigned i;

	fake_boot("arm64-big-little");
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].pmu >= 0)
			EXPECT_EQ(fake.ev[i].attr.type, PERF_TYPE_HARDWARE);
	EXPECT(!strstr(upmc_counter_reason(set, 0), "extended type"));
	upmc_close(set);
}
