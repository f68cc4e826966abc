/* SPDX-License-Identifier: MIT */
/*
 * Zones against the simulated kernel: its counters advance by a fixed cost
 * at every read, so a zone's counts are known exactly. Threads record
 * time-only zones here (the simulated PMU is one set at a time);
 * tests/zone_threads_test.c has threads with counters on the real kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/upmc_test.h"

#define READ_COST 7

/* The zones a profile collected, copied out of upmc_profile_zones(). */
struct seen {
	struct zone {
		const struct upmc_zone_loc *loc;
		char thread[64];
		uint64_t begin_ns, end_ns, delta[2], self[2];
		unsigned depth, n;
	} * z;
	size_t n, cap;
};

static int see(const struct upmc_zone_info *info, void *arg)
{
	struct seen *s = arg;
	struct zone *z;
	unsigned i;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->z = realloc(s->z, s->cap * sizeof(*s->z));
	}
	z = &s->z[s->n++];
	z->loc = info->loc;
	snprintf(z->thread, sizeof(z->thread), "%s", info->thread);
	z->begin_ns = info->begin_ns;
	z->end_ns = info->end_ns;
	z->depth = info->depth;
	z->n = info->n;
	for (i = 0; i < 2; i++) {
		z->delta[i] = i < info->n ? info->delta[i] : UPMC_NOT_COUNTED;
		z->self[i] = i < info->n ? info->self[i] : UPMC_NOT_COUNTED;
	}
	return 0;
}

static int zones_of(struct upmc_profile *p, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	return upmc_profile_zones(p, see, s);
}

static struct upmc_profile *open_sim(const char *spec, const struct upmc_profile_options *opts)
{
	struct upmc_profile *p = NULL;

	sim_reset(48);
	sim.read_cost = READ_COST;
	return upmc_profile_open(&p, spec, opts) < 0 ? NULL : p;
}

static const struct upmc_zone_loc frame_loc = {"frame", "main", "game.c", 10};
static const struct upmc_zone_loc physics_loc = {"physics", "main", "game.c", 20};
static const struct upmc_zone_loc collide_loc = {"collide", "physics", "game.c", 30};
static const struct upmc_zone_loc render_loc = {"render", "main", "game.c", 40};

TEST(zone, nested_zones_count_exactly)
{
	struct upmc_profile *p = open_sim("instructions,cycles", NULL);
	struct upmc_profile_stats st;
	struct seen s;

	ASSERT(p);
	upmc_zone_begin(&frame_loc);
	sim_tick(0, 100);
	upmc_zone_begin(&physics_loc);
	sim_tick(0, 1000);
	upmc_zone_begin(&collide_loc);
	sim_tick(0, 5000);
	upmc_zone_end();
	upmc_zone_end();
	upmc_zone_begin(&render_loc);
	sim_tick(0, 300);
	upmc_zone_end();
	upmc_zone_end();
	upmc_zone_flush();
	ASSERT(zones_of(p, &s) == 4);
	/* in the order they began, with their depth */
	EXPECT(s.z[0].loc == &frame_loc && s.z[0].depth == 0);
	EXPECT(s.z[1].loc == &physics_loc && s.z[1].depth == 1);
	EXPECT(s.z[2].loc == &collide_loc && s.z[2].depth == 2);
	EXPECT(s.z[3].loc == &render_loc && s.z[3].depth == 1);
	/* each read of a counter costs READ_COST: a zone counts its work, its
	 * own end read and both reads of every zone inside it */
	EXPECT_EQ_U64(s.z[2].delta[0], 5000 + READ_COST);
	EXPECT_EQ_U64(s.z[1].delta[0], 6000 + 3 * READ_COST);
	EXPECT_EQ_U64(s.z[3].delta[0], 300 + READ_COST);
	EXPECT_EQ_U64(s.z[0].delta[0], 6400 + 7 * READ_COST);
	/* self: less the zones directly inside, whose begin reads stay outside them */
	EXPECT_EQ_U64(s.z[1].self[0], 1000 + 2 * READ_COST);
	EXPECT_EQ_U64(s.z[0].self[0], 100 + 3 * READ_COST);
	EXPECT_EQ_U64(s.z[2].self[0], s.z[2].delta[0]);
	/* cycles is a second counter read at the same points: its own cost only */
	EXPECT_EQ_U64(s.z[1].delta[1], 3 * READ_COST);
	/* time: nested and ordered */
	EXPECT(s.z[0].begin_ns <= s.z[1].begin_ns && s.z[1].end_ns <= s.z[3].begin_ns);
	EXPECT(s.z[2].begin_ns >= s.z[1].begin_ns && s.z[2].end_ns <= s.z[1].end_ns);
	EXPECT(s.z[3].end_ns <= s.z[0].end_ns);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT(st.zones == 4 && st.dropped == 0 && st.open == 0 && st.threads == 1);
	EXPECT(st.counters == 2);
	EXPECT(!strcmp(upmc_profile_counter_name(p, 1), "cycles"));
	EXPECT(upmc_profile_counter_name(p, 2) == NULL);
	free(s.z);
	upmc_profile_close(p);
}

TEST(zone, macros_take_the_call_site)
{
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct seen s;
	int line;

	ASSERT(p);
	{
		UPMC_ZONE("scoped");
		line = __LINE__ - 1;
		UPMC_ZONE_BEGIN("explicit");
		UPMC_ZONE_END();
	}
	ASSERT(zones_of(p, &s) == 2);
	EXPECT(!strcmp(s.z[0].loc->name, "scoped") && s.z[0].loc->line == (uint32_t)line);
	EXPECT(!strcmp(s.z[0].loc->function, "zone_macros_take_the_call_site"));
	EXPECT_CONTAINS(s.z[0].loc->file, "zone_record_test.c");
	EXPECT(!strcmp(s.z[1].loc->name, "explicit") && s.z[1].depth == 1);
	/* time only: no counter, so none reads 0 */
	EXPECT(s.z[0].n == 0);
	free(s.z);
	upmc_profile_close(p);
}

