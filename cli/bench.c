/* SPDX-License-Identifier: MIT */
/* `upmc bench`: the overhead benchmark of //bench:overhead, linked in. */
#include "bench/overhead.h"
#include "cli/cli.h"

int cli_bench(int argc, char **argv)
{
	return upmc_overhead_main(argc, argv, "upmc bench");
}
