/* SPDX-License-Identifier: MIT */
/* `upmc info`: gathering what the machine allows, and the limits that follow. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/info.h"

const char *info_paranoid_meaning(int level, int readable)
{
	if (!readable)
		return "unreadable: this kernel has no perf events (CONFIG_PERF_EVENTS)";
	if (level < 0)
		return "no restriction: every user may measure everything";
	if (level == 0)
		return "non-root users may measure processes and whole CPUs, not raw tracepoints";
	if (level == 1)
		return "non-root users may measure processes in user and kernel mode, not whole "
		       "CPUs";
	if (level == 2)
		return "non-root users may measure their own processes in user mode only";
	return "non-root users may not use perf at all (Debian's extra level)";
}

const char *info_rdpmc_meaning(int mode)
{
	switch (mode) {
	case 0:
		return "rdpmc faults in user space";
	case 1:
		return "rdpmc allowed while a counter's perf page is mapped (the kernel's default, "
		       "what upmc needs)";
	case 2:
		return "rdpmc allowed in every process at any time";
	default:
		return "absent: no core PMU, or not x86";
	}
}

const char *info_clock_meaning(int source)
{
	switch (source) {
	case UPMC_CLOCK_KERNEL:
		return "the kernel's factors from the perf page (time_zero, time_mult, time_shift)";
	case UPMC_CLOCK_CALIBRATED:
		return "calibrated against CLOCK_MONOTONIC_RAW at open (the kernel publishes no "
		       "factors)";
	case UPMC_CLOCK_NS:
		return "timestamps are CLOCK_MONOTONIC_RAW nanoseconds already";
	default:
		return "unknown";
	}
}

static void gather_cpu(struct info *in)
{
	struct upmc_linux_cpuid c;

	upmc_linux_cpuid(&c);
	cli_format(in->vendor, sizeof(in->vendor), "%s", c.vendor);
	in->cpuid_hypervisor = c.hypervisor;
	in->gp_counters = c.gp_counters;
	in->fixed_counters = c.fixed_counters;
	in->invariant_tsc = c.invariant_tsc;
}

/* Ticks per ns of the timestamp, as the set's clock converts them. */
static void gather_clock(struct info *in)
{
	const uint64_t ticks = 1000000000ull;
	struct upmc_set *timer;
	uint64_t t, ns;

	in->ticks_per_ns = 0;
	in->clock_source = 0;
	if (upmc_open_timer(&timer) < 0)
		return;
	t = upmc_timestamp();
	ns = upmc_ticks_to_ns(timer, t + ticks) - upmc_ticks_to_ns(timer, t);
	in->ticks_per_ns = ns ? (double)ticks / (double)ns : 0;
	in->clock_source = upmc_clock_source(timer);
	upmc_close(timer);
}

/* The time capabilities the kernel publishes on a perf page. */
static void gather_page_caps(struct info *in)
{
	struct perf_event_mmap_page page;

	in->caps_err = upmc_linux_dummy_page(&page);
	if (in->caps_err)
		return;
	in->cap_user_time = page.cap_user_time;
	in->cap_user_time_zero = page.cap_user_time_zero;
	in->cap_user_time_short = page.cap_user_time_short;
}

static void gather_clocksource(struct info *in)
{
	char path[512];
	FILE *f;

	in->clocksource[0] = '\0';
	upmc_linux_root_path(path, sizeof(path),
	                     "/sys/devices/system/clocksource/clocksource0/current_clocksource");
	f = fopen(path, "re");
	if (!f)
		return;
	if (!fgets(in->clocksource, sizeof(in->clocksource), f))
		in->clocksource[0] = '\0';
	in->clocksource[strcspn(in->clocksource, "\n")] = '\0';
	fclose(f);
}

static void gather_trial(struct info_trial *t)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	unsigned i;

	memset(t, 0, sizeof(*t));
	t->err = upmc_open(&set, INFO_TRIAL_SPEC, &opts);
	if (t->err < 0) {
		cli_format(t->summary, sizeof(t->summary), "%s", upmc_last_error());
		return;
	}
	cli_format(t->summary, sizeof(t->summary), "%s", upmc_summary(set));
	cli_format(t->advice, sizeof(t->advice), "%s", upmc_advice(set));
	for (i = 0; i < INFO_TRIAL_N && i < (unsigned)upmc_count(set); i++) {
		cli_format(t->name[i], sizeof(t->name[i]), "%s", upmc_counter_name(set, i));
		t->path[i] = upmc_counter_path(set, i);
		cli_format(t->reason[i], sizeof(t->reason[i]), "%s", upmc_counter_reason(set, i));
	}
	upmc_close(set);
}

static struct info_limit *add_limit(struct info *in)
{
	if (in->n_limits == INFO_MAX_LIMITS)
		return NULL;
	return &in->limit[in->n_limits++];
}

static void limit_no_pmu(struct info *in, const struct upmc_event *cycles)
{
	struct info_limit *l = add_limit(in);

	if (!l)
		return;
	upmc_linux_explain_open(l->what, sizeof(l->what), cycles, ENOENT, 0, &in->probe);
	if (in->probe.hypervisor || in->cpuid_hypervisor > 0) {
		char advice[UPMC_REASON_MAX];
		upmc_linux_vpmu_advice(advice, sizeof(advice));
		cli_format(l->fix, sizeof(l->fix), "%s; or use bare metal", advice);
	} else
		cli_format(l->fix, sizeof(l->fix),
		           "boot a kernel built with CONFIG_HW_PERF_EVENTS and this CPU's PMU "
		           "driver");
}

