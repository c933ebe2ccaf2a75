"""The layers of docs/architecture.md, kept by the tests.

- ``lint-imports`` checks the contracts in pyproject.toml: each layer imports only the
  layers below it, no package has an import circle among its modules, only the transport
  imports mpi4py, and ``xdist.ml`` sees only the public namespace. It runs on a copy of the
  tree laid out as installed (``backends/`` as ``xdist/backends``, ``ml/`` as ``xdist/ml``),
  since import-linter reads the packages from disk.
- Only the transport and the movement layer call the communicator: every other module goes
  through ``xdist/_movement/`` (a grep, so a new call site fails here).
- docs/architecture.md stays true to the tree: its picture names the contract's layers in the
  contract's order, every path it names exists, and every module of ``xdist/``, ``backends/``
  and ``ml/`` is named on it, so a new module cannot go undocumented.
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
PAGE = ROOT / "docs" / "architecture.md"

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


# docs/architecture.md names paths from the repository root when they start with one of these
# folders, and paths under xdist/ otherwise (``_movement/collectives.py``, ``_layout.py``).
_ROOT_FOLDERS = ("xdist", "backends", "ml", "tests", "docs", "benchmarks")
# A path on the page: folders and a file (``.py``, ``.md``, ``.toml``), a folder with its
# slash, or a module of xdist's top level (``_array.py``). What follows a module's name
# (``_ops/reduction.plan_reduction``) is a name inside it.
_PAGE_PATH = re.compile(
    r"(?<![\w./-])((?:[A-Za-z_]\w*/)+(?:\w+(?:\.(?:py|md|toml))?)?|_\w+\.py)(?![\w/-])"
)


def _page_path(token: str) -> Path | None:
    """The file or folder a path on the page names (None: a path outside this repository,
    such as another library's module)."""
    first = token.split("/")[0]
    if first in _ROOT_FOLDERS:
        return ROOT / token
    if first.startswith("_") or (PACKAGE / first).is_dir():
        return PACKAGE / token
    return None


def _named_paths() -> dict[str, Path]:
    named = {}
    for token in _PAGE_PATH.findall(PAGE.read_text()):
        path = _page_path(token)
        if path is not None:
            named[token] = path
    return named


def _exists(path: Path) -> bool:
    return path.exists() or path.with_name(path.name + ".py").is_file()


def test_every_path_the_page_names_exists():
    named = _named_paths()
    missing = sorted(token for token, path in named.items() if not _exists(path))
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def _named_modules() -> set[Path]:
    """The modules and packages the page names, as files: ``pkg/`` and ``pkg/__init__.py``
    name a package, ``mod.py`` or ``mod.name`` a module."""
    files = set()
    for path in _named_paths().values():
        if path.is_dir():
            files.add(path / "__init__.py")
        elif path.is_file():
            files.add(path)
        elif path.with_name(path.name + ".py").is_file():
            files.add(path.with_name(path.name + ".py"))
    return files


def test_every_module_is_named_on_the_page():
    named = _named_modules()
    absent = [
        str(path.relative_to(ROOT))
        for folder in (PACKAGE, ROOT / "backends", ROOT / "ml")
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts and path not in named
    ]
    assert not absent, (
        "modules not named on docs/architecture.md (give each its line in the layers table): "
        f"{absent}"
    )


def _contract_layers() -> list[list[str]]:
    """The layers of pyproject.toml's layers contract, highest first, each as its names."""
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    (layers,) = [c["layers"] for c in contracts["contracts"] if c["type"] == "layers"]
    return [[n.strip(" ()") for n in re.split(r"[|:]", layer)] for layer in layers]


def test_the_picture_follows_the_layers_contract():
    """The picture (the page's first ``text`` block) names every layer of the contract, in
    the contract's order: each layer's names on lines above the next layer's."""
    picture = PAGE.read_text().split("```text\n", 1)[1].split("```", 1)[0].splitlines()

    def line_of(name: str) -> int:
        word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
        for n, line in enumerate(picture):
            if word.search(line):
                return n
        raise AssertionError(f"the picture of docs/architecture.md does not name {name}")

    layers = _contract_layers()
    lines = [[line_of(name) for name in layer] for layer in layers]
    for k in range(len(layers) - 1):
        assert max(lines[k]) < min(lines[k + 1]), (
            f"the picture of docs/architecture.md puts {layers[k]} below or beside "
            f"{layers[k + 1]}, against the layers contract"
        )
