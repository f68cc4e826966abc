/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto writer, read back by protoc: `protoc --decode` against the
 * subset of Perfetto's messages kept in tests/perfetto/, read as the trace
 * processor reads it (tests/perfetto/decode.h: sequence defaults, the
 * incremental clock, interned names and locations, incremental counter
 * tracks), then every track, slice, counter value and frame mark compared
 * with the zones the profile collected (exact counts from the simulated
 * kernel).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

#define READ_COST 5

/* The profile saved as a .pftrace and decoded (NULL, and why, when not). */
static struct pb_node *decoded(struct upmc_profile *p, int *unknown, char *why, size_t size)
{
	char path[256];

	pb_trace_path(path, sizeof(path));
	if (upmc_profile_save(p, UPMC_FORMAT_PERFETTO, path) < 0) {
		snprintf(why, size, "save: %s", upmc_last_error());
		return NULL;
	}
	return pb_decode_file(path, unknown, why, size);
}

/* The profile saved, decoded and read as the trace processor would; the
 * tree stays in *tree (the events' strings point into it). */
static int interpreted(struct upmc_profile *p, struct pb_node **tree, struct pb_trace *tr,
                       char *why, size_t size)
{
	int unknown;

	*tree = decoded(p, &unknown, why, size);
	if (!*tree)
		return -1;
	if (unknown) {
		snprintf(why, size, "%d fields the .proto does not know", unknown);
		return -1;
	}
	return pb_interpret(*tree, tr, why, size);
}

struct zones {
	struct upmc_zone_info z[32];
	uint64_t delta[32][2];
	int n;
};

static int keep(const struct upmc_zone_info *info, void *arg)
{
	struct zones *zs = arg;

	if (zs->n == 32)
		return 1;
	zs->z[zs->n] = *info;
	memcpy(zs->delta[zs->n], info->delta, info->n * sizeof(uint64_t));
	zs->n++;
	return 0;
}

static const struct upmc_zone_loc frame_loc = {"frame", "loop", "game.c", 10};
static const struct upmc_zone_loc physics_loc = {"physics \"step\"", "loop", "game.c", 20};
static const struct upmc_zone_loc render_loc = {"render", "loop", "game.c", 30};

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
		sim_tick(0, 1000 * (k + 1));
		sim_tick(1, 300);
		upmc_zone_end();
		upmc_zone_begin(&render_loc);
		sim_tick(0, 77);
		upmc_zone_end();
		upmc_zone_end();
		upmc_frame_mark();
	}
	upmc_zone_flush();
	return p;
}

/* The thread's slices, rebuilt from its begin and end events in order. */
struct slice {
	const struct pb_event *begin, *end;
};

static int slices_of(const struct pb_trace *tr, unsigned long long track, struct slice *sl, int max)
{
	struct slice *open[16];
	int n = 0, sp = 0;
	size_t i;

	for (i = 0; i < tr->n; i++) {
		const struct pb_event *e = &tr->ev[i];
		if (e->track != track)
			continue;
		if (e->type == 1 && n < max && sp < 16) {
			sl[n].begin = e;
			sl[n].end = NULL;
			open[sp++] = &sl[n++];
		} else if (e->type == 2 && sp > 0) {
			open[--sp]->end = e;
		}
	}
	return sp ? -1 : n;
}

static const struct pb_track *thread_track(const struct pb_trace *tr)
{
	size_t i;

	for (i = 0; i < tr->n_tracks; i++)
		if (tr->track[i].is_thread)
			return &tr->track[i];
	return NULL;
}

