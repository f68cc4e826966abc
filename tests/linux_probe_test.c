/* SPDX-License-Identifier: MIT */
/*
 * The machine probes and the sentences they lead to, against fixture trees
 * of machines this CI does not have (tests/fixtures).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "os/linux/probe.h"
#include "tests/upmc_test.h"

static void probe_fixture(const char *name, struct upmc_linux_probe *p)
{
	char root[256];

	upmc_format(root, sizeof(root), "tests/fixtures/%s", name);
	setenv("UPMC_FS_ROOT", root, 1);
	upmc_linux_probe(p);
	unsetenv("UPMC_FS_ROOT");
}

static struct upmc_event event(const char *name, unsigned type, int count_kernel)
{
	struct upmc_event ev;

	memset(&ev, 0, sizeof(ev));
	upmc_format(ev.name, sizeof(ev.name), "%s", name);
	ev.type = type;
	ev.exclude_kernel = !count_kernel;
	return ev;
}

TEST(probe, virtual_machine_without_pmu)
{
	struct upmc_linux_probe p;
	struct upmc_event ev = event("cycles", UPMC_TYPE_HARDWARE, 0);
	char why[UPMC_REASON_MAX];

	probe_fixture("vm-no-pmu", &p);
	EXPECT_EQ(p.paranoid, 2);
	EXPECT_EQ(p.n_core, 0);
	EXPECT_EQ(p.hypervisor, 1);
	EXPECT_EQ(p.rdpmc, -1);
	upmc_linux_explain_open(why, sizeof(why), &ev, ENOENT, 0, &p);
	EXPECT_CONTAINS(why, "no CPU PMU is visible, typical of a virtual machine without a "
	                     "virtual PMU: turn it on in the hypervisor, or use bare metal");
	/* how, in each hypervisor, is the set's advice, said once */
	EXPECT(!strstr(why, "-cpu host,pmu=on"));
	EXPECT(upmc_linux_vpmu_missing(&p, 0));
	upmc_linux_vpmu_advice(why, sizeof(why));
	EXPECT_CONTAINS(why, "QEMU/KVM '-cpu host,pmu=on', libvirt <pmu state='on'/>");
	p.hypervisor = 0;
	upmc_linux_explain_open(why, sizeof(why), &ev, EOPNOTSUPP, 0, &p);
	EXPECT_CONTAINS(why, "the kernel has no driver for this CPU's PMU");
	EXPECT(!upmc_linux_vpmu_missing(&p, 0)); /* bare metal: no hypervisor to ask */
}

TEST(probe, paranoid_too_high)
{
	struct upmc_linux_probe p;
	struct upmc_event ev = event("cycles", UPMC_TYPE_HARDWARE, 0);
	char why[UPMC_REASON_MAX];

	probe_fixture("paranoid-3", &p);
	EXPECT_EQ(p.paranoid, 3);
	upmc_linux_explain_open(why, sizeof(why), &ev, EACCES, 0, &p);
	EXPECT_CONTAINS(why, "perf_event_paranoid is 3");
	EXPECT_CONTAINS(why, "sysctl kernel.perf_event_paranoid=2");
}

TEST(probe, kernel_mode_needs_paranoid_1)
{
	struct upmc_linux_probe p;
	struct upmc_event ev = event("cycles:k", UPMC_TYPE_HARDWARE, 1);
	char why[UPMC_REASON_MAX];

	probe_fixture("x86-rdpmc-off", &p);
	upmc_linux_explain_open(why, sizeof(why), &ev, EACCES, 0, &p);
	EXPECT_CONTAINS(why, "counting kernel mode needs perf_event_paranoid <= 1 (it is 2)");
	EXPECT_CONTAINS(why, "':u'");
	/* no ':u' advice where user mode alone would read a silent 0 */
	ev = event("context-switches", UPMC_TYPE_SOFTWARE, 1);
	ev.config = 3;
	upmc_linux_explain_open(why, sizeof(why), &ev, EACCES, 0, &p);
	EXPECT_CONTAINS(why, "'context-switches' only happens in the kernel");
	EXPECT(!strstr(why, "':u'"));
}

TEST(probe, rdpmc_disabled_in_sysfs)
{
	struct upmc_linux_probe p;
	char why[UPMC_REASON_MAX];

	probe_fixture("x86-rdpmc-off", &p);
	EXPECT_EQ(p.n_core, 1);
	EXPECT(!strcmp(p.core[0], "cpu"));
	EXPECT_EQ(p.rdpmc, 0);
	EXPECT_EQ(p.nmi_watchdog, 1);
	EXPECT_EQ(p.hypervisor, 0);
	upmc_linux_explain_no_user_read(why, sizeof(why), &p);
	EXPECT_CONTAINS(why, "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc");
}

