/* SPDX-License-Identifier: MIT */
/*
 * Everything a game may do to a streamed profile, at once, for a few
 * seconds: threads record nested zones (static and run-time names, text,
 * values, frame marks, a page-fault count of their own in each zone),
 * come and go and rename themselves, while another thread walks the zones,
 * writes every export and clears, and another flushes the stream and
 * starts it again into new files. Then every file is decoded and checked
 * against what the threads recorded, zone by zone: each zone streamed
 * once, on its own thread, with its own name, text, value, times and
 * counts; each file balanced; and what is in the files plus what the files
 * count as dropped is every zone made.
 *
 * UPMC_STRESS_SECONDS sets the time (default 3); UPMC_STRESS_SKIP leaves
 * out some uses, to tell which one a failure needs: any of "walk"
 * (upmc_profile_zones()), "export", "clear", "restart" (streams ended and
 * started again), e.g. UPMC_STRESS_SKIP=clear,restart.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <upmc/zone.h>

#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

#define STEADY_THREADS 3
#define MAX_THREADS    256 /* steady and short-lived, over the whole run */
#define MAX_FILES      64
#define REGION_PAGES   64
#define PAGE           4096
#define NAMES          16 /* run-time names: "request 0" .. "request 15" */
#define TEXT_BYTES     24
#define NOT_COUNTED    (-1ll)
#ifdef __SANITIZE_THREAD__
#define EXTRA_FAULTS 16 /* and ThreadSanitizer's shadow and traces */
#else
#define EXTRA_FAULTS 2
#endif
/* Each block of a thread's buffer: small, so that the steady threads fill
 * theirs and grow them (a frame is about 330 bytes: a block holds about
 * 200) in most runs, however slowly they run; large enough that the
 * collector makes a spare while a thread fills half of one. Blocks come
 * from fresh mappings (glibc's threshold fixed below them, not raised by
 * the blocks freed before), so that a block the library made inside a zone
 * would count every page. */
#define BLOCK_BYTES (64u << 10)

static const struct upmc_zone_loc frame_loc = {"frame", "frame", "stress.c", 1};
static const struct upmc_zone_loc physics_loc = {"physics", "frame", "stress.c", 2};
static const struct upmc_zone_loc job_loc = {"job", "job", "stress.c", 3};
static const struct upmc_zone_loc request_site = {"request", "request", "stress.c", 4};

/* ---- the ground truth: what each thread recorded ---- */

struct made_zone {
	uint64_t id; /* its value, unique */
	char name[16];
	char text[TEXT_BYTES]; /* "" for none */
	unsigned depth;
	uint64_t parent;  /* its parent's id; 0 at depth 0 */
	long long faults; /* the pages it faulted in, its children's included */
	uint64_t begin_lo, begin_hi, end_lo, end_hi; /* CLOCK_MONOTONIC_RAW, brackets */
	int seen;                                    /* times found in the files */
};

struct recorder {
	unsigned no; /* 1-based */
	pid_t tid;
	int steady;
	struct made_zone *zone;
	size_t n, cap;
	unsigned frames;
	char *region; /* REGION_PAGES pages faulted in afresh every frame */
	unsigned next_page;
};

static struct {
	struct upmc_profile *p;
	int counted;               /* the page-faults counter opened */
	uint64_t open_lo, open_hi; /* CLOCK_MONOTONIC_RAW around the open */
	atomic_int stop;
	pthread_mutex_t lock; /* recorders[], files[] */
	/* A clear while no stream runs forgets zones that no file will have,
	 * as it should: the test clears only while a stream runs. */
	pthread_mutex_t restart;
	struct recorder *recorders[MAX_THREADS];
	unsigned n_recorders;
	char files[MAX_FILES][300];
	uint64_t started[MAX_FILES]; /* ns since the open, each stream's start */
	unsigned n_files;
	char why[512];            /* the first failure of a helper thread */
	_Atomic uint64_t actions; /* exports, walks, clears, flushes, restarts */
} stress;

