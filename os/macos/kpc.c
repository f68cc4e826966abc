/* SPDX-License-Identifier: MIT */
/*
 * The kpc backend's logic, over a table of kperf/kperfdata functions: event
 * resolution, the counter map, the process-wide configuration, errors.
 * No Apple header: tests on Linux run it against fakes (tests/macos/).
 *
 * kpc's configuration is machine-wide and its thread counters are the
 * calling thread's, read by a system call each time: every counter is
 * UPMC_PATH_SYSCALL and set->user_n stays 0 (docs/macos.md says why
 * there is no user-space read).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "os/macos/kpc.h"

#define NO_SLOT ((size_t)-1)

struct kpc_set {
	const struct upmc_kpc_api *api;
	int holds;                        /* holds a reference on the active configuration */
	size_t slot[UPMC_MAX_COUNTERS];   /* index in kpc's thread counters, or NO_SLOT */
	uint64_t base[UPMC_MAX_COUNTERS]; /* thread counters at open: values count from there */
	uint64_t opened_ns;
	pthread_t owner;
};

/* The events a set asks for, as kperfdata configured them. */
struct plan {
	struct upmc_kpep_db *db;
	struct upmc_kpep_config *cfg;
	unsigned added;
	unsigned counter_of[UPMC_MAX_COUNTERS]; /* set counter of each added event */
	uint32_t classes;
	size_t count; /* configuration words */
	size_t map[UPMC_KPC_MAX_COUNTERS];
	upmc_kpc_config_t config[UPMC_KPC_MAX_COUNTERS];
};

/* kpc's configuration belongs to the machine: one per process at a time. */
static struct {
	pthread_mutex_t lock;
	unsigned sets;
	const struct upmc_kpc_api *api;
	uint32_t classes;
	size_t count;
	upmc_kpc_config_t config[UPMC_KPC_MAX_COUNTERS];
	int saved_force;
} active = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, 0, {0}, 0};

/* Index 0: the inline reader never looks further. */
static const struct upmc_perf_page no_page;

static const char needs_root[] =
        "macOS kpc needs root: run the program as root (sudo); without root macOS gives no "
        "performance counters to user programs";

static const char kpc_read_reason[] =
        "read by kpc_get_thread_counters, a system call: macOS does not let user code read "
        "the counter registers (docs/macos.md); modes are those kperfdata configures";

static int errno_or_eio(void)
{
	return errno > 0 ? -errno : -EIO;
}

static void mark_all(struct upmc_set *set, const char *reason)
{
	unsigned i;

	for (i = 0; i < set->n; i++) {
		set->state->counter[i].path = UPMC_PATH_UNAVAILABLE;
		upmc_format(set->state->counter[i].reason, UPMC_REASON_MAX, "%s", reason);
	}
}

/*
 * The whole set cannot count. With UPMC_OPT_TIME_ONLY that is a result
 * (every counter unavailable, saying why); otherwise an error.
 */
static int give_up(struct upmc_set *set, unsigned flags, int err, const char *reason)
{
	if (!(flags & UPMC_OPT_TIME_ONLY) || err == -ENOMEM)
		return upmc_fail(err, "%s", reason);
	mark_all(set, reason);
	return 0;
}

/* One counter cannot count: unavailable with UPMC_OPT_TIME_ONLY, else an error. */
static int skip_counter(struct upmc_set *set, unsigned i, unsigned flags, int err)
{
	struct upmc_counter *c = &set->state->counter[i];

	c->path = UPMC_PATH_UNAVAILABLE;
	if (!(flags & UPMC_OPT_TIME_ONLY) || err == -ENOMEM)
		return upmc_fail(err, "%s", c->reason);
	return 0;
}

static void plan_free(const struct upmc_kpc_api *api, struct plan *p)
{
	if (p->cfg)
		api->kpep_config_free(p->cfg);
	if (p->db)
		api->kpep_db_free(p->db);
	p->cfg = NULL;
	p->db = NULL;
}

static const char *family_name(enum upmc_kpc_family family)
{
	switch (family) {
	case UPMC_KPC_FAMILY_APPLE:
		return "Apple";
	case UPMC_KPC_FAMILY_INTEL:
		return "Intel";
	case UPMC_KPC_FAMILY_INTEL_CORE2:
		return "Intel Core 2";
	default:
		return "unknown";
	}
}

