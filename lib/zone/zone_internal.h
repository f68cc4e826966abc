/* SPDX-License-Identifier: MIT */
/* Zones, private to the library: the per-thread buffer, the collected zones. */
#ifndef UPMC_ZONE_INTERNAL_H
#define UPMC_ZONE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <upmc/zone.h>

#include "lib/core/internal.h"
#include "lib/core/topdown.h"

/*
 * A thread's buffer is a chain of blocks of 64-bit words holding records,
 * each begun by a word that says what it is:
 *
 *   begin  [loc, t, v[0..w)]          loc: the zone's location (a pointer)
 *   named  [ZONE_TAG_NAMED, t, v[0..w)]   a begin named by the name record before it
 *   end    [~t, v[0..w)]              the top bit set: timestamps stay below 2^63
 *   name   [ZONE_TAG_NAME, site, bytes, name...]   the name, NUL-padded to words
 *   text   [ZONE_TAG_TEXT, bytes, text...]         for the zone open now
 *   value  [ZONE_TAG_VALUE, value]                 for the zone open now
 *   frame  [ZONE_TAG_FRAME, t, name]  name: NULL for an unnamed frame mark
 *   lost   [ZONE_TAG_LOST, ends, open]   a drop period's end (struct zone_lost)
 *   flush  [ZONE_TAG_FLUSH]
 *   next   [ZONE_TAG_NEXT]            the rest of the block is unused: go on
 *                                     at the start of the next block
 *
 * w is the words of the thread's snapshot of its counters (upmc_snapshot():
 * k, or 3k for a multiplexed set, 0 for a thread that records no counter).
 * A first word below ZONE_TAG_MIN_LOC that is no tag is a begin with a bad
 * location (NULL): the collector refuses that zone. A name record and the
 * named begin after it are written together.
 */
#define ZONE_TAG_NEXT    1
#define ZONE_TAG_FRAME   2
#define ZONE_TAG_LOST    3
#define ZONE_TAG_FLUSH   4
#define ZONE_TAG_NAME    5
#define ZONE_TAG_NAMED   6
#define ZONE_TAG_TEXT    7
#define ZONE_TAG_VALUE   8
#define ZONE_TAG_MIN_LOC 4096 /* no location lies in the first page */
#define ZONE_END_BIT     (1ull << 63)
#define ZONE_LOST_WORDS  3
#define ZONE_FRAME_WORDS 3
#define ZONE_THREAD_NAME 64

/* The words of a record, computed here alone. */
static inline size_t zone_begin_words(unsigned w)
{
	return 2 + w;
}

static inline size_t zone_end_words(unsigned w)
{
	return 1 + w;
}

/* Words of a string of `bytes` bytes with a NUL after it. */
static inline size_t zone_string_words(size_t bytes)
{
	return bytes / 8 + 1;
}

/*
 * A block of a thread's buffer. The blocks form a circle: the thread
 * writes one after another and goes round as the collector reads them; it
 * adds a block (out of line) where the next one still holds records the
 * collector has not read, while the profile's blocks stay within
 * max_bytes. A block's last word is kept for a next tag.
 */
struct zone_block {
	struct zone_block *next; /* set by the thread before the next tag that leads there */
	uint64_t *end;           /* one past the last word */
	uint64_t word[];
};

/* What every thread's blocks hold, in bytes: taken and given back with
 * atomics, by the threads as they grow and by the collector as it frees. */
struct zone_memory {
	uint64_t bytes, peak, max;
};

/* Frees the circle of blocks through b and gives its memory back. */
void upmc_zone_free_blocks(struct zone_block *b, struct zone_memory *m, size_t block_bytes);

/*
 * What a thread dropped to a full buffer since it joined, counted as it
 * drops (out of line): written by the thread alone with release stores,
 * read by the collector at any time with acquire loads, so that every
 * collect counts every drop, whether or not the thread records again. A
 * drop period runs from the first drop after a record to the lost record
 * the thread writes before its next one, once it has room; the lost record
 * tells the collector which zones the period ended and began.
 */
struct zone_drops {
	uint64_t periods; /* begun; stored before the counts of the period */
	uint64_t begins;  /* zones dropped at their begin */
	uint64_t ends;    /* ends dropped of zones begun before their period */
	uint64_t frames;  /* frame marks dropped */
	uint64_t notes;   /* texts and values dropped */
};

