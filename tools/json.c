/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "tools/json.h"

void json_start(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->has_items[0] = 0;
}

static void indent(struct json *j)
{
	int i;

	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Bytes of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * form, no surrogate, at most U+10FFFF); 0 when none starts there. */
static size_t utf8_length(const unsigned char *p)
{
	size_t n, i;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1fu;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3, cp = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* a NUL ends it here too */
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * JSON text is UTF-8 (RFC 8259). A byte that does not belong to a
 * well-formed sequence (a file name in Latin-1, say) is written as the code
 * point of the same number, \u00XX: the document stays valid, and Latin-1
 * text reads as meant.
 */
static void write_escaped(FILE *out, const char *s)
{
	const unsigned char *p;
	size_t n;

	fputc('"', out);
	for (p = (const unsigned char *)s; *p; p += n ? n : 1) {
		n = utf8_length(p);
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p < 0x20 || !n)
			fprintf(out, "\\u%04x", *p);
		else
			fwrite(p, 1, n, out);
	}
	fputc('"', out);
}

/* The comma, newline and indentation before an item, and its key. */
static void item(struct json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->has_items[j->depth] ? ",\n" : "\n", j->out);
		indent(j);
	}
	j->has_items[j->depth] = 1;
	if (key) {
		write_escaped(j->out, key);
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
	if (had) {
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
		write_escaped(j->out, value);
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
