/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "tests/seccomp_trap.h"

#if defined(__x86_64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp_trap: add this architecture's AUDIT_ARCH"
#endif

static volatile long trapped;

static void on_sigsys(int sig)
{
	(void)sig;
	trapped++;
}

#define ALLOW(nr)                                        \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int install_filter(void)
{
	struct sock_filter code[] = {
	        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_AUDIT_ARCH, 1, 0),
	        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	        ALLOW(__NR_write),
	        ALLOW(__NR_exit),
	        ALLOW(__NR_exit_group),
	        ALLOW(__NR_rt_sigreturn),
	        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigsys;
	if (sigaction(SIGSYS, &sa, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

long syscalls_made_by(void *(*prepare)(void *), void (*fn)(void *), void *arg)
{
	long count = -1;
	int pipefd[2], status;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		if ((!prepare || (arg = prepare(arg))) && install_filter() == 0) {
			fn(arg);
			count = trapped;
		}
		/* exit_group through syscall(): _exit() is noreturn, and before
		 * such calls sanitizers run code that makes system calls. */
		syscall(SYS_exit_group,
		        write(pipefd[1], &count, sizeof(count)) == sizeof(count) ? 0 : 2);
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &count, sizeof(count)) != sizeof(count))
		count = -1;
	close(pipefd[0]);
	if (pid > 0 &&
	    (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		count = -1;
	return count;
}

/* ---- some calls counted, the others run ---- */

static int counted_nr[SECCOMP_TRAP_MAX];
static volatile long counted[SECCOMP_TRAP_MAX];
static unsigned n_counted;

/* The trapped call did not run: it returns -EPERM, as a refused one would. */
static void on_counted_sigsys(int sig, siginfo_t *si, void *context)
{
	ucontext_t *uc = context;
	unsigned i;

	(void)sig;
	for (i = 0; i < n_counted; i++)
		if (si->si_syscall == counted_nr[i])
			counted[i]++;
#if defined(__x86_64__)
	uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
	uc->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#endif
}

static int install_counting_filter(void)
{
	struct sock_filter code[4 + 2 * SECCOMP_TRAP_MAX + 1] = {
	        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_AUDIT_ARCH, 1, 0),
	        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	};
	struct sock_fprog prog = {0, code};
	struct sigaction sa;
	unsigned i, n = 4;

	for (i = 0; i < n_counted; i++) {
		code[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		                                         (unsigned)counted_nr[i], 0, 1);
		code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP);
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog.len = (unsigned short)n;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_counted_sigsys;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSYS, &sa, NULL) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int syscalls_counted(const int *nrs, unsigned n, long *counts, void *(*prepare)(void *),
                     void (*fn)(void *), void *arg)
{
	long got[SECCOMP_TRAP_MAX + 1];
	int pipefd[2], status, ok;
	unsigned i;
	pid_t pid;

	if (n > SECCOMP_TRAP_MAX || pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		n_counted = n;
		memcpy(counted_nr, nrs, n * sizeof(*nrs));
		got[0] = -1;
		if ((!prepare || (arg = prepare(arg))) && install_counting_filter() == 0) {
			fn(arg);
			got[0] = 0;
			for (i = 0; i < n; i++)
				got[i + 1] = counted[i];
		}
		syscall(SYS_exit_group, write(pipefd[1], got, sizeof(got)) == sizeof(got) ? 0 : 2);
	}
	close(pipefd[1]);
	ok = pid > 0 && read(pipefd[0], got, sizeof(got)) == sizeof(got) && got[0] == 0;
	close(pipefd[0]);
	if (pid > 0 &&
	    (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0))
		ok = 0;
	for (i = 0; ok && i < n; i++)
		counts[i] = got[i + 1];
	return ok ? 0 : -1;
}

void make_two_syscalls(void *unused)
{
	char c;

	(void)unused;
	syscall(SYS_getpid);
	syscall(SYS_read, -1, &c, 1);
}
