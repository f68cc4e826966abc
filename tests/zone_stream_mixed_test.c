/* SPDX-License-Identifier: MIT */
/*
 * A stream beside the profile's other functions, as a program combines
 * them: exports and upmc_profile_zones() between appends, a clear, a
 * stream ended with a zone open and another begun, a forked child, a
 * callback that names its thread, a stream opened on a FIFO no one reads
 * yet, threads renamed and threads of the same name one after another.
 * Each file is decoded with protoc and checked zone by zone against what
 * the test recorded: every slice's name, text, value and instructions
 * count, each zone once, no end without its begin. Exact counts from the
 * simulated kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

#define AN_HOUR   3600000 /* ms: the stream's own thread never appends in a test */
#define MAX_ZONES 256

static const struct upmc_zone_loc outer_loc = {"outer", "loop", "game.c", 10};
static const struct upmc_zone_loc inner_loc = {"inner", "loop", "game.c", 20};

/* ---- the truth: what the test recorded ---- */

struct made {
	const struct upmc_zone_loc *loc;
	uint64_t c0;
	long long delta; /* instructions between begin and end; -1 while open */
};

static struct made made[MAX_ZONES];
static int n_made, open_ids[32], depth;

static void temp_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/mixed-%s.%d.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name, (int)getpid());
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* A zone begun, with its text "z<id>" and value id. */
static void open_zone(const struct upmc_zone_loc *loc)
{
	int id = n_made++;
	char text[16];

	upmc_zone_begin(loc);
	snprintf(text, sizeof(text), "z%d", id);
	upmc_zone_text(text, strlen(text));
	upmc_zone_value((uint64_t)id);
	made[id].loc = loc;
	made[id].c0 = sim_count(0);
	made[id].delta = -1;
	open_ids[depth++] = id;
}

/* The zone on top ends, after instructions of its own (a count no other has). */
static void close_zone(void)
{
	int id = open_ids[--depth];

	sim_tick(0, 1000 + 7 * (uint64_t)id);
	upmc_zone_end();
	made[id].delta = (long long)(sim_count(0) - made[id].c0);
}

/* An outer zone with an inner one: their ends come inner first. */
static void nested_pair(void)
{
	open_zone(&outer_loc);
	open_zone(&inner_loc);
	close_zone();
	close_zone();
}

/* A profile of instructions, or of time alone (spec NULL): the simulated
 * counters count the thread that opened them, not another. */
static struct upmc_profile *open_spec(const char *spec)
{
	struct upmc_profile *p = NULL;

	sim_reset(48);
	n_made = depth = 0;
	return upmc_profile_open(&p, spec, NULL) < 0 ? NULL : p;
}

static struct upmc_profile *open_sim(void)
{
	return open_spec("instructions");
}

/* ---- the file, zone by zone ---- */

struct verdict {
	int right;      /* ends that are their zone's, once */
	int wrong;      /* ends with another zone's name, text, value or count */
	int twice;      /* zones whose end came again */
	int unbalanced; /* ends with no begin */
	int open;       /* begins with no end */
	unsigned long long dropped_zones;
	char first_wrong[200];
	char names[8][64]; /* each thread track's last name */
	unsigned long long name_uuid[8];
	int n_names;
};

struct track_stack {
	unsigned long long track;
	const struct pb_event *begin[32];
	int n;
};

static struct track_stack *stack_of(struct track_stack *st, int *n, unsigned long long track)
{
	int i;

	for (i = 0; i < *n; i++)
		if (st[i].track == track)
			return &st[i];
	if (*n == 8)
		return NULL;
	memset(&st[*n], 0, sizeof(st[*n]));
	st[*n].track = track;
	return &st[(*n)++];
}

/* An end checked against the truth: its value says which zone it is. */
static void check_end(const struct pb_event *b, const struct pb_event *e, unsigned long long instr,
                      char *seen, struct verdict *v)
{
	const struct pb_annotation *value = pb_annotation(e, "value");
	const struct pb_annotation *text = pb_annotation(e, "text");
	char want[16];
	int f0 = 0, f1 = 0, id = value && value->is_uint ? (int)value->u : -1;
	long long delta = pb_value(e, instr, &f1) - pb_value(b, instr, &f0);

	if (id < 0 || id >= n_made) {
		v->wrong++;
		return;
	}
	if (seen[id]++) {
		v->twice++;
		return;
	}
	snprintf(want, sizeof(want), "z%d", id);
	if (strcmp(b->name, made[id].loc->name) || !text || !text->str || strcmp(text->str, want) ||
	    (instr && (!f0 || !f1 || delta != made[id].delta))) {
		if (!v->wrong++)
			snprintf(v->first_wrong, sizeof(v->first_wrong),
			         "zone %d: name %s (%s), text %s, instructions %lld (%lld)", id,
			         b->name, made[id].loc->name, text && text->str ? text->str : "-",
			         delta, made[id].delta);
		return;
	}
	v->right++;
}

