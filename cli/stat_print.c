/* SPDX-License-Identifier: MIT */
/* `upmc stat`: the counts in perf stat's layout, or as JSON. */
#define _GNU_SOURCE
#include <string.h>

#include "cli/cli.h"
#include "bench/json.h"
#include "cli/stat.h"

/* perf's numbering (PERF_COUNT_HW_*, PERF_COUNT_SW_*) of the events a ratio needs. */
#define HW_CYCLES       0
#define HW_INSTRUCTIONS 1
#define HW_CACHE_REFS   2
#define HW_CACHE_MISSES 3
#define HW_BRANCHES     4
#define HW_BRANCH_MISS  5
#define SW_CPU_CLOCK    0
#define SW_TASK_CLOCK   1

struct derived {
	double value;
	const char *unit; /* NULL: nothing derived; "% ...": a percentage */
};

static int is(const struct upmc_event *ev, uint32_t type, uint64_t config)
{
	return ev->type == type && ev->config == config;
}

static int is_clock(const struct upmc_event *ev)
{
	return is(ev, UPMC_TYPE_SOFTWARE, SW_TASK_CLOCK) ||
	       is(ev, UPMC_TYPE_SOFTWARE, SW_CPU_CLOCK);
}

/* A counted event of that kind, preferring one with the same privilege
 * levels as `like` (instructions:u goes with cycles:u). */
static const struct stat_counter *find(const struct stat_run *run, uint32_t type, uint64_t config,
                                       const struct upmc_event *like)
{
	const struct stat_counter *any = NULL;
	unsigned i;

	for (i = 0; i < run->n; i++) {
		const struct stat_counter *c = &run->counter[i];
		if (c->status != STAT_COUNTED || !is(&c->event, type, config))
			continue;
		if (c->event.exclude_user == like->exclude_user &&
		    c->event.exclude_kernel == like->exclude_kernel)
			return c;
		if (!any)
			any = c;
	}
	return any;
}

static int ratio(struct derived *d, uint64_t a, const struct stat_counter *b, double scale,
                 const char *unit)
{
	if (!b || !b->value)
		return 0;
	d->value = scale * (double)a / (double)b->value;
	d->unit = unit;
	return 1;
}

/* The ratio perf stat prints next to counter c, when its partner counted. */
static struct derived derive(const struct stat_run *run, const struct stat_counter *c)
{
	const struct upmc_event *ev = &c->event;
	struct derived d = {0, NULL};
	const struct stat_counter *clock;

	if (c->status != STAT_COUNTED)
		return d;
	if (is_clock(ev)) {
		if (run->elapsed_ns) {
			d.value = (double)c->value / (double)run->elapsed_ns;
			d.unit = "CPUs utilized";
		}
		return d;
	}
	if (is(ev, UPMC_TYPE_HARDWARE, HW_INSTRUCTIONS) &&
	    ratio(&d, c->value, find(run, UPMC_TYPE_HARDWARE, HW_CYCLES, ev), 1, "insn per cycle"))
		return d;
	if (is(ev, UPMC_TYPE_HARDWARE, HW_BRANCH_MISS) &&
	    ratio(&d, c->value, find(run, UPMC_TYPE_HARDWARE, HW_BRANCHES, ev), 100,
	          "% of all branches"))
		return d;
	if (is(ev, UPMC_TYPE_HARDWARE, HW_CACHE_MISSES) &&
	    ratio(&d, c->value, find(run, UPMC_TYPE_HARDWARE, HW_CACHE_REFS, ev), 100,
	          "% of all cache refs"))
		return d;
	clock = find(run, UPMC_TYPE_SOFTWARE, SW_TASK_CLOCK, ev);
	if (is(ev, UPMC_TYPE_HARDWARE, HW_CYCLES))
		ratio(&d, c->value, clock, 1, "GHz"); /* cycles per ns */
	else
		ratio(&d, c->value, clock, 1e9, "/sec");
	return d;
}

static void command_line(char *buf, size_t size, char **argv)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; *argv && len + 1 < size; argv++) {
		cli_format(buf + len, size - len, "%s%s", len ? " " : "", *argv);
		len = strlen(buf);
	}
}

/* ---- text ---- */

static void text_derived(FILE *out, struct derived d)
{
	static const char *const prefix[] = {"", "K", "M", "G"};
	unsigned p = 0;

	if (!d.unit)
		return;
	if (d.unit[0] == '%') {
		fprintf(out, "  # %7.2f%s", d.value, d.unit); /* perf's width: 8 with the % */
		return;
	}
	if (!strcmp(d.unit, "/sec"))
		for (; d.value >= 1000 && p < 3; p++)
			d.value /= 1000;
	fprintf(out, "  # %8.3f %s%s", d.value, prefix[p], d.unit);
}

