# SPDX-License-Identifier: MIT
"""The package's own build backend (python/backend/upmc_backend.py), called
as pip calls it: it needs nothing beyond the standard library, and its
wheel, sdist and editable wheel hold what they should. tools/ci-python.sh
installs with it in a venv that has pip alone, offline."""
import base64
import csv
import hashlib
import importlib.util
import io
import os
import shutil
import sys
import tarfile
import zipfile

import pytest

import upmc
from conftest import REPO

SOURCE = os.path.join(REPO, "python")
BACKEND = os.path.join(SOURCE, "backend", "upmc_backend.py")

pytestmark = pytest.mark.skipif(not os.path.exists(BACKEND),
                                reason="python/backend is not here (not run from a checkout)")


def load_backend(root):
    """The backend of the tree at root, as pip loads it (backend-path)."""
    spec = importlib.util.spec_from_file_location(
        "upmc_backend_%d" % id(root), os.path.join(root, "backend", "upmc_backend.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy_tree(dest):
    """pyproject.toml, the backend and the package's .py files: a source
    tree without a bundled library."""
    os.makedirs(os.path.join(dest, "upmc"))
    shutil.copy(os.path.join(SOURCE, "pyproject.toml"), dest)
    shutil.copytree(os.path.join(SOURCE, "backend"), os.path.join(dest, "backend"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in os.listdir(os.path.join(SOURCE, "upmc")):
        if name.endswith(".py"):
            shutil.copy(os.path.join(SOURCE, "upmc", name), os.path.join(dest, "upmc"))
    return str(dest)


def record_of(z, info):
    rows = list(csv.reader(io.StringIO(z.read("%s/RECORD" % info).decode())))
    return {path: (digest, size) for path, digest, size in rows}


def test_pyproject_declares_no_build_requirement():
    text = open(os.path.join(SOURCE, "pyproject.toml")).read()
    assert "requires = []" in text
    assert 'build-backend = "upmc_backend"' in text and 'backend-path = ["backend"]' in text


def test_the_backend_imports_only_the_standard_library():
    stdlib = set(getattr(sys, "stdlib_module_names", ())) or pytest.skip(
        "sys.stdlib_module_names came with Python 3.10")
    source = open(BACKEND).read()
    imported = {line.split()[1].split(".")[0] for line in source.splitlines()
                if line.startswith(("import ", "from "))}
    assert imported and imported <= stdlib, imported - stdlib


def test_wheel_holds_the_package_and_a_true_record(tmp_path):
    root = copy_tree(tmp_path / "src")
    backend = load_backend(root)
    assert backend.get_requires_for_build_wheel() == []
    out = tmp_path / "dist"
    out.mkdir()
    name = backend.build_wheel(str(out))
    assert name == "upmc-%s-py3-none-any.whl" % upmc.__version__
    assert os.listdir(str(out)) == [name]  # nothing half written beside it
    info = "upmc-%s.dist-info" % upmc.__version__
    with zipfile.ZipFile(str(out / name)) as z:
        names = set(z.namelist())
        py = {"upmc/%s" % f for f in os.listdir(os.path.join(root, "upmc"))}
        assert names == py | {info + "/METADATA", info + "/WHEEL", info + "/RECORD"}
        metadata = z.read(info + "/METADATA").decode()
        assert "Name: upmc\n" in metadata and "Version: %s\n" % upmc.__version__ in metadata
        assert "Requires-Python: >=3.9\n" in metadata
        assert "Root-Is-Purelib: true" in z.read(info + "/WHEEL").decode()
        record = record_of(z, info)
        assert set(record) == names
        for path in names - {info + "/RECORD"}:
            data = z.read(path)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert record[path] == ("sha256=" + digest.decode(), str(len(data))), path


def test_a_bundled_library_makes_a_platform_wheel(tmp_path):
    root = copy_tree(tmp_path / "src")
    with open(os.path.join(root, "upmc", "libupmc-ffi.so"), "wb") as f:
        f.write(b"\x7fELF stand-in")
    backend = load_backend(root)
    name = backend.build_wheel(str(tmp_path))
    assert not name.endswith("-any.whl") and name.startswith("upmc-%s-py3-none-" % upmc.__version__)
    with zipfile.ZipFile(str(tmp_path / name)) as z:
        assert z.read("upmc/libupmc-ffi.so") == b"\x7fELF stand-in"
        assert "Root-Is-Purelib: false" in z.read(
            "upmc-%s.dist-info/WHEEL" % upmc.__version__).decode()


def test_the_same_tree_builds_the_same_wheel(tmp_path):
    backend = load_backend(copy_tree(tmp_path / "src"))
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    name = backend.build_wheel(str(a))
    assert backend.build_wheel(str(b)) == name
    assert (a / name).read_bytes() == (b / name).read_bytes()


def test_sdist_holds_the_source(tmp_path):
    root = copy_tree(tmp_path / "src")
    with open(os.path.join(root, "upmc", "libupmc-ffi.so"), "wb") as f:
        f.write(b"built, not source")
    backend = load_backend(root)
    name = backend.build_sdist(str(tmp_path))
    base = "upmc-%s" % upmc.__version__
    assert name == base + ".tar.gz"
    with tarfile.open(str(tmp_path / name)) as tar:
        names = set(tar.getnames())
    assert {base + "/pyproject.toml", base + "/backend/upmc_backend.py", base + "/PKG-INFO",
            base + "/upmc/__init__.py"} <= names
    assert base + "/upmc/libupmc-ffi.so" not in names


def test_editable_wheel_points_at_the_tree(tmp_path):
    root = copy_tree(tmp_path / "src")
    backend = load_backend(root)
    name = backend.build_editable(str(tmp_path))
    with zipfile.ZipFile(str(tmp_path / name)) as z:
        assert z.read("__editable__.upmc.pth").decode().strip() == root


def test_a_project_without_a_version_is_refused(tmp_path):
    root = copy_tree(tmp_path / "src")
    path = os.path.join(root, "pyproject.toml")
    text = open(path).read()
    open(path, "w").write("\n".join(line for line in text.splitlines()
                                    if not line.startswith("version")))
    with pytest.raises(RuntimeError, match="no version"):
        load_backend(root).build_wheel(str(tmp_path))
    assert not [f for f in os.listdir(str(tmp_path)) if f.endswith((".whl", ".part"))]
