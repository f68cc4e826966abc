/* SPDX-License-Identifier: MIT */
/* Bad command lines: the usage on stderr and exit status 2. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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
	static const char *const commands[] = {"info", "list"};
	struct cli_result r;
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		CLI_RUN(r, NULL, commands[i], "--bogus");
		expect_usage(&r, "unknown option '--bogus'");
		cli_result_free(&r);
	}
}

/* stat's own usage, after "upmc: stat: <what is wrong>". */
static void expect_stat_usage(struct cli_result *r, const char *message)
{
	EXPECT_EQ(r->status, 2);
	EXPECT_CONTAINS(r->err, "upmc: stat: ");
	EXPECT_CONTAINS(r->err, message);
	EXPECT_CONTAINS(r->err, "usage: upmc stat [options] [--] CMD [ARGS...]");
	EXPECT(r->out && r->out[0] == '\0');
}

TEST(cli_usage, help_goes_to_stdout)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "--help");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "usage: upmc <command> [options]");
	EXPECT_CONTAINS(r.out, "stat [-e SPEC] [-r N] [-I MS] [-x SEP | --json] [-o FILE] [--] CMD "
	                       "[ARGS...]");
	EXPECT_CONTAINS(r.out, "stat [options] -p PIDS | -t TIDS | -a | -C CPUS [CMD [ARGS...]]");
	cli_result_free(&r);
}

/* `upmc stat --help`, as perf stat -h: the options on stdout, status 0. */
TEST(cli_usage, stat_help)
{
	static const char *const options[] = {
	        "-e, --event SPEC",
	        "-r, --repeat N",
	        "--rotate",
	        "-I, --interval-print MS",
	        "-x, --field-separator SEP",
	        "-j, --json",
	        "-o, --output FILE",
	        "-p, --pid PIDS",
	        "-t, --tid TIDS",
	        "--per-thread",
	        "-a, --all-cpus",
	        "-C, --cpu CPUS",
	        "-h, --help",
	};
	static const char *const asks[] = {"--help", "-h"};
	struct cli_result r;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		CLI_RUN(r, NULL, "stat", asks[k]);
		EXPECT_EQ(r.status, 0);
		EXPECT_CONTAINS(r.out, "usage: upmc stat [options] [--] CMD [ARGS...]");
		for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
			EXPECT_CONTAINS(r.out, options[i]);
		EXPECT(!strcmp(r.err, ""));
		cli_result_free(&r);
	}
}

/* What cannot be counted, or not together: said before anything runs. */
TEST(cli_usage, stat_options)
{
	static const struct {
		const char *args[8], *message;
	} cases[] = {
	        {{"stat"},
	         "no command: give one (upmc stat ls), or what to count: -p, -t, -a or -C"},
	        {{"stat", "-e", "task-clock", "--"}, "no command after '--'"},
	        {{"stat", "-e"}, "-e needs an event list"},
	        {{"stat", "-M"}, "-M needs a list of metrics"},
	        {{"stat", "-M", "IPC,cycles", "true"},
	         "-M takes metrics and groups of them (`upmc list --metrics`): 'cycles' is not "
	         "one; "
	         "events go with -e"},
	        {{"stat", "-o"}, "-o needs a file name"},
	        {{"stat", "--repeat"}, "-r needs a number of runs"},
	        {{"stat", "--bogus", "true"}, "unknown option '--bogus'"},
	        {{"stat", "-z", "true"}, "unknown option '-z'"},
	        {{"stat", "-r", "0", "true"},
	         "-r needs a number of runs from 1 to 100000, not '0'"},
	        {{"stat", "-r", "3x", "true"}, "not '3x'"},
	        {{"stat", "-I", "-5", "true"}, "-I needs a number of milliseconds from 1 to"},
	        {{"stat", "-x", "", "true"}, "-x needs a separator that is not empty"},
	        {{"stat", "-x", ",", "--json", "true"}, "-x (CSV) and --json are two formats"},
	        {{"stat", "--per-thread", "true"}, "--per-thread needs -p or -t"},
	        {{"stat", "-r", "3", "-p", "1"},
	         "-r repeats a command: give one, without -p or -t"},
	        {{"stat", "-r", "2", "-I", "100", "true"}, "-r and -I do not go together"},
	        {{"stat", "--rotate", "true"},
	         "--rotate counts one pass per run: give the runs with -r N"},
	        {{"stat", "--rotate", "-r", "1", "-I", "100", "true"},
	         "--rotate and -I do not go together: a pass lasts a whole run"},
	        {{"stat", "--rotate", "-r", "1", "-p", "1"},
	         "--rotate runs a command once per pass: give one, without -p or -t"},
	        {{"stat", "-p", "1", "-a"}, "-p, -t and -a/-C each say what to count: give one"},
	        {{"stat", "-p", "12,x"}, "'12,x' is not a list of process ids, e.g. 1234,1240"},
	        {{"stat", "-t", "0"}, "'0' is not a list of thread ids"},
	        {{"stat", "-C", "3-1"}, "'3-1' is not a list of CPU numbers, e.g. 0-3,6"},
	};
	char marker[512], script[600];
	struct cli_result r;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT(cli_run(&r, NULL, cases[i].args) == 0);
		expect_stat_usage(&r, cases[i].message);
		cli_result_free(&r);
	}
	/* nothing ran */
	cli_temp_name(marker, sizeof(marker), "ran");
	snprintf(script, sizeof(script), "touch %s", marker);
	CLI_RUN(r, NULL, "stat", "-r", "2", "-I", "100", "sh", "-c", script);
	expect_stat_usage(&r, "-r and -I do not go together");
	EXPECT(access(marker, F_OK) != 0);
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
