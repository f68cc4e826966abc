/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s units, where its perf events are opened: the command; every
 * thread of the -p processes (and, through inherit, the threads they start
 * later); the -t threads; or whole CPUs (-a, -C).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/stat.h"

#define MAX_ID 4194304 /* pid_max's limit; CPU numbers are far below */

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* One "N" or "N-M" at *s, advancing it; 0, or -1 when there is none. */
static int parse_range(const char **s, long *from, long *to)
{
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	*from = *to = strtol(*s, &end, 10);
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		*to = strtol(end + 1, &end, 10);
	}
	*s = end;
	return *from <= *to && *to <= MAX_ID ? 0 : -1;
}

static int append_range(int **ids, unsigned *n, long from, long to)
{
	int *grown = realloc(*ids, (*n + (size_t)(to - from) + 1) * sizeof(**ids));

	if (!grown)
		return -1;
	*ids = grown;
	while (from <= to)
		grown[(*n)++] = (int)from++;
	return 0;
}

int stat_parse_ids(const char *list, int **ids)
{
	unsigned n = 0, i, kept = 0;
	long from, to;

	*ids = NULL;
	for (;;) {
		if (parse_range(&list, &from, &to) < 0 || append_range(ids, &n, from, to) < 0)
			break;
		if (*list == '\0') {
			qsort(*ids, n, sizeof(**ids), compare_ints);
			for (i = 0; i < n; i++)
				if (!kept || (*ids)[kept - 1] != (*ids)[i])
					(*ids)[kept++] = (*ids)[i];
			return (int)kept;
		}
		if (*list++ != ',')
			break;
	}
	free(*ids);
	*ids = NULL;
	return -1;
}

static int add_unit(struct stat_run *run, pid_t tid, int cpu, const char *comm_path)
{
	struct stat_unit *grown = realloc(run->unit, (run->n_units + 1) * sizeof(*grown)), *u;
	FILE *f;

	if (!grown)
		return -ENOMEM;
	run->unit = grown;
	u = &grown[run->n_units++];
	memset(u, 0, sizeof(*u));
	u->tid = tid;
	u->cpu = cpu;
	f = comm_path ? fopen(comm_path, "re") : NULL;
	if (f && fgets(u->comm, sizeof(u->comm), f))
		u->comm[strcspn(u->comm, "\n")] = '\0';
	if (f)
		fclose(f);
	return 0;
}

/* Every thread of process pid, by /proc/PID/task. */
static int add_threads(struct stat_run *run, int pid)
{
	char path[64], comm[320];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir) {
		err = -errno;
		cli_format(run->error, sizeof(run->error), "-p %d: %s", pid,
		           err == -ENOENT ? "no such process" : strerror(-err));
		return err;
	}
	while (!err && (d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		cli_format(comm, sizeof(comm), "/proc/%d/task/%s/comm", pid, d->d_name);
		err = add_unit(run, (pid_t)atoi(d->d_name), -1, comm);
	}
	closedir(dir);
	return err;
}

/* The CPUs that are online now: /sys/devices/system/cpu/online. */
static int online_cpus(struct stat_run *run, int **cpus)
{
	char list[4096] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = -1;

	if (f && fgets(list, sizeof(list), f)) {
		list[strcspn(list, "\n")] = '\0';
		n = stat_parse_ids(list, cpus);
	}
	if (f)
		fclose(f);
	if (n <= 0)
		cli_format(run->error, sizeof(run->error),
		           "cannot tell which CPUs are online: /sys/devices/system/cpu/online is "
		           "unreadable");
	return n;
}

static int is_in(int x, const int *ids, int n)
{
	return bsearch(&x, ids, (size_t)n, sizeof(*ids), compare_ints) != NULL;
}

static int add_cpus(struct stat_run *run)
{
	int *online, n = online_cpus(run, &online), err = 0;
	unsigned i;

	if (n <= 0)
		return -ENOENT;
	if (run->n_ids == 0) { /* -a */
		for (i = 0; i < (unsigned)n && !err; i++)
			err = add_unit(run, -1, online[i], NULL);
	}
	for (i = 0; i < run->n_ids && !err; i++) {
		if (!is_in(run->ids[i], online, n)) {
			cli_format(run->error, sizeof(run->error), "-C: CPU %d is not online",
			           run->ids[i]);
			err = -ENODEV;
		} else {
			err = add_unit(run, -1, run->ids[i], NULL);
		}
	}
	free(online);
	return err;
}

static int add_given_threads(struct stat_run *run)
{
	char comm[64];
	unsigned i;
	int err = 0;

	for (i = 0; i < run->n_ids && !err; i++) {
		snprintf(comm, sizeof(comm), "/proc/%d/comm", run->ids[i]);
		if (access(comm, F_OK) < 0) {
			cli_format(run->error, sizeof(run->error), "-t %d: no such thread",
			           run->ids[i]);
			return -ESRCH;
		}
		err = add_unit(run, run->ids[i], -1, comm);
	}
	return err;
}

int stat_find_units(struct stat_run *run, pid_t command)
{
	unsigned i;
	int err = 0;

	switch (run->target) {
	case STAT_COMMAND:
		return add_unit(run, command, -1, NULL);
	case STAT_PROCESSES:
		for (i = 0; i < run->n_ids && !err; i++)
			err = add_threads(run, run->ids[i]);
		return err;
	case STAT_THREADS:
		return add_given_threads(run);
	case STAT_CPUS:
		return add_cpus(run);
	}
	return -EINVAL;
}

/* Whether task id has not ended: /proc/ID/stat's state is neither zombie
 * nor dead. A process's leader stays a zombie until its last thread ends,
 * so this holds while any of its threads runs. */
static int alive(int id)
{
	char path[64], line[512], *paren;
	FILE *f;
	int live = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && (paren = strrchr(line, ')')))
		live = paren[1] == ' ' && !strchr("ZXx", paren[2]);
	fclose(f);
	return live;
}

int stat_targets_alive(const struct stat_run *run)
{
	unsigned i;

	for (i = 0; i < run->n_ids; i++)
		if (alive(run->ids[i]))
			return 1;
	return 0;
}
