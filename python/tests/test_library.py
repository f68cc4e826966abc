# SPDX-License-Identifier: MIT
"""How the package finds libupmc-ffi.so (upmc/_lib.py, docs/python.md):
UPMC_LIBRARY, then a copy next to the package, then bazel-bin of the
checkout it sits in, then the system loader's path. Each in a fresh
interpreter, over a copy of the package laid out as that case needs."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import upmc
from conftest import REPO

PACKAGE = os.path.dirname(upmc.__file__)
SONAME = "libupmc-ffi.so." + upmc._lib.SOVERSION


def python(code, cwd, **env):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("UPMC_LIBRARY", "PYTHONPATH", "LD_LIBRARY_PATH")}
    clean.update(env)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=clean,
                          capture_output=True, text=True)


def found(cwd, **env):
    """(how, path) the package in cwd loaded the library by."""
    run = python("import upmc; print(upmc.library_source); print(upmc.library)", cwd, **env)
    assert run.returncode == 0, run.stderr
    return tuple(run.stdout.split("\n")[:2])


def copy_package(into, library=None):
    """A copy of the package under into/, with a copy of the library beside
    it when asked."""
    shutil.copytree(PACKAGE, os.path.join(into, "upmc"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    if library:
        shutil.copy(upmc.library, os.path.join(into, "upmc", library))
    return into


def test_explicit_variable_comes_first(tmp_path):
    copy_package(str(tmp_path), "libupmc-ffi.so")
    assert found(str(tmp_path), UPMC_LIBRARY=upmc.library) == ("UPMC_LIBRARY", upmc.library)


def test_explicit_variable_that_fails_is_an_import_error(tmp_path):
    run = python("import upmc", str(tmp_path), PYTHONPATH=os.path.dirname(PACKAGE),
                 UPMC_LIBRARY=str(tmp_path / "missing.so"))
    assert run.returncode != 0
    assert "missing.so" in run.stderr and "bazel build //:libupmc-ffi.so" in run.stderr
    assert "ImportError" in run.stderr


def test_bundled_copy(tmp_path):
    copy_package(str(tmp_path), "libupmc-ffi.so")
    assert found(str(tmp_path)) == ("bundled", str(tmp_path / "upmc" / "libupmc-ffi.so"))


def test_checkout_build_output(tmp_path):
    (tmp_path / "WORKSPACE").write_text("")
    (tmp_path / "bazel-bin").mkdir()
    shutil.copy(upmc.library, str(tmp_path / "bazel-bin" / "libupmc-ffi.so"))
    copy_package(str(tmp_path / "python"))
    assert found(str(tmp_path / "python")) == \
        ("checkout", str(tmp_path / "bazel-bin" / "libupmc-ffi.so"))


def test_system_loader_path(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(upmc.library, str(lib / SONAME))
    copy_package(str(tmp_path / "site"))
    assert found(str(tmp_path / "site"), LD_LIBRARY_PATH=str(lib)) == \
        ("system", str(lib / SONAME))


def test_nothing_found_says_how_to_get_it(tmp_path):
    copy_package(str(tmp_path))
    run = python("import upmc", str(tmp_path))
    if run.returncode == 0:
        pytest.skip("a libupmc-ffi.so is installed on the system loader's path")
    assert "bazel build //:libupmc-ffi.so" in run.stderr
    assert "bazel run //:install" in run.stderr


def test_versions_are_the_librarys():
    version = os.path.join(REPO, "lib", "version.bzl")
    if not os.path.exists(version):
        pytest.skip("not run from a checkout")
    with open(version) as f:
        bzl = f.read()
    with open(os.path.join(REPO, "python", "pyproject.toml")) as f:
        project = f.read()
    assert 'UPMC_SOVERSION = "%s"' % upmc._lib.SOVERSION in bzl
    assert 'UPMC_VERSION = "%s"' % upmc.__version__ in bzl
    assert re.search(r'^version = "%s"$' % re.escape(upmc.__version__), project, re.M)
