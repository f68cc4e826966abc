/* SPDX-License-Identifier: MIT */
/*
 * Zones without a viewer: per zone name, the count, total and self time,
 * time statistics, counter totals and the answers derived from them, as a
 * table and as JSON: the metrics the spec names, each the metric of the
 * name's totals, or, when it names none, the ratios its counters allow
 * (IPC, miss rates).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/stats.h"
#include "zone_internal.h"

struct name_total {
	const struct upmc_zone_loc *loc; /* the name's first call site */
	uint64_t count, total_ticks, self_ticks;
	struct upmc_samples *ns;
	uint64_t total[UPMC_MAX_COUNTERS], self[UPMC_MAX_COUNTERS], counted[UPMC_MAX_COUNTERS];
	/* Each metric's inputs added up over the zones where all of them
	 * counted, so that a metric of the totals never mixes zones. */
	uint64_t metric_in[UPMC_MAX_METRICS][UPMC_METRIC_INPUTS];
	uint64_t metric_zones[UPMC_MAX_METRICS];
};

struct totals {
	struct name_total *name;
	size_t n, cap;
	size_t *slot; /* hash of the names: index + 1, 0 when free */
	size_t slots;
	struct upmc_samples *frame_ns; /* from one frame mark to the next on a thread */
	uint64_t frames;
};

/* A name as a terminal should get it: control bytes written as \xNN
 * (upmc_printable()), so that a name cannot move the cursor or change
 * colours. Room for the longest name, a thread's reason, escaped. */
struct printable_name {
	char s[4 * UPMC_REASON_MAX + 8];
};

static const char *printable(struct printable_name *buf, const char *name)
{
	upmc_printable(buf->s, sizeof(buf->s), name);
	return buf->s;
}

/* A column of answers: a ratio of two counters, when both are in the
 * profile, or (metric) the spec's metric num. */
struct ratio {
	unsigned num, den;
	char label[2 * UPMC_NAME_MAX + 4];
	int percent;
	int metric;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static int rehash(struct totals *t, size_t slots)
{
	size_t i, *slot = calloc(slots, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t h = hash(t->name[i].loc->name) & (slots - 1);
		while (slot[h])
			h = (h + 1) & (slots - 1);
		slot[h] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->slots = slots;
	return 0;
}

static struct name_total *total_for(struct totals *t, const struct upmc_zone_loc *loc)
{
	struct name_total *nt;
	size_t h;

	if (2 * (t->n + 1) > t->slots && rehash(t, t->slots ? 2 * t->slots : 64) < 0)
		return NULL;
	for (h = hash(loc->name) & (t->slots - 1); t->slot[h]; h = (h + 1) & (t->slots - 1))
		if (!strcmp(t->name[t->slot[h] - 1].loc->name, loc->name))
			return &t->name[t->slot[h] - 1];
	if (t->n == t->cap) {
		struct name_total *bigger =
		        realloc(t->name, (t->cap = 2 * t->cap + 16) * sizeof(*nt));
		if (!bigger)
			return NULL;
		t->name = bigger;
	}
	nt = &t->name[t->n];
	memset(nt, 0, sizeof(*nt));
	nt->loc = loc;
	nt->ns = malloc(sizeof(*nt->ns));
	if (!nt->ns)
		return NULL;
	upmc_samples_reset(nt->ns);
	t->slot[h] = ++t->n;
	return nt;
}

static void free_totals(struct totals *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->name[i].ns);
	free(t->name);
	free(t->slot);
	free(t->frame_ns);
}

/* A zone whose topdown could not be measured is left out of the topdown
 * metrics' inputs: the totals are of the zones that could. */
static void add_metric_inputs(const struct upmc_profile *p, const struct zone_counts *c,
                              struct name_total *nt)
{
	const uint64_t *delta = c->delta;
	unsigned j, k;

