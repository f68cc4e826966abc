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
 * from different events on Intel, AMD and Arm): the CPU's identity picks
 * one, as perf's mapfile does (lib/core/metric_def.h), never whether
 * events resolve; where its events are missing, the metric says why. A
 * row without events says a kind of CPU has none of a group (or no such
 * metric, when it has the metric's name).
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

	if (!*kind) /* no core PMU: the CPU the library runs on, where known */
		kind = strcmp(UPMC_ARCH_NAME, "generic") ? UPMC_ARCH_NAME : "";
	return !def->arch || !*kind || !strcmp(def->arch, kind);
}

/* The definitions item names: a metric or a group of them (every variant
 * for this architecture). */
static unsigned named_by(const char *item, const struct upmc_metric_def **found, unsigned max)
{
	unsigned i, n = 0;

	/* The names first: upmc_metric_for_this_arch() asks the OS, which an
	 * item that names no metric (most: events) need not. */
	for (i = 0; i < upmc_metric_rows() && n < max; i++) {
		const struct upmc_metric_def *def = upmc_metric_row(i);
		if ((!strcmp(def->name, item) || !strcmp(def->group, item)) &&
		    upmc_metric_for_this_arch(def) && !upmc_metric_is_none(def))
			found[n++] = def;
	}
	return n;
}

/* Arrow Lake-H's third core type, its low-power E-cores: perf's metrics
 * (arrowlake/arl-metrics.json) have no Unit of it, nor has the catalogue. */
#define LOW_POWER_CORE "cpu_lowpower"

/* The core PMU an item "cpu_core/retiring/" names, into core, and where
 * its metric's name starts; NULL when item names no core type. */
static const char *core_type_of(const char *item, char *core, size_t size, char *name,
                                size_t name_size)
{
	static const char *const types[] = {"cpu_core", UPMC_METRIC_E_CORE, LOW_POWER_CORE};
	size_t len = strlen(item), k;

	for (k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		size_t n = strlen(types[k]);
		if (len > n + 2 && !strncmp(item, types[k], n) && item[n] == '/' &&
		    item[len - 1] == '/') {
			upmc_format(core, size, "%s", types[k]);
			upmc_format(name, name_size, "%.*s", (int)(len - n - 2), item + n + 1);
			return name;
		}
	}
	return NULL;
}

int upmc_is_metric(const char *item)
{
	const struct upmc_metric_def *def;
	char core[16], name[UPMC_NAME_MAX];

	if (named_by(item, &def, 1) > 0)
		return 1;
	/* "cpu_atom/retiring/": one core type's, on a hybrid CPU */
	return core_type_of(item, core, sizeof(core), name, sizeof(name)) &&
	       named_by(name, &def, 1) > 0 && upmc_os_hybrid_core(core);
}

/* Whether the pattern p[0..len) of a row's cpu_ids matches id: '?' is
 * any one character, and a last '-' also the end of an id without a
 * stepping. */
static int id_matches(const char *p, size_t len, const char *id)
{
	size_t k;

	for (k = 0; k < len; k++) {
		if (!id[k])
			return k + 1 == len && p[k] == '-';
		if (p[k] != '?' && p[k] != id[k])
			return 0;
	}
	return 1;
}

static int ids_match(const char *ids, const char *id)
{
	size_t len;

	for (; *ids; ids += len, ids += strspn(ids, " ")) {
		len = strcspn(ids, " ");
		if (len && id[0] && id_matches(ids, len, id))
			return 1;
	}
	return 0;
}

/* Whether this CPU's vendor (its id's part before the first '-') is one
 * of vendors (space-separated): 1 yes, 0 no, -1 when the id is not known. */
static int vendor_in(const char *vendors)
{
	char id[64];
	size_t len, vendor_len;

	upmc_os_cpu_id(id, sizeof(id));
	if (!id[0])
		return -1;
	vendor_len = strcspn(id, "-");
	for (; *vendors; vendors += len, vendors += strspn(vendors, " ")) {
		len = strcspn(vendors, " ");
		if (len == vendor_len && !strncmp(vendors, id, len))
			return 1;
	}
	return 0;
}

