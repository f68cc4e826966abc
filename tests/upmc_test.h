/* SPDX-License-Identifier: MIT */
/*
 * The C test shim: tests are C functions registered as GoogleTest cases.
 *
 *   TEST(spec, unknown_name) {
 *           EXPECT(x == 1);
 *           ASSERT_MSG(fd >= 0, "open: %s", strerror(errno));
 *           if (!have_pmu) SKIP("no PMU: %s", why);
 *   }
 *
 * EXPECT* records a failure and goes on; ASSERT* records it and returns from
 * the test; SKIP marks the test skipped with its reason and returns.
 */
#ifndef UPMC_TEST_H
#define UPMC_TEST_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*upmc_test_fn)(void);

void upmc_test_register(const char *suite, const char *name, upmc_test_fn fn, const char *file,
                        int line);
int upmc_test_check(int ok, int fatal, const char *expr, const char *file, int line,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void upmc_test_skip(const char *file, int line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

#ifdef __cplusplus
}
#endif

/* The C side's macros; the shim (C++) takes only the declarations above. */
#ifndef __cplusplus
#define TEST(suite, name)                                                              \
	static void suite##_##name(void);                                              \
	__attribute__((constructor)) static void suite##_##name##_register(void)       \
	{                                                                              \
		upmc_test_register(#suite, #name, suite##_##name, __FILE__, __LINE__); \
	}                                                                              \
	static void suite##_##name(void)

#define EXPECT_MSG(cond, ...) upmc_test_check(!!(cond), 0, #cond, __FILE__, __LINE__, __VA_ARGS__)
#define EXPECT(cond)          EXPECT_MSG(cond, "%s", "")
#define ASSERT_MSG(cond, ...)                                                              \
	do {                                                                               \
		if (!upmc_test_check(!!(cond), 1, #cond, __FILE__, __LINE__, __VA_ARGS__)) \
			return;                                                            \
	} while (0)
#define ASSERT(cond) ASSERT_MSG(cond, "%s", "")

/* Equality with both values printed on failure. */
#define EXPECT_EQ(a, b)                                                                  \
	do {                                                                             \
		const long long upmc_a_ = (long long)(a), upmc_b_ = (long long)(b);      \
		upmc_test_check(upmc_a_ == upmc_b_, 0, #a " == " #b, __FILE__, __LINE__, \
		                "%lld != %lld", upmc_a_, upmc_b_);                       \
	} while (0)
#define EXPECT_EQ_U64(a, b)                                                              \
	do {                                                                             \
		const unsigned long long upmc_a_ = (a), upmc_b_ = (b);                   \
		upmc_test_check(upmc_a_ == upmc_b_, 0, #a " == " #b, __FILE__, __LINE__, \
		                "%llu != %llu", upmc_a_, upmc_b_);                       \
	} while (0)
#define EXPECT_CONTAINS(text, part)                                                              \
	do {                                                                                     \
		const char *upmc_t_ = (text), *upmc_p_ = (part);                                 \
		upmc_test_check(upmc_t_ &&strstr(upmc_t_, upmc_p_), 0, #text " contains " #part, \
		                __FILE__, __LINE__, "'%s' does not contain '%s'",                \
		                upmc_t_ ? upmc_t_ : "(null)", upmc_p_);                          \
	} while (0)

#define SKIP(...)                                                \
	do {                                                     \
		upmc_test_skip(__FILE__, __LINE__, __VA_ARGS__); \
		return;                                          \
	} while (0)

#endif /* !__cplusplus */

#endif /* UPMC_TEST_H */
