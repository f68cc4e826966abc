/* SPDX-License-Identifier: MIT */
/*
 * upmc: CPU performance counters read from user space.
 *
 *   struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
 *   struct upmc_set *set;
 *   uint64_t a[3], b[3];
 *   if (upmc_open(&set, "cycles,instructions,branch-misses", &opts) < 0) {
 *           fprintf(stderr, "upmc: %s\n", upmc_last_error());
 *           return 1;
 *   }
 *   upmc_read(set, a);
 *   work();
 *   upmc_read(set, b);
 *   printf("%s\n", upmc_summary(set));
 *   upmc_close(set);
 *
 * With UPMC_OPT_TIME_ONLY a counter the machine cannot count stays in the
 * set and reads UPMC_NOT_COUNTED (upmc_counter_reason() says why); without
 * it, the open fails.
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
#define UPMC_OPT_MULTIPLEX         (1u << 4) /* allow more events than counters, scaled */

/*
 * Options for upmc_open(). Set size to sizeof(struct upmc_options): fields
 * added later are zero (their default) for callers built against this one.
 * A caller built against a later version may pass its larger size when the
 * fields this library does not know are zero; otherwise -E2BIG.
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

/* Why counter i is not read in user space ("" when it is): one sentence,
 * its cause and what to do, e.g. "'cycles' cannot be counted: no CPU PMU is
 * visible, typical of a virtual machine without a virtual PMU: turn it on
 * in the hypervisor, or use bare metal". */
UPMC_API const char *upmc_counter_reason(const struct upmc_set *set, unsigned i);

/*
 * How to do what the reasons of the set's unavailable counters ask, when
 * that takes more than a reason says: said once for the set, e.g. how to
 * turn a virtual machine's PMU on in each hypervisor. "" when the reasons
 * say it all (or every counter counts).
 */
UPMC_API const char *upmc_advice(const struct upmc_set *set);

/*
 * For a multiplexed set (UPMC_OPT_MULTIPLEX): the share of the time counter
 * i was on the PMU since the set opened, at the last upmc_read(), which its
 * total was scaled by (1 when it always was; 0 when it never ran, and the
 * value is UPMC_NOT_COUNTED). Below UPMC_LOW_CONFIDENCE the scaled value is
 * an extrapolation to treat with care. Negative errno when i is out of
 * range. upmc_read() of a multiplexed set gives scaled totals since open:
 * for what counted between two moments, take snapshots and upmc_interval().
 */
UPMC_API double upmc_counter_ratio(const struct upmc_set *set, unsigned i);
#define UPMC_LOW_CONFIDENCE 0.9

/* One line about the whole set, e.g. "3 counters, user-space rdpmc". */
UPMC_API const char *upmc_summary(const struct upmc_set *set);

/* Where the set's tick-to-ns factors come from (enum upmc_clock_source). */
UPMC_API int upmc_clock_source(const struct upmc_set *set);

/* The last failure on this thread, as a sentence; "" when none. */
UPMC_API const char *upmc_last_error(void);

/* ---- intervals: what counted between two moments ---- */

/*
 * A snapshot is what an interval needs of a read: for a set that is not
 * multiplexed, the counters' values as upmc_read() gives them; for a
 * multiplexed one (UPMC_OPT_MULTIPLEX), each counter's count as the kernel
 * has it (unscaled), then the time its group was enabled, then running.
 * upmc_snapshot_words() of any set is at most UPMC_SNAPSHOT_MAX.
 */
#define UPMC_SNAPSHOT_MAX (3 * UPMC_MAX_COUNTERS)

/* Words in a snapshot of the set: upmc_count(), or 3 x that when multiplexed. */
UPMC_API int upmc_snapshot_words(const struct upmc_set *set);

/* Not API: where upmc_snapshot() hands over (a NULL argument; another
 * thread's set, with UPMC_DEBUG). */
UPMC_API int upmc_snapshot_slow(struct upmc_set *set, uint64_t *snapshot);

/* Takes a snapshot. Returns upmc_count(), or a negative errno (every word
 * then UPMC_NOT_COUNTED). For a set that is not multiplexed it costs what
 * upmc_read() costs, and the two NULL tests: one call, to the set's
 * reader. */
static UPMC_ALWAYS_INLINE int upmc_snapshot(struct upmc_set *set, uint64_t *snapshot)
{
	if (UPMC_UNLIKELY(!set || !snapshot) || UPMC_OTHER_THREAD(set))
		return upmc_snapshot_slow(set, snapshot);
	return set->snapshot(set, snapshot);
}

