/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/linux_util.h"

int open_fd_count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

int perf_mapping_count(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "[perf_event]") != NULL;
	fclose(f);
	return n;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t monotonic_raw_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

void run_in_child(const char *(*fn)(void *), void *arg, char *why, size_t size)
{
	int pipefd[2], status = 0;
	ssize_t got;
	pid_t pid;

	snprintf(why, size, "the child could not be started");
	if (pipe(pipefd))
		return;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		const char *failed = fn(arg);
		ssize_t put;
		close(pipefd[0]);
		put = write(pipefd[1], failed ? failed : "", failed ? strlen(failed) : 0);
		_exit(put < 0 ? 2 : 0);
	}
	close(pipefd[1]);
	got = pid < 0 ? -1 : read(pipefd[0], why, size - 1);
	why[got > 0 ? got : 0] = '\0';
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		snprintf(why, size, "fork or waitpid failed");
	else if (WIFSIGNALED(status))
		snprintf(why, size, "the child was killed by signal %d", WTERMSIG(status));
	else if (WEXITSTATUS(status))
		snprintf(why, size, "the child exited with %d", WEXITSTATUS(status));
}
