/* SPDX-License-Identifier: MIT */
/* A profile's Perfetto trace decoded by protoc (tests/perfetto/decode.h). */
#define _GNU_SOURCE
#include "tests/perfetto/decode.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PROTO_DIR "tests/perfetto"

void pb_free(struct pb_node *n)
{
	size_t i;

	for (i = 0; n && i < n->n; i++)
		pb_free(n->kid[i]);
	if (n) {
		free(n->kid);
		free(n->value);
		free(n);
	}
}

static struct pb_node *add_kid(struct pb_node *parent, const char *key, size_t len)
{
	struct pb_node *n = calloc(1, sizeof(*n));

	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? 2 * parent->cap : 8;
		parent->kid = realloc(parent->kid, parent->cap * sizeof(*parent->kid));
	}
	parent->kid[parent->n++] = n;
	snprintf(n->key, sizeof(n->key), "%.*s", (int)len, key);
	return n;
}

/* A text-format scalar: a quoted string (C escapes), or the word as printed. */
static char *scalar(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (*s != '"') {
		strcpy(out, s);
		return out;
	}
	for (s++; *s && *s != '"'; s++) {
		if (*s != '\\') {
			*o++ = *s;
		} else if (s[1] >= '0' && s[1] <= '7') {
			*o++ = (char)strtol((char[4]){s[1], s[2], s[3], 0}, NULL, 8);
			s += 3;
		} else {
			s++;
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		}
	}
	*o = '\0';
	return out;
}

static struct pb_node *parse_text(char *text, int *unknown)
{
	struct pb_node *root = calloc(1, sizeof(*root)), *stack[16];
	char *line, *save = NULL;
	int depth = 0;

	stack[0] = root;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;
		char *colon;
		while (*line == ' ')
			line++;
		len = strlen(line);
		if (!strcmp(line, "}")) {
			if (depth)
				depth--;
			continue;
		}
		/* protoc prints fields the .proto lacks by number */
		if (*line >= '0' && *line <= '9')
			(*unknown)++;
		if (len > 2 && !strcmp(line + len - 2, " {") && depth < 15) {
			struct pb_node *n = add_kid(stack[depth], line, len - 2);
			stack[++depth] = n;
		} else if ((colon = strstr(line, ": "))) {
			struct pb_node *n = add_kid(stack[depth], line, (size_t)(colon - line));
			n->value = scalar(colon + 2);
		}
	}
	return root;
}

const struct pb_node *pb_get(const struct pb_node *n, const char *key)
{
	size_t i;

	for (i = 0; n && i < n->n; i++)
		if (!strcmp(n->kid[i]->key, key))
			return n->kid[i];
	return NULL;
}

unsigned long long pb_num(const struct pb_node *n, const char *key)
{
	const struct pb_node *k = pb_get(n, key);

	return k && k->value ? strtoull(k->value, NULL, 10) : ~0ull;
}

const char *pb_str(const struct pb_node *n, const char *key)
{
	const struct pb_node *k = pb_get(n, key);

	return k && k->value ? k->value : "";
}

/* Writes the profile as a .pftrace and decodes it with protoc; NULL (and
 * why) when protoc cannot. */
void pb_trace_path(char *path, size_t size)
{
	snprintf(path, size, "%s/zones.%d.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", (int)getpid());
}

/* ---- compressed chunks inflated before protoc reads them ---- */

size_t pb_chunks_inflated;
unsigned long long pb_outer_packets[PB_MAX_BATCH];

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

static int bytes_put(struct bytes *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *bigger;
		while (cap < b->len + n)
			cap *= 2;
		bigger = realloc(b->p, cap);
		if (!bigger)
			return -1;
		b->p = bigger;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return 0;
}

static int bytes_varint(struct bytes *b, uint64_t v)
{
	uint8_t out[10];
	size_t n = 0;

	for (; v > 0x7f; v >>= 7)
		out[n++] = (uint8_t)(v | 0x80);
	out[n++] = (uint8_t)v;
	return bytes_put(b, out, n);
}

