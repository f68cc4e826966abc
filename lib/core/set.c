/* SPDX-License-Identifier: MIT */
/* Sets: options, open and close, fork(), and what a set says of itself. */
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

/*
 * The layers above the core that act around fork() (zones), each once, in
 * the order they came. A fork() sees those registered before its prepare
 * handler ran: the count is taken then, so that a layer registered by
 * another thread meanwhile gets no parent or child call without its
 * prepare. Their locks nest outside the registry's: taken first, released
 * last. The count is the forking thread's own: two threads that fork at
 * once both run the prepare handler before either holds a lock, and each
 * runs its parent (or child) handler with the count its prepare took.
 */
#define FORK_HOOKS 4
static const struct upmc_fork_hook *_Atomic fork_hooks[FORK_HOOKS];
static _Atomic unsigned fork_hooks_n;
static _Thread_local unsigned fork_hooks_prepared;

int upmc_fork_hook_add(const struct upmc_fork_hook *hook)
{
	unsigned i, n;

	lock_registry(); /* one registration at a time; fork() waits for it */
	n = atomic_load(&fork_hooks_n);
	for (i = 0; i < n && fork_hooks[i] != hook; i++)
		;
	if (i == n && n < FORK_HOOKS) {
		fork_hooks[n] = hook;
		atomic_store(&fork_hooks_n, n + 1);
	}
	unlock_registry();
	return i < FORK_HOOKS ? 0 : upmc_fail(-ENOSPC, "more than %d fork hooks", FORK_HOOKS);
}

void upmc_fork_prepare(void)
{
	unsigned i;

	fork_hooks_prepared = atomic_load(&fork_hooks_n);
	for (i = 0; i < fork_hooks_prepared; i++)
		fork_hooks[i]->prepare();
	lock_registry();
}

void upmc_fork_parent(void)
{
	unsigned i = fork_hooks_prepared;

	unlock_registry();
	while (i--)
		fork_hooks[i]->parent();
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
			set->snapshot = upmc_read_slow;
	}
	unlock_registry();
	for (i = fork_hooks_prepared; i--;)
		fork_hooks[i]->child();
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

static struct upmc_set *set_alloc(unsigned n)
{
	struct set_block *b = calloc(1, sizeof(*b));
	unsigned i;

	if (!b)
		return NULL;
	b->set.n = n;
	b->set.state = &b->state;
	b->set.read = upmc_read_slow;
	b->set.snapshot = upmc_read_slow;
	b->state.handover = upmc_read_slow;
	b->set.thread = upmc_thread();
	for (i = 0; i < UPMC_MAX_COUNTERS; i++)
		b->set.page[i] = &upmc_no_page;
	return &b->set;
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

/* The set's counters opened by the OS layer, and the set registered (for
 * fork()); -errno, the set freed, when they cannot be. */
static int open_and_register(struct upmc_set *set, unsigned flags)
{
	unsigned i;
	int err;

	for (i = 0; i < set->n; i++)
		set->state->counter[i].ratio = 1;
	err = upmc_os_open(set, flags);
	if (err < 0) {
		free(set);
		return err;
	}
	upmc_choose_readers(set);
	upmc_topdown_choose_readers(set);
	enter(set);
	if ((flags & UPMC_OPT_REQUIRE_USER_READ) && !set->user_n) {
		for (i = 0; i < set->n && set->state->counter[i].path == UPMC_PATH_USER; i++)
			;
		err = upmc_fail(-EPERM, "counter '%s' cannot be read from user space: %s",
		                set->state->counter[i].event.name, set->state->counter[i].reason);
		upmc_close(set);
		return err;
	}
	return 0;
}

UPMC_API int upmc_open(struct upmc_set **out, const char *spec, const struct upmc_options *opts)
{
	struct upmc_set *set;
	unsigned flags;
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
	n = upmc_parse_counters(spec, flags, set->state);
	if (n < 0) {
		free(set);
		return n;
	}
	set->n = (unsigned)n;
	set->state->flags = flags;
	/* No counter (a spec of metrics this machine cannot compute, kept
	 * with their reasons by UPMC_OPT_TIME_ONLY): nothing to open, a timer
	 * as upmc_open_timer() makes one, which upmc_close() frees as one. */
	if (set->n) {
		err = open_and_register(set, flags);
		if (err < 0)
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

UPMC_API const char *upmc_counter_name(const struct upmc_set *set, unsigned i)
{
	return upmc_check_index(set, i, "upmc_counter_name") < 0
	               ? NULL
	               : set->state->counter[i].event.name;
}

UPMC_API int upmc_counter_path(const struct upmc_set *set, unsigned i)
{
	int err = upmc_check_index(set, i, "upmc_counter_path");

	return err < 0 ? err : set->state->counter[i].path;
}

UPMC_API const char *upmc_counter_reason(const struct upmc_set *set, unsigned i)
{
	return upmc_check_index(set, i, "upmc_counter_reason") < 0 ? NULL
	                                                           : set->state->counter[i].reason;
}

UPMC_API double upmc_counter_ratio(const struct upmc_set *set, unsigned i)
{
	int err = upmc_check_index(set, i, "upmc_counter_ratio");

	if (err < 0)
		return err;
	return set->state->counter[i].path == UPMC_PATH_UNAVAILABLE ? 0
	                                                            : set->state->counter[i].ratio;
}

UPMC_API const char *upmc_advice(const struct upmc_set *set)
{
	if (!set) {
		upmc_fail(-EINVAL, "upmc_advice: the set is NULL");
		return NULL;
	}
	return set->state->advice;
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
