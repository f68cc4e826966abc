/* SPDX-License-Identifier: MIT */
/* `upmc trace-repair FILE`: a stream's file cut inside its last packet is
 * cut back to its last whole packet, with a line that says what was cut and
 * exit status 0; a whole trace stays; a file that is no trace, or none at
 * all, is exit status 1 with a sentence, and the file as it was. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <upmc/zone.h>

#include "tests/cli/cli_run.h"
#include "tests/upmc_test.h"

static const struct upmc_zone_loc step_loc = {"step", "main", "game.c", 1};

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* A time-only stream of a few zones, whole, at path. */
static int stream_file(const char *path)
{
	struct upmc_profile *p = NULL;
	int k;

	if (upmc_profile_open(&p, NULL, NULL) < 0 || upmc_profile_stream(p, path, 3600000) < 0)
		return -1;
	for (k = 0; k < 10; k++) {
		upmc_zone_begin(&step_loc);
		upmc_zone_end();
	}
	if (upmc_profile_stream_end(p) < 0)
		return -1;
	upmc_profile_close(p);
	return 0;
}

TEST(cli_trace_repair, a_cut_packet_is_cut_off_and_said)
{
	struct cli_result r;
	char path[512];
	long whole;

	cli_temp_name(path, sizeof(path), "upmc-repair.pftrace");
	ASSERT_MSG(stream_file(path) == 0, "%s", upmc_last_error());
	whole = file_size(path);
	ASSERT(whole > 3 && truncate(path, whole - 3) == 0); /* inside the last packet */
	CLI_RUN(r, NULL, "trace-repair", path);
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, path);
	EXPECT_CONTAINS(r.out, "of a packet cut short;");
	EXPECT_CONTAINS(r.out, "whole packets kept");
	EXPECT_MSG(r.err[0] == '\0', "%s", r.err);
	EXPECT(file_size(path) > 0 && file_size(path) < whole - 3);
	cli_result_free(&r);
	whole = file_size(path);
	CLI_RUN(r, NULL, "trace-repair", path);
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, ": whole, ");
	EXPECT_CONTAINS(r.out, "nothing cut");
	EXPECT_EQ(file_size(path), whole);
	cli_result_free(&r);
	unlink(path);
}

TEST(cli_trace_repair, what_it_cannot_repair_is_an_error)
{
	static const char text[] = "not a trace\n";
	struct cli_result r;
	char path[512];
	FILE *f;

	cli_temp_name(path, sizeof(path), "upmc-repair.txt");
	f = fopen(path, "w");
	ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0);
	CLI_RUN(r, NULL, "trace-repair", path);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc trace-repair: ");
	EXPECT_CONTAINS(r.err, "is not a Perfetto trace");
	EXPECT_CONTAINS(r.err, "left as it was");
	EXPECT(r.out[0] == '\0');
	EXPECT_EQ(file_size(path), (long)strlen(text));
	cli_result_free(&r);
	unlink(path);
	CLI_RUN(r, NULL, "trace-repair", path);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "No such file");
	cli_result_free(&r);
}

TEST(cli_trace_repair, a_wrong_command_line_is_exit_status_2)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "trace-repair");
	EXPECT_EQ(r.status, 2);
	EXPECT_CONTAINS(r.err, "trace-repair: no FILE given");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "trace-repair", "a.pftrace", "b.pftrace");
	EXPECT_EQ(r.status, 2);
	EXPECT_CONTAINS(r.err, "one FILE at a time");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "trace-repair", "--bogus");
	EXPECT_EQ(r.status, 2);
	EXPECT_CONTAINS(r.err, "unknown option '--bogus'");
	cli_result_free(&r);
	CLI_RUN(r, NULL, "trace-repair", "--help");
	EXPECT_EQ(r.status, 0);
	EXPECT_CONTAINS(r.out, "usage: upmc trace-repair FILE");
	cli_result_free(&r);
}
