/* SPDX-License-Identifier: MIT */
/*
 * upmc demo: the classic counter experiments, measured with the best
 * counters this machine allows.
 *
 *   1. branch prediction: summing bytes >= 128 of random vs sorted data
 *   2. instruction-level parallelism: chains of adds with IPC 1, 2 and 3
 *   3. the memory hierarchy: pointer chasing in 16 KiB vs 64 MiB
 *
 * Where the machine has no usable PMU it runs on time and software events
 * and says why, and what would enable counters.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upmc/upmc.h>

#define REPEATS 5

struct measurement {
	uint64_t ns;
	uint64_t hw[8];
	uint64_t sw[2]; /* task-clock, page-faults */
};

struct experiment {
	struct upmc_set *hw, *sw, *timer;
};

static uint64_t delta(uint64_t before, uint64_t after)
{
	return before == UPMC_NOT_COUNTED || after == UPMC_NOT_COUNTED ? UPMC_NOT_COUNTED
	                                                               : after - before;
}

/* Runs fn(arg) REPEATS times; keeps the fastest run. */
static void measure(struct experiment *x, void (*fn)(void *), void *arg, struct measurement *best)
{
	uint64_t hw0[8], hw1[8], sw0[2], sw1[2], t0, t1;
	unsigned r, i, n = (unsigned)upmc_count(x->hw);

	best->ns = UINT64_MAX;
	for (r = 0; r < REPEATS; r++) {
		upmc_read(x->sw, sw0);
		t0 = upmc_timestamp_serialized();
		upmc_read(x->hw, hw0);
		fn(arg);
		upmc_read(x->hw, hw1);
		t1 = upmc_timestamp_serialized();
		upmc_read(x->sw, sw1);
		if (upmc_ticks_to_ns(x->timer, t1) - upmc_ticks_to_ns(x->timer, t0) >= best->ns)
			continue;
		best->ns = upmc_ticks_to_ns(x->timer, t1) - upmc_ticks_to_ns(x->timer, t0);
		for (i = 0; i < n; i++)
			best->hw[i] = delta(hw0[i], hw1[i]);
		for (i = 0; i < 2; i++)
			best->sw[i] = delta(sw0[i], sw1[i]);
	}
}

static void print_count(uint64_t v)
{
	if (v == UPMC_NOT_COUNTED)
		printf(" %12s", "n/a");
	else
		printf(" %12llu", (unsigned long long)v);
}

static void print_ratio(uint64_t a, uint64_t b, double scale, const char *unit)
{
	if (a == UPMC_NOT_COUNTED || b == UPMC_NOT_COUNTED || !b)
		printf(" %9s", "n/a");
	else
		printf(" %8.2f%s", scale * (double)a / (double)b, unit);
}

static void print_header(struct experiment *x, const char *ratio)
{
	int i;

	printf("  %-16s %12s", "", "time ns");
	for (i = 0; i < upmc_count(x->hw); i++)
		printf(" %12.12s", upmc_counter_name(x->hw, (unsigned)i));
	printf(" %9s %12s %12s\n", ratio, "task-clock", "page-faults");
}

/* One row: time, every hardware counter, the derived ratio a/b, software. */
static void print_row(struct experiment *x, const char *label, const struct measurement *m,
                      unsigned a, unsigned b, double scale, const char *unit)
{
	int i;

	printf("  %-16s %12llu", label, (unsigned long long)m->ns);
	for (i = 0; i < upmc_count(x->hw); i++)
		print_count(m->hw[i]);
	print_ratio(m->hw[a], m->hw[b], scale, unit);
	print_count(m->sw[0]);
	print_count(m->sw[1]);
	printf("\n");
}

static int open_experiment(struct experiment *x, const char *events)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};

	if (upmc_open(&x->hw, events, &opts) < 0 ||
	    upmc_open(&x->sw, "task-clock,page-faults", &opts) < 0 ||
	    upmc_open_timer(&x->timer) < 0) {
		fprintf(stderr, "demo: %s\n", upmc_last_error());
		return -1;
	}
	return 0;
}

static void print_paths(struct experiment *x)
{
	int unavailable = upmc_counter_path(x->hw, 0) == UPMC_PATH_UNAVAILABLE;

	printf("  read path: hardware: %s\n             software: %s\n",
	       unavailable ? "unavailable (see above)" : upmc_summary(x->hw), upmc_summary(x->sw));
}

static void close_experiment(struct experiment *x)
{
	print_paths(x);
	upmc_close(x->hw);
	upmc_close(x->sw);
	upmc_close(x->timer);
}

