"""The layers of docs/architecture.md, kept by the tests.

- ``lint-imports`` checks the contracts in pyproject.toml: each layer imports only the
  layers below it, no package has an import circle among its modules, only the transport
  imports mpi4py, and ``xdist.ml`` sees only the public namespace. It runs on a copy of the
  tree laid out as installed (``backends/`` as ``xdist/backends``, ``ml/`` as ``xdist/ml``),
  since import-linter reads the packages from disk.
- Only the transport and the movement layer call the communicator: every other module goes
  through ``xdist/_movement/collectives.py`` (a grep, so a new call site fails here).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "xdist"

# Methods of the Communicator protocol that send or receive.
_COLLECTIVE = re.compile(
    r"\.(allreduce|allgatherv|allgather_ints|alltoall_ints|alltoallv|bcast|exscan|sendrecv"
    r"|barrier)\("
)
_MAY_CALL = ("_transport", "_movement")


def _installed_layout(where: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(PACKAGE, where / "xdist", ignore=ignore)
    shutil.copytree(ROOT / "backends", where / "xdist" / "backends", ignore=ignore)
    shutil.copytree(ROOT / "ml", where / "xdist" / "ml", ignore=ignore)
    return where


def test_import_contracts(tmp_path):
    lint = shutil.which("lint-imports", path=os.path.dirname(sys.executable))
    if lint is None:
        pytest.fail("lint-imports not found: install the test extra (pip install -e '.[test]')")
    tree = _installed_layout(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    run = subprocess.run(
        [lint, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_only_the_movement_layer_calls_the_communicator():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in _MAY_CALL:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if _COLLECTIVE.search(line.split("#")[0]):
                found.append(f"xdist/{rel}:{n}: {line.strip()}")
    assert not found, "communicator calls outside the movement layer:\n" + "\n".join(found)


def test_every_package_is_installed():
    """pyproject.toml lists the packages (backends/ and ml/ are mapped into xdist): a new
    package missing there would be absent from the wheel."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {"xdist.backends", "xdist.ml"}
    for init in PACKAGE.rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT)
        found.add(".".join(rel.parts))
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
