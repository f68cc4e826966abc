/* SPDX-License-Identifier: MIT */
/*
 * Threads, for every OS layer: a call when a thread exits (a pthread key's
 * destructor; a fiber-local slot's callback on Windows), the zone
 * collector's mutex and the OS's ids.
 */
#ifndef _WIN32
#define _GNU_SOURCE
#endif
#include <errno.h>

#include "lib/os.h"

#ifdef _WIN32
#include <windows.h>

static DWORD slot = FLS_OUT_OF_INDEXES;
static INIT_ONCE slot_once = INIT_ONCE_STATIC_INIT;
static void (*exit_fn)(void *);

static void NTAPI thread_exited(void *arg)
{
	if (arg && exit_fn)
		exit_fn(arg);
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
	InitOnceExecuteOnce(&slot_once, make_slot, NULL, NULL);
	if (slot == FLS_OUT_OF_INDEXES)
		return upmc_fail(-EAGAIN, "no fiber-local slot is left for the thread-exit call");
	exit_fn = fn;
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
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_err;
static void (*exit_fn)(void *);

static void thread_exited(void *arg)
{
	if (exit_fn)
		exit_fn(arg);
}

static void make_key(void)
{
	key_err = pthread_key_create(&key, thread_exited);
}

int upmc_os_at_thread_exit(void (*fn)(void *), void *arg)
{
	int err;

	pthread_once(&key_once, make_key);
	if (key_err)
		return upmc_fail(-key_err, "no pthread key is left for the thread-exit call");
	exit_fn = fn;
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
#endif
