/* SPDX-License-Identifier: MIT */
/*
 * The library's inline reader against the simulated kernel: deterministic
 * sign extension and wrap-around, the slow-path fallbacks, and a writer
 * thread that acts like the kernel while 10^7 reads check that no value is
 * torn or goes backwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"
#include "tests/sim/sim_writer.h"
#include "tests/upmc_test.h"

static const unsigned widths[] = {32, 40, 48, 64};

static struct upmc_set *open_sim(unsigned width, const char *spec)
{
	struct upmc_set *set = NULL;

	sim_reset(width);
	if (upmc_open(&set, spec, NULL) < 0)
		return NULL;
	return set;
}

/* Puts a raw value straight into event i's counter, keeping offset. */
static void set_raw(unsigned i, uint64_t raw)
{
	sim.bank[sim.event[i].counter] = raw;
}

TEST(sim, reference_sign_extension)
{
	EXPECT_EQ(sim_sign_extend(0xffffffffull, 32), -1);
	EXPECT_EQ(sim_sign_extend(0x7fffffffull, 32), 0x7fffffff);
	EXPECT_EQ(sim_sign_extend(0x80000000ull, 32), -2147483648ll);
	EXPECT_EQ(sim_sign_extend(0xffffffffffffull, 48), -1);
	EXPECT_EQ(sim_sign_extend(0x800000000000ull, 48), -(1ll << 47));
	EXPECT_EQ(sim_sign_extend(~0ull, 64), -1);
}

TEST(sim, sign_extends_by_pmc_width)
{
	unsigned k;

	for (k = 0; k < 4; k++) {
		unsigned w = widths[k];
		struct upmc_set *set = open_sim(w, "cycles");
		uint64_t v;

		ASSERT(set);
		/* Inline for the width it was built for; the others out of line,
		 * from user space too. */
		EXPECT_EQ(set->user_n, w == UPMC_ARCH_PMC_WIDTH);
		sim.event[0].page.offset = 1000;
		set_raw(0, w == 64 ? ~0ull : (1ull << w) - 1); /* -1 */
		ASSERT(upmc_read_counter(set, 0, &v) == 0);
		EXPECT_EQ_U64(v, 999);
		set_raw(0, 1ull << (w - 1)); /* the most negative */
		sim.event[0].page.offset = (int64_t)(1ull << (w - 1));
		ASSERT(upmc_read(set, &v) == 1);
		EXPECT_EQ_U64(v, 0);
		upmc_close(set);
	}
	EXPECT_EQ(sim.slow_reads, 0);
}

TEST(sim, ignores_bits_above_the_width)
{
	struct upmc_set *set = open_sim(32, "instructions");
	uint64_t v;

	ASSERT(set);
	sim.event[0].page.offset = 10;
	set_raw(0, 0xdeadbeef00000005ull); /* arm64: upper bits UNKNOWN */
	ASSERT(upmc_read(set, &v) == 1);
	EXPECT_EQ_U64(v, 15);
	upmc_close(set);
}

TEST(sim, continuous_across_a_counter_wrap)
{
	unsigned k;

	for (k = 0; k < 4; k++) {
		unsigned w = widths[k];
		struct upmc_set *set = open_sim(w, "cycles,instructions");
		uint64_t before[2], after[2];

		ASSERT(set);
		sim_reprogram(0, 5); /* counter at -5: 10 ticks wrap it to 5 */
		sim_reprogram(1, 1);
		ASSERT(upmc_read(set, before) == 2);
		sim_tick(0, 10);
		sim_tick(1, 3);
		ASSERT(upmc_read(set, after) == 2);
		EXPECT_EQ_U64(after[0] - before[0], 10);
		EXPECT_EQ_U64(after[1] - before[1], 3);
		EXPECT_EQ_U64(sim.bank[sim.event[0].counter], 5);
		upmc_close(set);
	}
}

TEST(sim, reads_every_counter_index)
{
	struct upmc_set *set = open_sim(48, "cycles");
	unsigned c;

	ASSERT(set);
	for (c = 0; c < SIM_COUNTERS; c++) {
		uint64_t v;
		sim_move(0, c);
		sim.bank[c] = 7 + c;
		sim.event[0].page.offset = 100;
		ASSERT(upmc_read(set, &v) == 1);
		EXPECT_MSG(v == 107 + c, "counter %u read %llu", c, (unsigned long long)v);
	}
	upmc_close(set);
}

