# SPDX-License-Identifier: MIT
"""The examples of docs/python.md run as written: each ```python block in a
fresh interpreter, in an empty directory (they write their files there)."""
import os
import re
import subprocess
import sys

import pytest

import upmc
from conftest import REPO

DOC = os.path.join(REPO, "docs", "python.md")


def blocks():
    if not os.path.exists(DOC):
        return []
    with open(DOC) as f:
        text = f.read()
    return [(text.count("\n", 0, m.start()) + 2, m.group(1))
            for m in re.finditer(r"^```python\n(.*?)^```$", text, re.M | re.S)]


def test_the_page_has_its_examples():
    if not os.path.exists(DOC):
        pytest.skip("docs/python.md is not here (not run from a checkout)")
    assert len(blocks()) >= 7


@pytest.mark.parametrize("line,code", blocks(), ids=lambda v: "line %s" % v
                         if isinstance(v, int) else "")
def test_example_runs(line, code, tmp_path):
    # The package under test, wherever the tests found it.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(upmc.__file__))] +
        [p for p in [os.environ.get("PYTHONPATH")] if p]))
    run = subprocess.run([sys.executable, "-c", code], cwd=str(tmp_path), env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, "docs/python.md line %d:\n%s%s" % (line, run.stdout,
                                                                   run.stderr)
