# SPDX-License-Identifier: MIT
"""What the perf oracle compares (tests/core_metrics_perf_test.py): the CPU
ids and the fake machine each is, upmc's metric names as perf names them,
and which of perf's event names each upmc event is. docs/metrics.md ("The
perf oracle") says where each row comes from."""
import collections
import re

# One CPU id as the oracle runs it.
#   cpuid: what perf matches its mapfile.csv against (PERF_CPUID) and what
#          the fixture's /proc/cpuinfo says (vendor-family-model-stepping)
#   base:  the fixture tree (tests/fixtures) it is made from: the PMUs and
#          sysfs events the kernel shows on such a CPU
#   pfm:   LIBPFM_FORCE_PMU, so that libpfm4 takes the fake CPU for it, not
#          for the host (libpfm4 4.13 has no Alder Lake: a hybrid's P-core is
#          taken for Sapphire Rapids' Golden Cove, an E-core or Alder Lake-N
#          for Tremont, the Atom before Gracemont)
#   unit:  the PMU of perf's metrics for one core type of a hybrid CPU
#   smt:   /sys/devices/system/cpu/smt/active (perf's #SMT_on)
#   add:   sysfs events added to a PMU of the base: (pmu, from fixture, its pmu)
Cpu = collections.namedtuple("Cpu", "cpuid label base pfm unit smt add")


def cpu(cpuid, label, base, pfm, unit=None, smt=0, add=()):
    return Cpu(cpuid, label, base, pfm, unit, smt, add)


# A hybrid CPU's P-cores: the PERF_METRICS events Sapphire Rapids has.
P_CORE_TOPDOWN = (("cpu_core", "intel-sapphire-rapids", "cpu"),)
FOUR_SLOTS = "intel-skylake-x"  # no slots, no topdown events: libpfm4's names
ICELAKE = "x86-intel"  # slots and the four level-1 topdown events
SAPPHIRE = "intel-sapphire-rapids"  # and the four level-2 ones
HYBRID = "intel-hybrid"  # cpu_core and cpu_atom

# The CPU ids perf 6.1 has metrics for, as its mapfile.csv names them.
PERF_CPUS = [
    cpu("GenuineIntel-6-2A-7", "Sandy Bridge", FOUR_SLOTS, "snb"),
    cpu("GenuineIntel-6-2A-7", "Sandy Bridge, SMT on", FOUR_SLOTS, "snb", smt=1),
    cpu("GenuineIntel-6-2D-7", "Sandy Bridge EP", FOUR_SLOTS, "snb_ep"),
    cpu("GenuineIntel-6-3A-9", "Ivy Bridge", FOUR_SLOTS, "ivb"),
    cpu("GenuineIntel-6-3E-4", "Ivy Bridge EP", FOUR_SLOTS, "ivb_ep"),
    cpu("GenuineIntel-6-3C-3", "Haswell", FOUR_SLOTS, "hsw"),
    cpu("GenuineIntel-6-3C-3", "Haswell, SMT on", FOUR_SLOTS, "hsw", smt=1),
    cpu("GenuineIntel-6-3F-2", "Haswell EP", FOUR_SLOTS, "hsw_ep"),
    cpu("GenuineIntel-6-3D-4", "Broadwell", FOUR_SLOTS, "bdw"),
    cpu("GenuineIntel-6-3D-4", "Broadwell, SMT on", FOUR_SLOTS, "bdw", smt=1),
    cpu("GenuineIntel-6-4F-1", "Broadwell EP", FOUR_SLOTS, "bdw_ep"),
    cpu("GenuineIntel-6-56-3", "Broadwell DE", FOUR_SLOTS, "bdw_ep"),
    cpu("GenuineIntel-6-5E-3", "Skylake", FOUR_SLOTS, "skl"),
    cpu("GenuineIntel-6-9E-A", "Coffee Lake", FOUR_SLOTS, "skl"),
    cpu("GenuineIntel-6-9E-A", "Coffee Lake, SMT on", FOUR_SLOTS, "skl", smt=1),
    cpu("GenuineIntel-6-55-4", "Skylake SP", FOUR_SLOTS, "skx"),
    cpu("GenuineIntel-6-55-4", "Skylake SP, SMT on", FOUR_SLOTS, "skx", smt=1),
    cpu("GenuineIntel-6-55-7", "Cascade Lake SP", FOUR_SLOTS, "clx"),
    cpu("GenuineIntel-6-7E-5", "Ice Lake", ICELAKE, "icl"),
    cpu("GenuineIntel-6-6A-6", "Ice Lake SP", ICELAKE, "icx"),
    cpu("GenuineIntel-6-8C-1", "Tiger Lake", ICELAKE, "icl"),
    cpu("GenuineIntel-6-A7-1", "Rocket Lake", ICELAKE, "icl"),
    cpu("GenuineIntel-6-8F-8", "Sapphire Rapids", SAPPHIRE, "spr"),
    cpu("GenuineIntel-6-97-2", "Alder Lake P-core", HYBRID, "spr", "cpu_core", 1,
        P_CORE_TOPDOWN),
    cpu("GenuineIntel-6-97-2", "Alder Lake E-core", HYBRID, "spr", "cpu_atom", 1,
        P_CORE_TOPDOWN),
    cpu("GenuineIntel-6-B7-1", "Raptor Lake P-core", HYBRID, "spr", "cpu_core", 1,
        P_CORE_TOPDOWN),
    cpu("GenuineIntel-6-B7-1", "Raptor Lake E-core", HYBRID, "spr", "cpu_atom", 1,
        P_CORE_TOPDOWN),
    cpu("GenuineIntel-6-BE-0", "Alder Lake-N", FOUR_SLOTS, "tmt", "cpu_atom"),
    cpu("GenuineIntel-6-96-1", "Elkhart Lake", FOUR_SLOTS, "tmt"),
    cpu("AuthenticAMD-23-1-2", "Zen", "amd-zen4", "amd64_fam17h_zen1"),
    cpu("AuthenticAMD-23-31-0", "Zen 2", "amd-zen4", "amd64_fam17h_zen2"),
    cpu("AuthenticAMD-25-21-0", "Zen 3", "amd-zen4", "amd64_fam19h_zen3"),
    cpu("AuthenticAMD-25-61-2", "Zen 4", "amd-zen4", "amd64_fam19h_zen4"),
]