/* ---- 1. branch prediction ---- */

struct bytes {
	unsigned char *data;
	size_t n;
	uint64_t sum;
};

/* Built with if-conversion off (examples/BUILD): the branch stays a branch. */
static void sum_large_bytes(void *arg)
{
	struct bytes *b = arg;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->data[i] >= 128)
			sum += b->data[i];
	b->sum = sum;
}

static int by_value(const void *a, const void *b)
{
	return *(const unsigned char *)a - *(const unsigned char *)b;
}

static int branch_experiment(void)
{
	struct bytes b = {NULL, 1 << 22, 0};
	struct measurement random, sorted;
	struct experiment x;
	size_t i;

	if (open_experiment(&x, "cycles,instructions,branches,branch-misses") < 0)
		return -1;
	b.data = malloc(b.n);
	if (!b.data)
		return -1;
	srand(1);
	for (i = 0; i < b.n; i++)
		b.data[i] = (unsigned char)rand();
	printf("\n1. Branch prediction: sum the bytes >= 128 of 4 MiB of random bytes, then of "
	       "the same bytes sorted\n");
	print_header(&x, "miss rate");
	measure(&x, sum_large_bytes, &b, &random);
	qsort(b.data, b.n, 1, by_value);
	measure(&x, sum_large_bytes, &b, &sorted);
	print_row(&x, "random", &random, 3, 2, 100.0, "%");
	print_row(&x, "sorted", &sorted, 3, 2, 100.0, "%");
	printf("  sorted data ran %.1fx faster: the branch became predictable\n",
	       (double)random.ns / (double)sorted.ns);
	free(b.data);
	close_experiment(&x);
	return 0;
}

/* ---- 2. instruction-level parallelism ---- */

#define ILP_ITERATIONS 2000000

/* 96 adds an iteration in 1, 2 or 3 independent dependency chains. */
#if defined(__x86_64__)
#define CHAIN1 "add $1, %0\n\t"
#define CHAIN2 "add $1, %0\n\tadd $1, %1\n\t"
#define CHAIN3 "add $1, %0\n\tadd $1, %1\n\tadd $1, %2\n\t"
#elif defined(__aarch64__)
#define CHAIN1 "add %0, %0, #1\n\t"
#define CHAIN2 "add %0, %0, #1\n\tadd %1, %1, #1\n\t"
#define CHAIN3 "add %0, %0, #1\n\tadd %1, %1, #1\n\tadd %2, %2, #1\n\t"
#endif

#ifdef CHAIN1
#define ILP_LOOP(name, body, reps)                                              \
	static void name(void *arg)                                             \
	{                                                                       \
		uint64_t a = 0, b = 0, c = 0;                                   \
		long i;                                                         \
		for (i = 0; i < ILP_ITERATIONS; i++)                            \
			__asm__ __volatile__(".rept " #reps "\n\t" body ".endr" \
			                     : "+r"(a), "+r"(b), "+r"(c));      \
		*(uint64_t *)arg = a + b + c;                                   \
	}
ILP_LOOP(ipc1, CHAIN1, 96)
ILP_LOOP(ipc2, CHAIN2, 48)
ILP_LOOP(ipc3, CHAIN3, 32)

static int ilp_experiment(void)
{
	static void (*const loops[])(void *) = {ipc1, ipc2, ipc3};
	static const char *const labels[] = {"1 chain", "2 chains", "3 chains"};
	struct measurement m[3];
	struct experiment x;
	uint64_t sink;
	int k;

	if (open_experiment(&x, "cycles,instructions") < 0)
		return -1;
	printf("\n2. Instruction-level parallelism: %d x 96 adds in 1, 2 or 3 independent "
	       "chains (IPC about 1, 2, 3)\n",
	       ILP_ITERATIONS);
	print_header(&x, "IPC");
	for (k = 0; k < 3; k++) {
		measure(&x, loops[k], &sink, &m[k]);
		print_row(&x, labels[k], &m[k], 1, 0, 1.0, "");
	}
	printf("  time per add: %.3f, %.3f, %.3f ns\n", (double)m[0].ns / (96.0 * ILP_ITERATIONS),
	       (double)m[1].ns / (96.0 * ILP_ITERATIONS),
	       (double)m[2].ns / (96.0 * ILP_ITERATIONS));
	close_experiment(&x);
	return 0;
}
#else
static int ilp_experiment(void)
{
	printf("\n2. Instruction-level parallelism: skipped (no add chains written for this "
	       "architecture)\n");
	return 0;
}
#endif