/* Whether UPMC_STRESS_SKIP names this use. */
static int skipped(const char *use)
{
	const char *list = getenv("UPMC_STRESS_SKIP");

	return list && strstr(list, use);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fail_once(const char *fmt, const char *arg, int err)
{
	pthread_mutex_lock(&stress.lock);
	if (!stress.why[0])
		snprintf(stress.why, sizeof(stress.why), fmt, arg, err, upmc_last_error());
	pthread_mutex_unlock(&stress.lock);
}

/* Room for a frame's zones, made before the frame: a page of the test's
 * own faulted in inside a zone would count in it. */
static void reserve(struct recorder *r, size_t more)
{
	if (r->n + more > r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		r->zone = realloc(r->zone, cap * sizeof(*r->zone));
		if (!r->zone)
			abort();
		memset(r->zone + r->cap, 0, (cap - r->cap) * sizeof(*r->zone));
		r->cap = cap;
	}
}

static struct made_zone *new_zone(struct recorder *r)
{
	memset(&r->zone[r->n], 0, sizeof(r->zone[0]));
	return &r->zone[r->n++];
}

/* A store of user space (the counter counts those alone) that no
 * sanitizer instruments, so that a page costs one fault and no shadow
 * memory's. */
static void touch(char *page)
{
#if defined(__x86_64__)
	__asm__ volatile("movb $1, (%0)" : : "r"(page) : "memory");
#elif defined(__aarch64__)
	__asm__ volatile("strb wzr, [%0]" : : "r"(page) : "memory");
#else
	*(volatile char *)page = 1;
#endif
}

/* Faults in `pages` fresh pages. */
static void fault_pages(struct recorder *r, unsigned pages)
{
	while (pages--)
		touch(r->region + (size_t)(r->next_page++ % REGION_PAGES) * PAGE);
}

/* A zone of the recorder's: begins it, with what the test expects of it. */
static size_t zone_begin(struct recorder *r, const struct upmc_zone_loc *loc, int dynamic,
                         unsigned depth, size_t parent)
{
	struct made_zone *z = new_zone(r);
	size_t k = r->n - 1;

	z->id = ((uint64_t)r->no << 32) | r->n;
	z->depth = depth;
	z->parent = depth ? r->zone[parent].id : 0;
	if (dynamic)
		snprintf(z->name, sizeof(z->name), "request %u", (unsigned)(z->id % NAMES));
	else
		snprintf(z->name, sizeof(z->name), "%s", loc->name);
	if (z->id % 3 == 0)
		snprintf(z->text, sizeof(z->text), "text %llu", (unsigned long long)z->id);
	z->begin_lo = now_ns();
	if (dynamic)
		upmc_zone_begin_name(&request_site, z->name);
	else
		upmc_zone_begin(loc);
	r->zone[k].begin_hi = now_ns();
	return k;
}

/* Its end: its text and value, its own faults, then the end. */
static void zone_end(struct recorder *r, size_t k, unsigned own_faults)
{
	struct made_zone *z = &r->zone[k];

	if (z->text[0])
		upmc_zone_text(z->text, strlen(z->text));
	upmc_zone_value(z->id);
	fault_pages(r, own_faults);
	z->faults += own_faults;
	if (z->depth)
		for (size_t j = k; j--;)
			if (r->zone[j].id == z->parent) {
				r->zone[j].faults += z->faults;
				break;
			}
	z->end_lo = now_ns();
	upmc_zone_end();
	z->end_hi = now_ns();
}

/* A frame: frame { physics { request { } } job } ; faults of 0 to 5
 * pages each, a frame mark after it. */
static void one_frame(struct recorder *r)
{
	unsigned f = r->frames++;
	size_t frame, physics, request, job;

	reserve(r, 4);
	syscall(SYS_madvise, r->region, (size_t)REGION_PAGES * PAGE, MADV_DONTNEED);
	frame = zone_begin(r, &frame_loc, 0, 0, 0);
	physics = zone_begin(r, &physics_loc, 0, 1, frame);
	request = zone_begin(r, NULL, 1, 2, physics);
	zone_end(r, request, f % 3);
	zone_end(r, physics, 1 + f % 4);
	job = zone_begin(r, &job_loc, 0, 1, frame);
	zone_end(r, job, f % 2 ? 5 : 0);
	zone_end(r, frame, 2);
	upmc_frame_mark();
}

static struct recorder *new_recorder(int steady)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	r->steady = steady;
	r->region = mmap(NULL, (size_t)REGION_PAGES * PAGE, PROT_READ | PROT_WRITE,
	                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->region == MAP_FAILED)
		abort();
	madvise(r->region, (size_t)REGION_PAGES * PAGE, MADV_NOHUGEPAGE);
	pthread_mutex_lock(&stress.lock);
	if (stress.n_recorders < MAX_THREADS) {
		r->no = stress.n_recorders + 1;
		stress.recorders[stress.n_recorders++] = r;
	}
	pthread_mutex_unlock(&stress.lock);
	if (!r->no) {
		munmap(r->region, (size_t)REGION_PAGES * PAGE);
		free(r);
		return NULL;
	}
	return r;
}

