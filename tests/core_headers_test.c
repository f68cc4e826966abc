/* SPDX-License-Identifier: MIT */
/*
 * The public headers: strict C11 and C++17 builds of them (tests/headers),
 * arch headers that refuse direct inclusion, the generic fallback, and the
 * arm64 counter table (every index reads its own register).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/headers/headers.h"
#include "tests/upmc_test.h"

#define INCLUDES "-I lib/include -I arch/x86 -I arch/arm64 -I arch/generic"

TEST(headers, strict_c11_and_cxx17_builds_work)
{
	EXPECT_EQ(header_c11_max_counters(), 32);
	EXPECT_EQ(header_cxx17_max_counters(), 32);
	EXPECT_EQ_U64(header_c11_ticks_to_ns(12345), 12345);
	EXPECT_EQ_U64(header_cxx17_ticks_to_ns(12345), 12345);
	header_c11_zones(); /* outside a profile: nothing happens */
	header_cxx17_zones();
}

/* Runs a shell command, with $T a directory of this test's own (Bazel's
 * TEST_TMPDIR: runs in parallel do not share files); its exit status, and
 * its output into out. */
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

TEST(headers, arch_headers_refuse_direct_inclusion)
{
	static const char *const headers[] = {"arch_x86.h", "arch_arm64.h", "arch_generic.h"};
	char cmd[512], out[4096];
	int i;

	if (access("/usr/bin/gcc", X_OK))
		SKIP("gcc is not installed here");
	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd),
		         "echo '#include <upmc/%s>' | gcc -fsyntax-only " INCLUDES " -x c - 2>&1",
		         headers[i]);
		EXPECT_MSG(run(cmd, out, sizeof(out)) != 0, "%s compiled on its own", headers[i]);
		EXPECT_CONTAINS(out, "include <upmc/upmc.h>, not an arch header");
	}
}

TEST(headers, generic_fallback_compiles)
{
	char out[4096];
	int status;

	if (access("/usr/bin/clang", X_OK))
		SKIP("clang is not installed (apt-get install clang): it builds for a third arch");
	/* On an architecture with no counter read, read.h picks the generic arch. */
	status = run("printf '#include <upmc/upmc.h>\\nconst char *arch = UPMC_ARCH_NAME;\\n' > "
	             "$T/upmc_generic.c && "
	             "clang --target=riscv64-unknown-linux-gnu -ffreestanding -std=c11 -pedantic "
	             "-Wall -Wextra -Werror -fsyntax-only " INCLUDES " $T/upmc_generic.c 2>&1 && "
	             "clang --target=riscv64-unknown-linux-gnu -ffreestanding -E -dM " INCLUDES
	             " $T/upmc_generic.c | grep 'define UPMC_ARCH_NAME'",
	             out, sizeof(out));
	EXPECT_MSG(status == 0, "%s", out);
	EXPECT_CONTAINS(out, "\"generic\"");
}

/* The mrs registers of one arm64 read, in table order, each with its
 * entry's offset in the table ("10:pmevcntr0_el0"). */
static int arm64_table(const char *flags, char *regs, size_t size)
{
	char cmd[1024], out[65536], *line;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd),
	         "printf '#include <upmc/upmc.h>\\nuint64_t f(uint32_t i) "
	         "{ return upmc_arch_read_counter(i); }\\n' > $T/upmc_arm64_table.c && "
	         "aarch64-linux-gnu-gcc -O2 %s -std=c11 -Wall -Werror " INCLUDES
	         " -c $T/upmc_arm64_table.c -o $T/upmc_arm64_table.o 2>&1 && "
	         "aarch64-linux-gnu-objdump -d $T/upmc_arm64_table.o",
	         flags);
	if (run(cmd, out, sizeof(out)) != 0)
		return -1;
	regs[0] = '\0';
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *r = strstr(line, "mrs\t");
		char *end;
		if (!r || !(r = strchr(r, ',')))
			continue;
		r += 2;
		end = r + strcspn(r, " \t\n");
		n += (size_t)snprintf(regs + n, size - n, "%lx:%.*s ", strtoul(line, NULL, 16),
		                      (int)(end - r), r);
	}
	return 0;
}

TEST(headers, arm64_table_reads_every_index_in_order)
{
	char want[2048] = "", regs[2048];
	static const char *const flags[] = {"", "-mbranch-protection=standard"};
	int i, k;

	if (access("/usr/bin/aarch64-linux-gnu-gcc", X_OK))
		SKIP("aarch64-linux-gnu-gcc is not installed: apt-get install "
		     "gcc-aarch64-linux-gnu "
		     "libc6-dev-arm64-cross");
	for (k = 0; k < 2; k++) {
		/* Entry 0 (index 0) has no read; index n is PMEVCNTR<n-1>, 32
		 * PMCCNTR; 16 bytes an entry in both tables, the mrs after the
		 * landing pad with BTI: a read through the other's table, the
		 * library's in the set, reads the same counter. */
		want[0] = '\0';
		for (i = 0; i <= 30; i++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want),
			         "%x:pmevcntr%d_el0 ", (i + 1) * 16 + 4 * k, i);
		snprintf(want + strlen(want), sizeof(want) - strlen(want), "%x:pmccntr_el0 ",
		         32 * 16 + 4 * k);
		ASSERT_MSG(arm64_table(flags[k], regs, sizeof(regs)) == 0,
		           "cross build failed (%s)", flags[k]);
		EXPECT_MSG(!strcmp(regs, want), "table %s:\n  got  %s\n  want %s", flags[k], regs,
		           want);
	}
}

