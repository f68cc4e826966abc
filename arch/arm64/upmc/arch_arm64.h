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

/* 31 registers: a pass holds its values in registers until stored. */
#define UPMC_ARCH_HOLDS_VALUES 1

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
 * Both come back 64 bits wide (a 32-bit load zero-extends), so that the
 * 64-bit compares of upmc_arch_any_differs() take them as they are.
 */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_lock_index(const volatile struct upmc_perf_page *pc,
                                                        uint64_t *lock)
{
	uint64_t index;

	/* #8 is the lock's offset in the page (os/linux checks the layout);
	 * the "m" operand tells the compiler the asm reads the page (the page
	 * itself: an operand for each field costs clang an add each). */
	__asm__ __volatile__("ldp %w0, %w1, [%2, #8]"
	                     : "=r"(*lock), "=r"(index)
	                     : "r"(pc), "m"(*pc));
	return index;
}

/* The page's lock again, as upmc_arch_lock_index() gives it. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_lock(const volatile struct upmc_perf_page *pc)
{
	uint64_t lock;

	__asm__ __volatile__("ldr %w0, [%1, #8]" : "=r"(lock) : "r"(pc), "m"(*pc));
	return lock;
}

/*
 * Compare chains: one cmp, a ccmp for each further pair, and the caller's
 * one branch. Written in C, gcc compares two by two, each pair into a
 * register (cset) or to a branch of its own. The compares are 64-bit, of
 * 32-bit values loaded with a zero-extending load. Compilers without flag
 * outputs (clang before 16) get <upmc/read.h>'s C. n <= 8; each case of
 * the switch is one asm, and n is a constant where it matters.
 */
#ifdef __GCC_ASM_FLAG_OUTPUTS__
#define UPMC_ARCH_HAS_ANY_DIFFERS 1
#define UPMC_ARCH_HAS_LOCKS_MOVED 1

/* Steps 1..k-1 of a chain of k, and the operands they name. */
#define UPMC_ARM64_STEPS_1
#define UPMC_ARM64_STEPS_2      UPMC_ARM64_STEPS_1 UPMC_ARM64_STEP(1)
#define UPMC_ARM64_STEPS_3      UPMC_ARM64_STEPS_2 UPMC_ARM64_STEP(2)
#define UPMC_ARM64_STEPS_4      UPMC_ARM64_STEPS_3 UPMC_ARM64_STEP(3)
#define UPMC_ARM64_STEPS_5      UPMC_ARM64_STEPS_4 UPMC_ARM64_STEP(4)
#define UPMC_ARM64_STEPS_6      UPMC_ARM64_STEPS_5 UPMC_ARM64_STEP(5)
#define UPMC_ARM64_STEPS_7      UPMC_ARM64_STEPS_6 UPMC_ARM64_STEP(6)
#define UPMC_ARM64_STEPS_8      UPMC_ARM64_STEPS_7 UPMC_ARM64_STEP(7)
#define UPMC_ARM64_OPERANDS_1   UPMC_ARM64_OPERAND(0)
#define UPMC_ARM64_OPERANDS_2   UPMC_ARM64_OPERANDS_1, UPMC_ARM64_OPERAND(1)
#define UPMC_ARM64_OPERANDS_3   UPMC_ARM64_OPERANDS_2, UPMC_ARM64_OPERAND(2)
#define UPMC_ARM64_OPERANDS_4   UPMC_ARM64_OPERANDS_3, UPMC_ARM64_OPERAND(3)
#define UPMC_ARM64_OPERANDS_5   UPMC_ARM64_OPERANDS_4, UPMC_ARM64_OPERAND(4)
#define UPMC_ARM64_OPERANDS_6   UPMC_ARM64_OPERANDS_5, UPMC_ARM64_OPERAND(5)
#define UPMC_ARM64_OPERANDS_7   UPMC_ARM64_OPERANDS_6, UPMC_ARM64_OPERAND(6)
#define UPMC_ARM64_OPERANDS_8   UPMC_ARM64_OPERANDS_7, UPMC_ARM64_OPERAND(7)
#define UPMC_ARM64_UNPAREN(...) __VA_ARGS__
/* What a compared constant may be: cmp's immediate, then ccmp's. */
#define UPMC_ARM64_IMMEDIATE_0 "rI"
#define UPMC_ARM64_IMMEDIATE_1 "rUss"
#define UPMC_ARM64_IMMEDIATE_2 "rUss"
#define UPMC_ARM64_IMMEDIATE_3 "rUss"
#define UPMC_ARM64_IMMEDIATE_4 "rUss"
#define UPMC_ARM64_IMMEDIATE_5 "rUss"
#define UPMC_ARM64_IMMEDIATE_6 "rUss"
#define UPMC_ARM64_IMMEDIATE_7 "rUss"
#define UPMC_ARM64_CHAIN_CASE(k, first, outputs, clobbers)           \
	case k:                                                      \
		__asm__ __volatile__(first UPMC_ARM64_STEPS_##k      \
		                     : UPMC_ARM64_UNPAREN outputs    \
		                     : UPMC_ARM64_OPERANDS_##k       \
		                     : UPMC_ARM64_UNPAREN clobbers); \
		break;
