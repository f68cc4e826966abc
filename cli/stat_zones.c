/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat --zones`: the command's own zones, counted by the library in
 * it. stat hands the command a file (a memfd, inherited at its exec) and
 * the request in UPMC_STAT_ZONES; each process with the library reports
 * into the file at its exit (lib/zone/request.c; the line format is in
 * docs/zones.md). Here the reports are read back, added up by zone name
 * (over threads and processes; per thread with --per-thread), and printed
 * after perf stat's block: calls, total and self time, each counter's
 * total, and each metric of those totals.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench/json.h"
#include "cli/cli.h"
#include "cli/stat.h"

#define ZONE_NAME_BYTES 512 /* a name the library escaped: at most 2 x 127 */

/* One zone name's figures on one thread (or, merged, on all of them). */
struct zone_row {
	char name[ZONE_NAME_BYTES];
	uint64_t pid, tid;
	uint64_t calls, total_ns, self_ns;
	uint64_t value[UPMC_MAX_COUNTERS];   /* by column */
	uint64_t counted[UPMC_MAX_COUNTERS]; /* calls the counter counted in */
	int has[UPMC_MAX_COUNTERS];          /* the row's process counts this column */
	unsigned run;                        /* -r: of which run (0, 1, ...) */
	/* -r: the standard deviation of the mean over the runs, in % of it */
	double total_noise, noise[UPMC_MAX_COUNTERS];
};

struct zone_thread {
	uint64_t pid, tid;
	unsigned run;
	char name[128];
};

struct stat_zone_report {
	unsigned runs;                 /* -r: the runs whose reports are here */
	unsigned loaded, reports, own; /* of the last run */
	/* the last process that opened its own profile while the request's
	 * served it, and when (ns after its first zone); 0: none did */
	uint64_t ended_pid, ended_ns;
	char note[512];
	unsigned n_columns; /* the counters' names, in the order they came */
	char column[UPMC_MAX_COUNTERS][UPMC_NAME_MAX];
	struct zone_row *row; /* per thread */
	size_t n_rows, cap_rows;
	struct zone_row *unions; /* --zones=NAMES: the named zones together, per thread */
	size_t n_unions, cap_unions;
	struct zone_thread *thread;
	size_t n_threads, cap_threads;
	uint64_t zones, dropped, unbalanced, refused, open;
	int intervals;      /* -I's sums: the "interval" lines are taken as a report's */
	unsigned traces;    /* --trace: the last run's processes that wrote one */
	uint64_t trace_pid; /* ... the one in the file */
};

/* ---- the file ---- */

int stat_trace_format(const char *path)
{
	size_t len = strlen(path);

	if (len > 8 && !strcmp(path + len - 8, ".pftrace"))
		return STAT_TRACE_PERFETTO;
	if (len > 5 && !strcmp(path + len - 5, ".json"))
		return STAT_TRACE_CHROME;
	return 0;
}

/* A file of stat's own that the processes append to; its descriptor, or
 * -errno with run->error saying why. */
static int make_file(struct stat_run *run, const char *name, const char *what)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd < 0 || fcntl(fd, F_SETFL, O_APPEND) < 0) {
		int err = -errno;
		if (fd >= 0)
			close(fd);
		cli_format(run->error, sizeof(run->error),
		           "cannot make the file for the zones' %s: %s", what, strerror(-err));
		return err;
	}
	return fd;
}

int stat_zones_open(struct stat_run *run)
{
	int fd = make_file(run, "upmc-stat-zones", "report");

	run->zone_fd = -1;
	run->trace_fd = -1;
	if (fd < 0)
		return fd;
	run->zone_fd = fd;
	if (!run->trace_path)
		return 0;
	fd = make_file(run, "upmc-stat-zones-trace", "trace");
	if (fd < 0) {
		close(run->zone_fd);
		run->zone_fd = -1;
		return fd;
	}
	run->trace_fd = fd;
	return 0;
}

static char *read_all(int fd, size_t *len)
{
	size_t cap = 65536;
	char *buf = malloc(cap + 1);
	ssize_t got;

	*len = 0;
	while (buf) {
		got = pread(fd, buf + *len, cap - *len, (off_t)*len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		*len += (size_t)got;
		if (*len == cap) {
			char *bigger = realloc(buf, 2 * cap + 1);
			if (!bigger) {
				free(buf);
				return NULL;
			}
			buf = bigger;
			cap *= 2;
		}
	}
	if (buf)
		buf[*len] = '\0';
	return buf;
}

/* The first of the traces in text ("upmc-trace\t1\t<pid>\t<bytes>\n",
 * then the bytes); how many there are, and the first's pid, bytes and
 * length. */
static unsigned split_traces(const char *text, size_t len, uint64_t *pid, const char **first,
                             size_t *first_len)
{
	size_t at = 0;
	unsigned n = 0;

	*first = NULL;
	*first_len = 0;
	while (at < len) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		unsigned long long who, bytes;
		if (!nl || sscanf(line, "upmc-trace\t1\t%llu\t%llu", &who, &bytes) != 2 ||
		    bytes > len - (size_t)(nl + 1 - text))
			break; /* not whole: what came before stands */
		if (!n++) {
			*pid = who;
			*first = nl + 1;
			*first_len = (size_t)bytes;
		}
		at = (size_t)(nl + 1 - text) + (size_t)bytes;
	}
	return n;
}

/* --trace FILE: the first process's trace, the last run's (each run's
 * overwrites the one before). A failure is said here and makes stat's
 * exit status 1. */
static void take_trace(struct stat_run *run)
{
	struct cli_output out;
	const char *first;
	size_t len, first_len;
	uint64_t pid = 0;
	char *text;
	unsigned n;
	int err;

	if (run->trace_fd < 0)
		return;
	text = read_all(run->trace_fd, &len);
	close(run->trace_fd);
	run->trace_fd = -1;
	if (!text)
		return;
	n = split_traces(text, len, &pid, &first, &first_len);
	if (run->report) {
		run->report->traces = n;
		run->report->trace_pid = pid;
	}
	if (n && !(err = cli_output_open(&out, run->trace_path))) {
		if (fwrite(first, 1, first_len, out.f) != first_len)
			err = -EIO;
		if (err)
			cli_output_discard(&out);
		else
			err = cli_output_commit(&out);
	}
	if (n && err) {
		fprintf(stderr, "upmc stat: cannot write the zones' trace '%s': %s\n",
		        run->trace_path, strerror(-err));
		run->trace_failed = 1;
	}
	free(text);
}

void stat_zones_take(struct stat_run *run)
{
	size_t len;
	char *text;

	if (!run->zones || run->zone_fd < 0)
		return;
	text = read_all(run->zone_fd, &len);
	close(run->zone_fd);
	run->zone_fd = -1;
	if (!text)
		;
	else if (!run->report)
		run->report = stat_zones_parse(text, len);
	else if (stat_zones_parse_more(run->report, text, len) < 0) {
		stat_zones_free_report(run->report);
		run->report = NULL;
	}
	free(text);
	take_trace(run);
}

static void free_intervals(struct stat_run *run);

void stat_zones_free(struct stat_run *run)
{
	if (!run->zones)
		return;
	if (run->zone_fd >= 0)
		close(run->zone_fd);
	if (run->trace_fd >= 0)
		close(run->trace_fd);
	run->zone_fd = run->trace_fd = -1;
	stat_zones_free_report(run->report);
	run->report = NULL;
	free_intervals(run);
}

/* ---- parsing the reports ---- */

/* The fields of a line, split at tabs in place; how many (at most max). */
static unsigned split(char *line, char **field, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		char *tab = strchr(line, '\t');
		field[n++] = line;
		if (!tab)
			break;
		*tab = '\0';
		line = tab + 1;
	}
	return n;
}

/* A field's escapes (\t, \n, \r, \\) undone, into buf. */
static void unescape(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < size; s++) {
		char c = *s;
		if (c == '\\' && s[1]) {
			s++;
			c = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
}

static uint64_t number(const char *s)
{
	return strtoull(s, NULL, 10);
}

static void *grow(void *items, size_t *cap, size_t n, size_t size)
{
	void *bigger;

	if (n < *cap)
		return items;
	bigger = realloc(items, (2 * *cap + 16) * size);
	if (bigger)
		*cap = 2 * *cap + 16;
	return bigger;
}

static unsigned column_of(struct stat_zone_report *r, const char *name)
{
	unsigned c;

	for (c = 0; c < r->n_columns; c++)
		if (!strcmp(r->column[c], name))
			return c;
	if (r->n_columns == UPMC_MAX_COUNTERS)
		return UPMC_MAX_COUNTERS;
	cli_format(r->column[r->n_columns], UPMC_NAME_MAX, "%s", name);
	return r->n_columns++;
}

/* One report's state while its lines are read: its counters' columns. */
struct reading {
	uint64_t pid;
	unsigned run;
	int skip; /* in lines written for -I (the report's come at the exit) */
	unsigned n, column[UPMC_MAX_COUNTERS];
};

/* A zone or union line's figures: calls, total, self, then the counters. */
static int take_row(struct zone_row *z, const struct reading *rd, char **f, unsigned n)
{
	unsigned i;

	if (n < 3 + rd->n)
		return -1;
	memset(z->value, 0, sizeof(z->value));
	z->pid = rd->pid;
	z->run = rd->run;
	z->calls = number(f[0]);
	z->total_ns = number(f[1]);
	z->self_ns = number(f[2]);
	for (i = 0; i < rd->n; i++) {
		unsigned c = rd->column[i];
		const char *v = f[3 + i], *slash = strchr(v, '/');
		if (c >= UPMC_MAX_COUNTERS)
			continue;
		z->has[c] = 1;
		if (v[0] == '-')
			continue;
		z->value[c] = number(v);
		z->counted[c] = slash ? number(slash + 1) : z->calls;
	}
	return 0;
}

static int take_line(struct stat_zone_report *r, struct reading *rd, char *line)
{
	char *f[3 + 2 * UPMC_MAX_COUNTERS];
	unsigned n = split(line, f, sizeof(f) / sizeof(f[0]));
	struct zone_row *z;

	if (!strcmp(f[0], "upmc-zones") && n >= 5 && !strcmp(f[2], "interval") && !r->intervals) {
		rd->skip = 1;
	} else if (!strcmp(f[0], "upmc-zones") && n >= 4 && !strcmp(f[2], "loaded")) {
		r->loaded++;
	} else if (!strcmp(f[0], "upmc-zones") && n >= 5 &&
	           (!strcmp(f[2], "report") || !strcmp(f[2], "interval"))) {
		unsigned run = rd->run;
		memset(rd, 0, sizeof(*rd));
		rd->run = run;
		rd->pid = number(f[3]);
		r->reports++;
		r->own += !strcmp(f[4], "own");
	} else if (rd->skip) {
		; /* -I's lines: stat_zones_tick() reads them */
	} else if (!strcmp(f[0], "ended") && n >= 2) {
		r->ended_pid = rd->pid;
		r->ended_ns = number(f[1]);
	} else if (!strcmp(f[0], "note") && n >= 2) {
		unescape(r->note, sizeof(r->note), f[1]);
	} else if (!strcmp(f[0], "counter") && n >= 2 && rd->n < UPMC_MAX_COUNTERS) {
		char name[UPMC_NAME_MAX];
		unescape(name, sizeof(name), f[1]);
		rd->column[rd->n++] = column_of(r, name);
	} else if (!strcmp(f[0], "thread") && n >= 3) {
		if (!(r->thread =
		              grow(r->thread, &r->cap_threads, r->n_threads, sizeof(*r->thread))))
			return -ENOMEM;
		r->thread[r->n_threads].pid = rd->pid;
		r->thread[r->n_threads].run = rd->run;
		r->thread[r->n_threads].tid = number(f[1]);
		unescape(r->thread[r->n_threads].name, sizeof(r->thread->name), f[2]);
		r->n_threads++;
	} else if (!strcmp(f[0], "zone") && n >= 3) {
		if (!(r->row = grow(r->row, &r->cap_rows, r->n_rows, sizeof(*r->row))))
			return -ENOMEM;
		z = &r->row[r->n_rows];
		memset(z, 0, sizeof(*z));
		z->tid = number(f[1]);
		unescape(z->name, sizeof(z->name), f[2]);
		if (take_row(z, rd, f + 3, n - 3) == 0)
			r->n_rows++;
	} else if (!strcmp(f[0], "union") && n >= 2) {
		if (!(r->unions = grow(r->unions, &r->cap_unions, r->n_unions, sizeof(*r->unions))))
			return -ENOMEM;
		z = &r->unions[r->n_unions];
		memset(z, 0, sizeof(*z));
		z->tid = number(f[1]);
		if (take_row(z, rd, f + 2, n - 2) == 0)
			r->n_unions++;
	} else if (!strcmp(f[0], "stats") && n >= 6) {
		r->zones += number(f[1]);
		r->dropped += number(f[2]);
		r->unbalanced += number(f[3]);
		r->refused += number(f[4]);
		r->open += number(f[5]);
	}
	return 0;
}

int stat_zones_parse_more(struct stat_zone_report *r, const char *text, size_t len)
{
	char *copy = malloc(len + 1), *line, *next;
	struct reading rd;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	memset(&rd, 0, sizeof(rd));
	rd.run = r->runs++;
	r->loaded = r->reports = r->own = 0; /* the last run's */
	r->ended_pid = r->ended_ns = 0;
	for (line = copy; line && *line && !err; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		err = take_line(r, &rd, line);
	}
	free(copy);
	return err;
}

struct stat_zone_report *stat_zones_parse(const char *text, size_t len)
{
	struct stat_zone_report *r = calloc(1, sizeof(*r));

	if (r && stat_zones_parse_more(r, text, len) < 0) {
		stat_zones_free_report(r);
		r = NULL;
	}
	return r;
}

void stat_zones_free_report(struct stat_zone_report *r)
{
	if (!r)
		return;
	free(r->row);
	free(r->unions);
	free(r->thread);
	free(r);
}

/* ---- adding up ---- */

static void add_row(struct zone_row *to, const struct zone_row *z)
{
	unsigned c;

	to->calls += z->calls;
	to->total_ns += z->total_ns;
	to->self_ns += z->self_ns;
	for (c = 0; c < UPMC_MAX_COUNTERS; c++) {
		to->value[c] += z->value[c];
		to->counted[c] += z->counted[c];
		to->has[c] |= z->has[c];
	}
}

static int wanted(const struct stat_run *run, const char *name)
{
	const char *p = run->zone_names;
	size_t len = strlen(name);

	while (p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (n == len && !strncmp(p, name, len))
			return 1;
		p = comma ? comma + 1 : NULL;
	}
	return !run->zone_names;
}

static int by_total(const void *a, const void *b)
{
	const struct zone_row *x = a, *y = b;

	return (x->total_ns < y->total_ns) - (x->total_ns > y->total_ns);
}

/* Whether row z is of the span asked for: one thread (pid, tid) of the
 * last run, every thread of one run (tid 0, run), or of every run (tid 0,
 * EVERY_RUN). */
#define EVERY_RUN (~0u)
static int of_span(const struct zone_row *z, uint64_t pid, uint64_t tid, unsigned run)
{
	if (tid)
		return z->tid == tid && z->pid == pid;
	return run == EVERY_RUN || z->run == run;
}

/* The sums by name of the zones wanted in a span (of_span()); *n of them. */
static struct zone_row *sums_of(const struct stat_run *run, uint64_t pid, uint64_t tid,
                                unsigned span, size_t *n)
{
	const struct stat_zone_report *r = run->report;
	struct zone_row *out = calloc(r->n_rows + 1, sizeof(*out));
	size_t i, k;

	*n = 0;
	for (i = 0; out && i < r->n_rows; i++) {
		const struct zone_row *z = &r->row[i];
		if (!wanted(run, z->name) || !of_span(z, pid, tid, span))
			continue;
		for (k = 0; k < *n && strcmp(out[k].name, z->name); k++)
			;
		if (k == *n) {
			cli_format(out[k].name, sizeof(out[k].name), "%s", z->name);
			out[k].pid = z->pid;
			out[k].tid = tid;
			++*n;
		}
		add_row(&out[k], z);
	}
	return out;
}

static uint64_t mean_of(uint64_t sum, unsigned runs)
{
	return (sum + runs / 2) / runs;
}

/* -r: the row's sums over every run made means, with the spread of the
 * runs' own sums (a run without the zone adds 0, as its count was 0). */
static void make_mean(const struct stat_run *run, struct zone_row *z,
                      const struct zone_row *const *per_run, const size_t *n_per_run)
{
	const unsigned runs = run->report->runs;
	struct stat_spread total, value[UPMC_MAX_COUNTERS];
	unsigned k, c;
	size_t i;

	memset(&total, 0, sizeof(total));
	memset(value, 0, sizeof(value));
	for (k = 0; k < runs; k++) {
		const struct zone_row *one = NULL;
		for (i = 0; per_run[k] && i < n_per_run[k] && !one; i++)
			if (!strcmp(per_run[k][i].name, z->name))
				one = &per_run[k][i];
		stat_spread_add(&total, one ? (double)one->total_ns : 0);
		for (c = 0; c < UPMC_MAX_COUNTERS; c++)
			stat_spread_add(&value[c], one ? (double)one->value[c] : 0);
	}
	z->calls = mean_of(z->calls, runs);
	z->total_ns = mean_of(z->total_ns, runs);
	z->self_ns = mean_of(z->self_ns, runs);
	z->total_noise = stat_spread_noise(&total);
	for (c = 0; c < UPMC_MAX_COUNTERS; c++) {
		z->value[c] = mean_of(z->value[c], runs);
		z->counted[c] = mean_of(z->counted[c], runs);
		z->noise[c] = stat_spread_noise(&value[c]);
	}
}

/* -r: the rows of every run, means over them, each with its spread. */
static void make_means(const struct stat_run *run, struct zone_row *rows, size_t n)
{
	const unsigned runs = run->report->runs;
	struct zone_row **per_run = calloc(runs, sizeof(*per_run));
	size_t *n_per_run = calloc(runs, sizeof(*n_per_run)), i;
	unsigned k;

	for (k = 0; per_run && n_per_run && k < runs; k++)
		per_run[k] = sums_of(run, 0, 0, k, &n_per_run[k]);
	for (i = 0; per_run && n_per_run && i < n; i++)
		make_mean(run, &rows[i], (const struct zone_row *const *)per_run, n_per_run);
	for (k = 0; per_run && k < runs; k++)
		free(per_run[k]);
	free(per_run);
	free(n_per_run);
}

/* The rows of one thread (pid, tid) of the last run, or of all (tid 0)
 * merged by name (-r: their means over the runs), of the zones wanted, by
 * total time; *n of them. */
static struct zone_row *rows_of(const struct stat_run *run, uint64_t pid, uint64_t tid, size_t *n)
{
	struct zone_row *out = sums_of(run, pid, tid, EVERY_RUN, n);

	if (out && !tid && run->report->runs > 1)
		make_means(run, out, *n);
	if (out && *n > 1)
		qsort(out, *n, sizeof(*out), by_total);
	return out;
}

/* The named zones together over a span (of_span()). */
static struct zone_row union_in(const struct stat_run *run, uint64_t pid, uint64_t tid,
                                unsigned span)
{
	const struct stat_zone_report *r = run->report;
	struct zone_row u;
	size_t i;

	memset(&u, 0, sizeof(u));
	cli_format(u.name, sizeof(u.name), "%s", run->zone_names);
	for (i = 0; i < r->n_unions; i++)
		if (of_span(&r->unions[i], pid, tid, span))
			add_row(&u, &r->unions[i]);
	return u;
}

/* The named zones together over one thread of the last run, or all of
 * them (tid 0; -r: the mean over the runs). */
static struct zone_row union_of(const struct stat_run *run, uint64_t pid, uint64_t tid)
{
	const unsigned runs = run->report->runs;
	struct zone_row u = union_in(run, pid, tid, EVERY_RUN);
	struct zone_row *per_run = tid || runs < 2 ? NULL : calloc(runs, sizeof(*per_run));
	const struct zone_row **each = per_run ? calloc(runs, sizeof(*each)) : NULL;
	size_t *ones = each ? calloc(runs, sizeof(*ones)) : NULL;
	unsigned k;

	for (k = 0; ones && k < runs; k++) {
		per_run[k] = union_in(run, 0, 0, k);
		each[k] = &per_run[k];
		ones[k] = 1;
	}
	if (ones)
		make_mean(run, &u, (const struct zone_row *const *)each, ones);
	free(ones);
	free(each);
	free(per_run);
	return u;
}

/* Whether thread t is of the last run (--per-thread with -r shows those). */
static int last_runs(const struct stat_zone_report *r, size_t t)
{
	return r->thread[t].run + 1 == r->runs;
}

static size_t threads_of_the_last_run(const struct stat_zone_report *r)
{
	size_t t, n = 0;

	for (t = 0; t < r->n_threads; t++)
		n += last_runs(r, t);
	return n;
}

/* ---- what each cell shows ---- */

/* The stat counter of the column's name, or NULL. */
static const struct stat_counter *counter_named(const struct stat_run *run, const char *name)
{
	unsigned i;

	for (i = 0; i < run->n; i++)
		if (!strcmp(run->counter[i].event.name, name))
			return &run->counter[i];
	return NULL;
}

/* "<not supported>" (stat could not count it either), "<not counted>", or "". */
static const char *zone_note(const struct stat_run *run, const struct zone_row *z, unsigned c)
{
	const struct stat_counter *sc = counter_named(run, run->report->column[c]);

	if (z->has[c] && z->counted[c])
		return "";
	if (sc && sc->status == STAT_NOT_SUPPORTED)
		return "<not supported>";
	return "<not counted>";
}

/* Metric j of the row's totals (stat's metrics, by their events' names);
 * NAN where an input did not count. */
static double zone_metric(const struct stat_run *run, const struct zone_row *z, unsigned j)
{
	uint64_t counts[UPMC_MAX_COUNTERS];
	struct upmc_metric_info info;
	unsigned i, c;

	for (i = 0; i < run->n; i++) {
		counts[i] = UPMC_NOT_COUNTED;
		for (c = 0; c < run->report->n_columns; c++)
			if (!strcmp(run->report->column[c], run->counter[i].event.name) &&
			    z->has[c] && z->counted[c])
				counts[i] = z->value[c];
	}
	upmc_metric_describe(&run->metric[j], &info);
	return upmc_metric_value(&run->metric[j], counts) * (info.percent ? 100 : 1);
}

static const char *metric_name(const struct stat_run *run, unsigned j)
{
	struct upmc_metric_info info;

	upmc_metric_describe(&run->metric[j], &info);
	return info.name;
}

/* ---- text ---- */

static void text_head(FILE *out, const struct stat_run *run, int width)
{
	const struct stat_zone_report *r = run->report;
	unsigned c, j;

	fprintf(out, " %-*s %10s %14s", width, "zone", "calls", "total msec");
	if (r->runs > 1)
		fprintf(out, " %8s", "+-");
	fprintf(out, " %14s", "self msec");
	for (c = 0; c < r->n_columns; c++) {
		fprintf(out, " %18s", r->column[c]);
		if (r->runs > 1)
			fprintf(out, " %8s", "+-");
	}
	for (j = 0; j < run->n_metrics; j++)
		fprintf(out, " %14s", metric_name(run, j));
	fputc('\n', out);
}

static void text_row(FILE *out, const struct stat_run *run, const struct zone_row *z, int width)
{
	const struct stat_zone_report *r = run->report;
	char num[40];
	unsigned c, j;

	fprintf(out, " %-*s %10" PRIu64 " %14.3f", width, z->name, z->calls,
	        (double)z->total_ns / 1e6);
	if (r->runs > 1)
		fprintf(out, " %7.2f%%", z->total_noise);
	fprintf(out, " %14.3f", (double)z->self_ns / 1e6);
	for (c = 0; c < r->n_columns; c++) {
		const char *note = zone_note(run, z, c);
		if (note[0]) {
			fprintf(out, " %18s", note);
		} else {
			cli_thousands(num, sizeof(num), z->value[c]);
			fprintf(out, " %17s%s", num, z->counted[c] < z->calls ? "*" : " ");
		}
		if (r->runs > 1 && note[0])
			fprintf(out, " %8s", "");
		else if (r->runs > 1)
			fprintf(out, " %7.2f%%", z->noise[c]);
	}
	for (j = 0; j < run->n_metrics; j++) {
		double v = zone_metric(run, z, j);
		if (isnan(v))
			fprintf(out, " %14s", "n/a");
		else
			fprintf(out, " %14.3f", v);
	}
	fputc('\n', out);
}

static int name_width(const struct zone_row *rows, size_t n, const struct stat_run *run)
{
	size_t i, w = 12;

	for (i = 0; i < n; i++)
		if (strlen(rows[i].name) > w)
			w = strlen(rows[i].name);
	if (run->zone_names && strlen(run->zone_names) + 11 > w)
		w = strlen(run->zone_names) + 11;
	return (int)w;
}

static void text_table(FILE *out, const struct stat_run *run, uint64_t pid, uint64_t tid,
                       const char *title)
{
	size_t n, i;
	struct zone_row *rows = rows_of(run, pid, tid, &n), u;
	int width;

	if (!rows)
		return;
	width = name_width(rows, n, run);
	fprintf(out, "\n %s\n\n", title);
	text_head(out, run, width);
	for (i = 0; i < n; i++)
		text_row(out, run, &rows[i], width);
	if (run->zone_names) {
		u = union_of(run, pid, tid);
		cli_format(u.name, sizeof(u.name), "(together)");
		text_row(out, run, &u, width);
	}
	free(rows);
}

/* The one sentence for a program that opened its own profile while the
 * request's served it (lib/zone/request.c ended the request's there). */
static const char *ended_sentence(const struct stat_zone_report *r, char *buf, size_t size)
{
	cli_format(buf, size,
	           "process %" PRIu64 " opened its own profile %.3f ms after its first zone: "
	           "its zones are counted up to then, the rest are in its own profile's exports",
	           r->ended_pid, r->ended_ns / 1e6);
	return buf;
}

static void text_zones(FILE *out, const struct stat_run *run)
{
	const struct stat_zone_report *r = run->report;
	char title[256], sentence[256];
	size_t t;

	size_t threads = threads_of_the_last_run(r);
	char means[64] = "";

	if (r->runs > 1)
		cli_format(means, sizeof(means), ", the means of %u runs", r->runs);
	cli_format(title, sizeof(title),
	           "Zones of '%s' (%u process%s, %zu thread%s%s):", run->argv[0], r->reports,
	           r->reports == 1 ? "" : "es", threads, threads == 1 ? "" : "s", means);
	text_table(out, run, 0, 0, title);
	for (t = 0; run->zones_per_thread && t < r->n_threads; t++) {
		if (!last_runs(r, t))
			continue;
		cli_format(title, sizeof(title), "thread %" PRIu64 " '%s':", r->thread[t].tid,
		           r->thread[t].name);
		text_table(out, run, r->thread[t].pid, r->thread[t].tid, title);
	}
	fprintf(out,
	        "\n counters are totals over a name's calls (* where some of them did not count); "
	        "time is the zones' own clock; metrics are of the totals\n");
	if (r->runs > 1)
		fprintf(out,
		        " +-: the standard deviation of the mean over the runs, in %% of it%s\n",
		        run->zones_per_thread ? "; the threads' tables are of the last run" : "");
	if (run->zone_names)
		fprintf(out, " (together): the zones named %s, each with what it encloses, once\n",
		        run->zone_names);
	if (r->own)
		fprintf(out,
		        " the program opened its own profile: its counters are those it chose, not "
		        "-e's\n");
	if (r->ended_pid)
		fprintf(out, " %s\n", ended_sentence(r, sentence, sizeof(sentence)));
	if (r->note[0])
		fprintf(out, " in zones, the events that cannot be counted read not counted: %s\n",
		        r->note);
	if (run->trace_path && r->traces)
		fprintf(out, " the zones' trace%s: %s%s\n", r->runs > 1 ? " (the last run's)" : "",
		        run->trace_path,
		        r->traces > 1 ? ", of the first process that reported (of several)" : "");
	else if (run->trace_path)
		fprintf(out, " no process wrote a trace: %s was left as it was\n", run->trace_path);
	if (r->dropped || r->unbalanced || r->refused || r->open)
		fprintf(out,
		        " %" PRIu64 " zones dropped, %" PRIu64 " unbalanced ends, %" PRIu64
		        " refused, %" PRIu64 " still open at the exit\n",
		        r->dropped, r->unbalanced, r->refused, r->open);
	fputc('\n', out);
}

/* ---- CSV ---- */

static void csv_field(FILE *out, const char *sep, const char *s)
{
	if (!strstr(s, sep) && !strchr(s, '"') && !strchr(s, '\n')) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* -r: the spread of the total time, then of each counter (empty where it
 * did not count), at the end of the row: the columns before keep their
 * places. */
static void csv_noise(FILE *out, const struct stat_run *run, const struct zone_row *z)
{
	const char *sep = run->separator;
	unsigned c;

	fprintf(out, "%s%.2f%%", sep, z->total_noise);
	for (c = 0; c < run->report->n_columns; c++) {
		fputs(sep, out);
		if (!zone_note(run, z, c)[0])
			fprintf(out, "%.2f%%", z->noise[c]);
	}
}

/* zone,NAME,THREAD,calls,total ns,self ns, then per counter its value (or
 * its note), then per metric its value (empty: not computed). */
static void csv_rows(FILE *out, const struct stat_run *run, uint64_t pid, uint64_t tid,
                     const char *thread, const char *lead)
{
	const struct stat_zone_report *r = run->report;
	const char *sep = run->separator;
	size_t n, i;
	struct zone_row *rows = rows_of(run, pid, tid, &n), u;
	unsigned c, j;

	if (!rows)
		return;
	if (run->zone_names) {
		u = union_of(run, pid, tid);
		cli_format(u.name, sizeof(u.name), "(together)");
		rows[n++] = u;
	}
	for (i = 0; i < n; i++) {
		if (lead[0] && !rows[i].calls)
			continue; /* -I: the names with calls in the interval */
		fprintf(out, "%szone%s", lead, sep);
		csv_field(out, sep, rows[i].name);
		fputs(sep, out);
		csv_field(out, sep, thread);
		fprintf(out, "%s%" PRIu64 "%s%" PRIu64 "%s%" PRIu64, sep, rows[i].calls, sep,
		        rows[i].total_ns, sep, rows[i].self_ns);
		for (c = 0; c < r->n_columns; c++) {
			const char *note = zone_note(run, &rows[i], c);
			if (note[0])
				fprintf(out, "%s%s", sep, note);
			else
				fprintf(out, "%s%" PRIu64, sep, rows[i].value[c]);
		}
		for (j = 0; j < run->n_metrics; j++) {
			double v = zone_metric(run, &rows[i], j);
			fputs(sep, out);
			if (!isnan(v))
				fprintf(out, "%.6g", v);
		}
		if (r->runs > 1 && !tid)
			csv_noise(out, run, &rows[i]);
		fputc('\n', out);
	}
	free(rows);
}

/* The zone lines' head, without its line end: lead ("time,": -I) first. */
static void csv_head(FILE *out, const struct stat_run *run, const char *lead)
{
	const char *sep = run->separator;
	unsigned c, j;

	fprintf(out, "# %szone%sname%sthread%scalls%stotal ns%sself ns", lead, sep, sep, sep, sep,
	        sep);
	for (c = 0; c < run->report->n_columns; c++)
		fprintf(out, "%s%s", sep, run->report->column[c]);
	for (j = 0; j < run->n_metrics; j++)
		fprintf(out, "%s%s", sep, metric_name(run, j));
}

static void csv_zones(FILE *out, const struct stat_run *run)
{
	const struct stat_zone_report *r = run->report;
	const char *sep = run->separator;
	char label[160];
	unsigned c;
	size_t t;

	csv_head(out, run, "");
	if (r->runs > 1) {
		fprintf(out, "%stotal ns +-", sep);
		for (c = 0; c < r->n_columns; c++)
			fprintf(out, "%s%s +-", sep, r->column[c]);
	}
	fputc('\n', out);
	if (r->ended_pid) {
		char sentence[256];
		fprintf(out, "# %s\n", ended_sentence(r, sentence, sizeof(sentence)));
	}
	csv_rows(out, run, 0, 0, "", "");
	for (t = 0; run->zones_per_thread && t < r->n_threads; t++) {
		if (!last_runs(r, t))
			continue;
		cli_format(label, sizeof(label), "%s-%" PRIu64, r->thread[t].name,
		           r->thread[t].tid);
		csv_rows(out, run, r->thread[t].pid, r->thread[t].tid, label, "");
	}
}

/* ---- JSON ---- */

static void json_row(struct json *j, const struct stat_run *run, const struct zone_row *z, int mean)
{
	const struct stat_zone_report *r = run->report;
	unsigned c, k;

	json_object(j, NULL);
	json_string(j, "name", z->name);
	json_uint(j, "calls", z->calls);
	json_uint(j, "total_ns", z->total_ns);
	json_uint(j, "self_ns", z->self_ns);
	if (mean)
		json_double(j, "total_noise_pct", z->total_noise);
	else
		json_null(j, "total_noise_pct");
	json_array(j, "counters");
	for (c = 0; c < r->n_columns; c++) {
		const char *note = zone_note(run, z, c);
		json_object(j, NULL);
		json_string(j, "name", r->column[c]);
		json_string(j, "status",
		            note[0] ? (note[5] == 's' ? "not supported" : "not counted")
		                    : "counted");
		if (note[0]) {
			json_null(j, "value");
			json_null(j, "counted_calls");
		} else {
			json_uint(j, "value", z->value[c]);
			json_uint(j, "counted_calls", z->counted[c]);
		}
		if (mean && !note[0])
			json_double(j, "noise_pct", z->noise[c]);
		else
			json_null(j, "noise_pct");
		json_end(j);
	}
	json_end(j);
	json_object(j, "metrics");
	for (k = 0; k < run->n_metrics; k++)
		json_double(j, metric_name(run, k), zone_metric(run, z, k));
	json_end(j);
	json_end(j);
}

static void json_rows(struct json *j, const struct stat_run *run, uint64_t pid, uint64_t tid)
{
	size_t n, i;
	struct zone_row *rows = rows_of(run, pid, tid, &n);

	const int mean = !tid && run->report->runs > 1;

	json_array(j, "zones");
	for (i = 0; rows && i < n; i++)
		json_row(j, run, &rows[i], mean);
	json_end(j);
	if (run->zone_names) {
		struct zone_row u = union_of(run, pid, tid);
		json_array(j, "together"); /* one object: the named zones' union */
		json_row(j, run, &u, mean);
		json_end(j);
	}
	free(rows);
}

void stat_json_zones(struct json *j, const struct stat_run *run)
{
	const struct stat_zone_report *r = run->report;
	size_t t;

	if (!run->zones)
		return;
	json_object(j, "zones");
	json_uint(j, "processes", r ? r->reports : 0);
	json_uint(j, "runs", r ? r->runs : 0);
	json_bool(j, "own_profile", r && r->own);
	json_string(j, "note", r && r->note[0] ? r->note : NULL);
	if (r && r->ended_pid) {
		json_object(j, "own_profile_opened");
		json_uint(j, "pid", r->ended_pid);
		json_uint(j, "after_ns", r->ended_ns);
		json_end(j);
	} else {
		json_null(j, "own_profile_opened");
	}
	if (r && r->reports) {
		json_rows(j, run, 0, 0);
		if (run->zones_per_thread) {
			json_array(j, "threads");
			for (t = 0; t < r->n_threads; t++) {
				if (!last_runs(r, t))
					continue;
				json_object(j, NULL);
				json_string(j, "thread", r->thread[t].name);
				json_uint(j, "tid", r->thread[t].tid);
				json_rows(j, run, r->thread[t].pid, r->thread[t].tid);
				json_end(j);
			}
			json_end(j);
		}
	}
	json_end(j);
}

/* ---- -I: the zones of each interval ---- */

/* A process's lines as they stood last: its latest "interval" block (or
 * its report, at its exit). */
struct process_lines {
	uint64_t pid;
	char *text;
	size_t len;
};

struct stat_zone_intervals {
	size_t taken; /* the file's bytes read (whole blocks) */
	struct process_lines *proc;
	size_t n_procs, cap_procs;
	struct stat_zone_report *last; /* the sums at the last interval */
	struct stat_zone_report *diff; /* this interval's: what they added */
	int head_width;                /* text: the head printed for this width; 0: none */
};

static void free_intervals(struct stat_run *run)
{
	struct stat_zone_intervals *iv = run->zone_intervals;
	size_t i;

	if (!iv)
		return;
	for (i = 0; i < iv->n_procs; i++)
		free(iv->proc[i].text);
	free(iv->proc);
	stat_zones_free_report(iv->last);
	stat_zones_free_report(iv->diff);
	free(iv);
	run->zone_intervals = NULL;
}

/* The block at text (a header line "upmc-zones\t1\t<interval|report>\t<pid>"
 * to its "end" line) made process pid's latest; its length, or 0 where
 * it is not whole yet. */
static size_t keep_block(struct stat_zone_intervals *iv, const char *text, size_t len)
{
	const char *end = memmem(text, len, "\nend\n", 5), *pid = text + 13;
	size_t n = end ? (size_t)(end + 5 - text) : 0, i;
	char *copy;

	if (!n)
		return 0;
	pid = strchr(pid, '\t');
	for (i = 0; i < iv->n_procs && iv->proc[i].pid != number(pid + 1); i++)
		;
	if (i == iv->n_procs) {
		if (!(iv->proc = grow(iv->proc, &iv->cap_procs, iv->n_procs, sizeof(*iv->proc))))
			return 0;
		memset(&iv->proc[i], 0, sizeof(iv->proc[i]));
		iv->proc[i].pid = number(pid + 1);
		iv->n_procs++;
	}
	if (!(copy = malloc(n)))
		return 0;
	memcpy(copy, text, n);
	free(iv->proc[i].text);
	iv->proc[i].text = copy;
	iv->proc[i].len = n;
	return n;
}

/* The file's new whole blocks, each the latest of its process. */
static void read_blocks(struct stat_run *run, struct stat_zone_intervals *iv)
{
	size_t len, at, n;
	char *text = read_all(run->zone_fd, &len);

	for (at = iv->taken; text && at < len; at += n) {
		const char *line = text + at, *nl = memchr(line, '\n', len - at);
		if (!nl)
			break;
		n = (size_t)(nl + 1 - line);
		if (!strncmp(line, "upmc-zones\t1\tinterval\t", 22) ||
		    !strncmp(line, "upmc-zones\t1\treport\t", 20))
			n = keep_block(iv, line, len - at);
		if (!n)
			break; /* not whole yet: the next interval reads it */
	}
	iv->taken = text && at <= len ? at : iv->taken;
	free(text);
}

/* The processes' latest lines added up (their sums since they began). */
static struct stat_zone_report *sums_now(const struct stat_zone_intervals *iv)
{
	struct stat_zone_report *r = calloc(1, sizeof(*r));
	size_t i;

	if (r)
		r->intervals = 1;
	for (i = 0; r && i < iv->n_procs; i++)
		if (stat_zones_parse_more(r, iv->proc[i].text, iv->proc[i].len) < 0) {
			stat_zones_free_report(r);
			r = NULL;
		}
	if (r)
		for (i = 0; i < r->n_rows; i++)
			r->row[i].run = 0; /* one sum, however many processes */
	for (i = 0; r && i < r->n_unions; i++)
		r->unions[i].run = 0;
	if (r)
		r->runs = 1;
	return r;
}

static uint64_t less(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0; /* a program that clears its profile: 0 */
}

/* z less what the same row (the process, the thread, the name) had last. */
static void subtract(struct zone_row *z, const struct stat_zone_report *now,
                     const struct stat_zone_report *last, const struct zone_row *rows,
                     size_t n_rows, int named)
{
	const struct zone_row *was = NULL;
	unsigned c, k;
	size_t i;

	for (i = 0; i < n_rows && !was; i++)
		if (rows[i].pid == z->pid && rows[i].tid == z->tid &&
		    (!named || !strcmp(rows[i].name, z->name)))
			was = &rows[i];
	if (!was)
		return;
	z->calls = less(z->calls, was->calls);
	z->total_ns = less(z->total_ns, was->total_ns);
	z->self_ns = less(z->self_ns, was->self_ns);
	for (c = 0; c < now->n_columns; c++)
		for (k = 0; k < last->n_columns; k++)
			if (!strcmp(now->column[c], last->column[k])) {
				z->value[c] = less(z->value[c], was->value[k]);
				z->counted[c] = less(z->counted[c], was->counted[k]);
			}
}

/* now made what it added since last (NULL: since the start). */
static void make_difference(struct stat_zone_report *now, const struct stat_zone_report *last)
{
	size_t i;

	for (i = 0; last && i < now->n_rows; i++)
		subtract(&now->row[i], now, last, last->row, last->n_rows, 1);
	for (i = 0; last && i < now->n_unions; i++)
		subtract(&now->unions[i], now, last, last->unions, last->n_unions, 0);
}

void stat_zones_tick(struct stat_run *run)
{
	struct stat_zone_intervals *iv = run->zone_intervals;
	struct stat_zone_report *now, *diff;

	if (!run->zone_interval_ms || run->zone_fd < 0)
		return;
	if (!iv && !(iv = run->zone_intervals = calloc(1, sizeof(*iv))))
		return;
	read_blocks(run, iv);
	now = sums_now(iv);
	diff = sums_now(iv);
	stat_zones_free_report(iv->diff);
	iv->diff = NULL;
	if (!now || !diff) {
		stat_zones_free_report(now);
		stat_zones_free_report(diff);
		return;
	}
	make_difference(diff, iv->last);
	stat_zones_free_report(iv->last);
	iv->last = now;
	iv->diff = diff;
}

/* run, its report this interval's. */
static struct stat_run *interval_view(const struct stat_run *run, struct stat_run *view)
{
	if (!run->zones || !run->zone_intervals || !run->zone_intervals->diff)
		return NULL;
	*view = *run;
	view->report = run->zone_intervals->diff;
	return view;
}

static void text_interval(FILE *out, const struct stat_run *view, const char *time)
{
	struct stat_zone_intervals *iv = view->zone_intervals;
	size_t n, i;
	struct zone_row *rows = rows_of(view, 0, 0, &n), u;
	int width;

	if (!rows)
		return;
	width = name_width(rows, n, view);
	if (width != iv->head_width && view->report->n_rows) {
		fprintf(out, "#%15s", "time");
		text_head(out, view, width);
		iv->head_width = width;
	}
	for (i = 0; i < n; i++)
		if (rows[i].calls) {
			fputs(time, out);
			text_row(out, view, &rows[i], width);
		}
	u = view->zone_names ? union_of(view, 0, 0) : (struct zone_row){.calls = 0};
	if (u.calls) {
		cli_format(u.name, sizeof(u.name), "(together)");
		fputs(time, out);
		text_row(out, view, &u, width);
	}
	free(rows);
}

void stat_print_zone_interval(FILE *out, const struct stat_run *run, const char *time)
{
	struct stat_run *view = malloc(sizeof(*view));
	char lead[64];

	if (view && interval_view(run, view)) {
		if (run->format == STAT_CSV) {
			cli_format(lead, sizeof(lead), "%s%s", time, run->separator);
			if (!run->zone_intervals->head_width && view->report->n_rows) {
				char head[64];
				cli_format(head, sizeof(head), "time%s", run->separator);
				csv_head(out, view, head);
				fputc('\n', out);
				run->zone_intervals->head_width = 1;
			}
			csv_rows(out, view, 0, 0, "", lead);
		} else {
			text_interval(out, view, time);
		}
	}
	free(view);
}

void stat_json_zone_interval(struct json *j, const struct stat_run *run)
{
	struct stat_run *view = malloc(sizeof(*view));

	if (view && interval_view(run, view))
		json_rows(j, view, 0, 0);
	free(view);
}

/* ---- without zones ---- */

static void no_zones(FILE *out, const struct stat_run *run)
{
	const struct stat_zone_report *r = run->report;

	if (r && r->loaded)
		fprintf(out,
		        " '%s' ran no zone: put UPMC_ZONE(\"name\") (<upmc/zone.h>) at the top of "
		        "each "
		        "block to measure, or upmc::Zone in C++, and build it again; "
		        "docs/zones.md\n\n",
		        run->argv[0]);
	else
		fprintf(out,
		        " '%s' ran no zone: it does not use upmc's library (or ended before its "
		        "exit "
		        "handlers ran); link it with upmc and put UPMC_ZONE(\"name\") "
		        "(<upmc/zone.h>) at the top of each block to measure; docs/zones.md\n\n",
		        run->argv[0]);
}

void stat_print_zones(FILE *out, const struct stat_run *run)
{
	if (!run->zones || run->format == STAT_JSON)
		return;
	if (!run->report || !run->report->reports || !run->report->n_rows) {
		if (run->format == STAT_TEXT)
			no_zones(out, run);
		return;
	}
	if (run->format == STAT_CSV)
		csv_zones(out, run);
	else
		text_zones(out, run);
}
