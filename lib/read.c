/* SPDX-License-Identifier: MIT */
/*
 * upmc_read()'s readers: the straight-line reader of <upmc/read.h> for each
 * set size it covers, compiled once here; upmc_open() points the set at
 * the one for its size.
 */
#include "internal.h"

static int read_1(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 1);
}

static int read_2(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 2);
}

static int read_3(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 3);
}

static int read_4(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 4);
}

static int read_5(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 5);
}

static int read_6(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 6);
}

static int read_7(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 7);
}

static int read_8(struct upmc_set *set, uint64_t *values)
{
	return upmc_read_first(set, values, 8);
}

upmc_reader upmc_reader_for(const struct upmc_set *set)
{
	static const upmc_reader by_size[UPMC_INLINE_COUNTERS + 1] = {
	        NULL, read_1, read_2, read_3, read_4, read_5, read_6, read_7, read_8};

	return set->user_n <= UPMC_INLINE_COUNTERS ? by_size[set->user_n] : NULL;
}
