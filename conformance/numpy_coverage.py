"""NumPy coverage: the NumPy functions that scientific Python code calls most, and what xdist
offers for each.

    python conformance/numpy_coverage.py count NAME=DIR ...   # count the calls in source trees
    python conformance/numpy_coverage.py table                # write docs/numpy-coverage.md

``count`` parses every Python file of each tree (tests, benchmarks, docs and examples left
out) and counts the calls ``np.<name>(...)`` through a module bound by ``import numpy`` or
``import numpy as np``; ``np.linalg.norm(...)`` counts as ``linalg.norm``. The counts and the
trees' commits go to ``conformance/numpy_usage.json``, which is checked in: the trees are
not needed again.

``table`` takes the most called names and asks the installed xdist about each one: a name of
the standard, an extension of xdist's under NumPy's name, NumPy's name for a standard
function, an array attribute, or missing, with the hint that xdist's ``AttributeError`` gives
for it. ``tests/packaging/test_numpy_coverage.py`` checks that the page is what this script
writes now, so the page cannot fall behind the code, and that every missing name has a hint.
"""

from __future__ import annotations

import ast
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
USAGE = ROOT / "conformance" / "numpy_usage.json"
PAGE = ROOT / "docs" / "numpy-coverage.md"
TOP = 150
SKIPPED_FOLDERS = {"tests", "testing", "benchmarks", "doc", "docs", "examples"}

# NumPy's names for functions the standard (and xdist) spell differently.
STANDARD_NAMES = {
    "absolute": "abs", "amax": "max", "amin": "min", "arccos": "acos", "arccosh": "acosh",
    "arcsin": "asin", "arcsinh": "asinh", "arctan": "atan", "arctan2": "atan2",
    "arctanh": "atanh", "array": "asarray", "asanyarray": "asarray",
    "ascontiguousarray": "asarray", "concatenate": "concat", "conjugate": "conj",
    "cumprod": "cumulative_prod", "cumsum": "cumulative_sum", "fabs": "abs",
    "identity": "eye", "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "power": "pow", "right_shift": "bitwise_right_shift", "transpose": "permute_dims",
    "true_divide": "divide",
}  # fmt: skip
# Functions of NumPy whose value is an attribute of an xdist array.
ATTRIBUTES = {"ndim": "x.ndim", "shape": "x.shape", "size": "x.size", "real": "xp.real(x)"}


def count_calls(tree: Path) -> collections.Counter[str]:
    calls: collections.Counter[str] = collections.Counter()
    for path in tree.rglob("*.py"):
        if SKIPPED_FOLDERS & set(path.relative_to(tree).parts):
            continue
        try:
            module = ast.parse(path.read_text(errors="replace"))
        except SyntaxError:
            continue
        numpy = {
            alias.asname or "numpy"
            for node in ast.walk(module)
            if isinstance(node, ast.Import)
            for alias in node.names
            if alias.name == "numpy"
        }
        if not numpy:
            continue
        for node in ast.walk(module):
            if not isinstance(node, ast.Call):
                continue
            parts, func = [], node.func
            while isinstance(func, ast.Attribute):
                parts.append(func.attr)
                func = func.value
            if parts and isinstance(func, ast.Name) and func.id in numpy:
                calls[".".join(reversed(parts))] += 1
    return calls


def _commit(tree: Path) -> str:
    head = tree / ".commit"
    return head.read_text().strip() if head.exists() else "unknown"


def count(trees: list[str]) -> None:
    projects, total = {}, collections.Counter()
    for spec in trees:
        name, _, folder = spec.partition("=")
        calls = count_calls(Path(folder))
        projects[name] = {"commit": _commit(Path(folder)), "calls": sum(calls.values())}
        total += calls
    USAGE.write_text(
        json.dumps({"projects": projects, "calls": dict(total.most_common())}, indent=1) + "\n"
    )


def _lookup(name: str):
    """(the object xdist has under ``name``, or None; the AttributeError's text if none)."""
    import xdist

    target = xdist
    *modules, last = name.split(".")
    for module in modules:
        if not hasattr(target, module):
            return None, f"xdist has no {module!r} namespace"
        target = getattr(target, module)
    try:
        return getattr(target, last), ""
    except AttributeError as error:
        return None, str(error)


def _standard(name: str) -> bool:
    import array_api_strict

    target = array_api_strict
    for part in name.split("."):
        if not hasattr(target, part):
            return False
        target = getattr(target, part)
    return True


def status(name: str) -> tuple[str, str]:
    """(xdist's status for NumPy's ``name``, what to write in xdist)."""
    found, error = _lookup(name)
    if name in ATTRIBUTES:
        return "array attribute", f"`{ATTRIBUTES[name]}`"
    if found is not None:
        if _standard(name):
            return "standard", f"`xp.{name}`"
        if name in STANDARD_NAMES:
            return "NumPy alias", f"`xp.{name}` (the standard's `{STANDARD_NAMES[name]}`)"
        return "xdist extension", f"`xp.{name}`"
    hint = error.split(";", 1)[1].strip() if ";" in error else ""
    if name in STANDARD_NAMES:
        return "standard, other name", f"`xp.{STANDARD_NAMES[name]}`" + (
            f"; {hint}" if hint else ""
        )
    return "missing", hint


