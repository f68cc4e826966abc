/* SPDX-License-Identifier: MIT */
/*
 * macOS: Apple's kperf (kpc_*) and kperfdata (kpep_*) private frameworks,
 * reached through dlopen/dlsym and one table of function pointers. The
 * types are declared here (no private SDK headers): the kpep objects stay
 * opaque, so that nothing depends on their layout.
 *
 * Everything but the loader's paths and the clock compiles on every OS, so
 * that tests on Linux drive it with a fake table (tests/macos/).
 */
#ifndef UPMC_MACOS_KPC_H
#define UPMC_MACOS_KPC_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/internal.h"

/* kpc counter classes (xnu's KPC_CLASS_*_MASK). */
#define UPMC_KPC_CLASS_FIXED        (1u << 0)
#define UPMC_KPC_CLASS_CONFIGURABLE (1u << 1)
/* The most counters kpc reports for a thread (xnu's KPC_MAX_COUNTERS). */
#define UPMC_KPC_MAX_COUNTERS 32

/* kpep error codes (kpep_config_error_code), 0 is success. */
enum upmc_kpep_error {
	UPMC_KPEP_INVALID_ARGUMENT = 1,
	UPMC_KPEP_OUT_OF_MEMORY = 2,
	UPMC_KPEP_IO = 3,
	UPMC_KPEP_BUFFER_TOO_SMALL = 4,
	UPMC_KPEP_CUR_SYSTEM_UNKNOWN = 5,
	UPMC_KPEP_DB_PATH_INVALID = 6,
	UPMC_KPEP_DB_NOT_FOUND = 7,
	UPMC_KPEP_DB_ARCH_UNSUPPORTED = 8,
	UPMC_KPEP_DB_VERSION_UNSUPPORTED = 9,
	UPMC_KPEP_DB_CORRUPT = 10,
	UPMC_KPEP_EVENT_NOT_FOUND = 11,
	UPMC_KPEP_CONFLICTING_EVENTS = 12,
	UPMC_KPEP_COUNTERS_NOT_FORCED = 13,
	UPMC_KPEP_EVENT_UNAVAILABLE = 14,
	UPMC_KPEP_ERRNO = 15,
};

typedef uint64_t upmc_kpc_config_t;

/* Opaque kperfdata objects. */
struct upmc_kpep_db;
struct upmc_kpep_config;
struct upmc_kpep_event;

/*
 * The functions upmc uses. kpc_* return 0 on success and set errno on
 * failure (they are sysctl wrappers); kpep_* return an upmc_kpep_error.
 */
struct upmc_kpc_api {
	/* kperf.framework */
	int (*kpc_force_all_ctrs_get)(int *value);
	int (*kpc_force_all_ctrs_set)(int value);
	int (*kpc_set_config)(uint32_t classes, upmc_kpc_config_t *config);
	int (*kpc_set_counting)(uint32_t classes);
	int (*kpc_set_thread_counting)(uint32_t classes);
	int (*kpc_get_thread_counters)(uint32_t tid, uint32_t count, uint64_t *buf);
	/* kperfdata.framework */
	int (*kpep_db_create)(const char *name, struct upmc_kpep_db **db);
	void (*kpep_db_free)(struct upmc_kpep_db *db);
	int (*kpep_db_name)(struct upmc_kpep_db *db, const char **name);
	int (*kpep_db_event)(struct upmc_kpep_db *db, const char *name,
	                     struct upmc_kpep_event **ev);
	int (*kpep_config_create)(struct upmc_kpep_db *db, struct upmc_kpep_config **cfg);
	void (*kpep_config_free)(struct upmc_kpep_config *cfg);
	int (*kpep_config_force_counters)(struct upmc_kpep_config *cfg);
	int (*kpep_config_add_event)(struct upmc_kpep_config *cfg, struct upmc_kpep_event **ev,
	                             uint32_t flag, uint32_t *err);
	int (*kpep_config_kpc_classes)(struct upmc_kpep_config *cfg, uint32_t *classes);
	int (*kpep_config_kpc_count)(struct upmc_kpep_config *cfg, size_t *count);
	int (*kpep_config_kpc_map)(struct upmc_kpep_config *cfg, size_t *buf, size_t size);
	int (*kpep_config_kpc)(struct upmc_kpep_config *cfg, upmc_kpc_config_t *buf, size_t size);
	/* Not Apple's: privilege and clock, so that tests can choose them. */
	int (*is_root)(void);
	uint64_t (*now_ns)(void);
};

/* CPU families whose kperfdata databases name events differently. */
enum upmc_kpc_family {
	UPMC_KPC_FAMILY_UNKNOWN = 0, /* try every family's names */
	UPMC_KPC_FAMILY_APPLE,       /* Apple A7.., M1..M4 */
	UPMC_KPC_FAMILY_INTEL,       /* Intel Core 1st gen and later */
	UPMC_KPC_FAMILY_INTEL_CORE2, /* Yonah, Merom, Penryn */
};

/* The family of a kperfdata database name ("a14", "as4", "skylake", ...). */
enum upmc_kpc_family upmc_kpc_family_of(const char *db_name);

/*
 * Looks ev up in db under the names its family uses, in order. Returns the
 * name found (a static string) and the event in *out, or NULL and the names
 * tried, as "'A' or 'B'", in tried (may be NULL).
 */
const char *upmc_kpc_resolve(const struct upmc_kpc_api *api, struct upmc_kpep_db *db,
                             enum upmc_kpc_family family, const struct upmc_event *ev,
                             struct upmc_kpep_event **out, char *tried, size_t tried_size);

/* A kpep error code as a few words ("the event is not in the database"). */
const char *upmc_kpep_strerror(int code);

/* A kpep error code as a negative errno. */
int upmc_kpep_errno(int code);

/*
 * Loads kperf and kperfdata from the two paths into api. Returns 0, or a
 * negative errno with a sentence in err (a missing file or symbol).
 */
int upmc_kpc_load(struct upmc_kpc_api *api, const char *kperf_path, const char *kperfdata_path,
                  char *err, size_t err_size);

/*
 * os.h over kpc: api NULL means the frameworks could not be loaded, and
 * why says why. The set's counters count the calling thread.
 */
int upmc_kpc_open(const struct upmc_kpc_api *api, const char *why, struct upmc_set *set,
                  unsigned flags);
void upmc_kpc_close(struct upmc_set *set);
int upmc_kpc_read(struct upmc_set *set, uint64_t *values, uint64_t *enabled, uint64_t *running);

/* Provided by os/macos/platform.c on macOS and by fakes in tests. */
const struct upmc_kpc_api *upmc_macos_api(const char **why);
uint64_t upmc_macos_now_ns(void);

#endif /* UPMC_MACOS_KPC_H */
