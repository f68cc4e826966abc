/* SPDX-License-Identifier: MIT */
/* The benchmark's report: the table and the performance targets, as text, JSON or CSV. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/overhead.h"
#include "bench/json.h"

enum verdict { MET, MISSED, NOT_CHECKED, INFO };

struct target {
	char text[96];   /* the target, in words */
	double measured; /* in the unit of limit; NAN when not checked */
	double limit;    /* NAN for information only */
	enum verdict verdict;
	char note[240];  /* the figures, or what else to know */
	const char *why; /* not checked: a case's reason for being skipped */
};

#define MAX_TARGETS 24

static const char *const verdict_names[] = {"met", "missed", "not checked", "info"};

static int measured(const struct bench_case *c)
{
	return c && !isnan(c->median);
}

/* The case a row is compared with: its raw instruction, or the raw rdtsc
 * pair when that instruction cannot run here (read(2) without rdpmc). */
static const struct bench_case *baseline_of(const struct bench_report *r,
                                            const struct bench_case *c)
{
	const struct bench_case *b;

	if (!c->baseline || !measured(c))
		return NULL;
	b = bench_find(r->cases, r->n, c->baseline);
	return measured(b) ? b : bench_find(r->cases, r->n, BENCH_RAW_TSC);
}

static double ratio_of(const struct bench_report *r, const struct bench_case *c)
{
	const struct bench_case *b = baseline_of(r, c);

	if (!c->baseline)
		return measured(c) ? 1.0 : NAN;
	return measured(b) && measured(c) ? c->median / b->median : NAN;
}

static void judge(struct target *t, double value, double limit)
{
	t->measured = value;
	t->limit = limit;
	t->verdict = value <= limit ? MET : MISSED;
}

static void not_checked(struct target *t, const char *why)
{
	t->measured = NAN;
	t->limit = NAN;
	t->verdict = NOT_CHECKED;
	t->why = why;
}

/* upmc's case within factor x of the raw one's median. */
static void target_ratio(struct target *t, const struct bench_report *r, const char *upmc,
                         const char *raw, double x)
{
	const struct bench_case *u = bench_find(r->cases, r->n, upmc);
	const struct bench_case *w = bench_find(r->cases, r->n, raw);

	snprintf(t->text, sizeof(t->text), "%s <= %.1fx %s", upmc, x, raw);
	if (!measured(u) || !measured(w)) {
		not_checked(t, measured(u) ? w->skipped : u->skipped);
		return;
	}
	judge(t, u->median / w->median, x);
	snprintf(t->note, sizeof(t->note), "%.2fx (%.2f ns against %.2f ns)", t->measured,
	         u->median, w->median);
}

/*
 * An instruction target: u's instructions less `times` w's, at most
 * `allowed`. Only a machine whose counters read in user space counts them.
 */
static void judge_instructions(struct target *t, const struct bench_case *u,
                               const struct bench_case *w, unsigned times, double allowed)
{
	if (!measured(u) || !measured(w)) {
		not_checked(t, measured(u) ? w->skipped : u->skipped);
		snprintf(t->note, sizeof(t->note),
		         "the target is in instructions: only a machine with a PMU can check it");
		return;
	}
	if (isnan(u->instr_median) || isnan(w->instr_median)) {
		not_checked(t, "the instructions could not be counted");
		snprintf(t->note, sizeof(t->note), "%.2f ns against %.2f ns", u->median, w->median);
		return;
	}
	judge(t, u->instr_median - times * w->instr_median, allowed);
	snprintf(t->note, sizeof(t->note),
	         "+%.1f instructions (%.1f against %u x %.1f; %.2f ns against %.2f ns)",
	         t->measured, u->instr_median, times, w->instr_median, u->median, w->median);
}

static void target_single_read(struct target *t, const struct bench_report *r)
{
	snprintf(t->text, sizeof(t->text), "%s <= %s + 10 instructions", BENCH_READ_ONE,
	         BENCH_RAW_PMC);
	judge_instructions(t, bench_find(r->cases, r->n, BENCH_READ_ONE),
	                   bench_find(r->cases, r->n, BENCH_RAW_PMC), 1, 10);
}

static void target_set_read(struct target *t, const struct bench_report *r, const char *name,
                            unsigned k)
{
	const struct bench_case *set = bench_find(r->cases, r->n, name);
	const struct bench_case *one = bench_find(r->cases, r->n, BENCH_READ_ONE);

	snprintf(t->text, sizeof(t->text), "%s <= %u x %s", name, k, BENCH_READ_ONE);
	if (!measured(set) || !measured(one)) {
		not_checked(t, measured(set) ? one->skipped : set->skipped);
		return;
	}
	judge(t, set->median / (k * one->median), 1.0);
	snprintf(t->note, sizeof(t->note), "%.2f ns against %u x %.2f ns = %.2f ns", set->median, k,
	         one->median, k * one->median);
}

