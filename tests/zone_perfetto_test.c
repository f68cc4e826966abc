/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto writer, read back by protoc: `protoc --decode` against the
 * subset of Perfetto's messages kept in tests/perfetto/, then every track,
 * slice, counter value and frame mark compared with the zones the profile
 * collected (exact counts from the simulated kernel).
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

/* A slice rebuilt from its begin and end events. */
struct slice {
	const char *name;
	unsigned long long begin, end, v0[2], v1[2];
	int counted[2];
};

/* The counter values of an event, by counter track (uuid - first): the
 * n-th value belongs to the n-th uuid (protoc prints fields by number). */
static void values_of(const struct pb_node *ev, unsigned long long first, unsigned long long *v,
                      int *counted)
{
	unsigned long long uuid[2], value[2];
	size_t i, u = 0, k = 0;

	counted[0] = counted[1] = 0;
	for (i = 0; i < ev->n; i++) {
		if (!strcmp(ev->kid[i]->key, "extra_counter_track_uuids") && u < 2)
			uuid[u++] = strtoull(ev->kid[i]->value, NULL, 10) - first;
		if (!strcmp(ev->kid[i]->key, "extra_counter_values") && k < 2)
			value[k++] = strtoull(ev->kid[i]->value, NULL, 10);
	}
	for (i = 0; i < u && i < k; i++)
		if (uuid[i] < 2) {
			v[uuid[i]] = value[i];
			counted[uuid[i]] = 1;
		}
}

