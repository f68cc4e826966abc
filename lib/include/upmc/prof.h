/* SPDX-License-Identifier: MIT */
/*
 * Quick instrumentation: a region around a piece of code, its events named
 * at compile time, one line printed per pass.
 *
 *   UPMC_PROF_BEGIN(parse, "cycles,instructions");
 *   parse(input);
 *   UPMC_PROF_END(parse, stderr);
 *
 * prints, every time it passes the end,
 *
 *   upmc parse: 12873 ns, cycles 40211, instructions 61230
 *
 * (bias subtracted). The set and region open at the first pass and stay
 * open; machines without counters print what they can (time at least).
 * A pass whose counters could not be read (another user took them) prints
 * "upmc parse: dropped (<why>), <k> so far" and counts in prof->dropped.
 * Each call site's state is per thread. UPMC_PROF_CLOSE(name) releases it;
 * a thread that exits without it has it released at its exit (a struct
 * upmc_prof of your own must outlive its thread, or be closed first).
 * A NULL prof does nothing (upmc_last_error() says so); a NULL file is stderr.
 */
#ifndef UPMC_PROF_H
#define UPMC_PROF_H

#include <stdio.h>
#include <upmc/upmc.h>

#ifdef __cplusplus
extern "C" {
#define UPMC_THREAD_LOCAL thread_local
#else
#define UPMC_THREAD_LOCAL _Thread_local
#endif

struct upmc_prof {
	const char *name;
	const char *events;
	struct upmc_set *set;
	struct upmc_region *region;
	int failed;       /* opening failed once: print the reason, do not retry */
	uint64_t dropped; /* passes whose counters could not be read */
};

UPMC_API void upmc_prof_begin(struct upmc_prof *prof);
UPMC_API void upmc_prof_end(struct upmc_prof *prof, FILE *out);
UPMC_API void upmc_prof_close(struct upmc_prof *prof);

#ifdef __cplusplus
}
#endif

#define UPMC_PROF_BEGIN(name, events)                                                             \
	static UPMC_THREAD_LOCAL struct upmc_prof upmc_prof_##name = {#name, events, 0, 0, 0, 0}; \
	upmc_prof_begin(&upmc_prof_##name)
#define UPMC_PROF_END(name, file) upmc_prof_end(&upmc_prof_##name, file)
#define UPMC_PROF_CLOSE(name)     upmc_prof_close(&upmc_prof_##name)

#endif /* UPMC_PROF_H */
