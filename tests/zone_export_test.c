/* SPDX-License-Identifier: MIT */
/*
 * The zone writers: Chrome trace JSON, speedscope JSON and the aggregates
 * (table and JSON), each parsed with a strict JSON parser and checked
 * against its format's rules and against the zones the profile collected,
 * whose counts the simulated kernel makes exact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"
#include "tests/zone_util.h"

#define READ_COST 3

static const struct upmc_zone_loc frame_loc = {"frame", "loop", "game.c", 10};
static const struct upmc_zone_loc physics_loc = {"physics", "loop", "game.c", 20};
static const struct upmc_zone_loc collide_loc = {"collide \"quoted\"\\", "physics", "game.c", 30};
static const struct upmc_zone_loc render_loc = {"render", "loop", "game.c", 40};
static const struct upmc_zone_loc render_again_loc = {"render", "loop", "game.c", 50};

/* Three frames on this thread, with counts set by the simulated PMU. */
static struct upmc_profile *record(const char *spec)
{
	struct upmc_profile *p = NULL;
	int k;

	sim_reset(48);
	sim.read_cost = READ_COST;
	if (upmc_profile_open(&p, spec, NULL) < 0)
		return NULL;
	upmc_profile_thread("main loop");
	for (k = 0; k < 3; k++) {
		upmc_zone_begin(&frame_loc);
		upmc_zone_begin(&physics_loc);
		sim_tick(0, 1000);
		sim_tick(1, 500);
		upmc_zone_begin(&collide_loc);
		sim_tick(0, 200);
		sim_tick(1, 400);
		upmc_zone_end();
		upmc_zone_end();
		upmc_zone_begin(k == 2 ? &render_again_loc : &render_loc);
		sim_tick(0, 300);
		sim_tick(1, 100);
		upmc_zone_end();
		upmc_zone_end();
		upmc_frame_mark();
	}
	return p;
}

static struct jdoc *parsed(struct upmc_profile *p, enum upmc_format format)
{
	char err[200], *text = export_text(p, format);
	struct jdoc *d = text ? jdoc_parse(text, err, sizeof(err)) : NULL;

	if (text && !d)
		fprintf(stderr, "not JSON: %s\n", err);
	free(text);
	return d;
}

/* How often s appears in the export. */
static int occurrences(struct upmc_profile *p, enum upmc_format format, const char *s)
{
	char *text = export_text(p, format), *at;
	int n = 0;

	for (at = text; at && (at = strstr(at, s)); at += strlen(s))
		n++;
	free(text);
	return text ? n : -1;
}

/* The zones as the profile gives them, in the order they began. */
struct zones {
	struct upmc_zone_info z[64];
	uint64_t delta[64][2], self[64][2];
	int n;
};

static int keep(const struct upmc_zone_info *info, void *arg)
{
	struct zones *zs = arg;

	if (zs->n == 64)
		return 1;
	zs->z[zs->n] = *info;
	memcpy(zs->delta[zs->n], info->delta, info->n * sizeof(uint64_t));
	memcpy(zs->self[zs->n], info->self, info->n * sizeof(uint64_t));
	zs->n++;
	return 0;
}

static int is_number(const struct jdoc *d)
{
	return d && d->type == JDOC_NUMBER;
}

/* ---- Chrome ---- */

