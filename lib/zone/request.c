/* SPDX-License-Identifier: MIT */
/*
 * Zones: `upmc stat --zones`'s request. upmc stat starts the program with
 *
 *   UPMC_STAT_ZONES=<fd>:<spec>[;<name>,<name>...]
 *
 * and the descriptor fd open for writing (a file of its own). When the
 * library is loaded, it reads the variable, trusted only where the process
 * may trust its environment (not set-user-ID: upmc_os_trusted_env()), and
 * checks the descriptor; nothing more happens until the first zone, which
 * opens a profile of spec on every thread. At the process's exit (or the
 * profile's close) the profile's aggregates per thread and zone name go to
 * fd in one write, in the line format of docs/zones.md. Nothing the
 * variable says is a path: the library writes to the descriptor it was
 * given, or to nothing. A malformed request is one line on stderr and is
 * otherwise ignored; nothing here changes the program's exit status.
 *
 * With `upmc stat --zones -I MS`, UPMC_STAT_ZONES_INTERVAL=<ms> has a
 * thread of the library's write the same lines every ms milliseconds, as
 * they stand then, headed "upmc-zones\t1\tinterval\t<pid>\t<ns>" (ns since
 * the profile opened): stat prints the difference between two of them as
 * an interval's zones. The thread is stopped before the report.
 *
 * With `upmc stat --zones --trace FILE`, a second variable,
 *
 *   UPMC_STAT_ZONES_TRACE=<fd>:<perfetto|chrome>
 *
 * names a second descriptor (stat's own file again, not FILE): at the
 * report, the profile's trace goes there in the format asked, behind one
 * line "upmc-trace\t1\t<pid>\t<bytes>", in one write. stat writes FILE.
 *
 * A program that opens its own profile before its first zone keeps it (its
 * counters are what its own exports show): that profile serves the
 * request, with its own counters. One that opens its own profile after its
 * first zone opened the request's keeps its own too: the request's profile
 * is ended there (upmc_zone_end_profile()), the program's open goes on as
 * it would without upmc stat, and the ended profile is reported at the
 * exit, with the moment in an "ended" line.
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/os.h"
#include "zone_internal.h"

#define REQUEST_VARIABLE  "UPMC_STAT_ZONES"
#define TRACE_VARIABLE    "UPMC_STAT_ZONES_TRACE"
#define INTERVAL_VARIABLE "UPMC_STAT_ZONES_INTERVAL"
#define INTERVAL_MAX_MS   86400000
#define REQUEST_MAX       4096

enum request_state {
	REQUEST_NONE,    /* no request, or it was ignored */
	REQUEST_WAITING, /* read: the first zone or profile serves it */
	REQUEST_OPENING, /* a first zone, or the program, is opening a profile for it */
	REQUEST_BOUND,   /* a profile serves it */
	REQUEST_DONE,    /* reported, or no profile could serve it */
};

static struct {
	int state; /* enum request_state, atomic */
	int fd;
	int trace_fd; /* -1: no trace asked */
	enum upmc_format trace_format;
	int own;                       /* the program's own profile serves it */
	unsigned interval_ms;          /* -I: 0 when none */
	struct upmc_os_thread *ticker; /* -I's thread, while it runs */
	int stopping;                  /* ... told to stop */
	int reported;
	uint64_t ended_ns; /* the program opened its own profile then (0: it did not) */
	uint64_t pid;      /* the process of the profile that serves it */
	struct upmc_profile *profile;
	char spec[REQUEST_MAX];
	char names[REQUEST_MAX];
	char note[UPMC_REASON_MAX]; /* why the request's spec did not open */
} request = {.fd = -1, .trace_fd = -1};

static int request_state(void)
{
	return __atomic_load_n(&request.state, __ATOMIC_ACQUIRE);
}

static int move_state(int from, int to)
{
	return __atomic_compare_exchange_n(&request.state, &from, to, 0, __ATOMIC_ACQ_REL,
	                                   __ATOMIC_ACQUIRE);
}

/* ---- the report ---- */

#ifndef _WIN32
/* POSIX 2008's, declared here too: a build that includes <stdio.h> before
 * this file's _GNU_SOURCE (the simulated kernel's, the single file) would
 * not see it. */
FILE *open_memstream(char **buf, size_t *len);

/* The lines, composed in memory and written in one write(2): processes
 * that share the descriptor (exec'd children) append whole reports. */
