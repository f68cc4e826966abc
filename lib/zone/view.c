/* SPDX-License-Identifier: MIT */
/*
 * Zones: the view of what was collected that the writers, the statistics
 * and upmc_profile_zones() read: the threads in the order they came, the
 * zones in the order they began, their times and counts, the threads'
 * names, and a walk over each thread's zones in time order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "zone_internal.h"

static int by_seq(const void *a, const void *b)
{
	const struct zone_rank *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The zones themselves stay where the collector put them: a stream's end
 * events point there by index, between two appends, while exports and
 * upmc_profile_zones() read them in this order. */
int upmc_zone_sort(struct upmc_zone_thread *t)
{
	size_t i;

	if (t->sorted)
		return 0;
	if (t->n_zones > t->order_cap) {
		struct zone_rank *bigger =
		        upmc_zone_realloc(t->order, t->n_zones * sizeof(*t->order));
		if (!bigger)
			return upmc_fail(-ENOMEM, "out of memory ordering zones");
		t->order = bigger;
		t->order_cap = t->n_zones;
	}
	for (i = 0; i < t->n_zones; i++) {
		t->order[i].seq = t->zones[i].seq;
		t->order[i].i = i;
	}
	if (t->n_zones > 1)
		qsort(t->order, t->n_zones, sizeof(*t->order), by_seq);
	t->sorted = 1;
	return 0;
}

int upmc_zone_sort_all(const struct upmc_profile *p)
{
	struct upmc_zone_thread *t;
	int err = 0;

	for (t = upmc_zone_threads(p); t && err == 0; t = upmc_zone_thread_next(t))
		err = upmc_zone_sort(t);
	return err;
}

const struct zone_done *upmc_zone_nth(const struct upmc_zone_thread *t, size_t i)
{
	return &t->zones[t->order[i].i];
}

/* Whether metric j's PERF_METRICS fields can measure the zone from
 * snapshot s0 to s1 (upmc_metrics()' rule): 0, or why not (and why). */
static unsigned topdown_unmeasured(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                                   unsigned j, const uint64_t *s0, char *why, size_t size)
{
	if (!t->topdown)
		return 0;
	return (unsigned)upmc_topdown_unmeasured_of(t->topdown, t->k, &p->metric[j], s0, s0 + t->w,
	                                            why, size);
}

void upmc_zone_counts(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                      const struct zone_done *z, struct zone_counts *c)
{
	const uint64_t *s0 = t->values + z->v, *inside = s0 + 2 * t->w;
	char why[UPMC_REASON_MAX];
	unsigned i, j;

	for (i = 0; i < p->n; i++) {
		c->delta[i] = c->self[i] = UPMC_NOT_COUNTED;
		c->ratio[i] = 0;
	}
	memset(c->unmeasured, 0, sizeof(c->unmeasured));
	if (!t->k)
		return;
	upmc_interval_of(t->multiplexed, t->k, s0, s0 + t->w, c->delta, c->ratio);
	upmc_topdown_counts_of(t->topdown, t->k, s0, s0 + t->w, c->delta);
	for (i = 0; i < t->k; i++)
		if (c->delta[i] != UPMC_NOT_COUNTED)
			c->self[i] = c->delta[i] > inside[i] ? c->delta[i] - inside[i] : 0;
	for (j = 0; j < p->n_metrics; j++)
		c->unmeasured[j] = (unsigned char)topdown_unmeasured(p, t, j, s0, why, sizeof(why));
}

const char *upmc_zone_metric_name(const struct upmc_profile *p, unsigned j)
{
	struct upmc_metric_info info;

	upmc_metric_describe(&p->metric[j], &info);
	return info.name;
}

int upmc_zone_metric_is_percent(const struct upmc_profile *p, unsigned j)
{
	struct upmc_metric_info info;

	upmc_metric_describe(&p->metric[j], &info);
	return info.percent;
}

double upmc_zone_metric_of(const struct upmc_profile *p, unsigned j, const uint64_t *counts)
{
	return p->metric_why[j][0] ? NAN : upmc_metric_value(&p->metric[j], counts);
}

void upmc_zone_metrics(const struct upmc_profile *p, const struct zone_counts *c, double *values)
{
	unsigned j;

	for (j = 0; j < p->n_metrics; j++)
		values[j] = c->unmeasured[j] ? NAN : upmc_zone_metric_of(p, j, c->delta);
}

/* Zones of each kind whose topdown could not be measured, of those read
 * with PERF_METRICS, and one's why for each kind. */
struct topdown_tally {
	uint64_t zones, unmeasured[UPMC_TOPDOWN_SHORT + 1];
	char why[UPMC_TOPDOWN_SHORT + 1][UPMC_REASON_MAX];
};

