/* SPDX-License-Identifier: MIT */
/*
 * Zones as a Perfetto trace (.pftrace): protobuf TracePackets, encoded here
 * (tests/perfetto/trace_subset.proto lists the messages and fields used).
 *
 * - A process track, with the drop counts, and why each metric that
 *   cannot be computed here is not ("<metric> not computed"), as debug
 *   annotations of an instant event on it, at the end of each save or
 *   stream append.
 * - A thread is a packet sequence of its own, in time order, made compact
 *   the ways Perfetto's own SDK does: its first packet clears the
 *   sequence's incremental state and sets its defaults (the thread's track
 *   and counter tracks for every event) and a sequence clock whose
 *   timestamps are deltas (ClockSnapshot is_incremental); names, source
 *   locations (file, function, line) and debug annotation names are
 *   interned (InternedData) in the packet that first needs them.
 * - A zone is a TYPE_SLICE_BEGIN and a TYPE_SLICE_END on its thread's
 *   track, each with the thread's counter values at that point on counter
 *   tracks whose values are deltas too (CounterDescriptor is_incremental);
 *   a value that did not count is left out. An instructions counter's
 *   track is the builtin COUNTER_THREAD_INSTRUCTION_COUNT, so that the
 *   trace processor fills a slice's thread_instruction_count and _delta.
 *   A multiplexed counter has no running total a track could show (each is
 *   scaled by its own share of the time since open): its thread's slices
 *   end with the zone's count, scaled by the zone's own times, and the
 *   share it ran, as debug annotations ("<counter>", "<counter> ran"). A
 *   zone's metrics (those the spec names, from its own counts) and its
 *   text and value are debug annotations of its end; a metric that could
 *   not be computed in the zone is left out.
 * - A frame mark is a TYPE_INSTANT named "frame" (or "frame: <name>").
 *
 * A save writes a whole trace at once; a stream (stream.c) keeps the
 * writer's state and appends what each collect took, the same packets.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"

static void uint_annotation(struct upmc_zone_perfetto *w, struct sequence *s, const char *name,
                            uint64_t value)
{
	upmc_pf_annotation_head(w, s, name);
	upmc_pb_uint(&w->packet, ANNOTATION_UINT_VALUE, value);
	upmc_pb_end(&w->packet);
}

/* The names of the multiplexed counters' shares ("<counter> ran"): made
 * once, kept by the writer, so that their addresses intern. */
static const char *ran_name(struct upmc_zone_perfetto *w, unsigned i);

static void multiplexed_counts(struct upmc_zone_perfetto *w, struct sequence *s,
                               const struct upmc_zone_thread *t, const struct zone_done *z)
{
	struct zone_counts c;
	unsigned i;

	upmc_zone_counts(w->p, t, z, &c);
	for (i = 0; i < t->k; i++) {
		const char *ran = ran_name(w, i);
		if (c.delta[i] == UPMC_NOT_COUNTED || !ran)
			continue;
		uint_annotation(w, s, w->p->counter[i], c.delta[i]);
		upmc_pf_annotation_head(w, s, ran);
		upmc_pb_double(&w->packet, ANNOTATION_DOUBLE_VALUE, c.ratio[i]);
		upmc_pb_end(&w->packet);
	}
}

/* The zone's metrics, each a double named by the metric (interned by the
 * catalogue's name, which lives as long as the process). */
static void metric_values(struct upmc_zone_perfetto *w, struct sequence *s,
                          const struct upmc_zone_thread *t, const struct zone_done *z)
{
	double metric[UPMC_MAX_METRICS];
	struct zone_counts c;
	unsigned j;

	upmc_zone_counts(w->p, t, z, &c);
	upmc_zone_metrics(w->p, &c, metric);
	for (j = 0; j < w->p->n_metrics; j++) {
		if (!isfinite(metric[j]))
			continue;
		upmc_pf_annotation_head(w, s, upmc_zone_metric_name(w->p, j));
		upmc_pb_double(&w->packet, ANNOTATION_DOUBLE_VALUE, metric[j]);
		upmc_pb_end(&w->packet);
	}
}

static uint8_t *put_uint(uint8_t *at, unsigned field, uint64_t v)
{
	return upmc_pb_varint_at(upmc_pb_varint_at(at, (uint64_t)field << 3), v);
}

/* The thread's counter values at this point, as deltas on their tracks;
 * one that did not count is left out (its track's uuids then given). */
