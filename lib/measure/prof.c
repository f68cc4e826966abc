/* SPDX-License-Identifier: MIT */
/* <upmc/prof.h>: a lazily opened region per call site, printed per pass. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <upmc/prof.h>

#include "lib/core/internal.h"
#include "lib/core/os.h"

static const struct upmc_options time_only = {sizeof(struct upmc_options), UPMC_OPT_TIME_ONLY};

/*
 * The call sites this thread opened, closed when it exits: a thread that
 * ends without UPMC_PROF_CLOSE would leave its set's descriptors and its
 * region (megabytes) behind, out of reach in its thread-local state. The
 * list is the library's; its head, made once per thread, is what the OS's
 * thread-exit call gets.
 */
struct prof_opened {
	unsigned n, size;
	struct upmc_prof **prof;
};

static _Thread_local struct prof_opened *opened;

/* At the thread's exit: each call site it opened and has not closed since
 * (one closed by another thread, or opened again there, is that thread's). */
static void close_opened(void *arg)
{
	struct prof_opened *list = arg;
	const uint64_t self = upmc_thread();
	unsigned i;

	opened = NULL;
	for (i = 0; i < list->n; i++) {
		struct upmc_prof *p = list->prof[i];
		if (p->set && p->set->thread == self) {
			upmc_region_close(p->region);
			upmc_close(p->set);
			p->region = NULL;
			p->set = NULL;
		}
	}
	free(list->prof);
	free(list);
}

static struct prof_opened *this_threads_list(void)
{
	struct prof_opened *list = opened;

	if (list)
		return list;
	list = calloc(1, sizeof(*list));
	if (!list) {
		upmc_fail(-ENOMEM, "out of memory keeping a call site's state");
		return NULL;
	}
	if (upmc_os_at_thread_exit_for(UPMC_OS_EXIT_PROF, close_opened, list) < 0) {
		free(list);
		return NULL;
	}
	return opened = list;
}

/* p into this thread's list. A failure (no memory) leaves it out: a
 * thread that exits without closing it then keeps what it opened. */
static void remember_opened(struct upmc_prof *p)
{
	struct prof_opened *list = this_threads_list();
	struct upmc_prof **more;

	if (!list)
		return;
	if (list->n == list->size) {
		more = realloc(list->prof, (list->size ? 2 * list->size : 4) * sizeof(*more));
		if (!more)
			return;
		list->prof = more;
		list->size = list->size ? 2 * list->size : 4;
	}
	list->prof[list->n++] = p;
}

static void forget_opened(const struct upmc_prof *p)
{
	struct prof_opened *list = opened;
	unsigned i;

	for (i = 0; list && i < list->n; i++)
		if (list->prof[i] == p) {
			list->prof[i] = list->prof[--list->n];
			return;
		}
}

static int prof_open(struct upmc_prof *p)
{
	if (p->set && p->set->state->forked)
		upmc_prof_close(p); /* a forked worker: the parent's set counts the parent */
	if (p->region || p->failed)
		return p->region ? 0 : -1;
	if (upmc_open(&p->set, p->events, &time_only) < 0 ||
	    upmc_region_open(&p->region, p->set, p->name) < 0) {
		fprintf(stderr, "upmc %s: %s\n", p->name, upmc_last_error());
		upmc_close(p->set);
		p->set = NULL;
		p->failed = 1;
		return -1;
	}
	remember_opened(p);
	return 0;
}

static int prof_null(const struct upmc_prof *p, const char *fn)
{
	return p ? 0 : upmc_fail(-EINVAL, "%s: the prof pointer is NULL", fn);
}

UPMC_API void upmc_prof_begin(struct upmc_prof *p)
{
	if (prof_null(p, "upmc_prof_begin") == 0 && prof_open(p) == 0)
		upmc_region_begin(p->region);
}

/*
 * v as "%.0f" prints it (to nearest, ties to even, "-0" for a negative
 * value that rounds to 0), by an integer conversion: printf's formatting
 * of a double is most of what a line costs, and the more so the larger
 * the value (the ns grow with the clock).
 */
static void print_rounded(FILE *out, double v)
{
	long long t = (long long)v; /* toward zero */
	const double frac = v - (double)t;

	if (frac > 0.5 || (frac == 0.5 && (t & 1)))
		t++;
	else if (frac < -0.5 || (frac == -0.5 && (t & 1)))
		t--;
	fprintf(out, t == 0 && v < 0 ? "-%lld" : "%lld", t);
}

/* The last region's metrics, as upmc_metrics() gives them (from its
 * counts less the bias): ", IPC 1.23, branch-miss-ratio 2.50%". */
static void print_metrics(const struct upmc_prof *p, FILE *out)
{
	const int n = upmc_metric_count(p->set);
	double v;
	int j;

	for (j = 0; j < n; j++) {
		const char *name = upmc_metric_name(p->set, (unsigned)j);
		if (upmc_region_metric_last(p->region, (unsigned)j, 1, &v) < 0)
			fprintf(out, ", %s n/a", name);
		else if (upmc_metric_is_percent(p->set, (unsigned)j))
			fprintf(out, ", %s %.2f%%", name, 100 * v);
		else
			fprintf(out, ", %s %.2f", name, v);
	}
}

UPMC_API void upmc_prof_end(struct upmc_prof *p, FILE *out)
{
	double v = 0; /* set by every upmc_region_last() that succeeds; gcc -O3 cannot tell */
	unsigned i;

	if (prof_null(p, "upmc_prof_end") < 0 || !p->region)
		return;
	if (!out)
		out = stderr;
	upmc_region_end(p->region);
	if (upmc_region_dropped(p->region) > p->dropped) {
		p->dropped = upmc_region_dropped(p->region);
		fprintf(out, "upmc %s: dropped (%s), %llu so far\n", p->name,
		        upmc_last_error()[0] ? upmc_last_error() : "a begin had no end",
		        (unsigned long long)p->dropped);
		return;
	}
	if (upmc_region_last(p->region, UPMC_NS, 1, &v) < 0) {
		fprintf(out, "upmc %s: %s\n", p->name, upmc_last_error());
		return;
	}
	fprintf(out, "upmc %s: ", p->name);
	print_rounded(out, v);
	fputs(" ns", out);
	for (i = 0; i < p->set->n; i++) {
		if (upmc_region_last(p->region, i, 1, &v) < 0) {
			fprintf(out, ", %s n/a", upmc_counter_name(p->set, i));
		} else {
			fprintf(out, ", %s ", upmc_counter_name(p->set, i));
			print_rounded(out, v);
		}
	}
	print_metrics(p, out);
	fprintf(out, "\n");
}

UPMC_API void upmc_prof_close(struct upmc_prof *p)
{
	if (prof_null(p, "upmc_prof_close") < 0)
		return;
	forget_opened(p);
	upmc_region_close(p->region);
	upmc_close(p->set);
	p->region = NULL;
	p->set = NULL;
}
