/* SPDX-License-Identifier: MIT */
/*
 * Reads out of line: the straight-line reader of <upmc/read.h> for each
 * set size it covers, compiled once here, and the readers of every other
 * set (by read(2), by the uapi loop over the pages, multiplexed); which
 * one a set gets, chosen at open; where the inline readers hand over; and
 * the owner check (a set counts the thread that opened it).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "os.h"

static int read_1(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 1);
}

static int read_2(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 2);
}

static int read_3(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 3);
}

static int read_4(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 4);
}

static int read_5(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 5);
}

static int read_6(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 6);
}

static int read_7(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 7);
}

static int read_8(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 8);
}

static upmc_reader straight_line_reader(const struct upmc_set *set)
{
	static const upmc_reader by_size[UPMC_INLINE_COUNTERS + 1] = {
	        NULL, read_1, read_2, read_3, read_4, read_5, read_6, read_7, read_8};

	return set->user_n <= UPMC_INLINE_COUNTERS ? by_size[set->user_n] : NULL;
}

const struct upmc_perf_page upmc_no_page;

int upmc_check_index(const struct upmc_set *set, unsigned i, const char *what)
{
	if (!set)
		return upmc_fail(-EINVAL, "%s: the set is NULL", what);
	if (i >= set->n)
		return upmc_fail(-EINVAL, "%s: counter %u does not exist (the set has %u)", what, i,
		                 set->n);
	return 0;
}

/*
 * The calling thread's token, given at its first call from a process-wide
 * count: a new thread may get the static TLS block (and so the addresses)
 * of one that exited, but never its token. 0: not given yet, so no set is
 * this thread's. UPMC_NO_THREAD is no thread's: a forked child's sets.
 */
static _Thread_local uint64_t this_thread;
static _Atomic uint64_t threads_seen;

UPMC_API uint64_t upmc_thread(void)
{
	if (UPMC_UNLIKELY(!this_thread))
		this_thread = atomic_fetch_add_explicit(&threads_seen, 1, memory_order_relaxed) + 1;
	return this_thread;
}

/* A read of this set is this thread's, in this process; or why not. */
static int check_owner(const struct upmc_set *set, const char *fn)
{
	if (UPMC_LIKELY(set->thread == this_thread))
		return 0; /* this_thread is not 0: it opened a set */
	if (set->state->forked)
		return upmc_fail(-ECHILD,
		                 "%s: the set was opened before fork(), by the parent process, and "
		                 "counts the parent: open a new set in the child",
		                 fn);
	return upmc_fail(-EPERM,
	                 "%s: the set was opened by another thread and counts that thread "
	                 "only: open one set per thread",
	                 fn);
}

int upmc_failed_read(const struct upmc_set *set, uint64_t *values, int err)
{
	unsigned i;

	if (err < 0)
		for (i = 0; i < set->n; i++)
			values[i] = UPMC_NOT_COUNTED;
	return err;
}

/* Why read_by_syscall() will not read: out of line, the sentences. */
static UPMC_COLD int read_by_syscall_refused(struct upmc_set *set, uint64_t *values)
{
	if (!values)
		return upmc_fail(-EINVAL, "upmc_read: the values array is NULL");
	return upmc_failed_read(set, values, check_owner(set, "upmc_read"));
}

/* upmc_read() of a set whose counters all read by the OS's call: a tail
 * call into the OS layer (which leaves every value UPMC_NOT_COUNTED when
 * its read fails) once the set is known to be this thread's. */
static int read_by_syscall(struct upmc_set *set, uint64_t *values)
{
	if (UPMC_UNLIKELY(!values || set->thread != this_thread))
		return read_by_syscall_refused(set, values);
	return upmc_os_read(set, values, NULL, NULL);
}

/* Every counter from its user page where it has one; -1 when one cannot be
 * read so (off the PMU right now, or read(2) only). */
