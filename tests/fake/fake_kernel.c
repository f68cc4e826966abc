/* SPDX-License-Identifier: MIT */
/* The fake kernel: see fake_kernel.h and README.md. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "os/linux/sys.h"
#include "tests/fake/fake_kernel.h"
/* after the seam that fake_kernel.h includes first */
#include "os/linux/probe.h"

struct fake_kernel fake;

#define OFF     (-1)
#define METRIC  FAKE_SLOTS       /* on the PMU, read through PERF_METRICS */
#define SW_ON   (FAKE_SLOTS + 1) /* a software event in a group that runs */
#define IDX_FIX (1u << 30)       /* x86 rdpmc: fixed counters */
#define IDX_MET (1u << 29)       /* x86 rdpmc: PERF_METRICS */

static unsigned next_seq;

/* ---- machines ---- */

/* The kernel's own PMUs, which take exclude bits: not modelled as others. */
static int kernel_pmu(const char *name)
{
	return !strcmp(name, "software") || !strcmp(name, "tracepoint") ||
	       !strcmp(name, "breakpoint") || !strcmp(name, "kprobe") || !strcmp(name, "uprobe");
}

static void add_pmu(const char *name, uint32_t type)
{
	struct fake_pmu *p = &fake.pmu[fake.n_pmu];
	int x86_big = !strcmp(name, "cpu") || !strcmp(name, "cpu_core");
	int x86_small = !strcmp(name, "cpu_atom") || !strcmp(name, "cpu_lowpower");
	int pmuv3 = !strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6);
	int apple = !strncmp(name, "apple_", 6);

	if (!x86_big && !x86_small && !pmuv3 && !apple) {
		if (!kernel_pmu(name) && fake.n_other < FAKE_MAX_OTHER)
			fake.other[fake.n_other++] = type; /* msr, power, uncore */
		return;
	}
	if (fake.n_pmu == FAKE_MAX_PMUS)
		abort();
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%.47s", name);
	p->type = type;
	p->gp = x86_big ? 8 : x86_small ? 6 : apple ? 8 : 6;
	p->fixed = x86_big ? 4 : x86_small ? 3 : 0;
	p->arm = pmuv3 || apple;
	p->pmuv3 = pmuv3;
	p->needs_guest_off = apple;
	p->rate = 1;
	fake.n_pmu++;
}

static int read_int(const char *root, const char *path, int fallback)
{
	char full[512];
	FILE *f;
	int v;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "re");
	if (!f)
		return fallback;
	if (fscanf(f, "%d", &v) != 1)
		v = fallback;
	fclose(f);
	return v;
}

static int by_type(const void *a, const void *b)
{
	const struct fake_pmu *x = a, *y = b;

	return (x->type > y->type) - (x->type < y->type);
}

void fake_boot(const char *fixture)
{
	char root[256], dir[512], path[512];
	struct dirent *d;
	DIR *devices;
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		free(fake.ev[i].page);
	memset(&fake, 0, sizeof(fake));
	upmc_linux_forget_pmu_checks(); /* a new machine */
	snprintf(root, sizeof(root), "tests/fixtures/%s", fixture);
	setenv("UPMC_FS_ROOT", root, 1);
	snprintf(dir, sizeof(dir), "%s/sys/bus/event_source/devices", root);
	devices = opendir(dir);
	if (!devices)
		abort();
	while ((d = readdir(devices)))
		if (d->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
			         d->d_name);
			add_pmu(d->d_name, (uint32_t)read_int(root, path, 0));
		}
	closedir(devices);
	/* sysfs order is the filesystem's: the fake does not depend on it */
	qsort(fake.pmu, fake.n_pmu, sizeof(fake.pmu[0]), by_type);
	fake.extended_type = 1;
	fake.syscall_ns = 1000;
	fake.perf_metrics = FAKE_PERF_METRICS;
	fake.rdpmc_bit = read_int(root, "/proc/sys/kernel/perf_user_access", -1) >= 0;
	if (fake.n_pmu && fake.pmu[0].arm)
		fake.user_access = read_int(root, "/proc/sys/kernel/perf_user_access", 0) == 1;
	else if (fake.n_pmu) {
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/rdpmc",
		         fake.pmu[0].name);
		fake.user_access = read_int(root, path, 1) > 0;
	}
}

