/* SPDX-License-Identifier: MIT */
/*
 * Zones as a Perfetto trace (.pftrace): protobuf TracePackets, encoded here
 * (tests/perfetto/trace_subset.proto lists the messages and fields used).
 *
 * - A process track, with the drop counts as debug annotations of an
 *   instant event on it; a track per thread, each thread its own packet
 *   sequence with its events in time order.
 * - A zone is a TYPE_SLICE_BEGIN and a TYPE_SLICE_END on its thread's
 *   track, each with the thread's counter values at that point on counter
 *   tracks (extra_counter_track_uuids/values). An instructions counter's
 *   track is the builtin COUNTER_THREAD_INSTRUCTION_COUNT, so that the
 *   trace processor fills a slice's thread_instruction_count and _delta.
 *   A multiplexed counter has no running total a track could show (each is
 *   scaled by its own share of the time since open): its thread's slices
 *   end with the zone's count, scaled by the zone's own times, and the
 *   share it ran, as debug annotations ("<counter>", "<counter> ran").
 * - A frame mark is a TYPE_INSTANT named "frame".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zone_internal.h"

/* Field numbers (Perfetto's). */
enum {
	TRACE_PACKET = 1,
	PACKET_TIMESTAMP = 8,
	PACKET_SEQUENCE_ID = 10,
	PACKET_TRACK_EVENT = 11,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_TRACK_DESCRIPTOR = 60,
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
	EVENT_DEBUG_ANNOTATIONS = 4,
	EVENT_TYPE = 9,
	EVENT_TRACK_UUID = 11,
	EVENT_EXTRA_COUNTER_VALUES = 12,
	EVENT_NAME = 23,
	EVENT_EXTRA_COUNTER_TRACK_UUIDS = 31,
	ANNOTATION_UINT_VALUE = 3,
	ANNOTATION_DOUBLE_VALUE = 5,
	ANNOTATION_NAME = 10,
};

/* Values (Perfetto's). */
enum {
	SLICE_BEGIN = 1,
	SLICE_END = 2,
	INSTANT = 3,
	INSTRUCTION_COUNT = 2, /* CounterDescriptor.COUNTER_THREAD_INSTRUCTION_COUNT */
	UNIT_COUNT = 2,
	INCREMENTAL_STATE_CLEARED = 1,
};

#define PROCESS_UUID 1

/* One packet, built in memory: nested messages need their length first. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[4]; /* where each open message's body starts */
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

/* The packet built so far goes out as one Trace.packet; the next begins. */
static void flush_packet(struct pb *b, FILE *out)
{
	uint8_t bytes[10];

	if (b->failed)
		return;
	fwrite(bytes, 1, varint(bytes, (uint64_t)TRACE_PACKET << 3 | 2), out);
	fwrite(bytes, 1, varint(bytes, b->len), out);
	fwrite(b->buf, 1, b->len, out);
	b->len = 0;
}