static int read_user_pages(struct upmc_set *set, uint64_t *values)
{
	unsigned i;

	for (i = 0; i < set->n; i++)
		if (!set->state->user_page[i] ||
		    upmc_page_count(set->state->user_page[i], &values[i]) < 0)
			return -1;
	return 0;
}

/* upmc_snapshot() of a multiplexed set: unscaled counts and their times,
 * by the kernel's read. */
static int read_unscaled(struct upmc_set *set, uint64_t *snapshot)
{
	int err;

	if (!snapshot)
		return upmc_fail(-EINVAL, "upmc_snapshot: the snapshot array is NULL");
	err = check_owner(set, "upmc_snapshot");
	if (err < 0) {
		memset(snapshot, 0xff, set->state->snapshot_words * sizeof(*snapshot));
		return err;
	}
	return upmc_os_read_unscaled(set, snapshot);
}

/* upmc_read() of a multiplexed set: each count scaled by its own group's
 * times, the share it ran kept for upmc_counter_ratio(). */
static int read_multiplexed(struct upmc_set *set, uint64_t *values)
{
	uint64_t snap[3 * UPMC_MAX_COUNTERS];
	const unsigned n = set->n;
	unsigned i;
	int err;

	if (!values)
		return upmc_fail(-EINVAL, "upmc_read: the values array is NULL");
	err = read_unscaled(set, snap);
	if (err < 0)
		return upmc_failed_read(set, values, err);
	for (i = 0; i < n; i++) {
		uint64_t enabled = snap[n + i], running = snap[2 * n + i];
		values[i] = upmc_scale(snap[i], enabled, running);
		set->state->counter[i].ratio = enabled ? (double)running / (double)enabled : 0;
	}
	return (int)n;
}

/* upmc_read() of a set the inline reader cannot take whole (more counters
 * than it covers, a page of another width, a counter that is not read in
 * user space), and where the inline readers hand over: the uapi loop over
 * every page, else the OS layer, which may still read some groups from
 * their pages. */
static int read_pages(struct upmc_set *set, uint64_t *values)
{
	int err;

	if (!values)
		return upmc_fail(-EINVAL, "upmc_read: the values array is NULL");
	if (set->state->multiplexed)
		return read_multiplexed(set, values);
	err = check_owner(set, "upmc_read");
	if (err < 0)
		return upmc_failed_read(set, values, err);
	if (set->state->topdown)
		return upmc_topdown_read(set, values);
	if (read_user_pages(set, values) == 0)
		return (int)set->n;
	return upmc_os_read(set, values, NULL, NULL);
}

/*
 * What the kernel fixes when an event is opened, the inline reader takes as
 * given (docs/read-protocol.md): a page it reads has cap_user_rdpmc and the
 * width UPMC_ARCH_PMC_WIDTH. Pages of another width stay readable from user
 * space, out of line, by the uapi loop in upmc_page_count().
 */
void upmc_choose_readers(struct upmc_set *set)
{
	unsigned i, fast = 0, users = 0;

	for (i = 0; i < set->n; i++) {
		const volatile struct upmc_perf_page *pc = set->page[i];
		int user = set->state->counter[i].path == UPMC_PATH_USER;

		set->state->user_page[i] = user ? pc : NULL;
		users += user;
		if (user && (pc->capabilities & UPMC_CAP_USER_RDPMC) &&
		    pc->pmc_width == UPMC_ARCH_PMC_WIDTH)
			fast++;
		else
			set->page[i] = &upmc_no_page;
	}
	set->user_n = fast == set->n ? set->n : 0;
	/* A set no counter of which reads in user space goes straight to the
	 * OS layer: its upmc_read() is the system call and little more. */
	if (set->state->multiplexed)
		set->read = read_multiplexed;
	else if (set->n && !users)
		set->read = read_by_syscall;
	else
		set->read = straight_line_reader(set) ? straight_line_reader(set) : read_pages;
	set->state->snapshot = set->state->multiplexed ? read_unscaled : set->read;
	set->state->snapshot_words = (set->state->multiplexed ? 3 : 1) * set->n;
	upmc_topdown_choose_readers(set);
}

