/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s metrics and --rotate's passes on the fake kernel, as
 * stat.c drives them (stat_plan, stat_runs_*, the counters, the report):
 *
 * - A metric's inputs are one perf group, read at once with the group's
 *   times: while another user holds all but one counter, the group of two
 *   stays off whole, so branch-misses and branches come from one schedule
 *   (each scaled by the same 50%) and their ratio is the counts' own. Opened
 *   apart, branch-misses alone would count at 10 per ns on the free counter
 *   while branches waited, and the "ratio" would be 550%.
 * - -I's intervals scale each by its group's own times in the interval; a
 *   group that never ran in one is <not counted> there, its metric n/a.
 * - --rotate: run r counts pass r mod 2 alone, pinned; each figure is the
 *   mean of its pass's runs, each metric from its own pass.
 * - -r: a counter that counted in some runs only is the mean of those, and
 *   every format says how many they are; a mean of one run has no "+-".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "lib/core/internal.h"
#include "tests/upmc_test.h"
#include "cli/stat.h"

#define EXPECT_STREQ(a, b)                                                                   \
	do {                                                                                 \
		const char *upmc_s_ = (a), *upmc_w_ = (b);                                   \
		EXPECT_MSG(!strcmp(upmc_s_, upmc_w_), "'%s' is not '%s'", upmc_s_, upmc_w_); \
	} while (0)

#define HW_CACHE_REFS  2
#define HW_BRANCHES    4
#define HW_BRANCH_MISS 5

static struct stat_run run;
static struct stat_runs runs;
static char *command[] = {"work", NULL};

/* The run as stat.c sets it up for `upmc stat [-e LIST] [-M METRICS] work`:
 * spec is every list joined, lists the -e ones. */
static int plan(const char *spec, const char **lists, unsigned n_lists, int rotate)
{
	struct stat_args a;

	memset(&a, 0, sizeof(a));
	a.spec = spec;
	a.lists = lists;
	a.n_lists = n_lists;
	a.rotate = rotate;
	a.repeat = 1;
	memset(&run, 0, sizeof(run));
	run.argv = command;
	run.runs = 1;
	run.format = STAT_TEXT;
	return stat_plan(&run, &a);
}

/* The command's unit, as stat_find_units() gives it (freed with the run's). */
static int one_unit(void)
{
	run.unit = calloc(1, sizeof(*run.unit));
	if (!run.unit)
		return -1;
	run.unit->tid = 4242;
	run.unit->cpu = -1;
	run.n_units = 1;
	return 0;
}

static const struct fake_event *event_named(uint64_t config)
{
	return fake_find(PERF_TYPE_HARDWARE, config);
}

/* What stat_print_report() or stat_print_interval() writes. */
static char *report(const struct stat_block *interval, uint64_t at_ns)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		return NULL;
	if (interval)
		stat_print_interval(out, &run, at_ns, interval, 1);
	else
		stat_print_report(out, &run, NULL, 0);
	fclose(out);
	return text;
}

/* The group of two is off while one counter is free (10 per ns then),
 * on with all free (1 per ns). */
static void half_the_time_off(void)
{
	fake.pmu[0].rate = 10;
	fake_take_counters(0, fake.pmu[0].gp - 1);
	fake_run(1000);
	fake.pmu[0].rate = 1;
	fake_take_counters(0, 0);
	fake_run(1000);
}

