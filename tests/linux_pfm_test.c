/* SPDX-License-Identifier: MIT */
/*
 * libpfm4 vendor event names. This machine's CPU is one libpfm4 does not
 * model, so the test makes libpfm4 take the AMD Zen 3 PMU as present
 * (LIBPFM_FORCE_PMU, read when upmc first asks libpfm4): names encode
 * exactly, and opening one here fails with the documented sentence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/internal.h"
#include "os/linux/probe.h"
#include "tests/upmc_test.h"

__attribute__((constructor(101))) static void force_zen3(void)
{
	setenv("LIBPFM_FORCE_PMU", "amd64_fam19h_zen3", 1);
}

static struct upmc_event ev[UPMC_MAX_COUNTERS];

TEST(pfm, vendor_names_encode)
{
	ASSERT_MSG(upmc_parse_spec("amd64_fam19h_zen3::RETIRED_INSTRUCTIONS,"
	                           "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED:k",
	                           0, ev, UPMC_MAX_COUNTERS) == 2,
	           "%s", upmc_last_error());
	EXPECT_EQ(ev[0].type, UPMC_TYPE_RAW);
	EXPECT_EQ(ev[0].config, 0xc0);
	EXPECT(!ev[0].exclude_user && ev[0].exclude_kernel); /* user only by default */
	EXPECT_EQ(ev[1].config, 0xc3);
	EXPECT(ev[1].exclude_user && !ev[1].exclude_kernel);
	ASSERT(upmc_parse_spec("RETIRED_INSTRUCTIONS", UPMC_OPT_KERNEL, ev, 1) == 1);
	EXPECT(!ev[0].exclude_user && !ev[0].exclude_kernel);
}

TEST(pfm, misspelt_vendor_name_suggests_it)
{
	EXPECT_EQ(upmc_parse_spec("RETIRED_INSTRUCTONS", 0, ev, 1), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "'amd64_fam19h_zen3::RETIRED_INSTRUCTIONS'");
	EXPECT_EQ(upmc_parse_spec("RETIRED_INSTRUCTIONS:nope", 0, ev, 1), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "libpfm4 says");
}

struct found {
	int event, desc;
};

static int look(const struct upmc_event_info *info, void *arg)
{
	struct found *f = arg;

	if (!strcmp(info->name, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS")) {
		f->event = !strcmp(info->pmu, "amd64_fam19h_zen3");
		f->desc = info->desc[0] != '\0';
	}
	return 0;
}

TEST(pfm, listed_with_descriptions)
{
	struct found f = {0, 0};

	EXPECT(upmc_list_events(look, &f) > 100);
	EXPECT(f.event && f.desc);
}

TEST(pfm, opening_here_explains)
{
	struct upmc_linux_probe p;
	struct upmc_set *set = NULL;

	upmc_linux_probe(&p);
	if (p.n_core)
		SKIP("this machine has a CPU PMU (%s): the raw code may open here", p.core[0]);
	EXPECT_EQ(upmc_open(&set, "amd64_fam19h_zen3::RETIRED_INSTRUCTIONS", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "cannot be counted: no CPU PMU is visible");
	EXPECT(set == NULL);
}
