/* SPDX-License-Identifier: MIT */
/*
 * upmc_measure_call() on Windows, MiniPerf's way: the call runs on a fresh
 * thread pinned to one CPU while an ETW session samples the PMU at every
 * context switch; the thread's counts are the sums over its time slices.
 * Anything that stops ETW (no administrator, no PMC source, ERROR_BUSY,
 * Wine's stubs) leaves the call timed and every counter unavailable with
 * the reason.
 */
#include <errno.h>
#include <string.h>
#include <windows.h>

#include <upmc/call.h>

#include "lib/core/os.h"
#include "os/windows/etw.h"

/* perf's generic events to the names of Windows profile sources. */
struct source_names {
	uint32_t type;
	uint64_t config;
	const char *names[3];
};

static const struct source_names source_names[] = {
        {UPMC_TYPE_HARDWARE, 0, {"TotalCycles", "UnhaltedCoreCycles"}},
        {UPMC_TYPE_HARDWARE, 1, {"InstructionRetired", "TotalIssues"}},
        {UPMC_TYPE_HARDWARE, 2, {"LLCReference"}},
        {UPMC_TYPE_HARDWARE, 3, {"LLCMisses", "CacheMisses"}},
        {UPMC_TYPE_HARDWARE, 4, {"BranchInstructionRetired", "BranchInstructions"}},
        {UPMC_TYPE_HARDWARE, 5, {"BranchMispredictsRetired", "BranchMispredictions"}},
        {UPMC_TYPE_HARDWARE, 9, {"UnhaltedReferenceCycles"}},
        {UPMC_TYPE_HW_CACHE, 0 | 0 << 8 | 1 << 16, {"DcacheMisses"}},   /* L1-dcache-load-misses */
        {UPMC_TYPE_HW_CACHE, 1 | 0 << 8 | 1 << 16, {"IcacheMisses"}},   /* L1-icache-load-misses */
        {UPMC_TYPE_HW_CACHE, 0 | 0 << 8 | 0 << 16, {"DcacheAccesses"}}, /* L1-dcache-loads */
};

static const struct source_names *names_of(const struct upmc_event *ev)
{
	size_t i;

	for (i = 0; i < sizeof(source_names) / sizeof(source_names[0]); i++)
		if (source_names[i].type == ev->type && source_names[i].config == ev->config)
			return &source_names[i];
	return NULL;
}

static unsigned count_names(const struct source_names *s)
{
	unsigned k = 0;

	while (k < 3 && s->names[k])
		k++;
	return k;
}

