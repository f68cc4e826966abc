/* SPDX-License-Identifier: MIT */
#ifndef UPMC_TESTS_HEADERS_H
#define UPMC_TESTS_HEADERS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
int header_c11_max_counters(void);
uint64_t header_c11_ticks_to_ns(uint64_t ticks);
int header_cxx17_max_counters(void);
uint64_t header_cxx17_ticks_to_ns(uint64_t ticks);
void header_c11_zones(void);
void header_cxx17_zones(void);
#ifdef __cplusplus
}
#endif

#endif
