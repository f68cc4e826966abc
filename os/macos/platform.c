/* SPDX-License-Identifier: MIT */
/*
 * macOS only: where the frameworks are, root, and the clock. Everything
 * else of the backend is in files that also build (and are tested) on Linux.
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "os/macos/kpc.h"

#define KPERF_PATH     "/System/Library/PrivateFrameworks/kperf.framework/kperf"
#define KPERFDATA_PATH "/System/Library/PrivateFrameworks/kperfdata.framework/kperfdata"

static struct upmc_kpc_api api;
static char load_error[UPMC_REASON_MAX];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int is_root(void)
{
	return geteuid() == 0;
}

static void load(void)
{
	loaded = upmc_kpc_load(&api, KPERF_PATH, KPERFDATA_PATH, load_error, sizeof(load_error)) ==
	         0;
	api.is_root = is_root;
	api.now_ns = upmc_macos_now_ns;
}

const struct upmc_kpc_api *upmc_macos_api(const char **why)
{
	pthread_once(&once, load);
	*why = load_error;
	return loaded ? &api : NULL;
}

/* mach_absolute_time in ns: what the timestamps are calibrated against. */
uint64_t upmc_macos_now_ns(void)
{
	return clock_gettime_nsec_np(CLOCK_UPTIME_RAW);
}
