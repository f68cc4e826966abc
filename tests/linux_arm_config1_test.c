/* SPDX-License-Identifier: MIT */
/*
 * arm64 PMUv3 config1 on the fake kernel. Bit 1 asks for user access only on
 * kernels that have it (kernel.perf_user_access, Linux 5.17); before, config1
 * had one meaning, bit 0 "long": a 64-bit event chained over two counters.
 * upmc sets neither bit there, so a set holds as many events as perf's.
 * "long" with user access fits only the cycle counter on PMUs without
 * 64-bit event counters: upmc never asks for it, so cycles:u,cycles:k
 * schedule; a spec that asks for it gets a sentence that says why.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h" /* first: the counter read seam */
#include "lib/core/internal.h"
#include "tests/upmc_test.h"

#define SEVEN "cycles,instructions,branches,branch-misses,cache-references,cache-misses,bus-cycles"

TEST(arm_config1, old_kernels_get_no_user_access_bits)
{
	struct upmc_set *set;
	uint64_t v[7];
	unsigned i;

	fake_boot("arm64-old-kernel");
	ASSERT(!fake.rdpmc_bit);
	/* six event counters and the cycle counter: seven events, as perf counts */
	ASSERT_MSG(upmc_open(&set, SEVEN, NULL) == 0, "%s", upmc_last_error());
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].pmu >= 0) {
			EXPECT_EQ_U64(fake.ev[i].attr.config1, 0);
			EXPECT(!fake.ev[i].chained);
		}
	EXPECT(upmc_read(set, v) == 7 && v[0] > 0 && v[0] != UPMC_NOT_COUNTED);
	for (i = 0; i < 7; i++)
		EXPECT_EQ(upmc_counter_path(set, i), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "perf_user_access came with Linux 5.17");
	upmc_close(set);
}

TEST(arm_config1, user_access_bit_where_the_kernel_has_it)
{
	struct upmc_set *set;
	uint64_t v[7];
	unsigned i;

	fake_boot("arm64-pmuv3");
	ASSERT(fake.rdpmc_bit && fake.user_access);
	ASSERT_MSG(upmc_open(&set, SEVEN, NULL) == 0, "%s", upmc_last_error());
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].pmu >= 0)
			EXPECT_EQ_U64(fake.ev[i].attr.config1, 2);
	for (i = 0; i < 7; i++)
		EXPECT_EQ(upmc_counter_path(set, i), UPMC_PATH_USER);
	fake.syscall_ns = 0;
	fake_run(3000);
	EXPECT(upmc_read(set, v) == 7);
	EXPECT_EQ_U64(v[0], fake_count(fake_find(PERF_TYPE_HARDWARE, 0)));
	EXPECT_EQ(fake.faults, 0);
	upmc_close(set);
}

TEST(arm_config1, cycles_user_and_kernel_schedule_together)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("arm64-pmuv3");
	ASSERT_MSG(upmc_open(&set, "cycles:u,cycles:k", NULL) == 0, "%s", upmc_last_error());
	/* (out of line on this x86 host: the inline reader takes 48-bit pages) */
	EXPECT_EQ(set->state->user_page[0]->index, 32); /* the cycle counter */
	EXPECT_EQ(set->state->user_page[1]->index, 1);  /* a 32-bit event counter */
	EXPECT_EQ(set->state->user_page[1]->pmc_width, 32);
	EXPECT(upmc_read(set, v) == 2 && v[1] > 0);
	upmc_close(set);
}

TEST(arm_config1, long_events_that_cannot_schedule_say_why)
{
	struct upmc_set *set;

	fake_boot("arm64-pmuv3");
	EXPECT_EQ(upmc_open(&set,
	                    "armv8_pmuv3_0/event=0x11,long=1/u,armv8_pmuv3_0/event=0x11,long=1/k",
	                    NULL),
	          -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "asks for a 64-bit counter ('long')");
	EXPECT_CONTAINS(upmc_last_error(), "only the cycle counter");
	EXPECT(!strstr(upmc_last_error(), "watchdog"));
	EXPECT_EQ(fake_open_events(), 0);
}
