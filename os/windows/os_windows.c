/* SPDX-License-Identifier: MIT */
/*
 * lib/core/os.h for Windows. Windows gives a program no way to read the counter
 * registers (no rdpmc permission, no per-thread counter page): sets are
 * time only, and upmc_measure_call() counts whole calls through ETW.
 * Timestamps (rdtsc, CNTVCT) are calibrated against QueryPerformanceCounter.
 */
#include <errno.h>
#include <stdlib.h>
#include <windows.h>

#include "lib/core/os.h"

static const char no_user_counters[] =
        "Windows gives programs no access to the counter registers; time only. "
        "upmc_measure_call() counts a whole call through ETW (as administrator)";

/* Index 0: the inline reader never looks further. */
static const struct upmc_perf_page no_page;

struct windows_set {
	uint64_t opened_ns;
};

int upmc_os_open(struct upmc_set *set, unsigned flags)
{
	struct windows_set *ws;
	unsigned i;

	if (!(flags & UPMC_OPT_TIME_ONLY))
		return upmc_fail(-EOPNOTSUPP, "%s; pass UPMC_OPT_TIME_ONLY for timing only",
		                 no_user_counters);
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return upmc_fail(-ENOMEM, "out of memory");
	for (i = 0; i < set->n; i++) {
		set->page[i] = &no_page;
		set->state->counter[i].path = UPMC_PATH_UNAVAILABLE;
		upmc_format(set->state->counter[i].reason, UPMC_REASON_MAX, "%s", no_user_counters);
	}
	set->user_n = 0;
	ws->opened_ns = upmc_os_monotonic_ns();
	set->state->os = ws;
	return 0;
}

void upmc_os_close(struct upmc_set *set)
{
	free(set->state->os);
	set->state->os = NULL;
}

void upmc_os_abandon(struct upmc_set *set)
{
	upmc_os_close(set);
}

/* Windows has no fork(). */
void upmc_os_watch_fork(void)
{
}

int upmc_os_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	struct windows_set *ws = set->state->os;
	unsigned i;

	for (i = 0; i < set->n; i++)
		values[i] = UPMC_NOT_COUNTED;
	if (enabled)
		*enabled = upmc_os_monotonic_ns() - ws->opened_ns;
	if (running)
		*running = 0; /* nothing ever ran on the PMU */
	return (int)set->n;
}

/* Windows publishes no tick-to-ns factors for rdtsc: the core calibrates. */
int upmc_os_kernel_clock(struct upmc_set *set, struct upmc_clock *clock)
{
	(void)set;
	(void)clock;
	return -ENOTSUP;
}

/* QueryPerformanceCounter in ns, as quotient and remainder so that the
 * product cannot overflow however long the machine has been up. */
uint64_t upmc_os_monotonic_ns(void)
{
	static LONGLONG freq;
	LARGE_INTEGER f, c;
	uint64_t q, r;

	if (!freq) {
		QueryPerformanceFrequency(&f); /* cannot fail since Windows XP */
		freq = f.QuadPart;
	}
	QueryPerformanceCounter(&c);
	q = (uint64_t)c.QuadPart / (uint64_t)freq;
	r = (uint64_t)c.QuadPart % (uint64_t)freq;
	return q * 1000000000u + r * 1000000000u / (uint64_t)freq;
}
