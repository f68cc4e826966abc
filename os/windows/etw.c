/* SPDX-License-Identifier: MIT */
/*
 * ETW with PMC sources attached to context-switch events (see etw.h).
 *
 * The session logs to a temporary .etl file rather than to a real-time
 * consumer: events reach a real-time consumer only when a buffer is flushed
 * and those logged before it connects are lost, while the file holds every
 * event of the session and is read, in time order, after it stops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>
#include <evntcons.h>
#include <evntrace.h>

#include "os/windows/etw.h"

/* The kernel's Thread provider; its CSwitch event has opcode 36. */
static const GUID thread_guid = {
        0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
#define CSWITCH_OPCODE 36

#define PATH_CHARS 300

struct upmc_etw {
	TRACEHANDLE session;
	WCHAR name[32];
	WCHAR file[PATH_CHARS];
	unsigned n;
	DWORD tid;
	int in; /* the followed thread is on a CPU */
	uint64_t start[UPMC_MAX_COUNTERS], sum[UPMC_MAX_COUNTERS];
	uint64_t switches, slices;
	unsigned short_items; /* events with fewer counters than asked for */
	union {
		EVENT_TRACE_PROPERTIES props;
		char bytes[sizeof(EVENT_TRACE_PROPERTIES) + 2 * PATH_CHARS * sizeof(WCHAR)];
	} p;
};

const char *upmc_etw_wine_version(void)
{
	typedef const char *(CDECL * version_fn)(void);
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	FARPROC sym = ntdll ? GetProcAddress(ntdll, "wine_get_version") : NULL;
	version_fn fn;

	if (!sym)
		return NULL;
	memcpy(&fn, &sym, sizeof(fn)); /* FARPROC to its real type */
	return fn();
}

int upmc_etw_is_admin(void)
{
	TOKEN_ELEVATION elevation = {0};
	HANDLE token;
	DWORD size = 0;
	BOOL ok;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return 0;
	ok = GetTokenInformation(token, TokenElevation, &elevation, sizeof(elevation), &size);
	CloseHandle(token);
	return ok && elevation.TokenIsElevated;
}

static int errno_of(ULONG status)
{
	switch (status) {
	case ERROR_ACCESS_DENIED:
		return -EACCES;
	case ERROR_BUSY:
		return -EBUSY;
	case ERROR_CALL_NOT_IMPLEMENTED:
		return -ENOSYS;
	case ERROR_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case ERROR_ALREADY_EXISTS:
		return -EEXIST;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return -ENOMEM;
	default:
		return -EIO;
	}
}

/* What to do about a failed ETW call, in words. */
static const char *advice(ULONG status)
{
	switch (status) {
	case ERROR_ACCESS_DENIED:
		return ": run as administrator";
	case ERROR_BUSY:
		return ": another ETW session (WPR, xperf, VTune, a profiler) holds the PMU";
	case ERROR_CALL_NOT_IMPLEMENTED:
		return ": this ETW does not implement it (Wine, or Windows before 10)";
	case ERROR_NOT_SUPPORTED:
		return ": not supported here (a virtual machine without a virtual PMU?)";
	default:
		return "";
	}
}

static int fail_with(ULONG status, const char *what, char *why, size_t size)
{
	upmc_format(why, size, "%s failed (Windows error %lu)%s", what, (unsigned long)status,
	            advice(status));
	return errno_of(status);
}

/* A profile source's name (UTF-16) as ASCII, for comparing and listing. */
static void ascii_name(const PROFILE_SOURCE_INFO *info, const char *end, char *out, size_t size)
{
	const WCHAR *w = info->Description;
	size_t k = 0;

	while (k + 1 < size && (const char *)(w + 1) <= end && *w)
		out[k++] = *w < 128 ? (char)*w : '?', w++;
	out[k] = '\0';
}

static int pick_source(const char *list, ULONG list_len, const char *const *names, unsigned n_names,
                       ULONG *id, char *why, size_t size)
{
	const char *end = list + list_len;
	char offered[UPMC_REASON_MAX] = "", name[64];
	const char *p = list;
	unsigned k;

	for (k = 0; k < n_names; k++) {
		for (p = list; p + sizeof(PROFILE_SOURCE_INFO) <= end;) {
			const PROFILE_SOURCE_INFO *info = (const PROFILE_SOURCE_INFO *)p;
			ascii_name(info, end, name, sizeof(name));
			if (!_stricmp(name, names[k])) {
				*id = info->Source;
				return 0;
			}
			if (k == 0) {
				size_t len = strlen(offered);
				upmc_format(offered + len, sizeof(offered) - len, "%s%s",
				            len ? ", " : "", name);
			}
			if (!info->NextEntryOffset)
				break;
			p += info->NextEntryOffset;
		}
	}
	upmc_format(why, size, "ETW offers no PMC source '%s' here (offered: %s)", names[0],
	            offered[0] ? offered : "none");
	return -ENOENT;
}

/* TraceQueryInformation (Windows 8 on), looked up at run time: the i686
 * mingw-w64 import library lacks it. */
typedef ULONG(WINAPI *trace_query_fn)(TRACEHANDLE, TRACE_INFO_CLASS, PVOID, ULONG, PULONG);

static ULONG trace_query(TRACE_INFO_CLASS what, void *buf, ULONG cap, ULONG *len)
{
	HMODULE advapi = GetModuleHandleW(L"advapi32.dll");
	trace_query_fn fn = NULL;

	if (advapi) /* through void (*)(void): no warning for the function type */
		fn = (trace_query_fn)(void (*)(void))GetProcAddress(advapi,
		                                                    "TraceQueryInformation");
	return fn ? fn(0, what, buf, cap, len) : ERROR_NOT_SUPPORTED;
}

int upmc_etw_find_source(const char *const *names, unsigned n_names, ULONG *id, char *why,
                         size_t size)
{
	ULONG len = 0, cap = 64 * 1024, status;
	char *list = malloc(cap);
	int err;

	if (!list)
		return upmc_format(why, size, "out of memory"), -ENOMEM;
	status = trace_query(TraceProfileSourceListInfo, list, cap, &len);
	if (status != ERROR_SUCCESS) {
		free(list);
		return fail_with(status, "TraceQueryInformation(TraceProfileSourceListInfo)", why,
		                 size);
	}
	err = pick_source(list, len < cap ? len : cap, names, n_names, id, why, size);
	free(list);
	return err;
}

/* A session name and .etl path no other process or earlier call uses. */
static void make_names(struct upmc_etw *e)
{
	static LONG calls;
	WCHAR dir[PATH_CHARS - 40];
	DWORD got = GetTempPathW(PATH_CHARS - 40, dir);
	unsigned long pid = GetCurrentProcessId(),
	              seq = (unsigned long)InterlockedIncrement(&calls);

	if (!got || got >= PATH_CHARS - 40)
		wcscpy(dir, L".\\");
	swprintf(e->name, sizeof(e->name) / sizeof(e->name[0]), L"upmc-%lx-%lx", pid, seq);
	swprintf(e->file, PATH_CHARS, L"%lsupmc-%lx-%lx.etl", dir, pid, seq);
}

static void fill_properties(struct upmc_etw *e)
{
	EVENT_TRACE_PROPERTIES *props = &e->p.props;

	memset(&e->p, 0, sizeof(e->p));
	props->Wnode.BufferSize = sizeof(e->p);
	props->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
	props->Wnode.ClientContext = 1; /* QueryPerformanceCounter timestamps */
	props->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_SYSTEM_LOGGER_MODE;
	props->EnableFlags = EVENT_TRACE_FLAG_CSWITCH;
	props->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
	props->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + PATH_CHARS * sizeof(WCHAR);
	wcscpy((WCHAR *)(e->p.bytes + props->LogFileNameOffset), e->file);
}

static void stop(struct upmc_etw *e)
{
	fill_properties(e);
	ControlTraceW(e->session, e->name, &e->p.props, EVENT_TRACE_CONTROL_STOP);
}

/* PMC sources first, then the event they attach to (the documented order). */
static int attach_counters(struct upmc_etw *e, const ULONG *sources, char *why, size_t size)
{
	CLASSIC_EVENT_ID cswitch;
	ULONG status;

	status = TraceSetInformation(e->session, TracePmcCounterListInfo, (PVOID)sources,
	                             e->n * (ULONG)sizeof(sources[0]));
	if (status != ERROR_SUCCESS)
		return fail_with(status, "TraceSetInformation(TracePmcCounterListInfo)", why, size);
	memset(&cswitch, 0, sizeof(cswitch));
	cswitch.EventGuid = thread_guid;
	cswitch.Type = CSWITCH_OPCODE;
	status = TraceSetInformation(e->session, TracePmcEventListInfo, &cswitch, sizeof(cswitch));
	if (status != ERROR_SUCCESS)
		return fail_with(status, "TraceSetInformation(TracePmcEventListInfo)", why, size);
	return 0;
}

int upmc_etw_start(const ULONG *sources, unsigned n, struct upmc_etw **out, char *why, size_t size)
{
	struct upmc_etw *e;
	ULONG status;
	int err;

	*out = NULL;
	if (!n || n > UPMC_MAX_COUNTERS)
		return upmc_format(why, size, "no counters to attach"), -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return upmc_format(why, size, "out of memory"), -ENOMEM;
	e->n = n;
	make_names(e);
	fill_properties(e);
	status = StartTraceW(&e->session, e->name, &e->p.props);
	if (status != ERROR_SUCCESS) {
		free(e);
		return fail_with(status, "StartTraceW (a system-logger session)", why, size);
	}
	err = attach_counters(e, sources, why, size);
	if (err < 0) {
		stop(e);
		DeleteFileW(e->file);
		free(e);
		return err;
	}
	*out = e;
	return 0;
}

void upmc_etw_follow(struct upmc_etw *e, DWORD tid)
{
	e->tid = tid;
}

static const EVENT_HEADER_EXTENDED_DATA_ITEM *pmc_item(const EVENT_RECORD *r)
{
	USHORT i;

	for (i = 0; i < r->ExtendedDataCount; i++)
		if (r->ExtendedData[i].ExtType == EVENT_HEADER_EXT_TYPE_PMC_COUNTERS)
			return &r->ExtendedData[i];
	return NULL;
}

/* A CSwitch: the followed thread's slice starts (new) or ends (old). */
static void WINAPI on_event(PEVENT_RECORD r)
{
	struct upmc_etw *e = r->UserContext;
	const EVENT_HEADER_EXTENDED_DATA_ITEM *item;
	const ULONG64 *pmc;
	ULONG new_tid, old_tid;
	unsigned i;

	if (!IsEqualGUID(&r->EventHeader.ProviderId, &thread_guid) ||
	    r->EventHeader.EventDescriptor.Opcode != CSWITCH_OPCODE || r->UserDataLength < 8)
		return;
	memcpy(&new_tid, r->UserData, 4); /* CSwitch: NewThreadId, OldThreadId, ... */
	memcpy(&old_tid, (const char *)r->UserData + 4, 4);
	if (new_tid != e->tid && old_tid != e->tid)
		return;
	item = pmc_item(r);
	if (!item || item->DataSize < e->n * sizeof(ULONG64)) {
		e->short_items++;
		return;
	}
	pmc = (const ULONG64 *)(uintptr_t)item->DataPtr;
	if (old_tid == e->tid && e->in) {
		for (i = 0; i < e->n; i++)
			e->sum[i] += pmc[i] - e->start[i];
		e->slices++;
		e->in = 0;
	}
	if (new_tid == e->tid) {
		memcpy(e->start, pmc, e->n * sizeof(pmc[0]));
		e->switches++;
		e->in = 1;
	}
}

/* Reads the stopped session's file: every event, in time order. */
static int read_file(struct upmc_etw *e, char *why, size_t size)
{
	EVENT_TRACE_LOGFILEW lf;
	TRACEHANDLE h;
	ULONG status;

	memset(&lf, 0, sizeof(lf));
	lf.LogFileName = e->file;
	lf.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
	lf.EventRecordCallback = on_event;
	lf.Context = e;
	h = OpenTraceW(&lf);
	if (h == INVALID_PROCESSTRACE_HANDLE)
		return fail_with(GetLastError(), "OpenTraceW (the session's .etl file)", why, size);
	status = ProcessTrace(&h, 1, NULL, NULL);
	CloseTrace(h);
	if (status != ERROR_SUCCESS && status != ERROR_CANCELLED)
		return fail_with(status, "ProcessTrace", why, size);
	return 0;
}

int upmc_etw_finish(struct upmc_etw *e, uint64_t *values, uint64_t *switches, char *why,
                    size_t size)
{
	unsigned i;
	int err;

	stop(e);
	err = read_file(e, why, size);
	DeleteFileW(e->file);
	if (!err && !e->slices) {
		upmc_format(why, size,
		            "no context switch of the measured thread carried PMC data "
		            "(%u events without counters)",
		            e->short_items);
		err = -ENODATA;
	}
	for (i = 0; !err && i < e->n; i++)
		values[i] = e->sum[i];
	*switches = e->switches;
	free(e);
	return err;
}
