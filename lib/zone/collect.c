/* SPDX-License-Identifier: MIT */
/*
 * Zones: the collector. It reads each thread's blocks from where it
 * stopped up to the position the thread published (record.c says why that
 * is safe), pairs ends with begins on a stack of open zones, and keeps the
 * finished zones with their counters at both ends; while a stream runs,
 * also the begins, ends and frames in the order they came.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zone_internal.h"

void *(*upmc_zone_realloc)(void *items, size_t bytes) = realloc;

/* Makes room for `more` items in *items (capacity *cap); 0, or -ENOMEM. */
static int grow(void **items, size_t *cap, size_t used, size_t more, size_t size)
{
	size_t want = *cap ? *cap : 64;
	void *bigger;

	if (used + more < used || used + more > SIZE_MAX / 2 / size)
		return upmc_fail(-ENOMEM, "out of memory collecting zones");
	while (want < used + more)
		want *= 2;
	bigger = upmc_zone_realloc(*items, want * size);
	if (!bigger)
		return upmc_fail(-ENOMEM, "out of memory collecting zones");
	*items = bigger;
	*cap = want;
	return 0;
}

/* The test inline, the call only when the array must grow: a collect
 * takes millions of records. */
#define GROW(items, cap, used, more)  \
	((used) + (more) <= (cap) ? 0 \
	                          : grow((void **)&(items), &(cap), used, more, sizeof(*(items))))

void upmc_zone_free_blocks(struct zone_block *b, struct zone_memory *m, size_t block_bytes)
{
	struct zone_block *first = b, *next;

	do {
		next = b->next;
		free(b);
		if (m)
			__atomic_fetch_sub(&m->bytes, block_bytes, __ATOMIC_RELAXED);
		b = next;
	} while (b != first);
}

/* A begin or an end: records whose counters the set's reader writes. */
static int is_zone_record(uint64_t w0)
{
	return w0 != ZONE_TAG_FRAME && w0 != ZONE_TAG_LOST && w0 != ZONE_TAG_FLUSH &&
	       w0 != ZONE_TAG_NAME && w0 != ZONE_TAG_TEXT && w0 != ZONE_TAG_VALUE;
}

/* The words of the record at rec; rec[1] and rec[2] are read only for
 * the records that have them. */
static size_t record_words(const uint64_t *rec, unsigned w)
{
	if (rec[0] & ZONE_END_BIT)
		return zone_end_words(w);
	switch (rec[0]) {
	case ZONE_TAG_FRAME:
		return ZONE_FRAME_WORDS;
	case ZONE_TAG_LOST:
		return ZONE_LOST_WORDS;
	case ZONE_TAG_FLUSH:
		return 1;
	case ZONE_TAG_NAME:
		return rec[2] > UPMC_ZONE_NAME_MAX ? SIZE_MAX : 3 + zone_string_words(rec[2]);
	case ZONE_TAG_TEXT:
		return rec[1] > UPMC_ZONE_TEXT_MAX ? SIZE_MAX : 2 + zone_string_words(rec[1]);
	case ZONE_TAG_VALUE:
		return 2;
	default:
		return zone_begin_words(w);
	}
}

/* Timestamps are kept non-decreasing on a thread: an unserialized one may
 * be taken a few cycles out of order, and nesting must hold. */
static uint64_t floored(struct upmc_zone_thread *t, uint64_t ts)
{
	if (ts < t->floor)
		ts = t->floor;
	t->floor = ts;
	return ts;
}

static int valid_name(const char *name)
{
	size_t len;

	if (!name)
		return 0;
	for (len = 0; len <= UPMC_ZONE_NAME_MAX && name[len]; len++)
		;
	return len <= UPMC_ZONE_NAME_MAX;
}

/* A location, checked once per call site while it stays in the cache. */
static int valid_loc(struct upmc_zone_thread *t, uint64_t w0)
{
	const struct upmc_zone_loc *loc = (const struct upmc_zone_loc *)(uintptr_t)w0;
	size_t slot = (size_t)(w0 >> 4) % ZONE_LOC_CACHE;

	if (w0 < ZONE_TAG_MIN_LOC)
		return 0;
	if (t->checked[slot] == loc)
		return 1;
	if (!valid_name(loc->name))
		return 0;
	t->checked[slot] = loc;
	return 1;
}

/* Words of an open zone's entry in stack_values: its snapshot at begin,
 * then the counts of the zones directly inside it. */
