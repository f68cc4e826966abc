/* SPDX-License-Identifier: MIT */
/*
 * The private interface every OS layer implements (the .c files of os/<os>). The build
 * links exactly one of them; the simulated kernel in tests/ is another.
 */
#ifndef UPMC_OS_H
#define UPMC_OS_H

#include <stdio.h>

#include "internal.h"

/*
 * Opens set->state->counter[0..set->n-1] for the calling thread and starts
 * them. Sets set->page[], set->user_n and each counter's path and
 * reason. On failure returns -errno after upmc_fail() and leaves nothing
 * open.
 */
int upmc_os_open(struct upmc_set *set, unsigned flags);

/* Stops and releases what upmc_os_open() made. */
void upmc_os_close(struct upmc_set *set);

/*
 * Reads the whole set through the kernel: values[i] for every counter
 * (UPMC_NOT_COUNTED where it did not count; unscaled for a multiplexed
 * set); enabled and running may be NULL. With them, by the kernel's read
 * (read(2)) alone; without, the OS layer may read a group from its pages
 * in user space where they allow it. Returns set->n, or -errno after
 * upmc_fail() with every value UPMC_NOT_COUNTED.
 */
int upmc_os_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running);

/*
 * For a set the OS layer multiplexes (set->state->multiplexed): every
 * counter's count as the kernel has it, unscaled, then the time its group
 * was enabled and then running: snapshot[i], snapshot[n + i],
 * snapshot[2n + i]. A counter that is not open reads UPMC_NOT_COUNTED, 0,
 * 0. Always by the kernel's read (read(2)). Returns set->n, or -errno after
 * upmc_fail() with every word UPMC_NOT_COUNTED. OS layers that never
 * multiplex return -EOPNOTSUPP.
 */
int upmc_os_read_unscaled(struct upmc_set *set, uint64_t *snapshot);

/*
 * In a forked child (lib/set.c knows which sets): releases what the child
 * holds of the parent's set, without unmapping anything (the child did not
 * get the parent's mappings): frees what upmc_os_open() allocated, and
 * closes the child's copies of the descriptors that still are the same
 * events (Linux: PERF_EVENT_IOC_ID), never a number the child closed and
 * reused.
 */
void upmc_os_abandon(struct upmc_set *set);

/*
 * Has every later fork() call upmc_fork_prepare() before it, and
 * upmc_fork_parent() and upmc_fork_child() after it in each process
 * (pthread_atfork). The first call registers them, once per process, and
 * every call returns after that (pthread_once); nothing where the OS has
 * no fork(). (os/portable/thread.c where POSIX.)
 */
void upmc_os_watch_fork(void);

/* lib/set.c: what fork() calls once upmc_os_watch_fork() has been called. */
void upmc_fork_prepare(void);
void upmc_fork_parent(void);
void upmc_fork_child(void);

/* The kernel's timestamp-to-ns factors, when it publishes them; -ENOTSUP if not. */
int upmc_os_kernel_clock(struct upmc_set *set, struct upmc_clock *clock);

/*
 * Resolves an event the portable names do not cover (Linux: a
 * pmu/term=value/ spec through sysfs, a libpfm4 name) into ev, whose name
 * is already set. -ENOENT when the OS does not know it, without a sentence
 * (the caller then says "unknown; did you mean ...") or with one that says
 * more; any other failure after upmc_fail().
 */
int upmc_os_resolve_event(const char *item, unsigned flags, struct upmc_event *ev);

/* Lists the OS's own events through fn, as upmc_list_events() does. Returns
 * how many were listed; *stopped is set when fn asked to stop. */
int upmc_os_list_events(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg,
                        int *stopped);

/* The kind of CPU the core PMU is ("x86", "arm64"), which a metric's
 * variants are defined for; "" when no core PMU is visible. */
const char *upmc_os_core_kind(void);

/* This CPU as perf's pmu-events mapfile names it, into buf: on x86
 * vendor-family-model-stepping ("GenuineIntel-6-55-4": family in
 * decimal, model and stepping in hex), on Arm the MIDR
 * ("0x00000000410fd490"): which metrics' variants are for it; "" when the
 * OS does not say. */
void upmc_os_cpu_id(char *buf, size_t size);

