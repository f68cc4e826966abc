/* SPDX-License-Identifier: MIT */
/*
 * The fake kperf/kperfdata. kpc state is modelled the way the kernel keeps
 * it: a machine-wide configuration that recent macOS applies only when
 * counting starts (apply_at_start) and checks against the CPU (validate),
 * thread counters that advance only for configured, counting counters.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/macos/fake_kpc.h"

struct fake_kpc fake;

struct upmc_kpep_db {
	int magic;
};

struct upmc_kpep_config {
	const struct fake_db_event *ev[UPMC_KPC_MAX_COUNTERS];
	unsigned n, configurable;
	int forced;
};

#define APPLE_FIXED                        \
	{"FIXED_CYCLES", 0, 1},            \
	{                                  \
		"FIXED_INSTRUCTIONS", 0, 2 \
	}

const struct fake_db_event fake_db_m1[] = {
        APPLE_FIXED,
        {"INST_BRANCH", 0x8d, 0},
        {"BRANCH_MISPRED_NONSPEC", 0xcb, 0},
        {"L1D_CACHE_MISS_LD", 0xa3, 0},
        {"L1D_CACHE_MISS_ST", 0xa2, 0},
        {"L1I_CACHE_MISS_DEMAND", 0xdb, 0},
        {"L1D_TLB_MISS", 0xa1, 0},
        {"LD_UNIT_UOP", 0xa6, 0},
        {"ST_UNIT_UOP", 0xa7, 0},
};
const size_t fake_db_m1_size = sizeof(fake_db_m1) / sizeof(fake_db_m1[0]);

/* Before macOS 12 the misprediction event had its older name. */
const struct fake_db_event fake_db_a11[] = {
        APPLE_FIXED,
        {"INST_BRANCH", 0x8d, 0},
        {"BRANCH_MISPREDICT", 0xcb, 0},
};
const size_t fake_db_a11_size = sizeof(fake_db_a11) / sizeof(fake_db_a11[0]);

/* M4: the same names, other selectors (CORE_ACTIVE_CYCLE moved 0x02 -> 0x11). */
const struct fake_db_event fake_db_m4[] = {
        APPLE_FIXED,
        {"CORE_ACTIVE_CYCLE", 0x11, 0},
        {"INST_BRANCH", 0x9d, 0},
        {"BRANCH_MISPRED_NONSPEC", 0xdb, 0},
        {"L1D_CACHE_MISS_LD_NONSPEC", 0xb3, 0},
};
const size_t fake_db_m4_size = sizeof(fake_db_m4) / sizeof(fake_db_m4[0]);

const struct fake_db_event fake_db_skylake[] = {
        {"INST_RETIRED.ANY", 0, 1},
        {"CPU_CLK_UNHALTED.THREAD", 0, 2},
        {"CPU_CLK_UNHALTED.REF_TSC", 0, 3},
        {"BR_INST_RETIRED.ALL_BRANCHES", 0x4300c4, 0},
        {"BR_MISP_RETIRED.ALL_BRANCHES", 0x4300c5, 0},
        {"LONGEST_LAT_CACHE.REFERENCE", 0x434f2e, 0},
        {"LONGEST_LAT_CACHE.MISS", 0x43412e, 0},
        {"L1D.REPLACEMENT", 0x430151, 0},
};
const size_t fake_db_skylake_size = sizeof(fake_db_skylake) / sizeof(fake_db_skylake[0]);

const struct fake_db_event fake_db_merom[] = {
        {"INST_RETIRED.ANY", 0, 1},
        {"CPU_CLK_UNHALTED.CORE", 0, 2},
        {"BR_INST_RETIRED.ANY", 0x4300c4, 0},
        {"BR_INST_RETIRED.MISPRED", 0x4300c5, 0},
};
const size_t fake_db_merom_size = sizeof(fake_db_merom) / sizeof(fake_db_merom[0]);

__attribute__((format(printf, 1, 2))) static void log_call(const char *fmt, ...)
{
	size_t len = strlen(fake.log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fake.log + len, sizeof(fake.log) - len, fmt, ap);
	va_end(ap);
	len = strlen(fake.log);
	if (len + 1 < sizeof(fake.log)) {
		fake.log[len] = ';';
		fake.log[len + 1] = '\0';
	}
}

/* kpc calls fail with errno set, as the sysctl wrappers do. */
static int kpc_result(enum fake_fn fn)
{
	if (!fake.fail[fn])
		return 0;
	errno = fake.fail[fn];
	return -1;
}

static int f_force_get(int *value)
{
	log_call("force_all_ctrs_get");
	if (kpc_result(F_FORCE_GET))
		return -1;
	*value = fake.force;
	return 0;
}

