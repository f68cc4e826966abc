/* SPDX-License-Identifier: MIT */
/*
 * A stream's file after a kill, mended (upmc_trace_repair()): killed at
 * random moments while it streams, a process leaves a file that, once
 * repaired, protoc decodes with every append done before the kill; a file
 * cut at any byte keeps the packets before the cut; a file that is not a
 * trace cut short is refused and left as it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

#define AN_HOUR 3600000 /* ms: the stream's own thread never appends in a test */
#define KILLS   100

static const struct upmc_zone_loc frame_loc = {"frame", "loop", "game.c", 10};
static const struct upmc_zone_loc physics_loc = {"physics", "loop", "game.c", 20};

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

/* The whole file, *len its bytes; NULL when unreadable. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long size = file_size(path);
	unsigned char *bytes = size >= 0 ? malloc((size_t)size + 1) : NULL;

	*len = 0;
	if (f && bytes)
		*len = fread(bytes, 1, (size_t)size, f);
	if (f)
		fclose(f);
	if (!f || *len != (size_t)size) {
		free(bytes);
		return NULL;
	}
	return bytes;
}

static int spill(const char *path, const void *bytes, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(bytes, 1, len, f) == len;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* Appends to path what it lacks of bytes [0, len) (it holds a prefix). */
static int grow(const char *path, const unsigned char *bytes, size_t len)
{
	long size = file_size(path);
	FILE *f = size >= 0 && (size_t)size <= len ? fopen(path, "ab") : NULL;
	int ok = f && fwrite(bytes + size, 1, len - (size_t)size, f) == len - (size_t)size;

	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* A frame: two zones, a text. */
static void frame(void)
{
	upmc_zone_begin(&frame_loc);
	UPMC_ZONE_TEXT("level", 5);
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	upmc_zone_end();
	upmc_frame_mark();
}

/* A small stream's file, whole: `frames` frames in `appends` appends;
 * profile_flags UPMC_PROFILE_UNCOMPRESSED: each a packet at a time, else
 * each a compressed chunk. */
static int small_stream(const char *path, int frames, int appends, unsigned profile_flags)
{
	struct upmc_profile_options o = {sizeof(o), 0, profile_flags, 0, 0};
	struct upmc_profile *p = NULL;
	int k;

	sim_reset(48);
	if (upmc_profile_open(&p, "instructions,cycles", &o) < 0 ||
	    upmc_profile_stream(p, path, AN_HOUR) < 0)
		return -1;
	for (k = 0; k < frames; k++) {
		frame();
		if (k % (frames / appends) == 0 && upmc_profile_stream_flush(p) < 0)
			return -1;
	}
	if (upmc_profile_stream_end(p) < 0)
		return -1;
	upmc_profile_close(p);
	return 0;
}

static void put_varint(FILE *f, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		fputc((int)(v & 0x7f) | 0x80, f);
	fputc((int)v, f);
}

/* The traces one protoc run decodes, and the packets each must hold. */
struct batch {
	FILE *f;
	uint64_t packets[KILLS];
	int n;
};

static void batch_add(struct batch *b, const unsigned char *trace, size_t len, uint64_t packets)
{
	fputc(0x0a, b->f); /* Traces.trace: field 1, length-delimited */
	put_varint(b->f, len);
	fwrite(trace, 1, len, b->f);
	b->packets[b->n++] = packets;
}

/* Each trace of the batch, decoded by one protoc run: its packets as many
 * as the repair counted, and the trace processor's reading resolves. 0, or
 * -1 with why. */
static int batch_decode(const char *batch_path, const struct batch *b, char *why, size_t size)
{
	int unknown = 0, n = 0, bad = 0;
	struct pb_node *tree = pb_decode_batch(batch_path, &unknown, why, size);
	size_t i;

	if (tree && unknown) {
		snprintf(why, size, "%d unknown fields", unknown);
		bad = 1;
	}

	for (i = 0; tree && !bad && i < tree->n; i++) {
		const struct pb_node *trace = tree->kid[i];
		struct pb_trace tr;
		/* the file's packets, chunks whole (the decode inflated them) */
		uint64_t packets = i < PB_MAX_BATCH ? pb_outer_packets[i] : 0;
		if (n >= b->n || packets != b->packets[n]) {
			snprintf(why, size, "trace %d: %llu packets decoded", n,
			         (unsigned long long)packets);
			bad = 1;
		} else if (pb_interpret(trace, &tr, why, size) < 0) {
			bad = 1;
		} else {
			pb_trace_free(&tr);
		}
		n++;
	}
	if (tree && !bad && n != b->n) {
		snprintf(why, size, "%d traces decoded of %d", n, b->n);
		bad = 1;
	}
	pb_free(tree);
	return tree && !bad ? 0 : -1;
}

/* A whole trace: nothing to do, and the file is as it was. */
TEST(repair, a_whole_trace_stays_as_it_was)
{
	struct upmc_trace_repair_info info = {sizeof(info), 0, 0, 0};
	char path[256];
	unsigned char *before, *after;
	size_t n_before, n_after;

	temp_path(path, sizeof(path), "whole");
	ASSERT_MSG(small_stream(path, 6, 3, UPMC_PROFILE_UNCOMPRESSED) == 0, "%s",
	           upmc_last_error());
	before = slurp(path, &n_before);
	ASSERT(before);
	ASSERT_MSG(upmc_trace_repair(path, &info) == 0, "%s", upmc_last_error());
	EXPECT_EQ_U64(info.bytes_removed, 0);
	EXPECT_EQ_U64(info.bytes, n_before);
	EXPECT(info.packets > 6);
	after = slurp(path, &n_after);
	EXPECT(after && n_after == n_before && !memcmp(before, after, n_before));
	EXPECT_EQ(upmc_trace_repair(path, NULL), 0);
	free(before);
	free(after);
	unlink(path);
}

/*
 * The file cut at every byte and repaired: it ends at the last packet
 * boundary at or before the cut (a cut inside the first packet is taken
 * for no trace, and left); the file cut at each boundary is a trace protoc
 * decodes into as many packets as the repair counted, and the trace
 * processor's reading of it resolves (interned names, the clock, counters:
 * no packet needs one after it).
 */
static void cut_at_every_byte(const char *name, int frames, int appends, unsigned profile_flags)
{
	char path[256], part[300], batch_path[300], why[512];
	unsigned char *whole;
	size_t len, cut;
	uint64_t last_bytes = 0, last_packets = 0;
	int boundaries = 0, have_protoc = pb_have_protoc();
	static struct batch b;

	temp_path(path, sizeof(path), name);
	snprintf(part, sizeof(part), "%s.cut", path);
	snprintf(batch_path, sizeof(batch_path), "%s.batch", path);
	b.f = fopen(batch_path, "wb");
	b.n = 0;
	ASSERT(b.f);
	ASSERT_MSG(small_stream(path, frames, appends, profile_flags) == 0, "%s",
	           upmc_last_error());
	whole = slurp(path, &len);
	ASSERT(whole && len > 0 && spill(part, "", 0) == 0);
	for (cut = 0; cut <= len; cut++) {
		struct upmc_trace_repair_info info = {sizeof(info), 0, 0, 0};
		int err;
		ASSERT(grow(part, whole, cut) == 0);
		err = upmc_trace_repair(part, &info);
		if (cut > 0 && last_packets == 0 && err == -EINVAL) {
			/* inside the first packet, which a kill does not cut: no trace */
			ASSERT_MSG(file_size(part) == (long)cut, "cut at %zu", cut);
			continue;
		}
		ASSERT_MSG(err == 0, "cut at %zu: %s", cut, upmc_last_error());
		ASSERT_MSG(info.bytes + info.bytes_removed == cut, "cut at %zu", cut);
		ASSERT_MSG(file_size(part) == (long)info.bytes, "cut at %zu", cut);
		/* the boundaries only grow with the cut, and a cut at one keeps it */
		ASSERT_MSG(info.bytes >= last_bytes && info.packets >= last_packets, "cut at %zu",
		           cut);
		if (info.bytes_removed == 0 && info.bytes > last_bytes) {
			ASSERT_MSG(info.packets == last_packets + 1, "cut at %zu", cut);
			ASSERT(boundaries < KILLS);
			boundaries++;
			batch_add(&b, whole, cut, info.packets);
		}
		last_bytes = info.bytes;
		last_packets = info.packets;
	}
	ASSERT(fclose(b.f) == 0);
	EXPECT(boundaries > 8);
	if (have_protoc)
		EXPECT_MSG(batch_decode(batch_path, &b, why, sizeof(why)) == 0, "%s", why);
	unlink(batch_path);
	printf("%zu cuts of a %zu-byte trace repaired: %d packet boundaries%s\n", len + 1, len,
	       boundaries,
	       have_protoc ? ", each decoded by protoc" : " (no protoc to decode them)");
	free(whole);
	unlink(part);
	unlink(path);
}

TEST(repair, a_cut_at_any_byte_keeps_the_packets_before_it)
{
	cut_at_every_byte("cuts", 4, 2, UPMC_PROFILE_UNCOMPRESSED);
}

/* The same where each append is a compressed chunk: a cut keeps the
 * chunks before it, and each inflates and decodes on its own terms. */
TEST(repair, a_cut_at_any_byte_keeps_the_chunks_before_it)
{
	cut_at_every_byte("chunks", 24, 12, 0);
}

/* Writes bytes to path, repairs it, and expects -EINVAL, a sentence that
 * names the file, and the file as it was. */
static void expect_refused(const char *path, const void *bytes, size_t len, const char *what)
{
	struct upmc_trace_repair_info info = {sizeof(info), 7, 7, 7};
	unsigned char *after;
	size_t n_after;

	ASSERT(spill(path, bytes, len) == 0);
	EXPECT_MSG(upmc_trace_repair(path, &info) == -EINVAL, "%s", what);
	EXPECT_CONTAINS(upmc_last_error(), path);
	EXPECT_CONTAINS(upmc_last_error(), "is not a Perfetto trace");
	EXPECT_CONTAINS(upmc_last_error(), "left as it was");
	EXPECT_MSG(info.packets == 7 && info.bytes == 7 && info.bytes_removed == 7, "%s", what);
	after = slurp(path, &n_after);
	EXPECT_MSG(after && n_after == len && !memcmp(after, bytes, len), "%s changed", what);
	free(after);
}

/* Files that are no trace, or whose bytes before the end are no packet (a
 * kill cuts a file only in its last packet): refused, untouched. */
TEST(repair, what_is_not_a_trace_cut_short_stays_as_it_was)
{
	static const char json[] = "{\"traceEvents\": []}\n";
	static const char text[] = "\nmenu\nquit\n"; /* a newline: the packet tag's byte */
	char path[256], other[300];
	unsigned char *trace, *tail;
	size_t len;

	temp_path(path, sizeof(path), "notrace");
	snprintf(other, sizeof(other), "%s.json", path);
	expect_refused(other, json, strlen(json), "JSON");
	expect_refused(other, text, strlen(text), "text");
	ASSERT_MSG(small_stream(path, 2, 1, UPMC_PROFILE_UNCOMPRESSED) == 0, "%s",
	           upmc_last_error());
	trace = slurp(path, &len);
	ASSERT(trace);
	tail = malloc(len + 64);
	ASSERT(tail);
	memcpy(tail, trace, len);
	memset(tail + len, 0, 64); /* zeros after whole packets */
	expect_refused(other, tail, len + 64, "zeros after the packets");
	memcpy(tail + len, json, strlen(json));
	expect_refused(other, tail, len + strlen(json), "JSON after the packets");
	EXPECT_CONTAINS(upmc_last_error(), "whole packets");
	free(tail);
	free(trace);
	unlink(other);
	unlink(path);
}

/* Bad arguments and files that cannot be read or cut: -errno, a sentence. */
TEST(repair, errors_are_said)
{
	struct upmc_trace_repair_info info = {sizeof(info), 0, 0, 0}, old = {4, 0, 0, 0};
	char path[256], dir[300];
	unsigned char *trace;
	size_t len;

	EXPECT_EQ(upmc_trace_repair(NULL, &info), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "NULL");
	temp_path(path, sizeof(path), "errors");
	EXPECT_EQ(upmc_trace_repair(path, &info), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), path);
	ASSERT(spill(path, "", 0) == 0); /* an empty trace is whole */
	EXPECT_EQ(upmc_trace_repair(path, &old), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_trace_repair_info.size is 4");
	EXPECT_EQ(upmc_trace_repair(path, &info), 0);
	EXPECT_EQ_U64(info.packets, 0);
	EXPECT_EQ_U64(info.bytes, 0);
	snprintf(dir, sizeof(dir), "%s.dir", path);
	ASSERT(mkdir(dir, 0700) == 0);
	EXPECT_EQ(upmc_trace_repair(dir, &info), -EISDIR);
	EXPECT_CONTAINS(upmc_last_error(), "cannot read");
	rmdir(dir);
	/* a cut trace the caller may read but not write (root may write it) */
	ASSERT_MSG(small_stream(path, 2, 1, UPMC_PROFILE_UNCOMPRESSED) == 0, "%s",
	           upmc_last_error());
	trace = slurp(path, &len);
	ASSERT(trace && spill(path, trace, len - 1) == 0);
	free(trace);
	ASSERT(chmod(path, 0400) == 0);
	if (access(path, W_OK) != 0) {
		EXPECT_EQ(upmc_trace_repair(path, &info), -EACCES);
		EXPECT_CONTAINS(upmc_last_error(), "to cut it");
		EXPECT_EQ(file_size(path), (long)len - 1);
	}
	unlink(path);
}

/* ---- kills at random moments ---- */

#define ZONES_AN_APPEND 64 /* with their texts, some 70 KiB an append */
#define MAX_DELAY_US    1500
#define MIN_CUTS        1  /* kills that cut a packet: 100 more kills until one did */
#define MORE_KILLS_S    20 /* but not past this, in seconds */
#define WARM_APPENDS    4

/* The child: streams zones with long texts, a flush after every few, and
 * tells the parent the file's size after each append is done, from the
 * WARM_APPENDS-th on (its buffers grown by then: the appends to come are
 * like each other). */
static void stream_until_killed(const char *path, unsigned profile_flags, int report)
{
	/* buffers of a few appends: a larger one costs the child its page faults */
	struct upmc_profile_options small = {sizeof(small), 0, profile_flags, 256 * 1024, 0};
	struct upmc_profile *p = NULL;
	char text[UPMC_ZONE_TEXT_MAX];
	uint64_t noise = 0x9e3779b97f4a7c15ull;
	int k, appends;
	size_t i;

	if (upmc_profile_open(&p, NULL, &small) < 0 || upmc_profile_stream(p, path, AN_HOUR) < 0)
		_exit(2);
	for (appends = 1;; appends++) {
		long size = file_size(path);
		if (appends >= WARM_APPENDS && write(report, &size, sizeof(size)) != sizeof(size))
			_exit(3);
		for (k = 0; k < ZONES_AN_APPEND; k++) {
			/* texts that do not compress: appends as large compressed */
			for (i = 0; i < sizeof(text); i++) {
				noise ^= noise << 13, noise ^= noise >> 7, noise ^= noise << 17;
				text[i] = (char)('a' + noise % 26);
			}
			upmc_zone_begin(&physics_loc);
			upmc_zone_text(text, sizeof(text));
			upmc_zone_end();
		}
		if (upmc_profile_stream_flush(p) < 0)
			_exit(4);
	}
}

struct kill_result {
	long done;           /* the file's size after the last append reported done */
	long at_death;       /* its size after the kill */
	unsigned char *left; /* the file as the kill left it (free it) */
	size_t n_left;
	struct upmc_trace_repair_info info;
};

/* One kill at a random moment of a stream, and the repair. */
static int kill_and_repair(const char *path, unsigned profile_flags, unsigned delay_us,
                           struct kill_result *out)
{
	struct timespec delay = {0, (long)delay_us * 1000};
	int report[2], status;
	long size;
	pid_t child;

	if (pipe(report) < 0)
		return -1;
	child = fork();
	if (child == 0) {
		close(report[0]);
		stream_until_killed(path, profile_flags, report[1]);
	}
	close(report[1]);
	if (child < 0 || read(report[0], &out->done, sizeof(out->done)) != sizeof(out->done)) {
		close(report[0]);
		return -1;
	}
	nanosleep(&delay, NULL);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	while (read(report[0], &size, sizeof(size)) == sizeof(size))
		out->done = size;
	close(report[0]);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		return -1;
	out->at_death = file_size(path);
	out->left = slurp(path, &out->n_left);
	out->info = (struct upmc_trace_repair_info){sizeof(out->info), 0, 0, 0};
	return upmc_trace_repair(path, &out->info);
}

/* The clock's calibration (20 ms, once a process), done here, so that
 * each child inherits it rather than spend it. */
static void warm_the_clock(void)
{
	struct upmc_profile *p = NULL;

	if (upmc_profile_open(&p, NULL, NULL) == 0)
		upmc_profile_close(p);
}

/* protoc decodes the batch (trace_batch.proto): how many traces, each
 * one's packets counted into packets[], or -1 with why. Line by line, so
 * that no trace is too large to count. */
static int count_batch(const char *batch, uint64_t *packets, int most, char *why, size_t size)
{
	char cmd[768], line[4096];
	int traces = 0, status;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
	         "protoc --decode=upmc.test.Traces --proto_path=tests/perfetto "
	         "tests/perfetto/trace_batch.proto < %s 2>&1",
	         batch);
	f = popen(cmd, "r");
	snprintf(why, size, "protoc did not run");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "trace {", 7) && traces < most)
			packets[traces++] = 0;
		else if (!strncmp(line, "  packet {", 10) && traces > 0)
			packets[traces - 1]++;
		else if (line[0] != ' ' && line[0] != '}')
			snprintf(why, size, "%.200s", line);
	}
	status = f ? pclose(f) : -1;
	return status == 0 ? traces : -1;
}

