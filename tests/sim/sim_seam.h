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

#endif
