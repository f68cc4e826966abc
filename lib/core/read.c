/* SPDX-License-Identifier: MIT */
/*
 * Reads out of line: the straight-line reader of <upmc/read.h> for each
 * set size it covers, compiled once here; the layout readers, which name
 * each counter in the instruction that reads it; the readers of every
 * other set (by read(2), by the uapi loop over the pages, multiplexed);
 * which one a set gets, chosen at open; where the inline readers hand
 * over; and the owner check (a set counts the thread that opened it).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "os.h"

static int read_1(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 1, 1);
}

static int read_2(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 2, 1);
}

static int read_3(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 3, 1);
}

static int read_4(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 4, 1);
}

static int read_5(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 5, 1);
}

static int read_6(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 6, 1);
}

static int read_7(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 7, 1);
}

static int read_8(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 8, 1);
}

static const upmc_reader by_size[UPMC_INLINE_COUNTERS + 1] = {
        NULL, read_1, read_2, read_3, read_4, read_5, read_6, read_7, read_8};

static upmc_reader straight_line_reader(const struct upmc_set *set)
{
	return set->user_n <= UPMC_INLINE_COUNTERS ? by_size[set->user_n] : NULL;
}

/*
 * Layouts. The kernel puts a set's events on the same counters at every
 * schedule in, while no other user takes one: on arm64 the first cycles
 * event on the cycle counter, the others on the first free PMEVCNTR<k> in
 * the set's order (armv8pmu_get_event_idx(); on x86 general-purpose
 * counters go in order too): from PMEVCNTR0 for a thread's first set, after
 * it for a second one, or a profile's set beside the thread's own. The
 * counter number is part of arm64's mrs, so a reader compiled for one
 * layout reads each counter by the mrs that names it: no table and no call
 * (upmc_arch_read_fixed()), and, calling nothing, no frame. It checks that
 * each page's index is still the one it was compiled for, and hands any
 * other (a counter moved, or off the PMU) to the straight-line reader of
 * the set's size. The layouts compiled: counters in order from PMEVCNTR0
 * with the cycle counter at any position ("cycles" is that counter's
 * position + 1, 0 for none), and from any later start ("from") with the
 * cycle counter nowhere, first or second, as long as the last event
 * counter is at most PMEVCNTR7. A set laid out otherwise gets the
 * straight-line reader, which reads any layout.
 */
#ifdef UPMC_ARCH_CYCLE_INDEX
#define CYCLE_INDEX UPMC_ARCH_CYCLE_INDEX
#else
#define CYCLE_INDEX 0 /* no cycle counter: no layout is compiled with one */
#endif

/* Counter i's page index in a layout. */
static UPMC_ALWAYS_INLINE uint32_t layout_index(const uint32_t i, const uint32_t cycles,
                                                const uint32_t from)
{
	if (cycles == i + 1)
		return CYCLE_INDEX;
	return from + i + 1 - (cycles && i + 1 > cycles);
}

/* The i-th of a layout's index compares: the cycle counter's first, where
 * its index (32) fits the cmp's immediate; the others, at most 8, fit a
 * ccmp's. */
static UPMC_ALWAYS_INLINE uint32_t checked_at(const uint32_t i, const uint32_t cycles)
{
	if (!cycles)
		return i;
	if (i == 0)
		return cycles - 1;
	return i - 1 < cycles - 1 ? i - 1 : i;
}

static UPMC_ALWAYS_INLINE int read_layout(struct upmc_set *set, uint64_t *values, const uint32_t n,
                                          const uint32_t cycles, const uint32_t from,
                                          upmc_reader other)
{
	/* page[] in the set's order, checked[] in the order of the compares */
	const volatile struct upmc_perf_page *page[UPMC_INLINE_COUNTERS],
	        *checked[UPMC_INLINE_COUNTERS];
	uint64_t lock[UPMC_INLINE_COUNTERS], want[UPMC_INLINE_COUNTERS], even = 0;
	uint32_t i;

	UPMC_UNROLL
	for (i = 0; i < n; i++)
		page[i] = set->page[i];
	UPMC_UNROLL
	for (i = 0; i < n; i++) {
		checked[i] = page[checked_at(i, cycles)];
		want[i] = layout_index(checked_at(i, cycles), cycles, from);
	}
	do {
		if (UPMC_UNLIKELY(upmc_arch_indices_differ(checked, lock, want, n)))
			return other(set, values);
		/* Pairs with the kernel's barrier() after its first ++lock. */
		upmc_barrier();
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			if (UPMC_UNLIKELY(!upmc_arch_cap_ok(page[i])))
				return other(set, values);
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			upmc_store_value(
			        values, i, n,
			        (uint64_t)page[i]->offset +
			                UPMC_ARCH_READ_FIXED(layout_index(i, cycles, from)),
			        &even);
		/* Pairs with the kernel's barrier() before its second ++lock. */
		upmc_barrier();
	} while (UPMC_UNLIKELY(upmc_locks_moved(checked, lock, n)));
	return (int)n;
}

