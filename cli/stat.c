/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`: one count (or -r's runs of it) from start to end, printing
 * -I's intervals on the way, then the report and the exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/stat.h"

/* How often a count of running tasks looks whether they have ended: perf
 * stat looks every second. */
#define ALIVE_CHECK_NS 100000000u

/* Where the report goes: a file written whole, or stderr; -I prints as it
 * goes (stat_open_output). */
struct output {
	struct cli_output file;
	FILE *f;
	int live; /* -I to stderr: printed at once, not composed first */
};

/* What a shell answers when a command cannot be run: 127 not found, 126 otherwise. */
static int exec_failure_status(int err)
{
	if (!err)
		return CLI_EXIT_FAILURE; /* upmc itself failed (pipe, fork) */
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}

/* ---- the figures of a count ---- */

/* The figures between two sets of readings (before NULL: from zero), as
 * blocks: one per thread with --per-thread, else one of every unit's sum.
 * The number of blocks; 0 when out of memory. *fig to be freed. */
static unsigned make_blocks(const struct stat_run *run, const struct stat_reading *before,
                            uint64_t span_ns, struct stat_block *blocks, struct stat_figure **fig)
{
	static const struct stat_reading zero = {0, 0, 0};
	unsigned n_blocks = run->per_thread ? run->n_units : 1, b, i;

	*fig = calloc((size_t)n_blocks * run->n + 1, sizeof(**fig));
	if (!*fig)
		return 0;
	for (b = 0; b < n_blocks; b++) {
		blocks[b].fig = *fig + (size_t)b * run->n;
		blocks[b].span_ns = span_ns;
		blocks[b].thread = run->per_thread ? &run->unit[b] : NULL;
		for (i = 0; i < run->n; i++) {
			size_t k = (size_t)b * run->n + i;
			struct stat_reading from = zero, to;
			if (run->per_thread) {
				to = run->reading[k];
				from = before ? before[k] : zero;
			} else {
				to = stat_sum_units(run, run->reading, i);
				from = before ? stat_sum_units(run, before, i) : zero;
			}
			stat_figure_between(&(*fig)[k], &from, &to);
		}
	}
	return n_blocks;
}

/* -I: the counts since the last interval, and the readings for the next. */
struct intervals {
	struct stat_reading *last;
	uint64_t last_ns, start_ns, every_ns;
	struct stat_block *blocks;
};

static void print_interval(struct stat_run *run, struct intervals *iv, struct output *out)
{
	uint64_t now = stat_now_ns();
	struct stat_figure *fig;
	unsigned n_blocks;

	stat_read_counters(run);
	stat_zones_tick(run);
	n_blocks = make_blocks(run, iv->last, now - iv->last_ns, iv->blocks, &fig);
	if (n_blocks)
		stat_print_interval(out->f, run, now - iv->start_ns, iv->blocks, n_blocks);
	if (out->live)
		fflush(out->f);
	free(fig);
	memcpy(iv->last, run->reading, (size_t)run->n_units * run->n * sizeof(*iv->last));
	iv->last_ns = now;
}

static int start_intervals(struct stat_run *run, struct intervals *iv, unsigned every_ms)
{
	memset(iv, 0, sizeof(*iv));
	iv->every_ns = (uint64_t)every_ms * 1000000u;
	if (!every_ms)
		return 0;
	iv->last = calloc((size_t)run->n_units * run->n + 1, sizeof(*iv->last));
	iv->blocks = calloc(run->n_units + 1, sizeof(*iv->blocks));
	if (iv->last && iv->blocks)
		return 0;
	cli_format(run->error, sizeof(run->error), "out of memory for -I's counts");
	return -ENOMEM;
}

static void end_intervals(struct intervals *iv)
{
	free(iv->last);
	free(iv->blocks);
}

/* ---- one count ---- */

/* Counts until the command ends, the targets end or a signal says stop,
 * with -I's intervals on the way. */
static void watch(struct stat_run *run, struct stat_command *cmd, struct intervals *iv,
                  struct output *out)
{
	uint64_t next = iv->every_ns ? iv->start_ns + iv->every_ns : 0;
	int attached = !cmd->pid && run->target != STAT_CPUS;

	for (;;) {
		uint64_t deadline = next, now;
		if (cmd->pid && stat_reap_command(run, cmd))
			return;
		if (attached && !stat_targets_alive(run))
			break;
		if (attached && (!deadline || deadline > stat_now_ns() + ALIVE_CHECK_NS))
			deadline = stat_now_ns() + ALIVE_CHECK_NS;
		if (stat_wait(deadline))
			break;
		now = stat_now_ns();
		if (!next || now < next)
			continue;
		print_interval(run, iv, out);
		while (next <= now)
			next += iv->every_ns; /* a late wake skips a tick, not the timing */
	}
	run->elapsed_ns = stat_now_ns() - iv->start_ns;
}

/* Starts the command (held), finds the units, opens the counters. 0, or a
 * negative errno with run->error saying why, nothing left behind. */
static int set_up(struct stat_run *run, struct stat_command *cmd)
{
	int err = 0;

	memset(cmd, 0, sizeof(*cmd));
	if (run->zones)
		err = stat_zones_open(run);
	if (run->argv && !err)
		err = stat_start_command(run, cmd);
	/* after the fork: the command must not inherit an ignored SIGINT */
	if (!err && (err = stat_catch_signals(cmd->pid)) < 0)
		cli_format(run->error, sizeof(run->error), "pipe2 failed: %s", strerror(-err));
	if (!err && !(err = stat_find_units(run, cmd->pid)))
		err = stat_open_counters(run);
	if (!err)
		return 0;
	stat_abandon_command(cmd);
	stat_release_signals(run);
	stat_zones_free(run);
	return err;
}

/* One count, from the command's release (or now) to its end. 0, or a
 * negative errno with run->error saying why (run->exec_errno: the command
 * could not be run). */
static int count_once(struct stat_run *run, unsigned every_ms, struct output *out)
{
	struct stat_command cmd;
	struct intervals iv;
	int err = set_up(run, &cmd);

	if (!err && (err = start_intervals(run, &iv, every_ms)) < 0) {
		stat_abandon_command(&cmd);
		stat_close_counters(run);
		stat_release_signals(run);
	}
	if (err)
		return err;
	if (every_ms)
		stat_print_interval_start(out->f, run);
	iv.start_ns = iv.last_ns = stat_now_ns();
	stat_enable_counters(run);
	if (cmd.pid && (run->exec_errno = stat_release_command(&cmd))) {
		cli_format(run->error, sizeof(run->error), "cannot run '%s': %s", run->argv[0],
		           strerror(run->exec_errno));
		err = -run->exec_errno;
		while (!stat_reap_command(run, &cmd))
			stat_wait(0);
	} else {
		watch(run, &cmd, &iv, out);
		if (every_ms)
			print_interval(run, &iv, out); /* the last one, cut short */
		else
			stat_read_counters(run);
	}
	stat_close_counters(run);
	stat_release_signals(run);
	end_intervals(&iv);
	stat_zones_take(run);
	return err;
}

/* ---- -r's runs ---- */

/* A run ended by the user (^C, or a signal upmc passed on): no more runs. */
static int interrupted(const struct stat_run *run)
{
	return run->signal == SIGINT || run->forwarded || run->stopped_by;
}

/* The runs (--rotate: run r counts pass r mod passes); 0, or a negative
 * errno (run->error says why). */
static int count(struct stat_run *run, const struct stat_args *a, struct output *out)
{
	static struct stat_runs runs;
	unsigned r;
	int err;

	stat_runs_start(&runs, run);
	for (r = 0; r < a->repeat; r++) {
		stat_runs_next(&runs, run, r);
		err = count_once(run, a->interval_ms, out);
		if (err)
			return err;
		stat_runs_add(&runs, run);
		if (interrupted(run)) {
			r++;
			break;
		}
	}
	stat_runs_end(&runs, run, r);
	return 0;
}

/* ---- the report and the exit status ---- */

static int open_output(const struct stat_args *a, struct output *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->live = a->interval_ms && !a->output;
	if (out->live) {
		out->f = stderr;
		return 0;
	}
	err = cli_output_open(&out->file, a->output);
	if (err)
		fprintf(stderr, "upmc stat: cannot write '%s': %s\n", a->output, strerror(-err));
	out->f = out->file.f;
	return err;
}

static void print_report(struct stat_run *run, const struct stat_args *a, struct output *out)
{
	struct stat_block *blocks = calloc(run->n_units + 1, sizeof(*blocks));
	struct stat_figure *fig = NULL;
	unsigned n_blocks = 0;

	if (a->interval_ms) {
		stat_print_interval_end(out->f, run);
		stat_print_zones(out->f,
		                 run); /* the whole run's (JSON: none, its lines are intervals) */
		free(blocks);
		return;
	}
	if (blocks && run->per_thread)
		n_blocks = make_blocks(run, NULL, run->elapsed_ns, blocks, &fig);
	stat_print_report(out->f, run, blocks, n_blocks);
	free(fig);
	free(blocks);
}

/* CLI_EXIT_FAILURE, said on stderr, when not all of the report was written. */
static int finish_output(const struct stat_args *a, struct output *out)
{
	int err = out->live ? cli_stream_error(stderr) : cli_output_commit(&out->file);

	if (!err)
		return 0;
	fprintf(stderr, "upmc stat: writing the report to %s%s%s failed: %s\n",
	        a->output ? "'" : "", a->output ? a->output : "stderr", a->output ? "'" : "",
	        strerror(-err));
	return CLI_EXIT_FAILURE;
}

static void discard_output(struct output *out)
{
	if (!out->live)
		cli_output_discard(&out->file);
}

/*
 * The command died of a signal meant for upmc too (^C reaches the whole
 * foreground group; SIGTERM and SIGHUP upmc passed on): after the report,
 * upmc dies of it as well, so that a shell sees the signal (a script's loop
 * stops on ^C) rather than an exit status of 128 + it. Without a command,
 * ^C is how counting ends (status 0); SIGTERM and SIGHUP end upmc too.
 */
static void end_like_the_command(const struct stat_run *run)
{
	int sig;

	if (run->argv)
		sig = run->signal == SIGINT || run->signal == run->forwarded ? run->signal : 0;
	else
		sig = run->stopped_by == SIGINT ? 0 : run->stopped_by;
	if (!sig)
		return;
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* --rotate's passes against -r: each pass needs a run of its own. 0, or
 * the exit status of a usage error. */
static int check_passes(const struct stat_run *run, const struct stat_args *a)
{
	if (!a->rotate || a->repeat >= run->passes)
		return 0;
	fprintf(stderr,
	        "upmc: stat: --rotate counts these events in %u passes, one per run: -r needs "
	        "at least %u runs, not %u\n\n%s",
	        run->passes, run->passes, a->repeat, stat_usage);
	return CLI_EXIT_USAGE;
}

static int stat_command(const struct stat_args *a)
{
	static struct stat_run run; /* 14 KiB: off the stack */
	struct output out;
	int err;

	memset(&run, 0, sizeof(run));
	if (stat_plan(&run, a) < 0) {
		fprintf(stderr, "upmc stat: %s\n", upmc_last_error());
		return CLI_EXIT_FAILURE;
	}
	if ((err = check_passes(&run, a)))
		return err;
	run.argv = a->command;
	run.target = a->target;
	run.targets = a->targets;
	run.ids = a->ids;
	run.n_ids = a->n_ids;
	run.format = a->format;
	run.separator = a->separator;
	run.per_thread = a->per_thread && !a->zones; /* --zones: the zones' threads */
	run.zones = a->zones;
	run.zones_per_thread = a->zones && a->per_thread;
	run.zone_names = a->zone_names;
	run.zone_spec = a->spec;
	run.zone_fd = -1;
	run.trace_path = a->trace;
	run.trace_format = a->trace_format;
	run.trace_fd = -1;
	run.zone_interval_ms = a->zones ? a->interval_ms : 0;
	/* Opened before counting: a file that cannot be written is known before
	 * the work it would report. */
	if (open_output(a, &out))
		return CLI_EXIT_FAILURE;
	err = count(&run, a, &out);
	if (err < 0) {
		fprintf(stderr, "upmc stat: %s\n", run.error);
		discard_output(&out);
		stat_free_units(&run);
		stat_zones_free(&run);
		return exec_failure_status(run.exec_errno);
	}
	print_report(&run, a, &out);
	stat_free_units(&run);
	stat_zones_free(&run);
	if (finish_output(a, &out) || run.trace_failed)
		return CLI_EXIT_FAILURE; /* the command's status would hide the lost report */
	end_like_the_command(&run);
	return run.argv ? run.exit_status : 0;
}

int cli_stat(int argc, char **argv)
{
	struct stat_args a;
	int status = stat_parse_args(argc, argv, &a);

	if (!status && a.help)
		fputs(stat_usage, stdout);
	else if (!status)
		status = stat_command(&a);
	stat_free_args(&a);
	return status;
}