# upmc's metric names as perf's tables name them; None: perf has no metric
# of that definition (docs/metrics.md says what perf has instead). A dict
# maps by vendor where the vendors' tables differ.
PERF_NAME = {
    "IPC": {"GenuineIntel": "IPC", "AuthenticAMD": None},
    "CPI": {"GenuineIntel": "CPI", "AuthenticAMD": None},
    "branch-miss-ratio": {"GenuineIntel": None, "AuthenticAMD": "branch_misprediction_ratio"},
    "cache-miss-ratio": None,
    "L1d-load-miss-ratio": None,
    "frontend-stall-ratio": None,
    "backend-stall-ratio": None,
    "GHz": None,
    "retiring": {"GenuineIntel": "tma_retiring", "AuthenticAMD": "retiring"},
    "bad-speculation": {"GenuineIntel": "tma_bad_speculation", "AuthenticAMD": "bad_speculation"},
    "frontend-bound": {"GenuineIntel": "tma_frontend_bound", "AuthenticAMD": "frontend_bound"},
    "backend-bound": {"GenuineIntel": "tma_backend_bound", "AuthenticAMD": "backend_bound"},
    "heavy-operations": "tma_heavy_operations",
    "light-operations": "tma_light_operations",
    "branch-mispredicts": "tma_branch_mispredicts",
    "machine-clears": "tma_machine_clears",
    "fetch-latency": "tma_fetch_latency",
    "fetch-bandwidth": "tma_fetch_bandwidth",
    "memory-bound": "tma_memory_bound",
    "core-bound": "tma_core_bound",
    # AMD's pipeline utilisation (PipelineL1), which perf 6.1 does not have
    # (amdzen4's pipeline.json came after it): KERNEL_CPUS' rows
    "smt-contention": {"GenuineIntel": None, "AuthenticAMD": "smt_contention"},
    # misses per kilo-instruction of perf's generic events, and the miss
    # rates perf 6.1 prints unnamed beside its generic cache events (later
    # kernels name them in arch/common/common/metrics.json)
    "branch-MPKI": None,
    "L1d-load-MPKI": None,
    "LLC-load-MPKI": None,
    "dTLB-load-MPKI": None,
    "iTLB-load-MPKI": None,
    "llc_miss_rate": None,
    "dtlb_miss_rate": None,
    "itlb_miss_rate": None,
    "L1MPKI": "L1MPKI",
    "L2MPKI": "L2MPKI",
    "L3MPKI": "L3MPKI",
    "cpu_operating_frequency": "cpu_operating_frequency",
    # Sapphire Rapids' level 3 under memory bound
    "l1-bound": "tma_l1_bound",
    "l2-bound": "tma_l2_bound",
    "l3-bound": "tma_l3_bound",
    "dram-bound": "tma_dram_bound",
    "store-bound": "tma_store_bound",
}


def model_name(cpuid):
    """/proc/cpuinfo's model name of a fixture CPU. An Intel one ends with
    the nominal frequency, which is the TSC's (#SYSTEM_TSC_FREQ, as perf's
    tools/perf/arch/x86/util/tsc.c reads it where CPUID leaf 0x15 does not
    say); an AMD one, as AMD's do, names none."""
    if cpuid.startswith("GenuineIntel-"):
        return "Intel(R) Xeon(R) CPU @ 2.10GHz"
    return "AMD Ryzen Processor"


# upmc's metrics whose Intel variants count one core type's events (the
# PERF_METRICS of cpu_core, an E-core's TOPDOWN_*, raw codes, which go to
# cpu_core): on a hybrid CPU's E-cores only their cpu_atom variant is
# theirs ("cpu_atom/retiring/"); where upmc has none, the E-core row
# compares nothing of that name (docs/metrics.md says which).
PER_CORE_TYPE = {
    "retiring", "bad-speculation", "frontend-bound", "backend-bound", "heavy-operations",
    "light-operations", "branch-mispredicts", "machine-clears", "fetch-latency",
    "fetch-bandwidth", "memory-bound", "core-bound", "l1-bound", "l2-bound", "l3-bound",
    "dram-bound", "store-bound", "L1MPKI", "L2MPKI", "L3MPKI",
}


def perf_name(metric, cpuid):
    """perf's name of upmc's metric on cpuid; None where perf has none;
    KeyError where the table has no row for it."""
    row = PERF_NAME[metric]
    return row[cpuid.split("-")[0]] if isinstance(row, dict) else row