TEST(sim, index_zero_takes_the_slow_path)
{
	struct upmc_set *set = open_sim(48, "cycles,instructions");
	uint64_t v[2];

	ASSERT(set);
	sim_tick(0, 40);
	sim_tick(1, 2);
	sim_stop(1); /* descheduled: the page says index 0 */
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(sim.slow_reads, 1);
	EXPECT_EQ_U64(v[0], 40);
	EXPECT_EQ_U64(v[1], 2);
	sim_start(1, 5);
	sim_tick(1, 8);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(sim.slow_reads, 1);
	EXPECT_EQ_U64(v[1], 10);
	upmc_close(set);
}

TEST(sim, no_rdpmc_capability_takes_the_slow_path)
{
	struct upmc_set *set = open_sim(48, "cycles");
	uint64_t v;

	ASSERT(set);
	sim_tick(0, 9);
	sim.event[0].page.capabilities = 0; /* index stays set: must not be trusted */
	sim.bank[0] = 0x123456;             /* what a forbidden read would give */
	sim.event[0].stopped = 9;
	sim.event[0].running = 0;
	ASSERT(upmc_read_counter(set, 0, &v) == 0);
	EXPECT_EQ(sim.slow_reads, 1);
	EXPECT_EQ_U64(v, 9);
	upmc_close(set);
}

/* While the reader reads counter 1, the kernel moves counter 0 (already
 * read) to another counter: its lock moved, so the pass is repeated. */
static void move_counter_0_at_read_1(unsigned nth)
{
	if (nth == 1)
		sim_move(0, 9);
}

TEST(sim, counter_moved_mid_pass_repeats_the_pass)
{
	struct upmc_set *set = open_sim(UPMC_ARCH_PMC_WIDTH, "cycles,instructions");
	uint64_t v[2];

	ASSERT(set);
	sim_tick(0, 40);
	sim_tick(1, 2);
	sim.counter_reads = 0;
	sim.before_read = move_counter_0_at_read_1;
	ASSERT(upmc_read_n(set, v, 2) == 2);
	sim.before_read = NULL;
	EXPECT_EQ(sim.counter_reads, 4); /* two passes of two counters */
	EXPECT_EQ(sim.event[0].counter, 9);
	EXPECT_EQ_U64(v[0], 40);
	EXPECT_EQ_U64(v[1], 2);
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
}

/*
 * The width is settled at open: the kernel fixes it when the event is made
 * (x86_pmu.cntval_bits; ARMPMU_EVT_64BIT on arm64). A page that later said
 * another width would not be believed: the reader keeps the one it opened
 * with. Shown with a raw value whose bit 31 is set.
 */
TEST(sim, width_is_settled_at_open)
{
	struct upmc_set *set = open_sim(UPMC_ARCH_PMC_WIDTH, "cycles");
	uint64_t v;

	ASSERT(set);
	ASSERT(set->user_n);
	sim.event[0].page.offset = 0;
	set_raw(0, 0x80000000ull);
	sim.event[0].page.pmc_width = UPMC_ARCH_PMC_WIDTH == 32 ? 48 : 32;
	ASSERT(upmc_read(set, &v) == 1);
	EXPECT_EQ_U64(v, (uint64_t)sim_sign_extend(0x80000000ull, UPMC_ARCH_PMC_WIDTH));
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
}

/* Sets larger than the inline readers go out of line, still from user space. */
TEST(sim, nine_counters_read_out_of_line_without_a_syscall)
{
	struct upmc_set *set =
	        open_sim(UPMC_ARCH_PMC_WIDTH, "instructions,instructions,"
	                                      "instructions,instructions,instructions,instructions,"
	                                      "instructions,instructions,instructions");
	uint64_t v[10]; /* room for the 10 asked for below */
	unsigned i;

	ASSERT(set);
	for (i = 0; i < 9; i++)
		sim_tick(i, 10 + i);
	ASSERT(upmc_read(set, v) == 9);
	for (i = 0; i < 9; i++)
		EXPECT_EQ_U64(v[i], 10 + i);
	EXPECT_EQ(sim.slow_reads, 0);
	ASSERT(upmc_read_n(set, v, 3) == 3); /* the first three */
	EXPECT_EQ_U64(v[2], 12);
	EXPECT_EQ(upmc_read_n(set, v, 10), -EINVAL);
	EXPECT_EQ_U64(v[9], UPMC_NOT_COUNTED);
	upmc_close(set);
}

