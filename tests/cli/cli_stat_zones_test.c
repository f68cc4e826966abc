/* SPDX-License-Identifier: MIT */
/*
 * `upmc stat --zones`: a program's own zones, counted by the library in it
 * at stat's request (UPMC_STAT_ZONES and an inherited descriptor).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/cli/cli_run.h"
#include "tests/cli/json_doc.h"
#include "tests/perfetto/decode.h"
#include "tests/upmc_test.h"

#define EVENTS "task-clock,page-faults,context-switches"

/* A CSV zone row of stat's report: zone,NAME,THREAD,calls,total,self,counters... */
struct csv_zone {
	char name[128], thread[128];
	unsigned long long calls, total_ns, self_ns, count[3];
};

/* The row of name (and thread: "" for all of them) in stat's CSV; 0 when found. */
static int csv_zone(const char *text, const char *name, const char *thread, struct csv_zone *z)
{
	const char *line = text;

	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char buf[1024];
		size_t len = strcspn(line, "\n");
		char *f[16], *p = buf;
		int n = 0;
		if (len >= sizeof(buf) || strncmp(line, "zone,", 5))
			continue;
		memcpy(buf, line, len);
		buf[len] = '\0';
		while (n < 16 && (f[n++] = strsep(&p, ",")))
			;
		n--;
		if (n < 9 || strcmp(f[1], name) || strcmp(f[2], thread))
			continue;
		snprintf(z->name, sizeof(z->name), "%s", f[1]);
		snprintf(z->thread, sizeof(z->thread), "%s", f[2]);
		z->calls = strtoull(f[3], NULL, 10);
		z->total_ns = strtoull(f[4], NULL, 10);
		z->self_ns = strtoull(f[5], NULL, 10);
		z->count[0] = strtoull(f[6], NULL, 10);
		z->count[1] = strtoull(f[7], NULL, 10);
		z->count[2] = strtoull(f[8], NULL, 10);
		return 0;
	}
	return -1;
}

static unsigned zone_rows(const char *text)
{
	unsigned n = 0;
	const char *p;

	for (p = text; (p = strstr(p, "\nzone,")); p++)
		n++;
	return n;
}

/* frame_zones prints its own table (upmc_profile_print()): a row is the
 * name (it may have spaces), calls, total, self, mean, median and max us,
 * and the three counters. */
struct own_row {
	unsigned long long calls, count[3];
	double total_us, self_us;
};

static int own_row(const char *table, const char *name, struct own_row *o)
{
	const char *line;
	size_t len = strlen(name);

	for (line = table; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		double mean, median, max;
		if (strncmp(line, name, len) || line[len] != ' ')
			continue;
		if (sscanf(line + len, "%llu %lf %lf %lf %lf %lf %llu %llu %llu", &o->calls,
		           &o->total_us, &o->self_us, &mean, &median, &max, &o->count[0],
		           &o->count[1], &o->count[2]) == 9)
			return 0;
	}
	return -1;
}

/* A zone name and the calls the program makes of it. */
struct expected {
	const char *name;
	unsigned long long calls;
};

/* Per zone name: what stat reports (CSV, on stderr) equals what the
 * program's own table (on stdout) says for the same run, the program's own
 * profile having served the request; the calls are exact. */
static void expect_its_own_export(const struct cli_result *r, const struct expected *e, size_t n)
{
	size_t i;

	EXPECT_EQ(zone_rows(r->err), (unsigned)n);
	for (i = 0; i < n; i++) {
		struct csv_zone z;
		struct own_row o;
		ASSERT_MSG(csv_zone(r->err, e[i].name, "", &z) == 0, "%s in:\n%s", e[i].name,
		           r->err);
		ASSERT_MSG(own_row(r->out, e[i].name, &o) == 0, "%s in:\n%s", e[i].name, r->out);
		EXPECT_EQ_U64(z.calls, o.calls);
		EXPECT_EQ_U64(z.calls, e[i].calls);
		EXPECT_EQ_U64(z.count[0], o.count[0]);
		EXPECT_EQ_U64(z.count[1], o.count[1]);
		EXPECT_EQ_U64(z.count[2], o.count[2]);
		/* the table rounds to 1 ns; each thread's sum was rounded apart */
		EXPECT(z.total_ns / 1e3 - o.total_us < 0.004 &&
		       o.total_us - z.total_ns / 1e3 < 0.004);
		EXPECT(z.self_ns / 1e3 - o.self_us < 0.004 && o.self_us - z.self_ns / 1e3 < 0.004);
	}
}

