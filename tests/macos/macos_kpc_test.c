/* SPDX-License-Identifier: MIT */
/*
 * The macOS kpc backend's logic, through the public API, against a fake
 * kperf/kperfdata (fake_kpc.c) that records every call: root and not,
 * databases of several CPU families, a missing framework, every kpep and
 * kpc call failing. What this cannot show: that Apple's frameworks behave
 * as the fake does (docs/macos.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "lib/core/internal.h"
#include "tests/macos/fake_kpc.h"
#include "tests/upmc_test.h"

static const struct upmc_options time_only = {sizeof(struct upmc_options), UPMC_OPT_TIME_ONLY};

static void use_db(const struct fake_db_event *db, size_t size, const char *name)
{
	fake.db = db;
	fake.db_size = size;
	fake.db_name = name;
}

/* Nothing left behind: kperfdata objects freed, kpc stopped, force restored. */
static void expect_clean(int force_before)
{
	EXPECT_EQ(fake.dbs, 0);
	EXPECT_EQ(fake.cfgs, 0);
	EXPECT_EQ(fake.counting, 0);
	EXPECT_EQ(fake.thread_counting, 0);
	EXPECT_EQ(fake.force, force_before);
}

/* Opens spec, reads twice, checks that counter i advanced by fake.step of its kpc slot. */
static void expect_counts(const char *spec, const unsigned *slot, unsigned n)
{
	struct upmc_set *set;
	uint64_t a[UPMC_MAX_COUNTERS], b[UPMC_MAX_COUNTERS];
	unsigned i;

	ASSERT_MSG(upmc_open(&set, spec, NULL) == 0, "%s", upmc_last_error());
	EXPECT_EQ(upmc_count(set), n);
	EXPECT_EQ(set->user_n, 0);
	EXPECT_EQ(upmc_read(set, a), (int)n);
	EXPECT_EQ(upmc_read(set, b), (int)n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(upmc_counter_path(set, i), UPMC_PATH_SYSCALL);
		EXPECT_CONTAINS(upmc_counter_reason(set, i), "kpc_get_thread_counters");
		EXPECT_EQ_U64(b[i] - a[i], fake.step[slot[i]]);
	}
	EXPECT_CONTAINS(upmc_summary(set), "by syscall");
	upmc_close(set);
	expect_clean(0);
}

TEST(kpc, apple_m1_generic_events)
{
	static const unsigned slot[] = {0, 1, 2, 3};

	fake_reset();
	expect_counts("cycles,instructions,branches,branch-misses", slot, 4);
	EXPECT_CONTAINS(fake.log, "db_event(FIXED_CYCLES)");
	EXPECT_CONTAINS(fake.log, "db_event(BRANCH_MISPRED_NONSPEC)");
}

TEST(kpc, counters_read_from_open)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_reset();
	fake.counter[0] = 1000000; /* counts from before the set opened */
	ASSERT(upmc_open(&set, "cycles,branches", NULL) == 0);
	EXPECT_EQ(upmc_read(set, v), 2);
	/* open read once, this read once more */
	EXPECT_EQ_U64(v[0], fake.step[0]);
	EXPECT_EQ_U64(v[1], fake.step[2]);
	upmc_close(set);
}

TEST(kpc, apple_old_database_names)
{
	static const unsigned slot[] = {2, 3}; /* configurable slots in the order added */

	fake_reset();
	use_db(fake_db_a11, fake_db_a11_size, "a11");
	expect_counts("branch-misses,branches", slot, 2);
	EXPECT_CONTAINS(fake.log, "db_event(BRANCH_MISPREDICT)");
}

/* M4 selectors differ from M1's; recent macOS checks them and applies the
 * configuration only when counting starts. */
TEST(kpc, apple_m4_validating_kernel)
{
	static const unsigned slot[] = {0, 2, 3};

	fake_reset();
	use_db(fake_db_m4, fake_db_m4_size, "as4");
	fake.validate = 1;
	fake.apply_at_start = 1;
	expect_counts("cycles,branches,branch-misses", slot, 3);
	EXPECT_EQ_U64(fake.pending[0], 0x9d); /* INST_BRANCH from the M4 database */
	EXPECT_EQ_U64(fake.pending[1], 0xdb);
	EXPECT_CONTAINS(fake.log, "set_counting(0);set_config(3);set_counting(3)");
}

TEST(kpc, config_applied_at_start_counts)
{
	struct upmc_set *set;
	uint64_t a[1], b[1];

	fake_reset();
	fake.apply_at_start = 1;
	ASSERT(upmc_open(&set, "branches", NULL) == 0);
	EXPECT_EQ_U64(fake.applied[0], 0x8d);
	upmc_read(set, a);
	upmc_read(set, b);
	EXPECT_EQ_U64(b[0] - a[0], fake.step[2]);
	upmc_close(set);
}