static uint8_t *counter_values(uint8_t *at, struct sequence *s, const struct upmc_zone_thread *t,
                               const uint64_t *v)
{
	unsigned i, counted = 0;

	for (i = 0; i < t->k; i++)
		counted += v[i] != UPMC_NOT_COUNTED;
	for (i = 0; counted < t->k && i < t->k; i++)
		if (v[i] != UPMC_NOT_COUNTED)
			at = put_uint(at, EVENT_EXTRA_COUNTER_TRACK_UUIDS,
			              upmc_pf_thread_uuid(t) + 1 + i);
	for (i = 0; i < t->k; i++)
		if (v[i] != UPMC_NOT_COUNTED) {
			at = put_uint(at, EVENT_EXTRA_COUNTER_VALUES, v[i] - s->last_value[i]);
			s->last_value[i] = v[i];
		}
	return at;
}

static void slice_begin(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                        const struct upmc_zone_loc *loc, uint64_t ticks, const uint64_t *v)
{
	struct sequence *s = upmc_pf_sequence(w, t);
	const struct recent_location *r;
	uint8_t *body, *at;

	if (!s) {
		w->out.failed = 1;
		return;
	}
	r = upmc_pf_begin_iids(w, s, loc);
	body = at = upmc_pf_event_begin(w, t, s, ticks);
	if (!at)
		return;
	at = put_uint(at, EVENT_TYPE, SLICE_BEGIN);
	at = put_uint(at, EVENT_NAME_IID, r->name);
	if (r->where)
		at = put_uint(at, EVENT_SOURCE_LOCATION_IID, r->where);
	if (upmc_pf_has_counter_tracks(t))
		at = counter_values(at, s, t, v);
	upmc_pf_event_end(w, body, at);
}

/* Whether a zone's end has debug annotations: its counts (multiplexed),
 * its metrics, its text or its value. */
static int annotated(const struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                     const struct zone_done *z)
{
	return (t->k && (!upmc_pf_has_counter_tracks(t) || w->p->n_metrics)) || z->text ||
	       z->has_value;
}

/* The end of a slice with debug annotations, built in w->packet. */
static void annotated_end(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                          struct sequence *s, uint64_t ticks, const struct zone_done *z)
{
	uint8_t event[PF_EVENT_BYTES], *at = event;
	const char *text;

	at = put_uint(at, EVENT_TYPE, SLICE_END);
	if (upmc_pf_has_counter_tracks(t))
		at = counter_values(at, s, t, t->values + z->v + t->w);
	upmc_pf_event_head(w, t, s, ticks);
	upmc_pb_begin(&w->packet, PACKET_TRACK_EVENT);
	upmc_pb_put(&w->packet, event, (size_t)(at - event));
	if (t->k && !upmc_pf_has_counter_tracks(t))
		multiplexed_counts(w, s, t, z);
	if (t->k && w->p->n_metrics)
		metric_values(w, s, t, z);
	text = upmc_zone_text_of(t, z);
	if (text) {
		upmc_pf_annotation_head(w, s, "text");
		upmc_pb_string(&w->packet, ANNOTATION_STRING_VALUE, text);
		upmc_pb_end(&w->packet);
	}
	if (z->has_value)
		uint_annotation(w, s, "value", z->value);
	upmc_pb_end(&w->packet);
	upmc_pf_end_packet(w);
}

/* A slice's end: z the zone it closes, or NULL for one whose end was
 * dropped (a stream had written its begin). */
static void slice_end(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                      uint64_t ticks, const struct zone_done *z)
{
	struct sequence *s = upmc_pf_sequence(w, t);
	uint8_t *body, *at;

	if (!s) {
		w->out.failed = 1;
		return;
	}
	if (z && annotated(w, t, z)) {
		annotated_end(w, t, s, ticks, z);
		return;
	}
	body = at = upmc_pf_event_begin(w, t, s, ticks);
	if (!at)
		return;
	at = put_uint(at, EVENT_TYPE, SLICE_END);
	if (z && upmc_pf_has_counter_tracks(t))
		at = counter_values(at, s, t, t->values + z->v + t->w);
	upmc_pf_event_end(w, body, at);
}

/* A frame's name is made only when first interned in a sequence. */
static void frame_instant(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                          const struct zone_frame *f)
{
	struct sequence *s = upmc_pf_sequence(w, t);
	uint8_t *body, *at;
	char label[256];
	uint64_t iid;
	int fresh;

	if (!s) {
		w->out.failed = 1;
		return;
	}
	iid = upmc_pf_intern(s, NAME_OF_FRAME, f->name, &fresh);
	if (fresh) {
		upmc_zone_frame_label(f, label, sizeof(label));
		upmc_pf_interned_name(w, iid, label);
	}
	body = at = upmc_pf_event_begin(w, t, s, f->t);
	if (!at)
		return;
	at = put_uint(at, EVENT_TYPE, INSTANT);
	at = put_uint(at, EVENT_NAME_IID, iid);
	upmc_pf_event_end(w, body, at);
}

