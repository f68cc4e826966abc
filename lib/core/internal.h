/* SPDX-License-Identifier: MIT */
/* Private to the library: events, set state, errors. */
#ifndef UPMC_INTERNAL_H
#define UPMC_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <upmc/upmc.h>

#define UPMC_NAME_MAX   128
#define UPMC_REASON_MAX 320

/* Event types, numbered as perf numbers them (PERF_TYPE_*). */
#define UPMC_TYPE_HARDWARE 0
#define UPMC_TYPE_SOFTWARE 1
#define UPMC_TYPE_HW_CACHE 3
#define UPMC_TYPE_RAW      4

/* One event of a spec, resolved. */
struct upmc_event {
	char name[UPMC_NAME_MAX]; /* as written, modifiers included */
	uint32_t type;            /* UPMC_TYPE_*, or a PMU's own type */
	uint64_t config, config1, config2;
	unsigned exclude_user : 1;
	unsigned exclude_kernel : 1;
	unsigned generic : 1; /* perf's generic hardware or cache event */
	/* libpfm4's own modifiers (:precise=, :mg=, :mh=) */
	unsigned precise_ip : 2;
	unsigned exclude_guest : 1;
	unsigned exclude_host : 1;
	unsigned missing : 1; /* its PMU is not on this machine (UPMC_OPT_TIME_ONLY) */
	/* UPMC_OPT_MULTIPLEX: the perf group of the metrics it is an input of
	 * (1 + the first such metric's index), so that a metric's inputs share
	 * one schedule; 0: a group of its own. */
	unsigned char metric_group;
};

struct upmc_counter {
	struct upmc_event event;
	int path;     /* enum upmc_path */
	double ratio; /* time on the PMU / time enabled, at the last read */
	char reason[UPMC_REASON_MAX];
};

/* A metric of a set (lib/core/metrics.c): its definition, the set's
 * counter of each event it needs, its formula in postfix order. */
#define UPMC_METRIC_INPUTS 16
#define UPMC_METRIC_STEPS  96
struct upmc_metric_def;
struct upmc_metric_step {
	char kind; /* 'e': an input, 'v': a value, an operator + - * / < >, max 'M', min 'm', or
	            * '?': the select of 'a if c else b' (formula.c) */
	unsigned input; /* of the metric's inputs */
	double value;
};
struct upmc_metric {
	const struct upmc_metric_def *def;
	/* its name in the set when not def's: "cpu_atom/retiring/", one core
	 * type's of a hybrid CPU; "" otherwise */
	char name[UPMC_NAME_MAX];
	unsigned n_in, n_steps;
	unsigned in[UPMC_METRIC_INPUTS];
	/* The formula is one input over another ("instructions / cycles"):
	 * over counter num and counter den, computed without the steps. */
	int ratio;
	unsigned num, den;
	struct upmc_metric_step step[UPMC_METRIC_STEPS];
	char reason[UPMC_REASON_MAX];   /* why it cannot be computed; "" when it can */
	char last_why[UPMC_REASON_MAX]; /* why upmc_metrics() last gave NAN, if it says */
};

/* A reader of a whole set, as upmc_read() calls it. */
typedef int (*upmc_reader)(struct upmc_set *set, uint64_t *values);

/*
 * Intel topdown read in user space (lib/core/topdown.c): the OS layer sets
 * it at open when every counter of the set is read from its page and some
 * are topdown metric events of a slots group. field[i] is 1 + the
 * PERF_METRICS field counter i's event names (0: a count, read as any
 * other); slots is the counter of slots; reset restarts slots and
 * PERF_METRICS from 0 (PERF_EVENT_IOC_RESET of the group), every count
 * with them; restart restarts slots and PERF_METRICS alone (read(2) of
 * the group), from any thread.
 */
struct upmc_topdown {
	unsigned slots;
	uint8_t field[UPMC_MAX_COUNTERS];
	int (*reset)(struct upmc_set *set);
	int (*restart)(struct upmc_set *set);
};

