/* SPDX-License-Identifier: MIT */
/*
 * Metrics: answers computed from counters (IPC, miss ratios, topdown).
 *
 * A metric is data: a name, the events it needs, a formula over their
 * counts in an interval, and where the formula comes from; one small
 * evaluator computes them all (docs/metrics.md). A spec that names a
 * metric, or a group of them, gets the events it needs added to the set
 * (shared events once) and the metric computed by upmc_metrics() from two
 * snapshots: the interval rule of lib/core/interval.c, never totals.
 *
 * A name may have several variants, one per kind of CPU (topdown is read
 * from different events on Intel, AMD and Arm): the first that is for
 * this CPU (its arch and cpu_id) and whose events this machine resolves is
 * taken. A row without events says a kind of CPU has none of a group.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric_def.h"
#include "os.h"

/* ---- a spec's metrics ---- */

/* The catalogue: its parts one after the other. */
static const struct {
	const struct upmc_metric_def *rows;
	const unsigned *n;
} parts[] = {
        {upmc_metrics_generic, &upmc_metrics_generic_n},
        {upmc_metrics_intel, &upmc_metrics_intel_n},
        {upmc_metrics_amd, &upmc_metrics_amd_n},
        {upmc_metrics_arm, &upmc_metrics_arm_n},
};

const struct upmc_metric_def *upmc_metric_row(unsigned i)
{
	unsigned p;

	for (p = 0; p < sizeof(parts) / sizeof(parts[0]); i -= *parts[p].n, p++)
		if (i < *parts[p].n)
			return &parts[p].rows[i];
	return NULL;
}

unsigned upmc_metric_rows(void)
{
	unsigned p, n = 0;

	for (p = 0; p < sizeof(parts) / sizeof(parts[0]); p++)
		n += *parts[p].n;
	return n;
}

/* Whether def is defined for this machine's kind of CPU (any, when no
 * core PMU says which). */
int upmc_metric_for_this_arch(const struct upmc_metric_def *def)
{
	const char *kind = upmc_os_core_kind();

	return !def->arch || !*kind || !strcmp(def->arch, kind);
}

/* The definitions item names: a metric or a group of them (every variant
 * for this architecture). */
static unsigned named_by(const char *item, const struct upmc_metric_def **found, unsigned max)
{
	unsigned i, n = 0;

	for (i = 0; i < upmc_metric_rows() && n < max; i++) {
		const struct upmc_metric_def *def = upmc_metric_row(i);
		if (upmc_metric_for_this_arch(def) && !upmc_metric_is_none(def) &&
		    (!strcmp(def->name, item) || !strcmp(def->group, item)))
			found[n++] = def;
	}
	return n;
}

int upmc_is_metric(const char *item)
{
	const struct upmc_metric_def *def;

	return named_by(item, &def, 1) > 0;
}

/* Whether id starts with one of the space-separated starts in ids. */
static int id_starts_with_one_of(const char *id, const char *ids)
{
	for (const char *p = ids; *p; p += strspn(p, " ")) {
		size_t len = strcspn(p, " ");
		if (len && !strncmp(id, p, len))
			return 1;
		p += len;
	}
	return 0;
}

/* Whether def is for this CPU (its cpu_id: one start, or a list of them,
 * one per model); why not in why. */
int upmc_metric_for_this_cpu(const struct upmc_metric_def *def, char *why, size_t size)
{
	char id[64];

	if (!def->cpu_id)
		return 1;
	upmc_os_cpu_id(id, sizeof(id));
	if (id_starts_with_one_of(id, def->cpu_id))
		return 1;
	if (strchr(def->cpu_id, ' '))
		upmc_format(why, size, "it is for %s, and this CPU's id, '%s', is none of theirs",
		            def->cpus, id[0] ? id : "not in /proc/cpuinfo");
	else
		upmc_format(why, size,
		            "it is for %s, whose CPU id starts '%s', and this CPU's is '%s'",
		            def->cpus, def->cpu_id, id[0] ? id : "not in /proc/cpuinfo");
	return 0;
}

/* Whether every event of def resolves on this machine, and def is for
 * this CPU; why not in why. */