TEST(chrome, trace_events_follow_the_format)
{
	struct upmc_profile *p = record("instructions,cycles");
	struct zones zs = {.n = 0};
	const struct jdoc *events, *other;
	struct jdoc *d;
	int x = 0, instants = 0, names = 0, counters = 0;
	size_t i;

	ASSERT(p);
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep, &zs) == 12);
	d = parsed(p, UPMC_FORMAT_CHROME);
	ASSERT(d && d->type == JDOC_OBJECT);
	EXPECT(!strcmp(jdoc_string(d, "displayTimeUnit"), "ns"));
	other = jdoc_get(d, "otherData");
	ASSERT(other);
	EXPECT(jdoc_number(other, "dropped_zones", -1) == 0);
	EXPECT(jdoc_number(other, "unbalanced_ends", -1) == 0);
	events = jdoc_get(d, "traceEvents");
	ASSERT(events && events->type == JDOC_ARRAY);
	for (i = 0; i < events->n; i++) {
		const struct jdoc *e = jdoc_at(events, i), *args = jdoc_get(e, "args");
		const char *ph = jdoc_string(e, "ph");
		ASSERT(ph && jdoc_string(e, "name"));
		EXPECT(is_number(jdoc_get(e, "pid")) && is_number(jdoc_get(e, "tid")));
		if (!strcmp(ph, "X")) {
			const struct upmc_zone_info *z = &zs.z[x];
			const struct jdoc *data = jdoc_get(args, "data");
			double ts = jdoc_number(e, "ts", NAN), dur = jdoc_number(e, "dur", NAN);
			ASSERT(x < zs.n);
			EXPECT(!strcmp(jdoc_string(e, "name"), z->loc->name));
			/* microseconds, the nanoseconds kept */
			EXPECT_MSG(llround(ts * 1000) == (long long)z->begin_ns,
			           "ts %.3f, begin %llu ns", ts, (unsigned long long)z->begin_ns);
			EXPECT(llround(dur * 1000) == (long long)(z->end_ns - z->begin_ns));
			/* flat counts, and the same again under data */
			EXPECT(jdoc_number(args, "instructions", -1) == (double)zs.delta[x][0]);
			EXPECT(jdoc_number(args, "cycles", -1) == (double)zs.delta[x][1]);
			ASSERT(data && data->n == 2);
			EXPECT(jdoc_number(data, "instructions", -1) == (double)zs.delta[x][0]);
			EXPECT(jdoc_number(data, "cycles", -1) == (double)zs.delta[x][1]);
			EXPECT(args->n == 3);
			x++;
		} else if (!strcmp(ph, "M")) {
			if (!strcmp(jdoc_string(e, "name"), "thread_name")) {
				EXPECT(!strcmp(jdoc_string(args, "name"), "main loop"));
				names++;
			}
		} else if (!strcmp(ph, "i")) {
			EXPECT(!strcmp(jdoc_string(e, "s"), "g") && is_number(jdoc_get(e, "ts")));
			instants++;
		} else if (!strcmp(ph, "C")) {
			/* keys name the thread: unique across the trace */
			EXPECT(jdoc_number(args, "main loop: instructions", -1) > 0);
			EXPECT(jdoc_number(args, "main loop: cycles", -1) > 0);
			counters++;
		} else {
			EXPECT_MSG(0, "unexpected phase %s", ph);
		}
	}
	EXPECT_EQ(x, 12);
	EXPECT_EQ(names, 1);
	EXPECT_EQ(instants, 3);
	EXPECT_EQ(counters, 3); /* one per outermost zone */
	/* exact counts: physics has its work, collide's both reads and its end read */
	EXPECT_EQ_U64(zs.delta[1][0], 1200 + 3 * READ_COST);
	jdoc_free(d);
	upmc_profile_close(p);
}

/* Dropped zones show in the export; a counter that did not count is left
 * out of the zone's args, which otherData says once. */
TEST(chrome, drops_and_uncounted_values_are_visible)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile *p = NULL;
	const struct jdoc *events;
	struct jdoc *d;
	int k, nulls = 0;
	size_t i;

	sim_reset(48);
	ASSERT(upmc_profile_open(&p, "instructions", &o) == 0);
	for (k = 0; k < 1000; k++) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_end();
	}
	upmc_profile_collect(p);
	sim_stop(0);
	sim.read_fails = 1;
	upmc_zone_begin(&render_loc); /* after the drops: they are written down first */
	upmc_zone_end();
	sim.read_fails = 0;
	upmc_zone_flush();
	d = parsed(p, UPMC_FORMAT_CHROME);
	ASSERT(d);
	EXPECT_MSG(jdoc_number(jdoc_get(d, "otherData"), "dropped_zones", 0) > 500, "%.0f dropped",
	           jdoc_number(jdoc_get(d, "otherData"), "dropped_zones", 0));
	events = jdoc_get(d, "traceEvents");
	for (i = 0; events && i < events->n; i++) {
		const struct jdoc *e = jdoc_at(events, i);
		if (!strcmp(jdoc_string(e, "name"), "render")) {
			EXPECT(!jdoc_get(e, "args")); /* nothing counted: no args at all */
			nulls++;
		} else if (!strcmp(jdoc_string(e, "name"), "physics")) {
			EXPECT(jdoc_number(jdoc_get(e, "args"), "instructions", -1) >= 0);
		}
	}
	EXPECT_EQ(nulls, 1);
	EXPECT_CONTAINS(jdoc_string(jdoc_get(d, "otherData"), "not_counted"), "did not count");
	EXPECT_EQ(occurrences(p, UPMC_FORMAT_CHROME, "null"), 0);
	jdoc_free(d);
	upmc_profile_close(p);
}

static void *worker(void *arg)
{
	int k;

	(void)arg;
	for (k = 0; k < 5; k++) {
		upmc_zone_begin(&physics_loc);
		upmc_zone_begin(&collide_loc);
		upmc_zone_end();
		upmc_zone_end();
	}
	return NULL;
}