static void take_names(const struct pb_trace *tr, struct verdict *v)
{
	size_t i;
	int k;

	for (i = 0; i < tr->n_tracks; i++) {
		if (!tr->track[i].is_thread)
			continue;
		for (k = 0; k < v->n_names; k++) /* a later descriptor renames */
			if (v->name_uuid[k] == tr->track[i].uuid)
				break;
		if (k == 8)
			continue;
		if (k == v->n_names)
			v->name_uuid[v->n_names++] = tr->track[i].uuid;
		snprintf(v->names[k], sizeof(v->names[k]), "%s", tr->track[i].name);
	}
}

/* The file at path decoded and checked; 0, or -1 with why. */
static int check_file(const char *path, struct verdict *v, char *why, size_t size)
{
	struct track_stack st[8];
	char seen[MAX_ZONES] = {0};
	unsigned long long instr = 0;
	struct pb_node *tree;
	struct pb_trace tr;
	int unknown, n_st = 0, k;
	size_t i;

	memset(v, 0, sizeof(*v));
	tree = pb_decode_file(path, &unknown, why, size);
	if (!tree)
		return -1;
	if (pb_interpret(tree, &tr, why, size) < 0) {
		pb_free(tree);
		return -1;
	}
	for (i = 0; i < tr.n_tracks; i++)
		if (tr.track[i].is_counter && !strcmp(tr.track[i].name, "instructions"))
			instr = tr.track[i].uuid;
	for (i = 0; i < tr.n; i++) {
		const struct pb_event *e = &tr.ev[i];
		struct track_stack *s = stack_of(st, &n_st, e->track);
		const struct pb_annotation *a = pb_annotation(e, "dropped_zones");
		if (e->track == 1 && a)
			v->dropped_zones = a->u;
		if (e->track == 1 || !s || e->type == 3)
			continue;
		if (e->type == 1 && s->n < 32)
			s->begin[s->n++] = e;
		else if (e->type == 2 && s->n == 0)
			v->unbalanced++;
		else if (e->type == 2)
			check_end(s->begin[--s->n], e, instr, seen, v);
	}
	for (k = 0; k < n_st; k++)
		v->open += st[k].n;
	take_names(&tr, v);
	pb_trace_free(&tr);
	pb_free(tree);
	return 0;
}

#define CHECK_FILE(path, v)                                                           \
	do {                                                                          \
		char why_[512];                                                       \
		ASSERT_MSG(check_file(path, v, why_, sizeof(why_)) == 0, "%s", why_); \
		EXPECT_MSG((v)->wrong == 0, "%d wrong, the first: %s", (v)->wrong,    \
		           (v)->first_wrong);                                         \
		EXPECT_EQ((v)->twice, 0);                                             \
		EXPECT_EQ((v)->unbalanced, 0);                                        \
	} while (0)

static int count_zone(const struct upmc_zone_info *z, void *arg)
{
	(void)z;
	++*(int *)arg;
	return 0;
}

/* Every export and upmc_profile_zones() between two appends: each end in
 * the file is its own zone's, with its own text, value and count. */
TEST(mixed, exports_between_appends_leave_each_end_its_own_zone)
{
	static const enum upmc_format formats[] = {UPMC_FORMAT_CHROME, UPMC_FORMAT_SPEEDSCOPE,
	                                           UPMC_FORMAT_PERFETTO, UPMC_FORMAT_TABLE};
	char path[256];
	struct upmc_profile *p;
	struct verdict v;
	FILE *null;
	int round, k, seen;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "exports");
	null = fopen("/dev/null", "w");
	ASSERT(null);
	p = open_sim();
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	for (round = 0; round < 5; round++) {
		for (k = 0; k < 3; k++)
			nested_pair();
		seen = 0;
		if (round == 0)
			EXPECT_EQ(upmc_profile_zones(p, count_zone, &seen), 6);
		else
			EXPECT_EQ(upmc_profile_write(p, formats[round - 1], null), 0);
		ASSERT_MSG(upmc_profile_stream_flush(p) == 0, "%s", upmc_last_error());
	}
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	fclose(null);
	CHECK_FILE(path, &v);
	EXPECT_EQ(v.right, 30);
	EXPECT_EQ(v.open, 0);
	unlink(path);
}