int upmc_page_count(const volatile struct upmc_perf_page *pc, uint64_t *count)
{
	uint32_t seq, index;
	unsigned shift;

	do {
		seq = pc->lock;
		upmc_barrier();
		index = pc->index;
		if (!index || !(pc->capabilities & UPMC_CAP_USER_RDPMC))
			return -1;
		/* Modulo 64: no width, not even a bogus 0, makes it undefined. */
		shift = (64u - pc->pmc_width) & 63;
		*count = (uint64_t)pc->offset +
		         (uint64_t)((int64_t)(UPMC_ARCH_READ_COUNTER(index) << shift) >> shift);
		upmc_barrier();
	} while (pc->lock != seq);
	return 0;
}

/*
 * Where the inline readers hand over when a page says no (off the PMU, the
 * capability gone): the kernel's read alone, which works whatever user
 * access allows now (access can be withdrawn while a set is open: arm64's
 * perf_user_access), and is the independent reference the hardware checks
 * compare user reads with.
 */
UPMC_API UPMC_COLD int upmc_read_slow(struct upmc_set *set, uint64_t *values)
{
	uint64_t enabled, running;
	int err;

	if (!set || !values)
		return upmc_fail(-EINVAL, "upmc_read: the set or the values array is NULL");
	if (!set->n)
		return 0;
	if (set->state->multiplexed)
		return read_multiplexed(set, values);
	err = check_owner(set, "upmc_read");
	if (err < 0)
		return upmc_failed_read(set, values, err);
	if (set->state->topdown)
		return upmc_topdown_read(set, values);
	return upmc_os_read(set, values, &enabled, &running); /* the times ask for read(2) */
}

UPMC_API UPMC_COLD int upmc_read_n_slow(struct upmc_set *set, uint64_t *values, uint32_t n)
{
	uint64_t all[UPMC_MAX_COUNTERS];
	int err;

	if (!set || !values)
		return upmc_fail(-EINVAL, "upmc_read_n: the set or the values array is NULL");
	if (set->n < n)
		return upmc_fail(-EINVAL, "upmc_read_n: the set has %u counters, fewer than %u",
		                 set->n, n);
	err = read_pages(set, all);
	/* all is filled, with UPMC_NOT_COUNTED where the read failed */
	memcpy(values, all, n * sizeof(all[0]));
	if (err < 0)
		return err;
	return (int)n;
}

UPMC_API UPMC_COLD int upmc_read_counter_slow(struct upmc_set *set, unsigned i, uint64_t *value)
{
	uint64_t values[UPMC_MAX_COUNTERS];
	int err = upmc_check_index(set, i, "upmc_read_counter");

	if (err < 0)
		return err;
	if (!value)
		return upmc_fail(-EINVAL, "upmc_read_counter: the value pointer is NULL");
	err = read_pages(set, values);
	*value = values[i]; /* UPMC_NOT_COUNTED where the read failed */
	return err < 0 ? err : 0;
}

UPMC_API UPMC_COLD int upmc_read_times_slow(struct upmc_set *set, uint64_t *enabled,
                                            uint64_t *running)
{
	uint64_t values[UPMC_MAX_COUNTERS];
	int err;

	if (!set || !enabled || !running)
		return upmc_fail(-EINVAL, "upmc_read_times: an argument is NULL");
	if (!set->n)
		return upmc_fail(-ENODATA, "upmc_read_times: a timer-only set has no counters");
	err = check_owner(set, "upmc_read_times");
	if (err < 0)
		return err;
	if (set->state->topdown)
		return upmc_topdown_no_times();
	err = upmc_os_read(set, values, enabled, running);
	return err < 0 ? err : 0;
}
