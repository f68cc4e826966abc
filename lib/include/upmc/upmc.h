/* SPDX-License-Identifier: MIT */
/*
 * upmc: CPU performance counters read from user space.
 *
 *   struct upmc_set *set;
 *   uint64_t a[3], b[3];
 *   if (upmc_open(&set, "cycles,instructions,branch-misses", NULL) < 0)
 *           fprintf(stderr, "upmc: %s\n", upmc_last_error());
 *   upmc_read(set, a);
 *   work();
 *   upmc_read(set, b);
 *   printf("%s\n", upmc_summary(set));
 *   upmc_close(set);
 *
 * Functions return 0 (or a count) on success and a negative errno on
 * failure; upmc_last_error() then holds a sentence with the cause and the fix.
 */
#ifndef UPMC_H
#define UPMC_H

#include <stddef.h>
#include <stdint.h>
#include <upmc/compiler.h>
#include <upmc/read.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UPMC_VERSION_MAJOR 0
#define UPMC_VERSION_MINOR 1

/* upmc_options.flags */
#define UPMC_OPT_KERNEL            (1u << 0) /* count kernel mode too, unless ':u' */
#define UPMC_OPT_TIME_ONLY         (1u << 1) /* open what can be, mark the rest unavailable */
#define UPMC_OPT_FORCE_SYSCALL     (1u << 2) /* never read from user space */
#define UPMC_OPT_REQUIRE_USER_READ (1u << 3) /* fail unless every counter reads in user space */

/*
 * Options for upmc_open(). Set size to sizeof(struct upmc_options): fields
 * added later are zero (their default) for callers built against this one.
 */
struct upmc_options {
	size_t size;
	unsigned flags; /* UPMC_OPT_* */
};

/* How a counter is read. */
enum upmc_path {
	UPMC_PATH_USER = 1,        /* inline instruction: rdpmc, mrs */
	UPMC_PATH_SYSCALL = 2,     /* read(2) or the OS's call */
	UPMC_PATH_UNAVAILABLE = 3, /* not counting; reads UPMC_NOT_COUNTED */
};

/* Where upmc_ticks_to_ns() gets its factors. */
enum upmc_clock_source {
	UPMC_CLOCK_KERNEL = 1,     /* the perf page's time_zero/mult/shift */
	UPMC_CLOCK_CALIBRATED = 2, /* measured against CLOCK_MONOTONIC_RAW at open */
	UPMC_CLOCK_NS = 3,         /* timestamps already are nanoseconds */
};

/*
 * Opens the counters named in spec for the calling thread, e.g.
 * "cycles,instructions,branch-misses" or "task-clock,page-faults:u".
 * Counting starts at once, as one pinned group. opts may be NULL.
 */
UPMC_API int upmc_open(struct upmc_set **set, const char *spec, const struct upmc_options *opts);

/* A set with no counters: timestamps and their conversion only. */
UPMC_API int upmc_open_timer(struct upmc_set **set);

/* Stops counting and frees everything; NULL is ignored. */
UPMC_API void upmc_close(struct upmc_set *set);

/* Number of counters in the set. */
static inline int upmc_count(const struct upmc_set *set)
{
	return (int)set->n;
}

/* The event name of counter i as given in the spec; NULL when out of range. */
UPMC_API const char *upmc_counter_name(const struct upmc_set *set, unsigned i);

/* How counter i is read; negative errno when i is out of range. */
UPMC_API int upmc_counter_path(const struct upmc_set *set, unsigned i);

/* Why counter i is not read in user space ("" when it is). */
UPMC_API const char *upmc_counter_reason(const struct upmc_set *set, unsigned i);

/* One line about the whole set, e.g. "3 counters, user-space rdpmc". */
UPMC_API const char *upmc_summary(const struct upmc_set *set);

/* Where the set's tick-to-ns factors come from (enum upmc_clock_source). */
UPMC_API int upmc_clock_source(const struct upmc_set *set);

/* The last failure on this thread, as a sentence; "" when none. */
UPMC_API const char *upmc_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* UPMC_H */
