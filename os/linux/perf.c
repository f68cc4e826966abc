/* SPDX-License-Identifier: MIT */
/*
 * Linux: perf_event_open groups, their mmap'd metadata pages, read(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/os.h"
#include "os/linux/probe.h"
#include "os/linux/sys.h"

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

#define MAX_EVENTS (UPMC_MAX_COUNTERS * UPMC_LINUX_MAX_CORE_PMUS)

/* One perf event. A counter has one, or one per core PMU on a hybrid CPU. */
struct linux_event {
	int fd;
	void *map;        /* its page when it may be read in user space */
	unsigned counter; /* the set's counter it adds to */
	unsigned group;
	int user_read;   /* its page may offer a user-space read: map it */
	uint64_t cached; /* its count at its group's last read(2) */
	uint64_t id;     /* the kernel's id of the event (0: unknown) */
};

/* A perf group: read(2) on its leader gives every member, in open order. */
struct linux_group {
	int leader; /* fd */
	unsigned key;
	int core;            /* its events are on a core PMU: they count in turns */
	uint32_t cached_seq; /* its pages' lock sum at the last read(2) */
	uint64_t cached_running;
	int idle; /* not on the PMU since the read(2) before the last */
};

struct linux_set {
	struct linux_event ev[MAX_EVENTS];
	struct linux_group grp[MAX_EVENTS];
	unsigned n_ev, n_grp;
	int hybrid, multiplex;
	int one_group; /* one group, whose members are the set's counters in order */
	int own_encoding[UPMC_MAX_COUNTERS]; /* opened as each PMU's own event */
	int pmu_dead;                        /* the core PMU opens events, counts nothing */
	size_t page_size;
};

/* Index 0: the inline reader always takes the slow path on it. */
static const struct upmc_perf_page no_page;

/*
 * The first event of a group leads it: opened disabled, and pinned unless
 * the set multiplexes, so that the group either runs whole or its read says
 * it is not running.
 */
static int open_event(const struct upmc_event *ev, const struct upmc_linux_attr *plan, int leader,
                      unsigned flags)
{
	struct perf_event_attr attr;

	upmc_linux_attr_init(&attr, ev, plan);
	attr.disabled = leader < 0;
	attr.pinned = leader < 0 && !(flags & UPMC_OPT_MULTIPLEX);
	attr.read_format =
	        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return upmc_sys_perf_event_open(&attr, 0, -1, leader);
}

/* Would it open on its own? Tells "the group is full" from "unsupported". */
static int opens_alone(const struct upmc_event *ev, const struct upmc_linux_attr *plan,
                       unsigned flags)
{
	int fd = open_event(ev, plan, -1, flags);

	if (fd < 0)
		return 0;
	upmc_sys_close(fd);
	return 1;
}

static int can_fall_back(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV || err == EACCES ||
	       err == EPERM || err == EINVAL || err == EBUSY;
}

static void close_events(struct linux_set *ls, unsigned from)
{
	while (ls->n_ev > from) {
		struct linux_event *e = &ls->ev[--ls->n_ev];
		if (e->map)
			upmc_sys_munmap(e->map, ls->page_size);
		upmc_sys_close(e->fd);
	}
}

static void release(struct linux_set *ls)
{
	close_events(ls, 0);
	free(ls);
}

/* The group events of this key join; a new one for every event when the
 * set multiplexes (so that the kernel can rotate them one by one). */
static unsigned group_for(struct linux_set *ls, const struct upmc_linux_attr *plan)
{
	unsigned g;

	for (g = 0; g < ls->n_grp && !ls->multiplex; g++)
		if (ls->grp[g].key == plan->key)
			return g;
	memset(&ls->grp[ls->n_grp], 0, sizeof(ls->grp[0]));
	ls->grp[ls->n_grp].leader = -1;
	ls->grp[ls->n_grp].key = plan->key;
	ls->grp[ls->n_grp].core = plan->core >= 0;
	return ls->n_grp++;
}

