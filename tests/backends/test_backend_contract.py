"""The ``Backend`` protocol (``backends/base.py``) is the whole contract between xdist and a
local array library, and these tests keep it so from both sides.

- Every backend class provides every member of the protocol, each method with the protocol's
  parameters: the same names in the same order, of the same kinds, and a default wherever
  the protocol has one (callers leave those arguments out). NumPy and Torch are imported as
  they are. CuPy's module imports ``cupy``, ``cupyx`` and ``array_api_compat.cupy`` at its
  top and calls them only to build module constants (the namespace, a reduction kernel), so
  where CuPy is not installed ``backends/cupy.py`` is executed from its file with those three
  modules replaced by mocks, under its own name but without registering it in
  ``sys.modules``: ``CuPyBackend`` is then the real class, with its real methods and base
  classes, and ``inspect.signature`` reads it as it reads the others. Where CuPy is installed
  the module is imported as it is.
- Every attribute that the code (``xdist/``, ``backends/``, ``ml/``) reads on a backend
  object is a member of the protocol, so the contract cannot fall behind the code. The scan
  reads the syntax tree: a backend is what the code calls one, the name ``backend`` or
  ``_backend``, or the attribute ``.backend`` or ``._backend`` of anything (``x._backend``,
  ``t.backend``, ``self._backend``, a ``DeviceBuffer``'s ``buf.backend``), except a Device's
  ``backend``, which is its backend's name (a str). ``getattr(backend, "name")`` counts too. So
  that no backend escapes under another name, the scan also fails on a backend assigned to a
  differently named variable and on a parameter typed ``Backend`` under another name.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from unittest import mock

import pytest

from xdist.backends.base import Backend

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("xdist", "backends", "ml")
BACKEND_NAMES = ("backend", "_backend")


def contract() -> dict[str, inspect.Signature | None]:
    """The protocol's members: a method's signature, or None for a data attribute."""
    members: dict[str, inspect.Signature | None] = dict.fromkeys(Backend.__annotations__)
    for name, value in vars(Backend).items():
        if inspect.isfunction(value) and not name.startswith("_"):
            members[name] = inspect.signature(value)
    return members


def _cupy_backend_class() -> type:
    """``CuPyBackend``, imported, or executed from ``backends/cupy.py`` over mocks of the
    modules it imports where CuPy is not installed (the module docstring says why)."""
    if importlib.util.find_spec("cupy") is not None:
        return importlib.import_module("xdist.backends.cupy").CuPyBackend
    path = ROOT / "backends" / "cupy.py"
    spec = importlib.util.spec_from_file_location("xdist.backends.cupy", path)
    module = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as patch:
        for name in ("cupy", "cupyx", "array_api_compat.cupy"):
            patch.setitem(sys.modules, name, mock.MagicMock(name=name))
        spec.loader.exec_module(module)
    return module.CuPyBackend


def _backend_class(name: str) -> type:
    if name == "numpy":
        from xdist.backends.numpy import NumPyBackend

        return NumPyBackend
    if name == "torch":
        pytest.importorskip("torch")
        from xdist.backends.torch import TorchBackend

        return TorchBackend
    return _cupy_backend_class()


def _mismatch(want: inspect.Signature, have: inspect.Signature) -> str | None:
    """Why ``have`` cannot stand for ``want``, or None where it can."""
    wanted, given = list(want.parameters.values()), list(have.parameters.values())
    if [(p.name, p.kind) for p in wanted] != [(p.name, p.kind) for p in given]:
        return f"parameters {have} where the protocol has {want}"
    for w, g in zip(wanted, given, strict=True):
        if w.default is not inspect.Parameter.empty and g.default is inspect.Parameter.empty:
            return f"no default for {g.name!r} (the protocol's is {w.default!r})"
    return None


@pytest.mark.parametrize("backend_name", ["numpy", "torch", "cupy"])
def test_backend_provides_the_contract(backend_name):
    cls = _backend_class(backend_name)
    problems = []
    for member, want in contract().items():
        if not hasattr(cls, member):
            problems.append(f"{member}: missing")
        elif want is not None:
            have = getattr(cls, member)
            why = "not a method" if not callable(have) else _mismatch(want, inspect.signature(have))
            if why:
                problems.append(f"{member}: {why}")
    assert isinstance(cls.name, str) and cls.name == backend_name
    assert not problems, f"{cls.__name__} breaks the Backend protocol:\n" + "\n".join(problems)


# -- the code's uses -----------------------------------------------------------------------------
def _last_name(node: ast.expr) -> str:
    """The identifier an expression ends with (``x.device`` -> ``device``), or ''."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_backend(node: ast.expr) -> bool:
    """Whether the code calls ``node`` a backend (a Device's ``backend`` is a str)."""
    if isinstance(node, ast.Name):
        return node.id in BACKEND_NAMES
    if isinstance(node, ast.Attribute) and node.attr in BACKEND_NAMES:
        return "device" not in _last_name(node.value).lower()
    return False


