/* SPDX-License-Identifier: MIT */
/*
 * A small game loop measured with zones: each frame runs input, physics,
 * animation and render on the main thread, with jobs on two worker
 * threads, nested zones and a frame mark. It writes
 *
 *   DIR/trace.json             Chrome trace JSON: Perfetto UI, chrome://tracing, Tracy's importer
 *   DIR/trace.pftrace          Perfetto protobuf: Perfetto UI, trace_processor
 *   DIR/trace.speedscope.json  speedscope: a timeline per thread, a flame graph per counter
 *
 * and prints the aggregate table. It counts what the machine allows: the
 * hardware events below, or time only (UPMC_OPT_TIME_ONLY), saying why.
 *
 *   bazel run //examples:frame_zones -- DIR [SPEC]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <upmc/zone.h>

#define DEFAULT_SPEC "cycles,instructions,L1-dcache-load-misses,branch-misses"
#define FRAMES       60
#define PARTICLES    200000
#define BONES        64
#define TARGET_BYTES (4u << 20) /* what render streams over: more than most L2 caches */

struct particle {
	float x, y, z, vx, vy, vz;
};

static struct particle particles[PARTICLES];
static float bones[BONES][16], poses[BONES][16];
static unsigned char *target;
static volatile float sink;

/* ---- the work, each piece a zone ---- */

static void input(unsigned frame)
{
	UPMC_ZONE_FUNCTION();
	unsigned i, pressed = 0;

	for (i = 0; i < 2000; i++)
		pressed += ((i * 2654435761u + frame) >> 13) % 3 == 0;
	sink = (float)pressed;
}

/* A worker's share of the particles: integrate, then bounce off the floor. */
static void integrate(unsigned part, unsigned parts)
{
	UPMC_ZONE("integrate");
	unsigned i;

	for (i = part; i < PARTICLES; i += parts) {
		struct particle *p = &particles[i];
		p->vy -= 9.81f / 60;
		p->x += p->vx / 60;
		p->y += p->vy / 60;
		p->z += p->vz / 60;
		if (p->y < 0) { /* data-dependent: some branch misses */
			p->y = -p->y;
			p->vy = -p->vy * 0.8f;
		}
	}
}

static void skin(unsigned part, unsigned parts)
{
	UPMC_ZONE("skin");
	unsigned b, r, c, k;

	for (b = part; b < BONES; b += parts)
		for (r = 0; r < 4; r++)
			for (c = 0; c < 4; c++) {
				float s = 0;
				for (k = 0; k < 4; k++)
					s += bones[b][r * 4 + k] * poses[b][k * 4 + c];
				poses[b][r * 4 + c] = s * 0.5f + 0.5f;
			}
}

/* Pairs of nearby particles in one slice of the world. */
static void collide(void)
{
	UPMC_ZONE_FUNCTION();
	unsigned i, hits = 0;

	for (i = 1; i < PARTICLES; i++)
		hits += fabsf(particles[i].x - particles[i - 1].x) < 0.01f;
	sink = (float)hits;
}

static void cull(unsigned frame)
{
	UPMC_ZONE_FUNCTION();
	unsigned i, visible = 0;

	for (i = 0; i < PARTICLES; i++)
		visible += particles[i].z > (float)(frame % 7) - 3;
	sink = (float)visible;
}

/* Streams over the render target a cache line at a time. */
static void draw(unsigned frame)
{
	UPMC_ZONE_FUNCTION();
	size_t i;

	for (i = frame % 64; i < TARGET_BYTES; i += 64)
		target[i] = (unsigned char)(target[i] + 1);
}

/* ---- threads ---- */

static pthread_barrier_t start_jobs, jobs_done;
static volatile int quitting;

struct worker {
	pthread_t thread;
	unsigned part;
	char name[16];
};

static void *work(void *arg)
{
	struct worker *w = arg;

	upmc_profile_thread(w->name); /* its own counters, and its name in the traces */
	for (;;) {
		pthread_barrier_wait(&start_jobs);
		if (quitting)
			break;
		UPMC_ZONE_BEGIN("job");
		integrate(w->part, 3);
		skin(w->part, 3);
		UPMC_ZONE_END();
		pthread_barrier_wait(&jobs_done);
	}
	return NULL;
}

