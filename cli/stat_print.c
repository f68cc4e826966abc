/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat`'s report: the counts in perf stat's layout, as perf stat's
 * CSV (-x), or as JSON. What the three show of a counter is worked out once
 * (struct row: its value, unit, derived ratio); each format only lays it
 * out.
 */
#define _GNU_SOURCE
#include <math.h>
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

/* The width of the text's derived column, when a "+-" follows it. */
#define METRIC_WIDTH 36

struct derived {
	double value;  /* NAN: a metric that could not be computed */
	char unit[64]; /* "": nothing derived; "% ...": a percentage */
};

/* What every format shows of counter i in a block. */
struct row {
	const struct stat_counter *c;
	const struct stat_figure *f;
	int counted; /* it has a value */
	struct derived d;
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

static int counted(const struct stat_counter *c, const struct stat_figure *f)
{
	return c->status == STAT_COUNTED && f->value != UPMC_NOT_COUNTED;
}

/* A counted figure of that kind in the block, preferring one with the same
 * privilege levels as `like` (instructions:u goes with cycles:u); with
 * --rotate, of like's pass only: a ratio never takes two passes' counts. */
static const struct stat_figure *find(const struct stat_run *run, const struct stat_block *b,
                                      uint32_t type, uint64_t config,
                                      const struct stat_counter *like)
{
	const struct stat_figure *any = NULL;
	unsigned i;

	for (i = 0; i < run->n; i++) {
		const struct stat_counter *c = &run->counter[i];
		if (!counted(c, &b->fig[i]) || !is(&c->event, type, config) ||
		    (run->passes && c->pass != like->pass))
			continue;
		if (c->event.exclude_user == like->event.exclude_user &&
		    c->event.exclude_kernel == like->event.exclude_kernel)
			return &b->fig[i];
		if (!any)
			any = &b->fig[i];
	}
	return any;
}

static int ratio(struct derived *d, uint64_t a, const struct stat_figure *b, double scale,
                 const char *unit)
{
	if (!b || !b->value)
		return 0;
	d->value = scale * (double)a / (double)b->value;
	cli_format(d->unit, sizeof(d->unit), "%s", unit);
	return 1;
}

/* The ratio perf stat prints next to counter i, when its partner counted. */
static struct derived derive(const struct stat_run *run, const struct stat_block *b, unsigned i)
{
	const struct stat_counter *c = &run->counter[i];
	const struct upmc_event *ev = &c->event;
	uint64_t value = b->fig[i].value;
	struct derived d = {0, ""};
	const struct stat_figure *clock;

	if (!counted(&run->counter[i], &b->fig[i]))
		return d;
	if (is_clock(ev)) {
		if (b->span_ns)
			ratio(&d, value, &(struct stat_figure){.value = b->span_ns}, 1,
			      "CPUs utilized");
		return d;
	}
	if (is(ev, UPMC_TYPE_HARDWARE, HW_INSTRUCTIONS) &&
	    ratio(&d, value, find(run, b, UPMC_TYPE_HARDWARE, HW_CYCLES, c), 1, "insn per cycle"))
		return d;
	if (is(ev, UPMC_TYPE_HARDWARE, HW_BRANCH_MISS) &&
	    ratio(&d, value, find(run, b, UPMC_TYPE_HARDWARE, HW_BRANCHES, c), 100,
	          "% of all branches"))
		return d;
	if (is(ev, UPMC_TYPE_HARDWARE, HW_CACHE_MISSES) &&
	    ratio(&d, value, find(run, b, UPMC_TYPE_HARDWARE, HW_CACHE_REFS, c), 100,
	          "% of all cache refs"))
		return d;
	/* rates per second of the time counted, as perf stat: either clock */
	clock = find(run, b, UPMC_TYPE_SOFTWARE, SW_TASK_CLOCK, c);
	if (!clock)
		clock = find(run, b, UPMC_TYPE_SOFTWARE, SW_CPU_CLOCK, c);
	if (is(ev, UPMC_TYPE_HARDWARE, HW_CYCLES))
		ratio(&d, value, clock, 1, "GHz"); /* cycles per ns */
	else
		ratio(&d, value, clock, 1e9, "/sec");
	return d;
}

/* ---- metrics (-M, or named in the spec) ---- */

/* Metric j's value over the block, from its counters' figures. */
static double metric_value(const struct stat_run *run, const struct stat_block *b, unsigned j)
{
	uint64_t counts[UPMC_MAX_COUNTERS];
	unsigned i;

	for (i = 0; i < run->n; i++)
		counts[i] =
		        counted(&run->counter[i], &b->fig[i]) ? b->fig[i].value : UPMC_NOT_COUNTED;
	return upmc_metric_value(&run->metric[j], counts);
}

/* A metric as perf stat shows one: "1.23 insn per cycle", "25.30% retiring". */
static struct derived metric_derived(const struct stat_run *run, const struct stat_block *b,
                                     unsigned j)
{
	struct upmc_metric_info info;
	struct derived d;

	upmc_metric_describe(&run->metric[j], &info);
	d.value = metric_value(run, b, j) * (info.percent ? 100 : 1);
	cli_format(d.unit, sizeof(d.unit), "%s%s", info.percent ? "% " : "", info.unit);
	return d;
}

/* A metric is shown beside the first of its events, as perf stat does; a
 * second metric of the same event gets a line of its own below it. */
static int metric_on_row(const struct stat_run *run, unsigned j, unsigned i)
{
	return run->metric[j].n_in && run->metric[j].in[0] == i;
}

/* The first metric shown on counter i's row; run->n_metrics when none. */
static unsigned first_metric_on_row(const struct stat_run *run, unsigned i)
{
	unsigned j;

	for (j = 0; j < run->n_metrics && !metric_on_row(run, j, i); j++)
		;
	return j;
}

static struct row row_of(const struct stat_run *run, const struct stat_block *b, unsigned i)
{
	unsigned j = first_metric_on_row(run, i);
	struct row r;

	r.c = &run->counter[i];
	r.f = &b->fig[i];
	r.counted = counted(r.c, r.f);
	r.d = j < run->n_metrics ? metric_derived(run, b, j) : derive(run, b, i);
	return r;
}

/* The value as perf stat writes it: a mark when there is none, the clocks
 * in msec, counts grouped by thousands in the text. */
static void value_text(char *buf, size_t size, const struct row *r, int grouped)
{
	if (r->c->status == STAT_NOT_SUPPORTED)
		cli_format(buf, size, "<not supported>");
	else if (!r->counted)
		cli_format(buf, size, "<not counted>");
	else if (is_clock(&r->c->event))
		cli_format(buf, size, "%.2f", (double)r->f->value / 1e6);
	else if (grouped)
		cli_thousands(buf, size, r->f->value);
	else
		cli_format(buf, size, "%llu", (unsigned long long)r->f->value);
}

static const char *unit_text(const struct row *r)
{
	return is_clock(&r->c->event) ? "msec" : "";
}

/* The derived ratio as perf stat writes it, number and unit apart: "2.50%"
 * and "of all branches", or "18.681" and "K/sec" (rates get a prefix). */
static void metric_text(struct derived d, char *num, size_t nsize, char *unit, size_t usize)
{
	static const char *const prefix[] = {"", "K", "M", "G"};
	unsigned p = 0;

	if (isnan(d.value)) { /* a metric whose events did not count: their notes say why */
		cli_format(num, nsize, "n/a");
		cli_format(unit, usize, "%s", d.unit + (d.unit[0] == '%' ? 2 : 0));
		return;
	}
	if (d.unit[0] == '%') {
		cli_format(num, nsize, "%.2f%%", d.value);
		cli_format(unit, usize, "%s", d.unit + 2);
		return;
	}
	if (!strcmp(d.unit, "/sec"))
		for (; d.value >= 1000 && p < 3; p++)
			d.value /= 1000;
	cli_format(num, nsize, "%.3f", d.value);
	cli_format(unit, usize, "%s%s", prefix[p], d.unit);
}

/* perf stat's "% running": of the time enabled, and with -r over every
 * run of the counter's pass, a run that did not count it running none
 * (perf stat's own mean of the runs' times), so that a figure of some of
 * the runs shows in CSV too. */
static double running_percent(const struct stat_figure *f)
{
	double percent = f->enabled ? 100.0 * (double)f->running / (double)f->enabled : 100.0;

	return f->runs < f->planned ? percent * f->runs / f->planned : percent;
}

/* With -r: whether the figure is the mean of one run, which has no
 * deviation (CSV's field empty, JSON's null, nothing in the text): a
 * --rotate pass that ran once, a counter that counted in one run. */
static int of_one_run(const struct stat_run *run, const struct row *r)
{
	return run->runs > 1 && r->counted && r->f->runs == 1;
}

/* Whether a deviation is shown: of a counted mean of two runs or more. */
static int has_noise(const struct stat_run *run, const struct row *r)
{
	return run->runs > 1 && r->counted && !of_one_run(run, r);
}

/* "comm-tid", perf stat's name of a thread. */
static void thread_label(char *buf, size_t size, const struct stat_unit *t)
{
	cli_format(buf, size, "%s-%d", t->comm[0] ? t->comm : "?", (int)t->tid);
}

/* -I's timestamp, perf stat's "%6lu.%09lu": seconds since counting started. */
static void timestamp(char *buf, size_t size, uint64_t at_ns)
{
	cli_format(buf, size, "%6llu.%09llu", (unsigned long long)(at_ns / 1000000000u),
	           (unsigned long long)(at_ns % 1000000000u));
}

/* The counters' whole counts as one block. */
static struct stat_block totals(const struct stat_run *run, struct stat_figure *fig)
{
	struct stat_block b = {fig, run->elapsed_ns, NULL};
	unsigned i;

	for (i = 0; i < run->n; i++)
		fig[i] = run->counter[i].total;
	return b;
}

static void command_line(char *buf, size_t size, char **argv)
{
	size_t len = 0;

	buf[0] = '\0';
	for (; argv && *argv && len + 1 < size; argv++) {
		cli_format(buf + len, size - len, "%s%s", len ? " " : "", *argv);
		len = strlen(buf);
	}
}

/* What was counted, as perf stat's title names it. */
static void target_title(char *buf, size_t size, const struct stat_run *run)
{
	char cmd[1024];

	switch (run->target) {
	case STAT_COMMAND:
		command_line(cmd, sizeof(cmd), run->argv);
		cli_format(buf, size, "'%s'", cmd);
		return;
	case STAT_PROCESSES:
		cli_format(buf, size, "process id '%s'", run->targets);
		return;
	case STAT_THREADS:
		cli_format(buf, size, "thread id '%s'", run->targets);
		return;
	case STAT_CPUS:
		if (run->n_ids)
			cli_format(buf, size, "'CPU(s) %s'", run->targets);
		else
			cli_format(buf, size, "'system wide'");
		return;
	}
}

/* CSV's last field with --rotate: the pass that measured the row (1, 2,
 * ...); then the row's end. */
static void csv_pass(FILE *out, const struct stat_run *run, const struct stat_counter *c)
{
	if (run->passes)
		fprintf(out, "%s%u", run->separator, c->pass + 1);
	fputc('\n', out);
}

/* The metrics of counter i beyond the first: the next one from j on,
 * run->n_metrics when none is left. */
static unsigned next_metric_line(const struct stat_run *run, unsigned i, unsigned j)
{
	for (; j < run->n_metrics && !metric_on_row(run, j, i); j++)
		;
	return j;
}

/* Their lines in the text: the count's columns blank, as perf stat's. */
static void text_metric_lines(FILE *out, const struct stat_run *run, const struct stat_block *b,
                              unsigned i, const char *lead)
{
	char num[32], unit[48];
	unsigned j;

	for (j = first_metric_on_row(run, i);
	     (j = next_metric_line(run, i, j + 1)) < run->n_metrics;) {
		metric_text(metric_derived(run, b, j), num, sizeof(num), unit, sizeof(unit));
		fprintf(out, "%s%18s %-4s %-32s  # %8s %s\n", lead, "", "", "", num, unit);
	}
}

/* ... and in CSV: every field empty but the metric's two. */
static void csv_metric_lines(FILE *out, const struct stat_run *run, const struct stat_block *b,
                             unsigned i, const char *time)
{
	const char *sep = run->separator;
	char num[32], unit[48], label[64];
	unsigned j;

	for (j = first_metric_on_row(run, i);
	     (j = next_metric_line(run, i, j + 1)) < run->n_metrics;) {
		metric_text(metric_derived(run, b, j), num, sizeof(num), unit, sizeof(unit));
		if (time)
			fprintf(out, "%s%s", time, sep);
		if (b->thread) {
			thread_label(label, sizeof(label), b->thread);
			fprintf(out, "%s%s", label, sep);
		}
		/* value, unit, event, [+-], time running, % running: empty */
		fprintf(out, "%s%s%s%s%s%s%s%s%s", sep, sep, run->runs > 1 ? sep : "", sep, sep,
		        sep, num, sep, unit);
		csv_pass(out, run, &run->counter[i]);
	}
}

/* ---- text ---- */

/* With -r, the runs a mean is over where the title's count does not say
 * it: "(2 of 5 runs)"; with --rotate, beside the pass, on every row. */
static void text_runs(FILE *out, const struct stat_run *run, const struct row *r)
{
	const int some = run->runs > 1 && r->counted && r->f->runs < run->runs;

	if (run->passes && some)
		fprintf(out, "  (pass %u/%u, %u of %u runs)", r->c->pass + 1, run->passes,
		        r->f->runs, run->runs);
	else if (run->passes)
		fprintf(out, "  (pass %u/%u)", r->c->pass + 1, run->passes);
	else if (some)
		fprintf(out, "  (%u of %u runs)", r->f->runs, run->runs);
}

static void text_row(FILE *out, const struct stat_run *run, const struct row *r, const char *lead,
                     int grouped, unsigned note)
{
	char value[48], metric[160] = "", num[32], unit[48];

	value_text(value, sizeof(value), r, grouped);
	fprintf(out, "%s%18s %-4s %-32s", lead, value, unit_text(r), r->c->event.name);
	if (r->d.unit[0]) {
		metric_text(r->d, num, sizeof(num), unit, sizeof(unit));
		cli_format(metric, sizeof(metric), "  # %8s %s", num, unit);
	}
	if (has_noise(run, r) && r->f->noise)
		fprintf(out, "%-*s  ( +-%6.2f%% )", METRIC_WIDTH, metric, r->f->noise);
	else if (run->passes) /* the passes in a column */
		fprintf(out, "%-*s  %13s", METRIC_WIDTH, metric, "");
	else
		fputs(metric, out);
	if (r->counted && running_percent(r->f) < 100)
		fprintf(out, "  (%.2f%%)", running_percent(r->f));
	text_runs(out, run, r);
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

/* Whether counter i's name is in its note already: an event two metric
 * groups count is named once. */
static int named_before(const struct stat_run *run, const unsigned *note, unsigned i)
{
	unsigned k;

	for (k = 0; k < i; k++)
		if (note[k] == note[i] &&
		    !strcmp(run->counter[k].event.name, run->counter[i].event.name))
			return 1;
	return 0;
}

/* " [n] a, b: <a's reason>" for every note. */
static void text_notes(FILE *out, const struct stat_run *run, const unsigned *note, unsigned notes)
{
	unsigned k, i, first;

	for (k = 1; k <= notes; k++) {
		fprintf(out, " [%u] ", k);
		for (i = 0, first = run->n; i < run->n; i++) {
			if (note[i] != k || named_before(run, note, i))
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

/* perf stat's digits for a mean and its "+-": two more than the error's
 * first significant one. */
static int elapsed_precision(double error_s)
{
	if (error_s > 1)
		return 2;
	if (error_s <= 0)
		return 9;
	return (int)lround(ceil(-log10(error_s))) + 2;
}

static void text_elapsed(FILE *out, const struct stat_run *run)
{
	double elapsed = (double)run->elapsed_ns / 1e9, error = elapsed * run->elapsed_noise / 100;
	int digits = elapsed_precision(error);

	if (run->runs > 1)
		fprintf(out, "\n %17.*f +- %.*f seconds time elapsed  ( +-%6.2f%% )\n\n", digits,
		        elapsed, digits, error, run->elapsed_noise);
	else
		fprintf(out, "\n%18.9f seconds time elapsed\n\n", elapsed);
	/* the command's own times, as perf stat prints them for one run */
	if (run->target == STAT_COMMAND && run->runs == 1) {
		fprintf(out, "%18.9f seconds user\n", (double)run->user_ns / 1e9);
		fprintf(out, "%18.9f seconds sys\n\n", (double)run->sys_ns / 1e9);
	}
}

static void text_report(FILE *out, const struct stat_run *run, const struct stat_block *blocks,
                        unsigned n_blocks)
{
	unsigned note[UPMC_MAX_COUNTERS], notes = group_notes(run, note), b, i;
	char title[1100], runs[32] = "", label[64];

	target_title(title, sizeof(title), run);
	if (run->passes)
		cli_format(runs, sizeof(runs), " (%u runs, %u passes)", run->runs, run->passes);
	else if (run->runs > 1)
		cli_format(runs, sizeof(runs), " (%u runs)", run->runs);
	fprintf(out, "\n Performance counter stats for %s%s:\n\n", title, runs);
	for (b = 0; b < n_blocks; b++) {
		if (blocks[b].thread) {
			thread_label(label, sizeof(label), blocks[b].thread);
			fprintf(out, "%s %s:\n", b ? "\n" : "", label);
		}
		for (i = 0; i < run->n; i++) {
			struct row r = row_of(run, &blocks[b], i);
			text_row(out, run, &r, "", 1, note[i]);
			text_metric_lines(out, run, &blocks[b], i, "");
		}
	}
	text_elapsed(out, run);
	if (run->signal) {
		command_line(title, sizeof(title), run->argv);
		fprintf(out, " '%s' was killed by signal %d (%s)\n\n", title, run->signal,
		        strsignal(run->signal));
	}
	text_notes(out, run, note, notes);
}

/* ---- CSV: perf stat -x's fields ---- */

/* [time] [thread] value, unit, event, [+- %], time running, % running,
 * derived value, derived unit: the order perf stat writes (with -r its
 * "+-" follows the event's name, where the man page lists it last). */
static void csv_row(FILE *out, const struct stat_run *run, const struct row *r, const char *time,
                    const struct stat_unit *thread)
{
	const char *sep = run->separator;
	char value[48], num[32] = "", unit[48] = "", label[64];

	if (time)
		fprintf(out, "%s%s", time, sep);
	if (thread) {
		thread_label(label, sizeof(label), thread);
		fprintf(out, "%s%s", label, sep);
	}
	value_text(value, sizeof(value), r, 0);
	fprintf(out, "%s%s%s%s%s", value, sep, unit_text(r), sep, r->c->event.name);
	/* perf stat's 0.00% for a counter that did not count */
	if (of_one_run(run, r))
		fputs(sep, out);
	else if (run->runs > 1)
		fprintf(out, "%s%.2f%%", sep, r->f->noise);
	fprintf(out, "%s%llu%s%.2f", sep, (unsigned long long)r->f->running, sep,
	        running_percent(r->f));
	if (r->d.unit[0])
		metric_text(r->d, num, sizeof(num), unit, sizeof(unit));
	fprintf(out, "%s%s%s%s", sep, num, sep, unit);
	csv_pass(out, run, r->c);
}

static void csv_blocks(FILE *out, const struct stat_run *run, const char *time,
                       const struct stat_block *blocks, unsigned n_blocks)
{
	unsigned b, i;

	for (b = 0; b < n_blocks; b++)
		for (i = 0; i < run->n; i++) {
			struct row r = row_of(run, &blocks[b], i);
			csv_row(out, run, &r, time, blocks[b].thread);
			csv_metric_lines(out, run, &blocks[b], i, time);
		}
}

/* ---- JSON ---- */

static const char *status_name(enum stat_status s)
{
	return s == STAT_COUNTED         ? "counted"
	       : s == STAT_NOT_SUPPORTED ? "not supported"
	                                 : "not counted";
}

/* A counter that never ran over this span (an interval) is not counted in it. */
static enum stat_status row_status(const struct row *r)
{
	return r->c->status == STAT_COUNTED && !r->counted ? STAT_NOT_COUNTED : r->c->status;
}

/* "pass": with --rotate, the pass (1, 2, ...) that measured c; else null. */
static void json_pass(struct json *j, const struct stat_run *run, const struct stat_counter *c)
{
	if (run->passes && c)
		json_uint(j, "pass", c->pass + 1);
	else
		json_null(j, "pass");
}

static void json_counter(struct json *j, const struct stat_run *run, const struct row *r)
{
	json_object(j, NULL);
	json_string(j, "name", r->c->event.name);
	json_string(j, "status", status_name(row_status(r)));
	if (r->counted)
		json_uint(j, "value", r->f->value);
	else
		json_null(j, "value");
	json_string(j, "unit", is_clock(&r->c->event) ? "ns" : "");
	if (r->c->opened) {
		json_uint(j, "enabled_ns", r->f->enabled);
		json_uint(j, "running_ns", r->f->running);
	} else {
		json_null(j, "enabled_ns");
		json_null(j, "running_ns");
	}
	if (has_noise(run, r))
		json_double(j, "noise_pct", r->f->noise);
	else
		json_null(j, "noise_pct");
	if (run->runs > 1 && r->counted)
		json_uint(j, "runs", r->f->runs);
	else
		json_null(j, "runs");
	json_string(j, "reason", r->c->reason[0] ? r->c->reason : NULL);
	json_pass(j, run, r->c);
	if (r->d.unit[0]) {
		json_object(j, "derived");
		json_double(j, "value", r->d.value);
		json_string(j, "unit", r->d.unit);
		json_end(j);
	} else {
		json_null(j, "derived");
	}
	json_end(j);
}

/* "metrics": each one's value over the block (null where it could not be
 * computed: its events' reasons say why), unit, and whether it is a
 * fraction (percent: true, the value from 0 to 1). */
static void json_metrics(struct json *j, const struct stat_run *run, const struct stat_block *b)
{
	struct upmc_metric_info info;
	unsigned k;

	json_array(j, "metrics");
	for (k = 0; k < run->n_metrics; k++) {
		upmc_metric_describe(&run->metric[k], &info);
		json_object(j, NULL);
		json_string(j, "name", info.name);
		json_double(j, "value", metric_value(run, b, k));
		json_string(j, "unit", info.unit);
		json_bool(j, "percent", info.percent);
		json_pass(j, run, run->metric[k].n_in ? &run->counter[run->metric[k].in[0]] : NULL);
		json_end(j);
	}
	json_end(j);
}

/* "counters" and "metrics" over one block. */
static void json_counters(struct json *j, const struct stat_run *run, const struct stat_block *b)
{
	unsigned i;

	json_array(j, "counters");
	for (i = 0; i < run->n; i++) {
		struct row r = row_of(run, b, i);
		json_counter(j, run, &r);
	}
	json_end(j);
	json_metrics(j, run, b);
}

/* "threads": one object per thread, with its counters. */
static void json_threads(struct json *j, const struct stat_run *run,
                         const struct stat_block *blocks, unsigned n_blocks)
{
	unsigned b;

	json_array(j, "threads");
	for (b = 0; b < n_blocks; b++) {
		json_object(j, NULL);
		json_int(j, "tid", blocks[b].thread->tid);
		json_string(j, "comm", blocks[b].thread->comm);
		json_counters(j, run, &blocks[b]);
		json_end(j);
	}
	json_end(j);
}

static const char *target_name(enum stat_target t)
{
	return t == STAT_COMMAND     ? "command"
	       : t == STAT_PROCESSES ? "processes"
	       : t == STAT_THREADS   ? "threads"
	                             : "cpus";
}

static void json_target(struct json *j, const struct stat_run *run)
{
	char **arg;
	unsigned i;

	json_array(j, "command");
	for (arg = run->argv; arg && *arg; arg++)
		json_string(j, NULL, *arg);
	json_end(j);
	json_string(j, "target", target_name(run->target));
	json_array(j, "ids"); /* the processes, threads or CPUs counted */
	if (run->target == STAT_CPUS)
		for (i = 0; i < run->n_units; i++)
			json_int(j, NULL, run->unit[i].cpu);
	else
		for (i = 0; i < run->n_ids; i++)
			json_int(j, NULL, run->ids[i]);
	json_end(j);
}

static void json_report(FILE *out, const struct stat_run *run, const struct stat_block *blocks,
                        unsigned n_blocks)
{
	struct stat_figure fig[UPMC_MAX_COUNTERS];
	struct stat_block all = totals(run, fig);
	int ran = run->argv != NULL, own_times = run->target == STAT_COMMAND && run->runs == 1;
	struct json j;

	json_start(&j, out);
	json_object(&j, NULL);
	json_target(&j, run);
	json_uint(&j, "runs", run->runs);
	if (run->passes)
		json_uint(&j, "passes", run->passes);
	else
		json_null(&j, "passes");
	if (ran)
		json_int(&j, "exit_status", run->exit_status);
	else
		json_null(&j, "exit_status");
	if (run->signal)
		json_int(&j, "signal", run->signal);
	else
		json_null(&j, "signal");
	json_uint(&j, "elapsed_ns", run->elapsed_ns);
	if (run->runs > 1)
		json_double(&j, "elapsed_noise_pct", run->elapsed_noise);
	else
		json_null(&j, "elapsed_noise_pct");
	if (own_times) {
		json_uint(&j, "user_ns", run->user_ns);
		json_uint(&j, "sys_ns", run->sys_ns);
	} else {
		json_null(&j, "user_ns");
		json_null(&j, "sys_ns");
	}
	json_counters(&j, run, &all);
	if (run->per_thread && !run->zones)
		json_threads(&j, run, blocks, n_blocks);
	stat_json_zones(&j, run);
	json_end(&j);
}

/* ---- the entry points ---- */

void stat_print_report(FILE *out, const struct stat_run *run, const struct stat_block *threads,
                       unsigned n_threads)
{
	struct stat_figure fig[UPMC_MAX_COUNTERS];
	struct stat_block all = totals(run, fig);
	const struct stat_block *blocks = run->per_thread ? threads : &all;
	unsigned n_blocks = run->per_thread ? n_threads : 1;

	if (run->format == STAT_JSON)
		json_report(out, run, threads, n_threads);
	else if (run->format == STAT_CSV)
		csv_blocks(out, run, NULL, blocks, n_blocks);
	else
		text_report(out, run, blocks, n_blocks);
	stat_print_zones(out, run);
}

void stat_print_interval_start(FILE *out, const struct stat_run *run)
{
	if (run->format == STAT_TEXT)
		fprintf(out, "#%15s %*s%18s %-4s %s\n", "time", run->per_thread ? 17 : 0,
		        run->per_thread ? "thread " : "", "counts", "unit", "events");
}

void stat_print_interval(FILE *out, const struct stat_run *run, uint64_t at_ns,
                         const struct stat_block *blocks, unsigned n_blocks)
{
	char time[48], lead[96], label[64];
	struct json j;
	unsigned b, i;

	timestamp(time, sizeof(time), at_ns);
	if (run->format == STAT_CSV) {
		csv_blocks(out, run, time, blocks, n_blocks);
	} else if (run->format == STAT_JSON) {
		json_start_line(&j, out);
		json_object(&j, NULL);
		json_double(&j, "interval", (double)at_ns / 1e9);
		if (run->per_thread)
			json_threads(&j, run, blocks, n_blocks);
		else
			json_counters(&j, run, &blocks[0]);
		stat_json_zone_interval(&j, run);
		json_end(&j);
	} else {
		for (b = 0; b < n_blocks; b++) {
			label[0] = '\0';
			if (blocks[b].thread)
				thread_label(label, sizeof(label), blocks[b].thread);
			cli_format(lead, sizeof(lead), "%s %*s%s", time, label[0] ? 16 : 0, label,
			           label[0] ? " " : "");
			for (i = 0; i < run->n; i++) {
				struct row r = row_of(run, &blocks[b], i);
				text_row(out, run, &r, lead, 0, 0);
				text_metric_lines(out, run, &blocks[b], i, lead);
			}
		}
	}
	if (run->format != STAT_JSON)
		stat_print_zone_interval(out, run, time);
}

void stat_print_interval_end(FILE *out, const struct stat_run *run)
{
	unsigned note[UPMC_MAX_COUNTERS], notes = group_notes(run, note);

	if (run->format != STAT_TEXT || !notes)
		return;
	fputc('\n', out);
	text_notes(out, run, note, notes);
}
