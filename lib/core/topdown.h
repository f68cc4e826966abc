/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown in user space: slots and PERF_METRICS read with rdpmc in
 * one validated pass over the perf pages, as the kernel's
 * tools/perf/Documentation/topdown.txt describes. Private to the library
 * (lib/core/topdown.c); a header of its own so that the instruction count
 * of the pass can be checked from its disassembly (tests/core_topdown_cost_test.c).
 */
#ifndef UPMC_TOPDOWN_H
#define UPMC_TOPDOWN_H

#include <stddef.h>
#include <stdint.h>
#include <upmc/upmc.h>

/* What one pass gives beside the counts: the slots counter as it stands,
 * sign-extended as read (its low UPMC_ARCH_PMC_WIDTH bits are the slots
 * since the kernel last reset it), and PERF_METRICS. */
struct upmc_topdown_regs {
	uint64_t slots_counter;
	uint64_t metrics;
};

/*
 * pages[0..n-2] read as counts into values[0..n-2] (pages[0] is slots),
 * and pages[n-1], a topdown metric event's page, whose index names
 * PERF_METRICS (rdpmc 1 << 29): read raw, no offset, no sign. Every lock
 * before, every counter, every lock again: a moved lock repeats the pass,
 * so slots and the fractions are of the same moment. -1 when a page says
 * no user-space read now (index 0, capability gone): the caller refuses,
 * as read(2) would reset the registers under the interval.
 */
static UPMC_ALWAYS_INLINE int upmc_topdown_pass(const volatile struct upmc_perf_page *const *pages,
                                                const uint32_t n, uint64_t *values,
                                                struct upmc_topdown_regs *regs)
{
	const volatile struct upmc_perf_page *page[UPMC_MAX_COUNTERS];
	uint64_t lock[UPMC_MAX_COUNTERS], index[UPMC_MAX_COUNTERS], moved;
	uint32_t i;
	uint64_t slots = 0, metrics;

	/* Copied, the pointers stay in registers across the barriers. */
	UPMC_UNROLL
	for (i = 0; i < n; i++)
		page[i] = pages[i];
	do {
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			index[i] = upmc_arch_lock_index(page[i], &lock[i]);
		/* Pairs with the kernel's barrier() after its first ++lock. */
		upmc_barrier();
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			if (UPMC_UNLIKELY(!index[i] || !upmc_arch_cap_ok(page[i])))
				return -1;
		UPMC_UNROLL
		for (i = 0; i + 1 < n; i++) {
			const uint64_t counter = UPMC_ARCH_READ_EXTENDED(index[i]);
			if (i == 0)
				slots = counter;
			values[i] = (uint64_t)page[i]->offset + counter;
		}
		metrics = UPMC_ARCH_READ_COUNTER(index[n - 1]);
		/* Pairs with the kernel's barrier() before its second ++lock. */
		upmc_barrier();
		moved = 0;
		UPMC_UNROLL
		for (i = 0; i < n; i++)
			moved |= page[i]->lock ^ lock[i];
	} while (UPMC_UNLIKELY(moved));
	regs->slots_counter = slots;
	regs->metrics = metrics;
	return 0;
}

/* The slots since the kernel last reset them, from the pass's counter. */
static inline uint64_t upmc_topdown_raw_slots(const struct upmc_topdown_regs *regs)
{
	return regs->slots_counter & (~(uint64_t)0 >> (64 - UPMC_ARCH_PMC_WIDTH));
}

/* Field k of PERF_METRICS (k 0-3: retiring, bad speculation, frontend
 * bound, backend bound; 4-7 their level 2 parts) in 255ths of the slots
 * since the last reset (topdown.txt: GET_METRIC). */
static inline unsigned upmc_topdown_field(uint64_t metrics, unsigned k)
{
	return (unsigned)(metrics >> (8 * k)) & 0xff;
}

/*
 * upmc_topdown_unmeasured() and upmc_topdown_counts() (lib/core/internal.h)
 * of a set's n counters read as td says, for snapshots kept beyond their
 * set (zones: lib/zone/). An unmeasured interval is one of the two kinds.
 */
struct upmc_topdown;
struct upmc_metric;
#define UPMC_TOPDOWN_RESET 1 /* slots and PERF_METRICS reset in between */
#define UPMC_TOPDOWN_SHORT 2 /* too short for the fields' precision */
int upmc_topdown_unmeasured_of(const struct upmc_topdown *td, unsigned n,
                               const struct upmc_metric *m, const uint64_t *before,
                               const uint64_t *after, char *why, size_t size);
void upmc_topdown_counts_of(const struct upmc_topdown *td, unsigned n, const uint64_t *before,
                            const uint64_t *after, uint64_t *counts);

#endif /* UPMC_TOPDOWN_H */
