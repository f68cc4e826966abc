/* SPDX-License-Identifier: MIT */
/*
 * Events beyond perf's generic names: raw codes, pmu/term=value/ specs
 * against fixture sysfs trees, libpfm4 names, hybrid CPUs' per-core-PMU
 * events, scaling of multiplexed counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/core/internal.h"
#include "os/linux/probe.h"
#include "tests/linux_util.h"
#include "tests/upmc_test.h"

static struct upmc_event ev[UPMC_MAX_COUNTERS];

/* Parses spec with the probes pointed at a fixture tree. */
static int parse_in(const char *fixture, const char *spec, unsigned flags)
{
	char root[256];
	int n;

	upmc_format(root, sizeof(root), "tests/fixtures/%s", fixture);
	setenv("UPMC_FS_ROOT", root, 1);
	n = upmc_parse_spec(spec, flags, ev, UPMC_MAX_COUNTERS);
	unsetenv("UPMC_FS_ROOT");
	return n;
}

TEST(events, raw_codes)
{
	ASSERT(parse_in("vm-no-pmu", "r1a8,r00c0:uk", 0) == 2);
	EXPECT_EQ(ev[0].type, UPMC_TYPE_RAW);
	EXPECT_EQ(ev[0].config, 0x1a8);
	EXPECT(ev[0].exclude_kernel && !ev[0].exclude_user);
	EXPECT_EQ(ev[1].config, 0xc0);
	EXPECT(!ev[1].exclude_kernel && !ev[1].exclude_user);
	EXPECT_EQ(parse_in("vm-no-pmu", "rxyz", 0), -ENOENT);
}

TEST(events, sysfs_terms)
{
	ASSERT(parse_in("x86-rdpmc-off", "cycles,cpu/event=0x3c,umask=0x0/,instructions", 0) == 3);
	EXPECT_EQ(ev[1].type, 4);
	EXPECT_EQ(ev[1].config, 0x3c);
	EXPECT(!strcmp(ev[1].name, "cpu/event=0x3c,umask=0x0/"));
	EXPECT(!strcmp(ev[2].name, "instructions"));
	ASSERT(parse_in("x86-rdpmc-off", "cpu/event=0xd1,umask=0x20,edge,inv,cmask=2/k", 0) == 1);
	EXPECT_EQ(ev[0].config, 0xd1 | 0x20 << 8 | 1 << 18 | 1 << 23 | 2ull << 24);
	EXPECT(ev[0].exclude_user && !ev[0].exclude_kernel);
	ASSERT(parse_in("x86-rdpmc-off", "cpu/event=0xcd,ldlat=30,split=0xab/", 0) == 1);
	EXPECT_EQ(ev[0].config1, 30);
	EXPECT_EQ(ev[0].config2, 0xa0b); /* bits 0-3, then 8-11 */
	ASSERT(parse_in("x86-rdpmc-off", "cpu/offcore_rsp=0xffffffffffffffff/", 0) == 1);
	EXPECT_EQ_U64(ev[0].config1, ~0ull);
}

TEST(events, sysfs_aliases)
{
	ASSERT(parse_in("x86-rdpmc-off", "cpu/mem-loads/,cpu/cpu-cycles/u", 0) == 2);
	EXPECT_EQ(ev[0].config, 0x1cd);
	EXPECT_EQ(ev[0].config1, 3);
	EXPECT_EQ(ev[1].config, 0x3c);
}

