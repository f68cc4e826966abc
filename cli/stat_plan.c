/* SPDX-License-Identifier: MIT */
/*
 * What `upmc stat` counts, and how it groups it. A metric divides counts,
 * which must come from one schedule: when the counters are time-shared
 * (more events than the PMU has counters), two events opened apart are on
 * the PMU at different times, each scaled by its own share, and their
 * ratio mixes two schedules. So each metric's inputs are one perf group,
 * by the library's rule for a multiplexed set (UPMC_OPT_MULTIPLEX: an
 * event two metric groups need is counted in each). --rotate counts one
 * pass of groups per run instead of time-sharing them.
 */
#include <stdint.h>
#include <string.h>

#include "cli/stat.h"

/* Whether list (one -e) names counter c's event. */
static int list_names(const char *list, const struct stat_counter *c)
{
	struct upmc_event events[UPMC_MAX_COUNTERS];
	struct upmc_metric metrics[UPMC_MAX_METRICS];
	unsigned n_metrics;
	int n = upmc_parse_spec_metrics(list, UPMC_OPT_KERNEL | UPMC_OPT_MULTIPLEX, events,
	                                UPMC_MAX_COUNTERS, metrics, &n_metrics);

	while (n-- > 0)
		if (!strcmp(events[n].name, c->event.name))
			return 1;
	return 0;
}

/* The -e list counter c (no metric's input) comes from; the default spec
 * is the one list when no -e was given. */
static unsigned list_of(const struct stat_args *a, const struct stat_counter *c)
{
	unsigned k;

	for (k = 0; k < a->n_lists; k++)
		if (list_names(a->lists[k], c))
			return k;
	return 0;
}

/*
 * --rotate's passes, each one perf group (pinned): first the metric groups
 * in the order of their metrics, then, for each -e list in order, the
 * events of it that no metric needs. A list whose events the metrics all
 * count makes no pass.
 */
static void plan_passes(struct stat_run *run, const struct stat_args *a)
{
	unsigned pass_of_group[UPMC_MAX_METRICS + 1] = {0}, list[UPMC_MAX_COUNTERS];
	unsigned i, j, g, passes = 0;

	for (g = 1; g <= UPMC_MAX_METRICS; g++)
		for (i = 0; i < run->n; i++)
			if (run->counter[i].group == g) {
				pass_of_group[g] = ++passes;
				break;
			}
	for (i = 0; i < run->n; i++)
		if (run->counter[i].group)
			run->counter[i].pass = pass_of_group[run->counter[i].group] - 1;
		else
			list[i] = list_of(a, &run->counter[i]);
	/* then the lists' passes, in the order of the lists */
	for (;;) {
		unsigned first = run->n;
		for (i = 0; i < run->n; i++)
			if (!run->counter[i].group && list[i] != UINT32_MAX &&
			    (first == run->n || list[i] < list[first]))
				first = i;
		if (first == run->n)
			break;
		for (j = first, g = list[first]; j < run->n; j++)
			if (!run->counter[j].group && list[j] == g) {
				run->counter[j].pass = passes;
				list[j] = UINT32_MAX; /* placed */
			}
		passes++;
	}
	/* each pass one group of its own, apart from the metric groups' numbers */
	for (i = 0; i < run->n; i++)
		run->counter[i].group = run->counter[i].pass + 1;
	run->passes = passes;
}

int stat_plan(struct stat_run *run, const struct stat_args *a)
{
	struct upmc_event events[UPMC_MAX_COUNTERS];
	unsigned i;
	/* Kernel mode too, as perf stat counts; refused, it falls back to user
	 * space. UPMC_OPT_MULTIPLEX: a metric group for each metric's inputs. */
	int n = upmc_parse_spec_metrics(a->spec, UPMC_OPT_KERNEL | UPMC_OPT_MULTIPLEX, events,
	                                UPMC_MAX_COUNTERS, run->metric, &run->n_metrics);

	if (n < 0)
		return -1;
	run->n = (unsigned)n;
	for (i = 0; i < run->n; i++) {
		memset(&run->counter[i], 0, sizeof(run->counter[i]));
		run->counter[i].event = events[i];
		run->counter[i].group = events[i].metric_group;
	}
	run->passes = 0;
	if (a->rotate)
		plan_passes(run, a);
	return n;
}
