/* SPDX-License-Identifier: MIT */
/*
 * A simulated kernel and counter bank, linked in place of os/linux: each
 * hardware event gets a struct upmc_perf_page that "kernel" updates change
 * under its seqlock, and a raw counter in a bank that "hardware" ticks
 * change without it. Tests include this header instead of <upmc/upmc.h>, so
 * that the library's own inline reader reads the simulated bank.
 *
 * The real kernel updates the page from an interrupt (or while the task is
 * switched out) on the reader's own CPU, so a reader never sees an update
 * half done. The simulation keeps that: its updates run in a signal handler
 * on the reader's thread, between any two of the reader's instructions.
 */
#ifndef UPMC_SIM_KERNEL_H
#define UPMC_SIM_KERNEL_H

#include <signal.h>
#include <stdint.h>

#include "tests/sim/sim_seam.h"
#include <upmc/upmc.h>

#define SIM_COUNTERS 32

struct sim_event {
	struct upmc_perf_page page;
	int running;      /* on a hardware counter */
	unsigned counter; /* which one, while running */
	uint64_t stopped; /* the count while not running */
	uint64_t truth;   /* never below any value a read may return */
	int software;     /* no page: read(2) only */
};

struct sim_machine {
	unsigned width; /* pmc_width of every counter */
	volatile uint64_t bank[SIM_COUNTERS];
	struct sim_event event[UPMC_MAX_COUNTERS];
	unsigned n;
	unsigned slow_reads;              /* read(2) calls */
	uint64_t read_cost;               /* each read advances its counter by this much, as an
	                                     instructions counter counts the read itself */
	volatile sig_atomic_t in_syscall; /* read(2) is atomic: updates wait */
	unsigned counter_reads;           /* user-space counter reads so far */
	int read_fails;                   /* read(2) fails with EBUSY (a pinned group in error) */
	/* Called at each user-space counter read, before it: a kernel update
	 * placed exactly between two steps of the reader. */
	void (*before_read)(unsigned nth);
	/* The event (1-based; 0: none) that open puts on the last counter,
	 * page index 32, as arm64 puts a set's first cycles event on its
	 * cycle counter; the others go on counters 0, 1, ... in order. */
	unsigned cycle_counter_at;
	/* The counter open puts the set's first event on (the others after
	 * it): 0, or later, as for a set opened while another holds the first
	 * counters. */
	unsigned first_counter;
};

extern struct sim_machine sim;

/* Empties the machine; counters of the given width. */
void sim_reset(unsigned width);

/* The count of event i right now, as the kernel would compute it. */
uint64_t sim_count(unsigned i);

/* Hardware: event i counts step more (no lock: the PMU does not take it). */
void sim_tick(unsigned i, uint64_t step);

/* Kernel updates, each inside the page's seqlock. */
void sim_reprogram(unsigned i, uint64_t period); /* counter := -period */
void sim_move(unsigned i, unsigned counter);     /* onto another counter */
void sim_stop(unsigned i);                       /* off the PMU: index 0 */
void sim_start(unsigned i, unsigned counter);    /* back on a counter */

/* Sign-extends raw from width bits (the reference, written plainly). */
int64_t sim_sign_extend(uint64_t raw, unsigned width);

#endif /* UPMC_SIM_KERNEL_H */
