/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/sim/sim_writer.h"

struct sim_writer sim_writer;
static timer_t timer;

static uint64_t next_random(void)
{
	sim_writer.rng ^= sim_writer.rng << 13;
	sim_writer.rng ^= sim_writer.rng >> 7;
	sim_writer.rng ^= sim_writer.rng << 17;
	return sim_writer.rng;
}

static int counter_free(unsigned c)
{
	unsigned i;

	for (i = 0; i < sim_writer.n; i++)
		if (sim.event[i].running && sim.event[i].counter == c)
			return 0;
	return 1;
}

static void kernel_update(void)
{
	unsigned i = (unsigned)(next_random() % sim_writer.n);
	unsigned c = (unsigned)(next_random() % SIM_COUNTERS);
	unsigned op = (unsigned)(next_random() % 8);

	if (op < 4)
		sim_reprogram(i, 1 + next_random() % 1000000);
	else if (op < 7 && counter_free(c))
		sim_move(i, c);
	else if (op == 7)
		sim_stop(i);
	sim_writer.updates++;
}

/* One step of hardware and kernel: every counter ticks; the overflow
 * interrupt folds a count before its counter reaches the sign bit; now and
 * then the kernel moves, reprograms, stops or restarts an event. */
static void kernel_step(void)
{
	const int64_t overflow_at = (int64_t)1 << (sim.width - 2);
	unsigned i, c;

	for (i = 0; i < sim_writer.n; i++) {
		struct sim_event *e = &sim.event[i];
		sim_tick(i, 1 + next_random() % 1000);
		if (e->running && sim_sign_extend(sim.bank[e->counter], sim.width) > overflow_at)
			sim_reprogram(i, 1 + next_random() % 1000000);
		c = (unsigned)(next_random() % SIM_COUNTERS);
		if (!e->running && next_random() % 2 && counter_free(c))
			sim_start(i, c);
	}
	if (next_random() % 4 == 0)
		kernel_update();
}

static void on_interrupt(int sig)
{
	(void)sig;
	if (sim.in_syscall)
		sim_writer.deferred++; /* read(2) is atomic to the kernel's updates */
	else
		kernel_step();
	__atomic_store_n(&sim_writer.handled, sim_writer.handled + 1, __ATOMIC_RELEASE);
}

/* A timer interrupt on the reader's own CPU every 20 microseconds, turned
 * into a signal on the reader's thread: it lands between any two of the
 * reader's instructions, as the kernel's updates do. */
static int start_interrupts(long interval_ns)
{
	struct sigevent sev;
	struct itimerspec its;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = gettid();
	memset(&its, 0, sizeof(its));
	its.it_value.tv_nsec = interval_ns;
	its.it_interval.tv_nsec = interval_ns;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
		return -1;
	return timer_settime(timer, 0, &its, NULL);
}

int sim_writer_start(unsigned n, uint64_t seed, long interval_ns)
{
	struct sigaction sa;

	memset(&sim_writer, 0, sizeof(sim_writer));
	sim_writer.n = n;
	sim_writer.rng = seed;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL))
		return -1;
	return start_interrupts(interval_ns);
}

void sim_writer_stop(void)
{
	timer_delete(timer);
	signal(SIGUSR1, SIG_IGN);
}
