/* SPDX-License-Identifier: MIT */
/* Protobuf, encoded into bytes in memory: varints, 64-bit doubles,
 * UTF-8 strings and nested messages (their length put in front once they
 * end). The Perfetto writer's encoder. */
#include <stdlib.h>
#include <string.h>

#include "perfetto_internal.h"

int upmc_pb_room(struct pb *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *bigger;

	if (b->len + n <= b->cap)
		return 0;
	while (cap < b->len + n)
		cap *= 2;
	bigger = realloc(b->buf, cap);
	if (!bigger) {
		b->failed = 1;
		return -1;
	}
	b->buf = bigger;
	b->cap = cap;
	return 0;
}

void upmc_pb_put(struct pb *b, const void *data, size_t n)
{
	if (upmc_pb_room(b, n) < 0)
		return;
	memcpy(b->buf + b->len, data, n);
	b->len += n;
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

/* One byte is kept for the length: most bodies are shorter than 128
 * bytes, and need no move at the end. */
void upmc_pb_begin(struct pb *b, unsigned field)
{
	upmc_pb_varint(b, (uint64_t)field << 3 | 2);
	if (upmc_pb_room(b, 1) == 0)
		b->len++;
	b->open[b->depth++] = b->len;
}

/* Puts the body's length in front of it. */
void upmc_pb_end(struct pb *b)
{
	size_t start = b->open[--b->depth], body = b->len - start, more;
	uint8_t bytes[10];

	if (b->failed)
		return;
	if (body < 0x80) { /* the byte kept holds it */
		b->buf[start - 1] = (uint8_t)body;
		return;
	}
	more = (size_t)(upmc_pb_varint_at(bytes, body) - bytes) - 1;
	if (upmc_pb_room(b, more) < 0)
		return;
	memmove(b->buf + start + more, b->buf + start, body);
	memcpy(b->buf + start - 1, bytes, more + 1);
	b->len += more;
}
