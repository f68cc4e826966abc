/* SPDX-License-Identifier: MIT */
/*
 * What a set says about counters it cannot count, on the fake kernel: each
 * counter's reason is one short sentence, and how to lift it, when that
 * takes more (turning a virtual machine's PMU on, in each hypervisor), is
 * said once for the set (upmc_advice()), or once in a failed open's error.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

#define HOW  "-cpu host,pmu=on" /* a piece of the advice */
#define FIVE "task-clock,cycles,instructions,branches,branch-misses"

static unsigned occurrences(const char *text, const char *what)
{
	unsigned n = 0;

	for (; (text = strstr(text, what)); text += strlen(what))
		n++;
	return n;
}

/* Everything the set says, and how often it says HOW. */
static unsigned times_said(const struct upmc_set *set)
{
	unsigned i, n = occurrences(upmc_summary(set), HOW) + occurrences(upmc_advice(set), HOW);

	for (i = 0; i < (unsigned)upmc_count(set); i++)
		n += occurrences(upmc_counter_reason(set, i), HOW);
	return n;
}

TEST(advice, virtual_machine_without_pmu_says_it_once)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	unsigned i;

	fake_boot("vm-no-pmu");
	ASSERT_MSG(upmc_open(&set, FIVE, &opts) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	for (i = 1; i < 5; i++) {
		const char *why = upmc_counter_reason(set, i);
		EXPECT_EQ(upmc_counter_path(set, i), UPMC_PATH_UNAVAILABLE);
		EXPECT_CONTAINS(why, "no CPU PMU is visible");
		EXPECT_CONTAINS(why, "turn it on in the hypervisor, or use bare metal");
		EXPECT_MSG(strlen(why) < 160, "%zu characters: %s", strlen(why), why);
	}
	EXPECT_CONTAINS(upmc_advice(set), "QEMU/KVM '-cpu host,pmu=on', libvirt");
	EXPECT_EQ(times_said(set), 1);
	upmc_close(set);
}

TEST(advice, a_failed_open_says_it_once)
{
	struct upmc_set *set = NULL;

	fake_boot("vm-no-pmu");
	EXPECT_EQ(upmc_open(&set, FIVE, NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "'cycles' cannot be counted: no CPU PMU is visible");
	EXPECT_EQ(occurrences(upmc_last_error(), HOW), 1);
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(advice, a_pmu_that_counts_nothing_says_it_once)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	fake_boot("x86-intel");
	fake.pmu[0].never_counts = 1;
	ASSERT_MSG(upmc_open(&set, FIVE, &opts) == 0, "%s", upmc_last_error());
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "takes events but counts nothing");
	EXPECT_CONTAINS(upmc_advice(set), HOW);
	EXPECT_EQ(times_said(set), 1);
	upmc_close(set);
}

TEST(advice, none_where_every_counter_counts_or_the_reason_says_it_all)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, FIVE, &opts) == 0, "%s", upmc_last_error());
	EXPECT(!strcmp(upmc_advice(set), ""));
	upmc_close(set);
	/* counters taken by another user: the reason's sysctl is the whole story */
	fake.pmu[0].taken = 8;
	ASSERT_MSG(upmc_open(&set, "branches,branch-misses", &opts) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT(!strcmp(upmc_advice(set), ""));
	upmc_close(set);
	EXPECT(upmc_advice(NULL) == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_advice: the set is NULL");
}
