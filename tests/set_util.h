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

/* value into counts[i] of every counter i of the set named name: a
 * multiplexed set counts an event again in each metric group that needs it. */
static inline void count_named(struct upmc_set *set, double *counts, const char *name, double value)
{
	int i;

	for (i = 0; i < upmc_count(set); i++)
		if (!strcmp(upmc_counter_name(set, (unsigned)i), name))
			counts[i] = value;
}

#endif