/* ---- the process track ---- */

static void process_track(struct upmc_zone_perfetto *w)
{
	struct pb *b = &w->packet;

	upmc_pb_uint(b, PACKET_SEQUENCE_ID, PROCESS_SEQUENCE);
	upmc_pb_uint(b, PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
	upmc_pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	upmc_pb_uint(b, TRACK_UUID, PROCESS_UUID);
	upmc_pb_begin(b, TRACK_PROCESS);
	upmc_pb_uint(b, PROCESS_PID, w->p->pid);
	upmc_pb_string(b, PROCESS_NAME, "upmc profile");
	upmc_pb_end(b);
	upmc_pb_end(b);
	upmc_pf_end_packet(w);
}

static void count_annotation(struct pb *b, const char *name, uint64_t value)
{
	upmc_pb_begin(b, EVENT_DEBUG_ANNOTATIONS);
	upmc_pb_string(b, ANNOTATION_NAME, name);
	upmc_pb_uint(b, ANNOTATION_UINT_VALUE, value);
	upmc_pb_end(b);
}

static void why_annotation(void *arg, unsigned j, const char *why)
{
	struct upmc_zone_perfetto *w = arg;
	char name[UPMC_NAME_MAX + 32];

	upmc_format(name, sizeof(name), "%s not computed", upmc_zone_metric_name(w->p, j));
	upmc_pb_begin(&w->packet, EVENT_DEBUG_ANNOTATIONS);
	upmc_pb_string(&w->packet, ANNOTATION_NAME, name);
	upmc_pb_string(&w->packet, ANNOTATION_STRING_VALUE, why);
	upmc_pb_end(&w->packet);
}

/* Why some zones have no topdown metric: once, beside why_annotation's. */
static void unmeasured_annotation(void *arg, const char *note)
{
	struct upmc_zone_perfetto *w = arg;

	upmc_pb_begin(&w->packet, EVENT_DEBUG_ANNOTATIONS);
	upmc_pb_string(&w->packet, ANNOTATION_NAME, "topdown not measured");
	upmc_pb_string(&w->packet, ANNOTATION_STRING_VALUE, note);
	upmc_pb_end(&w->packet);
}

/* What was lost so far, as an instant event on the process track at
 * `ticks` (the last thing written): the last one says it all. */
static void drop_counts(struct upmc_zone_perfetto *w, uint64_t ticks)
{
	struct upmc_profile_stats st;
	struct pb *b = &w->packet;

	if (!w->process_done) { /* a chunk began since: the track again */
		process_track(w);
		w->process_done = 1;
	}
	upmc_zone_totals(w->p, &st);
	upmc_pb_uint(b, PACKET_SEQUENCE_ID, PROCESS_SEQUENCE);
	upmc_pb_uint(b, PACKET_TIMESTAMP, upmc_zone_ns(w->p, ticks));
	upmc_pb_begin(b, PACKET_TRACK_EVENT);
	upmc_pb_uint(b, EVENT_TYPE, INSTANT);
	upmc_pb_uint(b, EVENT_TRACK_UUID, PROCESS_UUID);
	upmc_pb_string(b, EVENT_NAME, "upmc");
	count_annotation(b, "dropped_zones", st.dropped);
	count_annotation(b, "dropped_frames", st.dropped_frames);
	count_annotation(b, "dropped_notes", upmc_zone_dropped_notes(w->p));
	count_annotation(b, "unbalanced_ends", st.unbalanced);
	count_annotation(b, "refused_zones", st.refused);
	count_annotation(b, "open_zones", st.open);
	upmc_zone_metrics_not_computed(w->p, why_annotation, w);
	upmc_zone_topdown_unmeasured(w->p, unmeasured_annotation, w);
	upmc_pb_end(b);
	upmc_pf_end_packet(w);
}

/* ---- a writer's life ---- */

struct upmc_zone_perfetto *upmc_zone_perfetto_new(const struct upmc_profile *p, int compress)
{
	struct upmc_zone_perfetto *w = calloc(1, sizeof(*w));

	if (!w) {
		upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	} else {
		w->p = p;
		w->compress = compress && upmc_zone_have_zlib;
	}
	return w;
}

static char ran_names[UPMC_MAX_COUNTERS][UPMC_NAME_MAX + 8];

static const char *ran_name(struct upmc_zone_perfetto *w, unsigned i)
{
	/* One profile at a time: its counters' names do not change while it
	 * is open, so one table serves every writer. */
	upmc_format(ran_names[i], sizeof(ran_names[i]), "%s ran", w->p->counter[i]);
	return ran_names[i];
}

void upmc_zone_perfetto_free(struct upmc_zone_perfetto *w)
{
	if (!w)
		return;
	upmc_pf_sequences_free(w);
	upmc_pf_chunk_free(w);
	free(w->packet.buf);
	free(w->interned.buf);
	free(w->out.buf);
	free(w);
}

void upmc_zone_perfetto_forget(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	upmc_pf_sequence_forget(w, t);
}

static int result(struct upmc_zone_perfetto *w)
{
	if (w->out.failed || w->packet.failed || w->interned.failed || w->cuts_failed)
		return upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	return 0;
}

/* The latest timestamp of the threads' collected records. */
static uint64_t latest(const struct upmc_profile *p)
{
	const struct upmc_zone_thread *t;
	uint64_t last = p->t_open;

	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		if (t->floor > last)
			last = t->floor;
	return last;
}

/* A stream's append: every thread's events since the last, then the drop
 * counts. */
int upmc_zone_perfetto_append(struct upmc_zone_perfetto *w)
{
	const struct upmc_zone_thread *t;
	size_t i;

	if (!w->process_done) {
		process_track(w);
		w->process_done = 1;
	}
	for (t = upmc_zone_threads(w->p); t; t = upmc_zone_thread_next(t)) {
		upmc_pf_rename(w, t);
		for (i = 0; i < t->n_events; i++) {
			const struct zone_event *e = &t->events[i];
			if (e->kind == ZONE_EVENT_BEGIN)
				slice_begin(w, t, e->loc, e->t, t->event_values + e->index);
			else if (e->kind == ZONE_EVENT_END)
				slice_end(w, t, e->t,
				          e->index == ZONE_NOT_KEPT ? NULL : &t->zones[e->index]);
			else
				frame_instant(w, t, &t->frames[e->index]);
		}
	}
	drop_counts(w, latest(w->p));
	upmc_pf_chunk_end(w); /* each append ends with a whole chunk */
	return result(w);
}

/* ---- a save ---- */

struct slices {
	struct upmc_zone_perfetto *w;
	const struct upmc_zone_thread *t;
	size_t frame; /* the next frame mark to write */
};

static void frames_until(struct slices *s, uint64_t until)
{
	for (; s->frame < s->t->n_frames && s->t->frames[s->frame].t <= until; s->frame++)
		frame_instant(s->w, s->t, &s->t->frames[s->frame]);
}

static int slice_packet(void *arg, const struct zone_done *z, int begin, unsigned depth)
{
	struct slices *s = arg;
	const struct upmc_zone_thread *t = s->t;

	(void)depth;
	frames_until(s, begin ? z->t0 : z->t1);
	if (begin)
		slice_begin(s->w, t, z->loc, z->t0, t->values + z->v);
	else
		slice_end(s->w, t, z->t1, z);
	return result(s->w);
}

/* The trace encoded under the collector's lock, as exports are. */
static int encode_trace(struct upmc_zone_perfetto *w)
{
	struct upmc_zone_thread *t;
	int err = 0;

	process_track(w);
	w->process_done = 1;
	for (t = upmc_zone_threads(w->p); t && err == 0; t = upmc_zone_thread_next(t)) {
		struct slices s = {w, t, 0};
		if (upmc_pf_sequence(w, t) == NULL)
			err = upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
		if (err == 0)
			err = upmc_zone_walk(t, slice_packet, &s);
		frames_until(&s, UINT64_MAX);
	}
	if (err == 0) {
		drop_counts(w, latest(w->p));
		upmc_pf_chunk_end(w);
		err = result(w);
	}
	return err;
}

int upmc_zone_write_perfetto(struct upmc_profile *p, FILE *out, int compress)
{
	struct upmc_zone_perfetto *w = upmc_zone_perfetto_new(p, compress);
	struct upmc_zone_chunks *c = w ? upmc_zone_chunks_new(UPMC_ZONE_SAVE_LEVEL) : NULL;
	const uint8_t *bytes = NULL;
	size_t len = 0;
	int err = c ? encode_trace(w) : -ENOMEM;

	if (err == 0) {
		upmc_zone_perfetto_take(w, c);
		err = upmc_zone_chunks_bytes(c, &bytes, &len);
	}
	if (err == 0)
		fwrite(bytes, 1, len, out);
	upmc_zone_chunks_free(c);
	upmc_zone_perfetto_free(w);
	return err;
}