TEST(zone, a_counter_that_did_not_count_is_not_zero)
{
	struct upmc_profile *p = open_sim("instructions,cycles", NULL);
	struct seen s;

	ASSERT(p);
	sim_stop(0); /* off the PMU: the read goes to read(2), which fails */
	sim.read_fails = 1;
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	sim.read_fails = 0;
	upmc_zone_flush();
	ASSERT(zones_of(p, &s) == 1);
	EXPECT_EQ_U64(s.z[0].delta[0], UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(s.z[0].delta[1], UPMC_NOT_COUNTED);
	EXPECT_EQ_U64(s.z[0].self[0], UPMC_NOT_COUNTED);
	free(s.z);
	upmc_profile_close(p);
}

static void *collect_here(void *arg)
{
	return (void *)(intptr_t)upmc_profile_collect(arg);
}

/* upmc_profile_collect(p) on a thread of its own. */
static int collect_elsewhere(struct upmc_profile *p)
{
	pthread_t t;
	void *got;

	if (pthread_create(&t, NULL, collect_here, p) != 0)
		return -EAGAIN;
	pthread_join(t, &got);
	return (int)(intptr_t)got;
}

TEST(zone, the_last_record_waits_for_its_counters)
{
	struct upmc_profile *p = open_sim("instructions", NULL);
	struct upmc_profile_stats st;

	ASSERT(p);
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	/* the end's counters could still be being written by its thread */
	EXPECT_EQ(collect_elsewhere(p), 0);
	upmc_zone_flush();
	EXPECT_EQ(collect_elsewhere(p), 1);
	/* a frame mark makes everything before it collectable too */
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	upmc_frame_mark();
	EXPECT_EQ(collect_elsewhere(p), 1);
	/* on the recording thread itself, the last record is whole */
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	EXPECT_EQ(upmc_profile_collect(p), 1);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT(st.zones == 3 && st.frames == 1 && st.open == 0);
	upmc_profile_clear(p);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT(st.zones == 0 && st.frames == 0);
	upmc_profile_close(p);
}

TEST(zone, serialized_timestamps)
{
	struct upmc_profile_options o = {sizeof(o), 0, UPMC_PROFILE_SERIALIZED, 0, 0};
	struct upmc_profile *p = open_sim("instructions", &o);
	struct seen s;

	ASSERT(p);
	upmc_zone_begin(&physics_loc);
	sim_tick(0, 40);
	upmc_zone_end();
	upmc_zone_flush();
	ASSERT(zones_of(p, &s) == 1);
	EXPECT_EQ_U64(s.z[0].delta[0], 40 + READ_COST);
	free(s.z);
	upmc_profile_close(p);
}

/* 4 KiB: 512 words; a time-only zone takes 3. */
TEST(zone, a_full_buffer_drops_and_counts)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile *p = open_sim(NULL, &o);
	struct upmc_profile_stats st;
	struct seen s;
	size_t i;
	int k;

	ASSERT(p);
	/* 1000 frames of a zone with two inside: 3000 zones, 9000 words */
	for (k = 0; k < 1000; k++) {
		upmc_zone_begin(&frame_loc);
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
		upmc_zone_begin(&render_loc);
		upmc_zone_end();
		upmc_zone_end();
		upmc_frame_mark();
	}
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_MSG(st.zones < 1000, "%llu zones", (unsigned long long)st.zones);
	/* the collect made room: the lost record first, then the zones go on */
	for (k = 0; k < 10; k++) {
		upmc_zone_begin(&frame_loc);
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
		upmc_zone_end();
	}
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_MSG(st.dropped > 2000, "%llu dropped", (unsigned long long)st.dropped);
	EXPECT_EQ_U64(st.zones + st.dropped, 3020);
	EXPECT_EQ_U64(st.frames + st.dropped_frames, 1000);
	EXPECT_EQ(st.open, 0);
	ASSERT(zones_of(p, &s) == (int)st.zones);
	/* what was kept is whole: every zone inside a frame zone */
	for (i = 0; i < s.n; i++)
		EXPECT(s.z[i].depth == (s.z[i].loc != &frame_loc));
	free(s.z);
	upmc_profile_close(p);
}

/* The number after "key": in an export, or -1. */
static long long exported(struct upmc_profile *p, enum upmc_format format, const char *key)
{
	char *text = NULL, *at;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	long long n = -1;

	if (!f)
		return -1;
	if (upmc_profile_write(p, format, f) == 0) {
		fflush(f);
		at = strstr(text, key);
		if (at)
			n = strtoll(at + strlen(key), NULL, 10);
	}
	fclose(f);
	free(text);
	return n;
}

/* A buffer that stays full: what it drops is counted at every collect and
 * export, without another record from the thread (4 KiB: 512 words; a zone
 * takes 3 time only, 5 with a counter). */
TEST(zone, drops_count_while_the_buffer_stays_full)
{
	static const char *const specs[] = {NULL, "instructions,cycles"};
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile_stats st;
	unsigned s;
	int k;

	for (s = 0; s < 2; s++) {
		struct upmc_profile *p = open_sim(specs[s], &o);
		ASSERT(p);
		for (k = 0; k < 1000; k++) {
			upmc_zone_begin(&physics_loc);
			upmc_zone_end();
		}
		upmc_zone_flush(); /* finds no room */
		ASSERT(upmc_profile_stats(p, &st) == 0);
		EXPECT_MSG(st.dropped > 500, "%s: %llu dropped", specs[s] ? specs[s] : "time only",
		           (unsigned long long)st.dropped);
		EXPECT_EQ_U64(st.zones + st.dropped, 1000);
		EXPECT_EQ(st.open, 0);
		EXPECT_EQ(st.unbalanced, 0);
		EXPECT_EQ(exported(p, UPMC_FORMAT_JSON, "\"dropped_zones\":"),
		          (long long)st.dropped);
		EXPECT_EQ(exported(p, UPMC_FORMAT_CHROME, "\"dropped_zones\":"),
		          (long long)st.dropped);
		upmc_profile_close(p);
	}
}

static void flood(int zones, int frames)
{
	int k;

	for (k = 0; k < zones; k++) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
	}
	for (k = 0; k < frames; k++)
		upmc_frame_mark();
}

/* 10^6 zones with no collect in between: by default the buffer grows
 * by blocks and loses none; within a cap of one buffer, every zone is
 * collected or counted. */
TEST(zone, a_flood_of_zones_is_kept_or_counted)
{
	struct upmc_profile_options capped = {sizeof(capped), 0, 0, 0, 1 << 20};
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	uint64_t bytes, peak;

	ASSERT(p);
	flood(1000000, 100);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones, 1000000);
	EXPECT_EQ_U64(st.dropped, 0);
	EXPECT_EQ_U64(st.frames, 100);
	ASSERT(upmc_profile_memory(p, &bytes, &peak) == 0);
	/* 24 bytes a zone: the blocks it took, within the default 256 MiB */
	EXPECT_MSG(peak >= 24000000 && peak <= (256u << 20), "%llu", (unsigned long long)peak);
	upmc_profile_close(p);

	p = open_sim(NULL, &capped);
	ASSERT(p);
	flood(1000000, 100);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones + st.dropped, 1000000);
	EXPECT_EQ_U64(st.frames + st.dropped_frames, 100);
	EXPECT(st.dropped > 900000);
	ASSERT(upmc_profile_memory(p, &bytes, &peak) == 0);
	EXPECT_MSG(peak <= (1u << 20) + 64, "%llu", (unsigned long long)peak);
	upmc_profile_close(p);
}

