/* SPDX-License-Identifier: MIT */
/*
 * Linux: perf_event_open groups, their mmap'd metadata pages, read(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/os.h"
#include "os/linux/probe.h"

/* upmc_perf_page mirrors the uapi page: check every field the reader uses. */
#define SAME_OFFSET(field)                                             \
	_Static_assert(offsetof(struct perf_event_mmap_page, field) == \
	                       offsetof(struct upmc_perf_page, field), \
	               "upmc_perf_page." #field " is not where the kernel puts it")
SAME_OFFSET(lock);
SAME_OFFSET(index);
SAME_OFFSET(offset);
SAME_OFFSET(time_enabled);
SAME_OFFSET(time_running);
SAME_OFFSET(capabilities);
SAME_OFFSET(pmc_width);
SAME_OFFSET(time_shift);
SAME_OFFSET(time_mult);
SAME_OFFSET(time_offset);
SAME_OFFSET(time_zero);
SAME_OFFSET(time_cycles);
SAME_OFFSET(time_mask);

struct linux_set {
	int fd[UPMC_MAX_COUNTERS]; /* -1: not open */
	void *map[UPMC_MAX_COUNTERS];
	unsigned group[UPMC_MAX_COUNTERS]; /* counter of each group member, in group order */
	unsigned members;
	size_t page_size;
};

/* Index 0: the inline reader always takes the slow path on it. */
static const struct upmc_perf_page no_page;

static int perf_event_open(struct perf_event_attr *attr, int group)
{
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static int wants_user_read(const struct upmc_event *ev, unsigned flags)
{
	return UPMC_ARCH_HAS_USER_READ && ev->type != UPMC_TYPE_SOFTWARE &&
	       !(flags & UPMC_OPT_FORCE_SYSCALL);
}

/*
 * The first event of a set leads its group: opened disabled and pinned, so
 * that the group either runs whole or its read says it is not running.
 */
static int open_event(const struct upmc_event *ev, int leader, int user_read)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = ev->type;
	attr.config = ev->config;
	attr.disabled = leader < 0;
	attr.pinned = leader < 0;
	attr.exclude_user = ev->exclude_user;
	attr.exclude_kernel = ev->exclude_kernel;
	attr.exclude_hv = 1;
	attr.read_format =
	        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
#if defined(__aarch64__)
	if (user_read) {
		/* config1 bit 1 asks for user access, bit 0 for a 64-bit
		 * counter; PMUs without 64-bit event counters refuse bit 0. */
		int fd;
		attr.config1 = 3;
		fd = perf_event_open(&attr, leader);
		if (fd >= 0 || errno != EOPNOTSUPP)
			return fd;
		attr.config1 = 2;
	}
#else
	(void)user_read;
#endif
	return perf_event_open(&attr, leader);
}

/* Would ev open on its own? Tells "the group is full" from "unsupported". */
static int opens_alone(const struct upmc_event *ev, int user_read)
{
	int fd = open_event(ev, -1, user_read);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int can_fall_back(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EACCES ||
	       err == EPERM || err == EINVAL || err == EBUSY;
}

static void release(struct linux_set *ls)
{
	unsigned i;

	for (i = 0; i < UPMC_MAX_COUNTERS; i++) {
		if (ls->map[i])
			munmap(ls->map[i], ls->page_size);
		if (ls->fd[i] >= 0)
			close(ls->fd[i]);
	}
	free(ls);
}

static int open_counters(struct upmc_set *set, struct linux_set *ls, unsigned flags,
                         const struct upmc_linux_probe *probe)
{
	int leader = -1;
	unsigned i;

	for (i = 0; i < set->n; i++) {
		struct upmc_counter *c = &set->state->counter[i];
		int user = wants_user_read(&c->event, flags);
		int fd = open_event(&c->event, leader, user);

		set->page[i] = &no_page;
		if (fd < 0) {
			int err = errno;
			upmc_linux_explain_open(c->reason, sizeof(c->reason), &c->event, err,
			                        leader >= 0 && opens_alone(&c->event, user), probe);
			if (!(flags & UPMC_OPT_TIME_ONLY) || !can_fall_back(err))
				return upmc_fail(-err, "%s", c->reason);
			c->path = UPMC_PATH_UNAVAILABLE;
			continue;
		}
		if (leader < 0)
			leader = fd;
		ls->fd[i] = fd;
		ls->group[ls->members++] = i;
		c->path = UPMC_PATH_SYSCALL;
	}
	return 0;
}

/* Maps the page of every counter that could be read in user space, and
 * faults it in now so that the first read does not pay for it. */
static void map_pages(struct upmc_set *set, struct linux_set *ls, unsigned flags)
{
	unsigned i;

	for (i = 0; i < set->n; i++) {
		struct upmc_counter *c = &set->state->counter[i];
		void *p;

		if (ls->fd[i] < 0 || !wants_user_read(&c->event, flags))
			continue;
		p = mmap(NULL, ls->page_size, PROT_READ, MAP_SHARED | MAP_POPULATE, ls->fd[i], 0);
		if (p == MAP_FAILED) {
			upmc_format(c->reason, sizeof(c->reason),
			            "mmap of the perf page failed (%s): raise "
			            "kernel.perf_event_mlock_kb "
			            "or `ulimit -l`; read(2) is used",
			            strerror(errno));
			continue;
		}
		ls->map[i] = p;
		set->page[i] = p;
		(void)UPMC_READ_ONCE(set->page[i]->lock);
	}
}

static void syscall_reason(struct upmc_counter *c, unsigned flags)
{
	if (c->reason[0])
		return;
	if (c->event.type == UPMC_TYPE_SOFTWARE)
		upmc_format(c->reason, sizeof(c->reason),
		            "software event: the kernel counts it, read(2) reads it");
	else if (flags & UPMC_OPT_FORCE_SYSCALL)
		upmc_format(c->reason, sizeof(c->reason),
		            "UPMC_OPT_FORCE_SYSCALL asks for read(2)");
	else
		upmc_format(
		        c->reason, sizeof(c->reason),
		        "this architecture (%s) has no user-space counter read; read(2) is used",
		        UPMC_ARCH_NAME);
}

/* After the group is enabled: which counters the kernel lets us read. */
static void choose_paths(struct upmc_set *set, struct linux_set *ls, unsigned flags,
                         const struct upmc_linux_probe *probe)
{
	unsigned i, user = 0;

	for (i = 0; i < set->n; i++) {
		struct upmc_counter *c = &set->state->counter[i];
		const volatile struct upmc_perf_page *pc = set->page[i];

		if (c->path != UPMC_PATH_SYSCALL)
			continue;
		if (ls->map[i] && pc->index && (pc->capabilities & UPMC_CAP_USER_RDPMC)) {
			c->path = UPMC_PATH_USER;
			user++;
		} else if (ls->map[i]) {
			upmc_linux_explain_no_user_read(c->reason, sizeof(c->reason), probe);
		} else {
			syscall_reason(c, flags);
		}
	}
	set->user_n = user == set->n ? set->n : 0;
}

/* A pinned group that cannot get onto the PMU goes into an error state,
 * in which read(2) returns 0 bytes. */
static int group_is_running(struct linux_set *ls)
{
	uint64_t buf[3 + UPMC_MAX_COUNTERS];

	return read(ls->fd[ls->group[0]], buf, sizeof(buf)) > 0;
}

static void mark_unavailable(struct upmc_set *set, struct linux_set *ls, const char *why)
{
	unsigned k;

	for (k = 0; k < ls->members; k++) {
		struct upmc_counter *c = &set->state->counter[ls->group[k]];
		c->path = UPMC_PATH_UNAVAILABLE;
		upmc_format(c->reason, sizeof(c->reason), "%s", why);
	}
}

static const char pinned_failed[] =
        "the counters could not be put on the PMU together: another user holds them (a "
        "system-wide perf session, a profiler, the NMI watchdog: `sysctl kernel.nmi_watchdog=0`)";

int upmc_os_open(struct upmc_set *set, unsigned flags)
{
	struct upmc_linux_probe probe;
	struct linux_set *ls = calloc(1, sizeof(*ls));
	unsigned i;
	int err;

	if (!ls)
		return upmc_fail(-ENOMEM, "out of memory");
	for (i = 0; i < UPMC_MAX_COUNTERS; i++)
		ls->fd[i] = -1;
	ls->page_size = (size_t)sysconf(_SC_PAGESIZE);
	upmc_linux_probe(&probe);
	err = open_counters(set, ls, flags, &probe);
	if (err < 0) {
		release(ls);
		return err;
	}
	map_pages(set, ls, flags);
	if (ls->members && ioctl(ls->fd[ls->group[0]], PERF_EVENT_IOC_ENABLE, 0) < 0) {
		err = upmc_fail(-errno, "enabling the counters failed: %s", strerror(errno));
		release(ls);
		return err;
	}
	if (ls->members && !group_is_running(ls)) {
		if (!(flags & UPMC_OPT_TIME_ONLY)) {
			release(ls);
			return upmc_fail(-EBUSY, "%s", pinned_failed);
		}
		mark_unavailable(set, ls, pinned_failed);
	}
	choose_paths(set, ls, flags, &probe);
	set->state->os = ls;
	return 0;
}

void upmc_os_close(struct upmc_set *set)
{
	struct linux_set *ls = set->state->os;
	unsigned i;

	if (!ls)
		return;
	for (i = 0; i < set->n; i++)
		set->page[i] = &no_page;
	set->user_n = 0;
	release(ls);
	set->state->os = NULL;
}

int upmc_os_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	struct linux_set *ls = set->state->os;
	uint64_t buf[3 + UPMC_MAX_COUNTERS] = {0}; /* nr, enabled, running, values */
	size_t want = sizeof(uint64_t) * (3 + ls->members);
	unsigned i;
	ssize_t got = 0;

	for (i = 0; i < set->n; i++)
		values[i] = UPMC_NOT_COUNTED;
	if (ls->members && set->state->counter[ls->group[0]].path != UPMC_PATH_UNAVAILABLE)
		got = read(ls->fd[ls->group[0]], buf, want);
	if (got < 0)
		return upmc_fail(-errno, "read(2) of the counters failed: %s", strerror(errno));
	if (ls->members && got == 0 &&
	    set->state->counter[ls->group[0]].path != UPMC_PATH_UNAVAILABLE)
		return upmc_fail(-EBUSY, "%s", pinned_failed);
	if (got && (size_t)got < want)
		return upmc_fail(-EIO, "read(2) returned %zd bytes, expected %zu", got, want);
	for (i = 0; i < ls->members && buf[2]; i++)
		values[ls->group[i]] = buf[3 + i];
	if (enabled)
		*enabled = buf[1];
	if (running)
		*running = buf[2];
	return (int)set->n;
}

/* The time fields of a page, read under its seqlock (the uapi layout). */
static int page_clock(const volatile struct perf_event_mmap_page *pc, struct upmc_clock *clock)
{
	uint32_t seq;
	int ok;

	do {
		seq = pc->lock;
		upmc_barrier();
		ok = pc->cap_user_time_zero;
		clock->zero = pc->time_zero;
		clock->mult = pc->time_mult;
		clock->shift = pc->time_shift;
		upmc_barrier();
	} while (pc->lock != seq);
	clock->source = UPMC_CLOCK_KERNEL;
	return ok ? 0 : -ENOTSUP;
}

/* A software event that counts nothing, opened only for its page's clock. */
static int dummy_clock(struct upmc_clock *clock)
{
	struct perf_event_attr attr;
	size_t size = (size_t)sysconf(_SC_PAGESIZE);
	void *p;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = perf_event_open(&attr, -1);
	if (fd < 0)
		return -errno;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	err = p == MAP_FAILED ? -errno : page_clock(p, clock);
	if (p != MAP_FAILED)
		munmap(p, size);
	close(fd);
	return err;
}

int upmc_os_kernel_clock(struct upmc_set *set, struct upmc_clock *clock)
{
	struct linux_set *ls = set->state->os;
	unsigned i;

	if (!UPMC_ARCH_HAS_USER_READ)
		return -ENOTSUP; /* the timestamps are not the page's cycles */
	for (i = 0; ls && i < set->n; i++)
		if (ls->map[i])
			return page_clock(ls->map[i], clock);
	return dummy_clock(clock);
}

uint64_t upmc_os_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
