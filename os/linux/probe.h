/* SPDX-License-Identifier: MIT */
/*
 * What this Linux machine allows, read from /proc and /sys (under
 * $UPMC_FS_ROOT when set, so that tests can point it at a fixture tree),
 * and the sentences that explain each limit and how to lift it.
 */
#ifndef UPMC_LINUX_PROBE_H
#define UPMC_LINUX_PROBE_H

#include <stddef.h>

#include "lib/core/internal.h"

#define UPMC_LINUX_MAX_CORE_PMUS 4

/* What a core PMU is, for what its driver wants in perf_event_attr. */
enum upmc_linux_pmu_kind {
	UPMC_LINUX_X86 = 1,   /* cpu, cpu_core, cpu_atom, cpu_lowpower */
	UPMC_LINUX_PMUV3 = 2, /* armv8_*, armv9_*: drivers/perf/arm_pmuv3.c */
	UPMC_LINUX_APPLE = 3, /* apple_*: drivers/perf/apple_m1_cpu_pmu.c */
};

/*
 * What cannot change while a program runs, for the fixture root in force:
 * the CPU, whether a hypervisor runs it, its core PMUs (built into the
 * kernel), whether the kernel has kernel.perf_user_access. Read once per
 * root (upmc_linux_machine()).
 */
struct upmc_linux_machine {
	/* vendor-family-model-stepping or the MIDR, as perf's mapfile.csv;
	 * "" when unknown */
	char cpu_id[64];
	char model_name[128];   /* /proc/cpuinfo's "model name"; "" when unknown */
	int hypervisor;         /* /proc/cpuinfo has the hypervisor flag */
	int user_access_sysctl; /* kernel.perf_user_access exists (arm64, Linux 5.17) */
	unsigned n_core;        /* core PMUs: cpu, cpu_core, cpu_atom, armv8_*, ... */
	/* in the order of their perf type numbers, whatever sysfs's order */
	char core[UPMC_LINUX_MAX_CORE_PMUS][48];
	uint32_t core_type[UPMC_LINUX_MAX_CORE_PMUS]; /* their perf type numbers */
	int core_kind[UPMC_LINUX_MAX_CORE_PMUS];      /* enum upmc_linux_pmu_kind */
};

/* The facts of the machine under $UPMC_FS_ROOT (the real one when unset):
 * read at the first call for that root, kept for the process. */
const struct upmc_linux_machine *upmc_linux_machine(void);

/* Whether the kernel runs the CPU's SMT siblings, as perf's #SMT_on: 1 on,
 * 0 off, -1 not known. A fact of the machine under $UPMC_FS_ROOT, read at
 * the first call for that root (not before: opening a set does not ask),
 * kept for the process, as perf keeps it. */
int upmc_linux_smt_active(void);

struct upmc_linux_probe {
	/* The settings, which an administrator may change at any time: read
	 * by upmc_linux_probe(), not by upmc_linux_probe_pmus(). */
	int settings_read; /* 0: the five below are not read (-1, 0) */
	int paranoid;      /* kernel.perf_event_paranoid; -1: unreadable */
	int rdpmc;         /* <core pmu>/rdpmc (x86): 0 off, 1 while mapped, 2 always; -1: absent */
	int user_access;   /* kernel.perf_user_access (arm64); -1: absent */
	int nmi_watchdog;  /* kernel.nmi_watchdog; -1: absent */
	int privileged;    /* running as root */
	/* The machine's facts (struct upmc_linux_machine). */
	int hypervisor;         /* /proc/cpuinfo has the hypervisor flag */
	int user_access_sysctl; /* kernel.perf_user_access exists (arm64, Linux 5.17) */
	unsigned n_core;        /* core PMUs: cpu, cpu_core, cpu_atom, armv8_*, ... */
	/* in the order of their perf type numbers, whatever sysfs's order */
	char core[UPMC_LINUX_MAX_CORE_PMUS][48];
	uint32_t core_type[UPMC_LINUX_MAX_CORE_PMUS]; /* their perf type numbers */
	int core_kind[UPMC_LINUX_MAX_CORE_PMUS];      /* enum upmc_linux_pmu_kind */
};

/* One perf event to open for an upmc event (os/linux/plan.c). */
struct upmc_linux_attr {
	uint32_t type;
	uint64_t config, config1;
	uint32_t key;               /* the group it joins: its PMU's type (software: 1) */
	int core;                   /* its core PMU in the probe; -1: none, or unknown */
	unsigned user_read : 1;     /* its page may offer a user-space read */
	unsigned exclude_guest : 1; /* apple_* PMUs refuse events without it */
	unsigned other_pmu : 1;     /* a PMU not the CPU's: upmc_linux_other_pmu() */
};

/*
 * Whether ev goes to a PMU that is neither the CPU's (perf's generic and
 * raw events, a core PMU's) nor the kernel's software one: msr, power,
 * cstate_*, uncore_*, tracepoints. Such a PMU counts what it counts at
 * every privilege level, and the core PMUs' attribute bits (exclude_hv,
 * exclude_guest, PMUv3's config1 bits) are not its own: many refuse any
 * exclude bit (the kernel's PERF_PMU_CAP_NO_EXCLUDE). Its page offers no
 * user-space read.
 */
int upmc_linux_other_pmu(const struct upmc_event *ev, const struct upmc_linux_probe *p);

/* A CPU's own PMU, by its name in sysfs: cpu, cpu_core, armv8_*, ... */
int upmc_linux_is_core_pmu(const char *name);

/* The sysfs name of the PMU of perf type `type`, or "type <n>" when no
 * PMU in /sys/bus/event_source/devices has it. */
void upmc_linux_pmu_name(uint32_t type, char *buf, size_t size);