static int compose(struct upmc_profile *p, int interval, char **buf, size_t *len)
{
	FILE *out = open_memstream(buf, len);
	int err;

	if (!out)
		return -ENOMEM;
	if (interval)
		fprintf(out, "upmc-zones\t1\tinterval\t%llu\t%llu\n",
		        (unsigned long long)upmc_os_process_id(),
		        (unsigned long long)upmc_zone_ns(p, upmc_timestamp()));
	else
		fprintf(out, "upmc-zones\t1\treport\t%llu\t%s\n",
		        (unsigned long long)upmc_os_process_id(), request.own ? "own" : "request");
	if (request.note[0])
		fprintf(out, "note\t%s\n", request.note);
	if (request.ended_ns)
		fprintf(out, "ended\t%llu\n", (unsigned long long)request.ended_ns);
	err = upmc_zone_write_stat(p, out, request.names[0] ? request.names : NULL);
	fprintf(out, "end\n");
	if (fclose(out) != 0 && err == 0)
		err = -ENOMEM;
	return err;
}

/* The trace behind its line, in one buffer: one write(2) keeps the traces
 * of processes that share the descriptor apart. */
static int compose_trace(struct upmc_profile *p, char **buf, size_t *len)
{
	char *body = NULL;
	size_t body_len = 0;
	FILE *out = open_memstream(&body, &body_len);
	int err;

	if (!out)
		return -ENOMEM;
	err = upmc_profile_write(p, request.trace_format, out);
	if (fclose(out) != 0 && err == 0)
		err = -ENOMEM;
	if (err == 0 && !(out = open_memstream(buf, len)))
		err = -ENOMEM;
	if (err == 0) {
		fprintf(out, "upmc-trace\t1\t%llu\t%zu\n", (unsigned long long)upmc_os_process_id(),
		        body_len);
		fwrite(body, 1, body_len, out);
		if (fclose(out) != 0)
			err = -ENOMEM;
	}
	free(body);
	return err;
}

static void write_trace(struct upmc_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	if (request.trace_fd < 0)
		return;
	err = compose_trace(p, &buf, &len);
	if (err == 0)
		err = upmc_os_write_whole(request.trace_fd, buf, len);
	if (err < 0)
		fprintf(stderr, "upmc: the zones' trace for upmc stat was not written: %s\n",
		        strerror(-err));
	free(buf);
}

/* The lines as they stand now, collected first, in one write. */
static int write_lines(struct upmc_profile *p, int interval)
{
	char *buf = NULL;
	size_t len = 0;
	int err;

	upmc_zone_collect(p, 0);
	upmc_zone_collector_lock();
	err = compose(p, interval, &buf, &len);
	upmc_zone_collector_unlock();
	if (err == 0)
		err = upmc_os_write_whole(request.fd, buf, len);
	free(buf);
	return err;
}
#else
static int write_lines(struct upmc_profile *p, int interval)
{
	(void)p;
	(void)interval;
	return -EOPNOTSUPP; /* no request is read there */
}

static void write_trace(struct upmc_profile *p)
{
	(void)p;
}
#endif

/* -I: the lines every interval_ms, until told to stop. A failed write
 * stops it (said once): the report at the exit still goes. */
static void tick(struct upmc_os_thread *self, void *arg)
{
	struct upmc_profile *p = arg;
	int err = 0;

	while (!err) {
		upmc_os_thread_sleep(self, request.interval_ms);
		if (__atomic_load_n(&request.stopping, __ATOMIC_ACQUIRE))
			return;
		err = write_lines(p, 1);
	}
	fprintf(stderr, "upmc: the zones' intervals for upmc stat stop here: %s\n", strerror(-err));
}

static void start_ticker(struct upmc_profile *p)
{
	int err;

	if (!request.interval_ms)
		return;
	err = upmc_os_thread_start(&request.ticker, tick, p);
	if (err < 0)
		fprintf(stderr, "upmc: the zones' intervals for upmc stat did not start: %s\n",
		        strerror(-err));
}

/* Before the report: no interval after it. Not from the ticker's own
 * exit() nor under the collector's lock, which it may wait for. */
static void stop_ticker(void)
{
	struct upmc_os_thread *t = request.ticker;

	if (!t)
		return;
	__atomic_store_n(&request.stopping, 1, __ATOMIC_RELEASE);
	upmc_os_thread_wake(t);
	upmc_os_thread_join(t);
	request.ticker = NULL;
}

/* Once per process: the forked child of a process whose profile serves the
 * request has the parent's profile, which recorded nothing there. */
