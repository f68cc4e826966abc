/* SPDX-License-Identifier: MIT */
/*
 * Threads, for every OS layer: a call when a thread exits (a pthread key's
 * destructor; a fiber-local slot's callback on Windows), the zone
 * collector's mutex and the OS's ids; for POSIX layers, fork() (Windows'
 * layer has its own).
 */
#ifndef _WIN32
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>

#include "lib/core/os.h"

/* The thread-exit call: the first caller's, for the process (lib/zone/record.c
 * passes one function); a store by every caller would race the calls. */
static _Atomic(void (*)(void *)) exit_fn;

static int keep_exit_fn(void (*fn)(void *))
{
	void (*kept)(void *) = NULL;

	if (atomic_compare_exchange_strong(&exit_fn, &kept, fn) || kept == fn)
		return 0;
	return upmc_fail(-EINVAL, "upmc_os_at_thread_exit: one thread-exit function per process");
}

static void call_exit_fn(void *arg)
{
	void (*fn)(void *) = atomic_load(&exit_fn);

	if (arg && fn)
		fn(arg);
}

#ifdef _WIN32
#include <windows.h>

static DWORD slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE slot_once = INIT_ONCE_STATIC_INIT;

static void NTAPI thread_exited(void *arg)
{
	call_exit_fn(arg);
}

static BOOL CALLBACK make_slot(INIT_ONCE *once, void *param, void **context)
{
	(void)once;
	(void)param;
	(void)context;
	slot = FlsAlloc(thread_exited);
	return TRUE;
}

int upmc_os_at_thread_exit(void (*fn)(void *), void *arg)
{
	int err;

	InitOnceExecuteOnce(&slot_once, make_slot, NULL, NULL);
	if (slot == FLS_OUT_OF_INDEXES)
		return upmc_fail(-EAGAIN, "no fiber-local slot is left for the thread-exit call");
	err = keep_exit_fn(fn);
	if (err < 0)
		return err;
	return FlsSetValue(slot, arg) ? 0 : upmc_fail(-ENOMEM, "FlsSetValue failed");
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
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_err;

static void make_key(void)
{
	key_err = pthread_key_create(&key, call_exit_fn);
}

int upmc_os_at_thread_exit(void (*fn)(void *), void *arg)
{
	int err;

	pthread_once(&key_once, make_key);
	if (key_err)
		return upmc_fail(-key_err, "no pthread key is left for the thread-exit call");
	err = keep_exit_fn(fn);
	if (err < 0)
		return err;
	err = pthread_setspecific(key, arg);
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
