/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat -a` and `-C`: whole CPUs (perf events with pid -1 on each),
 * where the kernel allows them (root, CAP_PERFMON, or perf_event_paranoid
 * <= 0); elsewhere one sentence that names the sysctl, exit status 1, and
 * the command never runs. The refusal is seen for real: as root, upmc is
 * run as the user nobody (setpriv), who may not count whole CPUs at
 * paranoid level 1 or more.
 *
 * Unsandboxed (BUILD): Bazel's sandbox takes root's privileges away.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"
#include "tests/upmc_test.h"

#define WORKLOAD "tests/cli/stat_workload"
#define PAGES    3000

/* Whether this process may count CPU 0 as a whole: 0, or the errno. */
static int whole_cpu_refusal(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int level = 2;

	if (f && fscanf(f, "%d", &level) != 1)
		level = 2;
	if (f)
		fclose(f);
	return level;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* The workload's "ready PID" in upmc's stdout, once it is there: its pid. */
static pid_t wait_for_ready(const struct cli_job *job)
{
	int i, pid = 0;

	for (i = 0; i < CLI_RUN_TIMEOUT_S * 100 && !pid; i++) {
		char *text = cli_read_file(job->out_name);
		if (!text || sscanf(text, "ready %d", &pid) != 1)
			pid = 0;
		free(text);
		if (!pid && waitpid(job->pid, NULL, WNOHANG) != 0)
			return 0;
		if (!pid)
			sleep_ms(10);
	}
	return pid;
}

/* The workload pinned to CPU 0, touching PAGES pages, run to its end. */
static int touch_on_cpu0(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execl(WORKLOAD, WORKLOAD, "-p", "0", "3000", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	return status;
}

/* -C 0: what runs on CPU 0, whoever runs it. While upmc's command waits,
 * another process (not upmc's) touches 3000 pages on CPU 0. */
TEST(cli_stat_cpus, counts_what_runs_on_the_cpu)
{
	const char *const args[] = {
	        "stat",   "-C", "0",    "-x", ",", "-e", "page-faults,cpu-clock",
	        WORKLOAD, "-w", "late", "0",  NULL};
	const struct cli_how how = {NULL, CLI_OUT_CAPTURED, 0, 0};
	struct cli_result r;
	struct cli_job job;
	char line[512];
	long faults = 0;
	pid_t command;
	int refused = whole_cpu_refusal();

	if (refused)
		SKIP("whole CPUs are not counted here (%s): root or perf_event_paranoid <= 0 "
		     "needed",
		     strerror(refused));
	ASSERT(cli_start(&job, &how, args) == 0);
	command = wait_for_ready(&job);
	EXPECT_MSG(command > 0, "the command never said it was ready");
	EXPECT_EQ(touch_on_cpu0(), 0);
	if (command > 0)
		kill(command, SIGUSR1);
	cli_finish(&job, &r);
	EXPECT_EQ(r.status, 0);
	ASSERT_MSG(cli_line_with(r.err, ",page-faults,", line, sizeof(line)) == 0, "%s", r.err);
	faults = atol(line);
	EXPECT_MSG(faults >= PAGES, "%ld page faults on CPU 0: %s", faults, r.err);
	EXPECT_MSG(cli_line_with(r.err, ",msec,cpu-clock,", line, sizeof(line)) == 0, "%s", r.err);
	cli_result_free(&r);
}

/* -a: every CPU, perf stat's title. */
TEST(cli_stat_cpus, all_cpus)
{
	struct cli_result r;
	int refused = whole_cpu_refusal();

	if (refused)
		SKIP("whole CPUs are not counted here (%s): root or perf_event_paranoid <= 0 "
		     "needed",
		     strerror(refused));
	CLI_RUN(r, NULL, "stat", "-a", "-e", "cpu-clock,context-switches", "sh", "-c", "exit 5");
	EXPECT_EQ(r.status, 5);
	EXPECT_CONTAINS(r.err, " Performance counter stats for 'system wide':\n");
	EXPECT_CONTAINS(r.err, " msec cpu-clock ");
	EXPECT_CONTAINS(r.err, " CPUs utilized");
	EXPECT(!strstr(r.err, "seconds user")); /* not the command's */
	cli_result_free(&r);
}

/* cli/upmc, copied where the user nobody may run it; 0, or -1. */
static int copy_for_nobody(char *dir, size_t size, char *program, size_t psize)
{
	char cmd[1024];

	snprintf(dir, size, "/tmp/upmc-cpus-XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0777) < 0)
		return -1;
	snprintf(program, psize, "%s/upmc", dir);
	snprintf(cmd, sizeof(cmd), "cp cli/upmc %s && chmod 755 %s", program, program);
	return system(cmd) == 0 ? 0 : -1;
}

/* Where whole CPUs are refused: one sentence that names the sysctl, exit
 * status 1, no report, and the command does not run. */
TEST(cli_stat_cpus, refused_with_the_sysctl_named)
{
	char dir[64], program[128], marker[192], cmd[1024], expected[256], *err;
	int level = paranoid_level(), status;

	if (level <= 0)
		SKIP("perf_event_paranoid is %d: every user may count whole CPUs here", level);
	if (!whole_cpu_refusal()) {
		if (geteuid() != 0)
			SKIP("this user may count whole CPUs (CAP_PERFMON) and is not root: no one "
			     "to "
			     "be refused as");
		if (access("/usr/bin/setpriv", X_OK) != 0)
			SKIP("no /usr/bin/setpriv (util-linux) to run upmc as the user nobody");
	}
	ASSERT(copy_for_nobody(dir, sizeof(dir), program, sizeof(program)) == 0);
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(cmd, sizeof(cmd), "%s %s stat -a -e cpu-clock -- touch %s 2> %s/err",
	         whole_cpu_refusal() ? "" : "setpriv --reuid=nobody --regid=nogroup --clear-groups",
	         program, marker, dir);
	status = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/err", dir);
	err = cli_read_file(cmd);
	EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, err);
	snprintf(expected, sizeof(expected),
	         "upmc stat: counting whole CPUs (-a, -C) needs root (CAP_PERFMON) or the sysctl "
	         "kernel.perf_event_paranoid <= 0 (it is %d): run `sysctl "
	         "kernel.perf_event_paranoid=0`, or count a command or a process instead\n",
	         level);
	EXPECT_MSG(err && !strcmp(err, expected), "%s", err ? err : "(no stderr)");
	EXPECT_MSG(access(marker, F_OK) != 0, "the command ran");
	free(err);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT(system(cmd) == 0);
}
