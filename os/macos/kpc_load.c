/* SPDX-License-Identifier: MIT */
/*
 * Loads kperf and kperfdata with dlopen/dlsym into struct upmc_kpc_api.
 * Plain POSIX: on Linux the tests point it at files that are missing or
 * lack the symbols, which is how a Mac without the frameworks looks.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "os/macos/kpc.h"

struct symbol {
	const char *name;
	size_t offset; /* of the pointer in struct upmc_kpc_api */
	int data;      /* 0: kperf, 1: kperfdata */
};

#define KPERF(f)                                        \
	{                                               \
#f, offsetof(struct upmc_kpc_api, f), 0 \
	}
#define KPERFDATA(f)                                    \
	{                                               \
#f, offsetof(struct upmc_kpc_api, f), 1 \
	}

static const struct symbol symbols[] = {
        KPERF(kpc_force_all_ctrs_get),
        KPERF(kpc_force_all_ctrs_set),
        KPERF(kpc_set_config),
        KPERF(kpc_set_counting),
        KPERF(kpc_set_thread_counting),
        KPERF(kpc_get_thread_counters),
        KPERFDATA(kpep_db_create),
        KPERFDATA(kpep_db_free),
        KPERFDATA(kpep_db_name),
        KPERFDATA(kpep_db_event),
        KPERFDATA(kpep_config_create),
        KPERFDATA(kpep_config_free),
        KPERFDATA(kpep_config_force_counters),
        KPERFDATA(kpep_config_add_event),
        KPERFDATA(kpep_config_kpc_classes),
        KPERFDATA(kpep_config_kpc_count),
        KPERFDATA(kpep_config_kpc_map),
        KPERFDATA(kpep_config_kpc),
};

static void *open_library(const char *path, char *err, size_t size)
{
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();
		upmc_format(err, size,
		            "%s could not be loaded (%s): kpc needs Apple's kperf "
		            "and kperfdata frameworks (macOS 10.11 or later)",
		            path, why ? why : "dlopen failed");
	}
	return h;
}

int upmc_kpc_load(struct upmc_kpc_api *api, const char *kperf_path, const char *kperfdata_path,
                  char *err, size_t err_size)
{
	void *lib[2] = {NULL, NULL};
	const char *path[2] = {kperf_path, kperfdata_path};
	size_t i;

	lib[0] = open_library(kperf_path, err, err_size);
	if (lib[0])
		lib[1] = open_library(kperfdata_path, err, err_size);
	for (i = 0; lib[1] && i < sizeof(symbols) / sizeof(symbols[0]); i++) {
		void *sym = dlsym(lib[symbols[i].data], symbols[i].name);
		if (!sym) {
			upmc_format(err, err_size,
			            "%s has no symbol %s: this macOS's kperf is not the one upmc "
			            "knows",
			            path[symbols[i].data], symbols[i].name);
			break;
		}
		/* POSIX guarantees a data pointer can hold a function pointer. */
		memcpy((char *)api + symbols[i].offset, &sym, sizeof(sym));
	}
	if (lib[1] && i == sizeof(symbols) / sizeof(symbols[0]))
		return 0; /* the libraries stay loaded for the process's life */
	if (lib[1])
		dlclose(lib[1]);
	if (lib[0])
		dlclose(lib[0]);
	return lib[1] ? -ENOENT : -ENOSYS;
}
