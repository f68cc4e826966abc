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
 * out of line.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

#define DEFAULT_BUFFER (1u << 20)
#define MIN_BUFFER     4096u
#define MAX_BUFFER     (1ull << 30)

static int read_nothing(struct upmc_set *set, uint64_t *values)
{
	(void)set;
	(void)values;
	return 0;
}

/* A thread outside any profile: every call goes out of line (limit 0). */
static uint64_t no_words[1];
static struct upmc_zone_thread no_thread = {.next = no_words, .read = read_nothing};

/* A thread past its exit call: zones from a later thread-exit destructor
 * are ignored, since the thread could not be told of its exit again. */
static const struct upmc_zone_thread exited_thread = {
        .next = no_words, .read = read_nothing, .state = ZONE_FINISHED};

#if defined(__ELF__)
#define ZONE_TLS __attribute__((tls_model("initial-exec")))
#else
#define ZONE_TLS
#endif
static _Thread_local struct upmc_zone_thread *zone_self ZONE_TLS = &no_thread;

/* The profile (its serial) the calling thread failed to join: its zones
 * do not try again, each with an allocation and a set to open, until
 * another profile opens. Out of line only. */
static _Thread_local uint64_t zone_join_failed;

/* The open profile. The lock is held for a few stores at a time. */
static atomic_flag zone_lock_flag = ATOMIC_FLAG_INIT;
static struct upmc_profile *zone_profile;

/* Whether zone_profile is set, for the header's inline test (a relaxed
 * load there: the calls it lets through check the profile themselves). */
UPMC_API int upmc_zones_recording;
static uint64_t zone_opens; /* profiles opened: the next one's serial, less 1 */

static void zone_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&zone_lock_flag, memory_order_acquire))
		;
}

static void zone_unlock(void)
{
	atomic_flag_clear_explicit(&zone_lock_flag, memory_order_release);
}

/* The open profile, or NULL. Set under the lock with a release store: a
 * thread that sees it sees the profile whole. */
static struct upmc_profile *open_profile(void)
{
	return __atomic_load_n(&zone_profile, __ATOMIC_ACQUIRE);
}

static void set_profile(struct upmc_profile *p)
{
	__atomic_store_n(&zone_profile, p, __ATOMIC_RELEASE);
	__atomic_store_n(&upmc_zones_recording, p != NULL, __ATOMIC_RELAXED);
}

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

/* Where the hot path's begin records may start: up to room_end(). */
static void set_limit(struct upmc_zone_thread *t)
{
	const uint64_t *c = __atomic_load_n(&t->consumed, __ATOMIC_ACQUIRE);

	t->limit = 0;
	if (!t->serialized && !t->lost.pending)
		t->limit = (uintptr_t)room_end(t, c) - zone_begin_words(t->w) * sizeof(uint64_t);
}

