/* SPDX-License-Identifier: MIT */
/*
 * upmc_measure_call() on macOS (os/macos/call_macos.c) over the fake
 * kperf/kperfdata: counted as root, timed only without, errors before the
 * call never run it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <time.h>

#include <upmc/call.h>

#include "tests/macos/fake_kpc.h"
#include "tests/upmc_test.h"

static int calls;

static void work(void *arg)
{
	struct timespec ts = {0, 2000000};

	(void)arg;
	calls++;
	nanosleep(&ts, NULL);
}

TEST(call, counted_as_root)
{
	struct upmc_call_result r;

	fake_reset();
	calls = 0;
	ASSERT_MSG(upmc_measure_call("cycles,branches", work, NULL, &r) == 0, "%s",
	           upmc_last_error());
	EXPECT_EQ(calls, 1);
	EXPECT_EQ(r.n, 2);
	EXPECT_EQ(r.counted, 2);
	/* one kpc read before the call and one after: one step each */
	EXPECT_EQ_U64(r.counter[0].value, fake.step[0]);
	EXPECT_EQ_U64(r.counter[1].value, fake.step[2]);
	EXPECT_EQ(r.counter[1].path, UPMC_PATH_SYSCALL);
	EXPECT_CONTAINS(r.counter[1].reason, "INST_BRANCH");
	EXPECT_EQ(strcmp(r.counter[1].name, "branches"), 0);
	EXPECT_EQ(r.cpu, -1);
	EXPECT(r.elapsed_ns >= 2000000);
	EXPECT_EQ_U64(r.context_switches, UPMC_NOT_COUNTED);
	EXPECT_CONTAINS(r.summary, "2 of 2 counters by kpc");
	EXPECT_EQ(fake.counting, 0); /* the set is closed again */
}

TEST(call, timed_without_root)
{
	struct upmc_call_result r;

	fake_reset();
	fake.root = 0;
	calls = 0;
	ASSERT(upmc_measure_call("cycles,instructions", work, NULL, &r) == 0);
	EXPECT_EQ(calls, 1);
	EXPECT_EQ(r.counted, 0);
	EXPECT_EQ(r.counter[0].path, UPMC_PATH_UNAVAILABLE);
	EXPECT_EQ_U64(r.counter[1].value, UPMC_NOT_COUNTED);
	EXPECT_CONTAINS(r.counter[1].reason, "sudo");
	EXPECT_CONTAINS(r.summary, "time only: macOS kpc needs root");
	EXPECT(r.elapsed_ns >= 2000000);
}

TEST(call, partly_counted)
{
	struct upmc_call_result r;

	fake_reset();
	ASSERT(upmc_measure_call("cycles,cache-misses", work, NULL, &r) == 0);
	EXPECT_EQ(r.counted, 1);
	EXPECT_EQ(r.counter[1].path, UPMC_PATH_UNAVAILABLE);
	EXPECT_CONTAINS(r.summary, "not counted: 'cache-misses' has no event");
}

TEST(call, read_failing_after_the_call)
{
	struct upmc_call_result r;

	fake_reset();
	fake.fail[F_GET_THREAD_COUNTERS] = EIO;
	fake.fail_after = 2; /* the reads at open and before the call work */
	calls = 0;
	ASSERT(upmc_measure_call("cycles", work, NULL, &r) == 0);
	EXPECT_EQ(calls, 1);
	EXPECT_EQ(r.counted, 0);
	EXPECT_EQ_U64(r.counter[0].value, UPMC_NOT_COUNTED);
	EXPECT_CONTAINS(r.counter[0].reason, "kpc_get_thread_counters failed");
	EXPECT_EQ(fake.counting, 0);
}

TEST(call, errors_before_the_call)
{
	struct upmc_call_result r;

	fake_reset();
	calls = 0;
	EXPECT_EQ(upmc_measure_call("cylces", work, NULL, &r), -ENOENT);
	EXPECT_EQ(upmc_measure_call("cycles", NULL, NULL, &r), -EINVAL);
	EXPECT_EQ(upmc_measure_call("cycles", work, NULL, NULL), -EINVAL);
	EXPECT_EQ(calls, 0);
	ASSERT(upmc_measure_call(NULL, work, NULL, &r) == 0);
	EXPECT_EQ(calls, 1);
	EXPECT_EQ(r.n, 0);
	EXPECT_CONTAINS(r.summary, "timed only");
}