static void tally_zone(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                       const struct zone_done *z, struct topdown_tally *tally)
{
	char why[UPMC_REASON_MAX];
	unsigned j, kind = 0;

	for (j = 0; j < p->n_metrics && !kind; j++)
		kind = topdown_unmeasured(p, t, j, t->values + z->v, why, sizeof(why));
	tally->zones++;
	if (kind && !tally->unmeasured[kind]++)
		upmc_format(tally->why[kind], sizeof(tally->why[kind]), "%s", why);
}

unsigned upmc_zone_topdown_unmeasured(const struct upmc_profile *p,
                                      void (*fn)(void *arg, const char *note), void *arg)
{
	struct topdown_tally tally;
	const struct upmc_zone_thread *t;
	char note[2 * UPMC_REASON_MAX];
	unsigned kind, n = 0;
	size_t i;

	memset(&tally, 0, sizeof(tally));
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		for (i = 0; t->topdown && i < t->n_zones; i++)
			tally_zone(p, t, &t->zones[i], &tally);
	for (kind = UPMC_TOPDOWN_RESET; kind <= UPMC_TOPDOWN_SHORT; kind++) {
		if (!tally.unmeasured[kind])
			continue;
		upmc_format(note, sizeof(note),
		            "topdown is not measured in %llu of the %llu zones read with "
		            "PERF_METRICS (their topdown metrics are left out, and they from the "
		            "metrics of the totals); one of them: %s",
		            (unsigned long long)tally.unmeasured[kind],
		            (unsigned long long)tally.zones, tally.why[kind]);
		fn(arg, note);
		n++;
	}
	return n;
}

unsigned upmc_zone_metrics_not_computed(const struct upmc_profile *p,
                                        void (*fn)(void *arg, unsigned j, const char *why),
                                        void *arg)
{
	unsigned j, n = 0;

	for (j = 0; j < p->n_metrics; j++)
		if (p->metric_why[j][0]) {
			fn(arg, j, p->metric_why[j]);
			n++;
		}
	return n;
}

/* "name":"why", for each metric not computed here. */
static void json_not_computed(void *arg, unsigned j, const char *why)
{
	struct zone_writing *w = arg;

	fprintf(w->out, "%s", w->n++ ? "," : "");
	upmc_json_string(w->out, upmc_zone_metric_name(w->p, j));
	fputc(':', w->out);
	upmc_json_string(w->out, why);
}

/* ,"metrics_unmeasured":[ before the first note. */
static void json_unmeasured(void *arg, const char *note)
{
	struct zone_writing *w = arg;

	fprintf(w->out, "%s", w->n++ ? "," : ",\"metrics_unmeasured\":[");
	upmc_json_string(w->out, note);
}

void upmc_zone_json_metrics(const struct upmc_profile *p, FILE *out)
{
	unsigned j;

	fprintf(out, "\"metrics\":[");
	for (j = 0; j < p->n_metrics; j++) {
		fprintf(out, "%s", j ? "," : "");
		upmc_json_string(out, upmc_zone_metric_name(p, j));
	}
	fprintf(out, "],\"metrics_not_computed\":{");
	upmc_zone_metrics_not_computed(p, json_not_computed, &(struct zone_writing){p, out, 0});
	fputc('}', out);
	if (upmc_zone_topdown_unmeasured(p, json_unmeasured, &(struct zone_writing){p, out, 0}))
		fputc(']', out);
}

void upmc_zone_info(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                    const struct zone_done *z, struct zone_counts *c, struct upmc_zone_info *info)
{
	upmc_zone_counts(p, t, z, c);
	info->loc = z->loc;
	info->thread = t->name;
	info->thread_id = t->tid;
	info->begin_ns = upmc_zone_ns(p, z->t0);
	info->end_ns = upmc_zone_ns(p, z->t1);
	info->depth = z->depth;
	info->n = p->n;
	info->delta = c->delta;
	info->self = c->self;
	info->ratio = c->ratio;
	info->text = upmc_zone_text_of(t, z);
	info->value = z->value;
	info->has_value = z->has_value;
	upmc_zone_metrics(p, c, c->metric);
	info->metrics = p->n_metrics;
	info->metric = c->metric;
}

const char *upmc_zone_text_of(const struct upmc_zone_thread *t, const struct zone_done *z)
{
	return z->text ? t->texts + z->text - 1 : NULL;
}

/* A thread's share of the totals: the drops not written down yet included. */
static void thread_totals(const struct upmc_zone_thread *t, struct upmc_profile_stats *s)
{
	size_t closed = t->pending_ends < t->depth ? (size_t)t->pending_ends : t->depth, i;
	uint64_t end;

	s->zones += t->n_zones;
	s->frames += t->n_frames;
	s->dropped += t->dropped + (t->seen.begins - t->begins_base);
	s->dropped_frames += t->seen.frames - t->frames_base;
	s->unbalanced += t->unbalanced;
	s->refused += t->refused;
	/* The pending ends close the stack's top zones, the first (forgotten
	 * by a clear) uncounted; an end beyond the stack's bottom had no begin. */
	for (end = t->ends_forgotten; end < t->pending_ends; end++) {
		if (end < t->depth)
			s->dropped += t->stack[t->depth - 1 - end].loc != NULL;
		else
			s->unbalanced++;
	}
	for (i = 0; i < t->depth - closed; i++)
		s->open += t->stack[i].loc != NULL;
}

