/* SPDX-License-Identifier: MIT */
/*
 * x86 hybrid, item "preempted between the index load and rdpmc": a reader
 * that loaded a P-core page's index, then was switched out (x86_pmu_del()
 * sets the index to 0 and bumps the lock) and resumed on an E-core, would
 * execute rdpmc with a counter number the E-core lacks (general counters
 * 6-7, fixed counter 3): #GP, SIGSEGV. The lock re-check comes after the
 * instruction, too late. So upmc never executes rdpmc (or mrs) for a hybrid
 * set: the inline reader gets only pages whose index is 0, and the
 * out-of-line reader uses read(2). The fake kernel counts every counter
 * read and every one that would fault.
 */
#include <errno.h>
#include <string.h>

#include "tests/fake/fake_kernel.h" /* first: the counter read seam */
#include "lib/core/internal.h"
#include "tests/upmc_test.h"

static unsigned atom;
static int armed;

/* The preemption: right before the reader's first counter read. */
static void migrate_to_atom(unsigned nth)
{
	(void)nth;
	if (armed)
		fake_run_on(atom);
	armed = 0;
}

TEST(hybrid_rdpmc, no_counter_read_on_a_hybrid_cpu)
{
	struct upmc_set *set;
	uint64_t v[3], one;
	unsigned i, round;

	fake_boot("intel-hybrid");
	atom = fake_pmu_named("cpu_atom");
	fake_run_on(fake_pmu_named("cpu_core"));
	/* slots is fixed counter 3, which only the P-core has */
	ASSERT_MSG(upmc_open(&set, "cpu_core/slots/,cycles,instructions", NULL) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(set->user_n, 0);
	for (i = 0; i < set->n; i++) {
		EXPECT_EQ(set->page[i]->index, 0);
		EXPECT(set->state->user_page[i] == NULL);
		EXPECT_EQ(upmc_counter_path(set, i), UPMC_PATH_SYSCALL);
	}
	EXPECT_CONTAINS(upmc_counter_reason(set, 0), "hybrid CPU");
	fake.before_counter_read = migrate_to_atom;
	for (round = 0; round < 3; round++) {
		armed = 1;
		EXPECT(round != 0 || upmc_read(set, v) == 3);
		EXPECT(round != 1 || upmc_read_n(set, v, 3) == 3);
		EXPECT(round != 2 || upmc_read_counter(set, 0, &one) == 0);
		fake_run_on(fake_pmu_named("cpu_core"));
	}
	EXPECT_EQ(fake.counter_reads, 0);
	EXPECT_EQ(fake.faults, 0);
	fake.before_counter_read = NULL;
	upmc_close(set);
}

/* The same reads on one core type are made in user space: the fake's
 * fault count is not blind. */
TEST(hybrid_rdpmc, the_fake_sees_a_stale_index)
{
	struct upmc_set *set;
	uint64_t v[2];

	fake_boot("x86-intel");
	ASSERT_MSG(upmc_open(&set, "cycles,cpu/slots/", NULL) == 0, "%s", upmc_last_error());
	fake.pmu[0].fixed = 3; /* now the CPU "is" one without fixed counter 3 */
	EXPECT(upmc_read(set, v) == 2);
	EXPECT(fake.counter_reads > 0);
	EXPECT(fake.faults > 0);
	fake.pmu[0].fixed = 4;
	upmc_close(set);
}
