/* SPDX-License-Identifier: MIT */
/*
 * Timestamps to nanoseconds and time_enabled/time_running in user space:
 * known values, 64-bit extremes, cap_user_time_short, and the calibrated
 * clock against CLOCK_MONOTONIC_RAW.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <upmc/upmc.h>

#include "lib/core/internal.h"
#include "tests/linux_util.h"
#include "tests/upmc_test.h"

/* The exact value, with 128-bit arithmetic (a GCC extension, tests only). */
static uint64_t exact(uint64_t cyc, uint32_t mult, unsigned shift)
{
	return (uint64_t)(((unsigned __int128)cyc * mult) >> shift);
}

TEST(clock, mul_shift_known_values)
{
	EXPECT_EQ_U64(upmc_mul_shift(1000, 1u << 31, 31), 1000);
	EXPECT_EQ_U64(upmc_mul_shift(3, 3, 1), 4);
	EXPECT_EQ_U64(upmc_mul_shift(0, 0xffffffffu, 32), 0);
	EXPECT_EQ_U64(upmc_mul_shift(~0ull, 1, 0), ~0ull);
	/* 2.5 GHz: 0.4 ns per tick */
	EXPECT_EQ_U64(upmc_mul_shift(2500000000ull, 1717986918u, 32), 999999999);
}

TEST(clock, mul_shift_does_not_overflow)
{
	static const uint64_t cycles[] = {1ull << 40, (1ull << 62) + 12345, ~0ull >> 1, ~0ull};
	static const uint32_t mults[] = {1u << 31, 0x9a3b1c2du, 0xffffffffu, 419430400u};
	static const unsigned shifts[] = {31, 30, 32, 22};
	unsigned i, j;

	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			uint64_t want = exact(cycles[i], mults[j], shifts[j]);
			/* the exact value needs more than 64 bits when ns >= 2^64 */
			if ((((unsigned __int128)cycles[i] * mults[j]) >> shifts[j]) >> 64)
				continue;
			EXPECT_MSG(upmc_mul_shift(cycles[i], mults[j], (uint16_t)shifts[j]) == want,
			           "cyc %llu mult %u shift %u", (unsigned long long)cycles[i],
			           mults[j], shifts[j]);
		}
	/* the naive (cyc * mult) >> shift would wrap here */
	EXPECT_EQ_U64(upmc_mul_shift(1ull << 62, 1u << 31, 31), 1ull << 62);
}

TEST(clock, ticks_to_ns_adds_zero)
{
	struct upmc_set set;

	memset(&set, 0, sizeof(set));
	set.clock.zero = 5000;
	set.clock.mult = 3u << 30; /* 1.5 ns per tick */
	set.clock.shift = 31;
	EXPECT_EQ_U64(upmc_ticks_to_ns(&set, 0), 5000);
	EXPECT_EQ_U64(upmc_ticks_to_ns(&set, 1000), 6500);
	set.clock.zero = (uint64_t)-100; /* time_zero is u64: wraps like the kernel's */
	EXPECT_EQ_U64(upmc_ticks_to_ns(&set, 400), 500);
}

/* A set over one fake page, as the inline reader sees a real one. */
static struct upmc_perf_page page;
static struct upmc_set fake_set(void)
{
	struct upmc_set set;

	memset(&set, 0, sizeof(set));
	set.n = 1;
	set.user_n = 1;
	set.page[0] = &page;
	return set;
}

static uint64_t delta_at(uint64_t cyc)
{
	if (page.capabilities & UPMC_CAP_USER_TIME_SHORT)
		cyc = page.time_cycles + ((cyc - page.time_cycles) & page.time_mask);
	return page.time_offset + upmc_mul_shift(cyc, page.time_mult, page.time_shift);
}

