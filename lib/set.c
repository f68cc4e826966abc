/* SPDX-License-Identifier: MIT */
/* Set lifecycle, descriptions and the out-of-line read paths. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

/* The public part and the private state, freed together. */
struct set_block {
	struct upmc_set set;
	struct upmc_set_state state;
};

#define KNOWN_FLAGS                                                      \
	(UPMC_OPT_KERNEL | UPMC_OPT_TIME_ONLY | UPMC_OPT_FORCE_SYSCALL | \
	 UPMC_OPT_REQUIRE_USER_READ | UPMC_OPT_MULTIPLEX)

static int read_options(const struct upmc_options *opts, unsigned *flags)
{
	int err;

	*flags = 0;
	if (!opts)
		return 0;
	if (opts->size < offsetof(struct upmc_options, flags) + sizeof(opts->flags))
		return upmc_fail(-EINVAL,
		                 "upmc_options.size is %zu: set it to sizeof(struct upmc_options)",
		                 opts->size);
	err = upmc_check_struct_size(opts, opts->size, sizeof(*opts), "upmc_options");
	if (err == 0)
		err = upmc_check_open_flags(opts->flags, "upmc_options.flags");
	if (err < 0)
		return err;
	*flags = opts->flags;
	return 0;
}

int upmc_check_open_flags(unsigned flags, const char *what)
{
	if (flags & ~KNOWN_FLAGS)
		return upmc_fail(-EINVAL, "%s has unknown bits 0x%x", what, flags & ~KNOWN_FLAGS);
	if ((flags & UPMC_OPT_FORCE_SYSCALL) && (flags & UPMC_OPT_REQUIRE_USER_READ))
		return upmc_fail(-EINVAL, "UPMC_OPT_FORCE_SYSCALL and UPMC_OPT_REQUIRE_USER_READ "
		                          "contradict each other");
	return 0;
}

const struct upmc_perf_page upmc_no_page;

/*
 * The calling thread's token, given at its first call from a process-wide
 * count: a new thread may get the static TLS block (and so the addresses)
 * of one that exited, but never its token. 0: not given yet, so no set is
 * this thread's. UPMC_NO_THREAD is no thread's: a forked child's sets.
 */
#define UPMC_NO_THREAD UINT64_MAX
static _Thread_local uint64_t this_thread;
static _Atomic uint64_t threads_seen;

UPMC_API uint64_t upmc_thread(void)
{
	if (UPMC_UNLIKELY(!this_thread))
		this_thread = atomic_fetch_add_explicit(&threads_seen, 1, memory_order_relaxed) + 1;
	return this_thread;
}

/*
 * fork(): the kernel does not copy perf pages into the child (VM_DONTCOPY),
 * and the child's copies of the descriptors are its own to close and reuse.
 * Every set with counters is in a registry; in the child, a handler points
 * each at pages with index 0 and at the slow reader, so that reads go out of
 * line and fail there with -ECHILD, and upmc_close() frees memory only. The
 * inline readers pay nothing for it. A spin lock (C11, any OS) guards the
 * registry: open and close hold it for a few stores, fork() across the call.
 */
static atomic_flag registry_lock = ATOMIC_FLAG_INIT;
static struct upmc_set *registry;

static void lock_registry(void)
{
	while (atomic_flag_test_and_set_explicit(&registry_lock, memory_order_acquire))
		;
}

static void unlock_registry(void)
{
	atomic_flag_clear_explicit(&registry_lock, memory_order_release);
}

/* The zones' locks nest outside the registry's: taken first, released last. */
void upmc_fork_prepare(void)
{
	upmc_zone_fork_prepare();
	lock_registry();
}

void upmc_fork_parent(void)
{
	unlock_registry();
	upmc_zone_fork_parent();
}

/* In the child: every set is the parent's. Stores only (async-signal-safe). */
void upmc_fork_child(void)
{
	struct upmc_set *set;
	unsigned i;

	for (set = registry; set; set = set->state->next) {
		set->state->forked = 1;
		set->thread = UPMC_NO_THREAD; /* every read fails check_owner() */
		for (i = 0; i < UPMC_MAX_COUNTERS; i++) {
			set->page[i] = &upmc_no_page;
			set->state->user_page[i] = NULL;
		}
		set->user_n = 0;
		set->read = upmc_read_slow;
		if (!set->state->multiplexed) /* read_unscaled() fails by itself */
			set->state->snapshot = upmc_read_slow;
	}
	unlock_registry();
	upmc_zone_fork_child();
}

