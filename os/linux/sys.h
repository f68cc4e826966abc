/* SPDX-License-Identifier: MIT */
/*
 * The system calls the Linux layer makes on perf events, one function each.
 * os/linux/sys.c makes them; a test build links tests/fake/fake_kernel.c in
 * its place (the way tests/sim replaces the whole OS layer), so that the
 * layer's open, plan and read logic runs against machines this CI does not
 * have. Only open and the out-of-line paths call them: one plain call
 * before a system call, nothing on the inline hot path.
 */
#ifndef UPMC_LINUX_SYS_H
#define UPMC_LINUX_SYS_H

#include <stddef.h>
#include <sys/types.h>

struct perf_event_attr;

/* perf_event_open(2) with PERF_FLAG_FD_CLOEXEC; -1 and errno on failure. */
int upmc_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group);

/* A read-only shared mapping of an event's first page (MAP_POPULATE when
 * populate is set); MAP_FAILED and errno on failure. */
void *upmc_sys_mmap_page(int fd, size_t size, int populate);
int upmc_sys_munmap(void *addr, size_t size);

int upmc_sys_ioctl(int fd, unsigned long request, unsigned long arg);
ssize_t upmc_sys_read(int fd, void *buf, size_t size);
int upmc_sys_close(int fd);

#endif /* UPMC_LINUX_SYS_H */
