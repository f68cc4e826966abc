/* SPDX-License-Identifier: MIT */
/*
 * A macOS program over the real frameworks, built by tools/ci-platforms.sh
 * with zig cc for aarch64-macos and x86_64-macos to prove that the backend
 * compiles and links there. It cannot run on the Linux CI machine; on a Mac,
 * `sudo ./macos_main` counts and plain `./macos_main` shows the fallback.
 * Exits 0 when every result is consistent, 1 otherwise.
 */
#include <stdio.h>
#include <string.h>

#include <upmc/call.h>
#include <upmc/upmc.h>

static volatile unsigned sink;

static void work(void *arg)
{
	unsigned i;

	(void)arg;
	for (i = 0; i < 1000000; i++)
		sink += i & 7 ? i : 1;
}

int main(void)
{
	const struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_call_result r;
	struct upmc_set *set;
	uint64_t a[4], b[4];
	int i, bad = 0;

	if (upmc_open(&set, "cycles,instructions,branches,branch-misses", &opts) < 0) {
		fprintf(stderr, "upmc: %s\n", upmc_last_error());
		return 1;
	}
	upmc_read(set, a);
	work(NULL);
	upmc_read(set, b);
	printf("set: %s\n", upmc_summary(set));
	for (i = 0; i < upmc_count(set); i++) {
		int counted = upmc_counter_path(set, i) != UPMC_PATH_UNAVAILABLE;
		printf("  %-14s %llu (%s)\n", upmc_counter_name(set, i),
		       counted ? (unsigned long long)(b[i] - a[i]) : 0ull,
		       upmc_counter_reason(set, i));
		bad += counted ? b[i] == UPMC_NOT_COUNTED : b[i] != UPMC_NOT_COUNTED;
	}
	upmc_close(set);
	if (upmc_measure_call("cycles,instructions", work, NULL, &r) < 0) {
		fprintf(stderr, "upmc: %s\n", upmc_last_error());
		return 1;
	}
	printf("call: %.3f ms; %s\n", r.elapsed_ns / 1e6, r.summary);
	return bad ? 1 : 0;
}
