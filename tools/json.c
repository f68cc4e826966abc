/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "lib/core/internal.h"
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

/* The comma, newline and indentation before an item, and its key. */
static void item(struct json *j, const char *key)
{
	if (j->depth > 0) {
		fputs(j->has_items[j->depth] ? ",\n" : "\n", j->out);
		indent(j);
	}
	j->has_items[j->depth] = 1;
	if (key) {
		upmc_json_string(j->out, key);
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
		upmc_json_string(j->out, value);
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
