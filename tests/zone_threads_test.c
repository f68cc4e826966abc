/* SPDX-License-Identifier: MIT */
/*
 * Zones on the real kernel, with software counters (this project's machines
 * have no PMU): every thread's set counts that thread only, counters are
 * collected while threads run and after they exit, and nothing stays open.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <upmc/zone.h>

#include "tests/linux_util.h"
#include "tests/upmc_test.h"

#define PAGES 512

static const struct upmc_zone_loc touch_loc = {"touch pages", "touch", "zone_threads_test.c", 1};
static const struct upmc_zone_loc idle_loc = {"idle", "idle", "zone_threads_test.c", 2};

struct worker {
	pthread_t thread;
	int touch; /* fault in PAGES fresh pages inside its zone */
	int frames;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	long page = 4096;
	int k;

	upmc_profile_thread(w->touch ? "toucher" : "idler");
	for (k = 0; k < w->frames; k++) {
		char *mem = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
		                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		long i;
		if (mem == MAP_FAILED)
			return NULL;
		upmc_zone_begin(w->touch ? &touch_loc : &idle_loc);
		for (i = 0; w->touch && i < PAGES; i++)
			mem[i * page] = 1;
		upmc_zone_end();
		munmap(mem, PAGES * page);
	}
	return NULL;
}

struct sums {
	uint64_t toucher_min, idler_max;
	unsigned touchers, idlers, not_counted;
};

static int sum(const struct upmc_zone_info *z, void *arg)
{
	struct sums *s = arg;

	if (z->delta[0] == UPMC_NOT_COUNTED) {
		s->not_counted++;
	} else if (!strcmp(z->thread, "toucher")) {
		s->touchers++;
		if (z->delta[0] < s->toucher_min)
			s->toucher_min = z->delta[0];
	} else if (!strcmp(z->thread, "idler")) {
		s->idlers++;
		if (z->delta[0] > s->idler_max)
			s->idler_max = z->delta[0];
	}
	return 0;
}

static atomic_int collecting; /* a flag between threads */

static void *collect_all_along(void *arg)
{
	while (collecting)
		upmc_profile_collect(arg);
	return NULL;
}

TEST(zone, each_thread_counts_its_own_page_faults)
{
	struct worker w[4] = {{0, 1, 50}, {0, 0, 50}, {0, 1, 50}, {0, 0, 50}};
	struct sums s = {UINT64_MAX, 0, 0, 0, 0};
	struct upmc_profile_stats st;
	struct upmc_profile *p;
	pthread_t collector;
	int fds = open_fd_count(), maps = perf_mapping_count(), k;

	ASSERT_MSG(upmc_profile_open(&p, "page-faults", NULL) == 0, "%s", upmc_last_error());
	collecting = 1;
	ASSERT(pthread_create(&collector, NULL, collect_all_along, p) == 0);
	for (k = 0; k < 4; k++)
		ASSERT(pthread_create(&w[k].thread, NULL, work, &w[k]) == 0);
	for (k = 0; k < 4; k++)
		pthread_join(w[k].thread, NULL);
	collecting = 0;
	pthread_join(collector, NULL);
	/* the threads exited: their last zones are collectable, their sets closed */
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.zones, 200);
	EXPECT_EQ(st.dropped, 0);
	EXPECT_EQ(st.threads, 5);
	EXPECT_EQ(upmc_profile_zones(p, sum, &s), 200);
	EXPECT_EQ(s.touchers, 100);
	EXPECT_EQ(s.idlers, 100);
	EXPECT_EQ(s.not_counted, 0);
	/* a toucher's zone has its own faults; an idler's, none of theirs */
	EXPECT_MSG(s.toucher_min >= PAGES, "a toucher's zone counted %llu faults",
	           (unsigned long long)s.toucher_min);
	EXPECT_MSG(s.idler_max < PAGES / 4, "an idler's zone counted %llu faults",
	           (unsigned long long)s.idler_max);
	upmc_profile_close(p);
	EXPECT_EQ(open_fd_count(), fds);
	EXPECT_EQ(perf_mapping_count(), maps);
}

/* A thread that records more than its buffer holds and collects its own
 * zones between them, so that the collector keeps up: its buffer grows
 * once, and the zones it records (none faults a page of its own) count
 * none of the library's page faults. Blocks come from fresh mappings:
 * glibc's threshold fixed, not raised by the blocks freed before. */
