/* SPDX-License-Identifier: MIT */
/*
 * lib/core/os.h for macOS: the kpc logic (kpc.c) over the frameworks that
 * upmc_macos_api() loads. Compiles anywhere; tests supply a fake table.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/core/os.h"
#include "os/macos/kpc.h"

int upmc_os_open(struct upmc_set *set, unsigned flags)
{
	const char *why = NULL;
	const struct upmc_kpc_api *api = upmc_macos_api(&why);

	return upmc_kpc_open(api, why, set, flags);
}

void upmc_os_close(struct upmc_set *set)
{
	upmc_kpc_close(set);
}

/* kpc's state is memory: the child frees its copy and touches nothing of
 * the parent's counters. */
void upmc_os_abandon(struct upmc_set *set)
{
	free(set->state->os);
	set->state->os = NULL;
}

int upmc_os_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	return upmc_kpc_read(set, values, enabled, running);
}

/* No published factors: the core calibrates the timestamps (CNTVCT, rdtsc)
 * against upmc_os_monotonic_ns(). */
int upmc_os_kernel_clock(struct upmc_set *set, struct upmc_clock *clock)
{
	(void)set;
	(void)clock;
	return -ENOTSUP;
}

uint64_t upmc_os_monotonic_ns(void)
{
	return upmc_macos_now_ns();
}
