/* SPDX-License-Identifier: MIT */
/*
 * Zones: a thread's life in a profile. A thread joins the open profile at
 * its first zone (its state, its first block, its set), is named, exits
 * (its set closed, its records left for the collector), is retired once
 * collected, and is released at the close; fork() leaves the child none
 * of the parent's. The zone lock (a spin lock held for a few stores)
 * orders joining, exiting and the profile's opening and closing.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

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

_Thread_local struct upmc_zone_thread *upmc_zone_self ZONE_TLS = &no_thread;

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

/* Called by a zone while no profile is open, once set: `upmc stat
 * --zones`'s request (request.c), which opens one. While it is set,
 * upmc_zones_recording is 1 so that the first zone comes out of line. */
typedef void zone_first_fn(void);
static zone_first_fn *zone_first_zone;

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
	__atomic_store_n(&upmc_zones_recording, p != NULL || zone_first_zone, __ATOMIC_RELAXED);
}

void upmc_zone_on_first_zone(void (*fn)(void))
{
	zone_lock();
	__atomic_store_n(&zone_first_zone, fn, __ATOMIC_RELEASE);
	set_profile(zone_profile);
	zone_unlock();
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
	upmc_zone_free_spare(t);
	t->block = t->pos_block = NULL;
	t->halfway = NULL;
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
	t->read = set->snapshot;
	t->value_bytes = t->w * sizeof(uint64_t);
}

/* The name the thread gave itself (upmc_thread_name()), kept for every
 * profile it joins; "" when none. Out of line only. */
static _Thread_local char zone_thread_name[ZONE_THREAD_NAME];

static struct upmc_zone_thread *new_thread(struct upmc_profile *p, struct upmc_set *set)
{
	struct upmc_zone_thread *t = calloc(1, sizeof(*t));

	if (t)
		t->block = upmc_zone_new_block(p->block_bytes);
	if (!t || !t->block) {
		free(t);
		upmc_close(set);
		upmc_fail(-ENOMEM, "out of memory allocating a thread's zone buffer");
		return NULL;
	}
	/* The first block is given even past max_bytes: a thread can always join. */
	upmc_zone_note_peak(&p->memory,
	                    __atomic_add_fetch(&p->memory.bytes, p->block_bytes, __ATOMIC_RELAXED));
	t->memory = &p->memory;
	t->block_bytes = p->block_bytes;
	t->names = &p->names;
	take_set(p, t, set);
	upmc_zone_enter_block(t, t->block);
	t->next = t->consumed = t->pos = t->block->word;
	t->pos_block = t->block;
	t->serialized = !!(p->profile_flags & UPMC_PROFILE_SERIALIZED);
	t->endable = p->for_request;
	t->tid = upmc_os_thread_id();
	if (zone_thread_name[0])
		upmc_format(t->name, sizeof(t->name), "%s", zone_thread_name);
	else
		upmc_format(t->name, sizeof(t->name), "thread %llu", (unsigned long long)t->tid);
	upmc_zone_set_limit(t);
	return t;
}

/*
 * A thread of an ended profile (upmc_zone_end_profile()) leaves it at its
 * next call: its state there is finished, as if it had exited (every
 * record it wrote is whole: the report at the process's exit reads them
 * all, and the collector frees the state), and the thread starts afresh.
 */
static void leave_ended(void)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	struct upmc_set *set;

	upmc_os_at_thread_exit(zone_thread_exit, NULL);
	zone_lock();
	set = t->set;
	t->set = NULL;
	t->state = ZONE_FINISHED;
	/* Pairs with the collector's acquire load before it reads t->next. */
	__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	upmc_zone_self = &no_thread; /* before the unlock: the collector may free t */
	zone_unlock();
	upmc_close(set);
}

/* A parked state (of a profile closed while the thread lived) is the
 * thread's own: no list holds it, and the thread frees it. An ended one
 * goes back to its profile's collector. */
static void unpark_self(void)
{
	if (upmc_zone_self->state == ZONE_ENDED)
		leave_ended();
	if (upmc_zone_self->state != ZONE_PARKED)
		return;
	upmc_os_at_thread_exit(zone_thread_exit, NULL);
	free_thread(upmc_zone_self);
	upmc_zone_self = &no_thread;
}