static size_t open_words(const struct upmc_zone_thread *t)
{
	return (size_t)t->w + t->k;
}

/* ---- the events a stream writes ---- */

/* An event, where the caller made room for it (GROW of t->events):
 * inline, as a stream's collect adds two a zone. */
static inline void add_event(struct upmc_zone_thread *t, enum zone_event_kind kind, uint64_t ts,
                             const struct upmc_zone_loc *loc, size_t index)
{
	struct zone_event *e = &t->events[t->n_events++];

	e->kind = kind;
	e->t = ts;
	e->loc = loc;
	e->index = index;
}

/* A begin's event, with its snapshot (room made for both). */
static void begin_event(struct upmc_zone_thread *t, const struct upmc_zone_loc *loc, uint64_t t0,
                        const uint64_t *s0)
{
	if (t->w) /* a time-only thread has no values, nor an array for them */
		memcpy(t->event_values + t->n_event_values, s0, t->w * sizeof(uint64_t));
	add_event(t, ZONE_EVENT_BEGIN, t0, loc, t->n_event_values);
	t->n_event_values += t->w;
}

/* ---- the stack of open zones ---- */

static int push(struct upmc_zone_thread *t, const struct upmc_zone_loc *loc, uint64_t t0,
                const uint64_t *s0)
{
	const size_t words = open_words(t);
	int streamed = t->streaming && loc;
	struct zone_open *o;

	/* Each array has its own capacity: one that grew stays grown when the
	 * other fails, and a retry finds both as they are. */
	if (GROW(t->stack, t->stack_cap, t->depth, 1) < 0 ||
	    (t->k && GROW(t->stack_values, t->stack_values_cap, t->depth * words, words) < 0) ||
	    (streamed && (GROW(t->events, t->events_cap, t->n_events, 1) < 0 ||
	                  GROW(t->event_values, t->event_values_cap, t->n_event_values, t->w) < 0)))
		return -ENOMEM;
	if (streamed)
		begin_event(t, loc, t0, s0);
	if (t->k) {
		memcpy(t->stack_values + t->depth * words, s0, t->w * sizeof(uint64_t));
		memset(t->stack_values + t->depth * words + t->w, 0, t->k * sizeof(uint64_t));
	}
	o = &t->stack[t->depth++];
	o->loc = loc;
	o->t0 = t0;
	o->child_ticks = 0;
	o->seq = t->seq++;
	o->text = 0;
	o->has_value = 0;
	o->streamed = streamed;
	return 0;
}

/* The counters of the zone ending on top of the stack, at snapshot s1:
 * its count goes to its parent's, and a zone kept keeps [s0, s1, counts
 * inside] (finish() made room for them). */
static void keep_values(struct upmc_zone_thread *t, const uint64_t *s1, int keep)
{
	const unsigned k = t->k, w = t->w;
	const uint64_t *s0 = t->stack_values + t->depth * open_words(t);
	uint64_t counts[UPMC_MAX_COUNTERS];
	unsigned i;

	if (t->depth) {
		uint64_t *parent = t->stack_values + (t->depth - 1) * open_words(t) + w;
		upmc_interval_of(t->multiplexed, k, s0, s1, counts, NULL);
		upmc_topdown_counts_of(t->topdown, k, s0, s1, counts);
		for (i = 0; i < k; i++)
			if (counts[i] != UPMC_NOT_COUNTED)
				parent[i] += counts[i];
	}
	if (!keep)
		return;
	memcpy(t->values + t->n_values, s0, w * sizeof(uint64_t));
	memcpy(t->values + t->n_values + w, s1, w * sizeof(uint64_t));
	memcpy(t->values + t->n_values + 2 * w, s0 + w, k * sizeof(uint64_t));
	t->n_values += 2 * w + k;
}

/* The zone on top of the stack ends at t1 with counters v1: kept, and its
 * time and counts added to its parent's. Room is made before anything
 * changes: after -ENOMEM the record is taken again, as if for the first
 * time. A zone not kept (lost or refused) needs no room but its end event. */
