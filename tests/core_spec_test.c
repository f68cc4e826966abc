/* SPDX-License-Identifier: MIT */
/* Event specs: names, aliases, modifiers, and every kind of bad input. */
#include <errno.h>
#include <string.h>

#include "lib/core/internal.h"
#include "tests/upmc_test.h"

static struct upmc_event ev[UPMC_MAX_COUNTERS];

static int parse(const char *spec, unsigned flags)
{
	return upmc_parse_spec(spec, flags, ev, UPMC_MAX_COUNTERS);
}

TEST(spec, generic_hardware_names)
{
	ASSERT(parse("cycles,instructions,branch-misses,ref-cycles,stalled-cycles-backend", 0) ==
	       5);
	EXPECT_EQ(ev[0].type, UPMC_TYPE_HARDWARE);
	EXPECT_EQ(ev[0].config, 0);
	EXPECT_EQ(ev[1].config, 1);
	EXPECT_EQ(ev[2].config, 5);
	EXPECT_EQ(ev[3].config, 9);
	EXPECT_EQ(ev[4].config, 8);
	EXPECT(!strcmp(ev[2].name, "branch-misses"));
}

TEST(spec, aliases_and_case)
{
	ASSERT(parse("cpu-cycles,branch-instructions,CYCLES,Branches,faults,cs,migrations", 0) ==
	       7);
	EXPECT_EQ(ev[0].config, 0);
	EXPECT_EQ(ev[1].config, 4);
	EXPECT_EQ(ev[2].config, 0);
	EXPECT_EQ(ev[3].config, 4);
	EXPECT_EQ(ev[4].type, UPMC_TYPE_SOFTWARE);
	EXPECT_EQ(ev[4].config, 2);
	EXPECT_EQ(ev[5].config, 3);
	EXPECT_EQ(ev[6].config, 4);
}

TEST(spec, cache_names)
{
	ASSERT(parse("L1-dcache-load-misses,LLC-loads,dTLB-store-misses,L1-icache-prefetches", 0) ==
	       4);
	EXPECT_EQ(ev[0].type, UPMC_TYPE_HW_CACHE);
	EXPECT_EQ(ev[0].config, 0x10000); /* L1D | read << 8 | miss << 16 */
	EXPECT_EQ(ev[1].config, 2);       /* LL | read | access */
	EXPECT_EQ(ev[2].config, 0x10103); /* DTLB | write | miss */
	EXPECT_EQ(ev[3].config, 0x201);   /* L1I | prefetch | access */
}

TEST(spec, software_names)
{
	ASSERT(parse("cpu-clock,task-clock,page-faults,context-switches,cpu-migrations,"
	             "minor-faults,major-faults",
	             0) == 7);
	for (int i = 0; i < 7; i++) {
		EXPECT_EQ(ev[i].type, UPMC_TYPE_SOFTWARE);
		EXPECT_EQ(ev[i].config, i);
	}
}

TEST(spec, user_only_by_default)
{
	ASSERT(parse("cycles,page-faults", 0) == 2);
	EXPECT(!ev[0].exclude_user && ev[0].exclude_kernel);
	EXPECT(!ev[1].exclude_user && ev[1].exclude_kernel);
	ASSERT(parse("cycles", UPMC_OPT_KERNEL) == 1);
	EXPECT(!ev[0].exclude_user && !ev[0].exclude_kernel);
}

TEST(spec, kernel_side_software_events_count_the_kernel)
{
	/* Counted in user mode only they would read a silent 0. */
	ASSERT(parse("context-switches,cpu-migrations", 0) == 2);
	EXPECT(!ev[0].exclude_kernel && !ev[1].exclude_kernel);
	ASSERT(parse("context-switches:u", 0) == 1);
	EXPECT(ev[0].exclude_kernel);
}

TEST(spec, modifiers)
{
	ASSERT(parse("cycles:u,cycles:k,cycles:uk,cycles:ku", 0) == 4);
	EXPECT(!ev[0].exclude_user && ev[0].exclude_kernel);
	EXPECT(ev[1].exclude_user && !ev[1].exclude_kernel);
	EXPECT(!ev[2].exclude_user && !ev[2].exclude_kernel);
	EXPECT(!ev[3].exclude_user && !ev[3].exclude_kernel);
	EXPECT(!strcmp(ev[1].name, "cycles:k"));
	ASSERT(parse("cycles:u", UPMC_OPT_KERNEL) == 1);
	EXPECT(ev[0].exclude_kernel);
}

TEST(spec, whitespace_around_items)
{
	ASSERT(parse("  cycles , instructions:u\t", 0) == 2);
	EXPECT(!strcmp(ev[0].name, "cycles"));
	EXPECT(!strcmp(ev[1].name, "instructions:u"));
}

