/* SPDX-License-Identifier: MIT */
/*
 * For OS layers with no events of their own (macOS, Windows, the simulated
 * kernel): only the portable names and raw codes resolve. Nor do they
 * multiplex: a set runs whenever its thread does.
 */
#include <errno.h>
#include <string.h>

#include "lib/core/os.h"

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

const char *upmc_os_core_kind(void)
{
	return UPMC_ARCH_NAME; /* what the CPU the library runs on is */
}

void upmc_os_cpu_id(char *buf, size_t size)
{
	if (size)
		buf[0] = '\0'; /* no variant for some CPUs only is taken */
}

int upmc_os_smt_active(void)
{
	return -1; /* not known: the forms for SMT off are taken */
}

int upmc_os_hybrid_core(const char *pmu)
{
	(void)pmu;
	return 0; /* no core PMUs known: one core type */
}

int upmc_os_no_core_pmu(char *why, size_t size)
{
	(void)why;
	(void)size;
	return 0; /* the CPU's events simply do not resolve */
}

int upmc_os_metric_constant(const char *name, double *value)
{
	(void)value;
	return upmc_fail(-ENOENT, "this OS layer publishes no constant '#%s'", name);
}

int upmc_os_read_unscaled(struct upmc_set *set, uint64_t *snapshot)
{
	memset(snapshot, 0xff, 3 * set->n * sizeof(*snapshot)); /* UPMC_NOT_COUNTED */
	return upmc_fail(-EOPNOTSUPP, "this OS layer does not multiplex counters");
}