static int finish(struct upmc_zone_thread *t, uint64_t t1, const uint64_t *v1)
{
	const struct zone_open *o = &t->stack[t->depth - 1];
	struct zone_done *z;
	size_t v = t->n_values;

	if ((o->loc && (GROW(t->zones, t->zones_cap, t->n_zones, 1) < 0 ||
	                GROW(t->values, t->values_cap, t->n_values, 2 * t->w + t->k) < 0)) ||
	    (o->streamed && GROW(t->events, t->events_cap, t->n_events, 1) < 0))
		return -ENOMEM;
	t->depth--;
	if (t->depth)
		t->stack[t->depth - 1].child_ticks += t1 - o->t0;
	if (t->k)
		keep_values(t, v1, o->loc != NULL);
	if (o->streamed)
		add_event(t, ZONE_EVENT_END, t1, NULL, o->loc ? t->n_zones : ZONE_NOT_KEPT);
	if (!o->loc)
		return 0;
	z = &t->zones[t->n_zones++];
	z->loc = o->loc;
	z->t0 = o->t0;
	z->t1 = t1;
	z->child_ticks = o->child_ticks;
	z->seq = o->seq;
	z->depth = (unsigned)t->depth;
	z->v = v;
	z->text = o->text;
	z->value = o->value;
	z->has_value = o->has_value;
	t->sorted = 0;
	return 1;
}

/* A drop period's lost record: the ends of zones begun before it, then
 * begins whose ends come later (their ends are dropped too). Those a clear
 * forgot (shown before it) are not counted again. The room comes first,
 * so that a failure changes nothing. */
static int take_lost(struct upmc_zone_thread *t, uint64_t ends, uint64_t opened)
{
	uint64_t unknown[UPMC_SNAPSHOT_MAX], i;
	const size_t words = open_words(t);

	if (opened > SIZE_MAX / (4 * UPMC_MAX_COUNTERS) || ends > SIZE_MAX / 4 ||
	    GROW(t->stack, t->stack_cap, t->depth, opened) < 0 ||
	    GROW(t->stack_values, t->stack_values_cap, t->depth * words, opened * words) < 0 ||
	    (t->streaming && GROW(t->events, t->events_cap, t->n_events, ends) < 0))
		return upmc_fail(-ENOMEM, "out of memory collecting zones");
	memset(unknown, 0xff, sizeof(unknown)); /* UPMC_NOT_COUNTED */
	for (i = 0; i < ends; i++) {
		int counted = t->ends_forgotten == 0;
		t->ends_forgotten -= !counted;
		if (!t->depth) {
			t->unbalanced += counted;
			continue;
		}
		t->dropped += counted && t->stack[t->depth - 1].loc != NULL;
		t->stack[t->depth - 1].loc = NULL;
		finish(t, t->floor, unknown); /* not kept: it cannot fail */
	}
	for (i = 0; i < opened; i++)
		push(t, NULL, t->floor, unknown); /* the room is there */
	t->taken.periods++;
	t->taken.ends += ends;
	return 0;
}

/* A name record: the location of the named begin that follows. */
static int take_name(struct upmc_zone_thread *t, const uint64_t *rec)
{
	const struct upmc_zone_loc *site = (const struct upmc_zone_loc *)(uintptr_t)rec[1];

	t->named = NULL;
	if (rec[1] < ZONE_TAG_MIN_LOC)
		return 0; /* refused with its begin */
	return upmc_zone_name_loc(t->names, site, (const char *)(rec + 3), (size_t)rec[2],
	                          &t->named);
}

/* ---- text and values ---- */

/* A text for the zone open now, kept in the thread's texts. */
static int take_text(struct upmc_zone_thread *t, const uint64_t *rec)
{
	size_t bytes = (size_t)rec[1];
	struct zone_open *o = t->depth ? &t->stack[t->depth - 1] : NULL;

	if (!o || !o->loc)
		return 0;
	if (GROW(t->texts, t->texts_cap, t->n_texts, bytes + 1) < 0)
		return -ENOMEM;
	memcpy(t->texts + t->n_texts, rec + 2, bytes);
	t->texts[t->n_texts + bytes] = '\0';
	o->text = t->n_texts + 1;
	t->n_texts += bytes + 1;
	return 0;
}

static void take_value(struct upmc_zone_thread *t, uint64_t value)
{
	if (t->depth) {
		t->stack[t->depth - 1].value = value;
		t->stack[t->depth - 1].has_value = 1;
	}
}