/* The calling thread's new state for p with set (NULL: opened here; closed
 * on failure), its exit call in place, not yet among p's threads. */
int upmc_zone_prepare_thread(struct upmc_profile *p, struct upmc_set *set,
                             struct upmc_zone_thread **out)
{
	struct upmc_zone_thread *t;
	int err;

	if (upmc_zone_self->state == ZONE_FINISHED) {
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

static int profile_busy(void)
{
	return upmc_fail(-EBUSY, "a profile is already open: close it first");
}

int upmc_zone_check_no_profile(void)
{
	/* The calling thread may be the open profile's. */
	if (open_profile() || upmc_zone_self->state == ZONE_ATTACHED)
		return profile_busy();
	return 0;
}

/* The opener joins before any other thread can see the profile: once it
 * is seen, nothing can fail. */
int upmc_zone_publish(struct upmc_profile *p, struct upmc_zone_thread *opener)
{
	int err = 0;

	zone_lock();
	if (zone_profile) {
		err = profile_busy();
	} else {
		p->serial = ++zone_opens;
		join_profile(p, opener);
		set_profile(p);
	}
	zone_unlock();
	if (err < 0) {
		drop_thread(opener);
		return err;
	}
	upmc_zone_self = opener;
	return 0;
}

/* No thread joins p from now on: attach() finds it closed. */
void upmc_zone_unpublish(struct upmc_profile *p)
{
	zone_lock();
	if (zone_profile == p)
		set_profile(NULL);
	zone_unlock();
}

/*
 * `upmc stat --zones`'s profile p, ended for the program's own (request.c),
 * from any thread: no thread joins it from now on, and each live one leaves
 * it at its next zone call (its limit 0: out of line) or at its exit
 * (leave_ended()). Nothing is freed: a thread may be inside a call now.
 * p stays open for its report at the process's exit.
 */
void upmc_zone_end_profile(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;

	zone_lock();
	if (zone_profile == p)
		set_profile(NULL);
	for (t = p->first; t; t = t->link) {
		if (t->state != ZONE_ATTACHED)
			continue;
		/* In this order, against upmc_zone_set_limit()'s store of the
		 * limit, then its load of the state. */
		__atomic_store_n(&t->state, ZONE_ENDED, __ATOMIC_SEQ_CST);
		__atomic_store_n(&t->limit, 0, __ATOMIC_SEQ_CST);
	}
	zone_unlock();
}

/* Joins the calling thread to p, if p is still open. */
static int attach(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;
	int err = upmc_zone_prepare_thread(p, NULL, &t);

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
	upmc_zone_self = t;
	return 0;
}

/* The calling thread's state for recording, joined to the open profile at
 * its first call; NULL when no profile is open, the thread exited or it
 * could not join this profile. */
struct upmc_zone_thread *upmc_zone_recording_thread(void)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	struct upmc_profile *p;
	uint64_t serial;

	/* Relaxed: upmc_zone_end_profile() may store ZONE_ENDED from another
	 * thread; the same one load as a plain one. */
	if (__atomic_load_n(&t->state, __ATOMIC_RELAXED) == ZONE_ATTACHED)
		return t;
	/* No lock: zones compiled in while no profile is open cost little. */
	p = open_profile();
	if (!p && t->state != ZONE_FINISHED &&
	    __atomic_load_n(&zone_first_zone, __ATOMIC_ACQUIRE)) {
		zone_first_fn *first = __atomic_load_n(&zone_first_zone, __ATOMIC_ACQUIRE);
		if (first)
			first(); /* the opener joins its profile there */
		if (upmc_zone_self->state == ZONE_ATTACHED)
			return upmc_zone_self;
		p = open_profile();
	}
	if (!p || t->state == ZONE_FINISHED)
		return NULL;
	serial = p->serial;
	if (serial == zone_join_failed)
		return NULL;
	if (attach(p) < 0) {
		zone_join_failed = serial;
		return NULL;
	}
	return upmc_zone_self;
}

/* At the thread's exit: its records are all written; its set goes. */
static void zone_thread_exit(void *arg)
{
	struct upmc_zone_thread *t = arg;
	struct upmc_set *set = NULL;
	enum zone_state state;

	/* The call registered is for upmc_zone_self, except in a forked child,
	 * where the state went to the parent's profile (fork_child()). */
	if (t != upmc_zone_self)
		return;
	zone_lock();
	state = t->state;
	if (state == ZONE_ATTACHED || state == ZONE_ENDED) {
		set = t->set;
		t->set = NULL;
		t->state = ZONE_FINISHED;
		/* Pairs with the collector's acquire load before it reads t->next. */
		__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	}

	/* Before the unlock: from there a collector may retire and free t. */
	upmc_zone_self = (struct upmc_zone_thread *)&exited_thread; /* never written */
	zone_unlock();
	if (state == ZONE_PARKED)
		free_thread(t);
	upmc_close(set);
}

/* ---- fork() ---- */

/*
 * fork() (the core's handlers call these, once a profile has opened): the
 * locks are taken before it, in the order they nest (a stream's writing
 * lock, the collector's, then the zone lock), so that no thread the child
 * does not have holds one there.
 */
static void fork_prepare(void)
{
	upmc_os_stream_lock();
	upmc_zone_collector_lock();
	zone_lock();
}

static void fork_parent(void)
{
	zone_unlock();
	upmc_zone_collector_unlock();
	upmc_os_stream_unlock();
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
	int recording = upmc_zone_self->state == ZONE_ATTACHED;
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
		upmc_zone_self = &no_thread;
	zone_join_failed = 0;
	zone_unlock();
	upmc_zone_collector_unlock();
	upmc_os_stream_unlock();
}

static const struct upmc_fork_hook zone_fork_hook = {fork_prepare, fork_parent, fork_child};

int upmc_zone_watch_fork(void)
{
	int err = upmc_fork_hook_add(&zone_fork_hook);

	if (err == 0)
		upmc_os_watch_fork(); /* a time-only profile opens no set that would */
	return err;
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
void upmc_zone_retire_threads(struct upmc_profile *p)
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
		upmc_zone_keep_counts(p, t);
		if (p->at_retire)
			p->at_retire(p, t);
		free_thread(t);
	}
}