TEST(stat_zones, frame_zones_totals_equal_its_own_export)
{
	static const struct expected zones[] = {
	        {"frame", 60},      {"physics", 60}, {"start jobs", 60}, {"wait for jobs", 60},
	        {"integrate", 180}, {"job", 120},    {"render", 60},     {"collide", 60},
	        {"cull", 60},       {"draw", 60},    {"skin", 180},      {"animation", 60},
	        {"input", 60}};
	struct cli_result r;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/frames",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--", "examples/frame_zones",
	        dir, EVENTS);
	EXPECT_EQ(r.status, 0);
	expect_its_own_export(&r, zones, sizeof(zones) / sizeof(zones[0]));
	cli_result_free(&r);
}

static const struct expected workload_zones[] = {{"outer", 10}, {"inner", 30}, {"work", 5}};

/* C++: upmc::Zone (its macros, one in a function template) and
 * upmc::Profile. */
TEST(stat_zones, a_cxx_programs_totals_equal_its_own_export)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_cxx_workload", EVENTS);
	EXPECT_EQ(r.status, 0);
	expect_its_own_export(&r, workload_zones, 3);
	cli_result_free(&r);
}

/* Python: the package's upmc.zone and upmc.Profile over libupmc-ffi.so,
 * loaded by ctypes after the interpreter started (the request is read at
 * the library's load). */
TEST(stat_zones, a_python_programs_totals_equal_its_own_export)
{
	char lib[4096], path[4096];
	struct cli_result r;

	if (SANITIZER_FAULTS)
		SKIP("the library is built with a sanitizer, whose runtime the Python "
		     "interpreter did not load first: tools/ci-python.sh runs the package "
		     "under ASan");
	if (access("/usr/bin/python3", X_OK) != 0)
		SKIP("no /usr/bin/python3 here");
	ASSERT(realpath("libupmc-ffi.so", lib) && realpath("python", path));
	setenv("UPMC_LIBRARY", lib, 1);
	setenv("PYTHONPATH", path, 1);
	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--", "/usr/bin/python3",
	        "tests/cli/zone_python_workload.py", EVENTS);
	unsetenv("UPMC_LIBRARY");
	unsetenv("PYTHONPATH");
	EXPECT_EQ(r.status, 0);
	expect_its_own_export(&r, workload_zones, 3);
	cli_result_free(&r);
}

/* Hardware events this machine lacks, counted by the fake kernel that
 * tests/cli/zone_fake_workload is linked over: 1 per ns of its time, so
 * each counter totals 25000 over outer's calls and 15000 over inner's,
 * whether the request's profile counts them or the program's own, whose
 * table then says the same as stat's. */
#define HW_EVENTS "cycles,instructions,branches"
static const struct expected fake_zones[] = {{"outer", 10}, {"inner", 30}};

/* Stat's CSV has these zones' rows (all threads), and only these, with
 * their calls. */
static void expect_calls(const char *csv, const struct expected *e, size_t n)
{
	struct csv_zone z;
	size_t i;

	EXPECT_EQ(zone_rows(csv), (unsigned)n);
	for (i = 0; i < n; i++) {
		ASSERT_MSG(csv_zone(csv, e[i].name, "", &z) == 0, "%s in:\n%s", e[i].name, csv);
		EXPECT_EQ_U64(z.calls, e[i].calls);
	}
}

static void expect_fake_counts(const char *csv)
{
	struct csv_zone z;
	unsigned c;

	ASSERT(csv_zone(csv, "outer", "", &z) == 0);
	for (c = 0; c < 3; c++)
		EXPECT_EQ_U64(z.count[c], 25000);
	ASSERT(csv_zone(csv, "inner", "", &z) == 0);
	for (c = 0; c < 3; c++)
		EXPECT_EQ_U64(z.count[c], 15000);
}

TEST(stat_zones, hardware_events_of_the_fake_kernel_in_the_requests_profile)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", HW_EVENTS, "--",
	        "tests/cli/zone_fake_workload", "request");
	EXPECT_EQ(r.status, 0);
	expect_calls(r.err, fake_zones, 2);
	expect_fake_counts(r.err);
	cli_result_free(&r);
}

TEST(stat_zones, hardware_events_of_the_fake_kernel_equal_its_own_export)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", HW_EVENTS, "--",
	        "tests/cli/zone_fake_workload", HW_EVENTS);
	EXPECT_EQ(r.status, 0);
	expect_its_own_export(&r, fake_zones, 2);
	expect_fake_counts(r.err);
	cli_result_free(&r);
}

/* A program with no profile of its own: the request's, with -e's events,
 * on every thread; calls exact; the exit status is the program's. */
