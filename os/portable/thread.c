/* SPDX-License-Identifier: MIT */
/*
 * Threads, for every OS layer: a call when a thread exits (a pthread key's
 * destructor; a fiber-local slot's callback on Windows), the zone
 * collector's mutex, a thread of the library's own that sleeps until
 * woken (a zone stream's writer) and the OS's ids; for POSIX layers,
 * fork() (Windows' layer has its own).
 */
#ifndef _WIN32
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>

#include "lib/core/os.h"

/* The thread-exit call of each kind: the first caller's, for the process
 * (lib/zone/record.c passes one function, lib/measure/prof.c another); a
 * store by every caller would race the calls. */
static _Atomic(void (*)(void *)) exit_fn[UPMC_OS_EXIT_KINDS];

static int keep_exit_fn(enum upmc_os_exit_kind kind, void (*fn)(void *))
{
	void (*kept)(void *) = NULL;

	if (atomic_compare_exchange_strong(&exit_fn[kind], &kept, fn) || kept == fn)
		return 0;
	return upmc_fail(-EINVAL,
	                 "upmc_os_at_thread_exit: one thread-exit function per kind and process");
}

static void call_exit_fn(enum upmc_os_exit_kind kind, void *arg)
{
	void (*fn)(void *) = atomic_load(&exit_fn[kind]);

	if (arg && fn)
		fn(arg);
}

/* The OS's calls have the argument alone: one entry per kind. */
static void zones_thread_exited(void *arg)
{
	call_exit_fn(UPMC_OS_EXIT_ZONES, arg);
}

static void prof_thread_exited(void *arg)
{
	call_exit_fn(UPMC_OS_EXIT_PROF, arg);
}

static void (*const thread_exited_of[UPMC_OS_EXIT_KINDS])(void *) = {
        [UPMC_OS_EXIT_ZONES] = zones_thread_exited,
        [UPMC_OS_EXIT_PROF] = prof_thread_exited,
};

static int check_exit_kind(enum upmc_os_exit_kind kind)
{
	if ((unsigned)kind < UPMC_OS_EXIT_KINDS)
		return 0;
	return upmc_fail(-EINVAL, "upmc_os_at_thread_exit_for: no thread-exit kind %u",
	                 (unsigned)kind);
}

int upmc_os_at_thread_exit(void (*fn)(void *), void *arg)
{
	return upmc_os_at_thread_exit_for(UPMC_OS_EXIT_ZONES, fn, arg);
}

#ifdef _WIN32
#include <stdlib.h>
#include <windows.h>

static DWORD slot[UPMC_OS_EXIT_KINDS];
static INIT_ONCE slot_once = INIT_ONCE_STATIC_INIT;

static void NTAPI zones_fls_exited(void *arg)
{
	zones_thread_exited(arg);
}

static void NTAPI prof_fls_exited(void *arg)
{
	prof_thread_exited(arg);
}

static BOOL CALLBACK make_slots(INIT_ONCE *once, void *param, void **context)
{
	(void)once;
	(void)param;
	(void)context;
	(void)thread_exited_of; /* FlsAlloc wants NTAPI functions: the two above */
	slot[UPMC_OS_EXIT_ZONES] = FlsAlloc(zones_fls_exited);
	slot[UPMC_OS_EXIT_PROF] = FlsAlloc(prof_fls_exited);
	return TRUE;
}

int upmc_os_at_thread_exit_for(enum upmc_os_exit_kind kind, void (*fn)(void *), void *arg)
{
	int err = check_exit_kind(kind);

	if (err < 0)
		return err;
	InitOnceExecuteOnce(&slot_once, make_slots, NULL, NULL);
	if (slot[kind] == FLS_OUT_OF_INDEXES)
		return upmc_fail(-EAGAIN, "no fiber-local slot is left for the thread-exit call");
	err = keep_exit_fn(kind, fn);
	if (err < 0)
		return err;
	return FlsSetValue(slot[kind], arg) ? 0 : upmc_fail(-ENOMEM, "FlsSetValue failed");
}

static SRWLOCK collector_mutex = SRWLOCK_INIT;

void upmc_os_collector_lock(void)
{
	AcquireSRWLockExclusive(&collector_mutex);
}

void upmc_os_collector_unlock(void)
{
	ReleaseSRWLockExclusive(&collector_mutex);
}

static SRWLOCK stream_mutex = SRWLOCK_INIT;

void upmc_os_stream_lock(void)
{
	AcquireSRWLockExclusive(&stream_mutex);
}

void upmc_os_stream_unlock(void)
{
	ReleaseSRWLockExclusive(&stream_mutex);
}

struct upmc_os_thread {
	HANDLE handle;
	void (*fn)(struct upmc_os_thread *self, void *arg);
	void *arg;
	SRWLOCK lock;
	CONDITION_VARIABLE cond;
	int woken;
};

static DWORD WINAPI run_thread(void *arg)
{
	struct upmc_os_thread *t = arg;

	t->fn(t, t->arg);
	return 0;
}

int upmc_os_thread_start(struct upmc_os_thread **thread,
                         void (*fn)(struct upmc_os_thread *self, void *arg), void *arg)
{
	struct upmc_os_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return upmc_fail(-ENOMEM, "out of memory starting a thread");
	t->fn = fn;
	t->arg = arg;
	InitializeSRWLock(&t->lock);
	InitializeConditionVariable(&t->cond);
	t->handle = CreateThread(NULL, 0, run_thread, t, 0, NULL);
	if (!t->handle) {
		free(t);
		return upmc_fail(-EAGAIN, "CreateThread failed: Windows error %lu",
		                 (unsigned long)GetLastError());
	}
	*thread = t;
	return 0;
}