static int resolves(const struct upmc_metric_def *def, unsigned flags, char *why, size_t size)
{
	char name[UPMC_NAME_MAX];
	const char *p = def->events;
	struct upmc_event ev;

	if (!upmc_metric_for_this_cpu(def, why, size))
		return 0;
	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		upmc_format(name, sizeof(name), "%.*s", (int)len, p);
		if (upmc_event_parse(name, flags & ~UPMC_OPT_TIME_ONLY, &ev) < 0) {
			upmc_format(why, size, "%s", upmc_last_error());
			return 0;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 1;
}

/* Of the variants with def's name, the first whose events this machine
 * resolves; NULL, with why none does, when there is none. */
static const struct upmc_metric_def *variant(const struct upmc_metric_def *def, unsigned flags,
                                             char *why, size_t size)
{
	char first[UPMC_REASON_MAX] = "", cpus[UPMC_REASON_MAX] = "";
	unsigned i;

	for (i = 0; i < upmc_metric_rows(); i++) {
		const struct upmc_metric_def *v = upmc_metric_row(i);
		size_t len = strlen(cpus);
		if (strcmp(v->name, def->name) || !upmc_metric_for_this_arch(v))
			continue;
		if (resolves(v, flags, why, size))
			return v;
		if (!first[0])
			upmc_format(first, sizeof(first), "%s", why);
		upmc_format(cpus + len, sizeof(cpus) - len, "%s%s", len ? "; or of " : "", v->cpus);
	}
	upmc_format(why, size, "'%s' needs the events of %s: %s", def->name, cpus, first);
	return NULL;
}

/* The set's counter of event name, added when the set has none, in metric
 * group `group` (0: any). A counter of another metric group is not taken:
 * its counts come from another schedule, so the event is counted again in
 * this group. -errno when the set is full. */
static int counter_of(struct upmc_spec *out, const char *name, unsigned flags, unsigned group)
{
	unsigned i;
	int err;

	for (i = 0; i < out->n; i++) {
		struct upmc_event *ev = upmc_spec_event(out, i);
		if (strcmp(ev->name, name) ||
		    (group && ev->metric_group && ev->metric_group != group))
			continue;
		ev->metric_group = (unsigned char)group;
		out->for_metrics |= 1u << i;
		return (int)i;
	}
	if (out->n == out->max)
		return upmc_fail(-E2BIG,
		                 "the metrics need more than %u events, the most one set holds",
		                 out->max);
	err = upmc_spec_add(out, name, flags);
	if (err < 0)
		return err;
	out->for_metrics |= 1u << (out->n - 1);
	upmc_spec_event(out, out->n - 1)->metric_group = (unsigned char)group;
	return (int)out->n - 1;
}

/* Whether every event of def is in metric group g. */
static int group_has_all(struct upmc_spec *out, const struct upmc_metric_def *def, unsigned g)
{
	char name[UPMC_NAME_MAX];
	const char *p;
	unsigned i;

	for (p = def->events; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
		const char *comma = strchr(p, ',');
		upmc_format(name, sizeof(name), "%.*s", (int)(comma ? comma - p : (long)strlen(p)),
		            p);
		for (i = 0; i < out->n; i++)
			if (upmc_spec_event(out, i)->metric_group == g &&
			    !strcmp(upmc_spec_event(out, i)->name, name))
				break;
		if (i == out->n)
			return 0;
	}
	return 1;
}

/*
 * The perf group a multiplexed set counts metric j's inputs in (0 when it
 * does not multiplex: one pinned group holds them all). The kernel
 * schedules a group whole, so inputs in one group share their times, and
 * the formula's ratio is that of counts from one schedule. A metric whose
 * events all are in an earlier metric's group shares it (IPC and CPI);
 * otherwise it gets its own group, and an event that an earlier metric's
 * group counts is counted again in it.
 */
static unsigned group_for_metric(struct upmc_spec *out, const struct upmc_metric_def *def,
                                 unsigned j, unsigned flags)
{
	unsigned k;

	if (!(flags & UPMC_OPT_MULTIPLEX))
		return 0;
	for (k = 0; k < j; k++)
		if (out->metrics[k].n_in && group_has_all(out, def, k + 1))
			return k + 1;
	return j + 1;
}

/* One metric of the spec: its variant's events in the set, its formula
 * compiled. A metric this machine cannot compute is refused, or, with
 * UPMC_OPT_TIME_ONLY, kept with its reason (it then reads NAN). */
static int add_metric(struct upmc_spec *out, const struct upmc_metric_def *def, unsigned flags,
                      unsigned *join)
{
	struct upmc_metric *m;
	char why[UPMC_REASON_MAX] = "", name[UPMC_NAME_MAX];
	const struct upmc_metric_def *v = variant(def, flags, why, sizeof(why));
	const char *p;
	unsigned i, group;
	int err;

	for (i = 0; i < out->n_metrics; i++)
		if (!strcmp(out->metrics[i].def->name, def->name))
			return 0; /* a metric named twice, or by its group too */
	if (out->n_metrics == UPMC_MAX_METRICS)
		return upmc_fail(-E2BIG, "the spec names more than %d metrics", UPMC_MAX_METRICS);
	if (!v && !(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(-ENOENT, "metric '%s' cannot be computed here: %s", def->name,
		                 why);
	m = &out->metrics[out->n_metrics++];
	memset(m, 0, sizeof(*m));
	m->def = v ? v : def;
	if (!v) {
		upmc_format(m->reason, sizeof(m->reason), "%s", why);
		return 0;
	}
	group = *join ? *join : group_for_metric(out, v, out->n_metrics - 1, flags);
	*join = group;
	for (p = v->events; p; p = strchr(p, ','), p = p ? p + 1 : NULL) {
		const char *comma = strchr(p, ',');
		upmc_format(name, sizeof(name), "%.*s", (int)(comma ? comma - p : (long)strlen(p)),
		            p);
		if (m->n_in == UPMC_METRIC_INPUTS)
			return upmc_fail(-E2BIG, "metric '%s' needs more than %d events", def->name,
			                 UPMC_METRIC_INPUTS);
		err = counter_of(out, name, flags, group);
		if (err < 0)
			return err;
		m->in[m->n_in++] = (unsigned)err;
	}
	err = upmc_metric_compile(m);
	if (err < 0 && !m->reason[0])
		upmc_format(m->reason, sizeof(m->reason), "the formula of '%s' is malformed",
		            def->name);
	if (err < 0 && !(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(err, "metric '%s': %s", def->name, m->reason);
	return 0;
}

/* Whether some variant of def resolves here. */
static int resolvable(const struct upmc_metric_def *def, unsigned flags)
{
	char why[UPMC_REASON_MAX];

	return variant(def, flags, why, sizeof(why)) != NULL;
}

/*
 * A metric's name adds it; a group's name adds those of its metrics this
 * machine has (TopdownL1 has one more on AMD), or, when it has none, all
 * of them, so that each is refused or said as a metric named alone is.
 * A multiplexed set counts a group's metrics in one perf group: they are
 * one measurement (topdown's categories are shares of the same slots).
 */
int upmc_spec_add_metrics(struct upmc_spec *out, const char *item, unsigned flags)
{
	const struct upmc_metric_def *found[UPMC_METRIC_ROWS_MAX];
	unsigned n = named_by(item, found, UPMC_METRIC_ROWS_MAX), i, here = 0, join = 0;
	int group = strcmp(found[0]->name, item) != 0, err = 0;

	for (i = 0; group && i < n; i++)
		here += resolvable(found[i], flags);
	for (i = 0; i < n && err == 0; i++)
		if (!group || !here || resolvable(found[i], flags))
			err = add_metric(out, found[i], flags, group ? &join : &(unsigned){0});
	return err;
}

/* ---- the API ---- */

static int check_metric(const struct upmc_set *set, unsigned j, const char *fn)
{
	if (!set)
		return upmc_fail(-EINVAL, "%s: the set is NULL", fn);
	if (j >= set->state->n_metrics)
		return upmc_fail(-EINVAL, "%s: metric %u does not exist (the set has %u)", fn, j,
		                 set->state->n_metrics);
	return 0;
}

UPMC_API int upmc_metric_count(const struct upmc_set *set)
{
	if (!set)
		return upmc_fail(-EINVAL, "upmc_metric_count: the set is NULL");
	return (int)set->state->n_metrics;
}

UPMC_API const char *upmc_metric_name(const struct upmc_set *set, unsigned j)
{
	return check_metric(set, j, "upmc_metric_name") < 0 ? NULL
	                                                    : set->state->metric[j].def->name;
}

UPMC_API const char *upmc_metric_unit(const struct upmc_set *set, unsigned j)
{
	return check_metric(set, j, "upmc_metric_unit") < 0 ? NULL
	                                                    : set->state->metric[j].def->unit;
}

UPMC_API int upmc_metric_is_percent(const struct upmc_set *set, unsigned j)
{
	int err = check_metric(set, j, "upmc_metric_is_percent");

	return err < 0 ? err : set->state->metric[j].def->percent;
}

/* Why metric j cannot be computed now: its own reason, else that of an
 * input the set does not count. */
UPMC_API const char *upmc_metric_reason(const struct upmc_set *set, unsigned j)
{
	const struct upmc_metric *m;
	unsigned k;

	if (check_metric(set, j, "upmc_metric_reason") < 0)
		return NULL;
	m = &set->state->metric[j];
	if (m->reason[0])
		return m->reason;
	for (k = 0; k < m->n_in; k++)
		if (set->state->counter[m->in[k]].path == UPMC_PATH_UNAVAILABLE)
			return set->state->counter[m->in[k]].reason;
	return m->last_why;
}

double upmc_metric_value(const struct upmc_metric *m, const uint64_t *counts)
{
	double in[UPMC_METRIC_INPUTS];
	unsigned k;

	for (k = 0; k < m->n_in; k++)
		in[k] = counts[m->in[k]] == UPMC_NOT_COUNTED ? NAN : (double)counts[m->in[k]];
	return m->reason[0] ? NAN : upmc_metric_evaluate(m, in);
}

double upmc_metric_value_of(const struct upmc_metric *m, const double *counts)
{
	double in[UPMC_METRIC_INPUTS];
	unsigned k;

	for (k = 0; k < m->n_in; k++)
		in[k] = counts[m->in[k]];
	return m->reason[0] ? NAN : upmc_metric_evaluate(m, in);
}

void upmc_metrics_of(const struct upmc_set *set, const uint64_t *counts, double *values)
{
	unsigned j;

	for (j = 0; j < set->state->n_metrics; j++)
		values[j] = upmc_metric_value(&set->state->metric[j], counts);
}

struct upmc_metric_info upmc_metric_info_of(const struct upmc_metric_def *d, const char *why)
{
	return (struct upmc_metric_info){d->name, d->group, d->events, d->formula, d->unit,
	                                 d->desc, d->cpus,  d->source, d->percent, why};
}

void upmc_metric_describe(const struct upmc_metric *m, struct upmc_metric_info *info)
{
	*info = upmc_metric_info_of(m->def, m->reason);
}

void upmc_metrics_between(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                          uint64_t *counts, double *values)
{
	unsigned j;

	upmc_interval_of(set->state->multiplexed, set->n, before, after, counts, NULL);
	upmc_topdown_counts(set, before, after, counts);
	for (j = 0; j < set->state->n_metrics; j++) {
		struct upmc_metric *m = &set->state->metric[j];
		m->last_why[0] = '\0';
		values[j] = upmc_topdown_unmeasured(set, m, before, after, m->last_why,
		                                    sizeof(m->last_why))
		                    ? NAN
		                    : upmc_metric_value(m, counts);
	}
}

UPMC_API int upmc_metrics(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                          double *values)
{
	uint64_t counts[UPMC_MAX_COUNTERS];

	if (!set || !before || !after || !values)
		return upmc_fail(-EINVAL, "upmc_metrics: the set, a snapshot or values is NULL");
	upmc_metrics_between(set, before, after, counts, values);
	return (int)set->state->n_metrics;
}

UPMC_API int upmc_metrics_of_counts(const struct upmc_set *set, const double *counts,
                                    double *values)
{
	unsigned j;

	if (!set || !counts || !values)
		return upmc_fail(-EINVAL,
		                 "upmc_metrics_of_counts: the set, counts or values is NULL");
	for (j = 0; j < set->state->n_metrics; j++)
		values[j] = upmc_metric_value_of(&set->state->metric[j], counts);
	return (int)set->state->n_metrics;
}
