/* SPDX-License-Identifier: MIT */
/*
 * Hardware events on the real kernel. Without a PMU (virtual machines like
 * the CI's): the documented error, the time-only fallback. With one: user
 * reads that agree with read(2). Each test skips, saying why, on the
 * machines it is not for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <upmc/upmc.h>

#include "os/linux/probe.h"
#include "tests/linux_util.h"
#include "tests/upmc_test.h"

static int have_core_pmu(void)
{
	struct upmc_linux_probe p;

	upmc_linux_probe(&p);
	return p.n_core > 0;
}

TEST(hardware, no_pmu_gives_the_documented_error)
{
	struct upmc_set *set = NULL;
	int fds = open_fd_count(), err;

	if (have_core_pmu())
		SKIP("this machine has a CPU PMU; the no-PMU error cannot happen here");
	err = upmc_open(&set, "task-clock,cycles,instructions", NULL);
	EXPECT(err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV);
	EXPECT(set == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "'cycles' cannot be counted: no CPU PMU is visible");
	/* a failed open says it once: the reason, then how in each hypervisor */
	if (strstr(upmc_last_error(), "virtual machine"))
		EXPECT_CONTAINS(upmc_last_error(),
		                "turn it on in the hypervisor, or use bare metal; to "
		                "turn a virtual machine's PMU on: QEMU/KVM '-cpu host,pmu=on'");
	EXPECT_EQ(open_fd_count(), fds);
}

TEST(hardware, time_only_fallback)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	uint64_t v[2] = {1, 2};
	int fds = open_fd_count();

	if (have_core_pmu())
		SKIP("this machine has a CPU PMU; hardware events do not fall back here");
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", &opts) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(upmc_summary(set), "time only: 'cycles' cannot be counted: no CPU PMU");
	ASSERT(upmc_read(set, v) == 2);
	EXPECT(v[0] == UPMC_NOT_COUNTED && v[1] == UPMC_NOT_COUNTED);
	EXPECT(upmc_ticks_to_ns(set, upmc_timestamp()) > 0);
	upmc_close(set);
	EXPECT_EQ(open_fd_count(), fds);
}

TEST(hardware, mixed_set_keeps_what_counts)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	uint64_t a[3], b[3];

	if (have_core_pmu())
		SKIP("this machine has a CPU PMU; nothing falls back here");
	ASSERT_MSG(upmc_open(&set, "cycles,task-clock,branch-misses", &opts) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_summary(set), "3 counters: 1 by syscall, 2 unavailable; 'cycles'");
	ASSERT(upmc_read(set, a) == 3);
	ASSERT(upmc_read(set, b) == 3);
	EXPECT(a[0] == UPMC_NOT_COUNTED && a[2] == UPMC_NOT_COUNTED);
	EXPECT(a[1] != UPMC_NOT_COUNTED && b[1] > a[1]);
	upmc_close(set);
}

TEST(hardware, require_user_read_fails_clearly)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY | UPMC_OPT_REQUIRE_USER_READ};
	struct upmc_set *set = NULL;
	int fds = open_fd_count();

	EXPECT_EQ(upmc_open(&set, "task-clock", &opts), -EPERM);
	EXPECT_CONTAINS(upmc_last_error(), "'task-clock' cannot be read from user space: software");
	if (!have_core_pmu()) {
		EXPECT_EQ(upmc_open(&set, "cycles", &opts), -EPERM);
		EXPECT_CONTAINS(upmc_last_error(), "no CPU PMU is visible");
	}
	EXPECT(set == NULL);
	EXPECT_EQ(open_fd_count(), fds);
}

/* ---- machines with a PMU ---- */

static void spin(unsigned n)
{
	volatile unsigned x = 0;

	while (n--)
		x += n;
}

TEST(hardware, user_reads_agree_with_read)
{
	struct upmc_set *set;
	uint64_t a[2], k[2], b[2];
	int err;

	if (!have_core_pmu())
		SKIP("no CPU PMU visible (a virtual machine without a virtual PMU?): no hardware "
		     "counters to read");
	err = upmc_open(&set, "instructions,cycles", NULL);
	ASSERT_MSG(err == 0, "%s", upmc_last_error());
	if (!set->user_n) {
		const char *why = upmc_counter_reason(set, 0);
		upmc_close(set);
		SKIP("counters open but not readable from user space: %s", why);
	}
	EXPECT_CONTAINS(upmc_summary(set), "2 counters, user-space");
	ASSERT(upmc_read(set, a) == 2);
	ASSERT(upmc_read_slow(set, k) == 2);
	ASSERT(upmc_read(set, b) == 2);
	EXPECT_MSG(a[0] <= k[0] && k[0] <= b[0], "instructions %llu <= %llu <= %llu",
	           (unsigned long long)a[0], (unsigned long long)k[0], (unsigned long long)b[0]);
	EXPECT(a[1] <= k[1] && k[1] <= b[1]);
	spin(1000000);
	ASSERT(upmc_read(set, b) == 2);
	EXPECT_MSG(b[0] - a[0] > 1000000, "%llu instructions for a loop of 10^6",
	           (unsigned long long)(b[0] - a[0]));
	upmc_close(set);
}