/* The drop period under way, the recording thread's own: its lost record. */
struct zone_lost {
	int64_t depth;     /* begins less ends dropped */
	int64_t min_depth; /* the lowest depth reached: ends of zones begun before */
	int pending;
};

/* A zone begun and not yet ended, on the collector's side. */
struct zone_open {
	const struct upmc_zone_loc *loc; /* NULL: lost or refused, its end is dropped too */
	uint64_t t0, child_ticks, seq;
	uint64_t value;
	size_t text; /* in the thread's texts, + 1; 0: none */
	int has_value;
	int streamed; /* its begin went into the events: its end goes too */
};

/* A collected zone; its counters are values[v .. v + 2w + k): the
 * snapshots at begin and at end, and the sum of the counts of the zones
 * directly inside it. */
struct zone_done {
	const struct upmc_zone_loc *loc;
	uint64_t t0, t1, child_ticks, seq;
	uint64_t value;
	size_t v;
	size_t text; /* in the thread's texts, + 1; 0: none */
	unsigned depth;
	int has_value;
};

/* A collected zone's place in the order zones began: the view's
 * (upmc_zone_sort()), which never moves the zones themselves. */
struct zone_rank {
	uint64_t seq;
	size_t i; /* in zones[] */
};

/* A frame mark: its time and name (NULL: unnamed). */
struct zone_frame {
	uint64_t t;
	const char *name;
};

/*
 * While a stream runs, the collector also keeps each thread's begins,
 * ends and frames in the order they happened, for the stream to write as
 * slices: a zone still open has its begin written before its end is known.
 */
enum zone_event_kind { ZONE_EVENT_BEGIN, ZONE_EVENT_END, ZONE_EVENT_FRAME };
#define ZONE_NOT_KEPT SIZE_MAX

struct zone_event {
	uint64_t t;
	const struct upmc_zone_loc *loc; /* a begin's */
	/* a begin: its snapshot in event_values; an end: its zone in zones[]
	 * (ZONE_NOT_KEPT: its end was dropped); a frame: in frames[] */
	size_t index;
	enum zone_event_kind kind;
};

/* Zones named at run time: each name and call site once, as a location
 * the profile owns until it closes. The collector's alone. */
struct zone_names {
	struct zone_name **slot;
	size_t n, slots;
};

/* ZONE_ENDED: the thread's profile was `upmc stat --zones`'s, ended for the
 * program's own (upmc_zone_end_profile()): the thread leaves it (finished
 * there) at its next call. */
enum zone_state { ZONE_NONE, ZONE_ATTACHED, ZONE_FINISHED, ZONE_PARKED, ZONE_ENDED };

/* Locations checked lately, by address: a call site is checked once. */
#define ZONE_LOC_CACHE 64