/* The kernel's id of the event behind fd (Linux 3.12); 0 when unknown. */
static uint64_t event_id(int fd)
{
	uint64_t id = 0;

	if (upmc_sys_ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&id) < 0)
		return 0;
	return id;
}

/* A big.LITTLE kernel without the extended type (before Linux 6.6) refuses
 * a generic event per core PMU with ENOENT: then each PMU's own encoding
 * of it opens instead (set->state->counter[i] says so). */
static int open_part(const struct upmc_event *ev, struct upmc_linux_attr *plan, int leader,
                     unsigned flags, const struct upmc_linux_probe *probe, int *own_encoding)
{
	int fd = open_event(ev, plan, leader, flags);

	if (fd < 0 && errno == ENOENT && upmc_linux_pmu_encoding(ev, probe, plan)) {
		fd = open_event(ev, plan, leader, flags);
		*own_encoding = fd >= 0;
	}
	return fd;
}

/* Does the plan open an event on a core PMU (those pmu_counts() checks)? */
static int on_core_pmu(const struct upmc_linux_attr *plan, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++)
		if (plan[k].core >= 0)
			return 1;
	return 0;
}

/* Opens counter i (one event per core PMU it needs); 0 or errno. */
static int open_counter(struct upmc_set *set, struct linux_set *ls, unsigned i, unsigned flags,
                        const struct upmc_linux_probe *probe)
{
	struct upmc_counter *c = &set->state->counter[i];
	struct upmc_linux_attr plan[UPMC_LINUX_MAX_CORE_PMUS];
	unsigned k, n = upmc_linux_plan(&c->event, probe, flags, plan);
	unsigned first_ev = ls->n_ev, first_grp = ls->n_grp;

	if (ls->pmu_dead && on_core_pmu(plan, n)) {
		upmc_linux_explain_dead_pmu(c->reason, sizeof(c->reason), &c->event, probe);
		return ENODEV;
	}
	for (k = 0; k < n; k++) {
		unsigned g = group_for(ls, &plan[k]);
		int leader = ls->grp[g].leader;
		int fd = open_part(&c->event, &plan[k], leader, flags, probe, &ls->own_encoding[i]);
		if (fd < 0) {
			int err = errno;
			upmc_linux_explain_open(
			        c->reason, sizeof(c->reason), &c->event, err,
			        leader >= 0 && opens_alone(&c->event, &plan[k], flags), probe);
			close_events(ls, first_ev); /* its other core PMUs' events */
			ls->n_grp = first_grp;
			return err;
		}
		if (leader < 0)
			ls->grp[g].leader = fd;
		ls->ev[ls->n_ev++] =
		        (struct linux_event){fd, NULL, i, g, plan[k].user_read, 0, event_id(fd)};
	}
	return 0;
}

static int open_counters(struct upmc_set *set, struct linux_set *ls, unsigned flags,
                         const struct upmc_linux_probe *probe)
{
	unsigned i;

	for (i = 0; i < set->n; i++) {
		struct upmc_counter *c = &set->state->counter[i];
		int err;

		set->page[i] = &no_page;
		if (c->path == UPMC_PATH_UNAVAILABLE)
			continue; /* its PMU is not here (lib/set.c) */
		err = open_counter(set, ls, i, flags, probe);
		if (!err) {
			c->path = UPMC_PATH_SYSCALL;
			continue;
		}
		if (!(flags & UPMC_OPT_TIME_ONLY) || !can_fall_back(err))
			return upmc_fail(-err, "%s", c->reason);
		c->path = UPMC_PATH_UNAVAILABLE;
	}
	return 0;
}

/* Maps the page of every event that could be read in user space, and
 * faults it in now so that the first read does not pay for it. */
