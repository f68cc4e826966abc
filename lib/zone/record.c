/* SPDX-License-Identifier: MIT */
/*
 * Zones: recording. Each thread writes its records into its own ring of
 * words (zone_internal.h has the layout); the collector reads them from
 * any thread. One writer and one reader per ring:
 *
 * - The writer stores a record, then publishes the position after it in
 *   t->next with a release store; the collector's acquire load of t->next
 *   therefore sees every record before that position written, except the
 *   counter values of the very last one: begin and end end in the set's
 *   reader as a tail call, which writes them after the publication. So the
 *   collector leaves a thread's last begin or end record for later while
 *   the thread may still be writing it (not for time-only threads, whose
 *   records are whole when published, nor once the thread has exited, nor
 *   for the collecting thread's own records, nor when the thread began a
 *   drop period after that record: zone_internal.h).
 * - The collector publishes how far it has read in t->consumed with a
 *   release store; the writer's acquire load of it, out of line, tells it
 *   which words it may write again. The hot path compares with t->limit,
 *   computed then; it goes out of line when it passes it.
 *
 * begin and end take no lock and allocate nothing; they make a system call
 * only where the set's reader does (counters read by read(2): a software
 * event, a forced syscall, multiplexing, a hybrid CPU). The first zone of
 * a thread (which opens its set), a full ring and the serialized option go
 * out of line. A full ring grows by a spare block that the collector made
 * (ask_for_spare()); only when none came in time does the thread allocate.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

/* ---- the blocks ---- */

static int in_block(const struct zone_block *b, const uint64_t *c)
{
	return (uintptr_t)c >= (uintptr_t)b->word && (uintptr_t)c < (uintptr_t)b->end;
}

/* Whether the collector, at c, is ahead of the thread in the thread's own
 * block: it reads the records of the block's last round there, and the
 * thread writes up to the word before it, no further. */
static int collector_ahead(const struct upmc_zone_thread *t, const uint64_t *c)
{
	return in_block(t->block, c) && (uintptr_t)c > (uintptr_t)t->next;
}

/* Where the records of the thread's block must end: before the word kept
 * for a next tag, or before the collector's position when it is ahead. */
static uint64_t *room_end(const struct upmc_zone_thread *t, const uint64_t *c)
{
	return collector_ahead(t, c) ? (uint64_t *)c - 1 : t->block->end - 1;
}

/*
 * A thread of `upmc stat --zones`'s profile, which another thread may end
 * (upmc_zone_end_profile(): the state, then the limit 0): the limit stored,
 * then the state loaded, so that one of the two stores 0 last and the
 * thread's next call comes out of line to leave the ended profile. Other
 * profiles' threads skip this. The hot path's load of the limit stays a
 * plain one (an atomic one costs x86 a separate load): a word the ender
 * stores 0 to whole, which the hot path reads before or after.
 */
static void keep_ended_out_of_line(struct upmc_zone_thread *t, uintptr_t limit)
{
	__atomic_store_n(&t->limit, limit, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->state, __ATOMIC_SEQ_CST) == ZONE_ENDED)
		__atomic_store_n(&t->limit, 0, __ATOMIC_SEQ_CST);
}

/* Where the hot path's begin records may start: up to room_end(), and
 * not past halfway while the thread has not asked for a spare there. */
void upmc_zone_set_limit(struct upmc_zone_thread *t)
{
	const uint64_t *c = __atomic_load_n(&t->consumed, __ATOMIC_ACQUIRE);
	uintptr_t limit = 0;

	if (!t->serialized && !t->lost.pending)
		limit = (uintptr_t)room_end(t, c) - zone_begin_words(t->w) * sizeof(uint64_t);
	if (t->halfway && limit > (uintptr_t)t->halfway)
		limit = (uintptr_t)t->halfway;
	if (t->endable && limit)
		keep_ended_out_of_line(t, limit);
	else
		__atomic_store_n(&t->limit, limit, __ATOMIC_RELAXED);
}

