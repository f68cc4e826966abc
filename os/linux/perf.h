/* SPDX-License-Identifier: MIT */
/*
 * The Linux layer's perf groups, private to os/linux: opened and closed by
 * perf_open.c, read by perf_read.c, their pages' clock by perf_clock.c.
 */
#ifndef UPMC_LINUX_PERF_H
#define UPMC_LINUX_PERF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/os.h"
#include "os/linux/probe.h"

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
	int core;              /* its events are on a core PMU: they count in turns */
	unsigned metric_group; /* multiplexed: the metrics' group it is (0: one event) */
	uint32_t cached_seq;   /* its pages' lock sum at the last read(2) */
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
	struct upmc_topdown topdown;         /* the set's, when it reads topdown in user space */
	size_t page_size;
};

/* Why a pinned group is not on the PMU, with how many counters the set
 * needs and the CPU has: the open's and the read's sentence. */
void upmc_linux_pinned_failed(char *buf, size_t size, const struct linux_set *ls);

#endif /* UPMC_LINUX_PERF_H */