/* Drops shown before a clear are forgotten with it, and not counted again
 * when the thread writes them down later. */
TEST(zone, a_clear_forgets_the_drops_it_showed)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile *p = open_sim("instructions", &o);
	struct upmc_profile_stats st;
	int k;

	ASSERT(p);
	upmc_zone_begin(&frame_loc); /* recorded; its end is dropped */
	for (k = 0; k < 1000; k++) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
		upmc_frame_mark();
	}
	upmc_zone_end();
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones + st.dropped, 1001);
	EXPECT(st.dropped_frames > 0);
	EXPECT_EQ_U64(st.frames + st.dropped_frames, 1000);
	EXPECT_EQ(st.open, 0); /* frame's end was dropped: it is not open */
	upmc_profile_clear(p);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT(st.zones == 0 && st.dropped == 0 && st.dropped_frames == 0 && st.open == 0);
	/* room again: the drops are written down, then this zone */
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	upmc_zone_flush();
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.zones, 1);
	EXPECT_EQ(st.dropped, 0);
	EXPECT_EQ(st.dropped_frames, 0);
	EXPECT_EQ(st.open, 0);
	EXPECT_EQ(st.unbalanced, 0);
	upmc_profile_close(p);
}

/* A zone dropped at its begin and one dropped at its end, each counted once. */
TEST(zone, drops_in_the_middle_of_nesting)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile *p = open_sim(NULL, &o);
	struct upmc_profile_stats st;
	int k;

	ASSERT(p);
	upmc_zone_begin(&frame_loc); /* recorded; its end will be dropped */
	for (k = 0; k < 200; k++) {  /* fills the buffer, then drops */
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
	}
	upmc_zone_end();
	upmc_zone_begin(&render_loc); /* dropped begin, recorded end after a collect */
	ASSERT(upmc_profile_collect(p) > 0);
	upmc_zone_end();
	upmc_zone_begin(&collide_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones + st.dropped, 203);
	EXPECT_EQ(st.open, 0);
	EXPECT_EQ(st.unbalanced, 0);
	upmc_profile_close(p);
}

/* The collector allocates through upmc_zone_realloc (lib/zone/zone_internal.h):
 * this one fails the n-th allocation after it is put in place. */
extern void *(*upmc_zone_realloc)(void *items, size_t bytes);
static long allocs, failing_alloc;

static void *failing_realloc(void *items, size_t bytes)
{
	return ++allocs == failing_alloc ? NULL : realloc(items, bytes);
}

/* A collect in which allocation n fails (0: none does). */
static int collect_failing(struct upmc_profile *p, long n)
{
	int got;

	allocs = 0;
	failing_alloc = n;
	upmc_zone_realloc = failing_realloc;
	got = upmc_profile_collect(p);
	upmc_zone_realloc = realloc;
	return got;
}

/* The same zones, counts and all (not their times). */
static int same_zones(const struct seen *a, const struct seen *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const struct zone *x = &a->z[i], *y = &b->z[i];
		if (x->loc != y->loc || x->depth != y->depth || x->n != y->n ||
		    memcmp(x->delta, y->delta, sizeof(x->delta)) ||
		    memcmp(x->self, y->self, sizeof(x->self)))
			return 0;
	}
	return 1;
}

/* What a run of a scenario collected, and how many of its collects failed. */
struct outcome {
	struct seen s;
	struct upmc_profile_stats st;
	int failed;
};

/* A collect in which allocation n fails (0: none), then one in which none does. */
static void checkpoint(struct upmc_profile *p, long n, struct outcome *o)
{
	int got = collect_failing(p, n);

	if (got == -ENOMEM)
		o->failed++;
	else
		EXPECT_MSG(got >= 0, "collect: %d", got);
	EXPECT(upmc_profile_collect(p) >= 0);
}

static void finish_outcome(struct upmc_profile *p, struct outcome *o)
{
	EXPECT(upmc_profile_stats(p, &o->st) == 0);
	EXPECT(zones_of(p, &o->s) >= 0);
	upmc_profile_close(p);
}

enum { DEEP = 70 }; /* deeper than the collector's first 64 open zones */

/* On this thread: nested deeper than the first stack, more zones, values
 * and frames than their first arrays hold, collected at each step. */
static void deep_nesting(long n, struct outcome *o)
{
	struct upmc_profile *p = open_sim("instructions,cycles", NULL);
	int k;

	memset(o, 0, sizeof(*o));
	ASSERT(p);
	for (k = 0; k < DEEP; k++) {
		upmc_zone_begin(&physics_loc);
		sim_tick(0, (uint64_t)k);
	}
	upmc_zone_flush();
	checkpoint(p, n, o);
	for (k = 0; k < DEEP; k++) {
		sim_tick(0, (uint64_t)k);
		upmc_zone_end();
	}
	upmc_zone_flush();
	checkpoint(p, n, o);
	for (k = 0; k < 100; k++)
		upmc_frame_mark();
	checkpoint(p, n, o);
	finish_outcome(p, o);
}

/* A thread that fills its 4 KiB buffer, then begins DEEP zones that are
 * dropped, and exits: the collector reads the drops it never wrote down. */
static void *fill_and_exit(void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < 200; k++) { /* 3 words each, of 512 */
		upmc_zone_begin(&render_loc);
		upmc_zone_end();
	}
	for (k = 0; k < DEEP; k++)
		upmc_zone_begin(&collide_loc);
	return NULL;
}

static void drops_at_exit(long n, struct outcome *o)
{
	struct upmc_profile_options opts = {sizeof(opts), 0, 0, 4096, 4096};
	struct upmc_profile *p = open_sim(NULL, &opts);
	pthread_t t;

	memset(o, 0, sizeof(*o));
	ASSERT(p);
	ASSERT(pthread_create(&t, NULL, fill_and_exit, NULL) == 0);
	pthread_join(t, NULL);
	checkpoint(p, n, o);
	finish_outcome(p, o);
	EXPECT_MSG(o->st.dropped > DEEP, "%llu dropped", (unsigned long long)o->st.dropped);
}

