/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the event spec parser: generic names, raw codes,
 * modifiers, pmu/term=value/ specs (against a fixture sysfs tree), the
 * "did you mean" search. Built and run by tools/fuzz-spec.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/internal.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("UPMC_FS_ROOT", "tests/fixtures/x86-rdpmc-off", 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct upmc_event events[UPMC_MAX_COUNTERS];
	unsigned flags;
	char *spec;

	if (size < 1 || size > 4096)
		return 0;
	flags = data[0] & (UPMC_OPT_KERNEL | UPMC_OPT_TIME_ONLY);
	spec = malloc(size);
	if (!spec)
		return 0;
	memcpy(spec, data + 1, size - 1);
	spec[size - 1] = '\0';
	upmc_parse_spec(spec, flags, events, UPMC_MAX_COUNTERS);
	free(spec);
	return 0;
}