	for (j = 0; j < p->n_metrics; j++) {
		const struct upmc_metric *m = &p->metric[j];
		if (c->unmeasured[j])
			continue;
		for (k = 0; k < m->n_in && delta[m->in[k]] != UPMC_NOT_COUNTED; k++)
			;
		if (k < m->n_in)
			continue;
		for (k = 0; k < m->n_in; k++)
			nt->metric_in[j][k] += delta[m->in[k]];
		nt->metric_zones[j]++;
	}
}

static void add_zone(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                     const struct zone_done *z, struct name_total *nt)
{
	struct zone_counts buf;
	struct upmc_zone_info info;
	unsigned i;

	upmc_zone_info(p, t, z, &buf, &info);
	nt->count++;
	nt->total_ticks += z->t1 - z->t0;
	nt->self_ticks += z->t1 - z->t0 - z->child_ticks;
	upmc_samples_add(nt->ns, info.end_ns - info.begin_ns);
	for (i = 0; i < p->n; i++)
		if (info.delta[i] != UPMC_NOT_COUNTED) {
			nt->counted[i]++;
			nt->total[i] += info.delta[i];
			nt->self[i] += info.self[i];
		}
	add_metric_inputs(p, &buf, nt);
}

static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Frame times: from each frame mark to the thread's next of the same name. */
static int add_frames(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                      struct totals *tot)
{
	size_t i, j;

	if (!tot->frame_ns) {
		tot->frame_ns = malloc(sizeof(*tot->frame_ns));
		if (!tot->frame_ns)
			return -ENOMEM;
		upmc_samples_reset(tot->frame_ns);
	}
	tot->frames += t->n_frames;
	for (i = 1; i < t->n_frames; i++)
		for (j = i; j-- > 0;)
			if (same_name(t->frames[j].name, t->frames[i].name)) {
				upmc_samples_add(tot->frame_ns,
				                 upmc_zone_ns(p, t->frames[i].t) -
				                         upmc_zone_ns(p, t->frames[j].t));
				break;
			}
	return 0;
}

static int by_total_time(const void *a, const void *b)
{
	const struct name_total *x = a, *y = b;

	return (x->total_ticks < y->total_ticks) - (x->total_ticks > y->total_ticks);
}

static int gather(const struct upmc_profile *p, struct totals *tot)
{
	const struct upmc_zone_thread *t;
	size_t i;

	memset(tot, 0, sizeof(*tot));
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		for (i = 0; i < t->n_zones; i++) {
			struct name_total *nt = total_for(tot, t->zones[i].loc);
			if (!nt)
				return upmc_fail(-ENOMEM, "out of memory adding up zones");
			add_zone(p, t, &t->zones[i], nt);
		}
		if (add_frames(p, t, tot) < 0)
			return upmc_fail(-ENOMEM, "out of memory adding up frames");
	}
	if (tot->n > 1)
		qsort(tot->name, tot->n, sizeof(*tot->name), by_total_time);
	return 0;
}

/* ---- ratios ---- */

/* The counter named base (modifiers aside), or -1. */
static int counter_named(const struct upmc_profile *p, const char *base, size_t len)
{
	unsigned i;

	for (i = 0; i < p->n; i++)
		if (!strncmp(p->counter[i], base, len) &&
		    (p->counter[i][len] == '\0' || p->counter[i][len] == ':'))
			return (int)i;
	return -1;
}

static int counter_is(const struct upmc_profile *p, const char *name)
{
	return counter_named(p, name, strlen(name));
}

/* IPC, and each "<x>-misses" over "<x>s", "<x>es", "<x>-references" or
 * "<x>-accesses" (branch-misses/branches, L1-dcache-load-misses/L1-dcache-loads,
 * cache-misses/cache-references). */