#define GROWER_ZONES 12000
#define GROWER_BLOCK (256u << 10) /* 65 pages, about 4,600 zones */
#define GROWER_FRAME 50           /* zones inside each outer one */
#ifdef __SANITIZE_THREAD__
/* ThreadSanitizer's shadow of the records written, and its traces, fault
 * in zones (18 pages in an outer zone of 100); a block is 65 pages. */
#define GROWER_EXTRA_FAULTS 32
#else
#define GROWER_EXTRA_FAULTS 0
#endif

struct grower {
	struct upmc_profile *p;
	uint64_t max_faults, zones;
};

static void *grow_while_recording(void *arg)
{
	struct grower *g = arg;
	int k;

	upmc_profile_thread("grower");
	for (k = 0; k < GROWER_ZONES; k++) {
		if (k % GROWER_FRAME == 0)
			upmc_zone_begin(&touch_loc); /* where a grown block's faults would count */
		upmc_zone_begin(&idle_loc);
		upmc_zone_value((uint64_t)k);
		upmc_zone_end();
		if (k % GROWER_FRAME == GROWER_FRAME - 1) {
			upmc_zone_end();
			upmc_profile_collect(g->p); /* between zones */
		}
	}
	return NULL;
}

static int most_faults(const struct upmc_zone_info *z, void *arg)
{
	struct grower *g = arg;

	if (!strcmp(z->thread, "grower") && z->delta[0] != UPMC_NOT_COUNTED) {
		g->zones++;
		if (z->delta[0] > g->max_faults)
			g->max_faults = z->delta[0];
	}
	return 0;
}

TEST(zone, a_buffer_that_grows_counts_in_no_zone)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, GROWER_BLOCK, 0};
	struct grower g = {0};
	uint64_t before = 0, peak = 0;
	pthread_t th;

#ifdef M_MMAP_THRESHOLD
	mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
	ASSERT_MSG(upmc_profile_open(&g.p, "page-faults", &o) == 0, "%s", upmc_last_error());
	upmc_profile_memory(g.p, &before, NULL);
	ASSERT(pthread_create(&th, NULL, grow_while_recording, &g) == 0);
	pthread_join(th, NULL);
	upmc_profile_memory(g.p, NULL, &peak);
	EXPECT_EQ(upmc_profile_zones(g.p, most_faults, &g),
	          GROWER_ZONES + GROWER_ZONES / GROWER_FRAME);
	EXPECT_EQ(g.zones, GROWER_ZONES + GROWER_ZONES / GROWER_FRAME);
	printf("a growing buffer: %llu bytes at most; a zone counted %llu page faults at most\n",
	       (unsigned long long)(peak - before), (unsigned long long)g.max_faults);
	EXPECT_MSG(peak - before >= 2 * GROWER_BLOCK, "the buffer never grew: %llu bytes",
	           (unsigned long long)(peak - before));
	EXPECT_MSG(g.max_faults <= GROWER_EXTRA_FAULTS, "a zone counted %llu page faults",
	           (unsigned long long)g.max_faults);
	upmc_profile_close(g.p);
}

TEST(zone, a_machine_without_counters_says_so)
{
	struct upmc_profile_options o = {sizeof(o), UPMC_OPT_TIME_ONLY, 0, 0, 0};
	struct upmc_profile *p;
	struct upmc_profile_stats st;
	struct sums s = {UINT64_MAX, 0, 0, 0, 0};
	struct worker w = {0, 1, 3};
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	/* cycles fails without a PMU, and opens time-only with the option */
	if (upmc_profile_open(&p, "cycles", NULL) == 0) {
		upmc_profile_close(p);
		if (f)
			fclose(f);
		free(text);
		SKIP("this machine counts cycles");
	}
	ASSERT_MSG(upmc_profile_open(&p, "cycles", &o) == 0, "%s", upmc_last_error());
	ASSERT(pthread_create(&w.thread, NULL, work, &w) == 0);
	pthread_join(w.thread, NULL);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.zones, 3);
	EXPECT_EQ(st.counters, 1);
	EXPECT_EQ(upmc_profile_zones(p, sum, &s), 3);
	EXPECT_EQ(s.not_counted, 3);
	/* the table says which threads, their names' control bytes escaped */
	ASSERT(upmc_profile_thread("main\x1b]0;title\x07") == 0);
	ASSERT(f && upmc_profile_print(p, f) == 0);
	fflush(f);
	EXPECT_CONTAINS(text, "not counted on main\\x1b]0;title\\x07, toucher: ");
	EXPECT(!strchr(text, '\x1b') && !strchr(text, '\x07'));
	fclose(f);
	free(text);
	upmc_profile_close(p);
}

static void *one_zone(void *arg)
{
	(void)arg;
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	return NULL;
}

