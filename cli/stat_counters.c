/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s counters: perf events on every unit (the command, a thread
 * or a CPU), read by read(2). Those of a task are inherited by the threads
 * and processes it starts, as perf stat's are; those of the command start
 * at its exec, the others all at once (PERF_EVENT_IOC_ENABLE). A generic
 * event on a hybrid CPU opens once per core PMU (the library's plan) and
 * its parts are summed: they count in turns, so their times add up too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/upmc_linux.h"
#include "cli/cli.h"
#include "cli/stat.h"

_Static_assert(STAT_MAX_PARTS == UPMC_LINUX_MAX_CORE_PMUS, "one part per core PMU");

static int *parts_of(const struct stat_run *run, unsigned u, unsigned i)
{
	return &run->fd[((size_t)u * run->n + i) * STAT_MAX_PARTS];
}

static int perf_open_for(const struct stat_run *run, const struct upmc_event *ev,
                         const struct upmc_linux_attr *plan, const struct stat_unit *u)
{
	struct perf_event_attr attr;

	upmc_linux_attr_init(&attr, ev, plan);
	attr.disabled = 1;
	attr.enable_on_exec = run->target == STAT_COMMAND;
	attr.inherit = u->cpu < 0; /* a CPU's events have no task to follow */
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return upmc_sys_perf_event_open(&attr, u->cpu < 0 ? u->tid : -1, u->cpu, -1);
}

static void close_parts(int *fd)
{
	unsigned k;

	for (k = 0; k < STAT_MAX_PARTS; k++)
		if (fd[k] >= 0) {
			upmc_sys_close(fd[k]);
			fd[k] = -1;
		}
}

static void close_counter(struct stat_run *run, unsigned i)
{
	unsigned u;

	for (u = 0; u < run->n_units; u++)
		close_parts(parts_of(run, u, i));
}

static int unsupported(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL;
}

/* Counter c's parts on unit u (one per core PMU for a generic event on a
 * hybrid CPU; each PMU's own event where big.LITTLE lacks the extended
 * type). On a CPU, only the parts of its own core type open: the others are
 * skipped. 0, or the errno of the part that failed, nothing left open. */
static int open_on_unit(struct stat_run *run, struct stat_counter *c, int *fd,
                        const struct stat_unit *u, struct upmc_linux_attr *plan,
                        const struct upmc_linux_probe *probe)
{
	unsigned k, opened = 0;
	int err = ENOENT;

	for (k = 0; k < c->n_parts; k++) {
		fd[k] = perf_open_for(run, &c->event, &plan[k], u);
		if (fd[k] < 0 && errno == ENOENT &&
		    upmc_linux_pmu_encoding(&c->event, probe, &plan[k]))
			fd[k] = perf_open_for(run, &c->event, &plan[k], u);
		if (fd[k] >= 0) {
			opened++;
			continue;
		}
		err = errno;
		fd[k] = -1;
		if (u->cpu >= 0 && c->n_parts > 1 && unsupported(err))
			continue; /* a part of another core type than this CPU's */
		close_parts(fd);
		return err;
	}
	return opened ? 0 : err;
}

/* Counter i on every unit. 0, or the errno that refused it, nothing left
 * open. A thread that ended since it was listed (ESRCH) is passed over. */
static int open_everywhere(struct stat_run *run, unsigned i, const struct upmc_linux_probe *probe)
{
	struct stat_counter *c = &run->counter[i];
	struct upmc_linux_attr plan[STAT_MAX_PARTS];
	unsigned u, opened = 0;

	/* another task's counters are read by read(2) only */
	c->n_parts = upmc_linux_plan(&c->event, probe, UPMC_OPT_FORCE_SYSCALL, plan);
	for (u = 0; u < run->n_units; u++) {
		int err = open_on_unit(run, c, parts_of(run, u, i), &run->unit[u], plan, probe);
		if (err == ESRCH && run->unit[u].cpu < 0)
			continue;
		if (err) {
			close_counter(run, i);
			return err;
		}
		opened++;
	}
	return opened ? 0 : ESRCH;
}

/*
 * perf stat counts kernel mode too where allowed and falls back to user
 * space otherwise. Not for an event with its own modifier, nor for context
 * switches and migrations, which only happen in the kernel: in user mode
 * alone they would read a silent 0.
 */
static int kernel_only(const struct upmc_event *ev)
{
	return ev->type == UPMC_TYPE_SOFTWARE && (ev->config == 3 || ev->config == 4);
}

static int may_drop_kernel(const struct upmc_event *ev)
{
	return !ev->exclude_kernel && !strchr(ev->name, ':') && !kernel_only(ev);
}

/* The library's sentence without its leading "'name': ". */
static const char *after_name(const char *reason, const char *name)
{
	reason = cli_after_quoted_name(reason, name);
	return reason[0] == ':' ? reason + 2 : reason;
}

/* Kernel mode was refused (err): opens counter i for user space only, and
 * says so. Returns 0, or the errno of that second refusal. */
static int open_user_only(struct stat_run *run, unsigned i, int err,
                          const struct upmc_linux_probe *probe)
{
	struct stat_counter *c = &run->counter[i];
	char why[UPMC_REASON_MAX];

	upmc_linux_explain_open(why, sizeof(why), &c->event, err, 0, probe);
	c->event.exclude_kernel = 1;
	err = open_everywhere(run, i, probe);
	if (err)
		return err;
	cli_format(c->reason, sizeof(c->reason), "'%s' counted user space only: %s", c->event.name,
	           after_name(why, c->event.name));
	return 0;
}

void stat_explain_cpus_refused(char *buf, size_t size, int paranoid)
{
	char level[48] = "";

	if (paranoid != -1)
		cli_format(level, sizeof(level), " (it is %d)", paranoid);
	cli_format(buf, size,
	           "counting whole CPUs (-a, -C) needs root (CAP_PERFMON) or the sysctl "
	           "kernel.perf_event_paranoid <= 0%s: run `sysctl kernel.perf_event_paranoid=0`, "
	           "or count a command or a process instead",
	           level);
}

/* 0, or the errno that ends counting before it starts (run->error says
 * why); a counter refused alone gets its status and reason. */
static int open_counter(struct stat_run *run, unsigned i, const struct upmc_linux_probe *probe)
{
	struct stat_counter *c = &run->counter[i];
	int err = open_everywhere(run, i, probe);
	int refused = err == EACCES || err == EPERM;

	if (refused && run->target == STAT_CPUS) {
		stat_explain_cpus_refused(run->error, sizeof(run->error), probe->paranoid);
		return err;
	}
	if (refused && may_drop_kernel(&c->event))
		err = open_user_only(run, i, err, probe);
	if (!err) {
		c->opened = 1;
		return 0;
	}
	if (err == ESRCH) {
		cli_format(run->error, sizeof(run->error),
		           "%s %s: it ended before counting started",
		           run->target == STAT_THREADS ? "-t" : "-p", run->targets);
		return err;
	}
	upmc_linux_explain_open(c->reason, sizeof(c->reason), &c->event, err, 0, probe);
	c->status = unsupported(err) ? STAT_NOT_SUPPORTED : STAT_NOT_COUNTED;
	return 0;
}

int stat_open_counters(struct stat_run *run)
{
	size_t n_fd = (size_t)run->n_units * run->n * STAT_MAX_PARTS, k;
	struct upmc_linux_probe probe;
	unsigned i;
	int err = 0;

	run->fd = malloc((n_fd ? n_fd : 1) * sizeof(*run->fd));
	run->reading = calloc((size_t)run->n_units * run->n + 1, sizeof(*run->reading));
	if (!run->fd || !run->reading) {
		cli_format(run->error, sizeof(run->error), "out of memory for %u counters on %u %s",
		           run->n, run->n_units, run->target == STAT_CPUS ? "CPUs" : "threads");
		return -ENOMEM;
	}
	for (k = 0; k < n_fd; k++)
		run->fd[k] = -1;
	upmc_linux_probe(&probe);
	for (i = 0; i < run->n && !err; i++)
		err = open_counter(run, i, &probe);
	for (i = 0; err && i < run->n; i++)
		close_counter(run, i);
	return -err;
}

void stat_enable_counters(struct stat_run *run)
{
	size_t k, n_fd = (size_t)run->n_units * run->n * STAT_MAX_PARTS;

	if (run->target == STAT_COMMAND)
		return; /* enable_on_exec */
	for (k = 0; k < n_fd; k++)
		if (run->fd[k] >= 0)
			upmc_sys_ioctl(run->fd[k], PERF_EVENT_IOC_ENABLE, 0);
}

/* Counter c's parts on one unit, added up; 0, or the errno of a failed read. */
static int read_parts(const int *fd, struct stat_reading *r)
{
	uint64_t buf[3]; /* value, time enabled, time running */
	unsigned k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < STAT_MAX_PARTS; k++) {
		ssize_t got;
		if (fd[k] < 0)
			continue;
		got = upmc_sys_read(fd[k], buf, sizeof(buf));
		if (got != (ssize_t)sizeof(buf))
			return got < 0 ? errno : EIO;
		r->count += buf[0];
		/* parts on different core types take turns: the time enabled is
		 * theirs, the time running adds up */
		r->enabled = buf[1] > r->enabled ? buf[1] : r->enabled;
		r->running += buf[2];
	}
	if (r->running > r->enabled)
		r->running = r->enabled;
	return 0;
}

