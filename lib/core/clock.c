/* SPDX-License-Identifier: MIT */
/*
 * Timestamp ticks to nanoseconds when the kernel does not publish the
 * factors: measured once per process against CLOCK_MONOTONIC_RAW.
 */
#include "os.h"

/* Long enough that the ~50 ns uncertainty of each end is < 1e-5 of it. */
#define CALIBRATION_NS 20000000ull

UPMC_API uint64_t upmc_generic_now_ns(void)
{
	return upmc_os_monotonic_ns();
}

/* A (ticks, ns) pair taken as close together as this machine allows. */
static void sample(uint64_t *ticks, uint64_t *ns)
{
	uint64_t best = UINT64_MAX;
	int k;

	*ticks = *ns = 0;
	for (k = 0; k < 16; k++) {
		uint64_t t0 = upmc_timestamp_serialized();
		uint64_t m = upmc_os_monotonic_ns();
		uint64_t t1 = upmc_timestamp_serialized();
		if (t1 - t0 < best) {
			best = t1 - t0;
			*ticks = t0 + (t1 - t0) / 2;
			*ns = m;
		}
	}
}

static void calibrate(struct upmc_clock *c)
{
	uint64_t t0, n0, t1, n1;
	double ns_per_tick;
	unsigned shift = 32;

	sample(&t0, &n0);
	while (upmc_os_monotonic_ns() - n0 < CALIBRATION_NS)
		;
	sample(&t1, &n1);
	ns_per_tick = t1 > t0 ? (double)(n1 - n0) / (double)(t1 - t0) : 1.0;
	/* The largest shift that keeps mult in 32 bits: the most precision. */
	while (shift > 0 && ns_per_tick * (double)(1ull << shift) >= 4294967295.0)
		shift--;
	c->mult = (uint32_t)(ns_per_tick * (double)(1ull << shift) + 0.5);
	c->shift = (uint16_t)shift;
	c->zero = n1 - upmc_mul_shift(t1, c->mult, c->shift);
	c->source = UPMC_CLOCK_CALIBRATED;
}

void upmc_clock_calibrated(struct upmc_clock *clock)
{
	static struct upmc_clock cached;
	static int ready;
	static char busy;

	if (UPMC_ARCH_TICKS_ARE_NS) {
		clock->zero = 0;
		clock->mult = 1;
		clock->shift = 0;
		clock->source = UPMC_CLOCK_NS;
		return;
	}
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		while (__atomic_test_and_set(&busy, __ATOMIC_ACQUIRE))
			;
		if (!ready) {
			calibrate(&cached);
			__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
		}
		__atomic_clear(&busy, __ATOMIC_RELEASE);
	}
	*clock = cached;
}
