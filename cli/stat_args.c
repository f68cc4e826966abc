/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s command line, as perf stat reads it: options first, and the
 * first argument that is not one starts the command ("--" may end the
 * options too). A new option is a row of `options`, a case of `take` and a
 * line of `stat_usage`.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/stat.h"

const char stat_usage[] =
        "usage: upmc stat [options] [--] CMD [ARGS...]\n"
        "       upmc stat [options] -p PIDS | -t TIDS | -a | -C CPUS [[--] CMD [ARGS...]]\n"
        "\n"
        "Counts CMD and every process it starts, then exits with CMD's status. With -p,\n"
        "-t, -a or -C it counts those instead, until CMD ends, or without CMD until they\n"
        "end or Ctrl-C.\n"
        "\n"
        "  -e, --event SPEC           events, separated by commas; may be given again\n"
        "  -M, --metrics METRICS      metrics or groups of them (IPC, TopdownL1): their\n"
        "                             events counted, each value beside its first event\n"
        "  -r, --repeat N             run CMD N times: the mean of each figure, and +- the\n"
        "                             standard deviation of the mean in % of it\n"
        "      --rotate               with -r: each run counts one pass, in turn, its\n"
        "                             events pinned on the PMU: each metric's events,\n"
        "                             then each -e list's other events\n"
        "  -I, --interval-print MS    print the counts of every MS milliseconds\n"
        "  -x, --field-separator SEP  CSV in perf stat's fields, separated by SEP\n"
        "  -j, --json                 JSON (with -I: one object per interval and line)\n"
        "  -o, --output FILE          the report to FILE instead of stderr\n"
        "  -p, --pid PIDS             running processes (1234,1240): all their threads\n"
        "  -t, --tid TIDS             running threads\n"
        "      --per-thread           one block per thread (with -p or -t; with --zones,\n"
        "                             a zone table per thread of CMD)\n"
        "      --zones[=NAMES]        CMD's zones (<upmc/zone.h>), counted with the same\n"
        "                             events: a table per zone name after the counts;\n"
        "                             NAMES (a,b): those only, and them together\n"
        "                             (with -r: each zone's means over the runs, +-;\n"
        "                             with -I: each interval's zones too)\n"
        "      --trace FILE           with --zones: the zones' trace to FILE, Perfetto\n"
        "                             (FILE.pftrace) or Chrome's JSON (FILE.json)\n"
        "  -a, --all-cpus             whole CPUs, all of them\n"
        "  -C, --cpu CPUS             whole CPUs, these (0-3,6)\n"
        "  -h, --help                 this help\n"
        "\n"
        "  SPEC: `upmc list` shows the events; the default is\n"
        "  " STAT_DEFAULT_SPEC "\n";

enum { OPT_PER_THREAD = 256, OPT_ROTATE, OPT_ZONES, OPT_TRACE };

static const struct option options[] = {
        {"event", required_argument, NULL, 'e'},
        {"metrics", required_argument, NULL, 'M'},
        {"repeat", required_argument, NULL, 'r'},
        {"rotate", no_argument, NULL, OPT_ROTATE},
        {"interval-print", required_argument, NULL, 'I'},
        {"field-separator", required_argument, NULL, 'x'},
        {"json", no_argument, NULL, 'j'},
        {"output", required_argument, NULL, 'o'},
        {"pid", required_argument, NULL, 'p'},
        {"tid", required_argument, NULL, 't'},
        {"per-thread", no_argument, NULL, OPT_PER_THREAD},
        {"zones", optional_argument, NULL, OPT_ZONES},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"all-cpus", no_argument, NULL, 'a'},
        {"cpu", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
};

/* "+": stop at the first argument that is not an option (the command);
 * ":": a missing value is told apart from an unknown option. */
static const char short_options[] = "+:e:M:r:I:x:jo:p:t:aC:h";

