/* SPDX-License-Identifier: MIT */
/*
 * Compressed Perfetto packets, as Perfetto's own tracing service writes
 * them: a chunk is one TracePacket whose compressed_packets (field 50)
 * holds a zlib stream of a Trace message's bytes (packets, each as
 * Trace.packet). Each chunk stands alone: the sequences restart at its
 * beginning (incremental state cleared, names interned again, clocks and
 * counter values absolute), so that a reader may begin at any chunk, and
 * a stream's file cut after a chunk (a kill) keeps every chunk before.
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

/* zlib's level 6 (its default): a time-only zone in 0.4 to 0.9 bytes and
 * 4 counters in 4.7 to 6, where level 3 took 0.7 to 1.4 and 6 to 7.5 (the
 * timestamps' noise decides) for a third of the time; docs/zones.md. */
#define CHUNK_LEVEL 6

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

static void chunk_fail(struct upmc_zone_perfetto *w, int err, const char *what, const char *msg)
{
	if (w->zlib_err)
		return;
	w->zlib_err = err;
	upmc_format(w->zlib_why, sizeof(w->zlib_why), "zlib could not %s a Perfetto chunk: %s",
	            what,
	            msg              ? msg
	            : err == -ENOMEM ? "out of memory"
	                             : "error");
}

/* The z_stream, made once and reset for each chunk (each a zlib stream
 * of its own); NULL after a failure. */
static z_stream *chunk_stream(struct upmc_zone_perfetto *w)
{
	z_stream *z = w->zlib;
	int rc;

	if (z)
		return deflateReset(z) == Z_OK ? z : NULL;
	z = upmc_zone_realloc(NULL, sizeof(*z));
	if (!z) {
		chunk_fail(w, -ENOMEM, "begin", NULL);
		return NULL;
	}
	memset(z, 0, sizeof(*z));
	z->zalloc = chunk_alloc;
	z->zfree = chunk_release;
	rc = deflateInit(z, CHUNK_LEVEL);
	if (rc != Z_OK) {
		chunk_fail(w, rc == Z_MEM_ERROR ? -ENOMEM : -EIO, "begin", z->msg);
		free(z);
		return NULL;
	}
	w->zlib = z;
	return z;
}

/* w->out deflated into w->deflated; 0, or -errno (said in w). */
static int deflate_out(struct upmc_zone_perfetto *w)
{
	z_stream *z = chunk_stream(w);
	uLong bound;
	int rc;

	if (!z)
		return -1;
	bound = deflateBound(z, (uLong)w->out.len);
	w->deflated.len = 0;
	if (bound > w->deflated.cap) {
		uint8_t *bigger = upmc_zone_realloc(w->deflated.buf, bound);
		if (!bigger) {
			chunk_fail(w, -ENOMEM, "deflate", NULL);
			return -1;
		}
		w->deflated.buf = bigger;
		w->deflated.cap = bound;
	}
	z->next_in = w->out.buf;
	z->avail_in = (uInt)w->out.len;
	z->next_out = w->deflated.buf;
	z->avail_out = (uInt)bound;
	rc = deflate(z, Z_FINISH);
	if (rc != Z_STREAM_END) {
		chunk_fail(w, rc == Z_MEM_ERROR ? -ENOMEM : -EIO, "deflate", z->msg);
		return -1;
	}
	w->deflated.len = bound - z->avail_out;
	return 0;
}

static size_t varint_size(uint64_t v)
{
	size_t n = 1;

	for (; v > 0x7f; v >>= 7)
		n++;
	return n;
}

/* The chunk: Trace.packet { compressed_packets (2 bytes of tag) }. */
void upmc_pf_chunk_end(struct upmc_zone_perfetto *w)
{
	struct pb *c = &w->chunks;

	if (!w->out.len || w->out.failed || w->zlib_err)
		return;
	if (deflate_out(w) < 0)
		return;
	upmc_pb_varint(c, (uint64_t)TRACE_PACKET << 3 | 2);
	upmc_pb_varint(c, 2 + varint_size(w->deflated.len) + w->deflated.len);
	upmc_pb_varint(c, (uint64_t)PACKET_COMPRESSED_PACKETS << 3 | 2);
	upmc_pb_varint(c, w->deflated.len);
	upmc_pb_put(c, w->deflated.buf, w->deflated.len);
	w->out.failed |= c->failed;
	w->out.len = 0;
	upmc_pf_sequences_restart(w);
	w->process_done = 0;
}

void upmc_pf_chunk_maybe(struct upmc_zone_perfetto *w)
{
	if (w->compress && w->out.len >= PF_CHUNK_BYTES)
		upmc_pf_chunk_end(w);
}

void upmc_pf_chunk_free(struct upmc_zone_perfetto *w)
{
	if (w->zlib) {
		deflateEnd(w->zlib);
		free(w->zlib);
	}
	free(w->deflated.buf);
	free(w->chunks.buf);
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
	if (!from || deflateInit2(&z, CHUNK_LEVEL, Z_DEFLATED, 15 + 16 /* gzip */, 8,
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

void upmc_pf_chunk_end(struct upmc_zone_perfetto *w)
{
	(void)w;
}

void upmc_pf_chunk_maybe(struct upmc_zone_perfetto *w)
{
	(void)w;
}

void upmc_pf_chunk_free(struct upmc_zone_perfetto *w)
{
	free(w->deflated.buf);
	free(w->chunks.buf);
}

int upmc_zone_gzip_copy(FILE *in, FILE *out)
{
	(void)in;
	(void)out;
	return upmc_fail(-ENOTSUP, "upmc was built without zlib: no .gz file (build it with "
	                           "UPMC_HAVE_ZLIB defined and link -lz)");
}
#endif