/* Whether def's run-time condition holds on this machine. */
static int when_holds(const struct upmc_metric_def *def)
{
	double slots = 0;

	if (!def->when)
		return 1;
	if (!strcmp(def->when, UPMC_METRIC_E_CORE))
		return 0; /* taken beside the default variant, by e_core_variant() */
	if (!strncmp(def->when, "vendor=", 7)) /* or not known */
		return vendor_in(def->when + 7) != 0;
	if (!strncmp(def->when, "vendor!=", 8)) /* and known */
		return vendor_in(def->when + 8) == 0;
	if (!strcmp(def->when, "smt-on"))
		return upmc_os_smt_active() == 1;
	if (!strcmp(def->when, "smt-off"))
		return upmc_os_smt_active() != 1;
	if (!strcmp(def->when, "slots=5"))
		return upmc_os_metric_constant("slots", &slots) == 0 && slots == 5;
	return 0;
}

/* Whether row v is a variant of name: its own (one that says the CPUs it
 * is for have no such metric, too), or one that says they have none of
 * group (named as the group). */
static int variant_of(const struct upmc_metric_def *v, const char *name, const char *group)
{
	return !strcmp(v->name, name) || (upmc_metric_is_none(v) && group[0] &&
	                                  !strcmp(v->group, group) && !strcmp(v->name, group));
}

/*
 * The variant of name this CPU takes, as perf's mapfile picks a CPU's
 * metrics: the first row for this CPU's id (and run-time state), else the
 * first for any CPU of its arch (of its vendor, where the row says), or
 * the first that says such CPUs have none; NULL when none is.
 */
static const struct upmc_metric_def *for_this_cpu(const char *name, const char *group)
{
	char id[64];
	unsigned pass, i;

	upmc_os_cpu_id(id, sizeof(id));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < upmc_metric_rows(); i++) {
			const struct upmc_metric_def *v = upmc_metric_row(i);
			if (variant_of(v, name, group) && upmc_metric_for_this_arch(v) &&
			    (pass ? !v->cpu_ids : v->cpu_ids && ids_match(v->cpu_ids, id)) &&
			    when_holds(v))
				return v;
		}
	return NULL;
}

/*
 * The variant of name for the E-cores of this hybrid CPU (its core PMU
 * cpu_atom), as perf's metrics of Unit cpu_atom are: a row for this CPU's
 * id that says so; NULL when this CPU is no hybrid with E-cores, or the
 * name has no such variant (it is then one metric over every core type,
 * or one for the other core type alone). group: of that group alone (a
 * group's name adds the E-cores' metrics of that group); NULL: any.
 */
static const struct upmc_metric_def *e_core_variant(const char *name, const char *group)
{
	char id[64];
	unsigned i;

	if (!upmc_os_hybrid_core(UPMC_METRIC_E_CORE))
		return NULL;
	upmc_os_cpu_id(id, sizeof(id));
	for (i = 0; i < upmc_metric_rows(); i++) {
		const struct upmc_metric_def *v = upmc_metric_row(i);
		if (!strcmp(v->name, name) && v->when && !strcmp(v->when, UPMC_METRIC_E_CORE) &&
		    v->cpu_ids && ids_match(v->cpu_ids, id) && upmc_metric_for_this_arch(v) &&
		    (!group || !strcmp(v->group, group)))
			return v;
	}
	return NULL;
}

/* text into out, cut where a sentence or clause ends when it is too long:
 * a reason is never cut in the middle of a word. */
static void whole_sentences(char *out, size_t size, const char *text)
{
	size_t len = strlen(text), cut;

	if (len < size) {
		upmc_format(out, size, "%s", text);
		return;
	}
	for (cut = size - 2; cut > 0 && !(strchr(";:,", text[cut]) && text[cut + 1] == ' '); cut--)
		;
	upmc_format(out, size, "%.*s.", (int)cut, text);
}

/* The CPU's id as a sentence shows it. */
static const char *shown_id(char *id, size_t size)
{
	upmc_os_cpu_id(id, size);
	if (!id[0])
		upmc_format(id, size, "%s", "not in /proc/cpuinfo");
	return id;
}

