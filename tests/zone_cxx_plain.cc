// SPDX-License-Identifier: MIT
// <upmc/zone.hpp> as a compiler without GNU extensions sees it: tests/BUILD
// builds this file with __GNUC__ and __clang__ undefined, so that the
// headers take the path MSVC takes (no cleanup attribute, no __atomic).
#if defined(__GNUC__) || defined(__clang__)
#error "built as GCC or Clang: the test would prove nothing"
#endif
#include <upmc/zone.hpp>

#include "tests/zone_cxx_tu.h"

int zone_cxx_plain(int n)
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
