/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cli/json_doc.h"

#define MAX_DEPTH 64

struct parser {
	const char *text, *p;
	char *err;
	size_t err_size;
	int failed;
};

static struct jdoc *fail(struct parser *ps, const char *what)
{
	if (!ps->failed)
		snprintf(ps->err, ps->err_size, "%s at offset %ld", what, (long)(ps->p - ps->text));
	ps->failed = 1;
	return NULL;
}

static void skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static struct jdoc *node(enum jdoc_type type)
{
	struct jdoc *d = calloc(1, sizeof(*d));

	if (d)
		d->type = type;
	return d;
}

static struct jdoc *value(struct parser *ps, int depth);

/* Appends one UTF-8 encoded code point (BMP only: enough for the CLI). */
static size_t put_utf8(char *out, unsigned cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	out[0] = (char)(0xe0 | cp >> 12);
	out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[2] = (char)(0x80 | (cp & 0x3f));
	return 3;
}

static int escape(struct parser *ps, char *out, size_t *len)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *hit = *ps->p ? strchr(from, *ps->p) : NULL;
	unsigned cp = 0;
	int i;

	if (hit) {
		out[(*len)++] = to[hit - from];
		ps->p++;
		return 0;
	}
	if (*ps->p != 'u')
		return -1;
	for (i = 1; i <= 4; i++) {
		if (!isxdigit((unsigned char)ps->p[i]))
			return -1;
		cp = cp * 16 + (unsigned)(isdigit((unsigned char)ps->p[i])
		                                  ? ps->p[i] - '0'
		                                  : tolower((unsigned char)ps->p[i]) - 'a' + 10);
	}
	ps->p += 5;
	*len += put_utf8(out + *len, cp);
	return 0;
}

/* The length of the UTF-8 sequence at p, decoded the long way round: its
 * code point must need exactly that many bytes, be no surrogate and at most
 * U+10FFFF (RFC 3629). 0 when it is not well formed. */
