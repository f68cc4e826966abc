/* SPDX-License-Identifier: MIT */
/*
 * Events by name: perf's generic hardware, cache and software names, with
 * the modifiers :u, :k and :uk, and the OS layer's own; one item of a spec
 * into its place (lib/core/spec.c parses the whole spec).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "os.h"

struct named {
	const char *name;
	const char *desc;
	uint32_t type;
	uint64_t config;
};

/* perf's numbering (PERF_COUNT_HW_*, PERF_COUNT_SW_*), with its aliases. */
static const struct named plain_events[] = {
        {"cycles", "CPU cycles (core clock)", UPMC_TYPE_HARDWARE, 0},
        {"cpu-cycles", "alias of cycles", UPMC_TYPE_HARDWARE, 0},
        {"instructions", "instructions retired", UPMC_TYPE_HARDWARE, 1},
        {"cache-references", "last-level cache accesses (vendor-defined)", UPMC_TYPE_HARDWARE, 2},
        {"cache-misses", "last-level cache misses (vendor-defined)", UPMC_TYPE_HARDWARE, 3},
        {"branches", "branch instructions retired", UPMC_TYPE_HARDWARE, 4},
        {"branch-instructions", "alias of branches", UPMC_TYPE_HARDWARE, 4},
        {"branch-misses", "mispredicted branches", UPMC_TYPE_HARDWARE, 5},
        {"bus-cycles", "bus cycles", UPMC_TYPE_HARDWARE, 6},
        {"stalled-cycles-frontend", "cycles the front end issued nothing", UPMC_TYPE_HARDWARE, 7},
        {"stalled-cycles-backend", "cycles the back end retired nothing", UPMC_TYPE_HARDWARE, 8},
        {"ref-cycles", "reference cycles, unaffected by frequency scaling", UPMC_TYPE_HARDWARE, 9},
        {"cpu-clock", "CPU time of the thread, ns (hrtimer)", UPMC_TYPE_SOFTWARE, 0},
        {"task-clock", "CPU time of the task, ns", UPMC_TYPE_SOFTWARE, 1},
        {"page-faults", "page faults", UPMC_TYPE_SOFTWARE, 2},
        {"faults", "alias of page-faults", UPMC_TYPE_SOFTWARE, 2},
        {"context-switches", "context switches (kernel side: paranoid <= 1)", UPMC_TYPE_SOFTWARE,
         3},
        {"cs", "alias of context-switches", UPMC_TYPE_SOFTWARE, 3},
        {"cpu-migrations", "moves to another CPU (kernel side: paranoid <= 1)", UPMC_TYPE_SOFTWARE,
         4},
        {"migrations", "alias of cpu-migrations", UPMC_TYPE_SOFTWARE, 4},
        {"minor-faults", "page faults served without I/O", UPMC_TYPE_SOFTWARE, 5},
        {"major-faults", "page faults that needed I/O", UPMC_TYPE_SOFTWARE, 6},
        {"alignment-faults", "alignment fixups", UPMC_TYPE_SOFTWARE, 7},
        {"emulation-faults", "emulated instructions", UPMC_TYPE_SOFTWARE, 8},
};
#define N_PLAIN (sizeof(plain_events) / sizeof(plain_events[0]))

/* Generic cache events: <cache>-<op>s and <cache>-<op>-misses. */
static const char *const caches[] = {"L1-dcache", "L1-icache", "LLC", "dTLB",
                                     "iTLB",      "branch",    "node"};
static const char *const cache_ops[] = {"load", "store", "prefetch"};
static const char *const cache_ops_plural[] = {"loads", "stores", "prefetches"};
#define N_CACHES    (sizeof(caches) / sizeof(caches[0]))
#define N_CACHE_OPS (sizeof(cache_ops) / sizeof(cache_ops[0]))
#define N_CACHE     (N_CACHES * N_CACHE_OPS * 2)
#define N_NAMES     (N_PLAIN + N_CACHE)

/* Known name number i (0 <= i < N_NAMES) into buf; its event into ev. */
static void known_event(unsigned i, char *buf, size_t size, struct named *ev)
{
	unsigned cache, op, miss;

	if (i < N_PLAIN) {
		*ev = plain_events[i];
		upmc_format(buf, size, "%s", ev->name);
		return;
	}
	i -= (unsigned)N_PLAIN;
	miss = i % 2;
	op = i / 2 % N_CACHE_OPS;
	cache = i / 2 / N_CACHE_OPS;
	upmc_format(buf, size, "%s-%s%s", caches[cache],
	            miss ? cache_ops[op] : cache_ops_plural[op], miss ? "-misses" : "");
	ev->name = NULL;
	ev->desc = miss ? "generic cache event: misses" : "generic cache event: accesses";
	ev->type = UPMC_TYPE_HW_CACHE;
	/* perf's cache encoding: id | op << 8 | result << 16 */
	ev->config = cache | op << 8 | (uint64_t)miss << 16;
}

