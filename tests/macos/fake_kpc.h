/* SPDX-License-Identifier: MIT */
/*
 * A fake kperf/kperfdata for the kpc backend's logic: a database of named
 * events, kpc's machine-wide state, and a log of every call made.
 */
#ifndef UPMC_TESTS_FAKE_KPC_H
#define UPMC_TESTS_FAKE_KPC_H

#include <stddef.h>
#include <stdint.h>

#include "os/macos/kpc.h"

/* The functions a test can make fail (kpep: an error code; kpc: errno). */
enum fake_fn {
	F_FORCE_GET,
	F_FORCE_SET,
	F_SET_CONFIG,
	F_SET_COUNTING,
	F_SET_THREAD_COUNTING,
	F_GET_THREAD_COUNTERS,
	F_DB_CREATE,
	F_DB_NAME,
	F_CONFIG_CREATE,
	F_FORCE_COUNTERS,
	F_ADD_EVENT,
	F_KPC_CLASSES,
	F_KPC_COUNT,
	F_KPC_MAP,
	F_KPC,
	F_COUNT
};

struct fake_db_event {
	const char *name;
	uint64_t selector; /* configurable events; fixed ones have none */
	int fixed;         /* fixed counter number + 1, or 0 */
};

struct fake_kpc {
	/* set by tests */
	int root;
	int missing;           /* upmc_macos_api() returns NULL */
	char missing_why[320]; /* and this reason */
	int fail[F_COUNT];     /* nonzero: that function fails with it */
	int fail_after;        /* F_GET_THREAD_COUNTERS fails after this many calls (0: at once) */
	const char *db_name;   /* NULL: kpep_db_name fails */
	const struct fake_db_event *db;
	size_t db_size;
	unsigned fixed_count;  /* fixed counters before the configurable ones */
	unsigned configurable; /* configurable counters */
	int apply_at_start;    /* config takes effect when counting starts (recent macOS) */
	int validate;          /* kpc_set_config rejects selectors not in the database */
	size_t map_offset;     /* added to every map entry (to test a bad map) */
	uint64_t step[UPMC_KPC_MAX_COUNTERS]; /* counts per read, per counter */

	/* kept by the fake */
	char log[4096];
	int force;
	uint32_t counting, thread_counting;
	upmc_kpc_config_t pending[UPMC_KPC_MAX_COUNTERS], applied[UPMC_KPC_MAX_COUNTERS];
	size_t applied_count;
	uint64_t counter[UPMC_KPC_MAX_COUNTERS];
	int dbs, cfgs; /* live objects */
	unsigned reads;
};

extern struct fake_kpc fake;
extern const struct upmc_kpc_api fake_api;

/* Clears everything; root, M1-like database "a14", 2 fixed + 8 counters. */
void fake_reset(void);

/* Databases of several CPU families. */
extern const struct fake_db_event fake_db_m1[], fake_db_a11[], fake_db_m4[], fake_db_skylake[],
        fake_db_merom[];
extern const size_t fake_db_m1_size, fake_db_a11_size, fake_db_m4_size, fake_db_skylake_size,
        fake_db_merom_size;

#endif /* UPMC_TESTS_FAKE_KPC_H */