/* "upmc: stat: <message>", then stat's usage, on stderr. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("upmc: stat: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n%s", stat_usage);
	return CLI_EXIT_USAGE;
}

/* What an option's value is, for the sentence when it is missing. */
static const char *value_of(int opt)
{
	switch (opt) {
	case 'e':
		return "an event list";
	case 'M':
		return "a list of metrics";
	case 'r':
		return "a number of runs";
	case 'I':
		return "a number of milliseconds";
	case 'x':
		return "a separator";
	case 'o':
	case OPT_TRACE:
		return "a file name";
	case 'p':
		return "process ids";
	case 't':
		return "thread ids";
	default:
		return "CPU numbers";
	}
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

/* One -e list: counted with the others, and kept apart for --rotate. */
static int take_events(struct stat_args *a, const char *list)
{
	const char **grown = realloc(a->lists, (a->n_lists + 1) * sizeof(*a->lists));

	if (!grown) {
		fprintf(stderr, "upmc stat: out of memory for the -e lists\n");
		return CLI_EXIT_FAILURE;
	}
	a->lists = grown;
	a->lists[a->n_lists++] = list;
	return join_events(a, list);
}

/* -M's list: metrics or groups only (`upmc list --metrics`), counted with
 * the -e lists. */
static int join_metrics(struct stat_args *a, const char *list)
{
	char item[UPMC_NAME_MAX];
	const char *p = list;

	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		if (!upmc_is_metric(item))
			return usage_error(
			        "-M takes metrics and groups of them (`upmc list --metrics`): "
			        "'%s' is not one%s",
			        item, len ? "; events go with -e" : "");
		p = comma ? comma + 1 : NULL;
	}
	return join_events(a, list);
}

/* A whole number from 1 to max, or 0. */
static unsigned number(const char *s, unsigned long max)
{
	unsigned long n;
	char *end;

	if (*s < '1' || *s > '9')
		return 0;
	errno = 0;
	n = strtoul(s, &end, 10);
	return *end || errno || n > max ? 0 : (unsigned)n;
}

static int take_target(struct stat_args *a, enum stat_target target, const char *list,
                       const char *what)
{
	int n;

	if (a->targets || a->target != STAT_COMMAND)
		return usage_error("-p, -t and -a/-C each say what to count: give one of them");
	a->target = target;
	if (!list)
		return 0; /* -a */
	n = stat_parse_ids(list, &a->ids);
	if (n <= 0 || (target != STAT_CPUS && a->ids[0] <= 0))
		return usage_error("'%s' is not a list of %s, e.g. %s", list, what,
		                   target == STAT_CPUS ? "0-3,6" : "1234,1240");
	a->targets = list;
	a->n_ids = (unsigned)n;
	return 0;
}

/* One option and its value: 0, or the exit status of a bad one. */
static int take(struct stat_args *a, int opt, const char *value)
{
	switch (opt) {
	case 'e':
		return take_events(a, value);
	case 'M':
		return join_metrics(a, value);
	case 'r':
		a->repeat_given = 1;
		a->repeat = number(value, 100000);
		return a->repeat
		               ? 0
		               : usage_error("-r needs a number of runs from 1 to 100000, not '%s'",
		                             value);
	case 'I':
		a->interval_ms = number(value, 86400000);
		return a->interval_ms ? 0
		                      : usage_error("-I needs a number of milliseconds from 1 to "
		                                    "86400000, not '%s'",
		                                    value);
	case 'x':
		a->format = STAT_CSV;
		a->separator = value;
		return value[0] ? 0 : usage_error("-x needs a separator that is not empty");
	case 'j':
		a->format = STAT_JSON;
		return 0;
	case 'o':
		a->output = value;
		return 0;
	case 'p':
		return take_target(a, STAT_PROCESSES, value, "process ids");
	case 't':
		return take_target(a, STAT_THREADS, value, "thread ids");
	case 'a':
		return a->target == STAT_CPUS && !a->targets ? 0
		                                             : take_target(a, STAT_CPUS, NULL, "");
	case 'C':
		if (a->target == STAT_CPUS && !a->targets) /* -a -C: the CPUs given */
			a->target = STAT_COMMAND;
		return take_target(a, STAT_CPUS, value, "CPU numbers");
	case OPT_PER_THREAD:
		a->per_thread = 1;
		return 0;
	case OPT_ROTATE:
		a->rotate = 1;
		return 0;
	case OPT_ZONES:
		a->zones = 1;
		a->zone_names = value;
		if (value && (!value[0] || strchr(value, ';') || value[0] == ',' ||
		              value[strlen(value) - 1] == ',' || strstr(value, ",,")))
			return usage_error(
			        "--zones= takes zone names separated by commas (frame,render), "
			        "not '%s'",
			        value);
		return 0;
	case OPT_TRACE:
		a->trace = value;
		a->trace_format = stat_trace_format(value);
		return a->trace_format
		               ? 0
		               : usage_error("--trace FILE: FILE ends in .pftrace (Perfetto) "
		                             "or .json (Chrome's trace), not '%s'",
		                             value);
	case 'h':
		a->help = 1;
		return 0;
	}
	return usage_error("unknown option");
}