static void report(struct upmc_profile *p)
{
	int err;

	if (upmc_os_process_id() != request.pid ||
	    __atomic_exchange_n(&request.reported, 1, __ATOMIC_ACQ_REL))
		return;
	if (upmc_zone_collector_held()) /* exit() from a upmc_profile_zones() callback */
		return;
	stop_ticker();
	err = write_lines(p, 0);
	if (err < 0)
		fprintf(stderr, "upmc: the zones' report for upmc stat was not written: %s\n",
		        strerror(-err));
	write_trace(p);
}

static void report_at_close(struct upmc_profile *p)
{
	report(p);
	__atomic_store_n(&request.profile, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&request.state, REQUEST_DONE, __ATOMIC_RELEASE);
}

/* At exit, threads may still record: the collect leaves what they write
 * now, and the profile stays open (a close would wait for them). */
static void report_at_exit(void)
{
	struct upmc_profile *p = __atomic_load_n(&request.profile, __ATOMIC_ACQUIRE);

	if (p)
		report(p);
}

/* This thread's first zone opens the request's profile now. */
static _Thread_local int opening_here;
/* The program's own open holds REQUEST_OPENING (upmc_zone_request_yield()). */
static int own_opening;

void upmc_zone_request_bind(struct upmc_profile *p)
{
	int state = request_state();

	if (state != REQUEST_OPENING)
		return; /* no request, or served already: the profile is the program's alone */
	request.own = own_opening; /* else the first zone's open of the request's spec */
	request.pid = upmc_os_process_id();
	request.profile = p;
	p->at_report = report_at_close;
	upmc_zone_on_first_zone(NULL);
	atexit(report_at_exit);
	start_ticker(p);
	if (own_opening) {
		own_opening = 0;
		__atomic_store_n(&request.state, REQUEST_BOUND, __ATOMIC_RELEASE);
	}
}

int upmc_zone_request_opening(void)
{
	return opening_here;
}

/*
 * Before the program's own upmc_profile_open(), one at a time with the
 * request's first zone. While the request waits, the program's open takes
 * it (returns 1: its profile will serve the request, marked own; a first
 * zone meanwhile waits for it). While the request's profile serves it, the
 * program's open ends it, so that the open succeeds as it would without
 * upmc stat; the ended profile is reported at the exit as it was then. A
 * forked child's copy recorded nothing there: the child's open finds no
 * profile open already.
 */
int upmc_zone_request_yield(void)
{
	struct upmc_profile *p;
	int state;

	if (opening_here)
		return 0; /* the first zone's own open */
	while ((state = request_state()) == REQUEST_OPENING ||
	       (state == REQUEST_WAITING && !move_state(REQUEST_WAITING, REQUEST_OPENING)))
		; /* another thread opens a profile for it: a few system calls */
	if (state == REQUEST_WAITING) {
		own_opening = 1;
		return 1;
	}
	p = __atomic_load_n(&request.profile, __ATOMIC_ACQUIRE);
	if (!p || request.own || upmc_os_process_id() != request.pid ||
	    !move_state(REQUEST_BOUND, REQUEST_DONE))
		return 0;
	request.ended_ns = upmc_zone_ns(p, upmc_timestamp());
	request.ended_ns += !request.ended_ns; /* 0 says "not ended" */
	upmc_zone_end_profile(p);
	return 0;
}

/* The program's own open failed: the request waits again. */
void upmc_zone_request_unclaim(int claimed)
{
	if (!claimed)
		return;
	own_opening = 0;
	__atomic_store_n(&request.state, REQUEST_WAITING, __ATOMIC_RELEASE);
}

/* ---- the first zone ---- */

/* The spec as asked; where it cannot be counted here, its time only,
 * with the reason in the report (each counter then reads not counted). */
static void open_requested(void)
{
	struct upmc_profile_options opts = {sizeof(opts), UPMC_OPT_TIME_ONLY, 0, 0, 0};
	struct upmc_profile *p;

	if (upmc_profile_open(&p, request.spec, NULL) == 0)
		return;
	upmc_format(request.note, sizeof(request.note), "%s", upmc_last_error());
	if (upmc_profile_open(&p, request.spec, &opts) == 0 ||
	    upmc_profile_open(&p, NULL, NULL) == 0)
		return;
	fprintf(stderr, "upmc: upmc stat --zones: no profile could be opened: %s\n",
	        upmc_last_error());
}

static void first_zone(void)
{
	if (move_state(REQUEST_WAITING, REQUEST_OPENING)) {
		opening_here = 1;
		open_requested(); /* binds it (upmc_zone_request_bind) */
		opening_here = 0;
		if (!request.profile)
			upmc_zone_on_first_zone(
			        NULL); /* none: zones go back to their inline test */
		__atomic_store_n(&request.state, request.profile ? REQUEST_BOUND : REQUEST_DONE,
		                 __ATOMIC_RELEASE);
		return;
	}
	while (request_state() == REQUEST_OPENING)
		; /* another thread's first zone opens it: a few system calls */
}