/* A varint at *at, below end; *at moves past it. -1 when cut. */
static int read_varint(const uint8_t *buf, size_t end, size_t *at, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*at < end && shift < 64) {
		uint8_t byte = buf[(*at)++];
		*v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* A zlib stream, inflated whole onto out: 0, or -1 with why. */
static int inflate_onto(struct bytes *out, const uint8_t *in, size_t len, char *why, size_t size)
{
	z_stream z;
	uint8_t buf[1 << 16];
	int rc;

	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		snprintf(why, size, "inflateInit failed");
		return -1;
	}
	z.next_in = (uint8_t *)in;
	z.avail_in = (uInt)len;
	do {
		z.next_out = buf;
		z.avail_out = sizeof(buf);
		rc = inflate(&z, Z_NO_FLUSH);
		if ((rc != Z_OK && rc != Z_STREAM_END) ||
		    bytes_put(out, buf, sizeof(buf) - z.avail_out) < 0) {
			snprintf(why, size, "a chunk does not inflate: %s (%d)",
			         z.msg ? z.msg : "out of memory", rc);
			inflateEnd(&z);
			return -1;
		}
	} while (rc != Z_STREAM_END && (z.avail_in || !z.avail_out));
	inflateEnd(&z);
	if (rc != Z_STREAM_END) {
		snprintf(why, size, "a chunk's zlib stream is cut short");
		return -1;
	}
	return 0;
}

/* A Trace's bytes with each chunk (a packet holding only
 * compressed_packets) replaced by the packets it inflates to; *outer
 * counts the packets before. Bytes that do not parse are kept as they
 * are, for protoc to refuse. */
static int expand_trace(struct bytes *out, const uint8_t *in, size_t len, unsigned long long *outer,
                        char *why, size_t size)
{
	size_t at = 0;

	*outer = 0;
	while (at < len) {
		size_t start = at, body, inner;
		uint64_t tag, n, zlen;
		if (read_varint(in, len, &at, &tag) < 0 || tag != 0x0a ||
		    read_varint(in, len, &at, &n) < 0 || n > len - at)
			return bytes_put(out, in + start, len - start);
		body = at;
		at += n;
		++*outer;
		inner = body;
		if (n > 2 && in[body] == 0x92 && in[body + 1] == 0x03) {
			inner += 2;
			if (read_varint(in, at, &inner, &zlen) == 0 && inner + zlen == at) {
				pb_chunks_inflated++;
				if (inflate_onto(out, in + inner, zlen, why, size) < 0)
					return -1;
				continue;
			}
		}
		if (bytes_put(out, in + start, at - start) < 0)
			return -1;
	}
	return 0;
}

/* The file at path, its chunks inflated in place: a trace, or a batch
 * of them (trace_batch.proto). 0, or -1 with why. */
static int inflate_file(const char *path, int batch, char *why, size_t size)
{
	struct bytes in = {0}, out = {0}, one = {0};
	uint8_t buf[1 << 16];
	size_t got, at = 0, k = 0;
	unsigned long long outer = 0;
	FILE *f = fopen(path, "rb");
	int err = 0;

	pb_chunks_inflated = 0;
	while (f && (got = fread(buf, 1, sizeof(buf), f)) > 0 && err == 0)
		err = bytes_put(&in, buf, got);
	if (f)
		fclose(f);
	if (!batch) {
		err = err ? err : expand_trace(&out, in.p, in.len, &outer, why, size);
		pb_outer_packets[0] = outer;
	}
	while (batch && err == 0 && at < in.len) {
		uint64_t tag, n;
		size_t start = at;
		if (read_varint(in.p, in.len, &at, &tag) < 0 || tag != 0x0a ||
		    read_varint(in.p, in.len, &at, &n) < 0 || n > in.len - at) {
			err = bytes_put(&out, in.p + start, in.len - start);
			break;
		}
		one.len = 0;
		err = expand_trace(&one, in.p + at, n, &outer, why, size);
		if (k < PB_MAX_BATCH)
			pb_outer_packets[k++] = outer;
		if (err == 0)
			err = bytes_put(&out, "\x0a", 1) | bytes_varint(&out, one.len) |
			      bytes_put(&out, one.p, one.len);
		at += n;
	}
	f = err == 0 ? fopen(path, "wb") : NULL;
	if (f && fwrite(out.p, 1, out.len, f) != out.len)
		err = -1;
	if (f && fclose(f) != 0)
		err = -1;
	if (err == 0 && !f)
		err = -1;
	if (err < 0 && !why[0])
		snprintf(why, size, "cannot inflate %s", path);
	free(in.p);
	free(out.p);
	free(one.p);
	return err;
}