TEST(sim, forced_syscall_and_software_events)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_FORCE_SYSCALL};
	struct upmc_set *set = NULL;
	uint64_t v[2];

	sim_reset(48);
	ASSERT(upmc_open(&set, "cycles,instructions", &opts) == 0);
	EXPECT(!set->user_n);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_SYSCALL);
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ(sim.slow_reads, 1);
	upmc_close(set);

	set = open_sim(48, "cycles,task-clock");
	ASSERT(set);
	EXPECT(!set->user_n);
	EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_USER);
	EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(upmc_summary(set), "1 user-space");
	upmc_close(set);
}

/* ---- the layout readers: each counter by the instruction that names it ---- */

/* n events, event `cycles` (1-based; 0: none) opened on the cycle counter,
 * the others from counter `first` on, each ticked 10 + its position. */
static struct upmc_set *open_layout_from(unsigned n, unsigned cycles, unsigned first)
{
	static const char *const spec[] = {
	        NULL,
	        "instructions",
	        "instructions,instructions",
	        "instructions,instructions,instructions",
	        "instructions,instructions,instructions,instructions",
	        "instructions,instructions,instructions,instructions,instructions",
	        "instructions,instructions,instructions,instructions,instructions,instructions",
	        "instructions,instructions,instructions,instructions,instructions,instructions,"
	        "instructions",
	        "instructions,instructions,instructions,instructions,instructions,instructions,"
	        "instructions,instructions"};
	struct upmc_set *set = NULL;
	unsigned i;

	sim_reset(UPMC_ARCH_PMC_WIDTH);
	sim.cycle_counter_at = cycles;
	sim.first_counter = first;
	if (upmc_open(&set, spec[n], NULL) < 0)
		return NULL;
	for (i = 0; i < n; i++)
		sim_tick(i, 10 + i);
	return set;
}

static struct upmc_set *open_layout(unsigned n, unsigned cycles)
{
	return open_layout_from(n, cycles, 0);
}

/* The layouts' starts the tests take: the first counter, the next ones (a
 * thread's second set), and one past every compiled layout reader, which
 * the straight-line reader reads. */
static const unsigned firsts[] = {0, 1, 2, 5, 20};

/* Whether v[0..n-1] are each event's count now, and say which is not. */
static int counts_are_right(const uint64_t *v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i] != sim_count(i)) {
			printf("counter %u read %llu, counted %llu\n", i, (unsigned long long)v[i],
			       (unsigned long long)sim_count(i));
			return 0;
		}
	return 1;
}

/* The two reads of a whole set: upmc_read() (the layout reader chosen at
 * open) and upmc_read_n() (inline: compiled for the usual layout, the
 * cycle counter first and the others from the first event counter, and
 * the straight-line reader for any other). */
enum { BY_READ, BY_READ_N, READS };
static const char *const read_name[READS] = {"upmc_read", "upmc_read_n"};

static int read_by(unsigned how, struct upmc_set *set, uint64_t *v, unsigned n)
{
	if (how == BY_READ)
		return upmc_read(set, v);
	_Static_assert(UPMC_INLINE_COUNTERS == 8, "one case per inline size");
	switch (n) {
	case 1:
		return upmc_read_n(set, v, 1);
	case 2:
		return upmc_read_n(set, v, 2);
	case 3:
		return upmc_read_n(set, v, 3);
	case 4:
		return upmc_read_n(set, v, 4);
	case 5:
		return upmc_read_n(set, v, 5);
	case 6:
		return upmc_read_n(set, v, 6);
	case 7:
		return upmc_read_n(set, v, 7);
	default:
		return upmc_read_n(set, v, 8);
	}
}

/* Reads the first k counters of set by how, then closes it: each count
 * right, in one pass of k counter reads, no read(2). what names the case. */
static void expect_one_pass(unsigned how, struct upmc_set *set, unsigned k, const char *what)
{
	uint64_t v[UPMC_INLINE_COUNTERS];

	sim.counter_reads = 0;
	EXPECT_MSG(read_by(how, set, v, k) == (int)k, "%s: %s", read_name[how], what);
	EXPECT_MSG(counts_are_right(v, k), "%s: %s", read_name[how], what);
	EXPECT_MSG(sim.counter_reads == k, "%s: %s: %u counter reads", read_name[how], what,
	           sim.counter_reads);
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
}

