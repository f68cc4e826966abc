/* SPDX-License-Identifier: MIT */
/*
 * upmc_measure_call() on Linux, over the public API: the calling thread is
 * pinned to the CPU it is on for the call, a UPMC_OPT_TIME_ONLY set is read
 * around it, and a "context-switches" set counts switches when perf allows
 * (kernel-side counting: perf_event_paranoid <= 1 or CAP_PERFMON).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>

#include <upmc/call.h>

#include "lib/core/os.h"
#include "lib/measure/measure.h"

static const struct upmc_options call_time_only = {sizeof(struct upmc_options), UPMC_OPT_TIME_ONLY};

/* Pins this thread to its current CPU; the old mask goes into old. */
static int pin_here(cpu_set_t *old)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(*old), old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return sched_setaffinity(0, sizeof(one), &one) ? -1 : cpu;
}

UPMC_API int upmc_measure_call(const char *spec, void (*fn)(void *), void *arg,
                               struct upmc_call_result *out)
{
	uint64_t a[UPMC_SNAPSHOT_MAX], b[UPMC_SNAPSHOT_MAX], cs0 = 0, cs1 = 0, t0, t1;
	struct upmc_set *set = NULL, *cs = NULL;
	int err, ra = 0, rb = 0;
	char how[64];
	cpu_set_t old;

	if (!fn || !out)
		return upmc_fail(-EINVAL, "upmc_measure_call: fn or out is NULL");
	memset(out, 0, sizeof(*out));
	out->context_switches = UPMC_NOT_COUNTED;
	if (spec && (err = upmc_open(&set, spec, &call_time_only)) < 0)
		return err;
	if (upmc_open(&cs, "context-switches", NULL) < 0)
		cs = NULL; /* not permitted here: the count stays unknown */
	out->cpu = pin_here(&old);
	if (cs)
		upmc_read_counter(cs, 0, &cs0);
	if (set)
		ra = upmc_snapshot(set, a);
	t0 = upmc_os_monotonic_ns();
	fn(arg);
	t1 = upmc_os_monotonic_ns();
	if (set)
		rb = upmc_snapshot(set, b);
	if (cs && upmc_read_counter(cs, 0, &cs1) == 0)
		out->context_switches = cs1 - cs0;
	if (out->cpu >= 0)
		sched_setaffinity(0, sizeof(old), &old);
	out->elapsed_ns = t1 - t0;
	if (set)
		upmc_call_fill(out, set, a, b, ra < 0 ? ra : rb < 0 ? rb : 0);
	upmc_format(how, sizeof(how), "around the call, on CPU %d", out->cpu);
	upmc_call_summarize(out, how);
	upmc_close(cs);
	upmc_close(set);
	return 0;
}