TEST(perfetto, protoc_reads_back_every_zone)
{
	struct upmc_profile *p = record("instructions,cycles");
	const struct pb_track *thread, *instr = NULL, *cycles = NULL;
	unsigned long long last_ts = 0;
	struct slice sl[32];
	struct zones zs = {.n = 0};
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512];
	int frames = 0, n, k;
	size_t i;

	ASSERT(p);
	if (!pb_have_protoc()) {
		upmc_profile_close(p);
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	}
	ASSERT(upmc_profile_zones(p, keep, &zs) == 9);
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	thread = thread_track(&tr);
	ASSERT(thread);
	EXPECT(thread->tid == zs.z[0].thread_id);
	EXPECT(!strcmp(thread->name, "main loop"));
	for (i = 0; i < tr.n_tracks; i++) {
		const struct pb_track *c = &tr.track[i];
		if (!c->is_counter)
			continue;
		EXPECT(c->parent == thread->uuid);
		EXPECT(c->is_incremental); /* values are deltas on the track */
		if (!strcmp(c->name, "instructions"))
			instr = c; /* the builtin type: the slice table's thread_instruction_delta
			            */
		else if (!strcmp(c->name, "cycles"))
			cycles = c;
	}
	ASSERT(instr && cycles);
	EXPECT(instr->is_instructions && !cycles->is_instructions);
	for (i = 0; i < tr.n; i++) {
		const struct pb_event *e = &tr.ev[i];
		if (e->track == 1) { /* the process track: what was lost */
			EXPECT(!strcmp(e->name, "upmc"));
			EXPECT_EQ(e->n_ann, 6);
			for (k = 0; k < (int)e->n_ann; k++)
				EXPECT(e->ann[k].is_uint && e->ann[k].u == 0);
			continue;
		}
		EXPECT(e->track == thread->uuid);
		EXPECT_MSG(e->ts >= last_ts, "events of a thread in time order");
		last_ts = e->ts;
		if (e->type == 3) {
			EXPECT(!strcmp(e->name, "frame"));
			frames++;
		}
	}
	EXPECT_EQ(frames, 3);
	n = slices_of(&tr, thread->uuid, sl, 32);
	ASSERT(n == zs.n);
	for (k = 0; k < n; k++) {
		int found0, found1;
		EXPECT(!strcmp(sl[k].begin->name, zs.z[k].loc->name));
		/* the source location, interned */
		EXPECT(sl[k].begin->file && !strcmp(sl[k].begin->file, "game.c"));
		EXPECT(sl[k].begin->function && !strcmp(sl[k].begin->function, "loop"));
		EXPECT_EQ(sl[k].begin->line, zs.z[k].loc->line);
		EXPECT(sl[k].begin->ts == zs.z[k].begin_ns);
		EXPECT(sl[k].end->ts == zs.z[k].end_ns);
		EXPECT_EQ_U64(pb_value(sl[k].end, instr->uuid, &found1) -
		                      pb_value(sl[k].begin, instr->uuid, &found0),
		              zs.delta[k][0]);
		EXPECT(found0 && found1);
		EXPECT_EQ_U64(pb_value(sl[k].end, cycles->uuid, &found1) -
		                      pb_value(sl[k].begin, cycles->uuid, &found0),
		              zs.delta[k][1]);
		EXPECT(found0 && found1);
	}
	/* the second frame's physics: its work and its end read */
	EXPECT_EQ_U64(zs.delta[4][0], 2000 + READ_COST);
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}

/* How often each kind of interned entry and each inline name appears. */
static void count_names(const struct pb_node *tree, int *interned_names, int *inline_names,
                        int *locations)
{
	size_t i, j;

	*interned_names = *inline_names = *locations = 0;
	for (i = 0; i < tree->n; i++) {
		const struct pb_node *d = pb_get(tree->kid[i], "interned_data");
		const struct pb_node *ev = pb_get(tree->kid[i], "track_event");
		for (j = 0; d && j < d->n; j++) {
			*interned_names += !strcmp(d->kid[j]->key, "event_names");
			*locations += !strcmp(d->kid[j]->key, "source_locations");
		}
		if (ev && pb_num(ev, "track_uuid") != 1) /* the process track's are few */
			*inline_names += pb_get(ev, "name") != NULL;
	}
}

/* Each name and location is written once per thread, then referred to by
 * its iid; every event's time is a delta on the thread's clock. */