static int lookup(const char *name, struct named *ev)
{
	char buf[UPMC_NAME_MAX];
	unsigned i;

	for (i = 0; i < N_NAMES; i++) {
		known_event(i, buf, sizeof(buf), ev);
		if (!strcasecmp(buf, name))
			return 0;
	}
	return -ENOENT;
}

/* Case-insensitive Levenshtein distance of two short strings. */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[UPMC_NAME_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > UPMC_NAME_MAX || lb > UPMC_NAME_MAX)
		return UPMC_NAME_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = tolower((unsigned char)a[i - 1]) !=
			                tolower((unsigned char)b[j - 1]);
			unsigned best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct closest {
	const char *name;
	char best[3][UPMC_NAME_MAX];
	unsigned dist[3];
};

static int keep_if_closer(const struct upmc_event_info *info, void *arg)
{
	struct closest *c = arg;
	const char *event = strstr(info->name, "::");
	unsigned d, k;

	/* "RETIRED_INSTRUCTONS" is closest to "pmu::RETIRED_INSTRUCTIONS" by
	 * its event part. */
	if (event && !strstr(c->name, "::"))
		d = edit_distance(c->name, event + 2);
	else
		d = edit_distance(c->name, info->name);

	for (k = 0; k < 3 && d >= c->dist[k]; k++)
		;
	if (k < 3) {
		memmove(&c->dist[k + 1], &c->dist[k], (2 - k) * sizeof(c->dist[0]));
		memmove(c->best[k + 1], c->best[k], (2 - k) * sizeof(c->best[0]));
		c->dist[k] = d;
		upmc_format(c->best[k], sizeof(c->best[k]), "%s", info->name);
	}
	return 0;
}

void upmc_closest_names(const char *name, char *out, size_t size)
{
	struct closest c = {name, {"", "", ""}, {~0u, ~0u, ~0u}};

	upmc_list_events(keep_if_closer, &c);
	upmc_format(out, size, "'%s', '%s' or '%s'", c.best[0], c.best[1], c.best[2]);
}

/* ":u", ":k", ":uk" (or ":ku"); anything else is an error. */
int upmc_event_modifiers(const char *mods, const char *whole, struct upmc_event *ev)
{
	int user = 0, kernel = 0;
	const char *p;

	for (p = mods; *p; p++) {
		if (*p == 'u' && !user)
			user = 1;
		else if (*p == 'k' && !kernel)
			kernel = 1;
		else
			return upmc_fail(-EINVAL,
			                 "event '%s': unknown modifier ':%s' (use :u, :k or :uk)",
			                 whole, mods);
	}
	if (!user && !kernel)
		return upmc_fail(-EINVAL, "event '%s': empty modifier after ':'", whole);
	ev->exclude_user = !user;
	ev->exclude_kernel = !kernel;
	return 0;
}

/*
 * Default privilege level: user space only, or both with UPMC_OPT_KERNEL.
 * Context switches and migrations happen inside the kernel, so counting
 * them in user mode only would read a silent 0: they count both.
 */
void upmc_event_levels(struct upmc_event *ev, unsigned flags)
{
	int kernel_only_event =
	        ev->type == UPMC_TYPE_SOFTWARE && (ev->config == 3 || ev->config == 4);

	ev->exclude_user = 0;
	ev->exclude_kernel = !(flags & UPMC_OPT_KERNEL) && !kernel_only_event;
}

/* "r<hex>": a raw code for the core PMU. */
static int raw_code(const char *base, uint64_t *config)
{
	char *end;

	if ((base[0] != 'r' && base[0] != 'R') || !isxdigit((unsigned char)base[1]))
		return -ENOENT;
	errno = 0;
	*config = strtoull(base + 1, &end, 16);
	if (*end)
		return -ENOENT;
	if (errno == ERANGE)
		return upmc_fail(-ERANGE,
		                 "raw code '%s' does not fit in 64 bits (at most 16 hex "
		                 "digits, e.g. 'r01c2')",
		                 base);
	return 0;
}