TEST(stat_groups, a_metrics_inputs_share_one_schedule)
{
	char *text;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(plan("branch-miss-ratio", NULL, 0, 0) == 2, "%s", upmc_last_error());
	EXPECT_EQ(run.counter[0].group, 1);
	EXPECT_EQ(run.counter[1].group, 1);
	ASSERT(one_unit() == 0);
	ASSERT(stat_open_counters(&run) == 0);
	ASSERT_MSG(run.counter[0].opened && run.counter[1].opened, "%s", run.counter[0].reason);
	/* one group, time-shared (not pinned), branch-misses leading it */
	EXPECT_EQ(event_named(HW_BRANCHES)->leader, event_named(HW_BRANCH_MISS)->leader);
	EXPECT(!event_named(HW_BRANCH_MISS)->attr.pinned);
	fake_exec();
	half_the_time_off();
	stat_read_counters(&run);
	run.elapsed_ns = 2000;
	stat_close_counters(&run);
	EXPECT_EQ(fake_open_events(), 0);
	EXPECT_EQ_U64(run.counter[0].total.value, 2000); /* 1000 in half the time */
	EXPECT_EQ_U64(run.counter[0].total.running, 1000);
	EXPECT_EQ_U64(run.counter[1].total.value, 2000);
	EXPECT_EQ_U64(run.counter[1].total.enabled, 2000);
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, "             2,000      branch-misses                     #  "
	                      "100.00% of all branches  (50.00%)\n"
	                      "             2,000      branches                        "
	                      "  (50.00%)\n");
	free(text);
	run.format = STAT_CSV;
	run.separator = ",";
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_STREQ(text, "2000,,branch-misses,1000,50.00,100.00%,of all branches\n"
	                   "2000,,branches,1000,50.00,,\n");
	free(text);
	stat_free_units(&run);
}

TEST(stat_groups, an_interval_of_a_group_and_one_it_never_ran)
{
	struct stat_reading before[2];
	struct stat_figure fig[2];
	struct stat_block block = {fig, 1000, NULL};
	char *text;
	unsigned i;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("branch-miss-ratio", NULL, 0, 0) == 2);
	ASSERT(one_unit() == 0);
	ASSERT(stat_open_counters(&run) == 0);
	fake_exec();
	half_the_time_off();
	stat_read_counters(&run);
	memcpy(before, run.reading, sizeof(before));
	/* 1 us with every counter but one taken: the group never runs */
	fake_take_counters(0, fake.pmu[0].gp - 1);
	fake_run(1000);
	stat_read_counters(&run);
	for (i = 0; i < 2; i++)
		stat_figure_between(&fig[i], &before[i], &run.reading[i]);
	EXPECT_EQ_U64(fig[0].value, UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(fig[1].value, UPMC_NOT_COUNTED);
	text = report(&block, 3000);
	ASSERT(text);
	EXPECT_STREQ(text,
	             "     0.000003000      <not counted>      branch-misses                     "
	             "#      n/a of all branches\n"
	             "     0.000003000      <not counted>      branches                        \n");
	free(text);
	/* then 1 us, the group on for its second half: 500 counted, scaled x2 */
	memcpy(before, run.reading, sizeof(before));
	fake_run(500);
	fake_take_counters(0, 0);
	fake_run(500);
	stat_read_counters(&run);
	for (i = 0; i < 2; i++)
		stat_figure_between(&fig[i], &before[i], &run.reading[i]);
	text = report(&block, 4000);
	ASSERT(text);
	EXPECT_STREQ(text,
	             "     0.000004000               1000      branch-misses                     "
	             "#  100.00% of all branches  (50.00%)\n"
	             "     0.000004000               1000      branches                          "
	             "(50.00%)\n");
	free(text);
	stat_close_counters(&run);
	EXPECT_EQ(fake_open_events(), 0);
	stat_free_units(&run);
}

TEST(stat_groups, a_group_that_never_ran_is_not_counted)
{
	char *text;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("branch-miss-ratio", NULL, 0, 0) == 2);
	ASSERT(one_unit() == 0);
	ASSERT(stat_open_counters(&run) == 0);
	fake_take_counters(0, fake.pmu[0].gp - 1);
	fake_exec();
	fake_run(1000);
	stat_read_counters(&run);
	run.elapsed_ns = 1000;
	stat_close_counters(&run);
	EXPECT_EQ(run.counter[0].status, STAT_NOT_COUNTED);
	EXPECT_EQ(run.counter[1].status, STAT_NOT_COUNTED);
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, "     <not counted>      branch-misses                     #      "
	                      "n/a of all branches  [1]\n"
	                      "     <not counted>      branches                          [1]\n");
	EXPECT_CONTAINS(text, " [1] branch-misses, branches: 'branch-misses' never got onto a "
	                      "counter while counting (enabled 1000 ns, running 0): the PMU's "
	                      "counters were all taken\n");
	free(text);
	stat_free_units(&run);
}