static void map_pages(struct upmc_set *set, struct linux_set *ls)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++) {
		struct upmc_counter *c = &set->state->counter[ls->ev[e].counter];
		void *p;

		if (!ls->ev[e].user_read)
			continue;
		p = upmc_sys_mmap_page(ls->ev[e].fd, ls->page_size, 1);
		if (p == MAP_FAILED) {
			upmc_format(c->reason, sizeof(c->reason),
			            "mmap of the perf page failed (%s): raise "
			            "kernel.perf_event_mlock_kb "
			            "or `ulimit -l`; read(2) is used",
			            strerror(errno));
			continue;
		}
		ls->ev[e].map = p;
		(void)UPMC_READ_ONCE(((const volatile struct upmc_perf_page *)p)->lock);
	}
}

static void syscall_reason(struct upmc_counter *c, const struct linux_set *ls, unsigned flags,
                           const struct upmc_linux_probe *probe)
{
	int kind = probe->n_core ? probe->core_kind[0] : 0;

	if (c->reason[0])
		return;
	if (c->event.type == UPMC_TYPE_SOFTWARE)
		upmc_format(c->reason, sizeof(c->reason),
		            "software event: the kernel counts it, read(2) reads it");
	else if (flags & UPMC_OPT_FORCE_SYSCALL)
		upmc_format(c->reason, sizeof(c->reason),
		            "UPMC_OPT_FORCE_SYSCALL asks for read(2)");
	else if (ls->multiplex)
		upmc_format(c->reason, sizeof(c->reason),
		            "multiplexed: read(2) gives the times that scale the count");
	else if (upmc_linux_is_topdown_metric(&c->event, kind))
		upmc_format(c->reason, sizeof(c->reason),
		            "topdown metric: its page names PERF_METRICS, which holds fractions, "
		            "not a count; read(2) gives the kernel's count");
	else if (kind == UPMC_LINUX_APPLE)
		upmc_format(c->reason, sizeof(c->reason),
		            "the %s PMU offers no user-space counter read; read(2) is used",
		            probe->core[0]);
	else if (ls->hybrid)
		upmc_format(c->reason, sizeof(c->reason),
		            "hybrid CPU: read(2), since a thread moved to another core type "
		            "between loading a counter's index and reading it could read a "
		            "counter that core type lacks");
	else
		upmc_format(
		        c->reason, sizeof(c->reason),
		        "this architecture (%s) has no user-space counter read; read(2) is used",
		        UPMC_ARCH_NAME);
}

/* Appends, to the reason of each counter opened as its PMUs' own events,
 * which encoding it was opened with. */
static void say_own_encoding(struct upmc_set *set, const struct linux_set *ls,
                             const struct upmc_linux_probe *probe)
{
	unsigned i;

	for (i = 0; i < set->n; i++) {
		struct upmc_counter *c = &set->state->counter[i];
		size_t len = strlen(c->reason);
		if (!ls->own_encoding[i])
			continue;
		upmc_format(c->reason + len, sizeof(c->reason) - len,
		            "%sthis kernel has no extended type for generic events on big.LITTLE "
		            "(Linux 6.6 added it): opened as %s's and %s's own event 0x%02x",
		            len ? "; " : "", probe->core[0], probe->core[1],
		            (unsigned)upmc_linux_pmuv3_code(&c->event));
	}
}

/* A member of group g whose page is not read in user space (a software
 * event, a topdown metric), or NULL: then the whole group is one read(2). */
static const struct upmc_event *read2_member(const struct upmc_set *set, const struct linux_set *ls,
                                             unsigned g)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].group == g && !ls->ev[e].map)
			return &set->state->counter[ls->ev[e].counter].event;
	return NULL;
}

/* After the groups are enabled: which counters the inline reader may read
 * (a single event whose page offers a user-space read right now, in a group
 * every member of which does). */
