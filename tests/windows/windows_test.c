/* SPDX-License-Identifier: MIT */
/*
 * The Windows build, run on Windows or under Wine: time-only sets, the
 * QueryPerformanceCounter-calibrated clock, and upmc_measure_call() with
 * its fallback. Plain main; prints one line per check and ends with
 * "N passed, M failed". Under Wine only the fallback can be shown (its ETW
 * is a stub); what it asserts there is that the fallback is clean.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include <upmc/call.h>
#include <upmc/upmc.h>

#include "os/windows/etw.h"

static unsigned passed, failed;

static void check(int ok, const char *name, const char *detail)
{
	if (ok)
		passed++;
	else
		failed++;
	printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", name, ok || !detail ? "" : ": ",
	       ok || !detail ? "" : detail);
}

static int contains(const char *text, const char *part)
{
	return text && strstr(text, part);
}

static uint64_t qpc_ns(void)
{
	LARGE_INTEGER f, c;

	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&c);
	return (uint64_t)((double)c.QuadPart * 1e9 / (double)f.QuadPart);
}

static void sets_are_time_only(void)
{
	const struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set = NULL;
	uint64_t v[2] = {0, 0}, enabled = 0, running = 1;

	check(upmc_open(&set, "cycles,instructions", NULL) == -EOPNOTSUPP && !set,
	      "open-without-time-only-refused", upmc_last_error());
	check(contains(upmc_last_error(), "UPMC_OPT_TIME_ONLY"), "refusal-says-what-to-do",
	      upmc_last_error());
	if (upmc_open(&set, "cycles,instructions", &opts) != 0) {
		check(0, "open-time-only", upmc_last_error());
		return;
	}
	check(upmc_counter_path(set, 0) == UPMC_PATH_UNAVAILABLE &&
	              upmc_counter_path(set, 1) == UPMC_PATH_UNAVAILABLE,
	      "counters-unavailable", NULL);
	check(contains(upmc_counter_reason(set, 0), "Windows"), "counter-reason",
	      upmc_counter_reason(set, 0));
	check(contains(upmc_summary(set), "time only: "), "summary-time-only", upmc_summary(set));
	check(set->user_n == 0, "no-user-read", NULL);
	check(upmc_read(set, v) == 2 && v[0] == UPMC_NOT_COUNTED && v[1] == UPMC_NOT_COUNTED,
	      "read-not-counted", NULL);
	Sleep(2);
	check(upmc_read_times(set, &enabled, &running) == 0 && enabled >= 1000000 && running == 0,
	      "times-enabled-not-running", NULL);
	upmc_close(set);
}

static void spec_errors(void)
{
	struct upmc_set *set = NULL;

	check(upmc_open(&set, "branch-mises", NULL) == -ENOENT, "unknown-event", NULL);
	check(contains(upmc_last_error(), "'branch-misses'"), "unknown-event-suggestion",
	      upmc_last_error());
	check(upmc_open(NULL, "cycles", NULL) == -EINVAL, "null-set", NULL);
}

/* rdtsc ticks, calibrated against QueryPerformanceCounter, over 100 ms. */
static void clock_follows_qpc(void)
{
	struct upmc_set *set;
	uint64_t t0, t1, q0, q1;
	double ratio;
	char detail[96];

	if (upmc_open_timer(&set) != 0) {
		check(0, "open-timer", upmc_last_error());
		return;
	}
	check(upmc_clock_source(set) == UPMC_CLOCK_CALIBRATED, "clock-calibrated", NULL);
	q0 = qpc_ns();
	t0 = upmc_timestamp_serialized();
	Sleep(100);
	t1 = upmc_timestamp_serialized();
	q1 = qpc_ns();
	ratio = (double)(upmc_ticks_to_ns(set, t1) - upmc_ticks_to_ns(set, t0)) / (double)(q1 - q0);
	snprintf(detail, sizeof(detail), "ticks/QPC over %.1f ms = %.4f", (q1 - q0) / 1e6, ratio);
	check(t1 > t0 && ratio > 0.98 && ratio < 1.02, "clock-within-2%", detail);
	printf("clock: %s\n", detail);
	upmc_close(set);
}

struct call_probe {
	int calls;
	DWORD thread;
	int cpu;
};

static void probe(void *arg)
{
	struct call_probe *p = arg;

	p->calls++;
	p->thread = GetCurrentThreadId();
	p->cpu = (int)GetCurrentProcessorNumber();
	Sleep(20);
}