/* The events to open for ev: one, or one per core PMU for a generic event
 * on a hybrid CPU. Returns how many (at most UPMC_LINUX_MAX_CORE_PMUS). */
unsigned upmc_linux_plan(const struct upmc_event *ev, const struct upmc_linux_probe *p,
                         unsigned flags, struct upmc_linux_attr *out);

struct perf_event_attr;

/* attr for one planned perf event of ev: what is counted and where (PMU,
 * config, privilege levels, precision); the caller adds how it runs
 * (group, pinned, inherit, read format). */
void upmc_linux_attr_init(struct perf_event_attr *attr, const struct upmc_event *ev,
                          const struct upmc_linux_attr *plan);

/* A generic event that a big.LITTLE kernel without the extended type
 * (before Linux 6.6) refused: a becomes the core PMU's own encoding of it.
 * 1 when there is one, 0 when not. */
int upmc_linux_pmu_encoding(const struct upmc_event *ev, const struct upmc_linux_probe *p,
                            struct upmc_linux_attr *a);

/* The PMUv3 common event for a generic hardware event; 0: none. */
unsigned upmc_linux_pmuv3_code(const struct upmc_event *ev);

/* An Intel topdown metric event (event 0, umask 0x80-0x87): its page's
 * index names PERF_METRICS, which holds fractions, not a count. */
int upmc_linux_is_topdown_metric(const struct upmc_event *ev, int kind);

/* The machine's facts and its settings, read now. */
void upmc_linux_probe(struct upmc_linux_probe *p);

/* The machine's facts alone, without a file read after the root's first
 * probe: what opening a set needs. The explanations below read the
 * settings themselves when they need them. */
void upmc_linux_probe_pmus(struct upmc_linux_probe *p);

/* What CPUID says of an x86 CPU (os/linux/cpuid.c); without CPUID (other
 * architectures), "" and -1 everywhere. */
struct upmc_linux_cpuid {
	char vendor[13];    /* "GenuineIntel", "AuthenticAMD", ... */
	int hypervisor;     /* a hypervisor runs this CPU */
	int gp_counters;    /* general-purpose counters per core (0: none) */
	int fixed_counters; /* Intel's fixed-function counters */
	int invariant_tsc;  /* the TSC ticks at one rate in every P-, C- and T-state */
	double tsc_hz;      /* Intel's leaf 0x15: crystal x ratio, Hz (0: not enumerated) */
	/* vendor-family-model (the model in hex), as /proc/cpuinfo gives them
	 * (struct upmc_linux_machine's cpu_id less the stepping); "" without */
	char cpu_id[40];
};
void upmc_linux_cpuid(struct upmc_linux_cpuid *out);

/* Counters per core of the machine's core PMU as CPUID says (general and
 * fixed), where CPUID describes that PMU: the machine has one core PMU (a
 * hybrid CPU's core types have counts of their own), and its
 * /proc/cpuinfo names the CPU CPUID runs on (not another machine's
 * fixture tree); 0 when unknown. */
int upmc_linux_max_counters(void);

/* path under the fixture root ($UPMC_FS_ROOT), or path itself. */
void upmc_linux_root_path(char *buf, size_t size, const char *path);

/* The first line of a /proc or /sys file (under the fixture root), without
 * its newline. */
int upmc_linux_read_line(const char *path, char *buf, size_t size);

/* A copy of the perf page of a software event that counts nothing (user
 * mode only: any paranoid level allows it), for what the kernel publishes
 * there, its time capabilities and factors. 0 or -errno. */
struct perf_event_mmap_page;
int upmc_linux_dummy_page(struct perf_event_mmap_page *copy);

/* Reads an integer from a /proc or /sys path (prefixed by the fixture root). */
int upmc_linux_read_int(const char *path, int *value);

/* Where an event refused with EINVAL opens alone (upmc_linux_explain_open's
 * in_group): not (0: the PMU does not count it), or as a member of a
 * pinned set's group, or of a multiplexed set's, where time-sharing cannot
 * help (the kernel puts a group on the PMU whole or not at all). */
enum { UPMC_LINUX_NOT_ALONE, UPMC_LINUX_PINNED_GROUP, UPMC_LINUX_MULTIPLEXED_GROUP };

/* Why perf_event_open(ev) failed with err; in_group: as above. */
void upmc_linux_explain_open(char *buf, size_t size, const struct upmc_event *ev, int err,
                             int in_group, const struct upmc_linux_probe *p);

/* How to turn a virtual machine's PMU on, in each hypervisor: what the
 * reasons of a machine without a PMU, or with one that counts nothing, say
 * in a few words ("turn it on in the hypervisor"), said once
 * for a set (upmc_advice()) and by `upmc info`. */
void upmc_linux_vpmu_advice(char *buf, size_t size);

/* Whether the set's unavailable counters of the CPU call for that advice:
 * a virtual machine without a CPU PMU, or a PMU that counts nothing. */
int upmc_linux_vpmu_missing(const struct upmc_linux_probe *p, int pmu_dead);

/* Why ev is not counted on a PMU that opens events but counts nothing. */
void upmc_linux_explain_dead_pmu(char *buf, size_t size, const struct upmc_event *ev,
                                 const struct upmc_linux_probe *p);

/* Why an opened hardware counter cannot be read from user space. */
void upmc_linux_explain_no_user_read(char *buf, size_t size, const struct upmc_linux_probe *p);

/* Forgets which core PMUs were found counting or dead (os/linux/perf_open.c keeps
 * it for the process): for the fake kernel, whose PMUs change between tests. */
void upmc_linux_forget_pmu_checks(void);

#endif /* UPMC_LINUX_PROBE_H */
