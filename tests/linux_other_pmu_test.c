/* SPDX-License-Identifier: MIT */
/*
 * PMUs that are not the CPU's (msr, power, uncore) on the fake kernel: their
 * events take none of the core PMUs' attribute bits and no privilege-level
 * filter the spec does not name (the kernel refuses any exclude bit there),
 * open beside the CPU's counters or on a machine with no CPU PMU, and say
 * why they are read by read(2). The sentences when such a PMU refuses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"
/* after the seam that fake_kernel.h includes first */
#include "os/linux/probe.h"

#define MSR_TYPE 9 /* the fixtures' msr/type */

static void expect_no_exclude_bits(const struct perf_event_attr *a)
{
	EXPECT(!a->exclude_user && !a->exclude_kernel && !a->exclude_hv && !a->exclude_guest &&
	       !a->exclude_host && !a->exclude_idle);
}

TEST(other_pmu, msr_counts_on_a_machine_without_cpu_pmu)
{
	struct upmc_set *set;
	const struct fake_event *e;
	uint64_t a[1], b[1];

	fake_boot("vm-no-pmu");
	ASSERT_MSG(upmc_open(&set, "msr/tsc/", NULL) == 0, "%s", upmc_last_error());
	e = fake_find(MSR_TYPE, 0);
	ASSERT(e != NULL);
	expect_no_exclude_bits(&e->attr);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "the PMU 'msr' is not the CPU's");
	ASSERT(upmc_read(set, a) == 1);
	fake_run(5000);
	ASSERT(upmc_read(set, b) == 1);
	EXPECT(b[0] - a[0] >= 5000);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(other_pmu, beside_the_cpus_counters_in_a_group_of_its_own)
{
	struct upmc_set *set;
	const struct fake_event *cycles, *msr, *clock;
	uint64_t v[3];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles,msr/tsc/,task-clock", NULL) == 0, "%s",
	           upmc_last_error());
	cycles = fake_find(PERF_TYPE_HARDWARE, 0);
	msr = fake_find(MSR_TYPE, 0);
	clock = fake_find(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	ASSERT(cycles && msr && clock);
	expect_no_exclude_bits(&msr->attr);
	/* the CPU's event keeps its bits: user mode only, no hypervisor */
	EXPECT(cycles->attr.exclude_kernel && cycles->attr.exclude_hv);
	EXPECT(msr->leader != cycles->leader);
	EXPECT_EQ(clock->leader, cycles->leader);
	fake_run(5000);
	ASSERT(upmc_read(set, v) == 3);
	EXPECT(v[0] >= 5000 && v[1] >= 5000 && v[2] >= 5000);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(other_pmu, a_privilege_modifier_is_refused_with_a_sentence)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set = NULL;

	fake_boot("vm-no-pmu");
	EXPECT_EQ(upmc_open(&set, "msr/tsc/u", NULL), -EINVAL);
	EXPECT(set == NULL);
	EXPECT_CONTAINS(upmc_last_error(),
	                "'msr/tsc/u': the PMU 'msr' counts every privilege level at once");
	EXPECT(!strstr(upmc_last_error(), "no CPU PMU"));
	EXPECT_EQ(fake_open_events(), 0);
	ASSERT(upmc_open(&set, "msr/tsc/u,task-clock", &opts) == 0);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	upmc_close(set);
}

/* The spec's levels: the CPU's PMU gets the default (user mode only),
 * another none unless the spec names one. */
TEST(other_pmu, default_levels_are_the_cpus)
{
	struct upmc_event ev[2];

	setenv("UPMC_FS_ROOT", "tests/fixtures/x86-intel", 1);
	ASSERT_MSG(upmc_parse_spec("cpu/event=0x3c/,msr/tsc/", 0, ev, 2) == 2, "%s",
	           upmc_last_error());
	EXPECT(ev[0].exclude_kernel && !ev[0].exclude_user);
	EXPECT(!ev[1].exclude_kernel && !ev[1].exclude_user);
	ASSERT(upmc_parse_spec("msr/tsc/k", UPMC_OPT_KERNEL, ev, 1) == 1);
	EXPECT(ev[0].exclude_user && !ev[0].exclude_kernel);
	unsetenv("UPMC_FS_ROOT");
}

static void probe_fixture(const char *name, struct upmc_linux_probe *p)
{
	char root[256];

	upmc_format(root, sizeof(root), "tests/fixtures/%s", name);
	setenv("UPMC_FS_ROOT", root, 1);
	upmc_linux_probe(p);
	unsetenv("UPMC_FS_ROOT");
}

/* An event of a PMU no core is (an Arm DSU or CMN, type 42 here) on Arm
 * machines: PMUv3's config1 "rdpmc" bit and Apple's exclude_guest are the
 * core PMU's, not its. */
TEST(other_pmu, core_bits_stay_on_core_pmus)
{
	static const char *const machines[] = {"arm64-pmuv3", "apple-m1", "x86-intel"};
	struct upmc_event ev;
	struct upmc_linux_attr a[UPMC_LINUX_MAX_CORE_PMUS];
	struct perf_event_attr attr;
	struct upmc_linux_probe p;
	unsigned m;

	memset(&ev, 0, sizeof(ev));
	upmc_format(ev.name, sizeof(ev.name), "%s", "dsu/event=0x11/");
	ev.type = 42;
	ev.config = 0x11;
	for (m = 0; m < sizeof(machines) / sizeof(machines[0]); m++) {
		probe_fixture(machines[m], &p);
		EXPECT(upmc_linux_other_pmu(&ev, &p));
		ASSERT(upmc_linux_plan(&ev, &p, 0, a) == 1);
		EXPECT_MSG(a[0].config1 == 0, "%s: config1 0x%llx", machines[m],
		           (unsigned long long)a[0].config1);
		EXPECT_MSG(!a[0].user_read && a[0].core == -1, "%s", machines[m]);
		upmc_linux_attr_init(&attr, &ev, &a[0]);
		expect_no_exclude_bits(&attr);
	}
}

TEST(other_pmu, sentences_name_the_pmu)
{
	struct upmc_linux_probe p;
	struct upmc_event ev;
	char why[UPMC_REASON_MAX];

	memset(&ev, 0, sizeof(ev));
	upmc_format(ev.name, sizeof(ev.name), "%s", "msr/tsc/");
	ev.type = MSR_TYPE;
	probe_fixture("vm-no-pmu", &p);
	setenv("UPMC_FS_ROOT", "tests/fixtures/vm-no-pmu", 1);
	/* paranoid 2: counting every level needs 1; ':u' is no way out here */
	upmc_linux_explain_open(why, sizeof(why), &ev, EACCES, 0, &p);
	EXPECT_CONTAINS(why, "'msr/tsc/': the PMU 'msr' counts every privilege level at once, "
	                     "which needs perf_event_paranoid <= 1 (it is 2)");
	EXPECT(!strstr(why, ":u"));
	upmc_linux_explain_open(why, sizeof(why), &ev, EINVAL, 0, &p);
	EXPECT_CONTAINS(why, "'msr/tsc/': the PMU 'msr' refused it");
	EXPECT(!strstr(why, "no CPU PMU"));
	unsetenv("UPMC_FS_ROOT");
}