static struct pb_node *decode_as(const char *path, const char *message, const char *proto,
                                 int *unknown, char *why, size_t size)
{
	char cmd[768], *text = NULL;
	size_t len = 0, cap = 1 << 20, got;
	struct pb_node *tree;
	FILE *f;
	int status;

	why[0] = '\0';
	if (inflate_file(path, !strcmp(proto, "trace_batch.proto"), why, size) < 0) {
		unlink(path);
		return NULL;
	}
	snprintf(cmd, sizeof(cmd),
	         "protoc --decode=%s --proto_path=" PROTO_DIR " " PROTO_DIR "/%s < %s 2>&1",
	         message, proto, path);
	f = popen(cmd, "r");
	text = malloc(cap);
	while (f && text && (got = fread(text + len, 1, cap - 1 - len, f)) > 0) {
		len += got;
		if (len == cap - 1) { /* a long trace: room for more */
			char *more = realloc(text, 2 * cap);
			if (!more) {
				free(text);
				text = NULL;
				break;
			}
			text = more;
			cap *= 2;
		}
	}
	status = f ? pclose(f) : -1;
	unlink(path);
	if (!text || status != 0) {
		snprintf(why, size, "protoc failed (status %d): %.300s", status, text ? text : "");
		free(text);
		return NULL;
	}
	text[len] = '\0';
	*unknown = 0;
	tree = parse_text(text, unknown);
	free(text);
	return tree;
}

struct pb_node *pb_decode_file(const char *path, int *unknown, char *why, size_t size)
{
	return decode_as(path, "perfetto.protos.Trace", "trace_subset.proto", unknown, why, size);
}

struct pb_node *pb_decode_batch(const char *path, int *unknown, char *why, size_t size)
{
	return decode_as(path, "upmc.test.Traces", "trace_batch.proto", unknown, why, size);
}

int pb_have_protoc(void)
{
	return system("protoc --version >/dev/null 2>&1") == 0;
}

/* ---- the trace as trace processor reads it ---- */

struct pb_interned {
	int kind; /* 0 event name, 1 annotation name, 2 source location */
	unsigned long long iid;
	const struct pb_node *node;
};

struct pb_sequence {
	unsigned id;
	unsigned long long clock_id, track;
	unsigned long long counter_tracks[PB_MAX_VALUES];
	unsigned n_counter_tracks;
	int clock_incremental;
	unsigned long long clock_last;
	struct pb_interned *interned;
	size_t n_interned;
	unsigned long long last_value[PB_MAX_TRACKS]; /* by track index */
};

const struct pb_track *pb_track_of(const struct pb_trace *t, unsigned long long uuid)
{
	size_t i;

	for (i = 0; i < t->n_tracks; i++)
		if (t->track[i].uuid == uuid)
			return &t->track[i];
	return NULL;
}

const struct pb_annotation *pb_annotation(const struct pb_event *e, const char *name)
{
	unsigned i;

	for (i = 0; i < e->n_ann; i++)
		if (!strcmp(e->ann[i].name, name))
			return &e->ann[i];
	return NULL;
}

long long pb_value(const struct pb_event *e, unsigned long long track, int *found)
{
	unsigned i;

	for (i = 0; i < e->n_values; i++)
		if (e->value_track[i] == track) {
			*found = 1;
			return e->value[i];
		}
	*found = 0;
	return 0;
}

static const struct pb_node *interned(const struct pb_sequence *s, int kind, unsigned long long iid)
{
	size_t i;

	for (i = 0; i < s->n_interned; i++)
		if (s->interned[i].kind == kind && s->interned[i].iid == iid)
			return s->interned[i].node;
	return NULL;
}

static void take_interned(struct pb_sequence *s, const struct pb_node *data)
{
	static const char *const kinds[] = {"event_names", "debug_annotation_names",
	                                    "source_locations"};
	size_t i;
	int k;

	for (i = 0; i < data->n; i++)
		for (k = 0; k < 3; k++)
			if (!strcmp(data->kid[i]->key, kinds[k])) {
				s->interned = realloc(s->interned,
				                      (s->n_interned + 1) * sizeof(*s->interned));
				s->interned[s->n_interned].kind = k;
				s->interned[s->n_interned].iid = pb_num(data->kid[i], "iid");
				s->interned[s->n_interned].node = data->kid[i];
				s->n_interned++;
			}
}

static void take_defaults(struct pb_sequence *s, const struct pb_node *d)
{
	const struct pb_node *te = pb_get(d, "track_event_defaults");
	size_t i;

	s->clock_id = pb_num(d, "timestamp_clock_id");
	s->track = te ? pb_num(te, "track_uuid") : ~0ull;
	s->n_counter_tracks = 0;
	for (i = 0; te && i < te->n && s->n_counter_tracks < PB_MAX_VALUES; i++)
		if (!strcmp(te->kid[i]->key, "extra_counter_track_uuids"))
			s->counter_tracks[s->n_counter_tracks++] =
			        strtoull(te->kid[i]->value, NULL, 10);
}

