/* SPDX-License-Identifier: MIT */
/*
 * A spec that names no metric costs no look at the machine per catalogue
 * row: opening and closing `task-clock` on the fake kernel reads
 * perf_event_paranoid (the probe's first file) a few times, however many
 * rows the catalogue has. Each row once asked the OS layer which kind of
 * CPU this is, a probe of five files and a directory, before its name was
 * compared. The files are counted where they are opened: fopen() is
 * wrapped (the linker's --wrap, in tests/BUILD).
 */
#include <stdio.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include "tests/upmc_test.h"

FILE *__real_fopen(const char *path, const char *mode);
FILE *__wrap_fopen(const char *path, const char *mode);

static unsigned paranoid_reads;

FILE *__wrap_fopen(const char *path, const char *mode)
{
	if (strstr(path, "/proc/sys/kernel/perf_event_paranoid"))
		paranoid_reads++;
	return __real_fopen(path, mode);
}

TEST(open_probes, a_spec_without_metrics_probes_the_machine_a_few_times)
{
	struct upmc_set *set;

	fake_boot("x86-intel");
	paranoid_reads = 0;
	ASSERT_MSG(upmc_open(&set, "task-clock", NULL) == 0, "%s", upmc_last_error());
	upmc_close(set);
	printf("open_probes: open and close of task-clock: %u probes\n", paranoid_reads);
	EXPECT_MSG(paranoid_reads >= 1 && paranoid_reads <= 4, "%u probes", paranoid_reads);
}
