/* SPDX-License-Identifier: MIT */
/*
 * arm64 user-space reads: mrs PMEVCNTR<n>_EL0 / PMCCNTR_EL0, CNTVCT_EL0.
 * Included by <upmc/read.h> only.
 */
#ifndef UPMC_READ_H_INSIDE
#error "include <upmc/upmc.h>, not an arch header"
#endif
#ifndef UPMC_ARCH_ARM64_H
#define UPMC_ARCH_ARM64_H

#include <stdint.h>

#define UPMC_ARCH_NAME          "arm64"
#define UPMC_ARCH_READ_INSN     "mrs"
#define UPMC_ARCH_HAS_USER_READ 1
#define UPMC_ARCH_TICKS_ARE_NS  0

/*
 * The counter number is encoded in the mrs instruction, so the read jumps
 * into a table of 32 fixed-size entries: 0..30 are PMEVCNTR<n>_EL0, 31 is
 * PMCCNTR_EL0. The index is masked to 5 bits so that no value can jump out
 * of the table. With BTI enabled each entry starts with a landing pad.
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define UPMC_ARM64_ENTRY(reg) "hint #36\n\tmrs %[v], " reg "\n\tb 2f\n\tnop\n\t"
#define UPMC_ARM64_SHIFT      "4"
#else
#define UPMC_ARM64_ENTRY(reg) "mrs %[v], " reg "\n\tb 2f\n\t"
#define UPMC_ARM64_SHIFT      "3"
#endif

static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_counter(uint32_t hw_index)
{
	uint64_t v, entry, off;
	__asm__ __volatile__(
	        "adr %[e], 1f\n\t"
	        "ubfiz %[o], %x[i], #" UPMC_ARM64_SHIFT ", #5\n\t"
	        "add %[e], %[e], %[o]\n\t"
	        "br %[e]\n"
	        "1:\n\t" /* clang-format off */
		UPMC_ARM64_ENTRY("pmevcntr0_el0")  UPMC_ARM64_ENTRY("pmevcntr1_el0")
		UPMC_ARM64_ENTRY("pmevcntr2_el0")  UPMC_ARM64_ENTRY("pmevcntr3_el0")
		UPMC_ARM64_ENTRY("pmevcntr4_el0")  UPMC_ARM64_ENTRY("pmevcntr5_el0")
		UPMC_ARM64_ENTRY("pmevcntr6_el0")  UPMC_ARM64_ENTRY("pmevcntr7_el0")
		UPMC_ARM64_ENTRY("pmevcntr8_el0")  UPMC_ARM64_ENTRY("pmevcntr9_el0")
		UPMC_ARM64_ENTRY("pmevcntr10_el0") UPMC_ARM64_ENTRY("pmevcntr11_el0")
		UPMC_ARM64_ENTRY("pmevcntr12_el0") UPMC_ARM64_ENTRY("pmevcntr13_el0")
		UPMC_ARM64_ENTRY("pmevcntr14_el0") UPMC_ARM64_ENTRY("pmevcntr15_el0")
		UPMC_ARM64_ENTRY("pmevcntr16_el0") UPMC_ARM64_ENTRY("pmevcntr17_el0")
		UPMC_ARM64_ENTRY("pmevcntr18_el0") UPMC_ARM64_ENTRY("pmevcntr19_el0")
		UPMC_ARM64_ENTRY("pmevcntr20_el0") UPMC_ARM64_ENTRY("pmevcntr21_el0")
		UPMC_ARM64_ENTRY("pmevcntr22_el0") UPMC_ARM64_ENTRY("pmevcntr23_el0")
		UPMC_ARM64_ENTRY("pmevcntr24_el0") UPMC_ARM64_ENTRY("pmevcntr25_el0")
		UPMC_ARM64_ENTRY("pmevcntr26_el0") UPMC_ARM64_ENTRY("pmevcntr27_el0")
		UPMC_ARM64_ENTRY("pmevcntr28_el0") UPMC_ARM64_ENTRY("pmevcntr29_el0")
		UPMC_ARM64_ENTRY("pmevcntr30_el0") UPMC_ARM64_ENTRY("pmccntr_el0")
		"2:" /* clang-format on */
	        : [v] "=r"(v), [e] "=&r"(entry), [o] "=&r"(off)
	        : [i] "r"((uint64_t)hw_index));
	return v;
}

/* The isb keeps the timer read from happening before earlier instructions. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_timestamp(void)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* For region boundaries: the same sequence at both ends; the second isb
 * keeps later instructions from starting before the read. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_timestamp_serialized(void)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
	return v;
}

static inline uint64_t upmc_arch_timer_frequency(void)
{
	uint64_t v;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

#endif /* UPMC_ARCH_ARM64_H */