static void *record(void *arg)
{
	struct recorder *r = arg;
	char name[32];

	r->tid = (pid_t)syscall(SYS_gettid);
	snprintf(name, sizeof(name), "%s %u", r->steady ? "game" : "job", r->no);
	upmc_thread_name(name);
	while (r->steady ? !atomic_load(&stress.stop) : r->frames < 20) {
		one_frame(r);
		if (r->frames % 50 == 0) { /* a rename now and then */
			snprintf(name, sizeof(name), "%s %u.%u", r->steady ? "game" : "job", r->no,
			         r->frames / 50);
			upmc_thread_name(name);
		}
		usleep(100);
	}
	munmap(r->region, (size_t)REGION_PAGES * PAGE);
	return NULL;
}

/* Short-lived threads, one or two at a time, every few milliseconds. */
static void *churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stress.stop)) {
		pthread_t t[2];
		int n = 0;
		for (int k = 0; k < 2; k++) {
			struct recorder *r = new_recorder(0);
			if (r && pthread_create(&t[n], NULL, record, r) == 0)
				n++;
		}
		while (n--)
			pthread_join(t[n], NULL);
		usleep(20000);
	}
	return NULL;
}

/* ---- the other users of the profile ---- */

static int count_zone(const struct upmc_zone_info *z, void *arg)
{
	(*(uint64_t *)arg) += z->n;
	return 0;
}

/* Walks the zones, writes every export, and clears, over and over. */
static void *read_and_clear(void *arg)
{
	static const enum upmc_format formats[] = {UPMC_FORMAT_TABLE, UPMC_FORMAT_JSON,
	                                           UPMC_FORMAT_CHROME, UPMC_FORMAT_PERFETTO,
	                                           UPMC_FORMAT_SPEEDSCOPE};
	FILE *null = fopen("/dev/null", "w");
	unsigned round = 0;

	(void)arg;
	if (!null)
		abort();
	while (!atomic_load(&stress.stop)) {
		uint64_t sink = 0;
		struct upmc_profile_stats st;
		int err = skipped("walk") ? 0 : upmc_profile_zones(stress.p, count_zone, &sink);
		if (err < 0)
			fail_once("upmc_profile_zones%s: %d: %s", "", err);
		err = skipped("export") ? 0
		                        : upmc_profile_write(stress.p, formats[round % 5], null);
		if (err < 0)
			fail_once("upmc_profile_write%s: %d: %s", "", err);
		if (upmc_profile_stats(stress.p, &st) < 0)
			fail_once("upmc_profile_stats%s: %d: %s", "", -1);
		if (round % 4 == 3 && !skipped("clear")) {
			pthread_mutex_lock(&stress.restart);
			upmc_profile_clear(stress.p);
			pthread_mutex_unlock(&stress.restart);
		}
		round++;
		stress.actions++;
		usleep(2000);
	}
	fclose(null);
	return NULL;
}

static void stream_to_next_file(void)
{
	char *path = stress.files[stress.n_files];
	int err;

	snprintf(path, sizeof(stress.files[0]), "%s/stress.%d.%u.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", (int)getpid(),
	         stress.n_files);
	stress.started[stress.n_files] = now_ns() - stress.open_lo;
	err = upmc_profile_stream(stress.p, path, 5);
	if (err < 0)
		fail_once("upmc_profile_stream(%s): %d: %s", path, err);
	else
		stress.n_files++;
}

