/* SPDX-License-Identifier: MIT */
/*
 * What reading Intel topdown in user space costs: the instructions of the
 * pass that reads slots and PERF_METRICS (lib/core/topdown.h), beside those
 * of upmc_read_n() of two counters, counted in gcc -O2's x86-64
 * disassembly from a function's entry to its first ret (the cold paths are
 * laid out after it), as tests/core_headers_test.c counts the inline
 * readers: no machine here has a PMU to time them. The budget: at most 10
 * instructions more than the two-counter read.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/upmc_test.h"

/* Runs a shell command, with $T this test's own directory; its exit
 * status, and its output into out. */
static int run(const char *cmd, char *out, size_t size)
{
	char line[4096];
	FILE *p;
	size_t n = 0;
	int status;

	snprintf(line, sizeof(line), "T=\"${TEST_TMPDIR:-/tmp}\"; %s", cmd);
	p = popen(line, "r");
	if (!p)
		return -1;
	while (n + 1 < size && fgets(out + n, (int)(size - n), p))
		n += strlen(out + n);
	out[n] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Instructions of function in the listing, up to its first ret. */
static int fast_path(char *listing, const char *function)
{
	char *copy = strdup(listing), *line, *save = NULL;
	int in = 0, count = -1;

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, ">:")) {
			in = strstr(line, function) != NULL;
			count = in ? 0 : count;
		} else if (in && strstr(line, "\tret")) {
			break;
		} else if (in && strchr(line, ':')) {
			count++;
		}
	}
	free(copy);
	return line ? count : -1;
}

TEST(topdown_cost, slots_and_metrics_within_ten_of_two_counters)
{
	char out[65536];
	int two, topdown;

#if !defined(__x86_64__)
	SKIP("the budget is x86-64's (rdpmc); this is %s", UPMC_ARCH_NAME);
#endif
	if (access("/usr/bin/gcc", X_OK) || access("/usr/bin/objdump", X_OK))
		SKIP("gcc or objdump is not installed here");
	ASSERT_MSG(
	        run("printf '#include <upmc/upmc.h>\\n#include \"lib/core/topdown.h\"\\n"
	            "void read_two(struct upmc_set *s, uint64_t *v) { upmc_read_n(s, v, 2); }\\n"
	            "int read_topdown(const volatile struct upmc_perf_page *const *p, uint64_t "
	            "*v, struct upmc_topdown_regs *r) { return upmc_topdown_pass(p, 2, v, r); }\\n'"
	            " > $T/upmc_topdown_cost.c && gcc -O2 -std=c11 -Wall -Werror -I lib/include "
	            "-I arch/x86 -I . -c $T/upmc_topdown_cost.c -o $T/upmc_topdown_cost.o 2>&1 && "
	            "objdump -d --no-show-raw-insn $T/upmc_topdown_cost.o",
	            out, sizeof(out)) == 0,
	        "build failed: %s", out);
	two = fast_path(out, "<read_two>");
	topdown = fast_path(out, "<read_topdown>");
	ASSERT_MSG(two > 0 && topdown > 0, "no fast path found in:\n%s", out);
	printf("x86 fast paths: upmc_read_n(2) %d instructions, slots + PERF_METRICS %d (%+d; "
	       "budget +10)\n",
	       two, topdown, topdown - two);
	EXPECT_MSG(topdown - two <= 10,
	           "slots + PERF_METRICS: %d instructions, %d more than two counters (budget 10)",
	           topdown, topdown - two);
}
