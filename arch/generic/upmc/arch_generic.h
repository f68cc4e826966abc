/* SPDX-License-Identifier: MIT */
/*
 * Other architectures: no user-space counter reads; timestamps are
 * CLOCK_MONOTONIC_RAW nanoseconds, read out of line so that this header
 * needs no POSIX feature macros. Included by <upmc/read.h> only.
 */
#ifndef UPMC_READ_H_INSIDE
#error "include <upmc/upmc.h>, not an arch header"
#endif
#ifndef UPMC_ARCH_GENERIC_H
#define UPMC_ARCH_GENERIC_H

#include <stdint.h>

#define UPMC_ARCH_NAME          "generic"
#define UPMC_ARCH_READ_INSN     "none"
#define UPMC_ARCH_HAS_USER_READ 0
#define UPMC_ARCH_TICKS_ARE_NS  1

#ifdef __cplusplus
extern "C" {
#endif
/* Not API: exported only for the inline timestamps below. */
UPMC_API uint64_t upmc_generic_now_ns(void);
#ifdef __cplusplus
}
#endif

/* None of these is reached: the library gives the inline reader no page
 * with an index on this arch. */
#define UPMC_ARCH_PMC_WIDTH    64
#define UPMC_ARCH_STORE_PAIRS  0
#define UPMC_ARCH_HOLDS_VALUES 0

static inline uint64_t upmc_arch_extend(uint64_t raw)
{
	return raw;
}

static inline uint64_t upmc_arch_lock_index(const volatile struct upmc_perf_page *pc,
                                            uint64_t *lock)
{
	*lock = pc->lock;
	return pc->index;
}

static inline uint64_t upmc_arch_lock(const volatile struct upmc_perf_page *pc)
{
	return pc->lock;
}

static inline int upmc_arch_cap_ok(const volatile struct upmc_perf_page *pc)
{
	return (pc->capabilities & UPMC_CAP_USER_RDPMC) != 0;
}

static inline uint64_t upmc_arch_read_counter(uint32_t page_index)
{
	(void)page_index;
	return 0;
}

static inline uint64_t upmc_arch_read_extended(uint32_t page_index)
{
	(void)page_index;
	return 0;
}

static inline uint64_t upmc_arch_timestamp(void)
{
	return upmc_generic_now_ns();
}

static inline uint64_t upmc_arch_timestamp_serialized(void)
{
	uint64_t t;
	upmc_barrier();
	t = upmc_generic_now_ns();
	upmc_barrier();
	return t;
}

static inline uint64_t upmc_arch_timestamp_after(void)
{
	upmc_barrier();
	return upmc_generic_now_ns();
}

#endif /* UPMC_ARCH_GENERIC_H */