# upmc's events as perf's tables name them. A libpfm4 name (pmu::EVENT:UMASK)
# is perf's EVENT.UMASK unless listed here.
UPMC_EVENT = {
    "GenuineIntel": {
        # the kernel's intel_perfmon_event_map (arch/x86/events/intel/core.c):
        # instructions 0x00c0 and cycles 0x003c, on fixed counters 0 and 1
        "instructions": "INST_RETIRED.ANY",
        "cycles": "CPU_CLK_UNHALTED.THREAD",
        # fixed counter 3 (the kernel's "slots" event)
        "slots": "TOPDOWN.SLOTS",
        # fixed counter 2: CPU_CLK_UNHALTED.REF_TSC (intel_perfmon_event_map's
        # ref-cycles)
        "ref-cycles": "CPU_CLK_UNHALTED.REF_TSC",
        # raw codes (lib/core/metrics_intel.c names each): INT_MISC is
        # event 0x0d on Ice Lake to Rocket Lake (UOP_DROPPING umask 0x10,
        # CLEARS_COUNT umask 0x01 with edge and cmask 1, perf's
        # icelake/pipeline.json) and 0xad from Sapphire Rapids on
        # (sapphirerapids/pipeline.json)
        "r100d": "INT_MISC.UOP_DROPPING",
        "r104010d": "INT_MISC.CLEARS_COUNT",
        "r10ad": "INT_MISC.UOP_DROPPING",
        # Ice Lake to Rocket Lake's level 2 (icelake/frontend.json,
        # pipeline.json: event, umask, edge, cmask)
        "branch-misses": "BR_MISP_RETIRED.ALL_BRANCHES",  # intel_perfmon_event_map
        "r500019c": "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",  # 0x9c, 1, -, 5
        "r10401c3": "MACHINE_CLEARS.COUNT",  # 0xc3, 1, edge, 1
        "r140014a3": "CYCLE_ACTIVITY.STALLS_MEM_ANY",  # 0xa3, 0x14, -, 0x14
        "r40004a3": "CYCLE_ACTIVITY.STALLS_TOTAL",  # 0xa3, 4, -, 4
        "r2a6": "EXE_ACTIVITY.1_PORTS_UTIL",  # 0xa6, 2
        "r4a6": "EXE_ACTIVITY.2_PORTS_UTIL",  # 0xa6, 4
        # Skylake's EXE_ACTIVITY.BOUND_ON_STORES, no cmask (skylake/pipeline.json)
        "r40a6": "EXE_ACTIVITY.BOUND_ON_STORES",  # 0xa6, 0x40
        # Skylake to Cascade Lake's level 2 (skylake/frontend.json,
        # pipeline.json: event, umask, cmask)
        "r400019c": "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE",  # 0x9c, 1, 4
        "r4c2": "UOPS_RETIRED.MACRO_FUSED",  # 0xc2, 4
        # Sandy Bridge to Broadwell's IDQ.MS_UOPS (their frontend.json: 0x79,
        # umask 0x30)
        "r3079": "IDQ.MS_UOPS",
        # Sandy Bridge to Broadwell's memory bound (their pipeline.json,
        # memory.json: event, umask, cmask); the codes whose names differ
        # between those CPUs are in UPMC_EVENT_OF_MODEL
        "r8a2": "RESOURCE_STALLS.SB",  # 0xa2, 8
        "r15e": "RS_EVENTS.EMPTY_CYCLES",  # 0x5e, 1
        "r10001b1": "UOPS_EXECUTED.CYCLES_GE_1_UOP_EXEC",  # 0xb1, 1, 1
        "r20001b1": "UOPS_EXECUTED.CYCLES_GE_2_UOPS_EXEC",  # 0xb1, 1, 2
        "r30001b1": "UOPS_EXECUTED.CYCLES_GE_3_UOPS_EXEC",  # 0xb1, 1, 3
        # Haswell's UOPS_EXECUTED.CORE (0xb1, umask 2) with cmask 1, 2, 3,
        # as its files spell them
        "r10002b1": "cpu@UOPS_EXECUTED.CORE,cmask=1@",
        "r20002b1": "cpu@UOPS_EXECUTED.CORE,cmask=2@",
        "r30002b1": "cpu@UOPS_EXECUTED.CORE,cmask=3@",
        # event 0xd1, umask 0x08, 0x10, 0x20 on every model of the L1MPKI
        # rows: MEM_LOAD_RETIRED (Skylake on) or MEM_LOAD_UOPS_RETIRED
        # (before), see PERF_SYNONYM
        "r8d1": "MEM_LOAD_RETIRED.L1_MISS",
        "r10d1": "MEM_LOAD_RETIRED.L2_MISS",
        "r20d1": "MEM_LOAD_RETIRED.L3_MISS",
        # Sapphire Rapids' level 3 under memory bound (spr/pipeline.json,
        # memory.json: event, umask, cmask)
        "r50021a6": "EXE_ACTIVITY.BOUND_ON_LOADS",  # 0xa6, 0x21, 5
        "r20040a6": "EXE_ACTIVITY.BOUND_ON_STORES",  # 0xa6, 0x40, 2
        "r3000347": "MEMORY_ACTIVITY.STALLS_L1D_MISS",  # 0x47, 0x03, 3
        "r5000547": "MEMORY_ACTIVITY.STALLS_L2_MISS",  # 0x47, 0x05, 5
        "r9000947": "MEMORY_ACTIVITY.STALLS_L3_MISS",  # 0x47, 0x09, 9
        # Gracemont, Alder Lake-N's core (alderlaken/pipeline.json)
        "r71": "TOPDOWN_FE_BOUND.ALL",
        "r74": "TOPDOWN_BE_BOUND.ALL",
        "rc2": "TOPDOWN_RETIRING.ALL",
        # and its core bound's (alderlaken/pipeline.json, memory.json)
        "rff05": "LD_HEAD.ANY_AT_RET",
        "r274": "TOPDOWN_BE_BOUND.MEM_SCHEDULER",
        "r104": "MEM_SCHEDULER_BLOCK.ST_BUF",
        "r704": "MEM_SCHEDULER_BLOCK.ALL",
        # a hybrid CPU's E-cores, by cpu_atom's terms: Gracemont's
        # (perf 6.1's alderlake/pipeline.json, Unit cpu_atom) and
        # Crestmont's (meteorlake/pipeline.json); CPU_CLK_UNHALTED.CORE_P
        # 0x3c counts as the fixed CPU_CLK_UNHALTED.CORE
        "cpu_atom/event=0x3c/": "CPU_CLK_UNHALTED.THREAD",
        "cpu_atom/event=0xc2/": "TOPDOWN_RETIRING.ALL",
        "cpu_atom/event=0x71/": "TOPDOWN_FE_BOUND.ALL",
        "cpu_atom/event=0x74/": "TOPDOWN_BE_BOUND.ALL",
        "cpu_atom/event=0x73,umask=0x4/": "TOPDOWN_BAD_SPECULATION.MISPREDICT",
        "cpu_atom/event=0x73,umask=0x3/": "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS",
        "cpu_atom/event=0x5,umask=0xff/": "LD_HEAD.ANY_AT_RET",
        "cpu_atom/event=0x74,umask=0x2/": "TOPDOWN_BE_BOUND.MEM_SCHEDULER",
        "cpu_atom/event=0x4,umask=0x1/": "MEM_SCHEDULER_BLOCK.ST_BUF",
        "cpu_atom/event=0x4,umask=0x7/": "MEM_SCHEDULER_BLOCK.ALL",
        "cpu_atom/event=0x72/": "TOPDOWN_RETIRING.ALL_P",
        "cpu_atom/event=0x73/": "TOPDOWN_BAD_SPECULATION.ALL_P",
        "cpu_atom/event=0x74,umask=0x1/": "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS",
        # Skymont's (arrowlake/ and lunarlake/pipeline.json, Unit cpu_atom):
        # TOPDOWN_RETIRING.ALL and TOPDOWN_FE_BOUND.ALL on fixed counters 6
        # and 5 (no event code, umask 7 and 6), TOPDOWN_BE_BOUND.ALL (and
        # its alias ALL_P) 0xa4 umask 2
        "cpu_atom/event=0x0,umask=0x7/": "TOPDOWN_RETIRING.ALL",
        "cpu_atom/event=0x0,umask=0x6/": "TOPDOWN_FE_BOUND.ALL",
        "cpu_atom/event=0xa4,umask=0x2/": "TOPDOWN_BE_BOUND.ALL",
        # Sierra Forest's Crestmont, raw on its one core PMU
        # (sierraforest/pipeline.json)
        "r72": "TOPDOWN_RETIRING.ALL_P",
        "r73": "TOPDOWN_BAD_SPECULATION.ALL_P",
        "r473": "TOPDOWN_BAD_SPECULATION.MISPREDICT",
        "r373": "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS",
        "r174": "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS",
    },
    "AuthenticAMD": {
        # the kernel's amd_zen1_perfmon_event_map (arch/x86/events/amd/core.c)
        "instructions": "ex_ret_instr",
        "cycles": "ls_not_halted_cyc",
        "branches": "ex_ret_brn",
        "branch-misses": "ex_ret_brn_misp",
        # libpfm4's Zen 4 names of the events of amdzen4/pipeline.json
        "amd64_fam19h_zen4::CYCLES_NOT_IN_HALT": "ls_not_halted_cyc",
        "amd64_fam19h_zen4::RETIRED_OPS": "ex_ret_ops",
        "amd64_fam19h_zen4::OPS_SOURCE_DISPATCHED_FROM_DECODER:DECODER:OPCACHE:LOOP_BUFFER":
            "de_src_op_disp.all",
        "amd64_fam19h_zen4::DISPATCH_STALLS_1:FE_NO_OPS":
            "de_no_dispatch_per_slot.no_ops_from_frontend",
        "amd64_fam19h_zen4::DISPATCH_STALLS_1:BE_STALLS": "de_no_dispatch_per_slot.backend_stalls",
        "amd64_fam19h_zen4::DISPATCH_STALLS_1:SMT_CONTENTION":
            "de_no_dispatch_per_slot.smt_contention",
        # Zen 5's raw codes (lib/core/metrics_amd.c names each)
        "r76": "ls_not_halted_cyc",
        "rc1": "ex_ret_ops",
        "r7aa": "de_src_op_disp.all",
        "r1000001a0": "de_no_dispatch_per_slot.no_ops_from_frontend",
        "r100001ea0": "de_no_dispatch_per_slot.backend_stalls",
        "r1000060a0": "de_no_dispatch_per_slot.smt_contention",
    },
}