static void enter(struct upmc_set *set)
{
	/* Before the lock: a fork() while the handlers are registered finds
	 * the registry unlocked (and empty, when this is the first set). */
	upmc_os_watch_fork();
	lock_registry();
	set->state->next = registry;
	if (registry)
		registry->state->prev = set;
	registry = set;
	unlock_registry();
}

static void leave(struct upmc_set *set)
{
	struct upmc_set_state *st = set->state;

	lock_registry();
	if (st->prev)
		st->prev->state->next = st->next;
	else
		registry = st->next;
	if (st->next)
		st->next->state->prev = st->prev;
	unlock_registry();
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

static struct upmc_set *set_alloc(unsigned n)
{
	struct set_block *b = calloc(1, sizeof(*b));
	unsigned i;

	if (!b)
		return NULL;
	b->set.n = n;
	b->set.state = &b->state;
	b->set.read = upmc_read_slow;
	b->state.snapshot = upmc_read_slow;
	b->set.thread = upmc_thread();
	for (i = 0; i < UPMC_MAX_COUNTERS; i++)
		b->set.page[i] = &upmc_no_page;
	return &b->set;
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
static void settle_pages(struct upmc_set *set)
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
		set->read = upmc_reader_for(set) ? upmc_reader_for(set) : read_pages;
	set->state->snapshot = set->state->multiplexed ? read_unscaled : set->read;
	set->state->snapshot_words = (set->state->multiplexed ? 3 : 1) * set->n;
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

static void set_clock(struct upmc_set *set)
{
	if (upmc_os_kernel_clock(set, &set->clock) < 0)
		upmc_clock_calibrated(&set->clock);
}

static const char *first_reason(const struct upmc_set *set, int path)
{
	unsigned i;

	for (i = 0; i < set->n; i++)
		if (set->state->counter[i].path == path)
			return set->state->counter[i].reason;
	return "";
}

/* Appends ", <count> <what>" when count is not 0. */
static void add_part(char *out, size_t size, unsigned count, const char *what)
{
	size_t len = strlen(out);

	if (count)
		upmc_format(out + len, size - len, "%s%u %s", len ? ", " : "", count, what);
}

static void set_summary(struct upmc_set *set)
{
	char *out = set->state->summary, parts[96] = "", user[32];
	size_t size = sizeof(set->state->summary);
	unsigned count[4] = {0}, i;
	const char *why;

	for (i = 0; i < set->n; i++)
		count[set->state->counter[i].path]++;
	if (!set->n) {
		upmc_format(out, size, "timer only, no counters");
		return;
	}
	if (count[UPMC_PATH_USER] == set->n) {
		upmc_format(out, size, "%u counter%s, user-space %s", set->n, set->n > 1 ? "s" : "",
		            UPMC_ARCH_READ_INSN);
		return;
	}
	if (count[UPMC_PATH_UNAVAILABLE] == set->n) {
		upmc_format(out, size, "time only: %s", first_reason(set, UPMC_PATH_UNAVAILABLE));
		return;
	}
	upmc_format(user, sizeof(user), "user-space %s", UPMC_ARCH_READ_INSN);
	add_part(parts, sizeof(parts), count[UPMC_PATH_USER], user);
	add_part(parts, sizeof(parts), count[UPMC_PATH_SYSCALL], "by syscall");
	add_part(parts, sizeof(parts), count[UPMC_PATH_UNAVAILABLE], "unavailable");
	why = count[UPMC_PATH_UNAVAILABLE] ? first_reason(set, UPMC_PATH_UNAVAILABLE)
	                                   : first_reason(set, UPMC_PATH_SYSCALL);
	upmc_format(out, size, "%u counter%s: %s; %s", set->n, set->n > 1 ? "s" : "", parts, why);
}

UPMC_API int upmc_open(struct upmc_set **out, const char *spec, const struct upmc_options *opts)
{
	struct upmc_set *set;
	unsigned flags, i;
	int n, err;

	if (!out)
		return upmc_fail(-EINVAL, "upmc_open: the set pointer is NULL");
	*out = NULL;
	err = read_options(opts, &flags);
	if (err < 0)
		return err;
	set = set_alloc(0);
	if (!set)
		return upmc_fail(-ENOMEM, "out of memory allocating a set");
	/* An event whose PMU is missing is unavailable: the OS layer leaves
	 * it unopened. */
	n = upmc_parse_counters(spec, flags, set->state->counter, UPMC_MAX_COUNTERS);
	if (n < 0) {
		free(set);
		return n;
	}
	set->n = (unsigned)n;
	for (i = 0; i < set->n; i++)
		set->state->counter[i].ratio = 1;
	err = upmc_os_open(set, flags);
	if (err < 0) {
		free(set);
		return err;
	}
	settle_pages(set);
	enter(set);
	if ((flags & UPMC_OPT_REQUIRE_USER_READ) && !set->user_n) {
		for (i = 0; i < set->n && set->state->counter[i].path == UPMC_PATH_USER; i++)
			;
		err = upmc_fail(-EPERM, "counter '%s' cannot be read from user space: %s",
		                set->state->counter[i].event.name, set->state->counter[i].reason);
		upmc_close(set);
		return err;
	}
	set_clock(set);
	set_summary(set);
	*out = set;
	return 0;
}

UPMC_API int upmc_open_timer(struct upmc_set **out)
{
	struct upmc_set *set;

	if (!out)
		return upmc_fail(-EINVAL, "upmc_open_timer: the set pointer is NULL");
	set = set_alloc(0);
	if (!set)
		return upmc_fail(-ENOMEM, "out of memory allocating a set");
	set_clock(set);
	set_summary(set);
	*out = set;
	return 0;
}

UPMC_API void upmc_close(struct upmc_set *set)
{
	if (!set)
		return;
	if (set->n) {
		leave(set);
		if (set->state->forked)
			upmc_os_abandon(set);
		else
			upmc_os_close(set);
	}
	free(set); /* the whole struct set_block */
}

static int check_index(const struct upmc_set *set, unsigned i, const char *what)
{
	if (!set)
		return upmc_fail(-EINVAL, "%s: the set is NULL", what);
	if (i >= set->n)
		return upmc_fail(-EINVAL, "%s: counter %u does not exist (the set has %u)", what, i,
		                 set->n);
	return 0;
}

UPMC_API const char *upmc_counter_name(const struct upmc_set *set, unsigned i)
{
	return check_index(set, i, "upmc_counter_name") < 0 ? NULL
	                                                    : set->state->counter[i].event.name;
}

UPMC_API int upmc_counter_path(const struct upmc_set *set, unsigned i)
{
	int err = check_index(set, i, "upmc_counter_path");

	return err < 0 ? err : set->state->counter[i].path;
}

UPMC_API const char *upmc_counter_reason(const struct upmc_set *set, unsigned i)
{
	return check_index(set, i, "upmc_counter_reason") < 0 ? NULL
	                                                      : set->state->counter[i].reason;
}

UPMC_API double upmc_counter_ratio(const struct upmc_set *set, unsigned i)
{
	int err = check_index(set, i, "upmc_counter_ratio");

	if (err < 0)
		return err;
	return set->state->counter[i].path == UPMC_PATH_UNAVAILABLE ? 0
	                                                            : set->state->counter[i].ratio;
}

uint64_t upmc_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
#ifdef __SIZEOF_INT128__
	__extension__ unsigned __int128 scaled;
#else
	long double scaled;
#endif

	if (!running || count == UPMC_NOT_COUNTED)
		return UPMC_NOT_COUNTED;
	if (enabled == running)
		return count;
#ifdef __SIZEOF_INT128__
	scaled = (__extension__(unsigned __int128) count * enabled) / running;
#else
	scaled = (long double)count * (long double)enabled / (long double)running;
#endif
	return scaled >= UPMC_NOT_COUNTED ? UPMC_NOT_COUNTED - 1 : (uint64_t)scaled;
}

UPMC_API const char *upmc_summary(const struct upmc_set *set)
{
	if (!set) {
		upmc_fail(-EINVAL, "upmc_summary: the set is NULL");
		return NULL;
	}
	return set->state->summary;
}

UPMC_API int upmc_clock_source(const struct upmc_set *set)
{
	if (!set)
		return upmc_fail(-EINVAL, "upmc_clock_source: the set is NULL");
	return set->clock.source;
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
	int err = check_index(set, i, "upmc_read_counter");

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
	err = upmc_os_read(set, values, enabled, running);
	return err < 0 ? err : 0;
}