struct upmc_zone_thread {
	/* The hot path's fields, in the order it loads them. */
	uint64_t *next;       /* where the next record goes; published by a release store */
	uintptr_t limit;      /* a begin record fits at or below it; 0: always out of line */
	upmc_reader read;     /* the set's reader, or one that reads nothing */
	struct upmc_set *set; /* NULL when the thread records no counter */
	size_t value_bytes;   /* 8 per word of a snapshot of the set */
	/* The recording thread's own (out of line) */
	struct zone_block *block; /* the block it writes */
	/* Past it in its block, the thread asks for a spare block when its
	 * next block is not free; NULL once past (record.c: ask_for_spare()). */
	const uint64_t *halfway;
	unsigned k;      /* counters recorded: 0 or the profile's */
	unsigned w;      /* words of their snapshot: k, or 3k when multiplexed */
	int multiplexed; /* the set's: snapshots hold counts and their times */
	/* The profile's topdown when the set reads PERF_METRICS in user
	 * space (its snapshots hold the fields' values); NULL otherwise. */
	const struct upmc_topdown *topdown;
	int serialized; /* fenced timestamps */
	int endable;    /* its profile may be ended by another thread (for_request) */
	struct zone_lost lost;
	struct zone_memory *memory; /* the profile's */
	size_t block_bytes;         /* each block's, its head included */
	/* Shared */
	struct zone_drops drops;       /* the thread's stores, the collector's loads */
	int wants_spare;               /* the thread's release store, the collector's exchange */
	struct zone_block *spare;      /* made by the collector, taken by the thread as it grows */
	uint64_t *consumed;            /* the collector's position; published by a release store */
	int finished;                  /* the thread exited: every record is written */
	enum zone_state state;         /* under the zone lock */
	struct upmc_zone_thread *link; /* the profile's threads */
	/* Set at attach */
	char name[ZONE_THREAD_NAME];
	char why[UPMC_REASON_MAX]; /* why it records no counter; "" when it does */
	uint64_t tid;
	unsigned index;
	/* The collector's */
	uint64_t *pos;
	struct zone_block *pos_block;      /* pos's; NULL once the thread's blocks are freed */
	struct zone_names *names;          /* the profile's */
	const struct upmc_zone_loc *named; /* the last name record's location */
	const struct upmc_zone_loc *checked[ZONE_LOC_CACHE];
	uint64_t floor; /* the last timestamp: timestamps are kept non-decreasing */
	uint64_t seq;
	struct zone_open *stack;
	uint64_t *stack_values; /* v0[k], then counts inside, per open zone */
	size_t depth, stack_cap, stack_values_cap;
	struct zone_done *zones;
	uint64_t *values;
	size_t n_zones, zones_cap, n_values, values_cap;
	struct zone_frame *frames;
	size_t n_frames, frames_cap;
	char *texts;
	size_t n_texts, texts_cap;
	int streaming; /* the events below are kept */
	struct zone_event *events;
	uint64_t *event_values;
	size_t n_events, events_cap, n_event_values, event_values_cap;
	/* zones[] stay in the order they ended (a stream's end events index
	 * them); order[] is the view's, in the order they began. */
	struct zone_rank *order;
	size_t order_cap;
	int sorted;                            /* order[] holds every zone */
	uint64_t dropped, unbalanced, refused; /* from the records, since the last clear */
	struct zone_drops seen;                /* t->drops at the last collect */
	struct zone_drops taken;               /* the drops of the lost records read */
	uint64_t pending_ends; /* ends seen dropped after the records read: the stack's top */
	uint64_t begins_base, frames_base, notes_base; /* seen's at the last clear */
	uint64_t ends_forgotten;                       /* pending ends a clear forgot */
};

struct upmc_profile {
	char *spec; /* every thread's set opens it; NULL: time only */
	unsigned flags, profile_flags;
	/* `upmc stat --zones`'s: another thread may end it (request.c) */
	int for_request;
	size_t block_bytes; /* each block of a thread's buffer, its head included */
	struct zone_memory memory;
	struct zone_names names;
	unsigned n; /* counters */
	char counter[UPMC_MAX_COUNTERS][UPMC_NAME_MAX];
	/* The metrics the spec names, as the opener's set compiled them (every
	 * thread's set parses the same spec: the same counters, in the same
	 * order), and why each cannot be computed here ("" when it can). */
	unsigned n_metrics;
	struct upmc_metric metric[UPMC_MAX_METRICS];
	char metric_why[UPMC_MAX_METRICS][UPMC_REASON_MAX];
	/* How the opener's set reads Intel topdown in user space (every
	 * thread's set of the spec alike): the zones' precision check;
	 * has_topdown says whether it reads any. */
	struct upmc_topdown topdown;
	int has_topdown;
	struct upmc_set *timer; /* the clock */
	uint64_t t_open;        /* ticks when it opened */
	uint64_t pid;
	uint64_t serial;                       /* 1 for the process's first profile, and on */
	struct upmc_zone_thread *first, *last; /* appended under the zone lock */
	unsigned n_threads;
	/* The counts of the threads retired since the last clear (drops,
	 * unbalanced ends, refusals, dropped notes): kept here, so that a
	 * thread with nothing left to export goes whatever it counted. */
	struct upmc_profile_stats gone;
	uint64_t gone_notes;
	/* A layer above that must act at the close (a stream: stream.c)
	 * registers here; the close calls it first. */
	void (*at_close)(struct upmc_profile *p);
	/* `upmc stat --zones`'s report (request.c), written first at the close. */
	void (*at_report)(struct upmc_profile *p);
	/* The same for a clear, which calls it under the collector's lock
	 * before it forgets what was collected (a stream appends it first). */
	void (*at_clear)(struct upmc_profile *p);
	/* The same for a thread retired (freed), under the collector's lock
	 * before it goes (a stream forgets its sequence). */
	void (*at_retire)(struct upmc_profile *p, const struct upmc_zone_thread *t);
	struct zone_stream *stream;
	/* Under the collector's lock: collects keep events, while a stream
	 * runs and, once one ended, for the next (stream.c: stop_events()). */
	int streaming;
};

