/* SPDX-License-Identifier: MIT */
/*
 * The single-file upmc (bazel build //:amalgamation): upmc.c and upmc.h
 * built into this test on their own, without libpfm4, as a project that
 * drops them in would build them.
 */
#include <errno.h>
#include <string.h>

#include "upmc.h"

#include "tests/upmc_test.h"

static volatile uint64_t sink;

TEST(single_file, timer_and_software_counters)
{
	struct upmc_set *set;
	uint64_t a, b, t0, t1;
	int i;

	ASSERT_MSG(upmc_open_timer(&set) == 0, "%s", upmc_last_error());
	t0 = upmc_timestamp_serialized();
	for (i = 0; i < 100000; i++)
		sink += (uint64_t)i;
	t1 = upmc_timestamp_after();
	EXPECT(upmc_ticks_to_ns(set, t1) > upmc_ticks_to_ns(set, t0));
	upmc_close(set);

	ASSERT_MSG(upmc_open(&set, "page-faults,task-clock", NULL) == 0, "%s", upmc_last_error());
	ASSERT(upmc_read_counter(set, 1, &a) == 0);
	for (i = 0; i < 1000000; i++)
		sink += (uint64_t)i;
	ASSERT(upmc_read_counter(set, 1, &b) == 0);
	EXPECT(b > a);
	upmc_close(set);
}

TEST(single_file, vendor_names_need_libpfm)
{
	struct upmc_set *set = NULL;

	EXPECT_EQ(upmc_open(&set, "INST_RETIRED.ANY", NULL), -ENOENT);
	EXPECT(set == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "event 'INST_RETIRED.ANY' unknown: this upmc was built "
	                                   "without libpfm4");
	EXPECT_CONTAINS(upmc_last_error(), "UPMC_HAVE_LIBPFM");
	/* A misspelt generic name is still answered with the right one. */
	EXPECT_EQ(upmc_open(&set, "instructons", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "did you mean 'instructions'");
}
