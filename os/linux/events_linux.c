/* SPDX-License-Identifier: MIT */
/*
 * Linux events beyond perf's generic names: "pmu/term=value,.../" specs
 * resolved through /sys/bus/event_source/devices/<pmu>/{type,format,events},
 * and any event libpfm4 knows (when built with it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "os/linux/probe.h"

#ifdef UPMC_HAVE_LIBPFM
/* The kernel's header first: libpfm4's own copy of it then steps aside,
 * so that both can be in one file (the single-file upmc.c). */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#endif

#define DEVICES "/sys/bus/event_source/devices"

/*
 * Puts value into the bits a format names, e.g. "config:0-7,21" or
 * "config1:0-15": the value's low bits fill the ranges in order.
 */
static int set_bits(struct upmc_event *ev, const char *format, uint64_t value, const char *term)
{
	uint64_t *field = !strncmp(format, "config1:", 8)   ? &ev->config1
	                  : !strncmp(format, "config2:", 8) ? &ev->config2
	                  : !strncmp(format, "config:", 7)  ? &ev->config
	                                                    : NULL;
	const char *p = strchr(format, ':');

	if (!field || !p)
		return upmc_fail(-EINVAL,
		                 "event '%s': term '%s' has a format upmc cannot read: '%s'",
		                 ev->name, term, format);
	while (p && *++p) {
		char *end;
		unsigned lo = (unsigned)strtoul(p, &end, 10), hi = lo, bit;
		if (*end == '-')
			hi = (unsigned)strtoul(end + 1, &end, 10);
		if (hi > 63 || lo > hi)
			return upmc_fail(-EINVAL, "event '%s': bad bit range in format '%s'",
			                 ev->name, format);
		for (bit = lo; bit <= hi; bit++, value >>= 1)
			*field |= (value & 1) << bit;
		p = strchr(end, ',');
	}
	if (value)
		return upmc_fail(-ERANGE,
		                 "event '%s': the value of '%s' does not fit its bits (%s)",
		                 ev->name, term, format);
	return 0;
}

/* The names a PMU's directory holds, joined with ", " (for error messages). */
static void list_dir(const char *path, char *out, size_t size)
{
	char full[512];
	struct dirent *e;
	size_t len = 0;
	DIR *d;

	out[0] = '\0';
	upmc_linux_root_path(full, sizeof(full), path);
	d = opendir(full);
	if (!d)
		return;
	while ((e = readdir(d)) && len + strlen(e->d_name) + 3 < size)
		if (e->d_name[0] != '.')
			len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ", " : "",
			                        e->d_name);
	closedir(d);
}

static int apply_terms(struct upmc_event *ev, const char *pmu, char *terms, int depth);

/* One "name=value" or "name" term of a PMU. */
static int apply_term(struct upmc_event *ev, const char *pmu, char *term, int depth)
{
	char path[256], format[256], alias[256], known[512];
	char *eq = strchr(term, '=');
	uint64_t value = 1;

	if (eq) {
		char *end;
		*eq = '\0';
		errno = 0;
		value = strtoull(eq + 1, &end, 0);
		if (errno || *end || end == eq + 1)
			return upmc_fail(-EINVAL, "event '%s': '%s' is not a number for '%s'",
			                 ev->name, eq + 1, term);
	}
	upmc_format(path, sizeof(path), DEVICES "/%s/format/%s", pmu, term);
	if (upmc_linux_read_line(path, format, sizeof(format)) == 0)
		return set_bits(ev, format, value, term);
	upmc_format(path, sizeof(path), DEVICES "/%s/events/%s", pmu, term);
	if (!eq && depth == 0 && upmc_linux_read_line(path, alias, sizeof(alias)) == 0)
		return apply_terms(ev, pmu, alias, depth + 1);
	upmc_format(path, sizeof(path), DEVICES "/%s/format", pmu);
	list_dir(path, known, sizeof(known));
	return upmc_fail(-EINVAL, "event '%s': PMU '%s' has no term or event '%s' (its terms: %s)",
	                 ev->name, pmu, term, known[0] ? known : "none");
}

