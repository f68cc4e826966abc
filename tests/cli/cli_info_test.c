/* SPDX-License-Identifier: MIT */
/*
 * `upmc info` on this machine, checked against what the test reads from
 * /proc and /sys itself, and against fixture trees of other machines
 * (tests/fixtures) through UPMC_FS_ROOT.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

static int read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "re");
	int ok = f && fscanf(f, "%d", v) == 1;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

/* The core PMUs as the kernel lists them, by the test's own reading. */
static unsigned core_pmus(char names[][64], unsigned max)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	unsigned n = 0;

	while (d && (e = readdir(d)) && n < max)
		if (!strcmp(e->d_name, "cpu") || !strncmp(e->d_name, "cpu_", 4) ||
		    !strncmp(e->d_name, "armv8_", 6) || !strncmp(e->d_name, "armv9_", 6))
			snprintf(names[n++], 64, "%.63s", e->d_name);
	if (d)
		closedir(d);
	return n;
}

/* How many times what occurs in text. */
static unsigned occurrences(const char *text, const char *what)
{
	unsigned n = 0;

	for (; (text = strstr(text, what)); text += strlen(what))
		n++;
	return n;
}

static struct jdoc *parse_or_fail(const char *text)
{
	char err[128];
	struct jdoc *d = jdoc_parse(text, err, sizeof(err));

	EXPECT_MSG(d, "invalid JSON: %s", err);
	return d;
}

/* Whether one limit's sentence in the JSON contains text. */
static int some_limit_says(const struct jdoc *doc, const char *field, const char *text)
{
	const struct jdoc *limits = jdoc_get(doc, "limits");
	size_t i;

	for (i = 0; limits && i < limits->n; i++) {
		const char *s = jdoc_string(jdoc_at(limits, i), field);
		if (s && strstr(s, text))
			return 1;
	}
	return 0;
}

TEST(cli_info, text_on_this_machine)
{
	char line[512], expect[64], names[4][64];
	struct cli_result r;
	int paranoid;

	CLI_RUN(r, NULL, "info");
	EXPECT_EQ(r.status, 0);
	ASSERT(read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0);
	ASSERT(cli_line_with(r.out, "perf_event_paranoid ", line, sizeof(line)) == 0);
	snprintf(expect, sizeof(expect), " %d: ", paranoid);
	EXPECT_CONTAINS(line, expect);
	EXPECT_CONTAINS(r.out, "Trial open of \"cycles,instructions\"");
	EXPECT_CONTAINS(r.out, "\nLimits\n");
	EXPECT_CONTAINS(r.out, "timestamp frequency");
	if (core_pmus(names, 4) == 0) {
		/* no PMU: the virtual-machine advice or the kernel-driver one */
		EXPECT_CONTAINS(r.out, "no CPU PMU is visible");
		EXPECT_CONTAINS(r.out, "lift it: ");
	} else {
		ASSERT(cli_line_with(r.out, "core PMUs", line, sizeof(line)) == 0);
		EXPECT_CONTAINS(line, names[0]);
	}
	cli_result_free(&r);
}

static void expect_core_pmus(const struct jdoc *doc)
{
	const struct jdoc *list = jdoc_get(doc, "core_pmus");
	char names[4][64];
	unsigned n = core_pmus(names, 4), i, k;

	ASSERT(list && list->type == JDOC_ARRAY);
	EXPECT_EQ(list->n, n);
	for (i = 0; i < n && i < list->n; i++) {
		for (k = 0; k < list->n && strcmp(jdoc_at(list, k)->string, names[i]); k++)
			;
		EXPECT_MSG(k < list->n, "core PMU %s missing", names[i]);
	}
}

static void expect_time(const struct jdoc *doc)
{
	const char *source = jdoc_string(doc, "clock_source");
	double ticks_per_ns = jdoc_number(doc, "ticks_per_ns", -1);

	ASSERT(source);
	EXPECT(!strcmp(source, "kernel") || !strcmp(source, "calibrated") || !strcmp(source, "ns"));
#if defined(__x86_64__)
	/* A TSC runs at 0.5 to 6 GHz. */
	EXPECT_MSG(ticks_per_ns > 0.5 && ticks_per_ns < 6, "ticks per ns %g", ticks_per_ns);
	EXPECT(jdoc_get(doc, "invariant_tsc")->type == JDOC_BOOL);
#else
	EXPECT(ticks_per_ns > 0);
#endif
}

static void expect_trial(const struct jdoc *doc)
{
	const struct jdoc *trial = jdoc_get(doc, "trial"), *counters;

	ASSERT(trial);
	EXPECT(!strcmp(jdoc_string(trial, "spec"), "cycles,instructions"));
	EXPECT(jdoc_string(trial, "summary") && jdoc_string(trial, "summary")[0]);
	counters = jdoc_get(trial, "counters");
	ASSERT(counters && jdoc_get(trial, "opened"));
	if (jdoc_get(trial, "opened")->boolean) {
		EXPECT_EQ(counters->n, 2);
		EXPECT(!strcmp(jdoc_string(jdoc_at(counters, 0), "name"), "cycles"));
		EXPECT(!strcmp(jdoc_string(jdoc_at(counters, 1), "name"), "instructions"));
	}
}