/* -e cycles,page-faults -M IPC -e task-clock: IPC's group first (cycles
 * with it), then each list's other events. */
TEST(stat_groups, rotate_plans_a_pass_per_metric_group_then_per_list)
{
	const char *lists[] = {"cycles,page-faults", "task-clock"};
	static const char *const want[] = {"cycles", "page-faults", "instructions", "task-clock"};
	static const unsigned pass[] = {0, 1, 0, 2};
	unsigned i;

	ASSERT_MSG(plan("cycles,page-faults,IPC,task-clock", lists, 2, 1) == 4, "%s",
	           upmc_last_error());
	EXPECT_EQ(run.passes, 3);
	for (i = 0; i < 4; i++) {
		EXPECT_STREQ(run.counter[i].event.name, want[i]);
		EXPECT_EQ(run.counter[i].pass, pass[i]);
		EXPECT_EQ(run.counter[i].group, pass[i] + 1);
	}
	/* without --rotate: IPC's inputs one group, the others alone */
	ASSERT(plan("cycles,page-faults,IPC,task-clock", lists, 2, 0) == 4);
	EXPECT_EQ(run.passes, 0);
	EXPECT_EQ(run.counter[0].group, 1);
	EXPECT_EQ(run.counter[1].group, 0);
	EXPECT_EQ(run.counter[2].group, 1);
	EXPECT_EQ(run.counter[3].group, 0);
}

/* One run of the rotation: its pass alone on the PMU, pinned, counting
 * `rate` per ns for ns. */
static void rotation_run(unsigned r, unsigned rate, uint64_t ns)
{
	const struct fake_event *leader;

	stat_runs_next(&runs, &run, r);
	ASSERT(one_unit() == 0);
	ASSERT(stat_open_counters(&run) == 0);
	EXPECT_EQ(fake_open_events(), 2); /* its pass's two, no more */
	leader = event_named(r % 2 ? HW_CACHE_REFS : HW_BRANCH_MISS);
	ASSERT(leader && leader->leader == (int)(leader - fake.ev));
	EXPECT(leader->attr.pinned);
	fake_exec();
	fake.pmu[0].rate = rate;
	fake_run(ns);
	stat_read_counters(&run);
	run.elapsed_ns = ns;
	stat_close_counters(&run);
	stat_runs_add(&runs, &run);
}

TEST(stat_groups, rotate_counts_one_pinned_pass_per_run)
{
	const char *lists[] = {"cache-references,cache-misses"};
	char *text;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("cache-references,cache-misses,branch-miss-ratio", lists, 1, 1) == 4);
	ASSERT(run.passes == 2);
	stat_runs_start(&runs, &run);
	rotation_run(0, 1, 1000); /* branches: 1000 */
	rotation_run(1, 2, 2000); /* cache: 4000 */
	rotation_run(2, 3, 3000); /* branches: 9000 */
	rotation_run(3, 4, 4000); /* cache: 16000 */
	stat_runs_end(&runs, &run, 4);
	EXPECT_EQ_U64(run.counter[0].total.value, 10000); /* cache-references */
	EXPECT_EQ_U64(run.counter[2].total.value, 5000);  /* branch-misses */
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, " Performance counter stats for 'work' (4 runs, 2 passes):\n\n"
	                      "            10,000      cache-references                  "
	                      "                                    ( +- 60.00% )  "
	                      "(pass 2/2, 2 of 4 runs)\n"
	                      "            10,000      cache-misses                      #  "
	                      "100.00% of all cache refs        ( +- 60.00% )  "
	                      "(pass 2/2, 2 of 4 runs)\n"
	                      "             5,000      branch-misses                     #  "
	                      "100.00% of all branches          ( +- 80.00% )  "
	                      "(pass 1/2, 2 of 4 runs)\n"
	                      "             5,000      branches                          "
	                      "                                    ( +- 80.00% )  "
	                      "(pass 1/2, 2 of 4 runs)\n");
	free(text);
	run.format = STAT_CSV;
	run.separator = ";";
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_STREQ(text, "10000;;cache-references;60.00%;3000;100.00;;;2\n"
	                   "10000;;cache-misses;60.00%;3000;100.00;100.00%;of all cache refs;2\n"
	                   "5000;;branch-misses;80.00%;2000;100.00;100.00%;of all branches;1\n"
	                   "5000;;branches;80.00%;2000;100.00;;;1\n");
	free(text);
	stat_free_units(&run);
}

