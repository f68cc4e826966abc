/* SPDX-License-Identifier: MIT */
/*
 * The benchmark's cases: each runs one operation in a loop. The raw ones
 * are the bare instructions, written here, so that upmc's own are compared
 * with what the hardware costs and nothing else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#ifdef __linux__
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "bench/overhead.h"

/* Every result goes here, so that no loop is optimised away. */
static volatile uint64_t sink;

/* ---- the raw instructions ---- */

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_RAW 1
static inline __attribute__((always_inline)) uint64_t raw_tsc(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline __attribute__((always_inline)) uint64_t raw_tsc_serialized(void)
{
	uint32_t lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

static inline __attribute__((always_inline)) uint64_t raw_pmc(uint32_t page_index)
{
	uint32_t lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(page_index - 1));
	return (uint64_t)hi << 32 | lo;
}
#elif defined(__aarch64__)
#define HAVE_RAW 1
static inline __attribute__((always_inline)) uint64_t raw_tsc(void)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static inline __attribute__((always_inline)) uint64_t raw_tsc_serialized(void)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
	return v;
}

/* The counter number is part of the mrs instruction: the arch layer's
 * table of them is the raw read on arm64. */
static inline __attribute__((always_inline)) uint64_t raw_pmc(uint32_t page_index)
{
	return upmc_arch_read_counter(page_index);
}
#else
#define HAVE_RAW           0
static uint64_t raw_tsc(void)
{
	return 0;
}
#define raw_tsc_serialized raw_tsc
static uint64_t raw_pmc(uint32_t page_index)
{
	return page_index;
}
#endif

static int setup_raw(struct bench_case *c, char *why, size_t size)
{
	(void)c;
	if (HAVE_RAW)
		return 0;
	snprintf(why, size, "no raw timestamp instruction is written for %s", UPMC_ARCH_NAME);
	return -ENOTSUP;
}

static void run_raw_tsc(struct bench_case *c, uint64_t iters)
{
	uint64_t acc = 0, k;

	(void)c;
	for (k = 0; k < iters; k++) {
		uint64_t t0 = raw_tsc();
		acc += raw_tsc() - t0;
	}
	sink = acc;
}

static void run_raw_tsc_serialized(struct bench_case *c, uint64_t iters)
{
	uint64_t acc = 0, k;

	(void)c;
	for (k = 0; k < iters; k++) {
		uint64_t t0 = raw_tsc_serialized();
		acc += raw_tsc_serialized() - t0;
	}
	sink = acc;
}

/* ---- upmc's timestamps and the OS clock ---- */

static void run_timestamp(struct bench_case *c, uint64_t iters)
{
	uint64_t acc = 0, k;

	(void)c;
	for (k = 0; k < iters; k++) {
		uint64_t t0 = upmc_timestamp();
		acc += upmc_timestamp() - t0;
	}
	sink = acc;
}

static void run_timestamp_serialized(struct bench_case *c, uint64_t iters)
{
	uint64_t acc = 0, k;

	(void)c;
	for (k = 0; k < iters; k++) {
		uint64_t t0 = upmc_timestamp_serialized();
		acc += upmc_timestamp_serialized() - t0;
	}
	sink = acc;
}

static void run_clock_gettime(struct bench_case *c, uint64_t iters)
{
	struct timespec a, b;
	uint64_t acc = 0, k;

	(void)c;
	for (k = 0; k < iters; k++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_MONOTONIC, &b);
		acc += (uint64_t)(b.tv_nsec - a.tv_nsec);
	}
	sink = acc;
}

/* ---- sets and regions ---- */

static void close_set(struct bench_case *c)
{
	upmc_region_close(c->region);
	upmc_close(c->set);
	c->region = NULL;
	c->set = NULL;
}

static int failed(struct bench_case *c, int err, char *why, size_t size)
{
	snprintf(why, size, "%s", upmc_last_error());
	close_set(c);
	return err;
}

static int setup_timer_region(struct bench_case *c, char *why, size_t size)
{
	int err = upmc_open_timer(&c->set);

	if (err < 0)
		return failed(c, err, why, size);
	err = upmc_region_open(&c->region, c->set, c->name);
	return err < 0 ? failed(c, err, why, size) : 0;
}

/* read(2) on purpose: the fallback whose cost the user-space path avoids. */
static int setup_syscall_read(struct bench_case *c, char *why, size_t size)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_FORCE_SYSCALL};
	int err = upmc_open(&c->set, c->spec, &opts);

	return err < 0 ? failed(c, err, why, size) : 0;
}