/* ---- 3. the memory hierarchy ---- */

#define CHASE_LOADS 2000000
#define LINE        64

struct chase {
	void **start;
	void *end;
};

/* A cyclic random order of the cache lines (Sattolo), one pointer each. */
static void **make_chain(size_t bytes)
{
	size_t n = bytes / LINE, i, *order = malloc(n * sizeof(size_t));
	char *mem = aligned_alloc(LINE, bytes);

	if (!order || !mem) {
		free(order);
		free(mem);
		return NULL;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)rand() % i, t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(mem + order[i] * LINE) = mem + order[(i + 1) % n] * LINE;
	free(order);
	return (void **)mem;
}

static void chase(void *arg)
{
	struct chase *c = arg;
	void **p = c->start;
	long i;

	for (i = 0; i < CHASE_LOADS; i++)
		p = *p;
	c->end = p;
}

static int cache_experiment(void)
{
	static const size_t sizes[] = {16 << 10, 64 << 20};
	static const char *const labels[] = {"16 KiB", "64 MiB"};
	struct measurement m;
	struct experiment x;
	int k;

	if (open_experiment(&x, "cycles,instructions,cache-references,cache-misses") < 0)
		return -1;
	printf("\n3. Memory hierarchy: %d dependent loads in random order over 16 KiB (fits in "
	       "L1) and 64 MiB (does not fit in any cache)\n",
	       CHASE_LOADS);
	print_header(&x, "miss rate");
	for (k = 0; k < 2; k++) {
		struct chase c = {make_chain(sizes[k]), NULL};
		if (!c.start)
			return -1;
		chase(&c); /* warm up: fault the pages in, fill what fits */
		measure(&x, chase, &c, &m);
		print_row(&x, labels[k], &m, 3, 2, 100.0, "%");
		printf("  %-16s %.1f ns per load\n", "", (double)m.ns / CHASE_LOADS);
		free(c.start);
	}
	close_experiment(&x);
	return 0;
}

/* ---- what the machine gives ---- */

static void explain(void)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set, *timer;
	const char *clock;

	if (upmc_open(&set, "cycles,instructions", &opts) < 0 || upmc_open_timer(&timer) < 0) {
		fprintf(stderr, "demo: %s\n", upmc_last_error());
		exit(1);
	}
	clock = upmc_clock_source(timer) == UPMC_CLOCK_KERNEL ? "the kernel's factors"
	        : upmc_clock_source(timer) == UPMC_CLOCK_CALIBRATED
	                ? "a calibration against CLOCK_MONOTONIC_RAW"
	                : "the OS clock";
	printf("upmc demo (%s)\nTime: %s timestamps, converted to ns with %s.\n", UPMC_ARCH_NAME,
	       UPMC_ARCH_NAME, clock);
	if (upmc_counter_path(set, 0) == UPMC_PATH_USER) {
		printf("Hardware counters: %s\n", upmc_summary(set));
	} else {
		printf("Hardware counters are not read in user space here:\n  %s\n",
		       upmc_counter_reason(set, 0));
		printf("What enables user-space hardware counters on Linux:\n"
		       "  - a CPU PMU: bare metal, or a virtual machine with its virtual PMU on\n"
		       "    (QEMU/KVM '-cpu host,pmu=on', libvirt <pmu state='on'/>, VMware\n"
		       "    'virtualize CPU performance counters', a cloud instance type with "
		       "one);\n"
		       "  - permission: `sysctl kernel.perf_event_paranoid=2` for user space (1 "
		       "to\n"
		       "    count the kernel too), or the CAP_PERFMON capability;\n"
		       "  - user-space reads: x86 /sys/bus/event_source/devices/cpu/rdpmc at 1 "
		       "(the\n"
		       "    default) or 2; arm64 `sysctl kernel.perf_user_access=1`;\n"
		       "  - free counters: `sysctl kernel.nmi_watchdog=0` frees the one the NMI\n"
		       "    watchdog holds.\n"
		       "Time and software events (task-clock, page-faults) work without any of "
		       "it:\n"
		       "they are what the columns below show.\n");
	}
	upmc_close(set);
	upmc_close(timer);
}

int main(void)
{
	explain();
	if (branch_experiment() < 0 || ilp_experiment() < 0 || cache_experiment() < 0) {
		fprintf(stderr, "demo: %s\n", upmc_last_error());
		return 1;
	}
	return 0;
}
