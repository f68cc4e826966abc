/* SPDX-License-Identifier: MIT */
/*
 * The catalogue's one evaluator: a metric's formula, written with spaced
 * tokens over its event names, numbers and #constants, compiled once into
 * postfix steps and evaluated over an interval's counts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metric_def.h"
#include "os.h"

/* The next token of a formula (separated by spaces) into tok; NULL at the end. */
static const char *token(const char *p, char *tok, size_t size)
{
	size_t n = 0;

	while (*p == ' ')
		p++;
	if (!*p)
		return NULL;
	while (p[n] && p[n] != ' ')
		n++;
	upmc_format(tok, size, "%.*s", (int)n, p);
	return p + n;
}

/*
 * How tightly an operator binds, as perf's expression grammar has it
 * (tools/perf/util/expr.y of Linux 6.1, its %left lines: "%left MIN MAX
 * IF" loosest, then "%left '<' '>'", "%left '-' '+'", "%left '*' '/' '%'").
 * On the operator stack, 'i' is an 'if' whose 'else' has not come, '?'
 * one whose has (the select step it becomes); '(' and the functions bind
 * nothing (0).
 */
static int precedence(char op)
{
	return op == 'i' || op == '?'   ? 1
	       : op == '<' || op == '>' ? 2
	       : op == '+' || op == '-' ? 3
	       : op == '*' || op == '/' ? 4
	                                : 0;
}

static int is_operator(const char *tok)
{
	return tok[1] == '\0' && strchr("+-*/<>(),", tok[0]);
}

/* perf's max() and min() of two arguments ("max ( 0 , a - b )"), as the
 * steps 'M' and 'm'; 0 for any other token. */
static char function_of(const char *tok)
{
	return !strcmp(tok, "max") ? 'M' : !strcmp(tok, "min") ? 'm' : 0;
}

/* Whether an operator stack entry is a function's. */
static int function_of_step(char op)
{
	return op == 'M' || op == 'm';
}

/* How many values step kind takes off the stack: an input or a value
 * none, the select of 'a if c else b' three, an operator or function two;
 * -1 for a kind that is no step (a '(' left open). */
static int arity(char kind)
{
	return kind == 'e' || kind == 'v'         ? 0
	       : kind == '?'                      ? 3
	       : kind && strchr("+-*/<>Mm", kind) ? 2
	                                          : -1;
}

/* The index of name among the row's events; -1 when not there. */
static int event_index(const char *events, const char *name)
{
	size_t len = strlen(name);
	int i = 0;

	for (const char *p = events; p; p = upmc_metric_next_event(p), i++)
		if (upmc_metric_event_len(p) == len && !strncmp(p, name, len))
			return i;
	return -1;
}

static int push_step(struct upmc_metric *m, char kind, unsigned input, double value)
{
	if (m->n_steps == UPMC_METRIC_STEPS)
		return -E2BIG;
	m->step[m->n_steps++] = (struct upmc_metric_step){kind, input, value};
	return 0;
}

/*
 * Operators off the stack into steps while they bind tighter than
 * precedence p: before an operator of p + 1 (left-associative), an 'if' or
 * an 'else' (1: what they follow is whole; an 'else' already there stays,
 * so that 'a if c else b if d else e' is 'a if c else (b if d else e)', as
 * expr.y's 'if_expr: expr IF expr ELSE if_expr' has it), and everything
 * down to a '(' at a ')', a ',' and the end (0), where an 'if' still
 * waiting for its 'else' makes the formula malformed.
 */
static int pop_above(struct upmc_metric *m, char *ops, unsigned *n_ops, int p)
{
	int err = 0;

	while (*n_ops && precedence(ops[*n_ops - 1]) > p && !err)
		err = ops[*n_ops - 1] == 'i' ? -EINVAL : push_step(m, ops[--*n_ops], 0, 0);
	return err;
}

/* An 'if' where perf's grammar has one: not in the condition of another
 * (an 'if' waiting for its 'else'), nor as a function's argument, which is
 * an expr there, not an if_expr (unless in parentheses of its own). */
static int if_allowed(const char *ops, unsigned n_ops)
{
	if (n_ops && ops[n_ops - 1] == 'i')
		return 0;
	return !(n_ops >= 2 && ops[n_ops - 1] == '(' && function_of_step(ops[n_ops - 2]));
}

/* Whether the steps leave one value on the stack, each finding the values
 * it takes. */
static int well_formed(const struct upmc_metric *m)
{
	int depth = 0;
	unsigned i;

	for (i = 0; i < m->n_steps; i++) {
		int takes = arity(m->step[i].kind);

		if (takes < 0 || depth < takes)
			return 0;
		depth += 1 - takes;
	}
	return depth == 1;
}

/* One token of the formula: an operator, a function or a '(' onto the
 * operator stack ops, a value or an input into the steps. */
