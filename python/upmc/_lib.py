# SPDX-License-Identifier: MIT
"""Finds and loads libupmc-ffi.so and declares the C functions it exports.

The library is looked for, in this order (docs/python.md):
1. the path in the environment variable UPMC_LIBRARY (nothing else is tried);
2. libupmc-ffi.so next to this file (a bundled copy);
3. bazel-bin/libupmc-ffi.so of the checkout this package sits in
   (python/upmc/ in the upmc repository);
4. the system loader's path: libupmc-ffi.so.0.1 (as installed by
   `bazel run //:install`), then libupmc-ffi.so.
"""
import ctypes
import errno as _errno
import os
import threading

# The soname's version: the Python structures below follow the headers of
# this version (while it is 0.x a minor version may change them).
SOVERSION = "0.1"
NAME = "libupmc-ffi.so"

_here = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    """(how it was found, path or name) in the order they are tried."""
    explicit = os.environ.get("UPMC_LIBRARY")
    if explicit:
        return [("UPMC_LIBRARY", explicit)]
    found = []
    bundled = os.path.join(_here, NAME)
    if os.path.exists(bundled):
        found.append(("bundled", bundled))
    root = os.path.dirname(os.path.dirname(_here))
    built = os.path.join(root, "bazel-bin", NAME)
    if os.path.exists(os.path.join(root, "WORKSPACE")) and os.path.exists(built):
        found.append(("checkout", built))
    found.append(("system", "%s.%s" % (NAME, SOVERSION)))
    found.append(("system", NAME))
    return found


def _load():
    tried = []
    for how, path in _candidates():
        try:
            # PyDLL: the calls keep the GIL, which costs less than releasing
            # it around calls this short (nogil below has the others), and
            # upmc_last_error() is per thread.
            return how, path, ctypes.PyDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "upmc: cannot load %s; tried %s. Build it with `bazel build //:libupmc-ffi.so` "
        "and set UPMC_LIBRARY to its path, or install it with "
        "`bazel run //:install -- PREFIX` (docs/python.md)" % (NAME, "; ".join(tried)))


class _DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]


def _file_of(lib, name):
    """The file the loader took lib from (name when it cannot say)."""
    info = _DlInfo()
    try:
        dladdr = ctypes.CDLL(None).dladdr
        if dladdr(ctypes.cast(lib.upmc_open, ctypes.c_void_p), ctypes.byref(info)):
            return os.fsdecode(info.fname)
    except (AttributeError, OSError):
        pass
    return name


source, path, lib = _load()
path = _file_of(lib, path)
# The same library, through calls that let the GIL go while they run: for
# the calls that may wait for a lock or for I/O, so that other threads run
# meanwhile (docs/python.md).
nogil = ctypes.CDLL(lib._name, handle=lib._handle)


lib.upmc_thread.restype = ctypes.c_uint64
lib.upmc_thread.argtypes = []
_this_thread = threading.local()


def thread_token():
    """The calling thread as the library's token (upmc_thread()): no other
    thread of the process ever has it, where threading.get_ident() repeats
    for a thread started after another exited."""
    try:
        return _this_thread.token
    except AttributeError:
        _this_thread.token = lib.upmc_thread()
        return _this_thread.token


class Error(OSError):
    """A failure of the library: .errno and the library's sentence (.strerror)."""


def fail(err):
    """Raises the Error for a negative errno return, with the thread's sentence."""
    sentence = lib.upmc_last_error().decode("utf-8", "replace")
    raise Error(-err, sentence or os.strerror(-err))


def closed(what):
    return Error(_errno.EBADF, "%s is closed" % what)


NOT_COUNTED = 2**64 - 1
MAX_COUNTERS = 32
NS = MAX_COUNTERS  # the series of nanoseconds in regions

c_set_p = ctypes.c_void_p


class Options(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("flags", ctypes.c_uint)]


class Stat(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint64), ("min", ctypes.c_double), ("max", ctypes.c_double),
                ("median", ctypes.c_double), ("mean", ctypes.c_double)]


class EventInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("pmu", ctypes.c_char_p), ("desc", ctypes.c_char_p)]


LIST_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(EventInfo), ctypes.c_void_p)


class MetricInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("group", ctypes.c_char_p),
                ("events", ctypes.c_char_p), ("formula", ctypes.c_char_p),
                ("unit", ctypes.c_char_p), ("desc", ctypes.c_char_p), ("cpus", ctypes.c_char_p),
                ("source", ctypes.c_char_p), ("percent", ctypes.c_int),
                ("why_not", ctypes.c_char_p)]


METRIC_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(MetricInfo), ctypes.c_void_p)

_c = ctypes
_P = ctypes.POINTER
_prototypes = {
    "upmc_open": (_c.c_int, [_P(c_set_p), _c.c_char_p, _P(Options)]),
    "upmc_open_timer": (_c.c_int, [_P(c_set_p)]),
    "upmc_close": (None, [c_set_p]),
    "upmc_count": (_c.c_int, [c_set_p]),
    "upmc_counter_name": (_c.c_char_p, [c_set_p, _c.c_uint]),
    "upmc_counter_path": (_c.c_int, [c_set_p, _c.c_uint]),
    "upmc_counter_reason": (_c.c_char_p, [c_set_p, _c.c_uint]),
    "upmc_counter_ratio": (_c.c_double, [c_set_p, _c.c_uint]),
    "upmc_summary": (_c.c_char_p, [c_set_p]),
    "upmc_advice": (_c.c_char_p, [c_set_p]),
    "upmc_clock_source": (_c.c_int, [c_set_p]),
    "upmc_last_error": (_c.c_char_p, []),
        "upmc_list_events": (_c.c_int, [LIST_FN, _c.c_void_p]),
    "upmc_list_metrics": (_c.c_int, [METRIC_FN, _c.c_void_p]),
    "upmc_metric_count": (_c.c_int, [c_set_p]),
    "upmc_metric_name": (_c.c_char_p, [c_set_p, _c.c_uint]),
    "upmc_metric_unit": (_c.c_char_p, [c_set_p, _c.c_uint]),
    "upmc_metric_is_percent": (_c.c_int, [c_set_p, _c.c_uint]),
    "upmc_metric_reason": (_c.c_char_p, [c_set_p, _c.c_uint]),
    "upmc_metrics": (_c.c_int, [c_set_p, _P(_c.c_uint64), _P(_c.c_uint64), _P(_c.c_double)]),
    "upmc_metrics_of_counts": (_c.c_int, [c_set_p, _P(_c.c_double), _P(_c.c_double)]),
    "upmc_topdown_reset": (_c.c_int, [c_set_p]),
    "upmc_read": (_c.c_int, [c_set_p, _c.c_void_p]),
    "upmc_read_times": (_c.c_int, [c_set_p, _P(_c.c_uint64), _P(_c.c_uint64)]),
    "upmc_timestamp": (_c.c_uint64, []),
    "upmc_timestamp_serialized": (_c.c_uint64, []),
    "upmc_timestamp_after": (_c.c_uint64, []),
    "upmc_ticks_to_ns": (_c.c_uint64, [c_set_p, _c.c_uint64]),
    "upmc_region_open": (_c.c_int, [_P(_c.c_void_p), c_set_p, _c.c_char_p]),
    "upmc_region_close": (None, [_c.c_void_p]),
    "upmc_region_begin": (None, [_c.c_void_p]),
    "upmc_region_end": (None, [_c.c_void_p]),
    "upmc_region_dropped": (_c.c_uint64, [_c.c_void_p]),
    "upmc_region_stat": (_c.c_int, [_c.c_void_p, _c.c_uint, _c.c_int, _P(Stat)]),
    "upmc_region_last": (_c.c_int, [_c.c_void_p, _c.c_uint, _c.c_int, _P(_c.c_double)]),
    "upmc_region_reset": (None, [_c.c_void_p]),
}

for _name, (_restype, _argtypes) in _prototypes.items():
    _f = getattr(lib, _name)
    _f.restype = _restype
    _f.argtypes = _argtypes


def unchecked(name, restype):
    """Another function object for name, without argument types: the hot
    calls pass ctypes objects of the right type, which ctypes then passes as
    they are (converting an array to a pointer costs more than the call)."""
    f = lib[name]
    f.restype = restype
    return f