# The codes whose event perf names otherwise on some CPUs: (CPU id
# prefixes, {code: perf's name there}), before UPMC_EVENT. CYCLE_ACTIVITY
# 0xa3 with umask and cmask 6 and 4, and 0xb1 umask 1 with a cmask, are
# one encoding under other names (their pipeline.json, memory.json).
UPMC_EVENT_OF_MODEL = [
    # sandybridge, jaketown
    (("GenuineIntel-6-2A-", "GenuineIntel-6-2D-"), {
        "r60006a3": "CYCLE_ACTIVITY.STALLS_L1D_PENDING",
        "r40004a3": "CYCLE_ACTIVITY.CYCLES_NO_DISPATCH",
        "r10001b1": "cpu@UOPS_DISPATCHED.THREAD,cmask=1@",
        "r20001b1": "cpu@UOPS_DISPATCHED.THREAD,cmask=2@",
        "r30001b1": "cpu@UOPS_DISPATCHED.THREAD,cmask=3@",
    }),
    # ivybridge, ivytown, haswell, haswellx
    (("GenuineIntel-6-3A-", "GenuineIntel-6-3E-", "GenuineIntel-6-3C-", "GenuineIntel-6-45-",
      "GenuineIntel-6-46-", "GenuineIntel-6-3F-"), {
        "r60006a3": "CYCLE_ACTIVITY.STALLS_LDM_PENDING",
        "r40004a3": "CYCLE_ACTIVITY.CYCLES_NO_EXECUTE",
    }),
    # broadwell, broadwellde, broadwellx (STALLS_TOTAL: UPMC_EVENT's)
    (("GenuineIntel-6-3D-", "GenuineIntel-6-47-", "GenuineIntel-6-56-", "GenuineIntel-6-4F-"), {
        "r60006a3": "CYCLE_ACTIVITY.STALLS_MEM_ANY",
    }),
]