void upmc_zone_note_peak(struct zone_memory *m, uint64_t bytes)
{
	uint64_t peak = __atomic_load_n(&m->peak, __ATOMIC_RELAXED);

	while (peak < bytes && !__atomic_compare_exchange_n(&m->peak, &peak, bytes, 1,
	                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* bytes more for the profile's blocks, if they stay within its max_bytes
 * (give_memory() gives them back). */
static int take_memory(struct zone_memory *m, size_t bytes)
{
	uint64_t now = __atomic_load_n(&m->bytes, __ATOMIC_RELAXED);

	do {
		if (now + bytes > m->max)
			return 0;
	} while (!__atomic_compare_exchange_n(&m->bytes, &now, now + bytes, 1, __ATOMIC_RELAXED,
	                                      __ATOMIC_RELAXED));
	upmc_zone_note_peak(m, now + bytes);
	return 1;
}

static void give_memory(struct zone_memory *m, size_t bytes)
{
	if (m)
		__atomic_fetch_sub(&m->bytes, bytes, __ATOMIC_RELAXED);
}

/* A block, touched now so that no page fault of the library's lands
 * inside a zone later, where it would count in the zone's page faults;
 * NULL without memory. */
struct zone_block *upmc_zone_new_block(size_t bytes)
{
	struct zone_block *b = upmc_zone_realloc(NULL, bytes);

	if (!b)
		return NULL;
	memset(b, 0, bytes);
	b->end = (uint64_t *)((char *)b + bytes);
	b->next = b;
	return b;
}

/* The thread goes on in block b: from its start, and it asks for a spare
 * once halfway through it. */
void upmc_zone_enter_block(struct upmc_zone_thread *t, struct zone_block *b)
{
	t->block = b;
	t->halfway = b->word + (b->end - b->word) / 2;
}

/*
 * Halfway through its block, the thread asks the collector for a spare
 * block when the next one is not free (the collector's, or its own block
 * alone in the circle): if it is still not free when this one is full, the
 * thread grows by the spare and allocates nothing itself. A block it made
 * there, inside whatever zone is open, would count its page faults (one
 * per 4 KiB, 257 for the default 1 MiB) and its time in that zone.
 */
static void ask_for_spare(struct upmc_zone_thread *t, const uint64_t *c)
{
	const struct zone_block *b = t->block->next;

	t->halfway = NULL;
	if ((b == t->block || in_block(b, c)) && !__atomic_load_n(&t->spare, __ATOMIC_ACQUIRE))
		__atomic_store_n(&t->wants_spare, 1, __ATOMIC_RELEASE);
}

void upmc_zone_make_spare(struct upmc_zone_thread *t)
{
	struct zone_block *b;

	if (!__atomic_exchange_n(&t->wants_spare, 0, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&t->spare, __ATOMIC_ACQUIRE) || !take_memory(t->memory, t->block_bytes))
		return;
	b = upmc_zone_new_block(t->block_bytes);
	if (!b) {
		give_memory(t->memory, t->block_bytes);
		return;
	}
	__atomic_store_n(&t->spare, b, __ATOMIC_RELEASE);
}

void upmc_zone_free_spare(struct upmc_zone_thread *t)
{
	struct zone_block *b = __atomic_exchange_n(&t->spare, NULL, __ATOMIC_ACQUIRE);

	if (!b)
		return;
	free(b);
	give_memory(t->memory, t->block_bytes);
}

/* A block added after the thread's: the spare the collector made, or one
 * made here while the profile's blocks stay within max_bytes; NULL beyond,
 * or without memory. The collector reads t->block->next only at the next
 * tag that the caller writes after this: it is not ahead in the block (the
 * caller checked). */
static struct zone_block *grow_buffer(struct upmc_zone_thread *t)
{
	struct zone_block *b = __atomic_exchange_n(&t->spare, NULL, __ATOMIC_ACQUIRE);

	if (!b) {
		if (!take_memory(t->memory, t->block_bytes))
			return NULL;
		b = upmc_zone_new_block(t->block_bytes);
		if (!b) {
			give_memory(t->memory, t->block_bytes);
			return NULL;
		}
	}
	b->next = t->block->next;
	t->block->next = b;
	return b;
}

/*
 * The block the thread goes on in when its own is full, with room for
 * `need` words at its start; NULL when there is none. The collector, at c,
 * is not ahead in the thread's block: the blocks after it hold records not
 * read yet up to the collector's. The next one is free unless it is the
 * collector's (or the thread's own, alone in its circle); then a new block
 * comes before it; at max_bytes the thread goes round into the collector's
 * block, up to the collector, as into a ring.
 */
static struct zone_block *next_block(struct upmc_zone_thread *t, const uint64_t *c, size_t need)
{
	struct zone_block *b = t->block->next, *grown;

	if (b != t->block && !in_block(b, c))
		return b;
	grown = grow_buffer(t);
	if (grown)
		return grown;
	if (in_block(b, c) && (size_t)(c - b->word) > need)
		return b;
	return NULL;
}

/* A place for a record of `words` words (after a lost record, if a drop
 * period is under way), in the next block when the thread's is too short;
 * NULL when the collector has not freed enough and no block can be added. */
static uint64_t *reserve(struct upmc_zone_thread *t, size_t words)
{
	const uint64_t *c = __atomic_load_n(&t->consumed, __ATOMIC_ACQUIRE);
	uint64_t *w = t->next;
	size_t need = words + (t->lost.pending ? ZONE_LOST_WORDS : 0);
	struct zone_block *b;

	if (t->halfway && w >= t->halfway)
		ask_for_spare(t, c);
	if (need > (size_t)(room_end(t, c) - w)) {
		if (collector_ahead(t, c))
			return NULL;
		b = next_block(t, c, need);
		if (!b)
			return NULL;
		w[0] = ZONE_TAG_NEXT; /* published with the record after it */
		upmc_zone_enter_block(t, b);
		w = b->word;
	}
	if (t->lost.pending) {
		upmc_zone_write_lost(&t->lost, w);
		w += ZONE_LOST_WORDS;
	}
	return w;
}

static void publish(struct upmc_zone_thread *t, uint64_t *after)
{
	__atomic_store_n(&t->next, after, __ATOMIC_RELEASE);
	upmc_zone_set_limit(t);
}

/* ---- recording ---- */

/* One more drop, for the collector to read at any time: the thread is the
 * one writer of its counts, and the release store orders every record it
 * wrote (counters included) before the count. */
static void count_drop(uint64_t *count)
{
	__atomic_store_n(count, *count + 1, __ATOMIC_RELEASE);
}

/* The first drop after a record begins a drop period, and so does a flush
 * that finds no room: the collector then knows that the record before it
 * is whole. Every call goes out of line until the lost record is written. */
static void begin_drop_period(struct upmc_zone_thread *t)
{
	__atomic_store_n(&t->limit, 0, __ATOMIC_RELAXED);
	if (t->lost.pending)
		return;
	t->lost.pending = 1;
	count_drop(&t->drops.periods);
}

/* A begin (depth 1) or an end (-1) that found no room. */
static void lose(struct upmc_zone_thread *t, int depth)
{
	begin_drop_period(t);
	t->lost.depth += depth;
	if (depth > 0)
		count_drop(&t->drops.begins);
	if (t->lost.depth < t->lost.min_depth) { /* the end of a zone begun before */
		t->lost.min_depth = t->lost.depth;
		count_drop(&t->drops.ends);
	}
}

/* A begin record at w (room reserved): its first word, its timestamp,
 * published, then its counters. */
static void write_begin(struct upmc_zone_thread *t, uint64_t *w, uint64_t first)
{
	w[0] = first;
	w[1] = t->serialized ? upmc_timestamp_serialized() : upmc_timestamp();
	publish(t, w + zone_begin_words(t->w));
	t->read(t->set, w + 2);
}

static UPMC_COLD void begin_slow(const struct upmc_zone_loc *loc)
{
	struct upmc_zone_thread *t = upmc_zone_recording_thread();
	uint64_t *w;

	if (!t)
		return;
	w = reserve(t, zone_begin_words(t->w));
	if (!w) {
		lose(t, 1);
		return;
	}
	write_begin(t, w, (uintptr_t)loc);
}

static UPMC_COLD void end_slow(uint64_t ts)
{
	struct upmc_zone_thread *t;
	uint64_t *w;

	t = upmc_zone_recording_thread();
	if (!t)
		return;
	if (t->serialized)
		ts = upmc_timestamp_after();
	w = reserve(t, zone_end_words(t->w));
	if (!w) {
		lose(t, -1);
		return;
	}
	w[0] = ~ts;
	publish(t, w + zone_end_words(t->w));
	t->read(t->set, w + 1);
}

/*
 * The begin's record, one word on. On arm64 the address is hidden from the
 * compiler there (an empty asm): each of the two stores then steps it (str
 * with post-index), the second to the values. Seeing through, gcc stores
 * both words at offsets from the record's start and adds 16 for the
 * values, an instruction more. Not elsewhere: x86 has no such store, and
 * gcc's x86 code takes instructions more with the asm.
 */
static UPMC_ALWAYS_INLINE uint64_t *past_first_word(uint64_t *w)
{
	w++;
#if defined(__aarch64__)
	__asm__("" : "+r"(w));
#endif
	return w;
}

/*
 * The set's reader, called last: a tail call, a br to its address. On
 * arm64 gcc branches through x16 (a BTI landing pad takes a br from x16
 * as a call) and moves the address there from the register it loaded it
 * into: an instruction more at each end. Here the load goes into x16
 * itself, which the empty asm holds; a compiler that moved it anyway would
 * cost that mov again, nothing else.
 */
static UPMC_ALWAYS_INLINE void read_values(const struct upmc_zone_thread *t, uint64_t *values)
{
#if defined(__aarch64__)
	register upmc_reader read __asm__("x16") = t->read;

	__asm__("" : "+r"(read));
	read(t->set, values);
#else
	t->read(t->set, values);
#endif
}

/*
 * The hot path: a leaf function that stores the record's first words,
 * publishes the position after the record and ends in the set's reader as
 * a tail call, which writes the counters in place. The header's inline
 * test of upmc_zones_recording comes before it.
 */
UPMC_API void(upmc_zone_begin)(const struct upmc_zone_loc *loc)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	uint64_t *w = t->next, *values;
	size_t bytes;

	if (UPMC_UNLIKELY((uintptr_t)w > t->limit)) {
		begin_slow(loc);
		return;
	}
	w[0] = (uintptr_t)loc;
	w = past_first_word(w);
	w[0] = upmc_timestamp();
	values = w + 1;
	bytes = t->value_bytes; /* loaded once: the release store orders what comes after */
	__atomic_store_n(&t->next, (uint64_t *)((char *)values + bytes), __ATOMIC_RELEASE);
	if (bytes) /* a time-only thread calls no reader */
		read_values(t, values);
}

/* The timestamp first, as close to the zone's code as it can be. */
UPMC_API void(upmc_zone_end)(void)
{
	uint64_t ts = upmc_timestamp();
	struct upmc_zone_thread *t = upmc_zone_self;
	uint64_t *w = t->next, *values;
	size_t bytes;

	if (UPMC_UNLIKELY((uintptr_t)w > t->limit)) {
		end_slow(ts);
		return;
	}
	w[0] = ~ts;
	values = w + 1;
	bytes = t->value_bytes;
	__atomic_store_n(&t->next, (uint64_t *)((char *)values + bytes), __ATOMIC_RELEASE);
	if (bytes)
		read_values(t, values);
}

/* The length of s, or max + 1 when it is longer than max. */
static size_t length_up_to(const char *s, size_t max)
{
	size_t n = 0;

	while (n <= max && s[n])
		n++;
	return n;
}

/* A string record at w: tag, the words before the string, its bytes,
 * NUL-padded to a whole word. */
static void write_string(uint64_t *w, size_t head, const char *s, size_t bytes)
{
	w[head + zone_string_words(bytes) - 1] = 0;
	memcpy(w + head, s, bytes);
}

/* Out of line: the name is copied, which a location is not. */
UPMC_API void(upmc_zone_begin_name)(const struct upmc_zone_loc *site, const char *name)
{
	struct upmc_zone_thread *t = upmc_zone_recording_thread();
	size_t bytes, words;
	uint64_t *w;

	if (!t)
		return;
	bytes = name ? length_up_to(name, UPMC_ZONE_NAME_MAX) : 0;
	if (!name || !site || bytes > UPMC_ZONE_NAME_MAX) {
		begin_slow(NULL); /* refused, counted by the collector */
		return;
	}
	words = 3 + zone_string_words(bytes);
	w = reserve(t, words + zone_begin_words(t->w));
	if (!w) {
		lose(t, 1);
		return;
	}
	w[0] = ZONE_TAG_NAME;
	w[1] = (uintptr_t)site;
	w[2] = bytes;
	write_string(w, 3, name, bytes);
	write_begin(t, w + words, ZONE_TAG_NAMED);
}

/* A text or a value that finds no room is counted as a note dropped. */
static void lose_note(struct upmc_zone_thread *t)
{
	begin_drop_period(t);
	count_drop(&t->drops.notes);
}

/* At most max bytes of text, cut before a UTF-8 character that would not fit whole. */
static size_t text_bytes(const char *text, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
		max--;
	return max;
}

UPMC_API void(upmc_zone_text)(const char *text, size_t len)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	size_t bytes;
	uint64_t *w;

	if (t->state != ZONE_ATTACHED || !text)
		return;
	bytes = text_bytes(text, len, UPMC_ZONE_TEXT_MAX);
	w = reserve(t, 2 + zone_string_words(bytes));
	if (!w) {
		lose_note(t);
		return;
	}
	w[0] = ZONE_TAG_TEXT;
	w[1] = bytes;
	write_string(w, 2, text, bytes);
	publish(t, w + 2 + zone_string_words(bytes));
}

UPMC_API void(upmc_zone_value)(uint64_t value)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	uint64_t *w;

	if (t->state != ZONE_ATTACHED)
		return;
	w = reserve(t, 2);
	if (!w) {
		lose_note(t);
		return;
	}
	w[0] = ZONE_TAG_VALUE;
	w[1] = value;
	publish(t, w + 2);
}

static void frame_mark(const char *name)
{
	struct upmc_zone_thread *t = upmc_zone_recording_thread();
	uint64_t *w;

	if (!t)
		return;
	w = reserve(t, ZONE_FRAME_WORDS);
	if (!w) {
		begin_drop_period(t);
		count_drop(&t->drops.frames);
		return;
	}
	w[0] = ZONE_TAG_FRAME;
	w[1] = upmc_timestamp();
	w[2] = (uintptr_t)name;
	publish(t, w + ZONE_FRAME_WORDS);
}

UPMC_API void(upmc_frame_mark)(void)
{
	frame_mark(NULL);
}

UPMC_API void(upmc_frame_mark_named)(const char *name)
{
	frame_mark(name);
}

UPMC_API void upmc_zone_flush(void)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	uint64_t *w;

	if (t->state != ZONE_ATTACHED)
		return;
	w = reserve(t, 1);
	if (!w) {
		begin_drop_period(t);
		return;
	}
	w[0] = ZONE_TAG_FLUSH;
	publish(t, w + 1);
}