/* What the kills did, all rounds together. */
struct kill_tally {
	int kills, checked, cuts, rounds_whole;
	uint64_t removed, most_removed, bytes;
};

/* One kill's file, repaired, checked and put in the batch. */
static void check_kill(const char *path, const struct kill_result *r, struct kill_tally *t,
                       struct batch *b)
{
	char cut_path[300], why[512];
	unsigned char *kept;
	size_t len;
	int unknown;

	ASSERT_MSG(r->info.bytes >= (uint64_t)r->done, "kill %d: %llu bytes kept of %ld done",
	           t->kills, (unsigned long long)r->info.bytes, r->done);
	ASSERT_MSG(r->info.bytes + r->info.bytes_removed == (uint64_t)r->at_death &&
	                   file_size(path) == (long)r->info.bytes,
	           "kill %d", t->kills);
	kept = slurp(path, &len);
	ASSERT(kept);
	batch_add(b, kept, len, r->info.packets);
	free(kept);
	t->bytes += r->info.bytes;
	t->removed += r->info.bytes_removed;
	if (r->info.bytes_removed > t->most_removed)
		t->most_removed = r->info.bytes_removed;
	if (r->info.bytes_removed && !t->cuts++) {
		/* the file as the kill left it, which the repair is for */
		struct pb_node *tree = NULL;
		snprintf(cut_path, sizeof(cut_path), "%s.cut", path);
		if (r->left && spill(cut_path, r->left, r->n_left) == 0)
			tree = pb_decode_file(cut_path, &unknown, why, sizeof(why));
		EXPECT_MSG(r->left && !tree, "a file a kill cut decodes before its repair");
		pb_free(tree);
		unlink(cut_path);
	}
	t->checked++;
}

