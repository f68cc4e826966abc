// SPDX-License-Identifier: MIT
//
// A C++ program with upmc::Zone (<upmc/zone.hpp>) and a profile of its own,
// for `upmc stat --zones`:
//
//   zone_cxx_workload SPEC   opens its profile of SPEC (a failed open exits
//                            4), then main: 10 "outer", each with 3 "inner"
//                            that touch 16 fresh pages, a thread: 5 "work"
//                            (a function template's zone); prints its own
//                            table (upmc::Profile::print) and exits 0
#include <upmc/zone.hpp>

#include <sys/mman.h>

#include <cstdio>
#include <thread>

namespace
{

constexpr std::size_t kPage = 4096;

void touch(unsigned pages)
{
	void *m = mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
	               -1, 0);
	if (m == MAP_FAILED)
		return;
	for (unsigned i = 0; i < pages; i++)
		static_cast<volatile char *>(m)[i * kPage] = 1;
	munmap(m, pages * kPage);
}

template <unsigned Pages> void work()
{
	UPMC_ZONE("work");
	touch(Pages);
}

} // namespace

int main(int argc, char **argv)
{
	upmc::Profile profile;

	if (argc != 2 || profile.open(argv[1]) < 0) {
		std::fprintf(stderr, "zone_cxx_workload: %s\n",
		             argc == 2 ? upmc_last_error() : "usage: zone_cxx_workload SPEC");
		return 4;
	}
	std::thread worker([] {
		upmc_thread_name("worker");
		for (int i = 0; i < 5; i++)
			work<4>();
	});
	worker.join();
	for (int i = 0; i < 10; i++) {
		UPMC_ZONE("outer");
		for (int k = 0; k < 3; k++) {
			UPMC_ZONE("inner");
			touch(16);
		}
	}
	return profile.print(stdout) < 0 ? 5 : 0;
}