int upmc_metric_for_this_cpu(const struct upmc_metric_def *def, char *why, size_t size)
{
	const struct upmc_metric_def *v = for_this_cpu(def->name, def->group);
	char id[64], text[2 * UPMC_REASON_MAX];

	if (v == def || e_core_variant(def->name, NULL) == def)
		return 1;
	if (def->when && !strcmp(def->when, UPMC_METRIC_E_CORE))
		v = NULL; /* an E-core row is never another CPU's default variant */
	if (v)
		upmc_format(text, sizeof(text),
		            "it is for %s, and this CPU (id '%s') takes the variant for %s",
		            def->cpus, shown_id(id, sizeof(id)), v->cpus);
	else
		upmc_format(text, sizeof(text), "it is for %s, and this CPU's id is '%s'",
		            def->cpus, shown_id(id, sizeof(id)));
	whole_sentences(why, size, text);
	return 0;
}

/* Whether every event of def resolves on this machine: the one place the
 * catalogue's events are looked up. 0; -ENODEV when no core PMU is
 * visible; another -errno when an event is not this machine's; why in
 * why, a whole sentence. */
static int resolves(const struct upmc_metric_def *def, unsigned flags, char *why, size_t size)
{
	char name[UPMC_NAME_MAX], lack[UPMC_REASON_MAX], text[3 * UPMC_REASON_MAX];
	const char *p = def->events;
	struct upmc_event ev;
	int err = 0;

	for (; p && !err; p = upmc_metric_next_event(p)) {
		upmc_format(name, sizeof(name), "%.*s", (int)upmc_metric_event_len(p), p);
		err = upmc_event_parse(name, flags & ~UPMC_OPT_TIME_ONLY, &ev);
	}
	if (!err)
		return 0;
	if (upmc_os_no_core_pmu(lack, sizeof(lack)))
		err = -ENODEV;
	else if (def->lacks)
		upmc_format(lack, sizeof(lack), "%s; '%s' is not an event here", def->lacks, name);
	else
		upmc_format(lack, sizeof(lack), "%s", upmc_last_error());
	upmc_format(text, sizeof(text), "'%s' cannot be computed on this CPU (%s): %s", def->name,
	            def->cpus, lack);
	whole_sentences(why, size, text);
	return err;
}

/*
 * The variant of def's name this CPU takes (forced, when not NULL: one
 * core type's of a hybrid CPU), when its events resolve;
 * NULL, with why in a sentence, when not: *err is -ENOENT when no variant
 * is for this CPU (or one says it has none), or resolves()' error for
 * the variant it takes, in *taken.
 */
static const struct upmc_metric_def *variant(const struct upmc_metric_def *def, unsigned flags,
                                             char *why, size_t size,
                                             const struct upmc_metric_def **taken, int *err,
                                             const struct upmc_metric_def *forced)
{
	const struct upmc_metric_def *v = forced ? forced : for_this_cpu(def->name, def->group);
	char id[64], text[2 * UPMC_REASON_MAX];

	*taken = v;
	*err = -ENOENT;
	if (v && upmc_metric_is_none(v)) {
		upmc_format(text, sizeof(text), "%s have no %s: %s", v->cpus, v->name, v->desc);
		whole_sentences(why, size, text);
		return NULL;
	}
	if (!v) {
		upmc_format(text, sizeof(text),
		            "no variant of '%s' is for this CPU (id '%s'); upmc has it for %s%s",
		            def->name, shown_id(id, sizeof(id)), def->cpus,
		            strcmp(def->group, "TopdownL1") ? "" : " and other CPUs' TopdownL1");
		whole_sentences(why, size, text);
		return NULL;
	}
	*err = resolves(v, flags, why, size);
	return *err ? NULL : v;
}

/* The set's counter of event name, added when the set has none, in metric
 * group `group` (0: any). A counter of another metric group is not taken:
 * its counts come from another schedule, so the event is counted again in
 * this group. -errno when the set is full. */