/* Every allocation of the scenario's collects, failed in turn: the collect
 * says -ENOMEM, the next makes up for it, and the zones and counts come out
 * as they do when none fails. */
static void each_allocation_fails(void (*scenario)(long n, struct outcome *o), const char *what)
{
	struct outcome want, got;
	long n;

	scenario(0, &want);
	EXPECT_MSG(want.st.zones > 64, "%s: %llu zones", what, (unsigned long long)want.st.zones);
	for (n = 1; n < 1000; n++) {
		scenario(n, &got);
		EXPECT_MSG(same_zones(&got.s, &want.s) &&
		                   !memcmp(&got.st, &want.st, sizeof(got.st)),
		           "%s: allocation %ld failed: %llu zones, %llu dropped", what, n,
		           (unsigned long long)got.st.zones, (unsigned long long)got.st.dropped);
		free(got.s.z);
		if (!got.failed)
			break;
	}
	EXPECT_MSG(n > 4, "%s: %ld allocations", what, n - 1);
	free(want.s.z);
}

TEST(zone, a_collect_without_memory_loses_nothing)
{
	each_allocation_fails(deep_nesting, "deep nesting");
	each_allocation_fails(drops_at_exit, "drops at exit");
}

struct worker {
	pthread_t thread;
	unsigned index;
	unsigned frames;
	char name[32];
};

static void *record_frames(void *arg)
{
	struct worker *w = arg;
	unsigned k;

	if (w->index % 2)
		upmc_profile_thread(w->name);
	for (k = 0; k < w->frames; k++) {
		upmc_zone_begin(&frame_loc);
		upmc_zone_begin(&physics_loc);
		upmc_zone_begin(&collide_loc);
		upmc_zone_end();
		upmc_zone_end();
		upmc_zone_begin(&render_loc);
		upmc_zone_end();
		upmc_zone_end();
	}
	return NULL;
}

static atomic_int collecting; /* a flag between threads */

static void *collect_all_along(void *arg)
{
	struct upmc_profile *p = arg;

	while (collecting)
		upmc_profile_collect(p);
	return NULL;
}

/* Every zone of every thread, collected while they run and after they exit. */
TEST(zone, many_threads_collected_while_running)
{
	enum { THREADS = 8, FRAMES = 3000 };
	struct upmc_profile_options o = {sizeof(o), 0, 0, 16384, 16384};
	struct upmc_profile *p = open_sim(NULL, &o);
	struct worker w[THREADS];
	struct upmc_profile_stats st;
	pthread_t collector;
	struct seen s;
	size_t i, per_thread[THREADS] = {0};
	unsigned k;

	ASSERT(p);
	collecting = 1;
	ASSERT(pthread_create(&collector, NULL, collect_all_along, p) == 0);
	for (k = 0; k < THREADS; k++) {
		w[k].index = k;
		w[k].frames = FRAMES;
		snprintf(w[k].name, sizeof(w[k].name), "worker %u", k);
		ASSERT(pthread_create(&w[k].thread, NULL, record_frames, &w[k]) == 0);
	}
	for (k = 0; k < THREADS; k++)
		pthread_join(w[k].thread, NULL);
	collecting = 0;
	pthread_join(collector, NULL);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.threads, THREADS + 1); /* and this one */
	/* a small buffer and a busy collector: a drop is counted, never silent */
	EXPECT_EQ_U64(st.zones + st.dropped, THREADS * FRAMES * 4);
	EXPECT_EQ(st.open, 0);
	EXPECT_EQ(st.unbalanced, 0);
	ASSERT(zones_of(p, &s) == (int)st.zones);
	for (i = 0; i < s.n; i++) {
		const struct zone *z = &s.z[i];
		unsigned want = z->loc == &frame_loc ? 0 : z->loc == &collide_loc ? 2 : 1;
		EXPECT(z->depth == want);
		EXPECT(z->begin_ns <= z->end_ns);
		if (!strncmp(z->thread, "worker ", 7))
			per_thread[atoi(z->thread + 7)]++;
	}
	/* odd threads named themselves; the others are "thread <id>" */
	for (k = 1; k < THREADS; k += 2)
		EXPECT_MSG(per_thread[k] > 0, "no zone of worker %u", k);
	for (k = 0; k < THREADS; k += 2)
		EXPECT(per_thread[k] == 0);
	free(s.z);
	upmc_profile_close(p);
}

/* Small blocks, a collector running all along and room for every zone
 * within max_bytes: the buffers grow and go round as the collector frees
 * them, and not one zone is lost; the blocks of the threads that exited
 * are freed. */
TEST(zone, buffers_grow_and_lose_nothing_under_a_running_collector)
{
	enum { THREADS = 8, FRAMES = 3000 };
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 64 << 20};
	struct upmc_profile *p = open_sim(NULL, &o);
	struct worker w[THREADS];
	struct upmc_profile_stats st;
	uint64_t bytes, peak;
	pthread_t collector;
	struct seen s;
	size_t i;
	unsigned k;

	ASSERT(p);
	collecting = 1;
	ASSERT(pthread_create(&collector, NULL, collect_all_along, p) == 0);
	for (k = 0; k < THREADS; k++) {
		w[k].index = k;
		w[k].frames = FRAMES;
		snprintf(w[k].name, sizeof(w[k].name), "worker %u", k);
		ASSERT(pthread_create(&w[k].thread, NULL, record_frames, &w[k]) == 0);
	}
	for (k = 0; k < THREADS; k++)
		pthread_join(w[k].thread, NULL);
	collecting = 0;
	pthread_join(collector, NULL);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones, THREADS * FRAMES * 4);
	EXPECT_EQ_U64(st.dropped, 0);
	EXPECT_EQ(st.open, 0);
	EXPECT_EQ(st.unbalanced, 0);
	ASSERT(zones_of(p, &s) == (int)st.zones);
	for (i = 0; i < s.n; i++) {
		const struct zone *z = &s.z[i];
		unsigned want = z->loc == &frame_loc ? 0 : z->loc == &collide_loc ? 2 : 1;
		EXPECT(z->depth == want);
	}
	ASSERT(upmc_profile_memory(p, &bytes, &peak) == 0);
	EXPECT_MSG(peak > 4096 * THREADS, "%llu", (unsigned long long)peak);
	/* the exited threads' blocks are gone: this thread's first one is left */
	EXPECT_MSG(bytes < 8192, "%llu", (unsigned long long)bytes);
	free(s.z);
	upmc_profile_close(p);
}