static void limit_paranoid(struct info *in, const struct upmc_event *cycles)
{
	const struct upmc_linux_probe *p = &in->probe;
	struct info_limit *l;

	/* Listed for root too: the programs it diagnoses may not run as root. */
	if (in->paranoid_readable && p->paranoid < 2)
		return;
	l = add_limit(in);
	if (!l)
		return;
	if (!in->paranoid_readable) {
		cli_format(l->what, sizeof(l->what), "perf_event_paranoid is %s",
		           info_paranoid_meaning(0, 0));
		cli_format(l->fix, sizeof(l->fix), "boot a kernel built with CONFIG_PERF_EVENTS");
	} else if (p->paranoid > 2) {
		upmc_linux_explain_open(l->what, sizeof(l->what), cycles, EACCES, 0, p);
		cli_format(l->fix, sizeof(l->fix), "`sysctl kernel.perf_event_paranoid=2`");
	} else {
		cli_format(l->what, sizeof(l->what),
		           "perf_event_paranoid is 2: counting kernel mode (':k', "
		           "context-switches, cpu-migrations) is refused to non-root users");
		cli_format(l->fix, sizeof(l->fix),
		           "`sysctl kernel.perf_event_paranoid=1` (or give the program "
		           "CAP_PERFMON)");
	}
}

static void limit_user_read(struct info *in)
{
	const struct upmc_linux_probe *p = &in->probe;
	struct info_limit *l;

	if (p->rdpmc == 0 && (l = add_limit(in))) {
		upmc_linux_explain_no_user_read(l->what, sizeof(l->what), p);
		cli_format(l->fix, sizeof(l->fix),
		           "`echo 1 > /sys/bus/event_source/devices/%s/rdpmc` (as root)",
		           p->core[0]);
	}
	if (p->user_access == 0 && (l = add_limit(in))) {
		upmc_linux_explain_no_user_read(l->what, sizeof(l->what), p);
		cli_format(l->fix, sizeof(l->fix), "`sysctl kernel.perf_user_access=1`");
	}
}

static void limit_counters(struct info *in)
{
	struct info_limit *l;

	if (in->probe.n_core && in->probe.nmi_watchdog > 0 && (l = add_limit(in))) {
		cli_format(l->what, sizeof(l->what),
		           "the NMI watchdog holds one counter of the PMU (kernel.nmi_watchdog is "
		           "%d), one fewer for a set",
		           in->probe.nmi_watchdog);
		cli_format(l->fix, sizeof(l->fix), "`sysctl kernel.nmi_watchdog=0`");
	}
	if (in->invariant_tsc == 0 && (l = add_limit(in))) {
		cli_format(l->what, sizeof(l->what),
		           "the TSC is not invariant (cpuid 0x80000007 EDX bit 8 is 0): its rate "
		           "may follow the core's frequency, so ticks are not a steady time base");
		cli_format(l->fix, sizeof(l->fix),
		           "no command lifts it: use a CPU with an invariant TSC, or time with "
		           "clock_gettime()");
	}
}

/* Whether a limit already says what `reason` says (of any counter). */
static int already_said(const struct info *in, const char *reason, const char *name)
{
	const char *tail = cli_after_quoted_name(reason, name);
	unsigned i;

	for (i = 0; i < in->n_limits; i++)
		if (!strcmp(cli_after_quoted_name(in->limit[i].what, "cycles"), tail))
			return 1;
	return 0;
}

/* The trial could not read a counter in user space for a reason no probe
 * gave (an unforeseen refusal; a fixture tree describing another machine
 * than the kernel that answered): its own sentence is a limit. */
static void limit_trial(struct info *in)
{
	const struct info_trial *t = &in->trial;
	const char *reason = NULL, *name = "";
	struct info_limit *l;
	unsigned i;

	if (t->err)
		reason = t->summary;
	for (i = 0; !t->err && i < INFO_TRIAL_N && !reason; i++)
		if (t->path[i] != UPMC_PATH_USER)
			reason = t->reason[i], name = t->name[i];
	if (!reason || already_said(in, reason, name) || !(l = add_limit(in)))
		return;
	cli_format(l->what, sizeof(l->what), "%s", reason);
	cli_format(l->fix, sizeof(l->fix),
	           "no command known: the sentence above is what the kernel answered");
}

static void gather_limits(struct info *in)
{
	struct upmc_event cycles;

	memset(&cycles, 0, sizeof(cycles));
	cli_format(cycles.name, sizeof(cycles.name), "cycles");
	cycles.type = UPMC_TYPE_HARDWARE;
	cycles.exclude_kernel = 1;
	in->n_limits = 0;
	if (!in->probe.n_core)
		limit_no_pmu(in, &cycles);
	limit_paranoid(in, &cycles);
	limit_user_read(in);
	limit_counters(in);
	limit_trial(in);
}

void info_gather(struct info *in)
{
	int level;

	memset(in, 0, sizeof(*in));
	in->fs_root = getenv("UPMC_FS_ROOT");
	upmc_linux_probe(&in->probe);
	in->paranoid_readable =
	        upmc_linux_read_int("/proc/sys/kernel/perf_event_paranoid", &level) == 0;
	gather_cpu(in);
	gather_clock(in);
	gather_page_caps(in);
	gather_clocksource(in);
	gather_trial(&in->trial);
	gather_limits(in); /* after the trial: it may be one */
}