/* KILLS kills at random moments, each file repaired and checked, and the
 * batch decoded by protoc, packet for packet as the repairs counted. */
static void kill_round(const char *path, unsigned profile_flags, unsigned *seed,
                       struct kill_tally *t)
{
	static struct batch b;
	char batch_path[300], why[512];
	uint64_t decoded[KILLS];
	int i, traces;

	snprintf(batch_path, sizeof(batch_path), "%s.batch", path);
	b.f = fopen(batch_path, "wb");
	b.n = 0;
	ASSERT(b.f);
	for (i = 0; i < KILLS; i++) {
		struct kill_result r = {0};
		unsigned delay = (unsigned)rand_r(seed) % (MAX_DELAY_US + 1);
		int err = kill_and_repair(path, profile_flags, delay, &r);
		ASSERT_MSG(err == 0, "kill %d at %u us: %d %s", t->kills, delay, err,
		           upmc_last_error());
		check_kill(path, &r, t, &b);
		free(r.left);
		unlink(path);
		ASSERT(t->checked == ++t->kills);
	}
	ASSERT(fclose(b.f) == 0);
	traces = count_batch(batch_path, decoded, KILLS, why, sizeof(why));
	ASSERT_MSG(traces == b.n, "protoc: %d traces of %d: %s", traces, b.n, why);
	for (i = 0; i < b.n; i++)
		ASSERT_MSG(
		        decoded[i] == b.packets[i],
		        "trace %d of the batch: protoc decoded %llu packets, the repair kept %llu",
		        i, (unsigned long long)decoded[i], (unsigned long long)b.packets[i]);
	/* every chunk of every file inflated, and the events read */
	ASSERT_MSG(batch_decode(batch_path, &b, why, sizeof(why)) == 0, "%s", why);
	ASSERT((pb_chunks_inflated > 0) == !(profile_flags & UPMC_PROFILE_UNCOMPRESSED));
	unlink(batch_path);
	t->rounds_whole++;
}