TEST(events, sysfs_errors)
{
	EXPECT_EQ(parse_in("x86-rdpmc-off", "nopmu/event=1/", 0), -ENODEV);
	EXPECT_CONTAINS(upmc_last_error(), "no PMU 'nopmu'");
	EXPECT_CONTAINS(upmc_last_error(), "cpu");
	EXPECT_EQ(parse_in("x86-rdpmc-off", "cpu/evnt=1/", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "PMU 'cpu' has no term or event 'evnt'");
	EXPECT_CONTAINS(upmc_last_error(), "umask");
	EXPECT_EQ(parse_in("x86-rdpmc-off", "cpu/event=0x1ff/", 0), -ERANGE);
	EXPECT_CONTAINS(upmc_last_error(), "does not fit its bits (config:0-7)");
	EXPECT_EQ(parse_in("x86-rdpmc-off", "cpu/event=zz/", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "'zz' is not a number");
	EXPECT_EQ(parse_in("x86-rdpmc-off", "cpu/event=1", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "a PMU spec reads 'pmu/term=value,.../'");
	EXPECT_EQ(parse_in("x86-rdpmc-off", "cpu/event=1/x", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "unknown modifier");
}

static int find_pmu(const struct upmc_event_info *info, void *arg)
{
	int *found = arg;

	*found |= !strcmp(info->pmu, "perf");
	return 0;
}

TEST(events, libpfm_names_count_here)
{
	const size_t pages = 16, page = (size_t)sysconf(_SC_PAGESIZE);
	struct upmc_set *set;
	uint64_t a, b;
	char *mem;
	size_t i;
	int perf_pmu = 0;

	upmc_list_events(find_pmu, &perf_pmu);
	if (!perf_pmu)
		SKIP("libpfm4 lists no perf:: PMU here (LIBPFM_FORCE_PMU=%s hides it)",
		     getenv("LIBPFM_FORCE_PMU") ? getenv("LIBPFM_FORCE_PMU") : "unset");
	ASSERT(parse_in("vm-no-pmu", "perf::PERF_COUNT_SW_PAGE_FAULTS,PERF_COUNT_SW_TASK_CLOCK:k",
	                0) == 2);
	EXPECT(ev[0].type == UPMC_TYPE_SOFTWARE && ev[0].config == 2);
	EXPECT(ev[1].config == 1 && ev[1].exclude_user && !ev[1].exclude_kernel);
	ASSERT_MSG(upmc_open(&set, "perf::PERF_COUNT_SW_PAGE_FAULTS", NULL) == 0, "%s",
	           upmc_last_error());
	mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(mem != MAP_FAILED);
	upmc_read(set, &a);
	for (i = 0; i < pages; i++)
		mem[i * page] = 1;
	upmc_read(set, &b);
	EXPECT(b - a >= pages);
	munmap(mem, pages * page);
	upmc_close(set);
	EXPECT_EQ(parse_in("vm-no-pmu", "perf::PERF_COUNT_SW_PAGE_FAULTS:bogus", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "libpfm4 says");
}

struct find {
	const char *name;
	char desc[256];
	int found;
};

static int find_event(const struct upmc_event_info *info, void *arg)
{
	struct find *f = arg;

	if (!strcmp(info->name, f->name)) {
		f->found = 1;
		upmc_format(f->desc, sizeof(f->desc), "%s", info->desc);
	}
	return 0;
}

TEST(events, list_has_sysfs_aliases)
{
	struct find f = {"cpu/mem-loads/", "", 0}, scale = {"cpu/mem-loads.scale/", "", 0};

	setenv("UPMC_FS_ROOT", "tests/fixtures/x86-rdpmc-off", 1);
	upmc_list_events(find_event, &f);
	upmc_list_events(find_event, &scale);
	unsetenv("UPMC_FS_ROOT");
	EXPECT(f.found);
	EXPECT(!strcmp(f.desc, "event=0xcd,umask=0x1,ldlat=3"));
	EXPECT(!scale.found);
}

/* ---- hybrid CPUs ---- */

/* The events upmc would open for spec on a fixture machine (0: no parse). */
static unsigned plan_in(const char *fixture, const char *spec, struct upmc_linux_attr *out)
{
	struct upmc_linux_probe p;
	char root[256];

	if (parse_in(fixture, spec, 0) != 1)
		return 0;
	upmc_format(root, sizeof(root), "tests/fixtures/%s", fixture);
	setenv("UPMC_FS_ROOT", root, 1);
	upmc_linux_probe(&p);
	unsetenv("UPMC_FS_ROOT");
	return upmc_linux_plan(&ev[0], &p, 0, out);
}

/* The configs of a two-PMU plan, in PMU type order. */
static void two_configs(const struct upmc_linux_attr *a, uint64_t *lo, uint64_t *hi)
{
	int swap = a[0].config > a[1].config;

	*lo = a[swap].config;
	*hi = a[!swap].config;
}

TEST(hybrid, intel_generic_events_open_per_core_pmu)
{
	struct upmc_linux_attr a[UPMC_LINUX_MAX_CORE_PMUS];
	uint64_t lo, hi;

	ASSERT(plan_in("intel-hybrid", "cycles", a) == 2);
	two_configs(a, &lo, &hi);
	EXPECT_EQ_U64(lo, 4ull << 32); /* cpu_core is type 4 */
	EXPECT_EQ_U64(hi, 8ull << 32); /* cpu_atom is type 8 */
	EXPECT(a[0].type == 0 && a[0].key != a[1].key);
	ASSERT(plan_in("intel-hybrid", "L1-dcache-load-misses", a) == 2);
	two_configs(a, &lo, &hi);
	EXPECT_EQ_U64(lo, 0x10000 | 4ull << 32);
	EXPECT_EQ(plan_in("intel-hybrid", "task-clock", a), 1);
	EXPECT_EQ(plan_in("intel-hybrid", "cpu_core/event=0xc0/", a), 1);
	EXPECT_EQ(a[0].type, 4);
	EXPECT_EQ(plan_in("intel-hybrid", "r1a8", a), 1);
}

TEST(hybrid, big_little_generic_events_open_per_core_pmu)
{
	struct upmc_linux_attr a[UPMC_LINUX_MAX_CORE_PMUS];
	uint64_t lo, hi;

	ASSERT(plan_in("arm64-big-little", "instructions", a) == 2);
	two_configs(a, &lo, &hi);
	EXPECT_EQ_U64(lo, 1 | 8ull << 32); /* armv8_cortex_a53 */
	EXPECT_EQ_U64(hi, 1 | 9ull << 32); /* armv8_cortex_a72 */
}

TEST(hybrid, one_core_pmu_opens_once)
{
	struct upmc_linux_attr a[UPMC_LINUX_MAX_CORE_PMUS];

	ASSERT(plan_in("x86-rdpmc-off", "cycles", a) == 1);
	EXPECT_EQ_U64(a[0].config, 0);
	EXPECT_EQ(plan_in("vm-no-pmu", "cycles", a), 1);
}

TEST(hybrid, opening_here_explains_and_leaks_nothing)
{
	struct upmc_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY};
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX};
	int fds = open_fd_count();
	struct upmc_set *set;
	uint64_t v[2];

	setenv("UPMC_FS_ROOT", "tests/fixtures/intel-hybrid", 1);
	if (upmc_open(&set, "cycles,task-clock", &opts) == 0) {
		/* this kernel has no cpu_core PMU: the extended types fail */
		EXPECT_EQ(upmc_counter_path(set, 0), UPMC_PATH_UNAVAILABLE);
		EXPECT_EQ(upmc_counter_path(set, 1), UPMC_PATH_SYSCALL);
		EXPECT(upmc_read(set, v) == 2 && v[0] == UPMC_NOT_COUNTED && v[1] > 0);
		upmc_close(set);
	} else {
		EXPECT_MSG(0, "open failed: %s", upmc_last_error());
	}
	EXPECT_EQ(upmc_open(&set, "task-clock", &mux), -EOPNOTSUPP);
	EXPECT_CONTAINS(upmc_last_error(), "open a set per core type");
	unsetenv("UPMC_FS_ROOT");
	EXPECT_EQ(open_fd_count(), fds);
}

/* ---- multiplexing ---- */

TEST(multiplex, scaling_at_64_bit_extremes)
{
	const uint64_t top = UPMC_NOT_COUNTED - 1;

	EXPECT_EQ_U64(upmc_scale(100, 10, 10), 100);
	EXPECT_EQ_U64(upmc_scale(100, 20, 10), 200);
	EXPECT_EQ_U64(upmc_scale(7, 1, 3), 2);
	EXPECT_EQ_U64(upmc_scale(top, 1ull << 63, 1ull << 63), top);
	EXPECT_EQ_U64(upmc_scale(1ull << 63, 3, 2), 3ull << 62);
	EXPECT_EQ_U64(upmc_scale(1ull << 63, 5, 2), top); /* saturates below "not counted" */
	EXPECT_EQ_U64(
	        upmc_scale(1000000000000000000ull, 1000000000000000000ull, 500000000000000000ull),
	        2000000000000000000ull); /* count * enabled needs 120 bits */
	EXPECT_EQ_U64(upmc_scale(1ull << 62, (1ull << 62) + 1, 1ull << 62), (1ull << 62) + 1);
	EXPECT_EQ_U64(upmc_scale(123, 456, 0), UPMC_NOT_COUNTED); /* never ran: not 0 */
	EXPECT_EQ_U64(upmc_scale(UPMC_NOT_COUNTED, 2, 1), UPMC_NOT_COUNTED);
}

TEST(multiplex, software_events_report_full_ratio)
{
	struct upmc_options mux = {sizeof(mux), UPMC_OPT_MULTIPLEX | UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	uint64_t v[3];

	ASSERT_MSG(upmc_open(&set, "task-clock,page-faults,cycles", &mux) == 0, "%s",
	           upmc_last_error());
	ASSERT(upmc_read(set, v) == 3);
	EXPECT(v[0] > 0 && v[0] != UPMC_NOT_COUNTED);
	EXPECT(upmc_counter_ratio(set, 0) == 1.0 && upmc_counter_ratio(set, 1) == 1.0);
	if (upmc_counter_path(set, 2) == UPMC_PATH_UNAVAILABLE)
		EXPECT(upmc_counter_ratio(set, 2) == 0 && v[2] == UPMC_NOT_COUNTED);
	EXPECT(upmc_counter_ratio(set, 3) < 0);
	upmc_close(set);
}