/* With room enough and one collect at the end, nothing is lost. */
TEST(zone, threads_that_exit_keep_their_zones)
{
	enum { THREADS = 4, FRAMES = 1000 };
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct worker w[THREADS];
	struct upmc_profile_stats st;
	unsigned k;

	ASSERT(p);
	for (k = 0; k < THREADS; k++) {
		w[k].index = k;
		w[k].frames = FRAMES;
		snprintf(w[k].name, sizeof(w[k].name), "worker %u", k);
		ASSERT(pthread_create(&w[k].thread, NULL, record_frames, &w[k]) == 0);
		pthread_join(w[k].thread, NULL);
	}
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones, THREADS * FRAMES * 4);
	EXPECT_EQ(st.dropped, 0);
	EXPECT_EQ(st.threads, THREADS + 1);
	upmc_profile_close(p);
}

/* Threads that exited are freed once what they left is collected and
 * cleared: a job system that makes its pool again and again keeps no
 * state of the threads gone. Their names and zones stay until the clear. */
TEST(zone, threads_that_exited_are_freed_once_cleared)
{
	enum { ROUNDS = 50, THREADS = 4 };
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	struct worker w[THREADS];
	struct seen s;
	unsigned round, k;
	size_t i, named;

	ASSERT(p);
	for (round = 0; round < ROUNDS; round++) {
		for (k = 0; k < THREADS; k++) {
			w[k].index = 1; /* names itself */
			w[k].frames = 10;
			snprintf(w[k].name, sizeof(w[k].name), "worker %u", k);
			ASSERT(pthread_create(&w[k].thread, NULL, record_frames, &w[k]) == 0);
		}
		for (k = 0; k < THREADS; k++)
			pthread_join(w[k].thread, NULL);
		ASSERT(upmc_profile_stats(p, &st) == 0);
		EXPECT_EQ(st.threads, THREADS + 1);
		EXPECT_EQ_U64(st.zones, THREADS * 10 * 4);
		ASSERT(zones_of(p, &s) == (int)st.zones);
		for (i = named = 0; i < s.n; i++)
			named += !strncmp(s.z[i].thread, "worker ", 7);
		EXPECT_EQ(named, s.n);
		free(s.z);
		upmc_profile_clear(p);
		ASSERT(upmc_profile_stats(p, &st) == 0);
		EXPECT_MSG(st.threads == 1, "round %u: %u threads", round, st.threads);
	}
	upmc_profile_close(p);
}

struct clearing {
	struct upmc_profile *p;
	uint64_t zones; /* every zone collected before a clear */
	unsigned clears;
};

static void *collect_and_clear_all_along(void *arg)
{
	struct clearing *c = arg;
	struct upmc_profile_stats st;

	while (__atomic_load_n(&collecting, __ATOMIC_RELAXED)) {
		if (upmc_profile_stats(c->p, &st) == 0)
			c->zones += st.zones;
		upmc_profile_clear(c->p);
		c->clears++;
	}
	return NULL;
}

/* Threads join, exit and are freed while another thread collects and
 * clears: each zone is counted once, and no exited thread stays. */
TEST(zone, a_pool_made_again_while_collecting)
{
	enum { ROUNDS = 40, THREADS = 4, FRAMES = 50 };
	struct clearing c = {open_sim(NULL, NULL), 0, 0};
	struct upmc_profile_stats st;
	struct worker w[THREADS];
	pthread_t collector;
	unsigned round, k;

	ASSERT(c.p);
	__atomic_store_n(&collecting, 1, __ATOMIC_RELAXED);
	ASSERT(pthread_create(&collector, NULL, collect_and_clear_all_along, &c) == 0);
	for (round = 0; round < ROUNDS; round++) {
		for (k = 0; k < THREADS; k++) {
			w[k].index = k;
			w[k].frames = FRAMES;
			snprintf(w[k].name, sizeof(w[k].name), "worker %u", k);
			ASSERT(pthread_create(&w[k].thread, NULL, record_frames, &w[k]) == 0);
		}
		for (k = 0; k < THREADS; k++)
			pthread_join(w[k].thread, NULL);
	}
	__atomic_store_n(&collecting, 0, __ATOMIC_RELAXED);
	pthread_join(collector, NULL);
	ASSERT(upmc_profile_stats(c.p, &st) == 0);
	EXPECT_EQ_U64(c.zones + st.zones, ROUNDS * THREADS * FRAMES * 4);
	EXPECT_EQ(st.dropped, 0);
	upmc_profile_clear(c.p);
	ASSERT(upmc_profile_stats(c.p, &st) == 0);
	EXPECT_EQ(st.threads, 1);
	upmc_profile_close(c.p);
}

struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int step;
	struct upmc_profile_stats first, second;
};

static void wait_step(struct waiter *w, int step)
{
	pthread_mutex_lock(&w->lock);
	while (w->step < step)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

static void set_step(struct waiter *w, int step)
{
	pthread_mutex_lock(&w->lock);
	w->step = step;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void *outlive_a_profile(void *arg)
{
	struct waiter *w = arg;

	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	set_step(w, 1);
	wait_step(w, 2); /* the profile is closed and another opened */
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	set_step(w, 3);
	return NULL;
}

/* A thread alive across a close records into the next profile. */
TEST(zone, a_thread_outlives_its_profile)
{
	struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}, {0}};
	struct upmc_profile *p = open_sim(NULL, NULL), *q = NULL;
	struct upmc_profile_stats st;
	pthread_t t;

	ASSERT(p);
	ASSERT(pthread_create(&t, NULL, outlive_a_profile, &w) == 0);
	wait_step(&w, 1);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.zones, 1);
	upmc_profile_close(p);
	ASSERT(upmc_profile_open(&q, NULL, NULL) == 0);
	set_step(&w, 2);
	wait_step(&w, 3);
	pthread_join(t, NULL);
	ASSERT(upmc_profile_stats(q, &st) == 0);
	EXPECT_EQ(st.zones, 2);
	EXPECT_EQ(st.threads, 2);
	upmc_profile_close(q);
}

static void *record_then_wait(void *arg)
{
	struct waiter *w = arg;

	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	set_step(w, 1);
	wait_step(w, 2);
	return NULL;
}

/* A thread alive at the close keeps a small state, which it frees at its
 * exit (AddressSanitizer's leak check sees the rest). */
TEST(zone, a_thread_alive_at_the_close_frees_its_state_at_exit)
{
	struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}, {0}};
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	pthread_t t;

	ASSERT(p);
	ASSERT(pthread_create(&t, NULL, record_then_wait, &w) == 0);
	wait_step(&w, 1);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.threads, 2);
	upmc_profile_close(p);
	set_step(&w, 2);
	pthread_join(t, NULL);
}