static void choose_paths(struct upmc_set *set, struct linux_set *ls, unsigned flags,
                         const struct upmc_linux_probe *probe)
{
	unsigned e, user = 0;

	for (e = 0; e < ls->n_ev; e++) {
		struct upmc_counter *c = &set->state->counter[ls->ev[e].counter];
		const volatile struct upmc_perf_page *pc = ls->ev[e].map;
		const struct upmc_event *other = read2_member(set, ls, ls->ev[e].group);

		if (c->path != UPMC_PATH_SYSCALL)
			continue;
		if (pc && !ls->hybrid && !ls->multiplex) {
			if (!pc->index || !(pc->capabilities & UPMC_CAP_USER_RDPMC)) {
				upmc_linux_explain_no_user_read(c->reason, sizeof(c->reason),
				                                probe);
			} else if (other) {
				upmc_format(c->reason, sizeof(c->reason),
				            "read(2) of its group, for '%s' in it: one read(2) of "
				            "the set costs less than user-space reads beside a "
				            "read(2)",
				            other->name);
			} else {
				c->path = UPMC_PATH_USER;
				set->page[ls->ev[e].counter] = pc;
				user++;
				continue;
			}
		}
		syscall_reason(c, ls, flags, probe);
	}
	say_own_encoding(set, ls, probe);
	set->user_n = user == set->n ? set->n : 0;
}

/* A pinned group that cannot get onto the PMU goes into an error state,
 * in which read(2) returns 0 bytes. */
static int groups_running(struct linux_set *ls)
{
	uint64_t buf[3 + MAX_EVENTS];
	unsigned g;

	for (g = 0; g < ls->n_grp; g++)
		if (upmc_sys_read(ls->grp[g].leader, buf, sizeof(buf)) <= 0)
			return 0;
	return 1;
}

static void mark_unavailable(struct upmc_set *set, struct linux_set *ls, const char *why)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++) {
		struct upmc_counter *c = &set->state->counter[ls->ev[e].counter];
		c->path = UPMC_PATH_UNAVAILABLE;
		upmc_format(c->reason, sizeof(c->reason), "%s", why);
	}
	close_events(ls, 0);
	ls->n_grp = 0;
}

/* A counter to be opened on a core PMU (not one set.c found missing). */
static int has_core_events(const struct upmc_set *set, const struct upmc_linux_probe *probe,
                           unsigned flags)
{
	struct upmc_linux_attr plan[UPMC_LINUX_MAX_CORE_PMUS];
	unsigned i;

	for (i = 0; probe->n_core && i < set->n; i++) {
		const struct upmc_counter *c = &set->state->counter[i];
		if (c->path != UPMC_PATH_UNAVAILABLE &&
		    on_core_pmu(plan, upmc_linux_plan(&c->event, probe, flags, plan)))
			return 1;
	}
	return 0;
}

/*
 * pmu_counts()'s verdict on each core PMU, kept for the process: a PMU
 * that counted goes on counting, one that ran and counted nothing stays
 * dead (the fake kernel's change between tests: it calls
 * upmc_linux_forget_pmu_checks()). An entry is the PMU's type << 2 | its
 * verdict, written once by compare-and-swap (no lock for fork() to find
 * held); 0 is free. A PMU the check's event did not run on gets none.
 */
enum { PMU_COUNTS = 1, PMU_DEAD = 2 };
static _Atomic uint64_t pmu_verdicts[2 * UPMC_LINUX_MAX_CORE_PMUS];

static int pmu_verdict(uint32_t type)
{
	unsigned i;

	for (i = 0; i < sizeof(pmu_verdicts) / sizeof(pmu_verdicts[0]); i++) {
		uint64_t v = atomic_load(&pmu_verdicts[i]);
		if (v && v >> 2 == type)
			return (int)(v & 3);
	}
	return 0;
}

static void keep_pmu_verdict(uint32_t type, int verdict)
{
	uint64_t entry = (uint64_t)type << 2 | (unsigned)verdict;
	unsigned i;

	for (i = 0; i < sizeof(pmu_verdicts) / sizeof(pmu_verdicts[0]); i++) {
		uint64_t v = 0;
		if (atomic_compare_exchange_strong(&pmu_verdicts[i], &v, entry) || v >> 2 == type)
			return;
	}
}

void upmc_linux_forget_pmu_checks(void)
{
	unsigned i;

	for (i = 0; i < sizeof(pmu_verdicts) / sizeof(pmu_verdicts[0]); i++)
		atomic_store(&pmu_verdicts[i], 0);
}

