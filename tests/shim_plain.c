/* SPDX-License-Identifier: MIT */
/*
 * The C test shim without GoogleTest, for builds without C++: the i686
 * cross build in tools/ci-platforms.sh links the simulated-kernel tests
 * with it. Runs every registered test in order but those named on the
 * command line (<suite>.<name>: too slow under an emulator, say), and
 * prints one line per test, PASS/FAIL/SKIP <suite>.<name>, with the failed
 * checks above it, and last "N passed, M failed, K skipped". Exit status 0
 * when none failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tests/upmc_test.h"

#define MAX_TESTS 256

static struct {
	const char *suite, *name;
	upmc_test_fn fn;
} tests[MAX_TESTS];
static int n_tests, failed, skipped;

void upmc_test_register(const char *suite, const char *name, upmc_test_fn fn, const char *file,
                        int line)
{
	(void)file;
	(void)line;
	if (n_tests < MAX_TESTS) {
		tests[n_tests].suite = suite;
		tests[n_tests].name = name;
		tests[n_tests++].fn = fn;
	}
}

int upmc_test_check(int ok, int fatal, const char *expr, const char *file, int line,
                    const char *fmt, ...)
{
	va_list ap;

	(void)fatal;
	if (ok)
		return 1;
	failed = 1;
	printf("%s:%d: check failed: %s\n  ", file, line, expr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return 0;
}

void upmc_test_skip(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s:%d: skipped: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	skipped = 1;
}

static int excluded(const char *suite, const char *name, int argc, char **argv)
{
	char full[256];
	int i;

	snprintf(full, sizeof(full), "%s.%s", suite, name);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], full))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int i, passes = 0, fails = 0, skips = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < n_tests; i++) {
		failed = skipped = 0;
		if (excluded(tests[i].suite, tests[i].name, argc, argv))
			printf("skipped: excluded on the command line\n"), skipped = 1;
		else
			tests[i].fn();
		printf("%s %s.%s\n",
		       failed    ? "FAIL"
		       : skipped ? "SKIP"
		                 : "PASS",
		       tests[i].suite, tests[i].name);
		fails += failed;
		skips += !failed && skipped;
		passes += !failed && !skipped;
	}
	printf("%d passed, %d failed, %d skipped\n", passes, fails, skips);
	return fails ? 1 : 0;
}
