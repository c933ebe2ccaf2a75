"""Every ``XDIST_*`` environment variable has one reader and one line of documentation.

- xdist (``xdist/``, ``backends/``, ``ml/``) reads ``XDIST_*`` variables only in
  ``xdist/_config.py``: a scan of the syntax trees finds any other read, whether the name is
  written out, held in a constant, looped over or built by an f-string.
- ``docs/guide/settings.md`` (with the part of README.md it includes) has one table row for
  each variable ``_config.py`` reads, and names no ``XDIST_*`` variable that is neither read
  there nor listed in its section on the test harness's variables; that section lists every
  variable the test and conformance runners read from the environment.
- Each reader refuses a bad value with an error that names the variable, the value and what
  it accepts.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import outside_mpi_job, own_processes

from xdist import _config
from xdist.backends import available_backends

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "xdist" / "_config.py"
SETTINGS = ROOT / "docs" / "guide" / "settings.md"
HARNESS_HEADING = "## The test harness's variables"

_NAME = re.compile(r"XDIST_[A-Z0-9_]+")
_MENTION = re.compile(r"(?<![A-Za-z0-9_])XDIST_[A-Z0-9_]*[A-Z0-9]")
_ENVIRON_METHODS = {"get", "pop", "setdefault"}


def _os_names(tree: ast.AST) -> dict[str, str]:
    """What the module calls ``os`` and its ``environ`` and ``getenv``, aliases included:
    ``{local name: "os" | "environ" | "getenv"}``."""
    names = {"os": "os"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update({a.asname: "os" for a in node.names if a.name == "os" and a.asname})
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            wanted = ("environ", "getenv")
            names.update({a.asname or a.name: a.name for a in node.names if a.name in wanted})
    return names


def _is_os(node: ast.expr, what: str, names: dict[str, str]) -> bool:
    """Whether ``node`` is ``os.<what>`` or a name bound to it (``what``: environ, getenv)."""
    if isinstance(node, ast.Attribute):
        base = node.value
        return node.attr == what and isinstance(base, ast.Name) and names.get(base.id) == "os"
    return isinstance(node, ast.Name) and names.get(node.id) == what


def _names_in(node: ast.expr | None, bound: dict[str, set[str]]) -> set[str]:
    """The ``XDIST_*`` names an expression may stand for: a literal, the leading literal of
    an f-string or a sum, a tuple or list of them, or a variable bound to one of those."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value} if node.value.startswith("XDIST_") else set()
    if isinstance(node, ast.JoinedStr) and node.values:
        return _names_in(node.values[0], bound)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _names_in(node.left, bound)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_names_in(e, bound) for e in node.elts))
    if isinstance(node, ast.Name):
        return bound.get(node.id, set())
    return set()


def _bound_names(tree: ast.AST) -> dict[str, set[str]]:
    """Variables that hold ``XDIST_*`` names: assigned one, or a loop variable over them."""
    bound: dict[str, set[str]] = {}
    for _ in range(3):  # a loop over a constant defined below it needs a second pass
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign):
                targets, value = [node.target], node.value
            elif isinstance(node, (ast.For, ast.comprehension)):
                targets, value = [node.target], node.iter
                names = _names_in(value, bound)
                if isinstance(node.target, ast.Name) and names:
                    bound.setdefault(node.target.id, set()).update(names)
                continue
            else:
                continue
            names = _names_in(value, bound)
            for target in targets:
                if isinstance(target, ast.Name) and names:
                    bound.setdefault(target.id, set()).update(names)
    return bound


def environment_reads(source: str) -> list[tuple[int, str]]:
    """(line, name) of every place ``source`` reads an ``XDIST_*`` variable from the
    environment: ``os.environ.get/pop/setdefault``, ``os.environ[...]``, ``os.getenv`` and
    ``... in os.environ``."""
    tree = ast.parse(source)
    bound, names = _bound_names(tree), _os_names(tree)
    found = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            method = isinstance(func, ast.Attribute) and func.attr in _ENVIRON_METHODS
            if (method and _is_os(func.value, "environ", names)) or _is_os(func, "getenv", names):
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and _is_os(node.value, "environ", names):
            key = node.slice
        elif isinstance(node, ast.Compare) and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            if _is_os(node.comparators[0], "environ", names):
                key = node.left
        found += [(node.lineno, name) for name in sorted(_names_in(key, bound))]
    return found


