/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`: counts for a child process. The library's sets count the
 * calling thread and are read in user space, which is wrong for another
 * task (correctness.md, item 8), so the child is counted here through
 * plain perf_event_open(pid = child, inherit) and read(2).
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

#define STAT_MAX_PARTS 4 /* one per core PMU (os/linux/probe.h) */

struct stat_counter {
	struct upmc_event event;
	int fd[STAT_MAX_PARTS]; /* its perf events: one, or one per core PMU */
	unsigned n_fd;
	int opened; /* perf_event_open succeeded: enabled and running are known */
	enum stat_status status;
	uint64_t value;            /* scaled by enabled/running when multiplexed */
	uint64_t enabled, running; /* ns; running adds up the core types' */
	char reason[UPMC_REASON_MAX];
};

struct stat_run {
	char **argv; /* the command */
	unsigned n;
	struct stat_counter counter[UPMC_MAX_COUNTERS];
	int exit_status; /* the command's, or 128 + its signal */
	int signal;      /* 0, or the signal that ended it */
	int forwarded;   /* 0, or a signal upmc got and passed on to it */
	uint64_t elapsed_ns, user_ns, sys_ns;
	int exec_errno;  /* the command could not be run: why */
	char error[512]; /* the sentence that says so */
};

/*
 * Runs run->argv with run->counter[0..n-1] counting it (their events set,
 * everything else zero). Returns 0 when the command ran (whatever its exit
 * status), or a negative errno when it could not be started (run->error says
 * why).
 */
int stat_run_command(struct stat_run *run);

/* Opens run->counter[0..n-1] for the task pid, to start at its exec
 * (cli/stat_counters.c); then reads and closes them. */
void stat_open_counters(struct stat_run *run, pid_t pid);
void stat_close_counters(struct stat_run *run);

void stat_print_text(FILE *out, const struct stat_run *run);
void stat_print_json(FILE *out, const struct stat_run *run);

#endif /* UPMC_CLI_STAT_H */