/* Threads of the same name get their own, and every X event nests on its thread. */
TEST(chrome, threads_are_tracks_and_zones_nest)
{
	struct upmc_profile *p = NULL;
	const struct jdoc *events;
	pthread_t t[3];
	struct jdoc *d;
	double tid[4] = {0}, on[64];
	long long start[64], end[64]; /* ns: the file's 3 decimals of us, exactly */
	int threads = 0, n = 0, k, j;
	size_t i;

	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	for (k = 0; k < 3; k++) {
		ASSERT(pthread_create(&t[k], NULL, worker, NULL) == 0);
		pthread_join(t[k], NULL);
	}
	worker(NULL);
	d = parsed(p, UPMC_FORMAT_CHROME);
	ASSERT(d);
	events = jdoc_get(d, "traceEvents");
	ASSERT(events);
	for (i = 0; i < events->n; i++) {
		const struct jdoc *e = jdoc_at(events, i);
		if (!strcmp(jdoc_string(e, "ph"), "M") &&
		    !strcmp(jdoc_string(e, "name"), "thread_name")) {
			ASSERT(threads < 4);
			tid[threads++] = jdoc_number(e, "tid", -1);
		}
		if (!strcmp(jdoc_string(e, "ph"), "X") && n < 64) {
			EXPECT(jdoc_get(e, "args") == NULL); /* time only */
			start[n] = llround(jdoc_number(e, "ts", NAN) * 1e3);
			end[n] = start[n] + llround(jdoc_number(e, "dur", NAN) * 1e3);
			on[n++] = jdoc_number(e, "tid", -1);
		}
	}
	EXPECT_EQ(threads, 4);
	for (k = 0; k < threads; k++)
		for (j = k + 1; j < threads; j++)
			EXPECT(tid[k] != tid[j]);
	EXPECT_EQ(n, 40);
	/* on one thread, two zones are disjoint or one holds the other */
	for (k = 0; k < n; k++)
		for (j = 0; j < n; j++)
			if (on[k] == on[j] && start[k] < start[j] && start[j] < end[k])
				EXPECT(end[j] <= end[k]);
	jdoc_free(d);
	upmc_profile_close(p);
}

/* ---- speedscope ---- */

static const struct jdoc *frames_of(const struct jdoc *d)
{
	return jdoc_get(jdoc_get(d, "shared"), "frames");
}

/* The evented profile's events open and close frames in order, last in first out. */
static void check_evented(const struct jdoc *prof, size_t frames, int *zones)
{
	const struct jdoc *events = jdoc_get(prof, "events");
	double stack[16], at = jdoc_number(prof, "startValue", NAN);
	size_t i, sp = 0;

	EXPECT(!strcmp(jdoc_string(prof, "unit"), "nanoseconds"));
	ASSERT(events && events->type == JDOC_ARRAY);
	for (i = 0; i < events->n; i++) {
		const struct jdoc *e = jdoc_at(events, i);
		double frame = jdoc_number(e, "frame", -1), when = jdoc_number(e, "at", NAN);
		EXPECT(frame >= 0 && frame < (double)frames);
		EXPECT_MSG(when >= at, "event %zu at %.0f before %.0f", i, when, at);
		at = when;
		if (!strcmp(jdoc_string(e, "type"), "O")) {
			ASSERT(sp < 16);
			stack[sp++] = frame;
			(*zones)++;
		} else {
			ASSERT(!strcmp(jdoc_string(e, "type"), "C"));
			ASSERT(sp > 0);
			EXPECT(stack[--sp] == frame);
		}
	}
	EXPECT_EQ(sp, 0);
	EXPECT(at <= jdoc_number(prof, "endValue", NAN));
}

