/* SPDX-License-Identifier: MIT */
/*
 * The JSON writer of the benchmark and the upmc command (bench/json.c)
 * escapes strings on its own, without the library: it must write every
 * string as the library's writers do (upmc_json_string), well-formed
 * UTF-8 as it is and any other byte as \u00XX.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/json.h"
#include "os/linux/upmc_linux.h" /* upmc_json_string(), of lib's internal header */
#include "tests/upmc_test.h"

/* What the writer makes of s as a top-level string; to be freed. */
static char *written(const char *s)
{
	struct json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	json_start(&j, f);
	json_string(&j, NULL, s);
	fclose(f);
	return text;
}

TEST(bench_json, escapes_as_json_allows)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	        {"cycles", "\"cycles\""},
	        {"a\"b\\c", "\"a\\\"b\\\\c\""},
	        {"line\nnext\ttab\r\x01\x1f", "\"line\\nnext\\ttab\\u000d\\u0001\\u001f\""},
	        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	         "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
	        {"Latin-1 caf\xe9", "\"Latin-1 caf\\u00e9\""},
	        {"overlong \xc0\xaf \xe0\x80\xaf",
	         "\"overlong \\u00c0\\u00af \\u00e0\\u0080\\u00af\""},
	        {"surrogate \xed\xa0\x80", "\"surrogate \\u00ed\\u00a0\\u0080\""},
	        {"too high \xf4\x90\x80\x80", "\"too high \\u00f4\\u0090\\u0080\\u0080\""},
	        {"cut \xe2\x82", "\"cut \\u00e2\\u0082\""},
	        {"", "\"\""},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = written(cases[i].in);
		ASSERT(text);
		EXPECT_MSG(!strcmp(text, cases[i].out), "case %zu: %s", i, text);
		free(text);
	}
}

/* Every lead byte with every second byte, and third and fourth bytes at
 * the edges of the continuation range and outside it. */
TEST(bench_json, writes_strings_as_the_library_does)
{
	static const unsigned char third[] = {0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 'A', 0};
	static const unsigned char fourth[] = {0x80, 0xbf, 'A', 0};
	unsigned lead, second;
	size_t a, b;

	for (lead = 1; lead < 256; lead++) {
		char *ours = NULL, *library = NULL;
		size_t ours_len = 0, library_len = 0;
		FILE *f = open_memstream(&ours, &ours_len);
		FILE *g = open_memstream(&library, &library_len);
		struct json j;

		ASSERT(f && g);
		json_start(&j, f);
		for (second = 0; second < 256; second++)
			for (a = 0; a < sizeof(third); a++)
				for (b = 0; b < sizeof(fourth); b++) {
					const char s[] = {
					        (char)lead,      (char)second, (char)third[a],
					        (char)fourth[b], 'x',          0};
					json_string(&j, NULL, s);
					fputc('\n', f);
					upmc_json_string(g, s);
					fputc('\n', g);
				}
		fclose(f);
		fclose(g);
		EXPECT_MSG(ours_len == library_len && !memcmp(ours, library, ours_len),
		           "lead byte 0x%02x written differently", lead);
		free(ours);
		free(library);
	}
}

/* json_start_line(): the same document on one line, ended by a newline,
 * for streams of one document per line (`upmc stat -I --json`). */
TEST(bench_json, one_document_per_line)
{
	struct json j;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ASSERT(f);
	json_start_line(&j, f);
	json_object(&j, NULL);
	json_double(&j, "interval", 0.5);
	json_array(&j, "counters");
	json_object(&j, NULL);
	json_string(&j, "name", "line\nbreak");
	json_null(&j, "value");
	json_end(&j);
	json_array(&j, NULL); /* empty */
	json_end(&j);
	json_end(&j);
	json_end(&j);
	json_start(&j, f); /* and back to the indented form */
	json_array(&j, NULL);
	json_int(&j, NULL, 1);
	json_end(&j);
	fclose(f);
	EXPECT_MSG(!strcmp(text, "{\"interval\": 0.5, \"counters\": [{\"name\": \"line\\nbreak\", "
	                         "\"value\": null}, []]}\n[\n  1\n]\n"),
	           "%s", text);
	free(text);
}