static void note_peak(struct zone_memory *m, uint64_t bytes)
{
	uint64_t peak = __atomic_load_n(&m->peak, __ATOMIC_RELAXED);

	while (peak < bytes && !__atomic_compare_exchange_n(&m->peak, &peak, bytes, 1,
	                                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* bytes more for the profile's blocks, if they stay within its max_bytes. */
static int take_memory(struct zone_memory *m, size_t bytes)
{
	uint64_t now = __atomic_load_n(&m->bytes, __ATOMIC_RELAXED);

	do {
		if (now + bytes > m->max)
			return 0;
	} while (!__atomic_compare_exchange_n(&m->bytes, &now, now + bytes, 1, __ATOMIC_RELAXED,
	                                      __ATOMIC_RELAXED));
	note_peak(m, now + bytes);
	return 1;
}

/*
 * A block, not cleared: the collector reads only what the thread
 * published. Its pages fault in as records first fill them (one fault per
 * 4 KiB of records, the first time round only), not all at once in the
 * thread's first zone: touching a 1 MiB block there cost 0.3 to 7 ms on a
 * virtual machine, more than opening the thread's set; and a thread that
 * records little keeps little memory resident. NULL without memory.
 */
static struct zone_block *new_block(size_t bytes)
{
	struct zone_block *b = upmc_zone_realloc(NULL, bytes);

	if (!b)
		return NULL;
	b->end = (uint64_t *)((char *)b + bytes);
	b->next = b;
	return b;
}

/* A block added after the thread's, while the profile's blocks stay
 * within max_bytes; NULL beyond, or without memory. The collector reads
 * t->block->next only at the next tag that the caller writes after this:
 * it is not ahead in the block (the caller checked). */
static struct zone_block *grow_buffer(struct upmc_zone_thread *t)
{
	struct zone_block *b;

	if (!take_memory(t->memory, t->block_bytes))
		return NULL;
	b = new_block(t->block_bytes);
	if (!b) {
		__atomic_fetch_sub(&t->memory->bytes, t->block_bytes, __ATOMIC_RELAXED);
		return NULL;
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

	if (need > (size_t)(room_end(t, c) - w)) {
		if (collector_ahead(t, c))
			return NULL;
		b = next_block(t, c, need);
		if (!b)
			return NULL;
		w[0] = ZONE_TAG_NEXT; /* published with the record after it */
		t->block = b;
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
	set_limit(t);
}

/* ---- threads ---- */

static void zone_thread_exit(void *arg);

/* The thread's blocks, freed by whoever holds them last: the collector
 * frees them once it read a thread that exited to the end. */
static void free_blocks(struct upmc_zone_thread *t)
{
	struct zone_block *b = t->pos_block ? t->pos_block : t->block;

	if (b)
		upmc_zone_free_blocks(b, t->memory, t->block_bytes);
	t->block = t->pos_block = NULL;
}

static void free_thread(struct upmc_zone_thread *t)
{
	upmc_zone_free_store(t);
	free_blocks(t);
	free(t);
}

/* The thread's set and what it records: every counter, or none when none
 * of them counts (then the reason is kept). */
static void take_set(struct upmc_profile *p, struct upmc_zone_thread *t, struct upmc_set *set)
{
	struct upmc_options opts = {sizeof(opts), p->flags};
	unsigned i, counted = 0;

	t->read = read_nothing;
	if (!p->n)
		return;
	if (!set && upmc_open(&set, p->spec, &opts) < 0) {
		upmc_format(t->why, sizeof(t->why), "the thread's counters did not open: %s",
		            upmc_last_error());
		return;
	}
	for (i = 0; i < set->n; i++)
		counted += upmc_counter_path(set, i) != UPMC_PATH_UNAVAILABLE;
	if (!counted) {
		upmc_format(t->why, sizeof(t->why), "%s", upmc_summary(set));
		upmc_close(set);
		return;
	}
	t->set = set;
	t->k = p->n;
	t->w = (unsigned)upmc_snapshot_words(set);
	t->multiplexed = set->state->multiplexed;
	t->topdown = set->state->topdown ? &p->topdown : NULL;
	t->read = set->state->snapshot;
	t->value_bytes = t->w * sizeof(uint64_t);
}

/* The name the thread gave itself (upmc_thread_name()), kept for every
 * profile it joins; "" when none. Out of line only. */
static _Thread_local char zone_thread_name[ZONE_THREAD_NAME];

static struct upmc_zone_thread *new_thread(struct upmc_profile *p, struct upmc_set *set)
{
	struct upmc_zone_thread *t = calloc(1, sizeof(*t));

	if (t)
		t->block = new_block(p->block_bytes);
	if (!t || !t->block) {
		free(t);
		upmc_close(set);
		upmc_fail(-ENOMEM, "out of memory allocating a thread's zone buffer");
		return NULL;
	}
	/* The first block is given even past max_bytes: a thread can always join. */
	note_peak(&p->memory,
	          __atomic_add_fetch(&p->memory.bytes, p->block_bytes, __ATOMIC_RELAXED));
	t->memory = &p->memory;
	t->block_bytes = p->block_bytes;
	t->names = &p->names;
	take_set(p, t, set);
	t->next = t->consumed = t->pos = t->block->word;
	t->pos_block = t->block;
	t->serialized = !!(p->profile_flags & UPMC_PROFILE_SERIALIZED);
	t->tid = upmc_os_thread_id();
	if (zone_thread_name[0])
		upmc_format(t->name, sizeof(t->name), "%s", zone_thread_name);
	else
		upmc_format(t->name, sizeof(t->name), "thread %llu", (unsigned long long)t->tid);
	set_limit(t);
	return t;
}

/* A parked state (of a profile closed while the thread lived) is the
 * thread's own: no list holds it, and the thread frees it. */
static void unpark_self(void)
{
	if (zone_self->state != ZONE_PARKED)
		return;
	upmc_os_at_thread_exit(zone_thread_exit, NULL);
	free_thread(zone_self);
	zone_self = &no_thread;
}

/* The calling thread's new state for p with set (NULL: opened here; closed
 * on failure), its exit call in place, not yet among p's threads. */
static int prepare_thread(struct upmc_profile *p, struct upmc_set *set,
                          struct upmc_zone_thread **out)
{
	struct upmc_zone_thread *t;
	int err;

	if (zone_self->state == ZONE_FINISHED) {
		upmc_close(set);
		return upmc_fail(-ESRCH, "the thread is exiting: it records no more zones");
	}
	unpark_self();
	t = new_thread(p, set);
	if (!t)
		return -ENOMEM;
	err = upmc_os_at_thread_exit(zone_thread_exit, t);
	if (err < 0) {
		upmc_close(t->set);
		free_thread(t);
		return err;
	}
	*out = t;
	return 0;
}

/* Undoes prepare_thread(). */
static void drop_thread(struct upmc_zone_thread *t)
{
	upmc_os_at_thread_exit(zone_thread_exit, NULL);
	upmc_close(t->set);
	free_thread(t);
}

/* Under the zone lock: t is p's, from now on. The collector walks the
 * list while threads join it (release stores: it sees t whole). */
static void join_profile(struct upmc_profile *p, struct upmc_zone_thread *t)
{
	t->state = ZONE_ATTACHED;
	t->index = p->n_threads++;
	if (p->last)
		__atomic_store_n(&p->last->link, t, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&p->first, t, __ATOMIC_RELEASE);
	p->last = t;
}

/* Joins the calling thread to p, if p is still open. */
static int attach(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;
	int err = prepare_thread(p, NULL, &t);

	if (err < 0)
		return err;
	zone_lock();
	if (zone_profile == p)
		join_profile(p, t);
	else
		err = upmc_fail(-ENOENT, "the profile was closed");
	zone_unlock();
	if (err < 0) {
		drop_thread(t);
		return err;
	}
	zone_self = t;
	return 0;
}

/* The calling thread's state for recording, joined to the open profile at
 * its first call; NULL when no profile is open, the thread exited or it
 * could not join this profile. */
static struct upmc_zone_thread *recording_thread(void)
{
	struct upmc_zone_thread *t = zone_self;
	struct upmc_profile *p;
	uint64_t serial;

	if (t->state == ZONE_ATTACHED)
		return t;
	/* No lock: zones compiled in while no profile is open cost little. */
	p = open_profile();
	if (!p || t->state == ZONE_FINISHED)
		return NULL;
	serial = p->serial;
	if (serial == zone_join_failed)
		return NULL;
	if (attach(p) < 0) {
		zone_join_failed = serial;
		return NULL;
	}
	return zone_self;
}

/* At the thread's exit: its records are all written; its set goes. */
static void zone_thread_exit(void *arg)
{
	struct upmc_zone_thread *t = arg;
	struct upmc_set *set = NULL;
	enum zone_state state;

	/* The call registered is for zone_self, except in a forked child,
	 * where the state went to the parent's profile (fork_child()). */
	if (t != zone_self)
		return;
	zone_lock();
	state = t->state;
	if (state == ZONE_ATTACHED) {
		set = t->set;
		t->set = NULL;
		t->state = ZONE_FINISHED;
		/* Pairs with the collector's acquire load before it reads t->next. */
		__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	}
	zone_unlock();
	if (state == ZONE_PARKED)
		free_thread(t);
	upmc_close(set);
	zone_self = (struct upmc_zone_thread *)&exited_thread; /* never written */
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
	t->limit = 0;
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
	struct upmc_zone_thread *t = recording_thread();
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

	t = recording_thread();
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
 * The hot path: a leaf function that stores the record's first words,
 * publishes the position after the record and ends in the set's reader as
 * a tail call, which writes the counters in place. The header's inline
 * test of upmc_zones_recording comes before it.
 */
UPMC_API void(upmc_zone_begin)(const struct upmc_zone_loc *loc)
{
	struct upmc_zone_thread *t = zone_self;
	uint64_t *w = t->next, *values;
	size_t bytes;

	if (UPMC_UNLIKELY((uintptr_t)w > t->limit)) {
		begin_slow(loc);
		return;
	}
	w[0] = (uintptr_t)loc;
	w[1] = upmc_timestamp();
	values = w + 2;
	bytes = t->value_bytes; /* loaded once: the release store orders what comes after */
	__atomic_store_n(&t->next, (uint64_t *)((char *)values + bytes), __ATOMIC_RELEASE);
	if (bytes) /* a time-only thread calls no reader */
		t->read(t->set, values);
}

/* The timestamp first, as close to the zone's code as it can be. */
UPMC_API void(upmc_zone_end)(void)
{
	uint64_t ts = upmc_timestamp();
	struct upmc_zone_thread *t = zone_self;
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
		t->read(t->set, values);
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
	struct upmc_zone_thread *t = recording_thread();
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
	struct upmc_zone_thread *t = zone_self;
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
	struct upmc_zone_thread *t = zone_self;
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
	struct upmc_zone_thread *t = recording_thread();
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
	struct upmc_zone_thread *t = zone_self;
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

/* ---- fork() ---- */

/*
 * fork() (the core's handlers call these, once a profile has opened): the
 * locks are taken before it, in the order they nest (the collector's, then
 * the zone lock), so that no thread the child does not have holds one there.
 */
static void fork_prepare(void)
{
	upmc_zone_collector_lock();
	zone_lock();
}

static void fork_parent(void)
{
	zone_unlock();
	upmc_zone_collector_unlock();
}

/*
 * In the child, with the forking thread alone: the profile is the parent's
 * (its counters count the parent), so no zone is recorded into it. Every
 * thread it has is gone from the child, as if it had exited: the child can
 * still collect, export and close what the parent recorded. No profile is
 * open in the child, which may open its own; the forking thread joins that
 * one as a new thread. Stores only.
 */
static void fork_child(void)
{
	int recording = zone_self->state == ZONE_ATTACHED;
	struct upmc_zone_thread *t;

	if (zone_profile) {
		for (t = upmc_zone_threads(zone_profile); t; t = t->link) {
			if (t->state != ZONE_ATTACHED)
				continue;
			t->state = ZONE_FINISHED;
			t->finished = 1;
		}
		set_profile(NULL);
	}
	if (recording)
		zone_self = &no_thread;
	zone_join_failed = 0;
	zone_unlock();
	upmc_zone_collector_unlock();
}

static const struct upmc_fork_hook zone_fork_hook = {fork_prepare, fork_parent, fork_child};

/* ---- the profile ---- */

#define DEFAULT_MAX (256ull << 20)

/* The block size and the memory cap. */
static int read_sizes(const struct upmc_profile_options *opts, struct upmc_profile *p)
{
	size_t bytes = opts->buffer_bytes ? opts->buffer_bytes : DEFAULT_BUFFER;
	uint64_t max = DEFAULT_MAX;

	if (bytes < MIN_BUFFER || bytes > MAX_BUFFER)
		return upmc_fail(
		        -EINVAL,
		        "upmc_profile_options.buffer_bytes is %zu: give 4 KiB to 1 GiB (0: "
		        "1 MiB)",
		        opts->buffer_bytes);
	if (opts->size >=
	            offsetof(struct upmc_profile_options, max_bytes) + sizeof(opts->max_bytes) &&
	    opts->max_bytes)
		max = opts->max_bytes;
	if (max < bytes)
		return upmc_fail(-EINVAL,
		                 "upmc_profile_options.max_bytes is %zu, less than one buffer of "
		                 "%zu bytes: give at least buffer_bytes (0: 256 MiB)",
		                 opts->max_bytes, bytes);
	p->block_bytes = offsetof(struct zone_block, word) + bytes;
	p->memory.max = max;
	return 0;
}

static int read_profile_options(const struct upmc_profile_options *opts, struct upmc_profile *p)
{
	int err;

	p->block_bytes = offsetof(struct zone_block, word) + DEFAULT_BUFFER;
	p->memory.max = DEFAULT_MAX;
	if (!opts)
		return 0;
	if (opts->size <
	    offsetof(struct upmc_profile_options, buffer_bytes) + sizeof(opts->buffer_bytes))
		return upmc_fail(-EINVAL,
		                 "upmc_profile_options.size is %zu: set it to sizeof(struct "
		                 "upmc_profile_options)",
		                 opts->size);
	err = upmc_check_struct_size(opts, opts->size, sizeof(*opts), "upmc_profile_options");
	if (err == 0) /* here, since a time-only profile opens no set that would check them */
		err = upmc_check_open_flags(opts->flags, "upmc_profile_options.flags");
	if (err < 0)
		return err;
	if (opts->profile_flags & ~UPMC_PROFILE_SERIALIZED)
		return upmc_fail(-EINVAL,
		                 "upmc_profile_options.profile_flags has unknown bits 0x%x",
		                 opts->profile_flags & ~UPMC_PROFILE_SERIALIZED);
	err = read_sizes(opts, p);
	if (err < 0)
		return err;
	p->flags = opts->flags;
	p->profile_flags = opts->profile_flags;
	return 0;
}

/* The metrics of the spec, which the writers compute per zone, and why
 * each cannot be computed here. Intel topdown read in user space is kept
 * too: a zone's share of the PERF_METRICS fractions takes the precision
 * check of upmc_metrics() on its two snapshots (view.c). */
static void take_metrics(struct upmc_profile *p, const struct upmc_set *set)
{
	unsigned j;

	p->n_metrics = set->state->n_metrics;
	for (j = 0; j < p->n_metrics; j++) {
		p->metric[j] = set->state->metric[j];
		upmc_format(p->metric_why[j], sizeof(p->metric_why[j]), "%s",
		            upmc_metric_reason(set, j));
	}
	if (set->state->topdown) {
		p->topdown = *set->state->topdown;
		p->topdown.reset = p->topdown.restart = NULL; /* the check's alone: no set */
		p->has_topdown = 1;
	}
}

/* The calling thread's set for the spec: it proves the spec opens here. */
static int open_first_set(struct upmc_profile *p, const char *spec, struct upmc_set **set)
{
	struct upmc_options opts = {sizeof(opts), p->flags};
	unsigned i;
	int err;

	*set = NULL;
	if (!spec || !*spec)
		return 0;
	err = upmc_open(set, spec, &opts);
	if (err < 0)
		return err;
	p->spec = malloc(strlen(spec) + 1);
	if (!p->spec) {
		upmc_close(*set);
		*set = NULL;
		return upmc_fail(-ENOMEM, "out of memory allocating a profile");
	}
	memcpy(p->spec, spec, strlen(spec) + 1);
	p->n = (unsigned)upmc_count(*set);
	for (i = 0; i < p->n; i++)
		upmc_format(p->counter[i], sizeof(p->counter[i]), "%s", upmc_counter_name(*set, i));
	take_metrics(p, *set);
	return 0;
}

static int profile_busy(void)
{
	return upmc_fail(-EBUSY, "a profile is already open: close it first");
}

static void profile_free(struct upmc_profile *p)
{
	upmc_close(p->timer);
	upmc_zone_free_names(&p->names);
	free(p->spec);
	free(p);
}

UPMC_API int upmc_profile_open(struct upmc_profile **out, const char *spec,
                               const struct upmc_profile_options *opts)
{
	struct upmc_zone_thread *t = NULL;
	struct upmc_profile *p;
	struct upmc_set *set = NULL;
	int err;

	if (!out)
		return upmc_fail(-EINVAL, "upmc_profile_open: the profile pointer is NULL");
	*out = NULL;
	/* Before anything is made: the calling thread may be the open profile's. */
	if (open_profile() || zone_self->state == ZONE_ATTACHED)
		return profile_busy();
	p = calloc(1, sizeof(*p));
	if (!p)
		return upmc_fail(-ENOMEM, "out of memory allocating a profile");
	err = read_profile_options(opts, p);
	if (err == 0)
		err = upmc_open_timer(&p->timer);
	if (err == 0)
		err = open_first_set(p, spec, &set);
	if (err == 0) {
		p->pid = upmc_os_process_id();
		p->t_open = upmc_timestamp();
		err = upmc_fork_hook_add(&zone_fork_hook);
	}
	if (err == 0) {
		upmc_os_watch_fork(); /* a time-only profile opens no set that would */
		err = prepare_thread(p, set, &t);
	}
	if (err == 0) {
		/* The opener joins before any other thread can see the profile:
		 * once it is seen, nothing can fail. */
		zone_lock();
		if (zone_profile) {
			err = profile_busy();
		} else {
			p->serial = ++zone_opens;
			join_profile(p, t);
			set_profile(p);
		}
		zone_unlock();
		if (err < 0)
			drop_thread(t);
	}
	if (err < 0) {
		profile_free(p);
		return err;
	}
	zone_self = t;
	*out = p;
	return 0;
}

/*
 * One collector at a time, for every profile (one is open at a time): a
 * mutex (os/portable/thread.c), since an export holds it while it writes
 * its file and upmc_profile_zones() across the caller's function, and a
 * thread waiting for them should sleep, not spin.
 */
void upmc_zone_collector_lock(void)
{
	upmc_os_collector_lock();
}

void upmc_zone_collector_unlock(void)
{
	upmc_os_collector_unlock();
}

/*
 * Under the collector's lock: frees the threads that exited, were read to
 * the end and left nothing to export or count (upmc_zone_retired()), so
 * that a job system that makes its pool again and again keeps no state of
 * the threads gone. Only the collector unlinks. The zone lock orders that
 * with join_profile(), which appends to p->last; the collector's lock,
 * with every other walk of the list; and an exiting thread touches its
 * state no more once it marked it finished, under the zone lock.
 */
static void retire_threads(struct upmc_profile *p)
{
	struct upmc_zone_thread *t, *prev = NULL, *next;

	for (t = upmc_zone_threads(p); t; t = next) {
		next = upmc_zone_thread_next(t);
		if (!upmc_zone_retired(t)) {
			prev = t;
			continue;
		}
		zone_lock();
		next = t->link; /* a thread may have joined after t */
		if (prev)
			__atomic_store_n(&prev->link, next, __ATOMIC_RELEASE);
		else
			__atomic_store_n(&p->first, next, __ATOMIC_RELEASE);
		if (p->last == t)
			p->last = prev;
		zone_unlock();
		free_thread(t);
	}
}

int upmc_zone_collect_locked(struct upmc_profile *p, int final)
{
	struct upmc_zone_thread *t;
	int done = 0, err = 0, got;

	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		/* While a stream runs, no record is taken without its event. */
		t->streaming = p->streaming;
		/* The calling thread's reader returned before this call. */
		got = upmc_zone_collect_thread(t, final, t == zone_self);
		if (got >= 0)
			done += got;
		else if (err == 0)
			err = got; /* the first; the other threads are still collected */
	}
	if (!final)
		retire_threads(p);
	return err < 0 ? err : done;
}

int upmc_zone_collect(struct upmc_profile *p, int final)
{
	int got;

	upmc_zone_collector_lock();
	got = upmc_zone_collect_locked(p, final);
	upmc_zone_collector_unlock();
	return got;
}

/*
 * At the close: a thread that exited is freed; a live one keeps a small
 * state until it records again or exits, since its next call looks there.
 * Its set is closed outside the zone lock, which the thread's exit takes
 * meanwhile (and finds no set to close).
 */
static void release_thread(struct upmc_zone_thread *t)
{
	struct upmc_set *set;
	enum zone_state state;

	zone_lock();
	set = t->set;
	t->set = NULL;
	zone_unlock();
	upmc_close(set);
	upmc_zone_free_store(t);
	free_blocks(t);
	t->memory = NULL;
	t->names = NULL;
	t->read = read_nothing;
	t->k = t->w = 0;
	t->value_bytes = 0;
	t->next = no_words;
	t->limit = 0;
	zone_lock();
	state = t->state;
	if (state == ZONE_ATTACHED)
		t->state = ZONE_PARKED; /* the thread's from now on */
	zone_unlock();
	if (state != ZONE_ATTACHED)
		free(t);
}

UPMC_API void upmc_profile_close(struct upmc_profile *p)
{
	struct upmc_zone_thread *t, *next;

	if (!p)
		return;
	if (p->at_close)
		p->at_close(p); /* a stream's last append, while the profile records */
	zone_lock();
	if (zone_profile == p)
		set_profile(NULL);
	zone_unlock();
	upmc_zone_collect(p, 1);
	/* No thread joins p now: attach() finds it closed. */
	for (t = upmc_zone_threads(p); t; t = next) {
		next = t->link;
		release_thread(t);
	}
	profile_free(p);
}

/* Thread t's topdown period restarted, under the zone lock: a thread that
 * exited or was released gave up its set under that lock, before closing
 * it, and one whose set reads no topdown has no group to restart. */
static int reset_thread_topdown(struct upmc_zone_thread *t)
{
	char why[UPMC_REASON_MAX];
	int err;

	if (t->state != ZONE_ATTACHED || !t->set || !t->topdown)
		return 0;
	err = upmc_topdown_restart(t->set);
	if (err < 0) {
		upmc_format(why, sizeof(why), "%s", upmc_last_error());
		upmc_fail(err, "upmc_profile_topdown_reset: %s: %s", t->name, why);
	}
	return err;
}

/*
 * Every live thread's topdown period restarted, from any thread. The
 * counts are kept (upmc_topdown_restart()), so that a zone another thread
 * has open across it is said reset, whichever its count at the end. The
 * zone lock keeps the list and the sets still: a joining or exiting thread
 * waits the few system calls, while zones take no lock. Every thread is
 * reset even when one fails; the first error is returned.
 */
UPMC_API int upmc_profile_topdown_reset(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;
	int err = 0, got;

	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_topdown_reset: the profile is NULL");
	if (!p->has_topdown)
		return upmc_fail(-EOPNOTSUPP,
		                 "upmc_profile_topdown_reset: the profile reads no Intel topdown "
		                 "metric in user space, so there is no period to restart "
		                 "(upmc_counter_reason() of a set of its spec says how it reads "
		                 "them)");
	zone_lock();
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		got = reset_thread_topdown(t);
		if (got < 0 && err == 0)
			err = got;
	}
	zone_unlock();
	return err;
}

/* name, cut to the longest start of it that fits buf (ZONE_THREAD_NAME)
 * with every UTF-8 character whole (a byte of none counts as one). */
static void cut_name(char *buf, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t len, n;

	for (len = 0; s[len]; len += n) {
		n = upmc_utf8_length(s + len);
		n = n ? n : 1;
		if (len + n >= ZONE_THREAD_NAME)
			break;
	}
	memcpy(buf, name, len);
	buf[len] = '\0';
}

UPMC_API int upmc_profile_thread(const char *name)
{
	struct upmc_profile *p;
	int err = 0;

	p = open_profile();
	if (!p)
		return upmc_fail(-ENOENT, "upmc_profile_thread: no profile is open");
	if (zone_self->state != ZONE_ATTACHED)
		err = attach(p);
	if (err == 0 && name) {
		cut_name(zone_thread_name, name);
		upmc_zone_collector_lock(); /* the exports read names under it */
		memcpy(zone_self->name, zone_thread_name, sizeof(zone_self->name));
		upmc_zone_collector_unlock();
	}
	return err;
}

UPMC_API void upmc_thread_name(const char *name)
{
	zone_thread_name[0] = '\0';
	if (name)
		cut_name(zone_thread_name, name);
	if (zone_self->state != ZONE_ATTACHED)
		return; /* a profile it joins later takes the name */
	upmc_zone_collector_lock();
	if (name)
		memcpy(zone_self->name, zone_thread_name, sizeof(zone_self->name));
	else
		upmc_format(zone_self->name, sizeof(zone_self->name), "thread %llu",
		            (unsigned long long)zone_self->tid);
	upmc_zone_collector_unlock();
}

UPMC_API int upmc_profile_memory(const struct upmc_profile *p, uint64_t *bytes, uint64_t *peak)
{
	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_memory: the profile is NULL");
	if (bytes)
		*bytes = __atomic_load_n(&p->memory.bytes, __ATOMIC_RELAXED);
	if (peak)
		*peak = __atomic_load_n(&p->memory.peak, __ATOMIC_RELAXED);
	return 0;
}

UPMC_API int upmc_profile_collect(struct upmc_profile *p)
{
	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_collect: the profile is NULL");
	return upmc_zone_collect(p, 0);
}

UPMC_API void upmc_profile_clear(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;

	if (!p)
		return;
	upmc_zone_collector_lock();
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		upmc_zone_forget(t);
	retire_threads(p);
	upmc_zone_collector_unlock();
}

UPMC_API int upmc_profile_stats(struct upmc_profile *p, struct upmc_profile_stats *stats)
{
	int err;

	if (!p || !stats)
		return upmc_fail(-EINVAL, "upmc_profile_stats: the profile or stats is NULL");
	err = upmc_zone_collect(p, 0);
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	upmc_zone_totals(p, stats);
	upmc_zone_collector_unlock();
	return 0;
}

UPMC_API const char *upmc_profile_counter_name(const struct upmc_profile *p, unsigned i)
{
	if (!p || i >= p->n) {
		upmc_fail(-EINVAL, "upmc_profile_counter_name: no counter %u", i);
		return NULL;
	}
	return p->counter[i];
}

UPMC_API const char *upmc_profile_metric_name(const struct upmc_profile *p, unsigned j)
{
	if (!p || j >= p->n_metrics) {
		upmc_fail(-EINVAL, "upmc_profile_metric_name: no metric %u", j);
		return NULL;
	}
	return upmc_zone_metric_name(p, j);
}

UPMC_API const char *upmc_profile_metric_reason(const struct upmc_profile *p, unsigned j)
{
	if (!p || j >= p->n_metrics) {
		upmc_fail(-EINVAL, "upmc_profile_metric_reason: no metric %u", j);
		return NULL;
	}
	return p->metric_why[j];
}

UPMC_API int upmc_profile_zones(struct upmc_profile *p,
                                int (*fn)(const struct upmc_zone_info *zone, void *arg), void *arg)
{
	struct zone_counts buf;
	struct upmc_zone_info info;
	struct upmc_zone_thread *t;
	int visited = 0, err;
	size_t i;

	if (!p || !fn)
		return upmc_fail(-EINVAL, "upmc_profile_zones: the profile or function is NULL");
	err = upmc_zone_collect(p, 0);
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		upmc_zone_sort(t);
		for (i = 0; i < t->n_zones; i++) {
			upmc_zone_info(p, t, &t->zones[i], &buf, &info);
			visited++;
			if (fn(&info, arg))
				goto out;
		}
	}
out:
	upmc_zone_collector_unlock();
	return visited;
}
