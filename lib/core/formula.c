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

static int precedence(char op)
{
	return op == '+' || op == '-' ? 1 : op == '*' || op == '/' ? 2 : 0;
}

static int is_operator(const char *tok)
{
	return tok[1] == '\0' && strchr("+-*/(),", tok[0]);
}

/* perf's max() and min() of two arguments ("max ( 0 , a - b )"), as the
 * steps 'M' and 'm'; 0 for any other token. */
static char function_of(const char *tok)
{
	return !strcmp(tok, "max") ? 'M' : !strcmp(tok, "min") ? 'm' : 0;
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
 * The formula in postfix order (shunting-yard): numbers and #constants as
 * values, event names as the metric's inputs. 0, or -errno with the reason
 * in m->reason (an unknown #constant: this machine does not publish it).
 */
int upmc_metric_compile(struct upmc_metric *m)
{
	char tok[UPMC_NAME_MAX], ops[UPMC_METRIC_STEPS];
	const char *p = m->def->formula;
	unsigned n_ops = 0;
	int err = 0;

	m->n_steps = 0;
	while (!err && (p = token(p, tok, sizeof(tok)))) {
		int input = event_index(m->def->events, tok);
		double value = 0; /* gcc cannot see that a failed lookup is never pushed */
		char *end;

		if (n_ops + 1 >= sizeof(ops)) {
			err = -E2BIG;
		} else if (function_of(tok)) {
			ops[n_ops++] = function_of(tok);
		} else if (is_operator(tok) && tok[0] == '(') {
			ops[n_ops++] = '(';
		} else if (is_operator(tok) && (tok[0] == ')' || tok[0] == ',')) {
			while (n_ops && ops[n_ops - 1] != '(' && !err)
				err = push_step(m, ops[--n_ops], 0, 0);
			if (tok[0] == ')') {
				n_ops -= n_ops > 0;
				if (n_ops && strchr("Mm", ops[n_ops - 1]) && !err)
					err = push_step(m, ops[--n_ops], 0, 0);
			}
		} else if (is_operator(tok)) {
			while (n_ops && precedence(ops[n_ops - 1]) >= precedence(tok[0]) && !err)
				err = push_step(m, ops[--n_ops], 0, 0);
			ops[n_ops++] = tok[0];
		} else if (tok[0] == '#') {
			err = upmc_os_metric_constant(tok + 1, &value);
			if (err < 0)
				upmc_format(
				        m->reason, sizeof(m->reason),
				        "this machine does not publish '%s', which '%s' needs: %s",
				        tok, m->def->name, upmc_last_error());
			else
				err = push_step(m, 'v', 0, value);
		} else if (input >= 0) {
			err = push_step(m, 'e', (unsigned)input, 0);
		} else {
			value = strtod(tok, &end);
			err = *end ? -EINVAL : push_step(m, 'v', 0, value);
		}
	}
	while (n_ops && !err)
		err = push_step(m, ops[--n_ops], 0, 0);
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
 * denominator. */
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
		if (n < 2)
			return NAN;
		b = stack[--n];
		a = stack[--n];
		if (s->kind == '/' && b == 0)
			return NAN;
		stack[n++] = s->kind == '+'   ? a + b
		             : s->kind == '-' ? a - b
		             : s->kind == '*' ? a * b
		             : s->kind == 'M' ? (a > b ? a : b) /* perf's max(): no libm */
		             : s->kind == 'm' ? (a < b ? a : b)
		                              : a / b;
	}
	return n == 1 ? stack[0] : NAN;
}
