/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdatomic.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "os/linux/probe.h"

void upmc_linux_root_path(char *buf, size_t size, const char *path)
{
	const char *root = getenv("UPMC_FS_ROOT");

	upmc_format(buf, size, "%s%s", root ? root : "", path);
}

int upmc_linux_read_line(const char *path, char *buf, size_t size)
{
	char full[512];
	FILE *f;
	int ok;

	upmc_linux_root_path(full, sizeof(full), path);
	f = fopen(full, "re");
	if (!f)
		return -errno;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int upmc_linux_read_int(const char *path, int *value)
{
	char line[64], *end;
	int err = upmc_linux_read_line(path, line, sizeof(line));

	if (err < 0)
		return err;
	*value = (int)strtol(line, &end, 10);
	return end == line ? -EINVAL : 0;
}

static int read_or(const char *path, int fallback)
{
	int v;

	return upmc_linux_read_int(path, &v) < 0 ? fallback : v;
}

/* The CPU's own PMUs, as the kernel names them on x86 (Arrow Lake has a
 * third core type, cpu_lowpower) and arm64; 0 for any other PMU. */
static int core_pmu_kind(const char *name)
{
	if (!strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	    !strcmp(name, "cpu_lowpower"))
		return UPMC_LINUX_X86;
	if (!strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6))
		return UPMC_LINUX_PMUV3;
	return strncmp(name, "apple_", 6) ? 0 : UPMC_LINUX_APPLE;
}

int upmc_linux_is_core_pmu(const char *name)
{
	return core_pmu_kind(name) != 0;
}

void upmc_linux_pmu_name(uint32_t type, char *buf, size_t size)
{
	char dir[512], path[512];
	struct dirent *e;
	DIR *d;
	int t;

	upmc_format(buf, size, "type %u", (unsigned)type);
	upmc_linux_root_path(dir, sizeof(dir), "/sys/bus/event_source/devices");
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		upmc_format(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", e->d_name);
		if (e->d_name[0] != '.' && upmc_linux_read_int(path, &t) == 0 &&
		    (uint32_t)t == type) {
			upmc_format(buf, size, "%s", e->d_name);
			break;
		}
	}
	closedir(d);
}

/* Inserts a core PMU in type order. */
static void add_core_pmu(struct upmc_linux_machine *p, const char *name, uint32_t type, int kind)
{
	unsigned k = p->n_core++;

	for (; k > 0 && p->core_type[k - 1] > type; k--) {
		memcpy(p->core[k], p->core[k - 1], sizeof(p->core[k]));
		p->core_type[k] = p->core_type[k - 1];
		p->core_kind[k] = p->core_kind[k - 1];
	}
	upmc_format(p->core[k], sizeof(p->core[k]), "%s", name);
	p->core_type[k] = type;
	p->core_kind[k] = kind;
}

static void find_core_pmus(struct upmc_linux_machine *p)
{
	char dir[512];
	struct dirent *e;
	DIR *d;

	upmc_linux_root_path(dir, sizeof(dir), "/sys/bus/event_source/devices");
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)) && p->n_core < UPMC_LINUX_MAX_CORE_PMUS) {
		char type[128];
		int t, kind = core_pmu_kind(e->d_name);
		if (!kind)
			continue;
		upmc_format(type, sizeof(type), "/sys/bus/event_source/devices/%s/type", e->d_name);
		add_core_pmu(p, e->d_name, upmc_linux_read_int(type, &t) == 0 ? (uint32_t)t : 0,
		             kind);
	}
	closedir(d);
}

/* The value of a /proc/cpuinfo line whose key is key ("model", not "model
 * name") into val; 0 when the line is another's. */
static int cpuinfo_value(const char *line, const char *key, char *val, size_t size)
{
	size_t len = strlen(key), end;

	if (strncmp(line, key, len) || !strchr(" \t:", line[len]))
		return 0;
	line += len + strspn(line + len, " \t");
	if (*line++ != ':')
		return 0;
	line += strspn(line, " \t");
	end = strcspn(line, "\n");
	upmc_format(val, size, "%.*s", (int)end, line);
	return 1;
}

