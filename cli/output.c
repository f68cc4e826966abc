/* SPDX-License-Identifier: MIT */
/*
 * Writing what upmc prints, truthfully: a stream's error is checked once,
 * where it ends (flushed, then closed), not at every print; a report file
 * is written beside its target and renamed over it only when all of it
 * was written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

/* -errno of the call that just failed (-EIO should it have left none). */
static int failure(void)
{
	return errno ? -errno : -EIO;
}

int cli_stream_error(FILE *f)
{
	int failed_before = ferror(f);

	/* What is still buffered is written now: its error is the one to tell. */
	if (fflush(f) != 0)
		return failure();
	return failed_before ? -EIO : 0;
}

int cli_finish(int status)
{
	int err = cli_stream_error(stdout);

	/* EBADF alone: stdout was closed, and nothing was written to it. */
	if (fclose(stdout) != 0 && !err && errno != EBADF)
		err = failure();
	if (!err)
		return status;
	fprintf(stderr, "upmc: writing to standard output failed: %s\n", strerror(-err));
	return CLI_EXIT_FAILURE;
}

/* "DIR/.NAME.XXXXXX" for "DIR/NAME": in the same directory, so that the
 * rename stays within one file system. */
static char *temp_beside(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash + 1 - path) : 0;
	size_t size = strlen(path) + sizeof("..XXXXXX");
	char *temp = malloc(size);

	if (temp)
		snprintf(temp, size, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
	return temp;
}

/* The mode the file has, or the one fopen() would give a new file. */
static mode_t mode_of(const struct stat *old)
{
	mode_t mask;

	if (old)
		return old->st_mode & 07777;
	mask = umask(0);
	umask(mask);
	return 0666 & ~mask;
}

static int open_temp(struct cli_output *o, const struct stat *old)
{
	int fd, err;

	o->temp = temp_beside(o->path);
	if (!o->temp)
		return -ENOMEM;
	fd = mkostemp(o->temp, O_CLOEXEC); /* the command upmc runs must not inherit it */
	if (fd >= 0 && fchmod(fd, mode_of(old)) == 0 && (o->f = fdopen(fd, "w")))
		return 0;
	err = failure();
	if (fd >= 0) {
		close(fd);
		unlink(o->temp);
	}
	free(o->temp);
	o->temp = NULL;
	return err;
}

int cli_output_open(struct cli_output *o, const char *path)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->path = path;
	if (!path) {
		/* stderr writes at once, every print: composed in memory, the report
		 * goes in one write, whose error is the one to tell. */
		o->f = open_memstream(&o->text, &o->len);
		return o->f ? 0 : failure();
	}
	if (lstat(path, &st) < 0)
		return open_temp(o, NULL);
	if (S_ISREG(st.st_mode)) {
		/* The rename would replace a file that may not be written: refuse it as
		 * fopen() does. */
		if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) < 0)
			return failure();
		return open_temp(o, &st);
	}
	o->f = fopen(path, "we");
	return o->f ? 0 : failure();
}

static int commit_to_stderr(struct cli_output *o)
{
	int err = fclose(o->f) == 0 ? 0 : failure(); /* out of memory */

	o->f = NULL;
	if (!err && fwrite(o->text, 1, o->len, stderr) != o->len)
		err = failure();
	if (!err)
		err = cli_stream_error(stderr);
	free(o->text);
	o->text = NULL;
	return err;
}

int cli_output_commit(struct cli_output *o)
{
	int err;

	if (!o->path)
		return commit_to_stderr(o);
	err = cli_stream_error(o->f);
	/* A full disk may refuse the data only when it is stored. */
	if (!err && o->temp && fsync(fileno(o->f)) < 0)
		err = failure();
	if (fclose(o->f) != 0 && !err)
		err = failure();
	o->f = NULL;
	if (!err && o->temp && rename(o->temp, o->path) < 0)
		err = failure();
	if (err && o->temp)
		unlink(o->temp);
	free(o->temp);
	o->temp = NULL;
	return err;
}

void cli_output_discard(struct cli_output *o)
{
	fclose(o->f);
	o->f = NULL;
	free(o->text);
	o->text = NULL;
	if (o->temp)
		unlink(o->temp);
	free(o->temp);
	o->temp = NULL;
}