static unsigned find_ratios(const struct upmc_profile *p, struct ratio *r)
{
	static const char *const base_of_misses[] = {"s", "es", "-references", "-accesses"};
	unsigned i, j, n = 0;
	int num = counter_is(p, "instructions"), den = counter_is(p, "cycles");

	if (den < 0)
		den = counter_is(p, "cpu-cycles");
	if (num >= 0 && den >= 0) {
		r[n] = (struct ratio){(unsigned)num, (unsigned)den, "IPC", 0, 0};
		n++;
	}
	for (i = 0; i < p->n; i++) {
		const char *name = p->counter[i], *colon = strchr(name, ':');
		size_t len = colon ? (size_t)(colon - name) : strlen(name);
		char want[UPMC_NAME_MAX];
		if (len <= 7 || strncmp(name + len - 7, "-misses", 7))
			continue;
		for (j = 0; j < 4; j++) {
			upmc_format(want, sizeof(want), "%.*s%s", (int)(len - 7), name,
			            base_of_misses[j]);
			den = counter_is(p, want);
			if (den >= 0)
				break;
		}
		if (den < 0)
			continue;
		r[n].num = i;
		r[n].den = (unsigned)den;
		r[n].percent = 1;
		r[n].metric = 0;
		upmc_format(r[n].label, sizeof(r[n].label), "%.*s/%s", (int)len, name, want);
		n++;
	}
	return n;
}

/* The metrics the spec names, as columns. */
static unsigned metric_columns(const struct upmc_profile *p, struct ratio *r)
{
	unsigned j;

	for (j = 0; j < p->n_metrics; j++) {
		r[j] = (struct ratio){j, 0, "", upmc_zone_metric_is_percent(p, j), 1};
		upmc_format(r[j].label, sizeof(r[j].label), "%s", upmc_zone_metric_name(p, j));
	}
	return p->n_metrics;
}

/* The answers as columns: the spec's metrics, else the ratios found. */
static unsigned columns(const struct upmc_profile *p, struct ratio *r)
{
	return p->n_metrics ? metric_columns(p, r) : find_ratios(p, r);
}

/* Metric j of a name's totals over the zones where its inputs all
 * counted; NAN when there are none. */
static double metric_of_totals(const struct upmc_profile *p, const struct name_total *nt,
                               unsigned j)
{
	const struct upmc_metric *m = &p->metric[j];
	uint64_t counts[UPMC_MAX_COUNTERS];
	unsigned i;

	if (!nt->metric_zones[j])
		return NAN;
	for (i = 0; i < p->n; i++)
		counts[i] = UPMC_NOT_COUNTED;
	for (i = 0; i < m->n_in; i++)
		counts[m->in[i]] = nt->metric_in[j][i];
	return upmc_zone_metric_of(p, j, counts);
}

/* The ratio over a name's zones, in percent where it is one; NAN when it
 * cannot be had (a counter did not count, a denominator is 0). */
static double ratio_of(const struct upmc_profile *p, const struct name_total *nt,
                       const struct ratio *r)
{
	if (r->metric)
		return metric_of_totals(p, nt, r->num) * (r->percent ? 100 : 1);
	if (!nt->counted[r->num] || !nt->counted[r->den] || !nt->total[r->den])
		return NAN;
	return (double)nt->total[r->num] / (double)nt->total[r->den] * (r->percent ? 100 : 1);
}

/* ---- the table ---- */

/* Why a thread records no counter, once for all the threads with that reason. */
static void print_why(const struct upmc_profile *p, const struct upmc_zone_thread *t, FILE *out)
{
	const struct upmc_zone_thread *u;
	struct printable_name buf;

	if (!t->why[0])
		return;
	for (u = upmc_zone_threads(p); u != t; u = upmc_zone_thread_next(u))
		if (!strcmp(u->why, t->why))
			return;
	fprintf(out, "not counted on %s", printable(&buf, t->name));
	for (u = upmc_zone_thread_next(t); u; u = upmc_zone_thread_next(u))
		if (!strcmp(u->why, t->why))
			fprintf(out, ", %s", printable(&buf, u->name));
	fprintf(out, ": %s\n", printable(&buf, t->why));
}