# perf's other names of one event: the slots event where SLOTS is no
# metric, an Atom's cycles (fixed counter 1 too).
PERF_SYNONYM = {
    "SLOTS": "TOPDOWN.SLOTS",
    "CPU_CLK_UNHALTED.CORE": "CPU_CLK_UNHALTED.THREAD",
    # perf 6.1's Ice Lake files spell INT_MISC.CLEARS_COUNT (event 0x0d,
    # umask 0x01, edge, cmask 1) by its terms
    "cpu@INT_MISC.RECOVERY_CYCLES,cmask=1,edge@": "INT_MISC.CLEARS_COUNT",
    # the same event 0xd1 before Skylake (Ivy Bridge calls its L3 one LLC)
    "MEM_LOAD_UOPS_RETIRED.L1_MISS": "MEM_LOAD_RETIRED.L1_MISS",
    "MEM_LOAD_UOPS_RETIRED.L2_MISS": "MEM_LOAD_RETIRED.L2_MISS",
    "MEM_LOAD_UOPS_RETIRED.L3_MISS": "MEM_LOAD_RETIRED.L3_MISS",
    "MEM_LOAD_UOPS_RETIRED.LLC_MISS": "MEM_LOAD_RETIRED.L3_MISS",
    # an Atom's programmable-counter name of its cycles (event 0x3c)
    "CPU_CLK_UNHALTED.CORE_P": "CPU_CLK_UNHALTED.THREAD",
    # Crestmont's programmable-counter names of the same codes (0x71, 0x74)
    "TOPDOWN_FE_BOUND.ALL_P": "TOPDOWN_FE_BOUND.ALL",
    "TOPDOWN_BE_BOUND.ALL_P": "TOPDOWN_BE_BOUND.ALL",
    # the msr PMU's TSC on the P-cores' CPUs (arrowlake/arl-metrics.json):
    # what meteorlake's and lunarlake's files call TSC
    "msr@tsc,cpu=cpu_core@": "TSC",
    # perf 6.1's name of the same
    "msr@tsc@": "TSC",
}

# Where perf 6.1's table of a CPU has no metric of upmc's name, the one it
# has in its place, the first of these that it has: perf 6.1 has
# cpu_operating_frequency on its server CPUs alone; its client CPUs' core
# frequency is Average_Frequency (the later tma_info_system_core_frequency,
# Unit cpu_core on a hybrid), and an E-core's only Turbo_Utilization. Each
# such pair is a DIFF whose reason docs/metrics.md states.
PERF_STAND_IN = {
    "cpu_operating_frequency": ("Average_Frequency", "Turbo_Utilization"),
}


def event_key(upmc_name, cpuid):
    """The perf name of an upmc event: what both sides' counts are keyed by."""
    for prefixes, of_model in UPMC_EVENT_OF_MODEL:
        if cpuid.startswith(prefixes) and upmc_name in of_model:
            return of_model[upmc_name]
    table = UPMC_EVENT.get(cpuid.split("-")[0], {})
    if upmc_name in table:
        return table[upmc_name]
    if "::" in upmc_name:  # libpfm4's pmu::EVENT:UMASK
        event = upmc_name.split("::", 1)[1]
        return event.replace(":", ".", 1)
    if ":" in upmc_name and upmc_name.split(":", 1)[0].isupper():
        return upmc_name.replace(":", ".", 1)
    return upmc_name


def perf_key(perf_event, cpuid):
    """The key of an event a perf expression names: perf's generic names
    (cycles) as upmc's are, and PMU@EVENT@ without terms as EVENT (the
    PMU is the unit's)."""
    m = re.match(r"^(cpu|cpu_core|cpu_atom)@([^@,=]+)@$", perf_event)
    if m:
        perf_event = m.group(2)
    return event_key(PERF_SYNONYM.get(perf_event, perf_event), cpuid)


# For CPUs perf 6.1 does not know, the oracle is the kernel's current metric
# JSON: each row's formulas as its file has them (perf's syntax), the file
# and the commit it was read at. Only the metrics upmc has a name for; a
# formula here is evaluated exactly as perf's own are.
KERNEL = "tools/perf/pmu-events/arch/x86/"
# The Crestmont-alone CPUs' level 1 and 2: the same formulas in
# sierraforest/srf-metrics.json and grandridge/grr-metrics.json (each row
# below cites the file it was read from).
CRESTMONT_ALONE = {
    "tma_retiring": "TOPDOWN_RETIRING.ALL_P / (6 * CPU_CLK_UNHALTED.CORE)",
    "tma_bad_speculation": "TOPDOWN_BAD_SPECULATION.ALL_P / (6 * CPU_CLK_UNHALTED.CORE)",
    "tma_frontend_bound": "TOPDOWN_FE_BOUND.ALL_P / (6 * CPU_CLK_UNHALTED.CORE)",
    "tma_backend_bound": "TOPDOWN_BE_BOUND.ALL_P / (6 * CPU_CLK_UNHALTED.CORE)",
    "tma_branch_mispredicts": "TOPDOWN_BAD_SPECULATION.MISPREDICT / (6 * CPU_CLK_UNHALTED.CORE)",
    "tma_machine_clears": "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS / (6 * CPU_CLK_UNHALTED.CORE)",
    "tma_core_bound": "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS / (6 * CPU_CLK_UNHALTED.CORE)",
}
# IPC, CPI and the frequency on Crestmont alone: the same in srf-metrics.json
# and grr-metrics.json (their rows cite where each was read).
CRESTMONT_ALONE_INFO = {
    "tma_info_core_ipc": "INST_RETIRED.ANY / CPU_CLK_UNHALTED.CORE",
    "tma_info_core_cpi": "CPU_CLK_UNHALTED.CORE / INST_RETIRED.ANY",
    # perf 6.1's names of these two, as the P-cores' rows map them
    "IPC": "tma_info_core_ipc",
    "CPI": "tma_info_core_cpi",
    "cpu_operating_frequency":
        "CPU_CLK_UNHALTED.THREAD / CPU_CLK_UNHALTED.REF_TSC * #SYSTEM_TSC_FREQ / 1e9",
}
# The hybrid E-cores' (Unit cpu_atom) IPC, CPI and frequency: the same in
# mtl-metrics.json, arl-metrics.json and lnl-metrics.json, which have no
# core frequency of Unit cpu_atom, only its turbo utilization (a DIFF,
# turbo-utilization).
E_CORE_INFO = {
    "tma_info_core_ipc": "cpu_atom@INST_RETIRED.ANY@ / cpu_atom@CPU_CLK_UNHALTED.CORE@",
    "tma_info_core_cpi": "cpu_atom@CPU_CLK_UNHALTED.CORE@ / cpu_atom@INST_RETIRED.ANY@",
    "IPC": "tma_info_core_ipc",
    "CPI": "tma_info_core_cpi",
    "tma_info_system_turbo_utilization":
        "cpu_atom@CPU_CLK_UNHALTED.CORE@ / cpu_atom@CPU_CLK_UNHALTED.REF_TSC@",
    "cpu_operating_frequency": "tma_info_system_turbo_utilization",
}
# Skymont's (the E-cores of Arrow Lake and Lunar Lake) level 1 and 2: the
# same formulas in arrowlake/arl-metrics.json and lunarlake/lnl-metrics.json
# (Unit cpu_atom; each row below cites the file it was read from).
SKYMONT = {
    name: "cpu_atom@%s@ / (8 * cpu_atom@CPU_CLK_UNHALTED.CORE@)" % event
    for name, event in (
        ("tma_retiring", "TOPDOWN_RETIRING.ALL"),
        ("tma_frontend_bound", "TOPDOWN_FE_BOUND.ALL"),
        ("tma_bad_speculation", "TOPDOWN_BAD_SPECULATION.ALL_P"),
        ("tma_backend_bound", "TOPDOWN_BE_BOUND.ALL_P"),
        ("tma_branch_mispredicts", "TOPDOWN_BAD_SPECULATION.MISPREDICT"),
        ("tma_machine_clears", "TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS"),
        ("tma_core_bound", "TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS"),
    )
}
SKYMONT.update(E_CORE_INFO)