/*
 * A virtual PMU can take events and never count them. A known loop must
 * count user-mode instructions on some core type: 0 when it counted none
 * while on the PMU, 1 when it did (or the check could not run: the set's
 * own open then says why). PMUs with a verdict are not checked again.
 */
static int pmu_counts(const struct upmc_linux_probe *probe)
{
	struct upmc_event ev = {.name = "instructions:u", .config = 1, .generic = 1};
	struct upmc_linux_attr plan[UPMC_LINUX_MAX_CORE_PMUS];
	unsigned k, n = upmc_linux_plan(&ev, probe, UPMC_OPT_FORCE_SYSCALL, plan);
	uint64_t buf[4]; /* nr, enabled, running, value */
	int fd[UPMC_LINUX_MAX_CORE_PMUS], verdict[UPMC_LINUX_MAX_CORE_PMUS];
	int opened = 0, counted = 0, ran = 0;
	volatile unsigned loop;

	ev.exclude_kernel = 1;
	for (k = 0; k < n; k++) {
		verdict[k] = plan[k].core >= 0 ? pmu_verdict(probe->core_type[plan[k].core]) : 0;
		if (verdict[k] == PMU_COUNTS)
			return 1;
	}
	for (k = 0; k < n; k++) {
		fd[k] = verdict[k] ? -1 : open_event(&ev, &plan[k], -1, 0);
		if (fd[k] >= 0 && upmc_sys_ioctl(fd[k], PERF_EVENT_IOC_ENABLE, 0) == 0)
			opened = 1;
	}
	for (loop = 0; opened && loop < 10000; loop++)
		;
	for (k = 0; k < n; k++) {
		if (fd[k] >= 0) {
			if (upmc_sys_read(fd[k], buf, sizeof(buf)) == (ssize_t)sizeof(buf))
				verdict[k] = buf[3] ? PMU_COUNTS : buf[2] ? PMU_DEAD : 0;
			upmc_sys_close(fd[k]);
			if (verdict[k] && plan[k].core >= 0)
				keep_pmu_verdict(probe->core_type[plan[k].core], verdict[k]);
		}
		counted |= verdict[k] == PMU_COUNTS;
		ran |= verdict[k] == PMU_DEAD;
	}
	return counted || !ran;
}

static const char pinned_failed[] =
        "the counters could not be put on the PMU together: the set needs more counters than "
        "are free, because the CPU has fewer or another user holds them (a system-wide perf "
        "session, a profiler, the NMI watchdog: `sysctl kernel.nmi_watchdog=0`); open fewer "
        "events, or pass UPMC_OPT_MULTIPLEX to time-share them";

