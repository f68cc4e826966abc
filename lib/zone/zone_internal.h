/* SPDX-License-Identifier: MIT */
/* Zones, private to the library: the per-thread buffer, the collected zones. */
#ifndef UPMC_ZONE_INTERNAL_H
#define UPMC_ZONE_INTERNAL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <upmc/zone.h>

#include "lib/core/internal.h"

/*
 * A thread's buffer is a ring of 64-bit words holding records, each begun
 * by a word that says what it is:
 *
 *   begin  [loc, t, v[0..k)]          loc: the zone's location (a pointer)
 *   end    [~t, v[0..k)]              the top bit set: timestamps stay below 2^63
 *   frame  [ZONE_TAG_FRAME, t]
 *   lost   [ZONE_TAG_LOST, ends, open]   a drop period's end (struct zone_lost)
 *   flush  [ZONE_TAG_FLUSH]
 *   wrap   [ZONE_TAG_WRAP]            the rest of the ring is unused: go on at its start
 *
 * k is the number of counters the thread records (0 or the profile's). A
 * first word below ZONE_TAG_MIN_LOC that is no tag is a begin with a bad
 * location (NULL): the collector refuses that zone.
 */
#define ZONE_TAG_WRAP    1
#define ZONE_TAG_FRAME   2
#define ZONE_TAG_LOST    3
#define ZONE_TAG_FLUSH   4
#define ZONE_TAG_MIN_LOC 4096 /* no location lies in the first page */
#define ZONE_END_BIT     (1ull << 63)
#define ZONE_LOST_WORDS  3
#define ZONE_THREAD_NAME 64

/* The words of a record, computed here alone: w is the words of the
 * thread's snapshot of its counters (upmc_snapshot(): k, or 3k for a
 * multiplexed set, 0 for a thread that records no counter). */
static inline size_t zone_begin_words(unsigned w)
{
	return 2 + w;
}

static inline size_t zone_end_words(unsigned w)
{
	return 1 + w;
}

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
};

/* A collected zone; its counters are values[v .. v + 2w + k): the
 * snapshots at begin and at end, and the sum of the counts of the zones
 * directly inside it. */
struct zone_done {
	const struct upmc_zone_loc *loc;
	uint64_t t0, t1, child_ticks, seq;
	size_t v;
	unsigned depth;
};

enum zone_state { ZONE_NONE, ZONE_ATTACHED, ZONE_FINISHED, ZONE_PARKED };

struct upmc_zone_thread {
	/* The hot path's fields, in the order it loads them. */
	uint64_t *next;       /* where the next record goes; published by a release store */
	uintptr_t limit;      /* a begin record fits at or below it; 0: always out of line */
	upmc_reader read;     /* the set's reader, or one that reads nothing */
	struct upmc_set *set; /* NULL when the thread records no counter */
	size_t value_bytes;   /* 8 per word of a snapshot of the set */
	/* The recording thread's own (out of line) */
	uint64_t *base, *end; /* the ring: records end before end - 1, leaving a wrap word */
	unsigned k;           /* counters recorded: 0 or the profile's */
	unsigned w;           /* words of their snapshot: k, or 3k when multiplexed */
	int multiplexed;      /* the set's: snapshots hold counts and their times */
	int serialized;       /* fenced timestamps */
	struct zone_lost lost;
	/* Shared */
	struct zone_drops drops;       /* the thread's stores, the collector's loads */
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
	uint64_t floor; /* the last timestamp: timestamps are kept non-decreasing */
	uint64_t seq;
	struct zone_open *stack;
	uint64_t *stack_values; /* v0[k], then counts inside, per open zone */
	size_t depth, stack_cap, stack_values_cap;
	struct zone_done *zones;
	uint64_t *values;
	size_t n_zones, zones_cap, n_values, values_cap;
	uint64_t *frames;
	size_t n_frames, frames_cap;
	int sorted;                            /* zones are in the order they began */
	uint64_t dropped, unbalanced, refused; /* from the records, since the last clear */
	struct zone_drops seen;                /* t->drops at the last collect */
	struct zone_drops taken;               /* the drops of the lost records read */
	uint64_t pending_ends; /* ends seen dropped after the records read: the stack's top */
	uint64_t begins_base, frames_base; /* seen.begins and seen.frames at the last clear */
	uint64_t ends_forgotten;           /* pending ends a clear forgot */
};

