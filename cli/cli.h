/* SPDX-License-Identifier: MIT */
/* The `upmc` command line tool: its subcommands and what they share. */
#ifndef UPMC_CLI_CLI_H
#define UPMC_CLI_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Exit statuses of upmc itself (`stat` passes its command's through). */
#define CLI_EXIT_FAILURE 1 /* the request was understood but failed */
#define CLI_EXIT_USAGE   2 /* the command line was wrong: usage printed */

/* Each subcommand takes the arguments after its own name. */
int cli_info(int argc, char **argv);
int cli_list(int argc, char **argv);
int cli_stat(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_trace_repair(int argc, char **argv);

/* Prints "upmc: <message>" and the usage to stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* snprintf into a fixed buffer, out of line: a sentence longer than its
 * buffer is cut short, as meant, and gcc cannot take a call for a mistake
 * (-Wformat-truncation, -Wrestrict) where it sees into the arguments. */
void cli_format(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* n with a comma between every three digits: 1234567 -> "1,234,567". */
void cli_thousands(char *buf, size_t size, uint64_t n);

/* What follows the leading 'name' of a library sentence ("'cycles' cannot
 * be counted: ..."), so that counters with one reason can share it; all of
 * the sentence when it does not start so. */
const char *cli_after_quoted_name(const char *reason, const char *name);

/* ---- writing what upmc prints (cli/output.c) ---- */

/* Flushes f: 0 when everything written to it reached its file, or -errno
 * (-EIO when only an earlier write failed, its own errno long gone). */
int cli_stream_error(FILE *f);

/* The end of every command (main): flushes and closes stdout. A write that
 * failed makes the status CLI_EXIT_FAILURE, with a sentence on stderr. */
int cli_finish(int status);

/*
 * A report's destination: a file, or stderr when path is NULL. A regular
 * file (or a new one) is written as a temporary beside it, renamed over it
 * once all of it is written: a failed write leaves the old file as it was.
 * Anything else (a device, a FIFO, a symbolic link such as /dev/stdout) is
 * written in place.
 */
struct cli_output {
	FILE *f;          /* where to print the report */
	const char *path; /* NULL: stderr */
	char *temp;       /* the temporary; NULL: written in place */
	char *text;       /* for stderr: the report, written whole at the end */
	size_t len;
};

/* 0, or -errno when the file cannot be written (nothing left behind). */
int cli_output_open(struct cli_output *o, const char *path);
/* Flushes, closes and renames: 0 when all of it was written, or -errno
 * (the temporary removed). */
int cli_output_commit(struct cli_output *o);
/* Closes it unwritten: the old file stays, the temporary goes. */
void cli_output_discard(struct cli_output *o);

#endif /* UPMC_CLI_CLI_H */