#define LAYOUT(n, cycles, from)                                                   \
	static int read_##n##_cycles_##cycles##_from_##from(struct upmc_set *set, \
	                                                    uint64_t *values)     \
	{                                                                         \
		return read_layout(set, values, n, cycles, from, read_##n);       \
	}

LAYOUT(1, 0, 0)
LAYOUT(1, 0, 1)
LAYOUT(1, 0, 2)
LAYOUT(1, 0, 3)
LAYOUT(1, 0, 4)
LAYOUT(1, 0, 5)
LAYOUT(1, 0, 6)
LAYOUT(1, 0, 7)
LAYOUT(2, 0, 0)
LAYOUT(2, 0, 1)
LAYOUT(2, 0, 2)
LAYOUT(2, 0, 3)
LAYOUT(2, 0, 4)
LAYOUT(2, 0, 5)
LAYOUT(2, 0, 6)
LAYOUT(3, 0, 0)
LAYOUT(3, 0, 1)
LAYOUT(3, 0, 2)
LAYOUT(3, 0, 3)
LAYOUT(3, 0, 4)
LAYOUT(3, 0, 5)
LAYOUT(4, 0, 0)
LAYOUT(4, 0, 1)
LAYOUT(4, 0, 2)
LAYOUT(4, 0, 3)
LAYOUT(4, 0, 4)
LAYOUT(5, 0, 0)
LAYOUT(5, 0, 1)
LAYOUT(5, 0, 2)
LAYOUT(5, 0, 3)
LAYOUT(6, 0, 0)
LAYOUT(6, 0, 1)
LAYOUT(6, 0, 2)
LAYOUT(7, 0, 0)
LAYOUT(7, 0, 1)
LAYOUT(8, 0, 0)
#ifdef UPMC_ARCH_CYCLE_INDEX
LAYOUT(1, 1, 0)
LAYOUT(2, 1, 0)
LAYOUT(2, 1, 1)
LAYOUT(2, 1, 2)
LAYOUT(2, 1, 3)
LAYOUT(2, 1, 4)
LAYOUT(2, 1, 5)
LAYOUT(2, 1, 6)
LAYOUT(2, 1, 7)
LAYOUT(2, 2, 0)
LAYOUT(2, 2, 1)
LAYOUT(2, 2, 2)
LAYOUT(2, 2, 3)
LAYOUT(2, 2, 4)
LAYOUT(2, 2, 5)
LAYOUT(2, 2, 6)
LAYOUT(2, 2, 7)
LAYOUT(3, 1, 0)
LAYOUT(3, 1, 1)
LAYOUT(3, 1, 2)
LAYOUT(3, 1, 3)
LAYOUT(3, 1, 4)
LAYOUT(3, 1, 5)
LAYOUT(3, 1, 6)
LAYOUT(3, 2, 0)
LAYOUT(3, 2, 1)
LAYOUT(3, 2, 2)
LAYOUT(3, 2, 3)
LAYOUT(3, 2, 4)
LAYOUT(3, 2, 5)
LAYOUT(3, 2, 6)
LAYOUT(3, 3, 0)
LAYOUT(4, 1, 0)
LAYOUT(4, 1, 1)
LAYOUT(4, 1, 2)
LAYOUT(4, 1, 3)
LAYOUT(4, 1, 4)
LAYOUT(4, 1, 5)
LAYOUT(4, 2, 0)
LAYOUT(4, 2, 1)
LAYOUT(4, 2, 2)
LAYOUT(4, 2, 3)
LAYOUT(4, 2, 4)
LAYOUT(4, 2, 5)
LAYOUT(4, 3, 0)
LAYOUT(4, 4, 0)
LAYOUT(5, 1, 0)
LAYOUT(5, 1, 1)
LAYOUT(5, 1, 2)
LAYOUT(5, 1, 3)
LAYOUT(5, 1, 4)
LAYOUT(5, 2, 0)
LAYOUT(5, 2, 1)
LAYOUT(5, 2, 2)
LAYOUT(5, 2, 3)
LAYOUT(5, 2, 4)
LAYOUT(5, 3, 0)
LAYOUT(5, 4, 0)
LAYOUT(5, 5, 0)
LAYOUT(6, 1, 0)
LAYOUT(6, 1, 1)
LAYOUT(6, 1, 2)
LAYOUT(6, 1, 3)
LAYOUT(6, 2, 0)
LAYOUT(6, 2, 1)
LAYOUT(6, 2, 2)
LAYOUT(6, 2, 3)
LAYOUT(6, 3, 0)
LAYOUT(6, 4, 0)
LAYOUT(6, 5, 0)
LAYOUT(6, 6, 0)
LAYOUT(7, 1, 0)
LAYOUT(7, 1, 1)
LAYOUT(7, 1, 2)
LAYOUT(7, 2, 0)
LAYOUT(7, 2, 1)
LAYOUT(7, 2, 2)
LAYOUT(7, 3, 0)
LAYOUT(7, 4, 0)
LAYOUT(7, 5, 0)
LAYOUT(7, 6, 0)
LAYOUT(7, 7, 0)
LAYOUT(8, 1, 0)
LAYOUT(8, 1, 1)
LAYOUT(8, 2, 0)
LAYOUT(8, 2, 1)
LAYOUT(8, 3, 0)
LAYOUT(8, 4, 0)
LAYOUT(8, 5, 0)
LAYOUT(8, 6, 0)
LAYOUT(8, 7, 0)
LAYOUT(8, 8, 0)
#endif

struct layout {
	uint8_t n, cycles, from;
	upmc_reader read;
};

static const struct layout layouts[] = {
        {1, 0, 0, read_1_cycles_0_from_0}, {1, 0, 1, read_1_cycles_0_from_1},
        {1, 0, 2, read_1_cycles_0_from_2}, {1, 0, 3, read_1_cycles_0_from_3},
        {1, 0, 4, read_1_cycles_0_from_4}, {1, 0, 5, read_1_cycles_0_from_5},
        {1, 0, 6, read_1_cycles_0_from_6}, {1, 0, 7, read_1_cycles_0_from_7},
        {2, 0, 0, read_2_cycles_0_from_0}, {2, 0, 1, read_2_cycles_0_from_1},
        {2, 0, 2, read_2_cycles_0_from_2}, {2, 0, 3, read_2_cycles_0_from_3},
        {2, 0, 4, read_2_cycles_0_from_4}, {2, 0, 5, read_2_cycles_0_from_5},
        {2, 0, 6, read_2_cycles_0_from_6}, {3, 0, 0, read_3_cycles_0_from_0},
        {3, 0, 1, read_3_cycles_0_from_1}, {3, 0, 2, read_3_cycles_0_from_2},
        {3, 0, 3, read_3_cycles_0_from_3}, {3, 0, 4, read_3_cycles_0_from_4},
        {3, 0, 5, read_3_cycles_0_from_5}, {4, 0, 0, read_4_cycles_0_from_0},
        {4, 0, 1, read_4_cycles_0_from_1}, {4, 0, 2, read_4_cycles_0_from_2},
        {4, 0, 3, read_4_cycles_0_from_3}, {4, 0, 4, read_4_cycles_0_from_4},
        {5, 0, 0, read_5_cycles_0_from_0}, {5, 0, 1, read_5_cycles_0_from_1},
        {5, 0, 2, read_5_cycles_0_from_2}, {5, 0, 3, read_5_cycles_0_from_3},
        {6, 0, 0, read_6_cycles_0_from_0}, {6, 0, 1, read_6_cycles_0_from_1},
        {6, 0, 2, read_6_cycles_0_from_2}, {7, 0, 0, read_7_cycles_0_from_0},
        {7, 0, 1, read_7_cycles_0_from_1}, {8, 0, 0, read_8_cycles_0_from_0},
#ifdef UPMC_ARCH_CYCLE_INDEX
        {1, 1, 0, read_1_cycles_1_from_0}, {2, 1, 0, read_2_cycles_1_from_0},
        {2, 1, 1, read_2_cycles_1_from_1}, {2, 1, 2, read_2_cycles_1_from_2},
        {2, 1, 3, read_2_cycles_1_from_3}, {2, 1, 4, read_2_cycles_1_from_4},
        {2, 1, 5, read_2_cycles_1_from_5}, {2, 1, 6, read_2_cycles_1_from_6},
        {2, 1, 7, read_2_cycles_1_from_7}, {2, 2, 0, read_2_cycles_2_from_0},
        {2, 2, 1, read_2_cycles_2_from_1}, {2, 2, 2, read_2_cycles_2_from_2},
        {2, 2, 3, read_2_cycles_2_from_3}, {2, 2, 4, read_2_cycles_2_from_4},
        {2, 2, 5, read_2_cycles_2_from_5}, {2, 2, 6, read_2_cycles_2_from_6},
        {2, 2, 7, read_2_cycles_2_from_7}, {3, 1, 0, read_3_cycles_1_from_0},
        {3, 1, 1, read_3_cycles_1_from_1}, {3, 1, 2, read_3_cycles_1_from_2},
        {3, 1, 3, read_3_cycles_1_from_3}, {3, 1, 4, read_3_cycles_1_from_4},
        {3, 1, 5, read_3_cycles_1_from_5}, {3, 1, 6, read_3_cycles_1_from_6},
        {3, 2, 0, read_3_cycles_2_from_0}, {3, 2, 1, read_3_cycles_2_from_1},
        {3, 2, 2, read_3_cycles_2_from_2}, {3, 2, 3, read_3_cycles_2_from_3},
        {3, 2, 4, read_3_cycles_2_from_4}, {3, 2, 5, read_3_cycles_2_from_5},
        {3, 2, 6, read_3_cycles_2_from_6}, {3, 3, 0, read_3_cycles_3_from_0},
        {4, 1, 0, read_4_cycles_1_from_0}, {4, 1, 1, read_4_cycles_1_from_1},
        {4, 1, 2, read_4_cycles_1_from_2}, {4, 1, 3, read_4_cycles_1_from_3},
        {4, 1, 4, read_4_cycles_1_from_4}, {4, 1, 5, read_4_cycles_1_from_5},
        {4, 2, 0, read_4_cycles_2_from_0}, {4, 2, 1, read_4_cycles_2_from_1},
        {4, 2, 2, read_4_cycles_2_from_2}, {4, 2, 3, read_4_cycles_2_from_3},
        {4, 2, 4, read_4_cycles_2_from_4}, {4, 2, 5, read_4_cycles_2_from_5},
        {4, 3, 0, read_4_cycles_3_from_0}, {4, 4, 0, read_4_cycles_4_from_0},
        {5, 1, 0, read_5_cycles_1_from_0}, {5, 1, 1, read_5_cycles_1_from_1},
        {5, 1, 2, read_5_cycles_1_from_2}, {5, 1, 3, read_5_cycles_1_from_3},
        {5, 1, 4, read_5_cycles_1_from_4}, {5, 2, 0, read_5_cycles_2_from_0},
        {5, 2, 1, read_5_cycles_2_from_1}, {5, 2, 2, read_5_cycles_2_from_2},
        {5, 2, 3, read_5_cycles_2_from_3}, {5, 2, 4, read_5_cycles_2_from_4},
        {5, 3, 0, read_5_cycles_3_from_0}, {5, 4, 0, read_5_cycles_4_from_0},
        {5, 5, 0, read_5_cycles_5_from_0}, {6, 1, 0, read_6_cycles_1_from_0},
        {6, 1, 1, read_6_cycles_1_from_1}, {6, 1, 2, read_6_cycles_1_from_2},
        {6, 1, 3, read_6_cycles_1_from_3}, {6, 2, 0, read_6_cycles_2_from_0},
        {6, 2, 1, read_6_cycles_2_from_1}, {6, 2, 2, read_6_cycles_2_from_2},
        {6, 2, 3, read_6_cycles_2_from_3}, {6, 3, 0, read_6_cycles_3_from_0},
        {6, 4, 0, read_6_cycles_4_from_0}, {6, 5, 0, read_6_cycles_5_from_0},
        {6, 6, 0, read_6_cycles_6_from_0}, {7, 1, 0, read_7_cycles_1_from_0},
        {7, 1, 1, read_7_cycles_1_from_1}, {7, 1, 2, read_7_cycles_1_from_2},
        {7, 2, 0, read_7_cycles_2_from_0}, {7, 2, 1, read_7_cycles_2_from_1},
        {7, 2, 2, read_7_cycles_2_from_2}, {7, 3, 0, read_7_cycles_3_from_0},
        {7, 4, 0, read_7_cycles_4_from_0}, {7, 5, 0, read_7_cycles_5_from_0},
        {7, 6, 0, read_7_cycles_6_from_0}, {7, 7, 0, read_7_cycles_7_from_0},
        {8, 1, 0, read_8_cycles_1_from_0}, {8, 1, 1, read_8_cycles_1_from_1},
        {8, 2, 0, read_8_cycles_2_from_0}, {8, 2, 1, read_8_cycles_2_from_1},
        {8, 3, 0, read_8_cycles_3_from_0}, {8, 4, 0, read_8_cycles_4_from_0},
        {8, 5, 0, read_8_cycles_5_from_0}, {8, 6, 0, read_8_cycles_6_from_0},
        {8, 7, 0, read_8_cycles_7_from_0}, {8, 8, 0, read_8_cycles_8_from_0},
#endif
};

/* The layout reader for the indices the set's pages have now, when there is
 * one (every counter read inline, a layout compiled above); else NULL. */
static upmc_reader layout_reader(const struct upmc_set *set)
{
	uint32_t i, next = 0, cycles = 0, from = 0;

	if (!set->user_n || set->n > UPMC_INLINE_COUNTERS)
		return NULL;
	for (i = 0; i < set->n; i++) {
		const uint32_t index = set->page[i]->index;
		if (CYCLE_INDEX && index == CYCLE_INDEX && !cycles) {
			cycles = i + 1;
			continue;
		}
		if (!next) /* the first event counter says where the layout starts */
			from = index - 1;
		else if (index != next)
			return NULL;
		next = index + 1;
	}
	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].n == set->n && layouts[i].cycles == cycles &&
		    layouts[i].from == (next ? from : 0)) /* 0: no event counter */
			return layouts[i].read;
	return NULL;
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

