/* SPDX-License-Identifier: MIT */
/*
 * Counting one whole function call, where a set cannot be read inline.
 *
 *   struct upmc_call_result r;
 *   if (upmc_measure_call("cycles,instructions", work, arg, &r) == 0)
 *           printf("%llu ns; %s\n", (unsigned long long)r.elapsed_ns, r.summary);
 *
 * Windows: an ETW session samples the PMU at every context switch of a
 * fresh thread pinned to one CPU, which runs the call (administrator). macOS:
 * kpc thread counters around the call (root). Linux: a set around the call
 * on the calling thread, pinned to its CPU. Wherever counters cannot be had
 * the call is still run and timed, and every counter says why it was not
 * counted.
 */
#ifndef UPMC_CALL_H
#define UPMC_CALL_H

#include <stdint.h>
#include <upmc/upmc.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UPMC_CALL_NAME_MAX   64
#define UPMC_CALL_REASON_MAX 320

struct upmc_call_counter {
	char name[UPMC_CALL_NAME_MAX];     /* as written in the spec */
	uint64_t value;                    /* the call's count, or UPMC_NOT_COUNTED */
	int path;                          /* enum upmc_path: how it was counted */
	char reason[UPMC_CALL_REASON_MAX]; /* how, or why not */
};

struct upmc_call_result {
	unsigned n;                /* counters in the spec */
	unsigned counted;          /* how many of them have a value */
	uint64_t elapsed_ns;       /* the call's wall-clock time */
	int cpu;                   /* the CPU the call was pinned to; -1 when not pinned */
	uint64_t context_switches; /* during the call; UPMC_NOT_COUNTED when unknown */
	struct upmc_call_counter counter[UPMC_MAX_COUNTERS];
	char summary[UPMC_CALL_REASON_MAX + 96]; /* one line: what was counted, or why not */
};

/*
 * Runs fn(arg) once and counts the events of spec (as for upmc_open(); NULL
 * for none) over it. Returns 0 when fn ran, counters or not (see
 * out->counted and out->summary), or a negative errno, with
 * upmc_last_error(), when it did not run (bad arguments or spec).
 */
UPMC_API int upmc_measure_call(const char *spec, void (*fn)(void *), void *arg,
                               struct upmc_call_result *out);

#ifdef __cplusplus
}
#endif

#endif /* UPMC_CALL_H */
