/* SPDX-License-Identifier: MIT */
/*
 * The inline hot path: counter reads over the kernel's mmap'd metadata page,
 * validated by its seqlock, and timestamps. Included by <upmc/upmc.h>.
 *
 * The protocol is the one documented in the kernel's uapi
 * <linux/perf_event.h> for struct perf_event_mmap_page; docs/read-protocol.md
 * explains each step and why a compiler barrier is the right ordering.
 */
#ifndef UPMC_READ_H
#define UPMC_READ_H

#include <stdint.h>
#include <upmc/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most counters in one set. */
#define UPMC_MAX_COUNTERS 32

/* The most counters upmc_read_n() reads inline and upmc_read()'s readers
 * cover; larger sets take one call to upmc_read_slow() (still no syscall). */
#define UPMC_INLINE_COUNTERS 8

/* The value of a counter that did not count (unavailable, or never ran). */
#define UPMC_NOT_COUNTED UINT64_MAX

/*
 * The kernel's struct perf_event_mmap_page, as far as the reader uses it,
 * with the same layout (os/linux checks every offset against the uapi
 * header at compile time). Declared here so that this header needs no
 * Linux headers and builds on every OS.
 */
struct upmc_perf_page {
	uint32_t version;
	uint32_t compat_version;
	uint32_t lock;  /* seqlock: changes around every kernel update */
	uint32_t index; /* hardware counter + 1; 0: not on a counter now */
	int64_t offset; /* add to the sign-extended counter */
	uint64_t time_enabled;
	uint64_t time_running;
	uint64_t capabilities; /* UPMC_CAP_* (a bitfield in the uapi) */
	uint16_t pmc_width;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_offset;
	uint64_t time_zero;
	uint32_t size;
	uint32_t reserved_1;
	uint64_t time_cycles;
	uint64_t time_mask;
};

/* Bits of upmc_perf_page.capabilities (little-endian bitfield order). */
#define UPMC_CAP_BIT0_IS_DEPRECATED (1ull << 1)
#define UPMC_CAP_USER_RDPMC         (1ull << 2)
#define UPMC_CAP_USER_TIME          (1ull << 3)
#define UPMC_CAP_USER_TIME_ZERO     (1ull << 4)
#define UPMC_CAP_USER_TIME_SHORT    (1ull << 5)

#ifdef __cplusplus
}
#endif

/* Exactly one arch header; they refuse to be included any other way. */
#define UPMC_READ_H_INSIDE
#if defined(__x86_64__) || defined(__i386__)
#include <upmc/arch_x86.h>
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#include <upmc/arch_arm64.h>
#else
#include <upmc/arch_generic.h>
#endif
#undef UPMC_READ_H_INSIDE

/* Whether any of a[0..n-1] differs from b[0..n-1]: in C, where the arch
 * header has no instruction sequence of its own. */
#ifndef UPMC_ARCH_HAS_ANY_DIFFERS
static UPMC_ALWAYS_INLINE int upmc_arch_any_differs(const uint64_t *a, const uint64_t *b,
                                                    const uint32_t n)
{
	uint32_t i;
	int moved = 0;

	UPMC_UNROLL
	for (i = 0; i < n; i++)
		moved = moved || a[i] != b[i];
	return moved;
}
#endif

/* Each page's lock and index, into lock[], and whether any index differs
 * from want[]: in C, where the arch header has no instruction sequence of
 * its own. */
#ifndef UPMC_ARCH_HAS_INDICES_DIFFER
static UPMC_ALWAYS_INLINE int upmc_arch_indices_differ(const volatile struct upmc_perf_page **page,
                                                       uint64_t *lock, const uint64_t *want,
                                                       const uint32_t n)
{
	uint64_t index[UPMC_INLINE_COUNTERS];
	uint32_t i;

	UPMC_UNROLL
	for (i = 0; i < n; i++)
		index[i] = upmc_arch_lock_index(page[i], &lock[i]);
	upmc_barrier();
	return upmc_arch_any_differs(index, want, n);
}
#endif