static int apply_terms(struct upmc_event *ev, const char *pmu, char *terms, int depth)
{
	char *save = NULL, *term;
	int err = 0;

	for (term = strtok_r(terms, ",", &save); term && !err; term = strtok_r(NULL, ",", &save))
		err = apply_term(ev, pmu, term, depth);
	return err;
}

/* "pmu/terms/" with upmc's modifiers after the last '/'. */
static int sysfs_event(const char *item, unsigned flags, struct upmc_event *ev)
{
	char spec[UPMC_NAME_MAX], path[256], type[32], known[512];
	char *first, *last;
	int err;

	upmc_format(spec, sizeof(spec), "%s", item);
	first = strchr(spec, '/');
	last = strrchr(spec, '/');
	if (first == last || first == spec)
		return upmc_fail(-EINVAL,
		                 "event '%s': a PMU spec reads 'pmu/term=value,.../' (e.g. "
		                 "'cpu/event=0x3c,umask=0x0/')",
		                 item);
	*first = *last = '\0';
	upmc_format(path, sizeof(path), DEVICES "/%s/type", spec);
	if (upmc_linux_read_line(path, type, sizeof(type)) < 0) {
		list_dir(DEVICES, known, sizeof(known));
		return upmc_fail(-ENODEV, "event '%s': no PMU '%s' in " DEVICES " (there: %s)",
		                 item, spec, known[0] ? known : "nothing");
	}
	ev->type = (uint32_t)strtoul(type, NULL, 10);
	err = apply_terms(ev, spec, first + 1, 0);
	if (err < 0)
		return err;
	/* Privilege levels are the CPU's: another PMU (msr, power, uncore)
	 * counts every level at once, and is asked for no filter unless the
	 * spec names one. */
	if (upmc_linux_is_core_pmu(spec))
		upmc_event_levels(ev, flags);
	return last[1] ? upmc_event_modifiers(last + 1, item, ev) : 0;
}

#ifdef UPMC_HAVE_LIBPFM
static int pfm_ready = -1;
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;

static void pfm_start(void)
{
	pfm_ready = pfm_initialize();
}

static int libpfm_event(const char *item, unsigned flags, struct upmc_event *ev)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int plm = PFM_PLM3 | (flags & UPMC_OPT_KERNEL ? PFM_PLM0 : 0), err;

	pthread_once(&pfm_once, pfm_start);
	if (pfm_ready != PFM_SUCCESS)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	/* libpfm4 copies back only the size it is given (0: the first
	 * published 64 bytes, which end before config2) */
	attr.size = sizeof(attr);
	arg.attr = &attr;
	arg.size = sizeof(arg);
	err = pfm_get_os_event_encoding(item, plm, PFM_OS_PERF_EVENT_EXT, &arg);
	if (err == PFM_ERR_NOTFOUND)
		return -ENOENT;
	if (err != PFM_SUCCESS)
		return upmc_fail(-EINVAL, "event '%s': libpfm4 says: %s", item, pfm_strerror(err));
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude_user = attr.exclude_user;
	ev->exclude_kernel = attr.exclude_kernel;
	ev->precise_ip = attr.precise_ip;
	ev->exclude_guest = attr.exclude_guest;
	ev->exclude_host = attr.exclude_host;
	return 0;
}

/* Every event of every PMU libpfm4 found, but its generic perf PMUs (their
 * events are perf's generic names, listed already). */
static int libpfm_list(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg,
                       int *stopped)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	char name[UPMC_NAME_MAX];
	int pmu, idx, n = 0;

	pthread_once(&pfm_once, pfm_start);
	if (pfm_ready != PFM_SUCCESS)
		return 0;
	for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX && !*stopped; pmu++) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    pmu == PFM_PMU_PERF_EVENT || pmu == PFM_PMU_PERF_EVENT_RAW)
			continue;
		for (idx = pinfo.first_event; idx != -1 && !*stopped;
		     idx = pfm_get_event_next(idx)) {
			struct upmc_event_info info;
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
				continue;
			upmc_format(name, sizeof(name), "%s::%s", pinfo.name, einfo.name);
			info.name = name;
			info.pmu = pinfo.name;
			info.desc = einfo.desc ? einfo.desc : "";
			n++;
			*stopped = fn(&info, arg);
		}
	}
	return n;
}
#endif

