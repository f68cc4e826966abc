/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat -M TopdownL1` on virtual machines without a virtual PMU
 * (fixture trees): an Intel CPU behaves as an AMD one does, each metric's
 * events not supported for the PMU's absence, the run itself counted.
 */
#include <string.h>

#include "tests/cli/cli_run.h"
#include "tests/upmc_test.h"

#define CLI_RUN_STAT(r, root)                                                                \
	do {                                                                                 \
		const char *const args_[] = {"stat", "-M", "TopdownL1", "--", "true", NULL}; \
		ASSERT(cli_run(&(r), (root), args_) == 0);                                   \
	} while (0)

static void expect_not_supported(const char *root, const char *event)
{
	struct cli_result r;

	CLI_RUN_STAT(r, root);
	EXPECT_MSG(r.status == 0, "%s: status %d: %s", root, r.status, r.err);
	EXPECT_CONTAINS(r.err, "<not supported>");
	EXPECT_CONTAINS(r.err, event);
	EXPECT_CONTAINS(r.err, "n/a retiring");
	/* perf stat prints to stderr, and so does stat */
	EXPECT_CONTAINS(r.err, "no CPU PMU is visible, typical of a virtual machine without a "
	                       "virtual PMU");
	EXPECT(!strstr(r.err, "did you mean"));
	cli_result_free(&r);
}

TEST(cli_stat_vm, intel_as_amd)
{
	expect_not_supported("tests/fixtures/vm-no-pmu-amd", "rc1");
	expect_not_supported("tests/fixtures/vm-no-pmu-intel", "slots");
}
