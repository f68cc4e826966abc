/* SPDX-License-Identifier: MIT */
/* Helpers for the tests that run on the real Linux kernel. */
#ifndef UPMC_TESTS_LINUX_UTIL_H
#define UPMC_TESTS_LINUX_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Descriptors this process has open (to prove that nothing leaks). */
int open_fd_count(void);

/* perf pages this process has mapped (to prove that none leaks). */
int perf_mapping_count(void);

/* CPU time of this thread, ns. */
uint64_t thread_cpu_ns(void);

/* CLOCK_MONOTONIC_RAW, ns. */
uint64_t monotonic_raw_ns(void);

/*
 * Runs fn(arg) in a forked child, which then exits with _exit(). What fn
 * returns (NULL when its checks passed, else the failed one) comes back in
 * why, "" when it passed; or how the child died.
 */
void run_in_child(const char *(*fn)(void *), void *arg, char *why, size_t size);

/* For child checks: returns the condition's text from fn when it fails. */
#define CHILD_CHECK(cond)             \
	do {                          \
		if (!(cond))          \
			return #cond; \
	} while (0)

#endif