TEST(spec, unknown_name_suggests_the_closest)
{
	EXPECT_EQ(parse("cycles,branch-mises", 0), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(),
	                "event 'branch-mises' unknown; did you mean 'branch-misses'");
	EXPECT_EQ(parse("instrutions", 0), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "did you mean 'instructions'");
	EXPECT_EQ(parse("L1-dcache-load-mises", 0), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "'L1-dcache-load-misses'");
}

TEST(spec, three_suggestions)
{
	const char *e;

	EXPECT_EQ(parse("cycle", 0), -ENOENT);
	e = upmc_last_error();
	EXPECT_CONTAINS(e, "'cycles'");
	EXPECT_MSG(strstr(e, "', '") && strstr(e, "' or '"), "expected three names: %s", e);
}

TEST(spec, empty_and_malformed)
{
	EXPECT_EQ(parse(NULL, 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "NULL");
	EXPECT_EQ(parse("", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "event spec is empty");
	EXPECT_EQ(parse("   ", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "event spec is empty");
	EXPECT_EQ(parse("cycles,,instructions", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "empty item at position 2");
	EXPECT_EQ(parse("cycles,", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "empty item at position 2");
	EXPECT_EQ(parse("cycles:x", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "unknown modifier ':x'");
	EXPECT_EQ(parse("cycles:uu", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "unknown modifier");
	EXPECT_EQ(parse("cycles:", 0), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "empty modifier");
}

TEST(spec, too_long_name)
{
	char name[200];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_EQ(parse(name, 0), -ENAMETOOLONG);
	EXPECT_CONTAINS(upmc_last_error(), "too long");
}

TEST(spec, too_many_events)
{
	char spec[64 * 8] = "";
	int i;

	for (i = 0; i < UPMC_MAX_COUNTERS + 1; i++)
		strcat(spec, i ? ",cycles" : "cycles");
	EXPECT_EQ(parse(spec, 0), -E2BIG);
	EXPECT_CONTAINS(upmc_last_error(), "more than 32 events");
	spec[strlen(spec) - strlen(",cycles")] = '\0';
	EXPECT_EQ(parse(spec, 0), UPMC_MAX_COUNTERS);
}

TEST(spec, open_rejects_bad_arguments)
{
	struct upmc_options small = {4, 0}, unknown = {sizeof(small), 1u << 30};
	struct upmc_options conflict = {sizeof(small),
	                                UPMC_OPT_FORCE_SYSCALL | UPMC_OPT_REQUIRE_USER_READ};
	struct upmc_set *set = (struct upmc_set *)&small; /* must be reset to NULL */

	EXPECT_EQ(upmc_open(NULL, "cycles", NULL), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "NULL");
	EXPECT_EQ(upmc_open(&set, "cycles", &small), -EINVAL);
	EXPECT(set == NULL);
	EXPECT_CONTAINS(upmc_last_error(), "sizeof(struct upmc_options)");
	EXPECT_EQ(upmc_open(&set, "cycles", &unknown), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "unknown bits");
	EXPECT_EQ(upmc_open(&set, "cycles", &conflict), -EINVAL);
	EXPECT_CONTAINS(upmc_last_error(), "contradict");
	EXPECT_EQ(upmc_open(&set, "branch-mises", NULL), -ENOENT);
	EXPECT(set == NULL);
	EXPECT_EQ(upmc_open_timer(NULL), -EINVAL);
}

TEST(spec, null_set_accessors)
{
	EXPECT(upmc_counter_name(NULL, 0) == NULL);
	EXPECT_EQ(upmc_counter_path(NULL, 0), -EINVAL);
	EXPECT(upmc_counter_reason(NULL, 0) == NULL);
	EXPECT(upmc_summary(NULL) == NULL);
	EXPECT_EQ(upmc_clock_source(NULL), -EINVAL);
	EXPECT_EQ(upmc_read_slow(NULL, NULL), -EINVAL);
	upmc_close(NULL);
}

struct listing {
	int seen, cycles_ok, cache_ok, software_ok, stop_after;
};

static int collect(const struct upmc_event_info *info, void *arg)
{
	struct listing *l = arg;

	l->seen++;
	if (!strcmp(info->name, "cycles"))
		l->cycles_ok = !strcmp(info->pmu, "hardware") && info->desc[0];
	if (!strcmp(info->name, "L1-dcache-load-misses"))
		l->cache_ok = !strcmp(info->pmu, "cache");
	if (!strcmp(info->name, "task-clock"))
		l->software_ok = !strcmp(info->pmu, "software");
	return l->stop_after && l->seen == l->stop_after;
}

TEST(spec, list_events)
{
	struct listing l = {0, 0, 0, 0, 0};
	int n = upmc_list_events(collect, &l);

	EXPECT(n > 60);
	EXPECT_EQ(l.seen, n);
	EXPECT(l.cycles_ok && l.cache_ok && l.software_ok);
	memset(&l, 0, sizeof(l));
	l.stop_after = 3;
	EXPECT_EQ(upmc_list_events(collect, &l), 3);
	EXPECT_EQ(upmc_list_events(NULL, NULL), -EINVAL);
}
