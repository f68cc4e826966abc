/* SPDX-License-Identifier: MIT */
/*
 * perf's generic event names to the names kperfdata's databases use, per
 * CPU family, and kpep's error codes to sentences. No Apple API here.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "os/macos/kpc.h"

enum { L1D = 0, L1I = 1, LLC = 2, DTLB = 3, ITLB = 4 };
enum { LOAD = 0, STORE = 1 };

#define HW(id) UPMC_TYPE_HARDWARE, (id)
#define CACHE(cache, op, misses) \
	UPMC_TYPE_HW_CACHE, ((cache) | (op) << 8 | (uint64_t)(misses) << 16)

struct alias {
	enum upmc_kpc_family family;
	uint32_t type;
	uint64_t config;
	const char *names[3]; /* tried in order: newer databases first */
};

/*
 * Apple: the fixed counters are FIXED_CYCLES / FIXED_INSTRUCTIONS; macOS 12
 * renamed BRANCH_MISPREDICT to BRANCH_MISPRED_NONSPEC. Intel: the SDM's
 * names, as kperfdata spells them. The selectors (which changed on M4)
 * come from the database, never from here.
 */
static const struct alias aliases[] = {
        {UPMC_KPC_FAMILY_APPLE, HW(0), {"FIXED_CYCLES", "CORE_ACTIVE_CYCLE"}},
        {UPMC_KPC_FAMILY_APPLE, HW(1), {"FIXED_INSTRUCTIONS", "INST_ALL"}},
        {UPMC_KPC_FAMILY_APPLE, HW(4), {"INST_BRANCH"}},
        {UPMC_KPC_FAMILY_APPLE, HW(5), {"BRANCH_MISPRED_NONSPEC", "BRANCH_MISPREDICT"}},
        {UPMC_KPC_FAMILY_APPLE, CACHE(L1D, LOAD, 0), {"LD_UNIT_UOP"}},
        {UPMC_KPC_FAMILY_APPLE, CACHE(L1D, STORE, 0), {"ST_UNIT_UOP"}},
        {UPMC_KPC_FAMILY_APPLE,
         CACHE(L1D, LOAD, 1),
         {"L1D_CACHE_MISS_LD_NONSPEC", "L1D_CACHE_MISS_LD"}},
        {UPMC_KPC_FAMILY_APPLE,
         CACHE(L1D, STORE, 1),
         {"L1D_CACHE_MISS_ST_NONSPEC", "L1D_CACHE_MISS_ST"}},
        {UPMC_KPC_FAMILY_APPLE, CACHE(L1I, LOAD, 1), {"L1I_CACHE_MISS_DEMAND"}},
        {UPMC_KPC_FAMILY_APPLE, CACHE(DTLB, LOAD, 1), {"L1D_TLB_MISS"}},
        {UPMC_KPC_FAMILY_APPLE, CACHE(ITLB, LOAD, 1), {"L1I_TLB_MISS_DEMAND"}},
        {UPMC_KPC_FAMILY_INTEL, HW(0), {"CPU_CLK_UNHALTED.THREAD", "CPU_CLK_UNHALTED.THREAD_P"}},
        {UPMC_KPC_FAMILY_INTEL, HW(1), {"INST_RETIRED.ANY", "INST_RETIRED.ANY_P"}},
        {UPMC_KPC_FAMILY_INTEL, HW(2), {"LONGEST_LAT_CACHE.REFERENCE"}},
        {UPMC_KPC_FAMILY_INTEL, HW(3), {"LONGEST_LAT_CACHE.MISS"}},
        {UPMC_KPC_FAMILY_INTEL, HW(4), {"BR_INST_RETIRED.ALL_BRANCHES"}},
        {UPMC_KPC_FAMILY_INTEL, HW(5), {"BR_MISP_RETIRED.ALL_BRANCHES"}},
        {UPMC_KPC_FAMILY_INTEL, HW(9), {"CPU_CLK_UNHALTED.REF_TSC"}},
        {UPMC_KPC_FAMILY_INTEL,
         CACHE(L1D, LOAD, 0),
         {"MEM_INST_RETIRED.ALL_LOADS", "MEM_UOPS_RETIRED.ALL_LOADS"}},
        {UPMC_KPC_FAMILY_INTEL,
         CACHE(L1D, STORE, 0),
         {"MEM_INST_RETIRED.ALL_STORES", "MEM_UOPS_RETIRED.ALL_STORES"}},
        {UPMC_KPC_FAMILY_INTEL, CACHE(L1D, LOAD, 1), {"L1D.REPLACEMENT"}},
        {UPMC_KPC_FAMILY_INTEL, CACHE(DTLB, LOAD, 1), {"DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK"}},
        {UPMC_KPC_FAMILY_INTEL, CACHE(ITLB, LOAD, 1), {"ITLB_MISSES.MISS_CAUSES_A_WALK"}},
        {UPMC_KPC_FAMILY_INTEL_CORE2, HW(0), {"CPU_CLK_UNHALTED.CORE", "CPU_CLK_UNHALTED.CORE_P"}},
        {UPMC_KPC_FAMILY_INTEL_CORE2, HW(1), {"INST_RETIRED.ANY", "INST_RETIRED.ANY_P"}},
        {UPMC_KPC_FAMILY_INTEL_CORE2, HW(4), {"BR_INST_RETIRED.ANY"}},
        {UPMC_KPC_FAMILY_INTEL_CORE2, HW(5), {"BR_INST_RETIRED.MISPRED"}},
};
#define N_ALIASES (sizeof(aliases) / sizeof(aliases[0]))

