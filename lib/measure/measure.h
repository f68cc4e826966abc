/* SPDX-License-Identifier: MIT */
/*
 * Private to the measure layer and its per-OS parts: upmc_measure_call()
 * is written once per OS (os/<os>/call_<os>.c), and those share this.
 */
#ifndef UPMC_MEASURE_H
#define UPMC_MEASURE_H

#include <upmc/call.h>

#include "lib/core/internal.h"

/* upmc_measure_call()'s result from snapshots before and after the call,
 * and its summary line ("<k> of <n> counters <how>"). */
void upmc_call_fill(struct upmc_call_result *out, struct upmc_set *set, const uint64_t *before,
                    const uint64_t *after, int read_err);
void upmc_call_summarize(struct upmc_call_result *out, const char *how);

#endif /* UPMC_MEASURE_H */
