/* SPDX-License-Identifier: MIT */
/*
 * Zones streamed into a Perfetto file while the program runs: a thread of
 * the library's collects every interval, encodes what it took with a
 * Perfetto writer that keeps its state across appends (perfetto.c:
 * interned names, timestamps and counters as deltas), appends the packets
 * with one write and forgets them. So the file holds whole packets
 * whenever the program stops between two appends (a kill inside one can
 * cut its last packet: upmc_trace_repair() mends that), and memory stays
 * bounded: the buffers by max_bytes, the rest by what one interval records.
 *
 * An append collects and encodes under the collector's lock (as any
 * collect does), takes the packets out of the writer, and compresses and
 * writes them with only the stream's writing lock held (upmc_os_stream_
 * lock(), taken first): a write that blocks (a full disk, a FIFO no one
 * reads) keeps no recording thread, collect or export waiting, only the
 * stream's next append. upmc_profile_stream_flush() appends from the
 * calling thread; a clear encodes what it is about to forget, which the
 * next append writes. While a stream runs, and
 * once one ended, every collect keeps events (upmc_zone_collect_locked()),
 * so that a user's collect between two appends, or between one stream's
 * end and the next one's start, loses none to the streams. The file is
 * opened outside the lock (a FIFO's open waits for a reader), while the
 * stream is reserved but not yet running.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

#define DEFAULT_INTERVAL_MS 100

struct zone_stream {
	struct upmc_profile *p;
	FILE *f;
	uint64_t written;               /* bytes of whole appends in the file */
	struct upmc_zone_perfetto *w;   /* the collector's lock held */
	struct upmc_zone_chunks *taken; /* the writing lock held */
	struct upmc_os_thread *thread;
	unsigned interval_ms;
	int stop;               /* the thread's loop ends */
	int opening;            /* reserved: the file is being opened, outside the lock */
	int ending;             /* upmc_profile_stream_end() has begun */
	int err;                /* the first error (set under both locks); its sentence in why */
	uint64_t zones_encoded; /* zones in the writer's packets (the collector's lock) */
	uint64_t zones_taken;   /* zones in the taken bytes (the writing lock) */
	char why[512];
	uint64_t pid; /* the process that streams: a forked child only closes */
};

/* The stream's first error, kept with its sentence; 0 stays 0. */
static int stream_fail(struct zone_stream *s, int err)
{
	if (err < 0 && !s->err) {
		s->err = err;
		upmc_format(s->why, sizeof(s->why), "%s", upmc_last_error());
	}
	return s->err;
}

static int stream_said(const struct zone_stream *s)
{
	return s->err ? upmc_fail(s->err, "%s", s->why) : 0;
}

/* The stream stops writing events. Kept (keep): collects go on keeping
 * them for the next stream, so that a zone begun after this end is in its
 * file even when an export or upmc_profile_zones() collects it before that
 * stream starts (another thread may, between the end and the start). Not
 * kept (an error, a forked child): what stays collected goes only to the
 * other exports. Either way a zone open now had its begin in this file, if
 * anywhere: its end goes into no other. */
static void stop_events(struct upmc_profile *p, int keep)
{
	struct upmc_zone_thread *t;

	p->streaming = keep;
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		t->streaming = keep;
		t->n_events = t->n_event_values = 0;
		upmc_zone_unstream_open(t);
	}
}

/* Appends the bytes taken, whole: a write that fails is cut off, so
 * that the file ends where the last whole append did. The writing lock
 * held, not the collector's. */
