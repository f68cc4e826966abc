/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s counters: perf events attached to the child, inherited by
 * its children, enabled at its exec, read once at its end. A generic event
 * on a hybrid CPU opens once per core PMU (the library's plan) and its
 * parts are summed: they count in turns, so their times add up too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/upmc_linux.h"
#include "cli/cli.h"
#include "cli/stat.h"

_Static_assert(STAT_MAX_PARTS == UPMC_LINUX_MAX_CORE_PMUS, "one part per core PMU");

static int perf_open_for(const struct upmc_event *ev, const struct upmc_linux_attr *plan, pid_t pid)
{
	struct perf_event_attr attr;

	upmc_linux_attr_init(&attr, ev, plan);
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return upmc_sys_perf_event_open(&attr, pid, -1, -1);
}

static void close_parts(struct stat_counter *c)
{
	while (c->n_fd)
		upmc_sys_close(c->fd[--c->n_fd]);
}

/* Every part of c (one per core PMU for a generic event on a hybrid CPU;
 * each PMU's own event where big.LITTLE lacks the extended type). 0, or
 * the errno of the part that failed, with nothing left open. */
static int open_parts(struct stat_counter *c, pid_t pid, const struct upmc_linux_probe *probe)
{
	struct upmc_linux_attr plan[STAT_MAX_PARTS];
	/* another task's counters are read by read(2) only */
	unsigned k, n = upmc_linux_plan(&c->event, probe, UPMC_OPT_FORCE_SYSCALL, plan);

	for (k = 0; k < n; k++) {
		int fd = perf_open_for(&c->event, &plan[k], pid);
		if (fd < 0 && errno == ENOENT &&
		    upmc_linux_pmu_encoding(&c->event, probe, &plan[k]))
			fd = perf_open_for(&c->event, &plan[k], pid);
		if (fd < 0) {
			int err = errno;
			close_parts(c);
			return err;
		}
		c->fd[c->n_fd++] = fd;
	}
	return 0;
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

static int unsupported(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EINVAL;
}

/* The library's sentence without its leading "'name': ". */
static const char *after_name(const char *reason, const char *name)
{
	reason = cli_after_quoted_name(reason, name);
	return reason[0] == ':' ? reason + 2 : reason;
}

/* Kernel mode was refused (err): opens c for user space only, and says so.
 * Returns 0, or the errno of that second refusal. */
static int open_user_only(struct stat_counter *c, pid_t pid, int err,
                          const struct upmc_linux_probe *probe)
{
	char why[UPMC_REASON_MAX];

	upmc_linux_explain_open(why, sizeof(why), &c->event, err, 0, probe);
	c->event.exclude_kernel = 1;
	err = open_parts(c, pid, probe);
	if (err)
		return err;
	cli_format(c->reason, sizeof(c->reason), "'%s' counted user space only: %s", c->event.name,
	           after_name(why, c->event.name));
	return 0;
}

static void open_counter(struct stat_counter *c, pid_t pid, const struct upmc_linux_probe *probe)
{
	int err = open_parts(c, pid, probe);

	if ((err == EACCES || err == EPERM) && may_drop_kernel(&c->event))
		err = open_user_only(c, pid, err, probe);
	if (!err) {
		c->opened = 1;
		return;
	}
	upmc_linux_explain_open(c->reason, sizeof(c->reason), &c->event, err, 0, probe);
	c->status = unsupported(err) ? STAT_NOT_SUPPORTED : STAT_NOT_COUNTED;
}

void stat_open_counters(struct stat_run *run, pid_t pid)
{
	struct upmc_linux_probe probe;
	unsigned i;

	upmc_linux_probe(&probe);
	for (i = 0; i < run->n; i++)
		open_counter(&run->counter[i], pid, &probe);
}

/* The parts' counts added up, scaled when they ran for less than the time
 * enabled (parts on different core types take turns, they do not overlap). */
static void read_counter(struct stat_counter *c)
{
	uint64_t buf[3], sum = 0; /* value, time enabled, time running */
	unsigned k;

	for (k = 0; k < c->n_fd; k++) {
		ssize_t got = upmc_sys_read(c->fd[k], buf, sizeof(buf));
		if (got != (ssize_t)sizeof(buf)) {
			c->status = STAT_NOT_COUNTED;
			cli_format(c->reason, sizeof(c->reason),
			           "'%s': read(2) of the counter failed: %s", c->event.name,
			           got < 0 ? strerror(errno) : "short read");
			return;
		}
		sum += buf[0];
		c->enabled = buf[1] > c->enabled ? buf[1] : c->enabled;
		c->running += buf[2];
	}
	if (c->running > c->enabled)
		c->running = c->enabled;
	if (!c->n_fd)
		return;
	if (!c->running) {
		c->status = STAT_NOT_COUNTED;
		cli_format(c->reason, sizeof(c->reason),
		           "'%s' never got onto a counter while the command ran (enabled %llu ns, "
		           "running 0): the PMU's counters were all taken",
		           c->event.name, (unsigned long long)c->enabled);
		return;
	}
	c->value = upmc_scale(sum, c->enabled, c->running);
}

void stat_close_counters(struct stat_run *run)
{
	unsigned i;

	for (i = 0; i < run->n; i++) {
		read_counter(&run->counter[i]);
		close_parts(&run->counter[i]);
	}
}
