/* SPDX-License-Identifier: MIT */
/*
 * Proof that code makes no system call: run it in a child process under a
 * seccomp filter that allows only write, exit, exit_group and rt_sigreturn
 * and traps every other call (SIGSYS), counting them; or, of some calls
 * only (the files a function opens), how many it made.
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

/*
 * The calls of each number nrs[i] that fn(arg) made, into counts[i], with
 * prepare as above: a filter traps those alone, each failing with EPERM
 * (the others run). 0, or -1 when the filter could not be set up.
 */
#define SECCOMP_TRAP_MAX 8
int syscalls_counted(const int *nrs, unsigned n, long *counts, void *(*prepare)(void *),
                     void (*fn)(void *), void *arg);

/* A positive control: makes exactly two system calls (getpid, read). */
void make_two_syscalls(void *unused);

#endif
