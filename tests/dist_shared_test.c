/* SPDX-License-Identifier: MIT */
/*
 * The shared libraries: what they export (the headers' functions and
 * nothing else), and libupmc-ffi.so as another language uses it: dlopen,
 * then the functions through dlsym, the inline ones included. The test
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

#define LIBUPMC "./libupmc.so"
#define FFI     "./libupmc-ffi.so"

/* The function name of the library at path (loaded once, kept loaded). */
static void *sym(const char *path, const char *name)
{
	static void *libupmc, *ffi;
	void **lib = strcmp(path, FFI) ? &libupmc : &ffi;

	if (!*lib)
		*lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	return *lib ? dlsym(*lib, name) : NULL;
}

/* libupmc-ffi.so's function of that name, with the header's type. */
#define FN(name) ((__typeof__(&name))sym(FFI, #name))

/* Inline helpers that are not API: the functions that use them are
 * exported. A name that ends in '_' is a helper of a header's macros. */
static int helper(const char *name)
{
	return !strncmp(name, "upmc_arch_", 10) || !strcmp(name, "upmc_read_first") ||
	       !strcmp(name, "upmc_locks_moved") || !strcmp(name, "upmc_mul_shift") ||
	       !strcmp(name, "upmc_store_value") || !strcmp(name, "upmc_read_n_handover") ||
	       !strcmp(name, "upmc_read_n_by_set") || !strcmp(name, "upmc_read_n_unusual") ||
	       !strcmp(name, "upmc_read_usual") || !strcmp(name, "upmc_usual_index") ||
	       !strcmp(name, "upmc_read_counter_handover") || name[strlen(name) - 1] == '_';
}

/* The function a header line declares or defines, if it does: "UPMC_API
 * ... name(" (1) or "static ...inline... name(" (2); or the variable
 * "UPMC_API extern ... name;" declares (3). */
static int function_name(const char *line, char *name, size_t size)
{
	const char *paren = strchr(line, '('), *start;
	int kind;

	if (!strncmp(line, "UPMC_API extern ", 16)) {
		kind = 3;
		paren = strchr(line, ';');
	} else if (!strncmp(line, "UPMC_API ", 9))
		kind = 1;
	else if (!strncmp(line, "static ", 7) && strcasestr(line, "inline"))
		kind = 2;
	else
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
	return kind;
}

#define MAX_NAMES 256

/* Functions of the public headers: api[] marked UPMC_API, inl[] inline;
 * data[]: the variables they declare UPMC_API extern. */
struct names {
	char api[MAX_NAMES][64], inl[MAX_NAMES][64], data[MAX_NAMES][64];
	int n_api, n_inl, n_data;
};

static int listed(char (*list)[64], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

static void scan_dir(const char *dir, struct names *names)
{
	char path[512], line[512], name[64];
	struct dirent *e;
	int kind;
	DIR *d = opendir(dir);
	FILE *f;

	if (!d)
		return; /* the arch directories are there only where //lib:headers has them */
	while ((e = readdir(d))) {
		if (!strstr(e->d_name, ".h"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		if (!EXPECT_MSG(f, "%s: %s", path, strerror(errno)))
			continue;
		while (fgets(line, sizeof(line), f)) {
			kind = function_name(line, name, sizeof(name));
			EXPECT_MSG(kind >= 0, "%s: cannot find the name in '%s'", path, line);
			/* one export, though two headers declare it (zone.h for
			 * compilers that cannot include upmc.h) */
			if (kind == 1 && listed(names->api, names->n_api, name))
				continue;
			if (kind == 1 && names->n_api < MAX_NAMES)
				strcpy(names->api[names->n_api++], name);
			else if (kind == 2 && !helper(name) && names->n_inl < MAX_NAMES)
				strcpy(names->inl[names->n_inl++], name);
			else if (kind == 3 && names->n_data < MAX_NAMES)
				strcpy(names->data[names->n_data++], name);
		}
		fclose(f);
	}
	closedir(d);
}

static void scan_headers(struct names *names)
{
	static const char *const dirs[] = {"lib/include/upmc", "arch/x86/upmc", "arch/arm64/upmc",
	                                   "arch/generic/upmc"};
	unsigned i;

	memset(names, 0, sizeof(*names));
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		scan_dir(dirs[i], names);
}

/* Compares what a shared library exports with the headers' functions:
 * exactly the UPMC_API ones, and the inline ones when with_inline. */
static void check_exports(const char *lib, int with_inline)
{
	struct names *names = malloc(sizeof(*names));
	char cmd[256], line[512], type, name[128];
	int exported = 0, i;
	FILE *p;

	ASSERT(names);
	scan_headers(names);
	EXPECT_MSG(names->n_api >= 30 && names->n_inl >= 9, "%d API and %d inline functions found",
	           names->n_api, names->n_inl);
	snprintf(cmd, sizeof(cmd), "nm -D --defined-only %s 2>&1", lib);
	p = popen(cmd, "r");
	ASSERT(p);
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, "%*s %c %127s", &type, name) != 2)
			continue;
		/* A local symbol is no export: gold lists the library's own
		 * initial-exec TLS variable (zones' thread pointer) so. */
		if (islower((unsigned char)type))
			continue;
		exported++;
		if (listed(names->data, names->n_data, name)) {
			EXPECT_MSG(type == 'B' || type == 'D', "%s exports %s of type %c", lib,
			           name, type);
			continue;
		}
		EXPECT_MSG(type == 'T', "%s exports %s of type %c", lib, name, type);
		EXPECT_MSG(listed(names->api, names->n_api, name) ||
		                   (with_inline && listed(names->inl, names->n_inl, name)),
		           "%s exports %s, which no public header declares", lib, name);
	}
	EXPECT_EQ(pclose(p), 0);
	for (i = 0; i < names->n_api; i++)
		EXPECT_MSG(sym(lib, names->api[i]), "%s does not export %s", lib, names->api[i]);
	for (i = 0; i < names->n_inl; i++)
		EXPECT_MSG(!with_inline == !sym(lib, names->inl[i]), "%s %s %s", lib,
		           with_inline ? "does not export" : "exports", names->inl[i]);
	for (i = 0; i < names->n_data; i++)
		EXPECT_MSG(sym(lib, names->data[i]), "%s does not export %s", lib, names->data[i]);
	EXPECT_EQ(exported, names->n_api + names->n_data + (with_inline ? names->n_inl : 0));
	free(names);
}

TEST(shared, libupmc_exports_the_api_functions_only)
{
	check_exports(LIBUPMC, 0);
}

TEST(shared, ffi_exports_the_inline_functions_too)
{
	check_exports(FFI, 1);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

TEST(shared, ffi_timer_set_timestamps_and_conversion)
{
	const struct timespec pause = {0, 10000000};
	struct upmc_set *set = NULL;
	uint64_t t0, t1, t2, t3, wall0, wall, ns, none[1];

	ASSERT_MSG(sym(FFI, "upmc_open_timer"), "dlopen: %s", dlerror());
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

TEST(shared, ffi_software_counters_through_every_read)
{
	const size_t pages = 64, page = 4096;
	struct upmc_set *set = NULL;
	uint64_t a[2], b[2], v[9], one, enabled = 0, running = 0;
	volatile char *mem;
	size_t i;

	ASSERT_MSG(sym(FFI, "upmc_open"), "dlopen: %s", dlerror());
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
