/* SPDX-License-Identifier: MIT */
/*
 * A Perfetto trace that a kill cut short, mended. A stream appends with
 * write(2); a process killed while the kernel copies one leaves the part
 * copied so far, a file that ends inside a packet and that no decoder
 * reads. A trace is a run of Trace.packet fields (field 1,
 * length-delimited): this reads them one by one, checks each packet's own
 * fields one level deep, and cuts the file after the last whole packet
 * when what follows could begin one. Anything else is not a trace cut by a
 * kill and stays as it was.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <upmc/zone.h>

#include "lib/core/internal.h"
#include "lib/core/os.h"

#define REPAIR_PACKET_TAG   ((1u << 3) | 2) /* Trace.packet: field 1, length-delimited */
#define REPAIR_VARINT_BYTES 10
#define REPAIR_BUFFER       (64 * 1024)

/* What reading a field found. */
enum repair_found {
	REPAIR_WHOLE, /* the field, whole */
	REPAIR_CUT,   /* the file ends inside it */
	REPAIR_BAD,   /* bytes no trace holds there */
	REPAIR_IO,    /* a read failed: errno in the reader */
};

struct repair_reader {
	FILE *f;
	uint64_t pos; /* bytes taken so far */
	size_t at, len;
	int err;
	unsigned char buf[REPAIR_BUFFER];
};

/* Whether no byte is left; the buffer refilled when needed. */
static int repair_at_end(struct repair_reader *r)
{
	if (r->at < r->len)
		return 0;
	r->at = 0;
	errno = 0;
	r->len = fread(r->buf, 1, sizeof(r->buf), r->f);
	if (r->len == 0 && ferror(r->f))
		r->err = errno ? errno : EIO;
	return r->len == 0;
}

static enum repair_found repair_end_found(const struct repair_reader *r)
{
	return r->err ? REPAIR_IO : REPAIR_CUT;
}

/* A varint, which must end by byte `end` of the file. */
static enum repair_found repair_varint(struct repair_reader *r, uint64_t end, uint64_t *value)
{
	unsigned i;

	*value = 0;
	for (i = 0; i < REPAIR_VARINT_BYTES; i++) {
		unsigned char c;
		if (r->pos >= end)
			return REPAIR_BAD;
		if (repair_at_end(r))
			return repair_end_found(r);
		c = r->buf[r->at++];
		r->pos++;
		*value |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80))
			return REPAIR_WHOLE;
	}
	return REPAIR_BAD;
}

/* Passes over n bytes, which must end by byte `end` of the file. */
static enum repair_found repair_skip(struct repair_reader *r, uint64_t end, uint64_t n)
{
	if (n > end - r->pos)
		return REPAIR_BAD;
	while (n > 0) {
		size_t step;
		if (repair_at_end(r))
			return repair_end_found(r);
		step = r->len - r->at < n ? r->len - r->at : (size_t)n;
		r->at += step;
		r->pos += step;
		n -= step;
	}
	return REPAIR_WHOLE;
}

/* One field of a packet that ends at byte `end`. */
static enum repair_found repair_packet_field(struct repair_reader *r, uint64_t end)
{
	uint64_t tag, len;
	enum repair_found found = repair_varint(r, end, &tag);

	if (found != REPAIR_WHOLE)
		return found;
	if (tag >> 3 == 0 || tag > UINT32_MAX)
		return REPAIR_BAD;
	switch (tag & 7) {
	case 0:
		return repair_varint(r, end, &len);
	case 1:
		return repair_skip(r, end, 8);
	case 5:
		return repair_skip(r, end, 4);
	case 2:
		found = repair_varint(r, end, &len);
		return found == REPAIR_WHOLE ? repair_skip(r, end, len) : found;
	default: /* groups, which no trace packet has, and no wire type at all */
		return REPAIR_BAD;
	}
}

/* One Trace.packet, from its tag. */
static enum repair_found repair_packet(struct repair_reader *r)
{
	uint64_t tag, len, end;
	enum repair_found found = repair_varint(r, UINT64_MAX, &tag);

	if (found == REPAIR_WHOLE && tag != REPAIR_PACKET_TAG)
		return REPAIR_BAD;
	if (found == REPAIR_WHOLE)
		found = repair_varint(r, UINT64_MAX, &len);
	if (found != REPAIR_WHOLE)
		return found;
	if (len > UINT64_MAX - r->pos)
		return REPAIR_BAD;
	end = r->pos + len;
	while (found == REPAIR_WHOLE && r->pos < end)
		found = repair_packet_field(r, end);
	return found;
}