/* A thread that sets no_memory_here gets no buffer (after fail_after_us). */
static _Thread_local int no_memory_here;
static unsigned fail_after_us;
static long failed_buffers;

static void *fail_marked_threads(void *items, size_t bytes)
{
	if (no_memory_here) {
		__atomic_add_fetch(&failed_buffers, 1, __ATOMIC_RELAXED);
		usleep(fail_after_us);
		return NULL;
	}
	return realloc(items, bytes);
}

static atomic_int next_profile_open; /* a flag between threads */

static void *zones_meanwhile(void *arg)
{
	(void)arg;
	while (!next_profile_open) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
	}
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	return NULL;
}

/* Another thread's zones while opens fail: no profile is ever seen without
 * its opener, so none is left holding the thread (which then joins the
 * profile that does open). */
TEST(zone, an_open_that_fails_leaves_no_thread_behind)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile *p = NULL;
	struct upmc_profile_stats st;
	pthread_t t;
	int k;

	next_profile_open = 0;
	fail_after_us = 2000; /* the opening thread fails slowly */
	upmc_zone_realloc = fail_marked_threads;
	ASSERT(pthread_create(&t, NULL, zones_meanwhile, NULL) == 0);
	no_memory_here = 1;
	for (k = 0; k < 20; k++)
		EXPECT(upmc_profile_open(&p, NULL, &o) == -ENOMEM && p == NULL);
	no_memory_here = 0;
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	next_profile_open = 1;
	pthread_join(t, NULL);
	upmc_zone_realloc = realloc;
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.threads, 2);
	EXPECT(st.zones >= 1);
	upmc_profile_close(p);
}

static void *zones_without_memory(void *arg)
{
	struct waiter *w = arg;
	int k;

	no_memory_here = 1;
	for (k = 0; k < 100; k++) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
	}
	EXPECT(upmc_profile_thread("asks again") == -ENOMEM);
	set_step(w, 1);
	wait_step(w, 2); /* another profile is open */
	no_memory_here = 0;
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	return NULL;
}

/* A thread that cannot join a profile tries once (upmc_profile_thread()
 * asks again), and again when another profile opens. */
TEST(zone, a_thread_that_cannot_join_tries_again_at_the_next_profile)
{
	struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}, {0}};
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	pthread_t t;

	ASSERT(p);
	failed_buffers = 0;
	fail_after_us = 0;
	upmc_zone_realloc = fail_marked_threads;
	ASSERT(pthread_create(&t, NULL, zones_without_memory, &w) == 0);
	wait_step(&w, 1);
	EXPECT_EQ(failed_buffers, 2); /* the first zone, and upmc_profile_thread() */
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.threads, 1);
	upmc_profile_close(p);
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	set_step(&w, 2);
	pthread_join(t, NULL);
	upmc_zone_realloc = realloc;
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.threads, 2);
	EXPECT_EQ(st.zones, 1);
	upmc_profile_close(p);
}

static pthread_key_t late_key;

/* A destructor that runs after the library's thread-exit call (in the next
 * round, having set its key again), and records a zone there. */
static void zone_in_a_late_destructor(void *arg)
{
	if (arg == (void *)1) {
		pthread_setspecific(late_key, (void *)2);
		return;
	}
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	EXPECT(upmc_profile_thread("late") == -ESRCH);
}

static void *record_and_exit(void *arg)
{
	(void)arg;
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	pthread_setspecific(late_key, (void *)1);
	return NULL;
}

/* After its exit call a thread records nothing, and does not join again. */
TEST(zone, zones_after_the_exit_call_are_ignored)
{
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	pthread_t t;

	ASSERT(p);
	ASSERT(pthread_key_create(&late_key, zone_in_a_late_destructor) == 0);
	ASSERT(pthread_create(&t, NULL, record_and_exit, NULL) == 0);
	pthread_join(t, NULL);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.threads, 2);
	EXPECT_EQ(st.zones, 1);
	upmc_profile_close(p);
	pthread_key_delete(late_key);
}

static atomic_int renaming; /* a flag between threads */

static void *rename_all_along(void *arg)
{
	char a[64], b[64];
	unsigned k;

	memset(a, 'a', sizeof(a) - 1);
	memset(b, 'b', sizeof(b) - 1);
	a[63] = b[63] = '\0';
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	set_step(arg, 1);
	for (k = 0; renaming; k++)
		upmc_profile_thread(k % 2 ? a : b);
	return NULL;
}

struct names_seen {
	unsigned torn, changes;
	char last;
};

/* A name is all 'a' or all 'b' (or the one a thread got at first). */
static int check_name(const struct upmc_zone_info *z, void *arg)
{
	struct names_seen *seen = arg;
	size_t i, n = strlen(z->thread);

	seen->changes += z->thread[0] != seen->last;
	seen->last = z->thread[0];
	for (i = 1; i < n && z->thread[0] != 't'; i++)
		if (z->thread[i] != z->thread[0]) {
			seen->torn++;
			break;
		}
	return 0;
}

/* A thread renames itself while exports read its name: they read it whole. */
TEST(zone, a_name_changes_between_exports)
{
	struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, {0}, {0}};
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct names_seen seen = {0, 0, 0};
	unsigned k;
	pthread_t t;

	ASSERT(p);
	renaming = 1;
	ASSERT(pthread_create(&t, NULL, rename_all_along, &w) == 0);
	wait_step(&w, 1);
	for (k = 0; k < 100000 && seen.changes < 100; k++) {
		if (upmc_profile_zones(p, check_name, &seen) != 1)
			break;
		sched_yield(); /* the renaming thread's turn at the lock */
	}
	renaming = 0;
	pthread_join(t, NULL);
	upmc_profile_close(p);
	EXPECT_EQ(seen.torn, 0);
	if (seen.changes < 100)
		SKIP("the name changed %u times only in %u exports", seen.changes, k);
}

/* A name longer than 63 bytes is cut there, or before a UTF-8 character
 * that would not fit whole. */