static int compile_token(struct upmc_metric *m, const char *tok, char *ops, unsigned *n_ops)
{
	int input = event_index(m->def->events, tok), err = 0;
	double value = 0; /* set by each branch that pushes it (gcc cannot always tell) */
	char *end;

	if (*n_ops + 1 >= UPMC_METRIC_STEPS)
		return -E2BIG;
	if (function_of(tok) || (is_operator(tok) && tok[0] == '(')) {
		ops[(*n_ops)++] = function_of(tok) ? function_of(tok) : '(';
	} else if (is_operator(tok) && (tok[0] == ')' || tok[0] == ',')) {
		err = pop_above(m, ops, n_ops, 0);
		if (!err && (!*n_ops || ops[*n_ops - 1] != '('))
			return -EINVAL; /* a ')' or ',' without its '(' */
		if (!err && tok[0] == ')') {
			--*n_ops; /* the '(' */
			if (*n_ops && function_of_step(ops[*n_ops - 1]))
				err = push_step(m, ops[--*n_ops], 0, 0);
		}
	} else if (is_operator(tok)) {
		err = pop_above(m, ops, n_ops, precedence(tok[0]) - 1);
		ops[(*n_ops)++] = tok[0];
	} else if (!strcmp(tok, "if")) {
		err = pop_above(m, ops, n_ops, 1);
		if (!err && !if_allowed(ops, *n_ops))
			return -EINVAL;
		ops[(*n_ops)++] = 'i';
	} else if (!strcmp(tok, "else")) {
		err = pop_above(m, ops, n_ops, 1);
		if (!err && (!*n_ops || ops[*n_ops - 1] != 'i'))
			return -EINVAL; /* an 'else' without its 'if' */
		ops[*n_ops - 1] = '?';
	} else if (tok[0] == '#') {
		err = upmc_os_metric_constant(tok + 1, &value);
		if (err < 0)
			upmc_format(m->reason, sizeof(m->reason),
			            "this machine does not publish '%s', which '%s' needs: %s", tok,
			            m->def->name, upmc_last_error());
		else
			err = push_step(m, 'v', 0, value);
	} else if (input >= 0) {
		err = push_step(m, 'e', (unsigned)input, 0);
	} else {
		value = strtod(tok, &end);
		err = *end ? -EINVAL : push_step(m, 'v', 0, value);
	}
	return err;
}

/*
 * The formula in postfix order (shunting-yard): numbers and #constants as
 * values, event names as the metric's inputs, 'a if c else b' as a select
 * step '?' after a, c and b. 0, or -errno: -EINVAL for a malformed
 * formula, with the reason in m->reason for an unknown #constant (this
 * machine does not publish it).
 */
int upmc_metric_compile(struct upmc_metric *m)
{
	char tok[UPMC_NAME_MAX], ops[UPMC_METRIC_STEPS];
	const char *p = m->def->formula;
	unsigned n_ops = 0;
	int err = 0;

	m->n_steps = 0;
	while (!err && (p = token(p, tok, sizeof(tok))))
		err = compile_token(m, tok, ops, &n_ops);
	if (!err)
		err = pop_above(m, ops, &n_ops, 0);
	if (!err && (n_ops || !well_formed(m)))
		err = -EINVAL; /* a '(' not closed, an operator without its operands */
	m->ratio = !err && m->n_steps == 3 && m->step[0].kind == 'e' && m->step[1].kind == 'e' &&
	           m->step[2].kind == '/';
	if (m->ratio) {
		m->num = m->in[m->step[0].input];
		m->den = m->in[m->step[1].input];
	}
	return err;
}

/* The formula over the values of the metric's inputs (in[k] of input k);
 * NAN when an input is NAN (it did not count) or a division has no
 * denominator (in either branch of an 'if', as perf's parser, which
 * evaluates both, fails there too). */
double upmc_metric_evaluate(const struct upmc_metric *m, const double *in)
{
	double stack[UPMC_METRIC_STEPS];
	unsigned n = 0, i;

	for (i = 0; i < m->n_steps; i++) {
		const struct upmc_metric_step *s = &m->step[i];
		double a, b;

		if (s->kind == 'v' || s->kind == 'e') {
			stack[n] = s->kind == 'e' ? in[s->input] : s->value;
			if (isnan(stack[n++]))
				return NAN;
			continue;
		}
		if (s->kind == '?') { /* the value if true, the condition, the value if not */
			if (n < 3)
				return NAN;
			n -= 2;
			stack[n - 1] = stack[n] != 0 ? stack[n - 1] : stack[n + 1];
			continue;
		}
		if (n < 2)
			return NAN;
		b = stack[--n];
		a = stack[--n];
		if (s->kind == '/' && b == 0)
			return NAN;
		stack[n++] = s->kind == '+'   ? a + b
		             : s->kind == '-' ? a - b
		             : s->kind == '*' ? a * b
		             : s->kind == '<' ? (double)(a < b) /* perf's comparisons: 1 or 0 */
		             : s->kind == '>' ? (double)(a > b)
		             : s->kind == 'M' ? (a > b ? a : b) /* perf's max(): no libm */
		             : s->kind == 'm' ? (a < b ? a : b)
		                              : a / b;
	}
	return n == 1 ? stack[0] : NAN;
}