TEST(clock, times_extrapolated_in_user_space)
{
	struct upmc_set set = fake_set();
	uint64_t t0, t1, en, run;

	memset(&page, 0, sizeof(page));
	page.capabilities = UPMC_CAP_USER_RDPMC | UPMC_CAP_USER_TIME;
	page.index = 1;
	page.time_enabled = 1000000;
	page.time_running = 400000;
	page.time_mult = 3u << 29; /* 0.75 ns per tick */
	page.time_shift = 31;
	t0 = upmc_timestamp();
	page.time_offset = 0 - upmc_mul_shift(t0, page.time_mult, page.time_shift);
	ASSERT(upmc_read_times(&set, &en, &run) == 0);
	t1 = upmc_timestamp();
	EXPECT(en >= page.time_enabled + delta_at(t0) && en <= page.time_enabled + delta_at(t1));
	EXPECT(run - page.time_running == en - page.time_enabled);
	/* not on a counter: running does not grow */
	page.index = 0;
	ASSERT(upmc_read_times(&set, &en, &run) == 0);
	EXPECT_EQ_U64(run, page.time_running);
	EXPECT(en > page.time_enabled);
}

TEST(clock, times_with_cap_user_time_short)
{
	struct upmc_set set = fake_set();
	uint64_t t0, t1, en, run, plain;

	memset(&page, 0, sizeof(page));
	page.capabilities = UPMC_CAP_USER_RDPMC | UPMC_CAP_USER_TIME | UPMC_CAP_USER_TIME_SHORT;
	page.index = 1;
	page.time_mult = 1u << 31; /* 1 ns per tick */
	page.time_shift = 31;
	page.time_mask = 0xffffffffull; /* a 32-bit cycle counter */
	page.time_cycles = 7ull << 40;  /* its last full value, far from ours */
	page.time_offset = 0 - page.time_cycles;
	t0 = upmc_timestamp();
	ASSERT(upmc_read_times(&set, &en, &run) == 0);
	t1 = upmc_timestamp();
	if (delta_at(t1) < delta_at(t0))
		SKIP("the 32-bit window wrapped during the read; rerun");
	EXPECT(en >= delta_at(t0) && en <= delta_at(t1));
	EXPECT(en < (1ull << 32)); /* within one window of time_cycles */
	plain = page.time_offset + upmc_mul_shift(t0, page.time_mult, page.time_shift);
	EXPECT(en != plain);
}

static void sleep_ms(long ms)
{
	struct timespec ts = {0, ms * 1000000};

	nanosleep(&ts, NULL);
}

TEST(clock, calibrated_within_one_percent_over_100ms)
{
	struct upmc_set *set, cal;
	uint64_t t0, t1, m0, m1, want, got, got_cal;

	ASSERT(upmc_open_timer(&set) == 0);
	memset(&cal, 0, sizeof(cal));
	upmc_clock_calibrated(&cal.clock);
	EXPECT(cal.clock.source == UPMC_CLOCK_CALIBRATED || cal.clock.source == UPMC_CLOCK_NS);
	m0 = monotonic_raw_ns();
	t0 = upmc_timestamp_serialized();
	sleep_ms(100);
	t1 = upmc_timestamp_serialized();
	m1 = monotonic_raw_ns();
	want = m1 - m0;
	got = upmc_ticks_to_ns(set, t1) - upmc_ticks_to_ns(set, t0);
	got_cal = upmc_ticks_to_ns(&cal, t1) - upmc_ticks_to_ns(&cal, t0);
	printf("clock: source %d: %llu ns over %llu ns of CLOCK_MONOTONIC_RAW; calibrated %llu\n",
	       upmc_clock_source(set), (unsigned long long)got, (unsigned long long)want,
	       (unsigned long long)got_cal);
	EXPECT(got >= want - want / 100 && got <= want + want / 100);
	EXPECT(got_cal >= want - want / 100 && got_cal <= want + want / 100);
	/* calibrated absolute time lands on CLOCK_MONOTONIC_RAW, within 1 ms */
	EXPECT(upmc_ticks_to_ns(&cal, t1) + 1000000 > m1 &&
	       upmc_ticks_to_ns(&cal, t1) < m1 + 1000000);
	upmc_close(set);
}
