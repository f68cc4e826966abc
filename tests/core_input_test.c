/* SPDX-License-Identifier: MIT */
/*
 * Bad input as a new user writes it: NULL prof sites and files, option
 * structs of absurd or newer sizes, a PMU this machine lacks with
 * UPMC_OPT_TIME_ONLY (also where it is the only counter: regions and
 * upmc_bench still time), control bytes and overflowing raw codes in a spec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <upmc/prof.h>
#include <upmc/upmc.h>

#include "tests/upmc_test.h"

/* No control byte (a terminal would act on it) in the last error. */
static int error_is_printable(void)
{
	const unsigned char *p;

	for (p = (const unsigned char *)upmc_last_error(); *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/* Runs fn with stderr going to a file; its output into buf. */
static void capture_stderr(void (*fn)(void), char *buf, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t got;

	buf[0] = '\0';
	if (!tmp || saved < 0)
		return;
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	got = fread(buf, 1, size - 1, tmp);
	buf[got] = '\0';
	fclose(tmp);
}

static struct upmc_prof site = {"site", "task-clock", 0, 0, 0, 0};

static void pass_with_null_file(void)
{
	upmc_prof_begin(&site);
	upmc_prof_end(&site, NULL);
}

TEST(input, prof_null_pointers_and_null_file)
{
	char out[512];

	upmc_prof_begin(NULL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_prof_begin: the prof pointer is NULL");
	upmc_prof_end(NULL, stderr);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_prof_end: the prof pointer is NULL");
	upmc_prof_close(NULL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_prof_close: the prof pointer is NULL");
	capture_stderr(pass_with_null_file, out, sizeof(out));
	EXPECT_CONTAINS(out, "upmc site: ");
	EXPECT(site.region != NULL);
	upmc_prof_close(&site);
	EXPECT(site.region == NULL && site.set == NULL);
}

/* A caller built against a later upmc.h, with one more field. */
struct later_options {
	struct upmc_options known;
	uint64_t added;
};

TEST(input, options_size_follows_the_extensible_struct_convention)
{
	struct upmc_options huge = {1u << 20, 0}, most = {SIZE_MAX, 0};
	struct later_options later = {{sizeof(later), 0}, 0};
	struct upmc_set *set = NULL;
	char byte[64];

	EXPECT_EQ(upmc_open(&set, "task-clock", &huge), -E2BIG);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_options.size is 1048576: no version");
	EXPECT_EQ(upmc_open(&set, "task-clock", &most), -E2BIG);
	EXPECT_CONTAINS(upmc_last_error(), "set it to sizeof(struct upmc_options)");
	EXPECT(set == NULL);
	ASSERT_MSG(upmc_open(&set, "task-clock", &later.known) == 0, "%s", upmc_last_error());
	upmc_close(set);
	set = NULL;
	later.added = 1ull << 40; /* a field this library would have to ignore */
	EXPECT_EQ(upmc_open(&set, "task-clock", &later.known), -E2BIG);
	snprintf(byte, sizeof(byte), "byte %zu is not zero",
	         offsetof(struct later_options, added) + 5); /* little-endian */
	EXPECT_CONTAINS(upmc_last_error(), byte);
	EXPECT(set == NULL);
}

struct later_bench_options {
	struct upmc_bench_options known;
	uint64_t added;
};

static void nothing(void *arg)
{
	(void)arg;
}

TEST(input, bench_options_size_follows_the_convention_too)
{
	struct later_bench_options later = {{sizeof(later), 1, 0, 1, 3}, 0};
	struct upmc_bench_options huge = {SIZE_MAX, 1, 0, 1, 3};
	struct upmc_bench_result res;
	struct upmc_set *set;

	ASSERT(upmc_open_timer(&set) == 0);
	EXPECT_EQ(upmc_bench(set, nothing, NULL, &huge, &res), -E2BIG);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_bench_options.size is");
	ASSERT_MSG(upmc_bench(set, nothing, NULL, &later.known, &res) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(res.samples, 3);
	later.added = 7;
	EXPECT_EQ(upmc_bench(set, nothing, NULL, &later.known, &res), -E2BIG);
	EXPECT_CONTAINS(upmc_last_error(), "is not zero");
	upmc_close(set);
}

/* A time-only set none of whose counters can count still times regions
 * and upmc_bench: its reads succeed with every value UPMC_NOT_COUNTED. */
TEST(input, time_only_set_of_unavailable_counters_still_times)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_bench_options opts = {sizeof(opts), 1, 0, 1, 5};
	struct upmc_bench_result res;
	struct upmc_region *r;
	struct upmc_stat st;
	struct upmc_set *set = NULL;
	int k;

	ASSERT_MSG(upmc_open(&set, "nosuchpmu/event=1/", &time_only) == 0, "%s", upmc_last_error());
	ASSERT(upmc_region_open(&r, set, "unavailable") == 0);
	for (k = 0; k < 10; k++) {
		upmc_region_begin(r);
		upmc_region_end(r);
	}
	EXPECT_EQ_U64(upmc_region_dropped(r), 0);
	ASSERT(upmc_region_stat(r, UPMC_NS, 0, &st) == 0);
	EXPECT_EQ(st.count, 10);
	ASSERT(upmc_region_stat(r, 0, 0, &st) == 0);
	EXPECT_EQ(st.count, 0);
	upmc_region_close(r);
	ASSERT_MSG(upmc_bench(set, nothing, NULL, &opts, &res) == 0, "%s", upmc_last_error());
	EXPECT(res.dropped == 0 && res.ns.count == 5 && res.counter[0].count == 0);
	upmc_close(set);
}

/* No machine has this PMU: with UPMC_OPT_TIME_ONLY it is unavailable and
 * the rest counts; without, the open fails as before. */
TEST(input, time_only_marks_a_missing_pmu_unavailable)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set = NULL;
	uint64_t v[2];

	EXPECT_EQ(upmc_open(&set, "task-clock,nosuchpmu/event=1/", NULL), -ENODEV);
	EXPECT_CONTAINS(upmc_last_error(), "no PMU 'nosuchpmu'");
	ASSERT_MSG(upmc_open(&set, "task-clock,nosuchpmu/event=1/", &time_only) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "no PMU 'nosuchpmu'");
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT(v[0] != UPMC_NOT_COUNTED && v[0] > 0);
	EXPECT(v[1] == UPMC_NOT_COUNTED);
	EXPECT_CONTAINS(upmc_summary(set), "1 unavailable");
	upmc_close(set);
}

TEST(input, control_bytes_in_a_spec_are_not_echoed)
{
	struct upmc_set *set = NULL;

	EXPECT_EQ(upmc_open(&set, "cyc\x1b[2Jles", NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "event 1 of the spec has a control byte (0x1b)");
	EXPECT(error_is_printable());
	EXPECT_EQ(upmc_open(&set, "cycles,instructions\x07", NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "event 2 of the spec has a control byte (0x07)");
	EXPECT_EQ(upmc_open(&set, "cycles,,\x7f", NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "'cycles,,\\x7f' has an empty item at position 2");
	EXPECT(error_is_printable());
	EXPECT(set == NULL);
}

TEST(input, an_overflowing_raw_code_says_so)
{
	struct upmc_set *set = NULL;

	EXPECT_EQ(upmc_open(&set, "r123456789abcdef01", NULL), -ERANGE);
	EXPECT_CONTAINS(upmc_last_error(), "raw code 'r123456789abcdef01' does not fit in 64 bits");
	EXPECT(!strstr(upmc_last_error(), "did you mean"));
	EXPECT(set == NULL);
}