/*
 * counts[i] = counter i's count between two snapshots. A multiplexed
 * counter's is the interval's count scaled by the interval's own times,
 * (c1 - c0) x (e1 - e0) / (r1 - r0), as perf stat -I scales it: never the
 * difference of two scaled totals, whose scale changes between them.
 * UPMC_NOT_COUNTED where the counter did not count in the interval (a
 * snapshot failed, or it never ran on the PMU). ratios (NULL: not wanted):
 * the share of the interval the counter ran, 1 when not multiplexed, 0 when
 * not counted; below UPMC_LOW_CONFIDENCE the count is an extrapolation.
 * Returns upmc_count(), or -EINVAL.
 */
UPMC_API int upmc_interval(const struct upmc_set *set, const uint64_t *before,
                           const uint64_t *after, uint64_t *counts, double *ratios);

/* ---- metrics: answers computed from counters ---- */

/*
 * A spec may name metrics ("IPC", "branch-miss-ratio") and groups of them
 * ("TopdownL1") beside events: upmc_open() adds the events they need (an
 * event named twice is counted once) and computes them with upmc_metrics()
 * from two snapshots, never on the hot path. docs/metrics.md lists them,
 * where each formula comes from and which CPUs have it. Without
 * UPMC_OPT_TIME_ONLY a metric this machine cannot compute fails the open;
 * with it, the metric reads NAN and upmc_metric_reason() says why. With
 * UPMC_OPT_MULTIPLEX each metric's events are one perf group, so that its
 * inputs share a schedule; an event two metrics need is then counted in
 * each one's group (the set has it twice). A metric whose inputs need more
 * general counters than the CPU gives a thread (docs/metrics.md says
 * which) has each input counted alone, as perf does.
 */

/* The most metrics one set computes. */
#define UPMC_MAX_METRICS 16

/* Metrics of the set, and metric j's name, unit ("insn per cycle"), and
 * whether it is a fraction best shown as a percentage (1, else 0).
 * NULL or a negative errno when j is out of range. */
UPMC_API int upmc_metric_count(const struct upmc_set *set);
UPMC_API const char *upmc_metric_name(const struct upmc_set *set, unsigned j);
UPMC_API const char *upmc_metric_unit(const struct upmc_set *set, unsigned j);
UPMC_API int upmc_metric_is_percent(const struct upmc_set *set, unsigned j);

/* Why metric j cannot be computed ("" when it can), or else why the last
 * upmc_metrics() gave it NAN where it says (a topdown interval too short
 * to measure). */
UPMC_API const char *upmc_metric_reason(const struct upmc_set *set, unsigned j);

/*
 * Intel topdown (retiring, bad-speculation, frontend-bound, backend-bound)
 * is read with rdpmc from slots and PERF_METRICS, whose 8-bit fractions
 * are of the slots since the two were last reset: a region short beside
 * that period is too short to measure, and its metric reads NAN with the
 * reason. This starts a new period (every counter of the set's topdown
 * group restarts from 0): call it before a region, and every few seconds.
 * Snapshots from before it do not pair with those after. Returns 0, or
 * -EOPNOTSUPP for a set that reads no topdown metric in user space.
 */
UPMC_API int upmc_topdown_reset(struct upmc_set *set);

/* values[j]: metric j over the interval between two snapshots (the interval
 * rule of upmc_interval()); NAN where it cannot be computed (an input did
 * not count, a denominator is 0). Returns upmc_metric_count(), or -EINVAL. */
UPMC_API int upmc_metrics(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                          double *values);

/* values[j]: metric j of counts the caller has (counts[i] of counter i:
 * sums over many intervals, per-call means with a loop's cost taken off);
 * NAN where an input is NAN or a denominator is 0. No topdown precision
 * check: the counts say nothing of the intervals they came from. Returns
 * upmc_metric_count(), or -EINVAL. */
UPMC_API int upmc_metrics_of_counts(const struct upmc_set *set, const double *counts,
                                    double *values);

