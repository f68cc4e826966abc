/* SPDX-License-Identifier: MIT */
/*
 * Compiler helpers shared by the public headers. C11 and C++ (GCC, Clang).
 */
#ifndef UPMC_COMPILER_H
#define UPMC_COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
#define UPMC_ALWAYS_INLINE inline __attribute__((always_inline))
#define UPMC_LIKELY(x)     __builtin_expect(!!(x), 1)
#define UPMC_UNLIKELY(x)   __builtin_expect(!!(x), 0)
#define UPMC_COLD          __attribute__((cold, noinline))
/* Unrolls the next loop: completely when its trip count is a constant <= 8. */
#define UPMC_UNROLL _Pragma("GCC unroll 8")
/* Stops the compiler from moving memory accesses across it; emits nothing. */
#define upmc_barrier() __asm__ __volatile__("" ::: "memory")
#else
#error "upmc needs GCC or Clang (inline asm for the counter reads)"
#endif

#if defined(_WIN32)
#define UPMC_API
#else
#define UPMC_API __attribute__((visibility("default")))
#endif

/*
 * One load the compiler may neither tear, repeat nor cache (the kernel's
 * READ_ONCE). The kernel page is mapped through a const volatile pointer, so
 * plain member reads through it already behave so; this is for the places
 * that read a field twice on purpose (the seqlock).
 */
#define UPMC_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

#endif /* UPMC_COMPILER_H */