TEST(sim, layout_readers_read_every_position_of_the_cycle_counter)
{
	unsigned n, cycles, how;

	for (how = 0; how < READS; how++)
		for (n = 1; n <= UPMC_INLINE_COUNTERS; n++)
			for (cycles = 0; cycles <= n; cycles++) {
				struct upmc_set *set = open_layout(n, cycles);
				char what[64];

				ASSERT(set);
				if (cycles)
					EXPECT_EQ(set->page[cycles - 1]->index, 32);
				snprintf(what, sizeof(what), "%u counters, cycles at %u", n,
				         cycles);
				expect_one_pass(how, set, n, what);
			}
}

/* Sets whose counters start after the first: each gets a layout reader of
 * its own (a reader other than the straight-line one, which a set laid out
 * past every compiled layout gets), and reads every counter right in one
 * pass, the cycle counter nowhere, first, second or last. */
TEST(sim, layout_readers_read_sets_from_every_start)
{
	unsigned n, c, k, how;

	for (n = 1; n <= UPMC_INLINE_COUNTERS; n++)
		for (c = 0; c < 4; c++)
			for (k = 0; k < sizeof(firsts) / sizeof(firsts[0]); k++) {
				const unsigned cycles = c == 3 ? n : c > n ? 0 : c;
				struct upmc_set *set = open_layout_from(n, cycles, firsts[k]);
				struct upmc_set *past = open_layout_from(n, cycles, 20);
				const unsigned events = n - (cycles != 0);
				const int compiled =
				        firsts[k] + events <= 8 && (cycles <= 2 || !firsts[k]);
				uint64_t v[UPMC_INLINE_COUNTERS];

				ASSERT(set && past);
				/* open_layout_from() reset the machine: the second
				 * set's pages are the ones there now */
				sim.counter_reads = 0;
				ASSERT(upmc_read(past, v) == (int)n);
				EXPECT_MSG(counts_are_right(v, n),
				           "%u counters from %u, cycles at %u", n, 20, cycles);
				if (events)
					EXPECT_MSG((set->read != past->read) == compiled,
					           "%u counters from %u, cycles at %u: %s", n,
					           firsts[k], cycles,
					           compiled ? "no layout reader"
					                    : "a layout reader");
				upmc_close(set);
				upmc_close(past);
				for (how = 0; how < READS; how++) {
					char what[64];

					set = open_layout_from(n, cycles, firsts[k]);
					ASSERT(set);
					snprintf(what, sizeof(what),
					         "%u counters from %u, cycles at %u", n, firsts[k],
					         cycles);
					expect_one_pass(how, set, n, what);
				}
			}
}

/* The first k counters of a larger set, in every layout: upmc_read_n()
 * inline where the set is in the usual layout or k <= 3, else out of line
 * (upmc_read_n_other()), in one pass of k reads either way. */
TEST(sim, read_n_reads_the_first_counters_of_a_larger_set)
{
	unsigned n, k, c, f;

	for (n = 2; n <= UPMC_INLINE_COUNTERS; n++)
		for (c = 0; c < 3; c++)
			for (f = 0; f < 2; f++)
				for (k = 1; k < n; k++) {
					struct upmc_set *set = open_layout_from(n, c, f);
					char what[64];

					ASSERT(set);
					snprintf(what, sizeof(what),
					         "%u of %u counters from %u, cycles at %u", k, n, f,
					         c);
					expect_one_pass(BY_READ_N, set, k, what);
				}
}

/* More counters than the set has: -EINVAL, and every value asked for says
 * "not counted" (inline, the values come back through the handover's
 * copy); none: 0, nothing read. */
TEST(sim, read_n_of_more_counters_than_the_set_has)
{
	unsigned n, k;

	for (n = 1; n < UPMC_INLINE_COUNTERS; n++)
		for (k = n + 1; k <= UPMC_INLINE_COUNTERS; k++) {
			struct upmc_set *set = open_layout(n, n == 1 ? 0 : 1);
			uint64_t v[UPMC_INLINE_COUNTERS];
			unsigned i;

			ASSERT(set);
			memset(v, 0, sizeof(v));
			EXPECT_EQ(read_by(BY_READ_N, set, v, k), -EINVAL);
			EXPECT_CONTAINS(upmc_last_error(), "fewer than");
			for (i = 0; i < k; i++)
				EXPECT_MSG(v[i] == UPMC_NOT_COUNTED, "value %u of %u, set of %u", i,
				           k, n);
			sim.counter_reads = 0;
			EXPECT_EQ(upmc_read_n(set, v, 0), 0);
			EXPECT_EQ(sim.counter_reads, 0);
			upmc_close(set);
		}
}

/* At the second counter read of the first pass, event `moved_event` goes
 * to counter 9: one already read (0), or one not read yet (3), whose
 * counter the layout reader names in its instruction. */
