# SPDX-License-Identifier: MIT
"""Zones: the process's profile (<upmc/zone.h>), zones of code on any thread,
exported by the library's writers."""
import ctypes
import functools
import math
import os
import sys
import tempfile
import threading
import weakref
from collections import namedtuple

from ._counters import _text, c_string, flags_of
from ._lib import NOT_COUNTED, closed, fail, lib, nogil, unchecked

ZONE_NAME_MAX = 127
FORMATS = {"table": 1, "json": 2, "chrome": 3, "perfetto": 4, "speedscope": 5,
           "perfetto-uncompressed": 6}
SERIALIZED = 1  # UPMC_PROFILE_SERIALIZED
MAX_METRICS = 16  # UPMC_MAX_METRICS


class ZoneLoc(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("function", ctypes.c_char_p),
                ("file", ctypes.c_char_p), ("line", ctypes.c_uint32)]


class ProfileOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("flags", ctypes.c_uint),
                ("profile_flags", ctypes.c_uint), ("buffer_bytes", ctypes.c_size_t)]


class ProfileStats(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in
                ("zones", "frames", "dropped", "dropped_frames", "unbalanced", "refused",
                 "open")] + [("threads", ctypes.c_uint), ("counters", ctypes.c_uint)]


_u64p = ctypes.POINTER(ctypes.c_uint64)


class ZoneInfo(ctypes.Structure):
    _fields_ = [("loc", ctypes.POINTER(ZoneLoc)), ("thread", ctypes.c_char_p),
                ("thread_id", ctypes.c_uint64), ("begin_ns", ctypes.c_uint64),
                ("end_ns", ctypes.c_uint64), ("depth", ctypes.c_uint), ("n", ctypes.c_uint),
                ("delta", _u64p), ("self", _u64p), ("ratio", ctypes.POINTER(ctypes.c_double)),
                ("text", ctypes.c_char_p), ("value", ctypes.c_uint64),
                ("has_value", ctypes.c_int), ("metrics", ctypes.c_uint),
                ("metric", ctypes.POINTER(ctypes.c_double))]


ZONE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ZoneInfo), ctypes.c_void_p)

# The calls that take the library's collector lock and may wait for it or
# write a file let the GIL go (nogil), but for two: upmc_profile_zones,
# which calls back into Python for each zone, and upmc_profile_close, which
# the library wants no thread's zone call to overlap (Python's zone calls
# keep the GIL, so they cannot while it keeps it too).
_c = ctypes
for _dll, _name, _restype, _argtypes in (
        (lib, "upmc_profile_open", _c.c_int, [_c.POINTER(_c.c_void_p), _c.c_char_p,
                                              _c.POINTER(ProfileOptions)]),
        (lib, "upmc_profile_close", None, [_c.c_void_p]),
        (nogil, "upmc_profile_thread", _c.c_int, [_c.c_char_p]),
        (lib, "upmc_zone_begin", None, [_c.POINTER(ZoneLoc)]),
        (lib, "upmc_zone_end", None, []),
        (lib, "upmc_frame_mark", None, []),
        (lib, "upmc_zone_flush", None, []),
        (nogil, "upmc_profile_collect", _c.c_int, [_c.c_void_p]),
        (nogil, "upmc_profile_clear", None, [_c.c_void_p]),
        (lib, "upmc_profile_topdown_reset", _c.c_int, [_c.c_void_p]),
        (nogil, "upmc_profile_stats", _c.c_int, [_c.c_void_p, _c.POINTER(ProfileStats)]),
        (lib, "upmc_profile_counter_name", _c.c_char_p, [_c.c_void_p, _c.c_uint]),
        (lib, "upmc_profile_metric_name", _c.c_char_p, [_c.c_void_p, _c.c_uint]),
        (lib, "upmc_profile_metric_reason", _c.c_char_p, [_c.c_void_p, _c.c_uint]),
        (lib, "upmc_profile_zones", _c.c_int, [_c.c_void_p, ZONE_FN, _c.c_void_p]),
        (nogil, "upmc_profile_save", _c.c_int, [_c.c_void_p, _c.c_int, _c.c_char_p])):
    _f = getattr(_dll, _name)
    _f.restype, _f.argtypes = _restype, _argtypes

# The package's side of the library's collector lock. zones() runs Python
# (it makes each Zone) while the library holds that lock: a thread that
# waited for the lock holding the GIL would wait forever, and zones() for
# the GIL. So each call that takes the lock, and fork() (whose handlers in
# the library take it), first takes this one, whose waiters let the GIL go.
# Reentrant: a profile's finalizer may run in a thread that holds it.
_collector = threading.RLock()
os.register_at_fork(before=_collector.acquire, after_in_parent=_collector.release,
                    after_in_child=_collector.release)

