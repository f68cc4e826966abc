/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`: the child and its counters. The child waits on a pipe until
 * its counters are open, then execs; they start counting at the exec
 * (enable_on_exec) and follow its children (inherit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/stat.h"

/* In the child: wait for the go, then become the command. */
static void __attribute__((noreturn)) child(int go, int failed, char **argv)
{
	ssize_t got;
	char c;
	int err;

	do
		got = read(go, &c, 1);
	while (got < 0 && errno == EINTR);
	if (got != 1)
		_exit(127); /* the parent gave up before the exec */
	execvp(argv[0], argv);
	err = errno;
	got = write(failed, &err, sizeof(err)); /* nothing more to do if it fails */
	(void)got;
	_exit(127);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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

static void record_exit(struct stat_run *run, int status, const struct rusage *ru)
{
	run->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	run->exit_status = run->signal ? 128 + run->signal : WEXITSTATUS(status);
	run->user_ns = timeval_ns(ru->ru_utime);
	run->sys_ns = timeval_ns(ru->ru_stime);
}

/* SIGTERM and SIGHUP to upmc go on to the command, which would otherwise
 * run on, orphaned, once upmc ended. */
static pid_t command_pid;
static volatile sig_atomic_t forwarded;

static void forward(int sig)
{
	forwarded = sig;
	kill(command_pid, sig);
}

/* Releases the child, waits for it; returns the exec's errno or 0. */
static int run_child(struct stat_run *run, pid_t pid, int go, int failed)
{
	struct sigaction ignore, pass_on, old_int, old_quit, old_pipe, old_term, old_hup;
	struct rusage ru;
	uint64_t t0;
	int status = 0, err;

	/* Like perf stat: ^C goes to the command, and the counts still print.
	 * SIGPIPE: a child killed before its release must not kill upmc. */
	memset(&ignore, 0, sizeof(ignore));
	ignore.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	sigaction(SIGPIPE, &ignore, &old_pipe);
	command_pid = pid;
	forwarded = 0;
	memset(&pass_on, 0, sizeof(pass_on));
	pass_on.sa_handler = forward;
	pass_on.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &pass_on, &old_term);
	sigaction(SIGHUP, &pass_on, &old_hup);
	t0 = now_ns();
	if (write(go, "g", 1) != 1)
		kill(pid, SIGKILL); /* it cannot be released: do not leave it waiting */
	close(go);
	err = exec_error(failed);
	close(failed);
	while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
		;
	run->elapsed_ns = now_ns() - t0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	run->forwarded = forwarded;
	record_exit(run, status, &ru);
	return err;
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

int stat_run_command(struct stat_run *run)
{
	int go[2], failed[2], err;
	pid_t pid;

	err = make_pipes(go, failed);
	if (err < 0) {
		cli_format(run->error, sizeof(run->error), "pipe2 failed: %s", strerror(-err));
		return err;
	}
	fflush(NULL); /* nothing buffered twice */
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		close(failed[0]);
		close(failed[1]);
		cli_format(run->error, sizeof(run->error), "fork failed: %s", strerror(-err));
		return err;
	}
	if (pid == 0) {
		close(go[1]);
		close(failed[0]);
		child(go[0], failed[1], run->argv);
	}
	close(go[0]);
	close(failed[1]);
	stat_open_counters(run, pid);
	err = run_child(run, pid, go[1], failed[0]);
	stat_close_counters(run);
	run->exec_errno = err;
	if (err) {
		cli_format(run->error, sizeof(run->error), "cannot run '%s': %s", run->argv[0],
		           strerror(err));
		return -err;
	}
	return 0;
}
