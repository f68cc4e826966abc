/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s counters: perf events on every unit (the command, a thread
 * or a CPU), read by read(2). Those of a task are inherited by the threads
 * and processes it starts, as perf stat's are; those of the command start
 * at its exec, the others all at once (PERF_EVENT_IOC_ENABLE). A generic
 * event on a hybrid CPU opens once per core PMU (the library's plan) and
 * its parts are summed: they count in turns, so their times add up too.
 * Counters of one group (stat_plan.c: a metric's inputs, a --rotate pass)
 * are one perf group per PMU, read at once with the leader's times, so
 * each is scaled by its group's own time on the PMU.
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

static size_t part_index(const struct stat_run *run, unsigned u, unsigned i, unsigned k)
{
	return ((size_t)u * run->n + i) * STAT_MAX_PARTS + k;
}

static int *parts_of(const struct stat_run *run, unsigned u, unsigned i)
{
	return &run->fd[part_index(run, u, i, 0)];
}

/* The leader of counter i's group on unit u for a part on the PMU of key:
 * the first part of an earlier counter of its group there; STAT_SOLO when
 * it has no group, or leads it. */
static size_t leader_for(const struct stat_run *run, unsigned u, unsigned i, uint32_t key)
{
	unsigned j, k;

	for (j = 0; j < i && run->counter[i].group; j++) {
		const struct stat_counter *c = &run->counter[j];
		for (k = 0; k < c->n_parts && c->group == run->counter[i].group; k++) {
			size_t at = part_index(run, u, j, k);
			if (c->key[k] == key && run->fd[at] >= 0 && run->lead[at] == at)
				return at;
		}
	}
	return STAT_SOLO;
}

/* A new member's place in the group read of the leader at `lead`. */
static unsigned next_position(const struct stat_run *run, size_t lead)
{
	size_t n_fd = (size_t)run->n_units * run->n * STAT_MAX_PARTS, at;
	unsigned members = 0;

	for (at = 0; at < n_fd; at++)
		members += run->fd[at] >= 0 && run->lead[at] == lead;
	return members;
}

/*
 * A leader (lead < 0) opens disabled, its members follow it. With
 * --rotate, a leader is pinned: its pass is on the PMU whole, or its read
 * says it could not be (0 bytes), never time-shared.
 */
static int perf_open_for(const struct stat_run *run, const struct stat_counter *c,
                         const struct upmc_linux_attr *plan, const struct stat_unit *u, int lead)
{
	struct perf_event_attr attr;

	upmc_linux_attr_init(&attr, &c->event, plan);
	attr.disabled = lead < 0;
	attr.pinned = lead < 0 && run->passes;
	attr.enable_on_exec = lead < 0 && run->target == STAT_COMMAND;
	attr.inherit = u->cpu < 0; /* a CPU's events have no task to follow */
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
	                   (c->group ? PERF_FORMAT_GROUP : 0);
	return upmc_sys_perf_event_open(&attr, u->cpu < 0 ? u->tid : -1, u->cpu, lead);
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

/* Part k of counter i on unit uu: in its group, or alone; its fd, or -1
 * with errno. */
static int open_part(struct stat_run *run, unsigned i, unsigned uu, unsigned k,
                     struct upmc_linux_attr *plan, const struct upmc_linux_probe *probe)
{
	struct stat_counter *c = &run->counter[i];
	const struct stat_unit *u = &run->unit[uu];
	size_t at = part_index(run, uu, i, k), lead = leader_for(run, uu, i, plan->key);
	int lead_fd = lead == STAT_SOLO ? -1 : run->fd[lead];
	int fd = perf_open_for(run, c, plan, u, lead_fd);

	if (fd < 0 && errno == ENOENT && upmc_linux_pmu_encoding(&c->event, probe, plan))
		fd = perf_open_for(run, c, plan, u, lead_fd);
	if (fd < 0)
		return -1;
	run->lead[at] = lead != STAT_SOLO ? lead : c->group ? at : STAT_SOLO;
	run->pos[at] = lead != STAT_SOLO ? next_position(run, lead) : 0;
	return fd;
}

/* Would part k of counter i open alone? Tells "its group is too big for
 * the PMU" from "the PMU has no such event". */
static int opens_alone(struct stat_run *run, unsigned i, unsigned uu,
                       const struct upmc_linux_attr *plan)
{
	int fd = perf_open_for(run, &run->counter[i], plan, &run->unit[uu], -1);

	if (fd < 0)
		return 0;
	upmc_sys_close(fd);
	return 1;
}

/* Counter i's parts on unit uu (one per core PMU for a generic event on a
 * hybrid CPU; each PMU's own event where big.LITTLE lacks the extended
 * type). On a CPU, only the parts of its own core type open: the others are
 * skipped. 0, or the errno of the part that failed, nothing left open;
 * *too_big: the part would open alone, not in its group. */
static int open_on_unit(struct stat_run *run, unsigned i, unsigned uu, struct upmc_linux_attr *plan,
                        const struct upmc_linux_probe *probe, int *too_big)
{
	struct stat_counter *c = &run->counter[i];
	int *fd = parts_of(run, uu, i);
	unsigned k, opened = 0;
	int err = ENOENT;

	for (k = 0; k < c->n_parts; k++) {
		fd[k] = open_part(run, i, uu, k, &plan[k], probe);
		if (fd[k] >= 0) {
			opened++;
			continue;
		}
		err = errno;
		if (run->unit[uu].cpu >= 0 && c->n_parts > 1 && unsupported(err))
			continue; /* a part of another core type than this CPU's */
		*too_big = err == EINVAL && c->group && opens_alone(run, i, uu, &plan[k]);
		close_parts(fd);
		return err;
	}
	return opened ? 0 : err;
}

/* Counter i on every unit. 0, or the errno that refused it, nothing left
 * open. A thread that ended since it was listed (ESRCH) is passed over. */
static int open_everywhere(struct stat_run *run, unsigned i, const struct upmc_linux_probe *probe,
                           int *too_big)
{
	struct stat_counter *c = &run->counter[i];
	struct upmc_linux_attr plan[STAT_MAX_PARTS];
	unsigned u, k, opened = 0;

	/* another task's counters are read by read(2) only */
	c->n_parts = upmc_linux_plan(&c->event, probe, UPMC_OPT_FORCE_SYSCALL, plan);
	for (k = 0; k < c->n_parts; k++)
		c->key[k] = plan[k].key;
	for (u = 0; u < run->n_units; u++) {
		int err = open_on_unit(run, i, u, plan, probe, too_big);
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
                          const struct upmc_linux_probe *probe, int *too_big)
{
	struct stat_counter *c = &run->counter[i];
	char why[UPMC_REASON_MAX];

	upmc_linux_explain_open(why, sizeof(why), &c->event, err, 0, probe);
	c->event.exclude_kernel = 1;
	err = open_everywhere(run, i, probe, too_big);
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

/* A group the PMU cannot hold at once, even with no other user. */
static void explain_too_big(struct stat_run *run, struct stat_counter *c)
{
	const char *group = run->passes ? "pass" : "metric's inputs";

	cli_format(c->reason, sizeof(c->reason),
	           "'%s' does not fit on the PMU in one group with the events of its %s before "
	           "it: the PMU has too few counters for them all at once; %s",
	           c->event.name, group,
	           run->passes ? "give fewer events in that -e list"
	                       : "count that metric apart, or its events with -e alone");
}

/* 0, or the errno that ends counting before it starts (run->error says
 * why); a counter refused alone gets its status and reason. */
static int open_counter(struct stat_run *run, unsigned i, const struct upmc_linux_probe *probe)
{
	struct stat_counter *c = &run->counter[i];
	int too_big = 0, err, refused;

	/* An event of this CPU that cannot be named here (no core PMU) is
	 * not opened: it is not supported, for the PMU's absence. */
	if (c->event.missing) {
		upmc_linux_explain_open(c->reason, sizeof(c->reason), &c->event, ENODEV, 0, probe);
		c->status = STAT_NOT_SUPPORTED;
		return 0;
	}
	err = open_everywhere(run, i, probe, &too_big);
	refused = err == EACCES || err == EPERM;

	if (refused && run->target == STAT_CPUS) {
		stat_explain_cpus_refused(run->error, sizeof(run->error), probe->paranoid);
		return err;
	}
	if (refused && may_drop_kernel(&c->event))
		err = open_user_only(run, i, err, probe, &too_big);
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
	if (too_big)
		explain_too_big(run, c);
	else
		upmc_linux_explain_open(c->reason, sizeof(c->reason), &c->event, err, 0, probe);
	c->status = unsupported(err) && !too_big ? STAT_NOT_SUPPORTED : STAT_NOT_COUNTED;
	return 0;
}

/* Whether this run counts counter i (--rotate: those of its pass). */
static int in_this_run(const struct stat_run *run, unsigned i)
{
	return !run->passes || run->counter[i].pass == run->pass;
}

int stat_open_counters(struct stat_run *run)
{
	size_t n_fd = (size_t)run->n_units * run->n * STAT_MAX_PARTS, k;
	struct upmc_linux_probe probe;
	unsigned i;
	int err = 0;

	run->fd = malloc((n_fd ? n_fd : 1) * sizeof(*run->fd));
	run->lead = malloc((n_fd ? n_fd : 1) * sizeof(*run->lead));
	run->pos = calloc(n_fd + 1, sizeof(*run->pos));
	run->reading = calloc((size_t)run->n_units * run->n + 1, sizeof(*run->reading));
	if (!run->fd || !run->lead || !run->pos || !run->reading) {
		cli_format(run->error, sizeof(run->error), "out of memory for %u counters on %u %s",
		           run->n, run->n_units, run->target == STAT_CPUS ? "CPUs" : "threads");
		return -ENOMEM;
	}
	for (k = 0; k < n_fd; k++) {
		run->fd[k] = -1;
		run->lead[k] = STAT_SOLO;
	}
	upmc_linux_probe(&probe);
	for (i = 0; i < run->n && !err; i++)
		if (in_this_run(run, i))
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

/* Every perf event's reading on unit u: raw[i * STAT_MAX_PARTS + k], with
 * the errno of a failed read in err[] (ENODATA: a pinned group that could
 * not go on the PMU, whose read gives 0 bytes). A group is read once, at
 * its leader, for all its members: their counts at one instant, with the
 * group's times. */
static void read_unit(const struct stat_run *run, unsigned u, struct stat_reading *raw, int *err)
{
	uint64_t buf[3 + UPMC_MAX_COUNTERS * STAT_MAX_PARTS];
	size_t first = part_index(run, u, 0, 0), n = (size_t)run->n * STAT_MAX_PARTS, a, m;

	for (a = first; a < first + n; a++) {
		int group = run->lead[a] != STAT_SOLO;
		ssize_t got;
		if (run->fd[a] < 0 || (group && run->lead[a] != a))
			continue; /* none, or a member: its leader reads it */
		memset(buf, 0, sizeof(buf));
		got = upmc_sys_read(run->fd[a], buf, sizeof(buf));
		for (m = group ? first : a; m < (group ? first + n : a + 1); m++) {
			size_t words = group ? 4 + run->pos[m] : 3;
			if (run->fd[m] < 0 || run->lead[m] != run->lead[a])
				continue;
			err[m - first] = got < 0                              ? errno
			                 : got == 0                           ? ENODATA
			                 : (size_t)got < words * sizeof(*buf) ? EIO
			                                                      : 0;
			raw[m - first] = (struct stat_reading){buf[group ? 3 + run->pos[m] : 0],
			                                       buf[1], buf[2]};
		}
	}
}

/* Counter i's parts added up: 0, or the errno of a failed read. */
static int add_parts(const struct stat_run *run, unsigned u, unsigned i,
                     const struct stat_reading *raw, const int *err, struct stat_reading *r)
{
	unsigned k;

	memset(r, 0, sizeof(*r));
	for (k = 0; k < STAT_MAX_PARTS; k++) {
		const struct stat_reading *p = &raw[i * STAT_MAX_PARTS + k];
		if (run->fd[part_index(run, u, i, k)] < 0)
			continue;
		if (err[i * STAT_MAX_PARTS + k])
			return err[i * STAT_MAX_PARTS + k];
		r->count += p->count;
		/* parts on different core types take turns: the time enabled is
		 * theirs, the time running adds up */
		r->enabled = p->enabled > r->enabled ? p->enabled : r->enabled;
		r->running += p->running;
	}
	if (r->running > r->enabled)
		r->running = r->enabled;
	return 0;
}

static void read_failed(struct stat_counter *c, int err)
{
	c->status = STAT_NOT_COUNTED;
	if (err == ENODATA)
		cli_format(c->reason, sizeof(c->reason),
		           "'%s' was not counted: its pass could not go on the PMU whole (another "
		           "user holds counters: a perf session, the NMI watchdog)",
		           c->event.name);
	else
		cli_format(c->reason, sizeof(c->reason), "'%s': read(2) of the counter failed: %s",
		           c->event.name, err == EIO ? "short read" : strerror(err));
}

void stat_read_counters(struct stat_run *run)
{
	struct stat_reading raw[UPMC_MAX_COUNTERS * STAT_MAX_PARTS];
	int err[UPMC_MAX_COUNTERS * STAT_MAX_PARTS];
	unsigned i, u;

	for (u = 0; u < run->n_units; u++) {
		memset(err, 0, sizeof(err));
		read_unit(run, u, raw, err);
		for (i = 0; i < run->n; i++) {
			struct stat_counter *c = &run->counter[i];
			int failed;
			if (!c->opened || c->status != STAT_COUNTED)
				continue;
			failed = add_parts(run, u, i, raw, err, &run->reading[u * run->n + i]);
			if (failed)
				read_failed(c, failed);
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
	free(run->lead);
	free(run->pos);
	free(run->reading);
	run->unit = NULL;
	run->fd = NULL;
	run->lead = NULL;
	run->pos = NULL;
	run->reading = NULL;
	run->n_units = 0;
}
