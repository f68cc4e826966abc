/* SPDX-License-Identifier: MIT */
/*
 * Hybrid CPUs on the fake kernel: every event joins the group of its own
 * PMU, whatever the order sysfs lists the core PMUs in. Software events
 * count on every core type; a PMU-specific event opens beside generic
 * events of either core type; Arrow Lake's third core type counts too.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

/* task-clock counts wherever the thread runs, on either core type. */
static void software_counts_on(const char *core)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("intel-hybrid");
	fake_run_on(fake_pmu_named(core));
	ASSERT_MSG(upmc_open(&set, "cycles,task-clock", NULL) == 0, "%s", upmc_last_error());
	fake_run(20000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[1], fake_count(fake_find(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK)));
	EXPECT_MSG(v[1] >= 20000, "task-clock %llu on %s", (unsigned long long)v[1], core);
	upmc_close(set);
}

TEST(hybrid_groups, software_events_count_on_every_core_type)
{
	software_counts_on("cpu_core");
	software_counts_on("cpu_atom");
}

/* cycles (both core types) beside an event of one core PMU. */
static void pmu_event_beside_generic(const char *spec, const char *core)
{
	struct upmc_set *set;
	uint64_t v[2];
	unsigned p = fake_pmu_named(core);

	fake_boot("intel-hybrid");
	fake_run_on(p);
	ASSERT_MSG(upmc_open(&set, spec, NULL) == 0, "'%s': %s", spec, upmc_last_error());
	fake.syscall_ns = 0; /* counts move only in fake_run() */
	fake_run(10000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[1], fake_count_on(p, fake.pmu[p].type, 0xc0));
	EXPECT(v[1] >= 10000);
	upmc_close(set);
	EXPECT_EQ(fake_open_events(), 0);
}

TEST(hybrid_groups, pmu_events_join_their_own_core_type)
{
	pmu_event_beside_generic("cycles,cpu_core/event=0xc0/", "cpu_core");
	pmu_event_beside_generic("cycles,cpu_atom/event=0xc0/", "cpu_atom");
	/* r<hex> is the PMU of type 4: cpu_core */
	pmu_event_beside_generic("instructions,rc0", "cpu_core");
}

TEST(hybrid_groups, arrow_lake_counts_on_its_low_power_cores)
{
	struct upmc_set *set;
	uint64_t v[1], total = 0;
	unsigned p;

	fake_boot("intel-arrow-lake");
	ASSERT(fake.n_pmu == 3);
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(fake_open_events(), 3);
	for (p = 0; p < 3; p++) {
		fake_run_on(p);
		fake_run(7000);
	}
	ASSERT(upmc_read(set, v) == 1);
	for (p = 0; p < 3; p++)
		total += fake_count_on(p, PERF_TYPE_HARDWARE, 0);
	EXPECT_EQ_U64(v[0], total);
	EXPECT(fake_count_on(fake_pmu_named("cpu_lowpower"), PERF_TYPE_HARDWARE, 0) >= 7000);
	upmc_close(set);
}

/* A group too big for the fake cpu_core (8 general counters): the error
 * says it does not fit, with no count of counters: CPUID describes the
 * CPU the test runs on, not this PMU, and on a hybrid CPU no core type's
 * alone. */
TEST(hybrid_groups, a_full_group_names_no_other_pmus_counters)
{
	const char *spec = "cpu_core/event=0x1/,cpu_core/event=0x2/,cpu_core/event=0x3/,"
	                   "cpu_core/event=0x4/,cpu_core/event=0x5/,cpu_core/event=0x6/,"
	                   "cpu_core/event=0x7/,cpu_core/event=0x8/,cpu_core/event=0x9/";
	struct upmc_set *set;

	fake_boot("intel-hybrid");
	EXPECT_EQ(upmc_open(&set, spec, NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "'cpu_core/event=0x9/' does not fit in one group");
	EXPECT_MSG(!strstr(upmc_last_error(), "counters per core"), "%s", upmc_last_error());
	EXPECT_EQ(fake_open_events(), 0);
}
