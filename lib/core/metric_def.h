/* SPDX-License-Identifier: MIT */
/*
 * The metrics catalogue's rows and its one evaluator, private to the core.
 * The rows are data, one file per vendor (metrics_generic.c,
 * metrics_intel.c, metrics_amd.c, metrics_arm.c); lib/core/metrics.c
 * chooses a row for this CPU and adds it to a spec; formula.c compiles
 * and evaluates a row's formula; metrics_list.c lists the catalogue.
 * Calls go one way: spec.c -> metrics.c -> formula.c, events.c.
 */
#ifndef UPMC_METRIC_DEF_H
#define UPMC_METRIC_DEF_H

#include "internal.h"

struct upmc_metric_def {
	const char *name;
	const char *group;   /* perf's metric group, or "" */
	const char *events;  /* what it needs, comma-separated, as a spec names them
	                      * (a pmu/terms/ event keeps its commas: upmc_metric_event()) */
	const char *formula; /* over those names and #constants, tokens spaced: + - * / < >,
	                      * ( ), max ( a , b ), min, a if c else b (formula.c) */
	const char *unit;    /* what its value is */
	int percent;         /* a fraction, shown as a percentage */
	const char *desc;
	const char *cpus; /* which CPUs have its events */
	const char *source;
	const char *arch; /* the kind of CPU it is defined for (upmc_os_core_kind()); NULL: any */
	/*
	 * The CPUs it is for, as perf's mapfile.csv picks them: patterns of
	 * upmc_os_cpu_id(), separated by spaces, each matching the ids that
	 * start with it ('?' any one character, a last '-' the end of the
	 * model too): "GenuineIntel-6-55-" is every Skylake-SP. A name's
	 * variants for this CPU are tried first, in order, then those for
	 * any CPU (NULL) of its arch.
	 */
	const char *cpu_ids;
	/* When at run time it applies: "smt-on", "smt-off" (the kernel's SMT
	 * state), "slots=5" (#slots), "vendor=GenuineIntel" (the CPU id's
	 * vendor, or an id the OS does not give), "vendor!=A B" (a known id
	 * of none of these vendors); "cpu_atom": on a hybrid CPU, for the
	 * E-cores (the core PMU cpu_atom), beside the variant of the other
	 * core type (never that variant itself); NULL: always. */
	const char *when;
	/* What the CPU lacks when its events do not resolve, in a sentence
	 * (a PMU without PERF_METRICS); NULL: the resolver's own words. */
	const char *lacks;
};

/* The E-core variant's condition (when). */
#define UPMC_METRIC_E_CORE "cpu_atom"

/* The length of the event that starts at p in a row's events: up to the
 * next comma outside a pmu/terms/ event. */
static inline size_t upmc_metric_event_len(const char *p)
{
	size_t n = 0;
	unsigned slashes = 0;

	for (; p[n] && (p[n] != ',' || slashes % 2); n++)
		slashes += p[n] == '/';
	return n;
}

/* The event after the one at p in a row's events; NULL after the last. */
static inline const char *upmc_metric_next_event(const char *p)
{
	p += upmc_metric_event_len(p);
	return *p ? p + 1 : NULL;
}

/*
 * Variants for CPUs whose threads have fewer general counters than a
 * group's metrics need together (Intel's 4 with SMT on, before Ice Lake):
 * in a multiplexed set each is a perf group of its own, never joined with
 * the other metrics of its group's name (name NULL: every metric of cpus);
 * one whose inputs alone need more (alone) has each input counted alone,
 * scaled by its own time on the PMU, never as a group that could not go
 * on. perf 6.1 gets the same: each metric is a weak group of its own, and
 * when the kernel refuses one perf stat opens its events alone
 * (tools/perf/util/metricgroup.c, tools/perf/builtin-stat.c).
 */
struct upmc_metric_apart {
	const char *name, *cpus; /* as the variant's row has them */
	int alone;
};
extern const struct upmc_metric_apart upmc_metrics_apart[];
extern const unsigned upmc_metrics_apart_n;

/* The catalogue's parts, in the order a name's variants are tried. */
extern const struct upmc_metric_def upmc_metrics_generic[];
extern const unsigned upmc_metrics_generic_n;
extern const struct upmc_metric_def upmc_metrics_intel[];
extern const unsigned upmc_metrics_intel_n;
extern const struct upmc_metric_def upmc_metrics_amd[];
extern const unsigned upmc_metrics_amd_n;
extern const struct upmc_metric_def upmc_metrics_arm[];
extern const unsigned upmc_metrics_arm_n;

/* More rows than the catalogue has: room for those a name or group gives. */
#define UPMC_METRIC_ROWS_MAX 256

/* Row i of the whole catalogue (NULL past its end), and how many rows. */
const struct upmc_metric_def *upmc_metric_row(unsigned i);
unsigned upmc_metric_rows(void);

/* A row that says a kind of CPU has none of a group's metrics (named as
 * the group), or no metric of its name. */
static inline int upmc_metric_is_none(const struct upmc_metric_def *def)
{
	return !def->events[0];
}

/* Whether def is defined for this machine's kind of CPU. */
int upmc_metric_for_this_arch(const struct upmc_metric_def *def);

/* Whether def is for this CPU; why not in why. */
int upmc_metric_for_this_cpu(const struct upmc_metric_def *def, char *why, size_t size);

/* What upmc_list_metrics() and upmc_metric_describe() say of def. */
struct upmc_metric_info upmc_metric_info_of(const struct upmc_metric_def *d, const char *why);

/*
 * m->def's formula in postfix order into m->step (formula.c): numbers and
 * #constants as values, event names as the metric's inputs. 0, or -errno:
 * -EINVAL for a malformed formula, -E2BIG for one longer than the steps,
 * with the reason in m->reason for an unknown #constant (this machine
 * does not publish it).
 */
int upmc_metric_compile(struct upmc_metric *m);

/* The compiled formula over the values of the metric's inputs (in[k] of
 * input k); NAN when an input is NAN (it did not count) or a division
 * has no denominator. */
double upmc_metric_evaluate(const struct upmc_metric *m, const double *in);

#endif /* UPMC_METRIC_DEF_H */