/* Why a metric is not computed here, once for the table. */
static void print_not_computed(void *arg, unsigned j, const char *why)
{
	struct zone_writing *w = arg;
	struct printable_name buf;

	fprintf(w->out, "%s is not computed: ", upmc_zone_metric_name(w->p, j));
	fprintf(w->out, "%s\n", printable(&buf, why));
}

/* Why some zones have no topdown metric, once for the table. */
static void print_unmeasured(void *arg, const char *note)
{
	struct printable_name buf;

	fprintf(arg, "%s\n", printable(&buf, note));
}

static void print_header(const struct upmc_profile *p, const struct totals *tot, FILE *out)
{
	struct upmc_profile_stats st;
	const struct upmc_zone_thread *t;
	struct upmc_stat fs;
	unsigned i;

	upmc_zone_totals(p, &st);
	fprintf(out,
	        "upmc profile: %u thread%s, %llu zones; %llu dropped, %llu unbalanced ends, "
	        "%llu refused, %llu open\n",
	        st.threads, st.threads == 1 ? "" : "s", (unsigned long long)st.zones,
	        (unsigned long long)st.dropped, (unsigned long long)st.unbalanced,
	        (unsigned long long)st.refused, (unsigned long long)st.open);
	if (tot->frames) {
		upmc_samples_stat(tot->frame_ns, 0, &fs);
		fprintf(out, "frames: %llu", (unsigned long long)tot->frames);
		if (fs.count)
			fprintf(out, ", %.3f us mean, %.3f us median, %.3f us max", fs.mean / 1e3,
			        fs.median / 1e3, fs.max / 1e3);
		fprintf(out, "; %llu dropped\n", (unsigned long long)st.dropped_frames);
	}
	fprintf(out, "counters:");
	for (i = 0; i < p->n; i++)
		fprintf(out, "%s %s", i ? "," : "", p->counter[i]);
	fprintf(out, "%s\n", p->n ? "" : " none (time only)");
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		print_why(p, t, out);
}

static int name_width(const struct totals *tot)
{
	struct printable_name buf;
	size_t i, w = 4;

	for (i = 0; i < tot->n; i++)
		if (strlen(printable(&buf, tot->name[i].loc->name)) > w)
			w = strlen(buf.s);
	return (int)w;
}

static void print_row(const struct upmc_profile *p, const struct name_total *nt, int width,
                      const struct ratio *r, unsigned n_ratios, FILE *out)
{
	struct printable_name buf;
	struct upmc_stat st;
	unsigned i;

	upmc_samples_stat(nt->ns, 0, &st);
	fprintf(out, "%-*s %8llu %14.3f %14.3f %12.3f %12.3f %12.3f", width,
	        printable(&buf, nt->loc->name), (unsigned long long)nt->count,
	        (double)upmc_zone_duration_ns(p, nt->total_ticks) / 1e3,
	        (double)upmc_zone_duration_ns(p, nt->self_ticks) / 1e3, st.mean / 1e3,
	        st.median / 1e3, st.max / 1e3);
	for (i = 0; i < p->n; i++) {
		int w = strlen(p->counter[i]) > 14 ? (int)strlen(p->counter[i]) : 14;
		if (!nt->counted[i])
			fprintf(out, " %*s", w, "n/a");
		else
			fprintf(out, " %*llu%s", w - (nt->counted[i] < nt->count),
			        (unsigned long long)nt->total[i],
			        nt->counted[i] < nt->count ? "*" : "");
	}
	for (i = 0; i < n_ratios; i++) {
		int w = strlen(r[i].label) > 8 ? (int)strlen(r[i].label) : 8;
		double v = ratio_of(p, nt, &r[i]);
		if (!isfinite(v))
			fprintf(out, " %*s", w, "n/a");
		else
			fprintf(out, r[i].percent ? " %*.2f%%" : " %*.2f", w - r[i].percent, v);
	}
	fputc('\n', out);
}