static int enable_groups(struct linux_set *ls)
{
	unsigned g;

	for (g = 0; g < ls->n_grp; g++)
		if (upmc_sys_ioctl(ls->grp[g].leader, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return upmc_fail(-errno, "enabling the counters failed: %s",
			                 strerror(errno));
	return 0;
}

int upmc_os_open(struct upmc_set *set, unsigned flags)
{
	struct upmc_linux_probe probe;
	struct linux_set *ls = calloc(1, sizeof(*ls));
	int err;

	if (!ls)
		return upmc_fail(-ENOMEM, "out of memory");
	ls->page_size = (size_t)sysconf(_SC_PAGESIZE);
	ls->multiplex = !!(flags & UPMC_OPT_MULTIPLEX);
	upmc_linux_probe(&probe);
	ls->hybrid = probe.n_core > 1;
	ls->pmu_dead = has_core_events(set, &probe, flags) && !pmu_counts(&probe);
	err = ls->hybrid && ls->multiplex
	              ? upmc_fail(-EOPNOTSUPP,
	                          "UPMC_OPT_MULTIPLEX on a hybrid CPU (%s, %s): open a set "
	                          "per core type instead",
	                          probe.core[0], probe.core[1])
	              : open_counters(set, ls, flags, &probe);
	if (err == 0) {
		map_pages(set, ls);
		err = enable_groups(ls);
	}
	if (err == 0 && !groups_running(ls)) {
		if (flags & UPMC_OPT_TIME_ONLY)
			mark_unavailable(set, ls, pinned_failed);
		else
			err = upmc_fail(-EBUSY, "%s", pinned_failed);
	}
	if (err < 0) {
		release(ls);
		return err;
	}
	choose_paths(set, ls, flags, &probe);
	ls->one_group = ls->n_grp == 1 && ls->n_ev == set->n && !ls->hybrid && !ls->multiplex;
	set->state->multiplexed = ls->multiplex;
	set->state->os = ls;
	return 0;
}

/*
 * In a forked child: its copies of the parent's descriptors keep the
 * parent's events alive. A number the child has not closed still holds the
 * same event (the same id), and is closed; one it closed and reused holds
 * something else, and is left alone. Nothing is unmapped: the child did not
 * get the pages (VM_DONTCOPY).
 */
void upmc_os_abandon(struct upmc_set *set)
{
	struct linux_set *ls = set->state->os;
	unsigned e;

	for (e = 0; ls && e < ls->n_ev; e++)
		if (ls->ev[e].id && event_id(ls->ev[e].fd) == ls->ev[e].id)
			upmc_sys_close(ls->ev[e].fd);
	free(ls);
	set->state->os = NULL;
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

/* The sum of the group's page locks, or 0 when a member has no page. */
static uint32_t group_seq(const struct linux_set *ls, unsigned g)
{
	uint32_t seq = 0;
	unsigned e;

	for (e = 0; e < ls->n_ev; e++) {
		if (ls->ev[e].group != g)
			continue;
		if (!ls->ev[e].map)
			return 0;
		seq += ((const volatile struct upmc_perf_page *)ls->ev[e].map)->lock;
	}
	return seq | 1; /* never 0: that means "no pages" */
}

/* Every member of a group from user space (the uapi loop, out of line);
 * -1 when one has no page or is not on a counter now. */
static int group_from_pages(struct linux_set *ls, unsigned g)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].group == g && !ls->ev[e].map)
			return -1; /* a member only read(2) reads: no page read is of use */
	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].group == g && upmc_page_count(ls->ev[e].map, &ls->ev[e].cached) < 0)
			return -1;
	return 0;
}

/* A read(2) of a group that gave no counts: got < 0 with errno, or 0 bytes
 * for a pinned group in an error state (the kernel never returns less than
 * the group's whole layout otherwise). */
static int group_read_failed(ssize_t got)
{
	if (got < 0)
		return upmc_fail(-errno, "read(2) of the counters failed: %s", strerror(errno));
	if (got > 0)
		return upmc_fail(-EIO, "read(2) of the counters returned %zd bytes, not the group",
		                 got);
	return upmc_fail(-EBUSY, "%s", pinned_failed);
}

/* read(2) of one group into its events' cached counts; its times too where
 * asked for. A member that never ran reads UPMC_NOT_COUNTED. */
static int group_read(struct linux_set *ls, unsigned g, uint64_t *enabled, uint64_t *running)
{
	uint64_t buf[3 + MAX_EVENTS] = {0}; /* nr, enabled, running, values */
	struct linux_group *grp = &ls->grp[g];
	uint32_t seq = group_seq(ls, g);
	unsigned e, k = 0;
	ssize_t got = upmc_sys_read(grp->leader, buf, sizeof(buf));

	if (got <= 0)
		return group_read_failed(got);
	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].group == g && k < buf[0])
			ls->ev[e].cached = buf[2] ? buf[3 + k++] : UPMC_NOT_COUNTED;
	/* Each schedule in or out updates the pages (x86_pmu_start(),
	 * x86_pmu_del(), armpmu_add(), armpmu_del() call
	 * perf_event_update_userpage()): the same locks and the same time
	 * running as at the read(2) before mean the group has been off the PMU
	 * since, and stays off until its locks move. */
	grp->idle = seq != 0 && seq == grp->cached_seq && buf[2] == grp->cached_running;
	grp->cached_seq = seq;
	grp->cached_running = buf[2];
	if (enabled)
		*enabled = buf[1];
	if (running)
		*running = buf[2];
	return 0;
}

