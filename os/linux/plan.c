/* SPDX-License-Identifier: MIT */
/*
 * Which perf events an upmc event becomes, on which PMU, in which group,
 * with which attribute bits: decided from the probe (sysfs) alone, so that
 * tests can check it against fixture machines.
 */
#include <linux/perf_event.h>
#include <string.h>

#include "os/linux/probe.h"

static int core_of_type(const struct upmc_linux_probe *p, uint32_t type)
{
	unsigned k;

	for (k = 0; k < p->n_core; k++)
		if (p->core_type[k] == type)
			return (int)k;
	return -1;
}

/* The core PMU an event of one PMU goes to: a generic or raw event on a
 * machine with one core PMU goes to it; a raw event on a hybrid x86 goes to
 * the core PMU registered as type 4 (cpu_core); otherwise the PMU whose type
 * it names, or -1 (another PMU, or an Arm raw event whose core type the
 * kernel picks). */
static int core_of(const struct upmc_event *ev, const struct upmc_linux_probe *p)
{
	if ((ev->generic || ev->type == UPMC_TYPE_RAW) && p->n_core == 1)
		return 0;
	return core_of_type(p, ev->type);
}

int upmc_linux_other_pmu(const struct upmc_event *ev, const struct upmc_linux_probe *p)
{
	return !ev->generic && ev->type != UPMC_TYPE_SOFTWARE && ev->type != UPMC_TYPE_HARDWARE &&
	       ev->type != UPMC_TYPE_HW_CACHE && ev->type != UPMC_TYPE_RAW &&
	       core_of_type(p, ev->type) < 0;
}

/* The kind of the PMU an event goes to; a machine's core PMUs are of one kind. */
static int kind_of(const struct upmc_linux_probe *p, int core)
{
	return core >= 0 ? p->core_kind[core] : p->n_core ? p->core_kind[0] : 0;
}

int upmc_linux_is_topdown_metric(const struct upmc_event *ev, int kind)
{
	unsigned umask = (unsigned)(ev->config >> 8) & 0xff;

	return kind == UPMC_LINUX_X86 && !ev->generic && ev->type != UPMC_TYPE_SOFTWARE &&
	       (ev->config & 0xff) == 0 && umask >= 0x80 && umask <= 0x87;
}

/*
 * The group of an event: its core PMU's. Software events join the core
 * PMU's group, so that one read(2) reads the set: measured under QEMU
 * (docs/read-protocol.md), that costs less than reading the hardware
 * counters in user space beside a read(2) of the software events alone. On
 * a hybrid CPU they have a group of their own, which counts on every core
 * type. Without a core PMU in sysfs, the CPU's events form one group.
 */
static uint32_t group_key(const struct upmc_event *ev, int core, const struct upmc_linux_probe *p)
{
	if (ev->type == UPMC_TYPE_SOFTWARE)
		return p->n_core > 1 ? PERF_TYPE_SOFTWARE
		       : p->n_core   ? p->core_type[0]
		                     : UPMC_TYPE_RAW;
	if (core >= 0)
		return p->core_type[core];
	return ev->generic || ev->type == UPMC_TYPE_RAW ? UPMC_TYPE_RAW : ev->type;
}

static void fill(struct upmc_linux_attr *a, const struct upmc_event *ev, uint64_t config, int core,
                 const struct upmc_linux_probe *p, unsigned flags)
{
	/* Another PMU takes none of the core PMUs' bits below. */
	int other = upmc_linux_other_pmu(ev, p), kind = other ? 0 : kind_of(p, core);

	a->other_pmu = other;
	a->type = ev->type;
	a->config = config;
	a->config1 = ev->config1;
	a->core = core;
	a->key = group_key(ev, core, p);
	a->user_read = UPMC_ARCH_HAS_USER_READ && ev->type != UPMC_TYPE_SOFTWARE && !other &&
	               !(flags & UPMC_OPT_FORCE_SYSCALL) && kind != UPMC_LINUX_APPLE;
	/* m1_pmu_set_event_filter() refuses events that count guests */
	a->exclude_guest = kind == UPMC_LINUX_APPLE;
	/* PMUv3's config1 bit 1 asks for user access where the kernel has it
	 * (Linux 5.17, with kernel.perf_user_access); before, config1 had only
	 * bit 0, "long", a 64-bit event chained over two counters. Bit 0 stays
	 * as the spec has it: 32-bit counters are what every PMU has, they
	 * never take two counters, and the kernel folds their overflow into
	 * the page's offset. */
	if (kind == UPMC_LINUX_PMUV3 && a->user_read && p->user_access_sysctl)
		a->config1 |= 2;
}