static int all_counted(const struct upmc_zone_info *z, void *arg)
{
	unsigned i;

	for (i = 0; i < z->n; i++)
		*(unsigned *)arg += z->delta[i] == UPMC_NOT_COUNTED;
	return 0;
}

/* Any spec upmc_open() takes opens a profile, and every thread's set. */
TEST(zone, a_long_spec_opens_on_every_thread)
{
	char spec[32 * 16] = "";
	struct upmc_profile_stats st;
	struct upmc_profile *p;
	unsigned not_counted = 0;
	struct upmc_set *set;
	pthread_t t;
	int k;

	for (k = 0; k < 25; k++)
		strcat(spec, k ? ",task-clock:u" : "task-clock:u");
	ASSERT_MSG(upmc_open(&set, spec, NULL) == 0, "%s", upmc_last_error());
	upmc_close(set);
	ASSERT_MSG(upmc_profile_open(&p, spec, NULL) == 0, "%zu bytes: %s", strlen(spec),
	           upmc_last_error());
	ASSERT(pthread_create(&t, NULL, one_zone, NULL) == 0);
	pthread_join(t, NULL);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.counters, 25);
	EXPECT_EQ(st.zones, 1);
	EXPECT_EQ(upmc_profile_zones(p, all_counted, &not_counted), 1);
	EXPECT_EQ(not_counted, 0);
	upmc_profile_close(p);
}

/* Flags one thread raises and another waits for. */
struct flags {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int up[2];
};

#define FLAGS_INIT                                                   \
	{                                                            \
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, \
		{                                                    \
			0, 0                                         \
		}                                                    \
	}

static void raise_flag(struct flags *f, int i)
{
	pthread_mutex_lock(&f->lock);
	f->up[i] = 1;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
}

static void wait_flag(struct flags *f, int i)
{
	pthread_mutex_lock(&f->lock);
	while (!f->up[i])
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
}

enum { INSIDE, COLLECTING }; /* a slow visit's flags */

struct slow_visit {
	struct upmc_profile *p;
	struct flags flags;
	int collected;
	uint64_t wall_ns, cpu_ns;
};

/* Holds the collector until the other thread is collecting, and 100 ms more. */
static int visit_slowly(const struct upmc_zone_info *z, void *arg)
{
	struct slow_visit *v = arg;
	struct timespec pause = {0, 100 * 1000 * 1000};

	(void)z;
	raise_flag(&v->flags, INSIDE);
	wait_flag(&v->flags, COLLECTING);
	nanosleep(&pause, NULL);
	return 1;
}

static void *collect_meanwhile(void *arg)
{
	struct slow_visit *v = arg;
	uint64_t wall, cpu;

	wait_flag(&v->flags, INSIDE);
	wall = monotonic_raw_ns();
	cpu = thread_cpu_ns();
	raise_flag(&v->flags, COLLECTING);
	v->collected = upmc_profile_collect(v->p);
	v->cpu_ns = thread_cpu_ns() - cpu;
	v->wall_ns = monotonic_raw_ns() - wall;
	return NULL;
}

/* A collect that waits for another thread's upmc_profile_zones() (or an
 * export) sleeps: it uses next to no CPU time while it waits. */
TEST(zone, a_collector_waiting_for_another_sleeps)
{
	struct slow_visit v = {NULL, FLAGS_INIT, 0, 0, 0};
	pthread_t t;

	ASSERT(upmc_profile_open(&v.p, NULL, NULL) == 0);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	ASSERT(pthread_create(&t, NULL, collect_meanwhile, &v) == 0);
	EXPECT_EQ(upmc_profile_zones(v.p, visit_slowly, &v), 1);
	pthread_join(t, NULL);
	upmc_profile_close(v.p);
	EXPECT_EQ(v.collected, 0);
	if (v.wall_ns < 50 * 1000 * 1000)
		SKIP("the collect waited %llu ns only: the machine is too busy to tell",
		     (unsigned long long)v.wall_ns);
	EXPECT_MSG(v.cpu_ns < v.wall_ns / 10, "%llu ns of CPU time in %llu ns",
	           (unsigned long long)v.cpu_ns, (unsigned long long)v.wall_ns);
}

/* ---- fork() ---- */

static const char *collect_in_the_child(void *arg)
{
	struct upmc_profile *p = arg, *q;
	struct upmc_profile_stats st;

	alarm(20); /* a lock the parent's other thread held would never be let go */
	CHILD_CHECK(upmc_profile_collect(p) >= 0);
	CHILD_CHECK(upmc_profile_stats(p, &st) == 0);
	upmc_profile_close(p);
	CHILD_CHECK(upmc_profile_open(&q, NULL, NULL) == 0);
	upmc_profile_close(q);
	return NULL;
}

