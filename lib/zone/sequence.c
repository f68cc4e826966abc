/* SPDX-License-Identifier: MIT */
/*
 * A thread's packet sequence in a Perfetto trace: its first packets (the
 * incremental state cleared, its defaults, its clock, its tracks), its
 * clock's deltas and its interned names, locations and annotation names,
 * kept by a stream across appends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"

/* ---- interning, per sequence ---- */

/* The index each kind's iids count in: names of both kinds share one. */
static unsigned index_of(enum intern_kind kind)
{
	return kind == NAME_OF_FRAME ? NAME_OF_LOC : kind;
}

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

/* ---- the sequence ---- */

/* The packet built so far goes out as one Trace.packet; the next begins. */
void upmc_pf_end_packet(struct upmc_zone_perfetto *w)
{
	struct pb *b = &w->packet;

	if (w->interned.len) {
		upmc_pb_varint(b, (uint64_t)PACKET_INTERNED_DATA << 3 | 2);
		upmc_pb_varint(b, w->interned.len);
		upmc_pb_put(b, w->interned.buf, w->interned.len);
		w->interned.len = 0;
	}
	w->out.failed |= b->failed | w->interned.failed;
	if (upmc_pb_room(&w->out, 11 + b->len) == 0) { /* the tag, the length, the body */
		uint8_t *at = w->out.buf + w->out.len;
		size_t i;
		*at++ = (uint8_t)(TRACE_PACKET << 3 | 2);
		at = upmc_pb_varint_at(at, b->len);
		for (i = 0; i < b->len; i++) /* a few bytes: no call */
			at[i] = b->buf[i];
		w->out.len = (size_t)(at + b->len - w->out.buf);
	}
	b->len = 0;
}

static int is_instructions(const char *name)
{
	return !strncmp(name, "instructions", 12) && (!name[12] || name[12] == ':');
}

/* The sequence's first packet: its state cleared, its defaults and its clock. */
static void sequence_start(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	struct pb *b = &w->packet;
	unsigned i;

	upmc_pb_uint(b, PACKET_SEQUENCE_ID, upmc_pf_sequence_of(t));
	upmc_pb_uint(b, PACKET_SEQUENCE_FLAGS, INCREMENTAL_STATE_CLEARED);
	upmc_pb_begin(b, PACKET_DEFAULTS);
	upmc_pb_uint(b, DEFAULTS_TIMESTAMP_CLOCK_ID, SEQUENCE_CLOCK);
	upmc_pb_begin(b, DEFAULTS_TRACK_EVENT);
	upmc_pb_uint(b, EVENT_DEFAULTS_TRACK_UUID, upmc_pf_thread_uuid(t));
	for (i = 0; upmc_pf_has_counter_tracks(t) && i < t->k; i++)
		upmc_pb_uint(b, EVENT_DEFAULTS_COUNTER_UUIDS, upmc_pf_thread_uuid(t) + 1 + i);
	upmc_pb_end(b);
	upmc_pb_end(b);
	/* Time 0 of the sequence clock is the profile's open (trace time 0). */
	upmc_pb_begin(b, PACKET_CLOCK_SNAPSHOT);
	upmc_pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	upmc_pb_uint(b, CLOCK_ID, SEQUENCE_CLOCK);
	upmc_pb_uint(b, CLOCK_TIMESTAMP, 0);
	upmc_pb_uint(b, CLOCK_IS_INCREMENTAL, 1);
	upmc_pb_end(b);
	upmc_pb_begin(b, CLOCK_SNAPSHOT_CLOCKS);
	upmc_pb_uint(b, CLOCK_ID, CLOCK_BOOTTIME);
	upmc_pb_uint(b, CLOCK_TIMESTAMP, 0);
	upmc_pb_end(b);
	upmc_pb_end(b);
	upmc_pf_end_packet(w);
}

/* ---- the names of the thread tracks, unique for the file's life ---- */

