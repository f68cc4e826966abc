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

#include "zone_internal.h"

/* Field numbers (Perfetto's). */
enum {
	TRACE_PACKET = 1,
	PACKET_CLOCK_SNAPSHOT = 6,
	PACKET_TIMESTAMP = 8,
	PACKET_SEQUENCE_ID = 10,
	PACKET_TRACK_EVENT = 11,
	PACKET_INTERNED_DATA = 12,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_DEFAULTS = 59,
	PACKET_TRACK_DESCRIPTOR = 60,
	CLOCK_SNAPSHOT_CLOCKS = 1,
	CLOCK_ID = 1,
	CLOCK_TIMESTAMP = 2,
	CLOCK_IS_INCREMENTAL = 3,
	DEFAULTS_TRACK_EVENT = 11,
	DEFAULTS_TIMESTAMP_CLOCK_ID = 58,
	EVENT_DEFAULTS_TRACK_UUID = 11,
	EVENT_DEFAULTS_COUNTER_UUIDS = 31,
	TRACK_UUID = 1,
	TRACK_NAME = 2,
	TRACK_PROCESS = 3,
	TRACK_THREAD = 4,
	TRACK_PARENT_UUID = 5,
	TRACK_COUNTER = 8,
	PROCESS_PID = 1,
	PROCESS_NAME = 6,
	THREAD_PID = 1,
	THREAD_TID = 2,
	THREAD_NAME = 5,
	COUNTER_TYPE = 1,
	COUNTER_UNIT = 3,
	COUNTER_IS_INCREMENTAL = 5,
	EVENT_DEBUG_ANNOTATIONS = 4,
	EVENT_TYPE = 9,
	EVENT_NAME_IID = 10,
	EVENT_TRACK_UUID = 11,
	EVENT_EXTRA_COUNTER_VALUES = 12,
	EVENT_NAME = 23,
	EVENT_EXTRA_COUNTER_TRACK_UUIDS = 31,
	EVENT_SOURCE_LOCATION_IID = 34,
	ANNOTATION_NAME_IID = 1,
	ANNOTATION_UINT_VALUE = 3,
	ANNOTATION_DOUBLE_VALUE = 5,
	ANNOTATION_STRING_VALUE = 6,
	ANNOTATION_NAME = 10,
	INTERNED_EVENT_NAMES = 2,
	INTERNED_ANNOTATION_NAMES = 3,
	INTERNED_SOURCE_LOCATIONS = 4,
	INTERNED_IID = 1,
	INTERNED_NAME = 2,
	LOCATION_FILE = 2,
	LOCATION_FUNCTION = 3,
	LOCATION_LINE = 4,
};

/* Values (Perfetto's). */
enum {
	SLICE_BEGIN = 1,
	SLICE_END = 2,
	INSTANT = 3,
	INSTRUCTION_COUNT = 2, /* CounterDescriptor.COUNTER_THREAD_INSTRUCTION_COUNT */
	UNIT_COUNT = 2,
	INCREMENTAL_STATE_CLEARED = 1,
	CLOCK_BOOTTIME = 6,
	SEQUENCE_CLOCK = 64, /* the first sequence-scoped clock id */
};

#define PROCESS_UUID     1
#define PROCESS_SEQUENCE 1

/* ---- protobuf ---- */

/* Bytes built in memory: nested messages need their length first. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[6]; /* where each open message's body starts */
	unsigned depth;
	int failed;
};

static void put(struct pb *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *bigger;
		while (cap < b->len + n)
			cap *= 2;
		bigger = realloc(b->buf, cap);
		if (!bigger) {
			b->failed = 1;
			return;
		}
		b->buf = bigger;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
}

static size_t varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static void put_varint(struct pb *b, uint64_t v)
{
	uint8_t bytes[10];

	put(b, bytes, varint(bytes, v));
}

static void field_uint(struct pb *b, unsigned field, uint64_t v)
{
	put_varint(b, (uint64_t)field << 3); /* wire type 0: varint */
	put_varint(b, v);
}

static void field_double(struct pb *b, unsigned field, double v)
{
	uint8_t bytes[8];
	uint64_t bits;
	unsigned i;

	memcpy(&bits, &v, sizeof(bits));
	for (i = 0; i < 8; i++) /* little-endian, whatever the host */
		bytes[i] = (uint8_t)(bits >> 8 * i);
	put_varint(b, (uint64_t)field << 3 | 1); /* wire type 1: 64-bit */
	put(b, bytes, sizeof(bytes));
}

