/* SPDX-License-Identifier: MIT */
/*
 * Zones: the profile's life. Open (the options, the spec's counters and
 * metrics, the opener joined before any other thread can see it), collect,
 * clear, close, and the profile's functions but the exports. The threads
 * that join it are threads.c's; what they record, record.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

#define DEFAULT_BUFFER (1u << 20)
#define MIN_BUFFER     4096u
#define MAX_BUFFER     (1ull << 30)

#define DEFAULT_MAX (256ull << 20)

/* The block size and the memory cap. */
static int read_sizes(const struct upmc_profile_options *opts, struct upmc_profile *p)
{
	size_t bytes = opts->buffer_bytes ? opts->buffer_bytes : DEFAULT_BUFFER;
	uint64_t max = DEFAULT_MAX;

	if (bytes < MIN_BUFFER || bytes > MAX_BUFFER)
		return upmc_fail(
		        -EINVAL,
		        "upmc_profile_options.buffer_bytes is %zu: give 4 KiB to 1 GiB (0: "
		        "1 MiB)",
		        opts->buffer_bytes);
	if (opts->size >=
	            offsetof(struct upmc_profile_options, max_bytes) + sizeof(opts->max_bytes) &&
	    opts->max_bytes)
		max = opts->max_bytes;
	if (max < bytes)
		return upmc_fail(-EINVAL,
		                 "upmc_profile_options.max_bytes is %zu, less than one buffer of "
		                 "%zu bytes: give at least buffer_bytes (0: 256 MiB)",
		                 opts->max_bytes, bytes);
	p->block_bytes = offsetof(struct zone_block, word) + bytes;
	p->memory.max = max;
	return 0;
}

static int read_profile_options(const struct upmc_profile_options *opts, struct upmc_profile *p)
{
	int err;

	p->block_bytes = offsetof(struct zone_block, word) + DEFAULT_BUFFER;
	p->memory.max = DEFAULT_MAX;
	if (!opts)
		return 0;
	if (opts->size <
	    offsetof(struct upmc_profile_options, buffer_bytes) + sizeof(opts->buffer_bytes))
		return upmc_fail(-EINVAL,
		                 "upmc_profile_options.size is %zu: set it to sizeof(struct "
		                 "upmc_profile_options)",
		                 opts->size);
	err = upmc_check_struct_size(opts, opts->size, sizeof(*opts), "upmc_profile_options");
	if (err == 0) /* here, since a time-only profile opens no set that would check them */
		err = upmc_check_open_flags(opts->flags, "upmc_profile_options.flags");
	if (err < 0)
		return err;
	if (opts->profile_flags & ~(UPMC_PROFILE_SERIALIZED | UPMC_PROFILE_UNCOMPRESSED))
		return upmc_fail(-EINVAL,
		                 "upmc_profile_options.profile_flags has unknown bits 0x%x",
		                 opts->profile_flags &
		                         ~(UPMC_PROFILE_SERIALIZED | UPMC_PROFILE_UNCOMPRESSED));
	err = read_sizes(opts, p);
	if (err < 0)
		return err;
	p->flags = opts->flags;
	p->profile_flags = opts->profile_flags;
	return 0;
}

/* The metrics of the spec, which the writers compute per zone, and why
 * each cannot be computed here. Intel topdown read in user space is kept
 * too: a zone's share of the PERF_METRICS fractions takes the precision
 * check of upmc_metrics() on its two snapshots (view.c). */
static void take_metrics(struct upmc_profile *p, const struct upmc_set *set)
{
	unsigned j;

	p->n_metrics = set->state->n_metrics;
	for (j = 0; j < p->n_metrics; j++) {
		p->metric[j] = set->state->metric[j];
		upmc_format(p->metric_why[j], sizeof(p->metric_why[j]), "%s",
		            upmc_metric_reason(set, j));
	}
	if (set->state->topdown) {
		p->topdown = *set->state->topdown;
		p->topdown.reset = p->topdown.restart = NULL; /* the check's alone: no set */
		p->has_topdown = 1;
	}
}

/* The calling thread's set for the spec: it proves the spec opens here. */
static int open_first_set(struct upmc_profile *p, const char *spec, struct upmc_set **set)
{
	struct upmc_options opts = {sizeof(opts), p->flags};
	unsigned i;
	int err;

	*set = NULL;
	if (!spec || !*spec)
		return 0;
	err = upmc_open(set, spec, &opts);
	if (err < 0)
		return err;
	p->spec = malloc(strlen(spec) + 1);
	if (!p->spec) {
		upmc_close(*set);
		*set = NULL;
		return upmc_fail(-ENOMEM, "out of memory allocating a profile");
	}
	memcpy(p->spec, spec, strlen(spec) + 1);
	p->n = (unsigned)upmc_count(*set);
	for (i = 0; i < p->n; i++)
		upmc_format(p->counter[i], sizeof(p->counter[i]), "%s", upmc_counter_name(*set, i));
	take_metrics(p, *set);
	return 0;
}

