/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "bench/json.h"

/* Bytes of the well-formed UTF-8 sequence at p (RFC 3629); 0 when none
 * starts there. The lead byte bounds the second: no overlong form, no
 * surrogate (U+D800..DFFF), nothing above U+10FFFF. */
static size_t utf8_length(const unsigned char *p)
{
	unsigned char low = 0x80, high = 0xbf;
	size_t n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		low = 0xa0;
	else if (p[0] == 0xed)
		high = 0x9f;
	else if (p[0] == 0xf0)
		low = 0x90;
	else if (p[0] == 0xf4)
		high = 0x8f;
	if (p[1] < low || p[1] > high) /* a NUL ends it here too */
		return 0;
	for (i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static const char *short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	default:
		return NULL;
	}
}

/* s quoted. JSON text is UTF-8: a byte of no well-formed sequence (Latin-1
 * text, say) is written as the code point of its number, \u00XX, which keeps
 * the document valid and Latin-1 readable. */
static void write_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	while (*p) {
		size_t n = utf8_length(p);
		const char *escape = short_escape(*p);

		if (escape)
			fputs(escape, out);
		else if (*p < 0x20 || !n)
			fprintf(out, "\\u%04x", *p);
		else
			fwrite(p, 1, n, out);
		p += n ? n : 1;
	}
	fputc('"', out);
}

void json_start(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = 0;
	j->one_line = 0;
}

void json_start_line(struct json *j, FILE *out)
{
	json_start(j, out);
	j->one_line = 1;
}

static void indent(struct json *j)
{
	int i;

	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* The comma, newline and indentation before an item, and its key. */
static void item(struct json *j, const char *key)
{
	if (j->depth > 0 && j->one_line) {
		fputs(j->has_items[j->depth] ? ", " : "", j->out);
	} else if (j->depth > 0) {
		fputs(j->has_items[j->depth] ? ",\n" : "\n", j->out);
		indent(j);
	}
	j->has_items[j->depth] = 1;
	if (key) {
		write_string(j->out, key);
		fputs(": ", j->out);
	}
}

static void open_container(struct json *j, const char *key, char open, char close)
{
	item(j, key);
	fputc(open, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = 0;
	j->closer[j->depth] = close;
}

void json_object(struct json *j, const char *key)
{
	open_container(j, key, '{', '}');
}

void json_array(struct json *j, const char *key)
{
	open_container(j, key, '[', ']');
}

void json_end(struct json *j)
{
	char close = j->closer[j->depth];
	int had = j->has_items[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had && !j->one_line) {
		fputc('\n', j->out);
		indent(j);
	}
	fputc(close, j->out);
	if (!j->depth)
		fputc('\n', j->out);
}

void json_string(struct json *j, const char *key, const char *value)
{
	item(j, key);
	if (value)
		write_string(j->out, value);
	else
		fputs("null", j->out);
}

void json_int(struct json *j, const char *key, long long value)
{
	item(j, key);
	fprintf(j->out, "%lld", value);
}

void json_uint(struct json *j, const char *key, uint64_t value)
{
	item(j, key);
	fprintf(j->out, "%llu", (unsigned long long)value);
}

void json_double(struct json *j, const char *key, double value)
{
	item(j, key);
	if (isfinite(value))
		fprintf(j->out, "%.10g", value);
	else
		fputs("null", j->out);
}

void json_bool(struct json *j, const char *key, int value)
{
	item(j, key);
	fputs(value ? "true" : "false", j->out);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->out);
}