/* Protobuf strings are UTF-8 (protoc and Perfetto refuse others): a byte of
 * no well-formed sequence is written as the code point of the same number,
 * U+0080 to U+00FF in two bytes, as the JSON writers write it (\u00XX). */
static size_t utf8_size(const unsigned char *s)
{
	size_t size = 0, n;

	for (; *s; s += n ? n : 1)
		size += (n = upmc_utf8_length(s)) ? n : 2;
	return size;
}

static void field_string(struct pb *b, unsigned field, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	put_varint(b, (uint64_t)field << 3 | 2); /* wire type 2: length-delimited */
	put_varint(b, utf8_size(p));
	for (; *p; p += n ? n : 1) {
		n = upmc_utf8_length(p);
		if (n) {
			put(b, p, n);
		} else {
			uint8_t two[2] = {(uint8_t)(0xc0 | *p >> 6), (uint8_t)(0x80 | (*p & 0x3f))};
			put(b, two, 2);
		}
	}
}

static void begin_message(struct pb *b, unsigned field)
{
	put_varint(b, (uint64_t)field << 3 | 2);
	b->open[b->depth++] = b->len;
}

/* Puts the body's length in front of it. */
static void end_message(struct pb *b)
{
	size_t start = b->open[--b->depth], body = b->len - start, n;
	uint8_t bytes[10];

	n = varint(bytes, body);
	put(b, bytes, n); /* room for the length */
	if (b->failed)
		return;
	memmove(b->buf + start + n, b->buf + start, body);
	memcpy(b->buf + start, bytes, n);
}

/* ---- interning, per sequence ---- */

enum intern_kind { NAME_OF_LOC, NAME_OF_FRAME, LOCATION, ANNOTATION };

/* The index each kind's iids count in: names of both kinds share one. */
static unsigned index_of(enum intern_kind kind)
{
	return kind == NAME_OF_FRAME ? NAME_OF_LOC : kind;
}

struct interned {
	const void *key;
	uint64_t iid;
	enum intern_kind kind;
};

/* A sequence's interned keys (pointers: a location, a frame's name, an
 * annotation's name), open addressing. */
struct intern_table {
	struct interned *slot;
	size_t n, slots;
	uint64_t next_iid[ANNOTATION + 1];
};