/*
 * At the close: a thread that exited is freed; a live one keeps a small
 * state until it records again or exits, since its next call looks there.
 * Its set is closed outside the zone lock, which the thread's exit takes
 * meanwhile (and finds no set to close).
 */
void upmc_zone_release_thread(struct upmc_zone_thread *t)
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

/* The zone lock keeps the list and the sets still: a joining or exiting
 * thread waits the few system calls, while zones take no lock. Every thread
 * is reset even when one fails; the first error is returned. */
int upmc_zone_reset_topdown(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;
	int err = 0, got;

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

/* The calling thread's state takes its name (zone_thread_name; "": its
 * id), under the collector's lock, which the exports read names under:
 * already held when the thread is in a upmc_profile_zones() callback. */
static void rename_self(void)
{
	struct upmc_zone_thread *t = upmc_zone_self;
	int held = upmc_zone_collector_held();

	if (!held)
		upmc_zone_collector_lock();
	if (zone_thread_name[0])
		memcpy(t->name, zone_thread_name, sizeof(t->name));
	else
		upmc_format(t->name, sizeof(t->name), "thread %llu", (unsigned long long)t->tid);
	if (!held)
		upmc_zone_collector_unlock();
}

UPMC_API int upmc_profile_thread(const char *name)
{
	struct upmc_profile *p;
	int err = 0;

	p = open_profile();
	if (!p)
		return upmc_fail(-ENOENT, "upmc_profile_thread: no profile is open");
	if (upmc_zone_self->state != ZONE_ATTACHED)
		err = attach(p);
	if (err == 0 && name) {
		cut_name(zone_thread_name, name);
		rename_self();
	}
	return err;
}

UPMC_API void upmc_thread_name(const char *name)
{
	zone_thread_name[0] = '\0';
	if (name)
		cut_name(zone_thread_name, name);
	if (upmc_zone_self->state != ZONE_ATTACHED)
		return; /* a profile it joins later takes the name */
	rename_self();
}