static void profile_free(struct upmc_profile *p)
{
	upmc_close(p->timer);
	upmc_zone_free_names(&p->names);
	free(p->spec);
	free(p);
}

static int profile_open(struct upmc_profile **out, const char *spec,
                        const struct upmc_profile_options *opts)
{
	struct upmc_zone_thread *t = NULL;
	struct upmc_profile *p;
	struct upmc_set *set = NULL;
	int err;

	/* Before anything is made: the calling thread may be the open profile's. */
	err = upmc_zone_check_no_profile();
	if (err < 0)
		return err;
	p = calloc(1, sizeof(*p));
	if (!p)
		return upmc_fail(-ENOMEM, "out of memory allocating a profile");
	p->for_request = upmc_zone_request_opening();
	err = read_profile_options(opts, p);
	if (err == 0)
		err = upmc_open_timer(&p->timer);
	if (err == 0)
		err = open_first_set(p, spec, &set);
	if (err == 0) {
		p->pid = upmc_os_process_id();
		p->t_open = upmc_timestamp();
		err = upmc_zone_watch_fork();
	}
	if (err == 0)
		err = upmc_zone_prepare_thread(p, set, &t);
	if (err == 0)
		err = upmc_zone_publish(p, t);
	if (err < 0) {
		profile_free(p);
		return err;
	}
	upmc_zone_request_bind(p);
	*out = p;
	return 0;
}

UPMC_API int upmc_profile_open(struct upmc_profile **out, const char *spec,
                               const struct upmc_profile_options *opts)
{
	int claimed, err;

	if (!out)
		return upmc_fail(-EINVAL, "upmc_profile_open: the profile pointer is NULL");
	*out = NULL;
	/* The program's own profile wins over `upmc stat --zones`'s. */
	claimed = upmc_zone_request_yield();
	err = profile_open(out, spec, opts);
	if (err < 0)
		upmc_zone_request_unclaim(claimed);
	return err;
}

/* Whether the calling thread holds the collector's lock (a callback of
 * upmc_profile_zones() runs under it). */
static _Thread_local int collector_held;

/*
 * One collector at a time, for every profile (one is open at a time): a
 * mutex (os/portable/thread.c), since an export holds it while it writes
 * its file and upmc_profile_zones() across the caller's function, and a
 * thread waiting for them should sleep, not spin.
 */
void upmc_zone_collector_lock(void)
{
	upmc_os_collector_lock();
	collector_held = 1;
}

void upmc_zone_collector_unlock(void)
{
	collector_held = 0;
	upmc_os_collector_unlock();
}

int upmc_zone_collector_held(void)
{
	return collector_held;
}

int upmc_zone_refuse_in_callback(const char *fn)
{
	if (!collector_held)
		return 0;
	return upmc_fail(-EDEADLK,
	                 "%s: called from a upmc_profile_zones() callback, which holds the "
	                 "collector's lock this call takes: call it once upmc_profile_zones() "
	                 "returns",
	                 fn);
}

int upmc_zone_collect_locked(struct upmc_profile *p, int final)
{
	struct upmc_zone_thread *t;
	int done = 0, err = 0, got;

	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		/* While a stream runs, no record is taken without its event. */
		t->streaming = p->streaming;
		/* The calling thread's reader returned before this call. */
		got = upmc_zone_collect_thread(t, final, t == upmc_zone_self);
		if (got >= 0)
			done += got;
		else if (err == 0)
			err = got; /* the first; the other threads are still collected */
	}
	if (!final)
		upmc_zone_retire_threads(p);
	return err < 0 ? err : done;
}

int upmc_zone_collect(struct upmc_profile *p, int final)
{
	int got;

	upmc_zone_collector_lock();
	got = upmc_zone_collect_locked(p, final);
	upmc_zone_collector_unlock();
	return got;
}

UPMC_API void upmc_profile_close(struct upmc_profile *p)
{
	struct upmc_zone_thread *t, *next;

	if (!p)
		return;
	if (p->at_report)
		p->at_report(p);
	if (p->at_close)
		p->at_close(p); /* a stream's last append, while the profile records */
	upmc_zone_unpublish(p);
	upmc_zone_collect(p, 1);
	/* No thread joins p now: attach() finds it closed. */
	for (t = upmc_zone_threads(p); t; t = next) {
		next = t->link;
		upmc_zone_release_thread(t);
	}
	profile_free(p);
}

