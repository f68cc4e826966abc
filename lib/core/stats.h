/* SPDX-License-Identifier: MIT */
/* Samples of one series and their statistics (private to the library). */
#ifndef UPMC_STATS_H
#define UPMC_STATS_H

#include <stdint.h>
#include <upmc/upmc.h>

/* Samples kept for the median; beyond, a uniform random subset of them. */
#define UPMC_SAMPLES_KEPT 4096

struct upmc_samples {
	uint64_t kept[UPMC_SAMPLES_KEPT];
	uint64_t count, min, max;
	double sum;
	uint64_t rng;
};

void upmc_samples_reset(struct upmc_samples *s);
void upmc_samples_add(struct upmc_samples *s, uint64_t x);

/* Statistics of the samples minus bias. */
void upmc_samples_stat(const struct upmc_samples *s, double bias, struct upmc_stat *out);

#endif
