/* SPDX-License-Identifier: MIT */
/*
 * Zones: counters per zone of code, on every thread, for profilers.
 *
 *   struct upmc_profile *p;
 *   upmc_profile_open(&p, "cycles,instructions", NULL);
 *   ...
 *   void physics(void)
 *   {
 *           UPMC_ZONE("physics");        (ends when the block does)
 *           ...
 *   }
 *   ...
 *   upmc_profile_save(p, UPMC_FORMAT_CHROME, "trace.json");
 *   upmc_profile_print(p, stdout);
 *   upmc_profile_close(p);
 *
 * A zone records raw values (a timestamp and the thread's counters) at its
 * begin and end into a buffer of the calling thread: no lock, no
 * allocation. No system call either where every counter of the thread's
 * set reads in user space (hardware events: rdpmc, mrs) or it records time
 * only; but each begin and each end is a read(2) where a counter reads by
 * system call (a software event such as task-clock, UPMC_OPT_FORCE_SYSCALL,
 * a machine without user-space reads), several with UPMC_OPT_MULTIPLEX or
 * on a hybrid CPU (docs/zones.md says when). Each thread gets its own set
 * of the profile's counters at its first zone, since counters count one
 * thread.
 * upmc_profile_collect(), from any thread, takes the finished records
 * out; statistics and exports are computed from them. docs/zones.md has
 * the details, the buffer's ordering and the formats.
 *
 * A thread finds its state through one initial-exec thread-local pointer
 * (8 bytes, ELF): a library loaded by dlopen() takes it from glibc's
 * static TLS surplus, and that dlopen() fails when the surplus is used up.
 *
 * In a child of fork(), the parent's profile records nothing (it counts
 * the parent); the child may collect, export and close it, and open its
 * own.
 */
#ifndef UPMC_ZONE_H
#define UPMC_ZONE_H

#include <stdint.h>
#include <stdio.h>
#include <upmc/upmc.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest zone name, in bytes; longer names are refused (see below). */
#define UPMC_ZONE_NAME_MAX 127

/* Where a zone is: one per call site, static, never changed or freed. Its
 * address must be below 2^63, since that bit marks an end in the buffer:
 * a pointer tagged in its top byte with 0x80 or more (arm64 top-byte
 * ignore; HWASan, for one, tags globals so) is not supported. */
struct upmc_zone_loc {
	const char *name;
	const char *function; /* may be NULL */
	const char *file;     /* may be NULL */
	uint32_t line;
};

/* upmc_profile_options.profile_flags */
#define UPMC_PROFILE_SERIALIZED (1u << 0) /* fenced timestamps, as regions take them */

struct upmc_profile_options {
	size_t size;            /* sizeof(struct upmc_profile_options) */
	unsigned flags;         /* UPMC_OPT_* for every thread's set */
	unsigned profile_flags; /* UPMC_PROFILE_* */
	size_t buffer_bytes;    /* each thread's buffer; 0: 1 MiB (4 KiB to 1 GiB) */
};

struct upmc_profile;

/*
 * Opens the process's profile, with the counters of spec on every thread
 * ("" or NULL: time only), and opens the calling thread's set (so that a
 * spec this machine cannot count fails here). One profile at a time.
 * opts may be NULL.
 */
UPMC_API int upmc_profile_open(struct upmc_profile **profile, const char *spec,
                               const struct upmc_profile_options *opts);

/*
 * Collects what is left and frees everything. Call it when no other thread
 * is inside a zone call: after the recording threads have exited or
 * stopped recording. A thread that records again after the close must be
 * synchronised with it (joined, or told through a lock or a condition
 * variable after the close returned); it then joins the next profile, if
 * one is open. NULL is ignored.
 */
UPMC_API void upmc_profile_close(struct upmc_profile *profile);

/* Opens the calling thread's set now rather than at its first zone, and
 * names the thread in exports (name may be NULL: "thread <id>"). A name
 * is kept to 63 bytes: a longer one is cut before the first UTF-8
 * character that does not fit whole. Returns 0, -ENOENT when no profile
 * is open, or -errno (the set's or -ENOMEM). */
UPMC_API int upmc_profile_thread(const char *name);

/*
 * Begins a zone on the calling thread. Out of line and small: a
 * timestamp and the thread's counters into its buffer. Zones nest; each
 * end closes the zone begun last. Outside an open profile they do nothing.
 */
UPMC_API void upmc_zone_begin(const struct upmc_zone_loc *loc);
UPMC_API void upmc_zone_end(void);

/* Marks the end of a frame on the calling thread (a game loop's frame). */
UPMC_API void upmc_frame_mark(void);

/*
 * Makes the calling thread's records up to now collectable. With counters,
 * a collect on another thread leaves each running thread's last record for
 * later (its counters may still be being written) until the thread records
 * again, marks a frame, exits or calls this, or drops a record to a full
 * buffer. A collect on the recording thread itself takes all of its records.
 */
UPMC_API void upmc_zone_flush(void);

/* Takes every thread's finished zones out of their buffers, without
 * stopping them. Returns the number of zones it finished, or -errno
 * (-ENOMEM: what it could not take stays in the buffers for the next
 * collect). The functions below that collect first return its -errno too. */
UPMC_API int upmc_profile_collect(struct upmc_profile *profile);

/* Forgets the zones collected so far (threads keep recording). */
UPMC_API void upmc_profile_clear(struct upmc_profile *profile);

