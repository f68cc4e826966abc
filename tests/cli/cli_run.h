/* SPDX-License-Identifier: MIT */
/* Runs the `upmc` binary (a data dependency: cli/upmc in the runfiles)
 * and captures what it prints. */
#ifndef UPMC_TESTS_CLI_RUN_H
#define UPMC_TESTS_CLI_RUN_H

struct cli_result {
	int status; /* exit status, or 128 + the signal that ended it */
	int signal; /* the signal that ended it, 0 when it exited */
	char *out;  /* stdout, NUL-terminated ("" when not captured) */
	char *err;  /* stderr */
};

/* A run is killed with SIGALRM past this: a test must not hang. */
#define CLI_RUN_TIMEOUT_S 30

/*
 * Page faults a program built with the suite's flags makes beyond its own
 * work: under --config=asan the sanitizers' runtime maps shadow memory for
 * each thread's stack and heap, some 700 to 1000 faults a thread or process
 * here (stat_workload's tests saw 2957 for 4 threads, 3620 for 3
 * processes). An allowance for the upper bounds of page-fault counts; the
 * lower bounds (the pages the work touches) stay exact.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZER_FAULTS 4000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZER_FAULTS 4000
#endif
#endif
#ifndef SANITIZER_FAULTS
#define SANITIZER_FAULTS 0
#endif

/*
 * Runs cli/upmc with args (NULL-terminated, without the program's name),
 * stdin from /dev/null, with UPMC_FS_ROOT set to fs_root (unset when NULL).
 * Returns 0, or -errno when it could not be run at all.
 */
int cli_run(struct cli_result *r, const char *fs_root, const char *const *args);

/* Where the program's stdout goes, for cli_run_with(). */
#define CLI_OUT_CAPTURED (-1) /* into r->out */
#define CLI_OUT_CLOSED   (-2) /* descriptor 1 closed */

/* How to run it, beyond cli_run()'s defaults (all zero but out). */
struct cli_how {
	const char *fs_root;  /* UPMC_FS_ROOT; unset when NULL */
	int out;              /* CLI_OUT_CAPTURED, CLI_OUT_CLOSED, or a descriptor */
	long file_size_limit; /* RLIMIT_FSIZE in bytes, SIGXFSZ ignored: a full disk; 0: none */
	int ignore_sigpipe;   /* started with SIGPIPE ignored, as some parents do */
};

int cli_run_with(struct cli_result *r, const struct cli_how *how, const char *const *args);

/* cli_run_with() in two steps, to act while it runs: cli_start() starts it
 * (0, or -errno, nothing left behind); cli_finish() waits for it and reads
 * what it printed. job->err_name is where its stderr is being written. */
struct cli_job {
	int pid;
	struct cli_how how;
	int out, err;
	char out_name[512], err_name[512];
};
int cli_start(struct cli_job *job, const struct cli_how *how, const char *const *args);
int cli_finish(struct cli_job *job, struct cli_result *r);

/* cli_run() with the arguments listed, asserting that it ran (in a test:
 * ASSERT_MSG comes from tests/upmc_test.h). */
#define CLI_RUN(r, fs_root, ...)                                                            \
	do {                                                                                \
		const char *const cli_args_[] = {__VA_ARGS__, NULL};                        \
		ASSERT_MSG(cli_run(&(r), fs_root, cli_args_) == 0, "cli/upmc did not run"); \
	} while (0)
void cli_result_free(struct cli_result *r);

/* A fresh file name under $TEST_TMPDIR (or /tmp), into buf. */
void cli_temp_name(char *buf, unsigned long size, const char *stem);

/* The whole file, NUL-terminated (free it); NULL when unreadable. */
char *cli_read_file(const char *path);

/* The line of text that contains what; copied into line; 0 when found. */
int cli_line_with(const char *text, const char *what, char *line, unsigned long size);

/* The comma-separated fields of a CSV line (up to its newline). */
int cli_csv_fields(const char *line);

#endif /* UPMC_TESTS_CLI_RUN_H */
