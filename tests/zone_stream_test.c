/* SPDX-License-Identifier: MIT */
/*
 * A profile streamed into a Perfetto file while it records: the file is a
 * valid trace after every append (cut it there and protoc decodes it, the
 * trace processor's reading resolves it), ends with the same zones as a
 * save of the same recording, survives a crash with what was appended,
 * and keeps memory bounded. Exact counts from the simulated kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

#define READ_COST 5
#define AN_HOUR   3600000 /* ms: the stream's own thread never appends in a test */

static const struct upmc_zone_loc frame_loc = {"frame", "loop", "game.c", 10};
static const struct upmc_zone_loc physics_loc = {"physics", "loop", "game.c", 20};
static const struct upmc_zone_loc render_loc = {"render", "loop", "game.c", 30};

static void temp_path(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s.%d.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name, (int)getpid());
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The first `bytes` of path, as a file of their own (a cut). */
static int cut(const char *path, long bytes, const char *to)
{
	FILE *in = fopen(path, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	long left = bytes;
	size_t got;

	while (in && out && left > 0 &&
	       (got = fread(buf, 1, left < (long)sizeof(buf) ? (size_t)left : sizeof(buf), in)) >
	               0) {
		fwrite(buf, 1, got, out);
		left -= (long)got;
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return in && out && left == 0 ? 0 : -1;
}

/* A slice of the trace: what a viewer shows, times aside. */
struct slice {
	char name[32], text[32];
	unsigned depth;
	long long counts[2]; /* instructions, cycles: end less begin; -1 when not shown */
	int ended;
};

struct slices {
	struct slice s[2048];
	int n, frames;
};

/* The trace at path decoded (the file stays) and read as slices. */
static int read_trace(const char *path, struct slices *out, char *why, size_t size)
{
	char copy[300];
	const struct pb_event *open[32];
	struct slice *open_slice[32];
	struct pb_node *tree;
	struct pb_trace tr;
	unsigned long long instr = 0, cycles = 0;
	int unknown, sp = 0;
	size_t i;

	snprintf(copy, sizeof(copy), "%s.copy", path);
	if (cut(path, file_size(path), copy) < 0) {
		snprintf(why, size, "cannot copy %s", path);
		return -1;
	}
	tree = pb_decode_file(copy, &unknown, why, size);
	if (!tree)
		return -1;
	if (unknown || pb_interpret(tree, &tr, why, size) < 0) {
		if (unknown)
			snprintf(why, size, "%d unknown fields", unknown);
		pb_free(tree);
		return -1;
	}
	for (i = 0; i < tr.n_tracks; i++) {
		if (tr.track[i].is_counter && !strcmp(tr.track[i].name, "instructions"))
			instr = tr.track[i].uuid;
		if (tr.track[i].is_counter && !strcmp(tr.track[i].name, "cycles"))
			cycles = tr.track[i].uuid;
	}
	memset(out, 0, sizeof(*out));
	for (i = 0; i < tr.n; i++) {
		const struct pb_event *e = &tr.ev[i];
		if (e->track == 1)
			continue;
		if (e->type == 3) {
			out->frames++;
		} else if (e->type == 1 && out->n < 2048 && sp < 32) {
			struct slice *s = &out->s[out->n++];
			snprintf(s->name, sizeof(s->name), "%s", e->name);
			s->depth = (unsigned)sp;
			open[sp] = e;
			open_slice[sp++] = s;
		} else if (e->type == 2 && sp > 0) {
			const struct pb_annotation *a = pb_annotation(e, "text");
			struct slice *s = open_slice[--sp];
			int f0, f1, g0, g1;
			long long i0 = pb_value(open[sp], instr, &f0), i1 = pb_value(e, instr, &f1);
			long long c0 = pb_value(open[sp], cycles, &g0),
			          c1 = pb_value(e, cycles, &g1);
			s->counts[0] = f0 && f1 ? i1 - i0 : -1;
			s->counts[1] = g0 && g1 ? c1 - c0 : -1;
			s->ended = 1;
			snprintf(s->text, sizeof(s->text), "%s", a && a->str ? a->str : "");
		}
	}
	pb_trace_free(&tr);
	pb_free(tree);
	return 0;
}

/* One frame of the game: nested zones with exact counts, a text. */
static void frame(int k)
{
	upmc_zone_begin(&frame_loc);
	UPMC_ZONE_TEXT("level", 5);
	upmc_zone_begin(&physics_loc);
	sim_tick(0, 1000 * (k + 1));
	sim_tick(1, 300);
	upmc_zone_end();
	upmc_zone_begin(&render_loc);
	sim_tick(0, 77);
	upmc_zone_end();
	upmc_zone_end();
	upmc_frame_mark();
}

static struct upmc_profile *open_sim(const char *spec)
{
	struct upmc_profile *p = NULL;

	sim_reset(48);
	sim.read_cost = READ_COST;
	return upmc_profile_open(&p, spec, NULL) < 0 ? NULL : p;
}

static int same_slices(const struct slices *a, const struct slices *b)
{
	int k;

	if (a->n != b->n || a->frames != b->frames)
		return 0;
	for (k = 0; k < a->n; k++)
		if (strcmp(a->s[k].name, b->s[k].name) || a->s[k].depth != b->s[k].depth ||
		    a->s[k].counts[0] != b->s[k].counts[0] ||
		    a->s[k].counts[1] != b->s[k].counts[1] || strcmp(a->s[k].text, b->s[k].text) ||
		    a->s[k].ended != b->s[k].ended)
			return 0;
	return 1;
}

/*
 * Appends at chosen points (flushes): after each, the file is a trace
 * with every zone recorded so far, a zone open across an append included;
 * the file cut at any append's end is one too; at the end it holds what a
 * save of the same recording holds.
 */
TEST(stream, a_valid_trace_after_every_append_and_the_same_as_a_save)
{
	char path[256], part[300], why[512];
	struct upmc_profile *p;
	struct upmc_profile_stats st;
	struct slices seen, saved;
	long sizes[8];
	int k, n = 0;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "stream");
	p = open_sim("instructions,cycles");
	ASSERT(p);
	ASSERT_MSG(upmc_profile_stream(p, path, AN_HOUR) == 0, "%s", upmc_last_error());
	sizes[n++] = file_size(path);
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(seen.n, 0);
	for (k = 0; k < 3; k++) {
		frame(k);
		ASSERT_MSG(upmc_profile_stream_flush(p) == 0, "%s", upmc_last_error());
		sizes[n++] = file_size(path);
		ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
		EXPECT_EQ(seen.n, 3 * (k + 1));
		EXPECT_EQ(seen.frames, k + 1);
		/* what was appended is forgotten: memory stays bounded */
		ASSERT(upmc_profile_stats(p, &st) == 0);
		EXPECT_EQ_U64(st.zones, 0);
	}
	upmc_zone_begin(&frame_loc); /* open across an append: its begin goes first */
	ASSERT(upmc_profile_stream_flush(p) == 0);
	sizes[n++] = file_size(path);
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(seen.n, 10);
	EXPECT(!seen.s[9].ended);
	upmc_zone_end();
	ASSERT_MSG(upmc_profile_stream_end(p) == 0, "%s", upmc_last_error());
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT(seen.s[9].ended);
	EXPECT_EQ(upmc_profile_stream_end(p), -ENOENT);
	upmc_profile_close(p);
	/* a cut at the end of any append is a trace of what came before */
	for (k = 0; k < n; k++) {
		struct slices before;
		snprintf(part, sizeof(part), "%s.cut", path);
		ASSERT(cut(path, sizes[k], part) == 0);
		ASSERT_MSG(read_trace(part, &before, why, sizeof(why)) == 0, "cut %d: %s", k, why);
		EXPECT_EQ(before.n, k < 4 ? 3 * k : 10);
		unlink(part);
	}
	/* the same recording, saved at the end */
	p = open_sim("instructions,cycles");
	ASSERT(p);
	for (k = 0; k < 3; k++)
		frame(k);
	upmc_zone_begin(&frame_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, part) == 0);
	ASSERT_MSG(read_trace(part, &saved, why, sizeof(why)) == 0, "%s", why);
	EXPECT(same_slices(&seen, &saved));
	EXPECT_EQ(saved.s[1].counts[0], 1000 + READ_COST);
	upmc_profile_close(p);
	unlink(part);
	unlink(path);
}