static const char *const intel_stems[] = {
        "nehalem",   "westmere",  "sandy",       "ivy",         "haswell",
        "broadwell", "skylake",   "kabylake",    "coffeelake",  "cometlake",
        "icelake",   "amberlake", "whiskeylake", "cascadelake", "cannonlake",
};
static const char *const core2_stems[] = {"yonah", "merom", "penryn", "core2"};

static int starts_with_any(const char *name, const char *const *stems, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strncmp(name, stems[i], strlen(stems[i])))
			return 1;
	return 0;
}

enum upmc_kpc_family upmc_kpc_family_of(const char *db_name)
{
	char lower[32];
	size_t i;

	if (!db_name || !db_name[0])
		return UPMC_KPC_FAMILY_UNKNOWN;
	for (i = 0; i + 1 < sizeof(lower) && db_name[i]; i++)
		lower[i] = (char)tolower((unsigned char)db_name[i]);
	lower[i] = '\0';
	/* Apple databases: "a7".."a18", "as1".. (the M series), "apple..." */
	if (lower[0] == 'a' &&
	    (isdigit((unsigned char)lower[1]) ||
	     (lower[1] == 's' && isdigit((unsigned char)lower[2])) || !strncmp(lower, "apple", 5)))
		return UPMC_KPC_FAMILY_APPLE;
	if (starts_with_any(lower, core2_stems, sizeof(core2_stems) / sizeof(core2_stems[0])))
		return UPMC_KPC_FAMILY_INTEL_CORE2;
	if (starts_with_any(lower, intel_stems, sizeof(intel_stems) / sizeof(intel_stems[0])))
		return UPMC_KPC_FAMILY_INTEL;
	return UPMC_KPC_FAMILY_UNKNOWN;
}

static void add_tried(char *tried, size_t size, const char *name)
{
	size_t len;

	if (!tried || !size)
		return;
	len = strlen(tried);
	upmc_format(tried + len, size - len, "%s'%s'", len ? ", " : "", name);
}

const char *upmc_kpc_resolve(const struct upmc_kpc_api *api, struct upmc_kpep_db *db,
                             enum upmc_kpc_family family, const struct upmc_event *ev,
                             struct upmc_kpep_event **out, char *tried, size_t tried_size)
{
	size_t i, k;

	if (tried && tried_size)
		tried[0] = '\0';
	for (i = 0; i < N_ALIASES; i++) {
		const struct alias *a = &aliases[i];
		if (a->type != ev->type || a->config != ev->config)
			continue;
		if (family != UPMC_KPC_FAMILY_UNKNOWN && a->family != family)
			continue;
		for (k = 0; k < 3 && a->names[k]; k++) {
			struct upmc_kpep_event *found = NULL;
			if (api->kpep_db_event(db, a->names[k], &found) == 0 && found) {
				*out = found;
				return a->names[k];
			}
			add_tried(tried, tried_size, a->names[k]);
		}
	}
	return NULL;
}

const char *upmc_kpep_strerror(int code)
{
	static const char *const text[] = {
	        "success",
	        "an argument is invalid",
	        "out of memory",
	        "an I/O error",
	        "a buffer is too small",
	        "this CPU is unknown to kperfdata",
	        "the database path is invalid",
	        "no database for this CPU was found",
	        "the database's architecture is not supported",
	        "the database's version is not supported",
	        "the database is corrupt",
	        "the event is not in the database",
	        "the events conflict (not enough counters for them together)",
	        "the counters are not forced (another client holds them)",
	        "the event is not available",
	        "a system call failed",
	};

	if (code < 0 || (size_t)code >= sizeof(text) / sizeof(text[0]))
		return "an unknown kperfdata error";
	return text[code];
}

int upmc_kpep_errno(int code)
{
	switch (code) {
	case UPMC_KPEP_OUT_OF_MEMORY:
		return -ENOMEM;
	case UPMC_KPEP_EVENT_NOT_FOUND:
	case UPMC_KPEP_EVENT_UNAVAILABLE:
		return -ENOENT;
	case UPMC_KPEP_CONFLICTING_EVENTS:
		return -E2BIG;
	case UPMC_KPEP_COUNTERS_NOT_FORCED:
		return -EBUSY;
	case UPMC_KPEP_CUR_SYSTEM_UNKNOWN:
	case UPMC_KPEP_DB_PATH_INVALID:
	case UPMC_KPEP_DB_NOT_FOUND:
	case UPMC_KPEP_DB_ARCH_UNSUPPORTED:
	case UPMC_KPEP_DB_VERSION_UNSUPPORTED:
		return -ENODEV;
	case UPMC_KPEP_INVALID_ARGUMENT:
	case UPMC_KPEP_BUFFER_TOO_SMALL:
		return -EINVAL;
	default:
		return -EIO;
	}
}
