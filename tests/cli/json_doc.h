/* SPDX-License-Identifier: MIT */
/*
 * A strict JSON parser for the tests: the whole text must be one valid
 * JSON value (RFC 8259), or parsing fails and says where. Enough to check
 * the CLI's --json output field by field.
 */
#ifndef UPMC_TESTS_JSON_DOC_H
#define UPMC_TESTS_JSON_DOC_H

#include <stddef.h>

enum jdoc_type { JDOC_NULL, JDOC_BOOL, JDOC_NUMBER, JDOC_STRING, JDOC_ARRAY, JDOC_OBJECT };

struct jdoc {
	enum jdoc_type type;
	int boolean;
	double number;
	char *string;
	size_t n;            /* items of an array or members of an object */
	struct jdoc **items; /* values */
	char **keys;         /* object member names, parallel to items */
};

/* NULL on failure, with the reason and the offset in err. */
struct jdoc *jdoc_parse(const char *text, char *err, size_t err_size);
void jdoc_free(struct jdoc *doc);

/* A member of an object; NULL when doc is not an object or lacks it. */
const struct jdoc *jdoc_get(const struct jdoc *doc, const char *key);
/* Item i of an array; NULL when out of range or not an array. */
const struct jdoc *jdoc_at(const struct jdoc *doc, size_t i);

/* Typed member access: the string, or NULL when absent or not a string. */
const char *jdoc_string(const struct jdoc *doc, const char *key);
/* The number, or `fallback` when absent or not a number. */
double jdoc_number(const struct jdoc *doc, const char *key, double fallback);
/* Whether the member exists and is null. */
int jdoc_is_null(const struct jdoc *doc, const char *key);

#endif /* UPMC_TESTS_JSON_DOC_H */