struct track_name {
	uint64_t hash;
	uint64_t owner; /* the thread's index + 1; 0: a free slot */
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static size_t track_name_slot(const struct upmc_zone_perfetto *w, uint64_t hash)
{
	size_t h = (size_t)(hash * 0x9e3779b97f4a7c15ull) & (w->name_slots - 1);

	while (w->names[h].owner && w->names[h].hash != hash)
		h = (h + 1) & (w->name_slots - 1);
	return h;
}

static int more_track_names(struct upmc_zone_perfetto *w)
{
	struct upmc_zone_perfetto bigger = *w;
	size_t i;

	bigger.name_slots = w->name_slots ? 2 * w->name_slots : 64;
	bigger.names = calloc(bigger.name_slots, sizeof(*bigger.names));
	if (!bigger.names)
		return -ENOMEM;
	for (i = 0; i < w->name_slots; i++)
		if (w->names[i].owner)
			bigger.names[track_name_slot(&bigger, w->names[i].hash)] = w->names[i];
	free(w->names);
	w->names = bigger.names;
	w->name_slots = bigger.name_slots;
	return 0;
}

/* Whether thread `index` may bear name in this file: 1 when no other
 * track did (it is the thread's from now on), 0 when another did, or
 * -ENOMEM. Two names of one hash count as one: a " #<n>" too many. */
static int claim_name(struct upmc_zone_perfetto *w, const char *name, unsigned index)
{
	uint64_t hash = name_hash(name);
	size_t h;

	if (2 * (w->n_names + 1) > w->name_slots && more_track_names(w) < 0)
		return -ENOMEM;
	h = track_name_slot(w, hash);
	if (!w->names[h].owner) {
		w->names[h].hash = hash;
		w->names[h].owner = (uint64_t)index + 1;
		w->n_names++;
	}
	return w->names[h].owner == (uint64_t)index + 1;
}

/* The track's name: the thread's, or "<name> #<n>" where another track of
 * the file bore that name, n from the thread's index + 1 (the profile's
 * own for it) up to the first that no other track bears: a thread may be
 * named "<name> #<n>" itself. 0, or -ENOMEM. */
static int name_track(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                      struct sequence *s)
{
	int mine = claim_name(w, t->name, t->index);
	unsigned n = t->index + 1;

	memcpy(s->base, t->name, sizeof(s->base));
	upmc_format(s->label, sizeof(s->label), "%s", t->name);
	while (mine == 0) { /* the label fits any n: no two of them are one */
		upmc_format(s->label, sizeof(s->label), "%s #%u", t->name, n++);
		mine = claim_name(w, s->label, t->index);
	}
	return mine < 0 ? -ENOMEM : 0;
}

/* The thread's track, named s->label. */
static void thread_track(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                         const struct sequence *s)
{
	struct pb *b = &w->packet;

	upmc_pb_uint(b, PACKET_SEQUENCE_ID, upmc_pf_sequence_of(t));
	upmc_pb_begin(b, PACKET_TRACK_DESCRIPTOR);
	upmc_pb_uint(b, TRACK_UUID, upmc_pf_thread_uuid(t));
	upmc_pb_begin(b, TRACK_THREAD);
	upmc_pb_uint(b, THREAD_PID, w->p->pid);
	upmc_pb_uint(b, THREAD_TID, t->tid);
	upmc_pb_string(b, THREAD_NAME, s->label);
	upmc_pb_end(b);
	upmc_pb_end(b);
	upmc_pf_end_packet(w);
}

/* ---- the sequences, by thread index ---- */

struct sequence_slot {
	uint64_t owner; /* the thread's index + 1; 0: a free slot */
	struct sequence *s;
};

static size_t seq_slot_of(const struct upmc_zone_perfetto *w, uint64_t owner)
{
	size_t slot = (size_t)((owner * 0x9e3779b97f4a7c15ull) >> 17) & (w->seq_slots - 1);

	while (w->seq[slot].owner && w->seq[slot].owner != owner)
		slot = (slot + 1) & (w->seq_slots - 1);
	return slot;
}

/* t's sequence; NULL when it has none. */
static struct sequence *sequence_find(const struct upmc_zone_perfetto *w,
                                      const struct upmc_zone_thread *t)
{
	return w->seq_slots ? w->seq[seq_slot_of(w, (uint64_t)t->index + 1)].s : NULL;
}

static int more_sequence_slots(struct upmc_zone_perfetto *w)
{
	struct upmc_zone_perfetto bigger = *w;
	size_t i;

	bigger.seq_slots = w->seq_slots ? 2 * w->seq_slots : 16;
	bigger.seq = calloc(bigger.seq_slots, sizeof(*bigger.seq));
	if (!bigger.seq)
		return -ENOMEM;
	for (i = 0; i < w->seq_slots; i++)
		if (w->seq[i].owner)
			bigger.seq[seq_slot_of(&bigger, w->seq[i].owner)] = w->seq[i];
	free(w->seq);
	w->seq = bigger.seq;
	w->seq_slots = bigger.seq_slots;
	return 0;
}

/* t's sequence, made (zeroed) when it has none; NULL without memory. */
static struct sequence *sequence_make(struct upmc_zone_perfetto *w,
                                      const struct upmc_zone_thread *t)
{
	struct sequence *s = sequence_find(w, t);
	size_t slot;

	if (s)
		return s;
	if (2 * (w->n_seq + 1) > w->seq_slots && more_sequence_slots(w) < 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	slot = seq_slot_of(w, (uint64_t)t->index + 1);
	w->seq[slot].owner = (uint64_t)t->index + 1;
	w->seq[slot].s = s;
	w->n_seq++;
	return s;
}

void upmc_pf_sequence_forget(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	size_t hole, slot;

	if (!w->seq_slots || !w->seq[hole = seq_slot_of(w, (uint64_t)t->index + 1)].owner)
		return;
	w->last_thread = NULL;
	free(w->seq[hole].s->interned.slot);
	free(w->seq[hole].s);
	w->seq[hole].owner = 0;
	w->seq[hole].s = NULL;
	w->n_seq--;
	/* Linear probing's deletion: the slots after the hole that would not
	 * be found past it move into it. */
	for (slot = (hole + 1) & (w->seq_slots - 1); w->seq[slot].owner;
	     slot = (slot + 1) & (w->seq_slots - 1)) {
		uint64_t owner = w->seq[slot].owner;
		size_t home = (size_t)((owner * 0x9e3779b97f4a7c15ull) >> 17) & (w->seq_slots - 1);
		if (((slot - home) & (w->seq_slots - 1)) >= ((slot - hole) & (w->seq_slots - 1))) {
			w->seq[hole] = w->seq[slot];
			w->seq[slot].owner = 0;
			w->seq[slot].s = NULL;
			hole = slot;
		}
	}
}

void upmc_pf_rename(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t)
{
	struct sequence *s = sequence_find(w, t);
	char was[sizeof(s->label)];

	if (!s || !strcmp(s->base, t->name))
		return;
	if (!s->started) { /* restarted by a chunk: its tracks again, renamed */
		if (!upmc_pf_sequence(w, t))
			w->out.failed = 1;
		return;
	}
	memcpy(was, s->label, sizeof(was));
	if (name_track(w, t, s) < 0)
		w->out.failed = 1;
	else if (strcmp(was, s->label))
		thread_track(w, t, s);
}

/* The thread's track, and one counter track for each counter it records. */
static int thread_tracks(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                         struct sequence *s)
{
	const struct upmc_profile *p = w->p;
	struct pb *b = &w->packet;
	unsigned i;

	if (name_track(w, t, s) < 0)
		return -ENOMEM;
	thread_track(w, t, s);
	for (i = 0; upmc_pf_has_counter_tracks(t) && i < t->k; i++) {
		upmc_pb_uint(b, PACKET_SEQUENCE_ID, upmc_pf_sequence_of(t));
		upmc_pb_begin(b, PACKET_TRACK_DESCRIPTOR);
		upmc_pb_uint(b, TRACK_UUID, upmc_pf_thread_uuid(t) + 1 + i);
		upmc_pb_uint(b, TRACK_PARENT_UUID, upmc_pf_thread_uuid(t));
		upmc_pb_string(b, TRACK_NAME, p->counter[i]);
		upmc_pb_begin(b, TRACK_COUNTER);
		if (is_instructions(p->counter[i]))
			upmc_pb_uint(b, COUNTER_TYPE, INSTRUCTION_COUNT);
		else
			upmc_pb_uint(b, COUNTER_UNIT, UNIT_COUNT);
		upmc_pb_uint(b, COUNTER_IS_INCREMENTAL, 1);
		upmc_pb_end(b);
		upmc_pb_end(b);
		upmc_pf_end_packet(w);
	}
	return 0;
}

/* The sequence of t, started (its first packets written) at its first
 * use: upmc_pf_sequence() where t is not the last event's thread. */
struct sequence *upmc_pf_sequence_find(struct upmc_zone_perfetto *w,
                                       const struct upmc_zone_thread *t)
{
	struct sequence *s = sequence_make(w, t);

	if (!s)
		return NULL;
	if (!s->started) {
		sequence_start(w, t);
		if (thread_tracks(w, t, s) < 0)
			return NULL;
		s->started = 1;
	}
	w->last_thread = t;
	w->last_seq = s;
	return s;
}

/* An event's packet head: its sequence and its time as a delta. */
void upmc_pf_event_head(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t,
                        struct sequence *s, uint64_t ticks)
{
	upmc_pb_uint(&w->packet, PACKET_TIMESTAMP, upmc_pf_event_delta(w, s, ticks));
	upmc_pb_uint(&w->packet, PACKET_SEQUENCE_ID, upmc_pf_sequence_of(t));
}

uint64_t upmc_pf_intern(struct sequence *s, enum intern_kind kind, const void *key, int *fresh)
{
	return intern_key(&s->interned, kind, key, fresh);
}

void upmc_pf_interned_name(struct upmc_zone_perfetto *w, uint64_t iid, const char *name)
{
	upmc_pb_begin(&w->interned, INTERNED_EVENT_NAMES);
	upmc_pb_uint(&w->interned, INTERNED_IID, iid);
	upmc_pb_string(&w->interned, INTERNED_NAME, name);
	upmc_pb_end(&w->interned);
}

uint8_t *upmc_pf_close_long(uint8_t *body, uint8_t *end)
{
	size_t n = (size_t)(end - body), more = upmc_pb_varint_size(n) - 1;

	memmove(body + more, body, n);
	upmc_pb_varint_at(body - 1, n);
	return end + more;
}

uint8_t *upmc_pf_put_interned(struct upmc_zone_perfetto *w, uint8_t *at)
{
	*at++ = PACKET_INTERNED_DATA << 3 | 2;
	at = upmc_pb_varint_at(at, w->interned.len);
	memcpy(at, w->interned.buf, w->interned.len);
	at += w->interned.len;
	w->interned.len = 0;
	w->out.failed |= w->interned.failed;
	return at;
}

/* The iid of a name (a zone's location, or a frame's name), interned in
 * this packet when new. */
static uint64_t name_iid(struct upmc_zone_perfetto *w, struct sequence *s, enum intern_kind kind,
                         const void *key, const char *name)
{
	int fresh;
	uint64_t iid = intern_key(&s->interned, kind, key, &fresh);

	if (fresh)
		upmc_pf_interned_name(w, iid, name);
	return iid;
}

static uint64_t location_iid(struct upmc_zone_perfetto *w, struct sequence *s,
                             const struct upmc_zone_loc *loc)
{
	int fresh;
	uint64_t iid = intern_key(&s->interned, LOCATION, loc, &fresh);

	if (fresh) {
		upmc_pb_begin(&w->interned, INTERNED_SOURCE_LOCATIONS);
		upmc_pb_uint(&w->interned, INTERNED_IID, iid);
		upmc_pb_string(&w->interned, LOCATION_FILE, loc->file);
		if (loc->function)
			upmc_pb_string(&w->interned, LOCATION_FUNCTION, loc->function);
		upmc_pb_uint(&w->interned, LOCATION_LINE, loc->line);
		upmc_pb_end(&w->interned);
	}
	return iid;
}

const struct recent_location *upmc_pf_location_iids(struct upmc_zone_perfetto *w,
                                                    struct sequence *s,
                                                    const struct upmc_zone_loc *loc)
{
	struct recent_location *r = &s->recent[((uintptr_t)loc >> 4) % 16];

	r->name = name_iid(w, s, NAME_OF_LOC, loc, loc->name);
	r->where = loc->file ? location_iid(w, s, loc) : 0;
	r->loc = r->name && (r->where || !loc->file) ? loc : NULL; /* 0: no memory */
	return r;
}

/* A debug annotation, its name interned (key: the name's address, which
 * lives as long as the profile). */
void upmc_pf_annotation_head(struct upmc_zone_perfetto *w, struct sequence *s, const char *name)
{
	int fresh;
	uint64_t iid = intern_key(&s->interned, ANNOTATION, name, &fresh);

	if (fresh) {
		upmc_pb_begin(&w->interned, INTERNED_ANNOTATION_NAMES);
		upmc_pb_uint(&w->interned, INTERNED_IID, iid);
		upmc_pb_string(&w->interned, INTERNED_NAME, name);
		upmc_pb_end(&w->interned);
	}
	upmc_pb_begin(&w->packet, EVENT_DEBUG_ANNOTATIONS);
	upmc_pb_uint(&w->packet, ANNOTATION_NAME_IID, iid);
}

void upmc_pf_sequences_restart(struct upmc_zone_perfetto *w)
{
	size_t i;

	for (i = 0; i < w->seq_slots; i++) {
		struct sequence *s = w->seq[i].s;
		if (!w->seq[i].owner)
			continue;
		s->started = 0;
		s->last_ns = 0;
		memset(s->last_value, 0, sizeof(s->last_value));
		if (s->interned.slots)
			memset(s->interned.slot, 0, s->interned.slots * sizeof(*s->interned.slot));
		s->interned.n = 0;
		memset(s->interned.next_iid, 0, sizeof(s->interned.next_iid));
		memset(s->recent, 0, sizeof(s->recent));
	}
}

void upmc_pf_sequences_free(struct upmc_zone_perfetto *w)
{
	size_t i;

	for (i = 0; i < w->seq_slots; i++)
		if (w->seq[i].owner) {
			free(w->seq[i].s->interned.slot);
			free(w->seq[i].s);
		}
	free(w->seq);
	free(w->names);
}