static int counter_of(struct upmc_spec *out, const char *name, unsigned flags, unsigned group,
                      const char *missing)
{
	unsigned i;
	int err;

	for (i = 0; i < out->n; i++) {
		struct upmc_event *ev = upmc_spec_event(out, i);
		if (strcmp(ev->name, name) ||
		    (group && ev->metric_group && ev->metric_group != group))
			continue;
		if (group) /* an input counted alone leaves a group's counter in it */
			ev->metric_group = (unsigned char)group;
		out->for_metrics |= 1u << i;
		return (int)i;
	}
	if (out->n == out->max)
		return upmc_fail(-E2BIG,
		                 "the metrics need more than %u events, the most one set holds",
		                 out->max);
	err = missing ? upmc_spec_add_missing(out, name, missing) : upmc_spec_add(out, name, flags);
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

	for (p = def->events; p; p = upmc_metric_next_event(p)) {
		upmc_format(name, sizeof(name), "%.*s", (int)upmc_metric_event_len(p), p);
		for (i = 0; i < out->n; i++)
			if (upmc_spec_event(out, i)->metric_group == g &&
			    !strcmp(upmc_spec_event(out, i)->name, name))
				break;
		if (i == out->n)
			return 0;
	}
	return 1;
}

/* def's entry in upmc_metrics_apart: a metric that joins no other's perf
 * group (and may count each input alone); NULL when none. */
static const struct upmc_metric_apart *apart(const struct upmc_metric_def *def)
{
	unsigned i;

	for (i = 0; i < upmc_metrics_apart_n; i++)
		if ((!upmc_metrics_apart[i].name ||
		     !strcmp(def->name, upmc_metrics_apart[i].name)) &&
		    !strcmp(def->cpus, upmc_metrics_apart[i].cpus))
			return &upmc_metrics_apart[i];
	return NULL;
}

/*
 * The perf group a multiplexed set counts metric j's inputs in (0 when it
 * does not multiplex: one pinned group holds them all; 0 too for a metric
 * whose inputs no group of a thread's counters holds: each alone). The kernel
 * schedules a group whole, so inputs in one group share their times, and
 * the formula's ratio is that of counts from one schedule. A metric whose
 * events all are in an earlier metric's group shares it (IPC and CPI);
 * otherwise it gets its own group, and an event that an earlier metric's
 * group counts is counted again in it.
 */
static unsigned group_for_metric(struct upmc_spec *out, const struct upmc_metric_def *def,
                                 unsigned j, unsigned flags)
{
	const struct upmc_metric_apart *a = apart(def);
	unsigned k;

	if (!(flags & UPMC_OPT_MULTIPLEX) || (a && a->alone))
		return 0;
	for (k = 0; k < j; k++)
		if (out->metrics[k].n_in && group_has_all(out, def, k + 1))
			return k + 1;
	return j + 1;
}

/* The name metric m has in its set. */
static const char *shown_name(const struct upmc_metric *m)
{
	return m->name[0] ? m->name : m->def->name;
}

/* The most events a group's metrics share one perf group with, besides
 * the topdown metric events (PERF_METRICS' fields take no counter): the
 * general counters a big x86 core gives a thread, and more than an Arm or
 * AMD core's TopdownL1 needs. */
#define UPMC_JOINED_MAX 8

/* Whether metric group g, with def's events added, needs at most
 * UPMC_JOINED_MAX counters besides the topdown metric events. */
static int joined_fits(struct upmc_spec *out, const struct upmc_metric_def *def, unsigned g)
{
	char name[UPMC_NAME_MAX];
	unsigned i, n = 0;
	const char *p;

	for (i = 0; i < out->n; i++)
		n += upmc_spec_event(out, i)->metric_group == g &&
		     strncmp(upmc_spec_event(out, i)->name, "topdown-", 8);
	for (p = def->events; p; p = upmc_metric_next_event(p)) {
		upmc_format(name, sizeof(name), "%.*s", (int)upmc_metric_event_len(p), p);
		for (i = 0; i < out->n; i++)
			if (upmc_spec_event(out, i)->metric_group == g &&
			    !strcmp(upmc_spec_event(out, i)->name, name))
				break;
		n += i == out->n && strncmp(name, "topdown-", 8);
	}
	return n <= UPMC_JOINED_MAX;
}

/* One metric of the spec, named shown in the set: its variant's (forced,
 * when not NULL) events in the set, its formula compiled. A metric this
 * machine cannot compute is refused, or, with UPMC_OPT_TIME_ONLY, kept
 * with its reason (it then reads NAN). */