int upmc_zone_write_table(struct upmc_profile *p, FILE *out)
{
	struct ratio r[UPMC_MAX_COUNTERS + UPMC_MAX_METRICS];
	unsigned n_ratios = columns(p, r), i;
	struct totals tot;
	int err = gather(p, &tot), width = name_width(&tot);
	size_t k;

	if (err < 0) {
		free_totals(&tot);
		return err;
	}
	print_header(p, &tot, out);
	fprintf(out, "\n%-*s %8s %14s %14s %12s %12s %12s", width, "zone", "calls", "total us",
	        "self us", "mean us", "median us", "max us");
	for (i = 0; i < p->n; i++)
		fprintf(out, " %14s", p->counter[i]);
	for (i = 0; i < n_ratios; i++)
		fprintf(out, " %8s", r[i].label);
	fputc('\n', out);
	for (k = 0; k < tot.n; k++)
		print_row(p, &tot.name[k], width, r, n_ratios, out);
	fprintf(out,
	        "\ncounters are totals over a name's zones (* where some of them did not "
	        "count); %s are of the totals\n",
	        p->n_metrics ? "metrics" : "ratios");
	upmc_zone_metrics_not_computed(p, print_not_computed, &(struct zone_writing){p, out, 0});
	upmc_zone_topdown_unmeasured(p, print_unmeasured, out);
	free_totals(&tot);
	return 0;
}

/* ---- JSON ---- */

static void json_stats(FILE *out, const struct upmc_samples *s)
{
	struct upmc_stat st;

	upmc_samples_stat(s, 0, &st);
	fprintf(out, "\"min_ns\":%.3f,\"median_ns\":%.3f,\"mean_ns\":%.3f,\"max_ns\":%.3f", st.min,
	        st.median, st.mean, st.max);
}

static void json_threads(const struct upmc_profile *p, FILE *out)
{
	const struct upmc_zone_thread *t;
	char label[ZONE_THREAD_NAME + 16];

	fprintf(out, "\"threads\":[");
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		upmc_zone_label(p, t, label, sizeof(label));
		fprintf(out, "%s{\"name\":", t == upmc_zone_threads(p) ? "" : ",");
		upmc_json_string(out, label);
		fprintf(out, ",\"tid\":%llu,\"zones\":%llu,\"counted\":%s,\"why\":",
		        (unsigned long long)t->tid, (unsigned long long)t->n_zones,
		        t->k ? "true" : "false");
		upmc_json_string(out, t->why);
		fputc('}', out);
	}
	fprintf(out, "],\n");
}

static void json_zone(const struct upmc_profile *p, const struct name_total *nt,
                      const struct ratio *r, unsigned n_ratios, FILE *out)
{
	unsigned i;

	fprintf(out, "{\"name\":");
	upmc_json_string(out, nt->loc->name);
	fprintf(out, ",\"file\":");
	upmc_json_string(out, nt->loc->file ? nt->loc->file : "");
	fprintf(out, ",\"line\":%u,\"function\":", (unsigned)nt->loc->line);
	upmc_json_string(out, nt->loc->function ? nt->loc->function : "");
	fprintf(out, ",\"count\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,",
	        (unsigned long long)nt->count,
	        (unsigned long long)upmc_zone_duration_ns(p, nt->total_ticks),
	        (unsigned long long)upmc_zone_duration_ns(p, nt->self_ticks));
	json_stats(out, nt->ns);
	fprintf(out, ",\"counters\":{");
	for (i = 0; i < p->n; i++) {
		fprintf(out, "%s", i ? "," : "");
		upmc_json_string(out, p->counter[i]);
		if (!nt->counted[i])
			fprintf(out, ":null");
		else
			fprintf(out,
			        ":{\"total\":%llu,\"self\":%llu,\"per_call\":%.3f,\"counted\":%"
			        "llu}",
			        (unsigned long long)nt->total[i], (unsigned long long)nt->self[i],
			        (double)nt->total[i] / (double)nt->counted[i],
			        (unsigned long long)nt->counted[i]);
	}
	fprintf(out, "},\"ratios\":{");
	for (i = 0; i < n_ratios; i++) {
		double v = ratio_of(p, nt, &r[i]);
		fprintf(out, "%s", i ? "," : "");
		upmc_json_string(out, r[i].label);
		if (!isfinite(v))
			fprintf(out, ":null");
		else
			fprintf(out, ":%.6f", r[i].percent ? v / 100 : v);
	}
	fprintf(out, "},\"metrics\":{");
	for (i = 0; i < p->n_metrics; i++) {
		double v = metric_of_totals(p, nt, i);
		fprintf(out, "%s", i ? "," : "");
		upmc_json_string(out, upmc_zone_metric_name(p, i));
		if (isfinite(v))
			fprintf(out, ":%.17g", v);
		else
			fprintf(out, ":null");
	}
	fprintf(out, "}}");
}

