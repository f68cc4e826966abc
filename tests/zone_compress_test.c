/* SPDX-License-Identifier: MIT */
/*
 * Compressed Perfetto files and streams (TracePacket.compressed_packets):
 * inflated and decoded by protoc (tests/perfetto/decode.h), they hold the
 * very events of the uncompressed export of the same zones; each chunk
 * decodes on its own (a reader may begin at any); and zlib without memory
 * is an error with a sentence, never a shorter file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/sim/sim_kernel.h"

#include <upmc/zone.h>

#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

/* The zones' allocator (lib/zone/zone_internal.h), which zlib's goes through. */
extern void *(*upmc_zone_realloc)(void *items, size_t bytes);

static const struct upmc_zone_loc frame_loc = {"frame", "loop", "game.c", 10};
static const struct upmc_zone_loc physics_loc = {"physics", "loop", "game.c", 20};
static const struct upmc_zone_loc render_loc = {"render", "draw", "render.c", 30};

/* `frames` frames of three zones each, with counters, texts and values. */
static struct upmc_profile *record(int frames)
{
	struct upmc_profile *p = NULL;
	char text[32];
	int k;

	sim_reset(48);
	if (upmc_profile_open(&p, "instructions,cycles", NULL) < 0)
		return NULL;
	for (k = 0; k < frames; k++) {
		upmc_zone_begin(&frame_loc);
		upmc_zone_begin(&physics_loc);
		sim_tick(0, 1000 + (uint64_t)k % 97);
		sim_tick(1, 300);
		upmc_zone_value((uint64_t)k);
		upmc_zone_end();
		upmc_zone_begin(&render_loc);
		snprintf(text, sizeof(text), "draw %d", k % 13);
		upmc_zone_text(text, strlen(text));
		sim_tick(0, 77);
		upmc_zone_end();
		upmc_zone_end();
		upmc_frame_mark();
	}
	upmc_zone_flush();
	return p;
}

static void temp_file(char *path, size_t size, const char *name)
{
	snprintf(path, size, "%s/%s.%d.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name, (int)getpid());
}

/* A saved file read into memory (free it). */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	long size;

	if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)size + 1)) &&
	    fread(buf, 1, (size_t)size, f) == (size_t)size)
		*len = (size_t)size;
	else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static int spill(const char *path, const void *bytes, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(bytes, 1, len, f) == len;

	return f && fclose(f) == 0 && ok ? 0 : -1;
}

/* The file decoded (it is removed) and read as the trace processor would. */
static int read_back(const char *path, struct pb_node **tree, struct pb_trace *tr, char *why,
                     size_t size)
{
	int unknown = 0;

	*tree = pb_decode_file(path, &unknown, why, size);
	if (!*tree)
		return -1;
	if (unknown) {
		snprintf(why, size, "%d fields the .proto does not know", unknown);
		return -1;
	}
	return pb_interpret(*tree, tr, why, size);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Event i of a and b the same: sequence, type, time, name, location,
 * counter values and annotations. */
static int same_event(const struct pb_event *a, const struct pb_event *b)
{
	unsigned k;

	if (a->seq != b->seq || a->type != b->type || a->ts != b->ts || a->track != b->track ||
	    !same_str(a->name, b->name) || !same_str(a->file, b->file) ||
	    !same_str(a->function, b->function) || a->line != b->line ||
	    a->n_values != b->n_values || a->n_ann != b->n_ann)
		return 0;
	for (k = 0; k < a->n_values; k++)
		if (a->value[k] != b->value[k] || a->value_track[k] != b->value_track[k])
			return 0;
	for (k = 0; k < a->n_ann; k++)
		if (!same_str(a->ann[k].name, b->ann[k].name) ||
		    !same_str(a->ann[k].str, b->ann[k].str) || a->ann[k].u != b->ann[k].u ||
		    a->ann[k].d != b->ann[k].d)
			return 0;
	return 1;
}

/* protoc's text of two traces the same, node for node. */
static int same_tree(const struct pb_node *a, const struct pb_node *b)
{
	size_t i;

	if (strcmp(a->key, b->key) || !same_str(a->value, b->value) || a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!same_tree(a->kid[i], b->kid[i]))
			return 0;
	return 1;
}

/* A file of one chunk inflates to the uncompressed export's very packets. */
TEST(compress, one_chunk_holds_the_plain_packets)
{
	char plain[256], packed[256], why[512];
	struct pb_node *a = NULL, *b = NULL;
	struct upmc_profile *p;
	size_t plain_len = 0, packed_len = 0;
	unsigned char *bytes;
	int unknown;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	p = record(200);
	ASSERT(p);
	temp_file(plain, sizeof(plain), "plain");
	temp_file(packed, sizeof(packed), "packed");
	ASSERT_MSG(upmc_profile_save(p, UPMC_FORMAT_PERFETTO_UNCOMPRESSED, plain) == 0, "%s",
	           upmc_last_error());
	ASSERT_MSG(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, packed) == 0, "%s",
	           upmc_last_error());
	free(bytes = slurp(plain, &plain_len));
	free(bytes = slurp(packed, &packed_len));
	EXPECT_MSG(packed_len * 4 < plain_len, "%zu bytes compressed, %zu plain", packed_len,
	           plain_len);
	a = pb_decode_file(plain, &unknown, why, sizeof(why));
	ASSERT_MSG(a && !unknown, "%s", why);
	EXPECT(pb_chunks_inflated == 0);
	b = pb_decode_file(packed, &unknown, why, sizeof(why));
	ASSERT_MSG(b && !unknown, "%s", why);
	EXPECT_EQ(pb_chunks_inflated, 1);
	EXPECT_EQ(pb_outer_packets[0], 1);
	EXPECT(same_tree(a, b));
	pb_free(a);
	pb_free(b);
	upmc_profile_close(p);
}