TEST(zone, a_long_thread_name_is_cut_at_a_character)
{
	struct upmc_profile *p = open_sim(NULL, NULL);
	char name[80], want[64];
	struct seen s;

	ASSERT(p);
	memset(name, 'a', 62);
	snprintf(name + 62, sizeof(name) - 62, "\xc3\xa9 and more");
	ASSERT(upmc_profile_thread(name) == 0);
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	ASSERT(zones_of(p, &s) == 1);
	memset(want, 'a', 62);
	want[62] = '\0';
	EXPECT_MSG(!strcmp(s.z[0].thread, want), "%zu bytes", strlen(s.z[0].thread));
	free(s.z);
	upmc_profile_clear(p);
	memset(name, 'b', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ASSERT(upmc_profile_thread(name) == 0);
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	ASSERT(zones_of(p, &s) == 1);
	EXPECT_EQ(strlen(s.z[0].thread), 63);
	free(s.z);
	upmc_profile_close(p);
}

TEST(zone, bad_input)
{
	static const struct upmc_zone_loc no_name = {NULL, "f", "x.c", 1};
	static char long_name[UPMC_ZONE_NAME_MAX + 2];
	static struct upmc_zone_loc too_long = {long_name, "f", "x.c", 2};
	static char longest_name[UPMC_ZONE_NAME_MAX + 1];
	static struct upmc_zone_loc longest = {longest_name, "f", "x.c", 3};
	struct upmc_profile_options small = {sizeof(small), 0, 0, 1024, 0};
	struct upmc_profile_options old = {sizeof(size_t), 0, 0, 0, 0};
	struct upmc_profile_options flags = {sizeof(flags), 0, 1u << 7, 0, 0};
	struct upmc_profile_options set_flags = {sizeof(set_flags), 1u << 20, 0, 0, 0};
	struct upmc_profile_options contradiction = {
	        sizeof(contradiction), UPMC_OPT_FORCE_SYSCALL | UPMC_OPT_REQUIRE_USER_READ, 0, 0,
	        0};
	struct {
		struct upmc_profile_options o;
		uint64_t extra;
	} newer = {{sizeof(newer), 0, 0, 0, 0}, 1};
	struct upmc_profile *p, *q;
	struct upmc_profile_stats st;
	struct seen s;

	/* before any profile: nothing happens */
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	upmc_frame_mark();
	upmc_zone_flush();
	EXPECT(upmc_profile_thread("x") == -ENOENT);
	EXPECT(upmc_profile_open(NULL, NULL, NULL) == -EINVAL);
	EXPECT(upmc_profile_open(&p, NULL, &small) == -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "buffer_bytes");
	EXPECT(upmc_profile_open(&p, NULL, &old) == -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "sizeof(struct upmc_profile_options)");
	EXPECT(upmc_profile_open(&p, NULL, &flags) == -EINVAL);
	/* the sets' flags, checked even when no set is opened (time only) */
	EXPECT(upmc_profile_open(&p, NULL, &set_flags) == -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_profile_options.flags has unknown bits 0x100000");
	EXPECT(upmc_profile_open(&p, "", &contradiction) == -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "contradict");
	/* a newer caller's larger struct: its new fields must be zero */
	EXPECT(upmc_profile_open(&p, NULL, &newer.o) == -E2BIG && p == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_profile_options.size");
	newer.extra = 0;
	EXPECT(upmc_profile_open(&p, NULL, &newer.o) == 0);
	upmc_profile_close(p);
	EXPECT(upmc_profile_open(&p, "instructionz", NULL) < 0 && p == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "instructionz");
	EXPECT(upmc_profile_collect(NULL) == -EINVAL);
	EXPECT(upmc_profile_stats(NULL, &st) == -EINVAL);
	upmc_profile_close(NULL);
	upmc_profile_clear(NULL);

	p = open_sim(NULL, NULL);
	ASSERT(p);
	EXPECT(upmc_profile_open(&q, NULL, NULL) == -EBUSY);
	EXPECT(upmc_profile_zones(p, NULL, NULL) == -EINVAL);
	memset(long_name, 'a', sizeof(long_name) - 1);
	memset(longest_name, 'b', sizeof(longest_name) - 1);
	upmc_zone_end(); /* an end without a begin */
	upmc_zone_begin(NULL);
	upmc_zone_begin(&longest); /* inside a refused zone: still kept */
	upmc_zone_end();
	upmc_zone_end();
	upmc_zone_begin(&no_name);
	upmc_zone_end();
	upmc_zone_begin(&too_long);
	upmc_zone_end();
	upmc_zone_begin(&physics_loc); /* never ended */
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.unbalanced, 1);
	EXPECT_EQ(st.refused, 3);
	EXPECT_EQ(st.open, 1);
	ASSERT(zones_of(p, &s) == 1);
	EXPECT(s.z[0].loc == &longest && s.z[0].depth == 1);
	free(s.z);
	upmc_profile_close(p);
}

/* Zones compiled in cost the header's inline test of upmc_zones_recording
 * while no profile is open: the macros call nothing when it is 0, which
 * the library sets while a profile is open. */
TEST(zone, the_macros_test_the_recording_flag_first)
{
	struct upmc_profile *p;
	struct upmc_profile_stats st;

	EXPECT_EQ(upmc_zones_recording, 0);
	p = open_sim(NULL, NULL);
	ASSERT(p);
	EXPECT_EQ(upmc_zones_recording, 1);
	upmc_zones_recording = 0; /* as if no profile were open, for the header */
	UPMC_ZONE_BEGIN("not recorded");
	UPMC_ZONE_END();
	upmc_frame_mark();
	(upmc_zone_begin)(&physics_loc); /* the exported function records */
	(upmc_zone_end)();
	upmc_zones_recording = 1;
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones, 1);
	EXPECT_EQ_U64(st.frames, 0);
	upmc_profile_close(p);
	EXPECT_EQ(upmc_zones_recording, 0);
}

struct texts {
	char text[8][64], name[8][32];
	uint64_t value[8];
	int has_value[8], n;
	const struct upmc_zone_loc *loc[8];
};

static int see_text(const struct upmc_zone_info *z, void *arg)
{
	struct texts *t = arg;

	if (t->n == 8)
		return 1;
	snprintf(t->text[t->n], sizeof(t->text[0]), "%s", z->text ? z->text : "(none)");
	snprintf(t->name[t->n], sizeof(t->name[0]), "%s", z->loc->name);
	t->value[t->n] = z->value;
	t->has_value[t->n] = z->has_value;
	t->loc[t->n++] = z->loc;
	return 0;
}

/* A zone's text and value (the last given), a name made at run time and
 * kept by the library, each with the zone they were given in. */
TEST(zone, text_values_and_names_made_at_run_time)
{
	static const struct upmc_zone_loc site = {"", "spawn", "game.c", 50};
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	char name[UPMC_ZONE_NAME_MAX + 2], long_text[UPMC_ZONE_TEXT_MAX + 100];
	struct texts t = {.n = 0};
	int k;

	ASSERT(p);
	upmc_zone_text("outside any zone", 16); /* ignored */
	upmc_zone_begin(&frame_loc);
	UPMC_ZONE_TEXT("first", 5);
	UPMC_ZONE_TEXT("second, kept", 12);
	UPMC_ZONE_VALUE(7);
	for (k = 0; k < 2; k++) {
		snprintf(name, sizeof(name), "entity %d", 40 + k);
		upmc_zone_begin_name(&site, name);
		memset(name, 'x', 16); /* the library copied it */
		if (k == 1)
			UPMC_ZONE_VALUE(0);
		upmc_zone_end();
	}
	snprintf(name, sizeof(name), "entity %d", 40);
	upmc_zone_begin_name(&site, name); /* the same name: the same location */
	upmc_zone_end();
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	upmc_zone_begin_name(&site, name); /* too long: refused */
	upmc_zone_end();
	upmc_zone_begin_name(&site, NULL); /* refused */
	upmc_zone_end();
	memset(long_text, 'a', sizeof(long_text));
	UPMC_ZONE_TEXT(long_text, sizeof(long_text)); /* cut to UPMC_ZONE_TEXT_MAX */
	upmc_zone_end();
	ASSERT(upmc_profile_zones(p, see_text, &t) == 4);
	EXPECT(!strcmp(t.name[0], "frame"));
	EXPECT_EQ(strlen(t.text[0]), sizeof(t.text[0]) - 1); /* the long text, kept (cut here) */
	EXPECT(t.has_value[0] && t.value[0] == 7);
	EXPECT(!strcmp(t.name[1], "entity 40") && !strcmp(t.text[1], "(none)"));
	EXPECT(!t.has_value[1]);
	EXPECT(!strcmp(t.name[2], "entity 41") && t.has_value[2] && t.value[2] == 0);
	EXPECT(t.loc[3] == t.loc[1] && t.loc[1] != t.loc[2]);
	EXPECT(!strcmp(t.loc[1]->file, "game.c") && t.loc[1]->line == 50);
	EXPECT(!strcmp(t.loc[1]->function, "spawn"));
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.refused, 2);
	upmc_profile_close(p);
}