/* The recipe of the docs (zones, then a clear, every frame) beside a
 * stream: what the clear forgets was appended first, and a zone open
 * across it has its begin in the file before its end. */
TEST(mixed, a_clear_during_a_stream_appends_first)
{
	char path[256];
	struct upmc_profile *p;
	struct verdict v;
	int k, seen = 0;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "clear");
	p = open_sim();
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	open_zone(&outer_loc); /* open across the clear */
	for (k = 0; k < 10; k++) {
		open_zone(&inner_loc);
		close_zone();
	}
	EXPECT_EQ(upmc_profile_zones(p, count_zone, &seen), 10);
	upmc_profile_clear(p);
	close_zone();
	open_zone(&inner_loc);
	close_zone();
	upmc_profile_clear(p); /* nothing collected: nothing to append */
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	CHECK_FILE(path, &v);
	EXPECT_EQ(v.right, 12);
	EXPECT_EQ(v.open, 0);
	EXPECT_EQ_U64(v.dropped_zones, 0);
	unlink(path);
}

/* A zone open when a stream ends: its begin is in that file, unended, and
 * its end goes into no other. */
TEST(mixed, a_zone_open_at_a_streams_end_ends_in_no_other_file)
{
	char first[256], second[256];
	struct upmc_profile *p;
	struct verdict v;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(first, sizeof(first), "first");
	temp_path(second, sizeof(second), "second");
	p = open_sim();
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, first, AN_HOUR) == 0);
	nested_pair();
	open_zone(&outer_loc);
	ASSERT(upmc_profile_stream_end(p) == 0);
	close_zone();
	ASSERT(upmc_profile_stream(p, second, AN_HOUR) == 0);
	nested_pair();
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	CHECK_FILE(first, &v);
	EXPECT_EQ(v.right, 2);
	EXPECT_EQ(v.open, 1);
	CHECK_FILE(second, &v);
	EXPECT_EQ(v.right, 2);
	EXPECT_EQ(v.open, 0);
	unlink(first);
	unlink(second);
}

/* Zones begun after a stream's end go into the next stream's file, even
 * when upmc_profile_zones() or an export collected them in between (as
 * another thread may while one stream ends and the next starts). */
TEST(mixed, zones_collected_between_two_streams_go_into_the_next_file)
{
	char first[256], second[256];
	struct upmc_profile *p;
	struct verdict v;
	FILE *null;
	int seen = 0;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(first, sizeof(first), "before-gap");
	temp_path(second, sizeof(second), "after-gap");
	null = fopen("/dev/null", "w");
	ASSERT(null);
	p = open_sim();
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, first, AN_HOUR) == 0);
	nested_pair();
	ASSERT(upmc_profile_stream_end(p) == 0);
	nested_pair();
	/* what the end wrote is forgotten: the two zones since */
	EXPECT_EQ(upmc_profile_zones(p, count_zone, &seen), 2);
	open_zone(&outer_loc); /* open across the next stream's start */
	EXPECT_EQ(upmc_profile_write(p, UPMC_FORMAT_CHROME, null), 0);
	ASSERT(upmc_profile_stream(p, second, AN_HOUR) == 0);
	close_zone();
	nested_pair();
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	fclose(null);
	CHECK_FILE(first, &v);
	EXPECT_EQ(v.right, 2);
	EXPECT_EQ(v.open, 0);
	CHECK_FILE(second, &v);
	EXPECT_EQ(v.right, 5);
	EXPECT_EQ(v.open, 0);
	unlink(first);
	unlink(second);
}

/* A clear with no stream forgets what was collected, the begins the next
 * stream would have written too: the end of a zone open across it goes
 * into no file (no end without its begin). */
