/* SPDX-License-Identifier: MIT */
/*
 * Zones measured once per run, beside the table of costs: a thread
 * recording flat out while another collects every millisecond (does
 * anything drop?), and the bytes a zone takes in each export format, of
 * a recording shaped like a game's frames.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/overhead.h"

#define FLAT_OUT_MS 300
#define SIZE_FRAMES 20000 /* of 5 zones */

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

/* ---- one thread flat out, collected every 1 ms ---- */

static int recording;

static void *flat_out(void *arg)
{
	static const struct upmc_zone_loc loc = {"flat out", "flat_out", __FILE__, __LINE__};

	(void)arg;
	while (__atomic_load_n(&recording, __ATOMIC_RELAXED)) {
		upmc_zone_begin(&loc);
		upmc_zone_end();
	}
	return NULL;
}

static void measure_flat_out(struct bench_flat_out *f)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 1 << 20, 0}; /* the default max */
	struct timespec ms = {0, 1000000};
	struct upmc_profile_stats st;
	struct upmc_profile *p;
	uint64_t start, busy = 0, t0;
	pthread_t th;
	int got;

	memset(f, 0, sizeof(*f));
	if (upmc_profile_open(&p, NULL, &o) < 0) {
		snprintf(f->skipped, sizeof(f->skipped), "%s", upmc_last_error());
		return;
	}
	__atomic_store_n(&recording, 1, __ATOMIC_RELAXED);
	if (pthread_create(&th, NULL, flat_out, NULL) != 0) {
		snprintf(f->skipped, sizeof(f->skipped), "cannot start a thread");
		upmc_profile_close(p);
		return;
	}
	start = now_ns();
	while (now_ns() - start < FLAT_OUT_MS * 1000000ull) {
		nanosleep(&ms, NULL);
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		got = upmc_profile_collect(p);
		upmc_profile_clear(p); /* a game exports, then forgets */
		busy += clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		if (got > 0)
			f->zones += (uint64_t)got;
	}
	__atomic_store_n(&recording, 0, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	f->ns = now_ns() - start;
	got = upmc_profile_collect(p);
	f->zones += got > 0 ? (uint64_t)got : 0;
	upmc_profile_stats(p, &st);
	f->dropped = st.dropped; /* forgotten by no clear: the drops are counted since */
	upmc_profile_memory(p, NULL, &f->peak_bytes);
	f->collector_share = (double)busy / (double)f->ns;
	upmc_profile_close(p);
}

/* ---- bytes per zone ---- */

static volatile unsigned work_sink;

/* Some work between a zone's events, so that its times differ as a
 * game's do (about a microsecond), not by a few cycles. */
static void work(unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		work_sink = work_sink * 31 + i;
}

static void game_frames(unsigned frames)
{
	unsigned k;

	for (k = 0; k < frames; k++) {
		UPMC_ZONE_BEGIN("frame");
		{
			UPMC_ZONE("physics");
			work(100);
		}
		{
			UPMC_ZONE("animation");
			work(100);
		}
		{
			UPMC_ZONE("render");
			{
				UPMC_ZONE("draw");
				work(200);
			}
		}
		UPMC_ZONE_END();
		upmc_frame_mark();
	}
}

/* The export's bytes; -1 when it could not be written. */
static long long export_bytes(struct upmc_profile *p, enum upmc_format format, const char *count,
                              uint64_t *found)
{
	char *text = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	long long bytes = -1;

	if (!f)
		return -1;
	if (upmc_profile_write(p, format, f) == 0 && fflush(f) == 0)
		bytes = (long long)len;
	for (at = text;
	     count && at && (at = memmem(at, len - (size_t)(at - text), count, strlen(count)));
	     at++)
		(*found)++;
	fclose(f);
	free(text);
	return bytes;
}

/* Chrome JSON saved as .gz (gzip): its bytes; -1 when not saved. */
static long long chrome_gz_bytes(struct upmc_profile *p)
{
	char path[] = "/tmp/upmc-bench-chrome-XXXXXX", gz[64];
	struct stat sb;
	long long bytes = -1;
	int fd = mkstemp(path);

	if (fd < 0)
		return -1;
	close(fd);
	unlink(path);
	snprintf(gz, sizeof(gz), "%s.json.gz", path);
	if (upmc_profile_save(p, UPMC_FORMAT_CHROME, gz) == 0 && stat(gz, &sb) == 0)
		bytes = (long long)sb.st_size;
	unlink(gz);
	return bytes;
}

