/* SPDX-License-Identifier: MIT */
/*
 * What upmc writes and cannot: a full disk (/dev/full, a file size limit),
 * a closed stdout, a reader that has gone. The exit status says so (1, with
 * a sentence on stderr), and `stat -o FILE` never leaves a half-written
 * file or a temporary behind.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/upmc_test.h"

/* The commands that print to stdout, each more than a line. */
static const char *const printing[][3] = {
        {"list", NULL},           {"list", "--json", NULL}, {"info", NULL},
        {"info", "--json", NULL}, {"--help", NULL},
};
#define N_PRINTING (sizeof(printing) / sizeof(printing[0]))

/* Each printing command with stdout `out`: exit 1 and the sentence. */
static void expect_each_fails(int out, const char *because)
{
	struct cli_how how = {NULL, out, 0, 0};
	struct cli_result r;
	size_t i;

	for (i = 0; i < N_PRINTING; i++) {
		ASSERT(cli_run_with(&r, &how, printing[i]) == 0);
		EXPECT_MSG(r.status == 1, "upmc %s %s: exit %d", printing[i][0],
		           printing[i][1] ? printing[i][1] : "", r.status);
		EXPECT_CONTAINS(r.err, "upmc: writing to standard output failed: ");
		EXPECT_CONTAINS(r.err, because);
		cli_result_free(&r);
	}
}

TEST(cli_write, stdout_on_a_full_disk)
{
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC);

	if (full < 0)
		SKIP("no /dev/full here");
	expect_each_fails(full, "No space left on device");
	close(full);
}

TEST(cli_write, stdout_closed)
{
	expect_each_fails(CLI_OUT_CLOSED, "Bad file descriptor");
}

/* A pipe whose reader has gone: SIGPIPE ends upmc, as it ends most
 * programs; where SIGPIPE is ignored, the failed write is exit 1. */
TEST(cli_write, reader_gone)
{
	const char *const list[] = {"list", NULL};
	struct cli_how how = {NULL, -1, 0, 0};
	struct cli_result r;
	int p[2];

	ASSERT(pipe2(p, O_CLOEXEC) == 0);
	close(p[0]);
	how.out = p[1];
	ASSERT(cli_run_with(&r, &how, list) == 0);
	EXPECT_EQ(r.signal, SIGPIPE);
	cli_result_free(&r);
	how.ignore_sigpipe = 1;
	ASSERT(cli_run_with(&r, &how, list) == 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc: writing to standard output failed: Broken pipe");
	cli_result_free(&r);
	close(p[1]);
}

/* A fresh directory for one test's files, into dir. */
static int fresh_dir(char *dir, size_t size)
{
	cli_temp_name(dir, size, "upmc-write");
	return mkdir(dir, 0700);
}

/* The names in dir other than . and .., joined by spaces, into buf. */
static void names_in(const char *dir, char *buf, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t len = 0;

	buf[0] = '\0';
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && len + 1 < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
			                        e->d_name);
	if (d)
		closedir(d);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "we");

	ASSERT(f);
	fputs(text, f);
	ASSERT(fclose(f) == 0);
	ASSERT(chmod(path, mode) == 0);
}

TEST(cli_write, stat_report_to_dev_full)
{
	const char *const args[] = {"stat", "--json", "-o", "/dev/full", "--", "true", NULL};
	struct cli_how how = {NULL, CLI_OUT_CAPTURED, 0, 0};
	struct cli_result r;
	struct stat st;

	if (stat("/dev/full", &st) < 0 || !S_ISCHR(st.st_mode))
		SKIP("no /dev/full here");
	ASSERT(cli_run_with(&r, &how, args) == 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err,
	                "upmc stat: writing the report to '/dev/full' failed: No space left on "
	                "device");
	/* a device is written in place, never replaced by a file */
	EXPECT(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode));
	cli_result_free(&r);
}