/*
 * The first processor's vendor-family-model-stepping (the model in hex), as
 * the kernel's perf matches its mapfile.csv (get_cpuid_str()), its model
 * name, and whether any flags line names the hypervisor, from /proc/cpuinfo.
 */
static void read_cpuinfo(struct upmc_linux_machine *m)
{
	char path[512], line[4096], vendor[64] = "", family[16] = "", model[16] = "";
	char stepping[16] = "";
	FILE *f;

	upmc_linux_root_path(path, sizeof(path), "/proc/cpuinfo");
	f = fopen(path, "re");
	if (!f)
		return;
	while (!m->hypervisor && fgets(line, sizeof(line), f)) {
		m->hypervisor = !strncmp(line, "flags", 5) && strstr(line, " hypervisor");
		if (vendor[0] && family[0] && model[0] && stepping[0] && m->model_name[0])
			continue;
		if (!cpuinfo_value(line, "vendor_id", vendor, sizeof(vendor)) &&
		    !cpuinfo_value(line, "model name", m->model_name, sizeof(m->model_name)) &&
		    !cpuinfo_value(line, "cpu family", family, sizeof(family)) &&
		    !cpuinfo_value(line, "stepping", stepping, sizeof(stepping)))
			cpuinfo_value(line, "model", model, sizeof(model));
	}
	fclose(f);
	if (vendor[0] && family[0] && model[0])
		upmc_format(m->cpu_id, sizeof(m->cpu_id), "%s-%s-%lX", vendor, family,
		            strtoul(model, NULL, 10));
	if (m->cpu_id[0] && stepping[0])
		upmc_format(m->cpu_id + strlen(m->cpu_id), sizeof(m->cpu_id) - strlen(m->cpu_id),
		            "-%lX", strtoul(stepping, NULL, 10));
}

/*
 * The machine's facts, one entry per fixture root: a list that only grows
 * (by compare-and-swap, no lock for fork() to find held) and is never
 * freed, one entry per root a process probes (the real one; a test's
 * fixtures).
 */
struct machine_entry {
	struct machine_entry *next;
	struct upmc_linux_machine facts;
	/* Whether SMT is on (upmc_linux_smt_active()), read when first asked:
	 * SMT_UNREAD until then. */
	_Atomic int smt;
	char root[]; /* $UPMC_FS_ROOT, "" when unset */
};

static struct machine_entry *_Atomic machines;

/* An entry's SMT state before anyone asked for it. */
#define SMT_UNREAD (-2)

/* An Arm CPU's id as perf's get_cpuid_str() gives it: the first CPU's
 * MIDR_EL1 from sysfs ("0x00000000410fd490"), where there is one. */
static void read_midr(struct upmc_linux_machine *m)
{
	char line[64];

	if (upmc_linux_read_line("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", line,
	                         sizeof(line)) == 0 &&
	    !strncmp(line, "0x", 2))
		upmc_format(m->cpu_id, sizeof(m->cpu_id), "%s", line);
}

static void read_machine(struct upmc_linux_machine *m)
{
	int v;

	memset(m, 0, sizeof(*m));
	read_cpuinfo(m);
	read_midr(m); /* on Arm, the id */
	find_core_pmus(m);
	m->user_access_sysctl = upmc_linux_read_int("/proc/sys/kernel/perf_user_access", &v) == 0;
}

/* The entry of the fixture root in force, made and read at the first
 * call for it; NULL when out of memory. */
static struct machine_entry *machine_entry(void)
{
	const char *root = getenv("UPMC_FS_ROOT");
	struct machine_entry *e, *head = atomic_load(&machines);

	root = root ? root : "";
	for (e = head; e; e = e->next)
		if (!strcmp(e->root, root))
			return e;
	e = malloc(sizeof(*e) + strlen(root) + 1);
	if (!e)
		return NULL;
	strcpy(e->root, root);
	read_machine(&e->facts);
	atomic_init(&e->smt, SMT_UNREAD);
	do
		e->next = head;
	while (!atomic_compare_exchange_weak(&machines, &head, e));
	return e;
}