int upmc_zone_write_json(struct upmc_profile *p, FILE *out)
{
	struct ratio r[1 + UPMC_MAX_COUNTERS];
	unsigned n_ratios = find_ratios(p, r), i;
	struct upmc_profile_stats st;
	struct totals tot;
	int err = gather(p, &tot);
	size_t k;

	if (err < 0) {
		free_totals(&tot);
		return err;
	}
	upmc_zone_totals(p, &st);
	fprintf(out, "{\"upmc_profile\":1,\n\"counters\":[");
	for (i = 0; i < p->n; i++) {
		fprintf(out, "%s", i ? "," : "");
		upmc_json_string(out, p->counter[i]);
	}
	fprintf(out, "],\n");
	upmc_zone_json_metrics(p, out);
	fprintf(out, ",\n");
	json_threads(p, out);
	fprintf(out,
	        "\"zones_collected\":%llu,\"dropped_zones\":%llu,\"dropped_frames\":%llu,"
	        "\"unbalanced_ends\":%llu,\"refused_zones\":%llu,\"open_zones\":%llu,\n",
	        (unsigned long long)st.zones, (unsigned long long)st.dropped,
	        (unsigned long long)st.dropped_frames, (unsigned long long)st.unbalanced,
	        (unsigned long long)st.refused, (unsigned long long)st.open);
	fprintf(out, "\"frames\":{\"count\":%llu", (unsigned long long)tot.frames);
	if (tot.frame_ns && tot.frame_ns->count) {
		fputc(',', out);
		json_stats(out, tot.frame_ns);
	}
	fprintf(out, "},\n\"zones\":[");
	for (k = 0; k < tot.n; k++) {
		fprintf(out, "%s\n", k ? "," : "");
		json_zone(p, &tot.name[k], r, n_ratios, out);
	}
	fprintf(out, "]}\n");
	free_totals(&tot);
	return 0;
}

/* ---- `upmc stat --zones`'s report (request.c; docs/zones.md has the format) ---- */