TEST(probe, group_full_names_the_nmi_watchdog)
{
	struct upmc_linux_probe p;
	struct upmc_event ev = event("branch-misses", UPMC_TYPE_HARDWARE, 0);
	char why[UPMC_REASON_MAX];

	probe_fixture("x86-rdpmc-off", &p);
	upmc_linux_explain_open(why, sizeof(why), &ev, EINVAL, UPMC_LINUX_PINNED_GROUP, &p);
	EXPECT_CONTAINS(why, "'branch-misses' does not fit in one group");
	EXPECT_CONTAINS(why, "sysctl kernel.nmi_watchdog=0");
	EXPECT_CONTAINS(why, "pass UPMC_OPT_MULTIPLEX");
	/* a multiplexed set's group: the flag is passed already, and no help */
	upmc_linux_explain_open(why, sizeof(why), &ev, EINVAL, UPMC_LINUX_MULTIPLEXED_GROUP, &p);
	EXPECT_CONTAINS(why, "'branch-misses' does not fit in one group");
	EXPECT_CONTAINS(why, "sysctl kernel.nmi_watchdog=0");
	EXPECT_CONTAINS(why,
	                "the set is multiplexed already, but the kernel puts a group on the PMU "
	                "whole");
	EXPECT(!strstr(why, "pass UPMC_OPT_MULTIPLEX"));
	/* EINVAL for an event that does not open alone is not a full group */
	upmc_linux_explain_open(why, sizeof(why), &ev, EINVAL, 0, &p);
	EXPECT_CONTAINS(why, "not supported by the PMU 'cpu'");
}

TEST(probe, arm64_user_access_off)
{
	struct upmc_linux_probe p;
	char why[UPMC_REASON_MAX];

	probe_fixture("arm64-user-access-off", &p);
	EXPECT_EQ(p.user_access, 0);
	EXPECT_EQ(p.n_core, 1);
	EXPECT(!strcmp(p.core[0], "armv8_pmuv3_0"));
	upmc_linux_explain_no_user_read(why, sizeof(why), &p);
	EXPECT_CONTAINS(why, "sysctl kernel.perf_user_access=1");
}

TEST(probe, hybrid_core_pmus)
{
	struct upmc_linux_probe p;

	probe_fixture("intel-hybrid", &p);
	ASSERT(p.n_core == 2);
	EXPECT((!strcmp(p.core[0], "cpu_core") && !strcmp(p.core[1], "cpu_atom")) ||
	       (!strcmp(p.core[0], "cpu_atom") && !strcmp(p.core[1], "cpu_core")));
	EXPECT_EQ(p.rdpmc, 1);
}

TEST(probe, other_errors_have_sentences)
{
	struct upmc_linux_probe p;
	struct upmc_event ev = event("task-clock", UPMC_TYPE_SOFTWARE, 0);
	char why[UPMC_REASON_MAX];

	probe_fixture("vm-no-pmu", &p);
	upmc_linux_explain_open(why, sizeof(why), &ev, EMFILE, 0, &p);
	EXPECT_CONTAINS(why, "ulimit -n");
	upmc_linux_explain_open(why, sizeof(why), &ev, ENOSYS, 0, &p);
	EXPECT_CONTAINS(why, "CONFIG_PERF_EVENTS");
	upmc_linux_explain_open(why, sizeof(why), &ev, EBUSY, 0, &p);
	EXPECT_CONTAINS(why, "the PMU is busy");
	upmc_linux_explain_open(why, sizeof(why), &ev, ENOENT, 0, &p);
	EXPECT_CONTAINS(why, "does not provide the software event");
}

TEST(probe, missing_root_reads_nothing)
{
	struct upmc_linux_probe p;

	probe_fixture("no-such-fixture", &p);
	EXPECT_EQ(p.paranoid, -1);
	EXPECT_EQ(p.n_core, 0);
	EXPECT_EQ(p.rdpmc, -1);
	EXPECT_EQ(p.user_access, -1);
}

/* ---- the facts once per root, the settings at each probe ---- */