/* upmc_snapshot() of another thread's set: -EPERM under UPMC_DEBUG, every
 * word of the snapshot UPMC_NOT_COUNTED, as a failed read leaves values. */
static int check_snapshot_owner(const struct upmc_set *set, uint64_t *snapshot)
{
	const int err = check_owner(set, "upmc_snapshot");

	if (err < 0)
		memset(snapshot, 0xff, set->state->snapshot_words * sizeof(*snapshot));
	return err;
}

/* upmc_snapshot() of a multiplexed set: unscaled counts and their times,
 * by the kernel's read. */
static int read_unscaled(struct upmc_set *set, uint64_t *snapshot)
{
	int err;

	if (!snapshot)
		return upmc_fail(-EINVAL, "upmc_snapshot: the snapshot array is NULL");
	err = check_snapshot_owner(set, snapshot);
	if (err < 0)
		return err;
	return upmc_os_read_unscaled(set, snapshot);
}

/* Where upmc_snapshot() hands over: a NULL argument, or (UPMC_DEBUG)
 * another thread's set, whose reader, the inline path's, would read this
 * thread's counters. */
UPMC_API UPMC_COLD int upmc_snapshot_slow(struct upmc_set *set, uint64_t *snapshot)
{
	int err;

	if (!set || !snapshot)
		return upmc_fail(-EINVAL, "upmc_snapshot: the set or the snapshot array is NULL");
	err = set->n ? check_snapshot_owner(set, snapshot) : 0;
	if (err < 0)
		return err;
	/* A set of no counters has upmc_read_slow(), which returns 0. */
	return set->snapshot(set, snapshot);
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
		return set->snapshot(set, values); /* its pass (lib/core/topdown.c) */
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

	set->counter_table = upmc_arch_counter_table();
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
		set->state->handover = read_multiplexed;
	else if (set->n && !users)
		set->state->handover = read_by_syscall;
	else
		set->state->handover = read_pages;
	if (layout_reader(set))
		set->read = layout_reader(set);
	else if (straight_line_reader(set))
		set->read = straight_line_reader(set);
	else
		set->read = set->state->handover;
	/* A set of no counters: upmc_read_slow(), which takes nothing and
	 * returns 0 for any thread, so that upmc_snapshot() need not ask. */
	set->snapshot = set->state->multiplexed ? read_unscaled
	                : set->n                ? set->read
	                                        : upmc_read_slow;
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
		return set->snapshot(set, values);            /* its pass (lib/core/topdown.c) */
	return upmc_os_read(set, values, &enabled, &running); /* the times ask for read(2) */
}

