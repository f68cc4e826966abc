// SPDX-License-Identifier: MIT
// Zones in translation units of their own, built as tests/BUILD says.
#ifndef UPMC_TESTS_ZONE_CXX_TU_H
#define UPMC_TESTS_ZONE_CXX_TU_H

// Built as a compiler without GNU extensions (MSVC) sees <upmc/zone.hpp>:
// zones "plain" and, inside it, "plain inner" with a text and the result
// as its value. Returns 2 * n.
int zone_cxx_plain(int n);

// Built with -DUPMC_NO_ZONES: the same zones, compiled to nothing.
int zone_cxx_off(int n);

#endif