static void text_row(FILE *out, const struct stat_run *run, const struct stat_counter *c,
                     unsigned note)
{
	char value[48];
	const char *unit = "";

	if (c->status == STAT_NOT_SUPPORTED)
		cli_format(value, sizeof(value), "<not supported>");
	else if (c->status == STAT_NOT_COUNTED)
		cli_format(value, sizeof(value), "<not counted>");
	else if (is_clock(&c->event))
		cli_format(value, sizeof(value), "%.2f", (double)c->value / 1e6);
	else
		cli_thousands(value, sizeof(value), c->value);
	if (c->status == STAT_COUNTED && is_clock(&c->event))
		unit = "msec";
	fprintf(out, "%18s %-4s %-32s", value, unit, c->event.name);
	text_derived(out, derive(run, c));
	if (c->status == STAT_COUNTED && c->running < c->enabled)
		fprintf(out, "  (%.2f%%)", 100.0 * (double)c->running / (double)c->enabled);
	if (note)
		fprintf(out, "  [%u]", note);
	fputc('\n', out);
}

/*
 * Counters with the same reason share one note: "cycles, instructions:
 * 'cycles' cannot be counted: ...". Every reason starts with its counter's
 * quoted name, so the rest is what they may share. note[i] is 1-based, 0:
 * none.
 */
static unsigned group_notes(const struct stat_run *run, unsigned *note)
{
	unsigned i, k, notes = 0;

	for (i = 0; i < run->n; i++) {
		const struct stat_counter *c = &run->counter[i];
		const char *rest = cli_after_quoted_name(c->reason, c->event.name);
		note[i] = 0;
		if (!c->reason[0])
			continue;
		for (k = 0; k < i; k++)
			if (note[k] &&
			    !strcmp(rest, cli_after_quoted_name(run->counter[k].reason,
			                                        run->counter[k].event.name)))
				break;
		note[i] = k < i ? note[k] : ++notes;
	}
	return notes;
}

/* " [n] a, b: <a's reason>" for every note. */
static void text_notes(FILE *out, const struct stat_run *run, const unsigned *note, unsigned notes)
{
	unsigned k, i, first;

	for (k = 1; k <= notes; k++) {
		fprintf(out, " [%u] ", k);
		for (i = 0, first = run->n; i < run->n; i++) {
			if (note[i] != k)
				continue;
			fprintf(out, "%s%s", first < run->n ? ", " : "",
			        run->counter[i].event.name);
			if (first == run->n)
				first = i;
		}
		fprintf(out, ": %s\n", run->counter[first].reason);
	}
	if (notes)
		fputc('\n', out);
}

void stat_print_text(FILE *out, const struct stat_run *run)
{
	unsigned note[UPMC_MAX_COUNTERS], notes, i;
	char cmd[1024];

	command_line(cmd, sizeof(cmd), run->argv);
	notes = group_notes(run, note);
	fprintf(out, "\n Performance counter stats for '%s':\n\n", cmd);
	for (i = 0; i < run->n; i++)
		text_row(out, run, &run->counter[i], note[i]);
	fprintf(out, "\n%18.9f seconds time elapsed\n\n", (double)run->elapsed_ns / 1e9);
	fprintf(out, "%18.9f seconds user\n", (double)run->user_ns / 1e9);
	fprintf(out, "%18.9f seconds sys\n\n", (double)run->sys_ns / 1e9);
	if (run->signal)
		fprintf(out, " '%s' was killed by signal %d (%s)\n\n", cmd, run->signal,
		        strsignal(run->signal));
	text_notes(out, run, note, notes);
}

/* ---- JSON ---- */

static const char *status_name(enum stat_status s)
{
	return s == STAT_COUNTED         ? "counted"
	       : s == STAT_NOT_SUPPORTED ? "not supported"
	                                 : "not counted";
}

static void json_counter(struct json *j, const struct stat_run *run, const struct stat_counter *c)
{
	struct derived d = derive(run, c);

	json_object(j, NULL);
	json_string(j, "name", c->event.name);
	json_string(j, "status", status_name(c->status));
	if (c->status == STAT_COUNTED)
		json_uint(j, "value", c->value);
	else
		json_null(j, "value");
	json_string(j, "unit", is_clock(&c->event) ? "ns" : "");
	if (c->opened) {
		json_uint(j, "enabled_ns", c->enabled);
		json_uint(j, "running_ns", c->running);
	} else {
		json_null(j, "enabled_ns");
		json_null(j, "running_ns");
	}
	json_string(j, "reason", c->reason[0] ? c->reason : NULL);
	if (d.unit) {
		json_object(j, "derived");
		json_double(j, "value", d.value);
		json_string(j, "unit", d.unit);
		json_end(j);
	} else {
		json_null(j, "derived");
	}
	json_end(j);
}

void stat_print_json(FILE *out, const struct stat_run *run)
{
	struct json j;
	char **arg;
	unsigned i;

	json_start(&j, out);
	json_object(&j, NULL);
	json_array(&j, "command");
	for (arg = run->argv; *arg; arg++)
		json_string(&j, NULL, *arg);
	json_end(&j);
	json_int(&j, "exit_status", run->exit_status);
	if (run->signal)
		json_int(&j, "signal", run->signal);
	else
		json_null(&j, "signal");
	json_uint(&j, "elapsed_ns", run->elapsed_ns);
	json_uint(&j, "user_ns", run->user_ns);
	json_uint(&j, "sys_ns", run->sys_ns);
	json_array(&j, "counters");
	for (i = 0; i < run->n; i++)
		json_counter(&j, run, &run->counter[i]);
	json_end(&j);
	json_end(&j);
}
