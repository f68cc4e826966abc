/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat` on a hybrid CPU, on the fake kernel: a generic event opens
 * once per core PMU, like the library's sets; the parts add up, and their
 * times too (they count in turns), so a command that ran on both core types
 * reads its whole count, not a P-core count scaled as if multiplexed.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "lib/core/internal.h"
#include "tests/upmc_test.h"
#include "cli/stat.h"

static struct stat_run run;

TEST(hybrid_stat, generic_events_count_on_every_core_type)
{
	struct stat_unit command = {4242, -1, "work"};
	unsigned core, atom;
	uint64_t want;

	fake_boot("intel-hybrid");
	core = fake_pmu_named("cpu_core");
	atom = fake_pmu_named("cpu_atom");
	fake.pmu[core].rate = 2; /* more cycles per ns on the P-cores */
	memset(&run, 0, sizeof(run));
	ASSERT(upmc_parse_spec("cycles", UPMC_OPT_KERNEL, &run.counter[0].event, 1) == 1);
	ASSERT(upmc_parse_spec("task-clock", UPMC_OPT_KERNEL, &run.counter[1].event, 1) == 1);
	run.n = 2;
	run.unit = &command;
	run.n_units = 1;
	ASSERT(stat_open_counters(&run) == 0);
	ASSERT_MSG(run.counter[0].opened, "%s", run.counter[0].reason);
	EXPECT_EQ(run.counter[0].n_parts, 2);
	EXPECT_EQ(run.counter[1].n_parts, 1);
	fake.syscall_ns = 0;
	fake_exec();
	fake_run_on(core);
	fake_run(6000);
	fake_run_on(atom);
	fake_run(4000);
	want = fake_count_on(core, PERF_TYPE_HARDWARE, 0) +
	       fake_count_on(atom, PERF_TYPE_HARDWARE, 0);
	stat_read_counters(&run);
	stat_close_counters(&run);
	EXPECT_EQ(run.counter[0].status, STAT_COUNTED);
	EXPECT_EQ_U64(run.counter[0].total.value, want);
	EXPECT_EQ_U64(want, 2 * 6000 + 4000);
	EXPECT_EQ_U64(run.counter[0].total.running,
	              run.counter[0].total.enabled); /* not multiplexed */
	EXPECT_EQ_U64(run.counter[0].total.enabled, 10000);
	EXPECT_EQ_U64(run.counter[1].total.value, 10000);
	EXPECT_EQ(fake_open_events(), 0);
	run.unit = NULL; /* not stat_find_units()'s */
	run.n_units = 0;
	stat_free_units(&run);
}
