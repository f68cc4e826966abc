/* SPDX-License-Identifier: MIT */
/* Zones: what every writer shares, and the choice of writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

static int check_format(enum upmc_format format, const char *fn)
{
	if (format < UPMC_FORMAT_TABLE || format > UPMC_FORMAT_PERFETTO_UNCOMPRESSED)
		return upmc_fail(-EINVAL, "%s: unknown format %d", fn, (int)format);
	return 0;
}

/*
 * The writers write through stdio, whose error flag stays set once a write
 * failed: one check at the end covers every write. The buffer is flushed
 * here, so that a full disk is said now; errnum is errno as the writer
 * left it (0 before), the failed write's when the flush has none.
 */
static int check_stream(FILE *out, int errnum, const char *fn)
{
	errno = 0;
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	errnum = errno ? errno : errnum ? errnum : EIO;
	return upmc_fail(-errnum, "%s: writing failed: %s", fn, strerror(errnum));
}

UPMC_API int upmc_profile_write(struct upmc_profile *p, enum upmc_format format, FILE *out)
{
	int err, errnum;

	if (!p || !out)
		return upmc_fail(-EINVAL, "upmc_profile_write: the profile or file is NULL");
	err = check_format(format, "upmc_profile_write");
	if (err == 0)
		err = upmc_zone_refuse_in_callback("upmc_profile_write");
	if (err < 0)
		return err;
	err = upmc_zone_collect(p, 0);
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	errno = 0;
	err = upmc_zone_sort_all(p);
	switch (err < 0 ? -1 : (int)format) {
	case -1: /* the zones could not be ordered */
		break;
	case UPMC_FORMAT_TABLE:
		err = upmc_zone_write_table(p, out);
		break;
	case UPMC_FORMAT_JSON:
		err = upmc_zone_write_json(p, out);
		break;
	case UPMC_FORMAT_CHROME:
		err = upmc_zone_write_chrome(p, out);
		break;
	case UPMC_FORMAT_PERFETTO:
		err = upmc_zone_write_perfetto(p, out,
		                               !(p->profile_flags & UPMC_PROFILE_UNCOMPRESSED));
		break;
	case UPMC_FORMAT_PERFETTO_UNCOMPRESSED:
		err = upmc_zone_write_perfetto(p, out, 0);
		break;
	case UPMC_FORMAT_SPEEDSCOPE:
		err = upmc_zone_write_speedscope(p, out);
		break;
	default: /* check_format() said */
		err = -EINVAL;
	}
	errnum = errno;
	upmc_zone_collector_unlock();
	if (err == 0)
		err = check_stream(out, errnum, "upmc_profile_write");
	return err;
}

/* A new file beside path (its directory: the rename cannot cross file
 * systems), made here and nowhere else ("x": an existing one is not
 * opened); *tmp is its name, to free. */
static int create_beside(const char *path, char **tmp, FILE **f)
{
	static uint64_t made; /* names this process tried */
	size_t size = strlen(path) + 64;
	unsigned tries;
	int err = EEXIST;

	*tmp = malloc(size);
	if (!*tmp)
		return upmc_fail(-ENOMEM, "upmc_profile_save: out of memory");
	for (tries = 0; tries < 100 && err == EEXIST; tries++) {
		upmc_format(*tmp, size, "%s.upmc-%llu-%llu.tmp", path,
		            (unsigned long long)upmc_os_process_id(),
		            (unsigned long long)__atomic_add_fetch(&made, 1, __ATOMIC_RELAXED));
		*f = fopen(*tmp, "wbx");
		if (*f)
			return 0;
		err = errno;
	}
	free(*tmp);
	*tmp = NULL;
	return upmc_fail(-err, "upmc_profile_save: cannot create a file beside '%s': %s", path,
	                 strerror(err));
}

/* A failed save's sentence: what failed, and that the file is as it was. */
static int save_failed(int err, const char *path)
{
	char why[256];

	upmc_format(why, sizeof(why), "%s", upmc_last_error());
	return upmc_fail(err, "upmc_profile_save: '%s' is as it was, not replaced: %s", path, why);
}

/* Whether a save to path is gzip-compressed: Chrome JSON named *.gz. */
static int gzipped(enum upmc_format format, const char *path)
{
	size_t n = strlen(path);

	return format == UPMC_FORMAT_CHROME && n > 3 && !strcmp(path + n - 3, ".gz");
}

/* The export into a temporary file, then gzip-compressed into f. */
static int write_gzipped(struct upmc_profile *p, enum upmc_format format, FILE *f)
{
	FILE *plain = tmpfile();
	int err;

	if (!plain)
		return upmc_fail(errno ? -errno : -EIO,
		                 "upmc_profile_save: no temporary file to gzip from: %s",
		                 strerror(errno ? errno : EIO));
	err = upmc_profile_write(p, format, plain);
	if (err == 0)
		err = upmc_zone_gzip_copy(plain, f);
	fclose(plain);
	if (err == 0)
		err = check_stream(f, 0, "upmc_profile_save");
	return err;
}

/* The export into f, opened at name, then closed: 0 when both went well,
 * else the first error. gzip: compressed. */
static int write_and_close(struct upmc_profile *p, enum upmc_format format, FILE *f,
                           const char *name, int gzip)
{
	int err = gzip ? write_gzipped(p, format, f) : upmc_profile_write(p, format, f);

	errno = 0;
	if (fclose(f) != 0 && err == 0)
		err = upmc_fail(errno ? -errno : -EIO, "upmc_profile_save: closing '%s' failed: %s",
		                name, strerror(errno ? errno : EIO));
	return err;
}

/* A FIFO, a device or a symbolic link at path: written in place. */
static int save_in_place(struct upmc_profile *p, enum upmc_format format, const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return upmc_fail(-errno, "upmc_profile_save: cannot open '%s': %s", path,
		                 strerror(errno));
	return write_and_close(p, format, f, path, gzipped(format, path));
}

/*
 * The export goes to a new file beside path, which takes path's place only
 * once it is whole: a save that fails (a full disk, no memory) leaves the
 * previous file as it was, and removes its own. What is not a regular file
 * (a FIFO, a device, a symbolic link) is written in place. Every write, the flush
 * and the close are checked. No fsync: a save promises that a failure the
 * process is told of keeps the old file, and a full disk is told by
 * write(2) (by close(2) over NFS); surviving a power cut just after a save
 * would cost a flush to the disk at every export, which a profile's export
 * does not need.
 */
UPMC_API int upmc_profile_save(struct upmc_profile *p, enum upmc_format format, const char *path)
{
	char *tmp = NULL;
	FILE *f = NULL;
	int err;

	if (!p || !path)
		return upmc_fail(-EINVAL, "upmc_profile_save: the profile or path is NULL");
	err = check_format(format, "upmc_profile_save");
	if (err == 0)
		err = upmc_zone_refuse_in_callback("upmc_profile_save");
	if (err == 0 && !upmc_os_replaceable(path))
		return save_in_place(p, format, path);
	if (err == 0)
		err = create_beside(path, &tmp, &f);
	if (err < 0)
		return err;
	err = write_and_close(p, format, f, tmp, gzipped(format, path));
	if (err == 0)
		err = upmc_os_replace_file(tmp, path);
	if (err < 0) {
		remove(tmp);
		err = save_failed(err, path);
	}
	free(tmp);
	return err;
}

UPMC_API int upmc_profile_print(struct upmc_profile *p, FILE *out)
{
	return upmc_profile_write(p, UPMC_FORMAT_TABLE, out);
}
