/* SPDX-License-Identifier: MIT */
/* Helpers for the tests that run on the real Linux kernel. */
#ifndef UPMC_TESTS_LINUX_UTIL_H
#define UPMC_TESTS_LINUX_UTIL_H

#include <stdint.h>

/* Descriptors this process has open (to prove that nothing leaks). */
int open_fd_count(void);

/* perf pages this process has mapped (to prove that none leaks). */
int perf_mapping_count(void);

/* CPU time of this thread, ns. */
uint64_t thread_cpu_ns(void);

/* CLOCK_MONOTONIC_RAW, ns. */
uint64_t monotonic_raw_ns(void);

#endif