/* A crash loses what was not appended yet, and nothing else. */
TEST(stream, a_crash_keeps_every_append)
{
	char path[256], why[512];
	struct slices seen;
	int status;
	pid_t child;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "crash");
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct upmc_profile *p;
		int k;
		if (upmc_profile_open(&p, NULL, NULL) < 0 ||
		    upmc_profile_stream(p, path, AN_HOUR) < 0)
			_exit(2);
		for (k = 0; k < 5; k++)
			frame(k);
		if (upmc_profile_stream_flush(p) < 0)
			_exit(3);
		frame(5); /* never appended */
		raise(SIGKILL);
		_exit(4);
	}
	ASSERT(waitpid(child, &status, 0) == child);
	ASSERT_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(seen.n, 15);
	EXPECT_EQ(seen.frames, 5);
	unlink(path);
}

/* The close ends a stream: its last append holds every zone. */
TEST(stream, the_close_ends_the_stream)
{
	char path[256], why[512];
	struct upmc_profile *p;
	struct slices seen;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "close");
	p = open_sim("instructions,cycles");
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	frame(0);
	frame(1);
	upmc_profile_close(p);
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(seen.n, 6);
	EXPECT_EQ(seen.frames, 2);
	unlink(path);
}

/* The stream's thread appends at its interval, by itself. */
TEST(stream, its_thread_appends_at_each_interval)
{
	char path[256];
	struct upmc_profile *p;
	int waited;

	temp_path(path, sizeof(path), "interval");
	p = open_sim(NULL);
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, path, 1) == 0);
	frame(0);
	upmc_zone_flush();
	{
		long first = file_size(path);
		/* up to 60 s for a busy machine; one interval is 1 ms */
		for (waited = 0; waited < 60000 && file_size(path) == first; waited++)
			usleep(1000);
		EXPECT_MSG(file_size(path) > first, "no append in %d ms", waited);
	}
	EXPECT_EQ(upmc_profile_stream_end(p), 0);
	upmc_profile_close(p);
	unlink(path);
}