static int stream_write(struct zone_stream *s)
{
	const uint8_t *bytes = NULL;
	size_t len = 0;
	int err = upmc_zone_chunks_bytes(s->taken, &bytes, &len);

	if (err < 0 || len == 0)
		return err;
	errno = 0;
	if (fwrite(bytes, 1, len, s->f) == len && fflush(s->f) == 0) {
		s->written += len;
		return 0;
	}
	err = errno ? errno : EIO;
	clearerr(s->f);
	upmc_os_truncate(s->f, s->written);
	fseek(s->f, 0, SEEK_END);
	return upmc_fail(-err,
	                 "a zone stream's append failed, the file ends at its last whole "
	                 "append (%llu bytes), and the %llu zones of this append are lost: %s",
	                 (unsigned long long)s->written, (unsigned long long)s->zones_taken,
	                 strerror(err));
}

/* What was collected: encoded, and forgotten; the packets wait in the
 * writer for the next append to take them. The collector's lock held.
 * After an error the stream encodes no more. */
static int stream_encode_collected(struct zone_stream *s)
{
	struct upmc_zone_thread *t;
	int err;

	if (s->err)
		return s->err;
	err = upmc_zone_perfetto_append(s->w);
	if (err < 0) {
		stop_events(s->p, 0); /* the zones of this append stay for the other exports */
		return stream_fail(s, err);
	}
	for (t = upmc_zone_threads(s->p); t; t = upmc_zone_thread_next(t)) {
		s->zones_encoded += t->n_zones;
		upmc_zone_forget_events(t);
	}
	return 0;
}

/* One append's first half, the collector's lock held: collect, encode,
 * and take every packet encoded so far (a clear's too) out of the writer. */
static int stream_take(struct zone_stream *s, int final)
{
	int err;

	if (s->err)
		return s->err;
	/* A collect that ran out of memory took what it could: that is
	 * written, the rest waits for the next append. */
	upmc_zone_collect_locked(s->p, final);
	err = stream_encode_collected(s);
	if (err == 0) {
		upmc_zone_perfetto_take(s->w, s->taken);
		s->zones_taken = s->zones_encoded;
		s->zones_encoded = 0;
	}
	return err;
}

/* Its second half, with the writing lock alone: compressed and written.
 * A failure is kept under the collector's lock too, and stops the events. */
static int stream_put(struct zone_stream *s)
{
	int err = stream_write(s);

	upmc_zone_chunks_sent(s->taken);
	if (err < 0) {
		upmc_zone_collector_lock();
		if (!s->ending)
			stop_events(s->p, 0);
		stream_fail(s, err);
		upmc_zone_collector_unlock();
	}
	return err;
}

/* One append, the writing lock held, the collector's not. */
static int stream_append(struct zone_stream *s, int final)
{
	int err;

	upmc_zone_collector_lock();
	err = stream_take(s, final);
	upmc_zone_collector_unlock();
	return err < 0 ? err : stream_put(s);
}

/* Whether the calling process may write the stream's file: a forked
 * child's stream is the parent's, and the child has no stream thread. */
static int own_stream(const struct zone_stream *s)
{
	return s->pid == upmc_os_process_id();
}

