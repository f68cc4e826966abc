/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown read in user space, as the kernel's
 * tools/perf/Documentation/topdown.txt describes it: slots (fixed counter
 * 3) and PERF_METRICS, four (eight on Sapphire Rapids) 8-bit fractions of
 * the slots since the two were last reset, read with rdpmc in one
 * validated pass over the perf pages (lib/core/topdown.h).
 *
 * A topdown metric counter's value is its category's slots since that
 * reset: field x slots / 255. The interval of two such values is the
 * document's (field1 x slots1 - field0 x slots0) / 255, and a metric's
 * fraction that over the slots of the interval. Three rules keep the
 * numbers true:
 *
 * - Never read(2) beside it: the kernel's read of the group resets slots
 *   and PERF_METRICS (intel_pmu_read_topdown_event() calls the topdown
 *   update, which writes both to 0), so a read(2) between two rdpmc
 *   snapshots would leave them of different periods. Where a page says no
 *   user-space read now, the read fails rather than fall back.
 * - The fields' precision: one step of a field is 1/255 of the slots since
 *   the last reset, so a region short beside that period cannot be
 *   measured. upmc_metrics() says so (NAN, and why) rather than give a
 *   number, and upmc_topdown_reset() starts a new period (the document's
 *   PERF_EVENT_IOC_RESET).
 * - A reset between two snapshots (upmc_topdown_reset(), another reader's
 *   read(2)) is seen, since the four level 1 fields add up to 255: their
 *   values add up to the slots counter since the reset, which then no
 *   longer moves with the slots count.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "topdown.h"

/* The steps of a field at both ends may make an interval's error this
 * large a share of its slots at most, or the interval is too short. */
#define TOPDOWN_MAX_ERROR 0.01

static UPMC_COLD int off_the_pmu(struct upmc_set *set, uint64_t *values)
{
	return upmc_failed_read(
	        set, values,
	        upmc_fail(-EAGAIN,
	                  "upmc_read: the topdown group is not on the PMU now (its page's index "
	                  "is 0, or user-space rdpmc was withdrawn), and read(2) would reset "
	                  "slots and PERF_METRICS under the interval: no value is given"));
}

/* The set's pages in the pass's order: slots, the other counts, and one
 * topdown metric event's last. Every metric event is in the slots group,
 * which the kernel schedules whole: one metric page's lock and index
 * speak for all of them. */
static unsigned pass_order(const struct upmc_set *set, const volatile struct upmc_perf_page **pages,
                           unsigned *counter)
{
	const struct upmc_topdown *td = set->state->topdown;
	unsigned i, n = 0, metric = 0;

	counter[n++] = td->slots;
	for (i = 0; i < set->n; i++)
		if (td->field[i])
			metric = i;
		else if (i != td->slots)
			counter[n++] = i;
	counter[n++] = metric;
	for (i = 0; i < n; i++)
		pages[i] = set->state->user_page[counter[i]];
	return n;
}

/* upmc_read() and upmc_snapshot() of a topdown set. */
static int topdown_read(struct upmc_set *set, uint64_t *values)
{
	const struct upmc_topdown *td = set->state->topdown;
	const volatile struct upmc_perf_page *pages[UPMC_MAX_COUNTERS];
	uint64_t counts[UPMC_MAX_COUNTERS];
	unsigned counter[UPMC_MAX_COUNTERS], n, i;
	/* Written by a pass that returns 0, and read only then; gcc -O1
	 * cannot tell (-Wmaybe-uninitialized), -O2 drops the stores. */
	struct upmc_topdown_regs regs = {0, 0};

	if (!values)
		return upmc_fail(-EINVAL, "upmc_read: the values array is NULL");
	n = pass_order(set, pages, counter);
	/* Slots and the metrics alone (TopdownL1): the pass unrolled, the
	 * code whose instructions tests/core_topdown_cost_test.c counts. */
	if ((n == 2 ? upmc_topdown_pass(pages, 2, counts, &regs)
	            : upmc_topdown_pass(pages, n, counts, &regs)) < 0)
		return off_the_pmu(set, values);
	for (i = 0; i + 1 < n; i++)
		values[counter[i]] = counts[i];
	for (i = 0; i < set->n; i++)
		if (td->field[i])
			values[i] = upmc_topdown_field(regs.metrics, td->field[i] - 1u) *
			            upmc_topdown_raw_slots(&regs) / 255;
	return (int)set->n;
}

void upmc_topdown_choose_readers(struct upmc_set *set)
{
	unsigned i;

	if (!set->state->topdown)
		return;
	/* The inline readers hand every counter over to the pass. */
	for (i = 0; i < set->n; i++)
		set->page[i] = &upmc_no_page;
	set->user_n = 0;
	set->read = topdown_read;
	set->snapshot = topdown_read;
	set->state->snapshot_words = set->n;
}

