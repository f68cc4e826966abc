/* SPDX-License-Identifier: MIT */
/*
 * libpfm4's encoding reaches perf_event_open whole: libpfm4 is given the
 * full perf_event_attr size (with size 0 it copies back only the first
 * published 64 bytes, which end before config2), and its own modifiers
 * (:precise=, :mg=, :mh=) are kept. The fake kernel shows what was opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

TEST(pfm_attr, libpfm_modifiers_reach_the_kernel)
{
	struct upmc_set *set;
	const struct fake_event *e;

	/* Before libpfm4's first use in this process: a CPU it knows, the
	 * fixture's "cpu" PMU is type 4 as Skylake's. */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	fake_boot("x86-intel");
	if (upmc_open(&set, "skl::INST_RETIRED:ANY_P:precise=2", NULL) == -ENOENT)
		SKIP("libpfm4 does not know skl here: %s", upmc_last_error());
	ASSERT_MSG(set, "%s", upmc_last_error());
	e = fake_find(4, 0xc0);
	ASSERT(e != NULL);
	EXPECT_EQ(e->attr.precise_ip, 2);
	EXPECT_EQ(e->attr.exclude_guest, 1); /* libpfm4's default */
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "skl::INST_RETIRED:ANY_P:mg=1", NULL) == 0, "%s",
	           upmc_last_error());
	e = fake_find(4, 0xc0);
	ASSERT(e != NULL);
	EXPECT_EQ(e->attr.exclude_guest, 0);
	EXPECT_EQ(e->attr.exclude_host, 1); /* guests only */
	upmc_close(set);
	ASSERT_MSG(upmc_open(&set, "skl::OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_HIT", NULL) == 0, "%s",
	           upmc_last_error());
	e = fake_find(4, 0x1b7);
	ASSERT(e != NULL);
	EXPECT(e->attr.config1 != 0); /* the offcore response mask */
	upmc_close(set);
}