def lion_cove(field, slots, tsc):
    """The tma_* of Unit cpu_core that upmc offers on Arrow Lake's and Lunar
    Lake's P-cores (Lion Cove), as arl-metrics.json and lnl-metrics.json
    have them: field(name) is how the file names a topdown field, slots
    what it adds 0 times to each share ("" where nothing), tsc its TSC."""
    def share(name):
        return "%s / (%s + %s + %s + %s)%s" % (
            field(name), field("fe\\-bound"), field("bad\\-spec"), field("retiring"),
            field("be\\-bound"), slots)
    return {
        "tma_info_thread_clks": "cpu_core@CPU_CLK_UNHALTED.THREAD@",
        "tma_info_thread_ipc": "cpu_core@INST_RETIRED.ANY@ / tma_info_thread_clks",
        "tma_info_thread_cpi": "1 / tma_info_thread_ipc",
        # perf 6.1's names of these two, as on Meteor Lake's row
        "IPC": "tma_info_thread_ipc",
        "CPI": "tma_info_thread_cpi",
        "tma_info_system_time": "duration_time",
        "tma_info_system_turbo_utilization":
            "tma_info_thread_clks / cpu_core@CPU_CLK_UNHALTED.REF_TSC@",
        "tma_info_system_core_frequency":
            "tma_info_system_turbo_utilization * %s / 1e9 / tma_info_system_time" % tsc,
        # no cpu_operating_frequency in the files: their core frequency is
        # the one (a DIFF, tsc-over-duration)
        "cpu_operating_frequency": "tma_info_system_core_frequency",
        "tma_retiring": share("retiring"),
        "tma_bad_speculation": share("bad\\-spec"),
        "tma_frontend_bound": share("fe\\-bound"),
        "tma_backend_bound": share("be\\-bound"),
        "tma_heavy_operations": share("heavy\\-ops"),
        "tma_light_operations": "max(0, tma_retiring - tma_heavy_operations)",
        "tma_branch_mispredicts": share("br\\-mispredict"),
        "tma_machine_clears": "max(0, tma_bad_speculation - tma_branch_mispredicts)",
        "tma_fetch_latency": share("fetch\\-lat"),
        "tma_fetch_bandwidth": "max(0, tma_frontend_bound - tma_fetch_latency)",
        "tma_memory_bound": share("mem\\-bound"),
        "tma_core_bound": "max(0, tma_backend_bound - tma_memory_bound)",
    }


# arl-metrics.json names the fields cpu_core@topdown\-retiring@ and adds no
# 0 * slots; its TSC is the msr PMU's, msr@tsc\,cpu=cpu_core@, whose '='
# perf's jevents escapes as it does in every event name it embeds.
ARROW_LAKE_P = lion_cove(lambda f: "cpu_core@topdown\\-%s@" % f, "",
                         "msr@tsc\\,cpu\\=cpu_core@")