static void write_file(const char *root, const char *path, const char *text)
{
	char full[512], *slash;
	FILE *f;

	upmc_format(full, sizeof(full), "%s%s", root, path);
	for (slash = strchr(full + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(full, 0700);
		*slash = '/';
	}
	f = fopen(full, "w");
	ASSERT_MSG(f, "cannot write %s", full);
	fputs(text, f);
	fclose(f);
}

TEST(probe, a_root_change_is_another_machine)
{
	struct upmc_linux_probe p;

	probe_fixture("x86-rdpmc-off", &p);
	ASSERT(p.n_core == 1);
	EXPECT(!strcmp(p.core[0], "cpu"));
	probe_fixture("arm64-user-access-off", &p);
	ASSERT(p.n_core == 1);
	EXPECT(!strcmp(p.core[0], "armv8_pmuv3_0"));
	EXPECT(p.user_access_sysctl);
	probe_fixture("vm-no-pmu", &p);
	EXPECT_EQ(p.n_core, 0);
	EXPECT_EQ(p.hypervisor, 1);
	probe_fixture("x86-rdpmc-off", &p); /* back to the first */
	ASSERT(p.n_core == 1);
	EXPECT(!strcmp(p.core[0], "cpu"));
	EXPECT_EQ(p.hypervisor, 0);
	EXPECT(!p.user_access_sysctl);
}

TEST(probe, facts_read_once_settings_each_time)
{
	char root[] = "/tmp/upmc-probe-XXXXXX", cmd[64];
	struct upmc_linux_probe p;

	ASSERT(mkdtemp(root));
	write_file(root, "/proc/cpuinfo",
	           "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n"
	           "flags\t\t: fpu hypervisor\n");
	write_file(root, "/proc/sys/kernel/perf_event_paranoid", "2\n");
	write_file(root, "/sys/bus/event_source/devices/cpu/type", "4\n");
	write_file(root, "/sys/bus/event_source/devices/cpu/rdpmc", "1\n");
	setenv("UPMC_FS_ROOT", root, 1);
	upmc_linux_probe(&p);
	EXPECT_EQ(p.paranoid, 2);
	EXPECT_EQ(p.rdpmc, 1);
	EXPECT_EQ(p.n_core, 1);
	EXPECT_EQ(p.hypervisor, 1);
	EXPECT(!strcmp(upmc_linux_machine()->cpu_id, "GenuineIntel-6-8F"));
	/* an administrator's sysctl and sysfs write: seen at the next probe */
	write_file(root, "/proc/sys/kernel/perf_event_paranoid", "3\n");
	write_file(root, "/sys/bus/event_source/devices/cpu/rdpmc", "0\n");
	/* what cannot change while a program runs is not read again */
	write_file(root, "/sys/bus/event_source/devices/cpu_atom/type", "10\n");
	upmc_linux_probe(&p);
	EXPECT_EQ(p.paranoid, 3);
	EXPECT_EQ(p.rdpmc, 0);
	EXPECT_EQ(p.n_core, 1);
	/* the PMUs alone: no setting read */
	upmc_linux_probe_pmus(&p);
	EXPECT_EQ(p.settings_read, 0);
	EXPECT_EQ(p.paranoid, -1);
	EXPECT_EQ(p.n_core, 1);
	unsetenv("UPMC_FS_ROOT");
	upmc_format(cmd, sizeof(cmd), "rm -rf %s", root);
	EXPECT(system(cmd) == 0);
}

/* The open path probes the PMUs alone: a sentence that needs a setting
 * reads it. */
TEST(probe, sentences_read_the_settings_they_need)
{
	struct upmc_linux_probe p;
	struct upmc_event ev = event("cycles", UPMC_TYPE_HARDWARE, 0);
	char why[UPMC_REASON_MAX];

	setenv("UPMC_FS_ROOT", "tests/fixtures/paranoid-3", 1);
	upmc_linux_probe_pmus(&p);
	upmc_linux_explain_open(why, sizeof(why), &ev, EACCES, 0, &p);
	EXPECT_CONTAINS(why, "perf_event_paranoid is 3");
	setenv("UPMC_FS_ROOT", "tests/fixtures/x86-rdpmc-off", 1);
	upmc_linux_probe_pmus(&p);
	upmc_linux_explain_no_user_read(why, sizeof(why), &p);
	EXPECT_CONTAINS(why, "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc");
	upmc_linux_explain_open(why, sizeof(why), &ev, EINVAL, 1, &p);
	EXPECT_CONTAINS(why, "sysctl kernel.nmi_watchdog=0");
	unsetenv("UPMC_FS_ROOT");
}

/* CPUID's vendor-family-model is the start of the id /proc/cpuinfo gives
 * on the machine that runs the test: how the counter count of CPUID is
 * known to describe the machine's PMU (upmc_linux_max_counters()). */
TEST(probe, cpuid_names_the_cpu_of_proc_cpuinfo)
{
	struct upmc_linux_cpuid c;
	const char *id = upmc_linux_machine()->cpu_id;
	size_t len;

	upmc_linux_cpuid(&c);
	if (!c.cpu_id[0])
		SKIP("no CPUID on this architecture");
	if (!id[0])
		SKIP("/proc/cpuinfo gives no vendor, family and model here");
	len = strlen(c.cpu_id);
	EXPECT_MSG(!strncmp(id, c.cpu_id, len) && (!id[len] || id[len] == '-'),
	           "CPUID says '%s', /proc/cpuinfo '%s'", c.cpu_id, id);
}