/* The options that cannot go together, or need another. */
static int check(const struct stat_args *a, int had_dashes)
{
	int attached = a->target == STAT_PROCESSES || a->target == STAT_THREADS;

	if (!a->command && a->target == STAT_COMMAND)
		return usage_error(had_dashes ? "no command after '--'"
		                              : "no command: give one (upmc stat ls), or what to "
		                                "count: -p, -t, -a or -C");
	if (a->zones && (a->target != STAT_COMMAND || !a->command))
		return usage_error(
		        "--zones counts the zones of a command: give one, without -p, -t, "
		        "-a or -C");
	if (a->trace && !a->zones)
		return usage_error("--trace writes the zones' trace: give --zones too");
	if (a->per_thread && !attached && !a->zones)
		return usage_error("--per-thread needs -p or -t (or --zones)");
	if (a->repeat > 1 && (!a->command || attached))
		return usage_error("-r repeats a command: give one, without -p or -t");
	if (a->repeat > 1 && a->interval_ms)
		return usage_error("-r and -I do not go together");
	if (a->rotate && (!a->command || attached))
		return usage_error("--rotate runs a command once per pass: give one, without -p or "
		                   "-t");
	if (a->rotate && !a->repeat_given)
		return usage_error("--rotate counts one pass per run: give the runs with -r N");
	if (a->rotate && a->interval_ms)
		return usage_error("--rotate and -I do not go together: a pass lasts a whole run");
	return 0;
}

void stat_free_args(struct stat_args *a)
{
	free(a->joined);
	free(a->ids);
	free(a->lists);
	a->joined = NULL;
	a->ids = NULL;
	a->lists = NULL;
}

int stat_parse_args(int argc, char **argv, struct stat_args *a)
{
	int opt, status = 0;

	memset(a, 0, sizeof(*a));
	a->spec = STAT_DEFAULT_SPEC;
	a->repeat = 1;
	/* getopt reads argv[1] on: argv[-1] is "stat", the subcommand's name */
	argc++;
	argv--;
	optind = 0; /* GNU: start afresh */
	opterr = 0; /* its messages are ours */
	while (!status && (opt = getopt_long(argc, argv, short_options, options, NULL)) != -1) {
		if (opt == ':') /* every option with a value has a letter */
			status = usage_error("-%c needs %s", optopt, value_of(optopt));
		else if (opt == '?')
			status = optopt ? usage_error("unknown option '-%c'", optopt)
			                : usage_error("unknown option '%s'", argv[optind - 1]);
		else if ((opt == 'x' && a->format == STAT_JSON) ||
		         (opt == 'j' && a->format == STAT_CSV))
			status = usage_error("-x (CSV) and --json are two formats: give one");
		else
			status = take(a, opt, optarg);
	}
	if (status || a->help)
		return status;
	a->command = optind < argc ? argv + optind : NULL;
	return check(a, optind > 1 && !strcmp(argv[optind - 1], "--"));
}
