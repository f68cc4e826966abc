/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"

#define PROGRAM "cli/upmc"

void cli_temp_name(char *buf, unsigned long size, const char *stem)
{
	static unsigned counter;
	const char *dir = getenv("TEST_TMPDIR");

	snprintf(buf, size, "%s/%s.%d.%u", dir ? dir : "/tmp", stem, (int)getpid(), counter++);
}

char *cli_read_file(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 4096, got;
	char *buf, *grown;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += got;
		if (cap - len > 1)
			continue;
		grown = realloc(buf, cap *= 2);
		if (!grown)
			free(buf);
		buf = grown;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

int cli_line_with(const char *text, const char *what, char *line, unsigned long size)
{
	const char *hit = text ? strstr(text, what) : NULL, *start, *end;
	size_t len;

	if (!hit)
		return -1;
	for (start = hit; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(hit, '\n');
	len = end ? (size_t)(end - start) : strlen(start);
	if (len >= size)
		len = size - 1;
	memcpy(line, start, len);
	line[len] = '\0';
	return 0;
}

/* argv for execv: the program's name, then args; NULL when out of memory. */
static char **program_argv(const char *const *args)
{
	size_t n = 0, i;
	char **argv;

	while (args[n])
		n++;
	argv = calloc(n + 2, sizeof(*argv));
	if (!argv)
		return NULL;
	argv[0] = (char *)PROGRAM;
	for (i = 0; i < n; i++)
		argv[i + 1] = (char *)args[i];
	return argv;
}

/* In the child: what `how` asks for, then the program. */
static void __attribute__((noreturn))
exec_cli(int out, int err, const struct cli_how *how, char **argv)
{
	int in = open("/dev/null", O_RDONLY);

	if (in < 0 || dup2(in, 0) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (how->out == CLI_OUT_CLOSED)
		close(1);
	else if (dup2(out, 1) < 0)
		_exit(126);
	if (how->file_size_limit) {
		struct rlimit limit = {(rlim_t)how->file_size_limit, (rlim_t)how->file_size_limit};
		/* A write past the limit then fails with EFBIG, as on a full disk. */
		if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &limit) < 0)
			_exit(126);
	}
	if (how->ignore_sigpipe && signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		_exit(126);
	if (how->fs_root)
		setenv("UPMC_FS_ROOT", how->fs_root, 1);
	else
		unsetenv("UPMC_FS_ROOT");
	alarm(CLI_RUN_TIMEOUT_S); /* kept across exec: a hung upmc dies of SIGALRM */
	execv(PROGRAM, argv);
	_exit(127);
}

static int open_capture(char *name, unsigned long size, const char *stem)
{
	cli_temp_name(name, size, stem);
	return open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

static void wait_for(pid_t pid, struct cli_result *r)
{
	int status = 0;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	r->status = r->signal ? 128 + r->signal : WEXITSTATUS(status);
	if (r->signal == SIGALRM)
		fprintf(stderr, "cli/upmc did not finish in %d s: killed\n", CLI_RUN_TIMEOUT_S);
}

int cli_start(struct cli_job *job, const struct cli_how *how, const char *const *args)
{
	char **argv = program_argv(args);
	int ret = 0;

	memset(job, 0, sizeof(*job));
	job->pid = -1;
	job->how = *how;
	job->out = how->out == CLI_OUT_CAPTURED
	                   ? open_capture(job->out_name, sizeof(job->out_name), "upmc-out")
	                   : how->out;
	job->err = open_capture(job->err_name, sizeof(job->err_name), "upmc-err");
	if (!argv)
		ret = -ENOMEM;
	else if ((how->out != CLI_OUT_CLOSED && job->out < 0) || job->err < 0)
		ret = -errno;
	else if ((job->pid = fork()) < 0)
		ret = -errno;
	else if (job->pid == 0)
		exec_cli(job->out, job->err, how, argv);
	free(argv);
	if (ret)
		cli_finish(job, NULL);
	return ret;
}

int cli_finish(struct cli_job *job, struct cli_result *r)
{
	int captured = job->how.out == CLI_OUT_CAPTURED;

	if (r) {
		memset(r, 0, sizeof(*r));
		wait_for(job->pid, r);
		r->out = captured ? cli_read_file(job->out_name) : strdup("");
		r->err = cli_read_file(job->err_name);
	}
	if (captured && job->out >= 0)
		close(job->out);
	if (job->err >= 0)
		close(job->err);
	if (captured)
		unlink(job->out_name);
	unlink(job->err_name);
	return 0;
}

int cli_run_with(struct cli_result *r, const struct cli_how *how, const char *const *args)
{
	struct cli_job job;
	int ret = cli_start(&job, how, args);

	memset(r, 0, sizeof(*r));
	return ret ? ret : cli_finish(&job, r);
}

int cli_run(struct cli_result *r, const char *fs_root, const char *const *args)
{
	struct cli_how how = {fs_root, CLI_OUT_CAPTURED, 0, 0};

	return cli_run_with(r, &how, args);
}

void cli_result_free(struct cli_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

int cli_csv_fields(const char *line)
{
	int n = 1;

	for (; *line && *line != '\n'; line++)
		n += *line == ',';
	return n;
}