TEST(kpc, apple_cache_events)
{
	static const unsigned slot[] = {2, 3, 4};

	fake_reset();
	expect_counts("L1-dcache-load-misses,L1-icache-load-misses,dTLB-load-misses", slot, 3);
	EXPECT_CONTAINS(fake.log, "db_event(L1D_CACHE_MISS_LD)");
	EXPECT_CONTAINS(fake.log, "db_event(L1I_CACHE_MISS_DEMAND)");
}

TEST(kpc, intel_skylake)
{
	static const unsigned slot[] = {1, 0, 3, 4, 5, 2};

	fake_reset();
	use_db(fake_db_skylake, fake_db_skylake_size, "skylake");
	fake.fixed_count = 3;
	fake.configurable = 4;
	expect_counts("cycles,instructions,branches,branch-misses,cache-misses,ref-cycles", slot,
	              6);
	EXPECT_CONTAINS(fake.log, "db_event(CPU_CLK_UNHALTED.THREAD)");
	EXPECT_CONTAINS(fake.log, "db_event(LONGEST_LAT_CACHE.MISS)");
}

TEST(kpc, intel_core2)
{
	static const unsigned slot[] = {1, 0, 3, 4};

	fake_reset();
	use_db(fake_db_merom, fake_db_merom_size, "merom");
	fake.fixed_count = 3;
	fake.configurable = 2;
	expect_counts("cycles,instructions,branches,branch-misses", slot, 4);
	EXPECT_CONTAINS(fake.log, "db_event(BR_INST_RETIRED.MISPRED)");
	EXPECT(!strstr(fake.log, "FIXED_CYCLES")); /* only its own family's names */
}

TEST(kpc, family_of_database_names)
{
	EXPECT_EQ(upmc_kpc_family_of("a14"), UPMC_KPC_FAMILY_APPLE);
	EXPECT_EQ(upmc_kpc_family_of("as4"), UPMC_KPC_FAMILY_APPLE);
	EXPECT_EQ(upmc_kpc_family_of("A7"), UPMC_KPC_FAMILY_APPLE);
	EXPECT_EQ(upmc_kpc_family_of("haswell"), UPMC_KPC_FAMILY_INTEL);
	EXPECT_EQ(upmc_kpc_family_of("icelake_server"), UPMC_KPC_FAMILY_INTEL);
	EXPECT_EQ(upmc_kpc_family_of("penryn"), UPMC_KPC_FAMILY_INTEL_CORE2);
	EXPECT_EQ(upmc_kpc_family_of("zen9"), UPMC_KPC_FAMILY_UNKNOWN);
	EXPECT_EQ(upmc_kpc_family_of(NULL), UPMC_KPC_FAMILY_UNKNOWN);
}

/* An unknown or unnamed database: every family's names are tried. */
TEST(kpc, unknown_family_tries_all_names)
{
	static const unsigned slot[] = {1, 3};

	fake_reset();
	use_db(fake_db_skylake, fake_db_skylake_size, NULL); /* kpep_db_name fails */
	fake.fixed_count = 3;
	fake.configurable = 4;
	expect_counts("cycles,branch-misses", slot, 2);
	EXPECT_CONTAINS(fake.log, "db_event(FIXED_CYCLES)");
	EXPECT_CONTAINS(fake.log, "db_event(CPU_CLK_UNHALTED.THREAD)");
}

TEST(kpc, event_missing_from_database)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_reset();
	EXPECT_EQ(upmc_open(&set, "cycles,cache-misses", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "'cache-misses' has no event");
	EXPECT_CONTAINS(upmc_last_error(), "'a14'");
	expect_clean(0);
	ASSERT(upmc_open(&set, "cycles,cache-misses", &time_only) == 0);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_UNAVAILABLE);
	EXPECT_EQ(upmc_read(set, v), 2);
	EXPECT(v[0] != UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(v[1], UPMC_NOT_COUNTED);
	EXPECT_CONTAINS(upmc_summary(set), "1 unavailable");
	upmc_close(set);
	expect_clean(0);
}

TEST(kpc, software_and_kernel_only_events)
{
	struct upmc_set *set;

	fake_reset();
	EXPECT_EQ(upmc_open(&set, "task-clock", NULL), -EOPNOTSUPP);
	EXPECT_CONTAINS(upmc_last_error(), "software event");
	EXPECT_EQ(upmc_open(&set, "cycles:k", NULL), -EOPNOTSUPP);
	EXPECT_CONTAINS(upmc_last_error(), "':k'");
	ASSERT(upmc_open(&set, "task-clock,cycles:u", &time_only) == 0);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	upmc_close(set);
	expect_clean(0);
}

