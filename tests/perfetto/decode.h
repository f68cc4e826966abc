/* SPDX-License-Identifier: MIT */
/*
 * A profile's Perfetto trace read back by protoc: `protoc --decode` against
 * the subset of Perfetto's messages kept in tests/perfetto/, as a tree of
 * protoc's text format ("key: value" leaves and "key { ... }" nodes).
 */
#ifndef UPMC_TESTS_PERFETTO_DECODE_H
#define UPMC_TESTS_PERFETTO_DECODE_H

#include <stddef.h>

struct pb_node {
	char key[64];
	char *value; /* NULL for a message; strings unquoted */
	struct pb_node **kid;
	size_t n, cap;
};

/* A path for a trace in the test's temporary directory. */
void pb_trace_path(char *path, size_t size);

/* Decodes the .pftrace at path with protoc, then removes it; NULL (and
 * why) when protoc cannot. *unknown counts fields the .proto lacks. */
struct pb_node *pb_decode_file(const char *path, int *unknown, char *why, size_t size);
/* The same for a file of many traces, each a length-delimited field 1
 * (trace_batch.proto's Traces): one protoc run, which fails unless every
 * trace is whole; the root's "trace" children are the traces. */
struct pb_node *pb_decode_batch(const char *path, int *unknown, char *why, size_t size);
void pb_free(struct pb_node *n);

/* Both decodes inflate the trace's compressed chunks (a TracePacket with
 * compressed_packets alone) into their packets first: how many the last
 * one inflated, and each trace's packets before (a batch's first
 * PB_MAX_BATCH; a file's is [0]). */
#define PB_MAX_BATCH 4096
extern size_t pb_chunks_inflated;
extern unsigned long long pb_outer_packets[PB_MAX_BATCH];
int pb_have_protoc(void);

/* The first child named key; its number (~0 when none); its string ("" when none). */
const struct pb_node *pb_get(const struct pb_node *n, const char *key);
unsigned long long pb_num(const struct pb_node *n, const char *key);
const char *pb_str(const struct pb_node *n, const char *key);

/*
 * A decoded trace read as Perfetto's trace processor reads it: each
 * sequence's defaults, its incremental clock, its interned names, source
 * locations and annotation names, and incremental counter tracks resolved,
 * so that every event has its absolute time, name and counter values.
 * Strings point into the tree, which must outlive the events.
 */
#define PB_MAX_VALUES      32
#define PB_MAX_TRACKS      1024
#define PB_MAX_SEQUENCES   512
#define PB_MAX_ANNOTATIONS 16

struct pb_annotation {
	const char *name;
	const char *str; /* NULL unless a string */
	unsigned long long u;
	double d;
	int is_uint, is_double;
};

struct pb_event {
	unsigned seq;
	int type; /* 1 slice begin, 2 slice end, 3 instant */
	unsigned long long ts, track;
	const char *name;            /* "" when none */
	const char *file, *function; /* NULL when no source location */
	unsigned line;
	unsigned n_values;
	unsigned long long value_track[PB_MAX_VALUES];
	long long value[PB_MAX_VALUES]; /* absolute */
	unsigned n_ann;
	struct pb_annotation ann[PB_MAX_ANNOTATIONS];
};

struct pb_track {
	unsigned long long uuid, parent;
	const char *name; /* the track's, or the thread's */
	unsigned long long tid;
	int is_thread, is_counter, is_incremental, is_instructions;
};

struct pb_trace {
	struct pb_event *ev;
	size_t n, cap;
	struct pb_track track[PB_MAX_TRACKS];
	size_t n_tracks;
	size_t bytes_of_events; /* unused by the reader: for callers' sums */
};

/* 0, or -1 with why (an iid or a clock the trace did not define). */
int pb_interpret(const struct pb_node *root, struct pb_trace *out, char *why, size_t size);
void pb_trace_free(struct pb_trace *t);
const struct pb_track *pb_track_of(const struct pb_trace *t, unsigned long long uuid);
/* The event's annotation of that name; NULL when none. */
const struct pb_annotation *pb_annotation(const struct pb_event *e, const char *name);
/* The event's value on that counter track; 0 and *found = 0 when none. */
long long pb_value(const struct pb_event *e, unsigned long long track, int *found);

#endif
