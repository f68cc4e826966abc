/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s command: forked, it waits on a pipe until its counters are
 * open, then execs; counters of the command start at the exec
 * (enable_on_exec) and follow its children (inherit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/stat.h"

/* --zones: the request in the command's environment, and the report's
 * file on a descriptor that the exec keeps (a dup has no FD_CLOEXEC). A
 * request that cannot be made leaves the command without it: its zones
 * then report nothing, which the report says. */
static void hand_zones(const struct stat_run *run)
{
	char request[8192];
	int fd;

	if (!run->zones || run->zone_fd < 0 || (fd = dup(run->zone_fd)) < 0)
		return;
	snprintf(request, sizeof(request), "%d:%s%s%s", fd, run->zone_spec ? run->zone_spec : "",
	         run->zone_names ? ";" : "", run->zone_names ? run->zone_names : "");
	setenv(STAT_ZONES_VARIABLE, request, 1);
	snprintf(request, sizeof(request), "%u", run->zone_interval_ms);
	if (run->zone_interval_ms)
		setenv(STAT_INTERVAL_VARIABLE, request, 1);
	else
		unsetenv(STAT_INTERVAL_VARIABLE);
	if (run->trace_fd < 0 || (fd = dup(run->trace_fd)) < 0)
		return;
	snprintf(request, sizeof(request), "%d:%s", fd,
	         run->trace_format == STAT_TRACE_CHROME ? "chrome" : "perfetto");
	setenv(STAT_TRACE_VARIABLE, request, 1);
}

/* In the child: wait for the go, then become the command. */
static void __attribute__((noreturn)) child(int go, int failed, const struct stat_run *run)
{
	char **argv = run->argv;
	ssize_t got;
	char c;
	int err;

	do
		got = read(go, &c, 1);
	while (got < 0 && errno == EINTR);
	if (got != 1)
		_exit(127); /* the parent gave up before the exec */
	hand_zones(run);
	execvp(argv[0], argv);
	err = errno;
	got = write(failed, &err, sizeof(err)); /* nothing more to do if it fails */
	(void)got;
	_exit(127);
}

static uint64_t timeval_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* The exec's errno when it failed (the pipe closes on a successful exec). */
static int exec_error(int failed)
{
	ssize_t got;
	int err = 0;

	do
		got = read(failed, &err, sizeof(err));
	while (got < 0 && errno == EINTR);
	return got == (ssize_t)sizeof(err) ? err : 0;
}

static int make_pipes(int go[2], int failed[2])
{
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(failed, O_CLOEXEC) < 0) {
		int err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	return 0;
}

int stat_start_command(struct stat_run *run, struct stat_command *cmd)
{
	int go[2], failed[2], err;

	memset(cmd, 0, sizeof(*cmd));
	err = make_pipes(go, failed);
	if (err < 0) {
		cli_format(run->error, sizeof(run->error), "pipe2 failed: %s", strerror(-err));
		return err;
	}
	fflush(NULL); /* nothing buffered twice */
	cmd->pid = fork();
	if (cmd->pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(failed[0]);
		close(failed[1]);
		cmd->pid = 0;
		cli_format(run->error, sizeof(run->error), "fork failed: %s", strerror(-err));
		return err;
	}
	if (cmd->pid == 0) {
		close(go[1]);
		close(failed[0]);
		child(go[0], failed[1], run);
	}
	close(go[0]);
	close(failed[1]);
	cmd->go = go[1];
	cmd->failed = failed[0];
	return 0;
}

int stat_release_command(struct stat_command *cmd)
{
	int err;

	/* SIGPIPE is ignored meanwhile (stat_catch_signals): a child killed
	 * before its release gives EPIPE here, not the end of upmc. */
	cmd->released_ns = stat_now_ns();
	if (write(cmd->go, "g", 1) != 1)
		kill(cmd->pid, SIGKILL); /* it cannot be released: do not leave it waiting */
	close(cmd->go);
	err = exec_error(cmd->failed);
	close(cmd->failed);
	return err;
}

int stat_reap_command(struct stat_run *run, struct stat_command *cmd)
{
	struct rusage ru;
	int status = 0;
	pid_t got;

	do
		got = wait4(cmd->pid, &status, WNOHANG, &ru);
	while (got < 0 && errno == EINTR);
	if (got != cmd->pid)
		return 0;
	run->elapsed_ns = stat_now_ns() - cmd->released_ns;
	run->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	run->exit_status = run->signal ? 128 + run->signal : WEXITSTATUS(status);
	run->user_ns = timeval_ns(ru.ru_utime);
	run->sys_ns = timeval_ns(ru.ru_stime);
	return 1;
}

void stat_abandon_command(struct stat_command *cmd)
{
	if (!cmd->pid)
		return;
	close(cmd->go); /* its read ends: it exits 127 without running anything */
	close(cmd->failed);
	while (waitpid(cmd->pid, NULL, 0) < 0 && errno == EINTR)
		;
	cmd->pid = 0;
}