static int add_metric(struct upmc_spec *out, const struct upmc_metric_def *def, unsigned flags,
                      unsigned *join, const char *shown, const struct upmc_metric_def *forced)
{
	struct upmc_metric *m;
	char why[UPMC_REASON_MAX] = "", name[UPMC_NAME_MAX];
	const struct upmc_metric_def *taken;
	int err, status;
	const struct upmc_metric_def *v =
	        variant(def, flags, why, sizeof(why), &taken, &status, forced);
	const char *p;
	unsigned i, group;
	int kept_apart;
	/* No core PMU: the CPU's variant is kept, its events unavailable for
	 * the reason, as events of a missing PMU are (a set with
	 * UPMC_OPT_TIME_ONLY, upmc stat's list). */
	int unavailable =
	        !v && status == -ENODEV && ((flags & UPMC_OPT_TIME_ONLY) || !out->counters);

	for (i = 0; i < out->n_metrics; i++)
		if (!strcmp(shown_name(&out->metrics[i]), shown))
			return 0; /* a metric named twice, or by its group too */
	if (out->n_metrics == UPMC_MAX_METRICS)
		return upmc_fail(-E2BIG, "the spec names more than %d metrics", UPMC_MAX_METRICS);
	if (!v && !unavailable && !(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(status == -ENODEV ? -ENODEV : -ENOENT, "%s", why);
	m = &out->metrics[out->n_metrics++];
	memset(m, 0, sizeof(*m));
	m->def = v ? v : taken && !upmc_metric_is_none(taken) ? taken : def;
	upmc_format(m->name, sizeof(m->name), "%s", strcmp(shown, def->name) ? shown : "");
	if (unavailable)
		v = taken;
	if (!v) {
		upmc_format(m->reason, sizeof(m->reason), "%s", why);
		return 0;
	}
	/* a group's metrics in the first one's perf group, while they fit */
	kept_apart = apart(v) != NULL;
	group = *join && !kept_apart && joined_fits(out, v, *join)
	                ? *join
	                : group_for_metric(out, v, out->n_metrics - 1, flags);
	*join = *join || kept_apart ? *join : group;
	for (p = v->events; p; p = upmc_metric_next_event(p)) {
		upmc_format(name, sizeof(name), "%.*s", (int)upmc_metric_event_len(p), p);
		if (m->n_in == UPMC_METRIC_INPUTS)
			return upmc_fail(-E2BIG, "metric '%s' needs more than %d events", def->name,
			                 UPMC_METRIC_INPUTS);
		err = counter_of(out, name, flags, group, unavailable ? why : NULL);
		if (err < 0)
			return err;
		m->in[m->n_in++] = (unsigned)err;
	}
	err = upmc_metric_compile(m);
	if (unavailable)
		upmc_format(m->reason, sizeof(m->reason), "%s", why);
	if (err < 0 && !m->reason[0])
		upmc_format(m->reason, sizeof(m->reason), "the formula of '%s' is malformed",
		            def->name);
	if (err < 0 && !(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(err, "metric '%s': %s", def->name, m->reason);
	return 0;
}

/* Whether this CPU takes a variant of def that is no row saying it has
 * none, and one of group (a CPU's variant may be in a group of its own). */
static int is_for_this_cpu(const struct upmc_metric_def *def, const char *group)
{
	const struct upmc_metric_def *v = for_this_cpu(def->name, def->group);

	return v && !upmc_metric_is_none(v) && !strcmp(v->group, group);
}

/*
 * def as the set counts it: on a hybrid CPU whose catalogue has an E-core
 * variant of its name, one metric per core type, "cpu_core/NAME/" (the
 * variant the CPU's id takes) and "cpu_atom/NAME/", as perf prints a
 * metric per PMU, each from its own core type's counts; or the core type
 * core names alone. Otherwise one metric, NAME. Added for group, only an
 * E-core variant of that group counts.
 */
static int add_per_core_type(struct upmc_spec *out, const struct upmc_metric_def *def,
                             unsigned flags, unsigned *join, const char *core, const char *group)
{
	const struct upmc_metric_def *e = e_core_variant(def->name, group);
	char shown[UPMC_NAME_MAX];
	int err = 0;

	if (!e && core)
		return upmc_fail(-ENOENT,
		                 "'%s' has no variant per core type on this CPU (it is one metric "
		                 "over every core type, or none): name it without '%s/'",
		                 def->name, core);
	if (!e)
		return add_metric(out, def, flags, join, def->name, NULL);
	if (!core || strcmp(core, UPMC_METRIC_E_CORE)) {
		upmc_format(shown, sizeof(shown), "cpu_core/%s/", def->name);
		err = add_metric(out, def, flags, join, shown, NULL);
	}
	if (!err && (!core || !strcmp(core, UPMC_METRIC_E_CORE))) {
		upmc_format(shown, sizeof(shown), "%s/%s/", UPMC_METRIC_E_CORE, def->name);
		err = add_metric(out, e, flags, join, shown, e);
	}
	return err;
}

/*
 * A metric's name adds it; a group's name adds those of its metrics this
 * CPU has a variant of (TopdownL1 has one more on AMD), or, when it has
 * none, all of them, so that each is refused or said as a metric named alone is.
 * A multiplexed set counts a group's metrics in one perf group: they are
 * one measurement (topdown's categories are shares of the same slots).
 * "cpu_atom/NAME/" names one core type's of a hybrid CPU (a group: those
 * of its metrics that have one).
 */
int upmc_spec_add_metrics(struct upmc_spec *out, const char *item, unsigned flags)
{
	const struct upmc_metric_def *found[UPMC_METRIC_ROWS_MAX];
	char core_buf[16], name[UPMC_NAME_MAX];
	const char *base = core_type_of(item, core_buf, sizeof(core_buf), name, sizeof(name));
	const char *core = base ? core_buf : NULL;
	unsigned n, i, here = 0, join = 0;
	int group, err = 0;

	base = base ? base : item;
	if (core && !strcmp(core, LOW_POWER_CORE))
		return upmc_fail(
		        -ENOENT,
		        "'%s' has no variant for the low-power E-cores (the core PMU "
		        "cpu_lowpower): perf's metrics define none for them, and upmc does "
		        "not give them another core type's formula; name it without "
		        "'cpu_lowpower/'",
		        base);
	n = named_by(base, found, UPMC_METRIC_ROWS_MAX);
	group = strcmp(found[0]->name, base) != 0;
	for (i = 0; group && i < n; i++)
		here += is_for_this_cpu(found[i], base);
	for (i = 0; i < n && err == 0; i++)
		if ((!group || !here || is_for_this_cpu(found[i], base)) &&
		    !(group && core && !e_core_variant(found[i]->name, base)))
			err = add_per_core_type(out, found[i], flags,
			                        group ? &join : &(unsigned){0}, core,
			                        group ? base : NULL);
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
	                                                    : shown_name(&set->state->metric[j]);
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

/*
 * A metric's inputs come as two arrays: the counts of counter i between
 * two snapshots of a set that is neither multiplexed nor read topdown,
 * after[i] - before[i] (UPMC_NOT_COUNTED where either did not count), so
 * that upmc_metrics() of such a set needs no array of counts; or, with
 * before NULL, after[i], counts the caller has.
 */
static UPMC_ALWAYS_INLINE uint64_t input_count(const uint64_t *before, const uint64_t *after,
                                               unsigned i)
{
	return before ? upmc_count_between(before[i], after[i]) : after[i];
}

/* A ratio's value as upmc_metric_evaluate() gives it: NAN where an input
 * did not count or the denominator is 0. */
static UPMC_ALWAYS_INLINE double ratio_value(const struct upmc_metric *m, const uint64_t *before,
                                             const uint64_t *after)
{
	const uint64_t num = input_count(before, after, m->num),
	               den = input_count(before, after, m->den);

	if (UPMC_UNLIKELY(num == UPMC_NOT_COUNTED || den == UPMC_NOT_COUNTED || !den ||
	                  m->reason[0]))
		return NAN;
	return (double)num / (double)den;
}

/* Any formula's value, by its steps. */
static double formula_value(const struct upmc_metric *m, const uint64_t *before,
                            const uint64_t *after)
{
	double in[UPMC_METRIC_INPUTS];
	unsigned k;

	for (k = 0; k < m->n_in; k++) {
		const uint64_t count = input_count(before, after, m->in[k]);
		in[k] = count == UPMC_NOT_COUNTED ? NAN : (double)count;
	}
	return m->reason[0] ? NAN : upmc_metric_evaluate(m, in);
}

static UPMC_ALWAYS_INLINE double metric_value(const struct upmc_metric *m, const uint64_t *before,
                                              const uint64_t *after)
{
	return m->ratio ? ratio_value(m, before, after) : formula_value(m, before, after);
}

double upmc_metric_value(const struct upmc_metric *m, const uint64_t *counts)
{
	return metric_value(m, NULL, counts);
}

/* A ratio of counts the caller has, as the steps give it: NAN where an
 * input is NAN or the denominator 0. */
static double counts_ratio(const struct upmc_metric *m, double num, double den)
{
	return isnan(num) || isnan(den) || den == 0 || m->reason[0] ? NAN : num / den;
}

double upmc_metric_value_of(const struct upmc_metric *m, const double *counts)
{
	double in[UPMC_METRIC_INPUTS];
	unsigned k;

	if (m->ratio)
		return counts_ratio(m, counts[m->num], counts[m->den]);
	for (k = 0; k < m->n_in; k++)
		in[k] = counts[m->in[k]];
	return m->reason[0] ? NAN : upmc_metric_evaluate(m, in);
}

/* Every metric of the set from its inputs (input_count()); returns
 * upmc_metric_count(). */
static UPMC_ALWAYS_INLINE int metrics_of(const struct upmc_set *set, const uint64_t *before,
                                         const uint64_t *after, double *values)
{
	const struct upmc_metric *metric = set->state->metric;
	const unsigned n = set->state->n_metrics;
	unsigned j;

	for (j = 0; j < n; j++)
		values[j] = metric_value(&metric[j], before, after);
	return (int)n;
}

void upmc_metrics_of(const struct upmc_set *set, const uint64_t *counts, double *values)
{
	metrics_of(set, NULL, counts, values);
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

/* upmc_metrics_between() of a multiplexed set (its counts scaled), or of
 * one that reads topdown: its counts adjusted, and NAN where PERF_METRICS
 * cannot measure the interval (with why). Out of line: the other sets'
 * metrics need no frame for it. */
static UPMC_COLD int multiplexed_or_topdown_metrics(const struct upmc_set *set,
                                                    const uint64_t *before, const uint64_t *after,
                                                    uint64_t *counts, double *values)
{
	unsigned j;

	upmc_interval_of(set->state->multiplexed, set->n, before, after, counts, NULL);
	if (!set->state->topdown)
		return metrics_of(set, NULL, counts, values);
	upmc_topdown_counts(set, before, after, counts);
	for (j = 0; j < set->state->n_metrics; j++) {
		struct upmc_metric *m = &set->state->metric[j];
		m->last_why[0] = '\0';
		values[j] = upmc_topdown_unmeasured(set, m, before, after, m->last_why,
		                                    sizeof(m->last_why))
		                    ? NAN
		                    : upmc_metric_value(m, counts);
	}
	return (int)set->state->n_metrics;
}

/* Most sets are neither multiplexed nor read topdown: each count is a
 * difference, and no last_why is ever written. */
static UPMC_ALWAYS_INLINE int is_plain(const struct upmc_set *set)
{
	return !set->state->multiplexed && !set->state->topdown;
}

int upmc_metrics_between(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                         uint64_t *counts, double *values)
{
	if (UPMC_UNLIKELY(!is_plain(set)))
		return multiplexed_or_topdown_metrics(set, before, after, counts, values);
	upmc_interval_of(0, set->n, before, after, counts, NULL);
	return metrics_of(set, NULL, counts, values);
}

/* A plain set's metrics straight from the two snapshots: no counts to
 * keep, so none are computed but the inputs'. */
UPMC_API int upmc_metrics(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                          double *values)
{
	uint64_t counts[UPMC_MAX_COUNTERS];

	if (!set || !before || !after || !values)
		return upmc_fail(-EINVAL, "upmc_metrics: the set, a snapshot or values is NULL");
	if (UPMC_LIKELY(is_plain(set)))
		return metrics_of(set, before, after, values);
	return multiplexed_or_topdown_metrics(set, before, after, counts, values);
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