static size_t utf8_sequence(const unsigned char *p)
{
	static const unsigned long least[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0, i;
	unsigned long cp;

	if (!n || p[0] >= 0xf8)
		return 0;
	cp = p[0] & (0x7fu >> n);
	for (i = 1; i < n; i++) {
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	return cp >= least[n] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) ? n : 0;
}

/* A string at ps->p (on its opening quote), decoded. */
static char *string(struct parser *ps)
{
	char *out = malloc(strlen(ps->p) + 1);
	size_t len = 0;

	if (!out) {
		fail(ps, "out of memory");
		return NULL;
	}
	for (ps->p++; *ps->p != '"';) {
		unsigned char c = (unsigned char)*ps->p++;
		const char *bad = NULL;
		if (!c) {
			ps->p--; /* stay on the terminating NUL */
			bad = "unterminated string";
		} else if (c < 0x20) {
			bad = "control character in a string";
		} else if (c >= 0x80) {
			size_t n = utf8_sequence((const unsigned char *)ps->p - 1);
			if (!n) {
				bad = "invalid UTF-8 in a string";
			} else {
				memcpy(out + len, ps->p - 1, n);
				len += n;
				ps->p += n - 1;
			}
		} else if (c != '\\') {
			out[len++] = (char)c;
		} else if (escape(ps, out, &len) < 0) {
			bad = "bad escape in a string";
		}
		if (bad) {
			free(out);
			fail(ps, bad);
			return NULL;
		}
	}
	ps->p++;
	out[len] = '\0';
	return out;
}

/* The JSON number grammar, strictly: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static struct jdoc *number(struct parser *ps)
{
	const char *s = ps->p;
	struct jdoc *d;

	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (isdigit((unsigned char)*s))
		while (isdigit((unsigned char)*s))
			s++;
	else
		return fail(ps, "bad number");
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return fail(ps, "bad fraction");
		while (isdigit((unsigned char)*s))
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!isdigit((unsigned char)*s))
			return fail(ps, "bad exponent");
		while (isdigit((unsigned char)*s))
			s++;
	}
	d = node(JDOC_NUMBER);
	if (!d)
		return fail(ps, "out of memory");
	d->number = strtod(ps->p, NULL);
	ps->p = s;
	return d;
}

static int append(struct jdoc *d, struct jdoc *item, char *key)
{
	struct jdoc **items = realloc(d->items, (d->n + 1) * sizeof(*items));
	char **keys;

	if (!items)
		return -1;
	d->items = items;
	keys = realloc(d->keys, (d->n + 1) * sizeof(*keys));
	if (!keys)
		return -1;
	d->keys = keys;
	d->items[d->n] = item;
	d->keys[d->n] = key;
	d->n++;
	return 0;
}

/* An array or object at ps->p (on its bracket). */
static struct jdoc *container(struct parser *ps, int depth, int is_object)
{
	struct jdoc *d = node(is_object ? JDOC_OBJECT : JDOC_ARRAY), *item;
	const char close = is_object ? '}' : ']';
	char *key = NULL;

	if (!d)
		return fail(ps, "out of memory");
	ps->p++;
	skip_space(ps);
	if (*ps->p == close) {
		ps->p++;
		return d;
	}
	for (;;) {
		skip_space(ps);
		if (is_object) {
			if (*ps->p != '"' || !(key = string(ps)))
				goto bad;
			skip_space(ps);
			if (*ps->p++ != ':')
				goto bad;
		}
		item = value(ps, depth + 1);
		if (!item || append(d, item, key) < 0) {
			jdoc_free(item);
			goto bad;
		}
		key = NULL;
		skip_space(ps);
		if (*ps->p == close) {
			ps->p++;
			return d;
		}
		if (*ps->p++ != ',')
			goto bad;
	}
bad:
	free(key);
	jdoc_free(d);
	return fail(ps, is_object ? "bad object" : "bad array");
}

static struct jdoc *literal(struct parser *ps, const char *word, enum jdoc_type type, int b)
{
	struct jdoc *d;

	if (strncmp(ps->p, word, strlen(word)))
		return fail(ps, "unexpected character");
	ps->p += strlen(word);
	d = node(type);
	if (!d)
		return fail(ps, "out of memory");
	d->boolean = b;
	return d;
}

static struct jdoc *value(struct parser *ps, int depth)
{
	struct jdoc *d;

	if (depth > MAX_DEPTH)
		return fail(ps, "nested too deep");
	skip_space(ps);
	switch (*ps->p) {
	case '{':
		return container(ps, depth, 1);
	case '[':
		return container(ps, depth, 0);
	case '"':
		d = node(JDOC_STRING);
		if (d && !(d->string = string(ps))) {
			free(d);
			d = NULL;
		}
		return d ? d : fail(ps, "bad string");
	case 't':
		return literal(ps, "true", JDOC_BOOL, 1);
	case 'f':
		return literal(ps, "false", JDOC_BOOL, 0);
	case 'n':
		return literal(ps, "null", JDOC_NULL, 0);
	default:
		return number(ps);
	}
}

struct jdoc *jdoc_parse(const char *text, char *err, size_t err_size)
{
	struct parser ps = {text, text, err, err_size, 0};
	struct jdoc *d;

	if (!text) {
		snprintf(err, err_size, "no text");
		return NULL;
	}
	d = value(&ps, 0);
	if (!d)
		return NULL;
	skip_space(&ps);
	if (*ps.p) {
		jdoc_free(d);
		return fail(&ps, "text after the value");
	}
	return d;
}

void jdoc_free(struct jdoc *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->n; i++) {
		jdoc_free(d->items[i]);
		if (d->keys)
			free(d->keys[i]);
	}
	free(d->items);
	free(d->keys);
	free(d->string);
	free(d);
}

const struct jdoc *jdoc_get(const struct jdoc *d, const char *key)
{
	size_t i;

	if (!d || d->type != JDOC_OBJECT)
		return NULL;
	for (i = 0; i < d->n; i++)
		if (!strcmp(d->keys[i], key))
			return d->items[i];
	return NULL;
}

const struct jdoc *jdoc_at(const struct jdoc *d, size_t i)
{
	return d && d->type == JDOC_ARRAY && i < d->n ? d->items[i] : NULL;
}

const char *jdoc_string(const struct jdoc *d, const char *key)
{
	const struct jdoc *v = jdoc_get(d, key);

	return v && v->type == JDOC_STRING ? v->string : NULL;
}

double jdoc_number(const struct jdoc *d, const char *key, double fallback)
{
	const struct jdoc *v = jdoc_get(d, key);

	return v && v->type == JDOC_NUMBER ? v->number : fallback;
}

int jdoc_is_null(const struct jdoc *d, const char *key)
{
	const struct jdoc *v = jdoc_get(d, key);

	return v && v->type == JDOC_NULL;
}