TEST(stat_zones, the_requests_profile_counts_every_thread)
{
	struct cli_result r;
	struct csv_zone z;

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	EXPECT_EQ(r.status, 3);
	ASSERT(csv_zone(r.err, "outer", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 10);
	EXPECT(z.count[1] >= 10 * 3 * 16); /* the pages inner touched */
	ASSERT(csv_zone(r.err, "inner", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 30);
	EXPECT(z.count[1] >= 30 * 16);
	EXPECT(z.count[0] > 0);
	ASSERT(csv_zone(r.err, "work", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 10);
	EXPECT(z.count[1] >= 10 * 4);
	EXPECT_EQ(zone_rows(r.err), 3u);
	cli_result_free(&r);
}

/* --zones=NAMES: those rows only, and the named zones together (inner is
 * inside outer: counted once). */
TEST(stat_zones, names_restrict_exactly)
{
	struct cli_result r;
	struct csv_zone z, outer, work;

	CLI_RUN(r, NULL, "stat", "--zones=outer,inner,work", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	ASSERT(csv_zone(r.err, "outer", "", &outer) == 0);
	ASSERT(csv_zone(r.err, "work", "", &work) == 0);
	ASSERT(csv_zone(r.err, "(together)", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 20); /* 10 outer (their inner inside) + 10 work */
	EXPECT_EQ_U64(z.total_ns, outer.total_ns + work.total_ns);
	EXPECT_EQ_U64(z.count[1], outer.count[1] + work.count[1]);
	EXPECT_EQ(zone_rows(r.err), 4u);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "--zones=work", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	EXPECT(csv_zone(r.err, "work", "", &z) == 0);
	EXPECT(csv_zone(r.err, "outer", "", &z) < 0);
	EXPECT(csv_zone(r.err, "inner", "", &z) < 0);
	EXPECT_EQ(zone_rows(r.err), 2u); /* work and (together) */
	cli_result_free(&r);
}

TEST(stat_zones, per_thread_rows_add_up)
{
	struct cli_result r;
	struct csv_zone all, z;
	const char *p;
	unsigned long long calls = 0;
	unsigned threads = 0;

	CLI_RUN(r, NULL, "stat", "--zones", "--per-thread", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	ASSERT(csv_zone(r.err, "work", "", &all) == 0);
	for (p = r.err; (p = strstr(p, "\nzone,work,worker")); p++) {
		char thread[64];
		size_t n = strcspn(p + 11, ",");
		snprintf(thread, sizeof(thread), "%.*s", (int)n,
		         p + 11); /* "worker-TID", "worker #3-TID" */
		ASSERT(csv_zone(r.err, "work", thread, &z) == 0);
		EXPECT_EQ_U64(z.calls, 5);
		calls += z.calls;
		threads++;
	}
	EXPECT_EQ(threads, 2u);
	EXPECT_EQ_U64(calls, all.calls);
	cli_result_free(&r);
}

TEST(stat_zones, json_has_the_zones)
{
	struct cli_result r;
	struct jdoc *doc;
	const struct jdoc *zones, *list, *z;
	char err[256];
	size_t i;
	int seen = 0;

	CLI_RUN(r, NULL, "stat", "--zones", "-j", "-e", EVENTS, "--", "tests/cli/zone_workload",
	        "zones");
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "%s", err);
	EXPECT_EQ((int)jdoc_number(doc, "exit_status", -1), 3);
	zones = jdoc_get(doc, "zones");
	ASSERT(zones);
	EXPECT_EQ((int)jdoc_number(zones, "processes", -1), 1);
	list = jdoc_get(zones, "zones");
	ASSERT(list);
	for (i = 0; (z = jdoc_at(list, i)); i++) {
		const struct jdoc *counters = jdoc_get(z, "counters"), *pf;
		if (strcmp(jdoc_string(z, "name"), "inner"))
			continue;
		seen = 1;
		EXPECT_EQ((int)jdoc_number(z, "calls", -1), 30);
		pf = jdoc_at(counters, 1);
		ASSERT(pf);
		EXPECT(!strcmp(jdoc_string(pf, "name"), "page-faults"));
		EXPECT(!strcmp(jdoc_string(pf, "status"), "counted"));
		EXPECT(jdoc_number(pf, "value", 0) >= 480);
	}
	EXPECT(seen);
	jdoc_free(doc);
	cli_result_free(&r);
}

TEST(stat_zones, a_program_without_zones_is_told_how_to_add_them)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "--zones", "-e", "task-clock", "--", "tests/cli/zone_workload",
	        "none");
	EXPECT_EQ(r.status, 0);
	EXPECT(strstr(r.err, "ran no zone: put UPMC_ZONE(\"name\")") != NULL);
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "--zones", "-e", "task-clock", "--", "true");
	EXPECT(strstr(r.err, "does not use upmc's library") != NULL);
	cli_result_free(&r);
}

/* The calls of name's row in a table of upmc_profile_write() (the name,
 * then its calls); 0 when there is no such row. */
static unsigned long long own_calls(const char *table, const char *name)
{
	const char *line;
	size_t len = strlen(name);
	unsigned long long calls;

	for (line = table; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, name, len) && line[len] == ' ' &&
		    sscanf(line + len, "%llu", &calls) == 1)
			return calls;
	return 0;
}

/* The program opens its own profile after its first zones opened the
 * request's: its open succeeds (a failed one exits 4), its own profile
 * holds what came after, on both threads; stat's tables hold what came
 * before, and one sentence says when the program took over. */
TEST(stat_zones, a_program_that_opens_its_own_profile_keeps_it)
{
	struct cli_result r;
	struct csv_zone z;
	struct jdoc *doc;
	const struct jdoc *zones, *opened;
	char err[256];

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "own");
	EXPECT_EQ(r.status, 3);
	ASSERT(csv_zone(r.err, "before", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 10);
	EXPECT(z.count[1] >= 10 * 4);
	ASSERT(csv_zone(r.err, "work", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 5);
	EXPECT_EQ(zone_rows(r.err), 2u);
	EXPECT(strstr(r.err, "\n# process ") != NULL);
	EXPECT(strstr(r.err, " opened its own profile ") != NULL);
	/* its own table: what came after, and nothing of before */
	EXPECT_EQ_U64(own_calls(r.out, "after"), 20);
	EXPECT_EQ_U64(own_calls(r.out, "work after"), 5);
	EXPECT_EQ_U64(own_calls(r.out, "before"), 0);
	EXPECT(strstr(r.out, "\nwork ") == NULL || strstr(r.out, "\nwork after") != NULL);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "--zones", "-e", EVENTS, "--", "tests/cli/zone_workload", "own");
	EXPECT_EQ(r.status, 3);
	EXPECT(strstr(r.err, "its zones are counted up to then, the rest are in its own "
	                     "profile's exports") != NULL);
	EXPECT(strstr(r.err, "opened its own profile: its counters") == NULL);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "--zones", "-j", "-e", EVENTS, "--", "tests/cli/zone_workload",
	        "own");
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "%s", err);
	zones = jdoc_get(doc, "zones");
	ASSERT(zones);
	opened = jdoc_get(zones, "own_profile_opened");
	ASSERT(opened);
	EXPECT(jdoc_number(opened, "pid", 0) > 0);
	EXPECT(jdoc_number(opened, "after_ns", 0) > 0);
	jdoc_free(doc);
	cli_result_free(&r);
}