static int take_frame(struct upmc_zone_thread *t, const uint64_t *rec)
{
	if (GROW(t->frames, t->frames_cap, t->n_frames, 1) < 0 ||
	    (t->streaming && GROW(t->events, t->events_cap, t->n_events, 1) < 0))
		return -ENOMEM;
	t->frames[t->n_frames].t = floored(t, rec[1]);
	t->frames[t->n_frames].name = (const char *)(uintptr_t)rec[2];
	if (t->streaming)
		add_event(t, ZONE_EVENT_FRAME, t->frames[t->n_frames].t, NULL, t->n_frames);
	t->n_frames++;
	return 0;
}

/* A begin: refused (its zone not kept, its children are) when its
 * location is not one. */
static int take_begin(struct upmc_zone_thread *t, const uint64_t *rec)
{
	const struct upmc_zone_loc *loc = NULL;
	int err;

	if (rec[0] == ZONE_TAG_NAMED)
		loc = t->named;
	else if (valid_loc(t, rec[0]))
		loc = (const struct upmc_zone_loc *)(uintptr_t)rec[0];
	err = push(t, loc, floored(t, rec[1]), rec + 2);
	t->refused += err == 0 && !loc;
	return err;
}

/* One record; returns 1 when it finished a zone, 0 otherwise, or -errno. */
static int take(struct upmc_zone_thread *t, const uint64_t *rec)
{
	if (rec[0] & ZONE_END_BIT) {
		uint64_t t1 = floored(t, ~rec[0]);
		if (!t->depth) {
			t->unbalanced++;
			return 0;
		}
		return finish(t, t1, rec + 1);
	}
	switch (rec[0]) {
	case ZONE_TAG_FRAME:
		return take_frame(t, rec);
	case ZONE_TAG_LOST:
		return take_lost(t, rec[1], rec[2]);
	case ZONE_TAG_FLUSH:
		return 0;
	case ZONE_TAG_NAME:
		return take_name(t, rec);
	case ZONE_TAG_TEXT:
		return take_text(t, rec);
	case ZONE_TAG_VALUE:
		take_value(t, rec[1]);
		return 0;
	default:
		return take_begin(t, rec);
	}
}

/* Everything is read from a thread that exited: its blocks go. */
static void drained(struct upmc_zone_thread *t)
{
	upmc_zone_free_blocks(t->pos_block, t->memory, t->block_bytes);
	upmc_zone_free_spare(t);
	t->pos_block = t->block = NULL;
	t->pos = NULL;
}

/* The period a thread never ended with a lost record (its buffer stayed
 * full to the end). */
static int take_pending_lost(struct upmc_zone_thread *t)
{
	struct zone_lost period = t->lost;
	uint64_t rec[ZONE_LOST_WORDS];
	int err;

	if (!period.pending)
		return 0;
	upmc_zone_write_lost(&period, rec);
	err = take_lost(t, rec[1], rec[2]);
	if (err == 0)
		t->lost = period; /* none pending now */
	return err;
}

/* The thread's drop counts: the counts before the periods, the order
 * opposite to the thread's stores, so that a period's counts come with it. */
static void load_drops(const struct upmc_zone_thread *t, struct zone_drops *d)
{
	d->begins = __atomic_load_n(&t->drops.begins, __ATOMIC_ACQUIRE);
	d->ends = __atomic_load_n(&t->drops.ends, __ATOMIC_ACQUIRE);
	d->frames = __atomic_load_n(&t->drops.frames, __ATOMIC_ACQUIRE);
	d->notes = __atomic_load_n(&t->drops.notes, __ATOMIC_ACQUIRE);
	d->periods = __atomic_load_n(&t->drops.periods, __ATOMIC_ACQUIRE);
}

/*
 * Whether the last record published may still be having its counters
 * written. Not when a drop period began after it: the thread counted that
 * period with a release store after writing the record, and every period
 * before it ended with a lost record read already.
 */
static int may_be_writing(const struct upmc_zone_thread *t)
{
	return t->seen.periods == t->taken.periods;
}

/* Reads t's records from t->pos up to published; stops early at a record
 * it cannot take yet. Returns the zones finished, or -errno. */
static int read_records(struct upmc_zone_thread *t, const uint64_t *published, int whole)
{
	uint64_t *pos = t->pos;
	int done = 0, err = 0;

	while (pos != published) {
		size_t size;
		if (pos[0] == ZONE_TAG_NEXT) {
			t->pos_block = t->pos_block->next;
			pos = t->pos_block->word;
			continue;
		}
		size = record_words(pos, t->w);
		if (size > (size_t)(t->pos_block->end - pos))
			break; /* not a record: the buffer was written over (misuse) */
		/* The last record's counters may still be being written. */
		if (pos + size == published && !whole && is_zone_record(pos[0]) &&
		    may_be_writing(t))
			break;
		err = take(t, pos);
		if (err < 0)
			break; /* the record stays for the next collect */
		done += err;
		pos += size;
	}
	t->pos = pos;
	return err < 0 ? err : done;
}