/* Names made at run time are kept up to UPMC_ZONE_NAMES_MAX, across
 * clears; a zone of a name past them is refused and counted, its children
 * kept, and a name kept already stays good. */
TEST(zone, names_made_at_run_time_are_bounded)
{
	static const struct upmc_zone_loc site = {"", "serve", "server.c", 60};
	struct upmc_profile *p = open_sim(NULL, NULL);
	struct upmc_profile_stats st;
	char name[32];
	int k;

	ASSERT(p);
	for (k = 0; k < UPMC_ZONE_NAMES_MAX + 100; k++) {
		snprintf(name, sizeof(name), "request %d", k);
		upmc_zone_begin_name(&site, name);
		if (k == UPMC_ZONE_NAMES_MAX)
			upmc_zone_begin(&frame_loc); /* inside a refused zone: kept */
		if (k == UPMC_ZONE_NAMES_MAX)
			upmc_zone_end();
		upmc_zone_end();
		if (k % 1000 == 999) {
			ASSERT(upmc_profile_stats(p, &st) == 0); /* a collect now and then */
			upmc_profile_clear(p);
		}
	}
	upmc_zone_begin_name(&site, "request 7"); /* kept already */
	upmc_zone_end();
	ASSERT(upmc_profile_collect(p) >= 0);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	upmc_profile_close(p);
	p = open_sim(NULL, NULL); /* a new profile keeps names of its own */
	ASSERT(p);
	upmc_zone_begin_name(&site, "request 99999");
	upmc_zone_end();
	EXPECT_EQ_U64(st.refused, 100);
	EXPECT_EQ_U64(st.zones, (UPMC_ZONE_NAMES_MAX + 100) % 1000 - 100 + 1 + 1);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.zones, 1);
	EXPECT_EQ_U64(st.refused, 0);
	upmc_profile_close(p);
}

static int first_text(const struct upmc_zone_info *z, void *arg)
{
	snprintf(arg, 64, "%s", z->text ? z->text : "(none)");
	return 1;
}

/* A clear forgets the zones it showed, but an open zone keeps its text. */
TEST(zone, an_open_zone_keeps_its_text_across_a_clear)
{
	struct upmc_profile *p = open_sim(NULL, NULL);
	char text[64] = "";

	ASSERT(p);
	upmc_zone_begin(&frame_loc);
	UPMC_ZONE_TEXT("level 2", 7);
	upmc_zone_begin(&physics_loc);
	UPMC_ZONE_TEXT("inner", 5);
	upmc_zone_end();
	ASSERT(upmc_profile_collect(p) == 1);
	upmc_profile_clear(p);
	upmc_zone_end();
	ASSERT(upmc_profile_zones(p, first_text, text) == 1);
	EXPECT(!strcmp(text, "level 2"));
	upmc_profile_close(p);
}

static void *name_before_open(void *arg)
{
	struct upmc_profile **p = arg;

	upmc_thread_name("audio mixer");
	while (!__atomic_load_n(p, __ATOMIC_ACQUIRE))
		sched_yield();
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	return NULL;
}

static int see_thread(const struct upmc_zone_info *z, void *arg)
{
	int *found = arg;

	*found += !strcmp(z->thread, "audio mixer") ? 1 : !strcmp(z->thread, "main") ? 10 : 100;
	return 0;
}

/* A thread named before a profile opens keeps its name in the profiles it
 * joins; so does one named by upmc_profile_thread(). */
TEST(zone, threads_named_before_the_profile_opens)
{
	struct upmc_profile *p = NULL, *open = NULL;
	pthread_t th;
	int found = 0;

	upmc_thread_name("main");
	ASSERT(pthread_create(&th, NULL, name_before_open, &open) == 0);
	p = open_sim(NULL, NULL);
	ASSERT(p);
	__atomic_store_n(&open, p, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	upmc_zone_begin(&frame_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_zones(p, see_thread, &found) == 2);
	EXPECT_EQ(found, 11);
	upmc_profile_close(p);
	/* the next profile: the name is remembered; NULL forgets it */
	p = open_sim(NULL, NULL);
	ASSERT(p);
	upmc_zone_begin(&frame_loc);
	upmc_zone_end();
	found = 0;
	ASSERT(upmc_profile_zones(p, see_thread, &found) == 1);
	EXPECT_EQ(found, 10);
	upmc_thread_name(NULL);
	found = 0;
	ASSERT(upmc_profile_zones(p, see_thread, &found) == 1);
	EXPECT_EQ(found, 100);
	upmc_profile_close(p);
}
