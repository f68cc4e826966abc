/* SPDX-License-Identifier: MIT */
/*
 * A zone profile that asks for a metric on the real kernel. Where the
 * machine cannot count its events (no PMU), the open says why in one
 * sentence; time only, the zones keep their time and every export says
 * once why the metric is not computed, not zone by zone. The values
 * themselves are checked on the simulated PMU (zone_export_test.c).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <upmc/zone.h>

#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"
#include "tests/zone_util.h"

static const struct upmc_zone_loc work_loc = {"work", "f", "zone_metrics_test.c", 1};

static int occurrences(const char *text, const char *s)
{
	int n = 0;

	for (; (text = strstr(text, s)); text += strlen(s))
		n++;
	return n;
}

/* The same in a binary export (a Perfetto trace's strings are its bytes). */
static int occurrences_in_bytes(struct upmc_profile *p, enum upmc_format format, const char *s)
{
	char *bytes = NULL, *at;
	size_t size = 0, left;
	FILE *f = open_memstream(&bytes, &size);
	int n = 0;

	if (!f)
		return -1;
	if (upmc_profile_write(p, format, f) < 0)
		n = -1;
	fclose(f);
	for (at = bytes, left = size; n >= 0 && (at = memmem(at, left, s, strlen(s)));
	     at += strlen(s), left = size - (size_t)(at - bytes))
		n++;
	free(bytes);
	return n;
}

/* One sentence: some words, no line break, no second sentence after it. */
static int one_sentence(const char *s)
{
	const char *stop = strstr(s, ". ");

	return strlen(s) > 10 && !strchr(s, '\n') && (!stop || !stop[2]);
}

static int longest(const struct upmc_zone_info *z, void *arg)
{
	uint64_t *ns = arg;

	if (z->end_ns - z->begin_ns > *ns)
		*ns = z->end_ns - z->begin_ns;
	return 0;
}

/* Counts the zones whose metric reads NAN. */
static int metric_not_computed(const struct upmc_zone_info *z, void *arg)
{
	int *n = arg;

	*n += z->metrics == 1 && isnan(z->metric[0]);
	return 0;
}

static int ipc_counts_here(char *why, size_t size)
{
	struct upmc_profile *p = NULL;
	int err = upmc_profile_open(&p, "IPC", NULL);

	snprintf(why, size, "%s", err < 0 ? upmc_last_error() : "");
	upmc_profile_close(p);
	return err == 0;
}

TEST(zone_metrics, without_the_events_the_open_says_why)
{
	char why[512];

	if (ipc_counts_here(why, sizeof(why)))
		SKIP("this machine counts IPC's events: nothing to refuse");
	EXPECT_MSG(strstr(why, "IPC") || strstr(why, "instructions") || strstr(why, "cycles"),
	           "the reason names neither the metric nor its events: %s", why);
	EXPECT_MSG(!strchr(why, '\n'), "%s", why);
}

TEST(zone_metrics, time_only_keeps_time_and_says_why_once)
{
	struct upmc_profile_options o = {sizeof(o), UPMC_OPT_TIME_ONLY, 0, 0, 0};
	struct timespec ms = {0, 1000000};
	struct upmc_profile *p = NULL;
	const struct jdoc *reason, *z;
	char err[200], *table, *chrome, *json, *stat_why;
	struct jdoc *d;
	uint64_t ns = 0;
	int k, without_ipc = 0;

	if (ipc_counts_here(err, sizeof(err)))
		SKIP("this machine counts IPC's events: the metric is computed");
	ASSERT_MSG(upmc_profile_open(&p, "IPC", &o) == 0, "%s", upmc_last_error());
	for (k = 0; k < 3; k++) {
		upmc_zone_begin(&work_loc);
		nanosleep(&ms, NULL);
		upmc_zone_end();
	}
	ASSERT(upmc_profile_zones(p, longest, &ns) == 3);
	EXPECT_MSG(ns >= 1000000, "the longest zone took %llu ns, slept 1 ms",
	           (unsigned long long)ns);
	/* the JSON: the reason once, the metric null for the name */
	json = export_text(p, UPMC_FORMAT_JSON);
	ASSERT(json);
	d = jdoc_parse(json, err, sizeof(err));
	ASSERT_MSG(d, "not JSON: %s", err);
	reason = jdoc_get(jdoc_get(d, "metrics_not_computed"), "IPC");
	ASSERT(reason && reason->type == JDOC_STRING);
	stat_why = strdup(reason->string);
	ASSERT(stat_why);
	EXPECT_MSG(one_sentence(stat_why), "not one sentence: %s", stat_why);
	/* each zone's metric NAN, the reason the profile's */
	EXPECT(!strcmp(upmc_profile_metric_reason(p, 0), stat_why));
	ASSERT(upmc_profile_zones(p, metric_not_computed, &without_ipc) == 3);
	EXPECT_EQ(without_ipc, 3);
	z = jdoc_at(jdoc_get(d, "zones"), 0);
	ASSERT(z);
	EXPECT(jdoc_number(z, "count", -1) == 3 && jdoc_number(z, "total_ns", -1) >= 3e6);
	EXPECT(jdoc_get(jdoc_get(z, "metrics"), "IPC")->type == JDOC_NULL);
	/* said for the profile (and the thread says why it counts nothing), not per zone */
	EXPECT_EQ(occurrences(json, "\"metrics_not_computed\""), 1);
	EXPECT(strstr(json, "\"zones\":[") && !strstr(strstr(json, "\"zones\":["), stat_why));
	jdoc_free(d);
	/* the table: one line says it, the column reads n/a */
	table = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(table);
	EXPECT_EQ(occurrences(table, "IPC is not computed: "), 1);
	EXPECT_CONTAINS(table, stat_why);
	EXPECT_CONTAINS(table, "n/a\n");
	/* Chrome: in otherData once, in no zone's args */
	chrome = export_text(p, UPMC_FORMAT_CHROME);
	ASSERT(chrome);
	EXPECT_EQ(occurrences(chrome, stat_why), 1);
	EXPECT_EQ(occurrences(chrome, "\"IPC\""), 2); /* metrics, metrics_not_computed */
	EXPECT_EQ(occurrences(chrome, "\"ph\":\"X\""), 3);
	/* Perfetto: the process track's instant says it, no slice */
	EXPECT_EQ(occurrences_in_bytes(p, UPMC_FORMAT_PERFETTO_UNCOMPRESSED, stat_why), 1);
	EXPECT_EQ(occurrences_in_bytes(p, UPMC_FORMAT_PERFETTO_UNCOMPRESSED, "IPC not computed"),
	          1);
	free(json);
	free(table);
	free(chrome);
	free(stat_why);
	upmc_profile_close(p);
}