/* Objects built with and without BTI, linked together, each keep their own
 * table: the two layouts differ, so one shared COMDAT group would read the
 * wrong counters in one of them. */
TEST(headers, arm64_bti_and_plain_objects_link_together)
{
	char out[4096];
	int status;

	if (access("/usr/bin/aarch64-linux-gnu-gcc", X_OK))
		SKIP("aarch64-linux-gnu-gcc is not installed: apt-get install "
		     "gcc-aarch64-linux-gnu libc6-dev-arm64-cross");
	status = run(
	        "for f in plain bti; do printf '#include <upmc/upmc.h>\\nuint64_t read_%s"
	        "(uint32_t i) { return upmc_arch_read_counter(i); }\\n' $f > $T/upmc_$f.c; "
	        "done && aarch64-linux-gnu-gcc -O2 -std=c11 -Werror " INCLUDES
	        " -c $T/upmc_plain.c -o $T/upmc_plain.o 2>&1 && "
	        "aarch64-linux-gnu-gcc -O2 -mbranch-protection=standard -std=c11 -Werror " INCLUDES
	        " -c $T/upmc_bti.c -o $T/upmc_bti.o 2>&1 && "
	        "printf 'int main(void) { return 0; }\\n' > $T/upmc_main.c && "
	        "aarch64-linux-gnu-gcc -static $T/upmc_main.c $T/upmc_plain.o $T/upmc_bti.o "
	        "-o $T/upmc_both 2>&1 && aarch64-linux-gnu-nm $T/upmc_both | "
	        "grep -c ' upmc_arm64_counters'",
	        out, sizeof(out));
	EXPECT_MSG(status == 0, "%s", out);
	EXPECT_MSG(atoi(out) == 2, "tables in the program: %s", out);
}

/*
 * Instructions on the x86 fast path, counted in gcc -O2's disassembly from
 * a function's entry to its first ret (the cold paths are laid out after
 * it): no machine here has a PMU to count them, and the count is what a
 * caller inlines.
 */
static int x86_fast_path(const char *function, int *count)
{
	char out[65536], *line;
	int in = 0;

	if (run("printf '#include <upmc/upmc.h>\\n"
	        "void read_one(struct upmc_set *s, uint64_t *v) { upmc_read_counter(s, 0, v); }\\n"
	        "void read_four(struct upmc_set *s, uint64_t *v) { upmc_read_n(s, v, 4); }\\n'"
	        " > $T/upmc_x86_path.c && gcc -O2 -std=c11 -Wall -Werror " INCLUDES
	        " -c $T/upmc_x86_path.c -o $T/upmc_x86_path.o 2>&1 && "
	        "objdump -d --no-show-raw-insn $T/upmc_x86_path.o",
	        out, sizeof(out)) != 0)
		return -1;
	*count = 0;
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		if (strstr(line, ">:"))
			in = strstr(line, function) != NULL;
		else if (in && strstr(line, "\tret")) {
			printf("x86 fast path of %s: %d instructions\n", function, *count);
			return 0;
		} else if (in && strchr(line, ':'))
			++*count;
	}
	return -1;
}

TEST(headers, x86_fast_paths_are_within_their_instruction_budget)
{
	int one, four;

	if (access("/usr/bin/gcc", X_OK) || access("/usr/bin/objdump", X_OK))
		SKIP("gcc or objdump is not installed here");
	ASSERT(x86_fast_path("<read_one>", &one) == 0);
	ASSERT(x86_fast_path("<read_four>", &four) == 0);
	/* The targets are 18 and 84; the ceilings keep both from growing, and
	 * print what they count. The single read's 18 rely on the arch header
	 * holding the page pointer in r8 (upmc_arch_hold_page()): given rsi,
	 * gcc copies the caller's value pointer out of it first. */
	printf("x86 targets: upmc_read_counter <= 18 (%s), upmc_read_n(4) <= 84 (%s)\n",
	       one <= 18 ? "met" : "missed", four <= 84 ? "met" : "missed");
	EXPECT_MSG(one <= 18, "upmc_read_counter: %d instructions (ceiling 18)", one);
	EXPECT_MSG(four <= 82, "upmc_read_n(4): %d instructions (ceiling 82)", four);
}