/* Flushes the stream, and every so often ends it and streams to a new file. */
static void *flush_and_restart(void *arg)
{
	unsigned round = 0;

	(void)arg;
	while (!atomic_load(&stress.stop)) {
		int err = upmc_profile_stream_flush(stress.p);
		if (err < 0)
			fail_once("upmc_profile_stream_flush%s: %d: %s", "", err);
		if (++round % 25 == 0 && stress.n_files < MAX_FILES && !skipped("restart")) {
			pthread_mutex_lock(&stress.restart);
			err = upmc_profile_stream_end(stress.p);
			if (err < 0)
				fail_once("upmc_profile_stream_end%s: %d: %s", "", err);
			stream_to_next_file();
			pthread_mutex_unlock(&stress.restart);
		}
		stress.actions++;
		usleep(3000);
	}
	return NULL;
}

/* ---- the files read back ---- */

struct tally {
	uint64_t zones, frames, dropped, dropped_frames;
	uint64_t open_at_ends; /* zones open when a stream ended (open_zones) */
	unsigned problems;
	/* slices whose ancestors began in an earlier file: their depth in
	 * the file is less than recorded */
	struct shallow {
		struct made_zone *z;
		unsigned depth;
	} * shallow;
	size_t n_shallow, cap_shallow;
};

static void add_shallow(struct tally *t, struct made_zone *z, unsigned depth)
{
	if (t->n_shallow == t->cap_shallow) {
		t->cap_shallow = t->cap_shallow ? 2 * t->cap_shallow : 64;
		t->shallow = realloc(t->shallow, t->cap_shallow * sizeof(*t->shallow));
		if (!t->shallow)
			abort();
	}
	t->shallow[t->n_shallow].z = z;
	t->shallow[t->n_shallow++].depth = depth;
}

static struct made_zone *zone_of(uint64_t id)
{
	uint64_t no = id >> 32, k = id & 0xffffffffu;
	struct recorder *r;

	if (no < 1 || no > stress.n_recorders)
		return NULL;
	r = stress.recorders[no - 1];
	return k >= 1 && k <= r->n && r->zone[k - 1].id == id ? &r->zone[k - 1] : NULL;
}

static struct recorder *recorder_of_tid(unsigned long long tid)
{
	for (unsigned i = stress.n_recorders; i--;)
		if ((unsigned long long)stress.recorders[i]->tid == tid)
			return stress.recorders[i];
	return NULL;
}

#define PROBLEM(t, ...)                             \
	do {                                        \
		if ((t)->problems++ < 12)           \
			EXPECT_MSG(0, __VA_ARGS__); \
	} while (0)

/* One slice end against what was recorded: its begin is `b`; `claim` is
 * the parent its children's ends named (0: none), and *parent_claim the
 * same of its own parent, which it names in turn. */