unsigned upmc_linux_plan(const struct upmc_event *ev, const struct upmc_linux_probe *p,
                         unsigned flags, struct upmc_linux_attr *out)
{
	unsigned k;

	/* A generic event on a hybrid CPU: once per core PMU, by the extended
	 * type in the config's upper half (the kernel's PERF_PMU_TYPE_SHIFT),
	 * each in the group of its core type. */
	if (ev->generic && p->n_core > 1) {
		for (k = 0; k < p->n_core; k++)
			fill(&out[k], ev, ev->config | (uint64_t)p->core_type[k] << 32, (int)k, p,
			     flags);
		return p->n_core;
	}
	fill(&out[0], ev, ev->config, ev->type == UPMC_TYPE_SOFTWARE ? -1 : core_of(ev, p), p,
	     flags);
	return 1;
}

/* PMUv3's common events for perf's generic hardware events, as the kernel's
 * armv8_pmuv3_perf_map (drivers/perf/arm_pmuv3.c) has them; 0: none. */
static const uint16_t pmuv3_generic[] = {
        [0] = 0x11, /* cycles: CPU_CYCLES */
        [1] = 0x08, /* instructions: INST_RETIRED */
        [2] = 0x04, /* cache-references: L1D_CACHE */
        [3] = 0x03, /* cache-misses: L1D_CACHE_REFILL */
        [4] = 0x0c, /* branches: PC_WRITE_RETIRED */
        [5] = 0x10, /* branch-misses: BR_MIS_PRED */
        [6] = 0x1d, /* bus-cycles: BUS_CYCLES */
        [7] = 0x23, /* stalled-cycles-frontend: STALL_FRONTEND */
        [8] = 0x24, /* stalled-cycles-backend: STALL_BACKEND */
};

unsigned upmc_linux_pmuv3_code(const struct upmc_event *ev)
{
	if (!ev->generic || ev->type != UPMC_TYPE_HARDWARE ||
	    ev->config >= sizeof(pmuv3_generic) / sizeof(pmuv3_generic[0]))
		return 0;
	return pmuv3_generic[ev->config];
}

int upmc_linux_pmu_encoding(const struct upmc_event *ev, const struct upmc_linux_probe *p,
                            struct upmc_linux_attr *a)
{
	unsigned code = upmc_linux_pmuv3_code(ev);

	if (!code || a->core < 0 || p->core_kind[a->core] != UPMC_LINUX_PMUV3)
		return 0;
	a->type = p->core_type[a->core];
	a->config = code;
	return 1;
}

void upmc_linux_attr_init(struct perf_event_attr *attr, const struct upmc_event *ev,
                          const struct upmc_linux_attr *plan)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = plan->type;
	attr->config = plan->config;
	attr->config1 = plan->config1;
	attr->config2 = ev->config2;
	attr->exclude_user = ev->exclude_user;
	attr->exclude_kernel = ev->exclude_kernel;
	/* The hypervisor is a CPU mode: another PMU refuses the bit. */
	attr->exclude_hv = !plan->other_pmu;
	attr->exclude_guest = plan->exclude_guest || ev->exclude_guest;
	attr->exclude_host = ev->exclude_host;
	attr->precise_ip = ev->precise_ip;
}
