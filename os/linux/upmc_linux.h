/* SPDX-License-Identifier: MIT */
/*
 * What the upmc command (cli/) takes of the library beyond the public API,
 * on Linux: the one private header it includes. Everything else of lib/
 * and os/ stays private to them.
 *
 * `upmc stat` counts other tasks and whole CPUs, which a set cannot (a set
 * counts the calling thread, read in user space): it parses the spec into
 * events and metrics (upmc_parse_spec_metrics, struct upmc_event,
 * UPMC_TYPE_*; upmc_metric_value, upmc_metric_describe), plans each per
 * core PMU and fills its perf_event_attr (upmc_linux_plan,
 * upmc_linux_attr_init, upmc_linux_pmu_encoding), opens, enables and reads
 * them by the layer's system calls (sys.h: the fake kernel's tests link
 * their own), takes a count between two readings by the library's one rule
 * for intervals, multiplexed or not (upmc_interval_of), and says why an
 * event was refused (upmc_linux_explain_open, the probe's paranoid level).
 * `upmc info` reads the probe of the machine (upmc_linux_probe,
 * upmc_linux_read_int, upmc_linux_root_path, upmc_linux_dummy_page,
 * upmc_linux_explain_*) and what CPUID says (upmc_linux_cpuid).
 * `upmc list` marks the CPU's events of a machine with no core PMU
 * (upmc_linux_probe).
 *
 * It includes the headers that declare those, the Linux layer's, and
 * through probe.h the library's internal header (events, upmc_parse_spec,
 * upmc_interval_of): their structs are used by value, and a second declaration
 * here could drift from them.
 */
#ifndef UPMC_LINUX_UPMC_LINUX_H
#define UPMC_LINUX_UPMC_LINUX_H

#include "os/linux/probe.h"
#include "os/linux/sys.h"

#endif /* UPMC_LINUX_UPMC_LINUX_H */