unsigned fake_pmu_named(const char *name)
{
	unsigned p;

	for (p = 0; p < fake.n_pmu; p++)
		if (!strcmp(fake.pmu[p].name, name))
			return p;
	fprintf(stderr, "fake kernel: no PMU '%s'\n", name);
	abort();
}

/* ---- events ---- */

static struct fake_event *event_of(int fd)
{
	unsigned i = (unsigned)(fd - FAKE_FD_BASE);

	return fd >= FAKE_FD_BASE && i < FAKE_MAX_EVENTS && fake.ev[i].used ? &fake.ev[i] : NULL;
}

static struct fake_event *leader_of(const struct fake_event *e)
{
	return &fake.ev[e->leader];
}

static int is_on(const struct fake_event *e)
{
	return e->slot != OFF;
}

static int in_bank(const struct fake_event *e)
{
	return e->pmu >= 0 && e->slot >= 0 && e->slot < FAKE_SLOTS;
}

static int counting_enabled(const struct fake_event *e)
{
	return e->enabled && leader_of(e)->enabled && !leader_of(e)->error;
}

static uint64_t event_code(const struct fake_event *e)
{
	return e->attr.config & 0xffff;
}

static int is_cycles(const struct fake_event *e)
{
	const struct fake_pmu *p = &fake.pmu[e->pmu];

	if (e->attr.type == PERF_TYPE_HARDWARE)
		return e->attr.config == PERF_COUNT_HW_CPU_CYCLES;
	return p->arm ? event_code(e) == 0x11 : event_code(e) == 0x003c;
}

/* x86 topdown metrics: event 0, umask 0x80-0x87 (is_metric_event()). */
static int is_metric(const struct fake_event *e)
{
	return e->pmu >= 0 && !fake.pmu[e->pmu].arm && e->attr.type != PERF_TYPE_HARDWARE &&
	       (e->attr.config & 0xff) == 0 && event_code(e) >= 0x8000 && event_code(e) <= 0x8700;
}

static int is_slots(const struct fake_event *e)
{
	return e->pmu >= 0 && !fake.pmu[e->pmu].arm && e->attr.type != PERF_TYPE_HARDWARE &&
	       event_code(e) == 0x0400;
}

/* x86: the fixed counter an event prefers, or -1. */
static int fixed_for(const struct fake_event *e)
{
	if (e->attr.type == PERF_TYPE_HARDWARE)
		return e->attr.config == PERF_COUNT_HW_INSTRUCTIONS     ? 0
		       : e->attr.config == PERF_COUNT_HW_CPU_CYCLES     ? 1
		       : e->attr.config == PERF_COUNT_HW_REF_CPU_CYCLES ? 2
		                                                        : -1;
	return event_code(e) == 0x00c0   ? 0
	       : event_code(e) == 0x003c ? 1
	       : event_code(e) == 0x0300 ? 2
	       : is_slots(e)             ? 3
	                                 : -1;
}

static unsigned width_of(const struct fake_event *e)
{
	if (e->pmu < 0 || !fake.pmu[e->pmu].arm)
		return 48;
	return (e->attr.config1 & 1) || e->slot == FAKE_ARM_CYCLES ? 64 : 32;
}

static uint64_t mask_of(unsigned width)
{
	return width == 64 ? ~0ull : (1ull << width) - 1;
}

static int64_t sign_extend(uint64_t raw, unsigned width)
{
	unsigned s = 64 - width;

	return s ? (int64_t)(raw << s) >> s : (int64_t)raw;
}

/* The slots event leading a topdown metric event's group, on its counter;
 * NULL when there is none. */
static const struct fake_event *slots_of(const struct fake_event *e)
{
	const struct fake_event *l = leader_of(e);

	return is_slots(l) && in_bank(l) ? l : NULL;
}

/* A metric event's count as the kernel computes it (icl_update_topdown_event()):
 * its PERF_METRICS field times the slots since the last reset, over 255, on
 * top of what it had at that reset. */
