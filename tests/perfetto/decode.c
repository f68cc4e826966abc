/* SPDX-License-Identifier: MIT */
/* A profile's Perfetto trace decoded by protoc (tests/perfetto/decode.h). */
#define _GNU_SOURCE
#include "tests/perfetto/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROTO_DIR "tests/perfetto"

void pb_free(struct pb_node *n)
{
	size_t i;

	for (i = 0; n && i < n->n; i++)
		pb_free(n->kid[i]);
	if (n) {
		free(n->kid);
		free(n->value);
		free(n);
	}
}

static struct pb_node *add_kid(struct pb_node *parent, const char *key, size_t len)
{
	struct pb_node *n = calloc(1, sizeof(*n));

	if (parent->n == parent->cap) {
		parent->cap = parent->cap ? 2 * parent->cap : 8;
		parent->kid = realloc(parent->kid, parent->cap * sizeof(*parent->kid));
	}
	parent->kid[parent->n++] = n;
	snprintf(n->key, sizeof(n->key), "%.*s", (int)len, key);
	return n;
}

/* A text-format scalar: a quoted string (C escapes), or the word as printed. */
static char *scalar(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	if (*s != '"') {
		strcpy(out, s);
		return out;
	}
	for (s++; *s && *s != '"'; s++) {
		if (*s != '\\') {
			*o++ = *s;
		} else if (s[1] >= '0' && s[1] <= '7') {
			*o++ = (char)strtol((char[4]){s[1], s[2], s[3], 0}, NULL, 8);
			s += 3;
		} else {
			s++;
			*o++ = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
		}
	}
	*o = '\0';
	return out;
}

static struct pb_node *parse_text(char *text, int *unknown)
{
	struct pb_node *root = calloc(1, sizeof(*root)), *stack[16];
	char *line, *save = NULL;
	int depth = 0;

	stack[0] = root;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len;
		char *colon;
		while (*line == ' ')
			line++;
		len = strlen(line);
		if (!strcmp(line, "}")) {
			if (depth)
				depth--;
			continue;
		}
		/* protoc prints fields the .proto lacks by number */
		if (*line >= '0' && *line <= '9')
			(*unknown)++;
		if (len > 2 && !strcmp(line + len - 2, " {") && depth < 15) {
			struct pb_node *n = add_kid(stack[depth], line, len - 2);
			stack[++depth] = n;
		} else if ((colon = strstr(line, ": "))) {
			struct pb_node *n = add_kid(stack[depth], line, (size_t)(colon - line));
			n->value = scalar(colon + 2);
		}
	}
	return root;
}

const struct pb_node *pb_get(const struct pb_node *n, const char *key)
{
	size_t i;

	for (i = 0; n && i < n->n; i++)
		if (!strcmp(n->kid[i]->key, key))
			return n->kid[i];
	return NULL;
}

unsigned long long pb_num(const struct pb_node *n, const char *key)
{
	const struct pb_node *k = pb_get(n, key);

	return k && k->value ? strtoull(k->value, NULL, 10) : ~0ull;
}

const char *pb_str(const struct pb_node *n, const char *key)
{
	const struct pb_node *k = pb_get(n, key);

	return k && k->value ? k->value : "";
}

/* Writes the profile as a .pftrace and decodes it with protoc; NULL (and
 * why) when protoc cannot. */
void pb_trace_path(char *path, size_t size)
{
	snprintf(path, size, "%s/zones.%d.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", (int)getpid());
}

struct pb_node *pb_decode_file(const char *path, int *unknown, char *why, size_t size)
{
	char cmd[768], *text = NULL;
	size_t len = 0, got;
	struct pb_node *tree;
	FILE *f;
	int status;

	snprintf(cmd, sizeof(cmd),
	         "protoc --decode=perfetto.protos.Trace --proto_path=" PROTO_DIR " " PROTO_DIR
	         "/trace_subset.proto < %s 2>&1",
	         path);
	f = popen(cmd, "r");
	text = malloc(1 << 20);
	while (f && text && (got = fread(text + len, 1, (1 << 20) - 1 - len, f)) > 0)
		len += got;
	status = f ? pclose(f) : -1;
	unlink(path);
	if (!text || status != 0) {
		snprintf(why, size, "protoc failed (status %d): %.300s", status, text ? text : "");
		free(text);
		return NULL;
	}
	text[len] = '\0';
	*unknown = 0;
	tree = parse_text(text, unknown);
	free(text);
	return tree;
}

int pb_have_protoc(void)
{
	return system("protoc --version >/dev/null 2>&1") == 0;
}
