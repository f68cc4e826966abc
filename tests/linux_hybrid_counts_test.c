/* SPDX-License-Identifier: MIT */
/*
 * What a hybrid set reads on the fake kernel: a generic counter is the sum
 * of its parts, one per core type; a part that never ran adds 0, and only a
 * counter no part counted reads UPMC_NOT_COUNTED. upmc_read_times() gives
 * the set's time enabled and the time one of its core types counted.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

/* The largest time enabled and the sum of time running of the core types'
 * group leaders. */
static void leader_times(uint64_t *enabled, uint64_t *running)
{
	unsigned i;

	*enabled = *running = 0;
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].leader == (int)i && fake.ev[i].pmu >= 0) {
			if (fake.ev[i].enabled_ns > *enabled)
				*enabled = fake.ev[i].enabled_ns;
			*running += fake.ev[i].running_ns;
		}
}

TEST(hybrid_counts, a_core_type_that_never_ran_adds_zero)
{
	unsigned core, atom;
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("intel-hybrid");
	core = fake_pmu_named("cpu_core");
	atom = fake_pmu_named("cpu_atom");
	fake_run_on(core); /* taskset to the P-cores */
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", NULL) == 0, "%s", upmc_last_error());
	fake.syscall_ns = 0;
	fake_run(10000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT(v[0] != UPMC_NOT_COUNTED && v[1] != UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(v[0], fake_count_on(core, PERF_TYPE_HARDWARE, 0));
	EXPECT_EQ_U64(v[1], fake_count_on(core, PERF_TYPE_HARDWARE, 1));
	ASSERT(upmc_read_n(set, v, 2) == 2);
	EXPECT_EQ_U64(v[0], fake_count_on(core, PERF_TYPE_HARDWARE, 0));
	/* then both core types ran: the sum */
	fake_run_on(atom);
	fake_run(3000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[0], fake_count_on(core, PERF_TYPE_HARDWARE, 0) +
	                            fake_count_on(atom, PERF_TYPE_HARDWARE, 0));
	EXPECT(fake_count_on(atom, PERF_TYPE_HARDWARE, 0) >= 3000);
	upmc_close(set);
}

TEST(hybrid_counts, a_counter_no_core_type_counted_reads_not_counted)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("intel-hybrid");
	fake_run_on(fake_pmu_named("cpu_core"));
	ASSERT_MSG(upmc_open(&set, "cpu_atom/event=0xc0/,cycles", NULL) == 0, "%s",
	           upmc_last_error());
	fake_run(5000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[0], UPMC_NOT_COUNTED); /* its one core type never ran */
	EXPECT(v[1] >= 5000 && v[1] != UPMC_NOT_COUNTED);
	upmc_close(set);

	/* a generic counter none of whose parts ran (the fake reads while the
	 * thread is off every CPU, which no real thread can) */
	fake_switch_out();
	ASSERT_MSG(upmc_open(&set, "cycles,instructions", NULL) == 0, "%s", upmc_last_error());
	fake_run(5000);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[0], UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(v[1], UPMC_NOT_COUNTED);
	upmc_close(set);
}

TEST(hybrid_counts, read_times_adds_the_core_types)
{
	unsigned core, atom;
	struct upmc_set *set;
	uint64_t en, run, want_en, want_run;

	fake_boot("intel-hybrid");
	core = fake_pmu_named("cpu_core");
	atom = fake_pmu_named("cpu_atom");
	fake_run_on(core);
	ASSERT_MSG(upmc_open(&set, "cycles", NULL) == 0, "%s", upmc_last_error());
	fake.syscall_ns = 0;
	fake_run(4000);
	fake_run_on(atom);
	fake_run(6000);
	fake_switch_out();
	fake_run(5000); /* enabled, on no CPU */
	fake_run_on(core);
	ASSERT(upmc_read_times(set, &en, &run) == 0);
	leader_times(&want_en, &want_run);
	EXPECT_EQ_U64(en, want_en);
	EXPECT_EQ_U64(run, want_run);
	EXPECT(run >= 10000 && en >= run + 5000);
	upmc_close(set);
}
