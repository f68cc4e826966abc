/* SPDX-License-Identifier: MIT */
/*
 * upmc_measure_call() on macOS: a set's kpc thread counters read around
 * the call, on the calling thread (kpc counts the calling thread; macOS has
 * no way to pin a thread to a CPU, so cpu is -1). Without root, or for
 * events kpc lacks, the call is timed and the counters say why not.
 */
#include <errno.h>
#include <string.h>

#include <upmc/call.h>

#include "lib/measure/measure.h"
#include "os/macos/kpc.h"

static int check_args(void (*fn)(void *), struct upmc_call_result *out)
{
	if (!fn || !out)
		return upmc_fail(-EINVAL, "upmc_measure_call: fn or out is NULL");
	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	out->context_switches = UPMC_NOT_COUNTED;
	return 0;
}

UPMC_API int upmc_measure_call(const char *spec, void (*fn)(void *), void *arg,
                               struct upmc_call_result *out)
{
	const struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	uint64_t a[UPMC_SNAPSHOT_MAX], b[UPMC_SNAPSHOT_MAX], t0, t1;
	struct upmc_set *set = NULL;
	int err = check_args(fn, out), ra = 0, rb = 0;

	if (err < 0)
		return err;
	if (spec && (err = upmc_open(&set, spec, &opts)) < 0)
		return err;
	if (set)
		ra = upmc_snapshot(set, a);
	t0 = upmc_macos_now_ns();
	fn(arg);
	t1 = upmc_macos_now_ns();
	if (set)
		rb = upmc_snapshot(set, b);
	out->elapsed_ns = t1 - t0;
	if (set)
		upmc_call_fill(out, set, a, b, ra < 0 ? ra : rb < 0 ? rb : 0);
	upmc_call_summarize(out, "by kpc around the call, on the calling thread");
	upmc_close(set);
	return 0;
}