/*
 * Brings one group's counts up to date, and its times when asked for. One
 * core type's group runs at a time on a hybrid CPU: the others keep their
 * counts while they stay off the PMU. Hybrid groups are never read in user
 * space (a thread moved to the other core type between loading an index
 * and reading the counter could read a counter that core type lacks:
 * docs/read-protocol.md); other groups are, where their pages allow.
 */
static int group_update(struct linux_set *ls, unsigned g, uint64_t *enabled, uint64_t *running)
{
	struct linux_group *grp = &ls->grp[g];

	if (!enabled && !ls->hybrid && !ls->multiplex && group_from_pages(ls, g) == 0)
		return 0;
	if (!enabled && ls->hybrid && grp->idle && group_seq(ls, g) == grp->cached_seq)
		return 0;
	return group_read(ls, g, enabled, running);
}

/* Marks the counters a group's events counted for; parts that never ran
 * add 0. */
static void add_group(const struct linux_set *ls, unsigned g, int *counted)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].group == g && ls->ev[e].cached != UPMC_NOT_COUNTED)
			counted[ls->ev[e].counter] = 1;
}

/*
 * The set's times: enabled is the longest of its groups'; running is the
 * time its core PMU groups counted (on a hybrid CPU they take turns, so
 * their times add up), or, for a set of other events, the longest.
 */
static void set_times(const struct linux_set *ls, const uint64_t *en, const uint64_t *run,
                      uint64_t *enabled, uint64_t *running)
{
	uint64_t max_en = 0, cores = 0, other = 0;
	unsigned g;
	int any_core = 0;

	for (g = 0; g < ls->n_grp; g++) {
		max_en = en[g] > max_en ? en[g] : max_en;
		if (ls->grp[g].core && !ls->multiplex) {
			cores += run[g];
			any_core = 1;
		} else {
			other = run[g] > other ? run[g] : other;
		}
	}
	if (ls->multiplex) { /* one event per group: the first one's, as ever */
		max_en = en[0];
		other = run[0];
	}
	*enabled = max_en;
	*running = any_core ? (cores < max_en ? cores : max_en) : other;
}

/*
 * The common case, one group whose members are the set's counters in order
 * (no counter unavailable, no core types, no scaling): one read(2) of just
 * their values, copied into place. The read(2) fallback costs what the
 * system call costs, and little more.
 */
static int read_one_group(struct upmc_set *set, uint64_t *values, uint64_t *enabled,
                          uint64_t *running)
{
	const struct linux_set *ls = set->state->os;
	uint64_t buf[3 + UPMC_MAX_COUNTERS]; /* nr, enabled, running, values */
	const ssize_t size = (ssize_t)((3 + set->n) * sizeof(buf[0]));
	ssize_t got = upmc_sys_read(ls->grp[0].leader, buf, (size_t)size);
	unsigned i;

	if (got != size)
		return upmc_failed_read(set, values, group_read_failed(got));
	for (i = 0; i < set->n; i++)
		values[i] = buf[2] ? buf[3 + i] : UPMC_NOT_COUNTED;
	if (enabled)
		*enabled = buf[1];
	if (running)
		*running = buf[2];
	return (int)set->n;
}

/* Every other case: each group from its pages or by read(2) (group_update()),
 * summed into the counters its events add to. Out of line, so that the
 * common case does not pay for its frame. */
