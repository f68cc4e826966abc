/* SPDX-License-Identifier: MIT */
/* upmc_measure_call()'s result from snapshots of a set around the call
 * (the Linux and macOS implementations share this part). */
#include <upmc/call.h>

#include "lib/measure/measure.h"

void upmc_call_fill(struct upmc_call_result *out, struct upmc_set *set, const uint64_t *before,
                    const uint64_t *after, int read_err)
{
	uint64_t counts[UPMC_MAX_COUNTERS];
	unsigned i;

	out->n = (unsigned)upmc_count(set);
	upmc_interval(set, before, after, counts, NULL);
	for (i = 0; i < out->n; i++) {
		struct upmc_call_counter *c = &out->counter[i];
		int ok = !read_err && upmc_counter_path(set, i) != UPMC_PATH_UNAVAILABLE &&
		         counts[i] != UPMC_NOT_COUNTED;
		upmc_format(c->name, sizeof(c->name), "%s", upmc_counter_name(set, i));
		c->value = ok ? counts[i] : UPMC_NOT_COUNTED;
		c->path = ok ? upmc_counter_path(set, i) : UPMC_PATH_UNAVAILABLE;
		upmc_format(c->reason, sizeof(c->reason), "%s",
		            read_err ? upmc_last_error() : upmc_counter_reason(set, i));
		out->counted += ok;
	}
}

void upmc_call_summarize(struct upmc_call_result *out, const char *how)
{
	unsigned i;

	for (i = 0; i < out->n && out->counter[i].path != UPMC_PATH_UNAVAILABLE; i++)
		;
	if (!out->n)
		upmc_format(out->summary, sizeof(out->summary),
		            "timed only, no counters asked for");
	else if (!out->counted)
		upmc_format(out->summary, sizeof(out->summary), "time only: %s",
		            out->counter[0].reason);
	else
		upmc_format(out->summary, sizeof(out->summary), "%u of %u counters %s%s%s",
		            out->counted, out->n, how, i < out->n ? "; not counted: " : "",
		            i < out->n ? out->counter[i].reason : "");
}