/* Hardware cases: every counter read in user space, or the case is skipped. */
static int setup_user_set(struct bench_case *c, char *why, size_t size)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_REQUIRE_USER_READ};
	int err = upmc_open(&c->set, c->spec, &opts);

	if (err < 0)
		return failed(c, err, why, size);
	c->index = c->set->page[0]->index; /* for the raw rdpmc only */
	return 0;
}

static int setup_user_region(struct bench_case *c, char *why, size_t size)
{
	int err = setup_user_set(c, why, size);

	if (err < 0)
		return err;
	err = upmc_region_open(&c->region, c->set, c->name);
	return err < 0 ? failed(c, err, why, size) : 0;
}

static void run_region(struct bench_case *c, uint64_t iters)
{
	uint64_t k;

	for (k = 0; k < iters; k++) {
		upmc_region_begin(c->region);
		upmc_region_end(c->region);
	}
}

static void run_read(struct bench_case *c, uint64_t iters)
{
	uint64_t v[UPMC_MAX_COUNTERS], acc = 0, k;

	for (k = 0; k < iters; k++) {
		upmc_read(c->set, v);
		acc += v[0];
	}
	sink = acc;
}

static void run_raw_pmc(struct bench_case *c, uint64_t iters)
{
	const uint32_t index = c->index;
	uint64_t acc = 0, k;

	for (k = 0; k < iters; k++)
		acc += raw_pmc(index);
	sink = acc;
}

static void run_read_counter(struct bench_case *c, uint64_t iters)
{
	uint64_t v = 0, acc = 0, k;

	for (k = 0; k < iters; k++) {
		upmc_read_counter(c->set, 0, &v);
		acc += v;
	}
	sink = acc;
}

/* upmc_read_n needs its n as a constant to unroll: one function each. */
#define RUN_READ_N(n)                                                  \
	static void run_read_##n(struct bench_case *c, uint64_t iters) \
	{                                                              \
		uint64_t v[UPMC_MAX_COUNTERS], acc = 0, k;             \
		for (k = 0; k < iters; k++) {                          \
			upmc_read_n(c->set, v, n);                     \
			acc += v[0];                                   \
		}                                                      \
		sink = acc;                                            \
	}
RUN_READ_N(2)
RUN_READ_N(4)
RUN_READ_N(7)

/* ---- opening a set ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#ifdef __linux__
/* A software event as upmc's set opens it: the leader disabled and
 * pinned, the group read with its times; or the dummy event whose page
 * gives the kernel's clock factors. */
static int raw_event(uint64_t config, int leader, int dummy)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	if (!dummy)
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		                PERF_FORMAT_GROUP;
	a.disabled = a.pinned = leader < 0 && !dummy;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
}

/*
 * The system calls of upmc_open() and upmc_close() of SPEC_OPEN, as strace
 * shows them, made directly: each event opened (the group's leader first)
 * and asked its id (for fork()), the group enabled and read once (is the
 * pinned group on?), the dummy event's page mapped for the clock (a set of
 * software events maps none of its own), then every event closed. 0, or
 * -errno.
 */
static int raw_open_close(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t id, buf[16];
	int fd[2], dummy, err = 0;
	void *map;

	fd[0] = raw_event(PERF_COUNT_SW_TASK_CLOCK, -1, 0);
	if (fd[0] < 0)
		return -errno;
	fd[1] = raw_event(PERF_COUNT_SW_PAGE_FAULTS, fd[0], 0);
	if (fd[1] < 0 || ioctl(fd[0], PERF_EVENT_IOC_ID, &id) < 0 ||
	    ioctl(fd[1], PERF_EVENT_IOC_ID, &id) < 0 ||
	    ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0) < 0 || read(fd[0], buf, sizeof(buf)) <= 0)
		err = -errno;
	dummy = raw_event(PERF_COUNT_SW_DUMMY, -1, 1);
	map = dummy < 0 ? MAP_FAILED : mmap(NULL, page, PROT_READ, MAP_SHARED, dummy, 0);
	if (map == MAP_FAILED)
		err = err ? err : -errno;
	else
		munmap(map, page);
	if (dummy >= 0)
		close(dummy);
	if (fd[1] >= 0)
		close(fd[1]);
	close(fd[0]);
	return err;
}
#else
static int raw_open_close(void)
{
	return -ENOSYS;
}
#endif

