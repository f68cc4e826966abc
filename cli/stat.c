/* SPDX-License-Identifier: MIT */
/* `upmc stat [-e SPEC] [--json] [-o FILE] -- CMD [ARGS...]` */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/stat.h"

struct stat_args {
	const char *spec;
	char *joined;       /* every -e, joined by commas, as perf stat counts them all */
	const char *output; /* NULL: stderr, as perf stat writes */
	int as_json;
	char **command;
};

/* "-e X", "--event X" or "--event=X": the value, advancing *i; NULL if absent. */
static const char *option_value(int argc, char **argv, int *i, const char *shrt, const char *lng)
{
	size_t len = strlen(lng);

	if (!strcmp(argv[*i], shrt) || !strcmp(argv[*i], lng))
		return *i + 1 < argc ? argv[++*i] : NULL;
	if (!strncmp(argv[*i], lng, len) && argv[*i][len] == '=')
		return argv[*i] + len + 1;
	return NULL;
}

static int is_option(const char *arg, const char *shrt, const char *lng)
{
	size_t len = strlen(lng);

	return !strcmp(arg, shrt) || !strcmp(arg, lng) ||
	       (!strncmp(arg, lng, len) && arg[len] == '=');
}

/* One more -e list: perf stat counts them all. The lists have no limit of
 * their own; the spec's events do (UPMC_MAX_COUNTERS), and say so. */
static int join_events(struct stat_args *a, const char *more)
{
	size_t len = a->joined ? strlen(a->joined) : 0;
	char *grown = realloc(a->joined, len + 1 + strlen(more) + 1);

	if (!grown) {
		fprintf(stderr, "upmc stat: out of memory for the -e lists\n");
		return CLI_EXIT_FAILURE;
	}
	sprintf(grown + len, "%s%s", a->joined ? "," : "", more);
	a->joined = grown;
	a->spec = grown;
	return 0;
}

/* 0, or the exit status of a bad command line; a->joined to be freed. */
static int parse_args(int argc, char **argv, struct stat_args *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->spec = STAT_DEFAULT_SPEC;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			if (i + 1 == argc)
				return cli_usage_error("stat: no command after '--'");
			a->command = argv + i + 1;
			return 0;
		}
		if (!strcmp(argv[i], "--json")) {
			a->as_json = 1;
		} else if (is_option(argv[i], "-e", "--event")) {
			const char *more = option_value(argc, argv, &i, "-e", "--event");
			if (!more)
				return cli_usage_error("stat: -e needs an event list");
			if (join_events(a, more))
				return CLI_EXIT_FAILURE;
		} else if (is_option(argv[i], "-o", "--output")) {
			a->output = option_value(argc, argv, &i, "-o", "--output");
			if (!a->output)
				return cli_usage_error("stat: -o needs a file name");
		} else {
			return cli_usage_error("stat: unknown option '%s' (the command goes after "
			                       "'--')",
			                       argv[i]);
		}
	}
	return cli_usage_error("stat: no command: write it after '--', e.g. upmc stat -- ls");
}

static int parse_events(const char *spec, struct stat_run *run)
{
	struct upmc_event events[UPMC_MAX_COUNTERS];
	unsigned i;
	int n;

	/* Kernel mode too, as perf stat counts; refused, it falls back to user space. */
	n = upmc_parse_spec(spec, UPMC_OPT_KERNEL, events, UPMC_MAX_COUNTERS);
	if (n < 0)
		return n;
	run->n = (unsigned)n;
	for (i = 0; i < run->n; i++)
		run->counter[i].event = events[i];
	return 0;
}

/* What a shell answers when a command cannot be run: 127 not found, 126 otherwise. */
static int exec_failure_status(int err)
{
	if (!err)
		return CLI_EXIT_FAILURE; /* upmc itself failed (pipe, fork) */
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

/*
 * The command died of a signal meant for upmc too (^C reaches the whole
 * foreground group; SIGTERM and SIGHUP upmc passed on): after the report,
 * upmc dies of it as well, so that a shell sees the signal (a script's loop
 * stops on ^C) rather than an exit status of 128 + it.
 */
static void end_like_the_command(const struct stat_run *run)
{
	if (!run->signal || (run->signal != SIGINT && run->signal != run->forwarded))
		return;
	fflush(NULL);
	signal(run->signal, SIG_DFL);
	raise(run->signal);
}

/* The report, to a file or stderr: CLI_EXIT_FAILURE, said on stderr, when
 * not all of it was written. */
static int report(const struct stat_args *a, const struct stat_run *run, struct cli_output *out)
{
	int err;

	if (a->as_json)
		stat_print_json(out->f, run);
	else
		stat_print_text(out->f, run);
	err = cli_output_commit(out);
	if (!err)
		return 0;
	if (a->output)
		fprintf(stderr, "upmc stat: writing the report to '%s' failed: %s\n", a->output,
		        strerror(-err));
	else
		fprintf(stderr, "upmc stat: writing the report to stderr failed: %s\n",
		        strerror(-err));
	return CLI_EXIT_FAILURE;
}

static int stat_command(const struct stat_args *a)
{
	static struct stat_run run; /* 14 KiB: off the stack */
	struct cli_output out;
	int err;

	memset(&run, 0, sizeof(run));
	run.argv = a->command;
	if (parse_events(a->spec, &run) < 0) {
		fprintf(stderr, "upmc stat: %s\n", upmc_last_error());
		return CLI_EXIT_FAILURE;
	}
	/* Opened before the command runs: a file that cannot be written is known
	 * before the work it would report. */
	err = cli_output_open(&out, a->output);
	if (err) {
		fprintf(stderr, "upmc stat: cannot write '%s': %s\n", a->output, strerror(-err));
		return CLI_EXIT_FAILURE;
	}
	if (stat_run_command(&run) < 0) {
		fprintf(stderr, "upmc stat: %s\n", run.error);
		cli_output_discard(&out);
		return exec_failure_status(run.exec_errno);
	}
	if (report(a, &run, &out))
		return CLI_EXIT_FAILURE; /* the command's status would hide the lost report */
	end_like_the_command(&run);
	return run.exit_status;
}

int cli_stat(int argc, char **argv)
{
	struct stat_args a;
	int status = parse_args(argc, argv, &a);

	if (!status)
		status = stat_command(&a);
	free(a.joined);
	return status;
}