/* The named events of sysfs PMUs ("pmu/alias/"). */
static int sysfs_list(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg,
                      int *stopped)
{
	char path[512], name[UPMC_NAME_MAX], desc[256];
	struct dirent *p, *e;
	DIR *devices, *events;
	int n = 0;

	upmc_linux_root_path(path, sizeof(path), DEVICES);
	devices = opendir(path);
	if (!devices)
		return 0;
	while (!*stopped && (p = readdir(devices))) {
		if (p->d_name[0] == '.')
			continue;
		upmc_linux_root_path(path, sizeof(path), DEVICES);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/%s/events", p->d_name);
		events = opendir(path);
		while (events && !*stopped && (e = readdir(events))) {
			struct upmc_event_info info;
			char file[256];
			if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
				continue; /* ".scale", ".unit": not events */
			upmc_format(file, sizeof(file), DEVICES "/%s/events/%s", p->d_name,
			            e->d_name);
			if (upmc_linux_read_line(file, desc, sizeof(desc)) < 0)
				desc[0] = '\0';
			upmc_format(name, sizeof(name), "%s/%s/", p->d_name, e->d_name);
			info.name = name;
			info.pmu = p->d_name;
			info.desc = desc;
			n++;
			*stopped = fn(&info, arg);
		}
		if (events)
			closedir(events);
	}
	closedir(devices);
	return n;
}

#ifndef UPMC_HAVE_LIBPFM
/* Built without libpfm4 (the single-file upmc.c can be): a name that is
 * none of perf's may be a CPU vendor's, which only libpfm4 knows. */
static int no_libpfm(const char *item)
{
	char close[3 * UPMC_NAME_MAX + 16];

	upmc_closest_names(item, close, sizeof(close));
	return upmc_fail(-ENOENT,
	                 "event '%s' unknown: this upmc was built without libpfm4, which knows "
	                 "the CPU vendors' event names (build it with UPMC_HAVE_LIBPFM defined and "
	                 "link -lpfm, or give the event as a raw code 'r<hex>' or as "
	                 "'cpu/event=...,umask=.../'); did you mean %s?",
	                 item, close);
}
#endif

/*
 * A bare name a core PMU lists in sysfs (slots, topdown-retiring on Intel,
 * stall_slot on Arm), with its modifiers: that PMU's event, the first core
 * PMU that has it (perf takes bare sysfs names too). -ENOENT when none.
 */
static int core_sysfs_event(const char *item, unsigned flags, struct upmc_event *ev)
{
	const struct upmc_linux_machine *probe = upmc_linux_machine();
	char name[UPMC_NAME_MAX], path[256], line[64], spec[UPMC_NAME_MAX + 64];
	const char *mods = strchr(item, ':');
	unsigned i;

	upmc_format(name, sizeof(name), "%.*s", (int)(mods ? mods - item : (long)strlen(item)),
	            item);
	for (i = 0; i < probe->n_core; i++) {
		upmc_format(path, sizeof(path), DEVICES "/%s/events/%s", probe->core[i], name);
		if (upmc_linux_read_line(path, line, sizeof(line)) < 0)
			continue;
		upmc_format(spec, sizeof(spec), "%s/%s/%s", probe->core[i], name,
		            mods ? mods + 1 : "");
		return sysfs_event(spec, flags, ev);
	}
	return -ENOENT;
}

int upmc_os_resolve_event(const char *item, unsigned flags, struct upmc_event *ev)
{
	int err;

	if (strchr(item, '/'))
		return sysfs_event(item, flags, ev);
	err = core_sysfs_event(item, flags, ev);
	if (err != -ENOENT)
		return err;
#ifdef UPMC_HAVE_LIBPFM
	return libpfm_event(item, flags, ev);
#else
	return no_libpfm(item);
#endif
}

const char *upmc_os_core_kind(void)
{
	const struct upmc_linux_machine *m = upmc_linux_machine();

	if (!m->n_core)
		return "";
	return m->core_kind[0] == UPMC_LINUX_X86 ? "x86" : "arm64";
}

/* From /proc/cpuinfo (under the fixture root, so that a test names the
 * CPU), read once: what the kernel's perf matches its mapfile.csv against
 * (get_cpuid_str(): vendor-family-model-stepping, the model in hex); on
 * Arm, the MIDR, as perf's arm64 mapfile.csv. */