def _pairs(target: ast.expr, value: ast.expr):
    """The (target, value) pairs of an assignment, tuples unpacked element by element."""
    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
        for t, v in zip(target.elts, value.elts, strict=False):
            yield from _pairs(t, v)
    else:
        yield target, value


def backend_uses(source: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """The attributes read on backends in ``source``, as (line, name), and the places where a
    backend goes by another name, as (line, what)."""
    uses, hidden = [], []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _is_backend(node.value):
            uses.append((node.lineno, node.attr))
        elif (
            isinstance(node, ast.Call)
            and _last_name(node.func) == "getattr"
            and len(node.args) >= 2
            and _is_backend(node.args[0])
            and isinstance(node.args[1], ast.Constant)
        ):
            uses.append((node.lineno, node.args[1].value))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for t, v in _pairs(target, node.value):
                    if _is_backend(v) and not _is_backend(t) and isinstance(t, ast.Name):
                        hidden.append((node.lineno, f"a backend assigned to {t.id!r}"))
        elif isinstance(node, ast.arg) and node.arg not in BACKEND_NAMES:
            if node.annotation is not None and "Backend" == _last_name(node.annotation):
                hidden.append((node.lineno, f"a Backend parameter named {node.arg!r}"))
    return uses, hidden


def _sources():
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT), path.read_text()


def test_the_code_uses_only_the_contract():
    members = set(contract())
    unknown, hidden = [], []
    for path, source in _sources():
        uses, elsewhere = backend_uses(source)
        unknown += [f"{path}:{line}: backend.{name}" for line, name in uses if name not in members]
        hidden += [f"{path}:{line}: {what}" for line, what in elsewhere]
    assert not unknown, (
        "members used on a backend that the Backend protocol (backends/base.py) lacks: add "
        "them there, typed and with a docstring:\n" + "\n".join(unknown)
    )
    assert not hidden, (
        "backends under other names escape the contract scan: name them backend or "
        "_backend:\n" + "\n".join(hidden)
    )


def test_the_scan_sees_backends():
    """The scan finds a use however the code reaches the backend, and skips what is not one."""
    source = """
def f(x, backend: Backend, other: Backend, device):
    backend.made_up(x)
    x._backend.made_up_too
    self.backend.dtype_of(x)
    getattr(backend, "by_name")
    device.backend.upper()
    b = x._backend
    xp, be = backend.xp, x._backend
    backend_name.strip()
"""
    uses, hidden = backend_uses(source)
    assert sorted(name for _, name in uses) == [
        "by_name",
        "dtype_of",
        "made_up",
        "made_up_too",
        "xp",
    ]
    assert sorted(what for _, what in hidden) == [
        "a Backend parameter named 'other'",
        "a backend assigned to 'b'",
        "a backend assigned to 'be'",
    ]