static uint64_t metric_count(const struct fake_event *e)
{
	const struct fake_event *s = slots_of(e);
	unsigned field =
	        (unsigned)(fake.perf_metrics >> (8 * ((event_code(e) >> 8) & 0x7f))) & 0xff;

	return e->count + (s ? field * fake.pmu[s->pmu].bank[s->slot] / 255 : 0);
}

uint64_t fake_count(const struct fake_event *e)
{
	if (e->slot == METRIC)
		return metric_count(e);
	if (!in_bank(e))
		return e->count;
	return (uint64_t)e->offset +
	       (uint64_t)sign_extend(fake.pmu[e->pmu].bank[e->slot], width_of(e));
}

/* The page's index for an event on slot: what perf_event_index() gives. */
static uint32_t index_of(const struct fake_event *e)
{
	const struct fake_pmu *p;

	if (e->pmu < 0 || !is_on(e) || !e->user_read || !fake.user_access)
		return 0;
	p = &fake.pmu[e->pmu];
	if (p->arm)
		return e->slot == FAKE_ARM_CYCLES ? 32 : (uint32_t)e->slot + 1;
	if (e->slot == METRIC)
		return IDX_MET + 1;
	if (e->slot >= FAKE_FIXED)
		return (IDX_FIX | (uint32_t)(e->slot - FAKE_FIXED)) + 1;
	return (uint32_t)e->slot + 1;
}

/* perf_event_update_userpage(): everything inside the page's seqlock. */
static void update_page(struct fake_event *e)
{
	volatile struct perf_event_mmap_page *pg = e->page;
	uint32_t index;

	if (!pg)
		return;
	pg->lock++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	index = index_of(e);
	pg->index = index;
	pg->offset = index ? e->offset : (int64_t)fake_count(e);
	pg->time_enabled = e->enabled_ns;
	pg->time_running = e->running_ns;
	pg->cap_user_rdpmc = e->pmu >= 0 && e->user_read;
	if (pg->cap_user_rdpmc)
		pg->pmc_width = (uint16_t)width_of(e);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	pg->lock++;
}

/*
 * The kernel's topdown update with reset (intel_pmu_read_topdown_event() on
 * read(2) and PERF_EVENT_IOC_RESET): each metric event keeps its count, and
 * slots and PERF_METRICS restart from 0. The fake keeps the register's
 * fractions: the new period's. It resets when the group leaves the PMU
 * too, where the kernel saves and restores the registers: a reset in the
 * middle of an interval, which the reader must see.
 */
static void topdown_reset(struct fake_event *slots)
{
	unsigned i;

	if (!is_slots(slots) || !in_bank(slots))
		return;
	for (i = 0; i < FAKE_MAX_EVENTS; i++) {
		struct fake_event *m = &fake.ev[i];
		if (m->used && m->leader == slots->leader && m->slot == METRIC) {
			m->count = metric_count(m);
			update_page(m);
		}
	}
	slots->offset = (int64_t)fake_count(slots);
	fake.pmu[slots->pmu].bank[slots->slot] = 0;
	update_page(slots);
	fake.topdown_resets++;
}

/* Onto slot (or off): the count carries over, the page says so. Slots
 * starts from 0, as icl_set_topdown_event_period() writes it. */
static void move_event(struct fake_event *e, int slot)
{
	uint64_t count;

	if (e->slot != slot)
		topdown_reset(e);
	count = fake_count(e);

	e->slot = slot;
	e->count = count;
	if (in_bank(e)) {
		uint64_t start = is_slots(e) ? 0 : (0 - (uint64_t)100000) & mask_of(width_of(e));
		fake.pmu[e->pmu].bank[slot] = start;
		e->offset = (int64_t)(count - (uint64_t)sign_extend(start, width_of(e)));
	}
	update_page(e);
}

/* ---- scheduling ---- */

static int group_pmu(int leader)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].leader == leader && fake.ev[i].pmu >= 0)
			return fake.ev[i].pmu;
	return -1;
}

/* A counter for e on PMU p, given the counters in use; -1: none free.
 * Arm follows armv8pmu_get_event_idx(), x86 a plain fixed-then-general. */