/* A file of many chunks: the same events, one for one, as the plain
 * export (interning, clocks and counters start again in each chunk). */
TEST(compress, many_chunks_hold_the_plain_events)
{
	char plain[256], packed[256], why[512];
	struct pb_node *ta = NULL, *tb = NULL;
	struct pb_trace a, b;
	struct upmc_profile *p;
	size_t i, chunks;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	p = record(30000); /* some 5 MB of packets */
	ASSERT(p);
	temp_file(plain, sizeof(plain), "plain-many");
	temp_file(packed, sizeof(packed), "packed-many");
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_PERFETTO_UNCOMPRESSED, plain) == 0);
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, packed) == 0);
	ASSERT_MSG(read_back(plain, &ta, &a, why, sizeof(why)) == 0, "%s", why);
	ASSERT_MSG(read_back(packed, &tb, &b, why, sizeof(why)) == 0, "%s", why);
	chunks = pb_chunks_inflated;
	EXPECT_MSG(chunks >= 3, "%zu chunks", chunks);
	EXPECT_EQ(a.n, b.n);
	EXPECT_EQ(a.n, 30000 * 7 + 1);
	for (i = 0; i < a.n && i < b.n; i++)
		ASSERT_MSG(same_event(&a.ev[i], &b.ev[i]), "event %zu of %zu differs", i, a.n);
	printf("%zu events, the same in %zu chunks as in the plain packets\n", a.n, chunks);
	pb_trace_free(&a);
	pb_trace_free(&b);
	pb_free(ta);
	pb_free(tb);
	upmc_profile_close(p);
}

/* Each chunk of a file, alone, decodes and resolves: names interned in
 * it, its clock and counters from its own start. */
TEST(compress, a_reader_may_begin_at_any_chunk)
{
	char packed[256], part[300], why[512];
	struct upmc_profile *p;
	unsigned char *bytes;
	size_t len = 0, at = 0, events = 0;
	int chunks = 0;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	p = record(30000);
	ASSERT(p);
	temp_file(packed, sizeof(packed), "alone");
	snprintf(part, sizeof(part), "%s.chunk", packed);
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, packed) == 0);
	bytes = slurp(packed, &len);
	ASSERT(bytes);
	while (at < len) {
		size_t start = at, n = 0;
		unsigned shift = 0;
		struct pb_node *tree = NULL;
		struct pb_trace tr;
		ASSERT(bytes[at++] == 0x0a); /* Trace.packet */
		do
			n |= (size_t)(bytes[at] & 0x7f) << shift, shift += 7;
		while (bytes[at++] & 0x80);
		at += n;
		ASSERT(at <= len && spill(part, bytes + start, at - start) == 0);
		ASSERT_MSG(read_back(part, &tree, &tr, why, sizeof(why)) == 0, "chunk %d: %s",
		           chunks, why);
		EXPECT_EQ(pb_chunks_inflated, 1);
		for (size_t i = 0; i < tr.n; i++)
			if (tr.ev[i].type == 1)
				ASSERT_MSG(tr.ev[i].name[0] && tr.ev[i].n_values == 2,
				           "chunk %d, event %zu", chunks, i);
		events += tr.n;
		chunks++;
		pb_trace_free(&tr);
		pb_free(tree);
	}
	EXPECT(chunks >= 3);
	EXPECT_EQ(events, 30000 * 7 + 1);
	free(bytes);
	unlink(packed);
	upmc_profile_close(p);
}

