/* SPDX-License-Identifier: MIT */
/*
 * Intel topdown read with rdpmc, on a machine without a PMU: the library
 * as it ships (rdpmc itself, no seam) over the fake kernel's Intel machine
 * (fixture x86-intel), whose PERF_METRICS register the test sets. rdpmc
 * faults here; a SIGSEGV/SIGILL handler recognises 0F 33, returns the fake
 * CPU's counter that ECX names (bit 30: fixed, bit 29: PERF_METRICS) and
 * steps past it, as tests/arch_x86_rdpmc_test.c does for the simulated
 * kernel. So slots and PERF_METRICS go through the real instruction, the
 * pages through the fake kernel's seqlock, and upmc_metrics() gives the
 * fractions of the kernel's tools/perf/Documentation/topdown.txt exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

/* First, so that the inline reader is the real one: rdpmc itself. The
 * seam's macro, which fake_kernel.h brings, would only change code
 * compiled after it, and none here reads counters through it. */
#include <upmc/upmc.h>
#undef UPMC_ARCH_READ_COUNTER
#include "tests/fake/fake_kernel.h"

#include <upmc/zone.h>

#include "tests/upmc_test.h"
#include "tests/zone_util.h"

#if defined(__x86_64__)

#define METRICS_BIT (1u << 29)

static volatile unsigned long emulated;

/* rdpmc as the fake CPU answers it: counters 48 bits wide, PERF_METRICS 64. */
static void on_fault(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	greg_t *reg = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)reg[REG_RIP];
	uint32_t ecx = (uint32_t)reg[REG_RCX];
	uint64_t value;

	(void)info;
	if (ip[0] != 0x0f || ip[1] != 0x33) {
		signal(sig, SIG_DFL); /* a real fault: let it kill the test */
		return;
	}
	value = sim_read_counter(ecx + 1);
	if (!(ecx & METRICS_BIT))
		value &= (1ull << 48) - 1;
	reg[REG_RAX] = (greg_t)(uint32_t)value;
	reg[REG_RDX] = (greg_t)(uint32_t)(value >> 32);
	reg[REG_RIP] += 2;
	emulated++;
}

static int install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGILL, &sa, NULL) ? -1 : 0;
}

static void uninstall(void)
{
	signal(SIGSEGV, SIG_DFL);
	signal(SIGILL, SIG_DFL);
}

/* rdpmc runs natively where user-space rdpmc is allowed: the values would
 * be the machine's, not the fake's. */
static int rdpmc_faults(void)
{
	unsigned long before = emulated;

	fake_boot("x86-intel");
	(void)upmc_arch_read_counter(1);
	return emulated == before + 1;
}

#define NEEDS_EMULATION()                                                               \
	do {                                                                            \
		if (install() < 0)                                                      \
			SKIP("cannot install a SIGSEGV/SIGILL handler");                \
		if (!rdpmc_faults()) {                                                  \
			uninstall();                                                    \
			SKIP("rdpmc runs natively here (user-space rdpmc is allowed): " \
			     "nothing to emulate");                                     \
		}                                                                       \
	} while (0)

/* PERF_METRICS of four level 1 fields (retiring in the low byte). */
static uint64_t fields(unsigned ret, unsigned bad, unsigned fe, unsigned be)
{
	return ret | bad << 8 | fe << 16 | (uint64_t)be << 24;
}

/* spec opened on the fake's Intel machine with fixture fixture. */
static struct upmc_set *open_topdown_on(const char *fixture, const char *spec, unsigned flags)
{
	struct upmc_options opts = {sizeof(opts), flags};
	struct upmc_set *set = NULL;

	fake_boot(fixture);
	fake.syscall_ns = 0; /* counts stand still between fake_run()s */
	if (upmc_open(&set, spec, &opts) < 0) {
		printf("open: %s\n", upmc_last_error());
		return NULL;
	}
	return set;
}

/* spec on an Intel CPU of four PERF_METRICS fields (Ice Lake). */
static struct upmc_set *open_topdown(const char *spec, unsigned flags)
{
	return open_topdown_on("x86-intel", spec, flags);
}

static int metric_named(struct upmc_set *set, const char *name)
{
	int j;

	for (j = 0; j < upmc_metric_count(set); j++)
		if (!strcmp(upmc_metric_name(set, (unsigned)j), name))
			return j;
	return -1;
}

