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

/* Values, paths and reasons of the set into out; a failed read makes
 * every counter unavailable with the read's error. */
static void fill(struct upmc_call_result *out, struct upmc_set *set, const uint64_t *a,
                 const uint64_t *b, int read_err)
{
	unsigned i;

	out->n = (unsigned)upmc_count(set);
	for (i = 0; i < out->n; i++) {
		struct upmc_call_counter *c = &out->counter[i];
		int ok = !read_err && upmc_counter_path(set, i) != UPMC_PATH_UNAVAILABLE;
		upmc_format(c->name, sizeof(c->name), "%s", upmc_counter_name(set, i));
		c->value = ok ? b[i] - a[i] : UPMC_NOT_COUNTED;
		c->path = ok ? upmc_counter_path(set, i) : UPMC_PATH_UNAVAILABLE;
		upmc_format(c->reason, sizeof(c->reason), "%s",
		            read_err ? upmc_last_error() : upmc_counter_reason(set, i));
		out->counted += ok;
	}
}

static void summarize(struct upmc_call_result *out)
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
		upmc_format(out->summary, sizeof(out->summary),
		            "%u of %u counters by kpc around the call, on the calling thread%s%s",
		            out->counted, out->n, i < out->n ? "; not counted: " : "",
		            i < out->n ? out->counter[i].reason : "");
}

UPMC_API int upmc_measure_call(const char *spec, void (*fn)(void *), void *arg,
                               struct upmc_call_result *out)
{
	const struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	uint64_t a[UPMC_MAX_COUNTERS], b[UPMC_MAX_COUNTERS], t0, t1;
	struct upmc_set *set = NULL;
	int err = check_args(fn, out), ra = 0, rb = 0;

	if (err < 0)
		return err;
	if (spec && (err = upmc_open(&set, spec, &opts)) < 0)
		return err;
	if (set)
		ra = upmc_read(set, a);
	t0 = upmc_macos_now_ns();
	fn(arg);
	t1 = upmc_macos_now_ns();
	if (set)
		rb = upmc_read(set, b);
	out->elapsed_ns = t1 - t0;
	if (set)
		fill(out, set, a, b, ra < 0 ? ra : rb < 0 ? rb : 0);
	summarize(out);
	upmc_close(set);
	return 0;
}