TEST(perfetto, names_and_locations_are_interned)
{
	struct upmc_profile *p = record("instructions,cycles");
	struct pb_node *tree;
	char why[512];
	int unknown, names, inline_names, locations;
	size_t i;

	ASSERT(p);
	if (!pb_have_protoc()) {
		upmc_profile_close(p);
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	}
	tree = decoded(p, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	count_names(tree, &names, &inline_names, &locations);
	EXPECT_EQ(names, 4); /* frame, physics, render, and "frame" for the frame marks */
	EXPECT_EQ(locations, 3);
	EXPECT_EQ(inline_names, 0);
	for (i = 0; i < tree->n; i++) {
		const struct pb_node *d = pb_get(tree->kid[i], "trace_packet_defaults");
		if (d)
			EXPECT(pb_num(d, "timestamp_clock_id") == 64);
	}
	pb_free(tree);
	upmc_profile_close(p);
}

TEST(perfetto, uncounted_values_and_time_only_threads)
{
	struct upmc_profile *p = NULL;
	struct zones zs = {.n = 0};
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512];
	int slices = 0, values = 0, counter_tracks = 0;
	size_t i;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, "instructions", NULL) == 0);
	sim_stop(0);
	sim.read_fails = 1;
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	sim.read_fails = 0;
	upmc_zone_flush();
	ASSERT(upmc_profile_zones(p, keep, &zs) == 1);
	EXPECT_EQ_U64(zs.delta[0][0], UPMC_NOT_COUNTED);
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; i < tr.n; i++)
		if (tr.ev[i].track != 1) {
			slices++;
			values += (int)tr.ev[i].n_values;
		}
	for (i = 0; i < tr.n_tracks; i++)
		counter_tracks += tr.track[i].is_counter;
	/* a value that was not counted is left out, never written as 0 */
	EXPECT_EQ(slices, 2);
	EXPECT_EQ(values, 0);
	EXPECT_EQ(counter_tracks, 1);
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);

	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	EXPECT_EQ(tr.n_tracks, 2); /* the process and the thread: no counter track */
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}

/* A zone whose parent is not exported (refused, still open): its slice
 * still begins and ends in time order, nested in the thread's others. */
TEST(perfetto, slices_nest_when_a_parent_is_not_exported)
{
	struct upmc_profile *p = NULL;
	unsigned long long last_ts = 0;
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512];
	int sp = 0, begins = 0, got;
	size_t i;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	upmc_zone_begin(&frame_loc);
	upmc_zone_end();
	upmc_zone_begin(NULL); /* refused */
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	upmc_zone_end();
	upmc_zone_begin(&render_loc); /* open at the export */
	upmc_zone_begin(&physics_loc);
	upmc_zone_end();
	got = interpreted(p, &tree, &tr, why, sizeof(why));
	upmc_zone_end();
	ASSERT_MSG(got == 0, "%s", why);
	for (i = 0; i < tr.n; i++) {
		const struct pb_event *e = &tr.ev[i];
		if (e->track == 1)
			continue;
		EXPECT_MSG(e->ts >= last_ts, "slice event %zu at %llu before %llu", i, e->ts,
		           last_ts);
		last_ts = e->ts;
		if (e->type == 1) {
			sp++;
			begins++;
		} else if (e->type == 2) {
			EXPECT(sp > 0);
			sp--;
		}
	}
	EXPECT_EQ(begins, 3);
	EXPECT_EQ(sp, 0);
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}

/* Protobuf strings are UTF-8: a byte of no well-formed sequence becomes the
 * code point of the same number, as the JSON writers write it (\u00XX). */
TEST(perfetto, names_are_utf8)
{
	static const struct upmc_zone_loc latin1_loc = {"caf\xe9 \xff!", "f", "x.c", 1};
	static const struct upmc_zone_loc utf8_loc = {"na\xc3\xafve \xe2\x82\xac", "f", "x.c", 2};
	struct upmc_profile *p = NULL;
	const struct pb_track *thread;
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512];
	int latin1 = 0, utf8 = 0;
	size_t i;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	ASSERT(upmc_profile_thread("th\xe9\xe2tre \xe2\x82") == 0);
	upmc_zone_begin(&latin1_loc);
	upmc_zone_end();
	upmc_zone_begin(&utf8_loc);
	upmc_zone_end();
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; i < tr.n; i++) {
		latin1 += !strcmp(tr.ev[i].name, "caf\xc3\xa9 \xc3\xbf!");
		utf8 += !strcmp(tr.ev[i].name, utf8_loc.name);
	}
	EXPECT_EQ(latin1, 1);
	EXPECT_EQ(utf8, 1);
	thread = thread_track(&tr);
	ASSERT(thread);
	EXPECT_MSG(!strcmp(thread->name, "th\xc3\xa9\xc3\xa2tre \xc3\xa2\xc2\x82"), "%s",
	           thread->name);
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}

/* A spec naming IPC: each slice's end carries the zone's IPC from its own
 * counts, a double named by the metric (interned), exactly. */
