/* SPDX-License-Identifier: MIT */
/* The Perfetto writer's insides: protobuf.c (the encoder), sequence.c (a
 * thread's packet sequence) and perfetto.c (the trace) share them. */
#ifndef UPMC_PERFETTO_INTERNAL_H
#define UPMC_PERFETTO_INTERNAL_H

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
	PACKET_COMPRESSED_PACKETS = 50,
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

/* ---- protobuf.c: the encoder ---- */

/* Bytes built in memory: nested messages need their length first. */
struct pb {
	uint8_t *buf;
	size_t len, cap;
	size_t open[6]; /* where each open message's body starts */
	unsigned depth;
	int failed;
};

/* Each sets b->failed, and does nothing more, once memory runs out. */
void upmc_pb_put(struct pb *b, const void *data, size_t n);
/* Room for n more bytes: 0, or -1 (b->failed set). */
int upmc_pb_room(struct pb *b, size_t n);
void upmc_pb_double(struct pb *b, unsigned field, double v);
/* A string, made UTF-8 where it is not. */
void upmc_pb_string(struct pb *b, unsigned field, const char *s);
/* A nested message: begun, then ended with its length put in front. */
void upmc_pb_begin(struct pb *b, unsigned field);
void upmc_pb_end(struct pb *b);

/* Varints are most of a trace's bytes: written in place, inline, where
 * the buffer has room (a stream encodes millions a second). */
static inline uint8_t *upmc_pb_varint_at(uint8_t *out, uint64_t v)
{
	for (; v > 0x7f; v >>= 7)
		*out++ = (uint8_t)(v | 0x80);
	*out++ = (uint8_t)v;
	return out;
}

static inline size_t upmc_pb_varint_size(uint64_t v)
{
	size_t n = 1;

	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

static inline void upmc_pb_varint(struct pb *b, uint64_t v)
{
	if (b->cap - b->len < 10 && upmc_pb_room(b, 10) < 0)
		return;
	b->len = (size_t)(upmc_pb_varint_at(b->buf + b->len, v) - b->buf);
}

static inline void upmc_pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	uint8_t *at;

	if (b->cap - b->len < 20 && upmc_pb_room(b, 20) < 0)
		return;
	at = upmc_pb_varint_at(b->buf + b->len, (uint64_t)field << 3); /* wire type 0: varint */
	b->len = (size_t)(upmc_pb_varint_at(at, v) - b->buf);
}

/* ---- sequence.c: a thread's packet sequence ---- */

enum intern_kind { NAME_OF_LOC, NAME_OF_FRAME, LOCATION, ANNOTATION };

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

/* A thread's packet sequence. */
struct sequence {
	int started;
	char base[ZONE_THREAD_NAME];            /* the thread's name its track's name was made of */
	char label[ZONE_THREAD_NAME + 16];      /* its track's name: base, or "base #<n>" */
	uint64_t last_ns;                       /* the sequence clock's last value */
	uint64_t last_value[UPMC_MAX_COUNTERS]; /* each counter track's */
	struct intern_table interned;
	/* The iids of the locations begun last, by their address: a begin
	 * finds its name's and its location's here, without two look-ups. */
	struct recent_location {
		const struct upmc_zone_loc *loc;
		uint64_t name, where;
	} recent[16];
};

struct upmc_zone_perfetto {
	const struct upmc_profile *p;
	struct pb packet;   /* the packet being built */
	struct pb interned; /* its interned data, put in front of its event */
	struct pb out;      /* the packets of this save or append */
	/* The threads' sequences by thread index (open addressing): a
	 * thread's goes once the thread is retired, so that a stream keeps
	 * none of the threads gone. */
	struct sequence_slot *seq;
	size_t n_seq, seq_slots;
	/* The thread of the last event and its sequence: the next event is
	 * most often the same thread's, and needs no look-up. */
	const struct upmc_zone_thread *last_thread;
	struct sequence *last_seq;
	/* Every thread track name written, for the file's life, as a hash of
	 * it and the thread (index + 1) that bears it: no two tracks share
	 * one, even once a thread is gone. Open addressing. */
	struct track_name *names;
	size_t n_names, name_slots;
	int process_done;
	/* Compressed: the packets go out in chunks, each a TracePacket whose
	 * compressed_packets (field 50) is a zlib stream of them (chunk.c).
	 * The encoder only marks where each chunk ends, under the collector's
	 * lock; the zlib streams are made once the packets are taken out of
	 * the writer (upmc_zone_perfetto_take()), with no lock held. */
	int compress;
	size_t *cut; /* where each chunk of out ends */
	size_t n_cuts, cuts_cap;
	int cuts_failed;
};