/*
 * A process streams zones (long texts: large appends, each one write(2))
 * and is killed at a random moment, 100 times. Each time, the repaired
 * file holds every append the process finished before it died, and protoc
 * decodes it, packet for packet as the repair counted; the first file a
 * kill cut does not decode before its repair. Few kills land inside a
 * write (one in 20 on an idle machine here for an uncompressed stream,
 * fewer on a busy one, and fewer still compressed: its writes are smaller):
 * while none did, 100 more, for up to MORE_KILLS_S.
 */
static void kills_at_random_moments(unsigned profile_flags)
{
	struct kill_tally t = {0};
	struct timespec t0, t1;
	char path[256];
	unsigned seed;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	seed = getenv("UPMC_KILL_SEED") ? (unsigned)strtoul(getenv("UPMC_KILL_SEED"), NULL, 0)
	                                : (unsigned)time(NULL) ^ (unsigned)getpid();
	printf("seed %u (UPMC_KILL_SEED=%u repeats these moments)\n", seed, seed);
	temp_path(path, sizeof(path), "killed");
	warm_the_clock();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		kill_round(path, profile_flags, &seed, &t);
		clock_gettime(CLOCK_MONOTONIC, &t1);
	} while (t.rounds_whole * KILLS == t.kills && t.cuts < MIN_CUTS &&
	         t1.tv_sec - t0.tv_sec < MORE_KILLS_S);
	ASSERT(t.rounds_whole * KILLS == t.kills);
	printf("%d kills 0-%d us into a stream, %.2f s: %d cut a packet (%llu bytes removed, at "
	       "most %llu); %.0f KiB kept a file on average, every append done kept, all "
	       "decoded\n",
	       t.kills, MAX_DELAY_US,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, t.cuts,
	       (unsigned long long)t.removed, (unsigned long long)t.most_removed,
	       (double)t.bytes / t.kills / 1024);
	if (t.cuts < MIN_CUTS)
		SKIP("none of %d kills landed inside a write (a busy machine?): every file was "
		     "whole, and the repair of a cut packet was not exercised",
		     t.kills);
}

TEST(repair, kills_at_random_moments_keep_every_append_done)
{
	kills_at_random_moments(0);
}

/* The same, uncompressed: writes about twice as large, so that more kills
 * land inside one and the repair of a cut packet runs in nearly every run. */
TEST(repair, kills_at_random_moments_keep_every_append_done_uncompressed)
{
	kills_at_random_moments(UPMC_PROFILE_UNCOMPRESSED);
}