/* Whether any of the n pages' locks moved since lock[] was read: in C,
 * where the arch header has no instruction sequence of its own. */
#ifndef UPMC_ARCH_HAS_LOCKS_MOVED
static UPMC_ALWAYS_INLINE int upmc_arch_locks_moved(const volatile struct upmc_perf_page **page,
                                                    const uint64_t *lock, const uint32_t n)
{
	uint32_t i;
	int moved = 0;

	UPMC_UNROLL
	for (i = 0; i < n; i++)
		moved = moved || upmc_arch_lock(page[i]) != lock[i];
	return moved;
}
#endif

/* The counter of a page index known at compile time, sign-extended: where
 * the instruction does not name the counter (rdpmc takes it in a register),
 * the same read as for any index. */
#ifndef UPMC_ARCH_HAS_READ_FIXED
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_fixed(const uint32_t page_index)
{
	return upmc_arch_read_extended(page_index);
}
#endif

/* The page pointer of a single read, where the arch header has no register
 * of its own for it. */
#ifndef UPMC_ARCH_HAS_HOLD_PAGE
static UPMC_ALWAYS_INLINE void upmc_arch_hold_page(const volatile struct upmc_perf_page **pc)
{
	(void)pc;
}
#endif

/*
 * The one seam for the simulated kernel (tests): define
 * UPMC_ARCH_READ_COUNTER before including <upmc/upmc.h> to route counter
 * reads to a simulated bank. It takes the page's index (the hardware
 * counter + 1) and returns the raw counter; the inline reader takes it
 * sign-extended from UPMC_ARCH_PMC_WIDTH bits.
 */
#ifndef UPMC_ARCH_READ_COUNTER
#define UPMC_ARCH_READ_COUNTER(page_index)  upmc_arch_read_counter(page_index)
#define UPMC_ARCH_READ_EXTENDED(page_index) upmc_arch_read_extended(page_index)
#define UPMC_ARCH_READ_FIXED(page_index)    upmc_arch_read_fixed(page_index)
#ifdef UPMC_ARCH_HAS_READ_AT
#define UPMC_ARCH_READ_EXTENDED_AT(table, page_index) \
	upmc_arch_extend(upmc_arch_read_at(table, page_index))
#endif
#else
#define UPMC_ARCH_READ_EXTENDED(page_index) upmc_arch_extend(UPMC_ARCH_READ_COUNTER(page_index))
#define UPMC_ARCH_READ_FIXED(page_index)    UPMC_ARCH_READ_EXTENDED(page_index)
#endif

/*
 * Where the counter instruction does not name the counter (x86's rdpmc)
 * or under the seam, a set's counter table is nothing: the read of any
 * index is the same instruction. Where it does (arm64), the inline reads
 * take the table's address from the set (upmc_set.counter_table), loaded
 * with the first page's pointer in one instruction.
 */
#ifndef UPMC_ARCH_READ_EXTENDED_AT
#define UPMC_ARCH_READ_EXTENDED_AT(table, page_index) \
	((void)(table), UPMC_ARCH_READ_EXTENDED(page_index))
