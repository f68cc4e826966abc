/* SPDX-License-Identifier: MIT */
/*
 * upmc demo: the classic counter experiments, measured with the best
 * counters this machine allows.
 *
 *   1. branch prediction: summing bytes >= 128 of random vs sorted data
 *   2. instruction-level parallelism: chains of register adds with IPC 1, 2 and 3
 *   3. the memory hierarchy: pointer chasing in 16 KiB vs 64 MiB
 *
 * Where the machine has no usable PMU it runs on time and software events
 * and says why, and what would enable counters.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upmc/upmc.h>

#define REPEATS 5
#define WIDTH   14

/* The metrics of each experiment, by name (docs/metrics.md): a set opened
 * with them counts their events, and upmc_metrics() computes them. Which
 * events this machine counts decides the columns, and what it cannot count
 * is said once, before the experiments. */
static const char *const hardware_specs[] = {
        "IPC,branch-miss-ratio",
        "IPC",
        "IPC,cache-miss-ratio",
};
#define EXPERIMENTS (sizeof(hardware_specs) / sizeof(hardware_specs[0]))

struct experiment {
	struct upmc_set *hw;
};

/* What every experiment shares: software events (task-clock, page-faults)
 * and a timer. */
static struct upmc_set *software, *timer;

struct measurement {
	uint64_t ns;
	uint64_t hw[4];   /* the hardware counters' counts */
	double metric[2]; /* the metrics of the experiment */
	uint64_t sw[2];   /* task-clock, page-faults */
};

static uint64_t delta(uint64_t before, uint64_t after)
{
	return before == UPMC_NOT_COUNTED || after == UPMC_NOT_COUNTED ? UPMC_NOT_COUNTED
	                                                               : after - before;
}

static uint64_t elapsed_ns(uint64_t t0, uint64_t t1)
{
	return upmc_ticks_to_ns(timer, t1) - upmc_ticks_to_ns(timer, t0);
}

/* Runs fn(arg) REPEATS times; keeps the fastest run. The hardware counts
 * and the metrics are those of the interval between two snapshots
 * (upmc_interval(), upmc_metrics()). */
static void measure(struct experiment *x, void (*fn)(void *), void *arg, struct measurement *best)
{
	uint64_t hw0[UPMC_SNAPSHOT_MAX], hw1[UPMC_SNAPSHOT_MAX], sw0[2], sw1[2], t0, t1;
	unsigned r, i;

	best->ns = UINT64_MAX;
	for (r = 0; r < REPEATS; r++) {
		upmc_read(software, sw0);
		t0 = upmc_timestamp_serialized();
		upmc_snapshot(x->hw, hw0);
		fn(arg);
		upmc_snapshot(x->hw, hw1);
		t1 = upmc_timestamp_after();
		upmc_read(software, sw1);
		if (elapsed_ns(t0, t1) >= best->ns)
			continue;
		best->ns = elapsed_ns(t0, t1);
		upmc_interval(x->hw, hw0, hw1, best->hw, NULL);
		upmc_metrics(x->hw, hw0, hw1, best->metric);
		for (i = 0; i < 2; i++)
			best->sw[i] = delta(sw0[i], sw1[i]);
	}
}

