/* SPDX-License-Identifier: MIT */
/*
 * upmc: what this machine allows (info), the events upmc knows (list),
 * counts for a command (stat), the cost of every way to read time and
 * counters (bench), and a zone stream's file mended after a kill
 * (trace-repair).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static const char usage[] =
        "usage: upmc <command> [options]\n"
        "\n"
        "  info [--json]                   what this machine allows, and how to lift each limit\n"
        "  list [--metrics] [--json]       the events (or metrics) upmc knows\n"
        "  stat [-e SPEC] [-r N] [-I MS] [-x SEP | --json] [-o FILE] [--] CMD [ARGS...]\n"
        "                                  counts for CMD and its children, then CMD's exit "
        "status\n"
        "  stat [options] -p PIDS | -t TIDS | -a | -C CPUS [CMD [ARGS...]]\n"
        "                                  counts for running processes, threads or whole CPUs\n"
        "                                  (`upmc stat --help` lists every option)\n"
        "  bench [--json | --csv] [--repeats N]\n"
        "                                  the overhead of every timestamp and counter read\n"
        "  trace-repair FILE               a zone stream's file that a kill left inside a packet,\n"
        "                                  cut back to its last whole packet\n"
        "\n"
        "  SPEC: events separated by commas, e.g. cycles,instructions:u,task-clock\n"
        "  (`upmc list` shows them; the default is\n"
        "  task-clock,context-switches,page-faults,cycles,instructions,branches,branch-misses)\n";

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("upmc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	fputs(usage, stderr);
	return CLI_EXIT_USAGE;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
        {"info", cli_info},
        {"list", cli_list},
        {"stat", cli_stat},
        {"bench", cli_bench},
        {"trace-repair", cli_trace_repair},
};

/* `bazel run` starts a program in its runfiles: paths the user gives
 * (stat's command, -o, UPMC_FS_ROOT) are meant from where the user is. */
static void work_where_the_user_is(void)
{
	const char *dir = getenv("BUILD_WORKING_DIRECTORY");

	if (dir && chdir(dir) < 0)
		fprintf(stderr, "upmc: cannot enter %s: %s\n", dir, strerror(errno));
}

static int run_command(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return cli_usage_error("no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 2, argv + 2);
	return cli_usage_error("unknown command '%s'", argv[1]);
}

int main(int argc, char **argv)
{
	work_where_the_user_is();
	/* Whatever the command printed is checked here, once: a report that did
	 * not reach stdout is a failure, not exit status 0. */
	return cli_finish(run_command(argc, argv));
}