/* The document's fraction: (field1 x slots1 - field0 x slots0) / 255 over
 * the slots of the interval, slots counted from the last reset. */
static double doc_fraction(unsigned f0, uint64_t s0, unsigned f1, uint64_t s1)
{
	return (double)(f1 * s1 - f0 * s0) / 255 / (double)(s1 - s0);
}

TEST(topdown, exact_fractions_from_rdpmc)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX], counts[UPMC_MAX_COUNTERS];
	static const char *const names[] = {"retiring", "bad-speculation", "frontend-bound",
	                                    "backend-bound"};
	const unsigned f0[] = {64, 16, 48, 127}, f1[] = {80, 20, 40, 115};
	struct upmc_set *set;
	double values[8];
	unsigned reads, k;

	NEEDS_EMULATION();
	set = open_topdown("TopdownL1", 0);
	ASSERT(set);
	ASSERT(upmc_count(set) == 5);
	for (k = 0; k < 5; k++)
		EXPECT_EQ(upmc_counter_path(set, k), UPMC_PATH_USER);
	reads = fake.reads;
	fake.perf_metrics = fields(64, 16, 48, 127);
	fake_run(255 * 1000);
	emulated = 0;
	ASSERT(upmc_snapshot(set, before) == 5);
	EXPECT_EQ(emulated, 2); /* slots, then PERF_METRICS once for four events */
	fake.perf_metrics = fields(80, 20, 40, 115);
	fake_run(255 * 3000);
	ASSERT(upmc_snapshot(set, after) == 5);
	EXPECT_EQ(emulated, 4);
	EXPECT_EQ(fake.metric_reads, 2);
	EXPECT_EQ(fake.reads, reads); /* no read(2) beside rdpmc */
	ASSERT(upmc_metrics(set, before, after, values) == 4);
	ASSERT(upmc_interval(set, before, after, counts, NULL) == 5);
	for (k = 0; k < 4; k++) {
		int j = metric_named(set, names[k]);
		ASSERT(j >= 0);
		EXPECT_MSG(values[j] == doc_fraction(f0[k], 255000, f1[k], 1020000),
		           "%s: %.17g, want %.17g (%s)", names[k], values[j],
		           doc_fraction(f0[k], 255000, f1[k], 1020000),
		           upmc_metric_reason(set, (unsigned)j));
		EXPECT_EQ_U64(counts[k + 1], (f1[k] * 1020000 - f0[k] * 255000) / 255);
	}
	EXPECT_EQ_U64(counts[0], 255 * 3000);
	upmc_close(set);
	uninstall();
}

static int counter_named(struct upmc_set *set, const char *name)
{
	int i;

	for (i = 0; i < upmc_count(set); i++)
		if (!strcmp(upmc_counter_name(set, (unsigned)i), name))
			return i;
	return -1;
}

/* The interval's slots of a topdown metric event whose field went from f0
 * to f1 while slots since the reset went from s0 to s1. */
static uint64_t doc_count(unsigned f0, uint64_t s0, unsigned f1, uint64_t s1)
{
	return (f1 * s1 - f0 * s0) / 255;
}

/* Sapphire Rapids: PERF_METRICS has eight fields; TopdownL2's are read by
 * the same pass (one PERF_METRICS read for the eight events), and each
 * half of a level 1 category that is not a field is that category less
 * the field, all over the interval's slots. */
