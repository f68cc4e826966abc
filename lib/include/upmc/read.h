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

/*
 * The one seam for the simulated kernel (tests): define this before
 * including <upmc/upmc.h> to route counter reads to a simulated bank. It
 * takes the page's index (the hardware counter + 1).
 */
#ifndef UPMC_ARCH_READ_COUNTER
#define UPMC_ARCH_READ_COUNTER(page_index) upmc_arch_read_counter(page_index)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Most counters in one set. */
#define UPMC_MAX_COUNTERS 32

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
	uint32_t user_n; /* n when every counter reads in user space, else 0 */
	uint32_t n;      /* counters in the set */
	const volatile struct upmc_perf_page *page[UPMC_MAX_COUNTERS];
	struct upmc_clock clock;
	struct upmc_set_state *state;
};

/* Out of line and cold: read(2) (or the OS's own call) for the whole set. */
UPMC_API int upmc_read_slow(struct upmc_set *set, uint64_t *values);
UPMC_API int upmc_read_n_slow(struct upmc_set *set, uint64_t *values, uint32_t n);
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

/*
 * offset + the counter sign-extended from pmc_width bits. Sign extension
 * (not masking) is what makes the sum continuous when the counter wraps.
 * The shift is taken modulo 64 so that no width, not even a bogus 0, makes
 * it undefined (one "and").
 */
static UPMC_ALWAYS_INLINE uint64_t upmc_page_value(const volatile struct upmc_perf_page *pc,
                                                   uint32_t index)
{
	const unsigned shift = (64u - pc->pmc_width) & 63;
	const uint64_t raw = UPMC_ARCH_READ_COUNTER(index);
	return (uint64_t)pc->offset + (uint64_t)((int64_t)(raw << shift) >> shift);
}

/*
 * Counters 0..n-1 in one validated pass: all locks, then every
 * index/offset/counter, then all locks again; retried as a whole when any
 * lock moved, so every value comes from one schedule-in. A counter that is
 * not on the PMU right now (index 0) sends the whole set through read(2).
 *
 * Defined twice from one body: as a loop (upmc_read_pages) and unrolled
 * into straight-line code for a constant n (upmc_read_pages_unrolled),
 * which also keeps the page pointers in registers.
 */
#define UPMC_DEFINE_READ_PAGES(name, unroll, copy)                                            \
	static UPMC_ALWAYS_INLINE int name(struct upmc_set *set, uint64_t *values,            \
	                                   const uint32_t n)                                  \
	{                                                                                     \
		const volatile struct upmc_perf_page *local[UPMC_MAX_COUNTERS];               \
		const volatile struct upmc_perf_page *const *page = copy ? local : set->page; \
		uint32_t seq, i;                                                              \
		/* Copied, the pointers stay in registers across the barriers. */             \
		if (copy)                                                                     \
			unroll for (i = 0; i < n; i++) local[i] = set->page[i];               \
		do {                                                                          \
			/* The locks only ever grow: their sum changes iff one did. */        \
			seq = 0;                                                              \
			unroll for (i = 0; i < n; i++) seq += page[i]->lock;                  \
			/* Pairs with the kernel's barrier() after its first ++lock. */       \
			upmc_barrier();                                                       \
			unroll for (i = 0; i < n; i++)                                        \
			{                                                                     \
				const volatile struct upmc_perf_page *pc = page[i];           \
				const uint32_t index = pc->index;                             \
				if (UPMC_UNLIKELY(!index ||                                   \
				                  !(pc->capabilities & UPMC_CAP_USER_RDPMC))) \
					return upmc_read_slow(set, values);                   \
				values[i] = upmc_page_value(pc, index);                       \
			}                                                                     \
			/* Pairs with the kernel's barrier() before its second ++lock. */     \
			upmc_barrier();                                                       \
			unroll for (i = 0; i < n; i++) seq -= page[i]->lock;                  \
		} while (UPMC_UNLIKELY(seq != 0));                                            \
		return (int)n;                                                                \
	}
/* clang-format off */
UPMC_DEFINE_READ_PAGES(upmc_read_pages, , 0)
UPMC_DEFINE_READ_PAGES(upmc_read_pages_unrolled, UPMC_UNROLL, 1)
/* clang-format on */

/*
 * Reads every counter of the set into values[0..n-1] (see upmc_read_pages).
 * Returns n, or a negative errno.
 */
static UPMC_ALWAYS_INLINE int upmc_read(struct upmc_set *set, uint64_t *values)
{
	const uint32_t n = set->user_n;

	if (UPMC_UNLIKELY(!n))
		return upmc_read_slow(set, values);
	return upmc_read_pages(set, values, n);
}

/*
 * upmc_read() for a set of exactly n counters, n a compile-time constant:
 * the reads unroll into straight-line code. Returns n, or a negative errno
 * (-EINVAL when the set does not have n counters).
 */
static UPMC_ALWAYS_INLINE int upmc_read_n(struct upmc_set *set, uint64_t *values, const uint32_t n)
{
	if (UPMC_UNLIKELY(set->user_n != n))
		return upmc_read_n_slow(set, values, n);
	return upmc_read_pages_unrolled(set, values, n);
}

/* Reads counter i alone. Returns 0, or a negative errno. */
static UPMC_ALWAYS_INLINE int upmc_read_counter(struct upmc_set *set, unsigned i, uint64_t *value)
{
	const volatile struct upmc_perf_page *pc;
	uint32_t seq, index;
	uint64_t v;

	if (UPMC_UNLIKELY(i >= set->user_n))
		return upmc_read_counter_slow(set, i, value);
	pc = set->page[i];
	do {
		seq = pc->lock;
		upmc_barrier(); /* as in upmc_read() */
		index = pc->index;
		if (UPMC_UNLIKELY(!index || !(pc->capabilities & UPMC_CAP_USER_RDPMC)))
			return upmc_read_counter_slow(set, i, value);
		v = upmc_page_value(pc, index);
		upmc_barrier();
	} while (UPMC_UNLIKELY(pc->lock != seq));
	*value = v;
	return 0;
}

/* Raw timestamp ticks (rdtsc, CNTVCT_EL0, or ns on other arches). */
static UPMC_ALWAYS_INLINE uint64_t upmc_timestamp(void)
{
	return upmc_arch_timestamp();
}

/* The same, fenced on both sides: use it at region begin and end. */
static UPMC_ALWAYS_INLINE uint64_t upmc_timestamp_serialized(void)
{
	return upmc_arch_timestamp_serialized();
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

	if (UPMC_UNLIKELY(!set->user_n))
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