TEST(mixed, a_clear_between_two_streams_leaves_no_end_without_its_begin)
{
	char first[256], second[256];
	struct upmc_profile *p;
	struct verdict v;
	int seen = 0;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(first, sizeof(first), "before-clear");
	temp_path(second, sizeof(second), "after-clear");
	p = open_sim();
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, first, AN_HOUR) == 0);
	ASSERT(upmc_profile_stream_end(p) == 0);
	open_zone(&outer_loc);
	nested_pair();
	EXPECT_EQ(upmc_profile_zones(p, count_zone, &seen), 2);
	upmc_profile_clear(p);
	ASSERT(upmc_profile_stream(p, second, AN_HOUR) == 0);
	close_zone();
	nested_pair();
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	CHECK_FILE(second, &v);
	EXPECT_EQ(v.right, 2);
	EXPECT_EQ(v.open, 0);
	unlink(first);
	unlink(second);
}

/* A forked child's flush and clear append nothing to the parent's file:
 * the flush says why; the parent's stream goes on, each zone once. */
TEST(mixed, a_forked_childs_flush_appends_nothing)
{
	char path[256];
	struct upmc_profile *p;
	struct verdict v;
	long before;
	int status;
	pid_t child;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "fork");
	p = open_sim();
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	nested_pair();
	ASSERT(upmc_profile_collect(p) >= 0);
	before = file_size(path);
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		int err = upmc_profile_stream_flush(p);
		if (err != -ECHILD || !strstr(upmc_last_error(), "forked"))
			_exit(1);
		upmc_profile_clear(p);
		_exit(file_size(path) == before ? 0 : 2);
	}
	ASSERT(waitpid(child, &status, 0) == child);
	EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	EXPECT_EQ(file_size(path), before);
	nested_pair();
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	CHECK_FILE(path, &v);
	EXPECT_EQ(v.right, 4);
	unlink(path);
}

static void *stream_to(void *arg)
{
	void **a = arg;

	a[2] = (void *)(intptr_t)upmc_profile_stream(a[0], a[1], AN_HOUR);
	return NULL;
}

/* A stream opened on a FIFO that no one reads yet waits in its open, and
 * the profile's other functions do not wait with it (a child: a wait is
 * told by the alarm). */
TEST(mixed, a_stream_waiting_to_open_blocks_no_other_call)
{
	char path[256];
	int status;
	pid_t child;

	temp_path(path, sizeof(path), "fifo");
	unlink(path);
	if (mkfifo(path, 0600) < 0)
		SKIP("cannot make a FIFO: %s", strerror(errno));
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct upmc_profile_stats st;
		struct upmc_profile *p = open_sim();
		void *args[3] = {p, path, NULL};
		pthread_t th;
		int fd;
		signal(SIGPIPE, SIG_IGN);
		alarm(10);
		if (!p || pthread_create(&th, NULL, stream_to, args) != 0)
			_exit(2);
		usleep(200 * 1000); /* the stream's open waits for a reader */
		nested_pair();
		if (upmc_profile_stats(p, &st) != 0 || st.zones != 2)
			_exit(3);
		if (upmc_profile_stream_flush(p) != -ENOENT)
			_exit(4);
		fd = open(path, O_RDONLY); /* the open goes on */
		pthread_join(th, NULL);
		if (fd < 0 || args[2] != NULL)
			_exit(5);
		upmc_profile_stream_end(p);
		upmc_profile_close(p);
		close(fd);
		_exit(0);
	}
	ASSERT(waitpid(child, &status, 0) == child);
	EXPECT_MSG(!WIFSIGNALED(status) || WTERMSIG(status) != SIGALRM,
	           "a call waited for the stream's open");
	EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	unlink(path);
}

struct naming {
	struct upmc_profile *p;
	int calls, renamed, thread_err, refused;
};

static int no_zone(const struct upmc_zone_info *z, void *arg)
{
	(void)z;
	(void)arg;
	return 0;
}

/* The calls that take the collector's lock, from a callback: each refused. */
static int refused_in_callback(struct upmc_profile *p)
{
	struct upmc_profile_stats st;
	FILE *null = fopen("/dev/null", "w");
	int refused = 0;

	refused += upmc_profile_collect(p) == -EDEADLK;
	refused += upmc_profile_stats(p, &st) == -EDEADLK;
	refused += upmc_profile_zones(p, no_zone, NULL) == -EDEADLK;
	refused += null && upmc_profile_write(p, UPMC_FORMAT_TABLE, null) == -EDEADLK;
	refused += upmc_profile_save(p, UPMC_FORMAT_TABLE, "/dev/null") == -EDEADLK;
	refused += upmc_profile_stream(p, "/dev/null", AN_HOUR) == -EDEADLK;
	refused += upmc_profile_stream_flush(p) == -EDEADLK;
	refused += upmc_profile_stream_end(p) == -EDEADLK &&
	           strstr(upmc_last_error(), "callback") != NULL;
	upmc_profile_clear(p); /* refused too: the zones are still there */
	if (null)
		fclose(null);
	return refused;
}