TEST(kpc, not_root)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_reset();
	fake.root = 0;
	EXPECT_EQ(upmc_open(&set, "cycles,instructions", NULL), -EACCES);
	EXPECT_CONTAINS(upmc_last_error(), "needs root");
	EXPECT_CONTAINS(upmc_last_error(), "sudo");
	EXPECT_EQ(set == NULL, 1);
	EXPECT(!strstr(fake.log, "set_")); /* nothing configured */
	ASSERT(upmc_open(&set, "cycles,instructions", &time_only) == 0);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(upmc_counter_reason(set, 1), "sudo");
	EXPECT_CONTAINS(upmc_summary(set), "time only: macOS kpc needs root");
	EXPECT_EQ(upmc_read(set, v), 2);
	EXPECT_EQ_U64(v[0], UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(v[1], UPMC_NOT_COUNTED);
	EXPECT(upmc_ticks_to_ns(set, upmc_timestamp()) > 0);
	upmc_close(set);
	expect_clean(0);
}

/* Root, but kpc still refuses (a sandbox, or the kernel's own check). */
TEST(kpc, root_but_kpc_refuses)
{
	struct upmc_set *set;

	fake_reset();
	fake.fail[F_FORCE_GET] = EPERM;
	EXPECT_EQ(upmc_open(&set, "cycles", NULL), -EACCES);
	EXPECT_CONTAINS(upmc_last_error(), "kpc_force_all_ctrs_get");
	expect_clean(0);
}

TEST(kpc, missing_framework)
{
	struct upmc_kpc_api api;
	struct upmc_set *set;
	char why[320];

	fake_reset();
	memset(&api, 0, sizeof(api));
	EXPECT_EQ(upmc_kpc_load(&api, "/nonexistent/kperf.framework/kperf", "/nonexistent/kd", why,
	                        sizeof(why)),
	          -ENOSYS);
	EXPECT_CONTAINS(why, "/nonexistent/kperf.framework/kperf could not be loaded");
	fake.missing = 1;
	upmc_format(fake.missing_why, sizeof(fake.missing_why), "%s", why);
	EXPECT_EQ(upmc_open(&set, "cycles", NULL), -ENOSYS);
	EXPECT_CONTAINS(upmc_last_error(), "could not be loaded");
	ASSERT(upmc_open(&set, "cycles", &time_only) == 0);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "kperf");
	upmc_close(set);
	EXPECT_EQ(fake.log[0], '\0'); /* not one call into the absent frameworks */
}

/* A library that loads but is not kperf: the first missing symbol is named. */
TEST(kpc, framework_without_symbols)
{
	struct upmc_kpc_api api;
	char why[320];

	memset(&api, 0, sizeof(api));
	EXPECT_EQ(upmc_kpc_load(&api, "libc.so.6", "libc.so.6", why, sizeof(why)), -ENOENT);
	EXPECT_CONTAINS(why, "has no symbol kpc_force_all_ctrs_get");
	EXPECT(api.kpc_force_all_ctrs_get == NULL);
}

struct failure {
	enum fake_fn fn;
	int code;
	int err;
	const char *says;
};

static const struct failure kpep_failures[] = {
        {F_DB_CREATE, UPMC_KPEP_DB_NOT_FOUND, -ENODEV, "no PMC database"},
        {F_CONFIG_CREATE, UPMC_KPEP_OUT_OF_MEMORY, -ENOMEM, "kpep_config_create"},
        {F_FORCE_COUNTERS, UPMC_KPEP_COUNTERS_NOT_FORCED, -EBUSY, "force_counters"},
        {F_ADD_EVENT, UPMC_KPEP_EVENT_UNAVAILABLE, -ENOENT, "could not be added"},
        {F_KPC_CLASSES, UPMC_KPEP_INVALID_ARGUMENT, -EINVAL, "could not build"},
        {F_KPC_COUNT, UPMC_KPEP_DB_CORRUPT, -EIO, "database is corrupt"},
        {F_KPC_MAP, UPMC_KPEP_BUFFER_TOO_SMALL, -EINVAL, "buffer is too small"},
        {F_KPC, UPMC_KPEP_ERRNO, -EIO, "system call failed"},
};

static const struct failure kpc_failures[] = {
        {F_FORCE_SET, EPERM, -EPERM, "kpc_force_all_ctrs_set(1) failed"},
        {F_SET_CONFIG, EINVAL, -EINVAL, "rejected the counter configuration"},
        {F_SET_COUNTING, EBUSY, -EBUSY, "kpc_set_counting(0) failed"},
        {F_SET_THREAD_COUNTING, EPERM, -EPERM, "kpc_set_thread_counting failed"},
        {F_GET_THREAD_COUNTERS, EIO, -EIO, "kpc_get_thread_counters failed"},
};

/* Each failing call: an error that names it, or with UPMC_OPT_TIME_ONLY
 * every counter unavailable with that reason; nothing left behind. */