TEST(speedscope, evented_and_weighted_profiles)
{
	struct upmc_profile *p = record("instructions,cycles");
	const struct jdoc *frames, *profiles;
	struct zones zs = {.n = 0};
	struct jdoc *d;
	int zones = 0, sampled = 0, k;
	uint64_t self_total[2] = {0};
	size_t i;

	ASSERT(p);
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep, &zs) == 12);
	for (k = 0; k < zs.n; k++) {
		self_total[0] += zs.self[k][0];
		self_total[1] += zs.self[k][1];
	}
	d = parsed(p, UPMC_FORMAT_SPEEDSCOPE);
	ASSERT(d);
	EXPECT(!strcmp(jdoc_string(d, "$schema"),
	               "https://www.speedscope.app/file-format-schema.json"));
	EXPECT_CONTAINS(jdoc_string(d, "name"), "0 dropped");
	frames = frames_of(d);
	ASSERT(frames && frames->type == JDOC_ARRAY);
	/* four call sites (two named render) and the thread */
	EXPECT_EQ(frames->n, 6);
	for (i = 0; i < frames->n; i++)
		EXPECT(jdoc_string(jdoc_at(frames, i), "name"));
	EXPECT(!strcmp(jdoc_string(jdoc_at(frames, 2), "name"), collide_loc.name));
	EXPECT(jdoc_number(jdoc_at(frames, 0), "line", -1) == 10);
	profiles = jdoc_get(d, "profiles");
	ASSERT(profiles && profiles->n == 3);
	for (i = 0; i < profiles->n; i++) {
		const struct jdoc *prof = jdoc_at(profiles, i);
		const char *type = jdoc_string(prof, "type");
		ASSERT(type);
		if (!strcmp(type, "evented")) {
			EXPECT(!strcmp(jdoc_string(prof, "name"), "main loop"));
			check_evented(prof, frames->n, &zones);
		} else {
			const struct jdoc *samples = jdoc_get(prof, "samples");
			const struct jdoc *weights = jdoc_get(prof, "weights");
			double sum = 0;
			size_t s, f;
			ASSERT(!strcmp(type, "sampled"));
			ASSERT(samples && weights && samples->n == weights->n);
			for (s = 0; s < samples->n; s++) {
				const struct jdoc *stack = jdoc_at(samples, s);
				/* rooted at the thread's frame, then the zones */
				EXPECT(jdoc_at(stack, 0)->number == 5);
				for (f = 0; f < stack->n; f++)
					EXPECT(jdoc_at(stack, f)->number < (double)frames->n);
				sum += jdoc_at(weights, s)->number;
			}
			EXPECT(sum == jdoc_number(prof, "endValue", -1));
			/* the weights are the zones' own counts */
			EXPECT(sum == (double)self_total[sampled]);
			EXPECT(!strcmp(jdoc_string(prof, "name"),
			               sampled ? "cycles" : "instructions"));
			sampled++;
		}
	}
	EXPECT_EQ(zones, 12);
	EXPECT_EQ(sampled, 2);
	jdoc_free(d);
	upmc_profile_close(p);
}

/* Zones whose parent is not exported (refused, dropped to a full buffer,
 * still open at the export): their events still nest and keep time order,
 * which speedscope checks. */
TEST(speedscope, zones_whose_parent_is_not_exported)
{
	struct upmc_profile_options o = {sizeof(o), 0, 0, 4096, 4096};
	struct upmc_profile *p = NULL;
	struct upmc_profile_stats st;
	const struct jdoc *profiles;
	struct jdoc *d;
	int k, zones = 0;

	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	upmc_zone_begin(NULL); /* refused */
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	upmc_zone_end();
	for (k = 0; k < 200; k++) { /* 3 words each: the buffer fills */
		upmc_zone_begin(&frame_loc);
		upmc_zone_end();
	}
	upmc_zone_begin(&frame_loc); /* dropped */
	ASSERT(upmc_profile_collect(p) > 0);
	upmc_zone_begin(&collide_loc);
	upmc_zone_end();
	upmc_zone_end();
	upmc_zone_begin(&render_loc); /* open at the export */
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_stats(p, &st) == 0);
	EXPECT(st.refused == 1 && st.dropped >= 1 && st.open == 1);
	d = parsed(p, UPMC_FORMAT_SPEEDSCOPE);
	ASSERT(d);
	profiles = jdoc_get(d, "profiles");
	ASSERT(profiles && profiles->n == 1);
	check_evented(jdoc_at(profiles, 0), frames_of(d)->n, &zones);
	EXPECT_EQ(zones, (int)st.zones);
	jdoc_free(d);
	upmc_zone_end();
	upmc_profile_close(p);
}

/* ---- metrics ---- */

/* A spec naming IPC: instructions (counter 0) and cycles (1), each zone's
 * IPC from its own counts, in the Chrome args and under data, exactly. */
TEST(metrics, each_zones_metric_in_the_chrome_args)
{
	struct upmc_profile *p = record("IPC");
	struct zones zs = {.n = 0};
	const struct jdoc *events, *other;
	struct jdoc *d;
	int x = 0;
	size_t i;

	ASSERT_MSG(p, "%s", upmc_last_error());
	ASSERT(!strcmp(upmc_profile_counter_name(p, 0), "instructions"));
	ASSERT(!strcmp(upmc_profile_counter_name(p, 1), "cycles"));
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep, &zs) == 12);
	d = parsed(p, UPMC_FORMAT_CHROME);
	ASSERT(d);
	other = jdoc_get(d, "otherData");
	ASSERT(jdoc_get(other, "metrics") && jdoc_get(other, "metrics")->n == 1);
	EXPECT(!strcmp(jdoc_at(jdoc_get(other, "metrics"), 0)->string, "IPC"));
	EXPECT(jdoc_get(other, "metrics_not_computed")->n == 0);
	events = jdoc_get(d, "traceEvents");
	ASSERT(events);
	for (i = 0; i < events->n; i++) {
		const struct jdoc *e = jdoc_at(events, i), *args = jdoc_get(e, "args");
		double ipc;
		if (strcmp(jdoc_string(e, "ph"), "X"))
			continue;
		ASSERT(x < zs.n);
		ipc = (double)zs.delta[x][0] / (double)zs.delta[x][1];
		EXPECT_MSG(jdoc_number(args, "IPC", -1) == ipc, "zone %d: IPC %.17g, want %.17g", x,
		           jdoc_number(args, "IPC", -1), ipc);
		EXPECT(jdoc_number(jdoc_get(args, "data"), "IPC", -1) == ipc);
		x++;
	}
	EXPECT_EQ(x, 12);
	/* physics: 1000 instructions and 500 cycles of its own, collide's 200
	 * and 400, and the reads (READ_COST each) the two counters saw */
	EXPECT_EQ_U64(zs.delta[1][0], 1200 + 3 * READ_COST);
	jdoc_free(d);
	upmc_profile_close(p);
}