static void check_slice(struct tally *t, const char *file, const struct pb_trace *tr,
                        const struct pb_event *b, const struct pb_event *e, unsigned depth,
                        uint64_t claim, uint64_t *parent_claim)
{
	const struct pb_annotation *value = pb_annotation(e, "value");
	const struct pb_annotation *text = pb_annotation(e, "text");
	const struct pb_track *track = pb_track_of(tr, e->track);
	struct made_zone *z = value && value->is_uint ? zone_of(value->u) : NULL;
	uint64_t slack = 2000000 + (e->ts / 100); /* 2 ms + 1%: two clocks */

	if (!z) {
		PROBLEM(t, "%s: a slice end at %llu ns with no zone's value", file, e->ts);
		return;
	}
	if (z->seen++)
		PROBLEM(t, "%s: zone %llx (%s) is in the files twice", file,
		        (unsigned long long)z->id, z->name);
	if (strcmp(b->name, z->name) || depth > z->depth)
		PROBLEM(t, "%s: zone %llx: begin '%s' at depth %u, recorded '%s' at %u", file,
		        (unsigned long long)z->id, b->name, depth, z->name, z->depth);
	else if (depth < z->depth) /* checked once every file is read */
		add_shallow(t, z, depth);
	if (claim && claim != z->id)
		PROBLEM(t, "%s: zone %llx (%s) holds zones recorded in %llx", file,
		        (unsigned long long)z->id, z->name, (unsigned long long)claim);
	if (parent_claim && *parent_claim && *parent_claim != z->parent)
		PROBLEM(t, "%s: zone %llx (%s) beside zones of another parent", file,
		        (unsigned long long)z->id, z->name);
	if (parent_claim)
		*parent_claim = z->parent;
	if (strcmp(text && text->str ? text->str : "", z->text))
		PROBLEM(t, "%s: zone %llx: text '%s', recorded '%s'", file,
		        (unsigned long long)z->id, text && text->str ? text->str : "", z->text);
	if (!track || recorder_of_tid(track->tid) != stress.recorders[(z->id >> 32) - 1])
		PROBLEM(t, "%s: zone %llx on thread %llu, not its own", file,
		        (unsigned long long)z->id, track ? track->tid : 0ull);
	if (b->ts + slack < z->begin_lo - stress.open_hi ||
	    b->ts > z->begin_hi - stress.open_lo + slack ||
	    e->ts + slack < z->end_lo - stress.open_hi ||
	    e->ts > z->end_hi - stress.open_lo + slack)
		PROBLEM(t, "%s: zone %llx (%s): %llu..%llu ns, recorded within %llu..%llu ns", file,
		        (unsigned long long)z->id, z->name, b->ts, e->ts,
		        (unsigned long long)(z->begin_lo - stress.open_hi),
		        (unsigned long long)(z->end_hi - stress.open_lo));
	if (stress.counted) {
		long long faults = b->n_values == 1 && e->n_values == 1 ? e->value[0] - b->value[0]
		                                                        : NOT_COUNTED;
		/* a fault of the library's own (a new block, a stack page) may
		 * land inside a zone: a few more, never fewer */
		if (faults < z->faults || faults > z->faults + EXTRA_FAULTS)
			PROBLEM(t, "%s: zone %llx (%s): %lld page faults, it made %lld", file,
			        (unsigned long long)z->id, z->name, faults, z->faults);
	}
	t->zones++;
}

/* Drop counts stay whole across appends, and a clear forgets those shown
 * before it: each rise is new drops, each fall a clear. */
static void take_drops(uint64_t *total, uint64_t *last, uint64_t now)
{
	*total += now >= *last ? now - *last : now;
	*last = now;
}

/* A zone open when its stream ended has its begin in that file and no end
 * there, nor in any later file (docs/zones.md); the zones begun inside it
 * after the end are in the next file without it, shallower. So a slice
 * shallower than recorded must have only such ancestors above it. */
static void check_shallow(struct tally *t)
{
	for (size_t i = 0; i < t->n_shallow; i++) {
		struct made_zone *z = t->shallow[i].z, *a = z;
		/* the nearest ancestors are in the file (their ends' claims
		 * checked them); those above them must be in none */
		for (unsigned up = 1; up <= z->depth && a; up++) {
			a = zone_of(a->parent);
			if (up > t->shallow[i].depth && a && a->seen)
				PROBLEM(t,
				        "zone %llx (%s) is at depth %u of a file, outside %llx "
				        "(%s)",
				        (unsigned long long)z->id, z->name, t->shallow[i].depth,
				        (unsigned long long)a->id, a->name);
		}
	}
	free(t->shallow);
}