/* perf's generic names and raw codes, with upmc's modifiers. */
static int portable_event(const char *item, unsigned flags, struct upmc_event *ev)
{
	char base[UPMC_NAME_MAX];
	const char *colon = strchr(item, ':');
	size_t len = colon ? (size_t)(colon - item) : strlen(item);
	struct named known;
	int err;

	memcpy(base, item, len);
	base[len] = '\0';
	if (lookup(base, &known) == 0) {
		ev->type = known.type;
		ev->config = known.config;
		ev->generic = known.type != UPMC_TYPE_SOFTWARE;
	} else if ((err = raw_code(base, &ev->config)) == 0) {
		ev->type = UPMC_TYPE_RAW;
	} else {
		return err;
	}
	upmc_event_levels(ev, flags);
	return colon ? upmc_event_modifiers(colon + 1, item, ev) : 0;
}

static int unknown_event(const char *item)
{
	char name[UPMC_NAME_MAX], close[3 * UPMC_NAME_MAX + 16];
	const char *colon = strchr(item, ':');

	/* Suggest for the name without upmc's modifiers (libpfm4's "pmu::"
	 * names keep theirs). */
	upmc_format(name, sizeof(name), "%.*s",
	            (int)(colon && colon[1] != ':' ? (size_t)(colon - item) : strlen(item)), item);
	upmc_closest_names(name, close, sizeof(close));
	return upmc_fail(-ENOENT, "event '%s' unknown; did you mean %s?", name, close);
}

/* One comma-separated item (already trimmed) into ev. With
 * UPMC_OPT_TIME_ONLY, an event of a PMU this machine lacks is kept, marked
 * missing: the set opens it unavailable. */
int upmc_event_parse(const char *item, unsigned flags, struct upmc_event *ev)
{
	int err = -ENOENT;

	if (strlen(item) >= UPMC_NAME_MAX)
		return upmc_fail(-ENAMETOOLONG,
		                 "event name '%.40s...' is too long (at most %d characters)", item,
		                 UPMC_NAME_MAX - 1);
	memset(ev, 0, sizeof(*ev));
	upmc_format(ev->name, sizeof(ev->name), "%s", item);
	if (!strchr(item, '/'))
		err = portable_event(item, flags, ev);
	if (err == -ENOENT) {
		upmc_fail(0, "%s", ""); /* the OS layer may say more than "unknown" */
		err = upmc_os_resolve_event(item, flags, ev);
	}
	if (err == -ENODEV && (flags & UPMC_OPT_TIME_ONLY)) {
		ev->missing = 1; /* upmc_last_error() says why */
		return 0;
	}
	return err == -ENOENT && !*upmc_last_error() ? unknown_event(item) : err;
}

int upmc_spec_add(struct upmc_spec *out, const char *item, unsigned flags)
{
	struct upmc_event *ev;
	int err;

	if (out->n == out->max)
		return upmc_fail(-E2BIG,
		                 "event spec has more than %u events, the most one set holds",
		                 out->max);
	ev = upmc_spec_event(out, out->n);
	err = upmc_event_parse(item, flags, ev);
	if (err < 0)
		return err;
	if (out->counters && ev->missing) {
		out->counters[out->n].path = UPMC_PATH_UNAVAILABLE;
		upmc_format(out->counters[out->n].reason, sizeof(out->counters[out->n].reason),
		            "%s", upmc_last_error());
	}
	out->n++;
	return 0;
}

int upmc_spec_add_missing(struct upmc_spec *out, const char *name, const char *why)
{
	struct upmc_event *ev;

	if (out->n == out->max)
		return upmc_fail(-E2BIG,
		                 "event spec has more than %u events, the most one set holds",
		                 out->max);
	ev = upmc_spec_event(out, out->n);
	memset(ev, 0, sizeof(*ev));
	upmc_format(ev->name, sizeof(ev->name), "%s", name);
	ev->type = UPMC_TYPE_RAW;
	ev->missing = 1;
	if (out->counters) {
		out->counters[out->n].path = UPMC_PATH_UNAVAILABLE;
		upmc_format(out->counters[out->n].reason, sizeof(out->counters[out->n].reason),
		            "%s", why);
	}
	out->n++;
	return 0;
}

UPMC_API int upmc_list_events(int (*fn)(const struct upmc_event_info *info, void *arg), void *arg)
{
	char name[UPMC_NAME_MAX];
	struct upmc_event_info info;
	struct named ev;
	int stopped = 0;
	unsigned i;

	if (!fn)
		return upmc_fail(-EINVAL, "upmc_list_events: fn is NULL");
	for (i = 0; i < N_NAMES; i++) {
		known_event(i, name, sizeof(name), &ev);
		info.name = name;
		info.desc = ev.desc;
		info.pmu = ev.type == UPMC_TYPE_HARDWARE   ? "hardware"
		           : ev.type == UPMC_TYPE_HW_CACHE ? "cache"
		                                           : "software";
		if (fn(&info, arg))
			return (int)i + 1;
	}
	return (int)N_NAMES + upmc_os_list_events(fn, arg, &stopped);
}
