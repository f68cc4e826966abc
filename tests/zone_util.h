/* SPDX-License-Identifier: MIT */
/* Helpers for the zone tests: a profile's export as text. */
#ifndef UPMC_TESTS_ZONE_UTIL_H
#define UPMC_TESTS_ZONE_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include <upmc/zone.h>

/* What upmc_profile_write() writes in format, NUL-terminated, to free();
 * NULL when it fails. (open_memstream(): the includer defines _GNU_SOURCE.) */
static inline char *export_text(struct upmc_profile *p, enum upmc_format format)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	if (!f)
		return NULL;
	if (upmc_profile_write(p, format, f) < 0) {
		fclose(f);
		free(text);
		return NULL;
	}
	fclose(f);
	return text;
}

#endif
