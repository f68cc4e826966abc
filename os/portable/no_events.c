/* SPDX-License-Identifier: MIT */
/*
 * For OS layers with no events of their own (macOS, Windows, the simulated
 * kernel): only the portable names and raw codes resolve.
 */
#include <errno.h>

#include "lib/os.h"

int upmc_os_resolve_event(const char *item, unsigned flags, struct upmc_event *ev)
{
	(void)item;
	(void)flags;
	(void)ev;
	return -ENOENT;
}

int upmc_os_list_events(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg,
                        int *stopped)
{
	(void)fn;
	(void)arg;
	*stopped = 0;
	return 0;
}