TEST(topdown, level2_exact_fractions_from_rdpmc)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX], counts[UPMC_MAX_COUNTERS];
	/* level 1, then level 2 (fields 4-7), each level 1 sum 255 */
	static const char *const events[] = {"topdown-retiring",  "topdown-bad-spec",
	                                     "topdown-fe-bound",  "topdown-be-bound",
	                                     "topdown-heavy-ops", "topdown-br-mispredict",
	                                     "topdown-fetch-lat", "topdown-mem-bound"};
	static const char *const field_metric[] = {"heavy-operations", "branch-mispredicts",
	                                           "fetch-latency", "memory-bound"};
	static const char *const rest_metric[] = {"light-operations", "machine-clears",
	                                          "fetch-bandwidth", "core-bound"};
	const unsigned f0[] = {64, 16, 48, 127, 20, 10, 30, 70};
	const unsigned f1[] = {80, 20, 40, 115, 25, 12, 24, 60};
	const uint64_t s0 = 255000, s1 = 1020000, slots = s1 - s0;
	uint64_t c[8];
	struct upmc_set *set;
	double values[12];
	unsigned k;

	NEEDS_EMULATION();
	set = open_topdown_on("intel-sapphire-rapids", "TopdownL2", 0);
	ASSERT(set);
	/* slots, the eight topdown events, INT_MISC.UOP_DROPPING */
	ASSERT(upmc_count(set) == 10);
	ASSERT(upmc_metric_count(set) == 8);
	for (k = 0; k < 10; k++)
		EXPECT_EQ(upmc_counter_path(set, k), UPMC_PATH_USER);
	fake.perf_metrics = 0;
	for (k = 0; k < 8; k++)
		fake.perf_metrics |= (uint64_t)f0[k] << (8 * k);
	fake_run(s0);
	emulated = 0;
	ASSERT(upmc_snapshot(set, before) == 10);
	/* slots, UOP_DROPPING, then PERF_METRICS once for eight events */
	EXPECT_EQ(emulated, 3);
	fake.perf_metrics = 0;
	for (k = 0; k < 8; k++)
		fake.perf_metrics |= (uint64_t)f1[k] << (8 * k);
	fake_run(slots);
	ASSERT(upmc_snapshot(set, after) == 10);
	ASSERT(upmc_metrics(set, before, after, values) == 8);
	ASSERT(upmc_interval(set, before, after, counts, NULL) == 10);
	EXPECT_EQ_U64(counts[counter_named(set, "slots")], slots);
	for (k = 0; k < 8; k++) {
		int i = counter_named(set, events[k]);
		ASSERT(i >= 0);
		c[k] = doc_count(f0[k], s0, f1[k], s1);
		EXPECT_EQ_U64(counts[i], c[k]);
	}
	/* perf's tma_* (spr-metrics.json): each field over the level 1 sum,
	 * UOP_DROPPING / slots off frontend-bound and fetch-latency, bad
	 * speculation the remainder, differences clamped at 0. */
	{
		double sum = (double)(c[2] + c[1] + c[0] + c[3]),
		       drop = (double)counts[counter_named(set, "r10ad")] / (double)slots;
		double ret = c[0] / sum, fe = c[2] / sum - drop, be = c[3] / sum;
		double bad = fmax(1 - (fe + be + ret), 0);
		double want[8] = {c[4] / sum,
		                  c[5] / sum,
		                  c[6] / sum - drop,
		                  c[7] / sum,
		                  fmax(0, ret - c[4] / sum),
		                  fmax(0, bad - c[5] / sum),
		                  fmax(0, c[2] / sum - c[6] / sum),
		                  fmax(0, be - c[7] / sum)};
		for (k = 0; k < 8; k++) {
			int j = metric_named(set, k < 4 ? field_metric[k] : rest_metric[k - 4]);
			ASSERT(j >= 0);
			EXPECT_MSG(fabs(values[j] - want[k]) <= 1e-12 * fabs(want[k]) + 1e-15,
			           "%s: %.17g, want %.17g (%s)", upmc_metric_name(set, (unsigned)j),
			           values[j], want[k], upmc_metric_reason(set, (unsigned)j));
		}
	}
	upmc_close(set);
	uninstall();
}

/* The level 2 fields follow the level 1 rules: an interval short beside
 * the slots since the last reset is said, not measured. */
TEST(topdown, level2_too_short_said)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX];
	struct upmc_set *set;
	double values[8];
	int j;

	NEEDS_EMULATION();
	set = open_topdown_on("intel-sapphire-rapids", "TopdownL2", 0);
	ASSERT(set);
	j = metric_named(set, "core-bound");
	fake_run(255 * 100000);
	ASSERT(upmc_snapshot(set, before) == 10);
	fake_run(255 * 100);
	ASSERT(upmc_snapshot(set, after) == 10);
	ASSERT(upmc_metrics(set, before, after, values) == 8);
	EXPECT(isnan(values[j]));
	EXPECT_CONTAINS(upmc_metric_reason(set, (unsigned)j), "too short to measure");
	upmc_close(set);
	uninstall();
}

/* Other counts of the slots group ride in the same pass, whatever the
 * spec's order: slots leads the group, as the kernel wants. */
