/* SPDX-License-Identifier: MIT */
/*
 * Compressed Perfetto packets, as Perfetto's own tracing service writes
 * them: a chunk is one TracePacket whose compressed_packets (field 50)
 * holds a zlib stream of a Trace message's bytes (packets, each as
 * Trace.packet). Each chunk stands alone: the sequences restart at its
 * beginning (incremental state cleared, names interned again, clocks and
 * counter values absolute), so that a reader may begin at any chunk, and
 * a stream's file cut after a chunk (a kill) keeps every chunk before.
 * The encoder only marks where each chunk ends, under the collector's
 * lock; the zlib streams are made once the packets are taken out of the
 * writer (struct upmc_zone_chunks), with that lock free.
 *
 * And Chrome JSON saved under a name that ends in ".gz", as gzip.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"

#ifdef UPMC_HAVE_ZLIB
#include <zlib.h>

const int upmc_zone_have_zlib = 1;

/* A .gz file at zlib's level 6 (its default), as saves' chunks are. */
#define GZIP_LEVEL UPMC_ZONE_SAVE_LEVEL

/* zlib's memory through the zones' allocator, which tests make fail. */
static voidpf chunk_alloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return upmc_zone_realloc(NULL, (size_t)items * size);
}

static void chunk_release(voidpf opaque, voidpf address)
{
	(void)opaque;
	free(address);
}

static int chunk_fail(int rc, const char *what, const char *msg)
{
	int err = rc == Z_MEM_ERROR ? -ENOMEM : -EIO;

	return upmc_fail(err, "zlib could not %s a Perfetto chunk: %s", what,
	                 msg              ? msg
	                 : err == -ENOMEM ? "out of memory"
	                                  : "error");
}

/* zlib's memLevel: its hash table of 2^(memLevel + 7) heads, which zlib
 * slides with its window every 32 KiB of packets. A stream's table of
 * 4096 (5) takes a tenth off its deflate's time for 2% more bytes; a
 * save keeps zlib's default (8), which its level 6 is no faster without. */
static int mem_level(int level)
{
	return level == UPMC_ZONE_STREAM_LEVEL ? 5 : 8;
}

/* The z_stream, made once and reset for each chunk (each a zlib stream
 * of its own): 0, or -errno said. */
static int chunk_stream(struct upmc_zone_chunks *c, z_stream **out)
{
	z_stream *z = c->zlib;
	int rc;

	if (z) {
		rc = deflateReset(z);
		*out = z;
		return rc == Z_OK ? 0 : chunk_fail(rc, "begin", z->msg);
	}
	z = upmc_zone_realloc(NULL, sizeof(*z));
	if (!z)
		return chunk_fail(Z_MEM_ERROR, "begin", NULL);
	memset(z, 0, sizeof(*z));
	z->zalloc = chunk_alloc;
	z->zfree = chunk_release;
	rc = deflateInit2(z, c->level, Z_DEFLATED, 15, mem_level(c->level), Z_DEFAULT_STRATEGY);
	if (rc != Z_OK) {
		rc = chunk_fail(rc, "begin", z->msg);
		free(z);
		return rc;
	}
	c->zlib = *out = z;
	return 0;
}

/* len bytes of packets deflated into c->deflated; 0, or -errno said. */
static int deflate_packets(struct upmc_zone_chunks *c, const uint8_t *packets, size_t len)
{
	z_stream *z = NULL;
	uLong bound;
	int rc = chunk_stream(c, &z);

	if (rc < 0)
		return rc;
	bound = deflateBound(z, (uLong)len);
	c->deflated.len = 0;
	if (upmc_pb_room(&c->deflated, bound) < 0)
		return chunk_fail(Z_MEM_ERROR, "deflate", NULL);
	z->next_in = (Bytef *)(uintptr_t)packets;
	z->avail_in = (uInt)len;
	z->next_out = c->deflated.buf;
	z->avail_out = (uInt)bound;
	rc = deflate(z, Z_FINISH);
	if (rc != Z_STREAM_END)
		return chunk_fail(rc, "deflate", z->msg);
	c->deflated.len = bound - z->avail_out;
	return 0;
}

/* One chunk: Trace.packet { compressed_packets (2 bytes of tag) }. */
static int chunk_of(struct upmc_zone_chunks *c, const uint8_t *packets, size_t len)
{
	struct pb *out = &c->chunks;

	int err = deflate_packets(c, packets, len);

	if (err < 0)
		return err;
	upmc_pb_varint(out, (uint64_t)TRACE_PACKET << 3 | 2);
	upmc_pb_varint(out, 2 + upmc_pb_varint_size(c->deflated.len) + c->deflated.len);
	upmc_pb_varint(out, (uint64_t)PACKET_COMPRESSED_PACKETS << 3 | 2);
	upmc_pb_varint(out, c->deflated.len);
	upmc_pb_put(out, c->deflated.buf, c->deflated.len);
	return out->failed ? chunk_fail(Z_MEM_ERROR, "keep", NULL) : 0;
}

int upmc_zone_chunks_bytes(struct upmc_zone_chunks *c, const uint8_t **bytes, size_t *len)
{
	size_t i, from = 0;
	int err;

	if (c->packets.failed)
		return upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	*bytes = c->packets.buf;
	*len = c->packets.len;
	if (!c->n_cuts)
		return 0;
	c->chunks.len = 0;
	for (i = 0; i < c->n_cuts; from = c->cut[i++])
		if ((err = chunk_of(c, c->packets.buf + from, c->cut[i] - from)) < 0)
			return err;
	*bytes = c->chunks.buf;
	*len = c->chunks.len;
	return 0;
}