#endif
#ifndef UPMC_ARCH_HAS_READ_AT
static UPMC_ALWAYS_INLINE const void *upmc_arch_counter_table(void)
{
	return 0;
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Timestamp ticks to nanoseconds: zero + ticks * mult / 2^shift. */
struct upmc_clock {
	uint64_t zero;
	uint32_t mult;
	uint16_t shift;
	uint16_t source; /* enum upmc_clock_source */
};

struct upmc_set_state;

/*
 * A set of counters. The fields are read by the inline functions below;
 * treat them as private and use the functions in <upmc/upmc.h>.
 */
struct upmc_set {
	uint32_t user_n; /* n when the inline reader reads every counter, else 0 */
	uint32_t n;      /* counters in the set */
	/* upmc_arch_counter_table(), kept beside page[0] so that one load
	 * (ldp) gives both to a read of the first counter */
	const void *counter_table;
	/* Counter i's page where the inline reader may read it, else a page
	 * whose index is 0 (so for every i, counted or not). */
	const volatile struct upmc_perf_page *page[UPMC_MAX_COUNTERS];
	struct upmc_clock clock;
	/* upmc_read(): the reader for this set's size, or upmc_read_slow */
	int (*read)(struct upmc_set *set, uint64_t *values);
	/* upmc_snapshot(): read, or a multiplexed set's reader of its counts
	 * and times */
	int (*snapshot)(struct upmc_set *set, uint64_t *snapshot);
	struct upmc_set_state *state;
	uint64_t thread; /* upmc_thread() of the thread that opened it */
};

/* The calling thread, as a token that no other thread of the process ever
 * has, not even one started after this one exited (never 0). */
UPMC_API uint64_t upmc_thread(void);

/*
 * A set counts the thread that opened it and only that thread may read it:
 * the page describes its counters, and rdpmc or mrs in another thread reads
 * whatever that CPU counts (x86) or traps (arm64). The out-of-line reads
 * check it and fail with -EPERM; define UPMC_DEBUG (a debug build) to have
 * every inline read check it too, at the cost of a call per read.
 */
#ifdef UPMC_DEBUG
#define UPMC_OTHER_THREAD(set) UPMC_UNLIKELY((set)->thread != upmc_thread())
#else
#define UPMC_OTHER_THREAD(set) 0
#endif

/*
 * Not API: call upmc_read() and the others, never these. They are exported
 * only because the inline functions, compiled into the caller, call them;
 * they may change in any version (the shared library's soname says which).
 *
 * Out of line and cold: what the inline readers hand over to. Counters whose
 * page is not the one the inline reader was compiled for (another width, or
 * not on the PMU right now) are read here: from user space by the uapi
 * header's generic loop where the page allows, else by read(2).
 */
UPMC_API int upmc_read_slow(struct upmc_set *set, uint64_t *values);
UPMC_API int upmc_read_n_slow(struct upmc_set *set, uint64_t *values, uint32_t n);
UPMC_API int upmc_read_n_other(struct upmc_set *set, uint64_t *values, uint32_t n);
UPMC_API int upmc_read_counter_slow(struct upmc_set *set, unsigned i, uint64_t *value);
UPMC_API int upmc_read_times_slow(struct upmc_set *set, uint64_t *enabled, uint64_t *running);

/* cyc * mult / 2^shift without overflowing for any cyc (quotient and
 * remainder, as the uapi header does). */
static UPMC_ALWAYS_INLINE uint64_t upmc_mul_shift(uint64_t cyc, uint32_t mult, uint16_t shift)
{
	const unsigned s = shift & 63;
	uint64_t quot = cyc >> s, rem = cyc & (((uint64_t)1 << s) - 1);
	return quot * mult + ((rem * mult) >> s);
}

/* Whether any of the n pages' locks moved since it was read before the
 * counter: every lock loaded again and compared, in one chain with one
 * branch on arm64 (upmc_arch_locks_moved(): cmp, then ldr and ccmp). */
static UPMC_ALWAYS_INLINE int upmc_locks_moved(const volatile struct upmc_perf_page **page,
                                               const uint64_t *lock, const uint32_t n)
{
	return upmc_arch_locks_moved(page, lock, n);
}

/* Value i of n into values[i]; on arm64 two by two, the even one held until
 * the next comes, so that one stp stores both. */
static UPMC_ALWAYS_INLINE void upmc_store_value(uint64_t *values, const uint32_t i,
                                                const uint32_t n, uint64_t v, uint64_t *even)
{
	/* In a general register: compilers would otherwise add two counters'
	 * values together in vector registers. */
	__asm__("" ::"r"(v));
	if (UPMC_ARCH_STORE_PAIRS && i % 2 == 0 && i + 1 < n) {
		*even = v; /* stored with the next one, in one instruction */
	} else if (UPMC_ARCH_STORE_PAIRS && i % 2 == 1) {
		values[i - 1] = *even;
		values[i] = v;
	} else {
		values[i] = v;
	}
}

/* A set of n counters by its own reader (as upmc_read() calls it), the
 * first n of a larger one by upmc_read_n_other(). */
static UPMC_ALWAYS_INLINE int upmc_read_n_by_set(struct upmc_set *set, uint64_t *values,
                                                 const uint32_t n)
{
	if (UPMC_LIKELY(set->n == n))
		return set->read(set, values);
	return upmc_read_n_other(set, values, n);
}

/*
 * Where upmc_read_first() hands over: counters 0..n-1 read out of line.
 * Where the pass holds the values in registers (arm64), into an array of
 * this function's own, then copied: the caller's array never leaves the
 * inline code, so a caller that only uses the values (adds them up) keeps
 * them in registers; passed out of line, the array would be stored and
 * every value loaded back on the inline path too. x86 stores each value as
 * it reads it (too few registers to hold them), and a copy there would only
 * cost the caller registers saved around the call. An out-of-line reader
 * (escaped: its caller's array is in memory anyway) hands over by a tail
 * call: the copy would give it a frame. by_set: to the set's own reader
 * (upmc_read_n_by_set()), else to upmc_read_n_slow().
 */
static UPMC_ALWAYS_INLINE int upmc_read_n_handover(struct upmc_set *set, uint64_t *values,
                                                   const uint32_t n, const int escaped,
                                                   const int by_set)
{
	uint64_t read[UPMC_INLINE_COUNTERS];
	uint32_t i;
	int result;

	if (!UPMC_ARCH_HOLDS_VALUES || escaped)
		return by_set ? upmc_read_n_by_set(set, values, n)
		              : upmc_read_n_slow(set, values, n);
	result = by_set ? upmc_read_n_by_set(set, read, n) : upmc_read_n_slow(set, read, n);
	UPMC_UNROLL
	for (i = 0; i < n; i++)
		values[i] = read[i];
	return result;
}

/*
 * Counters 0..n-1 in one pass, n a constant the compiler unrolls into
 * straight-line code. The library settled at open what a page cannot change
 * afterwards (docs/read-protocol.md): every page in set->page[] has
 * cap_user_rdpmc and the width this header was compiled for; a counter that
 * does not points at a page whose index is 0. So each counter costs its
 * lock and index (one load on arm64), its offset, the counter and one add;
 * then every lock is compared once. A counter off the PMU (index 0) sends
 * the read out of line (upmc_read_n_slow()); a moved lock repeats the pass.
 * escaped: called out of line (lib/core/read.c), see upmc_read_n_handover().
 */
static UPMC_ALWAYS_INLINE int upmc_read_first(struct upmc_set *set, uint64_t *values,
                                              const uint32_t n, const int escaped)
{
	const volatile struct upmc_perf_page *page[UPMC_INLINE_COUNTERS];
	uint64_t lock[UPMC_INLINE_COUNTERS], even = 0;
	const void *table = set->counter_table;
	uint32_t i;

	/* Copied, the pointers stay in registers across the barriers. */
	UPMC_UNROLL
	for (i = 0; i < n; i++)
		page[i] = set->page[i];
	do {
		UPMC_UNROLL
		for (i = 0; i < n; i++) {
			const uint64_t index = upmc_arch_lock_index(page[i], &lock[i]);
			uint64_t v;

			/* Pairs with the kernel's barrier() after its first ++lock. */
			upmc_barrier();
			if (UPMC_UNLIKELY(!index || !upmc_arch_cap_ok(page[i])))
				return upmc_read_n_handover(set, values, n, escaped, 0);
			v = (uint64_t)page[i]->offset +
			    UPMC_ARCH_READ_EXTENDED_AT(table, (uint32_t)index);
			upmc_store_value(values, i, n, v, &even);
		}
		/* Pairs with the kernel's barrier() before its second ++lock. */
		upmc_barrier();
	} while (UPMC_UNLIKELY(upmc_locks_moved(page, lock, n)));
	return (int)n;
}

/* Where counters are read in user space and the instruction names the
 * counter (arm64 on Linux; the simulated kernel's build, through its
 * seam): upmc_read_n() compiled for the usual layout. */
#if defined(UPMC_ARCH_CYCLE_INDEX) && UPMC_ARCH_HAS_USER_READ
/*
 * Where upmc_read_usual() hands a set laid out otherwise over. Up to 3
 * counters, to the straight-line reader inline: its table, 3 a counter,
 * costs less there than the call to the set's own reader (for 2 counters
 * 27.8 instructions against 32 on arm64: the size test and the call's
 * handover). From 4 counters, to the set's own reader, compiled for its
 * layout where it has one (lib/core/read.c), out of line.
 */
static UPMC_ALWAYS_INLINE int upmc_read_n_unusual(struct upmc_set *set, uint64_t *values,
                                                  const uint32_t n)
{
	if (n <= 3)
		return upmc_read_first(set, values, n, 0);
	return upmc_read_n_handover(set, values, n, 0, 1);
}

/*
 * Where the counter instruction names the counter (arm64's mrs), the read
 * of a set laid out as most sets are is compiled for that layout: its
 * first counter on the cycle counter and the others on the event counters
 * from the first (a thread's first set of "cycles,instructions,...", the
 * order every example and profile uses: armv8pmu_get_event_idx() puts the
 * first cycles event on the cycle counter, the others in order on the
 * first free event counters). Counter i's page index in that layout:
 */
static UPMC_ALWAYS_INLINE uint64_t upmc_usual_index(const uint32_t i)
{
	return i == 0 ? UPMC_ARCH_CYCLE_INDEX : i;
}

/*
 * Counters 0..n-1 (n >= 2) of a set in the usual layout, each by the
 * instruction that names it: no table and no call. The indices are checked
 * in two compare chains, the first counter's alone first: a set laid out
 * otherwise leaves after three instructions (its first counter is not on
 * the cycle counter) for upmc_read_n_unusual(); so does a set whose index
 * moved, or went to 0, since open.
 */
static UPMC_ALWAYS_INLINE int upmc_read_usual(struct upmc_set *set, uint64_t *values,
                                              const uint32_t n)
{
	const volatile struct upmc_perf_page *page[UPMC_INLINE_COUNTERS];
	uint64_t lock[UPMC_INLINE_COUNTERS], want[UPMC_INLINE_COUNTERS], even = 0;
	uint32_t i;

	UPMC_UNROLL
	for (i = 0; i < n; i++) {
		page[i] = set->page[i];
		want[i] = upmc_usual_index(i);
	}
	do {
		if (UPMC_UNLIKELY(upmc_arch_indices_differ(page, lock, want, 1)) ||
		    UPMC_UNLIKELY(upmc_arch_indices_differ(page + 1, lock + 1, want + 1, n - 1)))
			return upmc_read_n_unusual(set, values, n);
		/* Pairs with the kernel's barrier() after its first ++lock. */
		upmc_barrier();
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			if (UPMC_UNLIKELY(!upmc_arch_cap_ok(page[i])))
				return upmc_read_n_unusual(set, values, n);
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			upmc_store_value(values, i, n,
			                 (uint64_t)page[i]->offset +
			                         UPMC_ARCH_READ_FIXED(upmc_usual_index(i)),
			                 &even);
		/* Pairs with the kernel's barrier() before its second ++lock. */
		upmc_barrier();
	} while (UPMC_UNLIKELY(upmc_locks_moved(page, lock, n)));
	return (int)n;
}
#endif

/*
 * Reads every counter of the set into values[0..n-1]. Returns n, or a
 * negative errno (a failed read leaves every value UPMC_NOT_COUNTED). One
 * call, to the reader chosen at open: the layout reader of the counters the
 * set's events sit on (each counter by the instruction that names it, on
 * arm64), else the straight-line reader of the set's size, or
 * upmc_read_slow(). Inlining a reader for every size at every call site
 * would cost kilobytes of code each.
 *
 * Which read is cheapest (exact instructions on arm64 in a loop of reads,
 * docs/hardware-checks.md; the floor is a reader written for the set's
 * layout: 10 / 17 / 32 / 47 / 55 for 1 / 2 / 4 / 6 / 7 counters):
 * upmc_read_n() for 1 counter (12), and for a set in the usual layout
 * (cycles first, the other events from the first event counter: a
 * thread's first set of "cycles,..."; 18.8 / 33 / 48 / 56, the floor + 1
 * or 2). For a set laid out otherwise (cycles elsewhere or nowhere, a
 * second set, a profile's), upmc_read() (24 / 40 / 56 / 65), which calls
 * the reader compiled for the set's layout: upmc_read_n() pays the table,
 * 3 a counter, and its first compare, 3, up to 3 counters (27.8 for 2),
 * and 9 to 11 more than upmc_read() from 4 (49 / 66 / 76). On x86 (rdpmc
 * takes the counter in a register: no layout to compile for)
 * upmc_read_n() is the cheapest.
 */
static UPMC_ALWAYS_INLINE int upmc_read(struct upmc_set *set, uint64_t *values)
{
	if (UPMC_OTHER_THREAD(set))
		return upmc_read_slow(set, values);
	return set->read(set, values);
}

/*
 * Reads counters 0..n-1 of a set of at least n counters, n a compile-time
 * constant: straight-line code, no call where the set is in the layout it
 * is compiled for (on arm64, the usual one: see upmc_read_usual()); the
 * cheapest read of 1 counter and of a set in that layout (see upmc_read()).
 * Returns n, or a negative errno (-EINVAL when the set has fewer than n
 * counters).
 */
static UPMC_ALWAYS_INLINE int upmc_read_n(struct upmc_set *set, uint64_t *values, const uint32_t n)
{
	/* No counter: nothing to read, and no pass to validate (arm64's lock
	 * chain has no case for 0: inline, the pass would repeat forever). */
	if (n == 0 || n > UPMC_INLINE_COUNTERS || UPMC_OTHER_THREAD(set))
		return upmc_read_n_slow(set, values, n);
#if defined(UPMC_ARCH_CYCLE_INDEX) && UPMC_ARCH_HAS_USER_READ
	if (n > 1)
		return upmc_read_usual(set, values, n);
#endif
	return upmc_read_first(set, values, n, 0);
}

/* Where upmc_read_counter() hands over. Where the pass holds its value in
 * a register (arm64), into a value of its own, then copied, so that the
 * caller's value never leaves the inline code (as upmc_read_n_handover()
 * does for arrays): a caller that only uses it keeps it in a register. x86
 * stores it in the pass (too few registers to hold it past the lock's
 * load), and hands the caller's over. */
static UPMC_ALWAYS_INLINE int upmc_read_counter_handover(struct upmc_set *set, unsigned i,
                                                         uint64_t *value)
{
	uint64_t read;
	int result;

	if (!UPMC_ARCH_HOLDS_VALUES)
		return upmc_read_counter_slow(set, i, value);
	result = upmc_read_counter_slow(set, i, &read);
	*value = read;
	return result;
}

/* Reads counter i alone. Returns 0, or a negative errno (a failed read
 * leaves the value UPMC_NOT_COUNTED). */
static UPMC_ALWAYS_INLINE int upmc_read_counter(struct upmc_set *set, unsigned i, uint64_t *value)
{
	const volatile struct upmc_perf_page *pc;
	const void *table;
	uint64_t lock, index, v;

	if (UPMC_UNLIKELY(i >= UPMC_MAX_COUNTERS) || UPMC_OTHER_THREAD(set))
		return upmc_read_counter_slow(set, i, value);
	table = set->counter_table;
	pc = set->page[i];
	upmc_arch_hold_page(&pc);
	do {
		index = upmc_arch_lock_index(pc, &lock);
		upmc_barrier(); /* as in upmc_read_first() */
		if (UPMC_UNLIKELY(!index || !upmc_arch_cap_ok(pc)))
			return upmc_read_counter_handover(set, i, value);
		v = (uint64_t)pc->offset + UPMC_ARCH_READ_EXTENDED_AT(table, (uint32_t)index);
		__asm__("" ::"r"(v)); /* computed in every pass, as upmc_store_value() */
		if (!UPMC_ARCH_HOLDS_VALUES)
			*value = v;
		upmc_barrier();
	} while (UPMC_UNLIKELY(upmc_arch_lock(pc) != lock));
	/* Held, stored once the pass holds: stored in the pass, before the
	 * lock's load (which may read any memory, *value too), it is stored in
	 * every pass and loaded back by a caller that uses it. */
	if (UPMC_ARCH_HOLDS_VALUES)
		*value = v;
	return 0;
}

/* Raw timestamp ticks (rdtsc, CNTVCT_EL0, or ns on other arches). */
static UPMC_ALWAYS_INLINE uint64_t upmc_timestamp(void)
{
	return upmc_arch_timestamp();
}

/* The same, fenced on both sides: use it where a measured interval begins. */
static UPMC_ALWAYS_INLINE uint64_t upmc_timestamp_serialized(void)
{
	return upmc_arch_timestamp_serialized();
}

/* Fenced before only, after everything earlier has finished: use it where
 * a measured interval ends. */
static UPMC_ALWAYS_INLINE uint64_t upmc_timestamp_after(void)
{
	return upmc_arch_timestamp_after();
}

/* Timestamp ticks to nanoseconds with the set's clock (see upmc_clock_source()). */
static UPMC_ALWAYS_INLINE uint64_t upmc_ticks_to_ns(const struct upmc_set *set, uint64_t ticks)
{
	return set->clock.zero + upmc_mul_shift(ticks, set->clock.mult, set->clock.shift);
}

/*
 * Time the set's group has been enabled and running, in ns, computed in
 * user space from the leader's page when the kernel allows it (extrapolated
 * from a fresh timestamp; running only grows while the group is on the
 * PMU), through read(2) otherwise. Returns 0, or a negative errno.
 */
static inline int upmc_read_times(struct upmc_set *set, uint64_t *enabled, uint64_t *running)
{
	const volatile struct upmc_perf_page *pc;
	uint64_t en, run, cyc, delta;
	uint32_t seq;

	if (UPMC_UNLIKELY(!set->user_n) || UPMC_OTHER_THREAD(set))
		return upmc_read_times_slow(set, enabled, running);
	pc = set->page[0];
	do {
		seq = pc->lock;
		upmc_barrier(); /* as in upmc_read() */
		if (!(pc->capabilities & UPMC_CAP_USER_TIME))
			return upmc_read_times_slow(set, enabled, running);
		en = pc->time_enabled;
		run = pc->time_running;
		cyc = upmc_arch_timestamp();
		if (pc->capabilities & UPMC_CAP_USER_TIME_SHORT)
			cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
		delta = pc->time_offset + upmc_mul_shift(cyc, pc->time_mult, pc->time_shift);
		en += delta;
		if (pc->index)
			run += delta;
		upmc_barrier();
	} while (pc->lock != seq);
	*enabled = en;
	*running = run;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* UPMC_READ_H */