static int setup_raw_open(struct bench_case *c, char *why, size_t size)
{
	int err = raw_open_close();

	(void)c;
	if (err < 0)
		snprintf(why, size, "perf_event_open of %s failed: %s", SPEC_OPEN, strerror(-err));
	return err;
}

static void run_raw_open(struct bench_case *c, uint64_t iters)
{
	uint64_t k;

	(void)c;
	for (k = 0; k < iters; k++)
		raw_open_close();
}

static int setup_open(struct bench_case *c, char *why, size_t size)
{
	struct upmc_set *set;
	int err = upmc_open(&set, c->spec, NULL);

	if (err < 0) {
		snprintf(why, size, "%s", upmc_last_error());
		return err;
	}
	upmc_close(set);
	return 0;
}

static void run_open_close(struct bench_case *c, uint64_t iters)
{
	struct upmc_set *set;
	uint64_t k;

	for (k = 0; k < iters; k++)
		if (upmc_open(&set, c->spec, NULL) == 0)
			upmc_close(set);
}

/* upmc_open() alone timed, each set closed outside the time. */
static uint64_t timed_open(struct bench_case *c, uint64_t iters)
{
	struct upmc_set *set;
	uint64_t k, t0, ns = 0;

	for (k = 0; k < iters; k++) {
		t0 = mono_ns();
		if (upmc_open(&set, c->spec, NULL) < 0)
			continue;
		ns += mono_ns() - t0;
		upmc_close(set);
	}
	return ns;
}

static void run_open(struct bench_case *c, uint64_t iters)
{
	timed_open(c, iters);
}

/* ---- zones ---- */

static const struct upmc_zone_loc bench_zone = {"bench", "run_zone", __FILE__, __LINE__};

static void close_zones(struct bench_case *c)
{
	upmc_profile_close(c->profile);
	c->profile = NULL;
	close_set(c);
}

/*
 * A profile for each batch (one is open at a time), so that every batch
 * starts with an empty buffer and none of its zones is dropped. Counter 0
 * of c->set counts the instructions where the machine allows it.
 */
static int setup_zones(struct bench_case *c, char *why, size_t size)
{
	struct upmc_profile_options zone_opts = {sizeof(zone_opts), UPMC_OPT_REQUIRE_USER_READ, 0,
	                                         0, 0};
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_REQUIRE_USER_READ};
	int err = upmc_profile_open(&c->profile, c->spec, &zone_opts);

	if (err < 0) {
		snprintf(why, size, "%s", upmc_last_error());
		return err;
	}
	if (upmc_open(&c->set, "instructions", &opts) < 0)
		c->set = NULL; /* no instruction count, the times still */
	return 0;
}

/* Aligned: the idle case's loop is two loads and branches, whose time
 * doubled (0.4 to 0.8 ns) when a change elsewhere in the program moved it
 * across a 32-byte boundary, the same instructions. */
__attribute__((aligned(64))) static void run_zone(struct bench_case *c, uint64_t iters)
{
	uint64_t k;

	(void)c;
	for (k = 0; k < iters; k++) {
		upmc_zone_begin(&bench_zone);
		upmc_zone_end();
	}
}

/* ---- a thread's first zone: the thread joins the profile, its set opens ---- */

static const struct upmc_zone_loc first_zone_loc = {"first zone", "first_zone", __FILE__, __LINE__};

static int setup_first_zone(struct bench_case *c, char *why, size_t size)
{
	int err = setup_open(c, why, size); /* the threads' sets would open */

	if (err == 0)
		err = upmc_profile_open(&c->profile, c->spec, NULL);
	if (err < 0)
		snprintf(why, size, "%s", upmc_last_error());
	return err;
}

static void close_first_zone(struct bench_case *c)
{
	upmc_profile_close(c->profile);
	c->profile = NULL;
}

static void *first_zone(void *arg)
{
	uint64_t t0 = mono_ns();

	upmc_zone_begin(&first_zone_loc);
	upmc_zone_end();
	*(uint64_t *)arg = mono_ns() - t0;
	return NULL;
}

/* A new thread for each: its first zone timed, its start and exit not. */
static uint64_t timed_first_zones(struct bench_case *c, uint64_t iters)
{
	uint64_t k, ns = 0, one;
	pthread_t th;

	(void)c;
	for (k = 0; k < iters; k++) {
		one = 0;
		if (pthread_create(&th, NULL, first_zone, &one) != 0)
			break;
		pthread_join(th, NULL);
		ns += one;
	}
	return ns;
}

static void run_first_zones(struct bench_case *c, uint64_t iters)
{
	timed_first_zones(c, iters);
}

