/* SPDX-License-Identifier: MIT */
/*
 * A profile's Perfetto trace read back by protoc: `protoc --decode` against
 * the subset of Perfetto's messages kept in tests/perfetto/, as a tree of
 * protoc's text format ("key: value" leaves and "key { ... }" nodes).
 */
#ifndef UPMC_TESTS_PERFETTO_DECODE_H
#define UPMC_TESTS_PERFETTO_DECODE_H

#include <stddef.h>

struct pb_node {
	char key[64];
	char *value; /* NULL for a message; strings unquoted */
	struct pb_node **kid;
	size_t n, cap;
};

/* A path for a trace in the test's temporary directory. */
void pb_trace_path(char *path, size_t size);

/* Decodes the .pftrace at path with protoc, then removes it; NULL (and
 * why) when protoc cannot. *unknown counts fields the .proto lacks. */
struct pb_node *pb_decode_file(const char *path, int *unknown, char *why, size_t size);
void pb_free(struct pb_node *n);
int pb_have_protoc(void);

/* The first child named key; its number (~0 when none); its string ("" when none). */
const struct pb_node *pb_get(const struct pb_node *n, const char *key);
unsigned long long pb_num(const struct pb_node *n, const char *key);
const char *pb_str(const struct pb_node *n, const char *key);

#endif
