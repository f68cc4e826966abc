/* SPDX-License-Identifier: MIT */
/*
 * libupmc-ffi: the inline functions of the public headers as real exported
 * functions, under the same names and signatures, for callers that cannot
 * compile C inline functions (Python's ctypes and cffi, other languages'
 * FFIs, dlsym), as liburing-ffi does for liburing. The library also holds
 * every UPMC_API function: it is the whole of upmc in one shared object.
 *
 * The headers are included with each inline function renamed, which leaves
 * its own name free for the exported definition that calls the inline body.
 * upmc_read_n() takes n at run time here (the inline one wants a constant);
 * the helpers upmc_read_first() (no bound check on n), upmc_locks_moved(),
 * upmc_store_value(), upmc_read_n_handover(), upmc_read_counter_handover(),
 * upmc_read_n_by_set(), upmc_read_usual(), upmc_usual_index(),
 * upmc_read_n_unusual() and upmc_mul_shift() are not exported. tests/dist_shared_test.c checks
 * that every other inline function of the public headers is here.
 */
#define upmc_count                upmc_inline_count
#define upmc_read                 upmc_inline_read
#define upmc_read_n               upmc_inline_read_n
#define upmc_read_counter         upmc_inline_read_counter
#define upmc_read_times           upmc_inline_read_times
#define upmc_snapshot             upmc_inline_snapshot
#define upmc_timestamp            upmc_inline_timestamp
#define upmc_timestamp_serialized upmc_inline_timestamp_serialized
#define upmc_timestamp_after      upmc_inline_timestamp_after
#define upmc_ticks_to_ns          upmc_inline_ticks_to_ns
#include <upmc/upmc.h>
#undef upmc_count
#undef upmc_read
#undef upmc_read_n
#undef upmc_read_counter
#undef upmc_read_times
#undef upmc_snapshot
#undef upmc_timestamp
#undef upmc_timestamp_serialized
#undef upmc_timestamp_after
#undef upmc_ticks_to_ns

UPMC_API int upmc_count(const struct upmc_set *set)
{
	return upmc_inline_count(set);
}

UPMC_API int upmc_read(struct upmc_set *set, uint64_t *values)
{
	return upmc_inline_read(set, values);
}

UPMC_API int upmc_snapshot(struct upmc_set *set, uint64_t *snapshot)
{
	return upmc_inline_snapshot(set, snapshot);
}

/* Each n up to UPMC_INLINE_COUNTERS runs the straight-line reader that C
 * code calling upmc_read_n() with that constant gets. */
_Static_assert(UPMC_INLINE_COUNTERS == 8, "one case per inline size");
UPMC_API int upmc_read_n(struct upmc_set *set, uint64_t *values, uint32_t n)
{
	switch (n) {
	case 0:
		return upmc_inline_read_n(set, values, 0);
	case 1:
		return upmc_inline_read_n(set, values, 1);
	case 2:
		return upmc_inline_read_n(set, values, 2);
	case 3:
		return upmc_inline_read_n(set, values, 3);
	case 4:
		return upmc_inline_read_n(set, values, 4);
	case 5:
		return upmc_inline_read_n(set, values, 5);
	case 6:
		return upmc_inline_read_n(set, values, 6);
	case 7:
		return upmc_inline_read_n(set, values, 7);
	case 8:
		return upmc_inline_read_n(set, values, 8);
	default: /* as the inline function does above that */
		return upmc_read_n_slow(set, values, n);
	}
}

UPMC_API int upmc_read_counter(struct upmc_set *set, unsigned i, uint64_t *value)
{
	return upmc_inline_read_counter(set, i, value);
}

UPMC_API int upmc_read_times(struct upmc_set *set, uint64_t *enabled, uint64_t *running)
{
	return upmc_inline_read_times(set, enabled, running);
}

UPMC_API uint64_t upmc_timestamp(void)
{
	return upmc_inline_timestamp();
}

UPMC_API uint64_t upmc_timestamp_serialized(void)
{
	return upmc_inline_timestamp_serialized();
}

UPMC_API uint64_t upmc_timestamp_after(void)
{
	return upmc_inline_timestamp_after();
}

UPMC_API uint64_t upmc_ticks_to_ns(const struct upmc_set *set, uint64_t ticks)
{
	return upmc_inline_ticks_to_ns(set, ticks);
}
