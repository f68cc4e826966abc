/* SPDX-License-Identifier: MIT */
/*
 * The real x86 rdpmc of <upmc/read.h>, on a machine without a PMU. Here
 * rdpmc faults (#GP: CR4.PCE is off without perf pages of a PMU; QEMU's TCG
 * may raise #UD). A SIGSEGV/SIGILL handler recognises 0F 33 at the faulting
 * RIP, writes EDX:EAX from the simulated counter bank chosen by ECX (bit 30:
 * the fixed counters) and steps past it. So the inline reader, compiled
 * here without the simulation's seam, runs end to end over the simulated
 * kernel's pages: its register constraints, index - 1, bit 30, sign
 * extension and the wrap at 48 bits, against the simulated kernel's writer.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

/* First, so that the inline reader is the real one: rdpmc itself. */
#include <upmc/upmc.h>
/* The seam's macro, which sim_kernel.h brings, would only change code
 * compiled after it, and none here reads counters through it. */
#undef UPMC_ARCH_READ_COUNTER
#include "tests/sim/sim_kernel.h"
#include "tests/sim/sim_writer.h"

#include "tests/upmc_test.h"

#if defined(__x86_64__)

#define FIXED_COUNTERS 4
#define FIXED_BIT      (1u << 30)
#define WIDTH_MASK     ((1ull << 48) - 1)

static uint64_t fixed_bank[FIXED_COUNTERS];
static volatile unsigned long emulated, bad_ecx;

/* rdpmc as the hardware executes it: the counter's 48 bits in EDX:EAX,
 * zero above; an ECX naming no counter would #GP for real. */
static void on_fault(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	greg_t *reg = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)reg[REG_RIP];
	uint32_t ecx = (uint32_t)reg[REG_RCX];
	uint64_t value = 0;

	(void)info;
	if (ip[0] != 0x0f || ip[1] != 0x33) {
		signal(sig, SIG_DFL); /* a real fault: let it kill the test */
		return;
	}
	if ((ecx & FIXED_BIT) && (ecx & ~FIXED_BIT) < FIXED_COUNTERS)
		value = fixed_bank[ecx & ~FIXED_BIT];
	else if (!(ecx & FIXED_BIT) && ecx < SIM_COUNTERS)
		value = sim.bank[ecx];
	else
		bad_ecx++;
	value &= WIDTH_MASK;
	reg[REG_RAX] = (greg_t)(uint32_t)value;
	reg[REG_RDX] = (greg_t)(uint32_t)(value >> 32);
	reg[REG_RIP] += 2;
	emulated++;
}

/* The handler for both signals; the writer's interrupt waits while an
 * emulated rdpmc runs, as an instruction is not interrupted halfway. */
static int install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	return sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGILL, &sa, NULL) ? -1 : 0;
}

static void uninstall(void)
{
	signal(SIGSEGV, SIG_DFL);
	signal(SIGILL, SIG_DFL);
}

/* rdpmc runs natively where user-space rdpmc is allowed: nothing to
 * emulate, and the values would be the machine's. */
static int rdpmc_faults(void)
{
	unsigned long before = emulated;

	(void)upmc_arch_read_counter(1);
	return emulated == before + 1;
}

#define NEEDS_EMULATION()                                                               \
	do {                                                                            \
		if (install() < 0)                                                      \
			SKIP("cannot install a SIGSEGV/SIGILL handler");                \
		if (!rdpmc_faults()) {                                                  \
			uninstall();                                                    \
			SKIP("rdpmc runs natively here (user-space rdpmc is allowed): " \
			     "nothing to emulate");                                     \
		}                                                                       \
	} while (0)

static struct upmc_set *open_sim(const char *spec)
{
	struct upmc_set *set = NULL;

	sim_reset(48);
	return upmc_open(&set, spec, NULL) < 0 ? NULL : set;
}

/* Moves event i onto fixed counter k holding raw, under the page's lock. */
static void put_on_fixed(unsigned i, unsigned k, uint64_t raw, int64_t offset)
{
	struct sim_event *e = &sim.event[i];

	e->page.lock++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fixed_bank[k] = raw;
	e->page.offset = offset;
	e->page.index = (FIXED_BIT | k) + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e->page.lock++;
}

