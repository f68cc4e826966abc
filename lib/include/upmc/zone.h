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
 * While no profile is open, a zone costs one load of a global flag and a
 * branch, inline (upmc_zones_recording). While one records, a zone stores
 * raw values (a timestamp and the thread's counters) at its begin and end
 * into a buffer of the calling thread: no lock, no allocation (a full
 * buffer grows by blocks, out of line, up to the profile's max_bytes). No system call either where
 * every counter of the thread's set reads in user space (hardware events: rdpmc, mrs) or it records
 * time only; but each begin and each end is a read(2) where a counter reads by system call (a
 * software event such as task-clock, UPMC_OPT_FORCE_SYSCALL, a machine without user-space reads),
 * several with UPMC_OPT_MULTIPLEX or on a hybrid CPU (docs/zones.md says when). Each thread gets
 * its own set of the profile's counters at its first zone, since counters count one thread.
 * upmc_profile_collect(), from any thread, takes the finished records
 * out; statistics and exports are computed from them, or a stream writes
 * them to a Perfetto file as the program runs (upmc_profile_stream()).
 * docs/zones.md has the details, the buffer's ordering and the formats.
 * C++: <upmc/zone.hpp>, whose scoped zones need no compiler extension.
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

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#if defined(__GNUC__) || defined(__clang__)
#include <upmc/upmc.h>
#else
/* Another compiler (MSVC): the zone and profile functions alone, since
 * <upmc/upmc.h>'s inline counter reads need GCC's or Clang's inline
 * assembly. The library itself is built with GCC or Clang (MinGW). */
#ifndef UPMC_API
#define UPMC_API
#endif
#ifdef __cplusplus
extern "C" {
#endif
UPMC_API const char *upmc_last_error(void);
#ifdef __cplusplus
}
#endif
#endif

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
/* Perfetto files (UPMC_FORMAT_PERFETTO) and streams written as plain
 * packets, for tools that do not inflate; by default they are zlib-
 * compressed chunks (TracePacket.compressed_packets), a few times smaller. */
#define UPMC_PROFILE_UNCOMPRESSED (1u << 1)

struct upmc_profile_options {
	size_t size;            /* sizeof(struct upmc_profile_options) */
	unsigned flags;         /* UPMC_OPT_* for every thread's set */
	unsigned profile_flags; /* UPMC_PROFILE_* */
	/* each thread's first buffer, and each block it grows by; 0: 1 MiB
	 * (4 KiB to 1 GiB) */
	size_t buffer_bytes;
	/* what every thread's buffers may hold together: a buffer grows while
	 * the total stays within it, and drops (counted) beyond; 0: 256 MiB
	 * (at least buffer_bytes). A thread's first buffer is given even past
	 * it. Older callers' smaller struct gets the default. */
	size_t max_bytes;
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

/* Names the calling thread in the exports of every profile, open now or
 * later: the thread remembers it (cut as above), and a profile it joins
 * takes it. Opens nothing; NULL forgets it ("thread <id>" again). A name
 * given to upmc_profile_thread() is remembered the same way. */
UPMC_API void upmc_thread_name(const char *name);

/*
 * Non-zero while a profile is open in the process: the library's to write.
 * The zone calls below test it inline before anything else, so that zones
 * compiled into a program cost a load and a branch while nothing records.
 */
UPMC_API extern int upmc_zones_recording;

/*
 * Begins a zone on the calling thread. Out of line and small: a
 * timestamp and the thread's counters into its buffer. Zones nest; each
 * end closes the zone begun last. Outside an open profile they do nothing.
 * The header wraps these names in an inline test of upmc_zones_recording
 * (below); (upmc_zone_begin)(loc), and an FFI, call the exported function.
 */
UPMC_API void upmc_zone_begin(const struct upmc_zone_loc *loc);
UPMC_API void upmc_zone_end(void);

/* A zone named at run time: name (NUL-terminated, at most
 * UPMC_ZONE_NAME_MAX bytes, else the zone is refused) is copied into the
 * thread's buffer, so that the caller need not keep it; site gives the
 * function, file and line (its name is not used) and must be static. A
 * profile keeps UPMC_ZONE_NAMES_MAX names (with their sites) at most: a
 * zone of a name past them is refused (counted in the stats' refused; its
 * children are kept), so that memory stays bounded however many names a
 * program makes ("request 12345"). */
#define UPMC_ZONE_NAMES_MAX 16384
UPMC_API void upmc_zone_begin_name(const struct upmc_zone_loc *site, const char *name);

/* Text and a number for the zone open now on the calling thread (Tracy's
 * ZoneText and ZoneValue): the exports show them with the zone. Text is
 * copied (at most UPMC_ZONE_TEXT_MAX bytes are kept); a later call
 * replaces what an earlier one gave. Ignored outside a zone. */
#define UPMC_ZONE_TEXT_MAX 1024
UPMC_API void upmc_zone_text(const char *text, size_t len);
UPMC_API void upmc_zone_value(uint64_t value);

/* Marks the end of a frame on the calling thread (a game loop's frame). */
UPMC_API void upmc_frame_mark(void);

/* The same for frames of a name of their own ("physics tick", "render"):
 * name is a static string, as a zone location is; the exports show each
 * name's frames apart. */
UPMC_API void upmc_frame_mark_named(const char *name);

/*
 * Makes the calling thread's records up to now collectable. With counters,
 * a collect on another thread leaves each running thread's last record for
 * later (its counters may still be being written) until the thread records
 * again, marks a frame, exits or calls this, or drops a record to a full
 * buffer. A collect on the recording thread itself takes all of its records.
 */
UPMC_API void upmc_zone_flush(void);

/*
 * Streams the profile into a Perfetto file at path (created or replaced)
 * while the program runs: a thread of the library's collects every
 * interval_ms (0: 100) and appends the zones, frames and drop counts it
 * took, each append a whole number of packets, so that the file is a
 * valid trace whenever the program stops (a crash loses what was not
 * appended yet; a kill during an append leaves a packet cut short, which
 * upmc_trace_repair() removes). What a stream wrote is forgotten: memory stays bounded
 * (the buffers by max_bytes). The other exports and the statistics see
 * what was collected since the stream's last append; the drop counts stay
 * whole. Returns 0, -EBUSY when a stream runs already, or -errno.
 */
UPMC_API int upmc_profile_stream(struct upmc_profile *profile, const char *path,
                                 unsigned interval_ms);

/* Appends what the threads recorded up to now (as the stream's thread
 * does at each interval) and returns once it is in the file. Returns 0,
 * -ENOENT when no stream runs, or the stream's first error. */
UPMC_API int upmc_profile_stream_flush(struct upmc_profile *profile);

/* Ends the stream: a last append, then the file is closed. Returns 0, or
 * the first error the stream met (-ENOSPC: the disk filled; the file
 * then ends at the last whole append), with a sentence. The close ends
 * a stream too. */
UPMC_API int upmc_profile_stream_end(struct upmc_profile *profile);

/* What upmc_trace_repair() found: the caller sets size, the library the
 * rest (the fields a newer caller's struct adds stay as it set them). */
struct upmc_trace_repair_info {
	size_t size;            /* sizeof(struct upmc_trace_repair_info) */
	uint64_t packets;       /* whole packets in the file, all kept */
	uint64_t bytes;         /* the file's size now, theirs */
	uint64_t bytes_removed; /* the packet cut short, removed; 0: the file was whole */
};

/*
 * Mends a Perfetto trace that ends inside a packet: a stream's file after
 * the process was killed during an append (a write(2) the kernel had done
 * in part). The file is cut after its last whole packet, so that it
 * decodes with every append done before the kill. Call it on a file that
 * no stream writes any more. info may be NULL. Returns 0 (mended, or whole
 * already; an empty file, a stream killed before its first append, is
 * whole with 0 packets), -EINVAL for a file that is not a trace cut short
 * (bytes before its end that begin no packet, or bytes and no whole
 * packet: it is left as it was), or the
 * -errno of opening, reading or cutting it, with a sentence.
 */
UPMC_API int upmc_trace_repair(const char *path, struct upmc_trace_repair_info *info);

/* Takes every thread's finished zones out of their buffers, without
 * stopping them. Returns the number of zones it finished, or -errno
 * (-ENOMEM: what it could not take stays in the buffers for the next
 * collect). The functions below that collect first return its -errno too. */
UPMC_API int upmc_profile_collect(struct upmc_profile *profile);

/* Forgets the zones collected so far (threads keep recording). */
UPMC_API void upmc_profile_clear(struct upmc_profile *profile);

/* Starts a new period of Intel topdown (slots and PERF_METRICS from 0, the
 * counts kept: a read(2) of each group) in every live thread's set of the
 * profile, from any thread: a zone soon after it is measured where one
 * late in a long period is too short to be; a zone open across it has no
 * topdown metric. Once a frame, at the frame's boundary, suits a game.
 * Returns 0, -EINVAL (NULL), -EOPNOTSUPP when the profile reads no topdown
 * metric in user space, or the first thread's -errno (every thread is
 * still reset). */
UPMC_API int upmc_profile_topdown_reset(struct upmc_profile *profile);

/* What was collected, and what was not. */
struct upmc_profile_stats {
	uint64_t zones;   /* collected */
	uint64_t frames;  /* frame marks */
	uint64_t dropped; /* zones lost to a full buffer */
	uint64_t dropped_frames;
	uint64_t unbalanced; /* ends without a begin */
	uint64_t refused;    /* zones with a NULL location, a NULL name, one too long, or a
	                        run-time name past UPMC_ZONE_NAMES_MAX */
	uint64_t open;       /* begun and not ended by the last collect */
	unsigned threads;    /* live ones, and those that exited with something left */
	unsigned counters;
};
UPMC_API int upmc_profile_stats(struct upmc_profile *profile, struct upmc_profile_stats *stats);

/* What every thread's buffers hold now and the most they held, in bytes
 * (either pointer may be NULL). */
UPMC_API int upmc_profile_memory(const struct upmc_profile *profile, uint64_t *bytes,
                                 uint64_t *peak);

/* The name of the profile's counter i; NULL when out of range. */
UPMC_API const char *upmc_profile_counter_name(const struct upmc_profile *profile, unsigned i);

/* The name of the profile's metric j (as its spec names it), and why it is
 * not computed per zone ("" when it is); NULL when out of range. */
UPMC_API const char *upmc_profile_metric_name(const struct upmc_profile *profile, unsigned j);
UPMC_API const char *upmc_profile_metric_reason(const struct upmc_profile *profile, unsigned j);

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
	const char *text; /* upmc_zone_text()'s; NULL when none */
	uint64_t value;   /* upmc_zone_value()'s, when has_value */
	int has_value;
	/* The metrics the profile's spec names (upmc_profile_metric_name()):
	 * metric j of the zone from its own counts (delta), as the exports
	 * compute it; NAN where an input did not count in the zone, a
	 * denominator is 0, or the metric is not computed here
	 * (upmc_profile_metric_reason()). Last in the struct, which only the
	 * library fills: code built before they were added reads the rest. */
	unsigned metrics;
	const double *metric;
};

/* Calls fn for every collected zone, thread by thread in the order they
 * began, until fn returns non-zero. Collects first. fn runs under the
 * collector's lock. From fn, the calls that take it are refused with
 * -EDEADLK and a sentence: upmc_profile_collect(), _stats(), _zones(),
 * _write(), _save(), _print(), _stream(), _stream_flush(), _stream_end();
 * upmc_profile_clear() does nothing there. fn must not call
 * upmc_profile_close() nor fork(), which would wait for the lock forever.
 * Zones, upmc_thread_name() and upmc_profile_thread() are fine. Returns
 * the number of zones visited, or -errno. */
UPMC_API int upmc_profile_zones(struct upmc_profile *profile,
                                int (*fn)(const struct upmc_zone_info *zone, void *arg), void *arg);

/* Export formats. */
enum upmc_format {
	UPMC_FORMAT_TABLE = 1,                 /* the aggregate table, per zone name */
	UPMC_FORMAT_JSON = 2,                  /* the same aggregates as JSON */
	UPMC_FORMAT_CHROME = 3,                /* Chrome trace event JSON */
	UPMC_FORMAT_PERFETTO = 4,              /* Perfetto protobuf (.pftrace), compressed chunks */
	UPMC_FORMAT_SPEEDSCOPE = 5,            /* speedscope JSON */
	UPMC_FORMAT_PERFETTO_UNCOMPRESSED = 6, /* Perfetto protobuf, plain packets */
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

/* ---- the inline test: nothing but a load and a branch while idle ---- */

/* Always inline: left to itself, GCC makes a function with many zones call
 * an outlined copy of each test, which costs a call more per zone. */
#if defined(__GNUC__) || defined(__clang__)
#define UPMC_ZONES_ON_() \
	__builtin_expect(!!__atomic_load_n(&upmc_zones_recording, __ATOMIC_RELAXED), 1)
#define UPMC_ZONE_INLINE_ static inline __attribute__((always_inline))
#else
#define UPMC_ZONES_ON_()  (*(const volatile int *)&upmc_zones_recording)
#define UPMC_ZONE_INLINE_ static inline
#endif

UPMC_ZONE_INLINE_ void upmc_zone_begin_if_(const struct upmc_zone_loc *loc)
{
	if (UPMC_ZONES_ON_())
		(upmc_zone_begin)(loc);
}

UPMC_ZONE_INLINE_ void upmc_zone_end_if_(void)
{
	if (UPMC_ZONES_ON_())
		(upmc_zone_end)();
}

UPMC_ZONE_INLINE_ void upmc_zone_begin_name_if_(const struct upmc_zone_loc *site, const char *name)
{
	if (UPMC_ZONES_ON_())
		(upmc_zone_begin_name)(site, name);
}

UPMC_ZONE_INLINE_ void upmc_zone_text_if_(const char *text, size_t len)
{
	if (UPMC_ZONES_ON_())
		(upmc_zone_text)(text, len);
}

UPMC_ZONE_INLINE_ void upmc_zone_value_if_(uint64_t value)
{
	if (UPMC_ZONES_ON_())
		(upmc_zone_value)(value);
}

UPMC_ZONE_INLINE_ void upmc_frame_mark_if_(void)
{
	if (UPMC_ZONES_ON_())
		(upmc_frame_mark)();
}

UPMC_ZONE_INLINE_ void upmc_frame_mark_named_if_(const char *name)
{
	if (UPMC_ZONES_ON_())
		(upmc_frame_mark_named)(name);
}

#define upmc_zone_begin(loc)             upmc_zone_begin_if_(loc)
#define upmc_zone_end()                  upmc_zone_end_if_()
#define upmc_zone_begin_name(site, name) upmc_zone_begin_name_if_(site, name)
#define upmc_zone_text(text, len)        upmc_zone_text_if_(text, len)
#define upmc_zone_value(value)           upmc_zone_value_if_(value)
#define upmc_frame_mark()                upmc_frame_mark_if_()
#define upmc_frame_mark_named(name)      upmc_frame_mark_named_if_(name)

/* ---- macros: a static location per call site ---- */

/* Each macro takes one id for its location and scope variable, so that two
 * zone macros on one line do not name the same ones: __COUNTER__ (GCC,
 * Clang, MSVC), else the line. */
#ifdef __COUNTER__
#define UPMC_ZONE_ID_ __COUNTER__
#else
#define UPMC_ZONE_ID_ __LINE__
#endif
#define UPMC_ZONE_CAT2_(a, b) a##b
#define UPMC_ZONE_CAT_(a, b)  UPMC_ZONE_CAT2_(a, b)
#define UPMC_ZONE_LOC_(id)    UPMC_ZONE_CAT_(upmc_zone_loc_, id)

#ifdef __cplusplus
#define UPMC_ZONE_ASSERT_(c, m) static_assert(c, m)
#else
#define UPMC_ZONE_ASSERT_(c, m) _Static_assert(c, m)
#endif

/* A name written as a string literal longer than UPMC_ZONE_NAME_MAX stops the build. */
#define UPMC_ZONE_DECLARE_(name, id)                                                     \
	UPMC_ZONE_ASSERT_(sizeof(name) <= UPMC_ZONE_NAME_MAX + 1, "zone name too long"); \
	static const struct upmc_zone_loc UPMC_ZONE_LOC_(id) = {name, __func__, __FILE__, __LINE__}

/* A call site of zones named at run time: its name is a placeholder. */
#define UPMC_ZONE_SITE_(id) \
	static const struct upmc_zone_loc UPMC_ZONE_LOC_(id) = {"", __func__, __FILE__, __LINE__}

#ifdef __cplusplus
/* C++: a scoped zone is an object, whose destructor ends it: no compiler
 * extension (MSVC too), and fine in templates and lambdas. */
struct upmc_zone_scope_ {
	explicit upmc_zone_scope_(const struct upmc_zone_loc *loc)
	{
		upmc_zone_begin(loc);
	}
	upmc_zone_scope_(const struct upmc_zone_loc *site, const char *name)
	{
		upmc_zone_begin_name(site, name);
	}
	~upmc_zone_scope_()
	{
		upmc_zone_end();
	}
	upmc_zone_scope_(const upmc_zone_scope_ &) = delete;
	upmc_zone_scope_ &operator=(const upmc_zone_scope_ &) = delete;
};
#define UPMC_ZONE_SCOPE_VAR_(id) UPMC_ZONE_CAT_(upmc_zone_scope_, id)
#define UPMC_ZONE_SCOPE_LOC_(id) \
	const upmc_zone_scope_ UPMC_ZONE_SCOPE_VAR_(id)(&UPMC_ZONE_LOC_(id))
#define UPMC_ZONE_SCOPE_NAME_(id, name) \
	const upmc_zone_scope_ UPMC_ZONE_SCOPE_VAR_(id)(&UPMC_ZONE_LOC_(id), name)
#elif defined(__GNUC__) || defined(__clang__)
static inline void upmc_zone_end_scope_(const char *unused)
{
	(void)unused;
	upmc_zone_end();
}
/* The variable is marked unused: clang does not count a cleanup as a use. */
#define UPMC_ZONE_SCOPE_VAR_(id)                                                          \
	__attribute__((cleanup(upmc_zone_end_scope_), unused)) const char UPMC_ZONE_CAT_( \
	        upmc_zone_scope_, id)
#define UPMC_ZONE_SCOPE_LOC_(id) \
	UPMC_ZONE_SCOPE_VAR_(id) = (upmc_zone_begin(&UPMC_ZONE_LOC_(id)), 0)
#define UPMC_ZONE_SCOPE_NAME_(id, name) \
	UPMC_ZONE_SCOPE_VAR_(id) = (upmc_zone_begin_name(&UPMC_ZONE_LOC_(id), name), 0)
#else
/* C without the cleanup attribute: UPMC_ZONE_BEGIN and UPMC_ZONE_END, or C++. */
#define UPMC_ZONE_SCOPE_LOC_(id) \
	UPMC_ZONE_ASSERT_(0, "scoped zones in C need GCC or Clang: use UPMC_ZONE_BEGIN/END")
#define UPMC_ZONE_SCOPE_NAME_(id, name) UPMC_ZONE_SCOPE_LOC_(id)
#endif

#ifndef UPMC_NO_ZONES
/* A zone from here to the end of the enclosing block (return and break too). */
#define UPMC_ZONE(name) UPMC_ZONE_AT_(name, UPMC_ZONE_ID_)
/* The same, named after the function. */
#define UPMC_ZONE_FUNCTION() UPMC_ZONE(__func__)
/* The same, named at run time (name: any NUL-terminated string, copied). */
#define UPMC_ZONE_DYNAMIC(name) UPMC_ZONE_DYNAMIC_AT_(name, UPMC_ZONE_ID_)
/* Explicit ends: each UPMC_ZONE_BEGIN needs one UPMC_ZONE_END. */
#define UPMC_ZONE_BEGIN(name)         UPMC_ZONE_BEGIN_AT_(name, UPMC_ZONE_ID_)
#define UPMC_ZONE_BEGIN_DYNAMIC(name) UPMC_ZONE_BEGIN_DYNAMIC_AT_(name, UPMC_ZONE_ID_)
/* Their bodies, given the id (expanded once, before it is pasted). */
#define UPMC_ZONE_AT_(name, id)       \
	UPMC_ZONE_DECLARE_(name, id); \
	UPMC_ZONE_SCOPE_LOC_(id)
#define UPMC_ZONE_DYNAMIC_AT_(name, id) \
	UPMC_ZONE_SITE_(id);            \
	UPMC_ZONE_SCOPE_NAME_(id, name)
#define UPMC_ZONE_BEGIN_AT_(name, id) \
	UPMC_ZONE_DECLARE_(name, id); \
	upmc_zone_begin(&UPMC_ZONE_LOC_(id))
#define UPMC_ZONE_BEGIN_DYNAMIC_AT_(name, id) \
	UPMC_ZONE_SITE_(id);                  \
	upmc_zone_begin_name(&UPMC_ZONE_LOC_(id), name)
#define UPMC_ZONE_END() upmc_zone_end()
/* Text and a number for the zone open now (Tracy's ZoneText, ZoneValue). */
#define UPMC_ZONE_TEXT(text, len) upmc_zone_text(text, len)
#define UPMC_ZONE_VALUE(value)    upmc_zone_value(value)
/* A frame's end: unnamed, or named after a static string. */
#define UPMC_FRAME_MARK()           upmc_frame_mark()
#define UPMC_FRAME_MARK_NAMED(name) upmc_frame_mark_named(name)
#else /* a build without zones: nothing is left of them */
#define UPMC_ZONE(name)               ((void)0)
#define UPMC_ZONE_FUNCTION()          ((void)0)
#define UPMC_ZONE_DYNAMIC(name)       ((void)0)
#define UPMC_ZONE_BEGIN(name)         ((void)0)
#define UPMC_ZONE_BEGIN_DYNAMIC(name) ((void)0)
#define UPMC_ZONE_END()               ((void)0)
#define UPMC_ZONE_TEXT(text, len)     ((void)0)
#define UPMC_ZONE_VALUE(value)        ((void)0)
#define UPMC_FRAME_MARK()             ((void)0)
#define UPMC_FRAME_MARK_NAMED(name)   ((void)0)
#endif

#endif /* UPMC_ZONE_H */