/* A disk that fills up under the report (the file size limit): the old
 * report stays whole, no temporary is left, and upmc says so. */
TEST(cli_write, stat_report_on_a_full_disk_keeps_the_old_file)
{
	char dir[512], path[600], names[256], *text;
	const char *const args[] = {"stat", "--json", "-o", path, "--", "true", NULL};
	struct cli_how how = {NULL, CLI_OUT_CAPTURED, 512, 0};
	struct cli_result r;

	ASSERT(fresh_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	write_file(path, "{\"old\": true}\n", 0644);
	ASSERT(cli_run_with(&r, &how, args) == 0); /* the default events: more than 512 bytes */
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc stat: writing the report to '");
	EXPECT_CONTAINS(r.err, "report.json' failed: File too large");
	text = cli_read_file(path);
	EXPECT_MSG(text && !strcmp(text, "{\"old\": true}\n"), "the old report became: %s",
	           text ? text : "(unreadable)");
	free(text);
	names_in(dir, names, sizeof(names));
	EXPECT_MSG(!strcmp(names, "report.json"), "files left: %s", names);
	cli_result_free(&r);
	unlink(path);
	rmdir(dir);
}

/* Written whole, the report replaces the old one and keeps its mode. */
TEST(cli_write, stat_report_replaces_the_old_file)
{
	char dir[512], path[600], names[256], err[128], *text;
	const char *const args[] = {"stat",       "--json", "-o",   path, "-e",
	                            "task-clock", "--",     "true", NULL};
	struct cli_result r;
	struct jdoc *doc;
	struct stat st;

	ASSERT(fresh_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	write_file(path, "old\n", 0640);
	ASSERT(cli_run(&r, NULL, args) == 0);
	EXPECT_EQ(r.status, 0);
	EXPECT(!strcmp(r.err, ""));
	text = cli_read_file(path);
	doc = jdoc_parse(text, err, sizeof(err));
	EXPECT_MSG(doc, "invalid JSON (%s): %s", err, text ? text : "(unreadable)");
	jdoc_free(doc);
	free(text);
	EXPECT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0640);
	names_in(dir, names, sizeof(names));
	EXPECT_MSG(!strcmp(names, "report.json"), "files left: %s", names);
	cli_result_free(&r);
	unlink(path);
	rmdir(dir);
}

/* The report on stderr, perf stat's place, that cannot be written there:
 * exit 1 rather than the command's 0 (the sentence is lost with it). */
TEST(cli_write, stat_report_to_a_full_stderr)
{
	const char *const args[] = {"stat", "-e", "task-clock", "--", "true", NULL};
	struct cli_how how = {NULL, CLI_OUT_CAPTURED, 64, 0}; /* the report has more */
	struct cli_result r;

	ASSERT(cli_run_with(&r, &how, args) == 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "Performance counter"); /* what fitted */
	cli_result_free(&r);
}

/* A report file that cannot be written is known before the command runs. */
TEST(cli_write, stat_unwritable_report_runs_nothing)
{
	char dir[512], path[600], marker[600], script[700];
	const char *const args[] = {"stat", "-o", path, "--", "sh", "-c", script, NULL};
	struct cli_result r;

	ASSERT(fresh_dir(dir, sizeof(dir)) == 0);
	snprintf(path, sizeof(path), "%s/missing/report.txt", dir);
	snprintf(marker, sizeof(marker), "%s/ran", dir);
	snprintf(script, sizeof(script), "touch %s", marker);
	ASSERT(cli_run(&r, NULL, args) == 0);
	EXPECT_EQ(r.status, 1);
	EXPECT_CONTAINS(r.err, "upmc stat: cannot write '");
	EXPECT_CONTAINS(r.err, "missing/report.txt': No such file or directory");
	EXPECT_MSG(access(marker, F_OK) != 0, "the command ran");
	cli_result_free(&r);
	unlink(marker);
	rmdir(dir);
}