static void measure_call_falls_back(void)
{
	struct call_probe p = {0, 0, -1};
	struct upmc_call_result r;
	const char *wine = upmc_etw_wine_version();
	uint64_t q0, q1;
	unsigned i, unavailable = 0, explained = 0;
	char detail[128];
	int err;

	q0 = qpc_ns();
	err = upmc_measure_call("cycles,instructions,branch-misses", probe, &p, &r);
	q1 = qpc_ns();
	check(err == 0, "call-measured", upmc_last_error());
	check(p.calls == 1, "call-ran-once", NULL);
	check(p.thread && p.thread != GetCurrentThreadId(), "call-on-fresh-thread", NULL);
	snprintf(detail, sizeof(detail), "pinned to %d, ran on %d", r.cpu, p.cpu);
	check(r.cpu >= 0 && r.cpu == p.cpu, "call-pinned", detail);
	snprintf(detail, sizeof(detail), "elapsed %.2f ms, outside %.2f ms", r.elapsed_ns / 1e6,
	         (q1 - q0) / 1e6);
	check(r.elapsed_ns >= 19000000 && r.elapsed_ns <= q1 - q0, "call-timed", detail);
	check(r.n == 3 && !strcmp(r.counter[2].name, "branch-misses"), "call-names", NULL);
	for (i = 0; i < r.n; i++) {
		unavailable += r.counter[i].path == UPMC_PATH_UNAVAILABLE &&
		               r.counter[i].value == UPMC_NOT_COUNTED;
		explained += r.counter[i].reason[0] != '\0';
	}
	if (r.counted) { /* real Windows, elevated, with PMC sources */
		check(r.counted == r.n && r.context_switches >= 1 &&
		              r.counter[0].path == UPMC_PATH_SYSCALL &&
		              r.counter[0].value != UPMC_NOT_COUNTED,
		      "etw-counted", r.summary);
	} else {
		check(unavailable == r.n && explained == r.n, "fallback-counters-unavailable",
		      r.summary);
		check(contains(r.summary, "time only: ") && r.context_switches == UPMC_NOT_COUNTED,
		      "fallback-summary", r.summary);
	}
	if (wine)
		check(contains(r.counter[0].reason, "Wine"), "fallback-says-wine",
		      r.counter[0].reason);
	printf("call: %s (%.2f ms)\n", r.summary, r.elapsed_ns / 1e6);
}

static void measure_call_errors(void)
{
	struct call_probe p = {0, 0, -1};
	struct upmc_call_result r;

	check(upmc_measure_call("cycles", NULL, NULL, &r) == -EINVAL, "call-null-fn", NULL);
	check(upmc_measure_call("cycles", probe, &p, NULL) == -EINVAL, "call-null-out", NULL);
	check(upmc_measure_call("cylces", probe, &p, &r) == -ENOENT && p.calls == 0,
	      "call-bad-spec-not-run", upmc_last_error());
	check(upmc_measure_call(NULL, probe, &p, &r) == 0 && p.calls == 1 && r.n == 0 &&
	              contains(r.summary, "timed only"),
	      "call-no-counters", r.summary);
}

/*
 * The ETW session path itself, past the checks that keep Wine away from
 * it: under Wine StartTraceW succeeds with a fake handle and
 * TraceSetInformation is not implemented, so it must fail cleanly there.
 */
static void etw_session_fails_cleanly(void)
{
	struct upmc_etw *etw = NULL;
	ULONG source = 19; /* ProfileTotalCycles */
	uint64_t v[1], sw = 0;
	char why[320] = "";
	int err = upmc_etw_start(&source, 1, &etw, why, sizeof(why));

	if (upmc_etw_wine_version()) {
		check(err < 0 && !etw && contains(why, "TraceSetInformation"),
		      "wine-etw-session-refused", why);
		printf("etw: %d %s\n", err, why);
		return;
	}
	if (err == 0)
		err = upmc_etw_finish(etw, v, &sw, why, sizeof(why));
	check(err == 0 || why[0], "etw-session-ends-or-explains", why);
	printf("etw: %d %s\n", err, why);
}

int main(void)
{
	const char *wine = upmc_etw_wine_version();

	printf("windows_test: %s\n", wine ? wine : "Windows");
	sets_are_time_only();
	spec_errors();
	clock_follows_qpc();
	measure_call_falls_back();
	measure_call_errors();
	etw_session_fails_cleanly();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
