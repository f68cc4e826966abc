/* SPDX-License-Identifier: MIT */
/* The `upmc` command line tool: its subcommands and what they share. */
#ifndef UPMC_TOOLS_CLI_H
#define UPMC_TOOLS_CLI_H

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

/* Prints "upmc: <message>" and the usage to stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* n with a comma between every three digits: 1234567 -> "1,234,567". */
void cli_thousands(char *buf, size_t size, uint64_t n);

/* What follows the leading 'name' of a library sentence ("'cycles' cannot
 * be counted: ..."), so that counters with one reason can share it; all of
 * the sentence when it does not start so. */
const char *cli_after_quoted_name(const char *reason, const char *name);

#endif /* UPMC_TOOLS_CLI_H */