/* A name in a field: a tab, a line break and a backslash escaped. */
static void stat_field(FILE *out, const char *s)
{
	for (; *s; s++)
		if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\r')
			fputs("\\r", out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else
			fputc(*s, out);
}

/* A counter's total: "-" where it counted in none of the calls, "N/k"
 * where in k of them only. */
static void stat_count(FILE *out, uint64_t total, uint64_t counted, uint64_t calls)
{
	if (!counted)
		fputs("\t-", out);
	else if (counted < calls)
		fprintf(out, "\t%llu/%llu", (unsigned long long)total, (unsigned long long)counted);
	else
		fprintf(out, "\t%llu", (unsigned long long)total);
}

/* Whether name is one of the comma-separated names. */
static int listed(const char *names, const char *name)
{
	size_t len = strlen(name);
	const char *p = names;

	while (p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == len && !strncmp(p, name, len))
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* The named zones of a thread together: each one that no other named zone
 * encloses, with all it encloses (begin order: an enclosing zone comes
 * first). */
static int stat_union(const struct upmc_profile *p, struct upmc_zone_thread *t, const char *names,
                      struct name_total *u)
{
	const struct zone_done *outer = NULL;
	size_t i;
	int err = upmc_zone_sort(t);

	for (i = 0; i < t->n_zones && !err; i++) {
		const struct zone_done *z = upmc_zone_nth(t, i);
		if (outer && z->depth > outer->depth && z->t1 <= outer->t1)
			continue;
		outer = NULL;
		if (!listed(names, z->loc->name))
			continue;
		outer = z;
		add_zone(p, t, z, u);
	}
	return err;
}

static void stat_row(const struct upmc_profile *p, FILE *out, const struct name_total *nt)
{
	unsigned i;

	fprintf(out, "\t%llu\t%llu\t%llu", (unsigned long long)nt->count,
	        (unsigned long long)upmc_zone_duration_ns(p, nt->total_ticks),
	        (unsigned long long)upmc_zone_duration_ns(p, nt->self_ticks));
	for (i = 0; i < p->n; i++)
		stat_count(out, nt->total[i], nt->counted[i], nt->count);
	fputc('\n', out);
}

static int stat_thread(struct upmc_profile *p, struct upmc_zone_thread *t, const char *names,
                       FILE *out)
{
	char label[ZONE_THREAD_NAME + 16];
	struct totals tot;
	struct name_total *u;
	size_t i;
	int err = 0;

	memset(&tot, 0, sizeof(tot));
	upmc_zone_label(p, t, label, sizeof(label));
	fprintf(out, "thread\t%llu\t", (unsigned long long)t->tid);
	stat_field(out, label);
	fputc('\t', out);
	stat_field(out, t->why);
	fputc('\n', out);
	for (i = 0; i < t->n_zones && !err; i++) {
		struct name_total *nt = total_for(&tot, t->zones[i].loc);
		if (!nt)
			err = upmc_fail(-ENOMEM, "out of memory adding up zones");
		else
			add_zone(p, t, &t->zones[i], nt);
	}
	for (i = 0; i < tot.n && !err; i++) {
		fprintf(out, "zone\t%llu\t", (unsigned long long)t->tid);
		stat_field(out, tot.name[i].loc->name);
		stat_row(p, out, &tot.name[i]);
	}
	u = calloc(1, sizeof(*u));
	if (!err && names && u && (u->ns = malloc(sizeof(*u->ns)))) {
		upmc_samples_reset(u->ns);
		err = stat_union(p, t, names, u);
		fprintf(out, "union\t%llu", (unsigned long long)t->tid);
		stat_row(p, out, u);
	} else if (!err && names) {
		err = upmc_fail(-ENOMEM, "out of memory adding up zones");
	}
	if (u)
		free(u->ns);
	free(u);
	free_totals(&tot);
	return err;
}

int upmc_zone_write_stat(struct upmc_profile *p, FILE *out, const char *names)
{
	struct upmc_zone_thread *t;
	struct upmc_profile_stats st;
	unsigned i;
	int err = 0;

	for (i = 0; i < p->n; i++) {
		fputs("counter\t", out);
		stat_field(out, p->counter[i]);
		fputc('\n', out);
	}
	for (t = upmc_zone_threads(p); t && !err; t = upmc_zone_thread_next(t))
		err = stat_thread(p, t, names, out);
	upmc_zone_totals(p, &st);
	fprintf(out, "stats\t%llu\t%llu\t%llu\t%llu\t%llu\n", (unsigned long long)st.zones,
	        (unsigned long long)st.dropped, (unsigned long long)st.unbalanced,
	        (unsigned long long)st.refused, (unsigned long long)st.open);
	return err;
}
