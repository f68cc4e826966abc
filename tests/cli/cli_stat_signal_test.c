/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat` and signals, as a shell expects of a command that runs
 * another: ^C ends the command, then upmc reports and dies of SIGINT too
 * (so that a script's loop stops); SIGTERM to upmc reaches the command,
 * which would otherwise run on, orphaned; the report names the signal.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"
#include "tests/upmc_test.h"

TEST(cli_stat_signal, sigint_is_raised_again_after_the_report)
{
	struct cli_result r;

	/* ^C reaches the whole foreground group; the command dies of it */
	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "--", "sh", "-c", "kill -INT $$");
	EXPECT_EQ(r.signal, SIGINT);
	EXPECT_CONTAINS(r.err, "Performance counter stats for 'sh -c kill -INT $$'");
	EXPECT_CONTAINS(r.err, "was killed by signal 2 (Interrupt)");
	cli_result_free(&r);
	/* a command that handles ^C and exits: its status, no signal */
	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "--", "sh", "-c",
	        "trap 'exit 5' INT; kill -INT $$");
	EXPECT_EQ(r.signal, 0);
	EXPECT_EQ(r.status, 5);
	cli_result_free(&r);
	/* killed by a signal upmc did not get: an exit status, as before */
	CLI_RUN(r, NULL, "stat", "-e", "task-clock", "--", "sh", "-c", "kill -9 $$");
	EXPECT_EQ(r.signal, 0);
	EXPECT_EQ(r.status, 128 + 9);
	EXPECT_CONTAINS(r.err, "was killed by signal 9 (Killed)");
	cli_result_free(&r);
}

/* upmc in the background, its command writing its pid then sleeping; a
 * SIGTERM to upmc: upmc ends of it, after the command and its report. */
TEST(cli_stat_signal, sigterm_reaches_the_command)
{
	char pids[512], report[512], script[4096], out[256] = "";
	char *text;
	size_t got;
	FILE *p;

	cli_temp_name(pids, sizeof(pids), "pid");
	cli_temp_name(report, sizeof(report), "report");
	snprintf(script, sizeof(script),
	         "cli/upmc stat -e task-clock -- sh -c 'echo $$ > %s; exec sleep 60' 2> %s & "
	         "u=$!; i=0; "
	         "while [ ! -s %s ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; "
	         "kill -TERM $u; wait $u; echo \"upmc $?\"; c=$(cat %s); "
	         "if kill -0 $c 2>/dev/null; then echo orphan; kill -KILL $c; else echo gone; fi",
	         pids, report, pids, pids);
	p = popen(script, "r");
	ASSERT(p);
	got = fread(out, 1, sizeof(out) - 1, p);
	out[got] = '\0';
	pclose(p);
	EXPECT_CONTAINS(out, "upmc 143\n"); /* 128 + SIGTERM, from the shell */
	EXPECT_CONTAINS(out, "gone\n");
	text = cli_read_file(report);
	EXPECT_CONTAINS(text, "was killed by signal 15 (Terminated)");
	free(text);
	unlink(pids);
	unlink(report);
}

/* -r: ^C ends the runs; the report covers those that ran, and upmc dies of
 * SIGINT as after a single run. */
TEST(cli_stat_signal, ctrl_c_ends_the_runs)
{
	char counter[512], script[1200], *runs;
	struct cli_result r;

	cli_temp_name(counter, sizeof(counter), "runs");
	snprintf(script, sizeof(script), "echo run >> %s; kill -INT $$", counter);
	CLI_RUN(r, NULL, "stat", "-r", "5", "-e", "task-clock", "sh", "-c", script);
	EXPECT_EQ(r.signal, SIGINT);
	runs = cli_read_file(counter);
	EXPECT_MSG(runs && !strcmp(runs, "run\n"), "%s", runs ? runs : "(none)");
	EXPECT_CONTAINS(r.err, " Performance counter stats for 'sh -c echo run >> ");
	EXPECT(!strstr(r.err, " runs):"));
	free(runs);
	unlink(counter);
	cli_result_free(&r);
}
