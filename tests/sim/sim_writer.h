/* SPDX-License-Identifier: MIT */
/*
 * The simulated kernel's writer: a timer interrupt on the reader's own
 * thread (SIGUSR1) that lands between any two of the reader's instructions,
 * as the kernel's updates do. Each one ticks every running event, folds a
 * count before its counter reaches the sign bit, and now and then moves,
 * reprograms, stops or restarts an event, all under the pages' seqlocks.
 */
#ifndef UPMC_SIM_WRITER_H
#define UPMC_SIM_WRITER_H

#include "tests/sim/sim_kernel.h"

/* Everything here changes in the signal handler, on the reader's thread. */
struct sim_writer {
	unsigned n; /* events 0..n-1 are written */
	uint64_t rng;
	unsigned long updates, deferred;
	unsigned long handled; /* interrupts so far */
};

extern struct sim_writer sim_writer;

/* Interrupts every interval_ns from now on, over events 0..n-1; the seed
 * makes the run repeatable. 0, or -1 when the timer cannot be had. */
int sim_writer_start(unsigned n, uint64_t seed, long interval_ns);
void sim_writer_stop(void);

#endif