/* Writes the drop period as a lost record (ZONE_LOST_WORDS) and ends it:
 * the recording thread, and the collector for a period never written. */
static inline void upmc_zone_write_lost(struct zone_lost *lost, uint64_t *w)
{
	w[0] = ZONE_TAG_LOST;
	w[1] = (uint64_t)-lost->min_depth;
	w[2] = (uint64_t)(lost->depth - lost->min_depth);
	memset(lost, 0, sizeof(*lost));
}

/*
 * The files and who calls whom: profile.c (the profile's life, its
 * functions but the exports) calls threads.c (a thread's life: joining,
 * exit, fork, names), collect.c and view.c; threads.c and record.c
 * (recording: the hot path and the blocks) call each other: a thread's
 * first zone joins it, and a joining thread gets its first block; both
 * call collect.c (its allocator and frees), and threads.c calls view.c;
 * collect.c calls record.c to make a thread's spare block.
 * write.c (the exports) and stream.c (a stream) call profile.c's
 * collection, view.c and the writers; the writers call view.c. The
 * Perfetto writer calls down its own files: perfetto.c (the trace) calls
 * sequence.c (a thread's packet sequence), which calls protobuf.c (the
 * encoder). collect.c calls names.c (the names made at run time); names.c
 * and view.c call no other. The close calls a stream's end, a clear its
 * append and a thread's retirement its forgetting of the thread's
 * sequence, through the profile's at_close, at_clear and at_retire, which
 * stream.c registers.
 */

/* ---- record.c: recording ---- */

/* The blocks a thread records into: a new one (touched, NULL without
 * memory), the profile's peak of memory, and where the hot path's begin
 * records may start in the thread's block. */
struct zone_block *upmc_zone_new_block(size_t bytes);
void upmc_zone_note_peak(struct zone_memory *m, uint64_t bytes);
void upmc_zone_set_limit(struct upmc_zone_thread *t);
void upmc_zone_enter_block(struct upmc_zone_thread *t, struct zone_block *b);

/* The collector's side of a thread's spare block: made when the thread
 * asked for one, off the thread, so that the pages of a block the thread
 * grows by fault on the collector's thread, not inside the thread's zones;
 * freed with the thread's blocks. */
void upmc_zone_make_spare(struct upmc_zone_thread *t);
void upmc_zone_free_spare(struct upmc_zone_thread *t);

/* ---- threads.c: a thread's life ---- */

#if defined(__ELF__)
#define ZONE_TLS __attribute__((tls_model("initial-exec")))
#else
#define ZONE_TLS
#endif
/* The calling thread's state: a static one that records nothing while it
 * is in no profile. */
extern _Thread_local struct upmc_zone_thread *upmc_zone_self ZONE_TLS;

/* The calling thread's state for recording, joined to the open profile at
 * its first call; NULL when no profile is open, the thread exited or it
 * could not join this profile. */
struct upmc_zone_thread *upmc_zone_recording_thread(void);
/* 0, or -EBUSY when a profile is open or the calling thread is still in one. */
int upmc_zone_check_no_profile(void);
/* fn is called by a zone while no profile is open (NULL: nothing is);
 * upmc_zones_recording stays 1 while it is set. */
void upmc_zone_on_first_zone(void (*fn)(void));
/* `upmc stat --zones` (request.c): a profile just opened serves the
 * process's request when one waits, which it reports at its close or at
 * the process's exit. The report: per thread and zone name, the line
 * format of docs/zones.md; names: the zones whose union is reported too
 * (comma-separated; NULL: none). */
void upmc_zone_request_bind(struct upmc_profile *p);
/* Whether the calling thread's first zone is opening the request's
 * profile now. */
