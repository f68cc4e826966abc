/* SPDX-License-Identifier: MIT */
/*
 * A program with zones, for `upmc stat --zones`:
 *
 *   zone_workload zones    main: 10 "outer", each with 3 "inner" that
 *                          touch 16 fresh pages; two threads: 5 "work" each
 *   zone_workload none     the library linked, no zone run
 *   zone_workload ids      prints "uid euid" and runs the zones
 *   zone_workload own      a thread runs 5 "work", main 10 "before"; then
 *                          main opens its own profile (task-clock; a failed
 *                          open exits 4), and the thread runs 5 "work
 *                          after", main 20 "after"; main prints its own
 *                          profile's table and exits 3
 *   zone_workload own-busy a thread runs "spin" zones flat out; main opens
 *                          its own profile (task-clock; a failed open exits
 *                          4) once it ran 1000, stops it 1000 after; prints
 *                          "spins B A T" (the thread's zones begun before
 *                          the open, after it, in all), its own table, and
 *                          exits 3
 *   zone_workload paced    main: 20 "tick", each 4 ms of sleep and 4 pages
 *                          (-I's intervals see a few each)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <upmc/zone.h>

#define PAGE 4096

static void touch(unsigned pages)
{
	char *p = mmap(NULL, (size_t)pages * PAGE, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned i;

	if (p == MAP_FAILED)
		return;
	for (i = 0; i < pages; i++)
		p[(size_t)i * PAGE] = 1;
	munmap(p, (size_t)pages * PAGE);
}

/* A worker's 5 "work" zones. */
static void work(void)
{
	int i;

	upmc_thread_name("worker");
	for (i = 0; i < 5; i++) {
		UPMC_ZONE("work");
		touch(4);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	work();
	return NULL;
}

static void zones(void)
{
	pthread_t t[2];
	int i, k;

	for (k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, NULL);
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	for (i = 0; i < 10; i++) {
		UPMC_ZONE("outer");
		for (k = 0; k < 3; k++) {
			UPMC_ZONE("inner");
			touch(16);
		}
	}
}

static pthread_barrier_t before_done, own_open;

static void *worker_across_the_open(void *arg)
{
	int i;

	(void)arg;
	work();
	pthread_barrier_wait(&before_done);
	pthread_barrier_wait(&own_open);
	for (i = 0; i < 5; i++) {
		UPMC_ZONE("work after");
		touch(4);
	}
	return NULL;
}

/* Zones before and after the program opens its own profile, on two threads. */
static int own(void)
{
	struct upmc_profile *p;
	pthread_t t;
	int i, err;

	pthread_barrier_init(&before_done, NULL, 2);
	pthread_barrier_init(&own_open, NULL, 2);
	pthread_create(&t, NULL, worker_across_the_open, NULL);
	for (i = 0; i < 10; i++) {
		UPMC_ZONE("before");
		touch(4);
	}
	pthread_barrier_wait(&before_done);
	err = upmc_profile_open(&p, "task-clock", NULL);
	pthread_barrier_wait(&own_open);
	if (err < 0) {
		fprintf(stderr, "zone_workload: upmc_profile_open: %s\n", upmc_last_error());
		pthread_join(t, NULL);
		return 4;
	}
	for (i = 0; i < 20; i++) {
		UPMC_ZONE("after");
		touch(4);
	}
	pthread_join(t, NULL);
	err = upmc_profile_write(p, UPMC_FORMAT_TABLE, stdout);
	upmc_profile_close(p);
	return err < 0 ? 5 : 3;
}

static int stop_spinning;
static unsigned long long spins; /* the spinner's zones begun: its store, main's loads */

static void *spinner(void *arg)
{
	unsigned long long n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop_spinning, __ATOMIC_ACQUIRE)) {
		UPMC_ZONE("spin");
		__atomic_store_n(&spins, ++n, __ATOMIC_RELEASE);
	}
	return NULL;
}

static unsigned long long wait_for_spins(unsigned long long n)
{
	unsigned long long now;

	while ((now = __atomic_load_n(&spins, __ATOMIC_ACQUIRE)) < n)
		sched_yield();
	return now;
}

/* The program's open while another thread is inside zone calls: it opens
 * once the thread ran 1000 zones, and stops it 1000 zones after. */
static int own_busy(void)
{
	unsigned long long before, after;
	struct upmc_profile *p;
	pthread_t t;
	int err;

	pthread_create(&t, NULL, spinner, NULL);
	before = wait_for_spins(1000);
	err = upmc_profile_open(&p, "task-clock", NULL);
	after = __atomic_load_n(&spins, __ATOMIC_ACQUIRE);
	wait_for_spins(after + 1000);
	__atomic_store_n(&stop_spinning, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	if (err < 0) {
		fprintf(stderr, "zone_workload: upmc_profile_open: %s\n", upmc_last_error());
		return 4;
	}
	printf("spins %llu %llu %llu\n", before, after, spins);
	err = upmc_profile_write(p, UPMC_FORMAT_TABLE, stdout);
	upmc_profile_close(p);
	return err < 0 ? 5 : 3;
}

static void paced(void)
{
	int i;

	for (i = 0; i < 20; i++) {
		UPMC_ZONE("tick");
		usleep(4000);
		touch(4);
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "paced")) {
		paced();
		return 3;
	}
	if (argc == 2 && !strcmp(argv[1], "own"))
		return own();
	if (argc == 2 && !strcmp(argv[1], "own-busy"))
		return own_busy();
	if (argc == 2 && !strcmp(argv[1], "none"))
		return 0;
	if (argc == 2 && !strcmp(argv[1], "ids"))
		printf("%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	zones();
	return 3; /* an exit status of its own, which stat passes on */
}
