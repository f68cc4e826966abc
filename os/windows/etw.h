/* SPDX-License-Identifier: MIT */
/*
 * Windows: counting a thread through ETW. A private system-logger session
 * logs every context switch (CSwitch) with the PMU's counters attached
 * (TracePmcCounterListInfo / TracePmcEventListInfo); the counts of one
 * thread are the sums of (switch-out - switch-in) over its time slices.
 * Every failure returns a negative errno and a reason: the caller falls
 * back to timing alone. Nothing here asserts or aborts.
 */
#ifndef UPMC_WINDOWS_ETW_H
#define UPMC_WINDOWS_ETW_H

#include <stddef.h>
#include <stdint.h>
#include <windows.h>

#include "lib/core/internal.h"

struct upmc_etw;

/* Wine's version ("8.0"), or NULL on Windows. Wine's ETW is a stub whose
 * TraceQueryInformation aborts the process: never call it there. */
const char *upmc_etw_wine_version(void);

/* The process runs elevated (ETW kernel sessions need an administrator). */
int upmc_etw_is_admin(void);

/*
 * The profile sources this machine's ETW offers (TraceProfileSourceListInfo):
 * the id of the first of names[] that it offers, into *id. Returns 0,
 * -ENOENT when none is offered (all offered names go into why), or another
 * -errno with why.
 */
int upmc_etw_find_source(const char *const *names, unsigned n_names, ULONG *id, char *why,
                         size_t size);

/* Starts the session counting sources[0..n-1] at every context switch. */
int upmc_etw_start(const ULONG *sources, unsigned n, struct upmc_etw **out, char *why, size_t size);

/* The thread whose counts are wanted; call before it first runs. */
void upmc_etw_follow(struct upmc_etw *e, DWORD tid);

/*
 * Stops the session, waits for its last events, and frees e. values[i] is
 * the followed thread's count of source i, *switches its switch-ins.
 * Returns 0, or -errno with why (no event of that thread arrived).
 */
int upmc_etw_finish(struct upmc_etw *e, uint64_t *values, uint64_t *switches, char *why,
                    size_t size);

#endif /* UPMC_WINDOWS_ETW_H */