static int f_force_set(int value)
{
	log_call("force_all_ctrs_set(%d)", value);
	if (kpc_result(F_FORCE_SET))
		return -1;
	fake.force = value;
	return 0;
}

static int known_selector(upmc_kpc_config_t word)
{
	size_t i;

	for (i = 0; i < fake.db_size; i++)
		if (!fake.db[i].fixed && fake.db[i].selector == word)
			return 1;
	return word == 0;
}

static void apply(void)
{
	memcpy(fake.applied, fake.pending, sizeof(fake.applied));
	fake.applied_count = fake.configurable;
}

static int f_set_config(uint32_t classes, upmc_kpc_config_t *config)
{
	unsigned i;

	log_call("set_config(%u)", classes);
	if (kpc_result(F_SET_CONFIG))
		return -1;
	for (i = 0; fake.validate && i < fake.configurable; i++)
		if (!known_selector(config[i])) {
			errno = EINVAL;
			return -1;
		}
	memset(fake.pending, 0, sizeof(fake.pending));
	memcpy(fake.pending, config, fake.configurable * sizeof(config[0]));
	if (!fake.apply_at_start)
		apply();
	return 0;
}

static int f_set_counting(uint32_t classes)
{
	log_call("set_counting(%u)", classes);
	if (kpc_result(F_SET_COUNTING))
		return -1;
	if (classes && fake.apply_at_start)
		apply();
	fake.counting = classes;
	return 0;
}

static int f_set_thread_counting(uint32_t classes)
{
	log_call("set_thread_counting(%u)", classes);
	if (kpc_result(F_SET_THREAD_COUNTING))
		return -1;
	fake.thread_counting = classes;
	return 0;
}

/* A counter advances when its class counts and (configurable) it is configured. */
static int advances(unsigned s)
{
	uint32_t on = fake.counting & fake.thread_counting;

	if (s < fake.fixed_count)
		return (on & UPMC_KPC_CLASS_FIXED) != 0;
	return (on & UPMC_KPC_CLASS_CONFIGURABLE) && s - fake.fixed_count < fake.configurable &&
	       fake.applied[s - fake.fixed_count] != 0;
}

static int f_get_thread_counters(uint32_t tid, uint32_t count, uint64_t *buf)
{
	unsigned s;

	if (fake.reads++ >= (unsigned)fake.fail_after && kpc_result(F_GET_THREAD_COUNTERS))
		return -1;
	if (tid != 0 || count < fake.fixed_count + fake.configurable) {
		errno = EINVAL;
		return -1;
	}
	for (s = 0; s < UPMC_KPC_MAX_COUNTERS; s++)
		if (advances(s))
			fake.counter[s] += fake.step[s];
	memcpy(buf, fake.counter, count * sizeof(buf[0]));
	return 0;
}

static int f_db_create(const char *name, struct upmc_kpep_db **db)
{
	log_call("db_create");
	if (fake.fail[F_DB_CREATE] || name)
		return fake.fail[F_DB_CREATE] ? fake.fail[F_DB_CREATE] : UPMC_KPEP_DB_NOT_FOUND;
	*db = calloc(1, sizeof(**db));
	fake.dbs++;
	return 0;
}

static void f_db_free(struct upmc_kpep_db *db)
{
	log_call("db_free");
	free(db);
	fake.dbs--;
}

static int f_db_name(struct upmc_kpep_db *db, const char **name)
{
	(void)db;
	if (fake.fail[F_DB_NAME] || !fake.db_name)
		return fake.fail[F_DB_NAME] ? fake.fail[F_DB_NAME] : UPMC_KPEP_INVALID_ARGUMENT;
	*name = fake.db_name;
	return 0;
}

static int f_db_event(struct upmc_kpep_db *db, const char *name, struct upmc_kpep_event **ev)
{
	size_t i;

	(void)db;
	log_call("db_event(%s)", name);
	for (i = 0; i < fake.db_size; i++)
		if (!strcmp(fake.db[i].name, name)) {
			/* The fake's events are its database entries. */
			*ev = (struct upmc_kpep_event *)(uintptr_t)&fake.db[i];
			return 0;
		}
	return UPMC_KPEP_EVENT_NOT_FOUND;
}

static int f_config_create(struct upmc_kpep_db *db, struct upmc_kpep_config **cfg)
{
	(void)db;
	log_call("config_create");
	if (fake.fail[F_CONFIG_CREATE])
		return fake.fail[F_CONFIG_CREATE];
	*cfg = calloc(1, sizeof(**cfg));
	fake.cfgs++;
	return 0;
}

static void f_config_free(struct upmc_kpep_config *cfg)
{
	log_call("config_free");
	free(cfg);
	fake.cfgs--;
}