/* The program opens its own profile while another thread is inside zone
 * calls flat out: nothing is freed under it, and no zone is counted twice.
 * stat's report has every zone begun before the open (but one, that may be
 * open across it), the program's own table every zone begun after the open
 * returned (but one); those in between, while neither profile was open,
 * are in neither, as without upmc stat. */
TEST(stat_zones, own_profile_opened_while_another_thread_records)
{
	struct cli_result r;
	struct csv_zone z;
	unsigned long long before, after, spins, own;

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "own-busy");
	EXPECT_EQ(r.status, 3);
	ASSERT_MSG(sscanf(r.out, "spins %llu %llu %llu", &before, &after, &spins) == 3, "%s",
	           r.out);
	ASSERT_MSG(csv_zone(r.err, "spin", "", &z) == 0, "%s", r.err);
	own = own_calls(r.out, "spin");
	EXPECT_MSG(z.calls + 1 >= before && z.calls <= after, "%llu in stat's report, %llu %llu",
	           z.calls, before, after);
	EXPECT_MSG(own + 1 >= spins - after && own <= spins - before, "%llu in its own, %llu %llu",
	           own, after, spins);
	EXPECT(z.calls + own <= spins);
	cli_result_free(&r);
}

/* -I: each interval's zones, behind its time; over the intervals, each
 * name's calls and counts add up to the whole run's table exactly. */
