/* SPDX-License-Identifier: MIT */
/*
 * Zones as Chrome trace event JSON (the Trace Event Format), which Perfetto
 * UI, chrome://tracing and Tracy's importer open:
 * - "X" per zone, ts and dur in microseconds with the nanoseconds kept,
 *   its source as "loc" ("file:line", which Tracy's importer reads), the
 *   counts that counted and the metrics computed from them (a number
 *   each) as flat args and again under args.data (the Firefox profiler
 *   keeps only that), its text and value;
 * - "M" process and thread names, "i" per frame mark (global scope), named
 *   "frame" or "frame: <name>" (Tracy's importer takes them as frames);
 * - "C" at every outermost zone's begin, its counts under keys that name
 *   the thread, unique across the trace (Tracy names a plot by the key);
 * - otherData: what was dropped, refused and left open, the metrics, and
 *   once for the trace, that a counter or metric missing from a zone's args
 *   did not count or could not be computed there, and why each metric that
 *   cannot be computed here is not.
 */
#include <math.h>
#include <string.h>

#include "zone_internal.h"

/* The counts that counted, each "name":count, then the metrics computed,
 * each "name":value; returns how many. */
static unsigned counts(const struct upmc_profile *p, const struct upmc_zone_info *z, FILE *out)
{
	unsigned i, n = 0;

	for (i = 0; i < p->n; i++) {
		if (z->delta[i] == UPMC_NOT_COUNTED)
			continue;
		fprintf(out, "%s", n++ ? "," : "");
		upmc_json_string(out, p->counter[i]);
		fprintf(out, ":%llu", (unsigned long long)z->delta[i]);
	}
	for (i = 0; i < p->n_metrics; i++) {
		if (!isfinite(z->metric[i]))
			continue;
		fprintf(out, "%s", n++ ? "," : "");
		upmc_json_string(out, upmc_zone_metric_name(p, i));
		fprintf(out, ":%.17g", z->metric[i]);
	}
	return n;
}

static int counted_any(const struct upmc_profile *p, const struct upmc_zone_info *z)
{
	unsigned i;

	for (i = 0; i < p->n; i++)
		if (z->delta[i] != UPMC_NOT_COUNTED)
			return 1;
	return 0;
}

static void args(const struct upmc_profile *p, const struct upmc_zone_info *z, FILE *out)
{
	int any = counted_any(p, z);

	if (!any && !z->text && !z->has_value)
		return;
	fprintf(out, ",\"args\":{");
	if (any) {
		counts(p, z, out);
		fprintf(out, ",\"data\":{");
		counts(p, z, out);
		fprintf(out, "}");
	}
	if (z->text) {
		fprintf(out, "%s\"text\":", any ? "," : "");
		upmc_json_string(out, z->text);
	}
	if (z->has_value)
		fprintf(out, "%s\"value\":%llu", any || z->text ? "," : "",
		        (unsigned long long)z->value);
	fputc('}', out);
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
	if (z->loc->file) {
		char loc[4096];
		upmc_format(loc, sizeof(loc), "%s:%u", z->loc->file, (unsigned)z->loc->line);
		fprintf(out, ",\"loc\":");
		upmc_json_string(out, loc);
	}
	args(p, z, out);
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

static void frame_name(const struct zone_frame *f, FILE *out)
{
	char name[256];

	upmc_zone_frame_label(f, name, sizeof(name));
	upmc_json_string(out, name);
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
	for (i = 0; i < t->n_zones; i++) { /* sorted by upmc_profile_write() */
		upmc_zone_info(p, t, upmc_zone_nth(t, i), &buf, &z);
		zone_event(p, t, &z, out);
		if (z.depth == 0 && p->n)
			counter_event(p, t, label, &z, out);
	}
	for (i = 0; i < t->n_frames; i++) {
		fprintf(out, ",\n{\"name\":");
		frame_name(&t->frames[i], out);
		fprintf(out,
		        ",\"cat\":\"frame\",\"ph\":\"i\",\"s\":\"g\",\"ts\":%.3f,\"pid\":%llu,"
		        "\"tid\":%llu}",
		        (double)upmc_zone_ns(p, t->frames[i].t) / 1e3, (unsigned long long)p->pid,
		        (unsigned long long)t->tid);
	}
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
	fprintf(out, "],");
	upmc_zone_json_metrics(p, out);
	fputc(',', out);
	fprintf(out,
	        "\"not_counted\":\"a counter or metric missing from a zone's args did not "
	        "count or could not be computed in that "
	        "zone\",\"dropped_zones\":%llu,\"dropped_frames\":%llu,"
	        "\"dropped_notes\":%llu,\"unbalanced_ends\":%llu,\"refused_zones\":%llu,"
	        "\"open_zones\":%llu},\n",
	        (unsigned long long)st.dropped, (unsigned long long)st.dropped_frames,
	        (unsigned long long)upmc_zone_dropped_notes(p), (unsigned long long)st.unbalanced,
	        (unsigned long long)st.refused, (unsigned long long)st.open);
	fprintf(out,
	        "\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%llu,\"tid\":0,"
	        "\"args\":{\"name\":\"upmc profile\"}}",
	        (unsigned long long)p->pid);
	for (t = upmc_zone_threads(p); t; t = upmc_zone_thread_next(t))
		thread_events(p, t, out);
	fprintf(out, "\n]}\n");
	return 0;
}