/* A metric upmc knows, as upmc_list_metrics() gives it. */
struct upmc_metric_info {
	const char *name;
	const char *group;   /* perf's metric group ("TopdownL1", "Default"), or "" */
	const char *events;  /* what it needs, comma-separated; "": a row that says the
	                      * CPUs of cpus have none of group name, and why (desc) */
	const char *formula; /* over those events */
	const char *unit;
	const char *desc;
	const char *cpus;    /* which CPUs have its events */
	const char *source;  /* where the formula comes from */
	int percent;         /* a fraction, best shown as a percentage */
	const char *why_not; /* "" when this machine can compute it, else why not */
};

/* Calls fn for every metric of the catalogue (a name may come once per
 * kind of CPU it is defined for), and for every row that says a kind of
 * CPU has none of a group (events ""), until fn returns non-zero. The strings
 * live until fn returns. Returns how many were listed, or -EINVAL. */
UPMC_API int upmc_list_metrics(int (*fn)(const struct upmc_metric_info *info, void *arg),
                               void *arg);

/* ---- events ---- */

struct upmc_event_info {
	const char *name; /* as a spec takes it */
	const char *pmu;  /* "hardware", "cache", "software", or a PMU's name */
	const char *desc; /* one line; "" when unknown */
};

/*
 * Calls fn for every event upmc knows by name, grouped by PMU, until fn
 * returns non-zero. The strings live until fn returns. Returns how many
 * events were listed, or a negative errno.
 */
UPMC_API int upmc_list_events(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg);

/* ---- regions: statistics of a measured piece of code ---- */

/* Statistics of one series (a counter, or UPMC_NS). Doubles are exact
 * below 2^53; corrected values can go below 0 where noise does. */
struct upmc_stat {
	uint64_t count; /* samples recorded */
	double min, max, median, mean;
};

/* The series of nanoseconds, next to counters 0..n-1. */
#define UPMC_NS UPMC_MAX_COUNTERS

struct upmc_region;

/*
 * A region measures the code between upmc_region_begin() and
 * upmc_region_end() with the set's counters and serialized timestamps,
 * and keeps statistics of every counter and of ns. begin and end only
 * record the raw values; the statistics take them in every 1024 regions
 * and whenever a result is asked for (a region still open then is
 * dropped). Opening it calibrates the bias of begin+end (1000 empty
 * regions), which corrected statistics subtract; it fails with -ENODATA
 * when none of them could be read. name may be NULL. The set must outlive
 * the region. One thread at a time.
 */
UPMC_API int upmc_region_open(struct upmc_region **region, struct upmc_set *set, const char *name);
UPMC_API void upmc_region_close(struct upmc_region *region);

/* Out of line on purpose: the cost of begin+end is a constant, the bias
 * that calibration measures. NULL does nothing. */
UPMC_API void upmc_region_begin(struct upmc_region *region);
UPMC_API void upmc_region_end(struct upmc_region *region);

/* Regions in no statistic: a read at begin or end failed (the group was
 * in an error state, another user took the counters) or counted nothing,
 * or a begin had no end. Since open or the last upmc_region_reset(). */
UPMC_API uint64_t upmc_region_dropped(const struct upmc_region *region);

/* Measures the bias again over `repeats` empty regions (min and median);
 * statistics are kept. -ENODATA, the bias unchanged, when every one of
 * them was dropped (a read failed). */
UPMC_API int upmc_region_calibrate(struct upmc_region *region, unsigned repeats);

/* Statistics of `what` (counter i, or UPMC_NS); corrected: bias subtracted. */
UPMC_API int upmc_region_stat(const struct upmc_region *region, unsigned what, int corrected,
                              struct upmc_stat *stat);

/* The calibrated bias of `what`: minimum and median over the empty regions
 * (the median is what corrected values subtract). */
UPMC_API int upmc_region_bias(const struct upmc_region *region, unsigned what, double *min,
                              double *median);

/* The last region's value of `what`; -ENODATA when that region was dropped
 * (a read failed) or `what` did not count in it. */
UPMC_API int upmc_region_last(const struct upmc_region *region, unsigned what, int corrected,
                              double *value);

/*
 * Metric j of the set (upmc_metric_name()) over the regions, two figures
 * that differ: upmc_region_metric_stat() gives the statistics of the
 * per-region metric (each region's value from its own counts: the min,
 * median and mean IPC of the regions), upmc_region_metric_of_totals() the
 * metric of the counts summed over the same regions (instructions over
 * cycles of them all: regions weighted by their size, as perf stat's IPC
 * is). Both are over the regions whose value could be computed from their
 * counts: every input counted, no denominator 0, a topdown interval long
 * enough; the others are in neither (stat->count says how many are; with
 * corrected, fewer where the bias leaves a denominator 0). corrected: each
 * count less its calibrated bias before the formula (per region, the bias
 * of the calibration in force when it was taken in). A metric without a
 * value reads NAN: stat->count 0, or -ENODATA from the other two with
 * upmc_metric_reason()'s sentence. -EINVAL for a metric the set does not
 * have or a NULL pointer.
 */
