/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat -I` on a multiplexed counter, on the fake kernel: the counter
 * counts fast, goes off the PMU while another user holds the counters (its
 * scaled total keeps growing by extrapolation), then counts 9000 in the
 * interval. stat's interval is 9000, scaled by the interval's own times as
 * the library's every layer does (tests/core_interval_test.c), never the
 * difference of two scaled totals, which here is below zero.
 */
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "lib/core/internal.h"
#include "tests/upmc_test.h"
#include "cli/stat.h"

static struct stat_run run;

TEST(stat_multiplex, an_interval_is_scaled_by_its_own_times)
{
	struct stat_unit command = {4242, -1, "work"};
	struct stat_reading zero = {0, 0, 0}, before;
	struct stat_figure total0, total1, interval;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	memset(&run, 0, sizeof(run));
	ASSERT(upmc_parse_spec("branch-misses", UPMC_OPT_KERNEL, &run.counter[0].event, 1) == 1);
	run.n = 1;
	run.unit = &command;
	run.n_units = 1;
	ASSERT(stat_open_counters(&run) == 0);
	ASSERT_MSG(run.counter[0].opened, "%s", run.counter[0].reason);
	fake_exec();
	fake.pmu[0].rate = 10; /* 10 per ns for 1 us */
	fake_run(1000);
	fake_take_counters(0, fake.pmu[0].gp); /* off the PMU for 99 us */
	fake_run(99000);
	fake_take_counters(0, 0);
	fake.pmu[0].rate = 1;
	stat_read_counters(&run);
	before = run.reading[0];
	stat_figure_between(&total0, &zero, &before);
	EXPECT_EQ_U64(total0.value, 1000000); /* 10^4 counted in 1% of the time */
	fake_run(9000);                       /* back on: 9000 */
	stat_read_counters(&run);
	stat_figure_between(&total1, &zero, &run.reading[0]);
	EXPECT(total1.value < total0.value); /* the scaled totals: their difference is no count */
	stat_figure_between(&interval, &before, &run.reading[0]);
	EXPECT_EQ_U64(interval.value, 9000);
	EXPECT_EQ_U64(interval.enabled, 9000);
	EXPECT_EQ_U64(interval.running, 9000);
	stat_close_counters(&run);
	EXPECT_EQ_U64(run.counter[0].total.value, total1.value);
	EXPECT_EQ(fake_open_events(), 0);
	run.unit = NULL; /* not stat_find_units()'s */
	run.n_units = 0;
	stat_free_units(&run);
}