/* zlib's memory: refused from 64 KiB on (its window and hash), which
 * nothing else of these small profiles asks for once recorded. */
static void *no_large_blocks(void *items, size_t bytes)
{
	return bytes >= 64 * 1024 ? NULL : realloc(items, bytes);
}

/* zlib out of memory: the save fails and says so, leaving no file; a
 * stream refuses to start, with the sentence. */
TEST(compress, zlib_without_memory_is_said)
{
	char path[256];
	struct upmc_profile *p = record(50);
	int err;

	ASSERT(p);
	temp_file(path, sizeof(path), "nomem");
	unlink(path);
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_TABLE, path) == 0); /* collected and sorted */
	unlink(path);
	upmc_zone_realloc = no_large_blocks;
	err = upmc_profile_save(p, UPMC_FORMAT_PERFETTO, path);
	upmc_zone_realloc = realloc;
	EXPECT_EQ(err, -ENOMEM);
	EXPECT_CONTAINS(upmc_last_error(), "zlib could not begin a Perfetto chunk");
	EXPECT_CONTAINS(upmc_last_error(), "memory");
	EXPECT(access(path, F_OK) != 0);
	upmc_zone_realloc = no_large_blocks;
	err = upmc_profile_stream(p, path, 3600 * 1000);
	upmc_zone_realloc = realloc;
	EXPECT_EQ(err, -ENOMEM);
	EXPECT_CONTAINS(upmc_last_error(), "zlib could not begin a Perfetto chunk");
	EXPECT(upmc_profile_stream_end(p) == -ENOENT);
	/* and then, with memory, both work */
	EXPECT_MSG(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, path) == 0, "%s", upmc_last_error());
	unlink(path);
	upmc_profile_close(p);
}

/* UPMC_PROFILE_UNCOMPRESSED: plain packets for files and streams alike. */
TEST(compress, the_option_turns_it_off)
{
	struct upmc_profile_options o = {sizeof(o), 0, UPMC_PROFILE_UNCOMPRESSED, 0, 0};
	char path[256], why[512];
	struct upmc_profile *p = NULL;
	struct pb_node *tree;
	int unknown;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	sim_reset(48);
	ASSERT(upmc_profile_open(&p, NULL, &o) == 0);
	temp_file(path, sizeof(path), "off");
	ASSERT(upmc_profile_stream(p, path, 3600 * 1000) == 0);
	upmc_zone_begin(&frame_loc);
	upmc_zone_end();
	ASSERT(upmc_profile_stream_end(p) == 0);
	tree = pb_decode_file(path, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	EXPECT(pb_chunks_inflated == 0 && pb_outer_packets[0] > 3);
	pb_free(tree);
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_PERFETTO, path) == 0);
	tree = pb_decode_file(path, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	EXPECT(pb_chunks_inflated == 0);
	pb_free(tree);
	upmc_profile_close(p);
	o.profile_flags = 1u << 7;
	EXPECT(upmc_profile_open(&p, NULL, &o) == -EINVAL);
}

/* Chrome JSON saved as *.gz is gzip, and inflates to the plain save. */
TEST(compress, chrome_json_named_gz_is_gzip)
{
	char plain[256], packed[300], *inflated;
	struct upmc_profile *p = record(300);
	unsigned char *bytes, *gz;
	size_t plain_len = 0, gz_len = 0;
	gzFile in;
	int got;

	ASSERT(p);
	temp_file(plain, sizeof(plain), "chrome");
	snprintf(packed, sizeof(packed), "%s.json.gz", plain);
	ASSERT(upmc_profile_save(p, UPMC_FORMAT_CHROME, plain) == 0);
	ASSERT_MSG(upmc_profile_save(p, UPMC_FORMAT_CHROME, packed) == 0, "%s", upmc_last_error());
	bytes = slurp(plain, &plain_len);
	gz = slurp(packed, &gz_len);
	ASSERT(bytes && gz && (inflated = malloc(plain_len + 1)));
	EXPECT(gz_len > 2 && gz[0] == 0x1f && gz[1] == 0x8b); /* gzip's magic */
	EXPECT_MSG(gz_len * 8 < plain_len, "%zu bytes gzip, %zu plain", gz_len, plain_len);
	in = gzopen(packed, "rb");
	ASSERT(in);
	got = gzread(in, inflated, (unsigned)plain_len + 1);
	gzclose(in);
	EXPECT_EQ(got, (int)plain_len);
	EXPECT(got == (int)plain_len && !memcmp(inflated, bytes, plain_len));
	free(inflated);
	free(bytes);
	free(gz);
	unlink(plain);
	unlink(packed);
	upmc_profile_close(p);
}