/* The aggregates: each metric of the totals of a name's zones. */
TEST(metrics, the_aggregates_give_the_metric_of_the_totals)
{
	struct upmc_profile *p = record("IPC");
	struct zones zs = {.n = 0};
	const struct jdoc *zones;
	struct jdoc *d;
	uint64_t instr = 0, cycles = 0;
	char *text, want[64];
	int k, seen = 0;
	size_t i;

	ASSERT_MSG(p, "%s", upmc_last_error());
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep, &zs) == 12);
	for (k = 0; k < zs.n; k++)
		if (!strcmp(zs.z[k].loc->name, "render")) {
			instr += zs.delta[k][0];
			cycles += zs.delta[k][1];
		}
	d = parsed(p, UPMC_FORMAT_JSON);
	ASSERT(d);
	EXPECT(jdoc_get(d, "metrics")->n == 1);
	EXPECT(jdoc_get(d, "metrics_not_computed")->n == 0);
	zones = jdoc_get(d, "zones");
	ASSERT(zones);
	for (i = 0; i < zones->n; i++) {
		const struct jdoc *z = jdoc_at(zones, i);
		if (strcmp(jdoc_string(z, "name"), "render"))
			continue;
		seen++;
		EXPECT(jdoc_number(jdoc_get(z, "metrics"), "IPC", -1) ==
		       (double)instr / (double)cycles);
	}
	EXPECT_EQ(seen, 1);
	jdoc_free(d);
	/* the table's column: the metric's, not one computed by hand beside it */
	text = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(text);
	snprintf(want, sizeof(want), "%.2f\n", (double)instr / (double)cycles);
	EXPECT_CONTAINS(text, "IPC\n");
	EXPECT_CONTAINS(text, want);
	EXPECT(occurrences(p, UPMC_FORMAT_TABLE, "IPC") == 1);
	EXPECT(!strstr(text, "is not computed"));
	free(text);
	upmc_profile_close(p);
}

/* Each zone's metric values as upmc_profile_zones() gives them. */
struct zone_metrics {
	unsigned metrics[64];
	double ipc[64], delta[64][2];
	int n;
};

static int keep_metrics(const struct upmc_zone_info *info, void *arg)
{
	struct zone_metrics *zm = arg;

	if (zm->n == 64)
		return 1;
	zm->metrics[zm->n] = info->metrics;
	zm->ipc[zm->n] = info->metrics ? info->metric[0] : -1;
	zm->delta[zm->n][0] = (double)info->delta[0];
	zm->delta[zm->n][1] = (double)info->delta[1];
	zm->n++;
	return 0;
}

/* struct upmc_zone_info carries each zone's metrics, from its own counts,
 * as the exports have them; the profile names them and says why not. */
TEST(metrics, zone_info_gives_each_zones_metrics)
{
	struct upmc_profile *p = record("IPC");
	struct zone_metrics zm = {.n = 0};
	int k;

	ASSERT_MSG(p, "%s", upmc_last_error());
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep_metrics, &zm) == 12);
	for (k = 0; k < zm.n; k++) {
		EXPECT_EQ(zm.metrics[k], 1u);
		EXPECT_MSG(zm.ipc[k] == zm.delta[k][0] / zm.delta[k][1],
		           "zone %d: IPC %.17g, want %.17g", k, zm.ipc[k],
		           zm.delta[k][0] / zm.delta[k][1]);
	}
	/* collide: 200 instructions and 400 cycles, and one read's cost */
	EXPECT(zm.ipc[2] == (200.0 + READ_COST) / (400 + READ_COST));
	EXPECT(!strcmp(upmc_profile_metric_name(p, 0), "IPC"));
	EXPECT(!strcmp(upmc_profile_metric_reason(p, 0), ""));
	EXPECT(upmc_profile_metric_name(p, 1) == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "upmc_profile_metric_name: no metric 1");
	EXPECT(upmc_profile_metric_reason(NULL, 0) == NULL);
	upmc_profile_close(p);
}