struct upmc_set_state {
	/* The OS layer time-shares the counters (UPMC_OPT_MULTIPLEX): its
	 * reads give unscaled counts and times, which the library scales.
	 * First, with the count of metrics: upmc_metrics() loads both from
	 * the state's address, with no add to reach them. */
	int multiplexed;
	unsigned n_metrics;
	struct upmc_counter counter[UPMC_MAX_COUNTERS];
	/* Every page the OS layer gave for a user-space read, whatever its
	 * width; set->page[] keeps those the inline reader was built for. */
	const volatile struct upmc_perf_page *user_page[UPMC_MAX_COUNTERS];
	char summary[UPMC_REASON_MAX + 96];
	/* upmc_advice(): how to lift, once for the set, what keeps its
	 * unavailable counters from counting, when their reasons say it
	 * in a few words only (the OS layer writes it at open); "" if none. */
	char advice[UPMC_REASON_MAX];
	/* The reader of the whole set where the inline readers hand over
	 * (upmc_read_n_slow()): by read(2), multiplexed, or page by page. */
	upmc_reader handover;
	unsigned flags; /* UPMC_OPT_* it was opened with (upmc_bench's passes open so) */
	/* The words upmc_snapshot()'s reader (upmc_set.snapshot) writes
	 * (lib/interval.c). */
	unsigned snapshot_words;
	/* Intel topdown read in user space; NULL when the set has none. */
	const struct upmc_topdown *topdown;
	void *os; /* the OS layer's own data */
	/* The registry of open sets (lib/set.c), for fork(). */
	struct upmc_set *prev, *next;
	int forked; /* this is a forked child; the set is the parent's */
	/* Last, 19 KiB: the fields above that reads load (os, topdown)
	 * stay well within an arm64 load's reach from the state's address
	 * (32760 bytes for 8-byte words), a field beyond it costs an add. */
	struct upmc_metric metric[UPMC_MAX_METRICS];
};

/* Parses spec into at most max events; returns how many, or -errno. */
int upmc_parse_spec(const char *spec, unsigned flags, struct upmc_event *events, unsigned max);

/* The same into the set's counters, and the metrics the spec names into
 * its metrics (their events added to the counters). The counter of an
 * event whose PMU is missing (UPMC_OPT_TIME_ONLY) is unavailable, for the
 * reason parsing gave. Returns the counters, or -errno. */
int upmc_parse_counters(const char *spec, unsigned flags, struct upmc_set_state *st);

/* What a spec is parsed into: events[] or, when NULL, counters[]; metrics
 * (NULL: a metric name is refused as an unknown event). */
struct upmc_spec {
	struct upmc_event *events;
	struct upmc_counter *counters;
	unsigned n, max;
	struct upmc_metric *metrics;
	unsigned n_metrics;
	uint32_t for_metrics; /* the events a metric needs: an item naming one again adds none */
};

/* One event of a spec, its item already trimmed, into the next place of
 * out (lib/core/events.c); 0 or -errno. */
int upmc_spec_add(struct upmc_spec *out, const char *item, unsigned flags);

/* An event of this CPU that cannot be named here (no core PMU is
 * visible), marked missing, in the next place of out: a set's counter of
 * it is unavailable, for why. 0 or -E2BIG. */
int upmc_spec_add_missing(struct upmc_spec *out, const char *name, const char *why);

/* One event's name, trimmed, with its modifiers, into ev; 0 or -errno
 * after upmc_fail(). With UPMC_OPT_TIME_ONLY, an event of a PMU this
 * machine lacks is kept, marked missing (upmc_last_error() says why). */
int upmc_event_parse(const char *item, unsigned flags, struct upmc_event *ev);

/* The i-th event parsed into out. */
static inline struct upmc_event *upmc_spec_event(struct upmc_spec *out, unsigned i)
{
	return out->events ? &out->events[i] : &out->counters[i].event;
}