/* The packet built so far goes out as one Trace.packet; the next begins. */
void upmc_pf_end_packet(struct upmc_zone_perfetto *w);

/* The uuid of t's track; its counters' tracks follow it. */
static inline uint64_t upmc_pf_thread_uuid(const struct upmc_zone_thread *t)
{
	return 2 + (uint64_t)t->index * (UPMC_MAX_COUNTERS + 1);
}

static inline uint32_t upmc_pf_sequence_of(const struct upmc_zone_thread *t)
{
	return 2 + t->index;
}

/* Whether t's counters are counter tracks: those its slices carry values for. */
static inline int upmc_pf_has_counter_tracks(const struct upmc_zone_thread *t)
{
	return t->k && !t->multiplexed;
}

/* ---- chunk.c: compressed chunks ---- */

/* Uncompressed bytes a chunk holds at most (give or take a packet). */
#define PF_CHUNK_BYTES (1u << 20)

/* A chunk ends here (the packets built since the last end, if any), and
 * every sequence starts again: a reader may begin at any chunk. */
void upmc_pf_chunk_end(struct upmc_zone_perfetto *w);

/* A chunk ends here when w->out has grown past PF_CHUNK_BYTES. Called
 * between two events, before a sequence's packets begin: inline, as
 * every event asks. */
static inline void upmc_pf_chunk_maybe(struct upmc_zone_perfetto *w)
{
	size_t last = w->n_cuts ? w->cut[w->n_cuts - 1] : 0;

	if (w->compress && w->out.len - last >= PF_CHUNK_BYTES)
		upmc_pf_chunk_end(w);
}

/* The sequence of t, started (its first packets written) at its first
 * use; NULL without memory. Inline where t is the last event's thread,
 * as most events' is. */
struct sequence *upmc_pf_sequence_find(struct upmc_zone_perfetto *w,
                                       const struct upmc_zone_thread *t);

static inline struct sequence *upmc_pf_sequence(struct upmc_zone_perfetto *w,
                                                const struct upmc_zone_thread *t)
{
	upmc_pf_chunk_maybe(w);
	if (t == w->last_thread && w->last_seq->started)
		return w->last_seq;
	return upmc_pf_sequence_find(w, t);
}

/* The event's time as a delta on its sequence's clock. */
static inline uint64_t upmc_pf_event_delta(struct upmc_zone_perfetto *w, struct sequence *s,
                                           uint64_t ticks)
{
	uint64_t ns = upmc_zone_ns(w->p, ticks), delta;

	if (ns < s->last_ns) /* timestamps never go back on a thread: kept so */
		ns = s->last_ns;
	delta = ns - s->last_ns;
	s->last_ns = ns;
	return delta;
}

/* An event's packet head, in w->packet: its sequence and its time as a delta. */
void upmc_pf_event_head(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                        struct sequence *s, uint64_t ticks);

/* ---- an event's packet, written in place in w->out ---- */

/* A TrackEvent's fields, at most: its type, name and location, and each
 * counter's track and value. */
#define PF_EVENT_BYTES (48 + 22 * UPMC_MAX_COUNTERS)

/* A nested message's tag (field < 16), and a byte kept for its length:
 * most bodies are shorter than 128 bytes. Where its body goes. */
static inline uint8_t *upmc_pf_open(uint8_t *at, unsigned field)
{
	at[0] = (uint8_t)(field << 3 | 2);
	return at + 2;
}

/* The body's length put in front of it, the body moved where it needs
 * more than the byte kept (2 more bytes at most); where it ends now. */
uint8_t *upmc_pf_close_long(uint8_t *body, uint8_t *end);

static inline uint8_t *upmc_pf_close(uint8_t *body, uint8_t *end)
{
	size_t n = (size_t)(end - body);

	if (n >= 0x80)
		return upmc_pf_close_long(body, end);
	body[-1] = (uint8_t)n;
	return end;
}

/* The packet's interned data (w->interned) put at `at`, and emptied. */
uint8_t *upmc_pf_put_interned(struct upmc_zone_perfetto *w, uint8_t *at);