#define UPMC_ARM64_CHAIN(first, outputs, clobbers)                 \
	switch (n) {                                               \
		UPMC_ARM64_CHAIN_CASE(1, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(2, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(3, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(4, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(5, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(6, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(7, first, outputs, clobbers) \
		UPMC_ARM64_CHAIN_CASE(8, first, outputs, clobbers) \
	}

/*
 * Each of n pages' lock and index (ldp), into lock[], and whether any
 * index differs from want[] (constants: a layout reader's, see
 * lib/core/read.c): the indices are compared as they come, so that no
 * register holds one after its compare.
 */
#define UPMC_ARCH_HAS_INDICES_DIFFER 1
static UPMC_ALWAYS_INLINE int upmc_arch_indices_differ(const volatile struct upmc_perf_page **page,
                                                       uint64_t *lock, const uint64_t *want,
                                                       const uint32_t n)
{
	uint64_t t;
	int moved = 1;

#define UPMC_ARM64_STEP(i) \
	"\n\tldp %w[l" #i "], %w[t], [%[p" #i "], #8]\n\tccmp %[t], %[k" #i "], #0, eq"
#define UPMC_ARM64_OPERAND(i) [p##i] "r"(page[i]), [k##i] UPMC_ARM64_IMMEDIATE_##i(want[i])
#define UPMC_ARM64_OUTPUT(i)  , [l##i] "=&r"(lock[i])
#define UPMC_ARM64_OUTPUTS_1  UPMC_ARM64_OUTPUT(0)
#define UPMC_ARM64_OUTPUTS_2  UPMC_ARM64_OUTPUTS_1 UPMC_ARM64_OUTPUT(1)
#define UPMC_ARM64_OUTPUTS_3  UPMC_ARM64_OUTPUTS_2 UPMC_ARM64_OUTPUT(2)
#define UPMC_ARM64_OUTPUTS_4  UPMC_ARM64_OUTPUTS_3 UPMC_ARM64_OUTPUT(3)
#define UPMC_ARM64_OUTPUTS_5  UPMC_ARM64_OUTPUTS_4 UPMC_ARM64_OUTPUT(4)
#define UPMC_ARM64_OUTPUTS_6  UPMC_ARM64_OUTPUTS_5 UPMC_ARM64_OUTPUT(5)
#define UPMC_ARM64_OUTPUTS_7  UPMC_ARM64_OUTPUTS_6 UPMC_ARM64_OUTPUT(6)
#define UPMC_ARM64_OUTPUTS_8  UPMC_ARM64_OUTPUTS_7 UPMC_ARM64_OUTPUT(7)
#define UPMC_ARM64_LOADS(k)                                                                      \
	case k:                                                                                  \
		__asm__ __volatile__(                                                            \
		        "ldp %w[l0], %w[t], [%[p0], #8]\n\tcmp %[t], %[k0]" UPMC_ARM64_STEPS_##k \
		        : "=@ccne"(moved), [t] "=&r"(t)UPMC_ARM64_OUTPUTS_##k                    \
		        : UPMC_ARM64_OPERANDS_##k                                                \
		        : "memory");                                                             \
		break;
	switch (n) {
		UPMC_ARM64_LOADS(1)
		UPMC_ARM64_LOADS(2)
		UPMC_ARM64_LOADS(3)
		UPMC_ARM64_LOADS(4)
		UPMC_ARM64_LOADS(5)
		UPMC_ARM64_LOADS(6)
		UPMC_ARM64_LOADS(7)
		UPMC_ARM64_LOADS(8)
	}
#undef UPMC_ARM64_LOADS
#undef UPMC_ARM64_OUTPUTS_8
#undef UPMC_ARM64_OUTPUTS_7
#undef UPMC_ARM64_OUTPUTS_6
#undef UPMC_ARM64_OUTPUTS_5
#undef UPMC_ARM64_OUTPUTS_4
#undef UPMC_ARM64_OUTPUTS_3
#undef UPMC_ARM64_OUTPUTS_2
#undef UPMC_ARM64_OUTPUTS_1
#undef UPMC_ARM64_OUTPUT
#undef UPMC_ARM64_OPERAND
#undef UPMC_ARM64_STEP
	return moved;
}

/* Whether any of a[0..n-1] differs from b[0..n-1]. A constant b becomes an
 * immediate where it fits: up to 4095 in the cmp, 31 in a ccmp. */
static UPMC_ALWAYS_INLINE int upmc_arch_any_differs(const uint64_t *a, const uint64_t *b,
                                                    const uint32_t n)
{
	int moved = 1;

#define UPMC_ARM64_STEP(i)    "\n\tccmp %[a" #i "], %[b" #i "], #0, eq"
#define UPMC_ARM64_OPERAND(i) [a##i] "r"(a[i]), [b##i] UPMC_ARM64_IMMEDIATE_##i(b[i])
	UPMC_ARM64_CHAIN("cmp %[a0], %[b0]", ("=@ccne"(moved)), ())
#undef UPMC_ARM64_OPERAND
#undef UPMC_ARM64_STEP
	return moved;
}

/* Whether any of the n pages' locks moved since lock[] was read: each one
 * loaded again into one register (the loads leave the flags alone) and
 * compared in the chain. As values of their own, the compiler may keep
 * the locks loaded again in memory. */
static UPMC_ALWAYS_INLINE int upmc_arch_locks_moved(const volatile struct upmc_perf_page **page,
                                                    const uint64_t *lock, const uint32_t n)
{
	uint64_t t;
	int moved = 1;

#define UPMC_ARM64_STEP(i)    "\n\tldr %w[t], [%[p" #i "], #8]\n\tccmp %[t], %[l" #i "], #0, eq"
#define UPMC_ARM64_OPERAND(i) [p##i] "r"(page[i]), [l##i] "r"(lock[i])
	UPMC_ARM64_CHAIN("ldr %w[t], [%[p0], #8]\n\tcmp %[t], %[l0]",
	                 ("=@ccne"(moved), [t] "=&r"(t)), ("memory"))
#undef UPMC_ARM64_OPERAND
#undef UPMC_ARM64_STEP
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
 * landing pad: that table has its own name, so objects built with and
 * without BTI each find their own. Every entry is 16 bytes either way, so
 * that an inline read may also go through the table of the library that
 * opened the set (upmc_set.counter_table), whichever way each was built
 * (a landing pad runs as a nop where BTI is off). The table starts a
 * 4 KiB page, so that adrp alone gives its address (adrp+add otherwise);
 * that costs the program up to 4 KiB of padding, once. Its name says so
 * ("paged16"): a table laid out otherwise, from another version of this
 * header, is another symbol, never the one the linker keeps for both.
 */
#if UPMC_ARCH_HAS_USER_READ
#if defined(__ARM_FEATURE_BTI_DEFAULT)
#define UPMC_ARM64_TABLE      "upmc_arm64_counters_bti_paged16"
#define UPMC_ARM64_ENTRY(reg) "hint #34\n\tmrs x16, " reg "\n\tret\n\tnop\n\t"
#else
#define UPMC_ARM64_TABLE      "upmc_arm64_counters_paged16"
#define UPMC_ARM64_ENTRY(reg) "mrs x16, " reg "\n\tret\n\tudf #0\n\tudf #0\n\t"
#endif
#define UPMC_ARM64_UNUSED "udf #0\n\tudf #0\n\tudf #0\n\tudf #0\n\t"
/* Entries of 16 bytes: an index is shifted by 4, in C and in the asm. */
#define UPMC_ARM64_SHIFT_BITS 4
#define UPMC_ARM64_SHIFT_TEXT "4"

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

/* The table's address. The table's page is the table. Not volatile: the
 * compiler may compute the address once for many reads. */
static UPMC_ALWAYS_INLINE const void *upmc_arch_counter_table(void)
{
	const char *table;

	__asm__("adrp %0, " UPMC_ARM64_TABLE : "=r"(table));
	return table;
}

/*
 * The counter of a page index through the table at table, for an index
 * that changes from read to read (the inline readers'): the entry's
 * address in the asm, one add; written in C, gcc makes the shift by 4 and
 * the add two instructions (its cost model).
 */
#define UPMC_ARCH_HAS_READ_AT 1
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_at(const void *table, uint32_t page_index)
{
	register uint64_t v __asm__("x16");

	__asm__ __volatile__("add x17, %1, %w2, uxtw #" UPMC_ARM64_SHIFT_TEXT "\n\tblr x17"
	                     : "=r"(v)
	                     : "r"(table), "r"(page_index)
	                     : "x17", "x30");
	return v;
}

/* The same through this program's own table, the entry's address in C:
 * for an index that stays (a loop of reads of one counter), the compiler
 * computes it once. */
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_counter(uint32_t page_index)
{
	register uint64_t v __asm__("x16");
	register const char *entry __asm__("x17");

	entry = (const char *)upmc_arch_counter_table() +
	        ((uint64_t)page_index << UPMC_ARM64_SHIFT_BITS);
	__asm__ __volatile__("blr %1" : "=r"(v) : "r"(entry) : "x30");
	return v;
}
#else
/* Never called: no user-space counter read off Linux. */
static inline const void *upmc_arch_counter_table(void)
{
	return 0;
}

static inline uint64_t upmc_arch_read_counter(uint32_t page_index)
{
	(void)page_index;
	return 0;
}

#define UPMC_ARCH_HAS_READ_AT 1
static inline uint64_t upmc_arch_read_at(const void *table, uint32_t page_index)
{
	(void)table;
	(void)page_index;
	return 0;
}
#endif

static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_extended(uint32_t page_index)
{
	return upmc_arch_extend(upmc_arch_read_counter(page_index));
}

/* The cycle counter's page index: a set's first cycles event goes there
 * (armv8pmu_get_event_idx()), its other events on PMEVCNTR0.. in order. */
#define UPMC_ARCH_CYCLE_INDEX 32

#if UPMC_ARCH_HAS_USER_READ
/*
 * The counter of a page index the compiler knows, by the mrs that names it:
 * no table and no call. For the library's layout readers (lib/core/read.c),
 * each compiled for the indices a set's pages had at open; an index the
 * switch does not name (never asked for) goes through the table.
 */
#define UPMC_ARCH_HAS_READ_FIXED 1
#define UPMC_ARM64_MRS_CASE(n)                                                \
	case n + 1:                                                           \
		__asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break;
static UPMC_ALWAYS_INLINE uint64_t upmc_arch_read_fixed(const uint32_t page_index)
{
	uint64_t v;

	switch (page_index) {
		UPMC_ARM64_MRS_CASE(0)
		UPMC_ARM64_MRS_CASE(1)
		UPMC_ARM64_MRS_CASE(2)
		UPMC_ARM64_MRS_CASE(3)
		UPMC_ARM64_MRS_CASE(4)
		UPMC_ARM64_MRS_CASE(5)
		UPMC_ARM64_MRS_CASE(6)
		UPMC_ARM64_MRS_CASE(7)
		UPMC_ARM64_MRS_CASE(8)
		UPMC_ARM64_MRS_CASE(9)
		UPMC_ARM64_MRS_CASE(10)
		UPMC_ARM64_MRS_CASE(11)
		UPMC_ARM64_MRS_CASE(12)
		UPMC_ARM64_MRS_CASE(13)
		UPMC_ARM64_MRS_CASE(14)
		UPMC_ARM64_MRS_CASE(15)
		UPMC_ARM64_MRS_CASE(16)
		UPMC_ARM64_MRS_CASE(17)
		UPMC_ARM64_MRS_CASE(18)
		UPMC_ARM64_MRS_CASE(19)
		UPMC_ARM64_MRS_CASE(20)
		UPMC_ARM64_MRS_CASE(21)
		UPMC_ARM64_MRS_CASE(22)
		UPMC_ARM64_MRS_CASE(23)
		UPMC_ARM64_MRS_CASE(24)
		UPMC_ARM64_MRS_CASE(25)
		UPMC_ARM64_MRS_CASE(26)
		UPMC_ARM64_MRS_CASE(27)
		UPMC_ARM64_MRS_CASE(28)
		UPMC_ARM64_MRS_CASE(29)
		UPMC_ARM64_MRS_CASE(30)
	case UPMC_ARCH_CYCLE_INDEX:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		v = upmc_arch_read_counter(page_index);
	}
	return upmc_arch_extend(v);
}
#undef UPMC_ARM64_MRS_CASE
#endif

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
