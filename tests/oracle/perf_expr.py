# SPDX-License-Identifier: MIT
"""perf's metric expressions: what `perf list --details metric` prints, read
and evaluated as perf's own parser does (tools/perf/util/expr.l and expr.y
in the kernel, v6.1).

The grammar, loosest binding first, as expr.y of v6.1 declares it:
    a if c else b     (lines 41 and 159: "%left MIN MAX IF" and "if_expr:
                      expr IF expr ELSE if_expr": a and c are exprs, with
                      no 'if' unless in parentheses; the else branch is
                      one, so a if c else b if d else e is
                      a if c else (b if d else e))
    |   ^   &   < >   + -   * / %   unary -   (lines 42-48, each %left:
                      left-associative, '<' '>' looser than '-' '+')
    min(a, b)  max(a, b)  d_ratio(a, b)  (a over b, 0 where b is 0): their
                      arguments are exprs too, no 'if' unless parenthesized
    source_count(event)  (how many PMUs count it: 1 for a thread's count)
    #SMT_on, #core_wide, ... (literals the caller supplies), numbers,
    and names: events (INST_RETIRED.ANY, topdown\\-fe\\-bound,
    cpu@UOPS_ISSUED.ANY\\,cmask\\=1@, msr@tsc@, EVENT:modifiers) or other
    metrics of the same table, which are evaluated in their place.
expr.y declares NOT but has no rule for it: '!' is no operator there.
A division by 0 is NaN, as perf's is (expr.y aborts the parse); an
operation on NaN is NaN (its BINARY_OP and BINARY_LONG_OP macros), a
comparison too, and a condition is false only where it is 0, so a NaN
one takes the first branch (fpclassify(...) == FP_ZERO).
"""
import math
import re

_NUMBER = re.compile(r"([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)?")
_SYMBOL = re.compile(r"(?:\\[-,=]|[0-9a-zA-Z_.:@?])+")
_LITERAL = re.compile(r"#[0-9a-zA-Z_.:@?]+")
_KEYWORDS = {"if", "else", "min", "max", "d_ratio", "source_count"}


class ExprError(ValueError):
    pass


def tokens(text):
    """The expression's tokens: (kind, text), kind one of num, id, lit, op."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
            continue
        num = _NUMBER.match(text, i)
        sym = _SYMBOL.match(text, i)
        # flex takes the longest match, the number rule first among equals
        if num and num.end() > i and (not sym or num.end() >= sym.end()):
            out.append(("num", num.group(0)))
            i = num.end()
        elif sym:
            word = sym.group(0)
            out.append(("kw" if word in _KEYWORDS else "id", word))
            i = sym.end()
        elif c == "#":
            lit = _LITERAL.match(text, i)
            if not lit:
                raise ExprError("a lone '#' in %r" % text)
            out.append(("lit", lit.group(0)))
            i = lit.end()
        elif c in "+-*/%()|^&<>,":
            out.append(("op", c))
            i += 1
        else:
            raise ExprError("unexpected %r in %r" % (c, text))
    return out


def event_name(word):
    """A name as perf's lexer leaves it: escapes taken off."""
    return re.sub(r"\\(.)", r"\1", word)


# Binary operators by binding, loosest first (expr.y's %left lines 42-47).
_LEVELS = [["|"], ["^"], ["&"], ["<", ">"], ["+", "-"], ["*", "/", "%"]]