def _reads_under(*folders: str) -> dict[str, list[tuple[int, str]]]:
    reads = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text()
            if "XDIST_" not in text or ("environ" not in text and "getenv" not in text):
                continue  # nothing to find: spares parsing most files
            found = environment_reads(text)
            if found:
                reads[str(path.relative_to(ROOT))] = found
    return reads


def config_names() -> set[str]:
    """The variables ``_config.py`` reads: the names it passes to a reader."""
    names = set()
    for node in ast.walk(ast.parse(CONFIG.read_text())):
        if isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                if _NAME.fullmatch(first.value):
                    names.add(first.value)
    return names


def _settings_page() -> str:
    """settings.md with its ``{include}`` directives replaced by what they include."""
    text = SETTINGS.read_text()
    directive = re.compile(r"```\{include\} (\S+)\n((?::[\w-]+: .*\n)*)```")

    def included(match: re.Match) -> str:
        source = (SETTINGS.parent / match[1]).read_text()
        options = dict(re.findall(r":([\w-]+): (.*)", match[2]))
        start = options.get("start-after", "").strip('"')
        end = options.get("end-before", "").strip('"')
        if start:
            source = source.split(start, 1)[1]
        return source.split(end, 1)[0] if end else source

    return directive.sub(included, text)


def _documented() -> tuple[list[str], list[str]]:
    """The variables of the settings page's table rows: xdist's, and the test harness's."""
    users, harness = _settings_page().split(HARNESS_HEADING, 1)

    def rows(text: str) -> list[str]:
        firsts = [line.split("|")[1] for line in text.splitlines() if line.startswith("|")]
        return [name for cell in firsts for name in _MENTION.findall(cell)]

    return rows(users), rows(harness)


# -- one reader ---------------------------------------------------------------------------------


def test_only_config_reads_xdist_variables():
    reads = _reads_under("xdist", "backends", "ml")
    reads.pop("xdist/_config.py", None)
    assert not reads, (
        f"XDIST_* variables read outside xdist/_config.py: {reads}; read each there, by one "
        "function that validates it, and document it in docs/guide/settings.md"
    )


@pytest.mark.parametrize(
    "source",
    [
        'import os\nos.environ.get("XDIST_X")',
        'import os\nos.environ.get("XDIST_X", "1").strip()',
        'import os\nos.getenv("XDIST_X")',
        'import os\nos.environ["XDIST_X"]',
        'import os\nif "XDIST_X" not in os.environ:\n    pass',
        'from os import environ\nenviron.pop("XDIST_X", None)',
        'from os import environ as env\nenv["XDIST_X"]',
        'from os import getenv\ngetenv("XDIST_X")',
        'import os as system\nsystem.environ.get("XDIST_X")',
        'import os\nfor name in NAMES:\n    os.environ.get(name)\nNAMES = ("A", "XDIST_X")',
        'import os\nname = "XDIST_X"\nos.environ.setdefault(name, "1")',
        'import os\nkind = "X"\nos.environ.get(f"XDIST_{kind}")',
        'import os\n[os.environ[n] for n in ["XDIST_X"]]',
    ],
)
def test_the_scan_finds_every_form_of_read(source):
    found = [name for _, name in environment_reads(source)]
    assert found in (["XDIST_X"], ["XDIST_"]), (source, found)  # an f-string: its prefix


def test_the_scan_ignores_other_variables_and_messages():
    source = (
        "import os\n"
        'os.environ.get("MPI_LOCALNRANKS")\n'
        'raise ValueError("no MPI; XDIST_COMM=self runs one process")\n'
        'check(spec, "XDIST_DEVICE")\n'
    )
    assert environment_reads(source) == []


# -- one line of documentation ------------------------------------------------------------------


def test_every_variable_config_reads_has_one_row():
    users, _ = _documented()
    read = config_names()
    assert read, "found no XDIST_* variable in xdist/_config.py: the scan is broken"
    rows = {name: users.count(name) for name in read}
    assert all(n == 1 for n in rows.values()), (
        f"rows of docs/guide/settings.md per variable xdist/_config.py reads (expected one "
        f"each): {rows}"
    )
    stale = sorted(set(users) - read)
    assert not stale, f"docs/guide/settings.md documents variables xdist does not read: {stale}"


