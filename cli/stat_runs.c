/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat -r`'s runs: each counted afresh, the figures of each counter
 * gathered over the runs that counted it (every run; with --rotate those
 * of its pass; less those where it did not count), then their means and
 * spread, as perf stat computes them, and how many runs they are of.
 */
#include <math.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/stat.h"

void stat_runs_start(struct stat_runs *s, const struct stat_run *run)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->plan, run->counter, sizeof(s->plan));
}

void stat_runs_next(struct stat_runs *s, struct stat_run *run, unsigned r)
{
	stat_free_units(run);
	/* as planned: not a run's fallback to user space */
	memcpy(run->counter, s->plan, sizeof(run->counter));
	run->pass = run->passes ? r % run->passes : 0;
	run->signal = run->forwarded = run->stopped_by = 0;
}

/* Whether this run counts counter i. */
static int in_this_run(const struct stat_run *run, unsigned i)
{
	return !run->passes || run->counter[i].pass == run->pass;
}

void stat_runs_add(struct stat_runs *s, const struct stat_run *run)
{
	unsigned i;

	for (i = 0; i < run->n; i++) {
		const struct stat_figure *f = &run->counter[i].total;
		if (!in_this_run(run, i))
			continue;
		s->ran[i]++;
		if (run->counter[i].status != STAT_COUNTED) {
			s->missed[i] = run->counter[i];
			continue;
		}
		s->kept[i] = run->counter[i];
		stat_spread_add(&s->value[i], (double)f->value);
		stat_spread_add(&s->enabled[i], (double)f->enabled);
		stat_spread_add(&s->running[i], (double)f->running);
	}
	stat_spread_add(&s->elapsed, (double)run->elapsed_ns);
}

/* A counter whose pass did not run: the runs were cut short (^C). */
static void never_ran(struct stat_counter *c, unsigned passes)
{
	c->status = STAT_NOT_COUNTED;
	cli_format(c->reason, sizeof(c->reason),
	           "'%s' was not counted: the runs ended before its pass (%u of %u) ran",
	           c->event.name, c->pass + 1, passes);
}

/* A counter counted in some of its runs only: its mean is of those, and
 * why the others did not count it (the last of them's reason). */
static void counted_in_some(struct stat_counter *c, const struct stat_counter *missed,
                            unsigned counted, unsigned ran)
{
	const char *why = cli_after_quoted_name(missed->reason, missed->event.name);

	cli_format(c->reason, sizeof(c->reason),
	           "'%s' counted in %u of %u runs, its figures the mean of those %u; in the "
	           "others%s%s",
	           c->event.name, counted, ran, counted, why[0] ? ":" : " it did not count", why);
}

/* The counter as its runs left it: the last that counted it, if any did. */
static const struct stat_counter *as_left(const struct stat_runs *s, unsigned i)
{
	if (!s->ran[i])
		return &s->plan[i];
	return s->value[i].n ? &s->kept[i] : &s->missed[i];
}

void stat_runs_end(struct stat_runs *s, struct stat_run *run, unsigned runs)
{
	unsigned i;

	run->runs = runs;
	for (i = 0; i < run->n; i++) {
		struct stat_figure *f = &run->counter[i].total;
		const unsigned counted = s->value[i].n;
		run->counter[i] = *as_left(s, i);
		if (!s->ran[i])
			never_ran(&run->counter[i], run->passes);
		if (runs < 2)
			continue;
		f->runs = counted;
		f->planned = s->ran[i];
		if (!counted)
			continue;
		if (counted < s->ran[i])
			counted_in_some(&run->counter[i], &s->missed[i], counted, s->ran[i]);
		f->value = (uint64_t)llround(s->value[i].mean);
		f->enabled = (uint64_t)llround(s->enabled[i].mean);
		f->running = (uint64_t)llround(s->running[i].mean);
		f->noise = stat_spread_noise(&s->value[i]);
	}
	if (runs < 2)
		return;
	run->elapsed_ns = (uint64_t)llround(s->elapsed.mean);
	run->elapsed_noise = stat_spread_noise(&s->elapsed);
}