/* ---- collecting zones: threads record, one collect takes their zones ---- */

struct bench_workers {
	pthread_t thread[8];
	unsigned n, done;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t round, zones_each;
	int quit;
};

static void *record_zones(void *arg)
{
	struct bench_workers *w = arg;
	uint64_t seen = 0, k, zones;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->round == seen && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (w->quit)
			break;
		seen = w->round;
		zones = w->zones_each;
		pthread_mutex_unlock(&w->lock);
		for (k = 0; k < zones; k++) {
			upmc_zone_begin(&bench_zone);
			upmc_zone_end();
		}
		pthread_mutex_lock(&w->lock);
		w->done++;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void stop_workers(struct bench_workers *w)
{
	unsigned i;

	pthread_mutex_lock(&w->lock);
	w->quit = 1;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->n; i++)
		pthread_join(w->thread[i], NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

static void close_collect(struct bench_case *c)
{
	if (c->workers)
		stop_workers(c->workers);
	c->workers = NULL;
	upmc_profile_close(c->profile);
	c->profile = NULL;
}

/* A time-only profile and c->threads threads waiting to record into it. */
static int setup_collect(struct bench_case *c, char *why, size_t size)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 256 << 10, 0};
	struct bench_workers *w = calloc(1, sizeof(*w));
	int err = w ? upmc_profile_open(&c->profile, NULL, &o) : -ENOMEM;

	if (err < 0) {
		snprintf(why, size, "%s", w ? upmc_last_error() : "out of memory");
		free(w);
		return err;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	for (w->n = 0; w->n < c->threads; w->n++)
		if (pthread_create(&w->thread[w->n], NULL, record_zones, w) != 0)
			break;
	c->workers = w;
	if (w->n < c->threads) {
		snprintf(why, size, "cannot start %u threads", c->threads);
		close_collect(c);
		return -EAGAIN;
	}
	return 0;
}

/* The threads record iters zones in all; the collect of them is timed,
 * then they are forgotten. */
static uint64_t timed_collect(struct bench_case *c, uint64_t iters)
{
	struct bench_workers *w = c->workers;
	struct timespec a, b;

	pthread_mutex_lock(&w->lock);
	w->zones_each = iters / w->n;
	w->done = 0;
	w->round++;
	pthread_cond_broadcast(&w->cond);
	while (w->done < w->n)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	upmc_profile_collect(c->profile);
	clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	upmc_profile_clear(c->profile);
	return (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)(b.tv_nsec - a.tv_nsec);
}

static void run_collect(struct bench_case *c, uint64_t iters)
{
	timed_collect(c, iters);
}

/* ---- the table ---- */

static const struct bench_ops raw_tsc_ops = {setup_raw, NULL, run_raw_tsc, NULL};
static const struct bench_ops raw_tsc_ser_ops = {setup_raw, NULL, run_raw_tsc_serialized, NULL};
static const struct bench_ops ts_ops = {NULL, NULL, run_timestamp, NULL};
static const struct bench_ops ts_ser_ops = {NULL, NULL, run_timestamp_serialized, NULL};
static const struct bench_ops region_time_ops = {setup_timer_region, close_set, run_region, NULL};
static const struct bench_ops clock_ops = {NULL, NULL, run_clock_gettime, NULL};
static const struct bench_ops syscall_ops = {setup_syscall_read, close_set, run_read, NULL};
static const struct bench_ops raw_pmc_ops = {setup_user_set, close_set, run_raw_pmc, NULL};
static const struct bench_ops read_one_ops = {setup_user_set, close_set, run_read_counter, NULL};
static const struct bench_ops read_2_ops = {setup_user_set, close_set, run_read_2, NULL};
static const struct bench_ops read_4_ops = {setup_user_set, close_set, run_read_4, NULL};
static const struct bench_ops read_7_ops = {setup_user_set, close_set, run_read_7, NULL};
static const struct bench_ops region_4_ops = {setup_user_region, close_set, run_region, NULL};
static const struct bench_ops zone_ops = {setup_zones, close_zones, run_zone, NULL};
static const struct bench_ops zone_idle_ops = {NULL, NULL, run_zone, NULL};
static const struct bench_ops raw_open_ops = {setup_raw_open, NULL, run_raw_open, NULL};
static const struct bench_ops open_close_ops = {setup_open, NULL, run_open_close, NULL};
static const struct bench_ops open_ops = {setup_open, NULL, run_open, timed_open};
static const struct bench_ops first_zone_ops = {setup_first_zone, close_first_zone, run_first_zones,
                                                timed_first_zones};
static const struct bench_ops collect_ops = {setup_collect, close_collect, run_collect,
                                             timed_collect};

/* A read costs the same whatever the events: instructions (counter 0, so
 * that every hardware case also counts its own instructions) and cycles,
 * repeated, fit on any PMU with enough counters; branch or cache events
 * are missing on some (QEMU's arm64 PMU has neither). */
#define SPEC_2 "instructions,cycles"
#define SPEC_4 SPEC_2 ",instructions,instructions"
#define SPEC_7 SPEC_4 ",instructions,instructions,instructions"

#define CASE(n, b, o, s, hw)                                                  \
	{                                                                     \
		.name = n, .baseline = b, .ops = o, .spec = s, .hardware = hw \
	}
/* A case whose operation takes 10 us or more (system calls, a thread). */
#define SLOW_CASE(n, b, o, s, hw)                                                        \
	{                                                                                \
		.name = n, .baseline = b, .ops = o, .spec = s, .hardware = hw, .slow = 1 \
	}
#define COLLECT(n, threads_)                                                                \
	{                                                                                   \
		.name = n, .baseline = BENCH_ZONE_TIME, .ops = &collect_ops, .hardware = 1, \
		.threads = threads_                                                         \
	}

static struct bench_case table[] = {
        CASE(BENCH_RAW_TSC, NULL, &raw_tsc_ops, NULL, 0),
        CASE(BENCH_RAW_TSC_SER, NULL, &raw_tsc_ser_ops, NULL, 0),
        CASE(BENCH_TS, BENCH_RAW_TSC, &ts_ops, NULL, 0),
        CASE(BENCH_TS_SER, BENCH_RAW_TSC_SER, &ts_ser_ops, NULL, 0),
        CASE(BENCH_REGION_TIME, BENCH_RAW_TSC_SER, &region_time_ops, NULL, 0),
        CASE(BENCH_CLOCK, BENCH_RAW_TSC, &clock_ops, NULL, 0),
        CASE(BENCH_SYSCALL_READ, BENCH_RAW_PMC, &syscall_ops, "task-clock", 0),
        CASE(BENCH_RAW_PMC, NULL, &raw_pmc_ops, "instructions", 1),
        CASE(BENCH_READ_ONE, BENCH_RAW_PMC, &read_one_ops, "instructions", 1),
        CASE(BENCH_READ_2, BENCH_RAW_PMC, &read_2_ops, SPEC_2, 1),
        CASE(BENCH_READ_4, BENCH_RAW_PMC, &read_4_ops, SPEC_4, 1),
        CASE(BENCH_READ_7, BENCH_RAW_PMC, &read_7_ops, SPEC_7, 1),
        CASE(BENCH_REGION_4, BENCH_RAW_TSC_SER, &region_4_ops, SPEC_4, 1),
        SLOW_CASE(BENCH_RAW_OPEN, NULL, &raw_open_ops, NULL, 0),
        SLOW_CASE(BENCH_OPEN_CLOSE, BENCH_RAW_OPEN, &open_close_ops, SPEC_OPEN, 0),
        SLOW_CASE(BENCH_OPEN, BENCH_RAW_OPEN, &open_ops, SPEC_OPEN, 0),
        /* opened for each batch, as hardware cases are */
        CASE(BENCH_ZONE_TIME, BENCH_RAW_TSC, &zone_ops, NULL, 1),
        CASE(BENCH_ZONE_4, BENCH_READ_4, &zone_ops, SPEC_4, 1),
        /* zones compiled in, no profile open: every zone case opens its
         * profile for its batch alone */
        CASE(BENCH_ZONE_IDLE, BENCH_RAW_TSC, &zone_idle_ops, NULL, 0),
        /* a profile for each batch, as the zone cases have */
        SLOW_CASE(BENCH_FIRST_ZONE, BENCH_OPEN, &first_zone_ops, SPEC_OPEN, 1),
        COLLECT(BENCH_COLLECT_1, 1),
        COLLECT(BENCH_COLLECT_2, 2),
        COLLECT(BENCH_COLLECT_8, 8),
};

size_t bench_cases(struct bench_case **cases)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		table[i].median = table[i].min = table[i].instr_median = NAN;
		table[i].skipped[0] = '\0';
	}
	*cases = table;
	return sizeof(table) / sizeof(table[0]);
}

const struct bench_case *bench_find(const struct bench_case *cases, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}