int upmc_zone_request_opening(void);
/* Before the program opens a profile of its own, one at a time with the
 * request's first zone: 1 when its profile will serve the waiting request
 * (then, should the open fail, upmc_zone_request_unclaim(1)); the
 * request's profile, when it serves the request, is ended
 * (upmc_zone_end_profile()) and reported at the exit with the moment. */
int upmc_zone_request_yield(void);
void upmc_zone_request_unclaim(int claimed);
/* The request's profile ended from any thread: unpublished, and its
 * threads told to leave it; it stays open for its report at the exit. */
void upmc_zone_end_profile(struct upmc_profile *p);
int upmc_zone_write_stat(struct upmc_profile *p, FILE *out, const char *names);
/* The calling thread's new state for p with set (NULL: opened here; closed
 * on failure), its exit call in place, not yet among p's threads. */
int upmc_zone_prepare_thread(struct upmc_profile *p, struct upmc_set *set,
                             struct upmc_zone_thread **out);
/* p made the open profile, with opener (upmc_zone_prepare_thread()) its
 * first thread; -EBUSY (opener dropped) when another opened meanwhile. */
int upmc_zone_publish(struct upmc_profile *p, struct upmc_zone_thread *opener);
/* p is no longer the open profile: no thread joins it. */
void upmc_zone_unpublish(struct upmc_profile *p);
/* fork()'s handlers in place (the core's registration). */
int upmc_zone_watch_fork(void);
/* Under the collector's lock: the threads upmc_zone_retired() says may go, freed. */
void upmc_zone_retire_threads(struct upmc_profile *p);
/* At the close: t's set, store and blocks given back. */
void upmc_zone_release_thread(struct upmc_zone_thread *t);
/* Every live thread's topdown period restarted; the first error. */
int upmc_zone_reset_topdown(struct upmc_profile *p);

/* ---- profile.c: the profile's life ---- */

/* Collects every thread's records (final: the threads are quiescent);
 * the lock keeps one collector at a time. */
int upmc_zone_collect(struct upmc_profile *p, int final);
/* The same, the collector's lock held. */
int upmc_zone_collect_locked(struct upmc_profile *p, int final);
void upmc_zone_collector_lock(void);
void upmc_zone_collector_unlock(void);
/* Whether the calling thread holds it (in a upmc_profile_zones() callback). */
int upmc_zone_collector_held(void);
/* 0, or -EDEADLK said for fn, a function that takes the lock, when the
 * calling thread holds it already. */
int upmc_zone_refuse_in_callback(const char *fn);

/* ---- collect.c: one thread's records taken out of its buffer ---- */

/* Allocates threads' buffers and the collector's arrays: realloc, unless a
 * test makes allocations fail on purpose. */
extern void *(*upmc_zone_realloc)(void *items, size_t bytes);

/* final: t records no more; own: t is the calling thread's, whose records
 * are all whole. */
int upmc_zone_collect_thread(struct upmc_zone_thread *t, int final, int own);
void upmc_zone_forget(struct upmc_zone_thread *t);
void upmc_zone_free_store(struct upmc_zone_thread *t);
/* The events a stream has written: forgotten, with the zones and frames. */
void upmc_zone_forget_events(struct upmc_zone_thread *t);
/* The zones open now end with no event: their begins' events went into a
 * file that ended, or were forgotten unwritten. */
void upmc_zone_unstream_open(struct upmc_zone_thread *t);
/* names.c: the profile's location for a run-time name and its call site
 * (*loc NULL past UPMC_ZONE_NAMES_MAX names: the zone is refused); 0, or
 * -ENOMEM. */
int upmc_zone_name_loc(struct zone_names *names, const struct upmc_zone_loc *site, const char *name,
                       size_t bytes, const struct upmc_zone_loc **loc);
void upmc_zone_free_names(struct zone_names *names);

/* ---- view.c: what was collected, as the writers read it ---- */

/* Threads in the order they came, zones in the order they began. */
struct upmc_zone_thread *upmc_zone_threads(const struct upmc_profile *p);
struct upmc_zone_thread *upmc_zone_thread_next(const struct upmc_zone_thread *t);
/* The order the zones began in (upmc_zone_nth()), made when zones came
 * since the last: 0, or -ENOMEM. zones[] is never reordered. */