/* A profile without metrics gives none; a zone whose denominator counted
 * 0 reads NAN. */
TEST(metrics, zone_info_without_a_value)
{
	static const struct upmc_zone_loc idle_loc = {"idle", "f", "x.c", 1};
	struct upmc_profile *p = record("instructions");
	struct zone_metrics zm = {.n = 0};

	ASSERT_MSG(p, "%s", upmc_last_error());
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep_metrics, &zm) == 12);
	EXPECT_EQ(zm.metrics[0], 0u);
	EXPECT(upmc_profile_metric_name(p, 0) == NULL);
	upmc_profile_close(p);
	sim_reset(48);
	sim.read_cost = 0;
	ASSERT_MSG(upmc_profile_open(&p, "IPC", NULL) == 0, "%s", upmc_last_error());
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	upmc_zone_flush();
	zm.n = 0;
	ASSERT(upmc_profile_zones(p, keep_metrics, &zm) == 1);
	EXPECT_EQ(zm.metrics[0], 1u);
	EXPECT_MSG(isnan(zm.ipc[0]), "IPC %g of a zone that counted 0 cycles", zm.ipc[0]);
	upmc_profile_close(p);
}

/* The JSON aggregates' entry of a zone name (they come by total time,
 * which the machine's load may reorder). */
static const struct jdoc *named_zone(const struct jdoc *d, const char *name)
{
	const struct jdoc *zones = jdoc_get(d, "zones");
	size_t i;

	for (i = 0; zones && i < zones->n; i++)
		if (!strcmp(jdoc_string(jdoc_at(zones, i), "name"), name))
			return jdoc_at(zones, i);
	return NULL;
}

/* A metric given as a fraction is a percent in the table, a fraction in
 * the JSON; one whose denominator counted 0 is null. */
TEST(metrics, a_ratio_metric_and_a_zero_denominator)
{
	struct upmc_profile *p = NULL;
	static const struct upmc_zone_loc idle_loc = {"idle", "f", "x.c", 1};
	const struct jdoc *z;
	struct jdoc *d;
	char *text;

	sim_reset(48);
	sim.read_cost = 0;
	ASSERT_MSG(upmc_profile_open(&p, "branch-miss-ratio", NULL) == 0, "%s", upmc_last_error());
	upmc_zone_begin(&physics_loc);
	sim_tick(0, 5);   /* branch-misses */
	sim_tick(1, 200); /* branches */
	upmc_zone_end();
	upmc_zone_begin(&idle_loc);
	upmc_zone_end();
	upmc_zone_flush();
	d = parsed(p, UPMC_FORMAT_JSON);
	ASSERT(d);
	z = named_zone(d, "physics");
	ASSERT(z);
	EXPECT(jdoc_number(jdoc_get(z, "metrics"), "branch-miss-ratio", -1) == 5.0 / 200);
	z = named_zone(d, "idle");
	ASSERT(z);
	EXPECT(jdoc_get(jdoc_get(z, "metrics"), "branch-miss-ratio")->type == JDOC_NULL);
	jdoc_free(d);
	text = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(text);
	EXPECT_CONTAINS(text, "2.50%");
	free(text);
	upmc_profile_close(p);
}

/* ---- aggregates ---- */

TEST(aggregate, json_totals_per_name)
{
	struct upmc_profile *p = record("instructions,cycles");
	const struct jdoc *zones, *frames;
	struct zones zs = {.n = 0};
	struct jdoc *d;
	double instr = 0, cycles = 0;
	int k, seen = 0;
	size_t i;

	ASSERT(p);
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep, &zs) == 12);
	for (k = 0; k < zs.n; k++)
		if (!strcmp(zs.z[k].loc->name, "render")) {
			instr += (double)zs.delta[k][0];
			cycles += (double)zs.delta[k][1];
		}
	d = parsed(p, UPMC_FORMAT_JSON);
	ASSERT(d);
	EXPECT(jdoc_number(d, "dropped_zones", -1) == 0);
	EXPECT(jdoc_number(d, "zones_collected", -1) == 12);
	frames = jdoc_get(d, "frames");
	EXPECT(jdoc_number(frames, "count", -1) == 3);
	EXPECT(jdoc_number(frames, "mean_ns", -1) > 0);
	zones = jdoc_get(d, "zones");
	ASSERT(zones && zones->n == 4); /* render's two call sites are one name */
	for (i = 0; i < zones->n; i++) {
		const struct jdoc *z = jdoc_at(zones, i), *c = jdoc_get(z, "counters");
		EXPECT(jdoc_number(z, "count", -1) == 3);
		EXPECT(jdoc_number(z, "self_ns", -1) <= jdoc_number(z, "total_ns", -1));
		if (i)
			EXPECT(jdoc_number(z, "total_ns", -1) <=
			       jdoc_number(jdoc_at(zones, i - 1), "total_ns", -1));
		if (strcmp(jdoc_string(z, "name"), "render"))
			continue;
		seen++;
		EXPECT(jdoc_number(jdoc_get(c, "instructions"), "total", -1) == instr);
		EXPECT(jdoc_number(jdoc_get(c, "cycles"), "total", -1) == cycles);
		EXPECT(fabs(jdoc_number(jdoc_get(z, "ratios"), "IPC", -1) - instr / cycles) < 1e-6);
	}
	EXPECT_EQ(seen, 1);
	jdoc_free(d);
	upmc_profile_close(p);
}