/* An event's packet begun in w->out, after its sequence was found and
 * its names interned: its time (as a delta), its sequence, and its
 * TrackEvent's tag. Its TrackEvent's fields (PF_EVENT_BYTES at most) go
 * at the pointer returned; NULL without memory (w->out.failed set). */
static inline uint8_t *upmc_pf_event_begin(struct upmc_zone_perfetto *w,
                                           const struct upmc_zone_thread *t, struct sequence *s,
                                           uint64_t ticks)
{
	/* two tags and kept bytes, the time, the sequence, their moves, and
	 * the interned data's tag and length */
	size_t need = 48 + PF_EVENT_BYTES + w->interned.len;
	uint8_t *at;

	if (w->out.cap - w->out.len < need && upmc_pb_room(&w->out, need) < 0)
		return NULL;
	at = upmc_pf_open(w->out.buf + w->out.len, TRACE_PACKET);
	*at++ = PACKET_TIMESTAMP << 3;
	at = upmc_pb_varint_at(at, upmc_pf_event_delta(w, s, ticks));
	*at++ = PACKET_SEQUENCE_ID << 3;
	at = upmc_pb_varint_at(at, upmc_pf_sequence_of(t));
	return upmc_pf_open(at, PACKET_TRACK_EVENT);
}

/* The packet ends: its TrackEvent's fields from body to end, then the
 * names it interned. */
static inline void upmc_pf_event_end(struct upmc_zone_perfetto *w, uint8_t *body, uint8_t *end)
{
	uint8_t *packet = w->out.buf + w->out.len + 2;

	end = upmc_pf_close(body, end);
	if (w->interned.len)
		end = upmc_pf_put_interned(w, end);
	w->out.len = (size_t)(upmc_pf_close(packet, end) - w->out.buf);
}

/* A key's iid in the sequence; *fresh when given now (its data must be
 * written in this packet). */
uint64_t upmc_pf_intern(struct sequence *s, enum intern_kind kind, const void *key, int *fresh);
/* The interned data of an event name, in this packet. */
void upmc_pf_interned_name(struct upmc_zone_perfetto *w, uint64_t iid, const char *name);
/* A zone's location's recent iids: its name's, and its location's (0
 * where it has no file), interned in this packet when new. Inline where
 * the location is among the sequence's recent ones. */
const struct recent_location *upmc_pf_location_iids(struct upmc_zone_perfetto *w,
                                                    struct sequence *s,
                                                    const struct upmc_zone_loc *loc);

static inline const struct recent_location *upmc_pf_begin_iids(struct upmc_zone_perfetto *w,
                                                               struct sequence *s,
                                                               const struct upmc_zone_loc *loc)
{
	const struct recent_location *r = &s->recent[((uintptr_t)loc >> 4) % 16];

	return r->loc == loc ? r : upmc_pf_location_iids(w, s, loc);
}
/* A debug annotation begun, its name interned (key: the name's address,
 * which lives as long as the profile); the caller puts its value and ends it. */
void upmc_pf_annotation_head(struct upmc_zone_perfetto *w, struct sequence *s, const char *name);
/* A thread renamed since its track was last named (upmc_thread_name()):
 * its track descriptor again, with the new name. */
void upmc_pf_rename(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t);
/* Forgets t's sequence (t is retired: it has nothing left to write). */
void upmc_pf_sequence_forget(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t);
/* Every sequence's memory given back. */
void upmc_pf_sequences_free(struct upmc_zone_perfetto *w);
/* Every sequence starts again at its next packet (state cleared, names
 * interned again, clock and counters absolute): a chunk's boundary. */
void upmc_pf_sequences_restart(struct upmc_zone_perfetto *w);

/* ---- chunk.c ---- */

/* The chunks' ends given back. */
void upmc_pf_chunk_free(struct upmc_zone_perfetto *w);

/* Packets taken out of a writer, made into the bytes of a file: the
 * chunks (each a zlib stream) where compressed. */
struct upmc_zone_chunks {
	int level; /* zlib's */
	struct pb packets;
	size_t *cut; /* where each chunk of packets ends; none: uncompressed */
	size_t n_cuts, cuts_cap;
	struct pb chunks;   /* the chunks made */
	struct pb deflated; /* one chunk's zlib stream, being made */
	void *zlib;         /* the z_stream, made at the first chunk */
};

#endif /* UPMC_PERFETTO_INTERNAL_H */
