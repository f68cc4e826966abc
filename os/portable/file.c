/* SPDX-License-Identifier: MIT */
/* Files, for every OS layer: a finished file put in the place of another,
 * and a file cut to a size. */
#define _POSIX_C_SOURCE 200809L /* lstat */
#ifdef _WIN32
#include <windows.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#ifdef _WIN32
#include <io.h>
#else
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
