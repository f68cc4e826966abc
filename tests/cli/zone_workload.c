/* SPDX-License-Identifier: MIT */
/*
 * A program with zones and no profile of its own, for `upmc stat --zones`:
 *
 *   zone_workload zones    main: 10 "outer", each with 3 "inner" that
 *                          touch 16 fresh pages; two threads: 5 "work" each
 *   zone_workload none     the library linked, no zone run
 *   zone_workload ids      prints "uid euid" and runs the zones
 */
#define _GNU_SOURCE
#include <pthread.h>
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

static void *worker(void *arg)
{
	int i;

	(void)arg;
	upmc_thread_name("worker");
	for (i = 0; i < 5; i++) {
		UPMC_ZONE("work");
		touch(4);
	}
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "none"))
		return 0;
	if (argc == 2 && !strcmp(argv[1], "ids"))
		printf("%u %u\n", (unsigned)getuid(), (unsigned)geteuid());
	zones();
	return 3; /* an exit status of its own, which stat passes on */
}
