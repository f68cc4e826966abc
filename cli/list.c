/* SPDX-License-Identifier: MIT */
/* `upmc list`: every event upmc knows by name, grouped by PMU; with
 * --metrics, every metric and whether this machine computes it. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <upmc/upmc.h>

#include "os/linux/upmc_linux.h"
#include "cli/cli.h"
#include "bench/json.h"

struct listed {
	char *name, *pmu, *desc;
};

struct event_list {
	struct listed *item;
	size_t n, cap;
	int failed; /* out of memory */
};

/* The library's strings live only during the callback: keep copies. */
static int keep(const struct upmc_event_info *info, void *arg)
{
	struct event_list *l = arg;
	struct listed *e;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 128;
		struct listed *grown = realloc(l->item, cap * sizeof(*grown));
		if (!grown)
			return l->failed = 1;
		l->item = grown;
		l->cap = cap;
	}
	e = &l->item[l->n];
	e->name = strdup(info->name);
	e->pmu = strdup(info->pmu);
	e->desc = strdup(info->desc ? info->desc : "");
	if (!e->name || !e->pmu || !e->desc) {
		free(e->name);
		free(e->pmu);
		free(e->desc);
		return l->failed = 1;
	}
	l->n++;
	return 0;
}

static void free_list(struct event_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->item[i].name);
		free(l->item[i].pmu);
		free(l->item[i].desc);
	}
	free(l->item);
}

/* Whether item i is the first of its PMU: groups print in that order. */
static int first_of_pmu(const struct event_list *l, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcmp(l->item[k].pmu, l->item[i].pmu))
			return 0;
	return 1;
}

static const char *pmu_note(const char *pmu, const struct upmc_linux_probe *p)
{
	if (strcmp(pmu, "hardware") && strcmp(pmu, "cache"))
		return "";
	return p->n_core ? "" : " (no CPU PMU is visible here: `upmc info` says why)";
}

static void print_text(const struct event_list *l)
{
	struct upmc_linux_probe probe;
	size_t i, k;

	upmc_linux_probe(&probe);
	for (i = 0; i < l->n; i++) {
		if (!first_of_pmu(l, i))
			continue;
		printf("%s%s events%s\n", i ? "\n" : "", l->item[i].pmu,
		       pmu_note(l->item[i].pmu, &probe));
		for (k = i; k < l->n; k++)
			if (!strcmp(l->item[k].pmu, l->item[i].pmu))
				printf("  %-32s %s\n", l->item[k].name, l->item[k].desc);
	}
}

static void print_json(const struct event_list *l)
{
	struct json j;
	size_t i, k;

	json_start(&j, stdout);
	json_object(&j, NULL);
	json_uint(&j, "count", l->n);
	json_array(&j, "pmus");
	for (i = 0; i < l->n; i++) {
		if (!first_of_pmu(l, i))
			continue;
		json_object(&j, NULL);
		json_string(&j, "pmu", l->item[i].pmu);
		json_array(&j, "events");
		for (k = i; k < l->n; k++) {
			if (strcmp(l->item[k].pmu, l->item[i].pmu))
				continue;
			json_object(&j, NULL);
			json_string(&j, "name", l->item[k].name);
			json_string(&j, "desc", l->item[k].desc);
			json_end(&j);
		}
		json_end(&j);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
}

/* ---- metrics ---- */

/* No CPU PMU: every metric needs one, and the header says why once. */
static int print_metric_text(const struct upmc_metric_info *m, void *arg)
{
	const int *no_pmu = arg;
	const char *why = m->why_not[0] && *no_pmu ? "no CPU PMU" : m->why_not;

	if (!m->events[0]) { /* the catalogue says these CPUs have none */
		printf("  %-22s none for %s: %s\n", m->name, m->cpus, m->desc);
		return 0;
	}
	printf("  %-22s %s%s%s\n", m->name, m->desc, m->group[0] ? "; group " : "", m->group);
	printf("  %-22s = %s  (%s)\n", "", m->formula, m->unit);
	printf("  %-22s for %s: %s%s\n", "", m->cpus,
	       m->why_not[0] ? "not here: " : "computed here", why);
	return 0;
}

static int print_metric_json(const struct upmc_metric_info *m, void *arg)
{
	struct json *j = arg;

	json_object(j, NULL);
	json_string(j, "name", m->name);
	json_string(j, "group", m->group);
	json_string(j, "events", m->events);
	json_string(j, "formula", m->formula);
	json_string(j, "unit", m->unit);
	json_bool(j, "percent", m->percent);
	json_string(j, "desc", m->desc);
	json_string(j, "cpus", m->cpus);
	json_string(j, "source", m->source);
	json_bool(j, "available", !m->why_not[0]);
	json_string(j, "why_not", m->why_not[0] ? m->why_not : NULL);
	json_end(j);
	return 0;
}

static int list_metrics(int as_json)
{
	struct upmc_linux_probe probe;
	struct json j;
	int no_pmu;
	int n;

	if (!as_json) {
		upmc_linux_probe(&probe);
		no_pmu = !probe.n_core;
		printf("metrics (a name, or its group, goes in an event spec: `upmc stat -e "
		       "IPC`)%s\n",
		       no_pmu ? " (no CPU PMU is visible here: `upmc info` says why)" : "");
		n = upmc_list_metrics(print_metric_text, &no_pmu);
	} else {
		json_start(&j, stdout);
		json_object(&j, NULL);
		json_array(&j, "metrics");
		n = upmc_list_metrics(print_metric_json, &j);
		json_end(&j);
		json_end(&j);
	}
	if (n < 0) {
		fprintf(stderr, "upmc list: %s\n", upmc_last_error());
		return CLI_EXIT_FAILURE;
	}
	return 0;
}

int cli_list(int argc, char **argv)
{
	struct event_list l = {NULL, 0, 0, 0};
	int as_json = 0, metrics = 0, i, n;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			as_json = 1;
		else if (!strcmp(argv[i], "--metrics"))
			metrics = 1;
		else
			return cli_usage_error("list: unknown option '%s'", argv[i]);
	}
	if (metrics)
		return list_metrics(as_json);
	n = upmc_list_events(keep, &l);
	if (n < 0 || l.failed) {
		fprintf(stderr, "upmc list: %s\n", n < 0 ? upmc_last_error() : "out of memory");
		free_list(&l);
		return CLI_EXIT_FAILURE;
	}
	if (as_json)
		print_json(&l);
	else
		print_text(&l);
	free_list(&l);
	return 0;
}