static unsigned moved_event;

static void move_at_read_1(unsigned nth)
{
	if (nth == 1)
		sim_move(moved_event, 9);
}

/* Each with the cycle counter second and first (the usual layout, which
 * upmc_read_n() is compiled for, from the first counter). */
TEST(sim, layout_reader_index_moved_mid_pass)
{
	static const unsigned events[] = {0, 3};
	const unsigned starts = sizeof(firsts) / sizeof(firsts[0]) - 1;
	unsigned k;

	/* The layout readers' starts (firsts[] less the last): the
	 * straight-line reader reads an index after the move at its own
	 * counter's turn, in one pass. */
	for (k = 0; k < 2 * 2 * READS * starts; k++) {
		const unsigned first = firsts[k % starts], how = k / starts % READS;
		const unsigned cycles = k / starts / READS % 2 ? 1 : 2;
		struct upmc_set *set = open_layout_from(4, cycles, first);
		uint64_t v[4];

		ASSERT(set);
		moved_event = events[k / starts / READS / 2];
		sim.counter_reads = 0;
		sim.before_read = move_at_read_1;
		/* the lock moved: the pass is read again, by the generic reader */
		ASSERT(read_by(how, set, v, 4) == 4);
		sim.before_read = NULL;
		EXPECT_EQ(sim.event[moved_event].counter, 9);
		EXPECT_MSG(counts_are_right(v, 4), "%s: event %u moved, cycles at %u, from %u",
		           read_name[how], moved_event, cycles, first);
		/* two passes of four counters */
		EXPECT_MSG(sim.counter_reads == 8,
		           "%s: event %u moved, cycles at %u, from %u: %u reads", read_name[how],
		           moved_event, cycles, first, sim.counter_reads);
		EXPECT_EQ(sim.slow_reads, 0);
		/* Moved back where it was opened, the layout reads it again. */
		sim_tick(moved_event, 5);
		sim_move(moved_event, moved_event != 0 ? first + 2
		                      : cycles == 1    ? SIM_COUNTERS - 1
		                                       : first);
		sim.counter_reads = 0;
		ASSERT(read_by(how, set, v, 4) == 4);
		EXPECT(counts_are_right(v, 4));
		EXPECT_EQ(sim.counter_reads, 4);
		upmc_close(set);
	}
}

/* The kernel rotates a set's events when they share the counters with
 * others: off the PMU (index 0), back on another counter, then on the one
 * it had at open. */
static void rotated_off_and_back(unsigned how, unsigned first)
{
	struct upmc_set *set = open_layout_from(3, 1, first);
	uint64_t v[3];

	ASSERT(set);
	sim_stop(0); /* the cycle counter's event */
	ASSERT(read_by(how, set, v, 3) == 3);
	EXPECT(counts_are_right(v, 3));
	EXPECT_EQ(sim.slow_reads, 1);
	sim_start(0, 25);
	sim_tick(0, 7);
	sim_tick(2, 3);
	ASSERT(read_by(how, set, v, 3) == 3);
	EXPECT(counts_are_right(v, 3));
	EXPECT_EQ(sim.slow_reads, 1);
	sim_move(0, SIM_COUNTERS - 1);
	sim_tick(0, 1);
	ASSERT(read_by(how, set, v, 3) == 3);
	EXPECT(counts_are_right(v, 3));
	EXPECT_EQ(sim.slow_reads, 1);
	/* an event counter's event, off and back on its own counter */
	sim_stop(2);
	ASSERT(read_by(how, set, v, 3) == 3);
	EXPECT(counts_are_right(v, 3));
	EXPECT_EQ(sim.slow_reads, 2);
	sim_start(2, first + 1);
	sim_tick(2, 4);
	sim.counter_reads = 0;
	ASSERT(read_by(how, set, v, 3) == 3);
	EXPECT_MSG(counts_are_right(v, 3), "%s from counter %u", read_name[how], first);
	EXPECT_EQ(sim.slow_reads, 2);
	EXPECT_EQ(sim.counter_reads, 3);
	upmc_close(set);
}

TEST(sim, layout_reader_follows_events_rotated_off_and_back)
{
	unsigned k;

	for (k = 0; k < READS * (sizeof(firsts) / sizeof(firsts[0])); k++)
		rotated_off_and_back(k % READS, firsts[k / READS]);
}

