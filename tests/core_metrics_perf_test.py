# SPDX-License-Identifier: MIT
"""The perf oracle: every metric upmc computes on a CPU, against perf's own
definition of it on that CPU (docs/metrics.md, "The perf oracle").

For each CPU id of tests/oracle/oracle_table.py, perf (Debian's linux-perf
6.1) prints its metric expressions (`PERF_CPUID=<id> perf list --details
metric`), and a fake machine of that CPU (a fixture tree written here, on
the fake kernel) gives upmc's metrics, by the library's own evaluator
(tests/metric_values). Both are evaluated over the same 100 random count
vectors; they agree to 1e-9 relative, or the pair is a DIFF of
tests/oracle/diffs.txt whose reason docs/metrics.md states. The test fails
on a metric upmc computes that the table does not map (to perf's name, or
to "perf has none"), on a disagreement not listed, on a DIFF that agrees
now (stale), and on a reason docs/metrics.md does not state. Each raw
code upmc counts on a CPU id must also be the encoding of its event in
perf's event tables for that id (tests/oracle/event_codes.py).

    python3 tests/core_metrics_perf_test.py [--diffs]

run from the repository root after `bazel build //tests:metric_values`
(or by `bazel test //tests:core_metrics_perf_test`); --diffs prints the
DIFF lines of today's disagreements, to paste into tests/oracle/diffs.txt.
"""
import copy
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle"))
import event_codes as codes_of_perf  # noqa: E402
import oracle_table as table  # noqa: E402
import perf_expr  # noqa: E402

VECTORS = 100
TOLERANCE = 1e-9
PERF_VERSION = "6.1"  # the version whose definitions diffs.txt follows
MIN_PERF_IDS = 20  # CPU ids perf's own definitions are compared on, at least
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# upmc's side: in Bazel's runfiles, or as `bazel build` leaves it
HELPER = next((p for p in (os.path.join(ROOT, "tests", "metric_values"),
                           os.path.join(ROOT, "bazel-bin", "tests", "metric_values"))
               if os.path.exists(p)), "tests/metric_values")


