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

#define UPMC_ARCH_NAME      "arm64"
#define UPMC_ARCH_READ_INSN "mrs"
/* Linux (ELF) gives user space the counters; macOS and Windows do not. */
#if defined(__ELF__)
#define UPMC_ARCH_HAS_USER_READ 1
#else
#define UPMC_ARCH_HAS_USER_READ 0
#endif
#define UPMC_ARCH_TICKS_ARE_NS 0

/*
 * The library opens every event as a 32-bit one (no "long" bit), so every
 * page it gives the inline reader says pmc_width 32; a page of another
 * width goes to the generic reader.
 */
#define UPMC_ARCH_PMC_WIDTH 32

/* Two values stored by one instruction (stp). */
#define UPMC_ARCH_STORE_PAIRS 1

/* The counter sign-extended from 32 bits: folds into the add of the
 * offset ("add x, x, w, sxtw"). */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_extend(uint64_t raw)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
}

/*
 * The page's lock and index in one load (ldp): an update interrupts the
 * reader between instructions, never inside one, so the two always belong
 * together; the lock read again after the counter says whether one came.
 */
static UPMC_ALWAYS_INLINE uint32_t upmc_arch_lock_index(const volatile struct upmc_perf_page *pc,
                                                        uint32_t *lock)
{
	uint32_t index;

	/* #8 is the lock's offset in the page (os/linux checks the layout);
	 * the "m" operand tells the compiler the asm reads the page (the page
	 * itself: an operand for each field costs clang an add each). */
	__asm__ __volatile__("ldp %w0, %w1, [%2, #8]"
	                     : "=r"(*lock), "=r"(index)
	                     : "r"(pc), "m"(*pc));
	return index;
}

/* Whether either of two locks moved since it was read before the counter:
 * cmp, ccmp and the caller's one branch. Written in C, gcc compares each
 * pair into a register (cset) and tests the results together. Compilers
 * without flag outputs (clang before 16) get <upmc/read.h>'s C. */
#ifdef __GCC_ASM_FLAG_OUTPUTS__
#define UPMC_ARCH_HAS_LOCKS_MOVED2 1
static UPMC_ALWAYS_INLINE int upmc_arch_locks_moved2(uint32_t a, uint32_t a0, uint32_t b,
                                                     uint32_t b0)
{
	int moved;

	__asm__("cmp %w1, %w2\n\tccmp %w3, %w4, #0, eq"
	        : "=@ccne"(moved)
	        : "r"(a), "r"(a0), "r"(b), "r"(b0));
	return moved;
}
#endif

/*
 * The kernel never shows a non-zero index without user access here:
 * armv8pmu_user_event_idx() returns 0 unless the event has user read and
 * perf_user_access is on. So the index test is the whole test.
 */
static UPMC_ALWAYS_INLINE int upmc_arch_cap_ok(const volatile struct upmc_perf_page *pc)
{
	(void)pc;
	return 1;
}

/*
 * The counter number is encoded in the mrs instruction, so reads go through
 * a table of 33 two-instruction functions, "mrs x16, <counter>; ret",
 * indexed by the page's index (the counter + 1): entry n is
 * PMEVCNTR<n-1>_EL0, entry 32 PMCCNTR_EL0, the only values the kernel
 * gives (armv8pmu_user_event_idx(); entry 0 is never called: index 0 goes
 * to the slow path first). The table is emitted once per program (a COMDAT
 * group), so each inlined read costs a few instructions of code. A call
 * through x17 changes only x16, x17 and x30, the registers the procedure
 * call standard leaves to such stubs. With BTI each entry starts with a
 * landing pad and is 16 bytes: that table has its own name, so objects
 * built with and without BTI each find their own. The table starts a
 * 4 KiB page, so that adrp alone gives its address (adrp+add otherwise);
 * that costs the program up to 4 KiB of padding, once. Its name says so
 * ("paged"): a table laid out otherwise, from another version of this
 * header, is another symbol, never the one the linker keeps for both.
 */
#if UPMC_ARCH_HAS_USER_READ
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define UPMC_ARM64_TABLE      "upmc_arm64_counters_bti_paged"
#define UPMC_ARM64_ENTRY(reg) "hint #34\n\tmrs x16, " reg "\n\tret\n\tnop\n\t"
#define UPMC_ARM64_UNUSED     "udf #0\n\tudf #0\n\tudf #0\n\tudf #0\n\t"
#define UPMC_ARM64_SHIFT_BITS 4
#else
#define UPMC_ARM64_TABLE      "upmc_arm64_counters_paged"
#define UPMC_ARM64_ENTRY(reg) "mrs x16, " reg "\n\tret\n\t"
#define UPMC_ARM64_UNUSED     "udf #0\n\tudf #0\n\t"
#define UPMC_ARM64_SHIFT_BITS 3
#endif

/* clang-format off */
__asm__(".pushsection .text." UPMC_ARM64_TABLE ",\"axG\",%progbits," UPMC_ARM64_TABLE ",comdat\n"
	".globl " UPMC_ARM64_TABLE "\n"
	".hidden " UPMC_ARM64_TABLE "\n"
	".type " UPMC_ARM64_TABLE ", %function\n"
	".p2align 12\n"
	UPMC_ARM64_TABLE ":\n\t"
	UPMC_ARM64_UNUSED /* index 0: never called */
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
	".size " UPMC_ARM64_TABLE ", . - " UPMC_ARM64_TABLE "\n"
	".popsection");
/* clang-format on */

static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_counter(uint32_t page_index)
{
	register uint64_t v __asm__("x16");
	register const char *entry __asm__("x17");
	const char *table;

	/* The table's page is the table. Not volatile: the compiler may
	 * compute the address once for many reads. */
	__asm__("adrp %0, " UPMC_ARM64_TABLE : "=r"(table));
	entry = table + ((uint64_t)page_index << UPMC_ARM64_SHIFT_BITS);
	__asm__ __volatile__("blr %1" : "=r"(v) : "r"(entry) : "x30");
	return v;
}
#else
/* Never called: no user-space counter read off Linux. */
static inline uint64_t upmc_arch_read_counter(uint32_t page_index)
{
	(void)page_index;
	return 0;
}
#endif

static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_extended(uint32_t page_index)
{
	return upmc_arch_extend(upmc_arch_read_counter(page_index));
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

/* For the end of a measured interval: earlier instructions finish first;
 * what follows the read needs no barrier, since nothing is measured after it. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_timestamp_after(void)
{
	uint64_t v;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}

#endif /* UPMC_ARCH_ARM64_H */
