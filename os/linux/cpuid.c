/* SPDX-License-Identifier: MIT */
/*
 * What CPUID says of an x86 CPU, for the probes and `upmc info`; the
 * counter reads never ask (the kernel's page says what they need).
 */
#include <string.h>

#include "os/linux/probe.h"

#if defined(__x86_64__) || defined(__i386__)
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ __volatile__("cpuid"
	                     : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
	                     : "a"(leaf), "c"(sub));
}

/* "GenuineIntel", "AuthenticAMD", ... into v[13]. */
static void vendor(char v[13])
{
	uint32_t r[4];
	int i;

	cpuid(0, 0, r);
	for (i = 0; i < 4; i++) {
		v[i] = (char)(r[1] >> 8 * i);
		v[4 + i] = (char)(r[3] >> 8 * i);
		v[8 + i] = (char)(r[2] >> 8 * i);
	}
	v[12] = '\0';
}

static uint32_t max_leaf(uint32_t base)
{
	uint32_t r[4];

	cpuid(base, 0, r);
	return r[0];
}

/* The TSC ticks at a constant rate in every P-, C- and T-state. */
static int invariant_tsc(void)
{
	uint32_t r[4];

	if (max_leaf(0x80000000u) < 0x80000007u)
		return 0;
	cpuid(0x80000007u, 0, r);
	return (r[3] >> 8) & 1;
}

/* CPUID says a hypervisor runs this CPU. */
static int hypervisor(void)
{
	uint32_t r[4];

	cpuid(1, 0, r);
	return (r[2] >> 31) & 1;
}

/* General-purpose counters per core as CPUID reports them (0: none). */
static int gp_counters(void)
{
	char v[13];
	uint32_t r[4];

	vendor(v);
	if (v[0] == 'G' && max_leaf(0) >= 0xa) { /* Intel: leaf 0xa */
		cpuid(0xa, 0, r);
		return (r[0] & 0xff) ? (int)((r[0] >> 8) & 0xff) : 0;
	}
	if (v[0] == 'A' || v[0] == 'H') { /* AMD, Hygon */
		if (max_leaf(0x80000000u) >= 0x80000022u) {
			cpuid(0x80000022u, 0, r); /* PerfMonV2 */
			if (r[0] & 1)
				return (int)(r[1] & 0xf);
		}
		cpuid(0x80000001u, 0, r);
		return (r[2] >> 23) & 1 ? 6 : 4; /* PerfCtrExtCore */
	}
	return 0;
}

/* Intel fixed-function counters (instructions, cycles, ref-cycles, ...). */
static int fixed_counters(void)
{
	char v[13];
	uint32_t r[4];

	vendor(v);
	if (v[0] != 'G' || max_leaf(0) < 0xa)
		return 0;
	cpuid(0xa, 0, r);
	return (r[0] & 0xff) > 1 ? (int)(r[3] & 0x1f) : 0;
}

/* The TSC's frequency as Intel's leaf 0x15 enumerates it (the crystal's Hz
 * times the TSC's ratio to it), in whole Hz as perf's arch_get_tsc_freq()
 * computes it; 0 where the leaf does not say. */
static double leaf_15_tsc_hz(void)
{
	char v[13];
	uint32_t r[4];

	vendor(v);
	if (strcmp(v, "GenuineIntel") || max_leaf(0) < 0x15)
		return 0;
	cpuid(0x15, 0, r);
	if (!r[0] || !r[1] || !r[2])
		return 0;
	return (double)((uint64_t)r[2] * r[1] / r[0]);
}

/* vendor-family-model as the kernel's /proc/cpuinfo shows them: the
 * extended family added to family 0xf, the extended model above the model
 * from family 6 on (x86_family(), x86_model()). */
static void cpu_id(const char *vendor_name, char *out, size_t size)
{
	uint32_t r[4], family, model;

	cpuid(1, 0, r);
	family = (r[0] >> 8) & 0xf;
	model = (r[0] >> 4) & 0xf;
	if (family == 0xf)
		family += (r[0] >> 20) & 0xff;
	if (family >= 6)
		model |= ((r[0] >> 16) & 0xf) << 4;
	upmc_format(out, size, "%s-%u-%X", vendor_name, family, model);
}

void upmc_linux_cpuid(struct upmc_linux_cpuid *out)
{
	vendor(out->vendor);
	cpu_id(out->vendor, out->cpu_id, sizeof(out->cpu_id));
	out->tsc_hz = leaf_15_tsc_hz();
	out->hypervisor = hypervisor();
	out->gp_counters = gp_counters();
	out->fixed_counters = fixed_counters();
	out->invariant_tsc = invariant_tsc();
}
#else
void upmc_linux_cpuid(struct upmc_linux_cpuid *out)
{
	out->vendor[0] = '\0';
	out->hypervisor = -1;
	out->gp_counters = -1;
	out->fixed_counters = -1;
	out->invariant_tsc = -1; /* arm64's generic timer always counts at one rate */
	out->tsc_hz = 0;
	out->cpu_id[0] = '\0';
}
#endif
