/* SPDX-License-Identifier: MIT */
/* Helpers for the tests of a set's counters. */
#ifndef UPMC_TESTS_SET_UTIL_H
#define UPMC_TESTS_SET_UTIL_H

#include <string.h>

#include <upmc/upmc.h>

/* The index of the set's counter of event name, or -1. */
static inline int counter_named(struct upmc_set *set, const char *name)
{
	int i;

	for (i = 0; i < upmc_count(set); i++)
		if (!strcmp(upmc_counter_name(set, (unsigned)i), name))
			return i;
	return -1;
}

#endif
