/* SPDX-License-Identifier: MIT */
/*
 * upmc_list_metrics(): the catalogue, and for each row whether this
 * machine computes it, found by opening its events as a set (so this file
 * calls sets, which parse specs, which add metrics: above them all).
 */
#include <errno.h>
#include <string.h>

#include "metric_def.h"

/* Whether this machine can compute def: its events open as one set, or
 * else time-sharing the counters as `upmc stat` does (a metric whose
 * inputs need more counters than a thread has is counted so, each
 * alone), and its constants are published; why not in why (the pinned
 * set's). */
static int computable(const struct upmc_metric_def *def, char *why, size_t size)
{
	const struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	struct upmc_metric m = {.def = def};
	struct upmc_set *set;

	if (upmc_metric_is_none(def)) {
		upmc_format(why, size, "%s have no %s: %s", def->cpus, def->name, def->desc);
		return 0;
	}
	if (!upmc_metric_for_this_cpu(def, why, size))
		return 0;
	if (upmc_open(&set, def->events, NULL) < 0) {
		upmc_format(why, size, "%s", upmc_last_error());
		if (upmc_open(&set, def->events, &mux) < 0)
			return 0;
		why[0] = '\0';
	}
	upmc_close(set);
	if (upmc_metric_compile(&m) < 0) {
		upmc_format(why, size, "%s", m.reason[0] ? m.reason : "its formula is malformed");
		return 0;
	}
	return 1;
}

UPMC_API int upmc_list_metrics(int (*fn)(const struct upmc_metric_info *info, void *arg), void *arg)
{
	struct upmc_metric_info info;
	char why[UPMC_REASON_MAX];
	unsigned i, listed = 0;

	if (!fn)
		return upmc_fail(-EINVAL, "upmc_list_metrics: fn is NULL");
	for (i = 0; i < upmc_metric_rows(); i++) {
		const struct upmc_metric_def *d = upmc_metric_row(i);
		if (!upmc_metric_for_this_arch(d))
			continue;
		why[0] = '\0';
		info = upmc_metric_info_of(d, why);
		computable(d, why, sizeof(why));
		listed++;
		if (fn(&info, arg))
			break;
	}
	return (int)listed;
}
