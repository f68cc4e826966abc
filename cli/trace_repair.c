/* SPDX-License-Identifier: MIT */
/* `upmc trace-repair FILE`: a zone stream's Perfetto file that a kill left
 * ending inside a packet, cut back to its last whole packet
 * (upmc_trace_repair()); one line says what was cut. */
#include <stdio.h>
#include <string.h>

#include <upmc/zone.h>

#include "cli/cli.h"

static const char repair_usage[] =
        "usage: upmc trace-repair FILE\n"
        "  cuts a Perfetto trace that ends inside a packet (a zone stream's file after\n"
        "  its process was killed) back to its last whole packet; a whole trace stays\n"
        "  as it is, and a file that is not a trace cut short is refused, untouched\n";

static void print_repair(const char *path, const struct upmc_trace_repair_info *info)
{
	char packets[32], bytes[32], removed[32];

	cli_thousands(packets, sizeof(packets), info->packets);
	cli_thousands(bytes, sizeof(bytes), info->bytes);
	cli_thousands(removed, sizeof(removed), info->bytes_removed);
	if (info->bytes_removed)
		printf("%s: cut %s bytes of a packet cut short; %s whole packets kept (%s bytes)\n",
		       path, removed, packets, bytes);
	else
		printf("%s: whole, %s packets (%s bytes); nothing cut\n", path, packets, bytes);
}

int cli_trace_repair(int argc, char **argv)
{
	struct upmc_trace_repair_info info = {sizeof(info), 0, 0, 0};
	const char *path = NULL;
	int i, options = 1;

	for (i = 0; i < argc; i++) {
		if (options && !strcmp(argv[i], "--")) {
			options = 0;
		} else if (options && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
			fputs(repair_usage, stdout);
			return 0;
		} else if (options && argv[i][0] == '-' && argv[i][1]) {
			return cli_usage_error("trace-repair: unknown option '%s'", argv[i]);
		} else if (path) {
			return cli_usage_error("trace-repair: one FILE at a time ('%s' and '%s')",
			                       path, argv[i]);
		} else {
			path = argv[i];
		}
	}
	if (!path)
		return cli_usage_error("trace-repair: no FILE given");
	if (upmc_trace_repair(path, &info) < 0) {
		fprintf(stderr, "upmc trace-repair: %s\n", upmc_last_error());
		return CLI_EXIT_FAILURE;
	}
	print_repair(path, &info);
	return 0;
}
