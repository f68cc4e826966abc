/* SPDX-License-Identifier: MIT */
/*
 * The demo (bazel run //examples:demo), run as a program: its first output
 * shows numbers on any machine. Only columns with values (no "n/a"), full
 * event names, thousands separators, what could not be counted said once,
 * the read path once, and page faults where memory is first touched.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/upmc_test.h"

static const char *const hardware[] = {"cycles",        "instructions",     "branches",
                                       "branch-misses", "cache-references", "cache-misses"};

/* Everything the demo prints, and its exit status. */
static char *run_demo(int *status)
{
	FILE *p = popen("examples/demo 2>&1", "r");
	size_t len = 0, cap = 1 << 16;
	char *out = malloc(cap);
	size_t got;

	if (!p || !out) {
		free(out);
		return NULL;
	}
	while ((got = fread(out + len, 1, cap - len - 1, p)) > 0)
		len += got;
	out[len] = '\0';
	*status = pclose(p);
	return out;
}

static unsigned occurrences(const char *text, const char *what)
{
	unsigned n = 0;

	for (; (text = strstr(text, what)); text += strlen(what))
		n++;
	return n;
}

/* The line that begins with what, or NULL. */
static const char *line_starting(const char *text, const char *what)
{
	for (; text; text = strchr(text, '\n'), text = text ? text + 1 : NULL)
		if (!strncmp(text, what, strlen(what)))
			return text;
	return NULL;
}

/* Whether name is a whole column header in a table's header line. */
static int in_a_header(const char *out, const char *name)
{
	const char *line;

	for (line = strstr(out, "time ns"); line; line = strstr(line + 1, "time ns")) {
		const char *end = strchr(line, '\n'), *hit = strstr(line, name);
		if (hit && (!end || hit < end) &&
		    (hit[strlen(name)] == ' ' || hit[strlen(name)] == '\n'))
			return 1;
	}
	return 0;
}

TEST(demo, first_output_shows_numbers)
{
	int status = -1;
	char *out = run_demo(&status);
	const char *not_counted, *row, *touch;
	unsigned i;

	if (!out) { /* spelt out: gcc's format check then knows out is set below */
		EXPECT_MSG(0, "examples/demo did not run");
		return;
	}
	EXPECT_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d:\n%s", status, out);
	EXPECT_MSG(!strstr(out, "n/a"), "a column without values:\n%s", out);
	EXPECT_EQ(occurrences(out, "Read path:"), 1);
	EXPECT_EQ(occurrences(out, "read path"), 0);
	/* every hardware event: a column of its own, or said not counted once */
	not_counted = line_starting(out, "Not counted here: ");
	for (i = 0; i < sizeof(hardware) / sizeof(hardware[0]); i++) {
		int listed = not_counted && strstr(not_counted, hardware[i]) &&
		             strstr(not_counted, hardware[i]) < strchr(not_counted, '\n');
		EXPECT_MSG(listed != in_a_header(out, hardware[i]), "%s: %s", hardware[i],
		           listed ? "listed as not counted and a column" : "nowhere");
	}
	EXPECT_EQ(occurrences(out, "Not counted here: "), not_counted ? 1 : 0);
	/* thousands separators: the 4 MiB sum takes more than 1,000 ns */
	row = line_starting(out, "  random ");
	ASSERT_MSG(row != NULL, "%s", out);
	EXPECT_MSG(strchr(row, ',') && strchr(row, ',') < strchr(row, '\n'), "%.80s", row);
	/* page faults where the 64 MiB are first touched */
	touch = strstr(out, "first touch of its pages: ");
	ASSERT_MSG(touch != NULL, "%s", out);
	touch += strlen("first touch of its pages: ");
	if (strstr(touch, "page faults") < strchr(touch, '\n'))
		EXPECT_MSG(touch[0] >= '1' && touch[0] <= '9', "%.80s", touch);
	free(out);
}
