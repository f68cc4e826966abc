/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`: counts for a command, for running processes or threads, or
 * for whole CPUs. The library's sets count the calling thread and are read
 * in user space, which is wrong for another task (rdpmc and mrs read the
 * counters of the CPU the reader runs on, not the other task's), so stat
 * opens its own perf events (pid = a task, or cpu = a CPU) and
 * reads them by read(2).
 *
 * Who does what: stat_args.c reads the command line; stat_plan.c turns the
 * spec into counters, their perf groups and --rotate's passes; stat.c runs
 * the counts (-r repeats them) and the report; stat_child.c starts the
 * command; stat_targets.c finds the tasks or CPUs to count; stat_counters.c
 * opens, reads and closes the perf events; stat_wait.c waits for the end of
 * counting (signals, the command's or the targets' exit) and the interval
 * ticks; stat_figures.c turns readings into figures (the interval rule, the
 * runs' spread); stat_runs.c keeps -r's runs; stat_print.c prints them as
 * text, CSV or JSON.
 */
#ifndef UPMC_CLI_STAT_H
#define UPMC_CLI_STAT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "os/linux/upmc_linux.h"

#define STAT_DEFAULT_SPEC \
	"task-clock,context-switches,page-faults,cycles,instructions,branches,branch-misses"

enum stat_status {
	STAT_COUNTED = 0,
	STAT_NOT_SUPPORTED, /* the kernel or the PMU has no such event */
	STAT_NOT_COUNTED,   /* refused, or it never ran */
};

/* What is counted (perf stat's targets). */
enum stat_target {
	STAT_COMMAND,   /* the command and every process it starts */
	STAT_PROCESSES, /* -p: every thread of running processes */
	STAT_THREADS,   /* -t: running threads */
	STAT_CPUS,      /* -a, -C: everything that runs on whole CPUs */
};

enum stat_format { STAT_TEXT, STAT_CSV, STAT_JSON };

#define STAT_MAX_PARTS 4 /* one per core PMU (os/linux/probe.h) */
#define STAT_SOLO      ((size_t)-1)

/* A counter's reading on one task or CPU: its count and the kernel's times
 * (ns), its parts added up. */
struct stat_reading {
	uint64_t count, enabled, running;
};

/* What the report shows of one counter over a span: the whole count, one
 * thread's, one interval's, or the mean of the runs. */
struct stat_figure {
	uint64_t value;            /* scaled when multiplexed; UPMC_NOT_COUNTED: it never ran */
	uint64_t enabled, running; /* ns */
	double noise; /* -r: the standard deviation of the mean, in % of it; 0 otherwise */
	/* -r: the runs the figure is the mean of, of the runs that counted for
	 * it (every run; with --rotate its pass's); 0 and 0 otherwise */
	unsigned runs, planned;
};

/* Where counters are opened: a task, or a CPU. */
struct stat_unit {
	pid_t tid;     /* the task; -1 on a CPU */
	int cpu;       /* the CPU; -1 for a task */
	char comm[16]; /* the thread's name when counting started */
};

struct stat_counter {
	struct upmc_event event;
	/* The perf group it is counted in with the other counters of the same
	 * number (one per PMU it counts on: software events apart), so that
	 * they share one schedule and are read together: a metric's inputs, or
	 * --rotate's pass. 0: a perf event of its own. */
	unsigned group;
	unsigned pass;                /* --rotate: the pass that counts it (0, 1, ...) */
	unsigned n_parts;             /* perf events per task or CPU: one, or one per core PMU */
	uint32_t key[STAT_MAX_PARTS]; /* each part's PMU (the library's plan key) */
	int opened;                   /* perf_event_open succeeded: enabled and running are known */
	enum stat_status status;
	struct stat_figure total;
	char reason[UPMC_REASON_MAX];
};

struct stat_run {
	/* what to count and how to show it, set before counting */
	char **argv; /* the command; NULL when there is none */
	enum stat_target target;
	const char *targets; /* -p, -t or -C as given, for the report's title */
	int *ids;            /* the -p processes, -t threads or -C CPUs */
	unsigned n_ids;
	enum stat_format format;
	const char *separator; /* CSV's */
	int per_thread;        /* one block per thread */
	unsigned n;
	struct stat_counter counter[UPMC_MAX_COUNTERS];
	unsigned n_metrics; /* -M's, or those the spec names: computed from each block's counts */
	struct upmc_metric metric[UPMC_MAX_METRICS];
	unsigned runs; /* how many runs the figures are the mean of */
	/* --rotate: the passes, each counted in runs of its own with its
	 * groups pinned (0: every counter in every run), and this run's */
	unsigned passes, pass;

	/* the tasks or CPUs counted, and their perf events (stat_targets.c) */
	unsigned n_units;
	struct stat_unit *unit;
	int *fd;       /* [unit][counter][part]; -1 where none */
	size_t *lead;  /* ... the index in fd of its group's leader; STAT_SOLO: none */
	unsigned *pos; /* ... its place in the leader's group read */
	struct stat_reading *reading; /* [unit][counter], the latest read */

	/* the end */
	int exit_status; /* the command's, or 128 + its signal */
	int signal;      /* 0, or the signal that ended the command */
	int forwarded;   /* 0, or a signal upmc got and passed on to it */
	int stopped_by;  /* 0, or the signal that ended counting without a command */
	uint64_t elapsed_ns, user_ns, sys_ns;
	double elapsed_noise; /* -r: as a figure's */
	int exec_errno;       /* the command could not be run: why */
	char error[512];      /* the sentence that says why counting failed */

	/* --zones: the command's zones, reported by the library in it */
	int zones;
	int zones_per_thread;            /* --per-thread with --zones */
	const char *zone_names;          /* --zones=NAMES; NULL: every zone */
	const char *zone_spec;           /* what the request asks each thread to count */
	int zone_fd;                     /* the file the processes report into; -1 */
	struct stat_zone_report *report; /* every run's, parsed (stat_zones.c) */
	/* --trace FILE: the processes' traces come into trace_fd (as the
	 * reports into zone_fd); the last run's first one goes to FILE */
	const char *trace_path;
	int trace_format; /* STAT_TRACE_* */
	int trace_fd;     /* -1 */
	int trace_failed; /* FILE could not be written: said on stderr */
	/* -I with --zones: the processes write their lines every MS too, and
	 * each interval shows what they added (stat_zones.c) */
	unsigned zone_interval_ms;
	struct stat_zone_intervals *zone_intervals;
};

/* ---- the command line (stat_args.c) ---- */

struct stat_args {
	const char *spec;
	char *joined;       /* every -e, joined by commas, as perf stat counts them all */
	const char **lists; /* each -e list as given (--rotate's passes) */
	unsigned n_lists;
	int rotate;         /* --rotate */
	int repeat_given;   /* -r was given */
	const char *output; /* NULL: stderr, as perf stat writes */
	enum stat_format format;
	const char *separator; /* -x */
	unsigned repeat;       /* -r: runs of the command */
	unsigned interval_ms;  /* -I: 0 when none */
	enum stat_target target;
	const char *targets; /* -p, -t or -C as given */
	int *ids;            /* ... as numbers */
	unsigned n_ids;
	int per_thread;
	int help;
	int zones;              /* --zones */
	const char *zone_names; /* --zones=NAMES */
	const char *trace;      /* --trace FILE */
	int trace_format;       /* its STAT_TRACE_* */
	char **command;         /* NULL: none */
};

/* 0 (a->help: print the help), or the exit status of a bad command line
 * (the usage printed); stat_free_args() in every case. */
int stat_parse_args(int argc, char **argv, struct stat_args *a);
void stat_free_args(struct stat_args *a);
extern const char stat_usage[];

/* ---- the counters (stat_plan.c) ---- */

/*
 * a->spec's events into run->counter[] and its metrics into run->metric[]:
 * each metric's inputs in one perf group (the library's rule, as a
 * multiplexed set counts them), and with --rotate each counter's pass:
 * first each metric group's, then one for each -e list's events that no
 * metric needs. run->n, or -1 with the library's sentence in
 * upmc_last_error().
 */
int stat_plan(struct stat_run *run, const struct stat_args *a);

/* ---- the command (stat_child.c) ---- */

/* The command, forked and waiting for its release. */
struct stat_command {
	pid_t pid; /* 0: none */
	int go, failed;
	uint64_t released_ns;
};

/* Forks run->argv, held until stat_release_command(). 0, or a negative errno
 * with run->error saying why. */
int stat_start_command(struct stat_run *run, struct stat_command *cmd);
/* Lets it exec. 0, or the exec's errno (the command could not be run). */
int stat_release_command(struct stat_command *cmd);
/* Reaps it when it has ended (wait4 without blocking), recording its status
 * and times in run; 1 when it had, 0 when it runs on. */
int stat_reap_command(struct stat_run *run, struct stat_command *cmd);
/* Ends it when counting could not start, and reaps it. */
void stat_abandon_command(struct stat_command *cmd);

/* ---- the tasks or CPUs (stat_targets.c) ---- */

/* run->unit: the command (pid), the threads of the -p processes, the -t
 * threads, or the CPUs. 0, or a negative errno with run->error saying why
 * (no such process, a CPU that is not online). */
int stat_find_units(struct stat_run *run, pid_t command);
/* Whether any -p process or -t thread has not ended yet (not a zombie). */
int stat_targets_alive(const struct stat_run *run);
/* A list of -p, -t or -C ("1234,1240", "0-3,6") into numbers, ascending and
 * once each (*ids to be freed); how many, or -1 when it is not such a list. */
int stat_parse_ids(const char *list, int **ids);

/* ---- the perf events (stat_counters.c) ---- */

/*
 * Opens every counter on every unit: a counter the kernel refuses gets its
 * status and reason. 0, or a negative errno when counting cannot start at
 * all (run->error says why: whole CPUs refused, every thread gone).
 */
int stat_open_counters(struct stat_run *run);
/* Starts them all at once (those of a command start at its exec). */
void stat_enable_counters(struct stat_run *run);
/* run->reading[] now. */
void stat_read_counters(struct stat_run *run);
void stat_close_counters(struct stat_run *run);
/* Frees the units and their descriptors (closed before). */
void stat_free_units(struct stat_run *run);

/* The sentence for whole CPUs refused: which sysctl allows them. */
void stat_explain_cpus_refused(char *buf, size_t size, int paranoid);

/* ---- waiting for the end (stat_wait.c) ---- */

/* Signals while counting: with a command (cmd_pid > 0), SIGINT and SIGQUIT
 * are left to it and SIGTERM and SIGHUP passed on; without one, SIGINT,
 * SIGTERM and SIGHUP end counting. SIGCHLD wakes stat_wait(). */
int stat_catch_signals(pid_t cmd_pid);
void stat_release_signals(struct stat_run *run);
/* Sleeps until deadline_ns (CLOCK_MONOTONIC; 0: no deadline), a signal, or
 * an end; returns 1 when counting should end (a stop signal), else 0. */
int stat_wait(uint64_t deadline_ns);
uint64_t stat_now_ns(void);

/* ---- figures (stat_figures.c) ---- */

/* The counter between two readings, by the library's interval rule
 * (upmc_interval_of): (c1 - c0) x (e1 - e0) / (r1 - r0) when it was
 * multiplexed, else c1 - c0. A zero `before` gives the whole count. */
void stat_figure_between(struct stat_figure *f, const struct stat_reading *before,
                         const struct stat_reading *after);
/* The readings of counter i added up over every unit. */
struct stat_reading stat_sum_units(const struct stat_run *run, const struct stat_reading *r,
                                   unsigned i);

/* -r: a mean and its spread, by Welford's update. */
struct stat_spread {
	unsigned n;
	double mean, m2;
};
void stat_spread_add(struct stat_spread *s, double x);
/* The standard deviation of the mean, in % of the mean, as perf stat
 * prints it after "+-"; 0 with fewer than two values. */
double stat_spread_noise(const struct stat_spread *s);
/* The standard deviation of the mean. */
double stat_spread_error(const struct stat_spread *s);

/* ---- -r's runs (stat_runs.c) ---- */

struct stat_runs {
	struct stat_spread value[UPMC_MAX_COUNTERS], enabled[UPMC_MAX_COUNTERS],
	        running[UPMC_MAX_COUNTERS];
	struct stat_spread elapsed;
	struct stat_counter plan[UPMC_MAX_COUNTERS];   /* as stat_plan() made them */
	struct stat_counter kept[UPMC_MAX_COUNTERS];   /* as the last run that counted it left it */
	struct stat_counter missed[UPMC_MAX_COUNTERS]; /* ... that did not count it */
	unsigned ran[UPMC_MAX_COUNTERS];               /* runs of each one's pass */
};

/* Before the first run: keeps run's counters as planned. */
void stat_runs_start(struct stat_runs *s, const struct stat_run *run);
/* Before run r (0, 1, ...): the counters afresh, and the pass it counts
 * (--rotate: pass r mod passes). */
void stat_runs_next(struct stat_runs *s, struct stat_run *run, unsigned r);
/* After a run: adds the figures of the counters it counted. */
void stat_runs_add(struct stat_runs *s, const struct stat_run *run);
/* After the last of `runs` runs: each counter as the last run that counted
 * it left it (counted when any did; else as its last run left it), with
 * the mean of its figures over the runs that counted it, their spread, and
 * how many they were of its pass's runs. One that counted in some of them
 * only says so in its reason. */
void stat_runs_end(struct stat_runs *s, struct stat_run *run, unsigned runs);

/* ---- the report (stat_print.c) ---- */

/* One block of figures: the counters over one span. */
struct stat_block {
	const struct stat_figure *fig;  /* [run->n] */
	uint64_t span_ns;               /* the time they cover (CPUs utilized) */
	const struct stat_unit *thread; /* --per-thread: whose; NULL: every task */
};

/* The whole report: a title, the blocks, the elapsed time, notes (text);
 * the rows (CSV); one object (JSON). */
void stat_print_report(FILE *out, const struct stat_run *run, const struct stat_block *blocks,
                       unsigned n_blocks);
/* What -I prints first: the text's column heads. */
void stat_print_interval_start(FILE *out, const struct stat_run *run);
/* One interval of -I, at_ns after counting started: rows with a timestamp
 * (text, CSV), or one object on one line (JSON). */
void stat_print_interval(FILE *out, const struct stat_run *run, uint64_t at_ns,
                         const struct stat_block *blocks, unsigned n_blocks);
/* What -I prints after its last interval: the text's notes. */
void stat_print_interval_end(FILE *out, const struct stat_run *run);

/* ---- --zones (stat_zones.c) ---- */

/* The request's variable for the command: "<fd>:<spec>[;<names>]". */
#define STAT_ZONES_VARIABLE    "UPMC_STAT_ZONES"
#define STAT_TRACE_VARIABLE    "UPMC_STAT_ZONES_TRACE"
#define STAT_INTERVAL_VARIABLE "UPMC_STAT_ZONES_INTERVAL"
enum { STAT_TRACE_PERFETTO = 1, STAT_TRACE_CHROME };
/* FILE's format by its name's end (.pftrace, .json); 0: neither. */
int stat_trace_format(const char *path);

/* A file for the command's processes to report into (a memfd, appended
 * to), run->zone_fd; 0, or -errno with run->error saying why. */
int stat_zones_open(struct stat_run *run);
/* After the command ended: what its processes reported, into run->report;
 * the file closed. */
void stat_zones_take(struct stat_run *run);
void stat_zones_free(struct stat_run *run);
/* The reports' lines (the library's format, docs/zones.md) parsed: NULL
 * when out of memory. */
struct stat_zone_report *stat_zones_parse(const char *text, size_t len);
/* -r: the next run's reports added to r (the tables show the means over
 * the runs); 0, or -ENOMEM. */
int stat_zones_parse_more(struct stat_zone_report *r, const char *text, size_t len);
void stat_zones_free_report(struct stat_zone_report *r);
/* The zone tables after the report (text, CSV), or the "zones" member of
 * the JSON report's object. */
void stat_print_zones(FILE *out, const struct stat_run *run);
struct json;
void stat_json_zones(struct json *j, const struct stat_run *run);
/* -I: what the processes' latest lines added since the last interval
 * (read from the file at each interval, before it is printed). */
void stat_zones_tick(struct stat_run *run);
/* ... its rows after the interval's counts (text, CSV: each behind the
 * interval's time), or its "zones" member of the interval's object. */
void stat_print_zone_interval(FILE *out, const struct stat_run *run, const char *time);
void stat_json_zone_interval(struct json *j, const struct stat_run *run);

#endif /* UPMC_CLI_STAT_H */
