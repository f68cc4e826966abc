/* SPDX-License-Identifier: MIT */
/*
 * The overhead benchmark: what every way to take a timestamp or read a
 * counter costs, side by side in one process, against the raw instruction.
 * `bazel run //bench:overhead` and `upmc bench` run the same code.
 */
#ifndef UPMC_BENCH_OVERHEAD_H
#define UPMC_BENCH_OVERHEAD_H

#include <stddef.h>
#include <stdint.h>

#include <upmc/upmc.h>
#include <upmc/zone.h>

/* Runs the benchmark with the options in argv (none of them the program's
 * name) and prints its report to stdout; prog names it in the usage.
 * Returns an exit status. */
int upmc_overhead_main(int argc, char **argv, const char *prog);

/* ---- between the files of bench/ ---- */

struct bench_case;

struct bench_ops {
	/* Opens what the case needs; 0, or -errno with a sentence in why. */
	int (*setup)(struct bench_case *c, char *why, size_t size);
	void (*teardown)(struct bench_case *c);
	/* The measured operation, iters times. */
	void (*run)(struct bench_case *c, uint64_t iters);
	/* When set, the batch's timing: runs iters operations and returns the
	 * ns of the part they are measured by (a collect, not the recording
	 * that fills the buffers before it). */
	uint64_t (*timed)(struct bench_case *c, uint64_t iters);
};

struct bench_case {
	const char *name;
	const char *baseline; /* the raw instruction it is compared with; NULL: none */
	const struct bench_ops *ops;
	const char *spec; /* the set's events; counter 0 is instructions for hardware cases */
	int hardware;     /* opened for each batch alone: sets that never compete for
	                     the PMU, profiles that never overlap */
	unsigned threads; /* recording threads of a collect case */
	int slow;         /* an operation of 10 us or more: batches from 1, not 16 */
	/* state while it runs */
	struct upmc_set *set;
	struct upmc_region *region;
	struct upmc_profile *profile;
	struct bench_workers *workers; /* a collect case's recording threads */
	uint32_t index;                /* the page's index of counter 0 (raw rdpmc) */
	uint64_t iters;                /* operations per batch */
	double *ns;                    /* one per repeat: ns per operation */
	double *instr; /* one per repeat: instructions per operation (hardware cases) */
	unsigned samples, instr_samples;
	char skipped[400]; /* why it did not run; "" when it ran */
	/* results */
	double median, min, instr_median; /* NAN when unknown */
};

/* The cases, in the table's order. */
size_t bench_cases(struct bench_case **cases);

/* A case by name; NULL when absent. */
const struct bench_case *bench_find(const struct bench_case *cases, size_t n, const char *name);

/* Case names the report refers to. */
#define BENCH_RAW_TSC      "raw rdtsc pair"
#define BENCH_RAW_TSC_SER  "raw serialized pair"
#define BENCH_TS           "upmc_timestamp pair"
#define BENCH_TS_SER       "upmc_timestamp_serialized pair"
#define BENCH_REGION_TIME  "region begin+end, time only"
#define BENCH_CLOCK        "clock_gettime pair"
#define BENCH_SYSCALL_READ "read(2) of task-clock"
#define BENCH_RAW_PMC      "raw rdpmc"
#define BENCH_READ_ONE     "upmc_read_counter"
#define BENCH_READ_2       "upmc_read_n, 2 counters"
#define BENCH_READ_4       "upmc_read_n, 4 counters"
#define BENCH_READ_7       "upmc_read_n, 7 counters"
#define BENCH_REGION_4     "region begin+end, 4 counters"
#define BENCH_RAW_OPEN     "raw syscalls of open+close"
#define BENCH_OPEN_CLOSE   "upmc_open+close, 2 events"
#define BENCH_OPEN         "upmc_open, 2 events"
#define BENCH_FIRST_ZONE   "first zone of a thread, 2 events"
#define BENCH_ZONE_TIME    "zone begin+end, time only"
#define BENCH_ZONE_4       "zone begin+end, 4 counters"
#define BENCH_ZONE_IDLE    "zone begin+end, no profile open"
#define BENCH_COLLECT_1    "collect a zone, 1 thread"
#define BENCH_COLLECT_2    "collect a zone, 2 threads"
#define BENCH_COLLECT_8    "collect a zone, 8 threads"

/* The set the open cases open: two software events, which every Linux
 * machine counts. */
#define SPEC_OPEN "task-clock,page-faults"

/* ---- zones, measured once per run (bench/zones.c) ---- */

/* One thread recording flat out while another collects every 1 ms. */
struct bench_flat_out {
	uint64_t zones, dropped, peak_bytes, ns;
	double collector_share; /* of the time, the collector's CPU time */
	char skipped[256];      /* why it did not run; "" when it ran */
};

/* The bytes a zone takes in each format, of a recording like a game's. */
struct bench_sizes {
	char spec[128]; /* the counters ("" time only) */
	uint64_t zones;
	double chrome, perfetto, speedscope; /* bytes per zone */
	double perfetto_plain, chrome_gz;    /* uncompressed Perfetto; Chrome JSON as .gz */
	double chrome_nulls;                 /* "null" per zone in the Chrome JSON */
	char skipped[256];
};

/* A stream's own work per zone: collect, encode, compress, write (on one
 * thread); plain: the same uncompressed (UPMC_PROFILE_UNCOMPRESSED);
 * encode: uncompressed into /dev/null (collect and encode alone). */
struct bench_stream {
	uint64_t zones;
	double ns;         /* per zone, the least of the rounds */
	double bytes;      /* per zone in the file */
	double collect_ns; /* per zone: upmc_profile_collect() of as many zones */
	char skipped[256];
};

struct bench_zones {
	struct bench_flat_out flat_out;
	struct bench_stream stream, stream_plain, stream_encode;
	struct bench_sizes time_only, counters;
	struct bench_sizes uncounted; /* time only where its counters cannot count */
};

void bench_measure_zones(struct bench_zones *z);

struct bench_report {
	const struct bench_case *cases;
	size_t n;
	const struct bench_zones *zones;
	unsigned repeats;
	uint64_t batch_ns;
	char date[64];
};

void bench_print_text(const struct bench_report *r);
void bench_print_json(const struct bench_report *r);
void bench_print_csv(const struct bench_report *r);

#endif /* UPMC_BENCH_OVERHEAD_H */
