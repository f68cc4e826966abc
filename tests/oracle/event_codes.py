# SPDX-License-Identifier: MIT
"""The raw event codes of the catalogue (r10ad, r100d, ...) against the
encodings of perf's own event tables for each CPU id of the oracle
(tests/core_metrics_perf_test.py; docs/metrics.md, "The perf oracle").

perf's side: for a CPU id perf 6.1 knows, perf itself, `PERF_CPUID=<id>
perf list --details` over a sysfs of hybrid core PMUs (cpu_core and
cpu_atom, each with its CPUs: perf then lists the events of every unit of
the id's tables, an event without a unit under both) that SYSFS_PATH
points perf at; it prints each event's terms ("cpu_core/event=0xad,
period=0xf4243,umask=0x10/"). For a CPU id perf 6.1 does not know,
KERNEL_EVENTS below: the terms of the kernel's current event JSON, each
citing its file and commit. A code is the event's config as the PMU's
sysfs format (the row's fixture) lays the terms out."""
import os
import re
import subprocess

# One event's terms in perf list's output, after its name's line.
TERMS = re.compile(r"^\s+(cpu|cpu_core|cpu_atom)/([^/]*)/\s*$")
NAME = re.compile(r"^  ([a-z0-9_.]+)\s*$")
# perf's terms that are not the event's config (its sample period).
NOT_CONFIG = {"period"}