/* Exited, read to the end, and nothing of it left to export, count or
 * stream: zones, frames, drops, refusals, open zones, dropped notes, or
 * events a stream has not appended yet (a dropped zone's end among them:
 * the thread retires at the collect after the append that wrote it). */
int upmc_zone_retired(const struct upmc_zone_thread *t)
{
	struct upmc_profile_stats s;

	if (t->pos_block) /* freed once the thread exited and was read to the end */
		return 0;
	memset(&s, 0, sizeof(s));
	thread_totals(t, &s);
	return !s.zones && !s.frames && !s.open && !t->n_events;
}

void upmc_zone_keep_counts(struct upmc_profile *p, const struct upmc_zone_thread *t)
{
	struct upmc_profile_stats s;

	memset(&s, 0, sizeof(s));
	thread_totals(t, &s);
	p->gone.dropped += s.dropped;
	p->gone.dropped_frames += s.dropped_frames;
	p->gone.unbalanced += s.unbalanced;
	p->gone.refused += s.refused;
	p->gone_notes += t->seen.notes - t->notes_base;
}

uint64_t upmc_zone_dropped_notes(const struct upmc_profile *p)
{
	const struct upmc_zone_thread *t;
	uint64_t n = 0;

	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		n += t->seen.notes - t->notes_base;
	return n + p->gone_notes;
}

void upmc_zone_totals(const struct upmc_profile *p, struct upmc_profile_stats *s)
{
	const struct upmc_zone_thread *t;

	memset(s, 0, sizeof(*s));
	s->counters = p->n;
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		s->threads++;
		thread_totals(t, s);
	}
	s->dropped += p->gone.dropped;
	s->dropped_frames += p->gone.dropped_frames;
	s->unbalanced += p->gone.unbalanced;
	s->refused += p->gone.refused;
}

void upmc_zone_frame_label(const struct zone_frame *f, char *buf, size_t size)
{
	if (f->name)
		upmc_format(buf, size, "frame: %s", f->name);
	else
		upmc_format(buf, size, "frame");
}

void upmc_zone_label(const struct upmc_profile *p, const struct upmc_zone_thread *t, char *buf,
                     size_t size)
{
	const struct upmc_zone_thread *u;

	for (u = upmc_zone_threads(p); u != t; u = upmc_zone_thread_next(u))
		if (!strcmp(u->name, t->name)) {
			upmc_format(buf, size, "%s #%u", t->name, t->index + 1);
			return;
		}
	upmc_format(buf, size, "%s", t->name);
}

/*
 * Whether z, begun after o, is inside it. The depth alone cannot say when a
 * zone between them is not exported (refused, dropped, still open): o may
 * then be z's uncle. A zone of no smaller depth, or one that ends before z
 * does, is not z's ancestor, and so ended before z began (timestamps never
 * go back on a thread): its close comes before z's open. Any other holds z
 * in time, so z's events nest inside its own either way.
 */
static int holds(const struct zone_done *o, const struct zone_done *z)
{
	return o->depth < z->depth && o->t1 >= z->t1;
}

int upmc_zone_walk(struct upmc_zone_thread *t,
                   int (*fn)(void *arg, const struct zone_done *z, int begin, unsigned depth),
                   void *arg)
{
	const struct zone_done **open = NULL;
	size_t i, sp = 0, cap = 0;
	int err = 0;

	err = upmc_zone_sort(t);
	for (i = 0; i < t->n_zones && !err; i++) {
		const struct zone_done *z = upmc_zone_nth(t, i);
		for (; sp && !holds(open[sp - 1], z) && !err; sp--)
			err = fn(arg, open[sp - 1], 0, (unsigned)(sp - 1));
		if (sp == cap) {
			const struct zone_done **bigger =
			        realloc(open, (cap = 2 * cap + 16) * sizeof(*open));
			if (!bigger) {
				err = upmc_fail(-ENOMEM, "out of memory writing zones");
				break;
			}
			open = bigger;
		}
		if (!err)
			err = fn(arg, z, 1, (unsigned)sp);
		open[sp++] = z;
	}
	for (; sp && !err; sp--)
		err = fn(arg, open[sp - 1], 0, (unsigned)(sp - 1));
	free(open);
	return err;
}

struct upmc_zone_thread *upmc_zone_threads(const struct upmc_profile *p)
{
	return __atomic_load_n(&p->first, __ATOMIC_ACQUIRE);
}

struct upmc_zone_thread *upmc_zone_thread_next(const struct upmc_zone_thread *t)
{
	return __atomic_load_n(&t->link, __ATOMIC_ACQUIRE);
}
