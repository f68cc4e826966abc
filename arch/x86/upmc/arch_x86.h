/* SPDX-License-Identifier: MIT */
/*
 * x86 user-space reads: rdpmc, rdtsc, lfence. Included by <upmc/read.h> only.
 */
#ifndef UPMC_READ_H_INSIDE
#error "include <upmc/upmc.h>, not an arch header"
#endif
#ifndef UPMC_ARCH_X86_H
#define UPMC_ARCH_X86_H

#include <stdint.h>

#define UPMC_ARCH_NAME          "x86"
#define UPMC_ARCH_READ_INSN     "rdpmc"
#define UPMC_ARCH_HAS_USER_READ 1
#define UPMC_ARCH_TICKS_ARE_NS  0

/*
 * Every x86 PMU perf drives has 48-bit counters (x86_pmu.cntval_bits);
 * the library sends a page of any other width to the generic reader.
 */
#define UPMC_ARCH_PMC_WIDTH 48

/* No instruction stores two registers. */
#define UPMC_ARCH_STORE_PAIRS 0

/* A raw counter value sign-extended from 48 bits (the generic seam's). */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_extend(uint64_t raw)
{
	return (uint64_t)((int64_t)(raw << 16) >> 16);
}

/* The page's lock, then its index: two loads in this order (volatile keeps
 * it), so that an update between them moves the lock read after them. */
static UPMC_ALWAYS_INLINE uint32_t upmc_arch_lock_index(const volatile struct upmc_perf_page *pc,
                                                        uint32_t *lock)
{
	*lock = pc->lock;
	return pc->index;
}

/*
 * Kernels before 5.x copied the sysfs rdpmc knob into cap_user_rdpmc but
 * left the index set, so an administrator turning rdpmc off shows only in
 * the capability bit: two instructions that keep rdpmc from faulting there.
 */
static UPMC_ALWAYS_INLINE int upmc_arch_cap_ok(const volatile struct upmc_perf_page *pc)
{
	/* The low byte alone, read plainly so that it folds into one "testb":
	 * the reader's barriers already make it one fresh load per pass. */
	return (*(const uint8_t *)(const void *)&pc->capabilities & UPMC_CAP_USER_RDPMC) != 0;
}

/*
 * rdpmc and rdtsc write a 64-bit value as halves in eax and edx. x86-64
 * zero-extends them into rax and rdx, and 64-bit operands tell the compiler
 * so (no extra zero-extension); i386 has only the 32-bit registers.
 */
#if defined(__x86_64__)
#define UPMC_X86_HALF uint64_t
#else
#define UPMC_X86_HALF uint32_t
#endif

/* rdpmc takes the page's index - 1; fixed counters carry bit 30 in it. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_counter(uint32_t page_index)
{
	UPMC_X86_HALF lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(page_index - 1));
	return lo | (uint64_t)hi << 32;
}

/*
 * The rdpmc numbers of Intel's topdown registers (Ice Lake and later), as
 * the kernel's tools/perf/Documentation/topdown.txt reads them: fixed
 * counter 3 (slots) with bit 30, PERF_METRICS with bit 29. A page's index
 * is one more: x86_pmu_event_idx() (arch/x86/events/core.c) returns
 * INTEL_PMC_FIXED_RDPMC_METRICS + 1 for a topdown metric event, and
 * event_base_rdpmc + 1 for others, which x86_assign_hw_event() sets to
 * (idx - INTEL_PMC_IDX_FIXED) | INTEL_PMC_FIXED_RDPMC_BASE for a fixed
 * counter: slots always has fixed counter 3.
 */
#define UPMC_X86_RDPMC_SLOTS   ((1u << 30) | 3)
#define UPMC_X86_RDPMC_METRICS (1u << 29)

/* The same, sign-extended from 48 bits: edx holds bits 32-47, so one
 * movsx of dx does it. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_extended(uint32_t page_index)
{
	UPMC_X86_HALF lo, hi;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(page_index - 1));
	return lo | (uint64_t)(int64_t)(int16_t)(uint16_t)hi << 32;
}

static UPMC_ALWAYS_INLINE uint64_t upmc_arch_timestamp(void)
{
	UPMC_X86_HALF lo, hi;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return lo | (uint64_t)hi << 32;
}

/*
 * For region boundaries: the first lfence waits for earlier instructions to
 * finish, the second keeps later ones from starting before the read. The
 * same sequence at both ends of a region makes its cost a constant bias.
 */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_timestamp_serialized(void)
{
	UPMC_X86_HALF lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	return lo | (uint64_t)hi << 32;
}

/* For the end of a measured interval: earlier instructions finish first;
 * what follows the read needs no fence, since nothing is measured after it. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_timestamp_after(void)
{
	UPMC_X86_HALF lo, hi;
	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return lo | (uint64_t)hi << 32;
}

#endif /* UPMC_ARCH_X86_H */