/* A zone with counters: two set reads and the zone's own work, in instructions. */
static void target_zone_counters(struct target *t, const struct bench_report *r)
{
	snprintf(t->text, sizeof(t->text), "%s <= 2 x %s + 24 instructions", BENCH_ZONE_4,
	         BENCH_READ_4);
	judge_instructions(t, bench_find(r->cases, r->n, BENCH_ZONE_4),
	                   bench_find(r->cases, r->n, BENCH_READ_4), 2, 24);
}

/* Information, not a target: how much the user-space path saves. */
static void syscall_gain(struct target *t, const struct bench_report *r)
{
	const struct bench_case *sys = bench_find(r->cases, r->n, BENCH_SYSCALL_READ);
	const struct bench_case *one = bench_find(r->cases, r->n, BENCH_READ_ONE);
	const struct bench_case *ts = bench_find(r->cases, r->n, BENCH_TS);

	snprintf(t->text, sizeof(t->text), "%s against the user-space path", BENCH_SYSCALL_READ);
	t->verdict = INFO;
	t->limit = NAN;
	t->measured = NAN;
	if (!measured(sys)) {
		snprintf(t->note, sizeof(t->note), "not measured");
		t->why = sys->skipped;
	} else if (measured(one)) {
		t->measured = sys->median / one->median;
		snprintf(t->note, sizeof(t->note), "%.1fx: %.1f ns against %.2f ns for %s",
		         t->measured, sys->median, one->median, BENCH_READ_ONE);
	} else if (measured(ts)) {
		t->measured = sys->median / ts->median;
		snprintf(t->note, sizeof(t->note),
		         "%.1fx: %.1f ns against %.2f ns for an %s, the user-space read this "
		         "machine allows (no counter can be read in user space here)",
		         t->measured, sys->median, ts->median, BENCH_TS);
	}
}

/* ---- zones, measured once ---- */

static void target_flat_out(struct target *t, const struct bench_flat_out *f)
{
	snprintf(t->text, sizeof(t->text),
	         "1 thread flat out, 1 MiB buffers, collected every 1 ms: dropped <= 0%%");
	if (f->skipped[0]) {
		not_checked(t, f->skipped);
		return;
	}
	judge(t,
	      f->zones + f->dropped ? 100.0 * (double)f->dropped / (double)(f->zones + f->dropped)
	                            : 0,
	      0);
	snprintf(t->note, sizeof(t->note),
	         "%.3f%%: %llu of %llu zones in %.0f ms; buffers at most %.1f MiB; the collector's "
	         "CPU time %.0f%% of it",
	         t->measured, (unsigned long long)f->dropped,
	         (unsigned long long)(f->zones + f->dropped), (double)f->ns / 1e6,
	         (double)f->peak_bytes / (1 << 20), 100 * f->collector_share);
}

/* A stream's CPU time per zone against recording it, and where it goes:
 * the collect (upmc_profile_collect() of as many zones), the encoding
 * (an uncompressed stream's into /dev/null, less the collect), the
 * compression and the write (the compressed stream's less that); beside
 * it the uncompressed stream's into a file, whose write copies every byte
 * the compression saves. */
static void target_stream(struct target *t, const struct bench_zones *z,
                          const struct bench_report *r)
{
	const struct bench_stream *s = &z->stream, *plain = &z->stream_plain,
	                          *encode = &z->stream_encode;
	const struct bench_case *rec = bench_find(r->cases, r->n, BENCH_ZONE_TIME);

	snprintf(t->text, sizeof(t->text),
	         "stream a zone (collect, encode, compress, write) <= 2x %s", BENCH_ZONE_TIME);
	if (s->skipped[0] || !measured(rec)) {
		not_checked(t, s->skipped[0] ? s->skipped : rec ? rec->skipped : "not measured");
		return;
	}
	judge(t, s->ns / rec->median, 2);
	snprintf(t->note, sizeof(t->note),
	         "%.2fx: %.1f ns a zone against %.2f; collect %.1f, encode %.1f, compress and "
	         "write %.1f (uncompressed into a file %.1f ns, %.2fx)",
	         t->measured, s->ns, rec->median, s->collect_ns,
	         encode->skipped[0] ? NAN : encode->ns - s->collect_ns,
	         encode->skipped[0] ? NAN : s->ns - encode->ns, plain->skipped[0] ? NAN : plain->ns,
	         plain->ns / rec->median);
}

