/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's evaluator (lib/core/formula.c) on formulas of its own:
 * perf's comparisons and 'a if c else b', bound and associated as perf's
 * parser binds them (tools/perf/util/expr.y of Linux 6.1, whose own tests
 * in tools/perf/tests/expr.c these follow), and a malformed formula
 * refused with -EINVAL, never evaluated.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lib/core/metric_def.h"
#include "tests/upmc_test.h"

/* The formula over inputs a, b, c, d, e (in[0] to in[4]); err gets what
 * the compile returned, and the value is NAN where it failed. */
static double value_of(const char *formula, const double *in, int *err)
{
	const struct upmc_metric_def def = {
	        .name = "test", .events = "a,b,c,d,e", .formula = formula};
	static struct upmc_metric m;

	memset(&m, 0, sizeof(m));
	m.def = &def;
	*err = upmc_metric_compile(&m);
	return *err ? NAN : upmc_metric_evaluate(&m, in);
}

/* The formula's value, which must compile. */
static double eval(const char *formula, const double *in)
{
	int err;
	double v = value_of(formula, in, &err);

	EXPECT_MSG(err == 0, "'%s' does not compile: %d", formula, err);
	return v;
}

TEST(formula, comparisons_give_one_or_zero_and_bind_looser_than_sums)
{
	const double in[] = {3, 2, 1, 0, 0};

	EXPECT(eval("a > b", in) == 1);
	EXPECT(eval("a < b", in) == 0);
	EXPECT(eval("b > b", in) == 0);
	/* (a - b) > c: '<' and '>' bind looser than '+' and '-' */
	EXPECT(eval("a - b > c", in) == 0);
	EXPECT(eval("a > b - c", in) == 1);
	/* and left to right: (a > b) > c is 1 > 1 */
	EXPECT(eval("a > b > c", in) == 0);
	EXPECT(eval("a / b > 1.4", in) == 1);
}

TEST(formula, if_else_takes_the_branch_of_its_condition)
{
	const double in[] = {100, 200, 300, 0, 1};

	EXPECT(eval("a if e else b", in) == 100);
	EXPECT(eval("a if d else b", in) == 200);
	/* a sum before 'if' and after 'else' is whole: (a + b) if d else (b + c) */
	EXPECT(eval("a + b if d else b + c", in) == 500);
	EXPECT(eval("a + b if e else b + c", in) == 300);
	EXPECT(eval("a if b > 150 else c", in) == 100);
	EXPECT(eval("( a if d else b ) * 2", in) == 400);
	EXPECT(eval("max ( ( a if d else b ) , c )", in) == 300);
}

/* perf's own tests of chained conditions (tools/perf/tests/expr.c):
 * "100 if 1 else 200 if 1 else 300" is 100, ... if 0 ... if 0 is 300. */
TEST(formula, chained_if_else_is_right_associative)
{
	const double in[] = {100, 200, 300, 0, 1}; /* d is 0, e is 1 */

	EXPECT(eval("a if e else b if e else c", in) == 100);
	EXPECT(eval("a if d else b if e else c", in) == 200);
	EXPECT(eval("a if e else b if d else c", in) == 100);
	EXPECT(eval("a if d else b if d else c", in) == 300);
	/* a sum in the middle branch: a if d else ((b - 100) if e else c) */
	EXPECT(eval("a if d else b - 100 if e else c", in) == 100);
}

/* A division by 0 in either branch: NAN, as perf's parser, which
 * evaluates both branches, fails there. */
TEST(formula, a_division_by_zero_in_the_branch_not_taken_is_nan)
{
	const double in[] = {100, 200, 300, 0, 1};

	EXPECT(isnan(eval("a if e else b / d", in)));
	EXPECT(eval("a if e else b / e", in) == 100);
}

TEST(formula, malformed_formulas_are_refused)
{
	static const char *const bad[] = {
	        "a if b",                    /* no else */
	        "a else b",                  /* no if */
	        "if a else b",               /* nothing to take */
	        "a if b if c else d else e", /* an if in a condition: perf's is an expr */
	        "max ( a if b else c , d )", /* a function's argument: an expr too */
	        "max ( d , a if b else c )",
	        "( a + b",
	        "a + b )",
	        "a +",
	        "a >",
	        "> a",
	        "a b",
	        "( a , b )",
	        "max a",
	        "a if b else",
	        "a ? b",
	};
	const double in[] = {1, 2, 3, 4, 5};
	unsigned i;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double v = value_of(bad[i], in, &err);

		EXPECT_MSG(err == -EINVAL, "'%s' gives %d (value %g), not -EINVAL", bad[i], err, v);
	}
}

/* More steps than the evaluator holds: -E2BIG, nothing written past them. */
TEST(formula, too_long_a_formula_is_refused)
{
	char formula[UPMC_METRIC_STEPS * 8] = "a";
	const double in[] = {1, 2, 3, 4, 5};
	unsigned i;
	int err;

	for (i = 0; i < UPMC_METRIC_STEPS; i++)
		strcat(formula, " + a");
	value_of(formula, in, &err);
	EXPECT_EQ(err, -E2BIG);
}
