/* SPDX-License-Identifier: MIT */
/*
 * Zones as Chrome trace event JSON (the Trace Event Format), which Perfetto
 * UI, chrome://tracing and Tracy's importer open:
 * - "X" per zone, ts and dur in microseconds with the nanoseconds kept,
 *   the zone's counts as flat args and again under args.data (the Firefox
 *   profiler keeps only that);
 * - "M" process and thread names, "i" per frame mark (global scope);
 * - "C" at every outermost zone's begin, its counts under keys that name
 *   the thread, unique across the trace (Tracy names a plot by the key);
 * - otherData: what was dropped, refused and left open.
 */
#include <string.h>

#include "zone_internal.h"

static void counts(const struct upmc_profile *p, const struct upmc_zone_info *z, FILE *out)
{
	unsigned i;

	for (i = 0; i < p->n; i++) {
		fprintf(out, "%s", i ? "," : "");
		upmc_json_string(out, p->counter[i]);
		if (z->delta[i] == UPMC_NOT_COUNTED)
			fprintf(out, ":null");
		else
			fprintf(out, ":%llu", (unsigned long long)z->delta[i]);
	}
}

static void zone_event(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                       const struct upmc_zone_info *z, FILE *out)
{
	fprintf(out, ",\n{\"name\":");
	upmc_json_string(out, z->loc->name);
	fprintf(out,
	        ",\"cat\":\"zone\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%llu,\"tid\":%llu",
	        (double)z->begin_ns / 1e3, (double)(z->end_ns - z->begin_ns) / 1e3,
	        (unsigned long long)p->pid, (unsigned long long)t->tid);
	if (p->n) {
		fprintf(out, ",\"args\":{");
		counts(p, z, out);
		fprintf(out, ",\"data\":{");
		counts(p, z, out);
		fprintf(out, "}}");
	}
	fputc('}', out);
}

/* An outermost zone's counts on the thread's counter track. */
static void counter_event(const struct upmc_profile *p, const struct upmc_zone_thread *t,
                          const char *label, const struct upmc_zone_info *z, FILE *out)
{
	char key[ZONE_THREAD_NAME + 16 + UPMC_NAME_MAX + 4];
	unsigned i, first = 1;

	for (i = 0; i < p->n; i++)
		if (z->delta[i] != UPMC_NOT_COUNTED)
			break;
	if (i == p->n)
		return;
	fprintf(out, ",\n{\"name\":");
	upmc_format(key, sizeof(key), "%s counters", label);
	upmc_json_string(out, key);
	fprintf(out, ",\"ph\":\"C\",\"ts\":%.3f,\"pid\":%llu,\"tid\":%llu,\"args\":{",
	        (double)z->begin_ns / 1e3, (unsigned long long)p->pid, (unsigned long long)t->tid);
	for (i = 0; i < p->n; i++) {
		if (z->delta[i] == UPMC_NOT_COUNTED)
			continue;
		upmc_format(key, sizeof(key), "%s: %s", label, p->counter[i]);
		fprintf(out, "%s", first ? "" : ",");
		upmc_json_string(out, key);
		fprintf(out, ":%llu", (unsigned long long)z->delta[i]);
		first = 0;
	}
	fprintf(out, "}}");
}

static void thread_events(const struct upmc_profile *p, struct upmc_zone_thread *t, FILE *out)
{
	struct zone_counts buf;
	char label[ZONE_THREAD_NAME + 16];
	struct upmc_zone_info z;
	size_t i;

	upmc_zone_label(p, t, label, sizeof(label));
	fprintf(out,
	        ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%llu,\"tid\":%llu,"
	        "\"args\":{\"name\":",
	        (unsigned long long)p->pid, (unsigned long long)t->tid);
	upmc_json_string(out, label);
	fprintf(out, "}}");
	upmc_zone_sort(t);
	for (i = 0; i < t->n_zones; i++) {
		upmc_zone_info(p, t, &t->zones[i], &buf, &z);
		zone_event(p, t, &z, out);
		if (z.depth == 0 && p->n)
			counter_event(p, t, label, &z, out);
	}
	for (i = 0; i < t->n_frames; i++)
		fprintf(out,
		        ",\n{\"name\":\"frame\",\"cat\":\"frame\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%"
		        ".3f,"
		        "\"pid\":%llu,\"tid\":%llu}",
		        (double)upmc_zone_ns(p, t->frames[i]) / 1e3, (unsigned long long)p->pid,
		        (unsigned long long)t->tid);
}

int upmc_zone_write_chrome(struct upmc_profile *p, FILE *out)
{
	struct upmc_profile_stats st;
	struct upmc_zone_thread *t;
	unsigned i;

	upmc_zone_totals(p, &st);
	fprintf(out, "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"upmc\","
	             "\"counters\":[");
	for (i = 0; i < p->n; i++) {
		fprintf(out, "%s", i ? "," : "");
		upmc_json_string(out, p->counter[i]);
	}
	fprintf(out,
	        "],\"dropped_zones\":%llu,\"dropped_frames\":%llu,\"unbalanced_ends\":%llu,"
	        "\"refused_zones\":%llu,\"open_zones\":%llu},\n",
	        (unsigned long long)st.dropped, (unsigned long long)st.dropped_frames,
	        (unsigned long long)st.unbalanced, (unsigned long long)st.refused,
	        (unsigned long long)st.open);
	fprintf(out,
	        "\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%llu,\"tid\":0,"
	        "\"args\":{\"name\":\"upmc profile\"}}",
	        (unsigned long long)p->pid);
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		thread_events(p, t, out);
	fprintf(out, "\n]}\n");
	return 0;
}
