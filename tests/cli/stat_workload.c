/* SPDX-License-Identifier: MIT */
/*
 * A workload whose counts are known: `upmc stat`'s tests count it, and perf
 * stat beside it.
 *
 *   stat_workload [-t THREADS] [-c CHILDREN] [-w early|late] [-p CPU]
 *                 [-m MOVES] [-s ROUNDS] PAGES
 *
 * The main thread touches PAGES fresh pages (one page fault each: huge pages
 * are turned off for them), thread i (0-based) PAGES x (i + 1), every child
 * process PAGES; then it waits for them all and exits 0. With -w it first
 * prints "ready PID TID..." (the threads' ids with "early", whose threads
 * start before the wait; with "late" they start after it) and waits for
 * SIGUSR1. -p pins it to a CPU first.
 *
 * -m and -s make the scheduler's counts known too: -m moves the main thread
 * between CPUs 0 and 1 MOVES times (a CPU migration each), then leaves it
 * pinned to one CPU, as are the threads and children it starts after;
 * -s ROUNDS passes a byte to a child and back ROUNDS times on that one CPU:
 * each side blocks (a context switch) once a round.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 64

static long pages;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ready_threads, go;
static pid_t tids[MAX_THREADS];

static void touch(long n)
{
	long size = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (n == 0)
		return;
	p = mmap(NULL, (size_t)(n * size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	         0);
	if (p == MAP_FAILED) {
		perror("stat_workload: mmap");
		exit(1);
	}
	madvise(p, (size_t)(n * size), MADV_NOHUGEPAGE); /* one fault per page */
	for (i = 0; i < n; i++)
		p[i * size] = 1;
	munmap(p, (size_t)(n * size));
}

static void *thread(void *arg)
{
	long i = (long)arg;

	pthread_mutex_lock(&lock);
	tids[i] = gettid();
	ready_threads++;
	pthread_cond_broadcast(&changed);
	while (!go)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
	touch(pages * (i + 1));
	return NULL;
}

static void start_threads(pthread_t *t, long n)
{
	long i;

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread, (void *)i)) {
			fprintf(stderr, "stat_workload: pthread_create failed\n");
			exit(1);
		}
	pthread_mutex_lock(&lock);
	while (ready_threads < n)
		pthread_cond_wait(&changed, &lock);
	pthread_mutex_unlock(&lock);
}

static void release_threads(void)
{
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&changed);
	pthread_mutex_unlock(&lock);
}

/* "ready PID TID...", then SIGUSR1 (blocked in every thread since main). */
static void wait_for_go(long n_threads, const sigset_t *usr1)
{
	int sig;
	long i;

	printf("ready %d", (int)getpid());
	for (i = 0; i < n_threads; i++)
		printf(" %d", (int)tids[i]);
	printf("\n");
	fflush(stdout);
	sigwait(usr1, &sig);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("stat_workload: sched_setaffinity");
		exit(1);
	}
}

/* MOVES migrations: CPU 0, 1, 0, ... The last CPU stays the only one. */
static void move(long moves)
{
	long i;

	for (i = 0; i < moves; i++)
		pin((int)(i % 2));
}

static void byte(int fd, int out)
{
	char c = 0;

	if ((out ? write(fd, &c, 1) : read(fd, &c, 1)) != 1) {
		perror("stat_workload: ping-pong");
		exit(1);
	}
}

/* A byte to a child and back, `rounds` times: on one CPU, each side blocks
 * (a context switch) once a round. */
static void ping_pong(long rounds)
{
	int there[2], back[2];
	long i;
	pid_t pid;

	if (!rounds)
		return;
	if (pipe(there) || pipe(back) || (pid = fork()) < 0) {
		perror("stat_workload: ping-pong");
		exit(1);
	}
	for (i = 0; i < rounds; i++) {
		byte(pid ? there[1] : there[0], pid != 0);
		byte(pid ? back[0] : back[1], pid == 0);
	}
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	close(there[0]);
	close(there[1]);
	close(back[0]);
	close(back[1]);
}

static void usage(void)
{
	fprintf(stderr, "usage: stat_workload [-t THREADS] [-c CHILDREN] [-w early|late] "
	                "[-p CPU] [-m MOVES] [-s ROUNDS] PAGES\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];
	long n_threads = 0, children = 0, moves = 0, rounds = 0, i;
	const char *hold = NULL;
	sigset_t usr1;
	int opt;

	while ((opt = getopt(argc, argv, "t:c:w:p:m:s:")) != -1) {
		if (opt == 't')
			n_threads = atol(optarg);
		else if (opt == 'c')
			children = atol(optarg);
		else if (opt == 'w')
			hold = optarg;
		else if (opt == 'p')
			pin(atoi(optarg));
		else if (opt == 'm')
			moves = atol(optarg);
		else if (opt == 's')
			rounds = atol(optarg);
		else
			usage();
	}
	if (optind + 1 != argc || n_threads < 0 || n_threads > MAX_THREADS || children < 0 ||
	    (hold && strcmp(hold, "early") && strcmp(hold, "late")))
		usage();
	pages = atol(argv[optind]);
	move(moves);
	ping_pong(rounds);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (!hold || !strcmp(hold, "early"))
		start_threads(t, n_threads);
	if (hold)
		wait_for_go(!strcmp(hold, "early") ? n_threads : 0, &usr1);
	if (hold && !strcmp(hold, "late"))
		start_threads(t, n_threads);
	release_threads();
	touch(pages);
	for (i = 0; i < n_threads; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < children; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			touch(pages);
			_exit(0);
		}
		if (pid < 0) {
			perror("stat_workload: fork");
			return 1;
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
