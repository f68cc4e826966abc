/* SPDX-License-Identifier: MIT */
/*
 * A fake kernel for perf_event_open, linked in place of os/linux/sys.c (the
 * system calls of the Linux layer, os/linux/sys.h) and of the counter read
 * instruction (the arch seam, tests/sim/sim_seam.h). The library's own Linux
 * layer, its plan, open logic, pages and reads then run against machines
 * this CI does not have. tests/fake/README.md says what it models and what
 * it leaves out.
 *
 * A test boots a fixture tree (tests/fixtures) and the fake takes the core
 * PMUs it finds there, with their sysfs type numbers:
 *
 *   fake_boot("intel-hybrid");          cpu_core and cpu_atom
 *   fake_run_on(fake_pmu_named("cpu_atom"));
 *   upmc_open(&set, "cycles", NULL);
 *   fake_run(5000);                     5 us pass: counters count 1 per ns
 *   upmc_read(set, v);
 */
#ifndef UPMC_FAKE_KERNEL_H
#define UPMC_FAKE_KERNEL_H

#include <linux/perf_event.h>
#include <stdint.h>

#include "tests/sim/sim_seam.h"
#include <upmc/upmc.h>

#define FAKE_MAX_PMUS   4
#define FAKE_MAX_OTHER  8
#define FAKE_MAX_EVENTS 96
#define FAKE_SLOTS      32 /* x86: general 0..15, fixed 16..31; Arm: 0..30, cycles 31 */
#define FAKE_FIXED      16
#define FAKE_ARM_CYCLES 31
#define FAKE_FD_BASE    1000
/* Retiring 64, bad speculation 16, frontend 48, backend 127: 255 in all. */
#define FAKE_PERF_METRICS 0x7f301040ull

/* A core PMU: one per core type. Its counters are those of the CPU the
 * thread runs on while it runs on that core type. */
struct fake_pmu {
	char name[48];
	uint32_t type;       /* perf type number, from the fixture's sysfs */
	unsigned gp, fixed;  /* x86: general and fixed counters; Arm: event counters */
	int arm;             /* an Arm PMU (armv8_*, armv9_*, apple_*) */
	int pmuv3;           /* Arm PMUv3: config1 "long" and "rdpmc", the cycle counter */
	int long_events;     /* PMUv3p5: 64-bit event counters without chaining */
	int needs_guest_off; /* apple_*: refuses events without exclude_guest */
	int never_counts;    /* events open and run but count nothing (a virtual PMU) */
	unsigned rate;       /* counts per ns of its events on counters (1) */
	unsigned taken;      /* general counters another user holds */
	uint64_t bank[FAKE_SLOTS];
};

struct fake_event {
	int used, fd;
	struct perf_event_attr attr; /* as opened, config without the extended type */
	int pmu;                     /* its core PMU; -1: software, or another PMU */
	int other;                   /* on a PMU that is not the CPU's (msr, uncore) */
	int leader;                  /* index of its group leader (itself for a leader) */
	int enabled, error;          /* error: a pinned group that could not go on */
	int slot;                    /* counter while on the PMU, else -1 */
	int chained;                 /* Arm: a 64-bit event on two counters */
	int user_read;               /* the kernel offers it to user space (USER_READ_CNT) */
	uint64_t count;              /* while not on a counter */
	int64_t offset;              /* count - counter, while on one */
	unsigned seq;                /* open order */
	uint64_t enabled_ns, running_ns;
	struct perf_event_mmap_page *page; /* while mapped */
};

struct fake_kernel {
	struct fake_pmu pmu[FAKE_MAX_PMUS];
	unsigned n_pmu;
	/* The fixture's PMUs that are not the CPU's (msr, power, uncore), by
	 * perf type: their events count 1 per ns (as msr/tsc/ does), on no
	 * counter, and refuse any exclude bit (PERF_PMU_CAP_NO_EXCLUDE). */
	uint32_t other[FAKE_MAX_OTHER];
	unsigned n_other;
	struct fake_event ev[FAKE_MAX_EVENTS];
	int extended_type; /* generic events name a PMU in config[63:32] (x86 5.13, Arm 6.6) */
	int rdpmc_bit;     /* Arm: config1 bit 1 asks for user access (5.17); before, only bit 0 */
	int user_access;   /* x86 rdpmc / Arm perf_user_access: user reads are allowed */
	unsigned on_pmu;   /* the core type the thread runs on */
	int switched_out;  /* the thread is off every CPU */
	uint64_t now;      /* ns */
	uint64_t syscall_ns; /* time each fake system call takes (1000) */
	/* What the reader did. */
	unsigned counter_reads; /* user-space counter reads */
	unsigned faults;        /* ... of a counter this core type lacks: #GP or SIGILL */
	unsigned metric_reads;  /* ... of PERF_METRICS (x86 topdown) */
	/* PERF_METRICS: 8-bit fractions of slots, retiring in the low byte
	 * (FAKE_PERF_METRICS after boot), and how often the kernel reset it
	 * with slots (a read(2) of the group, PERF_EVENT_IOC_RESET). */
	uint64_t perf_metrics;
	unsigned topdown_resets;
	unsigned reads; /* read(2) calls */
	unsigned opens; /* perf_event_open calls */
	/* Runs at each user-space counter read, before it: a kernel update
	 * between the reader's load of the index and its counter read. */
	void (*before_counter_read)(unsigned nth);
};

extern struct fake_kernel fake;

/* Empties the machine, points the probes at tests/fixtures/<name> and takes
 * its core PMUs. The thread runs on the first one found. */
void fake_boot(const char *fixture);

/* The index of the core PMU named name; aborts the test program if none. */
unsigned fake_pmu_named(const char *name);

/* Time passes: ns of it. Counters on the PMU count its rate per ns, task-clock
 * counts the ns the thread ran. Every fake system call first runs
 * fake.syscall_ns (1000; 0 makes counts stand still between fake_run()s). */
void fake_run(uint64_t ns);

/* The scheduler: the thread moves to a CPU of core PMU p (its events
 * there go on the PMU, the others off), or off every CPU. */
void fake_run_on(unsigned p);
void fake_switch_out(void);

/* The counted task calls exec: events opened with enable_on_exec start. */
void fake_exec(void);

/* Another user takes (or gives back) general counters of PMU p; the
 * thread's groups are put on again, as at the next context switch. */
void fake_take_counters(unsigned p, unsigned n);

/* The event's count now, as the kernel would compute it. */
uint64_t fake_count(const struct fake_event *e);

/* Events open now (to check that nothing leaked). */
unsigned fake_open_events(void);

/* The first open event with this perf type and config, or NULL. */
const struct fake_event *fake_find(uint32_t type, uint64_t config);

/* The count of the open event of this type and config on core PMU p;
 * UPMC_NOT_COUNTED when there is none. */
uint64_t fake_count_on(unsigned p, uint32_t type, uint64_t config);
/* The index of the open event of this type and config, or -1. */
static inline int fake_event_with(uint32_t type, uint64_t config)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].attr.type == type &&
		    fake.ev[i].attr.config == config)
			return (int)i;
	return -1;
}

#endif /* UPMC_FAKE_KERNEL_H */