const struct upmc_linux_machine *upmc_linux_machine(void)
{
	static struct upmc_linux_machine uncached;
	struct machine_entry *e = machine_entry();

	if (e)
		return &e->facts;
	read_machine(&uncached); /* out of memory: read each time, into one place */
	return &uncached;
}

/* Whether a CPU list of sysfs ("0-1", "0,28", "3") names more than one CPU. */
static int more_than_one_cpu(const char *list)
{
	return strchr(list, ',') || strchr(list, '-');
}

/*
 * Whether any online CPU shares its core with another, from each CPU's
 * topology/core_cpus_list (thread_siblings_list before Linux 5.3; an
 * offline CPU has neither): 1 yes, 0 no, -1 when no CPU says.
 */
static int any_core_shared(void)
{
	char dir[512], path[512], line[256];
	struct dirent *e;
	int found = -1;
	DIR *d;

	upmc_linux_root_path(dir, sizeof(dir), "/sys/devices/system/cpu");
	d = opendir(dir);
	if (!d)
		return -1;
	while (found < 1 && (e = readdir(d))) {
		if (strncmp(e->d_name, "cpu", 3) || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		upmc_format(path, sizeof(path),
		            "/sys/devices/system/cpu/%s/topology/core_cpus_list", e->d_name);
		if (upmc_linux_read_line(path, line, sizeof(line)) < 0) {
			upmc_format(path, sizeof(path),
			            "/sys/devices/system/cpu/%s/topology/thread_siblings_list",
			            e->d_name);
			if (upmc_linux_read_line(path, line, sizeof(line)) < 0)
				continue;
		}
		found = more_than_one_cpu(line);
	}
	closedir(d);
	return found;
}

/*
 * The kernel's SMT state as perf 6.1's smt_on() (tools/perf/util/smt.c)
 * takes it: /sys/devices/system/cpu/smt/active where the kernel has it
 * (Linux 4.19 on x86), else whether the topology puts two online CPUs in
 * one core (cpu_topology__smt_on() of tools/perf/util/cputopo.c; perf
 * before 6.1 read the same from each CPU's thread_siblings mask).
 */
static int read_smt(void)
{
	char line[16];

	if (upmc_linux_read_line("/sys/devices/system/cpu/smt/active", line, sizeof(line)) == 0)
		return line[0] == '1';
	return any_core_shared();
}

int upmc_linux_smt_active(void)
{
	struct machine_entry *e = machine_entry();
	int smt;

	if (!e)
		return read_smt();
	smt = atomic_load(&e->smt);
	if (smt == SMT_UNREAD) {
		smt = read_smt();
		atomic_store(&e->smt, smt); /* two threads store the same answer */
	}
	return smt;
}

/* What an administrator can change at run time: read on each call. */
static void read_settings(struct upmc_linux_probe *p)
{
	char path[128];
	unsigned i;

	p->paranoid = read_or("/proc/sys/kernel/perf_event_paranoid", -1);
	p->user_access = read_or("/proc/sys/kernel/perf_user_access", -1);
	p->nmi_watchdog = read_or("/proc/sys/kernel/nmi_watchdog", -1);
	p->privileged = geteuid() == 0;
	p->rdpmc = -1;
	for (i = 0; i < p->n_core && p->rdpmc < 0; i++) {
		upmc_format(path, sizeof(path), "/sys/bus/event_source/devices/%s/rdpmc",
		            p->core[i]);
		p->rdpmc = read_or(path, -1);
	}
	p->settings_read = 1;
}

void upmc_linux_probe_pmus(struct upmc_linux_probe *p)
{
	const struct upmc_linux_machine *m = upmc_linux_machine();

	memset(p, 0, sizeof(*p));
	p->paranoid = p->rdpmc = p->user_access = p->nmi_watchdog = -1;
	p->hypervisor = m->hypervisor;
	p->user_access_sysctl = m->user_access_sysctl;
	p->n_core = m->n_core;
	memcpy(p->core, m->core, sizeof(p->core));
	memcpy(p->core_type, m->core_type, sizeof(p->core_type));
	memcpy(p->core_kind, m->core_kind, sizeof(p->core_kind));
}

void upmc_linux_probe(struct upmc_linux_probe *p)
{
	upmc_linux_probe_pmus(p);
	read_settings(p);
}

/* p with its settings, read now when the caller probed the PMUs alone. */
static const struct upmc_linux_probe *settled(const struct upmc_linux_probe *p,
                                              struct upmc_linux_probe *full)
{
	if (p->settings_read)
		return p;
	*full = *p;
	read_settings(full);
	return full;
}

static void explain_permission(char *buf, size_t size, const struct upmc_event *ev,
                               const struct upmc_linux_probe *probe)
{
	struct upmc_linux_probe full;
	const struct upmc_linux_probe *p = settled(probe, &full);
	char pmu[64];

	if (p->paranoid == 2 && !ev->exclude_kernel && upmc_linux_other_pmu(ev, p)) {
		upmc_linux_pmu_name(ev->type, pmu, sizeof(pmu));
		upmc_format(buf, size,
		            "'%s': the PMU '%s' counts every privilege level at once, which needs "
		            "perf_event_paranoid <= 1 (it is %d): run `sysctl "
		            "kernel.perf_event_paranoid=1`, or give the program CAP_PERFMON",
		            ev->name, pmu, p->paranoid);
	} else if (p->paranoid > 2)
		upmc_format(
		        buf, size,
		        "'%s': perf_event_paranoid is %d, which forbids perf to non-root users: "
		        "run "
		        "`sysctl kernel.perf_event_paranoid=2` (or give the program CAP_PERFMON)",
		        ev->name, p->paranoid);
	else if (!ev->exclude_kernel && p->paranoid > 1 && ev->type == UPMC_TYPE_SOFTWARE &&
	         (ev->config == 3 || ev->config == 4))
		upmc_format(buf, size,
		            "'%s' only happens in the kernel: counting it needs "
		            "perf_event_paranoid <= 1 (it is %d): run `sysctl "
		            "kernel.perf_event_paranoid=1`, or give the program CAP_PERFMON",
		            ev->name, p->paranoid);
	else if (!ev->exclude_kernel && p->paranoid > 1)
		upmc_format(
		        buf, size,
		        "'%s': counting kernel mode needs perf_event_paranoid <= 1 (it is %d): run "
		        "`sysctl kernel.perf_event_paranoid=1`, or count user space only with ':u'",
		        ev->name, p->paranoid);
	else
		upmc_format(
		        buf, size,
		        "'%s': permission denied (perf_event_paranoid is %d): run as root or grant "
		        "CAP_PERFMON; in a container, allow perf_event_open in its seccomp profile",
		        ev->name, p->paranoid);
}

/* A counter's reason says what to do in a few words; the set says how,
 * in each hypervisor, once (upmc_advice()). */
#define TURN_VPMU_ON "turn it on in the hypervisor, or use bare metal"

void upmc_linux_vpmu_advice(char *buf, size_t size)
{
	upmc_format(buf, size,
	            "to turn a virtual machine's PMU on: QEMU/KVM '-cpu host,pmu=on', libvirt "
	            "<pmu state='on'/>, VMware 'virtualize CPU performance counters', or a cloud "
	            "instance type with a PMU");
}

void upmc_linux_explain_dead_pmu(char *buf, size_t size, const struct upmc_event *ev,
                                 const struct upmc_linux_probe *p)
{
	upmc_format(buf, size,
	            "'%s' cannot be counted: the PMU '%s' takes events but counts nothing (a "
	            "loop of 10000 iterations counted 0 instructions), %s: turn the virtual PMU "
	            "on in the hypervisor, or use bare metal",
	            ev->name, p->core[0],
	            p->hypervisor ? "typical of a virtual machine whose hypervisor shows a PMU it "
	                            "does not implement"
	                          : "its driver cannot start the counters");
}

/* A PMU that is not the CPU's refused ev (err: the errno). */
static void explain_other_pmu(char *buf, size_t size, const struct upmc_event *ev, int err)
{
	char pmu[64];

	upmc_linux_pmu_name(ev->type, pmu, sizeof(pmu));
	if (ev->exclude_user || ev->exclude_kernel)
		upmc_format(buf, size,
		            "'%s': the PMU '%s' counts every privilege level at once and filters "
		            "none: drop the privilege-level modifier (u, k)",
		            ev->name, pmu);
	else
		upmc_format(
		        buf, size,
		        "'%s': the PMU '%s' refused it (%s): a PMU outside the CPU's cores that "
		        "counts whole CPUs only (uncore, power) cannot count one thread or "
		        "process",
		        ev->name, pmu, strerror(err));
}

static void explain_missing(char *buf, size_t size, const struct upmc_event *ev, int err,
                            const struct upmc_linux_probe *p)
{
	if (upmc_linux_other_pmu(ev, p))
		explain_other_pmu(buf, size, ev, err);
	else if (ev->type == UPMC_TYPE_SOFTWARE)
		upmc_format(buf, size, "'%s': this kernel does not provide the software event",
		            ev->name);
	else if (!p->n_core && p->hypervisor)
		upmc_format(buf, size,
		            "'%s' cannot be counted: no CPU PMU is visible, typical of a virtual "
		            "machine without a virtual PMU: " TURN_VPMU_ON,
		            ev->name);
	else if (!p->n_core)
		upmc_format(
		        buf, size,
		        "'%s' cannot be counted: no CPU PMU is visible (no cpu, cpu_core or "
		        "armv8_* in /sys/bus/event_source/devices): the kernel has no driver for "
		        "this CPU's PMU (CONFIG_HW_PERF_EVENTS)",
		        ev->name);
	else if (ev->generic && p->n_core > 1 && p->core_kind[0] == UPMC_LINUX_PMUV3)
		upmc_format(buf, size,
		            "'%s': this kernel cannot open a generic event per core type of a "
		            "big.LITTLE CPU (no extended type: Linux 6.6 added it) and the event "
		            "has no PMUv3 equivalent upmc knows; name each PMU's own event, e.g. "
		            "'%s/l1d_cache_refill/'",
		            ev->name, p->core[0]);
	else
		upmc_format(buf, size, "'%s' is not supported by the PMU '%s' of this CPU",
		            ev->name, p->core[0]);
}

int upmc_linux_max_counters(void)
{
	const struct upmc_linux_machine *m = upmc_linux_machine();
	struct upmc_linux_cpuid c;
	size_t len;

	if (m->n_core != 1)
		return 0;
	upmc_linux_cpuid(&c);
	len = strlen(c.cpu_id);
	if (!len || strncmp(m->cpu_id, c.cpu_id, len) || (m->cpu_id[len] && m->cpu_id[len] != '-'))
		return 0;
	return c.gp_counters > 0 ? c.gp_counters + c.fixed_counters : 0;
}

/* PMUv3 without long event counters: a 64-bit ("long", config1 bit 0)
 * event with user access fits only the cycle counter
 * (armv8pmu_get_event_idx()), which one event at a time can hold. */
static int long_without_room(const struct upmc_event *ev, const struct upmc_linux_probe *p)
{
	return (ev->config1 & 1) && p->n_core && p->core_kind[0] == UPMC_LINUX_PMUV3 &&
	       p->user_access_sysctl;
}

/* ev did not fit in its group (in_group: a pinned or a multiplexed set's). */
static void explain_group_full(char *buf, size_t size, const struct upmc_event *ev, int in_group,
                               const struct upmc_linux_probe *probe)
{
	struct upmc_linux_probe full;
	const struct upmc_linux_probe *p = settled(probe, &full);

	if (long_without_room(ev, p)) {
		upmc_format(buf, size,
		            "'%s' asks for a 64-bit counter ('long'): on a PMU without 64-bit "
		            "event counters (before Armv8.5's PMUv3p5) only the cycle counter is "
		            "that wide, and an event before it in the set holds it; drop 'long' "
		            "(upmc reads 32-bit counters exactly) or count it in another set",
		            ev->name);
		return;
	}
	char has[64] = "has no counter left";
	int n = upmc_linux_max_counters();

	if (n > 0)
		upmc_format(has, sizeof(has), "has %d counters per core", n);
	upmc_format(buf, size,
	            "'%s' does not fit in one group with the events before it: the PMU %s%s; %s",
	            ev->name, has,
	            p->nmi_watchdog > 0 ? " and the NMI watchdog holds one (free it with `sysctl "
	                                  "kernel.nmi_watchdog=0`)"
	                                : "",
	            in_group == UPMC_LINUX_MULTIPLEXED_GROUP
	                    ? "the set is multiplexed already, but the kernel puts a group on the "
	                      "PMU whole: name the metric's events instead, each counted alone"
	                    : "count fewer events per set, or pass UPMC_OPT_MULTIPLEX to "
	                      "time-share the counters");
}

void upmc_linux_explain_open(char *buf, size_t size, const struct upmc_event *ev, int err,
                             int in_group, const struct upmc_linux_probe *p)
{
	switch (err) {
	case EACCES:
	case EPERM:
		explain_permission(buf, size, ev, p);
		break;
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		explain_missing(buf, size, ev, err, p);
		break;
	case EINVAL:
		if (in_group)
			explain_group_full(buf, size, ev, in_group, p);
		else
			explain_missing(buf, size, ev, err, p);
		break;
	case EBUSY:
		upmc_format(buf, size,
		            "'%s': the PMU is busy: another user holds its counters exclusively (a "
		            "system-wide perf session, a profiler, or the NMI watchdog)",
		            ev->name);
		break;
	case EMFILE:
		upmc_format(buf, size, "'%s': too many open files: raise the limit (`ulimit -n`)",
		            ev->name);
		break;
	case ENOSYS:
		upmc_format(buf, size,
		            "'%s': perf_event_open is not available: the kernel lacks "
		            "CONFIG_PERF_EVENTS, or a seccomp policy (a container's) blocks it",
		            ev->name);
		break;
	default:
		upmc_format(buf, size, "'%s': perf_event_open failed: %s", ev->name, strerror(err));
	}
}

void upmc_linux_explain_no_user_read(char *buf, size_t size, const struct upmc_linux_probe *probe)
{
	struct upmc_linux_probe full;
	const struct upmc_linux_probe *p = settled(probe, &full);
	int pmuv3 = p->n_core && p->core_kind[0] == UPMC_LINUX_PMUV3;

	if (pmuv3 && !p->user_access_sysctl)
		upmc_format(buf, size,
		            "this kernel has no user-space access to arm64 counters "
		            "(kernel.perf_user_access came with Linux 5.17); read(2) is used");
	else if (p->rdpmc == 0)
		upmc_format(buf, size,
		            "user-space rdpmc is disabled: run `echo 1 > "
		            "/sys/bus/event_source/devices/%s/rdpmc` as root (the default: allowed "
		            "while a counter is mapped); read(2) is used",
		            p->core[0]);
	else if (p->user_access == 0)
		upmc_format(buf, size,
		            "user-space counter access is disabled: run `sysctl "
		            "kernel.perf_user_access=1` as root; read(2) is used");
	else
		upmc_format(buf, size,
		            "the kernel does not offer a user-space read of this counter now "
		            "(cap_user_rdpmc or index is 0); read(2) is used");
}

int upmc_linux_vpmu_missing(const struct upmc_linux_probe *p, int pmu_dead)
{
	return pmu_dead || (!p->n_core && p->hypervisor);
}