static void *record_while_streaming(void *arg)
{
	int k;

	(void)arg;
	upmc_thread_name("worker");
	for (k = 0; k < 1000; k++) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
	}
	return NULL;
}

/* A collect of the user's own between two appends takes records the
 * stream still writes; a thread that came and went is in the file. */
TEST(stream, a_collect_between_appends_loses_nothing_to_the_stream)
{
	char path[256], why[512];
	struct upmc_profile *p;
	struct slices seen;
	pthread_t th;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "collect");
	p = open_sim(NULL);
	ASSERT(p);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	ASSERT(pthread_create(&th, NULL, record_while_streaming, NULL) == 0);
	pthread_join(th, NULL);
	frame(0);
	ASSERT(upmc_profile_collect(p) >= 0);
	ASSERT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(seen.n, 1003);
	unlink(path);
}

/* Many appends of many zones: what the stream wrote is forgotten, and the
 * buffer stays at two blocks (the thread writes one while the collector
 * may still be in the other). */
TEST(stream, memory_stays_bounded)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 1 << 16, 0};
	char path[256];
	struct upmc_profile *p = NULL;
	uint64_t bytes, peak;
	int round, k;

	temp_path(path, sizeof(path), "bounded");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	for (round = 0; round < 200; round++) {
		for (k = 0; k < 1000; k++) { /* 24 KiB of records: within one block */
			upmc_zone_begin(&physics_loc);
			upmc_zone_end();
		}
		ASSERT(upmc_profile_stream_flush(p) == 0);
	}
	ASSERT(upmc_profile_memory(p, &bytes, &peak) == 0);
	EXPECT_MSG(peak <= 2 * ((1 << 16) + 64), "%llu", (unsigned long long)peak);
	EXPECT(upmc_profile_stream_end(p) == 0);
	upmc_profile_close(p);
	/* 200,000 zones, compressed: about a byte each */
	EXPECT_MSG(file_size(path) > 100000 && file_size(path) < 200000 * 40, "%ld bytes",
	           file_size(path));
	unlink(path);
}

static void *one_zone_and_exit(void *arg)
{
	(void)arg;
	upmc_thread_name("job");
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	upmc_zone_begin_name(&physics_loc, NULL); /* refused: counted */
	upmc_zone_end();
	return NULL;
}

/* Short-lived threads, each appended then retired: the heap in use after
 * `threads` more of them, less before. */
static long heap_growth(struct upmc_profile *p, int threads)
{
	struct mallinfo2 before = mallinfo2(), after;
	pthread_t th;
	int k;

	for (k = 0; k < threads; k++) {
		if (pthread_create(&th, NULL, one_zone_and_exit, NULL) != 0)
			return -1;
		pthread_join(th, NULL);
		if (upmc_profile_stream_flush(p) < 0 || upmc_profile_collect(p) < 0)
			return -1;
	}
	after = mallinfo2();
	return (long)after.uordblks - (long)before.uordblks;
}

/* A stream keeps nothing of a thread that exited once it appended all of
 * it, whatever it counted (a refused zone): memory does not grow with the
 * threads a job system ever made (each thread's track name stays, to keep
 * names unique in the file), and the counts stay whole. */