/* What was collected, and what was not. */
struct upmc_profile_stats {
	uint64_t zones;   /* collected */
	uint64_t frames;  /* frame marks */
	uint64_t dropped; /* zones lost to a full buffer */
	uint64_t dropped_frames;
	uint64_t unbalanced; /* ends without a begin */
	uint64_t refused;    /* zones with a NULL location, a NULL name or one too long */
	uint64_t open;       /* begun and not ended by the last collect */
	unsigned threads;    /* live ones, and those that exited with something left */
	unsigned counters;
};
UPMC_API int upmc_profile_stats(struct upmc_profile *profile, struct upmc_profile_stats *stats);

/* The name of the profile's counter i; NULL when out of range. */
UPMC_API const char *upmc_profile_counter_name(const struct upmc_profile *profile, unsigned i);

/* One collected zone. */
struct upmc_zone_info {
	const struct upmc_zone_loc *loc;
	const char *thread; /* the thread's name */
	uint64_t thread_id; /* the OS's id of the thread */
	uint64_t begin_ns;  /* since the profile was opened */
	uint64_t end_ns;
	unsigned depth; /* 0 for a zone inside no other */
	unsigned n;     /* counters */
	/* counter i's count in the zone; UPMC_NOT_COUNTED where it did not
	 * count. Multiplexed: the zone's interval scaled by its own times
	 * (upmc_interval()). */
	const uint64_t *delta;
	const uint64_t *self; /* the same less the zones directly inside it */
	/* the share of the zone counter i ran: 1 unless multiplexed, 0 where
	 * it did not count */
	const double *ratio;
};

/* Calls fn for every collected zone, thread by thread in the order they
 * began, until fn returns non-zero. Collects first. fn runs under the
 * collector's lock: it must not call the profile's functions that take
 * it (collect, stats, zones, write, save, print, clear, close, and
 * upmc_profile_thread() with a name) nor fork(), which would wait for it
 * forever; zones are fine. Returns the number of zones visited, or -errno. */
UPMC_API int upmc_profile_zones(struct upmc_profile *profile,
                                int (*fn)(const struct upmc_zone_info *zone, void *arg), void *arg);

/* Export formats. */
enum upmc_format {
	UPMC_FORMAT_TABLE = 1,      /* the aggregate table, per zone name */
	UPMC_FORMAT_JSON = 2,       /* the same aggregates as JSON */
	UPMC_FORMAT_CHROME = 3,     /* Chrome trace event JSON */
	UPMC_FORMAT_PERFETTO = 4,   /* Perfetto protobuf (.pftrace) */
	UPMC_FORMAT_SPEEDSCOPE = 5, /* speedscope JSON */
};

/* Writes the collected zones (collects first). Returns 0, or -errno: a
 * write that failed gives its error (-ENOSPC for a full disk). A save
 * writes a new file beside path (path.upmc-<pid>-<n>.tmp) and renames it
 * to path once whole: a save that fails leaves the file at path as it
 * was, and removes its own. */
UPMC_API int upmc_profile_write(struct upmc_profile *profile, enum upmc_format format, FILE *out);
UPMC_API int upmc_profile_save(struct upmc_profile *profile, enum upmc_format format,
                               const char *path);

/* The aggregate table. */
UPMC_API int upmc_profile_print(struct upmc_profile *profile, FILE *out);

#ifdef __cplusplus
}
#endif

/* ---- macros: a static location per call site ---- */

#define UPMC_ZONE_CAT2_(a, b) a##b
#define UPMC_ZONE_CAT_(a, b)  UPMC_ZONE_CAT2_(a, b)
#define UPMC_ZONE_LOC_        UPMC_ZONE_CAT_(upmc_zone_loc_, __LINE__)

#ifdef __cplusplus
#define UPMC_ZONE_ASSERT_(c, m) static_assert(c, m)
#else
#define UPMC_ZONE_ASSERT_(c, m) _Static_assert(c, m)
#endif

/* A name written as a string literal longer than UPMC_ZONE_NAME_MAX stops the build. */
#define UPMC_ZONE_DECLARE_(name)                                                         \
	UPMC_ZONE_ASSERT_(sizeof(name) <= UPMC_ZONE_NAME_MAX + 1, "zone name too long"); \
	static const struct upmc_zone_loc UPMC_ZONE_LOC_ = {name, __func__, __FILE__, __LINE__}

static inline void upmc_zone_end_scope_(const char *unused)
{
	(void)unused;
	upmc_zone_end();
}

#ifndef UPMC_NO_ZONES
/* A zone from here to the end of the enclosing block (return and break too).
 * The variable is marked unused: clang does not count a cleanup as a use. */
#define UPMC_ZONE(name)                                                                   \
	UPMC_ZONE_DECLARE_(name);                                                         \
	__attribute__((cleanup(upmc_zone_end_scope_), unused)) const char UPMC_ZONE_CAT_( \
	        upmc_zone_scope_, __LINE__) = (upmc_zone_begin(&UPMC_ZONE_LOC_), 0)
/* The same, named after the function. */
#define UPMC_ZONE_FUNCTION() UPMC_ZONE(__func__)
/* Explicit ends: each UPMC_ZONE_BEGIN needs one UPMC_ZONE_END. */
#define UPMC_ZONE_BEGIN(name)     \
	UPMC_ZONE_DECLARE_(name); \
	upmc_zone_begin(&UPMC_ZONE_LOC_)
#define UPMC_ZONE_END() upmc_zone_end()
#else /* a build without zones: nothing is left of them */
#define UPMC_ZONE(name)       ((void)0)
#define UPMC_ZONE_FUNCTION()  ((void)0)
#define UPMC_ZONE_BEGIN(name) ((void)0)
#define UPMC_ZONE_END()       ((void)0)
#endif

#endif /* UPMC_ZONE_H */