/* Resolves counter i and adds it to the configuration. */
static int add_counter(const struct upmc_kpc_api *api, struct plan *p, struct upmc_set *set,
                       unsigned i, unsigned flags, const char *db_name)
{
	struct upmc_counter *c = &set->state->counter[i];
	enum upmc_kpc_family family = upmc_kpc_family_of(db_name);
	struct upmc_kpep_event *ev = NULL;
	char tried[200];
	const char *found;
	int code;

	if (c->event.type == UPMC_TYPE_SOFTWARE) {
		upmc_format(c->reason, UPMC_REASON_MAX,
		            "'%s' is a Linux software event; kpc counts hardware events only",
		            c->event.name);
		return skip_counter(set, i, flags, -EOPNOTSUPP);
	}
	if (c->event.exclude_user) {
		upmc_format(c->reason, UPMC_REASON_MAX,
		            "'%s': kpc counts the modes kperfdata configures; kernel-only (':k') "
		            "cannot be honoured",
		            c->event.name);
		return skip_counter(set, i, flags, -EOPNOTSUPP);
	}
	found = upmc_kpc_resolve(api, p->db, family, &c->event, &ev, tried, sizeof(tried));
	if (!found) {
		upmc_format(c->reason, UPMC_REASON_MAX,
		            "'%s' has no event in the kperfdata database '%s' (%s CPU family)%s%s",
		            c->event.name, db_name, family_name(family), tried[0] ? "; tried " : "",
		            tried);
		return skip_counter(set, i, flags, -ENOENT);
	}
	code = api->kpep_config_add_event(p->cfg, &ev, 0, NULL);
	if (code) {
		upmc_format(c->reason, UPMC_REASON_MAX,
		            "'%s' (%s) could not be added to the kpc configuration: %s",
		            c->event.name, found, upmc_kpep_strerror(code));
		return skip_counter(set, i, flags, upmc_kpep_errno(code));
	}
	c->path = UPMC_PATH_SYSCALL;
	upmc_format(c->reason, UPMC_REASON_MAX, "%s (%s)", kpc_read_reason, found);
	p->counter_of[p->added++] = i;
	return 0;
}

/* The configuration kperfdata made for the added events: classes, words, map. */
static int extract(const struct upmc_kpc_api *api, struct plan *p, char *why, size_t size)
{
	unsigned k;
	int code;

	if ((code = api->kpep_config_kpc_classes(p->cfg, &p->classes)) ||
	    (code = api->kpep_config_kpc_count(p->cfg, &p->count)) ||
	    (p->count > UPMC_KPC_MAX_COUNTERS && (code = UPMC_KPEP_BUFFER_TOO_SMALL)) ||
	    (code = api->kpep_config_kpc_map(p->cfg, p->map, sizeof(p->map))) ||
	    (code = api->kpep_config_kpc(p->cfg, p->config, sizeof(p->config)))) {
		upmc_format(why, size, "kperfdata could not build the kpc configuration: %s",
		            upmc_kpep_strerror(code));
		return upmc_kpep_errno(code);
	}
	/* A map entry past the counters kpc reports would read another
	 * counter's value: refuse it rather than report a wrong count. */
	for (k = 0; k < p->added; k++)
		if (p->map[k] >= UPMC_KPC_MAX_COUNTERS) {
			upmc_format(why, size,
			            "kperfdata mapped event %u to counter %zu; kpc reports %d", k,
			            p->map[k], UPMC_KPC_MAX_COUNTERS);
			return -EIO;
		}
	return 0;
}

/* Database, configuration, events: everything kperfdata decides. */
static int plan_build(const struct upmc_kpc_api *api, struct plan *p, struct upmc_set *set,
                      unsigned flags)
{
	char why[UPMC_REASON_MAX];
	const char *db_name = NULL;
	unsigned i;
	int code, err;

	code = api->kpep_db_create(NULL, &p->db);
	if (code || !p->db) {
		p->db = NULL;
		upmc_format(why, sizeof(why),
		            "kperfdata has no PMC database for this CPU (kpep_db_create: %s)",
		            upmc_kpep_strerror(code));
		return give_up(set, flags, code ? upmc_kpep_errno(code) : -ENODEV, why);
	}
	if (api->kpep_db_name(p->db, &db_name) || !db_name)
		db_name = "";
	code = api->kpep_config_create(p->db, &p->cfg);
	if (code || !p->cfg) {
		p->cfg = NULL;
		upmc_format(why, sizeof(why), "kpep_config_create failed: %s",
		            upmc_kpep_strerror(code));
		return give_up(set, flags, code ? upmc_kpep_errno(code) : -EIO, why);
	}
	code = api->kpep_config_force_counters(p->cfg);
	if (code) {
		upmc_format(why, sizeof(why), "kpep_config_force_counters failed: %s",
		            upmc_kpep_strerror(code));
		return give_up(set, flags, upmc_kpep_errno(code), why);
	}
	for (i = 0; i < set->n; i++) {
		err = add_counter(api, p, set, i, flags, db_name);
		if (err < 0)
			return err;
	}
	if (!p->added)
		return 0;
	err = extract(api, p, why, sizeof(why));
	if (err < 0) {
		p->added = 0; /* give_up() below marks every counter */
		return give_up(set, flags, err, why);
	}
	return 0;
}