static int rename_in_callback(const struct upmc_zone_info *z, void *arg)
{
	struct naming *n = arg;

	(void)z;
	if (n->calls++ == 0) {
		upmc_thread_name("renamed");
		n->thread_err = upmc_profile_thread("renamed again");
		n->refused = refused_in_callback(n->p);
	}
	n->renamed += z->thread && !strcmp(z->thread, "renamed again");
	return 0;
}

/* upmc_thread_name() and upmc_profile_thread() from a callback of
 * upmc_profile_zones() name the thread; the calls that take the
 * collector's lock are refused with -EDEADLK (run in a child: a deadlock
 * is told by the alarm). */
TEST(mixed, a_callback_names_its_thread)
{
	int status;
	pid_t child = fork();

	ASSERT(child >= 0);
	if (child == 0) {
		struct naming n = {NULL, 0, 0, 0, 0};
		struct upmc_profile *p;
		alarm(10);
		p = open_sim();
		if (!p)
			_exit(2);
		n.p = p;
		nested_pair();
		if (upmc_profile_zones(p, rename_in_callback, &n) != 2 || n.thread_err != 0)
			_exit(3);
		if (n.refused != 8)
			_exit(5);
		n.calls = 1;
		n.renamed = 0;
		if (upmc_profile_zones(p, rename_in_callback, &n) != 2 || n.renamed != 2)
			_exit(4);
		upmc_profile_close(p);
		_exit(0);
	}
	ASSERT(waitpid(child, &status, 0) == child);
	EXPECT_MSG(!WIFSIGNALED(status) || WTERMSIG(status) != SIGALRM,
	           "the callback's upmc_thread_name() deadlocked");
	EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
}

static void *worker(void *arg)
{
	upmc_thread_name("worker");
	nested_pair();
	(void)arg;
	return NULL;
}

/* A thread renamed after its first append has its new name in the file;
 * two threads of one name, one after the other (the first gone from the
 * profile by then), keep names of their own there. */
TEST(mixed, renames_reach_the_file_and_names_stay_unique)
{
	char path[256];
	struct upmc_profile *p;
	struct verdict v;
	pthread_t th;
	int k, workers = 0, found_renamed = 0;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "names");
	p = open_spec(NULL);
	ASSERT(p);
	upmc_thread_name("main");
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	nested_pair();
	ASSERT(upmc_profile_stream_flush(p) == 0);
	upmc_thread_name("main renamed");
	for (k = 0; k < 2; k++) {
		ASSERT(pthread_create(&th, NULL, worker, NULL) == 0);
		pthread_join(th, NULL);
		ASSERT(upmc_profile_stream_flush(p) == 0);
		ASSERT(upmc_profile_stream_flush(p) == 0); /* the exited thread is retired */
	}
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	CHECK_FILE(path, &v);
	EXPECT_EQ(v.right, n_made);
	EXPECT_EQ(v.n_names, 3);
	for (k = 0; k < v.n_names; k++) {
		int j;
		workers += !strncmp(v.names[k], "worker", 6);
		found_renamed += !strcmp(v.names[k], "main renamed");
		for (j = 0; j < k; j++)
			EXPECT_MSG(strcmp(v.names[j], v.names[k]), "two tracks named %s",
			           v.names[k]);
	}
	EXPECT_EQ(workers, 2);
	EXPECT_EQ(found_renamed, 1);
	unlink(path);
}

/* ---- a thread gone with its zone's end not yet appended ---- */

static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stage_cond = PTHREAD_COND_INITIALIZER;
static int stage;

static void set_stage(int to)
{
	pthread_mutex_lock(&stage_lock);
	stage = to;
	pthread_cond_broadcast(&stage_cond);
	pthread_mutex_unlock(&stage_lock);
}

static void wait_stage(int want)
{
	pthread_mutex_lock(&stage_lock);
	while (stage != want)
		pthread_cond_wait(&stage_cond, &stage_lock);
	pthread_mutex_unlock(&stage_lock);
}

/* A zone begun and appended; then values fill the buffer, so that its
 * end is dropped; then the thread exits. */
