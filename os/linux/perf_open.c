/* SPDX-License-Identifier: MIT */
/*
 * Linux: a set's perf_event_open groups, opened, mapped and enabled, and
 * closed; the check that a core PMU really counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "os/linux/perf.h"
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

/* The group events of this key join. When the set multiplexes, the group
 * of the metrics the event is an input of (lib/core/metrics.c: a metric's
 * inputs share one schedule), else a new one for every event (so that the
 * kernel can rotate them one by one). */
static unsigned group_for(struct linux_set *ls, const struct upmc_linux_attr *plan,
                          unsigned metric_group)
{
	unsigned g;

	for (g = 0; g < ls->n_grp; g++)
		if (ls->grp[g].key == plan->key &&
		    (!ls->multiplex || (metric_group && ls->grp[g].metric_group == metric_group)))
			return g;
	memset(&ls->grp[ls->n_grp], 0, sizeof(ls->grp[0]));
	ls->grp[ls->n_grp].leader = -1;
	ls->grp[ls->n_grp].key = plan->key;
	ls->grp[ls->n_grp].core = plan->core >= 0;
	ls->grp[ls->n_grp].metric_group = metric_group;
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

/* Counters of the set's that count on a PMU (not software events) and
 * go to the group of this plan's key: what the group needs. */
static unsigned group_needs(const struct upmc_set *set, const struct upmc_linux_attr *want,
                            unsigned flags, const struct upmc_linux_probe *probe)
{
	struct upmc_linux_attr plan[UPMC_LINUX_MAX_CORE_PMUS];
	unsigned i, k, n, needs = 0;

	for (i = 0; i < set->n; i++) {
		const struct upmc_counter *c = &set->state->counter[i];
		if (c->path == UPMC_PATH_UNAVAILABLE || c->event.type == UPMC_TYPE_SOFTWARE)
			continue;
		n = upmc_linux_plan(&c->event, probe, flags, plan);
		for (k = 0; k < n; k++)
			needs += plan[k].key == want->key && plan[k].core == want->core;
	}
	return needs;
}

/* A group the kernel found too big for the PMU (it checks a group against
 * an empty PMU): how many counters it needs, and how many of its events
 * the PMU took together, the kernel's own measure of what it has. */
static void say_group_size(char *reason, size_t size, const struct upmc_set *set,
                           const struct linux_set *ls, unsigned g,
                           const struct upmc_linux_attr *plan, unsigned flags,
                           const struct upmc_linux_probe *probe)
{
	size_t len = strlen(reason);
	unsigned e, took = 0;

	for (e = 0; e < ls->n_ev; e++)
		took += ls->ev[e].group == g &&
		        set->state->counter[ls->ev[e].counter].event.type != UPMC_TYPE_SOFTWARE;
	upmc_format(reason + len, size - len,
	            " (the set needs %u counters in this group; the PMU took %u of them "
	            "together)",
	            group_needs(set, plan, flags, probe), took);
}

/* How an event the kernel refused in the group of leader stands
 * (upmc_linux_explain_open's in_group): whether it opens alone, and then
 * whether its group was a pinned set's or a multiplexed one's. */
static int refused_in(const struct linux_set *ls, int leader, const struct upmc_event *ev,
                      const struct upmc_linux_attr *plan, unsigned flags)
{
	if (leader < 0 || !opens_alone(ev, plan, flags))
		return UPMC_LINUX_NOT_ALONE;
	return ls->multiplex ? UPMC_LINUX_MULTIPLEXED_GROUP : UPMC_LINUX_PINNED_GROUP;
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
		unsigned g = group_for(ls, &plan[k], c->event.metric_group);
		int leader = ls->grp[g].leader;
		int fd = open_part(&c->event, &plan[k], leader, flags, probe, &ls->own_encoding[i]);
		if (fd < 0) {
			int err = errno;
			int full = refused_in(ls, leader, &c->event, &plan[k], flags);
			upmc_linux_explain_open(c->reason, sizeof(c->reason), &c->event, err, full,
			                        probe);
			if (full && err == EINVAL)
				say_group_size(c->reason, sizeof(c->reason), set, ls, g, &plan[k],
				               flags, probe);
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

/* A counter of the CPU's (not a software event, not another PMU's) that a
 * virtual machine's missing or dead PMU keeps from counting: the set says
 * once how to turn that PMU on. */
static int wants_vpmu(const struct upmc_counter *c, const struct linux_set *ls,
                      const struct upmc_linux_probe *probe)
{
	return c->event.type != UPMC_TYPE_SOFTWARE && !upmc_linux_other_pmu(&c->event, probe) &&
	       upmc_linux_vpmu_missing(probe, ls->pmu_dead);
}

/* The open fails for counter c: its reason, and the advice it calls for. */
static int refuse(const struct upmc_counter *c, int err, const struct linux_set *ls,
                  const struct upmc_linux_probe *probe)
{
	char advice[UPMC_REASON_MAX] = "";

	if (wants_vpmu(c, ls, probe))
		upmc_linux_vpmu_advice(advice, sizeof(advice));
	return upmc_fail(-err, "%s%s%s", c->reason, advice[0] ? "; " : "", advice);
}

static void set_advice(struct upmc_set *set, const struct linux_set *ls,
                       const struct upmc_linux_probe *probe)
{
	unsigned i;

	for (i = 0; i < set->n; i++)
		if (set->state->counter[i].path == UPMC_PATH_UNAVAILABLE &&
		    wants_vpmu(&set->state->counter[i], ls, probe)) {
			upmc_linux_vpmu_advice(set->state->advice, sizeof(set->state->advice));
			return;
		}
}

/* Intel's slots (event 0, umask 4): the kernel takes topdown metric events
 * only in a group slots leads (intel_pmu_hw_config()), so it opens first. */
static int is_slots(const struct upmc_event *ev, const struct upmc_linux_probe *probe)
{
	return probe->n_core && probe->core_kind[0] == UPMC_LINUX_X86 && !ev->generic &&
	       ev->type != UPMC_TYPE_SOFTWARE && (ev->config & 0xffff) == 0x0400;
}

/* Whether the events are the set's counters in their order. */
static int in_counter_order(const struct linux_set *ls)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].counter != e)
			return 0;
	return 1;
}