/*
 * Every live thread's topdown period restarted, from any thread. The
 * counts are kept (upmc_topdown_restart()), so that a zone another thread
 * has open across it is said reset, whichever its count at the end.
 */
UPMC_API int upmc_profile_topdown_reset(struct upmc_profile *p)
{
	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_topdown_reset: the profile is NULL");
	if (!p->has_topdown)
		return upmc_fail(-EOPNOTSUPP,
		                 "upmc_profile_topdown_reset: the profile reads no Intel topdown "
		                 "metric in user space, so there is no period to restart "
		                 "(upmc_counter_reason() of a set of its spec says how it reads "
		                 "them)");
	return upmc_zone_reset_topdown(p);
}

UPMC_API int upmc_profile_memory(const struct upmc_profile *p, uint64_t *bytes, uint64_t *peak)
{
	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_memory: the profile is NULL");
	if (bytes)
		*bytes = __atomic_load_n(&p->memory.bytes, __ATOMIC_RELAXED);
	if (peak)
		*peak = __atomic_load_n(&p->memory.peak, __ATOMIC_RELAXED);
	return 0;
}

UPMC_API int upmc_profile_collect(struct upmc_profile *p)
{
	if (!p)
		return upmc_fail(-EINVAL, "upmc_profile_collect: the profile is NULL");
	if (upmc_zone_refuse_in_callback("upmc_profile_collect") < 0)
		return -EDEADLK;
	return upmc_zone_collect(p, 0);
}

UPMC_API void upmc_profile_clear(struct upmc_profile *p)
{
	struct upmc_zone_thread *t;

	if (!p || upmc_zone_refuse_in_callback("upmc_profile_clear") < 0)
		return;
	upmc_zone_collector_lock();
	if (p->at_clear)
		p->at_clear(p); /* a stream's append of what the clear forgets */
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		/* With no stream, the begins' events kept for the next one are
		 * forgotten unwritten: their zones' ends are not written either. */
		if (!p->at_clear)
			upmc_zone_unstream_open(t);
		upmc_zone_forget(t);
	}
	memset(&p->gone, 0, sizeof(p->gone));
	p->gone_notes = 0;
	upmc_zone_retire_threads(p);
	upmc_zone_collector_unlock();
}

UPMC_API int upmc_profile_stats(struct upmc_profile *p, struct upmc_profile_stats *stats)
{
	int err;

	if (!p || !stats)
		return upmc_fail(-EINVAL, "upmc_profile_stats: the profile or stats is NULL");
	if (upmc_zone_refuse_in_callback("upmc_profile_stats") < 0)
		return -EDEADLK;
	err = upmc_zone_collect(p, 0);
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	upmc_zone_totals(p, stats);
	upmc_zone_collector_unlock();
	return 0;
}

UPMC_API const char *upmc_profile_counter_name(const struct upmc_profile *p, unsigned i)
{
	if (!p || i >= p->n) {
		upmc_fail(-EINVAL, "upmc_profile_counter_name: no counter %u", i);
		return NULL;
	}
	return p->counter[i];
}

UPMC_API const char *upmc_profile_metric_name(const struct upmc_profile *p, unsigned j)
{
	if (!p || j >= p->n_metrics) {
		upmc_fail(-EINVAL, "upmc_profile_metric_name: no metric %u", j);
		return NULL;
	}
	return upmc_zone_metric_name(p, j);
}

UPMC_API const char *upmc_profile_metric_reason(const struct upmc_profile *p, unsigned j)
{
	if (!p || j >= p->n_metrics) {
		upmc_fail(-EINVAL, "upmc_profile_metric_reason: no metric %u", j);
		return NULL;
	}
	return p->metric_why[j];
}

UPMC_API int upmc_profile_zones(struct upmc_profile *p,
                                int (*fn)(const struct upmc_zone_info *zone, void *arg), void *arg)
{
	struct zone_counts buf;
	struct upmc_zone_info info;
	struct upmc_zone_thread *t;
	int visited = 0, err;
	size_t i;

	if (!p || !fn)
		return upmc_fail(-EINVAL, "upmc_profile_zones: the profile or function is NULL");
	if (upmc_zone_refuse_in_callback("upmc_profile_zones") < 0)
		return -EDEADLK;
	err = upmc_zone_collect(p, 0);
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t)) {
		err = upmc_zone_sort(t);
		if (err < 0) {
			visited = err;
			break;
		}
		for (i = 0; i < t->n_zones; i++) {
			upmc_zone_info(p, t, upmc_zone_nth(t, i), &buf, &info);
			visited++;
			if (fn(&info, arg))
				goto out;
		}
	}
out:
	upmc_zone_collector_unlock();
	return visited;
}