static void stream_thread(struct upmc_os_thread *self, void *arg)
{
	struct zone_stream *s = arg;
	int err = 0;

	while (!err && !__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		upmc_os_thread_sleep(self, s->interval_ms);
		if (__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
			break;
		upmc_os_stream_lock();
		err = stream_append(s, 0); /* s->err, read under the lock */
		upmc_os_stream_unlock();
	}
}

static void stream_free(struct zone_stream *s)
{
	if (s->f)
		fclose(s->f);
	upmc_zone_perfetto_free(s->w);
	upmc_zone_chunks_free(s->taken);
	free(s);
}

/* The end of the stream s, claimed (ending set): the thread stopped, a
 * last append (final: the recording threads are quiescent) taken and let
 * go of in one hold of the collector's lock (no clear encodes into it
 * after), then written, the file closed. In a forked child the file is
 * the parent's, and the child has no stream thread: it only lets go. */
static int stream_finish(struct upmc_profile *p, struct zone_stream *s, int final)
{
	int own = own_stream(s), took, err;

	if (own) {
		__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
		upmc_os_thread_wake(s->thread);
		upmc_os_thread_join(s->thread);
	}
	upmc_os_stream_lock();
	upmc_zone_collector_lock();
	took = own && stream_take(s, final) == 0;
	stop_events(p, own && !s->err);
	p->stream = NULL;
	p->at_close = NULL;
	p->at_clear = NULL;
	p->at_retire = NULL;
	upmc_zone_collector_unlock();
	if (took)
		stream_put(s);
	upmc_os_stream_unlock();
	upmc_zone_collector_lock();
	err = stream_said(s);
	upmc_zone_collector_unlock();
	stream_free(s);
	return err;
}

/* The end, from whoever claims it first: not while the stream starts. */
static int stream_end(struct upmc_profile *p, int final)
{
	struct zone_stream *s;

	upmc_zone_collector_lock();
	s = p->stream;
	if (s && (s->ending || s->opening))
		s = NULL;
	if (s)
		s->ending = 1;
	upmc_zone_collector_unlock();
	if (!s)
		return upmc_fail(-ENOENT, "upmc_profile_stream_end: no stream runs");
	return stream_finish(p, s, final);
}

static void stream_at_close(struct upmc_profile *p)
{
	stream_end(p, 1);
}

/* Before a clear forgets what was collected: encoded, for the next
 * append to write, so that the file has every zone and no end without its
 * begin (set once the file took its first append, its thread still
 * starting or not). Not in a forked child. */
static void stream_at_clear(struct upmc_profile *p)
{
	struct zone_stream *s = p->stream;

	if (s && own_stream(s))
		stream_encode_collected(s);
}

/* A thread retired: it has nothing left to append, and its sequence goes,
 * so that a stream keeps nothing of the threads gone. */
static void stream_at_retire(struct upmc_profile *p, const struct upmc_zone_thread *t)
{
	struct zone_stream *s = p->stream;

	if (s && s->w)
		upmc_zone_perfetto_forget(s->w, t);
}

/* The stream reserved under the collector's lock (-EBUSY when one is
 * there), to be opened outside it. */
static int stream_reserve(struct upmc_profile *p, unsigned interval_ms, struct zone_stream **out)
{
	struct zone_stream *s;

	if (p->stream)
		return upmc_fail(-EBUSY,
		                 "upmc_profile_stream: a stream runs already: end it first");
	s = calloc(1, sizeof(*s));
	if (s) {
		s->w = upmc_zone_perfetto_new(p, !(p->profile_flags & UPMC_PROFILE_UNCOMPRESSED));
		s->taken = upmc_zone_chunks_new(UPMC_ZONE_STREAM_LEVEL);
	}
	if (!s || !s->w || !s->taken) {
		if (s)
			stream_free(s);
		return upmc_fail(-ENOMEM, "upmc_profile_stream: out of memory");
	}
	s->p = p;
	s->pid = upmc_os_process_id();
	s->interval_ms = interval_ms ? interval_ms : DEFAULT_INTERVAL_MS;
	s->opening = 1;
	p->stream = s;
	*out = s;
	return 0;
}

/* The stream's file, opened with no lock held: 0, or -errno said. */
static int stream_open_file(struct zone_stream *s, const char *path)
{
	int err;

	s->f = fopen(path, "wb");
	if (!s->f) {
		err = errno ? errno : EIO;
		return upmc_fail(-err, "upmc_profile_stream: cannot open '%s': %s", path,
		                 strerror(err));
	}
	setvbuf(s->f, NULL, _IONBF, 0); /* each append one write, whole */
	return 0;
}

/* The stream given up (its first append failed: ran, or not opened:
 * not), the collector's lock held. */
static void stream_give_up(struct upmc_profile *p, struct zone_stream *s, int ran)
{
	if (ran)
		stop_events(p, 0);
	p->stream = NULL;
	p->at_close = NULL;
	p->at_clear = NULL;
	p->at_retire = NULL;
	stream_free(s);
}

/* The reserved stream runs (opened: 0), its first append written (the file
 * is a trace from the start), or is given up. The writing lock held, not
 * the collector's. It stays opening, to the other calls no stream, until
 * its thread is there to stop (stream_thread_start()). */
static int stream_start(struct upmc_profile *p, struct zone_stream *s, int opened)
{
	int err = opened;

	upmc_zone_collector_lock();
	if (err == 0) {
		p->streaming = 1;
		p->at_close = stream_at_close;
		p->at_clear = stream_at_clear;
		p->at_retire = stream_at_retire;
		if (stream_take(s, 0) < 0)
			err = stream_said(s);
	}
	upmc_zone_collector_unlock();
	if (err == 0 && stream_put(s) < 0) {
		upmc_zone_collector_lock();
		err = stream_said(s);
		upmc_zone_collector_unlock();
	}
	if (err < 0) {
		upmc_zone_collector_lock();
		stream_give_up(p, s, opened == 0);
		upmc_zone_collector_unlock();
	}
	return err;
}

/* The started stream's thread; then the stream is open to the other calls
 * (an end before it would find no thread to stop). Without it, ended. */
static int stream_thread_start(struct upmc_profile *p, struct zone_stream *s)
{
	int err = upmc_os_thread_start(&s->thread, stream_thread, s);

	upmc_zone_collector_lock();
	s->opening = 0;
	if (err < 0) {
		s->ending = 1; /* claimed here: no other call ends it */
		s->pid = 0;    /* no thread to stop */
	}
	upmc_zone_collector_unlock();
	if (err < 0) {
		stream_finish(p, s, 0);
		return err;
	}
	return 0;
}

UPMC_API int upmc_profile_stream(struct upmc_profile *p, const char *path, unsigned interval_ms)
{
	struct zone_stream *s = NULL;
	int err;

	if (!p || !path)
		return upmc_fail(-EINVAL, "upmc_profile_stream: the profile or path is NULL");
	err = upmc_zone_refuse_in_callback("upmc_profile_stream");
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	err = stream_reserve(p, interval_ms, &s);
	upmc_zone_collector_unlock();
	if (err < 0)
		return err;
	err = stream_open_file(s, path);
	upmc_os_stream_lock();
	err = stream_start(p, s, err);
	upmc_os_stream_unlock();
	if (err < 0)
		return err;
	return stream_thread_start(p, s);
}

UPMC_API int upmc_profile_stream_flush(struct upmc_profile *p)
{
	struct zone_stream *s = NULL;
	int err;

	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_stream_flush: the profile is NULL");
	err = upmc_zone_refuse_in_callback("upmc_profile_stream_flush");
	if (err < 0)
		return err;
	upmc_os_stream_lock(); /* an end waits for it: the stream stays */
	upmc_zone_collector_lock();
	if (!p->stream || p->stream->ending || p->stream->opening)
		err = upmc_fail(-ENOENT, "upmc_profile_stream_flush: no stream runs");
	else if (!own_stream(p->stream))
		err = upmc_fail(-ECHILD,
		                "upmc_profile_stream_flush: this process was forked from the one "
		                "that streams: the file is the parent's, and a child appends "
		                "nothing to it (upmc_profile_stream_end() lets go of it here)");
	else if (stream_take(s = p->stream, 0) < 0)
		err = stream_said(s);
	upmc_zone_collector_unlock();
	if (s && err == 0 && stream_put(s) < 0) {
		upmc_zone_collector_lock();
		err = stream_said(s);
		upmc_zone_collector_unlock();
	}
	upmc_os_stream_unlock();
	return err;
}

UPMC_API int upmc_profile_stream_end(struct upmc_profile *p)
{
	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_stream_end: the profile is NULL");
	if (upmc_zone_refuse_in_callback("upmc_profile_stream_end") < 0)
		return -EDEADLK;
	return stream_end(p, 0);
}
