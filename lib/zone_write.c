/* SPDX-License-Identifier: MIT */
/* Zones: what every writer shares, and the choice of writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zone_internal.h"

void upmc_zone_label(const struct upmc_profile *p, const struct upmc_zone_thread *t, char *buf,
                     size_t size)
{
	const struct upmc_zone_thread *u;

	for (u = upmc_zone_threads(p); u != t; u = upmc_zone_thread_next(u))
		if (!strcmp(u->name, t->name)) {
			upmc_format(buf, size, "%s #%u", t->name, t->index + 1);
			return;
		}
	upmc_format(buf, size, "%s", t->name);
}

/*
 * Whether z, begun after o, is inside it. The depth alone cannot say when a
 * zone between them is not exported (refused, dropped, still open): o may
 * then be z's uncle. A zone of no smaller depth, or one that ends before z
 * does, is not z's ancestor, and so ended before z began (timestamps never
 * go back on a thread): its close comes before z's open. Any other holds z
 * in time, so z's events nest inside its own either way.
 */
static int holds(const struct zone_done *o, const struct zone_done *z)
{
	return o->depth < z->depth && o->t1 >= z->t1;
}

int upmc_zone_walk(struct upmc_zone_thread *t,
                   int (*fn)(void *arg, const struct zone_done *z, int begin, unsigned depth),
                   void *arg)
{
	const struct zone_done **open = NULL;
	size_t i, sp = 0, cap = 0;
	int err = 0;

	upmc_zone_sort(t);
	for (i = 0; i < t->n_zones && !err; i++) {
		const struct zone_done *z = &t->zones[i];
		for (; sp && !holds(open[sp - 1], z) && !err; sp--)
			err = fn(arg, open[sp - 1], 0, (unsigned)(sp - 1));
		if (sp == cap) {
			const struct zone_done **bigger =
			        realloc(open, (cap = 2 * cap + 16) * sizeof(*open));
			if (!bigger) {
				err = upmc_fail(-ENOMEM, "out of memory writing zones");
				break;
			}
			open = bigger;
		}
		if (!err)
			err = fn(arg, z, 1, (unsigned)sp);
		open[sp++] = z;
	}
	for (; sp && !err; sp--)
		err = fn(arg, open[sp - 1], 0, (unsigned)(sp - 1));
	free(open);
	return err;
}

static int check_format(enum upmc_format format, const char *fn)
{
	if (format < UPMC_FORMAT_TABLE || format > UPMC_FORMAT_SPEEDSCOPE)
		return upmc_fail(-EINVAL, "%s: unknown format %d", fn, (int)format);
	return 0;
}

UPMC_API int upmc_profile_write(struct upmc_profile *p, enum upmc_format format, FILE *out)
{
	int err;

	if (!p || !out)
		return upmc_fail(-EINVAL, "upmc_profile_write: the profile or file is NULL");
	err = check_format(format, "upmc_profile_write");
	if (err < 0)
		return err;
	err = upmc_zone_collect(p, 0);
	if (err < 0)
		return err;
	upmc_zone_collector_lock();
	switch (format) {
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
		err = upmc_zone_write_perfetto(p, out);
		break;
	case UPMC_FORMAT_SPEEDSCOPE:
		err = upmc_zone_write_speedscope(p, out);
		break;
	default: /* check_format() said */
		err = -EINVAL;
	}
	upmc_zone_collector_unlock();
	if (err == 0 && (fflush(out) != 0 || ferror(out)))
		err = upmc_fail(-EIO, "upmc_profile_write: writing failed");
	return err;
}

UPMC_API int upmc_profile_save(struct upmc_profile *p, enum upmc_format format, const char *path)
{
	FILE *f;
	int err;

	if (!p || !path)
		return upmc_fail(-EINVAL, "upmc_profile_save: the profile or path is NULL");
	/* Before the file is created: an existing one stays as it was. */
	err = check_format(format, "upmc_profile_save");
	if (err < 0)
		return err;
	f = fopen(path, "wb");
	if (!f)
		return upmc_fail(-errno, "upmc_profile_save: cannot create '%s': %s", path,
		                 strerror(errno));
	err = upmc_profile_write(p, format, f);
	if (fclose(f) != 0 && err == 0)
		err = upmc_fail(-EIO, "upmc_profile_save: writing '%s' failed", path);
	return err;
}

UPMC_API int upmc_profile_print(struct upmc_profile *p, FILE *out)
{
	return upmc_profile_write(p, UPMC_FORMAT_TABLE, out);
}