static void chunks_end_zlib(struct upmc_zone_chunks *c)
{
	if (c->zlib) {
		deflateEnd(c->zlib);
		free(c->zlib);
	}
}
/* ---- a gzip file (Chrome JSON saved as <name>.gz) ---- */

#define GZIP_BUFFER (1u << 16)

/* in, from its start, gzip-compressed onto out (whose errors the caller
 * checks): 0, or -errno said. */
int upmc_zone_gzip_copy(FILE *in, FILE *out)
{
	unsigned char *from = upmc_zone_realloc(NULL, 2 * GZIP_BUFFER), *to = from + GZIP_BUFFER;
	int rc = Z_STREAM_ERROR, flush = Z_NO_FLUSH;
	z_stream z;

	memset(&z, 0, sizeof(z));
	z.zalloc = chunk_alloc;
	z.zfree = chunk_release;
	if (!from || deflateInit2(&z, GZIP_LEVEL, Z_DEFLATED, 15 + 16 /* gzip */, 8,
	                          Z_DEFAULT_STRATEGY) != Z_OK) {
		free(from);
		return upmc_fail(-ENOMEM, "zlib could not begin a gzip file: out of memory");
	}
	rewind(in);
	while (flush != Z_FINISH && !ferror(in)) {
		z.avail_in = (uInt)fread(from, 1, GZIP_BUFFER, in);
		z.next_in = from;
		flush = feof(in) ? Z_FINISH : Z_NO_FLUSH;
		do {
			z.next_out = to;
			z.avail_out = GZIP_BUFFER;
			rc = deflate(&z, flush);
			fwrite(to, 1, GZIP_BUFFER - z.avail_out, out);
		} while (rc != Z_STREAM_ERROR && z.avail_out == 0);
	}
	deflateEnd(&z);
	free(from);
	if (ferror(in))
		return upmc_fail(-EIO, "gzip: reading the export back failed");
	if (rc != Z_STREAM_END)
		return upmc_fail(-EIO, "zlib could not gzip the export");
	return 0;
}
#else /* built without zlib (the single file without UPMC_HAVE_ZLIB): plain packets */

const int upmc_zone_have_zlib = 0;

int upmc_zone_chunks_bytes(struct upmc_zone_chunks *c, const uint8_t **bytes, size_t *len)
{
	if (c->packets.failed)
		return upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	*bytes = c->packets.buf;
	*len = c->packets.len;
	return 0;
}

static void chunks_end_zlib(struct upmc_zone_chunks *c)
{
	(void)c;
}

int upmc_zone_gzip_copy(FILE *in, FILE *out)
{
	(void)in;
	(void)out;
	return upmc_fail(-ENOTSUP, "upmc was built without zlib: no .gz file (build it with "
	                           "UPMC_HAVE_ZLIB defined and link -lz)");
}
#endif

/* ---- the chunks' ends, marked by the encoder ---- */

void upmc_pf_chunk_end(struct upmc_zone_perfetto *w)
{
	size_t last = w->n_cuts ? w->cut[w->n_cuts - 1] : 0;

	if (!w->compress || w->out.len == last)
		return;
	if (w->n_cuts == w->cuts_cap) {
		size_t cap = w->cuts_cap ? 2 * w->cuts_cap : 16;
		size_t *bigger = realloc(w->cut, cap * sizeof(*bigger));
		if (!bigger) {
			w->cuts_failed = 1;
			return;
		}
		w->cut = bigger;
		w->cuts_cap = cap;
	}
	w->cut[w->n_cuts++] = w->out.len;
	upmc_pf_sequences_restart(w);
	w->process_done = 0;
}

void upmc_pf_chunk_free(struct upmc_zone_perfetto *w)
{
	free(w->cut);
}

/* ---- packets taken out of a writer ---- */

struct upmc_zone_chunks *upmc_zone_chunks_new(int level)
{
	struct upmc_zone_chunks *c = calloc(1, sizeof(*c));

	if (!c)
		upmc_fail(-ENOMEM, "out of memory writing a Perfetto trace");
	else
		c->level = level;
	return c;
}

void upmc_zone_chunks_free(struct upmc_zone_chunks *c)
{
	if (!c)
		return;
	chunks_end_zlib(c);
	free(c->packets.buf);
	free(c->cut);
	free(c->chunks.buf);
	free(c->deflated.buf);
	free(c);
}

/* A swap: each side keeps its buffers' memory for the next time. */
void upmc_zone_perfetto_take(struct upmc_zone_perfetto *w, struct upmc_zone_chunks *c)
{
	struct pb packets = c->packets;
	size_t *cut = c->cut, cuts_cap = c->cuts_cap;

	c->packets = w->out;
	c->cut = w->cut;
	c->n_cuts = w->n_cuts;
	c->cuts_cap = w->cuts_cap;
	w->out = packets;
	w->out.len = 0;
	w->out.failed = 0;
	w->cut = cut;
	w->n_cuts = 0;
	w->cuts_cap = cuts_cap;
}

void upmc_zone_chunks_sent(struct upmc_zone_chunks *c)
{
	c->packets.len = 0;
	c->n_cuts = 0;
	c->chunks.len = 0;
}