def perf_version():
    try:
        out = subprocess.run(["perf", "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "perf does not run here (%s): tools/setup-debian.sh installs linux-perf" % e
    m = re.search(r"perf version (\d+\.\d+)", out.stdout)
    if not m:
        return None, "perf --version says %r" % out.stdout.strip()
    return m.group(1), None


def perf_metrics(cpuid):
    env = dict(os.environ, PERF_CPUID=cpuid)
    out = subprocess.run(["perf", "list", "--details", "metric"], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return perf_expr.read_perf_list(out)


def tsc_hz(model_name):
    """#SYSTEM_TSC_FREQ as perf's arch_get_tsc_freq() finds it in a model
    name (tools/perf/arch/x86/util/tsc.c, cpuinfo_tsc_freq(): the GHz after
    " @ ", times 10^9, in whole Hz): what a fixture's CPU, whose CPUID leaf
    0x15 no one can ask, says on both sides."""
    m = re.search(r" @ ([0-9.]+)GHz", model_name)
    return float(int(float(m.group(1)) * 1000000000)) if m else None


def fixture_name(c):
    return "%s-%s-smt%d" % (c.cpuid, c.unit or "cpu", c.smt)


def write_fixture(work, c):
    """tests/fixtures/<name> under work: the base tree, with /proc/cpuinfo of
    c's id, its SMT state and the sysfs events c adds."""
    src = os.path.join(ROOT, "tests", "fixtures")
    dst = os.path.join(work, "tests", "fixtures", fixture_name(c))
    if os.path.exists(dst):
        return
    shutil.copytree(os.path.join(src, c.base), dst)
    vendor, family, model, stepping = c.cpuid.split("-")
    os.makedirs(os.path.join(dst, "proc"), exist_ok=True)
    with open(os.path.join(dst, "proc", "cpuinfo"), "w") as f:
        f.write("processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %d\n"
                "model name\t: %s\nstepping\t: %d\n"
                "flags\t\t: fpu tsc rdtscp lm constant_tsc %s\n"
                % (vendor, family, int(model, 16), table.model_name(c.cpuid),
                   int(stepping, 16),
                   "perfctr_core" if vendor == "AuthenticAMD" else "arch_perfmon"))
    smt = os.path.join(dst, "sys", "devices", "system", "cpu", "smt")
    os.makedirs(smt, exist_ok=True)
    with open(os.path.join(smt, "active"), "w") as f:
        f.write("%d\n" % c.smt)
    for pmu, other, other_pmu in c.add:
        events = os.path.join(src, other, "sys", "bus", "event_source", "devices", other_pmu,
                              "events")
        into = os.path.join(dst, "sys", "bus", "event_source", "devices", pmu, "events")
        os.makedirs(into, exist_ok=True)
        for name in os.listdir(events):
            shutil.copy(os.path.join(events, name), os.path.join(into, name))


def helper(work, c, mode):
    """metric_values on c's fixture, its stdin and stdout pipes open."""
    env = dict(os.environ)
    env.pop("LIBPFM_FORCE_PMU", None)
    if c.pfm:
        env["LIBPFM_FORCE_PMU"] = c.pfm
    return subprocess.Popen([HELPER, fixture_name(c), mode], cwd=work, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def finish(proc, c, stdin=""):
    """The rest of proc's output, after stdin; an error where it failed."""
    out, _ = proc.communicate(stdin, timeout=600)
    if proc.returncode:
        raise RuntimeError("metric_values failed on %s (its stderr is above)" % c.label)
    return out.splitlines()


def catalogue(work, c):
    """The catalogue's rows: [(name, events, formula)], as upmc lists them."""
    lines = finish(helper(work, c, "rows"), c)
    return [tuple(line.split("\t")[1:4]) for line in lines if line.startswith("R\t")]


def split_events(events):
    """A comma-separated list of events, a pmu/terms/ event keeping its commas."""
    out, item, slashes = [], "", 0
    for ch in events:
        if ch == "," and slashes % 2 == 0:
            out.append(item)
            item = ""
            continue
        slashes += ch == "/"
        item += ch
    return out + [item]


def spec_items(c, name):
    """What upmc's spec names metric name by on c, first choice first: on a
    hybrid CPU, the core type's own ("cpu_atom/retiring/"), then the one
    metric over every core type, which the E-cores do not take where upmc's
    variants are one core type's events (table.PER_CORE_TYPE)."""
    if c.base != table.HYBRID or not c.unit:
        return [name]
    own = "%s/%s/" % (c.unit, name)
    if c.unit == "cpu_atom" and name in table.PER_CORE_TYPE:
        return [own]
    return [own, name]


def upmc_metrics(proc, rows, c):
    """{name: (formula, [counters], spec item)} of the metrics upmc computes
    on the machine of proc, c's core type's: each name of the catalogue
    opened alone."""
    offered = {}
    for name in dict.fromkeys(r[0] for r in rows):
        for item in spec_items(c, name):
            proc.stdin.write("? %s\n" % item)
            proc.stdin.flush()
            parts = proc.stdout.readline().rstrip("\n").split("\t")
            if parts[0] == "U" and "malformed" in parts[2]:
                raise RuntimeError("%s: upmc's '%s' does not compile: %s" % (c.label, item,
                                                                          parts[2]))
            if parts[0] == "M":
                formula = next((r[2] for r in rows if r[0] == name and r[1] == parts[2]), "?")
                offered[name] = (formula, split_events(parts[2]), item)
                break
    return offered


class PerfSide:
    """perf's metrics of one CPU id (and core type), evaluated."""

    def __init__(self, metrics, c):
        self.exprs = {name: e for (name, unit), e in metrics.items() if unit == c.unit}
        for name, stand_ins in table.PERF_STAND_IN.items():
            there = [m for m in stand_ins if m in self.exprs]
            if name not in self.exprs and there:
                self.exprs[name] = there[0]
        self.trees = {}
        self.cpuid = c.cpuid
        self.literals = {"#SMT_on": float(c.smt), "#smt_on": float(c.smt),
                         # a thread's counts, as `perf stat -- command` takes them
                         "#core_wide": 0.0}
        if c.cpuid.startswith("GenuineIntel-"):  # arch_get_tsc_freq() is Intel's alone
            self.literals["#SYSTEM_TSC_FREQ"] = tsc_hz(table.model_name(c.cpuid))

    def tree(self, name):
        if name not in self.trees:
            self.trees[name] = perf_expr.parse(self.exprs[name])
        return self.trees[name]

    def events(self, name, seen=None):
        """The events metric name reads, through the metrics it reads."""
        seen = set() if seen is None else seen
        out = set()
        for ref in perf_expr.names(self.tree(name)):
            if ref in self.exprs and ref != name:
                if ref not in seen:
                    seen.add(ref)
                    out |= self.events(ref, seen)
            else:
                out.add(table.perf_key(ref, self.cpuid))
        return out

    def with_tree(self, name, tree):
        """This side with metric name's parse tree replaced by tree."""
        other = copy.copy(self)
        other.trees = dict(self.trees, **{name: tree})
        return other

    def literal(self, lit):
        if lit not in self.literals:
            raise perf_expr.ExprError("no value for %s" % lit)
        return self.literals[lit]

    def value(self, name, counts):
        def value_of(ref):
            if ref in self.exprs and ref != name:
                return self.value(ref, counts)
            return counts[table.perf_key(ref, self.cpuid)]
        return perf_expr.evaluate(self.tree(name), value_of, self.literal)


def agree(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOLERANCE * max(abs(a), abs(b)) or abs(a - b) < 1e-15


def draw(c, perf, metric, counters, item):
    """The vectors of counts of metric on c: by event key, each 1 to 10^6,
    of every event either side reads; and the lines metric_values takes."""
    pname = table.perf_name(metric, c.cpuid)
    keys = {name: table.event_key(name, c.cpuid) for name in counters}
    events = sorted(perf.events(pname) | set(keys.values()))
    rng = random.Random(zlib.crc32(("%s %s %s" % (fixture_name(c), metric, pname)).encode()))
    vectors = [{e: float(rng.randint(1, 10**6)) for e in events} for _ in range(VECTORS)]
    lines = ["= %s\n" % item] + [
        " ".join("%s=%r" % (n, v[keys[n]]) for n in counters) + "\n" for v in vectors]
    return vectors, lines


def upmc_values(proc, c, lines, n_metrics):
    """upmc's values of each metric, over the lines of counts."""
    out = finish(proc, c, "".join(lines))
    values, current = [], None
    for line in out:
        if line.startswith("C\t"):
            current = []
            values.append(current)
        else:
            current.append(float(line))
    assert len(values) == n_metrics, "metric_values gave %d metrics of %d" % (
        len(values), n_metrics)
    return values


def compare(c, perf, metric, vectors, values):
    """The number of vectors on which upmc and perf agree, one that they do
    not as a sentence, and the events perf reads that upmc's row does not."""
    pname = table.perf_name(metric, c.cpuid)
    agreed, example = 0, ""
    for v, ours in zip(vectors, values):
        theirs = perf.value(pname, v)
        if agree(ours, theirs):
            agreed += 1
        elif not example:
            example = "upmc %.17g, perf %.17g" % (ours, theirs)
    return agreed, example


# DIFF reasons whose relation to perf's value is exact, as docs/metrics.md
# states it: from upmc's value, the vector's counts, perf's value at any
# counts (perf_at) and perf's literals (#SYSTEM_TSC_FREQ), the pair of
# numbers that must agree. The test checks it on every vector of such a
# pair.
RELATIONS = {
    # perf 6.1 divides GHz by duration_time, the run's seconds
    "frequency-per-second":
        lambda ours, counts, perf_at, lit: (ours / counts["duration_time"], perf_at(counts)),
    # upmc's SMT-off slots are perf's where one thread is the only one
    # active whenever it runs: ONE_THREAD_ACTIVE = REF_XCLK
    "four-slot-thread":
        lambda ours, counts, perf_at, lit: (ours, perf_at(one_thread(counts))),
    # perf 6.1's Haswell memory bound divides by its SMT-on stalls alone
    # ("(n / a if #SMT_on else b) * be"); upmc's is perf's with the division
    # over either branch, "n / (a if #SMT_on else b) * be", over SMT-off
    # slots as four-slot-thread's
    "haswell-smt-off-bracket":
        lambda ours, counts, perf_at, lit: (ours, perf_at(one_thread(counts), bracketed=True)),
    # the file's core frequency takes the TSC's count over the run's
    # seconds where upmc takes the TSC's frequency: the same where the
    # TSC ticked #SYSTEM_TSC_FREQ times a second of the run
    "tsc-over-duration":
        lambda ours, counts, perf_at, lit: (ours, perf_at(dict(counts, TSC=(
            lit["#SYSTEM_TSC_FREQ"] * counts["duration_time"])))),
    # perf 6.1's Elkhart Lake frequency takes the TSC's count where upmc
    # takes its frequency, and divides by no duration: the same where the
    # count is #SYSTEM_TSC_FREQ
    "tsc-count":
        lambda ours, counts, perf_at, lit: (ours, perf_at(dict(
            counts, TSC=lit["#SYSTEM_TSC_FREQ"]))),
    # the hybrid E-cores' files have no core frequency, only the turbo
    # utilization (cycles / CPU_CLK_UNHALTED.REF_TSC) that upmc's frequency
    # multiplies by the TSC's frequency in GHz
    "turbo-utilization":
        lambda ours, counts, perf_at, lit: (ours, perf_at(counts) * lit["#SYSTEM_TSC_FREQ"] / 1e9),
}


def one_thread(counts):
    """The counts where one thread is the only one active whenever it runs."""
    return dict(counts, **{
        "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": counts["CPU_CLK_UNHALTED.REF_XCLK"]})


def division_over_branches(tree):
    """perf's "(n / a if c else b) * m" as "n / (a if c else b) * m"."""
    if tree[0] == "*" and tree[1][0] == "if" and tree[1][1][0] == "/":
        (_, (_, (_, n, a), cond, b), m) = tree
        return ("*", ("/", n, ("if", a, cond, b)), m)
    raise perf_expr.ExprError("not a division in one branch: %r" % (tree,))


def relation_fails(c, perf, metric, vectors, values, reason):
    """Where a DIFF's stated relation to perf's value does not hold: a
    sentence, or "" (also where the reason states none)."""
    if reason not in RELATIONS:
        return ""
    pname = table.perf_name(metric, c.cpuid)

    def perf_at(counts, bracketed=False):
        side = perf
        if bracketed:
            side = perf.with_tree("tma_memory_bound",
                                  division_over_branches(perf.tree("tma_memory_bound")))
        return side.value(pname, counts)

    for v, ours in zip(vectors, values):
        a, b = RELATIONS[reason](ours, v, perf_at, perf.literals)
        if not agree(a, b):
            return ("%s %s: the relation of DIFF '%s' does not hold (upmc %.17g, perf %.17g)"
                    % (c.label, metric, reason, ours, perf.value(pname, v)))
    return ""


def read_diffs(path):
    """{(label, metric): reason key} of tests/oracle/diffs.txt."""
    diffs = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                label, metric, reason = [x.strip() for x in line.split("|")]
                diffs[(label, metric)] = reason
    return diffs


def documented_reasons(path):
    """The reason keys docs/metrics.md states: its rows "| `key` | ... |"."""
    with open(path) as f:
        return set(re.findall(r"^\| `([a-z0-9-]+)` \|", f.read(), re.M))


def oracle_rows(version, why):
    """(cpu, where its definitions come from, its metrics) of each row:
    perf's where this perf is the one diffs.txt follows, then the kernel
    JSON table's."""
    rows, tables = [], {}
    if version == PERF_VERSION:
        for c in table.PERF_CPUS:
            if c.cpuid not in tables:
                tables[c.cpuid] = perf_metrics(c.cpuid)
            rows.append((c, "perf " + version, tables[c.cpuid]))
    else:
        print("SKIP perf's rows: %s" % (why or "perf is %s; tests/oracle/diffs.txt follows perf "
                                               "%s's definitions" % (version, PERF_VERSION)))
    for c, source, metrics in table.KERNEL_CPUS:
        rows.append((c, source, {(name, c.unit): e for name, e in metrics.items()}))
    return rows


def compared_metrics(proc, rows, c, perf, failures):
    """The metrics upmc computes on c that the oracle defines there:
    (metric, formula, counters, spec item); those it does not define; and
    the raw codes all of them count."""
    out, only, raw = [], [], set()
    for metric, (formula, counters, item) in upmc_metrics(proc, rows, c).items():
        raw |= {n for n in counters if codes_of_perf.is_code(n)}
        try:
            pname = table.perf_name(metric, c.cpuid)
        except KeyError:
            failures.append("%s: upmc computes '%s', which oracle_table.PERF_NAME does not map "
                            "to perf's name or to None (perf has none)" % (c.label, metric))
            continue
        if pname is None:
            continue
        if pname not in perf.exprs:
            only.append(metric)  # this CPU's table has none: not compared
            continue
        out.append((metric, formula, counters, item))
    return out, only, raw


def check_cpu(work, rows, c, perf, diffs, reasons, want_diffs, failures, seen):
    """Each metric upmc computes on c against perf's; the table's row."""
    agreed_n = diff_n = 0
    write_fixture(work, c)
    proc = helper(work, c, "run")
    metrics, only, raw = compared_metrics(proc, rows, c, perf, failures)
    drawn = [draw(c, perf, m, counters, item) for m, _, counters, item in metrics]
    values = upmc_values(proc, c, [line for _, lines in drawn for line in lines], len(metrics))
    for (metric, formula, counters, _), (vectors, _), ours in zip(metrics, drawn, values):
        pname = table.perf_name(metric, c.cpuid)
        key = (c.label, metric)
        seen.add(key)
        agreed, example = compare(c, perf, metric, vectors, ours)
        if want_diffs and agreed != VECTORS:
            print("%-22s | %-18s | %s" % (c.label, metric, diffs.get(key, "?")))
        if agreed == VECTORS:
            agreed_n += 1
            if key in diffs:
                failures.append("%s %s: agrees with %s now; take its DIFF out of "
                                "tests/oracle/diffs.txt" % (c.label, metric, pname))
            continue
        diff_n += 1
        missing = sorted(perf.events(pname) - {table.event_key(n, c.cpuid) for n in counters})
        if key not in diffs:
            failures.append(
                "%s %s: upmc's '%s' is not %s '%s' (%d of %d vectors differ: %s%s); fix it or "
                "list it in tests/oracle/diffs.txt"
                % (c.label, metric, formula, pname, perf.exprs[pname], VECTORS - agreed,
                   VECTORS, example, "; perf also reads " + ", ".join(missing) if missing else ""))
        elif diffs[key] not in reasons:
            failures.append("%s %s: reason '%s' is not stated in docs/metrics.md"
                            % (c.label, metric, diffs[key]))
        else:
            failures += filter(None, [relation_fails(c, perf, metric, vectors, ours,
                                                     diffs[key])])
    return len(metrics), agreed_n, diff_n, only, raw


# perf's syntax as its parser reads it: (expression, counts, literals, value).
GRAMMAR = [
    ("a - b - c", {"a": 10, "b": 3, "c": 2}, {}, 5),
    ("a / b * c", {"a": 8, "b": 4, "c": 3}, {}, 6),
    ("a + b * c", {"a": 1, "b": 2, "c": 3}, {}, 7),
    ("-a + b", {"a": 1, "b": 3}, {}, 2),
    ("a if #SMT_on else b", {"a": 1, "b": 2}, {"#SMT_on": 0}, 2),
    ("a if #core_wide < 1 else b if #SMT_on else c", {"a": 1, "b": 2, "c": 3},
     {"#core_wide": 1, "#SMT_on": 0}, 3),
    ("(a if a > b else b) * 2", {"a": 1, "b": 5}, {}, 10),
    ("max(a - b, 0) + min(a, b)", {"a": 1, "b": 5}, {}, 1),
    ("d_ratio(a, b) + d_ratio(b, a)", {"a": 0, "b": 5}, {}, 0),
    ("topdown\\-fe\\-bound / 1e3", {"topdown-fe-bound": 500}, {}, 0.5),
    ("cpu@INST.ANY\\,cmask\\=1@ + EV.X:k", {"cpu@INST.ANY,cmask=1@": 1, "EV.X:k": 2}, {}, 3),
    ("a / (source_count(a) * b)", {"a": 6, "b": 3}, {}, 2),
    # perf 6.1's own tests of chained conditions (tools/perf/tests/expr.c):
    # expr.y's if_expr is "expr IF expr ELSE if_expr", right-associative
    ("100 if 1 else 200 if 1 else 300", {}, {}, 100),
    ("100 if 0 else 200 if 1 else 300", {}, {}, 200),
    ("100 if 1 else 200 if 0 else 300", {}, {}, 100),
    ("100 if 0 else 200 if 0 else 300", {}, {}, 300),
    # '<' and '>' bind looser than '+' and '-', tighter than 'if'; a sum
    # before 'if' and after 'else' is whole (Sandy Bridge's memory bound)
    ("a - b > c", {"a": 3, "b": 2, "c": 1}, {}, 0),
    ("a + b - c if a > 2 else b - c if a > 1 else c", {"a": 1.5, "b": 5, "c": 1}, {}, 4),
    ("(a + b - c if a > 2 else b - c if a > 1 else c) * 2", {"a": 3, "b": 5, "c": 1}, {}, 14),
    # a condition that is NaN is not 0: the first branch, as perf's
    # fpclassify(cond) == FP_ZERO takes the other only at 0; and a
    # comparison with NaN is NaN (BINARY_OP)
    ("a if b / c > 1 else 7", {"a": 1, "b": 0, "c": 0}, {}, 1),
]

# What perf 6.1's grammar refuses: an 'if' in a condition or as a
# function's argument (both are exprs in expr.y), '!' (NOT has no rule).
GRAMMAR_REFUSED = [
    "a if b if c else d else e",
    "max(a if b else c, d)",
    "!a",
    "a if b",
]


def grammar_failures():
    out = []
    for text, counts, literals, want in GRAMMAR:
        got = perf_expr.evaluate(perf_expr.parse(text), counts.__getitem__, literals.__getitem__)
        if got != want:
            out.append("the oracle's evaluator gives %r for %r, perf's parser %r"
                       % (got, text, want))
    for text in GRAMMAR_REFUSED:
        try:
            perf_expr.parse(text)
            out.append("the oracle's parser takes %r, which perf's refuses" % text)
        except perf_expr.ExprError:
            pass
    text = "a / b"
    if not math.isnan(perf_expr.evaluate(perf_expr.parse(text), {"a": 1, "b": 0}.get, None)):
        out.append("the oracle's evaluator does not give NaN for a division by 0")
    return out


def format_dir(c):
    """The sysfs format of c's fixture's first core PMU: how its terms
    make a config."""
    devices = os.path.join(ROOT, "tests", "fixtures", c.base, "sys", "bus", "event_source",
                           "devices")
    pmu = next(p for p in ("cpu", "cpu_core") if os.path.isdir(os.path.join(devices, p)))
    return os.path.join(devices, pmu, "format")


def perf_encodings(work, c, source, cache):
    """{unit: {EVENT: terms}} of perf's tables for c, and where each is
    from: perf itself for its own rows, KERNEL_EVENTS for the others."""
    if not source.startswith("perf"):
        return codes_of_perf.kernel_events(c.cpuid)
    if c.cpuid not in cache:
        sysfs = os.path.join(work, "perf-sysfs")
        if not os.path.isdir(sysfs):
            codes_of_perf.write_sysfs(sysfs, format_dir(c))
        cache[c.cpuid] = codes_of_perf.perf_events(c.cpuid, sysfs)
    return cache[c.cpuid], {}


def check_codes(work, c, source, raw, cache, failures):
    """Each raw code upmc counts on c against the encoding of its event in
    perf's tables for c: the codes table's row, (checked, agreed, what)."""
    events, cited = perf_encodings(work, c, source, cache)
    if not events:
        why = next((w for p, w in codes_of_perf.NOT_TABULATED.items()
                    if c.cpuid.startswith(p)), None)
        if why is None:
            failures.append("%s: upmc counts %s, and the oracle has no event table for %s "
                            "(tests/oracle/event_codes.py)" % (c.label, " ".join(sorted(raw)),
                                                              c.cpuid))
        return 0, 0, "not checked: " + (why or "no event table")
    layout = codes_of_perf.read_format(format_dir(c))
    agreed, what = 0, []
    for code in sorted(raw):
        name = table.event_key(code, c.cpuid)
        pmu, config = codes_of_perf.code_config(code, layout)
        terms, spelled = codes_of_perf.terms_of(name, events, pmu or c.unit or "cpu_core",
                                                table.PERF_SYNONYM)
        if terms is None:
            failures.append("%s: upmc counts %s as %s, which perf's event tables for %s do not "
                            "have" % (c.label, code, name, c.cpuid))
            continue
        want = codes_of_perf.config_of(terms, layout)
        if want == config:
            agreed += 1
            unit, spelling = spelled.split(" ", 1)
            what.append("%s=%s%s" % (code, spelling, " (%s)" % unit
                                     if unit != (pmu or c.unit or unit) else ""))
        else:
            failures.append("%s: upmc counts %s as %s, which perf's tables encode as %s (%s, "
                            "r%x)%s" % (c.label, code, name, spelled, terms, want,
                                        "; " + cited[name] if name in cited else ""))
    return len(raw), agreed, " ".join(what)


def print_codes(rows):
    print("upmc's event codes (raw, or a core PMU's terms) against the encodings of perf's "
          "event tables for each CPU")
    print("%-22s %-32s %7s %6s  %s" % ("CPU id", "", "checked", "agreed", "code=perf's event"))
    for cpuid, label, checked, agreed, what in rows:
        print("%-22s %-32s %7d %6d  %s" % (cpuid, label, checked, agreed, what))


def main():
    want_diffs = "--diffs" in sys.argv
    version, why = perf_version()
    diffs = read_diffs(os.path.join(HERE, "oracle", "diffs.txt"))
    reasons = documented_reasons(os.path.join(ROOT, "docs", "metrics.md"))
    failures, rows, seen, code_rows, events_cache = grammar_failures(), [], set(), [], {}
    work = tempfile.mkdtemp(prefix="perf-oracle-", dir=os.environ.get("TEST_TMPDIR"))
    oracle = oracle_rows(version, why)
    write_fixture(work, oracle[0][0])
    rows_of_catalogue = catalogue(work, oracle[0][0])
    for c, source, metrics in oracle:
        perf = PerfSide(metrics, c)
        if not perf.exprs:
            failures.append("%s: %s has no metrics for %s" % (c.label, source, c.cpuid))
            continue
        counts = check_cpu(work, rows_of_catalogue, c, perf, diffs, reasons, want_diffs,
                           failures, seen)
        rows.append((c.cpuid, c.label) + counts[:4])
        if counts[4]:
            code_rows.append((c.cpuid, c.label) + check_codes(work, c, source, counts[4],
                                                              events_cache, failures))
    if version == PERF_VERSION:
        ids = {c.cpuid for c, source, _ in oracle if source.startswith("perf")}
        if len(ids) < MIN_PERF_IDS:
            failures.append("perf's definitions were compared on %d CPU ids, fewer than %d"
                            % (len(ids), MIN_PERF_IDS))
        for key in sorted(set(diffs) - seen):
            failures.append("%s %s: a DIFF of a pair not compared (no such CPU row, or upmc "
                            "computes no such metric there)" % key)
    print("upmc's catalogue against perf %s's metric definitions and the kernel JSON table, "
          "%d count vectors each" % (version or "(none)", VECTORS))
    print("%-22s %-32s %8s %6s %4s  %s" % ("CPU id", "", "compared", "agreed", "DIFF",
                                            "upmc's, not in the oracle's table here"))
    for cpuid, label, compared, agreed_n, diff_n, only in rows:
        print("%-22s %-32s %8d %6d %4d  %s" % (cpuid, label, compared, agreed_n, diff_n,
                                              " ".join(only)))
    print("%d rows, %d CPU ids" % (len(rows), len({r[0] for r in rows})))
    print()
    print_codes(code_rows)
    shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures and not want_diffs else 0


if __name__ == "__main__":
    sys.exit(main())
