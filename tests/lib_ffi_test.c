/* SPDX-License-Identifier: MIT */
/*
 * libupmc-ffi.so as another language uses it: dlopen, then every function
 * of the public headers through dlsym, the inline ones included. The test
 * links no upmc code of its own.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <upmc/upmc.h>

#include "tests/upmc_test.h"

static void *ffi;

static void *sym(const char *name)
{
	if (!ffi)
		ffi = dlopen("./libupmc-ffi.so", RTLD_NOW | RTLD_LOCAL);
	return ffi ? dlsym(ffi, name) : NULL;
}

/* The library's function of that name, with the header's type. */
#define FN(name) ((__typeof__(&name))sym(#name))

/* Inline helpers that are not API: the functions that use them are exported. */
static int helper(const char *name)
{
	return !strncmp(name, "upmc_arch_", 10) || !strcmp(name, "upmc_read_first") ||
	       !strcmp(name, "upmc_mul_shift");
}

/* The function a header line declares or defines, if it does: "UPMC_API
 * ... name(" or "static ...inline... name(". */
static int function_name(const char *line, char *name, size_t size)
{
	const char *paren = strchr(line, '('), *start;

	if (strncmp(line, "UPMC_API ", 9) &&
	    !(!strncmp(line, "static ", 7) && strcasestr(line, "inline")))
		return 0;
	if (!paren)
		return -1;
	for (start = paren;
	     start > line && (isalnum((unsigned char)start[-1]) || start[-1] == '_');)
		start--;
	if (paren - start <= 0 || (size_t)(paren - start) >= size)
		return -1;
	memcpy(name, start, (size_t)(paren - start));
	name[paren - start] = '\0';
	return 1;
}

/* Looks up every public function of the headers in dir; how many it
 * found, or -1 after a failure. */
static int lookup_all(const char *dir)
{
	char path[512], line[512], name[128];
	struct dirent *e;
	int found = 0, r;
	DIR *d = opendir(dir);
	FILE *f;

	if (!d)
		return 0; /* this arch's directory only when it has headers */
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".h"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		if (!EXPECT_MSG(f, "%s: %s", path, strerror(errno)))
			continue;
		while (fgets(line, sizeof(line), f)) {
			r = function_name(line, name, sizeof(name));
			EXPECT_MSG(r >= 0, "%s: cannot find the name in '%s'", path, line);
			if (r <= 0 || helper(name))
				continue;
			EXPECT_MSG(sym(name), "%s (%s) is not exported", name, path);
			found++;
		}
		fclose(f);
	}
	closedir(d);
	return found;
}

TEST(ffi, every_function_of_the_headers_is_exported)
{
	static const char *const dirs[] = {"lib/include/upmc", "arch/x86/upmc", "arch/arm64/upmc",
	                                   "arch/generic/upmc"};
	int found = 0;
	unsigned i;

	ASSERT_MSG(sym("upmc_open"), "dlopen: %s", dlerror());
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		found += lookup_all(dirs[i]);
	/* upmc_read, upmc_timestamp, ..., upmc_open, ...: the headers' count
	 * when this was written. */
	EXPECT_MSG(found >= 41, "only %d functions found in the headers", found);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

TEST(ffi, timer_set_timestamps_and_conversion)
{
	const struct timespec pause = {0, 10000000};
	struct upmc_set *set = NULL;
	uint64_t t0, t1, t2, t3, wall0, wall, ns, none[1];

	ASSERT_MSG(sym("upmc_open_timer"), "dlopen: %s", dlerror());
	ASSERT_MSG(FN(upmc_open_timer)(&set) == 0, "%s", FN(upmc_last_error)());
	EXPECT_EQ(FN(upmc_count)(set), 0);
	EXPECT_EQ(FN(upmc_read)(set, none), 0);
	EXPECT_EQ(FN(upmc_read_n)(set, none, 0), 0);
	wall0 = monotonic_ns();
	t0 = FN(upmc_timestamp_serialized)();
	t1 = FN(upmc_timestamp)();
	nanosleep(&pause, NULL);
	t2 = FN(upmc_timestamp_after)();
	wall = monotonic_ns() - wall0;
	t3 = FN(upmc_timestamp)();
	EXPECT(t0 <= t1 && t1 < t2 && t2 <= t3);
	ns = FN(upmc_ticks_to_ns)(set, t2) - FN(upmc_ticks_to_ns)(set, t0);
	/* At least the pause, at most the time that passed around it (the
	 * calibrated clock is within 1%). */
	EXPECT_MSG(ns >= 9900000 && ns <= wall + wall / 50, "%llu ns converted, %llu ns passed",
	           (unsigned long long)ns, (unsigned long long)wall);
	FN(upmc_close)(set);
}

TEST(ffi, software_counters_through_every_read)
{
	const size_t pages = 64, page = 4096;
	struct upmc_set *set = NULL;
	uint64_t a[2], b[2], v[9], one, enabled = 0, running = 0;
	volatile char *mem;
	size_t i;

	ASSERT_MSG(sym("upmc_open"), "dlopen: %s", dlerror());
	ASSERT_MSG(FN(upmc_open)(&set, "task-clock,page-faults", NULL) == 0, "%s",
	           FN(upmc_last_error)());
	EXPECT_EQ(FN(upmc_count)(set), 2);
	EXPECT(!strcmp(FN(upmc_counter_name)(set, 1), "page-faults"));
	ASSERT(FN(upmc_read)(set, a) == 2);
	mem = malloc(pages * page);
	ASSERT(mem);
	for (i = 0; i < pages; i++)
		mem[i * page] = 1;
	free((void *)mem);
	ASSERT(FN(upmc_read_n)(set, b, 2) == 2);
	EXPECT_MSG(b[0] > a[0], "task-clock %llu then %llu", (unsigned long long)a[0],
	           (unsigned long long)b[0]);
	EXPECT_MSG(b[1] - a[1] >= pages, "%llu faults for %zu fresh pages",
	           (unsigned long long)(b[1] - a[1]), pages);
	EXPECT_EQ(FN(upmc_read_n)(set, v, 1), 1);
	EXPECT_EQ(FN(upmc_read_n)(set, v, 3), -EINVAL);
	EXPECT_EQ(FN(upmc_read_n)(set, v, 9), -EINVAL);
	EXPECT_EQ(FN(upmc_read_counter)(set, 1, &one), 0);
	EXPECT(one >= b[1]);
	EXPECT(FN(upmc_read_counter)(set, 2, &one) < 0);
	EXPECT_EQ(FN(upmc_read_times)(set, &enabled, &running), 0);
	EXPECT_MSG(enabled >= running && running > 0, "enabled %llu, running %llu",
	           (unsigned long long)enabled, (unsigned long long)running);
	FN(upmc_close)(set);
}
