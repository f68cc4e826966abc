/* SPDX-License-Identifier: MIT */
/*
 * The JSON parser the CLI tests check --json output with: it must accept
 * what JSON allows and refuse the rest, or the checks built on it could
 * not fail.
 */
#include <math.h>
#include <string.h>

#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

static int parses(const char *text)
{
	char err[128];
	struct jdoc *d = jdoc_parse(text, err, sizeof(err));

	jdoc_free(d);
	return d != NULL;
}

TEST(cli_json, accepts_valid_documents)
{
	char err[128];
	struct jdoc *d = jdoc_parse(
	        " {\"a\": [1, -2.5e3, true, false, null], \"b\": {\"c\": \"x\\\"\\u00e9\\n\"}} ",
	        err, sizeof(err));

	ASSERT_MSG(d, "%s", err);
	EXPECT_EQ(jdoc_get(d, "a")->n, 5);
	EXPECT(isnan(jdoc_number(d, "missing", NAN)));
	EXPECT(jdoc_number(jdoc_get(d, "b"), "c", -1) == -1); /* a string, not a number */
	EXPECT(jdoc_at(jdoc_get(d, "a"), 0)->number == 1);
	EXPECT(jdoc_at(jdoc_get(d, "a"), 1)->number == -2500);
	EXPECT(jdoc_at(jdoc_get(d, "a"), 2)->boolean == 1);
	EXPECT(jdoc_at(jdoc_get(d, "a"), 4)->type == JDOC_NULL);
	EXPECT(!strcmp(jdoc_string(jdoc_get(d, "b"), "c"), "x\"\xc3\xa9\n"));
	EXPECT(jdoc_get(d, "nope") == NULL);
	EXPECT(jdoc_at(jdoc_get(d, "a"), 5) == NULL);
	jdoc_free(d);
	EXPECT(parses("[]"));
	EXPECT(parses("{}"));
	EXPECT(parses("0"));
	EXPECT(parses("\"\""));
	EXPECT(parses("\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"")); /* UTF-8 */
}

/* JSON text is UTF-8: bytes that are not well-formed UTF-8 are refused. */
TEST(cli_json, refuses_what_is_not_utf8)
{
	static const char *const bad[] = {
	        "\"caf\xe9\"",          /* Latin-1 */
	        "\"\xc3\"",             /* cut short */
	        "\"\xc3(\"",            /* not a continuation byte */
	        "\"\xc0\xaf\"",         /* overlong '/' */
	        "\"\xe0\x80\xaf\"",     /* overlong, 3 bytes */
	        "\"\xed\xa0\x80\"",     /* a surrogate */
	        "\"\xf4\x90\x80\x80\"", /* above U+10FFFF */
	        "\"\xff\"",             /* never in UTF-8 */
	        "\"\x80\"",             /* a lone continuation byte */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_MSG(!parses(bad[i]), "accepted byte string %zu", i);
}

TEST(cli_json, refuses_invalid_documents)
{
	static const char *const bad[] = {
	        "",          "{",     "[1,]",        "{\"a\":1,}", "{a:1}",    "[1 2]",
	        "01",        "1.",    "-",           ".5",         "1e",       "tru",
	        "nul",       "\"abc", "\"a\\x\"",    "\"a\tb\"",   "{} {}",    "[1] x",
	        "{\"a\" 1}", "NaN",   "[\"\\u12\"]", "{\"a\":}",   "'single'",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_MSG(!parses(bad[i]), "accepted: %s", bad[i]);
}

TEST(cli_json, says_where_it_failed)
{
	char err[128] = "";

	EXPECT(jdoc_parse("[1, 2,, 3]", err, sizeof(err)) == NULL);
	EXPECT_CONTAINS(err, "offset 6");
}
