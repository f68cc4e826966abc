// SPDX-License-Identifier: MIT
/*
 * Zones for C++: <upmc/zone.h> with objects.
 *
 *   void physics()
 *   {
 *           UPMC_ZONE("physics");                 // to the end of the scope
 *           ...
 *           UPMC_ZONE_VAR(step, "step");          // one that takes a text and a value
 *           step.text(level_name);
 *           step.value(bodies.size());
 *   }
 *   template <class T> void update(T &t)
 *   {
 *           UPMC_ZONE_FUNCTION();                 // one location per instantiation
 *           ...
 *   }
 *   auto job = [&] { UPMC_ZONE_DYNAMIC(task.name); ... };   // a name made at run time
 *
 * A scoped zone is an object whose destructor ends it, so that a return, a
 * break or an exception ends it too, with no compiler extension (the C
 * macros' cleanup attribute is GCC's and Clang's): MSVC gets scoped zones
 * too, linked to the library built by MinGW. The zone macros of
 * <upmc/zone.h> are objects too in C++. Each call site has one static
 * location, in a template one per instantiation; in a lambda __func__ is
 * "operator()", so name a lambda's zones. While no profile is open, a zone
 * costs the inline test of upmc_zones_recording. With -DUPMC_NO_ZONES the
 * objects and macros compile to nothing.
 */
#ifndef UPMC_ZONE_HPP
#define UPMC_ZONE_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <upmc/zone.h>

namespace upmc
{

#ifndef UPMC_NO_ZONES
// A zone from the object's construction to its destruction.
class Zone
{
      public:
	// loc: a static location (the macros declare one per call site)
	explicit Zone(const upmc_zone_loc &loc) noexcept
	{
		upmc_zone_begin(&loc);
	}
	// A name made at run time, copied; site: the call site, static
	Zone(const upmc_zone_loc &site, const char *name) noexcept
	{
		upmc_zone_begin_name(&site, name);
	}
	Zone(const upmc_zone_loc &site, const std::string &name) noexcept : Zone(site, name.c_str())
	{
	}
	~Zone()
	{
		upmc_zone_end();
	}
	Zone(const Zone &) = delete;
	Zone &operator=(const Zone &) = delete;

	// Text and a number for this zone (Tracy's ZoneText, ZoneValue): valid
	// while it is the zone open last on its thread.
	void text(const char *s, std::size_t len) const noexcept
	{
		upmc_zone_text(s, len);
	}
	void text(const std::string &s) const noexcept
	{
		upmc_zone_text(s.data(), s.size());
	}
	void value(std::uint64_t v) const noexcept
	{
		upmc_zone_value(v);
	}
};
#else
// A build without zones: the same names, doing nothing.
class Zone
{
      public:
	explicit Zone(const upmc_zone_loc &) noexcept
	{
	}
	Zone(const upmc_zone_loc &, const char *) noexcept
	{
	}
	Zone(const upmc_zone_loc &, const std::string &) noexcept
	{
	}
	Zone(const Zone &) = delete;
	Zone &operator=(const Zone &) = delete;
	void text(const char *, std::size_t) const noexcept
	{
	}
	void text(const std::string &) const noexcept
	{
	}
	void value(std::uint64_t) const noexcept
	{
	}
};
#endif

// The end of a frame on this thread: unnamed, or named after a static string.
inline void frame_mark() noexcept
{
	upmc_frame_mark();
}

inline void frame_mark(const char *name) noexcept
{
	upmc_frame_mark_named(name);
}

// Names this thread in the exports of every profile, open now or later.
inline void thread_name(const char *name) noexcept
{
	upmc_thread_name(name);
}

// The process's profile, closed with the object (when no other thread is
// inside a zone call: as upmc_profile_close()). Functions return what the
// C ones do: 0 or a count, or a negative errno with upmc_last_error().
class Profile
{
      public:
	Profile() noexcept = default;
	~Profile()
	{
		upmc_profile_close(p_);
	}
	Profile(const Profile &) = delete;
	Profile &operator=(const Profile &) = delete;

	// A second open, of this object or any other, fails as the C one does
	// (-EBUSY: one profile at a time) and leaves the first open.
	int open(const char *spec, const upmc_profile_options *opts = nullptr) noexcept
	{
		upmc_profile *p = nullptr;
		const int err = upmc_profile_open(&p, spec, opts);

		if (err == 0)
			p_ = p;
		return err;
	}
	void close() noexcept
	{
		upmc_profile_close(p_);
		p_ = nullptr;
	}
	upmc_profile *get() const noexcept
	{
		return p_;
	}
	int collect() noexcept
	{
		return upmc_profile_collect(p_);
	}
	void clear() noexcept
	{
		upmc_profile_clear(p_);
	}
	int stats(struct upmc_profile_stats &s) noexcept
	{
		return upmc_profile_stats(p_, &s);
	}
	int save(upmc_format format, const char *path) noexcept
	{
		return upmc_profile_save(p_, format, path);
	}
	int print(FILE *out) noexcept
	{
		return upmc_profile_print(p_, out);
	}
	int stream(const char *path, unsigned interval_ms = 0) noexcept
	{
		return upmc_profile_stream(p_, path, interval_ms);
	}
	int stream_flush() noexcept
	{
		return upmc_profile_stream_flush(p_);
	}
	int stream_end() noexcept
	{
		return upmc_profile_stream_end(p_);
	}
	// What the buffers hold now and the most they held, in bytes.
	int memory(std::uint64_t *bytes, std::uint64_t *peak) const noexcept
	{
		return upmc_profile_memory(p_, bytes, peak);
	}

      private:
	upmc_profile *p_ = nullptr;
};

} // namespace upmc

/* A scoped zone held in a variable of that name, for its text() and value(). */
#define UPMC_ZONE_VAR(var, name) UPMC_ZONE_VAR_AT_(var, name, UPMC_ZONE_ID_)
#define UPMC_ZONE_VAR_AT_(var, name, id) \
	UPMC_ZONE_DECLARE_(name, id);    \
	const ::upmc::Zone var(UPMC_ZONE_LOC_(id))
/* The same, named at run time (a const char * or a std::string, copied). */
#define UPMC_ZONE_DYNAMIC_VAR(var, name) UPMC_ZONE_DYNAMIC_VAR_AT_(var, name, UPMC_ZONE_ID_)
#define UPMC_ZONE_DYNAMIC_VAR_AT_(var, name, id) \
	UPMC_ZONE_SITE_(id);                     \
	const ::upmc::Zone var(UPMC_ZONE_LOC_(id), name)

#endif /* UPMC_ZONE_HPP */