static void cap_cleared(unsigned how, unsigned cycles, unsigned first)
{
	struct upmc_set *set = open_layout_from(3, cycles, first);
	uint64_t v[3];

	ASSERT(set);
	/* the index stays set: must not be trusted */
	sim.event[1].page.capabilities = 0;
	sim.event[1].stopped = sim_count(1);
	sim.event[1].running = 0;
	sim.bank[sim.event[1].counter] = 0x123456; /* what a forbidden read would give */
	ASSERT(read_by(how, set, v, 3) == 3);
	EXPECT_EQ(sim.slow_reads, 1);
	EXPECT_MSG(counts_are_right(v, 3), "%s: cycles at %u, from %u", read_name[how], cycles,
	           first);
	upmc_close(set);
}

TEST(sim, layout_reader_cap_cleared_takes_the_slow_path)
{
	unsigned k;

	/* the cycle counter second, then first (the usual layout from 0) */
	for (k = 0; k < 2 * READS * (sizeof(firsts) / sizeof(firsts[0])); k++)
		cap_cleared(k % READS, k / READS % 2 ? 1 : 2, firsts[k / READS / 2]);
}

/* As width_is_settled_at_open, for the layout reader of the cycle counter. */
TEST(sim, layout_reader_width_is_settled_at_open)
{
	struct upmc_set *set = open_layout(2, 2);
	uint64_t v[2];

	ASSERT(set);
	sim.event[1].page.offset = 0;
	sim.bank[SIM_COUNTERS - 1] = 0x80000000ull;
	sim.event[1].page.pmc_width = UPMC_ARCH_PMC_WIDTH == 32 ? 48 : 32;
	ASSERT(upmc_read(set, v) == 2);
	EXPECT_EQ_U64(v[1], (uint64_t)sim_sign_extend(0x80000000ull, UPMC_ARCH_PMC_WIDTH));
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
}

/* ---- the kernel: a writer that interrupts the reader ---- */

struct tally {
	unsigned long reads, interrupts, bad;
};

/* cycles: the event open puts on the cycle counter (sim.cycle_counter_at);
 * first: the counter of its first other event (sim.first_counter). */
static void run_against_kernel(unsigned width, unsigned cycles, unsigned first, unsigned long reads,
                               unsigned long interrupts, struct tally *t)
{
	struct upmc_set *set = NULL;
	uint64_t v[4], prev[4] = {0};
	unsigned long bad = 0, k;
	unsigned i;

	sim_reset(width);
	sim.cycle_counter_at = cycles;
	sim.first_counter = first;
	if (upmc_open(&set, "cycles,instructions,branches,branch-misses", NULL) < 0 ||
	    sim_writer_start(4, 0x9e3779b97f4a7c15ull ^ width, 20000) < 0) {
		upmc_close(set);
		t->bad++;
		return;
	}
	/* At least `reads` reads and `interrupts` interrupts, within a bound. */
	for (k = 0; k < 40 * reads && (k < reads || sim_writer.handled < interrupts); k++) {
		/* both reads in turn: the layout reader and the inline one */
		if ((k % 2 ? upmc_read(set, v) : upmc_read_n(set, v, 4)) != 4) {
			bad++;
			continue;
		}
		for (i = 0; i < 4; i++) {
			if (v[i] < prev[i] || v[i] > sim.event[i].truth)
				bad++;
			prev[i] = v[i];
		}
	}
	sim_writer_stop();
	printf("sim: width %u, cycle counter at %u, from counter %u: %lu set reads of 4 counters "
	       "(%u through "
	       "read(2)), %lu interrupts, %lu kernel updates: %lu torn or backwards\n",
	       width, cycles, first, k, sim.slow_reads, sim_writer.handled, sim_writer.updates,
	       bad);
	upmc_close(set);
	t->reads += k;
	t->interrupts += sim_writer.handled;
	t->bad += bad;
}

TEST(sim, ten_million_reads_against_a_kernel_writer)
{
	struct tally t = {0, 0, 0};
	unsigned k;

	/* Each width twice, the second time with the first event on the cycle
	 * counter: the layout readers of both kinds, from the first counter
	 * and from later ones. */
	for (k = 0; k < 8; k++)
		run_against_kernel(widths[k / 2], k % 2, k % 3, 1250000, 10000, &t);
	printf("sim: total %lu reads, %lu interrupts, %lu torn or backwards\n", t.reads,
	       t.interrupts, t.bad);
	EXPECT(t.reads >= 10000000);
	EXPECT(t.interrupts >= 4 * 20000);
	EXPECT_EQ(t.bad, 0);
}