/* lib/core/metrics.c: whether item names a metric or a group of them; the
 * metrics it names into out, their events with them (shared ones once). */
int upmc_is_metric(const char *item);
int upmc_spec_add_metrics(struct upmc_spec *out, const char *item, unsigned flags);

/* The set's metrics from its counters' counts in an interval (NAN where
 * one cannot be computed). */
void upmc_metrics_of(const struct upmc_set *set, const uint64_t *counts, double *values);

/* upmc_metrics() without its checks, the interval's counts as the metrics
 * took them into counts[set->n] (topdown's made whole); returns
 * upmc_metric_count(). */
int upmc_metrics_between(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                         uint64_t *counts, double *values);

/* For counting without a set (upmc stat): a spec's events into events[max]
 * and the metrics it names into metrics[UPMC_MAX_METRICS] (*n_metrics of
 * them), their inputs indices into events; the count of events, or -errno.
 * A metric's value from its inputs' counts (UPMC_NOT_COUNTED where one did
 * not count: NAN), and what the catalogue says of it. */
int upmc_parse_spec_metrics(const char *spec, unsigned flags, struct upmc_event *events,
                            unsigned max, struct upmc_metric *metrics, unsigned *n_metrics);
double upmc_metric_value(const struct upmc_metric *m, const uint64_t *counts);
/* The same from counts as doubles (NAN: did not count), which may be
 * sums, or counts less a bias. */
double upmc_metric_value_of(const struct upmc_metric *m, const double *counts);
void upmc_metric_describe(const struct upmc_metric *m, struct upmc_metric_info *info);

/* Sets the default privilege levels, then applies ":u", ":k" or ":uk". */
void upmc_event_levels(struct upmc_event *ev, unsigned flags);
int upmc_event_modifiers(const char *mods, const char *whole, struct upmc_event *ev);

/* The n known event names closest to name, joined as "'a', 'b' or 'c'". */
void upmc_closest_names(const char *name, char *out, size_t size);

/* mingw's gcc takes plain printf for Microsoft's, which lacks %zu. */
#if defined(__MINGW32__) && !defined(__clang__)
#define UPMC_PRINTF(f, a) __attribute__((format(gnu_printf, f, a)))
#else
#define UPMC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif

/* Records a sentence for upmc_last_error() and returns err (a -errno). */
int upmc_fail(int err, const char *fmt, ...) UPMC_PRINTF(2, 3);

/* A read that fails leaves no value that looks counted: with err < 0 every
 * value reads UPMC_NOT_COUNTED (regions drop such a sample without a test
 * of their own). Returns err. */
int upmc_failed_read(const struct upmc_set *set, uint64_t *values, int err);

/* s as a JSON string: quoted, with quotes, backslashes and control
 * characters escaped, and bytes that are not UTF-8 as \u00XX. */
void upmc_json_string(FILE *out, const char *s);

/* Bytes of the well-formed UTF-8 sequence at p (RFC 3629); 0 when none
 * starts there. Writers that need UTF-8 take a byte of no such sequence as
 * the code point of the same number (Latin-1 text reads as meant). */
size_t upmc_utf8_length(const unsigned char *p);

/*
 * The extensible-struct convention for a caller's options struct s of
 * size bytes, whose first `known` bytes this library knows: a larger size
 * (a newer caller) is fine only when the bytes beyond are zero. Returns 0,
 * or -E2BIG after upmc_fail() naming the struct `what`.
 */
int upmc_check_struct_size(const void *s, size_t size, size_t known, const char *what);

/* UPMC_OPT_* flags as upmc_open() takes them (what: where they came
 * from, for the sentence); 0, or -EINVAL after upmc_fail(). */
int upmc_check_open_flags(unsigned flags, const char *what);

/*
 * What a layer above the core does around fork(), called from the core's
 * handlers (lib/core/set.c, registered once upmc_os_watch_fork() was):
 * prepare before it, taking the layer's locks, in the order the hooks were
 * added; parent and child after it, in the opposite order. child runs in
 * the child with the forking thread alone: stores only.
 */
