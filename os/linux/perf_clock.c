/* SPDX-License-Identifier: MIT */
/*
 * Linux: the kernel's timestamp-to-ns factors from a perf page, and the
 * calibration's reference clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "os/linux/perf.h"
#include "os/linux/sys.h"

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