/* A stream's file: bytes per zone, time only. */
static void target_stream_bytes(struct target *t, const struct bench_stream *s,
                                const struct bench_stream *plain, double limit)
{
	snprintf(t->text, sizeof(t->text), "stream bytes per zone, time only <= %g", limit);
	if (s->skipped[0]) {
		not_checked(t, s->skipped);
		return;
	}
	judge(t, s->bytes, limit);
	snprintf(t->note, sizeof(t->note), "%.2f (uncompressed %.1f; %llu zones)", s->bytes,
	         plain->bytes, (unsigned long long)s->zones);
}

/* Perfetto's bytes per zone, compressed (plain: 0) or not (1). */
static void target_bytes(struct target *t, const struct bench_sizes *s, const char *what, int plain,
                         double limit)
{
	snprintf(t->text, sizeof(t->text), "Perfetto%s bytes per zone, %s <= %g",
	         plain ? " uncompressed" : "", what, limit);
	if (s->skipped[0]) {
		not_checked(t, s->skipped);
		return;
	}
	judge(t, plain ? s->perfetto_plain : s->perfetto, limit);
	snprintf(t->note, sizeof(t->note),
	         "%.2f (compressed %.2f, uncompressed %.1f; Chrome JSON %.1f, .gz %.2f; "
	         "speedscope %.1f; %llu zones%s%s%s)",
	         t->measured, s->perfetto, s->perfetto_plain, s->chrome, s->chrome_gz,
	         s->speedscope, (unsigned long long)s->zones, s->spec[0] ? " of " : "", s->spec,
	         s->spec[0] ? "" : ", time only");
}

static void target_nulls(struct target *t, const struct bench_sizes *s)
{
	snprintf(t->text, sizeof(t->text),
	         "Chrome JSON, counters that did not count: null per zone <= 0");
	if (s->skipped[0]) {
		not_checked(t, s->skipped);
		return;
	}
	judge(t, s->chrome_nulls, 0);
	snprintf(t->note, sizeof(t->note), "%.2f null per zone of %s (%.1f bytes a zone)",
	         s->chrome_nulls, s->spec, s->chrome);
}

static void zone_targets(struct target *t, unsigned *n, const struct bench_report *r)
{
	const struct bench_zones *z = r->zones;

	target_ratio(&t[(*n)++], r, BENCH_ZONE_IDLE, BENCH_RAW_TSC, 0.1);
	target_ratio(&t[(*n)++], r, BENCH_FIRST_ZONE, BENCH_OPEN, 2);
	target_ratio(&t[(*n)++], r, BENCH_COLLECT_1, BENCH_ZONE_TIME, 2);
	target_ratio(&t[(*n)++], r, BENCH_COLLECT_2, BENCH_ZONE_TIME, 2);
	target_ratio(&t[(*n)++], r, BENCH_COLLECT_8, BENCH_ZONE_TIME, 2);
	if (!z)
		return;
	target_flat_out(&t[(*n)++], &z->flat_out);
	target_stream(&t[(*n)++], z, r);
	target_stream_bytes(&t[(*n)++], &z->stream, &z->stream_plain, 1.5);
	target_bytes(&t[(*n)++], &z->time_only, "time only", 0, 1.5);
	target_bytes(&t[(*n)++], &z->counters, "4 counters", 0, 8);
	target_bytes(&t[(*n)++], &z->time_only, "time only", 1, 12);
	target_bytes(&t[(*n)++], &z->counters, "4 counters", 1, 24);
	target_nulls(&t[(*n)++], &z->uncounted);
}

static unsigned targets(const struct bench_report *r, struct target *t)
{
	unsigned n = 0;

	memset(t, 0, MAX_TARGETS * sizeof(*t));
	target_ratio(&t[n++], r, BENCH_TS, BENCH_RAW_TSC, 1.1);
	target_ratio(&t[n++], r, BENCH_REGION_TIME, BENCH_RAW_TSC_SER, 1.3);
	target_single_read(&t[n++], r);
	target_set_read(&t[n++], r, BENCH_READ_2, 2);
	target_set_read(&t[n++], r, BENCH_READ_4, 4);
	target_set_read(&t[n++], r, BENCH_READ_7, 7);
	target_ratio(&t[n++], r, BENCH_ZONE_TIME, BENCH_RAW_TSC, 1.2);
	target_zone_counters(&t[n++], r);
	syscall_gain(&t[n++], r);
	target_ratio(&t[n++], r, BENCH_OPEN_CLOSE, BENCH_RAW_OPEN, 2);
	zone_targets(t, &n, r);
	return n;
}

/* ---- text ---- */

/* Reasons print once, as numbered notes under the table: rows and targets
 * that share one refer to it. */
struct notes {
	const char *text[32];
	unsigned n;
};

static unsigned note_of(struct notes *notes, const char *why)
{
	unsigned i;

	for (i = 0; i < notes->n; i++)
		if (!strcmp(notes->text[i], why))
			return i + 1;
	if (notes->n == sizeof(notes->text) / sizeof(notes->text[0]))
		return 0;
	notes->text[notes->n++] = why;
	return notes->n;
}

