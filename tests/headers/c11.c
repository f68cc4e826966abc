/* SPDX-License-Identifier: MIT */
/* The public headers compiled as strict C11 (-std=c11 -pedantic -Werror). */
#include <upmc/upmc.h>
#include <upmc/zone.h>

#include "tests/headers/headers.h"

int header_c11_max_counters(void)
{
	struct upmc_set set = {0};

	return UPMC_MAX_COUNTERS + upmc_count(&set);
}

uint64_t header_c11_ticks_to_ns(uint64_t ticks)
{
	struct upmc_set set = {0};

	set.clock.mult = 1u << 31;
	set.clock.shift = 31;
	return upmc_ticks_to_ns(&set, ticks);
}

void header_c11_zones(void)
{
	UPMC_ZONE("c11");
	UPMC_ZONE_BEGIN("inner");
	UPMC_ZONE_END();
}
