/* SPDX-License-Identifier: MIT */
/*
 * Zones counted by hardware events this machine does not have: the library
 * linked over the fake kernel (tests/fake/README.md), booted on the fixture
 * x86-intel, for `upmc stat --zones -e cycles,instructions,branches`:
 *
 *   zone_fake_workload request   no profile of its own: stat's request
 *                                opens one at the first zone
 *   zone_fake_workload SPEC      its own profile of SPEC (a failed open
 *                                exits 4), its table printed at the end
 *
 * 10 "outer" zones of 1000 ns of the fake's time, each with 3 "inner" of
 * 500 ns. Every event counts 1 per ns and the fake's system calls take no
 * time, so each counter totals 25000 over outer's calls and 15000 over
 * inner's. Exits 0.
 */
#include <stdio.h>
#include <string.h>

#include "tests/fake/fake_kernel.h"
#include <upmc/zone.h>

static void zones(void)
{
	int i, k;

	for (i = 0; i < 10; i++) {
		UPMC_ZONE("outer");
		fake_run(1000);
		for (k = 0; k < 3; k++) {
			UPMC_ZONE("inner");
			fake_run(500);
		}
	}
}

int main(int argc, char **argv)
{
	struct upmc_profile *p = NULL;
	int err = 0;

	if (argc != 2)
		return 2;
	fake_boot("x86-intel");
	fake.syscall_ns = 0;
	if (strcmp(argv[1], "request") && upmc_profile_open(&p, argv[1], NULL) < 0) {
		fprintf(stderr, "zone_fake_workload: %s\n", upmc_last_error());
		return 4;
	}
	zones();
	if (p) {
		err = upmc_profile_print(p, stdout);
		upmc_profile_close(p);
	}
	return err < 0 ? 5 : 0;
}