UPMC_API int upmc_region_metric_stat(const struct upmc_region *region, unsigned j, int corrected,
                                     struct upmc_stat *stat);
UPMC_API int upmc_region_metric_of_totals(const struct upmc_region *region, unsigned j,
                                          int corrected, double *value);
/* Metric j of the last region, as upmc_region_last() gives a counter. */
UPMC_API int upmc_region_metric_last(const struct upmc_region *region, unsigned j, int corrected,
                                     double *value);

/* Forgets the samples (keeps the calibration). */
UPMC_API void upmc_region_reset(struct upmc_region *region);

UPMC_API const char *upmc_region_name(const struct upmc_region *region);

/* ---- bench: run a function until its numbers are stable ---- */

struct upmc_bench_options {
	size_t size;          /* sizeof(struct upmc_bench_options) */
	uint64_t min_repeats; /* calls per sample at least (default 1) */
	uint64_t min_ns;      /* a sample lasts at least this long (default 1 ms) */
	uint64_t max_repeats; /* calls per sample at most (default 10^9) */
	unsigned samples;     /* samples measured (default 31) */
};

struct upmc_bench_result {
	uint64_t repeats;    /* calls per sample */
	unsigned samples;    /* measured, dropped ones included */
	unsigned dropped;    /* samples in no statistic: a counter read failed */
	struct upmc_stat ns; /* per call, bias subtracted */
	struct upmc_stat counter[UPMC_MAX_COUNTERS]; /* per call, bias subtracted */
	/* upmc_bench_rotating(): the passes run, and the pass (0, 1, ...)
	 * that measured each counter; upmc_bench(): 1, and all 0. */
	unsigned passes;
	unsigned pass[UPMC_MAX_COUNTERS];
	/* The set's metrics (upmc_metric_count()), bias subtracted: metric[j]
	 * the statistics of metric j per sample (each batch's value from its
	 * own counts), metric_of_totals[j] metric j of the counts summed over
	 * those samples; NAN (and count 0) where it has no value, why in
	 * upmc_metric_reason(). upmc_bench_rotating(): of the totals only
	 * (metric[j].count 0), from the pass that counted its inputs. */
	unsigned metrics;
	struct upmc_stat metric[UPMC_MAX_METRICS];
	double metric_of_totals[UPMC_MAX_METRICS];
};

/*
 * Runs fn(arg) in batches: grows the batch 10x from min_repeats until one
 * batch lasts min_ns (or max_repeats is reached), which also warms it up;
 * then measures `samples` batches as regions and reports per-call
 * statistics with the region's bias subtracted. A batch whose counters
 * could not be read is dropped and counted (result->dropped); -ENODATA when
 * every one was. opts may be NULL: the defaults. A larger opts->size than
 * this library knows is accepted when the bytes beyond are zero (-E2BIG
 * otherwise), as for struct upmc_options.
 */
UPMC_API int upmc_bench(struct upmc_set *set, void (*fn)(void *), void *arg,
                        const struct upmc_bench_options *opts, struct upmc_bench_result *result);

/*
 * upmc_bench() for a set with more events than the PMU has counters
 * (opened with UPMC_OPT_MULTIPLEX), measured in passes rather than
 * time-shared: the set's perf groups (a metric's inputs are one, any other
 * event is one of its own) are packed in order into passes that each go on
 * the PMU pinned, and the passes run one after another, each a whole bench
 * on a set of its own, at the first pass's batch size. Every counter's
 * statistics come from one pass (result->pass[i]), whole and unscaled, and
 * a metric's inputs all from the same one. ns and repeats are the first
 * pass's; samples and dropped add up every pass's. A group that does not
 * fit the PMU by itself fails with the open's error.
 */
UPMC_API int upmc_bench_rotating(struct upmc_set *set, void (*fn)(void *), void *arg,
                                 const struct upmc_bench_options *opts,
                                 struct upmc_bench_result *result);

#ifdef __cplusplus
}
#endif

#endif /* UPMC_H */