TEST(perfetto, protoc_reads_back_every_zone)
{
	struct upmc_profile *p = record("instructions,cycles");
	unsigned long long thread_track = 0, instr_track = 0, last_ts = 0;
	struct slice slices[32], *open[8];
	struct zones zs = {.n = 0};
	char why[512];
	struct pb_node *tree;
	int unknown, n = 0, sp = 0, frames = 0, counters = 0, annotations = 0, k;
	size_t i;

	ASSERT(p);
	if (!pb_have_protoc()) {
		upmc_profile_close(p);
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	}
	ASSERT(upmc_profile_zones(p, keep, &zs) == 9);
	tree = decoded(p, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	EXPECT_EQ(unknown, 0);
	for (i = 0; i < tree->n; i++) {
		const struct pb_node *pk = tree->kid[i], *td = pb_get(pk, "track_descriptor");
		const struct pb_node *ev = pb_get(pk, "track_event");
		ASSERT(!strcmp(pk->key, "packet"));
		EXPECT(pb_num(pk, "trusted_packet_sequence_id") != ~0ull);
		if (td && pb_get(td, "process")) {
			EXPECT(pb_num(td, "uuid") == 1);
			EXPECT(pb_num(pb_get(td, "process"), "pid") ==
			       (unsigned long long)getpid());
			EXPECT(!strcmp(pb_str(pb_get(td, "process"), "process_name"),
			               "upmc profile"));
			EXPECT(pb_num(pk, "sequence_flags") == 1);
		} else if (td && pb_get(td, "thread")) {
			thread_track = pb_num(td, "uuid");
			EXPECT(pb_num(pb_get(td, "thread"), "tid") == zs.z[0].thread_id);
			EXPECT(!strcmp(pb_str(pb_get(td, "thread"), "thread_name"), "main loop"));
			EXPECT(pb_num(pk, "sequence_flags") == 1);
		} else if (td) {
			const struct pb_node *c = pb_get(td, "counter");
			ASSERT(c);
			EXPECT(pb_num(td, "parent_uuid") == thread_track);
			if (!strcmp(pb_str(td, "name"), "instructions")) {
				/* the builtin type: the slice table's thread_instruction_delta */
				EXPECT(!strcmp(pb_str(c, "type"),
				               "COUNTER_THREAD_INSTRUCTION_COUNT"));
				instr_track = pb_num(td, "uuid");
			} else {
				EXPECT(!strcmp(pb_str(td, "name"), "cycles"));
				EXPECT(!strcmp(pb_str(c, "unit"), "UNIT_COUNT"));
			}
			counters++;
		} else if (ev && pb_num(ev, "track_uuid") == 1) {
			const struct pb_node *a;
			size_t j;
			for (j = 0; j < ev->n; j++)
				if (!strcmp((a = ev->kid[j])->key, "debug_annotations")) {
					annotations++;
					EXPECT(pb_num(a, "uint_value") == 0);
				}
			EXPECT(!strcmp(pb_str(ev, "name"), "upmc"));
		} else if (ev) {
			const char *type = pb_str(ev, "type");
			unsigned long long ts = pb_num(pk, "timestamp");
			EXPECT(pb_num(ev, "track_uuid") == thread_track);
			EXPECT_MSG(ts >= last_ts, "packets of a thread in time order");
			last_ts = ts;
			if (!strcmp(type, "TYPE_INSTANT")) {
				EXPECT(!strcmp(pb_str(ev, "name"), "frame"));
				frames++;
			} else if (!strcmp(type, "TYPE_SLICE_BEGIN")) {
				ASSERT(n < 32 && sp < 8);
				open[sp++] = &slices[n];
				slices[n].name = pb_str(ev, "name");
				slices[n].begin = ts;
				values_of(ev, instr_track, slices[n].v0, slices[n].counted);
				n++;
			} else {
				int counted[2];
				ASSERT(!strcmp(type, "TYPE_SLICE_END") && sp > 0);
				open[--sp]->end = ts;
				values_of(ev, instr_track, open[sp]->v1, counted);
				EXPECT(counted[0] && counted[1]);
			}
		}
	}
	EXPECT_EQ(counters, 2);
	EXPECT_EQ(annotations, 5);
	EXPECT_EQ(frames, 3);
	EXPECT_EQ(sp, 0);
	ASSERT(n == zs.n);
	for (k = 0; k < n; k++) {
		EXPECT(!strcmp(slices[k].name, zs.z[k].loc->name));
		EXPECT(slices[k].begin == zs.z[k].begin_ns);
		EXPECT(slices[k].end == zs.z[k].end_ns);
		EXPECT(slices[k].counted[0] && slices[k].counted[1]);
		EXPECT_EQ_U64(slices[k].v1[0] - slices[k].v0[0], zs.delta[k][0]);
		EXPECT_EQ_U64(slices[k].v1[1] - slices[k].v0[1], zs.delta[k][1]);
	}
	/* the second frame's physics: its work and its end read */
	EXPECT_EQ_U64(zs.delta[4][0], 2000 + READ_COST);
	pb_free(tree);
	upmc_profile_close(p);
}

TEST(perfetto, uncounted_values_and_time_only_threads)
{
	struct upmc_profile *p = NULL;
	struct zones zs = {.n = 0};
	char why[512];
	struct pb_node *tree;
	int unknown, slices = 0, values = 0, tracks = 0;
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
	tree = decoded(p, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	for (i = 0; i < tree->n; i++) {
		const struct pb_node *ev = pb_get(tree->kid[i], "track_event");
		size_t j;
		tracks += pb_get(tree->kid[i], "track_descriptor") != NULL;
		if (!ev || pb_num(ev, "track_uuid") == 1)
			continue;
		slices++;
		for (j = 0; j < ev->n; j++)
			values += !strcmp(ev->kid[j]->key, "extra_counter_values");
	}
	/* a value that was not counted is left out, never written as 0 */
	EXPECT_EQ(slices, 2);
	EXPECT_EQ(values, 0);
	EXPECT_EQ(tracks, 3);
	pb_free(tree);
	upmc_profile_close(p);

	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	upmc_zone_begin(&render_loc);
	upmc_zone_end();
	tree = decoded(p, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	tracks = 0;
	for (i = 0; i < tree->n; i++)
		tracks += pb_get(tree->kid[i], "track_descriptor") != NULL;
	EXPECT_EQ(tracks, 2); /* the process and the thread: no counter track */
	pb_free(tree);
	upmc_profile_close(p);
}

/* A zone whose parent is not exported (refused, still open): its slice
 * still begins and ends in time order, nested in the thread's others. */
TEST(perfetto, slices_nest_when_a_parent_is_not_exported)
{
	struct upmc_profile *p = NULL;
	unsigned long long last_ts = 0;
	struct pb_node *tree;
	char why[512];
	int unknown, sp = 0, begins = 0;
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
	tree = decoded(p, &unknown, why, sizeof(why));
	upmc_zone_end();
	ASSERT_MSG(tree, "%s", why);
	for (i = 0; i < tree->n; i++) {
		const struct pb_node *ev = pb_get(tree->kid[i], "track_event");
		unsigned long long ts = pb_num(tree->kid[i], "timestamp");
		const char *type = pb_str(ev, "type");
		if (!ev || pb_num(ev, "track_uuid") == 1)
			continue;
		EXPECT_MSG(ts >= last_ts, "slice event %zu at %llu before %llu", i, ts, last_ts);
		last_ts = ts;
		if (!strcmp(type, "TYPE_SLICE_BEGIN")) {
			sp++;
			begins++;
		} else if (!strcmp(type, "TYPE_SLICE_END")) {
			EXPECT(sp > 0);
			sp--;
		}
	}
	EXPECT_EQ(begins, 3);
	EXPECT_EQ(sp, 0);
	pb_free(tree);
	upmc_profile_close(p);
}

/* The name of the first track event named with prefix, or NULL. */
static const char *event_named(const struct pb_node *tree, const char *key, const char *prefix)
{
	size_t i;

	for (i = 0; i < tree->n; i++) {
		const struct pb_node *ev = pb_get(tree->kid[i], "track_event");
		const struct pb_node *td = pb_get(tree->kid[i], "track_descriptor");
		const char *name = ev   ? pb_str(ev, key)
		                   : td ? pb_str(pb_get(td, "thread"), key)
		                        : "";
		if (!strncmp(name, prefix, strlen(prefix)))
			return name;
	}
	return NULL;
}

/* Protobuf strings are UTF-8: a byte of no well-formed sequence becomes the
 * code point of the same number, as the JSON writers write it (\u00XX). */
TEST(perfetto, names_are_utf8)
{
	static const struct upmc_zone_loc latin1_loc = {"caf\xe9 \xff!", "f", "x.c", 1};
	static const struct upmc_zone_loc utf8_loc = {"na\xc3\xafve \xe2\x82\xac", "f", "x.c", 2};
	struct upmc_profile *p = NULL;
	const char *name;
	struct pb_node *tree;
	char why[512];
	int unknown;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, NULL) == 0);
	ASSERT(upmc_profile_thread("th\xe9\xe2tre \xe2\x82") == 0);
	upmc_zone_begin(&latin1_loc);
	upmc_zone_end();
	upmc_zone_begin(&utf8_loc);
	upmc_zone_end();
	tree = decoded(p, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	name = event_named(tree, "name", "caf");
	EXPECT_MSG(name && !strcmp(name, "caf\xc3\xa9 \xc3\xbf!"), "%s", name ? name : "none");
	name = event_named(tree, "name", "na");
	EXPECT_MSG(name && !strcmp(name, utf8_loc.name), "%s", name ? name : "none");
	name = event_named(tree, "thread_name", "th");
	EXPECT_MSG(name && !strcmp(name, "th\xc3\xa9\xc3\xa2tre \xc3\xa2\xc2\x82"), "%s",
	           name ? name : "none");
	pb_free(tree);
	upmc_profile_close(p);
}
