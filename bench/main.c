/* SPDX-License-Identifier: MIT */
/* bazel run //bench:overhead -- [--json | --csv] [--repeats N] */
#include "bench/overhead.h"

int main(int argc, char **argv)
{
	return upmc_overhead_main(argc - 1, argv + 1, "overhead");
}