/* The profile source of every event, or why ETW cannot count them. */
static int find_sources(const struct upmc_event *ev, unsigned n, ULONG *ids, char *why, size_t size)
{
	unsigned i;
	int err;

	for (i = 0; i < n; i++) {
		const struct source_names *s = names_of(&ev[i]);
		if (!s) {
			upmc_format(why, size, "'%s' has no ETW profile source", ev[i].name);
			return -ENOENT;
		}
		err = upmc_etw_find_source(s->names, count_names(s), &ids[i], why, size);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Every check that decides, before anything starts, that ETW cannot count. */
static int can_count(const struct upmc_event *ev, unsigned n, ULONG *ids, char *why, size_t size)
{
	const char *wine = upmc_etw_wine_version();

	if (wine) {
		upmc_format(why, size,
		            "running under Wine %s, whose ETW is a stub (its "
		            "TraceQueryInformation aborts): no PMC sources",
		            wine);
		return -ENOSYS;
	}
	if (!upmc_etw_is_admin()) {
		upmc_format(why, size, "ETW PMC sampling needs an administrator: run elevated");
		return -EACCES;
	}
	return find_sources(ev, n, ids, why, size);
}

struct worker {
	void (*fn)(void *);
	void *arg;
	uint64_t ns;
	int cpu_seen;
};

static DWORD WINAPI run_call(LPVOID p)
{
	struct worker *w = p;
	uint64_t t0, t1;

	w->cpu_seen = (int)GetCurrentProcessorNumber();
	t0 = upmc_os_monotonic_ns();
	w->fn(w->arg);
	t1 = upmc_os_monotonic_ns();
	w->ns = t1 - t0;
	return 0;
}

/* Runs the call on a new thread pinned to this thread's CPU. */
static int run_pinned(struct worker *w, struct upmc_etw *etw, int *cpu)
{
	DWORD tid;
	HANDLE t = CreateThread(NULL, 0, run_call, w, CREATE_SUSPENDED, &tid);
	DWORD here = GetCurrentProcessorNumber();

	if (!t)
		return upmc_fail(-EAGAIN, "CreateThread failed (Windows error %lu)",
		                 (unsigned long)GetLastError());
	*cpu = -1;
	if (here < 64 && SetThreadAffinityMask(t, (DWORD_PTR)1 << here))
		*cpu = (int)here;
	if (etw)
		upmc_etw_follow(etw, tid);
	ResumeThread(t);
	WaitForSingleObject(t, INFINITE);
	CloseHandle(t);
	return 0;
}

static void set_all(struct upmc_call_result *out, int path, const char *reason)
{
	unsigned i;

	for (i = 0; i < out->n; i++) {
		out->counter[i].path = path;
		upmc_format(out->counter[i].reason, sizeof(out->counter[i].reason), "%s", reason);
	}
}

static void summarize(struct upmc_call_result *out, const char *why)
{
	if (!out->n)
		upmc_format(out->summary, sizeof(out->summary),
		            "timed only, no counters asked for");
	else if (!out->counted)
		upmc_format(out->summary, sizeof(out->summary), "time only: %s", why);
	else
		upmc_format(out->summary, sizeof(out->summary),
		            "%u counters by ETW at %lu context switches, on CPU %d", out->n,
		            (unsigned long)out->context_switches, out->cpu);
}

static int start_input(const char *spec, void (*fn)(void *), struct upmc_call_result *out,
                       struct upmc_event *ev)
{
	unsigned i;
	int n = 0;

	if (!fn || !out)
		return upmc_fail(-EINVAL, "upmc_measure_call: fn or out is NULL");
	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->context_switches = UPMC_NOT_COUNTED;
	if (spec)
		n = upmc_parse_spec(spec, 0, ev, UPMC_MAX_COUNTERS);
	if (n < 0)
		return n;
	out->n = (unsigned)n;
	for (i = 0; i < out->n; i++) {
		upmc_format(out->counter[i].name, sizeof(out->counter[i].name), "%s", ev[i].name);
		out->counter[i].value = UPMC_NOT_COUNTED;
	}
	return 0;
}

UPMC_API int upmc_measure_call(const char *spec, void (*fn)(void *), void *arg,
                               struct upmc_call_result *out)
{
	struct upmc_event ev[UPMC_MAX_COUNTERS];
	char why[UPMC_REASON_MAX] = "";
	struct worker w = {fn, arg, 0, -1};
	struct upmc_etw *etw = NULL;
	ULONG ids[UPMC_MAX_COUNTERS];
	uint64_t values[UPMC_MAX_COUNTERS], switches = 0;
	unsigned i;
	int err = start_input(spec, fn, out, ev);

	if (err < 0)
		return err;
	if (out->n && can_count(ev, out->n, ids, why, sizeof(why)) == 0)
		upmc_etw_start(ids, out->n, &etw, why, sizeof(why));
	err = run_pinned(&w, etw, &out->cpu);
	if (etw &&
	    upmc_etw_finish(etw, values, &switches, err < 0 ? NULL : why,
	                    err < 0 ? 0 : sizeof(why)) == 0 &&
	    err == 0) {
		out->counted = out->n;
		out->context_switches = switches;
		for (i = 0; i < out->n; i++)
			out->counter[i].value = values[i];
	}
	if (err < 0)
		return err;
	out->elapsed_ns = w.ns;
	set_all(out, out->counted ? UPMC_PATH_SYSCALL : UPMC_PATH_UNAVAILABLE,
	        out->counted ? "counted by ETW at the call's context switches (kernel sampling, "
	                       "not a user-space read)"
	                     : why);
	summarize(out, why);
	return 0;
}