static void *fill_then_exit(void *arg)
{
	int i;

	(void)arg;
	open_zone(&outer_loc);
	set_stage(1);
	wait_stage(2);
	for (i = 0; i < 100000; i++)
		upmc_zone_value((uint64_t)i);
	upmc_zone_end(); /* dropped: the buffer is full */
	return NULL;
}

/* The dropped zone's end, collected but not yet appended when its thread
 * is seen gone, is appended before the thread's state goes: the file has
 * no begin without its end. */
TEST(mixed, a_thread_gone_before_its_dropped_end_is_appended_keeps_it)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile_stats st;
	char path[256], why[512];
	struct upmc_profile *p = NULL;
	struct verdict v;
	pthread_t th;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "retire");
	sim_reset(48);
	n_made = depth = stage = 0;
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	ASSERT(pthread_create(&th, NULL, fill_then_exit, NULL) == 0);
	wait_stage(1);
	ASSERT(upmc_profile_stream_flush(p) == 0); /* the begin */
	set_stage(2);
	pthread_join(th, NULL);
	ASSERT(upmc_profile_stream_flush(p) == 0); /* the end, dropped */
	ASSERT(upmc_profile_stream_flush(p) == 0); /* the thread retires */
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_MSG(st.dropped > 0, "the buffer of %zu bytes dropped nothing", o.max_bytes);
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	ASSERT_MSG(check_file(path, &v, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(v.open, 0);
	EXPECT_EQ(v.unbalanced, 0);
	EXPECT_EQ(v.twice, 0);
	unlink(path);
}

/* ---- an end while the stream starts ---- */

struct race {
	struct upmc_profile *p;
	int stop;
	long ended;
};

static void *end_again_and_again(void *arg)
{
	struct race *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		if (upmc_profile_stream_end(r->p) == 0)
			r->ended++;
	return NULL;
}

/* upmc_profile_stream_end() from another thread while a stream starts:
 * it finds no stream (-ENOENT) until the stream's thread is there to
 * stop, then ends it whole; the stream's own end finds none after it (run
 * in a child: a crash or a wait is told by its status). */
TEST(mixed, an_end_while_the_stream_starts_waits_for_its_thread)
{
	int status;
	pid_t child = fork();

	ASSERT(child >= 0);
	if (child == 0) {
		struct race r = {NULL, 0, 0};
		long started = 0, ended = 0;
		pthread_t th;
		int k, err;
		alarm(60);
		r.p = open_sim();
		if (!r.p || pthread_create(&th, NULL, end_again_and_again, &r) != 0)
			_exit(2);
		for (k = 0; k < 2000; k++) {
			err = upmc_profile_stream(r.p, "/dev/null", AN_HOUR);
			if (err != 0 && err != -EBUSY)
				_exit(3);
			started += err == 0;
			ended += upmc_profile_stream_end(r.p) == 0;
		}
		__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
		pthread_join(th, NULL);
		if (started != ended + r.ended)
			_exit(4);
		upmc_profile_close(r.p);
		_exit(0);
	}
	ASSERT(waitpid(child, &status, 0) == child);
	EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d (signal %d)", status,
	           WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- names ---- */

static void *named_worker(void *arg)
{
	upmc_thread_name((const char *)arg);
	nested_pair();
	return NULL;
}

/* Threads named "job #<n>" as the library would name a later "job": the
 * later ones are named past them, and no two tracks bear one name. */
TEST(mixed, a_thread_named_as_a_suffix_keeps_names_unique)
{
	static const char *const names[] = {"job", "job #4", "job #5", "job #6", "job", "job"};
	char path[256];
	struct upmc_profile *p;
	struct verdict v;
	pthread_t th;
	size_t k;
	int i, j;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "suffix");
	p = open_spec(NULL);
	ASSERT(p);
	upmc_thread_name("main");
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	nested_pair();
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		ASSERT(pthread_create(&th, NULL, named_worker, (void *)names[k]) == 0);
		pthread_join(th, NULL);
		ASSERT(upmc_profile_stream_flush(p) == 0);
		ASSERT(upmc_profile_stream_flush(p) == 0); /* the exited thread is retired */
	}
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	CHECK_FILE(path, &v);
	EXPECT_EQ(v.right, n_made);
	EXPECT_EQ(v.n_names, 7);
	for (i = 0; i < v.n_names; i++)
		for (j = 0; j < i; j++)
			EXPECT_MSG(strcmp(v.names[j], v.names[i]), "two tracks named %s",
			           v.names[i]);
	unlink(path);
}