/* Reads the packets of r->f up to the first that is not whole (or the
 * end): *good is where it begins, *packets how many came before. */
static enum repair_found repair_scan(struct repair_reader *r, uint64_t *good, uint64_t *packets)
{
	enum repair_found found = REPAIR_WHOLE;

	*packets = 0;
	for (;;) {
		*good = r->pos;
		if (repair_at_end(r))
			return r->err ? REPAIR_IO : REPAIR_WHOLE;
		found = repair_packet(r);
		if (found != REPAIR_WHOLE)
			return found;
		(*packets)++;
	}
}

/* Cuts path to `bytes`: 0 or -errno, with a sentence. */
static int repair_cut(const char *path, uint64_t bytes)
{
	FILE *f = fopen(path, "r+b");
	int err;

	if (!f)
		return upmc_fail(-errno, "cannot open '%s' to cut it: %s", path, strerror(errno));
	err = upmc_os_truncate(f, bytes);
	if (err < 0)
		upmc_fail(err, "cannot cut '%s' to %llu bytes: %s", path, (unsigned long long)bytes,
		          strerror(-err));
	if (fclose(f) != 0 && err == 0)
		err = upmc_fail(-errno, "cannot close '%s': %s", path, strerror(errno));
	return err;
}

/* What the scan found, said: 0 for a whole trace or one to cut, or -errno. */
static int repair_judge(const char *path, const struct repair_reader *r, enum repair_found found,
                        uint64_t good, uint64_t packets)
{
	if (found == REPAIR_IO)
		return upmc_fail(-r->err, "cannot read '%s': %s", path, strerror(r->err));
	/* A stream's first packet (its process's track) is small and the first
	 * bytes of its first write: a kill leaves it whole or absent, since
	 * Linux copies a write into the file a page (or more) at a time and a
	 * kill stops it only between two. So a file that ends before its first
	 * packet does is taken for no trace (a text that begins with a
	 * newline, the packet's tag), and never emptied. */
	if (found != REPAIR_WHOLE && packets == 0)
		return upmc_fail(-EINVAL,
		                 "'%s' is not a Perfetto trace (it holds no whole trace packet); "
		                 "it is left as it was",
		                 path);
	if (found == REPAIR_BAD)
		return upmc_fail(
		        -EINVAL,
		        "'%s' is not a Perfetto trace cut short: the bytes at %llu, after "
		        "%llu whole packets, are no trace packet nor the start of one; it is "
		        "left as it was",
		        path, (unsigned long long)good, (unsigned long long)packets);
	return 0;
}

UPMC_API int upmc_trace_repair(const char *path, struct upmc_trace_repair_info *info)
{
	struct upmc_trace_repair_info out = {sizeof(out), 0, 0, 0};
	struct repair_reader *r;
	enum repair_found found;
	uint64_t good;
	int err;

	if (!path)
		return upmc_fail(-EINVAL, "upmc_trace_repair: the path is NULL");
	if (info && info->size < sizeof(out))
		return upmc_fail(-EINVAL,
		                 "upmc_trace_repair_info.size is %zu: set it to sizeof(struct "
		                 "upmc_trace_repair_info)",
		                 info->size);
	r = calloc(1, sizeof(*r));
	if (!r)
		return upmc_fail(-ENOMEM, "upmc_trace_repair: out of memory");
	r->f = fopen(path, "rb");
	if (!r->f) {
		err = upmc_fail(-errno, "cannot open '%s': %s", path, strerror(errno));
		free(r);
		return err;
	}
	found = repair_scan(r, &good, &out.packets);
	fclose(r->f);
	err = repair_judge(path, r, found, good, out.packets);
	out.bytes = good;
	out.bytes_removed = found == REPAIR_CUT ? r->pos - good : 0;
	free(r);
	if (err == 0 && out.bytes_removed)
		err = repair_cut(path, good);
	if (err == 0 && info) /* a newer caller's fields beyond these stay as it set them */
		memcpy((char *)info + sizeof(info->size), (char *)&out + sizeof(out.size),
		       sizeof(out) - sizeof(out.size));
	return err;
}