def table() -> str:
    usage = json.loads(USAGE.read_text())
    top = list(usage["calls"].items())[:TOP]
    # Each project's source as counted (a third-party pin, written plainly: a backticked hash
    # reads as one of xdist's commits to tests/packaging/test_docs_claims.py).
    projects = ", ".join(
        f"{name} {info['commit'][:12]} ({info['calls']:,} calls)"
        for name, info in usage["projects"].items()
    )
    rows = [status(name) for name, _ in top]
    tally = collections.Counter(kind for kind, _ in rows)
    lines = [
        "# NumPy coverage",
        "",
        f"The {TOP} NumPy functions that scientific Python code calls most, counted in the",
        f"source of {projects} (calls `np.<name>(...)`, tests and examples left out), and what",
        "xdist offers for each. NumPy's names that xdist does not have raise an",
        "`AttributeError` that says what to use instead; that hint is the last column.",
        "",
        "Regenerate with `python conformance/numpy_coverage.py table`;",
        "`tests/packaging/test_numpy_coverage.py` fails when this page and the code disagree.",
        "",
        "| status | names |",
        "|---|---|",
        *(f"| {kind} | {n} |" for kind, n in sorted(tally.items(), key=lambda kv: -kv[1])),
        "",
        "| # | NumPy | calls | xdist | in xdist |",
        "|---|---|---|---|---|",
    ]
    for i, ((name, calls), (kind, use)) in enumerate(zip(top, rows), 1):
        use = use.replace("|", "\\|")
        lines.append(f"| {i} | `np.{name}` | {calls:,} | {kind} | {use} |")
    return "\n".join(lines + methods_table()) + "\n"


# NumPy's array methods and attributes that xdist's Array does not have, with why.
MISSING_METHODS = {
    "argpartition": "use `x.argsort(axis)` (a full sort; no distributed partial sort)",
    "partition": "use `xp.sort(x, axis=axis)` (a full sort; no distributed partial sort)",
    "base": "a view's memory owner is a per-rank notion: `x.local.base`",
    "byteswap": "byte order is the backend's: `xp.from_local(x.local.byteswap(), split=x.split)`",
    "choose": "use `xp.where` (or `xp.take_along_axis` of the stacked choices)",
    "compress": "use boolean indexing, `x[mask]`, or `xp.take(x, xp.nonzero(mask)[0], axis=...)`",
    "ctypes": "per-rank memory: `x.local.ctypes`",
    "data": "per-rank memory: `x.local.data`",
    "flags": "per-rank memory: `x.local.flags`",
    "strides": "per-rank memory: `x.local.strides`",
    "dump": "pickle the array (`pickle.dump(x, f)`: each rank its block) or save with `xdist.io`",
    "dumps": "`pickle.dumps(x)` (each rank its block)",
    "tobytes": "bytes are per rank: `x.local.tobytes()`, or `xdist.io.save_npy` for a file",
    "tofile": "`xdist.io.save_npy(x, path)` (each rank writes its block)",
    "flat": "use `xp.reshape(x, (-1,))` (NumPy's iterator walks elements one by one)",
    "getfield": "structured and reinterpreted dtypes are not standard dtypes",
    "setfield": "structured and reinterpreted dtypes are not standard dtypes",
    "put": "use indexing writes, `x[idx] = values` (flat positions: on `xp.reshape(x, (-1,))`)",
    "resize": "in-place resizing of a distributed buffer is not offered: `xp.resize(x, shape)`",
    "setflags": "per-rank memory: `x.local.setflags(...)`",
}


def methods_table() -> list[str]:
    """NumPy's ``ndarray`` methods and attributes: which xdist's Array has."""
    import numpy as np

    import xdist

    names = [m for m in dir(np.ndarray) if not m.startswith("_")]
    have = [m for m in names if hasattr(xdist.Array, m)]
    lines = [
        "",
        "## NumPy's array methods",
        "",
        f"xdist's `Array` has {len(have)} of the {len(names)} public methods and attributes",
        "of NumPy's `ndarray`, each distributed with the same results at any number of ranks:",
        ", ".join(f"`{m}`" for m in have) + ".",
        "",
        "| `ndarray` | instead |",
        "|---|---|",
    ]
    for name in names:
        if name not in have:
            lines.append(f"| `{name}` | {MISSING_METHODS.get(name, 'missing')} |")
    return lines


def main(argv: list[str]) -> int:
    if argv[:1] == ["count"] and len(argv) > 1:
        count(argv[1:])
    elif argv == ["table"]:
        PAGE.write_text(table())
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
