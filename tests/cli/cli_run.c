/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"

#define PROGRAM "tools/upmc"

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

static void __attribute__((noreturn))
exec_cli(int out, int err, const char *fs_root, const char *const *args)
{
	char *argv[64];
	int in = open("/dev/null", O_RDONLY), i;

	argv[0] = (char *)PROGRAM;
	for (i = 0; args[i] && i < 62; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (fs_root)
		setenv("UPMC_FS_ROOT", fs_root, 1);
	else
		unsetenv("UPMC_FS_ROOT");
	execv(PROGRAM, argv);
	_exit(127);
}

static int open_capture(char *name, unsigned long size, const char *stem)
{
	cli_temp_name(name, size, stem);
	return open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

int cli_run(struct cli_result *r, const char *fs_root, const char *const *args)
{
	char out_name[512], err_name[512];
	int out, err, status = 0, ret = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	out = open_capture(out_name, sizeof(out_name), "upmc-out");
	err = open_capture(err_name, sizeof(err_name), "upmc-err");
	if (out < 0 || err < 0)
		ret = -errno;
	else if ((pid = fork()) < 0)
		ret = -errno;
	else if (pid == 0)
		exec_cli(out, err, fs_root, args);
	else
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	if (!ret) {
		r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		r->status = r->signal ? 128 + r->signal : WEXITSTATUS(status);
		r->out = cli_read_file(out_name);
		r->err = cli_read_file(err_name);
	}
	unlink(out_name);
	unlink(err_name);
	return ret;
}

void cli_result_free(struct cli_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}
