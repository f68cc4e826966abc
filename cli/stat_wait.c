/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat` waits for the end of counting: the command's exit (SIGCHLD),
 * a signal that ends it, or the next interval. The handlers write a byte to
 * a pipe that the wait polls, so that a signal between a check and the
 * sleep is not lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/stat.h"

static int wake_pipe[2] = {-1, -1};
static pid_t command_pid;
static volatile sig_atomic_t forwarded, stop_signal;

static const int handled[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE};
#define N_HANDLED (sizeof(handled) / sizeof(handled[0]))
static struct sigaction before[N_HANDLED];

uint64_t stat_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void wake(void)
{
	int saved = errno;
	ssize_t put = write(wake_pipe[1], "s", 1); /* full: a wake is pending anyway */

	(void)put;
	errno = saved;
}

/* SIGTERM and SIGHUP to upmc go on to the command, which would otherwise
 * run on, orphaned, once upmc ended. */
static void pass_on(int sig)
{
	forwarded = sig;
	kill(command_pid, sig);
}

static void stop(int sig)
{
	stop_signal = sig;
	wake();
}

static void child_ended(int sig)
{
	(void)sig;
	wake();
}

static void handle(int sig, void (*handler)(int))
{
	struct sigaction sa;
	unsigned i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < N_HANDLED; i++)
		if (handled[i] == sig)
			sigaction(sig, &sa, &before[i]);
}

int stat_catch_signals(pid_t cmd_pid)
{
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	command_pid = cmd_pid;
	forwarded = 0;
	stop_signal = 0;
	/* SIGPIPE: a command killed before its release must not kill upmc. */
	handle(SIGPIPE, SIG_IGN);
	handle(SIGCHLD, child_ended);
	if (cmd_pid > 0) {
		/* Like perf stat: ^C reaches the whole foreground group, so the
		 * command gets it, and the counts still print when it ends. */
		handle(SIGINT, SIG_IGN);
		handle(SIGQUIT, SIG_IGN);
		handle(SIGTERM, pass_on);
		handle(SIGHUP, pass_on);
	} else {
		/* Counting running tasks or CPUs ends when the user says so. */
		handle(SIGINT, stop);
		handle(SIGQUIT, SIG_DFL);
		handle(SIGTERM, stop);
		handle(SIGHUP, stop);
	}
	return 0;
}

void stat_release_signals(struct stat_run *run)
{
	unsigned i;

	for (i = 0; i < N_HANDLED; i++)
		sigaction(handled[i], &before[i], NULL);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	wake_pipe[0] = wake_pipe[1] = -1;
	run->forwarded = forwarded;
	run->stopped_by = stop_signal;
}

int stat_wait(uint64_t deadline_ns)
{
	struct pollfd p = {wake_pipe[0], POLLIN, 0};
	struct timespec timeout, *t = NULL;
	char drain[64];

	if (stop_signal)
		return 1;
	if (deadline_ns) {
		uint64_t now = stat_now_ns(), left = deadline_ns > now ? deadline_ns - now : 0;
		timeout.tv_sec = (time_t)(left / 1000000000u);
		timeout.tv_nsec = (long)(left % 1000000000u);
		t = &timeout;
	}
	if (ppoll(&p, 1, t, NULL) > 0)
		while (read(wake_pipe[0], drain, sizeof(drain)) > 0)
			;
	return stop_signal != 0;
}