/* Whether the kernel runs the CPU's SMT siblings, as perf's #SMT_on finds
 * it (Linux: /sys/devices/system/cpu/smt/active, else the CPUs' topology):
 * 1 on, 0 off, -1 not known. */
int upmc_os_smt_active(void);

/* Whether this is a hybrid CPU (more than one core PMU) and pmu is one of
 * its core PMUs ("cpu_atom"): its metrics then have a variant per core type. */
int upmc_os_hybrid_core(const char *pmu);

/* 1, with why in a sentence, when no core PMU is visible (a virtual
 * machine without a virtual PMU): a CPU's own events then cannot be
 * named; 0 when one is. */
int upmc_os_no_core_pmu(char *why, size_t size);

/* A constant a metric's formula names (#slots: operations per cycle);
 * 0, or -ENOENT after upmc_fail() when the machine does not publish it. */
int upmc_os_metric_constant(const char *name, double *value);

/* CLOCK_MONOTONIC_RAW (or the OS's closest) in ns: the calibration reference. */
uint64_t upmc_os_monotonic_ns(void);

/*
 * Calls fn(arg) on the calling thread when it exits (os/portable/thread.c):
 * one call per thread, the last arg given; NULL cancels it. The process's
 * main thread gets none (it ends with the process). 0, or -errno.
 */
int upmc_os_at_thread_exit(void (*fn)(void *), void *arg);

/* The same for each kind of state, each a call of its own (the one above
 * is the zones'): the measure layer's UPMC_PROF call sites use the other. */
enum upmc_os_exit_kind { UPMC_OS_EXIT_ZONES, UPMC_OS_EXIT_PROF, UPMC_OS_EXIT_KINDS };
int upmc_os_at_thread_exit_for(enum upmc_os_exit_kind kind, void (*fn)(void *), void *arg);

/* The zone collector's lock (lib/zone.c): a mutex, statically made. */
void upmc_os_collector_lock(void);
void upmc_os_collector_unlock(void);
/* A zone stream's writing lock (lib/zone/stream.c): held while a stream
 * compresses and writes what it took, which the collector's is not; taken
 * before the collector's where both are. A mutex, statically made. */
void upmc_os_stream_lock(void);
void upmc_os_stream_unlock(void);

/*
 * A thread of the library's own (a zone stream's writer: lib/zone/stream.c):
 * runs fn(itself, arg). It may sleep up to ms milliseconds, waking early when
 * another thread wakes it (1: woken, 0: the time passed). Join waits for
 * fn to return and frees the thread. 0, or -errno. (os/portable/thread.c)
 */
struct upmc_os_thread;
int upmc_os_thread_start(struct upmc_os_thread **thread,
                         void (*fn)(struct upmc_os_thread *self, void *arg), void *arg);
int upmc_os_thread_sleep(struct upmc_os_thread *thread, unsigned ms);
void upmc_os_thread_wake(struct upmc_os_thread *thread);
void upmc_os_thread_join(struct upmc_os_thread *thread);

/* Cuts the file f is open on to size bytes (a stream's whole appends). */
int upmc_os_truncate(FILE *f, uint64_t size);

/* The OS's ids of this process and of the calling thread. */
uint64_t upmc_os_process_id(void);
uint64_t upmc_os_thread_id(void);

/* Puts the file `from` in the place of `to`, replacing a file there in one
 * step (rename(2); MoveFileEx on Windows). 0, or -errno after upmc_fail().
 * (os/portable/file.c) */
int upmc_os_replace_file(const char *from, const char *to);

/* Whether a file saved at path should be written beside it and put in its
 * place: 1 when nothing is there or a regular file is; 0 for what is
 * written in place (a FIFO, a device, a symbolic link: renaming over it
 * would replace the link or the special file with a plain one). */
int upmc_os_replaceable(const char *path);

/*
 * `upmc stat --zones`'s request (os/portable/file.c): the value of
 * the environment variable name where the process may trust its
 * environment, NULL in a set-user-ID or set-group-ID process (glibc's
 * secure_getenv) and on Windows. upmc_os_request_fd(): 0 when fd is open
 * for writing on a regular file or a pipe, else -errno. Writes len bytes
 * to fd, retried until whole: 0, or -errno.
 */
const char *upmc_os_trusted_env(const char *name);
int upmc_os_request_fd(int fd);
int upmc_os_write_whole(int fd, const void *buf, size_t len);

#endif /* UPMC_OS_H */