static void frame(unsigned n)
{
	UPMC_ZONE("frame");

	input(n);
	{
		UPMC_ZONE("physics");
		UPMC_ZONE_BEGIN("start jobs"); /* the workers take parts 1 and 2 */
		pthread_barrier_wait(&start_jobs);
		UPMC_ZONE_END();
		integrate(0, 3);
		collide();
		UPMC_ZONE_BEGIN("wait for jobs");
		pthread_barrier_wait(&jobs_done);
		UPMC_ZONE_END();
	}
	{
		UPMC_ZONE("animation");
		skin(0, 3);
	}
	{
		UPMC_ZONE("render");
		cull(n);
		draw(n);
	}
}

/* ---- setup and output ---- */

static struct upmc_profile *open_profile(const char *spec)
{
	struct upmc_profile_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY, 0, 0, 0};
	struct upmc_profile *p;

	if (upmc_profile_open(&p, spec, NULL) == 0) {
		printf("counting %s on every thread\n", spec);
		return p;
	}
	printf("%s cannot be counted here: %s\n", spec, upmc_last_error());
	if (upmc_profile_open(&p, spec, &opts) < 0) {
		fprintf(stderr, "frame_zones: %s\n", upmc_last_error());
		return NULL;
	}
	printf("falling back to time only (UPMC_OPT_TIME_ONLY): zones have their times, and "
	       "their counters read \"not counted\"\n");
	return p;
}

/* DIR as the user meant it: `bazel run` starts us in the runfiles. */
static void output_dir(const char *arg, char *dir, size_t size)
{
	const char *cwd = getenv("BUILD_WORKING_DIRECTORY");

	if (arg[0] != '/' && cwd)
		snprintf(dir, size, "%s/%s", cwd, arg);
	else
		snprintf(dir, size, "%s", arg);
}

static int save(struct upmc_profile *p, enum upmc_format format, const char *dir, const char *file,
                const char *how)
{
	char path[4096 + 32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (upmc_profile_save(p, format, path) < 0) {
		fprintf(stderr, "frame_zones: %s\n", upmc_last_error());
		return -1;
	}
	printf("wrote %s  (%s)\n", path, how);
	return 0;
}

static void init_world(void)
{
	unsigned i;

	for (i = 0; i < PARTICLES; i++) {
		particles[i].x = (float)(i % 100);
		particles[i].y = (float)(i % 37);
		particles[i].vx = (float)(i % 7) - 3;
		particles[i].vz = (float)(i % 11) - 5;
	}
	memset(target, 1, TARGET_BYTES); /* its pages faulted in before the first frame */
	for (i = 0; i < BONES * 16; i++)
		bones[i / 16][i % 16] = poses[i / 16][i % 16] = (float)(i % 5) * 0.25f;
}

int main(int argc, char **argv)
{
	struct worker workers[2];
	struct upmc_profile *p;
	char dir[4096];
	unsigned n, k;
	int err = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bazel run //examples:frame_zones -- DIR [SPEC]\n");
		return 2;
	}
	output_dir(argv[1], dir, sizeof(dir));
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "frame_zones: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	target = calloc(1, TARGET_BYTES);
	p = open_profile(argc == 3 ? argv[2] : DEFAULT_SPEC);
	if (!target || !p)
		return 1;
	init_world();
	upmc_profile_thread("main");
	pthread_barrier_init(&start_jobs, NULL, 3);
	pthread_barrier_init(&jobs_done, NULL, 3);
	for (k = 0; k < 2; k++) {
		workers[k].part = k + 1;
		snprintf(workers[k].name, sizeof(workers[k].name), "worker %u", k + 1);
		pthread_create(&workers[k].thread, NULL, work, &workers[k]);
	}
	for (n = 0; n < FRAMES; n++) {
		frame(n);
		upmc_frame_mark();
		if (n % 16 == 15)
			upmc_profile_collect(p); /* keeps the buffers small; any thread may */
	}
	quitting = 1;
	pthread_barrier_wait(&start_jobs);
	for (k = 0; k < 2; k++)
		pthread_join(workers[k].thread, NULL);

	err |= save(p, UPMC_FORMAT_CHROME, dir, "trace.json",
	            "Chrome trace JSON: ui.perfetto.dev, chrome://tracing, Tracy's import-chrome");
	err |= save(p, UPMC_FORMAT_PERFETTO, dir, "trace.pftrace", "Perfetto: ui.perfetto.dev");
	err |= save(p, UPMC_FORMAT_SPEEDSCOPE, dir, "trace.speedscope.json",
	            "speedscope: www.speedscope.app, or `npx speedscope FILE`");
	printf("\n");
	upmc_profile_print(p, stdout);
	upmc_profile_close(p);
	free(target);
	return err ? 1 : 0;
}