TEST(perfetto, each_slice_ends_with_its_metrics)
{
	struct upmc_profile *p = record("IPC");
	const struct pb_annotation *a;
	struct zones zs = {.n = 0};
	struct slice sl[16];
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512];
	int n, i;

	if (!pb_have_protoc()) {
		upmc_profile_close(p);
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	}
	ASSERT_MSG(p, "%s", upmc_last_error());
	ASSERT(!strcmp(upmc_profile_counter_name(p, 0), "instructions"));
	ASSERT(upmc_profile_zones(p, keep, &zs) == 9);
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	ASSERT(thread_track(&tr));
	n = slices_of(&tr, thread_track(&tr)->uuid, sl, 16);
	ASSERT(n == 9);
	for (i = 0; i < n; i++) {
		double ipc = (double)zs.delta[i][0] / (double)zs.delta[i][1];
		a = pb_annotation(sl[i].end, "IPC");
		EXPECT_MSG(a && a->is_double && a->d == ipc, "slice %d: IPC %.17g, want %.17g", i,
		           a ? a->d : -1, ipc);
		EXPECT(!pb_annotation(sl[i].begin, "IPC"));
	}
	/* physics, k = 0: 1000 instructions, 300 cycles, and a read of each */
	EXPECT(pb_annotation(sl[1].end, "IPC")->d == (1000.0 + READ_COST) / (300 + READ_COST));
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}

/* What engine code adds to a zone: its text and value, a name made at run
 * time, named frames; each shows in the trace. */
TEST(perfetto, text_values_runtime_names_and_named_frames)
{
	static const char *const physics_tick = "physics tick";
	struct upmc_profile *p = NULL;
	const struct pb_annotation *a;
	struct slice sl[8];
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512], name[32];
	int n, named_frames = 0, frames = 0;
	size_t i;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	upmc_zone_begin(&frame_loc);
	UPMC_ZONE_TEXT("level 3", 7);
	UPMC_ZONE_VALUE(42);
	snprintf(name, sizeof(name), "entity %d", 17); /* gone once the zone began */
	UPMC_ZONE_BEGIN_DYNAMIC(name);
	memset(name, 'x', sizeof(name) - 1);
	UPMC_ZONE_END();
	upmc_zone_end();
	upmc_frame_mark_named(physics_tick);
	upmc_frame_mark();
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	ASSERT(thread_track(&tr));
	n = slices_of(&tr, thread_track(&tr)->uuid, sl, 8);
	ASSERT(n == 2);
	EXPECT(!strcmp(sl[0].begin->name, "frame"));
	a = pb_annotation(sl[0].end, "text");
	EXPECT(a && a->str && !strcmp(a->str, "level 3"));
	a = pb_annotation(sl[0].end, "value");
	EXPECT(a && a->is_uint && a->u == 42);
	EXPECT_MSG(!strcmp(sl[1].begin->name, "entity 17"), "%s", sl[1].begin->name);
	/* a runtime name keeps its call site */
	EXPECT(sl[1].begin->file && strstr(sl[1].begin->file, "zone_perfetto_test.c"));
	EXPECT(!pb_annotation(sl[1].end, "text"));
	for (i = 0; i < tr.n; i++) {
		named_frames += tr.ev[i].type == 3 && !strcmp(tr.ev[i].name, "frame: physics tick");
		frames += tr.ev[i].type == 3 && !strcmp(tr.ev[i].name, "frame");
	}
	EXPECT_EQ(named_frames, 1);
	EXPECT_EQ(frames, 1);
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}

/* A packet longer than 127 bytes (a begin that interns a name of
 * UPMC_ZONE_NAME_MAX bytes): its length takes two bytes, which the packet
 * written in place moves for; the packets after it read on. */
TEST(perfetto, a_packet_longer_than_127_bytes)
{
	struct upmc_profile *p = NULL;
	char name[UPMC_ZONE_NAME_MAX + 1];
	struct slice sl[4];
	struct pb_trace tr;
	struct pb_node *tree;
	char why[512];
	int n;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	UPMC_ZONE_BEGIN_DYNAMIC(name);
	upmc_zone_begin(&frame_loc);
	upmc_zone_end();
	UPMC_ZONE_END();
	ASSERT_MSG(interpreted(p, &tree, &tr, why, sizeof(why)) == 0, "%s", why);
	ASSERT(thread_track(&tr));
	n = slices_of(&tr, thread_track(&tr)->uuid, sl, 4);
	ASSERT(n == 2);
	EXPECT_MSG(strlen(sl[0].begin->name) == UPMC_ZONE_NAME_MAX && sl[0].begin->name[0] == 'n',
	           "%s", sl[0].begin->name);
	EXPECT(!strcmp(sl[1].begin->name, "frame"));
	pb_trace_free(&tr);
	pb_free(tree);
	upmc_profile_close(p);
}
