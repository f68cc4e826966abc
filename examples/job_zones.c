/* SPDX-License-Identifier: MIT */
/*
 * A job system's life, streamed: short-lived threads, a few at a time, each
 * running a job whose zone is named at run time ("request 12345"), for at
 * least SECONDS and until THREADS threads and NAMES distinct names were
 * made; the zones stream to DIR/jobs.pftrace. Prints what it made and what
 * the profile kept; exits 1 when the stream fails.
 *
 *   bazel run //examples:job_zones -- DIR [SECONDS [THREADS [NAMES]]]
 *
 * tools/job-soak.sh runs it and checks the process's peak memory against
 * docs/zones.md's bound.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <upmc/zone.h>

#define AT_ONCE   4          /* threads alive at a time */
#define BUFFER    (16 << 10) /* each thread's block: a job records little */
#define MAX_BYTES (4 << 20)  /* every thread's blocks together */
#define FRAME     64         /* threads a frame */

static const struct upmc_zone_loc request_site = {"request", "serve", "job_zones.c", 20};

struct job {
	pthread_t thread;
	unsigned long name; /* the number in its zone's name */
};

static void *serve(void *arg)
{
	struct job *j = arg;
	char name[32];

	snprintf(name, sizeof(name), "worker %lu", j->name % 64);
	upmc_thread_name(name);
	snprintf(name, sizeof(name), "request %lu", j->name);
	UPMC_ZONE("job");
	upmc_zone_begin_name(&request_site, name);
	UPMC_ZONE_VALUE(j->name);
	upmc_zone_end();
	return NULL;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	struct upmc_profile_options o = {sizeof(o), UPMC_OPT_TIME_ONLY, 0, BUFFER, MAX_BYTES};
	double seconds = argc > 2 ? atof(argv[2]) : 10;
	unsigned long threads = argc > 3 ? strtoul(argv[3], NULL, 10) : 100000;
	unsigned long names = argc > 4 ? strtoul(argv[4], NULL, 10) : 100000;
	unsigned long made = 0;
	struct upmc_profile_stats st;
	struct upmc_profile *p;
	struct timespec t0;
	struct job job[AT_ONCE];
	uint64_t bytes, peak;
	char path[4096];
	int err, k;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR [SECONDS [THREADS [NAMES]]]\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/jobs.pftrace", argv[1]);
	if (upmc_profile_open(&p, NULL, &o) < 0 || upmc_profile_stream(p, path, 10) < 0) {
		fprintf(stderr, "job_zones: %s\n", upmc_last_error());
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (made < threads || seconds_since(&t0) < seconds) {
		for (k = 0; k < AT_ONCE; k++) {
			job[k].name = made++ % (names ? names : 1);
			if (pthread_create(&job[k].thread, NULL, serve, &job[k]) != 0) {
				fprintf(stderr, "job_zones: cannot start a thread\n");
				return 1;
			}
		}
		for (k = 0; k < AT_ONCE; k++)
			pthread_join(job[k].thread, NULL);
		/* a frame's end: what the jobs left goes to the file, so that
		 * the threads gone wait for no busy stream thread */
		if (made % FRAME == 0 && upmc_profile_stream_flush(p) < 0) {
			fprintf(stderr, "job_zones: %s\n", upmc_last_error());
			return 1;
		}
	}
	upmc_profile_memory(p, &bytes, &peak);
	err = upmc_profile_stats(p, &st);
	printf("made: %lu threads, %lu distinct names, in %.1f s\n", made,
	       made < names ? made : names, seconds_since(&t0));
	printf("refused: %llu zones (names past %d); dropped %llu\n",
	       err < 0 ? 0ull : (unsigned long long)st.refused, UPMC_ZONE_NAMES_MAX,
	       err < 0 ? 0ull : (unsigned long long)st.dropped);
	printf("buffers: at most %llu bytes, cap %d; %u threads kept\n", (unsigned long long)peak,
	       MAX_BYTES, err < 0 ? 0 : st.threads);
	err = upmc_profile_stream_end(p);
	if (err < 0)
		fprintf(stderr, "job_zones: %s\n", upmc_last_error());
	upmc_profile_close(p);
	return err < 0;
}
