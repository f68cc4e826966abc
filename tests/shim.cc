// SPDX-License-Identifier: MIT
// GoogleTest side of the C test shim (tests/upmc_test.h): registers the C
// test functions as test cases and reports their checks and skips.
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/upmc_test.h"

namespace
{

struct Entry {
	const char *suite;
	const char *name;
	upmc_test_fn fn;
	const char *file;
	int line;
};

std::vector<Entry> &registry()
{
	static std::vector<Entry> entries;
	return entries;
}

class CTest : public ::testing::Test
{
      public:
	explicit CTest(upmc_test_fn fn) : fn_(fn)
	{
	}
	void TestBody() override
	{
		fn_();
	}

      private:
	upmc_test_fn fn_;
};

std::string format(const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	return buf;
}

void report(::testing::TestPartResult::Type type, const char *file, int line,
            const std::string &msg)
{
	::testing::internal::AssertHelper(type, file, line, msg.c_str()) = ::testing::Message();
}

} // namespace

extern "C" void upmc_test_register(const char *suite, const char *name, upmc_test_fn fn,
                                   const char *file, int line)
{
	registry().push_back({suite, name, fn, file, line});
}

extern "C" int upmc_test_check(int ok, int fatal, const char *expr, const char *file, int line,
                               const char *fmt, ...)
{
	if (ok)
		return 1;
	std::string msg = std::string("check failed: ") + expr;
	va_list ap;
	va_start(ap, fmt);
	std::string detail = format(fmt, ap);
	va_end(ap);
	if (!detail.empty())
		msg += "\n  " + detail;
	report(fatal ? ::testing::TestPartResult::kFatalFailure
	             : ::testing::TestPartResult::kNonFatalFailure,
	       file, line, msg);
	return 0;
}

extern "C" void upmc_test_skip(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string why = format(fmt, ap);
	va_end(ap);
	std::printf("SKIPPED: %s\n", why.c_str());
	report(::testing::TestPartResult::kSkip, file, line, why);
}

int main(int argc, char **argv)
{
	::testing::InitGoogleTest(&argc, argv);
	for (const Entry &e : registry()) {
		upmc_test_fn fn = e.fn;
		::testing::RegisterTest(e.suite, e.name, nullptr, nullptr, e.file, e.line,
		                        [fn]() -> ::testing::Test * { return new CTest(fn); });
	}
	return RUN_ALL_TESTS();
}