int upmc_zone_sort(struct upmc_zone_thread *t);
/* Every thread's, as the writers read them. */
int upmc_zone_sort_all(const struct upmc_profile *p);
/* The i-th zone to begin, once sorted. */
const struct zone_done *upmc_zone_nth(const struct upmc_zone_thread *t, size_t i);
/* Inline: a stream converts two timestamps a zone. */
static inline uint64_t upmc_zone_duration_ns(const struct upmc_profile *p, uint64_t ticks)
{
	return upmc_mul_shift(ticks, p->timer->clock.mult, p->timer->clock.shift);
}

static inline uint64_t upmc_zone_ns(const struct upmc_profile *p, uint64_t ticks) /* since open */
{
	return ticks <= p->t_open ? 0 : upmc_zone_duration_ns(p, ticks - p->t_open);
}

/* A collected zone's counts: its interval (lib/core/interval.c's rule),
 * what of it is its own (less the zones directly inside it), and the share
 * of it each counter ran. */
struct zone_counts {
	uint64_t delta[UPMC_MAX_COUNTERS], self[UPMC_MAX_COUNTERS];
	double ratio[UPMC_MAX_COUNTERS];
	double metric[UPMC_MAX_METRICS]; /* upmc_zone_info()'s */
	/* Why metric j reads PERF_METRICS fields that cannot measure the
	 * zone: UPMC_TOPDOWN_SHORT or _RESET (lib/core/topdown.h); 0 when
	 * they can, or it reads none. */
	unsigned char unmeasured[UPMC_MAX_METRICS];
};
void upmc_zone_counts(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                      const struct zone_done *z, struct zone_counts *c);

/* A zone's metrics from its counts (upmc_zone_counts()): NAN where an
 * input did not count or a denominator is 0. */
void upmc_zone_metrics(const struct upmc_profile *p, const struct zone_counts *c, double *values);
/* Metric j's name, and whether it is a fraction (shown as a percent). */
const char *upmc_zone_metric_name(const struct upmc_profile *p, unsigned j);
int upmc_zone_metric_is_percent(const struct upmc_profile *p, unsigned j);
/* The same from counts a writer added up (UPMC_NOT_COUNTED: did not count). */
double upmc_zone_metric_of(const struct upmc_profile *p, unsigned j, const uint64_t *counts);
/* What a callback of upmc_zone_metrics_not_computed() writes with: the
 * profile, the file, and how many it wrote so far. */
struct zone_writing {
	const struct upmc_profile *p;
	FILE *out;
	unsigned n;
};
/* "<metric> is not computed: <why>" once for each metric that cannot be
 * computed here, through fn; how many. */
unsigned upmc_zone_metrics_not_computed(const struct upmc_profile *p,
                                        void (*fn)(void *arg, unsigned j, const char *why),
                                        void *arg);

/* The zones whose topdown (PERF_METRICS) metrics could not be measured,
 * too short or across a reset, said once for all of them: "topdown is not
 * measured in <n> of the <m> zones ...: <one zone's why>" through fn, once
 * for each kind there is; how many notes. */
unsigned upmc_zone_topdown_unmeasured(const struct upmc_profile *p,
                                      void (*fn)(void *arg, const char *note), void *arg);

/* "metrics":[names],"metrics_not_computed":{"name":"why",...}: the JSON
 * exports' (Chrome's otherData, the aggregates) list of the spec's metrics
 * and, once, why each one not computed here is not; then, where some
 * zones' topdown could not be measured, "metrics_unmeasured":[notes]. */
void upmc_zone_json_metrics(const struct upmc_profile *p, FILE *out);

/* A collected zone as the public struct, its counts in c. */
void upmc_zone_info(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                    const struct zone_done *z, struct zone_counts *c, struct upmc_zone_info *info);
void upmc_zone_totals(const struct upmc_profile *p, struct upmc_profile_stats *stats);
/* A zone's text (upmc_zone_text()); NULL when none. */
const char *upmc_zone_text_of(const struct upmc_zone_thread *t, const struct zone_done *z);
/* Texts and values dropped to a full buffer (upmc_zone_text(), _value()). */
uint64_t upmc_zone_dropped_notes(const struct upmc_profile *p);