static int open_counters(struct upmc_set *set, struct linux_set *ls, unsigned flags,
                         const struct upmc_linux_probe *probe)
{
	unsigned pass, i;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < set->n; i++) {
			struct upmc_counter *c = &set->state->counter[i];
			int err;

			if (is_slots(&c->event, probe) != (pass == 0))
				continue; /* slots in the first pass, the others in the second */
			set->page[i] = &upmc_no_page;
			if (c->path == UPMC_PATH_UNAVAILABLE)
				continue; /* its PMU is not here (lib/core/set.c) */
			err = open_counter(set, ls, i, flags, probe);
			if (!err) {
				c->path = UPMC_PATH_SYSCALL;
				continue;
			}
			if (!(flags & UPMC_OPT_TIME_ONLY) || !can_fall_back(err))
				return refuse(c, err, ls, probe);
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

/* Why a counter of a PMU that is not the CPU's is read by read(2). */
static void other_pmu_reason(struct upmc_counter *c)
{
	char pmu[64];

	upmc_linux_pmu_name(c->event.type, pmu, sizeof(pmu));
	upmc_format(c->reason, sizeof(c->reason),
	            "the PMU '%s' is not the CPU's: the kernel counts it, read(2) reads it", pmu);
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
	else if (upmc_linux_other_pmu(&c->event, probe))
		other_pmu_reason(c);
	else if ((flags & UPMC_OPT_FORCE_SYSCALL) && upmc_linux_is_topdown_metric(&c->event, kind))
		upmc_format(c->reason, sizeof(c->reason),
		            "UPMC_OPT_FORCE_SYSCALL asks for read(2): the kernel reads slots and "
		            "PERF_METRICS and resets them at each read(2), so the counts are the "
		            "kernel's and rdpmc never reads them");
	else if (flags & UPMC_OPT_FORCE_SYSCALL)
		upmc_format(c->reason, sizeof(c->reason),
		            "UPMC_OPT_FORCE_SYSCALL asks for read(2)");
	else if (ls->multiplex)
		upmc_format(c->reason, sizeof(c->reason),
		            "multiplexed: read(2) gives the times that scale the count");
	else if (upmc_linux_is_topdown_metric(&c->event, kind))
		upmc_format(c->reason, sizeof(c->reason),
		            "topdown metric: the kernel offers no user-space read of PERF_METRICS "
		            "here; read(2) gives the kernel's count");
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

/* ---- Intel topdown read in user space (lib/core/topdown.c) ---- */

/* Whether event e's group holds a topdown metric event. */
static int in_topdown_group(const struct upmc_set *set, const struct linux_set *ls, unsigned e,
                            int kind)
{
	unsigned k;

	for (k = 0; k < ls->n_ev; k++)
		if (ls->ev[k].group == ls->ev[e].group &&
		    upmc_linux_is_topdown_metric(&set->state->counter[ls->ev[k].counter].event,
		                                 kind))
			return 1;
	return 0;
}

#ifdef UPMC_X86_RDPMC_METRICS /* x86 only: elsewhere topdown groups read by read(2) */
/* The leader of the set's slots group. */
static int slots_leader(const struct linux_set *ls)
{
	unsigned e;

	for (e = 0; e < ls->n_ev; e++)
		if (ls->ev[e].counter == ls->topdown.slots)
			break;
	return ls->grp[ls->ev[e].group].leader;
}

/* PERF_EVENT_IOC_RESET of the slots group: the kernel reads it, which
 * writes slots and PERF_METRICS to 0 (intel_pmu_read_topdown_event()),
 * then sets every count to 0 and updates the pages (perf_event_reset()):
 * the reset topdown.txt recommends. */
static int topdown_reset(struct upmc_set *set)
{
	if (upmc_sys_ioctl(slots_leader(set->state->os), PERF_EVENT_IOC_RESET,
	                   PERF_IOC_FLAG_GROUP) < 0)
		return upmc_fail(-errno, "PERF_EVENT_IOC_RESET of the topdown group failed: %s",
		                 strerror(errno));
	return 0;
}

/* read(2) of the slots group: the kernel's read writes slots and
 * PERF_METRICS to 0 and keeps every count, so that snapshots on either
 * side disagree (slots since open against slots since the reset) and
 * upmc_metrics()' rule says so, whoever took them. It works from any
 * thread (the kernel reads on the CPU the group runs on). */
static int topdown_restart(struct upmc_set *set)
{
	uint64_t buf[3 + MAX_EVENTS];

	if (upmc_sys_read(slots_leader(set->state->os), buf, sizeof(buf)) < 0)
		return upmc_fail(-errno, "read(2) of the topdown group failed: %s",
		                 strerror(errno));
	return 0;
}

/* The topdown layout of a set every counter of which is read in user
 * space, with slots on fixed counter 3 and the metric events on
 * PERF_METRICS; 0, or -1 when the set is not one. */
static int topdown_layout(const struct upmc_set *set, struct linux_set *ls, int kind)
{
	struct upmc_topdown *td = &ls->topdown;
	unsigned i, metrics = 0, slots = 0;

	memset(td, 0, sizeof(*td));
	for (i = 0; i < set->n; i++) {
		const struct upmc_counter *c = &set->state->counter[i];
		uint32_t index = set->page[i]->index;
		if (c->path != UPMC_PATH_USER)
			return -1;
		if (upmc_linux_is_topdown_metric(&c->event, kind)) {
			if (index != UPMC_X86_RDPMC_METRICS + 1)
				return -1;
			td->field[i] = (uint8_t)(((c->event.config >> 8) & 0x7f) + 1);
			metrics++;
		} else if (index == UPMC_X86_RDPMC_SLOTS + 1 && !c->event.generic &&
		           (c->event.config & 0xffff) == 0x0400) {
			td->slots = i;
			slots++;
		}
	}
	td->reset = topdown_reset;
	td->restart = topdown_restart;
	return metrics && slots == 1 ? 0 : -1;
}
#endif

/*
 * A set with topdown metric events read in user space: read whole by the
 * core's topdown pass, or, when it cannot be (a counter read by read(2),
 * an unexpected rdpmc index), its topdown groups by read(2) alone, never
 * both: the kernel's read resets slots and PERF_METRICS.
 */
static void topdown_paths(struct upmc_set *set, struct linux_set *ls,
                          const struct upmc_linux_probe *probe)
{
	int kind = probe->n_core ? probe->core_kind[0] : 0;
	unsigned e, metrics = 0;

	for (e = 0; e < ls->n_ev; e++) {
		const struct upmc_counter *c = &set->state->counter[ls->ev[e].counter];
		metrics +=
		        c->path == UPMC_PATH_USER && upmc_linux_is_topdown_metric(&c->event, kind);
	}
	if (!metrics)
		return;
#ifdef UPMC_X86_RDPMC_METRICS
	if (topdown_layout(set, ls, kind) == 0) {
		set->state->topdown = &ls->topdown;
		return;
	}
#endif
	for (e = 0; e < ls->n_ev; e++) {
		struct upmc_counter *c = &set->state->counter[ls->ev[e].counter];
		if (!in_topdown_group(set, ls, e, kind))
			continue;
		if (ls->ev[e].map && upmc_linux_is_topdown_metric(&c->event, kind)) {
			upmc_sys_munmap(ls->ev[e].map, ls->page_size);
			ls->ev[e].map = NULL; /* so the group is read by read(2) whole */
		}
		c->path = UPMC_PATH_SYSCALL;
		set->page[ls->ev[e].counter] = &upmc_no_page;
		upmc_format(c->reason, sizeof(c->reason),
		            "read(2) of its topdown group: rdpmc reads slots and PERF_METRICS only "
		            "when it reads the whole set, and read(2) resets them, so the group "
		            "is read by read(2) alone");
	}
	set->user_n = 0;
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

void upmc_linux_pinned_failed(char *buf, size_t size, const struct linux_set *ls)
{
	char has[48] = "";
	unsigned e, core = 0;
	int max = upmc_linux_max_counters();

	for (e = 0; e < ls->n_ev; e++)
		core += ls->grp[ls->ev[e].group].core;
	if (max > 0)
		upmc_format(has, sizeof(has), "; the CPU has %d per core", max);
	upmc_format(buf, size,
	            "the counters could not be put on the PMU together: the set needs %u%s, more "
	            "than are free, because the CPU has fewer or another user holds them (a "
	            "system-wide perf session, a profiler, the NMI watchdog: `sysctl "
	            "kernel.nmi_watchdog=0`); open fewer events, or pass UPMC_OPT_MULTIPLEX to "
	            "time-share them",
	            core, has);
}

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
	upmc_linux_probe_pmus(&probe); /* the explanations read the settings they need */
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
		char why[UPMC_REASON_MAX];
		upmc_linux_pinned_failed(why, sizeof(why), ls);
		if (flags & UPMC_OPT_TIME_ONLY)
			mark_unavailable(set, ls, why);
		else
			err = upmc_fail(-EBUSY, "%s", why);
	}
	if (err < 0) {
		release(ls);
		return err;
	}
	choose_paths(set, ls, flags, &probe);
	topdown_paths(set, ls, &probe);
	set_advice(set, ls, &probe);
	ls->one_group = ls->n_grp == 1 && ls->n_ev == set->n && in_counter_order(ls) &&
	                !ls->hybrid && !ls->multiplex;
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
		set->page[i] = &upmc_no_page;
	set->user_n = 0;
	release(ls);
	set->state->os = NULL;
}
