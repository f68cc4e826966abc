/* SPDX-License-Identifier: MIT */
/* Protobuf, encoded into bytes in memory: varints, 64-bit doubles,
 * UTF-8 strings and nested messages (their length put in front once they
 * end). The Perfetto writer's encoder. */
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"

void upmc_pb_put(struct pb *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		uint8_t *bigger;
		while (cap < b->len + n)
			cap *= 2;
		bigger = realloc(b->buf, cap);
		if (!bigger) {
			b->failed = 1;
			return;
		}
		b->buf = bigger;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
}

static size_t varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	do {
		out[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

void upmc_pb_varint(struct pb *b, uint64_t v)
{
	uint8_t bytes[10];

	upmc_pb_put(b, bytes, varint(bytes, v));
}

void upmc_pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	upmc_pb_varint(b, (uint64_t)field << 3); /* wire type 0: varint */
	upmc_pb_varint(b, v);
}

void upmc_pb_double(struct pb *b, unsigned field, double v)
{
	uint8_t bytes[8];
	uint64_t bits;
	unsigned i;

	memcpy(&bits, &v, sizeof(bits));
	for (i = 0; i < 8; i++) /* little-endian, whatever the host */
		bytes[i] = (uint8_t)(bits >> 8 * i);
	upmc_pb_varint(b, (uint64_t)field << 3 | 1); /* wire type 1: 64-bit */
	upmc_pb_put(b, bytes, sizeof(bytes));
}

/* Protobuf strings are UTF-8 (protoc and Perfetto refuse others): a byte of
 * no well-formed sequence is written as the code point of the same number,
 * U+0080 to U+00FF in two bytes, as the JSON writers write it (\u00XX). */
static size_t utf8_size(const unsigned char *s)
{
	size_t size = 0, n;

	for (; *s; s += n ? n : 1)
		size += (n = upmc_utf8_length(s)) ? n : 2;
	return size;
}

void upmc_pb_string(struct pb *b, unsigned field, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	upmc_pb_varint(b, (uint64_t)field << 3 | 2); /* wire type 2: length-delimited */
	upmc_pb_varint(b, utf8_size(p));
	for (; *p; p += n ? n : 1) {
		n = upmc_utf8_length(p);
		if (n) {
			upmc_pb_put(b, p, n);
		} else {
			uint8_t two[2] = {(uint8_t)(0xc0 | *p >> 6), (uint8_t)(0x80 | (*p & 0x3f))};
			upmc_pb_put(b, two, 2);
		}
	}
}

void upmc_pb_begin(struct pb *b, unsigned field)
{
	upmc_pb_varint(b, (uint64_t)field << 3 | 2);
	b->open[b->depth++] = b->len;
}

/* Puts the body's length in front of it. */
void upmc_pb_end(struct pb *b)
{
	size_t start = b->open[--b->depth], body = b->len - start, n;
	uint8_t bytes[10];

	n = varint(bytes, body);
	upmc_pb_put(b, bytes, n); /* room for the length */
	if (b->failed)
		return;
	memmove(b->buf + start + n, b->buf + start, body);
	memcpy(b->buf + start, bytes, n);
}