def test_the_harness_section_lists_what_the_runners_read():
    _, harness = _documented()
    read = config_names()
    assert len(harness) == len(set(harness)), f"a harness variable has two rows: {harness}"
    assert not set(harness) & read, f"xdist reads these itself: {sorted(set(harness) & read)}"
    runners = {name for found in _reads_under("tests", "conformance").values() for _, name in found}
    unlisted = sorted(runners - read - set(harness))
    assert not unlisted, (
        f"the test or conformance runners read {unlisted}: add each to the section "
        f"{HARNESS_HEADING!r} of docs/guide/settings.md"
    )
    unread = sorted(set(harness) - runners)
    assert not unread, f"no runner reads {unread}, listed under {HARNESS_HEADING!r}"


def test_the_page_names_no_unknown_variable():
    _, harness = _documented()
    known = config_names() | set(harness)
    unknown = sorted(set(_MENTION.findall(_settings_page())) - known)
    assert not unknown, f"docs/guide/settings.md names variables nothing reads: {unknown}"


# -- each reader refuses a bad value, naming the variable, the value and what it accepts --------


def test_backend_names_match_the_backends():
    assert _config.BACKENDS == available_backends()


@pytest.mark.parametrize(
    "name, value, reader, message",
    [
        ("XDIST_COMM", "mpi", "comm_setting", "expected one of world, self, got 'mpi'"),
        ("XDIST_BACKEND", "jax", "backend_setting", "expected one of numpy, torch, cupy"),
        ("XDIST_DEVICE", "gpu", "device_setting", "expected cpu, cuda or cuda:N, got 'gpu'"),
        ("XDIST_DEVICE", "cuda:x", "device_setting", "expected cpu, cuda or cuda:N, got 'cuda:x'"),
        ("XDIST_TORCH_THREADS", "0", "torch_threads_setting", "expected a positive integer"),
    ],
)
def test_start_up_choices_are_checked(monkeypatch, name, value, reader, message):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=re.escape(f"{name}: {message}")):
        getattr(_config, reader)()


def test_the_replicated_check_names_every_value_it_takes(monkeypatch):
    monkeypatch.setenv("XDIST_CHECK_REPLICATED", "most")
    expected = "XDIST_CHECK_REPLICATED: expected 0, 1, full or auto, got 'most'"
    with pytest.raises(ValueError, match=re.escape(expected)):
        _config._env_check("XDIST_CHECK_REPLICATED")


@pytest.mark.parametrize("value", ["lots", "-1", "1.5"])
def test_the_block_pool_bound_is_a_count_of_bytes(monkeypatch, value):
    monkeypatch.setenv("XDIST_BLOCK_POOL_BYTES", value)
    expected = f"XDIST_BLOCK_POOL_BYTES: expected a number of bytes >= 0 or 'auto', got {value!r}"
    with pytest.raises(ValueError, match=re.escape(expected)):
        _config._env_bytes("XDIST_BLOCK_POOL_BYTES")
    for read, bound in (("", None), (" Auto ", None), ("0", 0), ("1048576", 1 << 20)):
        monkeypatch.setenv("XDIST_BLOCK_POOL_BYTES", read)
        assert _config._env_bytes("XDIST_BLOCK_POOL_BYTES") == bound


@pytest.mark.parametrize(
    "name, value, reader, expected",
    [
        ("XDIST_COMM", "", "comm_setting", "world"),
        ("XDIST_COMM", " Self ", "comm_setting", "self"),
        ("XDIST_BACKEND", "", "backend_setting", "numpy"),
        ("XDIST_BACKEND", "Torch", "backend_setting", "torch"),
        ("XDIST_DEVICE", "", "device_setting", ""),
        ("XDIST_DEVICE", "default", "device_setting", ""),
        ("XDIST_DEVICE", "CUDA:1", "device_setting", "cuda:1"),
        ("XDIST_TORCH_THREADS", "", "torch_threads_setting", None),
        ("XDIST_TORCH_THREADS", " 3 ", "torch_threads_setting", 3),
    ],
)
def test_start_up_choices_are_read(monkeypatch, name, value, reader, expected):
    monkeypatch.setenv(name, value)
    assert getattr(_config, reader)() == expected


@own_processes
@pytest.mark.parametrize("name, value", [("XDIST_COMM", "mpi"), ("XDIST_BACKEND", "jax")])
def test_a_bad_start_up_choice_stops_the_import(name, value):
    run = subprocess.run(
        [sys.executable, "-c", "import xdist"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**outside_mpi_job(), name: value},
    )
    assert run.returncode != 0 and f"ValueError: {name}: expected one of" in run.stderr, run.stderr