static void check_file(struct tally *t, const char *file, int last, uint64_t *last_dropped,
                       uint64_t *last_dropped_frames)
{
	uint64_t open_at_end = 0, unended = 0;
	static const struct pb_event *open[PB_MAX_TRACKS][8];
	static uint64_t open_id[PB_MAX_TRACKS][8];
	static unsigned depth[PB_MAX_TRACKS];
	static unsigned long long track_of[PB_MAX_TRACKS];
	size_t tracks = 0, i;
	char why[512];
	struct pb_trace tr;
	struct pb_node *tree;
	int unknown;

	memset(depth, 0, sizeof(depth));
	tree = pb_decode_file(file, &unknown, why, sizeof(why));
	if (!tree) {
		PROBLEM(t, "%s: %s", file, why);
		return;
	}
	if (pb_interpret(tree, &tr, why, sizeof(why)) < 0) {
		PROBLEM(t, "%s: %s", file, why);
		pb_free(tree);
		return;
	}
	for (i = 0; i < tr.n; i++) {
		const struct pb_event *e = &tr.ev[i];
		size_t k;
		if (e->type == 3 && !strcmp(e->name, "upmc")) {
			const struct pb_annotation *d = pb_annotation(e, "dropped_zones");
			const struct pb_annotation *f = pb_annotation(e, "dropped_frames");
			const struct pb_annotation *o = pb_annotation(e, "open_zones");
			take_drops(&t->dropped, last_dropped, d ? d->u : 0);
			take_drops(&t->dropped_frames, last_dropped_frames, f ? f->u : 0);
			open_at_end = o ? o->u : 0;
			continue;
		}
		if (e->type == 3) {
			t->frames += !strcmp(e->name, "frame");
			continue;
		}
		for (k = 0; k < tracks && track_of[k] != e->track; k++)
			;
		if (k == tracks) {
			if (tracks == PB_MAX_TRACKS) {
				PROBLEM(t, "%s: more than %d threads", file, PB_MAX_TRACKS);
				break;
			}
			track_of[tracks++] = e->track;
		}
		if (e->type == 1) {
			if (depth[k] == 8) {
				PROBLEM(t, "%s: zones nested deeper than recorded", file);
				continue;
			}
			open[k][depth[k]] = e;
			open_id[k][depth[k]++] = 0;
		} else if (e->type == 2 && !depth[k]) {
			PROBLEM(t, "%s: a slice end at %llu ns with no begin", file, e->ts);
		} else if (e->type == 2) {
			/* a parent's id is on its end, after its children's */
			unsigned d = --depth[k];
			check_slice(t, file, &tr, open[k][d], e, d, open_id[k][d],
			            d ? &open_id[k][d - 1] : NULL);
		}
	}
	/* begins with no end: zones open when the stream ended, no more
	 * than it counted so; none in the last file, written once every
	 * thread had exited */
	for (i = 0; i < tracks; i++)
		unended += depth[i];
	if (last ? unended != 0 : unended > open_at_end)
		PROBLEM(t, "%s: %llu slice begins with no end, %llu zones open at its end", file,
		        (unsigned long long)unended, (unsigned long long)open_at_end);
	t->open_at_ends += open_at_end;
	pb_trace_free(&tr);
	pb_free(tree);
}

/* Whether a stream started between from and to (ns since the open). */
static int restarted_within(uint64_t from, uint64_t to)
{
	for (unsigned k = 1; k < stress.n_files; k++)
		if (stress.started[k] >= from && stress.started[k] <= to)
			return 1;
	return 0;
}

/* The zones in no file (open at a stream's end, or lost), to tell which. */
static void print_unseen(void)
{
	unsigned shown = 0;

	for (unsigned k = 0; k < stress.n_recorders; k++) {
		struct recorder *r = stress.recorders[k];
		for (size_t i = 0; i < r->n && shown < 16; i++) {
			const struct made_zone *z = &r->zone[i];
			/* on stress.started[]'s clock: since open_lo, not widened
			 * by the open's own time (tens of milliseconds) */
			uint64_t from = z->begin_lo - stress.open_lo,
			         to = z->end_hi - stress.open_lo;
			if (!z->seen && ++shown)
				printf("in no file: zone %llx (%s, depth %u) of %s thread %u, "
				       "%llu..%llu ns%s\n",
				       (unsigned long long)z->id, z->name, z->depth,
				       r->steady ? "steady" : "short-lived", r->no,
				       (unsigned long long)from, (unsigned long long)to,
				       restarted_within(from, to) ? ", across a stream's restart"
				                                  : "");
		}
	}
}

/* ---- the test ---- */

static void run_for(unsigned seconds)
{
	pthread_t steady[STEADY_THREADS], churner, reader, flusher;
	unsigned k;

	for (k = 0; k < STEADY_THREADS; k++)
		if (pthread_create(&steady[k], NULL, record, new_recorder(1)) != 0)
			abort();
	if (pthread_create(&churner, NULL, churn, NULL) != 0 ||
	    pthread_create(&reader, NULL, read_and_clear, NULL) != 0 ||
	    pthread_create(&flusher, NULL, flush_and_restart, NULL) != 0)
		abort();
	sleep(seconds);
	atomic_store(&stress.stop, 1);
	for (k = 0; k < STEADY_THREADS; k++)
		pthread_join(steady[k], NULL);
	pthread_join(churner, NULL);
	pthread_join(reader, NULL);
	pthread_join(flusher, NULL);
}