/* upmc_read_n_slow() of fewer counters than the set has: the set's read
 * takes them all. */
static UPMC_COLD int read_first_n(struct upmc_set *set, uint64_t *values, uint32_t n)
{
	uint64_t all[UPMC_MAX_COUNTERS];
	int err;

	if (!set || !values)
		return upmc_fail(-EINVAL, "upmc_read_n: the set or the values array is NULL");
	if (n == 0)
		return 0; /* nothing asked for: nothing to read */
	if (set->n < n) {
		for (uint32_t i = 0; i < n; i++)
			values[i] = UPMC_NOT_COUNTED; /* as every failed read leaves them */
		return upmc_fail(-EINVAL, "upmc_read_n: the set has %u counters, fewer than %u",
		                 set->n, n);
	}
	err = set->state->handover(set, all);
	/* all is filled, with UPMC_NOT_COUNTED where the read failed */
	memcpy(values, all, n * sizeof(all[0]));
	if (err < 0)
		return err;
	return (int)n;
}

/* The usual case, every counter of the set, goes straight to its reader
 * (which checks the values pointer): by read(2) that is all it costs. */
UPMC_API UPMC_COLD int upmc_read_n_slow(struct upmc_set *set, uint64_t *values, uint32_t n)
{
	if (UPMC_UNLIKELY(!set || n != set->n))
		return read_first_n(set, values, n);
	return set->state->handover(set, values);
}