static void take_clock(struct pb_sequence *s, const struct pb_node *snapshot)
{
	size_t i;

	for (i = 0; i < snapshot->n; i++) {
		const struct pb_node *c = snapshot->kid[i];
		if (pb_num(c, "clock_id") == s->clock_id || pb_num(c, "clock_id") == 64) {
			s->clock_incremental = !strcmp(pb_str(c, "is_incremental"), "true");
			s->clock_last = pb_num(c, "timestamp");
		}
	}
}

/* Whether the last track of d's uuid is d as it was described. */
static int same_track(const struct pb_trace *t, const struct pb_node *d)
{
	const struct pb_node *thread = pb_get(d, "thread");
	const char *name = thread ? pb_str(thread, "thread_name") : pb_str(d, "name");
	size_t i;

	for (i = t->n_tracks; i-- > 0;)
		if (t->track[i].uuid == pb_num(d, "uuid"))
			return !strcmp(t->track[i].name, name) &&
			       (!thread || t->track[i].tid == pb_num(thread, "tid"));
	return 0;
}

static void take_track(struct pb_trace *t, const struct pb_node *d)
{
	struct pb_track *k = &t->track[t->n_tracks];
	const struct pb_node *thread = pb_get(d, "thread"), *counter = pb_get(d, "counter");

	if (t->n_tracks == sizeof(t->track) / sizeof(t->track[0]))
		return;
	if (same_track(t, d)) /* described again where a chunk begins */
		return;
	memset(k, 0, sizeof(*k));
	k->uuid = pb_num(d, "uuid");
	k->parent = pb_num(d, "parent_uuid");
	k->name = pb_str(d, "name");
	if (thread) {
		k->is_thread = 1;
		k->tid = pb_num(thread, "tid");
		k->name = pb_str(thread, "thread_name");
	}
	if (counter) {
		k->is_counter = 1;
		k->is_incremental = !strcmp(pb_str(counter, "is_incremental"), "true");
		k->is_instructions =
		        !strcmp(pb_str(counter, "type"), "COUNTER_THREAD_INSTRUCTION_COUNT");
	}
	t->n_tracks++;
}

static struct pb_sequence *sequence_of(struct pb_sequence *seq, size_t *n, unsigned id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (seq[i].id == id)
			return &seq[i];
	if (*n == PB_MAX_SEQUENCES)
		return NULL;
	memset(&seq[*n], 0, sizeof(seq[*n]));
	seq[*n].id = id;
	seq[*n].track = ~0ull;
	return &seq[(*n)++];
}

static int fail_with(char *why, size_t size, const char *what, unsigned long long n)
{
	snprintf(why, size, "%s %llu", what, n);
	return -1;
}

static int event_name(const struct pb_sequence *s, const struct pb_node *te, struct pb_event *e,
                      char *why, size_t size)
{
	unsigned long long iid = pb_num(te, "name_iid");
	const struct pb_node *n;

	e->name = pb_str(te, "name");
	if (iid != ~0ull) {
		n = interned(s, 0, iid);
		if (!n)
			return fail_with(why, size, "no interned event name", iid);
		e->name = pb_str(n, "name");
	}
	iid = pb_num(te, "source_location_iid");
	if (iid != ~0ull) {
		n = interned(s, 2, iid);
		if (!n)
			return fail_with(why, size, "no interned source location", iid);
		e->file = pb_str(n, "file_name");
		e->function = pb_get(n, "function_name") ? pb_str(n, "function_name") : NULL;
		e->line = (unsigned)pb_num(n, "line_number");
	}
	return 0;
}

static int event_annotations(const struct pb_sequence *s, const struct pb_node *te,
                             struct pb_event *e, char *why, size_t size)
{
	size_t i;

	for (i = 0; i < te->n && e->n_ann < PB_MAX_ANNOTATIONS; i++) {
		const struct pb_node *a = te->kid[i], *n;
		struct pb_annotation *an = &e->ann[e->n_ann];
		unsigned long long iid;
		if (strcmp(a->key, "debug_annotations"))
			continue;
		memset(an, 0, sizeof(*an));
		an->name = pb_str(a, "name");
		iid = pb_num(a, "name_iid");
		if (iid != ~0ull) {
			n = interned(s, 1, iid);
			if (!n)
				return fail_with(why, size, "no interned annotation name", iid);
			an->name = pb_str(n, "name");
		}
		if (pb_get(a, "string_value"))
			an->str = pb_str(a, "string_value");
		if (pb_get(a, "uint_value")) {
			an->is_uint = 1;
			an->u = pb_num(a, "uint_value");
		}
		if (pb_get(a, "double_value")) {
			an->is_double = 1;
			an->d = strtod(pb_str(a, "double_value"), NULL);
		}
		e->n_ann++;
	}
	return 0;
}