/* A pinned pass that cannot go on whole (another user holds all but one
 * counter) reads 0 bytes: not counted, and why. */
TEST(stat_groups, rotate_a_pass_that_cannot_go_on)
{
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("branch-miss-ratio", NULL, 0, 1) == 2);
	ASSERT(run.passes == 1);
	stat_runs_start(&runs, &run);
	stat_runs_next(&runs, &run, 0);
	ASSERT(one_unit() == 0);
	ASSERT(stat_open_counters(&run) == 0);
	fake_take_counters(0, fake.pmu[0].gp - 1);
	fake_exec();
	fake_run(1000);
	stat_read_counters(&run);
	stat_close_counters(&run);
	stat_runs_add(&runs, &run);
	stat_runs_end(&runs, &run, 1);
	EXPECT_EQ(run.counter[0].status, STAT_NOT_COUNTED);
	EXPECT_STREQ(run.counter[0].reason,
	             "'branch-misses' was not counted: its pass could not go on the PMU whole "
	             "(another user holds counters: a perf session, the NMI watchdog)");
	EXPECT_EQ(fake_open_events(), 0);
	stat_free_units(&run);
}

/* Runs cut short (^C in the first run): the pass that never ran is not
 * counted, and says why; the one that ran keeps its figures. */
TEST(stat_groups, rotate_runs_cut_short)
{
	const char *lists[] = {"cache-references,cache-misses"};

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("cache-references,cache-misses,branch-miss-ratio", lists, 1, 1) == 4);
	stat_runs_start(&runs, &run);
	rotation_run(0, 1, 1000);
	stat_runs_end(&runs, &run, 1);
	EXPECT_EQ(run.counter[0].status, STAT_NOT_COUNTED);
	EXPECT_STREQ(run.counter[0].reason, "'cache-references' was not counted: the runs ended "
	                                    "before its pass (2 of 2) ran");
	EXPECT_EQ(run.counter[2].status, STAT_COUNTED);
	EXPECT_EQ_U64(run.counter[2].total.value, 1000);
	stat_free_units(&run);
}

/* One run of -r without --rotate: the group of two counts `rate` per ns
 * for ns, or, while another user holds all but one counter, never runs. */
static void one_run(unsigned r, int taken, unsigned rate, uint64_t ns)
{
	stat_runs_next(&runs, &run, r);
	ASSERT(one_unit() == 0);
	ASSERT(stat_open_counters(&run) == 0);
	if (taken)
		fake_take_counters(0, fake.pmu[0].gp - 1);
	fake_exec();
	fake.pmu[0].rate = rate;
	fake_run(ns);
	stat_read_counters(&run);
	run.elapsed_ns = ns;
	stat_close_counters(&run);
	fake_take_counters(0, 0);
	stat_runs_add(&runs, &run);
}

/* Three runs, the group never on the PMU in run `lost`: its figures are
 * the mean of the two others (1000 and 3000), counted, and each format
 * says they are of 2 runs of 3, whichever run it missed (the last one
 * made it "not counted" with a mean; another, a mean "of 3 runs"). */