TEST(aggregate, miss_rates_and_uncounted_counters)
{
	struct upmc_profile *p = record("branch-misses,branches");
	const struct jdoc *z;
	struct jdoc *d;

	ASSERT(p);
	upmc_zone_flush();
	d = parsed(p, UPMC_FORMAT_JSON);
	ASSERT(d);
	z = jdoc_at(jdoc_get(d, "zones"), 0);
	ASSERT(z);
	/* frame: 1500 + 7 reads of branch-misses, 1000 + 7 reads of branches, per frame */
	EXPECT(fabs(jdoc_number(jdoc_get(z, "ratios"), "branch-misses/branches", -1) -
	            (1500.0 + 7 * READ_COST) / (1000 + 7 * READ_COST)) < 1e-6);
	jdoc_free(d);
	upmc_profile_close(p);
}

TEST(aggregate, the_table)
{
	struct upmc_profile *p = record("instructions,cycles");
	char *text;

	ASSERT(p);
	upmc_zone_flush();
	text = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(text);
	EXPECT_CONTAINS(text, "upmc profile: 1 thread, 12 zones; 0 dropped");
	EXPECT_CONTAINS(text, "frames: 3");
	EXPECT_CONTAINS(text, "counters: instructions, cycles");
	EXPECT_CONTAINS(text, "IPC");
	EXPECT_CONTAINS(text, "\nframe ");
	EXPECT_CONTAINS(text, "\nrender ");
	free(text);
	upmc_profile_close(p);
}

/* Names reach a terminal with their control bytes written as \xNN: no
 * escape sequence, carriage return or delete gets through (thread names:
 * tests/zone_threads_test.c). */
TEST(aggregate, the_table_escapes_control_bytes)
{
	static const struct upmc_zone_loc odd_loc = {"red\x1b[31m \x01\x7f\rname", "f", "x.c", 1};
	struct upmc_profile *p = NULL;
	const unsigned char *c;
	char *text;

	sim_reset(48);
	ASSERT(upmc_profile_open(&p, "instructions", NULL) == 0);
	upmc_zone_begin(&odd_loc);
	upmc_zone_end();
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	text = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(text);
	for (c = (const unsigned char *)text; *c; c++)
		EXPECT_MSG(*c == '\n' || (*c >= 0x20 && *c != 0x7f), "byte 0x%02x at %zu", *c,
		           (size_t)(c - (const unsigned char *)text));
	EXPECT_CONTAINS(text, "\nred\\x1b[31m \\x01\\x7f\\x0dname ");
	/* the columns line up: the escaped name sets the width */
	EXPECT_CONTAINS(text, "\nphysics                         ");
	free(text);
	upmc_profile_close(p);
}