static int event_values(struct pb_trace *t, struct pb_sequence *s, const struct pb_node *te,
                        struct pb_event *e, char *why, size_t size)
{
	unsigned long long uuid[PB_MAX_VALUES];
	unsigned n_uuid = 0, n_value = 0, k;
	size_t i;

	for (i = 0; i < te->n; i++)
		if (!strcmp(te->kid[i]->key, "extra_counter_track_uuids") && n_uuid < PB_MAX_VALUES)
			uuid[n_uuid++] = strtoull(te->kid[i]->value, NULL, 10);
	if (!n_uuid)
		for (k = 0; k < s->n_counter_tracks; k++)
			uuid[n_uuid++] = s->counter_tracks[k];
	for (i = 0; i < te->n; i++) {
		const struct pb_track *track;
		long long v;
		if (strcmp(te->kid[i]->key, "extra_counter_values"))
			continue;
		if (n_value >= n_uuid)
			return fail_with(why, size, "a counter value without a track, value",
			                 n_value);
		track = pb_track_of(t, uuid[n_value]);
		if (!track || !track->is_counter)
			return fail_with(why, size, "no counter track", uuid[n_value]);
		v = strtoll(te->kid[i]->value, NULL, 10);
		if (track->is_incremental) {
			size_t idx = (size_t)(track - t->track);
			s->last_value[idx] += (unsigned long long)v;
			v = (long long)s->last_value[idx];
		}
		e->value_track[e->n_values] = uuid[n_value];
		e->value[e->n_values++] = v;
		n_value++;
	}
	return 0;
}

static int take_event(struct pb_trace *t, struct pb_sequence *s, const struct pb_node *packet,
                      const struct pb_node *te, char *why, size_t size)
{
	struct pb_event e;
	unsigned long long ts = pb_num(packet, "timestamp");
	const char *type = pb_str(te, "type");

	memset(&e, 0, sizeof(e));
	e.seq = s->id;
	e.type = !strcmp(type, "TYPE_SLICE_BEGIN") ? 1 : !strcmp(type, "TYPE_SLICE_END") ? 2 : 3;
	e.track = pb_num(te, "track_uuid") != ~0ull ? pb_num(te, "track_uuid") : s->track;
	if (ts != ~0ull && s->clock_id != ~0ull && s->clock_id >= 64) {
		if (!s->clock_incremental)
			return fail_with(why, size, "no snapshot of sequence clock", s->clock_id);
		s->clock_last += ts;
		ts = s->clock_last;
	}
	e.ts = ts;
	if (event_name(s, te, &e, why, size) < 0 || event_annotations(s, te, &e, why, size) < 0 ||
	    event_values(t, s, te, &e, why, size) < 0)
		return -1;
	if (t->n == t->cap) { /* doubled: an event is a kilobyte, a trace many thousands */
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
	}
	t->ev[t->n++] = e;
	return 0;
}

int pb_interpret(const struct pb_node *root, struct pb_trace *out, char *why, size_t size)
{
	struct pb_sequence *seq = calloc(PB_MAX_SEQUENCES, sizeof(*seq));
	size_t n_seq = 0, i;
	int err = 0;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < root->n && err == 0; i++) {
		const struct pb_node *packet = root->kid[i], *x;
		struct pb_sequence *s = sequence_of(
		        seq, &n_seq, (unsigned)pb_num(packet, "trusted_packet_sequence_id"));
		if (!s) {
			err = fail_with(why, size, "too many sequences:", n_seq);
			break;
		}
		if (!strcmp(pb_str(packet, "sequence_flags"), "1")) {
			/* the incremental state: interned data and counter values */
			free(s->interned);
			s->interned = NULL;
			s->n_interned = 0;
			memset(s->last_value, 0, sizeof(s->last_value));
		}
		if ((x = pb_get(packet, "trace_packet_defaults")))
			take_defaults(s, x);
		if ((x = pb_get(packet, "interned_data")))
			take_interned(s, x);
		if ((x = pb_get(packet, "clock_snapshot")))
			take_clock(s, x);
		if ((x = pb_get(packet, "track_descriptor")))
			take_track(out, x);
		if ((x = pb_get(packet, "track_event")))
			err = take_event(out, s, packet, x, why, size);
	}
	for (i = 0; i < n_seq; i++)
		free(seq[i].interned);
	free(seq);
	return err;
}

void pb_trace_free(struct pb_trace *t)
{
	free(t->ev);
	memset(t, 0, sizeof(*t));
}
