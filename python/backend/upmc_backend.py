# SPDX-License-Identifier: MIT
"""The upmc package's build backend (PEP 517, PEP 660), in its own tree.

`pip install ./python` builds the wheel with this module alone: it needs
the standard library of Python 3.9 or later and nothing else (no
setuptools, no wheel), so that it installs offline in any venv that has
pip. pyproject.toml names it (build-backend, backend-path) and declares no
build requirement.

The package is pure Python: the wheel holds upmc/*.py, and the library
libupmc-ffi.so when a copy was put next to them (docs/python.md), which
makes the wheel one for this machine's platform.
"""
import base64
import hashlib
import io
import os
import re
import sys
import sysconfig
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "upmc"
LIBRARY = "libupmc-ffi.so"
# Zip entries and tar members carry this date (1980-01-01, the earliest a
# zip can hold) unless SOURCE_DATE_EPOCH says another: the same tree builds
# the same archive.
EPOCH = 315532800


def _project():
    """The [project] table's string values (name, version, description,
    requires-python) and license text, read from pyproject.toml: the
    standard library of Python < 3.11 has no TOML parser, and this file's
    keys are plain one-line strings."""
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        text = f.read()
    table = re.search(r"^\[project\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if not table:
        raise RuntimeError("pyproject.toml has no [project] table")
    found = dict(re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"\s*$', table.group(1), re.M))
    licence = re.search(r'^license\s*=\s*\{\s*text\s*=\s*"([^"]*)"\s*\}', table.group(1), re.M)
    for key in ("name", "version"):
        if key not in found:
            raise RuntimeError("pyproject.toml: [project] has no %s" % key)
    found["license"] = licence.group(1) if licence else ""
    return found


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: %s" % project["name"],
             "Version: %s" % project["version"]]
    if project.get("description"):
        lines.append("Summary: %s" % project["description"])
    if project.get("requires-python"):
        lines.append("Requires-Python: %s" % project["requires-python"])
    if project["license"]:
        lines.append("License: %s" % project["license"])
    return "\n".join(lines) + "\n"


def _sources(with_library):
    """(path in the archive, path on disk) of the package's files, sorted."""
    found = []
    for name in sorted(os.listdir(os.path.join(ROOT, PACKAGE))):
        if name.endswith(".py") or (with_library and name == LIBRARY):
            found.append(("%s/%s" % (PACKAGE, name), os.path.join(ROOT, PACKAGE, name)))
    return found


def _date():
    return max(EPOCH, int(os.environ.get("SOURCE_DATE_EPOCH", EPOCH)))


def _platform_tag():
    return re.sub(r"[^\w]", "_", sysconfig.get_platform())


def _hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=%s" % digest.decode("ascii")


def _write_wheel(directory, files, platform):
    """A wheel of files ((archive path, bytes)) with its dist-info; its name."""
    project = _project()
    name, version = project["name"], project["version"]
    tag = "py3-none-%s" % (_platform_tag() if platform else "any")
    info = "%s-%s.dist-info" % (name, version)
    wheel = "\n".join(["Wheel-Version: 1.0", "Generator: upmc_backend",
                       "Root-Is-Purelib: %s" % ("false" if platform else "true"),
                       "Tag: %s" % tag]) + "\n"
    files = list(files) + [("%s/METADATA" % info, _metadata(project).encode("utf-8")),
                           ("%s/WHEEL" % info, wheel.encode("utf-8"))]
    record = "".join("%s,%s,%d\n" % (path, _hash(data), len(data)) for path, data in files)
    record += "%s/RECORD,,\n" % info
    files.append(("%s/RECORD" % info, record.encode("utf-8")))
    filename = "%s-%s-%s.whl" % (name, version, tag)
    stamp = _zip_time()
    # Written under a temporary name: a failed build leaves no wheel that
    # looks whole.
    partial = os.path.join(directory, filename + ".part")
    try:
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for path, data in files:
                entry = zipfile.ZipInfo(path, stamp)
                entry.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
                entry.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(entry, data)
        os.replace(partial, os.path.join(directory, filename))
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return filename


def _zip_time():
    return time.gmtime(_date())[:6]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- PEP 517 ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    sources = _sources(with_library=True)
    bundled = any(path.endswith(LIBRARY) for path, _ in sources)
    return _write_wheel(wheel_directory, [(path, _read(disk)) for path, disk in sources],
                        platform=bundled)


def build_sdist(sdist_directory, config_settings=None):
    """The source: pyproject.toml, this backend, the package's .py files
    (a bundled library is a build product, not source), and PKG-INFO."""
    project = _project()
    base = "%s-%s" % (project["name"], project["version"])
    members = [("pyproject.toml", _read(os.path.join(ROOT, "pyproject.toml"))),
               ("backend/upmc_backend.py", _read(os.path.abspath(__file__))),
               ("PKG-INFO", _metadata(project).encode("utf-8"))]
    members += [(path, _read(disk)) for path, disk in _sources(with_library=False)]
    filename = base + ".tar.gz"
    partial = os.path.join(sdist_directory, filename + ".part")
    try:
        with tarfile.open(partial, "w:gz", format=tarfile.PAX_FORMAT) as tar:
            for path, data in members:
                member = tarfile.TarInfo("%s/%s" % (base, path))
                member.size, member.mtime, member.mode = len(data), _date(), 0o644
                tar.addfile(member, io.BytesIO(data))
        os.replace(partial, os.path.join(sdist_directory, filename))
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return filename


# ---- PEP 660: pip install -e ./python ----

def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose one file, a .pth, puts this tree on sys.path: the
    package is imported from here, edits included."""
    pth = ("%s\n" % ROOT).encode(sys.getfilesystemencoding())
    return _write_wheel(wheel_directory, [("__editable__.upmc.pth", pth)], platform=False)