static int f_force_counters(struct upmc_kpep_config *cfg)
{
	if (fake.fail[F_FORCE_COUNTERS])
		return fake.fail[F_FORCE_COUNTERS];
	cfg->forced = 1;
	return 0;
}

static int f_add_event(struct upmc_kpep_config *cfg, struct upmc_kpep_event **ev, uint32_t flag,
                       uint32_t *err)
{
	const struct fake_db_event *e = (const struct fake_db_event *)(uintptr_t)*ev;

	(void)flag;
	(void)err;
	log_call("add_event(%s)", e->name);
	if (fake.fail[F_ADD_EVENT])
		return fake.fail[F_ADD_EVENT];
	if (!e->fixed && cfg->configurable == fake.configurable)
		return UPMC_KPEP_CONFLICTING_EVENTS;
	cfg->configurable += !e->fixed;
	cfg->ev[cfg->n++] = e;
	return 0;
}

static int f_kpc_classes(struct upmc_kpep_config *cfg, uint32_t *classes)
{
	unsigned k;

	if (fake.fail[F_KPC_CLASSES])
		return fake.fail[F_KPC_CLASSES];
	*classes = 0;
	for (k = 0; k < cfg->n; k++)
		*classes |= cfg->ev[k]->fixed ? UPMC_KPC_CLASS_FIXED : UPMC_KPC_CLASS_CONFIGURABLE;
	return 0;
}

static int f_kpc_count(struct upmc_kpep_config *cfg, size_t *count)
{
	(void)cfg;
	if (fake.fail[F_KPC_COUNT])
		return fake.fail[F_KPC_COUNT];
	*count = fake.configurable;
	return 0;
}

static int f_kpc_map(struct upmc_kpep_config *cfg, size_t *buf, size_t size)
{
	unsigned k, j = 0;

	if (fake.fail[F_KPC_MAP])
		return fake.fail[F_KPC_MAP];
	if (size < cfg->n * sizeof(buf[0]))
		return UPMC_KPEP_BUFFER_TOO_SMALL;
	for (k = 0; k < cfg->n; k++)
		buf[k] = fake.map_offset + (cfg->ev[k]->fixed ? (size_t)cfg->ev[k]->fixed - 1
		                                              : fake.fixed_count + j++);
	return 0;
}

static int f_kpc(struct upmc_kpep_config *cfg, upmc_kpc_config_t *buf, size_t size)
{
	unsigned k, j = 0;

	if (fake.fail[F_KPC])
		return fake.fail[F_KPC];
	if (size < fake.configurable * sizeof(buf[0]))
		return UPMC_KPEP_BUFFER_TOO_SMALL;
	memset(buf, 0, fake.configurable * sizeof(buf[0]));
	for (k = 0; k < cfg->n; k++)
		if (!cfg->ev[k]->fixed)
			buf[j++] = cfg->ev[k]->selector;
	return 0;
}

static int f_is_root(void)
{
	return fake.root;
}

const struct upmc_kpc_api fake_api = {
        .kpc_force_all_ctrs_get = f_force_get,
        .kpc_force_all_ctrs_set = f_force_set,
        .kpc_set_config = f_set_config,
        .kpc_set_counting = f_set_counting,
        .kpc_set_thread_counting = f_set_thread_counting,
        .kpc_get_thread_counters = f_get_thread_counters,
        .kpep_db_create = f_db_create,
        .kpep_db_free = f_db_free,
        .kpep_db_name = f_db_name,
        .kpep_db_event = f_db_event,
        .kpep_config_create = f_config_create,
        .kpep_config_free = f_config_free,
        .kpep_config_force_counters = f_force_counters,
        .kpep_config_add_event = f_add_event,
        .kpep_config_kpc_classes = f_kpc_classes,
        .kpep_config_kpc_count = f_kpc_count,
        .kpep_config_kpc_map = f_kpc_map,
        .kpep_config_kpc = f_kpc,
        .is_root = f_is_root,
        .now_ns = upmc_macos_now_ns,
};

void fake_reset(void)
{
	unsigned s;

	memset(&fake, 0, sizeof(fake));
	fake.root = 1;
	fake.db_name = "a14";
	fake.db = fake_db_m1;
	fake.db_size = fake_db_m1_size;
	fake.fixed_count = 2;
	fake.configurable = 8;
	for (s = 0; s < UPMC_KPC_MAX_COUNTERS; s++)
		fake.step[s] = 1000 * (s + 1) + s; /* distinct per counter */
}

/* The platform functions os_macos.c calls, here over the fake. */
const struct upmc_kpc_api *upmc_macos_api(const char **why)
{
	*why = fake.missing_why;
	return fake.missing ? NULL : &fake_api;
}

uint64_t upmc_macos_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