struct upmc_fork_hook {
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
};

/* Adds hook (static: never freed) once; adding it again does nothing.
 * 0, or -ENOSPC when the core holds no more. */
int upmc_fork_hook_add(const struct upmc_fork_hook *hook);

/* s with control bytes written as \xNN, for sentences that quote input. */
void upmc_printable(char *out, size_t size, const char *s);

/* snprintf that never overflows and always terminates. */
void upmc_format(char *buf, size_t size, const char *fmt, ...) UPMC_PRINTF(3, 4);

/* upmc_interval() of n counters whose snapshots are those of a set
 * multiplexed or not (lib/interval.c): for layers that keep snapshots
 * after the set is gone (zones). */
void upmc_interval_of(int multiplexed, unsigned n, const uint64_t *before, const uint64_t *after,
                      uint64_t *counts, double *ratios);

/* A counter's count between two snapshots of a set that is not
 * multiplexed: UPMC_NOT_COUNTED where either did not count. */
static inline uint64_t upmc_count_between(uint64_t before, uint64_t after)
{
	return before == UPMC_NOT_COUNTED || after == UPMC_NOT_COUNTED ? UPMC_NOT_COUNTED
	                                                               : after - before;
}

/* count * enabled / running without overflow (saturating below
 * UPMC_NOT_COUNTED); UPMC_NOT_COUNTED when running is 0. */
uint64_t upmc_scale(uint64_t count, uint64_t enabled, uint64_t running);

/* At open, once the OS layer has set the pages and paths: which pages
 * the inline reader takes (set->page[], set->user_n), and the reader of
 * upmc_read() and of upmc_snapshot() (lib/read.c). */
void upmc_choose_readers(struct upmc_set *set);

/* 0 when counter i of set exists; else -EINVAL after upmc_fail() naming
 * the function `what`. */
int upmc_check_index(const struct upmc_set *set, unsigned i, const char *what);

/* set->thread of a forked child's sets: no thread's token. */
#define UPMC_NO_THREAD UINT64_MAX

/* A page with index 0: the inline reader hands every counter on it over. */
extern const struct upmc_perf_page upmc_no_page;

/* One page's count by the uapi header's loop, with the page's own width and
 * capability; -1 when it cannot be read in user space right now. */
int upmc_page_count(const volatile struct upmc_perf_page *pc, uint64_t *count);

/*
 * Intel topdown read in user space (lib/core/topdown.c). At open, after
 * upmc_choose_readers(): a topdown set gets its pass as upmc_read() and
 * upmc_snapshot(). Where read.c would hand a read over to read(2), a
 * topdown set is read by its snapshot reader, the pass, instead (it fails
 * when a page says no), and its times are refused: read(2) resets slots
 * and PERF_METRICS.
 */
void upmc_topdown_choose_readers(struct upmc_set *set);
/* A new period of the set's slots and PERF_METRICS, the counts kept, from
 * any thread (a profile's reset of its threads' sets): a snapshot pair
 * across it is said reset by the rule below, whoever took the pair, where
 * one across PERF_EVENT_IOC_RESET, which zeroes the counts too, is said
 * so only when the count fell. The caller knows the set has a topdown
 * group and keeps the set open meanwhile. */
int upmc_topdown_restart(struct upmc_set *set);

/* For upmc_metrics(): whether metric m's interval between the snapshots
 * is one PERF_METRICS cannot measure (reset in between, too short), with
 * why; and the interval's counts of the topdown metric counters made
 * whole (a step back within the fields' precision counts 0). */
int upmc_topdown_unmeasured(const struct upmc_set *set, const struct upmc_metric *m,
                            const uint64_t *before, const uint64_t *after, char *why, size_t size);
void upmc_topdown_counts(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                         uint64_t *counts);

/* Calibrated factors for timestamp ticks (measured once per process). */
void upmc_clock_calibrated(struct upmc_clock *clock);

#endif /* UPMC_INTERNAL_H */
