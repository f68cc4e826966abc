/* SPDX-License-Identifier: MIT */
/*
 * Zones as a speedscope file (https://www.speedscope.app/file-format-schema.json):
 * an evented profile per thread for time, and a sampled profile per counter
 * whose weights are each zone's own count (its count less the zones directly
 * inside it): a flame graph by instructions, by cache misses. The file's
 * name says how many zones were dropped; speedscope has no frame marks.
 */
#include <errno.h>
#include <stdlib.h>

#include "zone_internal.h"

/* The frame of each call site, by its location's address. */
struct frames {
	const struct upmc_zone_loc **loc;
	size_t n, cap;
	size_t *slot; /* index + 1, 0 when free */
	size_t slots;
};

static size_t slot_of(const struct frames *f, const struct upmc_zone_loc *loc)
{
	size_t h = ((uintptr_t)loc >> 3) * 0x9e3779b97f4a7c15ull & (f->slots - 1);

	while (f->slot[h] && f->loc[f->slot[h] - 1] != loc)
		h = (h + 1) & (f->slots - 1);
	return h;
}

static int add_frame(struct frames *f, const struct upmc_zone_loc *loc)
{
	size_t i, h;

	if (2 * (f->n + 1) > f->slots) {
		size_t *old = f->slot, old_slots = f->slots;
		f->slots = f->slots ? 2 * f->slots : 256;
		f->slot = calloc(f->slots, sizeof(*f->slot));
		if (!f->slot) {
			f->slot = old;
			f->slots = old_slots;
			return -ENOMEM;
		}
		for (i = 0; i < f->n; i++)
			f->slot[slot_of(f, f->loc[i])] = i + 1;
		free(old);
	}
	h = slot_of(f, loc);
	if (f->slot[h])
		return 0;
	if (f->n == f->cap) {
		const struct upmc_zone_loc **bigger =
		        realloc(f->loc, (f->cap = 2 * f->cap + 64) * sizeof(*f->loc));
		if (!bigger)
			return -ENOMEM;
		f->loc = bigger;
	}
	f->loc[f->n++] = loc;
	f->slot[h] = f->n;
	return 0;
}

static size_t frame_of(const struct frames *f, const struct upmc_zone_loc *loc)
{
	return f->slot[slot_of(f, loc)] - 1;
}

/* In the order the call sites first began a zone, thread by thread. */
static int find_frames(const struct upmc_profile *p, struct frames *f)
{
	struct upmc_zone_thread *t;
	size_t i;

	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		for (i = 0; i < t->n_zones; i++) /* sorted by upmc_profile_write() */
			if (add_frame(f, upmc_zone_nth(t, i)->loc) < 0)
				return upmc_fail(-ENOMEM,
				                 "out of memory writing speedscope frames");
	return 0;
}

/* Frames: one per call site, then one per thread (the sampled profiles' roots). */
static void write_frames(const struct upmc_profile *p, const struct frames *f, FILE *out)
{
	const struct upmc_zone_thread *t;
	char label[ZONE_THREAD_NAME + 16];
	size_t i;

	fprintf(out, "\"shared\":{\"frames\":[");
	for (i = 0; i < f->n; i++) {
		fprintf(out, "%s\n{\"name\":", i ? "," : "");
		upmc_json_string(out, f->loc[i]->name);
		if (f->loc[i]->file) {
			fprintf(out, ",\"file\":");
			upmc_json_string(out, f->loc[i]->file);
			fprintf(out, ",\"line\":%u", (unsigned)f->loc[i]->line);
		}
		fputc('}', out);
	}
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		upmc_zone_label(p, t, label, sizeof(label));
		fprintf(out, "%s\n{\"name\":", f->n || t != upmc_zone_threads(p) ? "," : "");
		upmc_json_string(out, label);
		fputc('}', out);
	}
	fprintf(out, "]}");
}

struct walk {
	const struct upmc_profile *p;
	const struct upmc_zone_thread *t;
	const struct frames *f;
	FILE *out;
	int first;
	unsigned counter;
	size_t *stack; /* frame indices, the thread's first */
	size_t depth, cap;
	uint64_t total;
	int weights; /* the weights pass; else the samples pass */
};

static int time_event(void *arg, const struct zone_done *z, int begin, unsigned depth)
{
	struct walk *w = arg;

	(void)depth;
	fprintf(w->out, "%s\n{\"type\":\"%s\",\"frame\":%zu,\"at\":%llu}", w->first ? "" : ",",
	        begin ? "O" : "C", frame_of(w->f, z->loc),
	        (unsigned long long)upmc_zone_ns(w->p, begin ? z->t0 : z->t1));
	w->first = 0;
	return 0;
}

static void separate(FILE *out, int *first)
{
	fputs(*first ? "\n" : ",\n", out);
	*first = 0;
}

