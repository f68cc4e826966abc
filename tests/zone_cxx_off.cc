// SPDX-License-Identifier: MIT
// The zones of zone_cxx_plain.cc, built with -DUPMC_NO_ZONES: nothing is left of them.
#include <upmc/zone.hpp>

#include "tests/zone_cxx_tu.h"

int zone_cxx_off(int n)
{
	UPMC_ZONE("plain");
	auto inner = [n] {
		UPMC_ZONE_VAR(zone, "plain inner");
		zone.text(std::string("no extensions"));
		zone.value(static_cast<std::uint64_t>(2 * n));
		return 2 * n;
	};
	return inner();
}
