/* SPDX-License-Identifier: MIT */
/*
 * A small JSON writer for the benchmark's reports and the upmc command's:
 * it keeps track of the commas and indentation, escapes strings (as the
 * library's own writers do), and writes null for numbers that are not
 * finite. It needs nothing of the library.
 *
 *   struct json j;
 *   json_start(&j, stdout);
 *   json_object(&j, NULL);
 *   json_string(&j, "name", "cycles");
 *   json_end(&j);                 (closes the object)
 */
#ifndef UPMC_BENCH_JSON_H
#define UPMC_BENCH_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	int has_items[JSON_MAX_DEPTH]; /* the open container has an item: write a comma */
	char closer[JSON_MAX_DEPTH];   /* '}' or ']' for each open container */
	int one_line;                  /* the document on one line (JSON Lines) */
};

void json_start(struct json *j, FILE *out);
/* The same, written on one line ended by a newline: one document of a
 * stream that holds one per line. */
void json_start_line(struct json *j, FILE *out);

/* key is the member name inside an object, NULL inside an array or at the top. */
void json_object(struct json *j, const char *key);
void json_array(struct json *j, const char *key);
void json_end(struct json *j); /* closes the innermost object or array */

void json_string(struct json *j, const char *key, const char *value); /* NULL: null */
void json_int(struct json *j, const char *key, long long value);
void json_uint(struct json *j, const char *key, uint64_t value);
void json_double(struct json *j, const char *key, double value); /* not finite: null */
void json_bool(struct json *j, const char *key, int value);
void json_null(struct json *j, const char *key);

#endif /* UPMC_BENCH_JSON_H */
