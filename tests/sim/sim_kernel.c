/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

#include "tests/sim/sim_kernel.h"
#include "lib/core/os.h"

struct sim_machine sim;

/* Stores the interrupted reader may see: one plain store each, in program
 * order (the kernel's WRITE_ONCE and barrier()). */
#define PUT(field, value)  __atomic_store_n(&(field), (value), __ATOMIC_RELAXED)
#define COMPILER_BARRIER() __atomic_signal_fence(__ATOMIC_SEQ_CST)

static uint64_t mask(void)
{
	return sim.width == 64 ? ~0ull : (1ull << sim.width) - 1;
}

int64_t sim_sign_extend(uint64_t raw, unsigned width)
{
	uint64_t sign = 1ull << (width - 1);

	raw &= width == 64 ? ~0ull : (1ull << width) - 1;
	return (raw & sign) ? (int64_t)(raw - sign) - (int64_t)(sign - 1) - 1 : (int64_t)raw;
}

uint64_t sim_read_counter(uint32_t page_index)
{
	volatile uint64_t *counter;

	if (sim.before_read)
		sim.before_read(sim.counter_reads);
	sim.counter_reads++;
	counter = &sim.bank[(page_index - 1) % SIM_COUNTERS];
	if (sim.read_cost) /* never a store otherwise: the kernel may interrupt */
		*counter += sim.read_cost;
	return *counter;
}

void sim_reset(unsigned width)
{
	memset((void *)sim.bank, 0, sizeof(sim.bank));
	memset(sim.event, 0, sizeof(sim.event));
	sim.width = width;
	sim.n = 0;
	sim.slow_reads = 0;
	sim.read_cost = 0;
	sim.cycle_counter_at = 0;
	sim.first_counter = 0;
}

uint64_t sim_count(unsigned i)
{
	struct sim_event *e = &sim.event[i];

	if (!e->running)
		return e->stopped;
	return (uint64_t)e->page.offset +
	       (uint64_t)sim_sign_extend(sim.bank[e->counter], sim.width);
}

void sim_tick(unsigned i, uint64_t step)
{
	struct sim_event *e = &sim.event[i];

	if (!e->running)
		return;
	e->truth += step;
	sim.bank[e->counter] = (sim.bank[e->counter] + step) & mask();
}

static void begin_update(struct sim_event *e)
{
	PUT(e->page.lock, e->page.lock + 1);
	COMPILER_BARRIER();
}

static void end_update(struct sim_event *e)
{
	COMPILER_BARRIER();
	PUT(e->page.lock, e->page.lock + 1);
}

/* Puts event i on counter c holding -period, keeping its count. */
static void place(struct sim_event *e, uint64_t count, unsigned c, uint64_t period)
{
	sim.bank[c] = (0 - period) & mask();
	PUT(e->page.offset, (int64_t)(count - (uint64_t)sim_sign_extend(sim.bank[c], sim.width)));
	PUT(e->page.index, c + 1);
	e->counter = c;
	e->running = 1;
}

void sim_reprogram(unsigned i, uint64_t period)
{
	struct sim_event *e = &sim.event[i];

	begin_update(e);
	if (e->running)
		place(e, sim_count(i), e->counter, period);
	end_update(e);
}

void sim_move(unsigned i, unsigned counter)
{
	struct sim_event *e = &sim.event[i];

	begin_update(e);
	if (e->running)
		place(e, sim_count(i), counter, 1000 + counter);
	end_update(e);
}

void sim_stop(unsigned i)
{
	struct sim_event *e = &sim.event[i];

	begin_update(e);
	if (e->running) {
		e->stopped = sim_count(i);
		e->running = 0;
		PUT(e->page.index, 0);
	}
	end_update(e);
}

void sim_start(unsigned i, unsigned counter)
{
	struct sim_event *e = &sim.event[i];

	begin_update(e);
	if (!e->running)
		place(e, e->stopped, counter, 5000);
	end_update(e);
}

/* ---- the OS layer (lib/core/os.h) over the simulated machine ---- */

/* Where open puts event i: see sim.cycle_counter_at. */
static unsigned counter_at_open(unsigned i)
{
	const unsigned cycles = sim.cycle_counter_at;

	if (cycles == i + 1)
		return SIM_COUNTERS - 1;
	return sim.first_counter + i - (cycles && i + 1 > cycles);
}

int upmc_os_open(struct upmc_set *set, unsigned flags)
{
	unsigned i, user = 0;

	if (set->n > SIM_COUNTERS)
		return upmc_fail(-EINVAL, "the simulated PMU has %d counters", SIM_COUNTERS);
	sim.n = set->n;
	for (i = 0; i < set->n; i++) {
		struct upmc_counter *c = &set->state->counter[i];
		struct sim_event *e = &sim.event[i];

		memset(e, 0, sizeof(*e));
		e->software = c->event.type == UPMC_TYPE_SOFTWARE;
		e->page.pmc_width = (uint16_t)sim.width;
		e->page.capabilities = UPMC_CAP_USER_RDPMC | UPMC_CAP_BIT0_IS_DEPRECATED;
		set->page[i] = &e->page;
		if (e->software || (flags & UPMC_OPT_FORCE_SYSCALL)) {
			e->page.capabilities = 0;
			c->path = UPMC_PATH_SYSCALL;
			upmc_format(c->reason, sizeof(c->reason), "simulated syscall path");
			continue;
		}
		place(e, 0, counter_at_open(i), 100000);
		c->path = UPMC_PATH_USER;
		user++;
	}
	set->user_n = user == set->n ? set->n : 0;
	return 0;
}

void upmc_os_close(struct upmc_set *set)
{
	set->user_n = 0;
	sim.n = 0;
}

/* The simulated kernel's state is the process's memory: nothing is the
 * parent's alone. */
void upmc_os_abandon(struct upmc_set *set)
{
	(void)set;
}

int upmc_os_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	unsigned i;

	syscall(SYS_getppid); /* a real kernel entry, as read(2) is: seccomp sees it */
	if (sim.read_fails) {
		int err = upmc_fail(-EBUSY, "simulated: the pinned group is in an error state");

		return upmc_failed_read(set, values, err); /* every value: lib/core/os.h */
	}
	sim.in_syscall = 1;
	COMPILER_BARRIER();
	sim.slow_reads++;
	for (i = 0; i < set->n; i++)
		values[i] = sim_count(i);
	COMPILER_BARRIER();
	sim.in_syscall = 0;
	if (enabled)
		*enabled = 0;
	if (running)
		*running = 0;
	return (int)set->n;
}

int upmc_os_kernel_clock(struct upmc_set *set, struct upmc_clock *clock)
{
	(void)set;
	(void)clock;
	return -ENOTSUP;
}

uint64_t upmc_os_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
