/* SPDX-License-Identifier: MIT */
/* Files, for every OS layer: a finished file put in the place of another,
 * a file cut to a size, and what `upmc stat --zones` hands a program
 * (lib/zone/request.c): a request in the environment, read only where the
 * process may trust it, and a descriptor it inherited, written whole. */
#define _GNU_SOURCE /* lstat, secure_getenv */
#ifdef _WIN32
#include <windows.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#else
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "lib/core/os.h"

int upmc_os_replace_file(const char *from, const char *to)
{
#ifdef _WIN32
	if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING))
		return 0;
	return upmc_fail(-EIO, "cannot put '%s' in the place of '%s': Windows error %lu", from, to,
	                 (unsigned long)GetLastError());
#else
	int err;

	/* The name moves to the new file in one step: no reader finds it
	 * missing or half written. */
	if (rename(from, to) == 0)
		return 0;
	err = errno;
	return upmc_fail(-err, "cannot rename '%s' to '%s': %s", from, to, strerror(err));
#endif
}

int upmc_os_truncate(FILE *f, uint64_t size)
{
#ifdef _WIN32
	int err = _chsize_s(_fileno(f), (__int64)size);
	return err ? upmc_fail(-err, "cannot cut a file to %llu bytes: %s",
	                       (unsigned long long)size, strerror(err))
	           : 0;
#else
	if (ftruncate(fileno(f), (off_t)size) == 0)
		return 0;
	return upmc_fail(-errno, "cannot cut a file to %llu bytes: %s", (unsigned long long)size,
	                 strerror(errno));
#endif
}

int upmc_os_replaceable(const char *path)
{
#ifdef _WIN32
	(void)path;
	return 1;
#else
	struct stat st;

	return lstat(path, &st) != 0 || S_ISREG(st.st_mode);
#endif
}

const char *upmc_os_trusted_env(const char *name)
{
#if defined(_WIN32)
	(void)name;
	return NULL; /* no inherited descriptors to write to: never a request */
#elif defined(__GLIBC__)
	/* NULL in a set-user-ID or set-group-ID process (AT_SECURE), or one
	 * given capabilities by its file. */
	return secure_getenv(name);
#else
	/* macOS, the BSDs; other C libraries on Linux compare the ids */
	if (getuid() != geteuid() || getgid() != getegid())
		return NULL;
	return getenv(name);
#endif
}

int upmc_os_request_fd(int fd)
{
#ifdef _WIN32
	(void)fd;
	return -EBADF;
#else
	struct stat st;
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fstat(fd, &st) < 0)
		return -EBADF;
	if ((flags & O_ACCMODE) == O_RDONLY)
		return -EACCES;
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return -EINVAL; /* a terminal, a socket, a device: not what upmc stat gives */
	return 0;
#endif
}

int upmc_os_write_whole(int fd, const void *buf, size_t len)
{
#ifdef _WIN32
	(void)fd;
	(void)buf;
	(void)len;
	return -EBADF;
#else
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
#endif
}