int upmc_os_thread_sleep(struct upmc_os_thread *t, unsigned ms)
{
	int woken;

	AcquireSRWLockExclusive(&t->lock);
	if (!t->woken)
		SleepConditionVariableSRW(&t->cond, &t->lock, ms, 0);
	woken = t->woken;
	t->woken = 0;
	ReleaseSRWLockExclusive(&t->lock);
	return woken;
}

void upmc_os_thread_wake(struct upmc_os_thread *t)
{
	AcquireSRWLockExclusive(&t->lock);
	t->woken = 1;
	ReleaseSRWLockExclusive(&t->lock);
	WakeConditionVariable(&t->cond);
}

void upmc_os_thread_join(struct upmc_os_thread *t)
{
	WaitForSingleObject(t->handle, INFINITE);
	CloseHandle(t->handle);
	free(t);
}

uint64_t upmc_os_process_id(void)
{
	return GetCurrentProcessId();
}

uint64_t upmc_os_thread_id(void)
{
	return GetCurrentThreadId();
}

#else
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

static pthread_key_t key[UPMC_OS_EXIT_KINDS];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_err[UPMC_OS_EXIT_KINDS];

static void make_keys(void)
{
	unsigned kind;

	for (kind = 0; kind < UPMC_OS_EXIT_KINDS; kind++)
		key_err[kind] = pthread_key_create(&key[kind], thread_exited_of[kind]);
}

int upmc_os_at_thread_exit_for(enum upmc_os_exit_kind kind, void (*fn)(void *), void *arg)
{
	int err = check_exit_kind(kind);

	if (err < 0)
		return err;
	pthread_once(&key_once, make_keys);
	if (key_err[kind])
		return upmc_fail(-key_err[kind], "no pthread key is left for the thread-exit call");
	err = keep_exit_fn(kind, fn);
	if (err < 0)
		return err;
	err = pthread_setspecific(key[kind], arg);
	return err ? upmc_fail(-err, "pthread_setspecific failed") : 0;
}

static pthread_mutex_t collector_mutex = PTHREAD_MUTEX_INITIALIZER;

void upmc_os_collector_lock(void)
{
	pthread_mutex_lock(&collector_mutex);
}

void upmc_os_collector_unlock(void)
{
	pthread_mutex_unlock(&collector_mutex);
}

static pthread_mutex_t stream_mutex = PTHREAD_MUTEX_INITIALIZER;

void upmc_os_stream_lock(void)
{
	pthread_mutex_lock(&stream_mutex);
}

void upmc_os_stream_unlock(void)
{
	pthread_mutex_unlock(&stream_mutex);
}

struct upmc_os_thread {
	pthread_t thread;
	void (*fn)(struct upmc_os_thread *self, void *arg);
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int woken;
};

static void *run_thread(void *arg)
{
	struct upmc_os_thread *t = arg;

	t->fn(t, t->arg);
	return NULL;
}

int upmc_os_thread_start(struct upmc_os_thread **thread,
                         void (*fn)(struct upmc_os_thread *self, void *arg), void *arg)
{
	struct upmc_os_thread *t = calloc(1, sizeof(*t));
	pthread_condattr_t attr;
	int err;

	if (!t)
		return upmc_fail(-ENOMEM, "out of memory starting a thread");
	t->fn = fn;
	t->arg = arg;
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_init(&attr);
#if !defined(__APPLE__)
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* a clock nobody sets */
#endif
	pthread_cond_init(&t->cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&t->thread, NULL, run_thread, t);
	if (err) {
		pthread_cond_destroy(&t->cond);
		pthread_mutex_destroy(&t->lock);
		free(t);
		return upmc_fail(-err, "cannot start a thread: %s", strerror(err));
	}
	*thread = t;
	return 0;
}

int upmc_os_thread_sleep(struct upmc_os_thread *t, unsigned ms)
{
	struct timespec until;
	int woken;

#if defined(__APPLE__)
	clock_gettime(CLOCK_REALTIME, &until);
#else
	clock_gettime(CLOCK_MONOTONIC, &until);
#endif
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&t->lock);
	while (!t->woken && pthread_cond_timedwait(&t->cond, &t->lock, &until) == 0)
		;
	woken = t->woken;
	t->woken = 0;
	pthread_mutex_unlock(&t->lock);
	return woken;
}

void upmc_os_thread_wake(struct upmc_os_thread *t)
{
	pthread_mutex_lock(&t->lock);
	t->woken = 1;
	pthread_cond_signal(&t->cond);
	pthread_mutex_unlock(&t->lock);
}

void upmc_os_thread_join(struct upmc_os_thread *t)
{
	pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

uint64_t upmc_os_process_id(void)
{
	return (uint64_t)getpid();
}

uint64_t upmc_os_thread_id(void)
{
#if defined(__linux__)
	return (uint64_t)syscall(SYS_gettid);
#elif defined(__APPLE__)
	uint64_t tid = 0;
	pthread_threadid_np(NULL, &tid);
	return tid;
#else
	return (uint64_t)(uintptr_t)pthread_self();
#endif
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void register_fork_calls(void)
{
	pthread_atfork(upmc_fork_prepare, upmc_fork_parent, upmc_fork_child);
}

void upmc_os_watch_fork(void)
{
	pthread_once(&fork_once, register_fork_calls);
}
#endif
