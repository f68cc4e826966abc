// SPDX-License-Identifier: MIT
// The public headers compiled as strict C++17 (-std=c++17 -pedantic -Werror).
#include <upmc/upmc.h>
#include <upmc/zone.h>

#include "tests/headers/headers.h"

int header_cxx17_max_counters(void)
{
	upmc_set set{};
	return UPMC_MAX_COUNTERS + upmc_count(&set);
}

uint64_t header_cxx17_ticks_to_ns(uint64_t ticks)
{
	upmc_set set{};
	set.clock.mult = 1u << 31;
	set.clock.shift = 31;
	return upmc_ticks_to_ns(&set, ticks);
}

void header_cxx17_zones(void)
{
	UPMC_ZONE("c++17");
	UPMC_ZONE_FUNCTION();
}