TEST(zone, a_stream_under_every_use_at_once_keeps_every_zone)
{
	struct upmc_profile_options counted = {sizeof(counted), 0, 0, BLOCK_BYTES, 0};
	struct upmc_profile_options o = {sizeof(o), UPMC_OPT_TIME_ONLY, 0, BLOCK_BYTES, 0};
	const char *env = getenv("UPMC_STRESS_SECONDS");
	unsigned seconds = env ? (unsigned)atoi(env) : 3;
	struct tally t = {0};
	uint64_t made = 0, frames = 0, last_dropped = 0, last_dropped_frames = 0;
	unsigned steady_frames = ~0u; /* the fewest of a steady thread */
	unsigned k;
	int err;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, BLOCK_BYTES / 2);
#endif
	pthread_mutex_init(&stress.lock, NULL);
	pthread_mutex_init(&stress.restart, NULL);
	stress.open_lo = now_ns();
	err = upmc_profile_open(&stress.p, "page-faults", &counted);
	stress.counted = err == 0;
	if (err < 0) { /* the zones are still checked, their counts not */
		printf("stress: page faults not counted (%s): time only\n", upmc_last_error());
		stress.open_lo = now_ns();
		err = upmc_profile_open(&stress.p, NULL, &o);
	}
	stress.open_hi = now_ns();
	ASSERT_MSG(err == 0, "%s", upmc_last_error());
	stream_to_next_file();
	ASSERT_MSG(!stress.why[0], "%s", stress.why);
	run_for(seconds ? seconds : 1);
	err = upmc_profile_stream_end(stress.p);
	EXPECT_MSG(err == 0, "upmc_profile_stream_end: %d: %s", err, upmc_last_error());
	upmc_profile_close(stress.p);
	EXPECT_MSG(!stress.why[0], "%s", stress.why);

	for (k = 0; k < stress.n_recorders; k++) {
		made += stress.recorders[k]->n;
		frames += stress.recorders[k]->frames;
		if (stress.recorders[k]->steady && stress.recorders[k]->frames < steady_frames)
			steady_frames = stress.recorders[k]->frames;
	}
	for (k = 0; k < stress.n_files; k++)
		check_file(&t, stress.files[k], k + 1 == stress.n_files, &last_dropped,
		           &last_dropped_frames);
	check_shallow(&t);
	printf("stress: %u s, %u threads, %llu zones and %llu frames made, %llu actions; "
	       "%u files: %llu zones (%llu dropped, %llu open at a stream's end), "
	       "%llu frames (%llu dropped); a steady thread made %u frames or more (a block "
	       "holds about 200)\n",
	       seconds, stress.n_recorders, (unsigned long long)made, (unsigned long long)frames,
	       (unsigned long long)stress.actions, stress.n_files, (unsigned long long)t.zones,
	       (unsigned long long)t.dropped, (unsigned long long)t.open_at_ends,
	       (unsigned long long)t.frames, (unsigned long long)t.dropped_frames, steady_frames);
	EXPECT_MSG(t.problems == 0, "%u problems in the files (the first 12 above)", t.problems);
	EXPECT_MSG(
	        t.zones + t.dropped + t.open_at_ends == made,
	        "%llu zones in the files + %llu dropped + %llu open at a stream's end, %llu made",
	        (unsigned long long)t.zones, (unsigned long long)t.dropped,
	        (unsigned long long)t.open_at_ends, (unsigned long long)made);
	EXPECT_MSG(t.frames + t.dropped_frames == frames,
	           "%llu frames in the files + %llu dropped, %llu made",
	           (unsigned long long)t.frames, (unsigned long long)t.dropped_frames,
	           (unsigned long long)frames);
	if (t.zones + t.dropped + t.open_at_ends != made)
		print_unseen();
	for (k = 0; k < stress.n_recorders; k++) {
		free(stress.recorders[k]->zone);
		free(stress.recorders[k]);
	}
}