static int same_config(const struct plan *p)
{
	return active.classes == p->classes && active.count == p->count &&
	       !memcmp(active.config, p->config, p->count * sizeof(p->config[0]));
}

static void stop_counting(const struct upmc_kpc_api *api, int force)
{
	api->kpc_set_thread_counting(0);
	api->kpc_set_counting(0);
	api->kpc_force_all_ctrs_set(force);
}

/*
 * Configures and starts kpc. Recent macOS checks every selector against
 * the running CPU in kpc_set_config and applies a configuration only when
 * counting starts: so counting is stopped first, configured, then started,
 * which older versions (that apply at once) accept as well.
 */
static int start_counting(const struct upmc_kpc_api *api, struct plan *p, int force, char *why,
                          size_t size)
{
	const char *step;
	int err;

/* errno is cleared first so that a call that fails without setting it
 * reads as EIO, not as some earlier error. */
#define STEP(name, call)           \
	do {                       \
		step = name;       \
		errno = 0;         \
		if (call)          \
			goto fail; \
	} while (0)
	STEP("kpc_force_all_ctrs_set(1)", api->kpc_force_all_ctrs_set(1));
	STEP("kpc_set_counting(0)", api->kpc_set_counting(0));
	if ((p->classes & UPMC_KPC_CLASS_CONFIGURABLE) && p->count)
		STEP("kpc_set_config", api->kpc_set_config(p->classes, p->config));
	STEP("kpc_set_counting", api->kpc_set_counting(p->classes));
	STEP("kpc_set_thread_counting", api->kpc_set_thread_counting(p->classes));
#undef STEP
	return 0;
fail:
	err = errno_or_eio();
	upmc_format(why, size, "%s failed (%s)%s", step, strerror(-err),
	            !strcmp(step, "kpc_set_config")
	                    ? ": the kernel rejected the counter configuration for this CPU"
	                    : "");
	stop_counting(api, force);
	return err;
}

/* Takes a reference on the process-wide configuration, starting it if needed. */
static int activate(const struct upmc_kpc_api *api, struct plan *p, int force, char *why,
                    size_t size)
{
	int err = 0;

	pthread_mutex_lock(&active.lock);
	if (active.sets && !same_config(p)) {
		upmc_format(why, size,
		            "another set of this process has kpc counting other events (kpc's "
		            "configuration is machine-wide): close it first");
		err = -EBUSY;
	} else if (!active.sets) {
		err = start_counting(api, p, force, why, size);
		if (!err) {
			active.api = api;
			active.classes = p->classes;
			active.count = p->count;
			memcpy(active.config, p->config, sizeof(active.config));
			active.saved_force = force;
		}
	}
	if (!err)
		active.sets++;
	pthread_mutex_unlock(&active.lock);
	return err;
}

static void deactivate(void)
{
	pthread_mutex_lock(&active.lock);
	if (active.sets && --active.sets == 0)
		stop_counting(active.api, active.saved_force);
	pthread_mutex_unlock(&active.lock);
}

static int read_thread(const struct upmc_kpc_api *api, uint64_t *buf)
{
	memset(buf, 0, sizeof(uint64_t) * UPMC_KPC_MAX_COUNTERS);
	errno = 0;
	return api->kpc_get_thread_counters(0, UPMC_KPC_MAX_COUNTERS, buf) ? errno_or_eio() : 0;
}

