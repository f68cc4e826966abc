/* SPDX-License-Identifier: MIT */
/* `upmc info`: what the machine allows, gathered once, printed as text or JSON. */
#ifndef UPMC_CLI_INFO_H
#define UPMC_CLI_INFO_H

#include <upmc/upmc.h>

#include "os/linux/upmc_linux.h"

#define INFO_MAX_LIMITS 8
#define INFO_TRIAL_SPEC "cycles,instructions"
#define INFO_TRIAL_N    2

/* One thing that keeps counters from this process, and what lifts it. */
struct info_limit {
	char what[UPMC_REASON_MAX];
	char fix[UPMC_REASON_MAX];
};

struct info_trial {
	int err; /* upmc_open()'s result: 0 or -errno */
	char summary[UPMC_REASON_MAX + 96];
	char advice[UPMC_REASON_MAX]; /* upmc_advice() */
	char name[INFO_TRIAL_N][UPMC_NAME_MAX];
	int path[INFO_TRIAL_N]; /* enum upmc_path */
	char reason[INFO_TRIAL_N][UPMC_REASON_MAX];
};

struct info {
	const char *fs_root; /* $UPMC_FS_ROOT, or NULL */
	struct upmc_linux_probe probe;
	int paranoid_readable; /* probe.paranoid is the level (-1 is a level too) */
	char vendor[16];       /* x86 cpuid vendor; "" elsewhere */
	int cpuid_hypervisor;  /* -1: no cpuid on this architecture */
	int gp_counters;       /* per core, as cpuid reports; -1: unknown */
	int fixed_counters;    /* -1: unknown */
	int invariant_tsc;     /* -1: not applicable */
	double ticks_per_ns;   /* of the timestamp, from a timer set's clock */
	int clock_source;      /* enum upmc_clock_source */
	int caps_err;          /* 0, or -errno when the perf page could not be read */
	int cap_user_time, cap_user_time_zero, cap_user_time_short;
	char clocksource[64]; /* the kernel's current clocksource; "" unknown */
	struct info_trial trial;
	struct info_limit limit[INFO_MAX_LIMITS];
	unsigned n_limits;
};

/* Fills *in from the probes, cpuid, a timer set and a trial open. */
void info_gather(struct info *in);

const char *info_paranoid_meaning(int level, int readable);
const char *info_rdpmc_meaning(int mode);
const char *info_clock_meaning(int source);

#endif /* UPMC_CLI_INFO_H */