# lnl-metrics.json names them topdown\-retiring, adds 0 * slots, says TSC.
LUNAR_LAKE_P = lion_cove(lambda f: "topdown\\-%s" % f, " + 0 * slots", "TSC")
# Granite Rapids' and Emerald Rapids' level 1 and 2, IPC, CPI and frequency:
# the same formulas in graniterapids/gnr-metrics.json and
# emeraldrapids/emr-metrics.json (each row below cites the file it was read
# from).
GOLDEN_COVE_SERVER = {
    "tma_info_thread_slots": "slots",
    "tma_info_thread_clks": "CPU_CLK_UNHALTED.THREAD",
    "tma_info_thread_ipc": "INST_RETIRED.ANY / tma_info_thread_clks",
    "tma_info_thread_cpi": "1 / tma_info_thread_ipc",
    # perf 6.1's names of these two, as on Meteor Lake's P-core row
    "IPC": "tma_info_thread_ipc",
    "CPI": "tma_info_thread_cpi",
    "cpu_operating_frequency":
        "CPU_CLK_UNHALTED.THREAD / CPU_CLK_UNHALTED.REF_TSC * #SYSTEM_TSC_FREQ / 1e9",
    "tma_retiring":
        "topdown\\-retiring / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) + 0 * slots",
    "tma_frontend_bound":
        "topdown\\-fe\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) - INT_MISC.UOP_DROPPING / "
        "tma_info_thread_slots",
    "tma_fetch_latency":
        "topdown\\-fetch\\-lat / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) - INT_MISC.UOP_DROPPING / "
        "tma_info_thread_slots",
    "tma_fetch_bandwidth": "max(0, tma_frontend_bound - tma_fetch_latency)",
    "tma_heavy_operations":
        "topdown\\-heavy\\-ops / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) + 0 * slots",
    "tma_light_operations": "max(0, tma_retiring - tma_heavy_operations)",
    "tma_branch_mispredicts":
        "topdown\\-br\\-mispredict / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) + 0 * slots",
    "tma_memory_bound":
        "topdown\\-mem\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) + 0 * slots",
    "tma_backend_bound":
        "topdown\\-be\\-bound / (topdown\\-fe\\-bound + topdown\\-bad\\-spec + "
        "topdown\\-retiring + topdown\\-be\\-bound) + 0 * slots",
    "tma_bad_speculation":
        "max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)",
    "tma_machine_clears": "max(0, tma_bad_speculation - tma_branch_mispredicts)",
    "tma_core_bound": "max(0, tma_backend_bound - tma_memory_bound)",
}
KERNEL_CPUS = [
    (cpu("AuthenticAMD-25-61-2", "Zen 4, kernel JSON", "amd-zen4", "amd64_fam19h_zen4"),
     KERNEL + "amdzen4/pipeline.json at 037dd1308c6d (branch_misprediction_ratio: "
     "amdzen4/recommended.json at 4aea86b4033f)", {
         "branch_misprediction_ratio": "d_ratio(ex_ret_brn_misp, ex_ret_brn)",
         "total_dispatch_slots": "6 * ls_not_halted_cyc",
         "frontend_bound":
             "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, total_dispatch_slots)",
         "bad_speculation": "d_ratio(de_src_op_disp.all - ex_ret_ops, total_dispatch_slots)",
         "backend_bound": "d_ratio(de_no_dispatch_per_slot.backend_stalls, total_dispatch_slots)",
         "smt_contention": "d_ratio(de_no_dispatch_per_slot.smt_contention, total_dispatch_slots)",
         "retiring": "d_ratio(ex_ret_ops, total_dispatch_slots)",
     }),
    (cpu("AuthenticAMD-26-44-0", "Zen 5, kernel JSON", "amd-zen5", None),
     KERNEL + "amdzen5/pipeline.json at a9fe4ac7a3a2 (branch_misprediction_rate: "
     "amdzen5/recommended.json at 3c69140734a2)", {
         "branch_misprediction_rate": "d_ratio(ex_ret_brn_misp, ex_ret_brn)",
         # the name Zen 4's file and perf 6.1 give it
         "branch_misprediction_ratio": "branch_misprediction_rate",
         "total_dispatch_slots": "8 * ls_not_halted_cyc",
         "frontend_bound":
             "d_ratio(de_no_dispatch_per_slot.no_ops_from_frontend, total_dispatch_slots)",
         "bad_speculation": "d_ratio(de_src_op_disp.all - ex_ret_ops, total_dispatch_slots)",
         "backend_bound": "d_ratio(de_no_dispatch_per_slot.backend_stalls, total_dispatch_slots)",
         "smt_contention": "d_ratio(de_no_dispatch_per_slot.smt_contention, total_dispatch_slots)",
         "retiring": "d_ratio(ex_ret_ops, total_dispatch_slots)",
     }),
    (cpu("GenuineIntel-6-AA-4", "Meteor Lake E-core, kernel JSON", HYBRID, "spr", "cpu_atom", 1,
         P_CORE_TOPDOWN),
     KERNEL + "meteorlake/mtl-metrics.json at 044d659abeec (Unit cpu_atom; tma_retiring read "
     "at 82ee50252dc8, where the other five are the same)", {
         "tma_retiring":
             "cpu_atom@TOPDOWN_RETIRING.ALL_P@ / (6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         "tma_frontend_bound":
             "cpu_atom@TOPDOWN_FE_BOUND.ALL_P@ / (6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         "tma_bad_speculation":
             "cpu_atom@TOPDOWN_BAD_SPECULATION.ALL_P@ / (6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         "tma_backend_bound":
             "cpu_atom@TOPDOWN_BE_BOUND.ALL_P@ / (6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         "tma_branch_mispredicts":
             "cpu_atom@TOPDOWN_BAD_SPECULATION.MISPREDICT@ / (6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         "tma_core_bound":
             "cpu_atom@TOPDOWN_BE_BOUND.ALLOC_RESTRICTIONS@ / (6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         "tma_machine_clears":
             "cpu_atom@TOPDOWN_BAD_SPECULATION.MACHINE_CLEARS@ / "
             "(6 * cpu_atom@CPU_CLK_UNHALTED.CORE@)",
         **E_CORE_INFO,
     }),
    (cpu("GenuineIntel-6-AA-4", "Meteor Lake P-core, kernel JSON", HYBRID, "spr", "cpu_core", 1,
         P_CORE_TOPDOWN),
     KERNEL + "meteorlake/mtl-metrics.json at 044d659abeec (Unit cpu_core)", {
         "tma_info_thread_slots": "cpu_core@TOPDOWN.SLOTS@",
         "tma_info_thread_clks": "cpu_core@CPU_CLK_UNHALTED.THREAD@",
         "tma_info_thread_ipc": "cpu_core@INST_RETIRED.ANY@ / tma_info_thread_clks",
         "tma_info_thread_cpi": "1 / tma_info_thread_ipc",
         # perf 6.1's names of these two (alderlake's IPC and CPI of Unit
         # cpu_core), which later files call tma_info_thread_ipc and _cpi
         "IPC": "tma_info_thread_ipc",
         "CPI": "tma_info_thread_cpi",
         "tma_info_system_turbo_utilization":
             "tma_info_thread_clks / cpu_core@CPU_CLK_UNHALTED.REF_TSC@",
         "tma_info_system_core_frequency":
             "tma_info_system_turbo_utilization * TSC / 1e9 / duration_time",
         # the file has no cpu_operating_frequency: its core frequency is
         # the one (a DIFF, tsc-over-duration)
         "cpu_operating_frequency": "tma_info_system_core_frequency",
         "tma_retiring":
             "cpu_core@topdown\\-retiring@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) + 0 * tma_info_thread_slots",
         "tma_frontend_bound":
             "cpu_core@topdown\\-fe\\-bound@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) - cpu_core@INT_MISC.UOP_DROPPING@ / "
             "tma_info_thread_slots",
         "tma_bad_speculation":
             "max(1 - (tma_frontend_bound + tma_backend_bound + tma_retiring), 0)",
         "tma_heavy_operations":
             "cpu_core@topdown\\-heavy\\-ops@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) + 0 * tma_info_thread_slots",
         "tma_light_operations": "max(0, tma_retiring - tma_heavy_operations)",
         "tma_machine_clears": "max(0, tma_bad_speculation - tma_branch_mispredicts)",
         "tma_fetch_latency":
             "cpu_core@topdown\\-fetch\\-lat@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) - cpu_core@INT_MISC.UOP_DROPPING@ / "
             "tma_info_thread_slots",
         "tma_fetch_bandwidth": "max(0, tma_frontend_bound - tma_fetch_latency)",
         "tma_core_bound": "max(0, tma_backend_bound - tma_memory_bound)",
         "tma_backend_bound":
             "cpu_core@topdown\\-be\\-bound@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) + 0 * tma_info_thread_slots",
         "tma_branch_mispredicts":
             "cpu_core@topdown\\-br\\-mispredict@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) + 0 * tma_info_thread_slots",
         "tma_memory_bound":
             "cpu_core@topdown\\-mem\\-bound@ / (cpu_core@topdown\\-fe\\-bound@ + "
             "cpu_core@topdown\\-bad\\-spec@ + cpu_core@topdown\\-retiring@ + "
             "cpu_core@topdown\\-be\\-bound@) + 0 * tma_info_thread_slots",
     }),
    (cpu("GenuineIntel-6-C6-2", "Arrow Lake E-core, kernel JSON", HYBRID, "spr", "cpu_atom", 0,
         P_CORE_TOPDOWN),
     KERNEL + "arrowlake/arl-metrics.json at 67f8bc848ee3 (Unit cpu_atom)", SKYMONT),
    (cpu("GenuineIntel-6-C5-2", "Arrow Lake-H E-core, kernel JSON", HYBRID, "spr", "cpu_atom", 0,
         P_CORE_TOPDOWN),
     KERNEL + "arrowlake/arl-metrics.json at 67f8bc848ee3 (Unit cpu_atom)", SKYMONT),
    (cpu("GenuineIntel-6-BD-1", "Lunar Lake E-core, kernel JSON", HYBRID, "spr", "cpu_atom", 0,
         P_CORE_TOPDOWN),
     KERNEL + "lunarlake/lnl-metrics.json at 23878069de30 (Unit cpu_atom)", SKYMONT),
    (cpu("GenuineIntel-6-C6-2", "Arrow Lake P-core, kernel JSON", HYBRID, "spr", "cpu_core", 0,
         P_CORE_TOPDOWN),
     KERNEL + "arrowlake/arl-metrics.json at 67f8bc848ee3 (Unit cpu_core)", ARROW_LAKE_P),
    (cpu("GenuineIntel-6-C5-2", "Arrow Lake-H P-core, kernel JSON", HYBRID, "spr", "cpu_core",
         0, P_CORE_TOPDOWN),
     KERNEL + "arrowlake/arl-metrics.json at 67f8bc848ee3 (Unit cpu_core)", ARROW_LAKE_P),
    (cpu("GenuineIntel-6-BD-1", "Lunar Lake P-core, kernel JSON", HYBRID, "spr", "cpu_core", 0,
         P_CORE_TOPDOWN),
     KERNEL + "lunarlake/lnl-metrics.json at 23878069de30 (Unit cpu_core)", LUNAR_LAKE_P),
    (cpu("GenuineIntel-6-AF-3", "Sierra Forest, kernel JSON", FOUR_SLOTS, "tmt"),
     KERNEL + "sierraforest/srf-metrics.json at 4f9786035f9e (tma_info_core_ipc, "
     "tma_info_core_cpi and cpu_operating_frequency read at 3f5857e726d8)",
     dict(CRESTMONT_ALONE, **CRESTMONT_ALONE_INFO)),
    (cpu("GenuineIntel-6-B6-0", "Grand Ridge, kernel JSON", FOUR_SLOTS, "tmt"),
     KERNEL + "grandridge/grr-metrics.json at 39c1471e3e53",
     dict(CRESTMONT_ALONE, **CRESTMONT_ALONE_INFO)),
    (cpu("GenuineIntel-6-AD-1", "Granite Rapids, kernel JSON", SAPPHIRE, "spr"),
     KERNEL + "graniterapids/gnr-metrics.json at ead971eec0eb", GOLDEN_COVE_SERVER),
    (cpu("GenuineIntel-6-CF-2", "Emerald Rapids, kernel JSON", SAPPHIRE, "spr"),
     KERNEL + "emeraldrapids/emr-metrics.json at 1afba39f9305", GOLDEN_COVE_SERVER),
]