_begin = unchecked("upmc_zone_begin", None)  # (byref(ZoneLoc))
_end = unchecked("upmc_zone_end", None)

# Every zone location ever made, by name: the library keeps pointers to
# them for as long as the process runs, as C keeps its static ones.
_locations = {}


def _location(name, where):
    """A reference to the location of a zone name, made at its first use:
    where() gives (function, file, line) then."""
    loc = _locations.get(name)
    if loc is not None:
        return loc
    encoded = c_string(name, "zone name")
    if encoded is None:
        raise TypeError("zone name must be a str, not None")
    if not encoded or len(encoded) > ZONE_NAME_MAX:
        raise ValueError("zone name must be 1 to %d bytes long in UTF-8" % ZONE_NAME_MAX)
    function, file, line = where()
    loc = ctypes.byref(ZoneLoc(encoded, function.encode("utf-8", "replace"),
                               file.encode("utf-8", "replace"), line))
    _locations[name] = loc
    return loc


def _caller():
    """(function, file, line) of the code that made the zone."""
    frame = sys._getframe(3)  # _caller, _location, zone.__init__, the caller
    return frame.f_code.co_name, frame.f_code.co_filename, frame.f_lineno


def _definition(fn):
    """(function, file, line) where fn is defined."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return fn.__qualname__, "", 0
    return code.co_name, code.co_filename, code.co_firstlineno


class zone:
    """A zone of code on the calling thread, recorded into the open Profile
    (nothing happens when none is open):

    with upmc.zone("physics"):
        step()

    or as a decorator, named after the function unless a name is given:

    @upmc.zone()
    def step(): ...

    A zone object can be made once and entered many times. Names are kept
    for the life of the process (as C's static locations are): use a fixed
    set of them, not one per call.
    """

    __slots__ = ("_loc",)

    def __init__(self, name=None):
        self._loc = None if name is None else _location(name, _caller)

    def __enter__(self):
        if self._loc is None:
            raise TypeError("zone name must be a str, not None")
        _begin(self._loc)
        return self

    def __exit__(self, exc_type, exc, tb):
        _end()
        return False

    def __call__(self, fn):
        loc = self._loc or _location(fn.__qualname__, lambda: _definition(fn))

        @functools.wraps(fn)
        def zoned(*args, **kwargs):
            _begin(loc)
            try:
                return fn(*args, **kwargs)
            finally:
                _end()

        return zoned


def frame_mark():
    """Marks the end of a frame on the calling thread."""
    lib.upmc_frame_mark()


def flush():
    """Makes the calling thread's zones up to now collectable by another
    thread (a thread that goes on running keeps its last one from them
    otherwise: see Profile.collect)."""
    lib.upmc_zone_flush()


def thread_name(name):
    """Names the calling thread in exports and opens its counters now."""
    encoded = c_string(name, "thread name")
    with _collector:
        err = nogil.upmc_profile_thread(encoded)
    if err < 0:
        fail(err)


def _file_name(path):
    """path (str, bytes or os.PathLike) as the file system's bytes."""
    name = os.fsencode(path)
    if b"\0" in name:
        raise ValueError("path contains a NUL character")
    return name


def _close_profile(profile):
    with _collector:
        lib.upmc_profile_close(profile)


# One collected zone: counters and self are dicts by event name (None where
# a counter did not count); self is the count less the zones directly inside;
# metrics by name, each from the zone's own counts (None where it has none).
Zone = namedtuple("Zone", "name thread thread_id begin_ns end_ns depth counters self metrics")


class Profile:
    """The process's profile: zones on every thread, counted with the events
    of spec ("": time only), until the with block ends or close().

    with upmc.Profile("task-clock") as p:
        with upmc.zone("load"):
            load()
        p.save("trace.json", "chrome")
        print(p.table())

    One profile at a time. Export inside the block: closing frees what was
    recorded. Options: buffer_bytes (each thread's buffer), serialized
    (fenced timestamps), and those of Counters (time_only, ...).
    """

    def __init__(self, spec="", *, buffer_bytes=0, serialized=False, **options):
        opts = ProfileOptions(ctypes.sizeof(ProfileOptions), flags_of(options),
                              SERIALIZED if serialized else 0, buffer_bytes)
        handle = ctypes.c_void_p()
        err = lib.upmc_profile_open(ctypes.byref(handle), c_string(spec, "spec"),
                                    ctypes.byref(opts))
        if err < 0:
            fail(err)
        self._profile = handle.value
        self._close = weakref.finalize(self, _close_profile, self._profile)
        self.names = tuple(_text(lib.upmc_profile_counter_name(self._profile, i))
                           for i in range(self.stats()["counters"]))
        self.metric_reasons = {}  # why a metric is not computed per zone ("" when it is)
        for j in range(MAX_METRICS):
            name = lib.upmc_profile_metric_name(self._profile, j)
            if name is None:
                break
            self.metric_reasons[_text(name)] = _text(
                lib.upmc_profile_metric_reason(self._profile, j))
        self.metric_names = tuple(self.metric_reasons)

    def _open(self):
        if self._profile is None:
            raise closed("upmc.Profile (export inside the with block)")
        return self._profile

    @property
    def closed(self):
        return self._profile is None

    def close(self):
        """Frees the profile, once the calls of other threads on it ended."""
        with _collector:
            self._profile = None
            self._close()

    def __enter__(self):
        self._open()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def collect(self):
        """Takes the finished zones out of every thread's buffer; returns
        how many it finished. With counters, a collect on another thread
        leaves a running thread's last zone until that thread records
        again, marks a frame, exits or calls upmc.flush(); a collect on the
        recording thread takes it."""
        with _collector:
            n = nogil.upmc_profile_collect(self._open())
        if n < 0:
            fail(n)
        return n

    def clear(self):
        """Forgets the zones collected so far."""
        with _collector:
            nogil.upmc_profile_clear(self._open())

    def topdown_reset(self):
        """Starts a new period of Intel's topdown fields in every live
        thread's set of the profile (upmc_profile_topdown_reset()), from any
        thread: once a frame, at its boundary, the zones early in a frame
        are measured where, late in a long period, they are too short to
        be. A zone open across it has no topdown metric. Raises upmc.Error:
        EOPNOTSUPP for a profile that reads no topdown metric in user space.
        It keeps the GIL, as close() does, which it must not overlap."""
        err = lib.upmc_profile_topdown_reset(self._open())
        if err < 0:
            fail(err)

    def stats(self):
        """What was collected and what was lost, as a dict (upmc_profile_stats)."""
        st = ProfileStats()
        with _collector:
            err = nogil.upmc_profile_stats(self._open(), ctypes.byref(st))
        if err < 0:
            fail(err)
        return {name: getattr(st, name) for name, _ in ProfileStats._fields_}

    def zones(self):
        """Every collected zone, thread by thread in the order they began.
        An exception while a zone is made (MemoryError, KeyboardInterrupt)
        is raised here, never a part of the list."""
        found = []

        def counts(values, n):
            return {name: (None if values[i] == NOT_COUNTED else values[i])
                    for i, name in zip(range(n), self.names)}

        def metrics(values, n):
            return {name: (None if math.isnan(values[j]) else values[j])
                    for j, name in zip(range(n), self.metric_names)}

        raised = []

        def add(info, _arg):
            # An exception cannot cross the library: ctypes would print it
            # and go on with the next zone. It stops the walk (non-zero)
            # and is raised once the library has returned.
            try:
                z = info.contents
                found.append(Zone(_text(z.loc.contents.name), _text(z.thread), z.thread_id,
                                  z.begin_ns, z.end_ns, z.depth, counts(z.delta, z.n),
                                  counts(z.self, z.n), metrics(z.metric, z.metrics)))
                return 0
            except BaseException as e:
                raised.append(e)
                return 1

        with _collector:
            # The collect, which may take long, without the GIL; then the
            # callbacks with it (one GIL handover per zone would wait for
            # every other thread's turn).
            err = nogil.upmc_profile_collect(self._open())
            if err >= 0:
                err = lib.upmc_profile_zones(self._profile, ZONE_FN(add), None)
        if raised:
            raise raised[0]
        if err < 0:
            fail(err)
        return found

    def save(self, path, format):
        """Writes the collected zones to path (str, bytes or os.PathLike:
        os.fsencode's bytes name the file) with the library's writer for
        format: "chrome" (Chrome trace JSON; gzip when path ends in .gz),
        "perfetto" (protobuf in zlib-compressed chunks),
        "perfetto-uncompressed" (plain packets), "speedscope", "table" or
        "json" (aggregates per zone name)."""
        if format not in FORMATS:
            raise ValueError("format %r unknown; the formats are %s"
                             % (format, ", ".join(FORMATS)))
        with _collector:
            err = nogil.upmc_profile_save(self._open(), FORMATS[format], _file_name(path))
        if err < 0:
            fail(err)

    def export(self, format):
        """The same as save(), as bytes."""
        self._open()
        fd, path = tempfile.mkstemp(prefix="upmc-")
        try:
            os.close(fd)
            self.save(path, format)
            with open(path, "rb") as f:
                return f.read()
        finally:
            os.unlink(path)

    def table(self):
        """The aggregate table per zone name (self time, counters), as text."""
        return self.export("table").decode("utf-8", "replace")