TEST(topdown, counts_beside_it_in_one_pass)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX];
	struct upmc_set *set;
	double values[8];
	int ipc, ret;

	NEEDS_EMULATION();
	set = open_topdown("IPC,TopdownL1", 0);
	ASSERT(set);
	ASSERT(upmc_count(set) == 7);
	fake.perf_metrics = fields(51, 51, 51, 102);
	ASSERT(upmc_snapshot(set, before) == 7);
	fake_run(2550);
	emulated = 0;
	ASSERT(upmc_snapshot(set, after) == 7);
	EXPECT_EQ(emulated, 4); /* instructions, cycles, slots, PERF_METRICS */
	ASSERT(upmc_metrics(set, before, after, values) == 5);
	ipc = metric_named(set, "IPC");
	ret = metric_named(set, "retiring");
	EXPECT(values[ipc] == 1.0); /* the fake counts 1 per ns on each */
	EXPECT_MSG(values[ret] == 0.2, "retiring %.17g (%s)", values[ret],
	           upmc_metric_reason(set, (unsigned)ret));
	upmc_close(set);
	uninstall();
}

/* A region short beside the slots since the last reset: the 8-bit fields
 * cannot measure it, and upmc_metrics() says so; upmc_topdown_reset()
 * starts a new period, after which the same region measures. */
TEST(topdown, too_short_said_and_reset_cures_it)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX];
	struct upmc_set *set;
	double values[8];
	unsigned resets;
	int j;

	NEEDS_EMULATION();
	set = open_topdown("TopdownL1", 0);
	ASSERT(set);
	j = metric_named(set, "retiring");
	fake_run(255 * 100000);
	ASSERT(upmc_snapshot(set, before) == 5);
	fake_run(255 * 100);
	ASSERT(upmc_snapshot(set, after) == 5);
	ASSERT(upmc_metrics(set, before, after, values) == 4);
	EXPECT(isnan(values[j]));
	EXPECT_CONTAINS(upmc_metric_reason(set, (unsigned)j), "too short to measure");
	EXPECT_CONTAINS(upmc_metric_reason(set, (unsigned)j), "upmc_topdown_reset()");

	resets = fake.topdown_resets;
	ASSERT(upmc_topdown_reset(set) == 0);
	EXPECT_EQ(fake.topdown_resets, resets + 1);
	ASSERT(upmc_snapshot(set, before) == 5);
	fake_run(255 * 100);
	ASSERT(upmc_snapshot(set, after) == 5);
	ASSERT(upmc_metrics(set, before, after, values) == 4);
	EXPECT_MSG(values[j] == 64.0 / 255, "retiring %.17g (%s)", values[j],
	           upmc_metric_reason(set, (unsigned)j));
	EXPECT(!strcmp(upmc_metric_reason(set, (unsigned)j), ""));
	upmc_close(set);
	uninstall();
}

/* Snapshots on either side of a reset are of different periods: said. */
TEST(topdown, reset_between_snapshots_said)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX];
	struct upmc_set *set;
	double values[8];
	int j;

	NEEDS_EMULATION();
	set = open_topdown("TopdownL1", 0);
	ASSERT(set);
	j = metric_named(set, "backend-bound");
	fake_run(255 * 1000);
	ASSERT(upmc_snapshot(set, before) == 5);
	fake_run(255 * 1000);
	ASSERT(upmc_topdown_reset(set) == 0); /* every count of the group from 0 */
	fake_run(255 * 500);
	ASSERT(upmc_snapshot(set, after) == 5);
	ASSERT(upmc_metrics(set, before, after, values) == 4);
	EXPECT(isnan(values[j]));
	EXPECT_CONTAINS(upmc_metric_reason(set, (unsigned)j), "reset between the two snapshots");

	/* A reset that keeps the counts (another reader's read(2), the
	 * overflow interrupt): the fake restarts slots and PERF_METRICS when
	 * the group goes back on the PMU. */
	ASSERT(upmc_snapshot(set, before) == 5);
	fake_switch_out();
	fake_run_on(0);
	fake_run(255 * 1000);
	ASSERT(upmc_snapshot(set, after) == 5);
	EXPECT(after[0] - before[0] == 255 * 1000);
	ASSERT(upmc_metrics(set, before, after, values) == 4);
	EXPECT(isnan(values[j]));
	EXPECT_CONTAINS(upmc_metric_reason(set, (unsigned)j), "reset between the two snapshots");
	upmc_close(set);
	uninstall();
}

