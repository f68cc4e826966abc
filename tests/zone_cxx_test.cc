// SPDX-License-Identifier: MIT
// <upmc/zone.hpp>: scoped zones end with their scope however it is left
// (return, break, exception), one location per template instantiation and
// per lambda, names made at run time, text and value, the thread's name
// given before the profile opened, the profile closed with its object;
// the same header compiled as a compiler without GNU extensions sees it
// (tests/zone_cxx_plain.cc), and with -DUPMC_NO_ZONES (zone_cxx_off.cc).
#include <gtest/gtest.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <vector>

#include <upmc/zone.hpp>

#include "tests/zone_cxx_tu.h"

namespace
{

struct Seen {
	const upmc_zone_loc *loc;
	std::string name, thread, text;
	unsigned depth;
	std::uint64_t begin_ns, end_ns, value;
	bool has_value;
};

// Every zone the profile collected, in the order they began.
std::vector<Seen> zones_of(upmc::Profile &profile)
{
	std::vector<Seen> out;
	upmc_profile_zones(
	        profile.get(),
	        [](const upmc_zone_info *z, void *arg) {
		        static_cast<std::vector<Seen> *>(arg)->push_back(
		                {z->loc, z->loc->name, z->thread, z->text ? z->text : "", z->depth,
		                 z->begin_ns, z->end_ns, z->value, z->has_value != 0});
		        return 0;
	        },
	        &out);
	return out;
}

void expect_balanced(upmc::Profile &profile)
{
	struct upmc_profile_stats s {
	};
	ASSERT_EQ(profile.stats(s), 0);
	EXPECT_EQ(s.unbalanced, 0u);
	EXPECT_EQ(s.open, 0u);
	EXPECT_EQ(s.dropped, 0u);
	EXPECT_EQ(s.refused, 0u);
}

int leave_early(int n)
{
	UPMC_ZONE("early");
	if (n > 0)
		return n; // ends "early"
	UPMC_ZONE("late");
	return 0;
}

void throws()
{
	UPMC_ZONE("throws");
	throw std::runtime_error("out of the zone");
}

template <class T> int twice(T t)
{
	UPMC_ZONE_FUNCTION();
	return static_cast<int>(t) * 2;
}

// The profile every test but the last opens: time only, on this thread.
class ZoneCxx : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		ASSERT_EQ(profile.open(""), 0) << upmc_last_error();
	}
	upmc::Profile profile;
};

TEST_F(ZoneCxx, ScopeEndsOnReturnBreakAndException)
{
	{
		UPMC_ZONE("outer");
		leave_early(1);
		for (int i = 0; i < 3; i++) {
			UPMC_ZONE("loop");
			if (i == 1)
				break; // ends "loop"
		}
		try {
			throws();
		} catch (const std::runtime_error &) {
		}
	}
	expect_balanced(profile);
	const std::vector<Seen> z = zones_of(profile);
	ASSERT_EQ(z.size(), 5u);
	const char *names[] = {"outer", "early", "loop", "loop", "throws"};
	for (std::size_t i = 0; i < z.size(); i++) {
		EXPECT_EQ(z[i].name, names[i]);
		EXPECT_EQ(z[i].depth, i == 0 ? 0u : 1u) << names[i];
		EXPECT_LE(z[i].end_ns, z[0].end_ns) << names[i]; // inside "outer"
	}
}

TEST_F(ZoneCxx, TemplatesAndLambdasHaveTheirOwnLocations)
{
	auto job = [](int n) {
		UPMC_ZONE("job");
		return twice(n);
	};
	EXPECT_EQ(job(1), 2);
	EXPECT_EQ(job(2), 4);
	EXPECT_EQ(twice(1.5), 2);
	expect_balanced(profile);
	const std::vector<Seen> z = zones_of(profile);
	ASSERT_EQ(z.size(), 5u);
	EXPECT_EQ(z[0].name, "job");
	EXPECT_EQ(z[1].name, "twice");
	EXPECT_EQ(z[1].depth, 1u);
	EXPECT_EQ(z[0].loc, z[2].loc); // one call site, called twice
	EXPECT_EQ(z[1].loc, z[3].loc); // twice<int> both times
	EXPECT_NE(z[1].loc, z[4].loc); // twice<double> apart
	EXPECT_EQ(z[4].name, "twice");
	EXPECT_EQ(z[4].depth, 0u);
}

TEST_F(ZoneCxx, RuntimeNamesTextAndValue)
{
	for (int i = 0; i < 2; i++) {
		std::string name = "entity " + std::to_string(i);
		UPMC_ZONE_DYNAMIC_VAR(zone, name);
		zone.text(std::string("level ") + std::to_string(i));
		zone.value(40u + i);
		name.assign(64, 'x'); // the name was copied
	}
	{
		UPMC_ZONE_VAR(zone, "plain");
		zone.text("abcdef", 3);
	}
	expect_balanced(profile);
	const std::vector<Seen> z = zones_of(profile);
	ASSERT_EQ(z.size(), 3u);
	for (int i = 0; i < 2; i++) {
		EXPECT_EQ(z[i].name, "entity " + std::to_string(i));
		EXPECT_EQ(z[i].text, "level " + std::to_string(i));
		EXPECT_TRUE(z[i].has_value);
		EXPECT_EQ(z[i].value, 40u + i);
	}
	EXPECT_EQ(z[2].name, "plain");
	EXPECT_EQ(z[2].text, "abc");
	EXPECT_FALSE(z[2].has_value);
}

TEST_F(ZoneCxx, WithoutGnuExtensionsAndWithoutZones)
{
	EXPECT_EQ(zone_cxx_plain(3), 6);
	EXPECT_EQ(zone_cxx_off(3), 6);
	expect_balanced(profile);
	const std::vector<Seen> z = zones_of(profile);
	ASSERT_EQ(z.size(), 2u); // zone_cxx_off's zones compiled to nothing
	EXPECT_EQ(z[0].name, "plain");
	EXPECT_EQ(z[1].name, "plain inner");
	EXPECT_EQ(z[1].text, "no extensions");
	EXPECT_EQ(z[1].value, 6u);
	EXPECT_EQ(z[1].depth, 1u);
}

TEST(ZoneCxxProfile, ClosedWithItsObjectAndOneAtATime)
{
	upmc::thread_name("named before"); // remembered until a profile opens
	{
		upmc::Profile profile, other;
		ASSERT_EQ(profile.open(""), 0) << upmc_last_error();
		EXPECT_EQ(other.open(""), -EBUSY);
		EXPECT_EQ(other.get(), nullptr);
		EXPECT_NE(std::string(upmc_last_error()).find("already open"), std::string::npos);
		EXPECT_NE(upmc_zones_recording, 0);
		{
			UPMC_ZONE("named");
		}
		upmc::frame_mark("tick");
		const std::vector<Seen> z = zones_of(profile);
		ASSERT_EQ(z.size(), 1u);
		EXPECT_EQ(z[0].thread, "named before");
		struct upmc_profile_stats s {
		};
		ASSERT_EQ(profile.stats(s), 0);
		EXPECT_EQ(s.frames, 1u);
	}
	EXPECT_EQ(upmc_zones_recording, 0); // closed by the destructor
	{
		UPMC_ZONE("idle"); // nothing open: nothing happens
	}
	upmc::Profile again;
	ASSERT_EQ(again.open(""), 0) << upmc_last_error();
	EXPECT_EQ(zones_of(again).size(), 0u);
	upmc::thread_name(nullptr);
}

} // namespace