void stat_read_counters(struct stat_run *run)
{
	unsigned i, u;

	for (i = 0; i < run->n; i++) {
		struct stat_counter *c = &run->counter[i];
		for (u = 0; u < run->n_units && c->opened && c->status == STAT_COUNTED; u++) {
			int err = read_parts(parts_of(run, u, i), &run->reading[u * run->n + i]);
			if (!err)
				continue;
			c->status = STAT_NOT_COUNTED;
			cli_format(c->reason, sizeof(c->reason),
			           "'%s': read(2) of the counter failed: %s", c->event.name,
			           err == EIO ? "short read" : strerror(err));
		}
	}
}

/* Counter i's whole count from the last reading. */
static void total(struct stat_run *run, unsigned i)
{
	struct stat_counter *c = &run->counter[i];
	struct stat_reading zero = {0, 0, 0}, sum = stat_sum_units(run, run->reading, i);

	if (!c->opened || c->status != STAT_COUNTED)
		return;
	stat_figure_between(&c->total, &zero, &sum);
	if (c->total.value != UPMC_NOT_COUNTED)
		return;
	c->status = STAT_NOT_COUNTED;
	cli_format(c->reason, sizeof(c->reason),
	           "'%s' never got onto a counter while counting (enabled %llu ns, running 0): "
	           "the PMU's counters were all taken",
	           c->event.name, (unsigned long long)sum.enabled);
}

void stat_close_counters(struct stat_run *run)
{
	unsigned i;

	for (i = 0; i < run->n; i++) {
		total(run, i);
		close_counter(run, i);
	}
}

void stat_free_units(struct stat_run *run)
{
	free(run->unit);
	free(run->fd);
	free(run->reading);
	run->unit = NULL;
	run->fd = NULL;
	run->reading = NULL;
	run->n_units = 0;
}