static int pick_slot(const struct fake_event *e, const struct fake_pmu *p, char *used,
                     int *chain_low)
{
	unsigned c;
	int f;

	*chain_low = -1;
	if (is_metric(e))
		return METRIC;
	if (p->pmuv3 && is_cycles(e)) {
		if (!used[FAKE_ARM_CYCLES])
			return FAKE_ARM_CYCLES;
		if ((e->attr.config1 & 1) && e->user_read && !p->long_events)
			return -1; /* only PMCCNTR is 64 bits wide */
	}
	if (!p->arm && (f = fixed_for(e)) >= 0 && (unsigned)f < p->fixed && !used[FAKE_FIXED + f])
		return FAKE_FIXED + f;
	if (is_slots(e))
		return -1; /* fixed counter 3 or nothing */
	if (e->chained) {
		for (c = p->taken + (p->taken & 1); c + 1 < p->gp; c += 2)
			if (!used[c] && !used[c + 1]) {
				*chain_low = (int)c;
				return (int)c + 1;
			}
		return -1;
	}
	for (c = p->taken; c < p->gp; c++)
		if (!used[c])
			return (int)c;
	return -1;
}

/* Counters for the group of leader on PMU p (taken ones counted unless
 * validating); slot[] gets each member's. 0, or -1 when it does not fit. */
static int place_group(int leader, unsigned p, char *used, int *slot, int validate)
{
	struct fake_pmu pmu = fake.pmu[p];
	unsigned i;

	if (validate)
		pmu.taken = 0;
	for (i = 0; i < FAKE_MAX_EVENTS; i++) {
		const struct fake_event *e = &fake.ev[i];
		int low, s;
		if (!e->used || e->leader != leader)
			continue;
		if (e->pmu < 0) {
			slot[i] = SW_ON;
			continue;
		}
		s = pick_slot(e, &pmu, used, &low);
		if (s < 0)
			return -1;
		if (s < FAKE_SLOTS)
			used[s] = 1;
		if (low >= 0)
			used[low] = 1;
		slot[i] = s;
	}
	return 0;
}

/* Puts the thread's groups on the PMU of the core type it runs on: pinned
 * groups first; a pinned group that does not fit goes into error state. */
static void reschedule(void)
{
	int want[FAKE_MAX_EVENTS];
	char used[FAKE_SLOTS] = {0};
	unsigned i, pass;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		want[i] = OFF;
	for (pass = 0; pass < 2 && !fake.switched_out; pass++)
		for (i = 0; i < FAKE_MAX_EVENTS; i++) {
			struct fake_event *l = &fake.ev[i];
			int p = group_pmu((int)i), trial[FAKE_MAX_EVENTS];
			char try_used[FAKE_SLOTS];
			unsigned k;
			if (!l->used || l->leader != (int)i || !l->enabled || l->error ||
			    (int)l->attr.pinned != (pass == 0))
				continue;
			if (p >= 0 && (unsigned)p != fake.on_pmu)
				continue; /* its core type is not where the thread runs */
			memcpy(try_used, used, sizeof(used));
			if (place_group((int)i, p < 0 ? 0 : (unsigned)p, try_used, trial, 0) < 0) {
				l->error = l->attr.pinned;
				continue;
			}
			memcpy(used, try_used, sizeof(used));
			for (k = 0; k < FAKE_MAX_EVENTS; k++)
				if (fake.ev[k].used && fake.ev[k].leader == (int)i &&
				    fake.ev[k].enabled)
					want[k] = trial[k];
		}
	for (i = 0; i < FAKE_MAX_EVENTS; i++) {
		struct fake_event *e = &fake.ev[i];
		if (e->used && e->slot != want[i])
			move_event(e, want[i]);
	}
}

void fake_run_on(unsigned p)
{
	unsigned i;

	/* Off the old core type first (x86_pmu_del()), then on the new one. */
	fake.switched_out = 1;
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && is_on(&fake.ev[i]))
			move_event(&fake.ev[i], OFF);
	fake.on_pmu = p;
	fake.switched_out = 0;
	reschedule();
}

void fake_switch_out(void)
{
	fake.switched_out = 1;
	reschedule();
}

void fake_exec(void)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].attr.enable_on_exec)
			fake.ev[i].enabled = 1;
	reschedule();
}