static size_t intern_slot(const struct intern_table *it, enum intern_kind kind, const void *key)
{
	size_t h = (size_t)(((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ull + kind * 0x51ull);

	for (h &= it->slots - 1; it->slot[h].iid; h = (h + 1) & (it->slots - 1))
		if (it->slot[h].key == key && it->slot[h].kind == kind)
			break;
	return h;
}

static int more_slots(struct intern_table *it)
{
	struct intern_table bigger = *it;
	size_t i;

	bigger.slots = it->slots ? 2 * it->slots : 64;
	bigger.slot = calloc(bigger.slots, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -ENOMEM;
	for (i = 0; i < it->slots; i++)
		if (it->slot[i].iid)
			bigger.slot[intern_slot(&bigger, it->slot[i].kind, it->slot[i].key)] =
			        it->slot[i];
	free(it->slot);
	*it = bigger;
	return 0;
}

/* The key's iid; *fresh when it was given now (its data must be written). */
static uint64_t intern_key(struct intern_table *it, enum intern_kind kind, const void *key,
                           int *fresh)
{
	size_t h;

	*fresh = 0;
	if (2 * (it->n + 1) > it->slots && more_slots(it) < 0)
		return 0;
	h = intern_slot(it, kind, key);
	if (!it->slot[h].iid) {
		it->slot[h].key = key;
		it->slot[h].kind = kind;
		it->slot[h].iid = ++it->next_iid[index_of(kind)];
		it->n++;
		*fresh = 1;
	}
	return it->slot[h].iid;
}

/* ---- the writer ---- */

/* A thread's packet sequence. */
struct sequence {
	int started;
	uint64_t last_ns;                       /* the sequence clock's last value */
	uint64_t last_value[UPMC_MAX_COUNTERS]; /* each counter track's */
	struct intern_table interned;
};

struct upmc_zone_perfetto {
	const struct upmc_profile *p;
	struct pb packet;   /* the packet being built */
	struct pb interned; /* its interned data, put in front of its event */
	struct pb out;      /* the packets of this save or append */
	struct sequence *seq;
	size_t n_seq;
	int process_done;
};

static uint64_t thread_uuid(const struct upmc_zone_thread *t)
{
	return 2 + (uint64_t)t->index * (UPMC_MAX_COUNTERS + 1);
}

static uint32_t sequence_of(const struct upmc_zone_thread *t)
{
	return 2 + t->index;
}

/* The packet built so far goes out as one Trace.packet; the next begins. */
static void end_packet(struct upmc_zone_perfetto *w)
{
	struct pb *b = &w->packet;

	if (w->interned.len) {
		put_varint(b, (uint64_t)PACKET_INTERNED_DATA << 3 | 2);
		put_varint(b, w->interned.len);
		put(b, w->interned.buf, w->interned.len);
		w->interned.len = 0;
	}
	put_varint(&w->out, (uint64_t)TRACE_PACKET << 3 | 2);
	put_varint(&w->out, b->len);
	put(&w->out, b->buf, b->len);
	w->out.failed |= b->failed | w->interned.failed;
	b->len = 0;
}

static int is_instructions(const char *name)
{
	return !strncmp(name, "instructions", 12) && (!name[12] || name[12] == ':');
}

/* A thread's counters as counter tracks: those its slices carry values for. */
static int has_counter_tracks(const struct upmc_zone_thread *t)
{
	return t->k && !t->multiplexed;
}

/* The sequence's first packet: its state cleared, its defaults and its clock. */
static void sequence_start(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	struct pb *b = &w->packet;
	unsigned i;

	field_uint(b, PACKET_SEQUENCE_ID, sequence_of(t));
	field_uint(b, PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
	begin_message(b, PACKET_DEFAULTS);
	field_uint(b, DEFAULTS_TIMESTAMP_CLOCK_ID, SEQUENCE_CLOCK);
	begin_message(b, DEFAULTS_TRACK_EVENT);
	field_uint(b, EVENT_DEFAULTS_TRACK_UUID, thread_uuid(t));
	for (i = 0; has_counter_tracks(t) && i < t->k; i++)
		field_uint(b, EVENT_DEFAULTS_COUNTER_UUIDS, thread_uuid(t) + 1 + i);
	end_message(b);
	end_message(b);
	/* Time 0 of the sequence clock is the profile's open (trace time 0). */
	begin_message(b, PACKET_CLOCK_SNAPSHOT);
	begin_message(b, CLOCK_SNAPSHOT_CLOCKS);
	field_uint(b, CLOCK_ID, SEQUENCE_CLOCK);
	field_uint(b, CLOCK_TIMESTAMP, 0);
	field_uint(b, CLOCK_IS_INCREMENTAL, 1);
	end_message(b);
	begin_message(b, CLOCK_SNAPSHOT_CLOCKS);
	field_uint(b, CLOCK_ID, CLOCK_BOOTTIME);
	field_uint(b, CLOCK_TIMESTAMP, 0);
	end_message(b);
	end_message(b);
	end_packet(w);
}

/* The thread's track, and one counter track for each counter it records. */
static void thread_tracks(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	const struct upmc_profile *p = w->p;
	char label[ZONE_THREAD_NAME + 16];
	struct pb *b = &w->packet;
	unsigned i;

	upmc_zone_label(p, t, label, sizeof(label));
	field_uint(b, PACKET_SEQUENCE_ID, sequence_of(t));
	begin_message(b, PACKET_TRACK_DESCRIPTOR);
	field_uint(b, TRACK_UUID, thread_uuid(t));
	begin_message(b, TRACK_THREAD);
	field_uint(b, THREAD_PID, p->pid);
	field_uint(b, THREAD_TID, t->tid);
	field_string(b, THREAD_NAME, label);
	end_message(b);
	end_message(b);
	end_packet(w);
	for (i = 0; has_counter_tracks(t) && i < t->k; i++) {
		field_uint(b, PACKET_SEQUENCE_ID, sequence_of(t));
		begin_message(b, PACKET_TRACK_DESCRIPTOR);
		field_uint(b, TRACK_UUID, thread_uuid(t) + 1 + i);
		field_uint(b, TRACK_PARENT_UUID, thread_uuid(t));
		field_string(b, TRACK_NAME, p->counter[i]);
		begin_message(b, TRACK_COUNTER);
		if (is_instructions(p->counter[i]))
			field_uint(b, COUNTER_TYPE, INSTRUCTION_COUNT);
		else
			field_uint(b, COUNTER_UNIT, UNIT_COUNT);
		field_uint(b, COUNTER_IS_INCREMENTAL, 1);
		end_message(b);
		end_message(b);
		end_packet(w);
	}
}

/* The sequence of t, started (its first packets written) at its first use. */
static struct sequence *sequence(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	struct sequence *s;

	if (t->index >= w->n_seq) {
		size_t n = t->index + 16;
		struct sequence *bigger = realloc(w->seq, n * sizeof(*bigger));
		if (!bigger)
			return NULL;
		memset(bigger + w->n_seq, 0, (n - w->n_seq) * sizeof(*bigger));
		w->seq = bigger;
		w->n_seq = n;
	}
	s = &w->seq[t->index];
	if (!s->started) {
		sequence_start(w, t);
		thread_tracks(w, t);
		s->started = 1;
	}
	return s;
}

/* An event's packet head: its sequence and its time as a delta. */
static void event_head(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                       struct sequence *s, uint64_t ticks)
{
	uint64_t ns = upmc_zone_ns(w->p, ticks);

	if (ns < s->last_ns) /* timestamps never go back on a thread: kept so */
		ns = s->last_ns;
	field_uint(&w->packet, PACKET_TIMESTAMP, ns - s->last_ns);
	field_uint(&w->packet, PACKET_SEQUENCE_ID, sequence_of(t));
	s->last_ns = ns;
}

/* The iid of a name (a zone's location, or a frame's name), interned in
 * this packet when new. */
static uint64_t name_iid(struct upmc_zone_perfetto *w, struct sequence *s, enum intern_kind kind,
                         const void *key, const char *name)
{
	int fresh;
	uint64_t iid = intern_key(&s->interned, kind, key, &fresh);

	if (fresh) {
		begin_message(&w->interned, INTERNED_EVENT_NAMES);
		field_uint(&w->interned, INTERNED_IID, iid);
		field_string(&w->interned, INTERNED_NAME, name);
		end_message(&w->interned);
	}
	return iid;
}

static uint64_t location_iid(struct upmc_zone_perfetto *w, struct sequence *s,
                             const struct upmc_zone_loc *loc)
{
	int fresh;
	uint64_t iid = intern_key(&s->interned, LOCATION, loc, &fresh);

	if (fresh) {
		begin_message(&w->interned, INTERNED_SOURCE_LOCATIONS);
		field_uint(&w->interned, INTERNED_IID, iid);
		field_string(&w->interned, LOCATION_FILE, loc->file);
		if (loc->function)
			field_string(&w->interned, LOCATION_FUNCTION, loc->function);
		field_uint(&w->interned, LOCATION_LINE, loc->line);
		end_message(&w->interned);
	}
	return iid;
}

/* A debug annotation, its name interned (key: the name's address, which
 * lives as long as the profile). */
static void annotation_head(struct upmc_zone_perfetto *w, struct sequence *s, const char *name)
{
	int fresh;
	uint64_t iid = intern_key(&s->interned, ANNOTATION, name, &fresh);

	if (fresh) {
		begin_message(&w->interned, INTERNED_ANNOTATION_NAMES);
		field_uint(&w->interned, INTERNED_IID, iid);
		field_string(&w->interned, INTERNED_NAME, name);
		end_message(&w->interned);
	}
	begin_message(&w->packet, EVENT_DEBUG_ANNOTATIONS);
	field_uint(&w->packet, ANNOTATION_NAME_IID, iid);
}

static void uint_annotation(struct upmc_zone_perfetto *w, struct sequence *s, const char *name,
                            uint64_t value)
{
	annotation_head(w, s, name);
	field_uint(&w->packet, ANNOTATION_UINT_VALUE, value);
	end_message(&w->packet);
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
		annotation_head(w, s, ran);
		field_double(&w->packet, ANNOTATION_DOUBLE_VALUE, c.ratio[i]);
		end_message(&w->packet);
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
		annotation_head(w, s, upmc_zone_metric_name(w->p, j));
		field_double(&w->packet, ANNOTATION_DOUBLE_VALUE, metric[j]);
		end_message(&w->packet);
	}
}

/* The thread's counter values at this point, as deltas on their tracks;
 * one that did not count is left out (its track's uuids then given). */
static void counter_values(struct upmc_zone_perfetto *w, struct sequence *s,
                           const struct upmc_zone_thread *t, const uint64_t *v)
{
	unsigned i, counted = 0;

	for (i = 0; i < t->k; i++)
		counted += v[i] != UPMC_NOT_COUNTED;
	for (i = 0; counted < t->k && i < t->k; i++)
		if (v[i] != UPMC_NOT_COUNTED)
			field_uint(&w->packet, EVENT_EXTRA_COUNTER_TRACK_UUIDS,
			           thread_uuid(t) + 1 + i);
	for (i = 0; i < t->k; i++)
		if (v[i] != UPMC_NOT_COUNTED) {
			field_uint(&w->packet, EVENT_EXTRA_COUNTER_VALUES, v[i] - s->last_value[i]);
			s->last_value[i] = v[i];
		}
}

static void slice_begin(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                        const struct upmc_zone_loc *loc, uint64_t ticks, const uint64_t *v)
{
	struct sequence *s = sequence(w, t);
	uint64_t name, where = 0;

	if (!s) {
		w->out.failed = 1;
		return;
	}
	event_head(w, t, s, ticks);
	name = name_iid(w, s, NAME_OF_LOC, loc, loc->name);
	if (loc->file)
		where = location_iid(w, s, loc);
	begin_message(&w->packet, PACKET_TRACK_EVENT);
	field_uint(&w->packet, EVENT_TYPE, SLICE_BEGIN);
	field_uint(&w->packet, EVENT_NAME_IID, name);
	if (where)
		field_uint(&w->packet, EVENT_SOURCE_LOCATION_IID, where);
	if (has_counter_tracks(t))
		counter_values(w, s, t, v);
	end_message(&w->packet);
	end_packet(w);
}

/* A slice's end: z the zone it closes, or NULL for one whose end was
 * dropped (a stream had written its begin). */
static void slice_end(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                      uint64_t ticks, const struct zone_done *z)
{
	struct sequence *s = sequence(w, t);
	const char *text;

	if (!s) {
		w->out.failed = 1;
		return;
	}
	event_head(w, t, s, ticks);
	begin_message(&w->packet, PACKET_TRACK_EVENT);
	field_uint(&w->packet, EVENT_TYPE, SLICE_END);
	if (z && has_counter_tracks(t))
		counter_values(w, s, t, t->values + z->v + t->w);
	else if (z && t->k)
		multiplexed_counts(w, s, t, z);
	if (z && t->k && w->p->n_metrics)
		metric_values(w, s, t, z);
	text = z ? upmc_zone_text_of(t, z) : NULL;
	if (text) {
		annotation_head(w, s, "text");
		field_string(&w->packet, ANNOTATION_STRING_VALUE, text);
		end_message(&w->packet);
	}
	if (z && z->has_value)
		uint_annotation(w, s, "value", z->value);
	end_message(&w->packet);
	end_packet(w);
}

static void frame_instant(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                          const struct zone_frame *f)
{
	struct sequence *s = sequence(w, t);
	char label[256];

	if (!s) {
		w->out.failed = 1;
		return;
	}
	upmc_zone_frame_label(f, label, sizeof(label));
	event_head(w, t, s, f->t);
	begin_message(&w->packet, PACKET_TRACK_EVENT);
	field_uint(&w->packet, EVENT_TYPE, INSTANT);
	field_uint(&w->packet, EVENT_NAME_IID, name_iid(w, s, NAME_OF_FRAME, f->name, label));
	end_message(&w->packet);
	end_packet(w);
}

/* ---- the process track ---- */

static void process_track(struct upmc_zone_perfetto *w)
{
	struct pb *b = &w->packet;

	field_uint(b, PACKET_SEQUENCE_ID, PROCESS_SEQUENCE);
	field_uint(b, PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
	begin_message(b, PACKET_TRACK_DESCRIPTOR);
	field_uint(b, TRACK_UUID, PROCESS_UUID);
	begin_message(b, TRACK_PROCESS);
	field_uint(b, PROCESS_PID, w->p->pid);
	field_string(b, PROCESS_NAME, "upmc profile");
	end_message(b);
	end_message(b);
	end_packet(w);
}

static void count_annotation(struct pb *b, const char *name, uint64_t value)
{
	begin_message(b, EVENT_DEBUG_ANNOTATIONS);
	field_string(b, ANNOTATION_NAME, name);
	field_uint(b, ANNOTATION_UINT_VALUE, value);
	end_message(b);
}

static void why_annotation(void *arg, unsigned j, const char *why)
{
	struct upmc_zone_perfetto *w = arg;
	char name[UPMC_NAME_MAX + 32];

	upmc_format(name, sizeof(name), "%s not computed", upmc_zone_metric_name(w->p, j));
	begin_message(&w->packet, EVENT_DEBUG_ANNOTATIONS);
	field_string(&w->packet, ANNOTATION_NAME, name);
	field_string(&w->packet, ANNOTATION_STRING_VALUE, why);
	end_message(&w->packet);
}

/* Why some zones have no topdown metric: once, beside why_annotation's. */
static void unmeasured_annotation(void *arg, const char *note)
{
	struct upmc_zone_perfetto *w = arg;

	begin_message(&w->packet, EVENT_DEBUG_ANNOTATIONS);
	field_string(&w->packet, ANNOTATION_NAME, "topdown not measured");
	field_string(&w->packet, ANNOTATION_STRING_VALUE, note);
	end_message(&w->packet);
}

/* What was lost so far, as an instant event on the process track at
 * `ticks` (the last thing written): the last one says it all. */
static void drop_counts(struct upmc_zone_perfetto *w, uint64_t ticks)
{
	struct upmc_profile_stats st;
	struct pb *b = &w->packet;

	upmc_zone_totals(w->p, &st);
	field_uint(b, PACKET_SEQUENCE_ID, PROCESS_SEQUENCE);
	field_uint(b, PACKET_TIMESTAMP, upmc_zone_ns(w->p, ticks));
	begin_message(b, PACKET_TRACK_EVENT);
	field_uint(b, EVENT_TYPE, INSTANT);
	field_uint(b, EVENT_TRACK_UUID, PROCESS_UUID);
	field_string(b, EVENT_NAME, "upmc");
	count_annotation(b, "dropped_zones", st.dropped);
	count_annotation(b, "dropped_frames", st.dropped_frames);
	count_annotation(b, "dropped_notes", upmc_zone_dropped_notes(w->p));
	count_annotation(b, "unbalanced_ends", st.unbalanced);
	count_annotation(b, "refused_zones", st.refused);
	count_annotation(b, "open_zones", st.open);
	upmc_zone_metrics_not_computed(w->p, why_annotation, w);
	upmc_zone_topdown_unmeasured(w->p, unmeasured_annotation, w);
	end_message(b);
	end_packet(w);
}

/* ---- a writer's life ---- */

struct upmc_zone_perfetto *upmc_zone_perfetto_new(const struct upmc_profile *p)
{
	struct upmc_zone_perfetto *w = calloc(1, sizeof(*w));

	if (!w)
		upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	else
		w->p = p;
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
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->n_seq; i++)
		free(w->seq[i].interned.slot);
	free(w->seq);
	free(w->packet.buf);
	free(w->interned.buf);
	free(w->out.buf);
	free(w);
}

/* The bytes built, to write, then forgotten by upmc_zone_perfetto_sent(). */
const uint8_t *upmc_zone_perfetto_bytes(struct upmc_zone_perfetto *w, size_t *len)
{
	*len = w->out.len;
	return w->out.buf;
}

void upmc_zone_perfetto_sent(struct upmc_zone_perfetto *w)
{
	w->out.len = 0;
}

static int result(struct upmc_zone_perfetto *w)
{
	if (w->out.failed || w->packet.failed || w->interned.failed)
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

int upmc_zone_write_perfetto(struct upmc_profile *p, FILE *out)
{
	struct upmc_zone_perfetto *w = upmc_zone_perfetto_new(p);
	struct upmc_zone_thread *t;
	int err = 0;

	if (!w)
		return -ENOMEM;
	process_track(w);
	for (t = upmc_zone_threads(p); t && err == 0; t = upmc_zone_thread_next(t)) {
		struct slices s = {w, t, 0};
		if (sequence(w, t) == NULL)
			err = upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
		if (err == 0)
			err = upmc_zone_walk(t, slice_packet, &s);
		frames_until(&s, UINT64_MAX);
	}
	if (err == 0) {
		drop_counts(w, latest(p));
		err = result(w);
	}
	if (err == 0)
		fwrite(w->out.buf, 1, w->out.len, out);
	upmc_zone_perfetto_free(w);
	return err;
}