static void expect_failure(const struct failure *f)
{
	struct upmc_set *set = NULL;

	fake_reset();
	fake.force = 1; /* another client's setting, to be restored */
	fake.fail[f->fn] = f->code;
	EXPECT_EQ(upmc_open(&set, "cycles,branches", NULL), f->err);
	EXPECT_MSG(strstr(upmc_last_error(), f->says), "fn %d: '%s' lacks '%s'", f->fn,
	           upmc_last_error(), f->says);
	expect_clean(1);
	if (f->err == -ENOMEM)
		return; /* never a fallback */
	fake.log[0] = '\0';
	ASSERT_MSG(upmc_open(&set, "cycles,branches", &time_only) == 0, "fn %d: %s", f->fn,
	           upmc_last_error());
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_UNAVAILABLE);
	EXPECT_MSG(strstr(upmc_counter_reason(set, 1), f->says), "fn %d: '%s'", f->fn,
	           upmc_counter_reason(set, 1));
	upmc_close(set);
	expect_clean(1);
}

TEST(kpc, each_kpep_call_failing)
{
	size_t i;

	for (i = 0; i < sizeof(kpep_failures) / sizeof(kpep_failures[0]); i++)
		expect_failure(&kpep_failures[i]);
}

TEST(kpc, each_kpc_call_failing)
{
	size_t i;

	for (i = 0; i < sizeof(kpc_failures) / sizeof(kpc_failures[0]); i++)
		expect_failure(&kpc_failures[i]);
}

TEST(kpc, read_failing)
{
	struct upmc_set *set;
	uint64_t v[1];

	fake_reset();
	fake.fail[F_GET_THREAD_COUNTERS] = EFAULT;
	fake.fail_after = 1; /* the read at open works */
	ASSERT(upmc_open(&set, "cycles", NULL) == 0);
	EXPECT_EQ(upmc_read(set, v), -EFAULT);
	EXPECT_CONTAINS(upmc_last_error(), "kpc_get_thread_counters failed");
	upmc_close(set);
	expect_clean(0);
}

/* More configurable events than counters: kperfdata says they conflict. */
TEST(kpc, too_many_events)
{
	struct upmc_set *set;

	fake_reset();
	fake.configurable = 2;
	EXPECT_EQ(upmc_open(&set, "branches,branch-misses,L1-dcache-load-misses", NULL), -E2BIG);
	EXPECT_CONTAINS(upmc_last_error(), "not enough counters");
	expect_clean(0);
}

/* A map entry past kpc's counters would report another counter's value. */
TEST(kpc, bad_counter_map_refused)
{
	struct upmc_set *set;

	fake_reset();
	fake.map_offset = UPMC_KPC_MAX_COUNTERS;
	EXPECT_EQ(upmc_open(&set, "cycles", NULL), -EIO);
	EXPECT_CONTAINS(upmc_last_error(), "mapped event 0");
	expect_clean(0);
}

TEST(kpc, sets_share_one_configuration)
{
	struct upmc_set *a, *b, *c;

	fake_reset();
	ASSERT(upmc_open(&a, "cycles,branches", NULL) == 0);
	ASSERT(upmc_open(&b, "cycles,branches", NULL) == 0);
	EXPECT_EQ(upmc_open(&c, "branch-misses", NULL), -EBUSY);
	EXPECT_CONTAINS(upmc_last_error(), "machine-wide");
	upmc_close(a);
	EXPECT_EQ(fake.counting, UPMC_KPC_CLASS_FIXED | UPMC_KPC_CLASS_CONFIGURABLE);
	upmc_close(b);
	expect_clean(0);
	ASSERT(upmc_open(&c, "branch-misses", NULL) == 0);
	upmc_close(c);
	expect_clean(0);
}

static void *read_elsewhere(void *arg)
{
	uint64_t v[1];

	return (void *)(intptr_t)upmc_read(arg, v);
}

TEST(kpc, read_on_another_thread_refused)
{
	struct upmc_set *set;
	pthread_t t;
	void *ret;

	fake_reset();
	ASSERT(upmc_open(&set, "cycles", NULL) == 0);
	ASSERT(pthread_create(&t, NULL, read_elsewhere, set) == 0);
	pthread_join(t, &ret);
	EXPECT_EQ((intptr_t)ret, -EPERM);
	upmc_close(set);
}

TEST(kpc, times_never_multiplexed)
{
	struct upmc_set *set;
	uint64_t enabled = 0, running = 0;

	fake_reset();
	ASSERT(upmc_open(&set, "cycles", NULL) == 0);
	EXPECT_EQ(upmc_read_times(set, &enabled, &running), 0);
	EXPECT(enabled > 0);
	EXPECT_EQ_U64(running, enabled);
	EXPECT_EQ(upmc_clock_source(set), UPMC_CLOCK_CALIBRATED);
	upmc_close(set);
}