TEST(cli_info, json_on_this_machine)
{
	struct cli_result r;
	struct jdoc *doc;
	int paranoid, watchdog;

	CLI_RUN(r, NULL, "info", "--json");
	EXPECT_EQ(r.status, 0);
	doc = parse_or_fail(r.out);
	ASSERT(doc);
	ASSERT(read_int("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0);
	EXPECT(jdoc_number(doc, "perf_event_paranoid", -100) == paranoid);
	if (read_int("/proc/sys/kernel/nmi_watchdog", &watchdog) == 0)
		EXPECT(jdoc_number(doc, "nmi_watchdog", -100) == watchdog);
	EXPECT(jdoc_is_null(doc, "fs_root"));
#if defined(__x86_64__)
	EXPECT(!strcmp(jdoc_string(doc, "arch"), "x86"));
	EXPECT(jdoc_string(doc, "vendor") != NULL);
	EXPECT(jdoc_number(doc, "gp_counters", -1) >= 0);
#endif
	expect_core_pmus(doc);
	expect_time(doc);
	expect_trial(doc);
	if (jdoc_get(doc, "core_pmus") && jdoc_get(doc, "core_pmus")->n == 0)
		EXPECT(some_limit_says(doc, "limit", "no CPU PMU is visible"));
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_info, virtual_machine_without_pmu_fixture)
{
	const char *root = "tests/fixtures/vm-no-pmu";
	struct cli_result r;
	struct jdoc *doc;

	CLI_RUN(r, root, "info");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "UPMC_FS_ROOT=tests/fixtures/vm-no-pmu");
	EXPECT_CONTAINS(r.out, "typical of a virtual machine without a virtual PMU");
	EXPECT_CONTAINS(r.out, "turn it on in the hypervisor, or use bare metal");
	/* how, in each hypervisor, is said once: as the limit's fix */
	EXPECT_CONTAINS(r.out, "lift it: to turn a virtual machine's PMU on: QEMU/KVM "
	                       "'-cpu host,pmu=on'");
	EXPECT_EQ(occurrences(r.out, "-cpu host,pmu=on"), 1);
	EXPECT(!strstr(r.out, "/rdpmc`")); /* no rdpmc advice without a PMU */
	cli_result_free(&r);

	CLI_RUN(r, root, "info", "--json");
	EXPECT_EQ(r.status, 0);
	doc = parse_or_fail(r.out);
	ASSERT(doc);
	EXPECT(!strcmp(jdoc_string(doc, "fs_root"), root));
	EXPECT_EQ(jdoc_get(doc, "core_pmus")->n, 0);
	EXPECT(jdoc_number(doc, "perf_event_paranoid", -100) == 2);
	EXPECT(jdoc_number(doc, "nmi_watchdog", -100) == 0);
	EXPECT(jdoc_is_null(doc, "rdpmc"));
	EXPECT(jdoc_get(doc, "cpuinfo_hypervisor")->boolean);
	EXPECT(some_limit_says(doc, "limit", "virtual machine without a virtual PMU"));
	EXPECT(some_limit_says(doc, "fix", "-cpu host,pmu=on"));
	EXPECT_CONTAINS(jdoc_string(jdoc_get(doc, "trial"), "advice"), "-cpu host,pmu=on");
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_info, rdpmc_off_fixture)
{
	const char *root = "tests/fixtures/x86-rdpmc-off";
	struct cli_result r;
	struct jdoc *doc;

	CLI_RUN(r, root, "info");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "rdpmc (sysfs)          0: rdpmc faults in user space");
	EXPECT_CONTAINS(r.out, "lift it: `echo 1 > /sys/bus/event_source/devices/cpu/rdpmc`");
	EXPECT_CONTAINS(r.out, "lift it: `sysctl kernel.nmi_watchdog=0`");
	EXPECT(!strstr(r.out, "virtual machine without a virtual PMU"));
	cli_result_free(&r);

	CLI_RUN(r, root, "info", "--json");
	EXPECT_EQ(r.status, 0);
	doc = parse_or_fail(r.out);
	ASSERT(doc);
	EXPECT(jdoc_number(doc, "rdpmc", -1) == 0);
	EXPECT(jdoc_number(doc, "nmi_watchdog", -1) == 1);
	EXPECT_EQ(jdoc_get(doc, "core_pmus")->n, 1);
	EXPECT(!strcmp(jdoc_at(jdoc_get(doc, "core_pmus"), 0)->string, "cpu"));
	EXPECT(some_limit_says(doc, "fix", "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc"));
	EXPECT(!some_limit_says(doc, "limit", "virtual machine"));
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(cli_info, arm64_user_access_off_fixture)
{
	struct cli_result r;

	CLI_RUN(r, "tests/fixtures/arm64-user-access-off", "info");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "perf_user_access       0: user-space reads off");
	EXPECT_CONTAINS(r.out, "lift it: `sysctl kernel.perf_user_access=1`");
	cli_result_free(&r);
}

TEST(cli_info, paranoid_3_fixture)
{
	struct cli_result r;

	CLI_RUN(r, "tests/fixtures/paranoid-3", "info");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "perf_event_paranoid    3: non-root users may not use perf at all");
	EXPECT_CONTAINS(r.out, "lift it: `sysctl kernel.perf_event_paranoid=2`");
	cli_result_free(&r);
}