int upmc_zone_collect_thread(struct upmc_zone_thread *t, int final, int own)
{
	const uint64_t *published;
	int finished, whole, got, err = 0;

	if (!t->pos_block)
		return 0;
	/* Read once, before the position: after the thread's exit, every
	 * record it published is whole, and it publishes no more. A thread
	 * seen running here may exit before this collect ends; its records
	 * past `published` wait for the next one. */
	finished = __atomic_load_n(&t->finished, __ATOMIC_ACQUIRE);
	whole = final || finished || own || !t->k;
	published = __atomic_load_n(&t->next, __ATOMIC_ACQUIRE);
	/* After the position: every drop period of the records before it is
	 * counted in what this sees. */
	load_drops(t, &t->seen);
	got = read_records(t, published, whole);
	/* Pairs with the writer's acquire load in reserve(): it may write here again. */
	__atomic_store_n(&t->consumed, t->pos, __ATOMIC_RELEASE);
	if (got >= 0 && t->pos == published && (final || finished)) {
		err = take_pending_lost(t);
		if (err == 0 && finished)
			drained(t);
	}
	if (!finished && !final) /* a spare for a thread that records on */
		upmc_zone_make_spare(t);
	/* Ends dropped after every record read close the zones on top of the
	 * stack: not open any more, and dropped (upmc_zone_totals()). */
	t->pending_ends = 0;
	if (t->pos == published && t->seen.ends > t->taken.ends)
		t->pending_ends = t->seen.ends - t->taken.ends;
	return got < 0 ? got : err < 0 ? err : got;
}

/* The texts of the zones still open move to the start of the thread's
 * texts: the rest is forgotten. */
static void keep_open_texts(struct upmc_zone_thread *t)
{
	size_t i, n = 0, len;

	for (i = 0; i < t->depth; i++) {
		struct zone_open *o = &t->stack[i];
		if (!o->text)
			continue;
		len = strlen(t->texts + o->text - 1) + 1;
		memmove(t->texts + n, t->texts + o->text - 1, len);
		o->text = n + 1;
		n += len;
	}
	t->n_texts = n;
}

/* The drops shown so far are forgotten too: those the thread has not
 * written down yet are not counted again when it does. */
void upmc_zone_forget(struct upmc_zone_thread *t)
{
	t->n_zones = t->n_values = t->n_frames = 0;
	t->n_events = t->n_event_values = 0;
	keep_open_texts(t);
	t->dropped = t->unbalanced = t->refused = 0;
	t->begins_base = t->seen.begins;
	t->frames_base = t->seen.frames;
	t->notes_base = t->seen.notes;
	t->ends_forgotten = t->pending_ends;
}

void upmc_zone_unstream_open(struct upmc_zone_thread *t)
{
	size_t i;

	for (i = 0; i < t->depth; i++)
		t->stack[i].streamed = 0;
}

void upmc_zone_forget_events(struct upmc_zone_thread *t)
{
	t->n_zones = t->n_values = t->n_frames = 0;
	t->n_events = t->n_event_values = 0;
	keep_open_texts(t);
}

void upmc_zone_free_store(struct upmc_zone_thread *t)
{
	free(t->stack);
	free(t->stack_values);
	free(t->zones);
	free(t->values);
	free(t->frames);
	free(t->texts);
	free(t->events);
	free(t->event_values);
	free(t->order);
	t->order = NULL;
	t->order_cap = 0;
	t->sorted = 0;
	t->stack = NULL;
	t->stack_values = t->values = t->event_values = NULL;
	t->zones = NULL;
	t->frames = NULL;
	t->texts = NULL;
	t->events = NULL;
	t->depth = t->stack_cap = t->stack_values_cap = t->n_zones = t->zones_cap = 0;
	t->n_values = t->values_cap = t->n_frames = t->frames_cap = 0;
	t->n_texts = t->texts_cap = 0;
	t->n_events = t->events_cap = t->n_event_values = t->event_values_cap = 0;
}