# Events of CPUs perf 6.1 does not know: (id prefix, unit) -> perf name ->
# (terms, where they are). The units are those of the kernel's JSON
# ("cpu" where it names none).
KERNEL = "tools/perf/pmu-events/arch/x86/"
# Crestmont's TOPDOWN_* events: the same terms in sierraforest's and
# meteorlake's pipeline.json (each entry below cites the file it was read
# from).
CRESTMONT_TOPDOWN = (
    ("TOPDOWN_FE_BOUND.ALL_P", "event=0x71"),
    ("TOPDOWN_RETIRING.ALL_P", "event=0x72"),
    ("TOPDOWN_BAD_SPECULATION.ALL_P", "event=0x73"),
    ("TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", "event=0x73,umask=0x3"),
    ("TOPDOWN_BAD_SPECULATION.MISPREDICT", "event=0x73,umask=0x4"),
    ("TOPDOWN_BE_BOUND.ALL_P", "event=0x74"),
    ("TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", "event=0x74,umask=0x1"),
)
# Skymont's (the E-cores of Arrow Lake and Lunar Lake), Unit cpu_atom: the
# same terms in arrowlake's and lunarlake's pipeline.json (each entry below
# cites the file it was read from). TOPDOWN_RETIRING.ALL and
# TOPDOWN_FE_BOUND.ALL are fixed counters 6 and 5 (no event code).
SKYMONT_TOPDOWN = (
    ("TOPDOWN_RETIRING.ALL", "event=0x0,umask=0x7"),
    ("TOPDOWN_FE_BOUND.ALL", "event=0x0,umask=0x6"),
    ("TOPDOWN_BAD_SPECULATION.ALL_P", "event=0x73"),
    ("TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", "event=0x73,umask=0x3"),
    ("TOPDOWN_BAD_SPECULATION.MISPREDICT", "event=0x73,umask=0x4"),
    ("TOPDOWN_BE_BOUND.ALL", "event=0xa4,umask=0x2"),
    ("TOPDOWN_BE_BOUND.ALL_P", "event=0xa4,umask=0x2"),
    ("TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", "event=0x74,umask=0x1"),
    ("CPU_CLK_UNHALTED.CORE_P", "event=0x3c"),
)
KERNEL_EVENTS = {
    ("GenuineIntel-6-CF-", "cpu"): {
        "INT_MISC.UOP_DROPPING": (
            "event=0xad,umask=0x10", KERNEL + "emeraldrapids/pipeline.json at 576d7fed09c7"),
    },
    ("GenuineIntel-6-AD-", "cpu"): {
        "INT_MISC.UOP_DROPPING": (
            "event=0xad,umask=0x10", KERNEL + "graniterapids/pipeline.json at 0e0890884199"),
    },
    ("GenuineIntel-6-AF-", "cpu"): {
        name: (terms, KERNEL + "sierraforest/pipeline.json at 0eaed89c18ae")
        for name, terms in CRESTMONT_TOPDOWN
    },
    # Grand Ridge: this pipeline.json names 0x72, 0x73, 0x74 and 0x71 (umask
    # 0) TOPDOWN_*.ALL, the codes its grr-metrics.json's TOPDOWN_*.ALL_P are
    # (ALL_P is ALL's alias by the same code in meteorlake's and
    # sierraforest's pipeline.json); keyed here by the names upmc's codes map to
    ("GenuineIntel-6-B6-", "cpu"): {
        name: (terms, KERNEL + "grandridge/pipeline.json at 100c85421b52" +
               (" (as %s)" % spelled if spelled else ""))
        for name, terms, spelled in (
            ("TOPDOWN_FE_BOUND.ALL", "event=0x71", ""),
            ("TOPDOWN_RETIRING.ALL_P", "event=0x72", "TOPDOWN_RETIRING.ALL"),
            ("TOPDOWN_BAD_SPECULATION.ALL_P", "event=0x73", "TOPDOWN_BAD_SPECULATION.ALL"),
            ("TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS", "event=0x73,umask=0x3", ""),
            ("TOPDOWN_BAD_SPECULATION.MISPREDICT", "event=0x73,umask=0x4", ""),
            ("TOPDOWN_BE_BOUND.ALL", "event=0x74", ""),
            ("TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS", "event=0x74,umask=0x1", ""),
        )
    },
    # Meteor Lake: Crestmont's TOPDOWN_* on cpu_atom, INT_MISC on cpu_core
    ("GenuineIntel-6-AA-", "cpu_atom"): {
        name: (terms, KERNEL + "meteorlake/pipeline.json at 0939bd2fcf33")
        for name, terms in CRESTMONT_TOPDOWN + (("CPU_CLK_UNHALTED.CORE_P", "event=0x3c"),)
    },
    # Arrow Lake (-S and -H) and Lunar Lake: Skymont's TOPDOWN_* on cpu_atom
    ("GenuineIntel-6-C6-", "cpu_atom"): {
        name: (terms, KERNEL + "arrowlake/pipeline.json at 473f6c8f437b")
        for name, terms in SKYMONT_TOPDOWN
    },
    ("GenuineIntel-6-C5-", "cpu_atom"): {
        name: (terms, KERNEL + "arrowlake/pipeline.json at 473f6c8f437b")
        for name, terms in SKYMONT_TOPDOWN
    },
    ("GenuineIntel-6-BD-", "cpu_atom"): {
        name: (terms, KERNEL + "lunarlake/pipeline.json at 23878069de30")
        for name, terms in SKYMONT_TOPDOWN
    },
    ("GenuineIntel-6-AA-", "cpu_core"): {
        "INT_MISC.UOP_DROPPING": (
            "event=0xad,umask=0x10", KERNEL + "meteorlake/pipeline.json at 0939bd2fcf33"),
    },
    # Zen 5: event codes of 12 bits, the top four in config[35:32] (the
    # fixture's format of event: config:0-7,32-35)
    ("AuthenticAMD-26-", "cpu"): {
        "ls_not_halted_cyc": ("event=0x76", KERNEL + "amdzen5/load-store.json at 67f8bc848ee3"),
        "ex_ret_ops": (
            "event=0xc1", KERNEL + "amdzen5/execution.json as added by \"perf vendor events "
            "amd: Add Zen 5 core events\" (v2 1/4, 2024-05-03; blob 5a46d3db74e7)"),
        "de_src_op_disp.all": (
            "event=0xaa,umask=0x7", KERNEL + "amdzen5/decode.json at 57b421369dd7"),
        "de_no_dispatch_per_slot.no_ops_from_frontend": (
            "event=0x1a0,umask=0x1", KERNEL + "amdzen5/decode.json at 57b421369dd7"),
        "de_no_dispatch_per_slot.backend_stalls": (
            "event=0x1a0,umask=0x1e", KERNEL + "amdzen5/decode.json at 57b421369dd7"),
        "de_no_dispatch_per_slot.smt_contention": (
            "event=0x1a0,umask=0x60", KERNEL + "amdzen5/decode.json at 57b421369dd7"),
    },
}

# Rows whose codes this check has no encodings of, and why (printed): none
# today; a CPU row with codes and neither a table nor a line here fails.
NOT_TABULATED = {}