TEST(stream, keeps_nothing_of_the_threads_gone)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 0};
	struct upmc_profile_stats st;
	struct upmc_profile *p = NULL;
	char path[256];
	long grew;

	if (mallinfo2().uordblks == 0)
		SKIP("mallinfo2() says nothing under this allocator (a sanitizer's)");
	temp_path(path, sizeof(path), "threads");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	ASSERT(heap_growth(p, 100) >= 0); /* the tables' first sizes */
	grew = heap_growth(p, 2000);
	EXPECT_MSG(grew < 2000 * 64, "%ld bytes more after 2000 threads, %ld a thread", grew,
	           grew / 2000);
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT_EQ_U64(st.refused, 2100);
	EXPECT_MSG(st.threads <= 2, "%u threads kept", st.threads);
	EXPECT_EQ(upmc_profile_stream_end(p), 0);
	upmc_profile_close(p);
	unlink(path);
}

/* Bad input and a file that cannot be written get a clear error. */
TEST(stream, errors_are_said)
{
	char path[256];
	struct upmc_profile *p;

	temp_path(path, sizeof(path), "errors");
	p = open_sim(NULL);
	ASSERT(p);
	EXPECT_EQ(upmc_profile_stream(NULL, path, 0), -EINVAL);
	EXPECT_EQ(upmc_profile_stream(p, NULL, 0), -EINVAL);
	EXPECT_EQ(upmc_profile_stream_flush(p), -ENOENT);
	EXPECT_EQ(upmc_profile_stream_end(p), -ENOENT);
	EXPECT_EQ(upmc_profile_stream(p, "/nonexistent/dir/trace.pftrace", 0), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "/nonexistent/dir/trace.pftrace");
	if (access("/dev/full", W_OK) == 0) {
		EXPECT_EQ(upmc_profile_stream(p, "/dev/full", 0), -ENOSPC);
		EXPECT_CONTAINS(upmc_last_error(), "No space");
	}
	ASSERT(upmc_profile_stream(p, path, AN_HOUR) == 0);
	EXPECT_EQ(upmc_profile_stream(p, path, AN_HOUR), -EBUSY);
	EXPECT_EQ(upmc_profile_stream_end(p), 0);
	upmc_profile_close(p);
	unlink(path);
}

/* ---- a write that blocks ---- */

struct blocked {
	struct upmc_profile *p;
	int fd; /* the FIFO's reading end */
	char copy[300];
	int err, done, zones;
};