TEST(stat_zones, intervals_add_up_to_the_whole_run)
{
	struct cli_result r;
	struct csv_zone whole;
	unsigned long long calls = 0, faults = 0, total_ns = 0;
	unsigned intervals = 0;
	const char *line;

	CLI_RUN(r, NULL, "stat", "--zones", "-I", "10", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "paced");
	EXPECT_EQ(r.status, 3);
	EXPECT(strstr(r.err, "\n# time,zone,name,thread,calls,total ns,self ns,task-clock,"
	                     "page-faults,context-switches\n") != NULL);
	for (line = r.err; line && *line;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		char time[32];
		struct csv_zone z;
		const char *comma = strchr(line, ',');
		if (!comma || strncmp(comma, ",zone,tick,", 11) || comma - line >= 32)
			continue;
		snprintf(time, sizeof(time), "%.*s", (int)(comma - line), line);
		EXPECT(csv_zone(comma + 1, "tick", "", &z) == 0);
		EXPECT(z.calls > 0);
		calls += z.calls;
		faults += z.count[1];
		total_ns += z.total_ns;
		intervals++;
	}
	EXPECT_MSG(intervals >= 2, "%u intervals with zones:\n%s", intervals, r.err);
	ASSERT(csv_zone(r.err, "tick", "", &whole) == 0); /* the whole run's, after */
	EXPECT_EQ_U64(whole.calls, 20);
	EXPECT_EQ_U64(calls, whole.calls);
	EXPECT_EQ_U64(faults, whole.count[1]);
	EXPECT_EQ_U64(total_ns, whole.total_ns);
	cli_result_free(&r);

	/* --zones=NAMES: each interval's (together) row too */
	CLI_RUN(r, NULL, "stat", "--zones=tick", "-I", "10", "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "paced");
	calls = 0;
	for (line = r.err; (line = strstr(line, ",zone,(together),,")); line++)
		if (line[-1] >= '0' && line[-1] <= '9') /* behind a time: an interval's */
			calls += strtoull(line + strlen(",zone,(together),,"), NULL, 10);
	EXPECT_EQ_U64(calls, 20);
	cli_result_free(&r);
}

TEST(stat_zones, intervals_in_text_and_json)
{
	struct cli_result r;
	const char *p;
	unsigned long long calls = 0;
	unsigned lines = 0;

	CLI_RUN(r, NULL, "stat", "--zones", "-I", "10", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "paced");
	EXPECT_EQ(r.status, 3);
	EXPECT(strstr(r.err, "#           time zone ") != NULL);
	for (p = r.err; (p = strstr(p, " tick ")); p++) {
		unsigned long long n;
		if (p[-1] < '0' || p[-1] > '9' || sscanf(p + 6, "%llu", &n) != 1)
			continue; /* the whole run's table: " tick" at the line's start */
		calls += n;
	}
	EXPECT_EQ_U64(calls, 20);
	cli_result_free(&r);

	CLI_RUN(r, NULL, "stat", "--zones", "-I", "10", "-j", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "paced");
	EXPECT_EQ(r.status, 3);
	calls = 0;
	for (p = r.err; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		char err[256], *one = strndup(p, strcspn(p, "\n"));
		struct jdoc *doc = jdoc_parse(one, err, sizeof(err));
		const struct jdoc *zones, *z;
		size_t i;
		free(one);
		ASSERT_MSG(doc, "%s", err);
		zones = jdoc_get(doc, "zones");
		if (jdoc_get(doc, "interval")) {
			ASSERT(zones);
			lines++;
			for (i = 0; (z = jdoc_at(zones, i)); i++)
				if (!strcmp(jdoc_string(z, "name"), "tick"))
					calls += (unsigned long long)jdoc_number(z, "calls", 0);
		}
		jdoc_free(doc);
	}
	EXPECT(lines >= 2);
	EXPECT_EQ_U64(calls, 20);
	cli_result_free(&r);
}

/* Runs prog with UPMC_STAT_ZONES=value and descriptor 7 on the file out;
 * returns its exit status, its stderr in err. */
static int run_with_request(const char *prog, const char *arg, const char *value, const char *out,
                            char *err, size_t size)
{
	char cmd[16384], errfile[4096];
	FILE *f;
	size_t n;
	int status;

	snprintf(errfile, sizeof(errfile), "%s/request.err",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
	snprintf(cmd, sizeof(cmd), "UPMC_STAT_ZONES='%s' %s %s 7>>%s 2>%s >/dev/null", value, prog,
	         arg, out, errfile);
	status = system(cmd);
	f = fopen(errfile, "r");
	n = f ? fread(err, 1, size - 1, f) : 0;
	err[n] = '\0';
	if (f)
		fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

TEST(stat_zones, a_garbage_request_is_one_line_and_nothing_else)
{
	static const char *const garbage[] = {"",
	                                      "x",
	                                      "7",
	                                      "-1:cycles",
	                                      "99:task-clock",
	                                      "7x:task-clock",
	                                      "0:task-clock",
	                                      "99999999999999999999:cycles"};
	char out[4096], err[4096];
	unsigned i;

	snprintf(out, sizeof(out), "%s/garbage.out",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		unlink(out);
		EXPECT_EQ(run_with_request("tests/cli/zone_workload", "zones", garbage[i], out, err,
		                           sizeof(err)),
		          3);
		if (garbage[i][0]) {
			EXPECT_MSG(strstr(err, "UPMC_STAT_ZONES ignored") != NULL, "%s: %s",
			           garbage[i], err);
			EXPECT_MSG(strchr(err, '\n') == strrchr(err, '\n'), "%s",
			           garbage[i]); /* one line */
		}
		EXPECT_EQ(file_size(out), 0);
	}
	/* a spec that cannot open: time only, said in the report */
	unlink(out);
	EXPECT_EQ(run_with_request("tests/cli/zone_workload", "zones", "7:no-such-event", out, err,
	                           sizeof(err)),
	          3);
	EXPECT(file_size(out) > 0);
}

/* A set-user-ID copy ignores the request: secure_getenv() returns NULL
 * when the kernel sets AT_SECURE, which it does where the effective user
 * differs from the real one: root runs a copy owned by nobody with u+s. */
TEST(stat_zones, a_set_user_id_program_ignores_the_request)
{
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char copy[4096], out[4096], cmd[16384], err[4096], ids[64] = "";
	unsigned uid = 1, euid = 1;
	FILE *f;

	if (getuid() != 0)
		SKIP("needs root, to give a copy to another user with u+s");
	snprintf(copy, sizeof(copy), "%s/zone_workload_suid", tmp);
	snprintf(out, sizeof(out), "%s/suid.out", tmp);
	snprintf(cmd, sizeof(cmd),
	         "cp tests/cli/zone_workload %s && chmod 755 %s && chmod 711 %s && chown 65534 %s "
	         "&& "
	         "chmod u+s %s",
	         copy, tmp, tmp, copy, copy);
	if (system(cmd) != 0)
		SKIP("cannot give a copy to user 65534 with u+s here (a sandbox's user "
		     "namespace?)");
	snprintf(cmd, sizeof(cmd), "%s ids", copy);
	f = popen(cmd, "r");
	ASSERT(f);
	if (!fgets(ids, sizeof(ids), f))
		ids[0] = '\0';
	pclose(f);
	if (sscanf(ids, "%u %u", &uid, &euid) != 2 || uid == euid)
		SKIP("the copy ran with its user's own id (a nosuid mount?): no AT_SECURE here");
	/* the plain program takes the request; its set-user-ID copy does not */
	unlink(out);
	EXPECT_EQ(run_with_request("tests/cli/zone_workload", "zones", "7:task-clock", out, err,
	                           sizeof(err)),
	          3);
	EXPECT(file_size(out) > 0);
	unlink(out);
	EXPECT_EQ(run_with_request(copy, "zones", "7:task-clock", out, err, sizeof(err)), 3);
	EXPECT_EQ(file_size(out), 0);
	EXPECT_MSG(err[0] == 0, "%s", err);
}

/* Processes the command execs inherit the request: each reports its
 * zones, added up by name. */
TEST(stat_zones, execd_children_are_merged_by_name)
{
	struct cli_result r;
	struct csv_zone z;

	CLI_RUN(r, NULL, "stat", "--zones", "-x", ",", "-e", EVENTS, "--", "sh", "-c",
	        "tests/cli/zone_workload zones; tests/cli/zone_workload zones; exit 0");
	EXPECT_EQ(r.status, 0);
	ASSERT(csv_zone(r.err, "outer", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 20);
	ASSERT(csv_zone(r.err, "inner", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 60);
	ASSERT(csv_zone(r.err, "work", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 20);
	cli_result_free(&r);
}

/* -r N: each zone's means over the runs. Run k of the command runs the
 * workload k times (a file counts the runs), so the calls' means are
 * exact and differ from any one run's: 10, 20, 30 outer calls, mean 20. */
TEST(stat_zones, repeat_means_over_the_runs)
{
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char script[16384], counter[4096];
	const char *head, *row;
	struct cli_result r;
	struct csv_zone z;

	snprintf(counter, sizeof(counter), "%s/repeat.runs", tmp);
	unlink(counter);
	snprintf(script, sizeof(script),
	         "echo >> %s; n=$(wc -l < %s); while [ $n -gt 0 ]; do "
	         "tests/cli/zone_workload zones; n=$((n - 1)); done; exit 0",
	         counter, counter);
	CLI_RUN(r, NULL, "stat", "--zones", "-r", "3", "-x", ",", "-e", EVENTS, "--", "sh", "-c",
	        script);
	EXPECT_EQ(r.status, 0);
	ASSERT(csv_zone(r.err, "outer", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 20);
	EXPECT(z.count[1] >= 20 * 3 * 16); /* the mean of the pages inner touched */
	ASSERT(csv_zone(r.err, "inner", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 60);
	ASSERT(csv_zone(r.err, "work", "", &z) == 0);
	EXPECT_EQ_U64(z.calls, 20);
	/* the spreads at the rows' end: total time's, then each counter's */
	head = strstr(r.err, "# zone,");
	ASSERT(head);
	EXPECT(strstr(head, ",total ns +-,task-clock +-,page-faults +-,context-switches +-\n") !=
	       NULL);
	row = strstr(r.err, "\nzone,inner,");
	ASSERT(row);
	EXPECT_EQ(cli_csv_fields(row + 1), 6 + 3 + 1 + 3);
	EXPECT(strchr(row + 1, '%') && strchr(row + 1, '%') < strchr(row + 1, '\n'));
	cli_result_free(&r);

	/* text: a +- column after the total time and after each counter */
	unlink(counter);
	CLI_RUN(r, NULL, "stat", "--zones", "-r", "3", "-e", EVENTS, "--", "sh", "-c", script);
	EXPECT(strstr(r.err, "the means of 3 runs") != NULL);
	EXPECT(strstr(r.err, "total msec       +-") != NULL);
	EXPECT(strstr(r.err, "page-faults       +-") != NULL);
	EXPECT(strstr(r.err, "+-: the standard deviation of the mean") != NULL);
	cli_result_free(&r);
}

/* -r N with -j: the means, the runs, and each figure's spread. */
TEST(stat_zones, repeat_json_has_the_spreads)
{
	const struct jdoc *zones, *list, *z, *pf;
	struct cli_result r;
	struct jdoc *doc;
	char err[256];
	size_t i;
	int seen = 0;

	CLI_RUN(r, NULL, "stat", "--zones=outer,work", "-r", "2", "-j", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	doc = jdoc_parse(r.err, err, sizeof(err));
	ASSERT_MSG(doc, "%s", err);
	zones = jdoc_get(doc, "zones");
	ASSERT(zones);
	EXPECT_EQ((int)jdoc_number(zones, "runs", -1), 2);
	list = jdoc_get(zones, "zones");
	ASSERT(list);
	for (i = 0; (z = jdoc_at(list, i)); i++) {
		if (strcmp(jdoc_string(z, "name"), "outer"))
			continue;
		seen = 1;
		EXPECT_EQ((int)jdoc_number(z, "calls", -1), 10);
		EXPECT(jdoc_number(z, "total_noise_pct", -1) >= 0);
		pf = jdoc_at(jdoc_get(z, "counters"), 1);
		ASSERT(pf);
		EXPECT(jdoc_number(pf, "value", 0) >= 480);
		EXPECT(jdoc_number(pf, "noise_pct", -1) >= 0);
	}
	EXPECT(seen);
	z = jdoc_at(jdoc_get(zones, "together"), 0);
	ASSERT(z);
	EXPECT_EQ((int)jdoc_number(z, "calls", -1), 20);
	EXPECT(jdoc_number(z, "total_noise_pct", -1) >= 0);
	jdoc_free(doc);
	cli_result_free(&r);
}

/* The slices of the trace named name (Perfetto: slice begins). */
static unsigned slices_named(const struct pb_trace *tr, const char *name)
{
	unsigned n = 0;
	size_t i;

	for (i = 0; i < tr->n; i++)
		n += tr->ev[i].type == 1 && !strcmp(tr->ev[i].name, name);
	return n;
}

/* --trace FILE.pftrace: the Perfetto trace decodes, and holds a slice for
 * each call the table counted, of each zone. */
TEST(stat_zones, trace_pftrace_holds_the_zones_counted)
{
	static const char *const names[] = {"outer", "inner", "work"};
	struct cli_result r;
	struct pb_node *tree;
	struct pb_trace tr;
	struct csv_zone z;
	char path[4096], why[512];
	int unknown = 0;
	unsigned i;

	if (!pb_have_protoc())
		SKIP("protoc is not installed (Debian: apt-get install protobuf-compiler)");
	snprintf(path, sizeof(path), "%s/zones.pftrace",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
	unlink(path);
	CLI_RUN(r, NULL, "stat", "--zones", "--trace", path, "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	EXPECT_EQ(r.status, 3);
	tree = pb_decode_file(path, &unknown, why, sizeof(why));
	ASSERT_MSG(tree, "%s", why);
	EXPECT_EQ(unknown, 0);
	memset(&tr, 0, sizeof(tr));
	ASSERT_MSG(pb_interpret(tree, &tr, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ASSERT(csv_zone(r.err, names[i], "", &z) == 0);
		EXPECT_EQ_U64(slices_named(&tr, names[i]), z.calls);
	}
	pb_trace_free(&tr);
	pb_free(tree);
	cli_result_free(&r);
}

/* --trace FILE.json: Chrome's trace, a complete event per call. */
TEST(stat_zones, trace_json_holds_the_zones_counted)
{
	static const char *const names[] = {"outer", "inner", "work"};
	const struct jdoc *events, *e;
	struct cli_result r;
	struct csv_zone z;
	struct jdoc *doc;
	char path[4096], err[256], *text;
	unsigned i, n;
	size_t k, len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/zones.json",
	         getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
	unlink(path);
	CLI_RUN(r, NULL, "stat", "--zones", "--trace", path, "-x", ",", "-e", EVENTS, "--",
	        "tests/cli/zone_workload", "zones");
	EXPECT_EQ(r.status, 3);
	f = fopen(path, "r");
	ASSERT_MSG(f, "%s", path);
	text = malloc(1 << 20);
	ASSERT(text);
	len = fread(text, 1, (1 << 20) - 1, f);
	text[len] = '\0';
	fclose(f);
	doc = jdoc_parse(text, err, sizeof(err));
	ASSERT_MSG(doc, "%s", err);
	events = jdoc_get(doc, "traceEvents");
	ASSERT(events);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		ASSERT(csv_zone(r.err, names[i], "", &z) == 0);
		for (n = 0, k = 0; (e = jdoc_at(events, k)); k++)
			n += !strcmp(jdoc_string(e, "name"), names[i]) &&
			     !strcmp(jdoc_string(e, "ph"), "X");
		EXPECT_EQ_U64(n, z.calls);
	}
	jdoc_free(doc);
	free(text);
	cli_result_free(&r);
}

TEST(stat_zones, trace_needs_zones_and_a_known_format)
{
	struct cli_result r;

	CLI_RUN(r, NULL, "stat", "--trace", "x.pftrace", "-e", "task-clock", "--", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT(strstr(r.err, "give --zones too") != NULL);
	cli_result_free(&r);
	CLI_RUN(r, NULL, "stat", "--zones", "--trace", "x.txt", "-e", "task-clock", "--", "true");
	EXPECT_EQ(r.status, 2);
	EXPECT(strstr(r.err, "ends in .pftrace") != NULL);
	cli_result_free(&r);
}

/* A garbage trace request: one line, the report still written, no trace;
 * a trace request on a good descriptor: the trace behind its line. */
TEST(stat_zones, a_garbage_trace_request_is_one_line)
{
	static const char *const garbage[] = {"x", "8", "8:svg", "99:perfetto", "-8:chrome"};
	static const char *const intervals[] = {"x", "0", "-5", "10ms", "99999999999"};
	const char *tmp = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
	char cmd[16384], out[4096], trace[4096], err[4096];
	unsigned i;

	snprintf(out, sizeof(out), "%s/trace-garbage.out", tmp);
	snprintf(trace, sizeof(trace), "%s/trace-garbage.trace", tmp);
	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		unlink(out);
		unlink(trace);
		snprintf(cmd, sizeof(cmd), "UPMC_STAT_ZONES_TRACE='%s' tests/cli/zone_workload",
		         garbage[i]);
		EXPECT_EQ(run_with_request(cmd, "zones", "7:task-clock", out, err, sizeof(err)), 3);
		EXPECT_MSG(strstr(err, "UPMC_STAT_ZONES_TRACE ignored") != NULL, "%s: %s",
		           garbage[i], err);
		EXPECT_MSG(strchr(err, '\n') == strrchr(err, '\n'), "%s", garbage[i]);
		EXPECT(file_size(out) > 0);
	}
	for (i = 0; i < sizeof(intervals) / sizeof(intervals[0]); i++) {
		unlink(out);
		snprintf(cmd, sizeof(cmd), "UPMC_STAT_ZONES_INTERVAL='%s' tests/cli/zone_workload",
		         intervals[i]);
		EXPECT_EQ(run_with_request(cmd, "zones", "7:task-clock", out, err, sizeof(err)), 3);
		EXPECT_MSG(strstr(err, "UPMC_STAT_ZONES_INTERVAL ignored") != NULL, "%s: %s",
		           intervals[i], err);
		EXPECT_MSG(strchr(err, '\n') == strrchr(err, '\n'), "%s", intervals[i]);
		EXPECT(file_size(out) > 0);
	}
	unlink(out);
	snprintf(cmd, sizeof(cmd), "UPMC_STAT_ZONES_TRACE=8:chrome tests/cli/zone_workload 8>%s",
	         trace);
	EXPECT_EQ(run_with_request(cmd, "zones", "7:task-clock", out, err, sizeof(err)), 3);
	EXPECT_MSG(err[0] == 0, "%s", err);
	EXPECT(file_size(out) > 0);
	EXPECT(file_size(trace) > 100);
}