void upmc_os_cpu_id(char *buf, size_t size)
{
	upmc_format(buf, size, "%s", upmc_linux_machine()->cpu_id);
}

int upmc_os_smt_active(void)
{
	return upmc_linux_smt_active();
}

int upmc_os_hybrid_core(const char *pmu)
{
	const struct upmc_linux_machine *m = upmc_linux_machine();
	unsigned i;

	for (i = 0; m->n_core > 1 && i < m->n_core; i++)
		if (!strcmp(m->core[i], pmu))
			return 1;
	return 0;
}

int upmc_os_no_core_pmu(char *why, size_t size)
{
	const struct upmc_linux_machine *m = upmc_linux_machine();

	if (m->n_core)
		return 0;
	if (m->hypervisor)
		upmc_format(why, size,
		            "no CPU PMU is visible, typical of a virtual machine without a virtual "
		            "PMU: turn it on in the hypervisor, or use bare metal");
	else
		upmc_format(why, size,
		            "no CPU PMU is visible (no cpu, cpu_core or armv8_* in " DEVICES
		            "): the kernel has no driver for this CPU's PMU");
	return 1;
}

/*
 * #SYSTEM_TSC_FREQ: the TSC's Hz as perf's arch_get_tsc_freq() finds it,
 * on Intel alone: CPUID leaf 0x15, else the frequency the model name ends
 * with ("... @ 2.40GHz"), each in whole Hz. Under a fixture root the CPU
 * is the fixture's, whose leaf 0x15 this CPU's CPUID cannot answer: its
 * model name alone.
 */
static int system_tsc_freq(double *value)
{
	const char *model = upmc_linux_machine()->model_name;
	char id[64];
	struct upmc_linux_cpuid c;
	const char *at;
	double ghz;

	upmc_os_cpu_id(id, sizeof(id));
	if (strncmp(id, "GenuineIntel-", 13))
		return upmc_fail(-ENOENT,
		                 "#SYSTEM_TSC_FREQ is known on Intel CPUs alone, as perf's "
		                 "arch_get_tsc_freq() knows it, and this CPU's id is '%s'",
		                 id[0] ? id : "not in /proc/cpuinfo");
	upmc_linux_cpuid(&c);
	if (!getenv("UPMC_FS_ROOT") && c.tsc_hz > 0) {
		*value = c.tsc_hz;
		return 0;
	}
	if ((at = strstr(model, " @ ")) && sscanf(at, " @ %lfGHz", &ghz) == 1 && ghz > 0) {
		*value = (double)(uint64_t)(ghz * 1e9);
		return 0;
	}
	return upmc_fail(-ENOENT, "neither CPUID leaf 0x15 nor the model name in /proc/cpuinfo "
	                          "(no '@ ...GHz') says the TSC's frequency");
}

/* #slots: a core PMU's operations per cycle (Arm's caps/slots, read by
 * perf's #slots in sbsa.json), the first core PMU that publishes it; and
 * #SYSTEM_TSC_FREQ. */
int upmc_os_metric_constant(const char *name, double *value)
{
	const struct upmc_linux_machine *probe = upmc_linux_machine();
	char path[256], line[64];
	unsigned i;

	if (!strcmp(name, "SYSTEM_TSC_FREQ"))
		return system_tsc_freq(value);
	if (strcmp(name, "slots"))
		return upmc_fail(-ENOENT, "no constant '#%s' is known", name);
	for (i = 0; i < probe->n_core; i++) {
		upmc_format(path, sizeof(path), DEVICES "/%s/caps/slots", probe->core[i]);
		if (upmc_linux_read_line(path, line, sizeof(line)) == 0 &&
		    (*value = (double)strtoull(line, NULL, 0)) > 0)
			return 0;
	}
	return upmc_fail(-ENOENT, "no core PMU publishes caps/slots in " DEVICES);
}

int upmc_os_list_events(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg,
                        int *stopped)
{
	int n = 0;

	*stopped = 0;
#ifdef UPMC_HAVE_LIBPFM
	n += libpfm_list(fn, arg, stopped);
#endif
	if (!*stopped)
		n += sysfs_list(fn, arg, stopped);
	return n;
}
