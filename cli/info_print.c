/* SPDX-License-Identifier: MIT */
/* `upmc info`: the subcommand, and its report as text or JSON (the facts
 * are gathered by cli/info.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/info.h"
#include "bench/json.h"

#define ROW "  %-22s "

static const char *yes_no(int v)
{
	return v > 0 ? "yes" : v == 0 ? "no" : "n/a";
}

static const char *path_name(int path)
{
	switch (path) {
	case UPMC_PATH_USER:
		return "user";
	case UPMC_PATH_SYSCALL:
		return "syscall";
	case UPMC_PATH_UNAVAILABLE:
		return "unavailable";
	default:
		return "unknown";
	}
}

static void text_cpu(const struct info *in)
{
	printf("CPU\n" ROW "%s%s%s\n", "architecture", UPMC_ARCH_NAME, in->vendor[0] ? ", " : "",
	       in->vendor);
	printf(ROW "%s (cpuid), %s (/proc/cpuinfo flags)\n", "hypervisor",
	       yes_no(in->cpuid_hypervisor), yes_no(in->probe.hypervisor));
	if (in->gp_counters >= 0)
		printf(ROW "%d general-purpose, %d fixed-function per core, as cpuid reports them "
		           "(a hypervisor may report counters it does not provide)\n",
		       "counters (cpuid)", in->gp_counters, in->fixed_counters);
}

static void text_core_pmus(const struct info *in)
{
	unsigned i;

	printf(ROW, "core PMUs");
	if (!in->probe.n_core)
		printf("none in /sys/bus/event_source/devices%s\n",
		       in->probe.hypervisor || in->cpuid_hypervisor > 0
		               ? ": a virtual machine without a virtual PMU"
		               : "");
	for (i = 0; i < in->probe.n_core; i++)
		printf("%s%s", in->probe.core[i], i + 1 < in->probe.n_core ? ", " : "\n");
}

/* What every level allows, the machine's marked: what to ask an admin for. */
static void text_paranoid_levels(const struct info *in)
{
	int level;

	static const char *const labels[] = {"-1:", "0:", "1:", "2:", "3+:"};

	for (level = -1; level <= 3; level++)
		printf(ROW "%3s %s%s\n", level == -1 ? "levels" : "", labels[level + 1],
		       info_paranoid_meaning(level, 1),
		       in->paranoid_readable && (in->probe.paranoid == level ||
		                                 (level == 3 && in->probe.paranoid > 3))
		               ? "  <- here"
		               : "");
}

static void text_permissions(const struct info *in)
{
	const struct upmc_linux_probe *p = &in->probe;

	printf("\nPMU and permissions\n");
	text_core_pmus(in);
	if (in->paranoid_readable)
		printf(ROW "%d: %s%s\n", "perf_event_paranoid", p->paranoid,
		       info_paranoid_meaning(p->paranoid, 1),
		       p->privileged ? " (this process runs as root: not restricted)" : "");
	else
		printf(ROW "%s\n", "perf_event_paranoid", info_paranoid_meaning(0, 0));
	text_paranoid_levels(in);
	if (p->rdpmc >= 0)
		printf(ROW "%d: %s\n", "rdpmc (sysfs)", p->rdpmc, info_rdpmc_meaning(p->rdpmc));
	else
		printf(ROW "%s\n", "rdpmc (sysfs)", info_rdpmc_meaning(-1));
	if (p->nmi_watchdog >= 0)
		printf(ROW "%d: %s\n", "NMI watchdog", p->nmi_watchdog,
		       p->nmi_watchdog == 0 ? "off"
		       : p->n_core          ? "on, holding one counter of the PMU"
		                            : "on (no PMU: it holds no counter)");
	else
		printf(ROW "absent\n", "NMI watchdog");
	if (p->user_access >= 0)
		printf(ROW "%d: %s\n", "perf_user_access", p->user_access,
		       p->user_access ? "user-space counter reads allowed"
		                      : "user-space reads off");
	else
		printf(ROW "absent (arm64 only)\n", "perf_user_access");
}

static void text_time(const struct info *in)
{
	printf("\nTime\n");
	if (in->invariant_tsc >= 0)
		printf(ROW "%s (cpuid 0x80000007 EDX bit 8)\n", "invariant TSC",
		       yes_no(in->invariant_tsc));
	if (in->ticks_per_ns > 0)
		printf(ROW "%.4f GHz (ticks per ns, from a timer set's clock)\n",
		       "timestamp frequency", in->ticks_per_ns);
	printf(ROW "%s\n", "clock", info_clock_meaning(in->clock_source));
	if (in->caps_err)
		printf(ROW "unknown: a perf page could not be opened (%s)\n", "perf page",
		       strerror(-in->caps_err));
	else
		printf(ROW "cap_user_time %d, cap_user_time_zero %d, cap_user_time_short %d\n",
		       "perf page", in->cap_user_time, in->cap_user_time_zero,
		       in->cap_user_time_short);
	printf(ROW "%s\n", "kernel clocksource", in->clocksource[0] ? in->clocksource : "unknown");
}

static void text_trial(const struct info *in)
{
	const struct info_trial *t = &in->trial;
	unsigned i;

	printf("\nTrial open of \"%s\"\n  %s%s\n", INFO_TRIAL_SPEC, t->err ? "failed: " : "",
	       t->summary);
	for (i = 0; !t->err && i < INFO_TRIAL_N; i++) {
		/* A reason the summary already gives, for another counter or this one, is
		 * not repeated. */
		const char *tail = cli_after_quoted_name(t->reason[i], t->name[i]);
		int said = strstr(t->summary, tail) != NULL;
		printf(ROW "%s%s%s\n", t->name[i], path_name(t->path[i]), said ? "" : ": ",
		       said ? "" : t->reason[i]);
	}
}