static int measure_sizes(struct bench_sizes *s, const char *spec, unsigned flags, unsigned frames)
{
	struct upmc_profile_options o = {sizeof(o), flags, 0, 0, 0};
	struct upmc_profile *p;
	uint64_t nulls = 0, none = 0;
	int zones;

	memset(s, 0, sizeof(*s));
	snprintf(s->spec, sizeof(s->spec), "%s", spec ? spec : "");
	if (upmc_profile_open(&p, spec, &o) < 0) {
		snprintf(s->skipped, sizeof(s->skipped), "%s", upmc_last_error());
		return -1;
	}
	game_frames(frames);
	zones = upmc_profile_collect(p);
	s->zones = zones > 0 ? (uint64_t)zones : 0;
	if (s->zones) {
		s->chrome = (double)export_bytes(p, UPMC_FORMAT_CHROME, "null", &nulls) / s->zones;
		s->perfetto = (double)export_bytes(p, UPMC_FORMAT_PERFETTO, NULL, &none) / s->zones;
		s->perfetto_plain =
		        (double)export_bytes(p, UPMC_FORMAT_PERFETTO_UNCOMPRESSED, NULL, &none) /
		        s->zones;
		s->chrome_gz = (double)chrome_gz_bytes(p) / s->zones;
		s->speedscope =
		        (double)export_bytes(p, UPMC_FORMAT_SPEEDSCOPE, NULL, &none) / s->zones;
		s->chrome_nulls = (double)nulls / s->zones;
	}
	upmc_profile_close(p);
	return 0;
}

/* ---- a stream's cost per zone ---- */

#define STREAM_ROUNDS 5

/* Each round records SIZE_FRAMES frames, then appends them with
 * upmc_profile_stream_flush() on this thread, timed by its CPU clock (the
 * write's time in the kernel included). The stream's own thread waits
 * for a minute, which the rounds do not take. profile_flags:
 * UPMC_PROFILE_UNCOMPRESSED or 0; to: the file streamed into (NULL: a
 * new one, its bytes counted). */
static void measure_stream(struct bench_stream *s, unsigned profile_flags, const char *to)
{
	struct upmc_profile_options o = {sizeof(o), 0, profile_flags, 0, 0};
	char made[] = "/tmp/upmc-bench-stream-XXXXXX";
	const char *path = to ? to : made;
	struct upmc_profile *p = NULL;
	struct stat sb;
	uint64_t t0;
	double ns;
	int fd, k;

	memset(s, 0, sizeof(*s));
	if (!to) {
		fd = mkstemp(made);
		if (fd < 0) {
			snprintf(s->skipped, sizeof(s->skipped), "mkstemp: %s", strerror(errno));
			return;
		}
		close(fd);
	}
	if (upmc_profile_open(&p, NULL, &o) < 0 || upmc_profile_stream(p, path, 60000) < 0) {
		snprintf(s->skipped, sizeof(s->skipped), "%s", upmc_last_error());
		upmc_profile_close(p);
		if (!to)
			unlink(path);
		return;
	}
	for (k = 0; k < STREAM_ROUNDS; k++) {
		game_frames(SIZE_FRAMES);
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		upmc_profile_stream_flush(p);
		ns = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (SIZE_FRAMES * 5);
		if (k == 0 || ns < s->ns)
			s->ns = ns;
	}
	upmc_profile_stream_end(p);
	/* where the time goes: the collect's share, of as many zones */
	for (k = 0; k < STREAM_ROUNDS; k++) {
		game_frames(SIZE_FRAMES);
		t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		upmc_profile_collect(p);
		ns = (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (SIZE_FRAMES * 5);
		if (k == 0 || ns < s->collect_ns)
			s->collect_ns = ns;
		upmc_profile_clear(p);
	}
	s->zones = (uint64_t)STREAM_ROUNDS * SIZE_FRAMES * 5;
	if (!to && stat(path, &sb) == 0)
		s->bytes = (double)sb.st_size / (double)s->zones;
	upmc_profile_close(p);
	if (!to)
		unlink(path);
}

/* 4 counters: hardware events where they read in user space, else
 * software ones (each zone then two read(2): fewer zones). */
static void measure_counter_sizes(struct bench_sizes *s)
{
	if (measure_sizes(s, "instructions,cycles,instructions,instructions",
	                  UPMC_OPT_REQUIRE_USER_READ, SIZE_FRAMES) == 0)
		return;
	measure_sizes(s, "task-clock,page-faults,context-switches,cpu-migrations", 0,
	              SIZE_FRAMES / 10);
}

void bench_measure_zones(struct bench_zones *z)
{
	measure_flat_out(&z->flat_out);
	measure_stream(&z->stream, 0, NULL);
	measure_stream(&z->stream_plain, UPMC_PROFILE_UNCOMPRESSED, NULL);
	measure_stream(&z->stream_encode, UPMC_PROFILE_UNCOMPRESSED, "/dev/null");
	measure_sizes(&z->time_only, NULL, 0, SIZE_FRAMES);
	measure_counter_sizes(&z->counters);
	/* counters that did not count (a machine without them, time only) */
	measure_sizes(&z->uncounted, "instructions,cycles,branches,branch-misses",
	              UPMC_OPT_TIME_ONLY, SIZE_FRAMES / 10);
}