struct upmc_profile {
	char *spec; /* every thread's set opens it; NULL: time only */
	unsigned flags, profile_flags;
	size_t buffer_words;
	unsigned n; /* counters */
	char counter[UPMC_MAX_COUNTERS][UPMC_NAME_MAX];
	struct upmc_set *timer; /* the clock */
	uint64_t t_open;        /* ticks when it opened */
	uint64_t pid;
	uint64_t serial;                       /* 1 for the process's first profile, and on */
	struct upmc_zone_thread *first, *last; /* appended under the zone lock */
	unsigned n_threads;
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
 * The files and who calls whom: record.c (recording, the threads and the
 * profile's life, its functions but the exports) calls collect.c and
 * view.c; write.c (the exports) calls record.c's collection, view.c and
 * the writers; the writers call view.c. collect.c and view.c call no other.
 */

/* ---- record.c ---- */

/* Collects every thread's records (final: the threads are quiescent);
 * the lock keeps one collector at a time. */
int upmc_zone_collect(struct upmc_profile *p, int final);
void upmc_zone_collector_lock(void);
void upmc_zone_collector_unlock(void);

/* ---- collect.c: one thread's records taken out of its ring ---- */

/* Allocates threads' buffers and the collector's arrays: realloc, unless a
 * test makes allocations fail on purpose. */
extern void *(*upmc_zone_realloc)(void *items, size_t bytes);

/* final: t records no more; own: t is the calling thread's, whose records
 * are all whole. */
int upmc_zone_collect_thread(struct upmc_zone_thread *t, int final, int own);
void upmc_zone_forget(struct upmc_zone_thread *t);
void upmc_zone_free_store(struct upmc_zone_thread *t);

/* ---- view.c: what was collected, as the writers read it ---- */

/* Threads in the order they came, zones in the order they began. */
struct upmc_zone_thread *upmc_zone_threads(const struct upmc_profile *p);
struct upmc_zone_thread *upmc_zone_thread_next(const struct upmc_zone_thread *t);
void upmc_zone_sort(struct upmc_zone_thread *t);
uint64_t upmc_zone_ns(const struct upmc_profile *p, uint64_t ticks); /* since open */
uint64_t upmc_zone_duration_ns(const struct upmc_profile *p, uint64_t ticks);

/* A collected zone's counts: its interval (lib/core/interval.c's rule),
 * what of it is its own (less the zones directly inside it), and the share
 * of it each counter ran. */
struct zone_counts {
	uint64_t delta[UPMC_MAX_COUNTERS], self[UPMC_MAX_COUNTERS];
	double ratio[UPMC_MAX_COUNTERS];
};
void upmc_zone_counts(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                      const struct zone_done *z, struct zone_counts *c);

/* A collected zone as the public struct, its counts in c. */
void upmc_zone_info(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                    const struct zone_done *z, struct zone_counts *c, struct upmc_zone_info *info);
void upmc_zone_totals(const struct upmc_profile *p, struct upmc_profile_stats *stats);

/* A thread that exited with nothing left to export or count: record.c
 * may free it. */
int upmc_zone_retired(const struct upmc_zone_thread *t);

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

/* ---- the writers, each in its own file ---- */
int upmc_zone_write_chrome(struct upmc_profile *p, FILE *out);
int upmc_zone_write_speedscope(struct upmc_profile *p, FILE *out);
int upmc_zone_write_perfetto(struct upmc_profile *p, FILE *out);
int upmc_zone_write_table(struct upmc_profile *p, FILE *out);
int upmc_zone_write_json(struct upmc_profile *p, FILE *out);

#endif /* UPMC_ZONE_INTERNAL_H */