# A code of the catalogue: a raw one (r and hex digits), or terms of a core
# PMU ("cpu_atom/event=0x73,umask=0x4/": a hybrid's E-core events).
RAW = re.compile(r"^r([0-9a-f]+)$")
PMU_TERMS = re.compile(r"^(cpu|cpu_core|cpu_atom)/([^/]+)/$")


def is_code(name):
    """Whether name is a code of the catalogue, raw or a PMU's terms."""
    return RAW.match(name) is not None or PMU_TERMS.match(name) is not None


def code_config(code, layout):
    """(the PMU a code names, or None for a raw one: the core PMU; its
    config under the format layout)."""
    m = RAW.match(code)
    if m:
        return None, int(m.group(1), 16)
    m = PMU_TERMS.match(code)
    return m.group(1), config_of(m.group(2), layout)


def write_sysfs(root, format_dir):
    """A sysfs under root with cpu_core and cpu_atom, for SYSFS_PATH."""
    for pmu, cpus, kind in (("cpu_core", "0-7", 8), ("cpu_atom", "8-15", 10)):
        d = os.path.join(root, "bus", "event_source", "devices", pmu)
        os.makedirs(os.path.join(d, "format"), exist_ok=True)
        with open(os.path.join(d, "type"), "w") as f:
            f.write("%d\n" % kind)
        with open(os.path.join(d, "cpus"), "w") as f:
            f.write(cpus + "\n")
        for name in os.listdir(format_dir):
            with open(os.path.join(format_dir, name)) as src, \
                    open(os.path.join(d, "format", name), "w") as dst:
                dst.write(src.read())


def perf_events(cpuid, sysfs):
    """{unit: {EVENT.NAME: terms}} of perf's tables for cpuid."""
    env = dict(os.environ, PERF_CPUID=cpuid, SYSFS_PATH=sysfs)
    out = subprocess.run(["perf", "list", "--details"], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    events, name = {}, None
    for line in out.splitlines():
        m = NAME.match(line)
        if m:
            name = m.group(1).upper()
            continue
        m = TERMS.match(line)
        if m and name:
            events.setdefault(m.group(1), {})[name] = m.group(2)
            name = None
    return events


def kernel_events(cpuid):
    """{unit: {EVENT.NAME: terms}} of KERNEL_EVENTS for cpuid, and their
    files by name."""
    events, cited = {}, {}
    for (prefix, unit), table in KERNEL_EVENTS.items():
        if cpuid.startswith(prefix):
            for name, (terms, where) in table.items():
                events.setdefault(unit, {})[name] = terms
                cited[name] = where
    return events, cited


def read_format(format_dir):
    """{term: [(first bit, last bit) of config]} of a PMU's sysfs format."""
    out = {}
    for name in os.listdir(format_dir):
        with open(os.path.join(format_dir, name)) as f:
            field, _, bits = f.read().strip().partition(":")
        if field == "config":
            out[name] = [tuple(int(b) for b in (r.split("-") * 2)[:2]) for r in bits.split(",")]
    return out


def config_of(terms, layout):
    """The config terms ("event=0xad,umask=0x10", "edge" for edge=1) make
    under a format layout; a ValueError names a term it has no bits for."""
    config = 0
    for term in filter(None, terms.split(",")):
        key, _, value = term.partition("=")
        if key in NOT_CONFIG:
            continue
        if key not in layout:
            raise ValueError("term '%s' is not in the PMU's format" % key)
        value = int(value, 0) if value else 1
        for first, last in layout[key]:
            width = last - first + 1
            config |= (value & ((1 << width) - 1)) << first
            value >>= width
    return config


def terms_of(name, events, unit, synonyms):
    """perf's terms of event name (upmc's perf name of a code), under unit
    or else any unit: the name itself, or a perf spelling that
    PERF_SYNONYM maps to it ("cpu@EVENT,cmask=1,edge@": EVENT's terms and
    those); None when perf's tables have neither."""
    spellings = [name] + [s for s, target in synonyms.items() if target == name]
    for units in ([unit], sorted(events)):
        for spelling in spellings:
            m = re.match(r"^(?:cpu|cpu_core|cpu_atom)@([^,@]+),?([^@]*)@$", spelling)
            base, extra = (m.group(1), m.group(2)) if m else (spelling, "")
            for u in units:
                if base in events.get(u, {}):
                    return ",".join(filter(None, [events[u][base], extra])), "%s %s" % (
                        u, spelling)
    return None, None