/* ---- the variable ---- */

/* 0, or -EINVAL with why in why. */
static int parse(const char *value, char *why, size_t size)
{
	const char *colon = strchr(value, ':'), *semi;
	char *end;
	long fd;
	int err;

	if (strlen(value) >= REQUEST_MAX) {
		upmc_format(why, size, "longer than %d bytes", REQUEST_MAX - 1);
		return -EINVAL;
	}
	errno = 0;
	fd = strtol(value, &end, 10);
	if (!colon || end != colon || value[0] < '0' || value[0] > '9' || errno || fd > 1 << 20) {
		upmc_format(why, size, "it does not start with a descriptor number and ':'");
		return -EINVAL;
	}
	err = upmc_os_request_fd((int)fd);
	if (err < 0) {
		upmc_format(why, size, "descriptor %ld is not a file or pipe open for writing", fd);
		return err;
	}
	semi = strchr(colon + 1, ';');
	upmc_format(request.spec, sizeof(request.spec), "%.*s",
	            (int)(semi ? semi - colon - 1 : (long)strlen(colon + 1)), colon + 1);
	upmc_format(request.names, sizeof(request.names), "%s", semi ? semi + 1 : "");
	request.fd = (int)fd;
	return 0;
}

/* The trace's descriptor and format; 0, or -EINVAL with why in why. */
static int parse_trace(const char *value, char *why, size_t size)
{
	const char *colon = strchr(value, ':');
	char *end;
	long fd;

	errno = 0;
	fd = strtol(value, &end, 10);
	if (!colon || end != colon || value[0] < '0' || value[0] > '9' || errno || fd > 1 << 20) {
		upmc_format(why, size, "it does not start with a descriptor number and ':'");
		return -EINVAL;
	}
	if (strcmp(colon + 1, "perfetto") && strcmp(colon + 1, "chrome")) {
		upmc_format(why, size, "the format is not perfetto or chrome");
		return -EINVAL;
	}
	if (upmc_os_request_fd((int)fd) < 0) {
		upmc_format(why, size, "descriptor %ld is not a file or pipe open for writing", fd);
		return -EINVAL;
	}
	request.trace_fd = (int)fd;
	request.trace_format =
	        strcmp(colon + 1, "chrome") ? UPMC_FORMAT_PERFETTO : UPMC_FORMAT_CHROME;
	return 0;
}

/* -I's milliseconds; 0, or -EINVAL with why in why. */
static int parse_interval(const char *value, char *why, size_t size)
{
	char *end;
	long ms;

	errno = 0;
	ms = strtol(value, &end, 10);
	if (value[0] < '0' || value[0] > '9' || *end || errno || ms < 1 || ms > INTERVAL_MAX_MS) {
		upmc_format(why, size, "it is not a number of milliseconds from 1 to %d",
		            INTERVAL_MAX_MS);
		return -EINVAL;
	}
	request.interval_ms = (unsigned)ms;
	return 0;
}

/* A line that says upmc stat's request reached a process with the library:
 * upmc stat tells a program without zones from one without upmc. */
static void say_loaded(void)
{
	char line[64];

	upmc_format(line, sizeof(line), "upmc-zones\t1\tloaded\t%llu\n",
	            (unsigned long long)upmc_os_process_id());
	upmc_os_write_whole(request.fd, line, strlen(line));
}

/* At load: a getenv, no allocation, nothing opened. */
__attribute__((constructor)) static void read_request(void)
{
	const char *value = upmc_os_trusted_env(REQUEST_VARIABLE);
	char why[160];

	if (!value)
		return;
	if (parse(value, why, sizeof(why)) < 0) {
		fprintf(stderr, "upmc: " REQUEST_VARIABLE " ignored: %s\n", why);
		return;
	}
	value = upmc_os_trusted_env(TRACE_VARIABLE);
	if (value && parse_trace(value, why, sizeof(why)) < 0)
		fprintf(stderr, "upmc: " TRACE_VARIABLE " ignored: %s\n", why);
	value = upmc_os_trusted_env(INTERVAL_VARIABLE);
	if (value && parse_interval(value, why, sizeof(why)) < 0)
		fprintf(stderr, "upmc: " INTERVAL_VARIABLE " ignored: %s\n", why);
	say_loaded();
	__atomic_store_n(&request.state, REQUEST_WAITING, __ATOMIC_RELEASE);
	upmc_zone_on_first_zone(first_zone);
}