static __attribute__((noinline)) int read_groups(struct upmc_set *set, uint64_t *values,
                                                 uint64_t *enabled, uint64_t *running)
{
	struct linux_set *ls = set->state->os;
	uint64_t en[MAX_EVENTS] = {0}, run[MAX_EVENTS] = {0};
	int counted[UPMC_MAX_COUNTERS] = {0}, times = enabled != NULL;
	unsigned i, g, e;
	int err;

	for (g = 0; g < ls->n_grp; g++) {
		err = group_update(ls, g, times ? &en[g] : NULL, times ? &run[g] : NULL);
		if (err < 0)
			return upmc_failed_read(set, values, err);
		add_group(ls, g, counted);
	}
	for (i = 0; i < set->n; i++)
		values[i] = 0;
	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].cached != UPMC_NOT_COUNTED)
			values[ls->ev[e].counter] += ls->ev[e].cached;
	for (i = 0; i < set->n; i++)
		if (!counted[i])
			values[i] = UPMC_NOT_COUNTED;
	if (enabled && running)
		set_times(ls, en, run, enabled, running);
	return (int)set->n;
}

int upmc_os_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	struct linux_set *ls = set->state->os;

	/* The two readers take the same arguments: a tail call to either. */
	if (ls->one_group)
		return read_one_group(set, values, enabled, running);
	return read_groups(set, values, enabled, running);
}

/*
 * A multiplexed set has one event per group (group_for()), read(2) each:
 * its count as the kernel has it, however little it ran, and its times.
 * The library scales (lib/interval.c): an interval's scale is the
 * interval's own, never a difference of two scaled totals.
 */
int upmc_os_read_unscaled(struct upmc_set *set, uint64_t *snapshot)
{
	const struct linux_set *ls = set->state->os;
	const unsigned n = set->n;
	uint64_t buf[4]; /* nr, enabled, running, value */
	unsigned i, e;

	for (i = 0; i < n; i++) {
		snapshot[i] = UPMC_NOT_COUNTED;
		snapshot[n + i] = snapshot[2 * n + i] = 0;
	}
	for (e = 0; e < ls->n_ev; e++) {
		const unsigned c = ls->ev[e].counter;
		ssize_t got = upmc_sys_read(ls->grp[ls->ev[e].group].leader, buf, sizeof(buf));

		if (got != (ssize_t)sizeof(buf)) {
			memset(snapshot, 0xff, 3 * n * sizeof(*snapshot)); /* UPMC_NOT_COUNTED */
			return group_read_failed(got);
		}
		snapshot[c] = buf[3];
		snapshot[n + c] = buf[1];
		snapshot[2 * n + c] = buf[2];
	}
	return (int)n;
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

int upmc_linux_dummy_page(struct perf_event_mmap_page *copy)
{
	struct perf_event_attr attr;
	size_t size = (size_t)sysconf(_SC_PAGESIZE);
	const volatile struct perf_event_mmap_page *pc;
	uint32_t seq;
	void *p;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = upmc_sys_perf_event_open(&attr, 0, -1, -1);
	if (fd < 0)
		return -errno;
	p = upmc_sys_mmap_page(fd, size, 0);
	if (p == MAP_FAILED) {
		int err = -errno;
		upmc_sys_close(fd);
		return err;
	}
	pc = p;
	do { /* a copy from one moment: under the page's seqlock */
		seq = pc->lock;
		upmc_barrier();
		memcpy(copy, p, sizeof(*copy));
		upmc_barrier();
	} while (pc->lock != seq);
	upmc_sys_munmap(p, size);
	upmc_sys_close(fd);
	return 0;
}

/* With no page of its own, a set takes the clock of a dummy event's page. */
static int dummy_clock(struct upmc_clock *clock)
{
	struct perf_event_mmap_page page;
	int err = upmc_linux_dummy_page(&page);

	return err < 0 ? err : page_clock(&page, clock);
}

int upmc_os_kernel_clock(struct upmc_set *set, struct upmc_clock *clock)
{
	struct linux_set *ls = set->state->os;
	unsigned i;

	if (!UPMC_ARCH_HAS_USER_READ)
		return -ENOTSUP; /* the timestamps are not the page's cycles */
	for (i = 0; ls && i < ls->n_ev; i++)
		if (ls->ev[i].map)
			return page_clock(ls->ev[i].map, clock);
	return dummy_clock(clock);
}

uint64_t upmc_os_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