void fake_take_counters(unsigned p, unsigned n)
{
	fake.pmu[p].taken = n;
	fake_switch_out();
	fake.switched_out = 0;
	reschedule();
}

void fake_run(uint64_t ns)
{
	unsigned i;

	fake.now += ns;
	for (i = 0; i < FAKE_MAX_EVENTS; i++) {
		struct fake_event *e = &fake.ev[i];
		if (!e->used || !counting_enabled(e))
			continue;
		e->enabled_ns += ns;
		if (!is_on(e))
			continue;
		e->running_ns += ns;
		if (e->other) {
			e->count += ns;
		} else if (e->pmu < 0) {
			if (e->attr.config == PERF_COUNT_SW_TASK_CLOCK ||
			    e->attr.config == PERF_COUNT_SW_CPU_CLOCK)
				e->count += ns;
		} else if (fake.pmu[e->pmu].never_counts) {
			continue;
		} else if (in_bank(e)) {
			fake.pmu[e->pmu].bank[e->slot] =
			        (fake.pmu[e->pmu].bank[e->slot] + ns * fake.pmu[e->pmu].rate) &
			        mask_of(width_of(e));
		}
	}
}

unsigned fake_open_events(void)
{
	unsigned i, n = 0;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		n += fake.ev[i].used;
	return n;
}

const struct fake_event *fake_find(uint32_t type, uint64_t config)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].attr.type == type &&
		    fake.ev[i].attr.config == config)
			return &fake.ev[i];
	return NULL;
}

uint64_t fake_count_on(unsigned p, uint32_t type, uint64_t config)
{
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].pmu == (int)p && fake.ev[i].attr.type == type &&
		    fake.ev[i].attr.config == config)
			return fake_count(&fake.ev[i]);
	return UPMC_NOT_COUNTED;
}

/* ---- the counter read instruction ---- */

/* rdpmc / mrs on the CPU the thread runs on now: a counter that core type
 * lacks faults (#GP on x86, UNDEFINED on Arm); the fake counts it. */
uint64_t sim_read_counter(uint32_t page_index)
{
	const struct fake_pmu *p;
	uint32_t n = page_index - 1;

	if (fake.before_counter_read)
		fake.before_counter_read(fake.counter_reads);
	fake.counter_reads++;
	p = &fake.pmu[fake.on_pmu];
	if (!p->arm && (n & IDX_MET)) {
		fake.metric_reads++;
		return fake.perf_metrics; /* 8-bit fractions, not a count */
	}
	if (p->arm && n == FAKE_ARM_CYCLES)
		return p->bank[FAKE_ARM_CYCLES];
	if (!p->arm && (n & IDX_FIX) && (n & ~IDX_FIX) < p->fixed)
		return p->bank[FAKE_FIXED + (n & ~IDX_FIX)];
	if (n < p->gp)
		return p->bank[n];
	fake.faults++;
	return 0xdead;
}

/* ---- the system calls (os/linux/sys.h) ---- */

static void syscall_entry(void)
{
	fake_run(fake.syscall_ns);
}

#define SOFTWARE_PMU (-1)
#define NO_PMU       (-2)
#define OTHER_PMU    (-3)

/* perf_init_event(): the core PMU an event goes to, or SOFTWARE_PMU,
 * OTHER_PMU (msr, uncore), NO_PMU. */
static int resolve_pmu(struct perf_event_attr *attr)
{
	uint32_t type = attr->type;
	unsigned p;

	if (type == PERF_TYPE_SOFTWARE)
		return SOFTWARE_PMU;
	for (p = 0; p < fake.n_other; p++)
		if (fake.other[p] == type)
			return OTHER_PMU;
	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_HW_CACHE) {
		uint32_t ext = (uint32_t)(attr->config >> 32);
		if (ext) {
			attr->config &= 0xffffffffu;
			if (!fake.extended_type)
				return NO_PMU; /* the PMU lacks PERF_PMU_CAP_EXTENDED_HW_TYPE */
			type = ext;
		} else {
			type = PERF_TYPE_RAW;
		}
	}
	for (p = 0; p < fake.n_pmu; p++)
		if (fake.pmu[p].type == type)
			return (int)p;
	/* Arm PMUs have dynamic types: the first one takes raw and legacy events. */
	return type == PERF_TYPE_RAW && fake.n_pmu && fake.pmu[0].arm ? 0 : NO_PMU;
}

