/* SPDX-License-Identifier: MIT */
/*
 * Linux: reading a set's groups, by read(2) or, where a group's pages
 * allow, from user space out of line; the times that scale them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/perf.h"
#include "os/linux/sys.h"

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
static UPMC_COLD int group_read_failed(const struct linux_set *ls, ssize_t got)
{
	char why[UPMC_REASON_MAX];

	if (got < 0)
		return upmc_fail(-errno, "read(2) of the counters failed: %s", strerror(errno));
	if (got > 0)
		return upmc_fail(-EIO, "read(2) of the counters returned %zd bytes, not the group",
		                 got);
	upmc_linux_pinned_failed(why, sizeof(why), ls);
	return upmc_fail(-EBUSY, "%s", why);
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
		return group_read_failed(ls, got);
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
	if (ls->multiplex) { /* the first group's, as ever */
		max_en = en[0];
		other = run[0];
	}
	*enabled = max_en;
	*running = any_core ? (cores < max_en ? cores : max_en) : other;
}

/* read_one_group()'s failure, out of line: its linux_set found again from
 * the set, so that the read keeps no register for it across the call. */
static UPMC_COLD int one_group_failed(struct upmc_set *set, uint64_t *values, ssize_t got)
{
	return upmc_failed_read(set, values, group_read_failed(set->state->os, got));
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
		return one_group_failed(set, values, got);
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
 * A multiplexed set has a group per event, or per metric (its inputs
 * share one schedule: group_for()); read(2) each group once: each count
 * as the kernel has it, however little it ran, with its group's times.
 * The library scales (lib/core/interval.c): an interval's scale is the
 * interval's own, never a difference of two scaled totals.
 */
int upmc_os_read_unscaled(struct upmc_set *set, uint64_t *snapshot)
{
	struct linux_set *ls = set->state->os;
	const unsigned n = set->n;
	unsigned i, e, g;

	for (i = 0; i < n; i++) {
		snapshot[i] = UPMC_NOT_COUNTED;
		snapshot[n + i] = snapshot[2 * n + i] = 0;
	}
	for (g = 0; g < ls->n_grp; g++) {
		uint64_t buf[3 + MAX_EVENTS]; /* nr, enabled, running, values */
		ssize_t got = upmc_sys_read(ls->grp[g].leader, buf, sizeof(buf));
		unsigned k = 0;

		if (got < (ssize_t)(3 * sizeof(buf[0])) ||
		    got != (ssize_t)((3 + buf[0]) * sizeof(buf[0]))) {
			memset(snapshot, 0xff, 3 * n * sizeof(*snapshot)); /* UPMC_NOT_COUNTED */
			return group_read_failed(ls, got);
		}
		for (e = 0; e < ls->n_ev; e++) {
			const unsigned c = ls->ev[e].counter;
			if (ls->ev[e].group != g || k == buf[0])
				continue;
			snapshot[c] = buf[3 + k++];
			snapshot[n + c] = buf[1];
			snapshot[2 * n + c] = buf[2];
		}
	}
	return (int)n;
}