/*
 * Where upmc_read_n() hands over a set that is not in the layout it is
 * compiled for (<upmc/read.h>): all of the set to the set's own reader,
 * the one compiled for its layout where it has one, so that a set in
 * another layout costs about what upmc_read() does; the first n of a
 * larger set to the straight-line reader of n, which reads any layout.
 */
UPMC_API int upmc_read_n_other(struct upmc_set *set, uint64_t *values, uint32_t n)
{
	if (UPMC_LIKELY(set && n == set->n))
		return set->read(set, values);
	if (set && n && n < set->n && n <= UPMC_INLINE_COUNTERS)
		return by_size[n](set, values);
	return upmc_read_n_slow(set, values, n);
}

/* upmc_read_counter_slow() of a set of more than one counter. */
static UPMC_COLD int read_one_of(struct upmc_set *set, unsigned i, uint64_t *value)
{
	uint64_t values[UPMC_MAX_COUNTERS];
	int err = upmc_check_index(set, i, "upmc_read_counter");

	if (err < 0)
		return err;
	if (!value)
		return upmc_fail(-EINVAL, "upmc_read_counter: the value pointer is NULL");
	err = set->state->handover(set, values);
	*value = values[i]; /* UPMC_NOT_COUNTED where the read failed */
	return err < 0 ? err : 0;
}

UPMC_API UPMC_COLD int upmc_read_counter_slow(struct upmc_set *set, unsigned i, uint64_t *value)
{
	int err;

	if (UPMC_UNLIKELY(!set || i || set->n != 1))
		return read_one_of(set, i, value);
	err = set->state->handover(set, value);
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
	/* Its times come from read(2), which resets slots and PERF_METRICS
	 * under the set's user-space reads (lib/core/topdown.c). */
	if (set->state->topdown)
		return upmc_fail(-EOPNOTSUPP,
		                 "upmc_read_times: the set reads Intel topdown in user space, and "
		                 "its times come from read(2), which would reset slots and "
		                 "PERF_METRICS under its reads: time the region with "
		                 "upmc_timestamp() instead");
	err = upmc_os_read(set, values, enabled, running);
	return err < 0 ? err : 0;
}