TEST(write, bad_input_and_files)
{
	struct upmc_profile *p = record(NULL);
	char path[256], *text;
	FILE *f;

	ASSERT(p);
	EXPECT(upmc_profile_write(p, (enum upmc_format)99, stdout) == -EINVAL);
	EXPECT(upmc_profile_write(NULL, UPMC_FORMAT_JSON, stdout) == -EINVAL);
	EXPECT(upmc_profile_write(p, UPMC_FORMAT_JSON, NULL) == -EINVAL);
	EXPECT(upmc_profile_save(p, UPMC_FORMAT_JSON, "/nonexistent/dir/x.json") == -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "/nonexistent/dir/x.json");
	snprintf(path, sizeof(path), "%s/zones.%d.json",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", (int)getpid());
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_CHROME, path) == 0);
	f = fopen(path, "r");
	ASSERT(f);
	text = calloc(1, 1 << 16);
	EXPECT(fread(text, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	EXPECT_CONTAINS(text, "\"traceEvents\"");
	/* an unknown format leaves the file as it was */
	EXPECT(upmc_profile_save(p, (enum upmc_format)99, path) == -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "unknown format 99");
	f = fopen(path, "r");
	ASSERT(f);
	memset(text, 0, 1 << 16);
	EXPECT(fread(text, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	unlink(path);
	EXPECT_CONTAINS(text, "\"traceEvents\"");
	free(text);
	EXPECT(upmc_profile_print(p, stdout) == 0);
	upmc_profile_close(p);
}

/* The whole of a file ("" when there is none). */
static char *contents(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = calloc(1, 1 << 16);

	if (f && text && fread(text, 1, (1 << 16) - 1, f) == 0)
		text[0] = '\0';
	if (f)
		fclose(f);
	return text;
}

/* The names in dir, as "a b c " in the order readdir gives them. */
static void entries(const char *dir, char *out, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	out[0] = '\0';
	while (d && (e = readdir(d)) && n < size)
		if (e->d_name[0] != '.')
			n += (size_t)snprintf(out + n, size - n, "%s ", e->d_name);
	if (d)
		closedir(d);
}

/* A save runs out of room (the file-size limit stands in for a full
 * disk, which the sandbox cannot have): the previous export stays whole,
 * and nothing else is left in the directory. */
static int save_without_room(struct upmc_profile *p, const char *path)
{
	struct rlimit old, tight;
	void (*was)(int);
	int err;

	if (getrlimit(RLIMIT_FSIZE, &old) != 0)
		return -errno;
	tight = old;
	tight.rlim_cur = 512;
	fflush(stdout); /* nothing else may write a file meanwhile */
	fflush(stderr);
	was = signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &tight) != 0)
		return -errno;
	err = upmc_profile_save(p, UPMC_FORMAT_CHROME, path);
	setrlimit(RLIMIT_FSIZE, &old);
	signal(SIGXFSZ, was);
	return err;
}

/* What is not a regular file is written in place: a rename over it would
 * put a plain file where the link or the device was. */
TEST(write, a_link_or_a_device_is_written_in_place)
{
	struct upmc_profile *p = record("instructions,cycles");
	char dir[256], path[300], link[300], *text;
	struct stat st;

	ASSERT(p);
	snprintf(dir, sizeof(dir), "%s/inplace.%d",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", (int)getpid());
	ASSERT(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	snprintf(link, sizeof(link), "%s/link.json", dir);
	ASSERT(symlink("trace.json", link) == 0);
	ASSERT_MSG(upmc_profile_save(p, UPMC_FORMAT_JSON, link) == 0, "%s", upmc_last_error());
	EXPECT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	text = contents(path);
	EXPECT(text && strstr(text, "\"zones\""));
	free(text);
	EXPECT_EQ(upmc_profile_save(p, UPMC_FORMAT_CHROME, "/dev/null"), 0);
	EXPECT(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	unlink(link);
	unlink(path);
	rmdir(dir);
	upmc_profile_close(p);
}

TEST(write, a_failed_save_keeps_the_previous_file)
{
	struct upmc_profile *p = record("instructions,cycles");
	char dir[256], path[300], sub[300], names[512], *before, *after;
	FILE *full;
	int err;

	ASSERT(p);
	snprintf(dir, sizeof(dir), "%s/save.%d",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", (int)getpid());
	ASSERT(mkdir(dir, 0700) == 0);
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_JSON, path) == 0);
	before = contents(path);
	ASSERT(before && strstr(before, "\"zones\""));
	err = save_without_room(p, path);
	EXPECT_MSG(err == -EFBIG, "%d: %s", err, upmc_last_error());
	EXPECT_CONTAINS(upmc_last_error(), path);
	after = contents(path);
	EXPECT_MSG(after && !strcmp(after, before), "the file changed: %.80s", after);
	entries(dir, names, sizeof(names));
	EXPECT_MSG(!strcmp(names, "trace.json "), "%s holds %s", dir, names);
	free(after);
	/* a target that cannot be replaced (a directory): nothing left behind */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	ASSERT(mkdir(sub, 0700) == 0);
	EXPECT(upmc_profile_save(p, UPMC_FORMAT_JSON, sub) < 0);
	EXPECT_CONTAINS(upmc_last_error(), sub);
	entries(dir, names, sizeof(names));
	EXPECT_MSG(strlen(names) == strlen("trace.json sub "), "%s holds %s", dir, names);
	/* a stream that fails says why */
	full = fopen("/dev/full", "w");
	if (full) {
		EXPECT_EQ(upmc_profile_write(p, UPMC_FORMAT_CHROME, full), -ENOSPC);
		EXPECT_CONTAINS(upmc_last_error(), "No space left on device");
		fclose(full);
	}
	free(before);
	rmdir(sub);
	unlink(path);
	rmdir(dir);
	upmc_profile_close(p);
}