/* v with a comma every three digits, e.g. 22,076,140. */
static const char *thousands(uint64_t v, char *buf, size_t size)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), i, k = 0;

	for (i = 0; i < n && (size_t)k + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

static int counted(struct experiment *x, unsigned i)
{
	return upmc_counter_path(x->hw, i) != UPMC_PATH_UNAVAILABLE;
}

/* A metric is shown when its events count here. */
static int computed(struct experiment *x, unsigned j)
{
	return upmc_metric_reason(x->hw, j)[0] == '\0';
}

static int width(const char *header)
{
	int len = (int)strlen(header);

	return len > WIDTH ? len : WIDTH;
}

/* The columns of an experiment: time, every counter this machine counts
 * (full names), every metric whose events count, task-clock. */
static void print_header(struct experiment *x)
{
	unsigned i;

	printf("  %-16s %*s", "", WIDTH, "time ns");
	for (i = 0; i < (unsigned)upmc_count(x->hw); i++)
		if (counted(x, i))
			printf(" %*s", width(upmc_counter_name(x->hw, i)),
			       upmc_counter_name(x->hw, i));
	for (i = 0; i < (unsigned)upmc_metric_count(x->hw); i++)
		if (computed(x, i))
			printf(" %*s", width(upmc_metric_name(x->hw, i)),
			       upmc_metric_name(x->hw, i));
	printf(" %*s\n", WIDTH, "task-clock ns");
}

/* A metric's value: a fraction as a percentage; "-" when it has none. */
static void print_metric(struct experiment *x, unsigned j, double v)
{
	int w = width(upmc_metric_name(x->hw, j));

	if (isnan(v))
		printf(" %*s", w, "-");
	else if (upmc_metric_is_percent(x->hw, j))
		printf(" %*.2f%%", w - 1, 100 * v);
	else
		printf(" %*.2f", w, v);
}

static void print_row(struct experiment *x, const char *label, const struct measurement *m)
{
	char buf[32];
	unsigned i;

	printf("  %-16s %*s", label, WIDTH, thousands(m->ns, buf, sizeof(buf)));
	for (i = 0; i < (unsigned)upmc_count(x->hw); i++)
		if (counted(x, i))
			printf(" %*s", width(upmc_counter_name(x->hw, i)),
			       m->hw[i] == UPMC_NOT_COUNTED
			               ? "-"
			               : thousands(m->hw[i], buf, sizeof(buf)));
	for (i = 0; i < (unsigned)upmc_metric_count(x->hw); i++)
		if (computed(x, i))
			print_metric(x, i, m->metric[i]);
	printf(" %*s\n", WIDTH,
	       m->sw[0] == UPMC_NOT_COUNTED ? "-" : thousands(m->sw[0], buf, sizeof(buf)));
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

static int branch_experiment(struct experiment *x)
{
	struct bytes b = {NULL, 1 << 22, 0};
	struct measurement random, sorted;
	size_t i;

	b.data = malloc(b.n);
	if (!b.data)
		return -1;
	srand(1);
	for (i = 0; i < b.n; i++)
		b.data[i] = (unsigned char)rand();
	printf("\n1. Branch prediction: sum the bytes >= 128 of 4 MiB of random bytes, then of "
	       "the same bytes sorted\n");
	print_header(x);
	measure(x, sum_large_bytes, &b, &random);
	qsort(b.data, b.n, 1, by_value);
	measure(x, sum_large_bytes, &b, &sorted);
	print_row(x, "random", &random);
	print_row(x, "sorted", &sorted);
	printf("  sorted data ran %.1fx faster: the branch became predictable\n",
	       (double)random.ns / (double)sorted.ns);
	free(b.data);
	return 0;
}

/* ---- 2. instruction-level parallelism ---- */

#define ILP_ITERATIONS 2000000

/*
 * 96 adds an iteration in 1, 2 or 3 independent dependency chains, each
 * add taking a register whose value the compiler does not know (%3, read
 * from a volatile). Golden Cove and later Intel cores fold an add of an
 * immediate at rename, outside the chain (1, 2 and 3 chains of them ran in
 * the same time on Emerald Rapids); an add of a register is executed, one
 * cycle each on the x86 cores (Emerald Rapids: 0.38, 0.20, 0.15 ns an add
 * for 1, 2, 3 chains; Zen 5: 0.30, 0.15, 0.10) and, by Arm's optimisation
 * guides, on Arm's: IPC about 1, 2, 3 where the core has three ALUs or
 * more. In asm, so that the compiler neither folds nor vectorises them.
 */
#if defined(__x86_64__)
#define CHAIN1 "add %3, %0\n\t"
#define CHAIN2 "add %3, %0\n\tadd %3, %1\n\t"
#define CHAIN3 "add %3, %0\n\tadd %3, %1\n\tadd %3, %2\n\t"
#elif defined(__aarch64__)
#define CHAIN1 "add %0, %0, %3\n\t"
#define CHAIN2 "add %0, %0, %3\n\tadd %1, %1, %3\n\t"
#define CHAIN3 "add %0, %0, %3\n\tadd %1, %1, %3\n\tadd %2, %2, %3\n\t"
#endif

#ifdef CHAIN1
static volatile uint64_t ilp_step = 1;

#define ILP_LOOP(name, body, reps)                                              \
	static void name(void *arg)                                             \
	{                                                                       \
		uint64_t a = 0, b = 0, c = 0, step = ilp_step;                  \
		long i;                                                         \
		for (i = 0; i < ILP_ITERATIONS; i++)                            \
			__asm__ __volatile__(".rept " #reps "\n\t" body ".endr" \
			                     : "+r"(a), "+r"(b), "+r"(c)        \
			                     : "r"(step));                      \
		*(uint64_t *)arg = a + b + c;                                   \
	}
ILP_LOOP(ipc1, CHAIN1, 96)
ILP_LOOP(ipc2, CHAIN2, 48)
ILP_LOOP(ipc3, CHAIN3, 32)

/* The thread's own time (task-clock) where it is counted, which other
 * programs' load on the machine does not stretch; else the time. */
static double ns_per_add(const struct measurement *m)
{
	uint64_t ns = m->sw[0] == UPMC_NOT_COUNTED ? m->ns : m->sw[0];

	return (double)ns / (96.0 * ILP_ITERATIONS);
}

static int ilp_experiment(struct experiment *x)
{
	static void (*const loops[])(void *) = {ipc1, ipc2, ipc3};
	static const char *const labels[] = {"1 chain", "2 chains", "3 chains"};
	struct measurement m[3];
	char iterations[32];
	uint64_t sink;
	int k;

	printf("\n2. Instruction-level parallelism: %s x 96 adds of a register in 1, 2 or 3 "
	       "independent chains (IPC about 1, 2, 3)\n",
	       thousands(ILP_ITERATIONS, iterations, sizeof(iterations)));
	print_header(x);
	for (k = 0; k < 3; k++) {
		measure(x, loops[k], &sink, &m[k]);
		print_row(x, labels[k], &m[k]);
	}
	printf("  time per add: %.3f, %.3f, %.3f ns\n", ns_per_add(&m[0]), ns_per_add(&m[1]),
	       ns_per_add(&m[2]));
	return 0;
}
#else
static int ilp_experiment(struct experiment *x)
{
	(void)x;
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

/* What writing the chain into fresh memory cost: the kernel maps each page
 * at its first touch, a page fault. */
struct first_touch {
	uint64_t faults, ns;
};

/* A cyclic random order of the cache lines (Sattolo), one pointer each,
 * written into memory no one has touched yet. */
static void **make_chain(size_t bytes, struct first_touch *touch)
{
	size_t n = bytes / LINE, i, *order = malloc(n * sizeof(size_t));
	char *mem = aligned_alloc(LINE, bytes);
	uint64_t sw0[2], sw1[2], t0, t1;

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
	upmc_read(software, sw0);
	t0 = upmc_timestamp_serialized();
	for (i = 0; i < n; i++)
		*(void **)(mem + order[i] * LINE) = mem + order[(i + 1) % n] * LINE;
	t1 = upmc_timestamp_after();
	upmc_read(software, sw1);
	touch->faults = delta(sw0[1], sw1[1]);
	touch->ns = elapsed_ns(t0, t1);
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

static void print_first_touch(size_t bytes, const struct first_touch *t)
{
	char faults[32], ns[32];

	if (t->faults == UPMC_NOT_COUNTED) {
		printf("  %-16s first touch of its pages: %s ns\n", "", thousands(t->ns, ns, 32));
		return;
	}
	printf("  %-16s first touch of its pages: %s page faults in %s ns", "",
	       thousands(t->faults, faults, 32), thousands(t->ns, ns, 32));
	if (t->faults)
		printf(" (one per %llu KiB written)",
		       (unsigned long long)(bytes / 1024 / t->faults));
	printf("\n");
}

static int cache_experiment(struct experiment *x)
{
	static const size_t sizes[] = {16 << 10, 64 << 20};
	static const char *const labels[] = {"16 KiB", "64 MiB"};
	struct first_touch touch;
	struct measurement m;
	char loads[32];
	int k;

	printf("\n3. Memory hierarchy: %s dependent loads in random order over 16 KiB (fits in "
	       "L1) and 64 MiB (does not fit in any cache), after the chain is written\n",
	       thousands(CHASE_LOADS, loads, sizeof(loads)));
	print_header(x);
	for (k = 0; k < 2; k++) {
		struct chase c = {make_chain(sizes[k], &touch), NULL};
		if (!c.start)
			return -1;
		chase(&c); /* warm up: fill what fits */
		measure(x, chase, &c, &m);
		print_row(x, labels[k], &m);
		printf("  %-16s %.1f ns per load\n", "", (double)m.ns / CHASE_LOADS);
		if (k == 1)
			print_first_touch(sizes[k], &touch);
		free(c.start);
	}
	return 0;
}

/* ---- what the machine gives ---- */

/* What the experiments' hardware sets say, gathered by opening each once:
 * the events not counted here, each distinct reason and the advice, said
 * once before the experiments. */
struct not_counted {
	char names[256];
	char reasons[4][320]; /* one per cause */
	char causes[4][320];
	unsigned n_reasons;
	char advice[320];
	char hardware[400]; /* the read path of the first set's counters */
	int user_reads;     /* its counters read in user space */
};

/* reason without its leading "'name'": reasons of one cause match. */
static const char *cause(const char *reason, const char *name)
{
	size_t len = strlen(name);

	return reason[0] == '\'' && !strncmp(reason + 1, name, len) && reason[len + 1] == '\''
	               ? reason + len + 2
	               : reason;
}

static void add_not_counted(struct not_counted *nc, struct upmc_set *set, unsigned i)
{
	const char *name = upmc_counter_name(set, i), *why = upmc_counter_reason(set, i);
	size_t len = strlen(nc->names);
	unsigned k;

	if (!strstr(nc->names, name))
		snprintf(nc->names + len, sizeof(nc->names) - len, "%s%s", len ? ", " : "", name);
	for (k = 0; k < nc->n_reasons; k++)
		if (!strcmp(nc->causes[k], cause(why, name)))
			return;
	if (nc->n_reasons == 4)
		return;
	snprintf(nc->reasons[nc->n_reasons], sizeof(nc->reasons[0]), "%s", why);
	snprintf(nc->causes[nc->n_reasons++], sizeof(nc->causes[0]), "%s", cause(why, name));
}

static int gather(struct not_counted *nc)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	unsigned e, i;

	memset(nc, 0, sizeof(*nc));
	for (e = 0; e < EXPERIMENTS; e++) {
		if (upmc_open(&set, hardware_specs[e], &opts) < 0)
			return -1;
		if (e == 0) {
			snprintf(nc->hardware, sizeof(nc->hardware), "%s",
			         upmc_counter_path(set, 0) == UPMC_PATH_UNAVAILABLE
			                 ? "none counted (see below)"
			                 : upmc_summary(set));
			nc->user_reads = upmc_counter_path(set, 0) == UPMC_PATH_USER;
		}
		for (i = 0; i < (unsigned)upmc_count(set); i++)
			if (upmc_counter_path(set, i) == UPMC_PATH_UNAVAILABLE)
				add_not_counted(nc, set, i);
		if (!nc->advice[0])
			snprintf(nc->advice, sizeof(nc->advice), "%s", upmc_advice(set));
		upmc_close(set);
	}
	return 0;
}

static void explain(const struct not_counted *nc)
{
	const char *clock = upmc_clock_source(timer) == UPMC_CLOCK_KERNEL ? "the kernel's factors"
	                    : upmc_clock_source(timer) == UPMC_CLOCK_CALIBRATED
	                            ? "a calibration against CLOCK_MONOTONIC_RAW"
	                            : "the OS clock";
	unsigned k;

	printf("upmc demo (%s)\nTime: %s timestamps, converted to ns with %s.\n", UPMC_ARCH_NAME,
	       UPMC_ARCH_NAME, clock);
	printf("Read path: software events (task-clock, page-faults): %s\n"
	       "           hardware events: %s\n",
	       upmc_summary(software), nc->hardware);
	if (nc->names[0]) {
		printf("Not counted here: %s\n", nc->names);
		for (k = 0; k < nc->n_reasons; k++)
			printf("  %s\n", nc->reasons[k]);
		if (nc->advice[0])
			printf("  (%s)\n", nc->advice);
	}
	if (!nc->user_reads)
		printf("What else user-space hardware counters need on Linux:\n"
		       "  - permission: `sysctl kernel.perf_event_paranoid=2` for user space (1 "
		       "to\n"
		       "    count the kernel too), or the CAP_PERFMON capability;\n"
		       "  - user-space reads: x86 /sys/bus/event_source/devices/cpu/rdpmc at 1 "
		       "(the\n"
		       "    default) or 2; arm64 `sysctl kernel.perf_user_access=1`;\n"
		       "  - free counters: `sysctl kernel.nmi_watchdog=0` frees the one the NMI\n"
		       "    watchdog holds.\n");
	printf("The tables show the time, task-clock, the counters this machine counts and the "
	       "metrics of those (IPC, miss ratios).\n");
}

/* Each experiment with its hardware set, opened for it: the experiments'
 * sets together need more counters than a CPU has. */
static int run(int (*experiment)(struct experiment *), unsigned e)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct experiment x;
	int err;

	if (upmc_open(&x.hw, hardware_specs[e], &opts) < 0)
		return -1;
	err = experiment(&x);
	upmc_close(x.hw);
	return err;
}

int main(void)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct not_counted nc;
	int err;

	if (upmc_open(&software, "task-clock,page-faults", &opts) < 0 ||
	    upmc_open_timer(&timer) < 0 || gather(&nc) < 0) {
		fprintf(stderr, "demo: %s\n", upmc_last_error());
		return 1;
	}
	explain(&nc);
	err = run(branch_experiment, 0) < 0 || run(ilp_experiment, 1) < 0 ||
	      run(cache_experiment, 2) < 0;
	if (err)
		fprintf(stderr, "demo: %s\n", upmc_last_error());
	upmc_close(software);
	upmc_close(timer);
	return err;
}