TEST(rdpmc, every_general_counter_by_index_minus_one)
{
	struct upmc_set *set;
	unsigned c;

	NEEDS_EMULATION();
	set = open_sim("cycles");
	ASSERT(set);
	for (c = 0; c < SIM_COUNTERS; c++) {
		uint64_t v = 0;
		sim_move(0, c);
		sim.bank[c] = 7 + c;
		sim.event[0].page.offset = 100;
		ASSERT(upmc_read_counter(set, 0, &v) == 0);
		EXPECT_MSG(v == 107 + c, "general counter %u read %llu", c, (unsigned long long)v);
	}
	EXPECT_EQ(bad_ecx, 0);
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
	uninstall();
}

TEST(rdpmc, fixed_counters_by_bit_30)
{
	struct upmc_set *set;
	unsigned long before;
	uint64_t v[2];
	unsigned k;

	NEEDS_EMULATION();
	set = open_sim("instructions,cycles");
	ASSERT(set);
	for (k = 0; k < FIXED_COUNTERS; k++) {
		put_on_fixed(0, k, 1000 * (k + 1), 5);
		sim.bank[sim.event[1].counter] = 77;
		sim.event[1].page.offset = 0;
		before = emulated;
		ASSERT(upmc_read_n(set, v, 2) == 2);
		EXPECT_EQ(emulated, before + 2); /* one rdpmc per counter, inline */
		EXPECT_MSG(v[0] == 1000 * (k + 1) + 5, "fixed counter %u read %llu", k,
		           (unsigned long long)v[0]);
		EXPECT_EQ_U64(v[1], 77);
	}
	EXPECT_EQ(bad_ecx, 0);
	EXPECT_EQ(sim.slow_reads, 0);
	upmc_close(set);
	uninstall();
}

TEST(rdpmc, sign_extends_and_wraps_at_48_bits)
{
	struct upmc_set *set;
	uint64_t before, after, v;

	NEEDS_EMULATION();
	set = open_sim("cycles");
	ASSERT(set);
	sim.event[0].page.offset = 1000;
	sim.bank[sim.event[0].counter] = WIDTH_MASK; /* -1 in 48 bits */
	ASSERT(upmc_read_counter(set, 0, &v) == 0);
	EXPECT_EQ_U64(v, 999);
	sim.bank[sim.event[0].counter] = 1ull << 47; /* the most negative */
	sim.event[0].page.offset = (int64_t)(1ull << 47);
	ASSERT(upmc_read_n(set, &v, 1) == 1);
	EXPECT_EQ_U64(v, 0);
	sim_reprogram(0, 5); /* -5: ten ticks wrap it to 5 */
	ASSERT(upmc_read_counter(set, 0, &before) == 0);
	sim_tick(0, 10);
	ASSERT(upmc_read_counter(set, 0, &after) == 0);
	EXPECT_EQ_U64(after - before, 10);
	EXPECT_EQ_U64(sim.bank[sim.event[0].counter], 5);
	upmc_close(set);
	uninstall();
}

/* The simulated kernel's writer interrupts the reader every 100 us; every
 * rdpmc is a real fault. No value may be torn or go backwards. */
TEST(rdpmc, against_the_kernel_writer)
{
	struct upmc_set *set;
	uint64_t v[4], prev[4] = {0};
	unsigned long k, bad = 0, reads = 0;
	unsigned i;

	NEEDS_EMULATION();
	set = open_sim("cycles,instructions,branches,branch-misses");
	ASSERT(set);
	ASSERT(sim_writer_start(4, 0x2545f4914f6cdd1dull, 100000) == 0);
	for (k = 0; k < 200000 && (k < 20000 || sim_writer.handled < 500); k++) {
		if (upmc_read_n(set, v, 4) != 4) {
			bad++;
			continue;
		}
		reads++;
		for (i = 0; i < 4; i++) {
			if (v[i] < prev[i] || v[i] > sim.event[i].truth)
				bad++;
			prev[i] = v[i];
		}
	}
	sim_writer_stop();
	printf("rdpmc: %lu inline reads of 4 counters, %lu emulated rdpmc, %u through read(2), "
	       "%lu interrupts, %lu kernel updates: %lu torn or backwards\n",
	       reads, emulated, sim.slow_reads, sim_writer.handled, sim_writer.updates, bad);
	EXPECT(reads >= 20000);
	EXPECT(sim_writer.handled >= 500);
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(bad_ecx, 0);
	upmc_close(set);
	uninstall();
}

#else

TEST(rdpmc, x86_only)
{
	SKIP("rdpmc is an x86 instruction; this is %s", UPMC_ARCH_NAME);
}

#endif
