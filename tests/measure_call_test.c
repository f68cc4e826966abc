/* SPDX-License-Identifier: MIT */
/* upmc_measure_call() on Linux: the call runs once, pinned and timed. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <upmc/call.h>

#include "tests/linux_util.h"
#include "tests/upmc_test.h"

struct work {
	int calls;
	int cpu;
	char *mem;
	size_t pages;
};

static void touch_pages(void *arg)
{
	struct work *w = arg;
	size_t page = (size_t)sysconf(_SC_PAGESIZE), i;

	w->calls++;
	w->cpu = sched_getcpu();
	for (i = 0; i < w->pages; i++)
		w->mem[i * page] = 1;
}

TEST(call, runs_once_pinned_and_counts_what_it_can)
{
	const size_t pages = 32, page = (size_t)sysconf(_SC_PAGESIZE);
	struct work w = {0, -1, NULL, pages};
	struct upmc_call_result r;
	int fds = open_fd_count();

	w.mem = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
	             0);
	ASSERT(w.mem != MAP_FAILED);
	ASSERT_MSG(upmc_measure_call("page-faults,cycles", touch_pages, &w, &r) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(w.calls, 1);
	EXPECT(r.cpu >= 0 && r.cpu == w.cpu);
	EXPECT(r.elapsed_ns > 0);
	EXPECT_EQ(r.n, 2);
	EXPECT(!strcmp(r.counter[0].name, "page-faults"));
	EXPECT_MSG(r.counter[0].value >= pages, "%llu faults for %zu fresh pages",
	           (unsigned long long)r.counter[0].value, pages);
	if (r.counter[1].path == UPMC_PATH_UNAVAILABLE) {
		EXPECT(r.counter[1].value == UPMC_NOT_COUNTED);
		EXPECT(r.counter[1].reason[0] != '\0');
		EXPECT_EQ(r.counted, 1);
	}
	EXPECT_CONTAINS(r.summary, "counters around the call");
	munmap(w.mem, pages * page);
	EXPECT_EQ(open_fd_count(), fds);
}

TEST(call, no_spec_still_times)
{
	struct work w = {0, -1, NULL, 0};
	struct upmc_call_result r;

	ASSERT(upmc_measure_call(NULL, touch_pages, &w, &r) == 0);
	EXPECT_EQ(w.calls, 1);
	EXPECT_EQ(r.n, 0);
	EXPECT_CONTAINS(r.summary, "timed only");
}

TEST(call, bad_input)
{
	struct work w = {0, -1, NULL, 0};
	struct upmc_call_result r;

	EXPECT_EQ(upmc_measure_call("cycles", NULL, &w, &r), -EINVAL);
	EXPECT_EQ(upmc_measure_call("cycles", touch_pages, &w, NULL), -EINVAL);
	EXPECT_EQ(upmc_measure_call("cycels", touch_pages, &w, &r), -ENOENT);
	EXPECT_CONTAINS(upmc_last_error(), "did you mean 'cycles'");
	EXPECT_EQ(w.calls, 0);
}