static void *visit_meanwhile(void *arg)
{
	struct slow_visit *v = arg;

	EXPECT_EQ(upmc_profile_zones(v->p, visit_slowly, v), 1);
	return NULL;
}

/* fork() while another thread holds the collector (in upmc_profile_zones'
 * function): the child can collect and close. */
TEST(zone, fork_while_another_thread_collects)
{
	struct slow_visit v = {NULL, FLAGS_INIT, 0, 0, 0};
	char why[256];
	pthread_t t;

	ASSERT(upmc_profile_open(&v.p, NULL, NULL) == 0);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	v.flags.up[COLLECTING] = 1; /* visit_slowly holds the collector 100 ms */
	ASSERT(pthread_create(&t, NULL, visit_meanwhile, &v) == 0);
	wait_flag(&v.flags, INSIDE);
	run_in_child(collect_in_the_child, v.p, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	pthread_join(t, NULL);
	upmc_profile_close(v.p);
}

enum { RECORDED, GO_ON }; /* a forking test's flags */

struct forking {
	struct upmc_profile *p;
	struct flags flags;
};

static void *record_across_a_fork(void *arg)
{
	struct forking *f = arg;

	upmc_zone_begin(&touch_loc);
	upmc_zone_end();
	raise_flag(&f->flags, RECORDED);
	wait_flag(&f->flags, GO_ON);
	upmc_zone_begin(&touch_loc); /* after the fork, in the parent */
	upmc_zone_end();
	return NULL;
}

static const char *records_nothing_into_the_parents(void *arg)
{
	struct upmc_profile *p = arg, *q;
	struct upmc_profile_stats st;

	/* the parent's zones, both threads' (the other one is not here) */
	CHILD_CHECK(upmc_profile_stats(p, &st) == 0);
	CHILD_CHECK(st.zones == 2 && st.threads == 2 && st.open == 0);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	upmc_frame_mark();
	CHILD_CHECK(upmc_profile_stats(p, &st) == 0);
	CHILD_CHECK(st.zones == 2 && st.frames == 0);
	/* no profile is open in the child: it may open its own */
	CHILD_CHECK(upmc_profile_thread("child") == -ENOENT);
	CHILD_CHECK(upmc_profile_open(&q, NULL, NULL) == 0);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	CHILD_CHECK(upmc_profile_stats(q, &st) == 0);
	CHILD_CHECK(st.zones == 1 && st.threads == 1);
	upmc_profile_close(q);
	upmc_profile_close(p);
	return NULL;
}

/* In a forked child the parent's profile is the parent's: the child's zones
 * are not recorded into it, the child can read and close it, and open its
 * own. The parent goes on as before. */
TEST(zone, a_forked_child_records_nothing_into_the_parents_profile)
{
	struct forking f = {NULL, FLAGS_INIT};
	struct upmc_profile_stats st;
	char why[256];
	pthread_t t;

	ASSERT(upmc_profile_open(&f.p, NULL, NULL) == 0);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	ASSERT(pthread_create(&t, NULL, record_across_a_fork, &f) == 0);
	wait_flag(&f.flags, RECORDED);
	run_in_child(records_nothing_into_the_parents, f.p, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	raise_flag(&f.flags, GO_ON);
	pthread_join(t, NULL);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_stats(f.p, &st) == 0);
	EXPECT_EQ(st.zones, 4);
	EXPECT_EQ(st.threads, 2);
	upmc_profile_close(f.p);
}

static const char *end_and_close_in_the_child(void *arg)
{
	struct upmc_profile *p = arg;
	struct upmc_profile_stats st;

	upmc_zone_end(); /* not recorded: the profile counts the parent */
	CHILD_CHECK(upmc_profile_stats(p, &st) == 0);
	CHILD_CHECK(st.zones == 0 && st.open == 1);
	upmc_profile_close(p);
	return NULL;
}

/* A zone open across fork() with a counter: the parent ends it, and its
 * own collect has it, counted, with no flush; the child's close changes
 * nothing in the parent, which goes on recording. */
TEST(zone, a_zone_open_across_fork_stays_in_the_parents_profile)
{
	struct sums s = {UINT64_MAX, 0, 0, 0, 0};
	struct upmc_profile_stats st;
	struct upmc_profile *p;
	char why[256];

	ASSERT_MSG(upmc_profile_open(&p, "task-clock", NULL) == 0, "%s", upmc_last_error());
	upmc_zone_begin(&idle_loc);
	run_in_child(end_and_close_in_the_child, p, why, sizeof(why));
	EXPECT_MSG(!why[0], "in the child: %s", why);
	upmc_zone_end();
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.zones, 1);
	EXPECT_EQ(st.open, 0);
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ(st.zones, 2);
	EXPECT_EQ(upmc_profile_zones(p, sum, &s), 2);
	EXPECT_EQ(s.not_counted, 0);
	upmc_profile_close(p);
}