/* Starts counting the planned events and takes the values counts start from. */
static int go(const struct upmc_kpc_api *api, struct plan *p, int force, struct upmc_set *set,
              unsigned flags, struct kpc_set *ks)
{
	uint64_t buf[UPMC_KPC_MAX_COUNTERS];
	char why[UPMC_REASON_MAX];
	unsigned k;
	int err;

	errno = 0;
	err = activate(api, p, force, why, sizeof(why));
	if (err < 0)
		return give_up(set, flags, err, why);
	err = read_thread(api, buf);
	if (err < 0) {
		deactivate();
		upmc_format(why, sizeof(why), "kpc_get_thread_counters failed (%s)",
		            strerror(-err));
		return give_up(set, flags, err, why);
	}
	ks->holds = 1;
	for (k = 0; k < p->added; k++) {
		ks->slot[p->counter_of[k]] = p->map[k];
		ks->base[p->counter_of[k]] = buf[p->map[k]];
	}
	return 0;
}

/* Privilege first: without root every kpc call fails with a vaguer error. */
static int check_root(const struct upmc_kpc_api *api, struct upmc_set *set, unsigned flags,
                      int *force)
{
	char why[UPMC_REASON_MAX];

	if (!api->is_root())
		return give_up(set, flags, -EACCES, needs_root);
	errno = 0;
	if (api->kpc_force_all_ctrs_get(force)) {
		int err = errno_or_eio();
		upmc_format(why, sizeof(why), "kpc refused access (kpc_force_all_ctrs_get: %s); %s",
		            strerror(-err), needs_root);
		return give_up(set, flags, err == -EPERM ? -EACCES : err, why);
	}
	return 1;
}

static int start(const struct upmc_kpc_api *api, const char *why, struct upmc_set *set,
                 unsigned flags, struct kpc_set *ks)
{
	struct plan p;
	int force = 0, err;

	if (!api)
		return give_up(set, flags, -ENOSYS, why ? why : "kperf could not be loaded");
	err = check_root(api, set, flags, &force);
	if (err <= 0)
		return err;
	memset(&p, 0, sizeof(p));
	err = plan_build(api, &p, set, flags);
	if (err == 0 && p.added)
		err = go(api, &p, force, set, flags, ks);
	plan_free(api, &p);
	return err;
}

int upmc_kpc_open(const struct upmc_kpc_api *api, const char *why, struct upmc_set *set,
                  unsigned flags)
{
	struct kpc_set *ks = calloc(1, sizeof(*ks));
	unsigned i;
	int err;

	if (!ks)
		return upmc_fail(-ENOMEM, "out of memory");
	ks->api = api;
	ks->owner = pthread_self();
	for (i = 0; i < UPMC_MAX_COUNTERS; i++)
		ks->slot[i] = NO_SLOT;
	for (i = 0; i < set->n; i++) {
		set->page[i] = &no_page;
		set->state->counter[i].reason[0] = '\0';
	}
	set->user_n = 0;
	err = start(api, why, set, flags, ks);
	if (err < 0) {
		free(ks);
		return err;
	}
	ks->opened_ns = upmc_macos_now_ns();
	set->state->os = ks;
	return 0;
}

void upmc_kpc_close(struct upmc_set *set)
{
	struct kpc_set *ks = set->state->os;

	if (!ks)
		return;
	if (ks->holds)
		deactivate();
	free(ks);
	set->state->os = NULL;
}

int upmc_kpc_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running)
{
	struct kpc_set *ks = set->state->os;
	uint64_t buf[UPMC_KPC_MAX_COUNTERS], now;
	unsigned i;
	int err;

	for (i = 0; i < set->n; i++)
		values[i] = UPMC_NOT_COUNTED; /* what a failed read leaves */
	if (ks->holds && !pthread_equal(ks->owner, pthread_self()))
		return upmc_fail(-EPERM, "kpc reads the calling thread's counters: read a set on "
		                         "the thread that opened it");
	if (ks->holds && (err = read_thread(ks->api, buf)) < 0)
		return upmc_fail(err, "kpc_get_thread_counters failed (%s)", strerror(-err));
	for (i = 0; i < set->n; i++)
		values[i] =
		        ks->slot[i] == NO_SLOT ? UPMC_NOT_COUNTED : buf[ks->slot[i]] - ks->base[i];
	/* kpc never multiplexes: a counting set runs whenever its thread does. */
	now = upmc_macos_now_ns() - ks->opened_ns;
	if (enabled)
		*enabled = now;
	if (running)
		*running = ks->holds ? now : 0;
	return (int)set->n;
}