/* A thread that exited with nothing left to export (zones, frames, open
 * zones): threads.c may free it, once upmc_zone_keep_counts() kept what
 * it counted (drops, refusals) in the profile's. */
int upmc_zone_retired(const struct upmc_zone_thread *t);
void upmc_zone_keep_counts(struct upmc_profile *p, const struct upmc_zone_thread *t);

/* A frame mark's name in exports: "frame", or "frame: <name>". */
void upmc_zone_frame_label(const struct zone_frame *f, char *buf, size_t size);

/* The thread's name in exports, made unique with " #<n>" where another has it. */
void upmc_zone_label(const struct upmc_profile *p, const struct upmc_zone_thread *t, char *buf,
                     size_t size);

/* Calls fn at every begin and end of t's zones, in time order and nested
 * (an end closes the zone begun last), even where a zone's parent is not
 * among them; depth is the zone's place on that stack of zones open.
 * Stops at fn's first non-zero. */
int upmc_zone_walk(struct upmc_zone_thread *t,
                   int (*fn)(void *arg, const struct zone_done *z, int begin, unsigned depth),
                   void *arg);

/* ---- perfetto.c: a writer's state, kept by a stream across appends ---- */
struct upmc_zone_perfetto;
/* compress: the packets in zlib-compressed chunks (chunk.c). */
struct upmc_zone_perfetto *upmc_zone_perfetto_new(const struct upmc_profile *p, int compress);
void upmc_zone_perfetto_free(struct upmc_zone_perfetto *w);
/* Forgets what the writer keeps of a thread retired (its sequence). */
void upmc_zone_perfetto_forget(struct upmc_zone_perfetto *w, const struct upmc_zone_thread *t);
/* Encodes every thread's events (the collector's lock held), then the
 * drop counts; the packets wait in the writer until taken. 0, or -ENOMEM. */
int upmc_zone_perfetto_append(struct upmc_zone_perfetto *w);

/* chunk.c: packets taken out of a writer (under the collector's lock),
 * then compressed and written with no lock held. */
struct upmc_zone_chunks;
/* zlib's levels (docs/zones.md): a save's chunks at 6, the smallest, made
 * once; a stream's at 3, in under half the CPU time, while the program
 * runs (a time-only zone in 0.7 to 1.4 bytes where 6 takes 0.4 to 0.9, 4
 * counters in 5 to 7.5 where 6 takes 2 to 6; level 1 took longer than 3
 * here, for more bytes). */
enum { UPMC_ZONE_SAVE_LEVEL = 6, UPMC_ZONE_STREAM_LEVEL = 3 };
struct upmc_zone_chunks *upmc_zone_chunks_new(int level);
void upmc_zone_chunks_free(struct upmc_zone_chunks *c);
/* The writer's packets (and where its chunks end) move into c, which
 * holds none (upmc_zone_chunks_sent()); the writer's next start empty. */
void upmc_zone_perfetto_take(struct upmc_zone_perfetto *w, struct upmc_zone_chunks *c);
/* The bytes to write: the packets, each chunk of them deflated where
 * the writer compressed. 0, or -errno said (zlib's failure). */
int upmc_zone_chunks_bytes(struct upmc_zone_chunks *c, const uint8_t **bytes, size_t *len);
/* Written: c holds nothing again (its memory stays, for the next). */
void upmc_zone_chunks_sent(struct upmc_zone_chunks *c);

/* chunk.c: whether zlib is built in (UPMC_HAVE_ZLIB): without it Perfetto
 * is written uncompressed. */
extern const int upmc_zone_have_zlib;
/* chunk.c: in, from its start, gzip-compressed onto out. 0, or -errno. */
int upmc_zone_gzip_copy(FILE *in, FILE *out);

/* ---- the writers, each in its own file ---- */
int upmc_zone_write_chrome(struct upmc_profile *p, FILE *out);
int upmc_zone_write_speedscope(struct upmc_profile *p, FILE *out);
int upmc_zone_write_perfetto(struct upmc_profile *p, FILE *out, int compress);
int upmc_zone_write_table(struct upmc_profile *p, FILE *out);
int upmc_zone_write_json(struct upmc_profile *p, FILE *out);

#endif /* UPMC_ZONE_INTERNAL_H */