/* Where a page says no user-space read, the read fails rather than fall
 * back to read(2), which would reset slots and PERF_METRICS; the times,
 * which only read(2) gives here, are refused too. */
TEST(topdown, no_read2_fallback)
{
	uint64_t v[UPMC_SNAPSHOT_MAX], enabled, running, one;
	struct upmc_set *set;
	unsigned reads, k;

	NEEDS_EMULATION();
	set = open_topdown("TopdownL1", 0);
	ASSERT(set);
	reads = fake.reads;
	fake_run(2550);
	ASSERT(upmc_read_counter(set, 1, &one) == 0); /* a metric alone: the pass */
	EXPECT_EQ_U64(one, 64 * 2550 / 255);
	EXPECT_EQ(upmc_read_times(set, &enabled, &running), -EOPNOTSUPP);
	EXPECT_CONTAINS(upmc_last_error(), "reset slots and PERF_METRICS");
	fake_switch_out(); /* the group off the PMU: index 0 in its pages */
	EXPECT_EQ(upmc_snapshot(set, v), -EAGAIN);
	EXPECT_CONTAINS(upmc_last_error(), "read(2) would reset slots and PERF_METRICS");
	for (k = 0; k < 5; k++)
		EXPECT_EQ_U64(v[k], UPMC_NOT_COUNTED);
	EXPECT_EQ(upmc_read(set, v), -EAGAIN);
	EXPECT_EQ(upmc_read_n(set, v, 2), -EAGAIN);
	EXPECT_EQ(fake.reads, reads);
	upmc_close(set);
	uninstall();
}

/* UPMC_OPT_FORCE_SYSCALL: read(2) alone, which the kernel computes from
 * PERF_METRICS and resets at each read; rdpmc never reads the group. */
TEST(topdown, force_syscall_is_read2_alone_and_says_so)
{
	uint64_t before[UPMC_SNAPSHOT_MAX], after[UPMC_SNAPSHOT_MAX];
	struct upmc_set *set;
	double values[8];
	unsigned k;
	int j;

	NEEDS_EMULATION();
	set = open_topdown("TopdownL1", UPMC_OPT_FORCE_SYSCALL);
	ASSERT(set);
	for (k = 1; k < 5; k++) {
		EXPECT_EQ(upmc_counter_path(set, k), UPMC_PATH_SYSCALL);
		EXPECT_CONTAINS(upmc_counter_reason(set, k), "resets them at each read(2)");
	}
	EXPECT_EQ(upmc_topdown_reset(set), -EOPNOTSUPP);
	emulated = 0;
	fake_run(255 * 1000);
	ASSERT(upmc_snapshot(set, before) == 5);
	fake_run(255 * 1000);
	ASSERT(upmc_snapshot(set, after) == 5);
	EXPECT_EQ(emulated, 0);
	EXPECT_EQ(fake.metric_reads, 0);
	ASSERT(upmc_metrics(set, before, after, values) == 4);
	j = metric_named(set, "retiring");
	EXPECT_MSG(values[j] == 64.0 / 255, "retiring %.17g", values[j]);
	upmc_close(set);
	uninstall();
}

static int occurrences(const char *text, const char *s)
{
	int n = 0;

	for (; text && (text = strstr(text, s)); text += strlen(s))
		n++;
	return n;
}

/* The same in a Perfetto trace, whose strings are among its bytes. */
static int occurrences_in_perfetto(struct upmc_profile *p, const char *s)
{
	char *bytes = NULL, *at;
	size_t size = 0, left;
	FILE *f = open_memstream(&bytes, &size);
	int n = 0;

	if (!f)
		return -1;
	if (upmc_profile_write(p, UPMC_FORMAT_PERFETTO_UNCOMPRESSED, f) < 0)
		n = -1;
	fclose(f);
	for (at = bytes, left = size; n >= 0 && (at = memmem(at, left, s, strlen(s)));
	     at += strlen(s), left = size - (size_t)(at - bytes))
		n++;
	free(bytes);
	return n;
}

/* Each zone's first metric (retiring), by the zone's name. */
struct retiring {
	double long_zone;
	int short_nan, short_zones;
};

static int retiring_of(const struct upmc_zone_info *z, void *arg)
{
	struct retiring *r = arg;

	if (!strcmp(z->loc->name, "long"))
		r->long_zone = z->metric[0];
	else {
		r->short_zones++;
		r->short_nan += z->metrics == 4 && isnan(z->metric[0]);
	}
	return 0;
}

