// SPDX-License-Identifier: MIT
//
// A game's threads recording zones flat out, streamed to a Perfetto file
// while they run: C++'s scoped zones (<upmc/zone.hpp>) in plain functions,
// templates and lambdas, names made at run time, a zone's text and value,
// thread names given before the profile opens, and named frame marks.
//
//   bazel run //examples:stream_zones -- DIR [SECONDS [THREADS [SPEC]]]
//
// It runs SECONDS (default 2) on THREADS threads (default 2: the game and
// one renderer), with no frame pacing, and streams DIR/stream.pftrace
// (ui.perfetto.dev). Then it says what it recorded and what the buffers
// held at most, and fails when a zone was dropped or the buffers went past
// their cap. tools/stream-soak.sh runs it and decodes the trace.
// -DUPMC_SINGLE_FILE builds it against the single-file upmc.h beside it.
#ifdef UPMC_SINGLE_FILE
#include "upmc.h"
#else
#include <upmc/zone.hpp>
#endif

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace
{

constexpr std::size_t kBufferBytes = 1u << 20; // each block a thread's buffer grows by
constexpr std::size_t kMaxBytes = 64u << 20;   // what all buffers may hold together

std::atomic<bool> running{true};
volatile float sink; // keeps the work from being optimised away

struct Body {
	float x = 0, v = 1;
	void step()
	{
		v -= 0.01f;
		x += v;
		if (x < 0) {
			x = -x;
			v = -v * 0.8f;
		}
	}
};

struct Light {
	float intensity = 1;
	void step()
	{
		intensity = 0.5f + 0.5f * std::sin(intensity * 3.1f);
	}
};

// One location per instantiation: update<Body> and update<Light> are two.
template <class T> void update(std::vector<T> &items)
{
	UPMC_ZONE_FUNCTION();
	for (T &item : items)
		item.step();
}

// A name made at run time: each kind of entity its own zone name.
void think(const std::string &kind, unsigned count)
{
	UPMC_ZONE_DYNAMIC(kind.c_str()); // copied: the caller need not keep it
	float s = 0;
	for (unsigned i = 0; i < count * 256; i++)
		s += static_cast<float>(i % 7);
	sink = s;
}

// A zone that says what it did: the level in its text, the paths in its value.
unsigned find_paths(const std::string &level, unsigned frame)
{
	UPMC_ZONE_VAR(zone, "find paths");
	zone.text(level);
	if (frame % 8 != 0)
		return 0; // a return ends the zone
	unsigned paths = 0;
	for (unsigned i = 0; i < 2000; i++)
		paths += (i * 2654435761u + frame) >> 30 == 1;
	zone.value(paths);
	return paths;
}

// An exception leaving a zone ends it too.
void load_asset(unsigned frame)
{
	UPMC_ZONE("load asset");
	if (frame % 64 == 63)
		throw std::runtime_error("asset not ready");
}

void game_frame(unsigned frame, std::vector<Body> &bodies, std::vector<Light> &lights)
{
	UPMC_ZONE("game frame");
	static const std::string kinds[] = {"think: guard", "think: archer", "think: horse"};

	update(bodies);
	update(lights);
	for (unsigned k = 0; k < 3; k++)
		think(kinds[k], 4 + k);
	find_paths("level 1", frame);
	try {
		load_asset(frame);
	} catch (const std::runtime_error &) {
		UPMC_ZONE("retry later");
	}
}

void render_frame(unsigned frame, std::vector<float> &target)
{
	UPMC_ZONE("render frame");
	auto pass = [&](std::size_t from, std::size_t step) {
		UPMC_ZONE("pass"); // a lambda's zone: named, since __func__ would be operator()
		for (std::size_t i = from; i < target.size(); i += step)
			target[i] = target[i] * 0.5f + static_cast<float>(frame & 7);
	};
	pass(0, 4);
	pass(1, 4);
	{
		UPMC_ZONE("post");
		pass(2, 8);
	}
}

// A thread's loop: frames as fast as it can until told to stop.
unsigned long run_game()
{
	std::vector<Body> bodies(8000);
	std::vector<Light> lights(800);
	unsigned long frames = 0;

	while (running.load(std::memory_order_relaxed)) {
		game_frame(static_cast<unsigned>(frames), bodies, lights);
		upmc::frame_mark("game");
		frames++;
	}
	return frames;
}

unsigned long run_render()
{
	std::vector<float> target(65536, 1.0f);
	unsigned long frames = 0;

	while (running.load(std::memory_order_relaxed)) {
		render_frame(static_cast<unsigned>(frames), target);
		upmc::frame_mark("render");
		frames++;
	}
	return frames;
}

// The counters of spec, or time only ("") where this machine cannot count them.
int open_profile(upmc::Profile &profile, const char *spec)
{
	const upmc_profile_options opts = {sizeof(opts), 0, 0, kBufferBytes, kMaxBytes};

	if (spec[0] && profile.open(spec, &opts) == 0)
		return 0;
	if (spec[0])
		std::printf("%s cannot be counted here (%s): time only\n", spec, upmc_last_error());
	return profile.open("", &opts);
}

// DIR as the user meant it: `bazel run` starts us in the runfiles.
std::string output_dir(const char *arg)
{
	const char *cwd = std::getenv("BUILD_WORKING_DIRECTORY");
	return arg[0] != '/' && cwd ? std::string(cwd) + "/" + arg : std::string(arg);
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 5) {
		std::fprintf(stderr, "usage: stream_zones DIR [SECONDS [THREADS [SPEC]]]\n");
		return 2;
	}
	const std::string dir = output_dir(argv[1]);
	const double seconds = argc > 2 ? std::atof(argv[2]) : 2;
	const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
	const char *spec = argc > 4 ? argv[4] : "";
	if (seconds <= 0 || threads < 1 || threads > 64) {
		std::fprintf(stderr, "stream_zones: SECONDS > 0, THREADS 1 to 64\n");
		return 2;
	}
	const std::string path = dir + "/stream.pftrace";

	upmc::thread_name("game"); // before the profile opens: remembered
	upmc::Profile profile;
	if (open_profile(profile, spec) < 0 || profile.stream(path.c_str()) < 0) {
		std::fprintf(stderr, "stream_zones: %s\n", upmc_last_error());
		return 1;
	}

	std::vector<unsigned long> frames(threads);
	std::vector<std::thread> renderers;
	for (int k = 1; k < threads; k++)
		renderers.emplace_back([k, &frames] {
			upmc::thread_name(("render " + std::to_string(k)).c_str());
			frames[k] = run_render();
		});
	std::thread timer([seconds] {
		std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
		running = false;
	});
	frames[0] = run_game();
	timer.join();
	for (std::thread &t : renderers)
		t.join();

	const int err = profile.stream_end();
	struct upmc_profile_stats stats {
	};
	std::uint64_t bytes = 0, peak = 0;
	profile.stats(stats);
	profile.memory(&bytes, &peak);
	unsigned long game = frames[0], render = 0;
	for (int k = 1; k < threads; k++)
		render += frames[k];
	std::printf("frames: game %lu, render %lu\n", game, render);
	std::printf("dropped %llu zones, %llu frames; open %llu\n",
	            static_cast<unsigned long long>(stats.dropped),
	            static_cast<unsigned long long>(stats.dropped_frames),
	            static_cast<unsigned long long>(stats.open));
	std::printf("buffers: at most %llu bytes, cap %llu\n",
	            static_cast<unsigned long long>(peak),
	            static_cast<unsigned long long>(kMaxBytes));
	std::printf("wrote %s\n", path.c_str());
	if (err < 0) {
		std::fprintf(stderr, "stream_zones: %s\n", upmc_last_error());
		return 1;
	}
	return stats.dropped || stats.dropped_frames || peak > kMaxBytes ? 1 : 0;
}
