/* SPDX-License-Identifier: MIT */
/*
 * The one seam of the arch layer, pointed at the simulated counter bank.
 * Included before <upmc/upmc.h> by the simulated-kernel tests and, with
 * -include, by the simulated-kernel build of the core (//tests:core_sim).
 */
#ifndef UPMC_SIM_SEAM_H
#define UPMC_SIM_SEAM_H

#include <stdint.h>

uint64_t sim_read_counter(uint32_t page_index);
#define UPMC_ARCH_READ_COUNTER(page_index) sim_read_counter(page_index)

/* The simulated bank has arm64's cycle counter index too (page index 32,
 * counter 31): the library compiles the layouts that use it, and the
 * simulation reads them on any arch. */
#define UPMC_ARCH_CYCLE_INDEX 32

#endif
