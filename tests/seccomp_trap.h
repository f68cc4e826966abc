/* SPDX-License-Identifier: MIT */
/*
 * Proof that code makes no system call: run it in a child process under a
 * seccomp filter that allows only write, exit, exit_group and rt_sigreturn
 * and traps every other call (SIGSYS), counting them.
 */
#ifndef UPMC_TESTS_SECCOMP_TRAP_H
#define UPMC_TESTS_SECCOMP_TRAP_H

/*
 * System calls fn(arg) made, or -1 when the filter could not be set up.
 * When prepare is not NULL, fn gets prepare(arg) instead of arg: prepare
 * runs in the child before the filter, where what fn reads must be opened
 * (perf pages are not inherited across fork).
 */
long syscalls_made_by(void *(*prepare)(void *), void (*fn)(void *), void *arg);

/* A positive control: makes exactly two system calls (getpid, read). */
void make_two_syscalls(void *unused);

#endif