/* In the child: ends it once the forking thread has exited (with _exit(),
 * which leaves the test runner's memory to the kernel). */
static pthread_t forking_thread;

static void *exit_after(void *arg)
{
	(void)arg;
	pthread_join(forking_thread, NULL);
	_exit(0);
}

static void *fork_and_exit_the_child_thread(void *arg)
{
	struct upmc_profile *p = arg;
	pid_t pid;
	int status = -1;

	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	pid = fork();
	if (pid == 0) {
		/* the child's only thread: its state goes with the parent's
		 * profile, and its exit call must not touch it */
		pthread_t waiter;
		forking_thread = pthread_self();
		upmc_profile_close(p);
		if (pthread_create(&waiter, NULL, exit_after, NULL) != 0)
			_exit(3);
		pthread_exit(NULL);
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		status = -1;
	return (void *)(intptr_t)status;
}

/* A thread that forks and ends its child with pthread_exit(): the child's
 * thread-exit call finds the state it had freed with the profile. */
TEST(zone, a_forked_thread_exits_in_the_child)
{
	struct upmc_profile *p;
	void *status;
	pthread_t t;

#ifdef __SANITIZE_THREAD__
	SKIP("ThreadSanitizer cannot join, in a forked child, a thread the parent started");
#endif
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	ASSERT(pthread_create(&t, NULL, fork_and_exit_the_child_thread, p) == 0);
	pthread_join(t, &status);
	EXPECT_MSG(WIFEXITED((int)(intptr_t)status) && WEXITSTATUS((int)(intptr_t)status) == 0,
	           "the child's status: 0x%x", (int)(intptr_t)status);
	upmc_profile_close(p);
}

/* Records zones with its thread's counter: a forking thread forks after
 * each of its zones, at the moment the other forking thread forks too; the
 * others record until told to stop. */
#define FORKS 20

struct fork_race {
	struct upmc_profile *p;
	pthread_barrier_t together; /* the two forking threads */
	atomic_int stop;
	int failed_children;
};

struct racer {
	struct fork_race *race;
	int forks;
};

static void *record_and_fork(void *arg)
{
	struct racer *r = arg;
	int k, status;

	for (k = 0; r->forks ? k < r->forks : !atomic_load(&r->race->stop); k++) {
		upmc_zone_begin(&idle_loc);
		upmc_zone_end();
		if (k < r->forks) {
			pid_t pid;
			pthread_barrier_wait(&r->race->together);
			pid = fork();
			if (pid == 0)
				_exit(0);
			if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			    WEXITSTATUS(status) != 0)
				__atomic_add_fetch(&r->race->failed_children, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* Two threads that fork at the same moment while four record zones with a
 * counter: each fork's handlers run on their own thread's count of the
 * zone layer's handlers, with nothing shared between the two unguarded
 * (ThreadSanitizer checks it: bazel test --config=tsan). */
TEST(zone, two_threads_fork_at_once_while_four_record)
{
	struct fork_race race = {0};
	struct racer r[4] = {{&race, FORKS}, {&race, FORKS}, {&race, 0}, {&race, 0}};
	struct upmc_profile_stats st;
	pthread_t t[4];
	int k;

	ASSERT_MSG(upmc_profile_open(&race.p, "task-clock", NULL) == 0, "%s", upmc_last_error());
	ASSERT(pthread_barrier_init(&race.together, NULL, 2) == 0);
	for (k = 0; k < 4; k++)
		ASSERT(pthread_create(&t[k], NULL, record_and_fork, &r[k]) == 0);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	atomic_store(&race.stop, 1);
	pthread_join(t[2], NULL);
	pthread_join(t[3], NULL);
	pthread_barrier_destroy(&race.together);
	EXPECT_EQ(race.failed_children, 0);
	ASSERT(upmc_profile_stats(race.p, &st) == 0);
	EXPECT_EQ(st.open, 0);
	EXPECT_EQ(st.dropped, 0);
	EXPECT_MSG(st.zones >= 2 * FORKS, "%llu zones", (unsigned long long)st.zones);
	upmc_profile_close(race.p);
}