static void time_profile(const struct upmc_profile *p, struct upmc_zone_thread *t,
                         const struct frames *f, FILE *out, int *first)
{
	struct walk w = {p, t, f, out, 1, 0, NULL, 0, 0, 0, 0};
	char label[ZONE_THREAD_NAME + 16];
	uint64_t last = 0;
	size_t i;

	for (i = 0; i < t->n_zones; i++)
		last = t->zones[i].t1 > last ? t->zones[i].t1 : last;
	upmc_zone_label(p, t, label, sizeof(label));
	separate(out, first);
	fprintf(out, "{\"type\":\"evented\",\"name\":");
	upmc_json_string(out, label);
	fprintf(out, ",\"unit\":\"nanoseconds\",\"startValue\":%llu,\"endValue\":%llu,\"events\":[",
	        (unsigned long long)upmc_zone_ns(p, upmc_zone_nth(t, 0)->t0),
	        (unsigned long long)upmc_zone_ns(p, last));
	upmc_zone_walk(t, time_event, &w);
	fprintf(out, "]}");
}

/* The zone's own count of the walk's counter; UPMC_NOT_COUNTED when none. */
static uint64_t self_count(const struct walk *w, const struct zone_done *z)
{
	struct zone_counts buf;
	struct upmc_zone_info info;

	upmc_zone_info(w->p, w->t, z, &buf, &info);
	return info.self[w->counter];
}

static int count_sample(void *arg, const struct zone_done *z, int begin, unsigned depth)
{
	struct walk *w = arg;
	uint64_t self;
	size_t i;

	if (!begin)
		return 0;
	if (depth + 2 > w->cap) {
		size_t *bigger = realloc(w->stack, (w->cap = 2 * depth + 16) * sizeof(*w->stack));
		if (!bigger)
			return upmc_fail(-ENOMEM, "out of memory writing speedscope samples");
		w->stack = bigger;
	}
	w->stack[depth + 1] = frame_of(w->f, z->loc);
	self = self_count(w, z);
	if (self == UPMC_NOT_COUNTED || !self)
		return 0;
	fprintf(w->out, "%s", w->first ? "" : ",");
	w->first = 0;
	w->total += self;
	if (w->weights) {
		fprintf(w->out, "%llu", (unsigned long long)self);
		return 0;
	}
	fputc('[', w->out);
	for (i = 0; i <= depth + 1; i++)
		fprintf(w->out, "%s%zu", i ? "," : "", w->stack[i]);
	fputc(']', w->out);
	return 0;
}

/* One pass over every thread: the samples, or their weights. */
static int count_pass(struct walk *w, const struct upmc_profile *p)
{
	struct upmc_zone_thread *t;
	size_t root = w->f->n;
	int err = 0;

	w->first = 1;
	w->total = 0;
	for (t = upmc_zone_threads(p); t && !err; t = upmc_zone_thread_next(t), root++) {
		if (!t->k)
			continue;
		w->t = t;
		if (!w->cap && !(w->stack = malloc((w->cap = 16) * sizeof(*w->stack))))
			return upmc_fail(-ENOMEM, "out of memory writing speedscope samples");
		w->stack[0] = root;
		err = upmc_zone_walk(t, count_sample, w);
	}
	return err;
}

/* Whether any zone counted counter i. */
static int counted(const struct upmc_profile *p, unsigned i)
{
	const struct upmc_zone_thread *t;
	struct zone_counts buf;
	struct upmc_zone_info info;
	size_t k;

	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		for (k = 0; k < t->n_zones && t->k; k++) {
			upmc_zone_info(p, t, &t->zones[k], &buf, &info);
			if (info.delta[i] != UPMC_NOT_COUNTED)
				return 1;
		}
	return 0;
}

static int counter_profile(const struct upmc_profile *p, const struct frames *f, unsigned i,
                           FILE *out, int *first)
{
	struct walk w = {p, NULL, f, out, 1, i, NULL, 0, 0, 0, 0};
	int err;

	if (!counted(p, i))
		return 0;
	separate(out, first);
	fprintf(out, "{\"type\":\"sampled\",\"name\":");
	upmc_json_string(out, p->counter[i]);
	fprintf(out, ",\"unit\":\"none\",\"startValue\":0,\"samples\":[");
	err = count_pass(&w, p);
	fprintf(out, "],\"weights\":[");
	w.weights = 1;
	if (err == 0)
		err = count_pass(&w, p);
	fprintf(out, "],\"endValue\":%llu}", (unsigned long long)w.total);
	free(w.stack);
	return err;
}

int upmc_zone_write_speedscope(struct upmc_profile *p, FILE *out)
{
	struct frames f = {NULL, 0, 0, NULL, 0};
	struct upmc_profile_stats st;
	struct upmc_zone_thread *t;
	int err = find_frames(p, &f), first = 1;
	unsigned i;

	upmc_zone_totals(p, &st);
	fprintf(out,
	        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	        "\"exporter\":\"upmc\",\"name\":\"upmc profile: %llu zones, %llu dropped\",\n"
	        "\"activeProfileIndex\":0,\n",
	        (unsigned long long)st.zones, (unsigned long long)st.dropped);
	if (err == 0)
		write_frames(p, &f, out);
	fprintf(out, ",\n\"profiles\":[");
	for (t = upmc_zone_threads(p); t && err == 0; t = upmc_zone_thread_next(t))
		if (t->n_zones)
			time_profile(p, t, &f, out, &first);
	for (i = 0; i < p->n && err == 0; i++)
		err = counter_profile(p, &f, i, out, &first);
	fprintf(out, "]}\n");
	free(f.loc);
	free(f.slot);
	return err;
}
