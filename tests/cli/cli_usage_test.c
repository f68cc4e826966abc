/* SPDX-License-Identifier: MIT */
/* Bad command lines: the usage on stderr and exit status 2. */
#include <string.h>

#include "tests/cli/cli_run.h"
#include "tests/upmc_test.h"

static void expect_usage(struct cli_result *r, const char *message)
{
	EXPECT_EQ(r->status, 2);
	EXPECT_CONTAINS(r->err, message);
	EXPECT_CONTAINS(r->err, "usage: upmc <command> [options]");
	EXPECT(r->out && r->out[0] == '\0'); /* nothing on stdout */
}

TEST(cli_usage, no_command)
{
	struct cli_result r;
	const char *const none[] = {NULL};

	ASSERT(cli_run(&r, NULL, none) == 0);
	expect_usage(&r, "upmc: no command given");
	cli_result_free(&r);
}

TEST(cli_usage, unknown_command)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "frobnicate");
	expect_usage(&r, "unknown command 'frobnicate'");
	cli_result_free(&r);
}

TEST(cli_usage, unknown_options)
{
	static const char *const commands[] = {"info", "list", "stat"};
	struct cli_result r;
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		CLI_RUN(r, NULL, commands[i], "--bogus");
		expect_usage(&r, "unknown option '--bogus'");
		cli_result_free(&r);
	}
}

TEST(cli_usage, help_goes_to_stdout)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "--help");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "usage: upmc <command> [options]");
	EXPECT_CONTAINS(r.out, "stat [-e SPEC] [--json] [-o FILE] -- CMD [ARGS...]");
	cli_result_free(&r);
}

TEST(cli_usage, stat_needs_a_command_after_dashes)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat");
	expect_usage(&r, "stat: no command");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "true"); /* the command must follow "--" */
	expect_usage(&r, "unknown option 'true'");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "--");
	expect_usage(&r, "no command after '--'");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "-e");
	expect_usage(&r, "-e needs an event list");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "-o");
	expect_usage(&r, "-o needs a file name");
	cli_result_free(&r);
}

TEST(cli_usage, bench_options)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "bench", "--frob");
	EXPECT_EQ(r.status, 2);
	EXPECT_CONTAINS(r.err, "upmc bench: unknown option '--frob'");
	EXPECT_CONTAINS(r.err, "usage: upmc bench [--json | --csv] [--repeats N]");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "bench", "--repeats", "2");
	EXPECT_EQ(r.status, 2);
	EXPECT_CONTAINS(r.err, "bad repeat count '2'");
	cli_result_free(&r);
}
