/* SPDX-License-Identifier: MIT */
/* `upmc list`: every event upmc_list_events() gives, grouped by its PMU. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upmc/upmc.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

/* Names are copied whole: libpfm4's run past 64 bytes on some CPUs. */
struct known {
	char *name[160];
	char *pmu[160];
	unsigned n, total;
};

/* The first 160 events the library lists, and how many there are. */
static int remember(const struct upmc_event_info *info, void *arg)
{
	struct known *k = arg;

	if (k->n < 160) {
		k->name[k->n] = strdup(info->name);
		k->pmu[k->n] = strdup(info->pmu);
		if (!k->name[k->n] || !k->pmu[k->n])
			return -1;
		k->n++;
	}
	k->total++;
	return 0;
}

static void known_free(struct known *k)
{
	unsigned i;

	for (i = 0; i < k->n; i++) {
		free(k->name[i]);
		free(k->pmu[i]);
	}
	free(k);
}

static struct known *library_events(void)
{
	struct known *k = calloc(1, sizeof(*k));

	if (k && upmc_list_events(remember, k) < 0) {
		known_free(k);
		return NULL;
	}
	return k;
}

/* Lines of text that start with two spaces: the events, one a line. */
static unsigned event_lines(const char *text)
{
	unsigned n = 0;
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, "  ", 2);
	return n;
}

TEST(cli_list, text)
{
	struct known *k = library_events();
	struct cli_result r;

	ASSERT(k);
	CLI_RUN(r, NULL, "list");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "hardware events");
	EXPECT_CONTAINS(r.out, "\nsoftware events");
	EXPECT_CONTAINS(r.out, "\ncache events");
	EXPECT_CONTAINS(r.out, "  task-clock                       CPU time of the task, ns\n");
	EXPECT_CONTAINS(r.out, "  L1-dcache-load-misses ");
	EXPECT_EQ(event_lines(r.out), k->total);
	cli_result_free(&r);
	known_free(k);
}

/* The JSON's PMU group that holds event name; NULL if none does. */
static const char *pmu_of(const struct jdoc *doc, const char *name)
{
	const struct jdoc *pmus = jdoc_get(doc, "pmus");
	size_t i, e;

	for (i = 0; pmus && i < pmus->n; i++) {
		const struct jdoc *events = jdoc_get(jdoc_at(pmus, i), "events");
		for (e = 0; events && e < events->n; e++)
			if (!strcmp(jdoc_string(jdoc_at(events, e), "name"), name))
				return jdoc_string(jdoc_at(pmus, i), "pmu");
	}
	return NULL;
}

TEST(cli_list, json)
{
	struct known *k = library_events();
	const struct jdoc *pmus;
	struct cli_result r;
	struct jdoc *doc;
	char err[128];
	size_t i, total = 0;

	ASSERT(k);
	CLI_RUN(r, NULL, "list", "--json");
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.out, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	EXPECT(jdoc_number(doc, "count", -1) == k->total);
	pmus = jdoc_get(doc, "pmus");
	ASSERT(pmus && pmus->type == JDOC_ARRAY);
	for (i = 0; i < pmus->n; i++) {
		const struct jdoc *events = jdoc_get(jdoc_at(pmus, i), "events");
		ASSERT(events && events->type == JDOC_ARRAY);
		EXPECT(events->n > 0);
		EXPECT(jdoc_string(jdoc_at(events, 0), "desc") != NULL);
		total += events->n;
	}
	EXPECT_EQ(total, k->total);
	for (i = 0; i < k->n; i++) {
		const char *pmu = pmu_of(doc, k->name[i]);
		EXPECT_MSG(pmu && !strcmp(pmu, k->pmu[i]), "%s: pmu %s, expected %s", k->name[i],
		           pmu ? pmu : "(none)", k->pmu[i]);
	}
	jdoc_free(doc);
	cli_result_free(&r);
	known_free(k);
}

/* The library's catalogue, one object per metric, each either computed
 * here or with the reason it is not (which the library gives too). */
static int library_available(const struct upmc_metric_info *info, void *arg)
{
	char *out = arg;

	if (!strcmp(info->name, "IPC"))
		out[0] = info->why_not[0] ? 'n' : 'y';
	return 0;
}

TEST(cli_list, metrics_json)
{
	const struct jdoc *metrics, *ipc = NULL;
	struct cli_result r;
	struct jdoc *doc;
	char err[128], here[2] = "";
	int n = upmc_list_metrics(library_available, here);
	size_t i;

	ASSERT(n > 0);
	CLI_RUN(r, NULL, "list", "--metrics", "--json");
	EXPECT_EQ(r.status, 0);
	doc = jdoc_parse(r.out, err, sizeof(err));
	ASSERT_MSG(doc, "invalid JSON: %s", err);
	metrics = jdoc_get(doc, "metrics");
	ASSERT(metrics && metrics->type == JDOC_ARRAY);
	EXPECT_EQ(metrics->n, n);
	for (i = 0; i < metrics->n; i++) {
		const struct jdoc *m = jdoc_at(metrics, i);
		const char *why = jdoc_string(m, "why_not");
		EXPECT(jdoc_string(m, "formula") && jdoc_string(m, "source"));
		EXPECT_MSG((why != NULL) != jdoc_is_null(m, "why_not"), "metric %zu", i);
		if (!ipc && !strcmp(jdoc_string(m, "name"), "IPC"))
			ipc = m;
	}
	ASSERT(ipc);
	EXPECT_EQ(jdoc_is_null(ipc, "why_not"), here[0] == 'y');
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_list, metrics_text)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "list", "--metrics");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "IPC");
	EXPECT_CONTAINS(r.out, "= instructions / cycles");
	EXPECT_CONTAINS(r.out, "TopdownL1");
	cli_result_free(&r);
}