class Parser:
    """A parse tree of nested tuples: ("num", v), ("id", name),
    ("lit", name), ("neg", e), ("if", a, cond, b), ("call", fn, a, b),
    (op, a, b)."""

    def __init__(self, text):
        self.text = text
        self.toks = tokens(text)
        self.pos = 0

    def peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else (None, None)

    def take(self, kind=None, text=None):
        tok = self.peek()
        if tok[0] is None or (kind and tok[0] != kind) or (text and tok[1] != text):
            raise ExprError("expected %s in %r at token %d" % (text or kind, self.text, self.pos))
        self.pos += 1
        return tok

    def parse(self):
        tree = self.if_expr()
        if self.pos != len(self.toks):
            raise ExprError("trailing tokens in %r" % self.text)
        return tree

    def if_expr(self):
        """expr.y's if_expr: expr IF expr ELSE if_expr, or an expr."""
        a = self.binary(0)
        if self.peek() == ("kw", "if"):
            self.take()
            cond = self.binary(0)
            self.take("kw", "else")
            return ("if", a, cond, self.if_expr())
        return a

    def binary(self, level):
        if level == len(_LEVELS):
            return self.unary()
        a = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in _LEVELS[level]:
            op = self.take()[1]
            a = (op, a, self.binary(level + 1))
        return a

    def unary(self):
        kind, text = self.peek()
        if (kind, text) == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        if (kind, text) == ("op", "("):
            self.take()
            e = self.if_expr()
            self.take("op", ")")
            return e
        if (kind, text) == ("kw", "source_count"):
            self.take()
            self.take("op", "(")
            self.take("id")
            self.take("op", ")")
            return ("num", 1.0)
        if kind == "kw" and text in ("min", "max", "d_ratio"):
            self.take()
            self.take("op", "(")
            a = self.binary(0)  # expr.y: MIN '(' expr ',' expr ')'
            self.take("op", ",")
            b = self.binary(0)
            self.take("op", ")")
            return ("call", text, a, b)
        if kind == "num":
            self.take()
            return ("num", float(text))
        if kind == "id":
            self.take()
            return ("id", event_name(text))
        if kind == "lit":
            self.take()
            return ("lit", text)
        raise ExprError("unexpected %r in %r" % (text, self.text))


def parse(text):
    return Parser(text).parse()


def names(tree, out=None):
    """Every name (event or metric) the tree reads."""
    out = set() if out is None else out
    if tree[0] == "id":
        out.add(tree[1])
    for part in tree[1:]:
        if isinstance(part, tuple):
            names(part, out)
    return out


def evaluate(tree, value_of, literal_of):
    """The tree's value; value_of(name) gives a name's, literal_of(#lit) a
    literal's."""
    kind = tree[0]
    if kind == "num":
        return tree[1]
    if kind == "id":
        return value_of(tree[1])
    if kind == "lit":
        return literal_of(tree[1])
    if kind == "neg":
        return -evaluate(tree[1], value_of, literal_of)
    if kind == "if":
        cond = evaluate(tree[2], value_of, literal_of)  # NaN is not 0: true
        return evaluate(tree[1] if cond != 0 else tree[3], value_of, literal_of)
    a = evaluate(tree[2], value_of, literal_of)
    b = evaluate(tree[3], value_of, literal_of) if kind == "call" else None
    if kind == "call":
        fn = tree[1]
        if fn == "min":
            return min(a, b)
        if fn == "max":
            return max(a, b)
        return 0.0 if b == 0 else a / b  # d_ratio
    a = evaluate(tree[1], value_of, literal_of)
    b = evaluate(tree[2], value_of, literal_of)
    if math.isnan(a) or math.isnan(b):
        return math.nan  # BINARY_OP, BINARY_LONG_OP: a comparison too
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        return math.nan if b == 0 else a / b
    if kind == "%":  # (long)a % (long)b: C's, which truncates
        return math.nan if b == 0 else float(math.fmod(int(a), int(b)))
    if kind == "<":
        return float(a < b)
    if kind == ">":
        return float(a > b)
    if kind == "&":
        return float(int(a) & int(b))
    if kind == "|":
        return float(int(a) | int(b))
    if kind == "^":
        return float(int(a) ^ int(b))
    raise ExprError("unknown node %r" % (kind,))


def read_perf_list(text):
    """`perf list --details metric` as {(name, unit): expression}; unit is
    the PMU a hybrid CPU's metric is for ("cpu_core", "cpu_atom"), else
    None. Each metric is a line of its name (two spaces in), then its
    bracketed description (which ends "Unit: <pmu>" where it has one) and
    expression, the expression last."""
    metrics, name, items, current = {}, None, [], None

    def finish():
        if name and items:
            unit = None
            for item in items[:-1]:
                m = re.search(r"Unit: (\S+)\s*$", item)
                if m:
                    unit = m.group(1)
            metrics[(name, unit)] = items[-1]

    for line in text.splitlines():
        stripped = line.strip()
        if current is not None:
            current.append(stripped)
            if stripped.endswith("]"):
                items.append(" ".join(current)[1:-1].strip())
                current = None
        elif re.match(r"^  \S+\s*$", line):
            finish()
            name, items = stripped, []
        elif name and stripped.startswith("["):
            if stripped.endswith("]"):
                items.append(stripped[1:-1].strip())
            else:
                current = [stripped]
        elif stripped and not stripped.endswith(":"):
            finish()
            name, items = None, []
    finish()
    return metrics