static void text_limits(const struct info *in)
{
	unsigned i;

	printf("\nLimits\n");
	if (!in->n_limits)
		printf("  none: the trial's counters read in user space\n");
	for (i = 0; i < in->n_limits; i++)
		printf("  %u. %s\n     lift it: %s\n", i + 1, in->limit[i].what, in->limit[i].fix);
}

static void print_text(const struct info *in)
{
	printf("upmc info: what this machine allows, and how to lift each limit\n");
	if (in->fs_root)
		printf("(/proc and /sys read under UPMC_FS_ROOT=%s)\n", in->fs_root);
	printf("\n");
	text_cpu(in);
	text_permissions(in);
	text_time(in);
	text_trial(in);
	text_limits(in);
}

/* -1 (unknown, absent) as null. */
static void json_level(struct json *j, const char *key, int v)
{
	if (v < 0)
		json_null(j, key);
	else
		json_int(j, key, v);
}

/* -1 (not applicable here) as null. */
static void json_yes_no(struct json *j, const char *key, int v)
{
	if (v < 0)
		json_null(j, key);
	else
		json_bool(j, key, v);
}

static void json_cpu(struct json *j, const struct info *in)
{
	unsigned i;

	json_string(j, "arch", UPMC_ARCH_NAME);
	json_string(j, "vendor", in->vendor[0] ? in->vendor : NULL);
	json_yes_no(j, "cpuid_hypervisor", in->cpuid_hypervisor);
	json_bool(j, "cpuinfo_hypervisor", in->probe.hypervisor);
	json_level(j, "gp_counters", in->gp_counters);
	json_level(j, "fixed_counters", in->fixed_counters);
	json_array(j, "core_pmus");
	for (i = 0; i < in->probe.n_core; i++)
		json_string(j, NULL, in->probe.core[i]);
	json_end(j);
}

static void json_permissions(struct json *j, const struct info *in)
{
	int level;

	if (in->paranoid_readable)
		json_int(j, "perf_event_paranoid", in->probe.paranoid);
	else
		json_null(j, "perf_event_paranoid");
	json_string(j, "paranoid_meaning",
	            info_paranoid_meaning(in->probe.paranoid, in->paranoid_readable));
	json_array(j, "paranoid_levels");
	for (level = -1; level <= 3; level++) {
		json_object(j, NULL);
		json_int(j, "level", level);
		json_string(j, "allows", info_paranoid_meaning(level, 1));
		json_end(j);
	}
	json_end(j);
	json_bool(j, "privileged", in->probe.privileged);
	json_level(j, "rdpmc", in->probe.rdpmc);
	json_level(j, "nmi_watchdog", in->probe.nmi_watchdog);
	json_level(j, "perf_user_access", in->probe.user_access);
}

static void json_time(struct json *j, const struct info *in)
{
	static const char *const sources[] = {"unknown", "kernel", "calibrated", "ns"};

	json_yes_no(j, "invariant_tsc", in->invariant_tsc);
	json_double(j, "ticks_per_ns", in->ticks_per_ns > 0 ? in->ticks_per_ns : NAN);
	json_string(j, "clock_source", sources[in->clock_source & 3]);
	if (in->caps_err) {
		json_null(j, "cap_user_time");
		json_null(j, "cap_user_time_zero");
		json_null(j, "cap_user_time_short");
	} else {
		json_bool(j, "cap_user_time", in->cap_user_time);
		json_bool(j, "cap_user_time_zero", in->cap_user_time_zero);
		json_bool(j, "cap_user_time_short", in->cap_user_time_short);
	}
	json_string(j, "kernel_clocksource", in->clocksource[0] ? in->clocksource : NULL);
}

static void json_trial(struct json *j, const struct info_trial *t)
{
	unsigned i;

	json_object(j, "trial");
	json_string(j, "spec", INFO_TRIAL_SPEC);
	json_bool(j, "opened", t->err == 0);
	json_string(j, "summary", t->summary);
	json_string(j, "advice", t->advice);
	json_array(j, "counters");
	for (i = 0; !t->err && i < INFO_TRIAL_N; i++) {
		json_object(j, NULL);
		json_string(j, "name", t->name[i]);
		json_string(j, "path", path_name(t->path[i]));
		json_string(j, "reason", t->reason[i]);
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static void print_json(const struct info *in)
{
	struct json j;
	unsigned i;

	json_start(&j, stdout);
	json_object(&j, NULL);
	json_string(&j, "fs_root", in->fs_root);
	json_cpu(&j, in);
	json_permissions(&j, in);
	json_time(&j, in);
	json_trial(&j, &in->trial);
	json_array(&j, "limits");
	for (i = 0; i < in->n_limits; i++) {
		json_object(&j, NULL);
		json_string(&j, "limit", in->limit[i].what);
		json_string(&j, "fix", in->limit[i].fix);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
}

int cli_info(int argc, char **argv)
{
	struct info in;
	int as_json = 0, i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			as_json = 1;
		else
			return cli_usage_error("info: unknown option '%s'", argv[i]);
	}
	info_gather(&in);
	if (as_json)
		print_json(&in);
	else
		print_text(&in);
	return 0;
}