/* A zone's begin and end are the set's snapshots: a long zone gets the
 * document's fractions exactly, while two short ones (beside the slots
 * since the reset) get none, said once in every export, not zone by zone,
 * and are left out of the metric of their totals. */
TEST(topdown, per_zone_fractions_and_too_short_said_once)
{
	static const struct upmc_zone_loc long_loc = {"long", "f", "arch_x86_topdown_test.c", 1};
	static const struct upmc_zone_loc short_loc = {"short", "f", "arch_x86_topdown_test.c", 2};
	const char *note = "topdown is not measured in 2 of the 3 zones read with PERF_METRICS";
	struct retiring r = {0, 0, 0};
	struct upmc_profile *p = NULL;
	char *chrome, *table, *json;
	char row[64];

	NEEDS_EMULATION();
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(upmc_profile_open(&p, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	ASSERT(!strcmp(upmc_profile_metric_name(p, 0), "retiring"));
	EXPECT(!strcmp(upmc_profile_metric_reason(p, 0), ""));
	fake.perf_metrics = fields(64, 16, 48, 127);
	fake_run(255 * 1000);
	upmc_zone_begin(&long_loc);
	fake.perf_metrics = fields(80, 20, 40, 115);
	fake_run(255 * 3000);
	upmc_zone_end();
	upmc_zone_begin(&short_loc);
	fake_run(255 * 100);
	upmc_zone_end();
	upmc_zone_begin(&short_loc);
	fake_run(255 * 100);
	upmc_zone_end();

	ASSERT(upmc_profile_zones(p, retiring_of, &r) == 3);
	EXPECT_MSG(r.long_zone == doc_fraction(64, 255000, 80, 1020000), "retiring %.17g",
	           r.long_zone);
	EXPECT_EQ(r.short_zones, 2);
	EXPECT_EQ(r.short_nan, 2);

	chrome = export_text(p, UPMC_FORMAT_CHROME);
	table = export_text(p, UPMC_FORMAT_TABLE);
	json = export_text(p, UPMC_FORMAT_JSON);
	ASSERT(chrome && table && json);
	EXPECT_EQ(occurrences_in_perfetto(p, "topdown not measured"), 1);
	EXPECT_EQ(occurrences_in_perfetto(p, "too short to measure"), 1);
	EXPECT_EQ(occurrences(chrome, note), 1);
	EXPECT_EQ(occurrences(chrome, "too short to measure"), 1);
	EXPECT_EQ(occurrences(chrome, "\"metrics_unmeasured\":["), 1);
	EXPECT_EQ(occurrences(chrome, "\"retiring\":"), 2); /* the long zone's args and data */
	EXPECT_EQ(occurrences(json, note), 1);
	EXPECT_EQ(occurrences(json, "too short to measure"), 1);
	EXPECT_EQ(occurrences(table, note), 1);
	EXPECT_EQ(occurrences(table, "too short to measure"), 1);
	/* The metrics of the totals: the long zone's retiring (a percent in
	 * the table), none for the short zones'. */
	snprintf(row, sizeof(row), "%.2f%%", 100 * doc_fraction(64, 255000, 80, 1020000));
	EXPECT_MSG(strstr(table, row) != NULL, "%s not in\n%s", row, table);
	EXPECT_MSG(strstr(table, "n/a") != NULL, "%s", table);
	EXPECT_EQ(occurrences(json, "\"retiring\":null"), 1);
	EXPECT_EQ(occurrences(json, "\"retiring\":0.3346"), 1);
	free(chrome);
	free(table);
	free(json);
	upmc_profile_close(p);
	uninstall();
}

/* A zone across a reset of slots and PERF_METRICS (the group off the PMU
 * and back) has no topdown metric, and the exports say so once. */
TEST(topdown, per_zone_across_a_reset_said_once)
{
	static const struct upmc_zone_loc loc = {"across", "f", "arch_x86_topdown_test.c", 3};
	struct retiring r = {0, 0, 0};
	struct upmc_profile *p = NULL;
	char *chrome, *table;

	NEEDS_EMULATION();
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(upmc_profile_open(&p, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	fake.perf_metrics = fields(64, 16, 48, 127);
	fake_run(255 * 1000);
	upmc_zone_begin(&loc);
	fake_switch_out();
	fake_run_on(0);
	fake_run(255 * 1000);
	upmc_zone_end();

	ASSERT(upmc_profile_zones(p, retiring_of, &r) == 1);
	EXPECT_EQ(r.short_nan, 1);
	chrome = export_text(p, UPMC_FORMAT_CHROME);
	table = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(chrome && table);
	EXPECT_EQ(occurrences(chrome, "topdown is not measured in 1 of the 1 zones"), 1);
	EXPECT_EQ(occurrences(chrome, "reset between the two snapshots"), 1);
	EXPECT_EQ(occurrences(chrome, "\"retiring\":"), 0);
	EXPECT_EQ(occurrences(table, "reset between the two snapshots"), 1);
	free(chrome);
	free(table);
	upmc_profile_close(p);
	uninstall();
}

/* A zone's retiring, by the zone's name. */
struct retiring_by_name {
	const char *name;
	double value;
	int zones;
};

static int retiring_named(const struct upmc_zone_info *z, void *arg)
{
	struct retiring_by_name *r = arg;

	if (!strcmp(z->loc->name, r->name) && z->metrics == 4) {
		r->value = z->metric[0];
		r->zones++;
	}
	return 0;
}

static double zone_retiring(struct upmc_profile *p, const char *name)
{
	struct retiring_by_name r = {name, -1, 0};

	if (upmc_profile_zones(p, retiring_named, &r) < 0 || r.zones != 1)
		return -1;
	return r.value;
}

/* Late in a long period a short zone is too short to measure; once the
 * profile's groups are reset, the same zone on the same thread measures
 * exactly, and a zone open across the reset has no topdown, said once. */
TEST(topdown, profile_reset_measures_short_zones)
{
	static const struct upmc_zone_loc late = {"late", "f", "arch_x86_topdown_test.c", 4};
	static const struct upmc_zone_loc after = {"after", "f", "arch_x86_topdown_test.c", 5};
	static const struct upmc_zone_loc across = {"across", "f", "arch_x86_topdown_test.c", 6};
	struct upmc_profile *p = NULL;
	unsigned resets;
	char *table;
	double r;

	NEEDS_EMULATION();
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT_MSG(upmc_profile_open(&p, "TopdownL1", NULL) == 0, "%s", upmc_last_error());
	fake.perf_metrics = fields(64, 16, 48, 127);
	fake_run(255 * 100000);
	upmc_zone_begin(&late);
	fake_run(255 * 100);
	upmc_zone_end();

	resets = fake.topdown_resets;
	ASSERT_MSG(upmc_profile_topdown_reset(p) == 0, "%s", upmc_last_error());
	EXPECT_EQ(fake.topdown_resets, resets + 1);
	upmc_zone_begin(&after);
	fake_run(255 * 100);
	upmc_zone_end();

	/* More slots after the reset than at the zone's begin: a reset that
	 * zeroed the counts too would leave no trace in the two snapshots. */
	upmc_zone_begin(&across);
	fake_run(255 * 1000);
	ASSERT(upmc_profile_topdown_reset(p) == 0);
	fake_run(255 * 500);
	upmc_zone_end();

	r = zone_retiring(p, "late");
	EXPECT_MSG(isnan(r), "late: retiring %.17g", r);
	r = zone_retiring(p, "after");
	EXPECT_MSG(r == 64.0 / 255, "after: retiring %.17g", r);
	r = zone_retiring(p, "across");
	EXPECT_MSG(isnan(r), "across: retiring %.17g", r);
	table = export_text(p, UPMC_FORMAT_TABLE);
	ASSERT(table);
	EXPECT_EQ(occurrences(table, "too short to measure"), 1);
	EXPECT_EQ(occurrences(table, "reset between the two snapshots"), 1);
	free(table);
	upmc_profile_close(p);
	uninstall();
}

/* A thread that opens the profile and records a zone, then waits for
 * main's reset before it exits. */
struct opener {
	struct upmc_profile *p;
	int err;
	sem_t opened, reset_done;
};

static void *opener_thread(void *arg)
{
	static const struct upmc_zone_loc loc = {"opener", "f", "arch_x86_topdown_test.c", 7};
	struct opener *o = arg;

	o->err = upmc_profile_open(&o->p, "TopdownL1", NULL);
	upmc_zone_begin(&loc);
	fake_run(255 * 100);
	upmc_zone_end();
	sem_post(&o->opened);
	sem_wait(&o->reset_done);
	return NULL;
}

/* The reset works from a thread outside the profile: it reaches a live
 * thread's group (one read(2) of it), and leaves alone the set of a
 * thread that exited, closed with it. */
TEST(topdown, profile_reset_from_another_thread)
{
	struct opener o;
	pthread_t tid;
	unsigned reads;

	NEEDS_EMULATION();
	memset(&o, 0, sizeof(o));
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	ASSERT(sem_init(&o.opened, 0, 0) == 0 && sem_init(&o.reset_done, 0, 0) == 0);
	ASSERT(pthread_create(&tid, NULL, opener_thread, &o) == 0);
	sem_wait(&o.opened);
	ASSERT_MSG(o.err == 0, "%s", "the profile did not open");
	reads = fake.reads;
	EXPECT_MSG(upmc_profile_topdown_reset(o.p) == 0, "%s", upmc_last_error());
	EXPECT_EQ(fake.reads, reads + 1);
	sem_post(&o.reset_done);
	ASSERT(pthread_join(tid, NULL) == 0);

	reads = fake.reads;
	EXPECT_MSG(upmc_profile_topdown_reset(o.p) == 0, "%s", upmc_last_error());
	EXPECT_EQ(fake.reads, reads);
	upmc_profile_close(o.p);
	sem_destroy(&o.opened);
	sem_destroy(&o.reset_done);
	uninstall();
}

#else

TEST(topdown, x86_only)
{
	SKIP("rdpmc is an x86 instruction; this is %s", UPMC_ARCH_NAME);
}

#endif

/* An Intel CPU of four PERF_METRICS fields (Ice Lake) lists no level 2
 * topdown event: TopdownL2 is refused with why, or, time only, each of its
 * metrics kept and said, while TopdownL1 is computed. Opening reads no
 * counter: this runs on any architecture. */
TEST(topdown, level2_on_a_level1_cpu_says_why)
{
	struct upmc_options time_only = {sizeof(time_only), UPMC_OPT_TIME_ONLY};
	struct upmc_set *set;
	unsigned j;

	fake_boot("x86-intel");
	EXPECT_EQ(upmc_open(&set, "TopdownL2", NULL), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "'heavy-operations' cannot be computed on this CPU");
	EXPECT_CONTAINS(upmc_last_error(), "Intel with 8 PERF_METRICS fields");
	EXPECT_CONTAINS(upmc_last_error(), "'topdown-heavy-ops'");
	ASSERT_MSG(upmc_open(&set, "TopdownL1,TopdownL2", &time_only) == 0, "%s",
	           upmc_last_error());
	ASSERT(upmc_metric_count(set) == 12);
	EXPECT_EQ(upmc_count(set), 5); /* TopdownL1's events alone */
	for (j = 0; j < 4; j++)
		EXPECT_MSG(!strcmp(upmc_metric_reason(set, j), ""), "%s: %s",
		           upmc_metric_name(set, j), upmc_metric_reason(set, j));
	for (j = 4; j < 12; j++)
		EXPECT_CONTAINS(upmc_metric_reason(set, j), "cannot be computed on this CPU (Intel "
		                                            "with 8 PERF_METRICS fields");
	upmc_close(set);
}

/* A NULL profile, and one that reads no topdown in user space (a count;
 * topdown by read(2) alone, which resets at each read; no spec): refused
 * with why. Resetting reads no counter: any architecture. */
TEST(topdown, profile_reset_refused)
{
	struct upmc_profile_options syscall = {sizeof(syscall), UPMC_OPT_FORCE_SYSCALL, 0, 0, 0};
	static const char *const specs[] = {"cycles", "TopdownL1", NULL};
	struct upmc_profile *p = NULL;
	unsigned i;

	EXPECT_EQ(upmc_profile_topdown_reset(NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "the profile is NULL");
	fake_boot("x86-intel");
	for (i = 0; i < 3; i++) {
		ASSERT_MSG(upmc_profile_open(&p, specs[i], i == 1 ? &syscall : NULL) == 0, "%s",
		           upmc_last_error());
		EXPECT_EQ(upmc_profile_topdown_reset(p), -EOPNOTSUPP);
		EXPECT_CONTAINS(upmc_last_error(), "reads no Intel topdown metric in user space");
		upmc_profile_close(p);
	}
}
