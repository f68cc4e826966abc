# SPDX-License-Identifier: MIT
"""upmc: CPU performance counters from Python, over libupmc-ffi.so.

    import upmc
    c = upmc.Counters()          # upmc.DEFAULT_EVENTS, time_only: opens anywhere
    with c:
        work()
    print(c.values, c.ns, c.summary)

docs/python.md has the whole API, how the library is found, and what one
read costs.
"""
from ._lib import NOT_COUNTED, Error, path as library, source as library_source
from ._counters import DEFAULT_EVENTS, Counters, Event, Metric, Path, events, metrics
from ._bench import Result, Stats, measure, measured
from ._zones import Profile, Zone, flush, frame_mark, thread_name, zone

# Below this share of the time on the PMU, a multiplexed count is an
# extrapolation to treat with care (UPMC_LOW_CONFIDENCE).
LOW_CONFIDENCE = 0.9

__version__ = "0.1.0"
__all__ = ["Counters", "DEFAULT_EVENTS", "Error", "Event", "LOW_CONFIDENCE", "Metric", "NOT_COUNTED", "Path", "Profile",
           "Result", "Stats", "Zone", "events", "flush", "frame_mark", "library", "library_source",
           "measure", "measured", "metrics", "thread_name", "zone"]
