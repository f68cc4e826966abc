/* SPDX-License-Identifier: MIT */
/* The real system calls behind os/linux/sys.h. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/linux/sys.h"

int upmc_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

void *upmc_sys_mmap_page(int fd, size_t size, int populate)
{
	return mmap(NULL, size, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), fd, 0);
}

int upmc_sys_munmap(void *addr, size_t size)
{
	return munmap(addr, size);
}

int upmc_sys_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg);
}

ssize_t upmc_sys_read(int fd, void *buf, size_t size)
{
	return read(fd, buf, size);
}

int upmc_sys_close(int fd)
{
	return close(fd);
}