/* perf_try_init_event() for a PMU with PERF_PMU_CAP_NO_EXCLUDE (msr,
 * uncore, power): any exclude bit is EINVAL. */
static int init_other(const struct fake_event *e)
{
	const struct perf_event_attr *a = &e->attr;

	return a->exclude_user || a->exclude_kernel || a->exclude_hv || a->exclude_idle ||
	                       a->exclude_host || a->exclude_guest
	               ? -EINVAL
	               : 0;
}

/* The hardware PMU of a group's member: its core PMU's type, its other
 * PMU's, or 0 (software). */
static uint32_t hardware_of(const struct fake_event *e)
{
	return e->pmu >= 0 ? fake.pmu[e->pmu].type : e->other ? e->attr.type : 0;
}

/* One hardware PMU per group (perf_event_open's group checks): e may join
 * the group of leader. */
static int joins(const struct fake_event *e, int leader)
{
	uint32_t mine = hardware_of(e);
	unsigned i;

	for (i = 0; i < FAKE_MAX_EVENTS && mine; i++)
		if (fake.ev[i].used && fake.ev[i].leader == leader && hardware_of(&fake.ev[i]) &&
		    hardware_of(&fake.ev[i]) != mine)
			return 0;
	return 1;
}

/* The driver's event_init(): 0 or -errno. */
static int init_event(struct fake_event *e)
{
	const struct fake_pmu *p = &fake.pmu[e->pmu];

	if (p->needs_guest_off && !e->attr.exclude_guest)
		return -EOPNOTSUPP; /* m1_pmu_set_event_filter() */
	if (p->pmuv3) {
		int long_bit = e->attr.config1 & 1;
		e->user_read = fake.rdpmc_bit && (e->attr.config1 & 2);
		if (e->user_read && long_bit && !is_cycles(e) && !p->long_events)
			return -EOPNOTSUPP; /* __armv8_pmuv3_map_event() */
		e->chained = long_bit && !e->user_read && !p->long_events;
	} else if (!p->arm) {
		e->user_read = fake.user_access; /* x86_pmu_event_init(): attr_rdpmc */
	}
	return 0;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/* Would the group of leader, with e in it, fit on an empty PMU
 * (validate_group())? */
static int group_fits(int leader)
{
	char used[FAKE_SLOTS] = {0};
	int slot[FAKE_MAX_EVENTS];
	int p = group_pmu(leader);

	return p < 0 || place_group(leader, (unsigned)p, used, slot, 1) == 0;
}

int upmc_sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group)
{
	struct perf_event_attr copy;
	struct fake_event *e, *leader = NULL;
	size_t size = attr->size ? attr->size : PERF_ATTR_SIZE_VER0;
	unsigned i;
	int pmu, err;

	(void)pid;
	(void)cpu;
	syscall_entry();
	fake.opens++;
	/* perf_copy_attr(): what the caller's size covers, the rest zero */
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, attr, size < sizeof(copy) ? size : sizeof(copy));
	if (group >= 0 && !(leader = event_of(group)))
		return fail(EBADF);
	pmu = resolve_pmu(&copy);
	if (pmu == NO_PMU)
		return fail(ENOENT);
	for (i = 0; i < FAKE_MAX_EVENTS && fake.ev[i].used; i++)
		;
	if (i == FAKE_MAX_EVENTS)
		return fail(EMFILE);
	e = &fake.ev[i];
	memset(e, 0, sizeof(*e));
	e->attr = copy;
	e->other = pmu == OTHER_PMU;
	e->pmu = pmu < 0 ? -1 : pmu;
	e->slot = OFF;
	e->enabled = !copy.disabled;
	e->leader = leader ? (int)(leader - fake.ev) : (int)i;
	e->fd = FAKE_FD_BASE + (int)i;
	e->seq = next_seq++;
	err = pmu >= 0 ? init_event(e) : e->other ? init_other(e) : 0;
	if (!err && leader && !joins(e, e->leader))
		err = -EINVAL; /* one hardware PMU per group */
	if (!err && is_metric(e) && !(leader && is_slots(leader)))
		err = -EINVAL; /* intel_pmu_hw_config(): metrics need a slots leader */
	if (err)
		return fail(-err);
	e->used = 1;
	if (!group_fits(e->leader)) {
		e->used = 0;
		return fail(EINVAL);
	}
	reschedule();
	return e->fd;
}