static void text_number(double v, const char *format, int width)
{
	if (isnan(v))
		printf("%*s", width, "-");
	else
		printf(format, width, v);
}

static void text_row(const struct bench_report *r, const struct bench_case *c, struct notes *notes)
{
	const struct bench_case *b = baseline_of(r, c);

	printf("%-32s", c->name);
	text_number(c->median, "%*.2f", 10);
	text_number(c->min, "%*.2f", 10);
	text_number(c->instr_median, "%*.1f", 10);
	text_number(ratio_of(r, c), "%*.2f", 9);
	if (c->skipped[0])
		printf("  skipped [%u]\n", note_of(notes, c->skipped));
	else
		printf("  %s\n", b ? b->name : "(the raw instruction)");
}

static void text_target(const struct target *t, struct notes *notes)
{
	printf("  %-12s %s", verdict_names[t->verdict], t->text);
	if (t->note[0])
		printf(": %s", t->note);
	if (t->why)
		printf(" [%u]", note_of(notes, t->why));
	printf("\n");
}

void bench_print_text(const struct bench_report *r)
{
	struct target t[MAX_TARGETS];
	struct notes notes = {{NULL}, 0};
	unsigned n = targets(r, t), i;

	printf("upmc overhead benchmark, %s, %s\n", r->date, UPMC_ARCH_NAME);
	printf("ns per operation: median and minimum of %u repeats of a batch of about %llu us; "
	       "every case in every repeat, in a rotating order\n\n",
	       r->repeats, (unsigned long long)(r->batch_ns / 1000));
	printf("%-32s%10s%10s%10s%9s  %s\n", "case", "median", "min", "instr", "ratio", "to");
	for (i = 0; i < r->n; i++)
		text_row(r, &r->cases[i], &notes);
	printf("\nTargets\n");
	for (i = 0; i < n; i++)
		text_target(&t[i], &notes);
	if (notes.n)
		printf("\n");
	for (i = 0; i < notes.n; i++)
		printf("[%u] %s\n", i + 1, notes.text[i]);
}

/* ---- JSON ---- */

static void json_case(struct json *j, const struct bench_report *r, const struct bench_case *c)
{
	const struct bench_case *b = baseline_of(r, c);

	json_object(j, NULL);
	json_string(j, "case", c->name);
	json_double(j, "ns_per_op", c->median);
	json_double(j, "ns_min", c->min);
	json_double(j, "instructions_per_op", c->instr_median);
	json_double(j, "ratio", ratio_of(r, c));
	json_string(j, "baseline", b ? b->name : NULL);
	json_uint(j, "iterations", c->iters);
	json_uint(j, "samples", c->samples);
	json_string(j, "skipped", c->skipped[0] ? c->skipped : NULL);
	json_end(j);
}

void bench_print_json(const struct bench_report *r)
{
	struct target t[MAX_TARGETS];
	unsigned n = targets(r, t), i;
	struct json j;

	json_start(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "date", r->date);
	json_string(&j, "arch", UPMC_ARCH_NAME);
	json_uint(&j, "repeats", r->repeats);
	json_uint(&j, "batch_ns", r->batch_ns);
	json_array(&j, "cases");
	for (i = 0; i < r->n; i++)
		json_case(&j, r, &r->cases[i]);
	json_end(&j);
	json_array(&j, "targets");
	for (i = 0; i < n; i++) {
		json_object(&j, NULL);
		json_string(&j, "target", t[i].text);
		json_string(&j, "verdict", verdict_names[t[i].verdict]);
		json_double(&j, "measured", t[i].measured);
		json_double(&j, "limit", t[i].limit);
		json_string(&j, "note", t[i].note);
		json_string(&j, "reason", t[i].why);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
}

/* ---- CSV: the table only ---- */

static void csv_number(double v, const char *format)
{
	if (!isnan(v))
		printf(format, v);
	putchar(',');
}

static void csv_text(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

void bench_print_csv(const struct bench_report *r)
{
	size_t i;

	printf("case,ns_per_op,ns_min,instructions_per_op,ratio,baseline,skipped\n");
	for (i = 0; i < r->n; i++) {
		const struct bench_case *c = &r->cases[i], *b = baseline_of(r, c);
		csv_text(c->name);
		putchar(',');
		csv_number(c->median, "%.3f");
		csv_number(c->min, "%.3f");
		csv_number(c->instr_median, "%.2f");
		csv_number(ratio_of(r, c), "%.3f");
		if (b)
			csv_text(b->name);
		putchar(',');
		if (c->skipped[0])
			csv_text(c->skipped);
		putchar('\n');
	}
}