static void packet_head(struct pb *b, uint32_t sequence, int first)
{
	field_uint(b, PACKET_SEQUENCE_ID, sequence);
	if (first)
		field_uint(b, PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
}

static uint64_t thread_uuid(const struct upmc_zone_thread *t)
{
	return 2 + (uint64_t)t->index * (UPMC_MAX_COUNTERS + 1);
}

static uint32_t sequence_of(const struct upmc_zone_thread *t)
{
	return 2 + t->index;
}

static void annotation(struct pb *b, const char *name, uint64_t value)
{
	begin_message(b, EVENT_DEBUG_ANNOTATIONS);
	field_string(b, ANNOTATION_NAME, name);
	field_uint(b, ANNOTATION_UINT_VALUE, value);
	end_message(b);
}

static void double_annotation(struct pb *b, const char *name, double value)
{
	begin_message(b, EVENT_DEBUG_ANNOTATIONS);
	field_string(b, ANNOTATION_NAME, name);
	field_double(b, ANNOTATION_DOUBLE_VALUE, value);
	end_message(b);
}

/* The process track, and what was lost as an instant event on it. */
static void process_packets(const struct upmc_profile *p, struct pb *b, FILE *out)
{
	struct upmc_profile_stats st;

	upmc_zone_totals(p, &st);
	packet_head(b, 1, 1);
	begin_message(b, PACKET_TRACK_DESCRIPTOR);
	field_uint(b, TRACK_UUID, PROCESS_UUID);
	begin_message(b, TRACK_PROCESS);
	field_uint(b, PROCESS_PID, p->pid);
	field_string(b, PROCESS_NAME, "upmc profile");
	end_message(b);
	end_message(b);
	flush_packet(b, out);
	packet_head(b, 1, 0);
	field_uint(b, PACKET_TIMESTAMP, 0);
	begin_message(b, PACKET_TRACK_EVENT);
	field_uint(b, EVENT_TYPE, INSTANT);
	field_uint(b, EVENT_TRACK_UUID, PROCESS_UUID);
	field_string(b, EVENT_NAME, "upmc");
	annotation(b, "dropped_zones", st.dropped);
	annotation(b, "dropped_frames", st.dropped_frames);
	annotation(b, "unbalanced_ends", st.unbalanced);
	annotation(b, "refused_zones", st.refused);
	annotation(b, "open_zones", st.open);
	end_message(b);
	flush_packet(b, out);
}

static int is_instructions(const char *name)
{
	return !strncmp(name, "instructions", 12) && (!name[12] || name[12] == ':');
}

/* The thread's track, and one counter track for each counter it records. */
static void thread_packets(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                           struct pb *b, FILE *out)
{
	char label[ZONE_THREAD_NAME + 16];
	unsigned i;

	upmc_zone_label(p, t, label, sizeof(label));
	packet_head(b, sequence_of(t), 1);
	begin_message(b, PACKET_TRACK_DESCRIPTOR);
	field_uint(b, TRACK_UUID, thread_uuid(t));
	begin_message(b, TRACK_THREAD);
	field_uint(b, THREAD_PID, p->pid);
	field_uint(b, THREAD_TID, t->tid);
	field_string(b, THREAD_NAME, label);
	end_message(b);
	end_message(b);
	flush_packet(b, out);
	for (i = 0; i < t->k && !t->multiplexed; i++) {
		packet_head(b, sequence_of(t), 0);
		begin_message(b, PACKET_TRACK_DESCRIPTOR);
		field_uint(b, TRACK_UUID, thread_uuid(t) + 1 + i);
		field_uint(b, TRACK_PARENT_UUID, thread_uuid(t));
		field_string(b, TRACK_NAME, p->counter[i]);
		begin_message(b, TRACK_COUNTER);
		if (is_instructions(p->counter[i]))
			field_uint(b, COUNTER_TYPE, INSTRUCTION_COUNT);
		else
			field_uint(b, COUNTER_UNIT, UNIT_COUNT);
		end_message(b);
		end_message(b);
		flush_packet(b, out);
	}
}

struct slices {
	const struct upmc_profile *p;
	const struct upmc_zone_thread *t;
	struct pb *b;
	FILE *out;
	size_t frame; /* the next frame mark to write */
};

static void frame_packets(struct slices *s, uint64_t until)
{
	const struct upmc_zone_thread *t = s->t;

	for (; s->frame < t->n_frames && t->frames[s->frame] <= until; s->frame++) {
		packet_head(s->b, sequence_of(t), 0);
		field_uint(s->b, PACKET_TIMESTAMP, upmc_zone_ns(s->p, t->frames[s->frame]));
		begin_message(s->b, PACKET_TRACK_EVENT);
		field_uint(s->b, EVENT_TYPE, INSTANT);
		field_uint(s->b, EVENT_TRACK_UUID, thread_uuid(t));
		field_string(s->b, EVENT_NAME, "frame");
		end_message(s->b);
		flush_packet(s->b, s->out);
	}
}

/* A multiplexed counter's count in the zone and the share it ran, as
 * annotations of the slice's end: it has no running total for a track. */
static void multiplexed_counts(struct slices *s, const struct zone_done *z)
{
	struct zone_counts c;
	char name[UPMC_NAME_MAX + 8];
	unsigned i;

	upmc_zone_counts(s->p, s->t, z, &c);
	for (i = 0; i < s->t->k; i++) {
		if (c.delta[i] == UPMC_NOT_COUNTED)
			continue;
		annotation(s->b, s->p->counter[i], c.delta[i]);
		upmc_format(name, sizeof(name), "%s ran", s->p->counter[i]);
		double_annotation(s->b, name, c.ratio[i]);
	}
}

/* The thread's counter values at this end of the slice, on their tracks. */
static void counter_values(struct slices *s, const struct zone_done *z, int begin)
{
	const struct upmc_zone_thread *t = s->t;
	const uint64_t *v = t->values + z->v + (begin ? 0 : t->w);
	unsigned i;

	for (i = 0; i < t->k; i++)
		if (v[i] != UPMC_NOT_COUNTED)
			field_uint(s->b, EVENT_EXTRA_COUNTER_TRACK_UUIDS, thread_uuid(t) + 1 + i);
	for (i = 0; i < t->k; i++)
		if (v[i] != UPMC_NOT_COUNTED)
			field_uint(s->b, EVENT_EXTRA_COUNTER_VALUES, v[i]);
}

static int slice_packet(void *arg, const struct zone_done *z, int begin, unsigned depth)
{
	struct slices *s = arg;
	const struct upmc_zone_thread *t = s->t;
	uint64_t when = begin ? z->t0 : z->t1;

	(void)depth;
	frame_packets(s, when);
	packet_head(s->b, sequence_of(t), 0);
	field_uint(s->b, PACKET_TIMESTAMP, upmc_zone_ns(s->p, when));
	begin_message(s->b, PACKET_TRACK_EVENT);
	field_uint(s->b, EVENT_TYPE, begin ? SLICE_BEGIN : SLICE_END);
	field_uint(s->b, EVENT_TRACK_UUID, thread_uuid(t));
	if (begin)
		field_string(s->b, EVENT_NAME, z->loc->name);
	if (t->k && !t->multiplexed)
		counter_values(s, z, begin);
	else if (t->k && !begin)
		multiplexed_counts(s, z);
	end_message(s->b);
	flush_packet(s->b, s->out);
	return s->b->failed ? upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace") : 0;
}

int upmc_zone_write_perfetto(struct upmc_profile *p, FILE *out)
{
	struct pb b = {NULL, 0, 0, {0}, 0, 0};
	struct upmc_zone_thread *t;
	int err = 0;

	process_packets(p, &b, out);
	for (t = upmc_zone_threads(p); t && err == 0; t = upmc_zone_thread_next(t)) {
		struct slices s = {p, t, &b, out, 0};
		thread_packets(p, t, &b, out);
		err = upmc_zone_walk(t, slice_packet, &s);
		frame_packets(&s, UINT64_MAX);
	}
	if (b.failed && err == 0)
		err = upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	free(b.buf);
	return err;
}
