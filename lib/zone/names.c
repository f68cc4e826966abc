/* SPDX-License-Identifier: MIT */
/*
 * Zones named at run time (upmc_zone_begin_name()): the profile's location
 * for each name and call site, made at the name's first collect and kept
 * for the profile's life, UPMC_ZONE_NAMES_MAX of them at most.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zone_internal.h"

struct zone_name {
	struct upmc_zone_loc loc;
	const struct upmc_zone_loc *site;
	char name[];
};

static size_t name_slot(const struct zone_names *names, const struct upmc_zone_loc *site,
                        const char *name, size_t bytes)
{
	uint64_t h = (uintptr_t)site * 0x9e3779b97f4a7c15ull;
	size_t i, slot;

	for (i = 0; i < bytes; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
	for (slot = (size_t)(h >> 7) & (names->slots - 1); names->slot[slot];
	     slot = (slot + 1) & (names->slots - 1)) {
		const struct zone_name *n = names->slot[slot];
		if (n->site == site && !strncmp(n->name, name, bytes) && !n->name[bytes])
			break;
	}
	return slot;
}

static int more_name_slots(struct zone_names *names)
{
	struct zone_names bigger = {NULL, names->n, names->slots ? 2 * names->slots : 64};
	size_t i;

	bigger.slot = calloc(bigger.slots, sizeof(*bigger.slot));
	if (!bigger.slot)
		return upmc_fail(-ENOMEM, "out of memory collecting zones");
	for (i = 0; i < names->slots; i++) {
		struct zone_name *n = names->slot[i];
		if (n)
			bigger.slot[name_slot(&bigger, n->site, n->name, strlen(n->name))] = n;
	}
	free(names->slot);
	*names = bigger;
	return 0;
}

/* The profile's location for a name and call site, made at its first use;
 * none (*loc NULL: the zone is refused, and counted so) past
 * UPMC_ZONE_NAMES_MAX of them, which bounds what the profile, and each
 * stream's sequence that interns them, keeps of names made at run time. */
int upmc_zone_name_loc(struct zone_names *names, const struct upmc_zone_loc *site, const char *name,
                       size_t bytes, const struct upmc_zone_loc **loc)
{
	struct zone_name *n;
	size_t slot;

	if (names->n < UPMC_ZONE_NAMES_MAX && 2 * (names->n + 1) > names->slots &&
	    more_name_slots(names) < 0)
		return -ENOMEM;
	slot = name_slot(names, site, name, bytes);
	if (!names->slot[slot] && names->n == UPMC_ZONE_NAMES_MAX) {
		*loc = NULL;
		return 0;
	}
	if (!names->slot[slot]) {
		n = malloc(sizeof(*n) + bytes + 1);
		if (!n)
			return upmc_fail(-ENOMEM, "out of memory collecting zones");
		memcpy(n->name, name, bytes);
		n->name[bytes] = '\0';
		n->site = site;
		n->loc.name = n->name;
		n->loc.function = site->function;
		n->loc.file = site->file;
		n->loc.line = site->line;
		names->slot[slot] = n;
		names->n++;
	}
	*loc = &names->slot[slot]->loc;
	return 0;
}

void upmc_zone_free_names(struct zone_names *names)
{
	size_t i;

	for (i = 0; i < names->slots; i++)
		free(names->slot[i]);
	free(names->slot);
	memset(names, 0, sizeof(*names));
}