void *upmc_sys_mmap_page(int fd, size_t size, int populate)
{
	struct fake_event *e = event_of(fd);
	void *page;

	(void)populate;
	syscall_entry();
	if (!e || e->page) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	if (posix_memalign(&page, 4096, size)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	memset(page, 0, size);
	e->page = page;
	e->page->version = 0;
	e->page->cap_bit0_is_deprecated = 1;
	update_page(e);
	return page;
}

int upmc_sys_munmap(void *addr, size_t size)
{
	unsigned i;

	(void)size;
	for (i = 0; i < FAKE_MAX_EVENTS; i++)
		if (fake.ev[i].used && fake.ev[i].page == addr) {
			free(fake.ev[i].page);
			fake.ev[i].page = NULL;
			return 0;
		}
	return fail(EINVAL);
}

int upmc_sys_ioctl(int fd, unsigned long request, unsigned long arg)
{
	struct fake_event *e = event_of(fd);
	unsigned i;

	syscall_entry();
	if (!e)
		return fail(EBADF);
	if (request == PERF_EVENT_IOC_ID) {
		*(uint64_t *)arg = 1000 + e->seq; /* unique while the fake runs */
		return 0;
	}
	if (request == PERF_EVENT_IOC_RESET)
		topdown_reset(leader_of(e));
	for (i = 0; i < FAKE_MAX_EVENTS; i++) {
		struct fake_event *m = &fake.ev[i];
		if (!m->used ||
		    (m != e && !((arg & PERF_IOC_FLAG_GROUP) && m->leader == e->leader)))
			continue;
		if (request == PERF_EVENT_IOC_ENABLE) {
			m->enabled = 1;
			m->error = 0; /* a group in error state gets another try */
		} else if (request == PERF_EVENT_IOC_DISABLE) {
			m->enabled = 0;
		} else if (request == PERF_EVENT_IOC_RESET) {
			if (in_bank(m))
				m->offset -= (int64_t)fake_count(m);
			else
				m->count = 0;
			update_page(m); /* perf_event_reset() */
		} else {
			return fail(ENOTTY);
		}
	}
	reschedule();
	return 0;
}

/* read(2): the group's values in open order, with the leader's times. */
ssize_t upmc_sys_read(int fd, void *buf, size_t size)
{
	struct fake_event *e = event_of(fd), *l;
	uint64_t out[3 + FAKE_MAX_EVENTS];
	unsigned n = 0, i, s;
	int group;

	syscall_entry();
	fake.reads++;
	if (!e)
		return fail(EBADF);
	l = leader_of(e);
	if (l->error)
		return 0; /* a pinned group in error state reads 0 bytes */
	topdown_reset(l);
	group = (e->attr.read_format & PERF_FORMAT_GROUP) != 0;
	if (group)
		out[n++] = 0;
	if (!group)
		out[n++] = fake_count(e);
	if (e->attr.read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		out[n++] = group ? l->enabled_ns : e->enabled_ns;
	if (e->attr.read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		out[n++] = group ? l->running_ns : e->running_ns;
	for (s = 0; group && s < next_seq; s++)
		for (i = 0; i < FAKE_MAX_EVENTS; i++)
			if (fake.ev[i].used && fake.ev[i].leader == e->leader &&
			    fake.ev[i].seq == s) {
				out[n++] = fake_count(&fake.ev[i]);
				out[0]++;
			}
	if (n * sizeof(out[0]) > size)
		return fail(ENOSPC);
	memcpy(buf, out, n * sizeof(out[0]));
	return (ssize_t)(n * sizeof(out[0]));
}

int upmc_sys_close(int fd)
{
	struct fake_event *e = event_of(fd);

	if (!e)
		return fail(EBADF);
	free(e->page); /* the library unmaps first; the kernel would keep it */
	e->page = NULL;
	e->used = 0;
	reschedule();
	return 0;
}