static void *flush_into_the_fifo(void *arg)
{
	struct blocked *b = arg;

	b->err = upmc_profile_stream_flush(b->p);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A thread that joins the profile, names itself and collects: each takes
 * the collector's lock. */
static void *record_name_and_collect(void *arg)
{
	struct blocked *b = arg;

	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	upmc_thread_name("late");
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	b->zones = upmc_profile_collect(b->p);
	__atomic_store_n(&b->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* What waits in the FIFO (its reading end non-blocking) read into
 * b->copy: the pipe is empty after. */
static void read_what_waits(struct blocked *b)
{
	FILE *out = fopen(b->copy, "wb");
	char buf[4096];
	ssize_t got;

	while ((got = read(b->fd, buf, sizeof(buf))) > 0)
		if (out)
			fwrite(buf, 1, (size_t)got, out);
	if (out)
		fclose(out);
}

/* The FIFO read onto the end of b->copy until its writer closes it. */
static void *drain_the_fifo(void *arg)
{
	struct blocked *b = arg;
	FILE *out = fopen(b->copy, "ab");
	char buf[4096];
	ssize_t got;

	fcntl(b->fd, F_SETFL, fcntl(b->fd, F_GETFL) & ~O_NONBLOCK);
	while ((got = read(b->fd, buf, sizeof(buf))) > 0)
		if (out)
			fwrite(buf, 1, (size_t)got, out);
	if (out)
		fclose(out);
	return NULL;
}

/* Whether flag turns 1 within about ten seconds. */
static int set_soon(const int *flag)
{
	int ms;

	for (ms = 0; ms < 10000 && !__atomic_load_n(flag, __ATOMIC_ACQUIRE); ms++)
		usleep(1000);
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

/* Whether bytes wait in the (empty) FIFO within about ten seconds: a
 * write began. */
static int fifo_written(int fd)
{
	int ms, queued = 0;

	for (ms = 0; ms < 10000; ms++) {
		if (ioctl(fd, FIONREAD, &queued) == 0 && queued > 0)
			return 1;
		usleep(1000);
	}
	return 0;
}

/*
 * An append whose write blocks (a FIFO that no one reads, as a full pipe
 * or a slow disk would) holds the stream's writing lock, never the
 * collector's: while it waits, a thread joins the profile, records, names
 * itself and collects. Once the reader reads, every zone is in the file.
 */
TEST(stream, a_blocked_write_keeps_no_collect_waiting)
{
	struct upmc_profile_options o = {sizeof(o), 0, UPMC_PROFILE_UNCOMPRESSED, 0, 0};
	struct blocked flusher = {0}, late = {0};
	struct upmc_profile *p = NULL;
	pthread_t flush_thread, late_thread, drain_thread;
	char path[256], why[512];
	struct slices seen;
	int k, frames = 400; /* about 40 KiB of packets: far past the FIFO's 4 KiB */

	temp_path(path, sizeof(path), "fifo");
	unlink(path);
	ASSERT(mkfifo(path, 0600) == 0);
	flusher.fd =
	        open(path, O_RDONLY | O_NONBLOCK); /* the writer's open then waits for no one */
	ASSERT(flusher.fd >= 0);
	ASSERT(fcntl(flusher.fd, F_SETPIPE_SZ, 4096) >= 0);
	snprintf(flusher.copy, sizeof(flusher.copy), "%s.read", path);
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	ASSERT_MSG(upmc_profile_stream(p, path, AN_HOUR) == 0, "%s", upmc_last_error());
	read_what_waits(&flusher); /* the first append's */
	for (k = 0; k < frames; k++)
		frame(k);
	flusher.p = late.p = p;
	ASSERT(pthread_create(&flush_thread, NULL, flush_into_the_fifo, &flusher) == 0);
	EXPECT(fifo_written(flusher.fd));
	/* 40 KiB cannot go into 4 KiB: the flush waits in its write */
	EXPECT(!__atomic_load_n(&flusher.done, __ATOMIC_ACQUIRE));
	ASSERT(pthread_create(&late_thread, NULL, record_name_and_collect, &late) == 0);
	EXPECT_MSG(set_soon(&late.done), "a collect waited for the stream's write");
	EXPECT(!__atomic_load_n(&flusher.done, __ATOMIC_ACQUIRE)); /* and still waits */
	ASSERT(pthread_create(&drain_thread, NULL, drain_the_fifo, &flusher) == 0);
	pthread_join(flush_thread, NULL);
	pthread_join(late_thread, NULL);
	EXPECT_EQ(flusher.err, 0);
	EXPECT_EQ(late.zones, 2);
	EXPECT_EQ(upmc_profile_stream_end(p), 0);
	pthread_join(drain_thread, NULL);
	upmc_profile_close(p);
	close(flusher.fd);
	if (pb_have_protoc()) { /* every zone in the file: the late thread's in the end's append */
		ASSERT_MSG(read_trace(flusher.copy, &seen, why, sizeof(why)) == 0, "%s", why);
		EXPECT_EQ(seen.n, 3 * frames + 2);
		EXPECT_EQ(seen.frames, frames);
	}
	unlink(flusher.copy);
	unlink(path);
}

/* A file that stops growing (its size limit, as a full disk would): the
 * append that failed is cut off, the file ends with the last whole one,
 * and the error, with the count of zones lost, is said at the next flush
 * and at the end. */
TEST(stream, a_failed_append_leaves_the_whole_ones)
{
	char path[256], why[512];
	struct slices seen;
	int status;
	pid_t child;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	temp_path(path, sizeof(path), "full");
	child = fork();
	ASSERT(child >= 0);
	if (child == 0) {
		struct rlimit small = {8 * 1024, 8 * 1024}; /* compressed: far past it */
		struct upmc_profile *p;
		int k, err;
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &small) < 0 || upmc_profile_open(&p, NULL, NULL) < 0 ||
		    upmc_profile_stream(p, path, AN_HOUR) < 0)
			_exit(2);
		frame(0);
		if (upmc_profile_stream_flush(p) < 0)
			_exit(3);
		for (k = 0; k < 20000; k++) /* far more than 8 KiB, compressed */
			frame(k);
		err = upmc_profile_stream_flush(p);
		if (err != -EFBIG || !strstr(upmc_last_error(), "last whole append") ||
		    !strstr(upmc_last_error(), "the 60000 zones of this append are lost"))
			_exit(4); /* 3 zones a frame */
		if (upmc_profile_stream_end(p) != -EFBIG)
			_exit(5);
		upmc_profile_close(p);
		_exit(0);
	}
	ASSERT(waitpid(child, &status, 0) == child);
	ASSERT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	ASSERT_MSG(read_trace(path, &seen, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(seen.n, 3);
	unlink(path);
}