static void counted_in_two_of_three(unsigned lost)
{
	unsigned r, rate = 1;
	char *text;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("branch-miss-ratio", NULL, 0, 0) == 2);
	stat_runs_start(&runs, &run);
	for (r = 0; r < 3; r++) {
		one_run(r, r == lost, rate, 1000);
		rate += 2 * (r != lost);
	}
	stat_runs_end(&runs, &run, 3);
	EXPECT_EQ(run.counter[0].status, STAT_COUNTED);
	EXPECT_EQ_U64(run.counter[0].total.value, 2000);
	EXPECT_EQ(run.counter[0].total.runs, 2);
	EXPECT_EQ(run.counter[0].total.planned, 3);
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, " Performance counter stats for 'work' (3 runs):\n\n"
	                      "             2,000      branch-misses                     #  "
	                      "100.00% of all branches          ( +- 50.00% )  (66.67%)  "
	                      "(2 of 3 runs)  [1]\n"
	                      "             2,000      branches                          "
	                      "                                    ( +- 50.00% )  (66.67%)  "
	                      "(2 of 3 runs)  [1]\n");
	EXPECT_CONTAINS(text, " [1] branch-misses, branches: 'branch-misses' counted in 2 of 3 "
	                      "runs, its figures the mean of those 2; in the others: never got "
	                      "onto a counter while counting (enabled 1000 ns, running 0): the "
	                      "PMU's counters were all taken\n");
	free(text);
	run.format = STAT_CSV;
	run.separator = ",";
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_STREQ(text, "2000,,branch-misses,50.00%,1000,66.67,100.00%,of all branches\n"
	                   "2000,,branches,50.00%,1000,66.67,,\n");
	free(text);
	run.format = STAT_JSON;
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, "\"status\": \"counted\",\n      \"value\": 2000,");
	EXPECT_CONTAINS(text, "\"noise_pct\": 50,\n      \"runs\": 2,");
	free(text);
	stat_free_units(&run);
}

TEST(stat_groups, runs_a_counter_missed_in_the_middle)
{
	counted_in_two_of_three(1);
}

TEST(stat_groups, runs_a_counter_missed_in_the_last)
{
	counted_in_two_of_three(2);
}

/* --rotate, 3 runs of 2 passes: pass 2 ran once. A mean of one run has no
 * deviation: nothing in the text, an empty field in CSV (it printed
 * 0.00%), null in JSON; pass 1's two runs have theirs. */
TEST(stat_groups, rotate_a_pass_that_ran_once_has_no_noise)
{
	const char *lists[] = {"cache-references,cache-misses"};
	char *text;

	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(plan("cache-references,cache-misses,branch-miss-ratio", lists, 1, 1) == 4);
	stat_runs_start(&runs, &run);
	rotation_run(0, 1, 1000);
	rotation_run(1, 2, 2000);
	rotation_run(2, 3, 3000);
	stat_runs_end(&runs, &run, 3);
	EXPECT_EQ(run.counter[0].total.runs, 1);
	EXPECT_EQ(run.counter[2].total.runs, 2);
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, "             4,000      cache-references                  "
	                      "                                                   "
	                      "(pass 2/2, 1 of 3 runs)\n");
	free(text);
	run.format = STAT_CSV;
	run.separator = ";";
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_STREQ(text, "4000;;cache-references;;2000;100.00;;;2\n"
	                   "4000;;cache-misses;;2000;100.00;100.00%;of all cache refs;2\n"
	                   "5000;;branch-misses;80.00%;2000;100.00;100.00%;of all branches;1\n"
	                   "5000;;branches;80.00%;2000;100.00;;;1\n");
	free(text);
	run.format = STAT_JSON;
	text = report(NULL, 0);
	ASSERT(text);
	EXPECT_CONTAINS(text, "\"name\": \"cache-references\",");
	EXPECT_CONTAINS(text, "\"noise_pct\": null,\n      \"runs\": 1,");
	free(text);
	stat_free_units(&run);
}