UPMC_API int upmc_topdown_reset(struct upmc_set *set)
{
	if (!set)
		return upmc_fail(-EINVAL, "upmc_topdown_reset: the set is NULL");
	if (!set->state->topdown)
		return upmc_fail(-EOPNOTSUPP,
		                 "upmc_topdown_reset: the set reads no Intel topdown metric in "
		                 "user space (upmc_counter_reason() says how it reads them)");
	if (set->thread != upmc_thread())
		return upmc_fail(-EPERM, "upmc_topdown_reset: the set is another thread's");
	return set->state->topdown->reset(set);
}

int upmc_topdown_restart(struct upmc_set *set)
{
	return set->state->topdown->restart(set);
}

/* Whether metric m reads a PERF_METRICS field of the set. */
static int reads_fields(const struct upmc_topdown *td, const struct upmc_metric *m)
{
	unsigned k;

	for (k = 0; k < m->n_in; k++)
		if (td->field[m->in[k]])
			return 1;
	return 0;
}

/* The slots since the last reset at both ends: what the level 1 fields'
 * values add up to (within a slot each, from the division); 0 when the
 * set lacks one of them. */
static int slots_since_reset(const struct upmc_topdown *td, unsigned n, const uint64_t *snap,
                             uint64_t *slots)
{
	unsigned i, level1 = 0;

	*slots = 0;
	for (i = 0; i < n; i++)
		if (td->field[i] >= 1 && td->field[i] <= 4) {
			*slots += snap[i];
			level1++;
		}
	return level1 == 4;
}

int upmc_topdown_unmeasured_of(const struct upmc_topdown *td, unsigned n,
                               const struct upmc_metric *m, const uint64_t *before,
                               const uint64_t *after, char *why, size_t size)
{
	uint64_t s0, s1, t0, t1, slots;
	double error, moved;

	if (!td || !reads_fields(td, m))
		return 0;
	s0 = before[td->slots];
	s1 = after[td->slots];
	if (s0 == UPMC_NOT_COUNTED || s1 == UPMC_NOT_COUNTED || s1 == s0)
		return 0; /* the formula says NAN: no slots to divide by */
	slots = s1 - s0;
	/* Without the four fields, the slots since open bound those since
	 * the reset: the precision then errs on the safe side. */
	if (!slots_since_reset(td, n, before, &t0) || !slots_since_reset(td, n, after, &t1)) {
		t0 = s0;
		t1 = s1;
	}
	/* The slots count only falls when the reset zeroed it too. */
	moved = (double)t1 - (double)t0;
	if (s1 < s0 || fabs(moved - (double)slots) > 4 + (double)(t0 + t1) / 255) {
		upmc_format(why, size,
		            "slots and PERF_METRICS were reset between the two snapshots "
		            "(upmc_topdown_reset(), or a read(2) of the group): their fractions "
		            "before and after are of different periods");
		return UPMC_TOPDOWN_RESET;
	}
	error = (double)(t0 + t1) / (255.0 * (double)slots);
	if (error <= TOPDOWN_MAX_ERROR)
		return 0;
	upmc_format(why, size,
	            "too short to measure: its %llu slots are few beside the %llu since slots "
	            "and PERF_METRICS were last reset, whose 8-bit fractions give it only to "
	            "within %.1f%%; call upmc_topdown_reset() before the region (and every few "
	            "seconds), or measure a longer one",
	            (unsigned long long)slots, (unsigned long long)t1, 100 * error);
	return UPMC_TOPDOWN_SHORT;
}

int upmc_topdown_unmeasured(const struct upmc_set *set, const struct upmc_metric *m,
                            const uint64_t *before, const uint64_t *after, char *why, size_t size)
{
	return upmc_topdown_unmeasured_of(set->state->topdown, set->n, m, before, after, why, size);
}

void upmc_topdown_counts(const struct upmc_set *set, const uint64_t *before, const uint64_t *after,
                         uint64_t *counts)
{
	upmc_topdown_counts_of(set->state->topdown, set->n, before, after, counts);
}

void upmc_topdown_counts_of(const struct upmc_topdown *td, unsigned n, const uint64_t *before,
                            const uint64_t *after, uint64_t *counts)
{
	unsigned i;

	/* A category's value may step back by a field's step at either end:
	 * within the precision upmc_topdown_unmeasured() allows, 0. */
	for (i = 0; td && i < n; i++)
		if (td->field[i] && before[i] != UPMC_NOT_COUNTED && after[i] != UPMC_NOT_COUNTED &&
		    after[i] < before[i])
			counts[i] = 0;
}
