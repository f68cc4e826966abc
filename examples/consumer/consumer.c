/* SPDX-License-Identifier: MIT */
/*
 * A program that uses upmc from outside its source tree: built against an
 * installed upmc (pkg-config, CMake, static), the single-file upmc.c, or
 * the Bazel consumer workspace (docs/using.md). C11 or C++17.
 *
 * It times a loop and counts task-clock and instructions over it. With
 * UPMC_OPT_TIME_ONLY a machine without a PMU opens the set all the same:
 * instructions then read UPMC_NOT_COUNTED and say why (and on Windows,
 * where sets are time only, both do). Exits 0 when every number is
 * consistent, 1 (with the reason) when one is not.
 *
 * -DUPMC_SINGLE_FILE builds it against upmc.h beside it.
 * ./consumer [VERSION] also checks that the headers are VERSION's
 * (pkg-config --modversion upmc).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef UPMC_SINGLE_FILE
#include "upmc.h" /* the single-file upmc.c and upmc.h, beside this file */
#else
#include <upmc/upmc.h>
#endif

#define LOOP 10000000

static volatile uint64_t sink;

static void work(void)
{
	uint64_t i;

	for (i = 0; i < LOOP; i++)
		sink += i;
}

static int fail(const char *what)
{
	fprintf(stderr, "consumer: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	struct upmc_options opts;
	struct upmc_set *set;
	uint64_t before[2], after[2], t0, t1, ns;
	char version[32];
	unsigned i;

	snprintf(version, sizeof(version), "%d.%d", UPMC_VERSION_MAJOR, UPMC_VERSION_MINOR);
	if (argc > 1 &&
	    (strncmp(argv[1], version, strlen(version)) != 0 || argv[1][strlen(version)] != '.'))
		return fail("the headers are not the version pkg-config names");

	memset(&opts, 0, sizeof(opts));
	opts.size = sizeof(opts);
	opts.flags = UPMC_OPT_TIME_ONLY; /* no PMU: time and software events only */
	if (upmc_open(&set, "task-clock,instructions", &opts) < 0) {
		fprintf(stderr, "consumer: upmc_open: %s\n", upmc_last_error());
		return 1;
	}
	t0 = upmc_timestamp_serialized();
	if (upmc_read(set, before) != 2)
		return fail(upmc_last_error());
	work();
	if (upmc_read(set, after) != 2)
		return fail(upmc_last_error());
	t1 = upmc_timestamp_after();
	ns = upmc_ticks_to_ns(set, t1) - upmc_ticks_to_ns(set, t0);

	printf("upmc %s: %s\n", version, upmc_summary(set));
	printf("loop: %llu ns\n", (unsigned long long)ns);
	if (ns == 0)
		return fail("the loop took no time");
	for (i = 0; i < 2; i++) {
		if (upmc_counter_path(set, i) == UPMC_PATH_UNAVAILABLE) {
			printf("%s: not counted\n", upmc_counter_name(set, i));
			if (after[i] != UPMC_NOT_COUNTED || !*upmc_counter_reason(set, i))
				return fail("an unavailable counter gave a value or no reason");
			continue;
		}
		printf("%s: %llu\n", upmc_counter_name(set, i),
		       (unsigned long long)(after[i] - before[i]));
		/* task-clock counts ns, instructions at least one per iteration */
		if (after[i] == UPMC_NOT_COUNTED || after[i] - before[i] < (i ? LOOP : 1))
			return fail("a counter counted less than the loop did");
	}
	upmc_close(set);
	return 0;
}
