"""The documentation stays true to the code.

- Every public name has an entry in the API reference's registry
  (``docs/_ext/xdist_reference.py``: what it communicates and a runnable example), and every
  entry names something public and has a place on a page.
- Every registry example runs (all in this process, at every rank count of the test command),
  and at 3 ranks sends exactly the collectives its entry shows.
- Every Python code block of ``docs/`` and ``README.md`` runs, at every rank count under the
  NumPy backend (the blocks of one page in order, in one namespace, as a reader would paste
  them). Fenced blocks carry a
  language; only ``python`` blocks run: shell commands and Slurm scripts are ``bash`` or
  ``console``, pictures and output ``text``. ``NOT_RUN`` names the Python blocks that must not.
- The site builds with warnings as errors (once per test command: NumPy backend, one rank).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from docs_examples import run_reference_examples, shared_directory, xdist_reference
from helpers import BACKEND, SIZE, UNSUPPORTED

import xdist

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(
    [ROOT / "README.md", *DOCS.rglob("*.md"), *DOCS.rglob("*.rst")],
    key=lambda p: str(p.relative_to(ROOT)),
)
PAGES = [p for p in PAGES if "_build" not in p.parts]

# Python blocks that must not run, by page and first line (keep this short).
NOT_RUN = {
    # the wrong way to plot, shown as such: it hangs at more than one rank
    ("docs/guide/plotting.md", "# WRONG: hangs. Only rank 0 enters the gather inside plt.scatter; "
     "the others never do."),
}  # fmt: skip


def test_every_public_name_has_an_entry():
    public = set(xdist_reference.public_names())
    registered = set(xdist_reference.REFERENCE)
    missing = sorted(public - registered)
    assert not missing, (
        f"public names without an entry in docs/_ext/xdist_reference.py: {missing}; add each "
        "with what it communicates and a runnable example"
    )
    stale = sorted(registered - public)
    assert not stale, f"docs/_ext/xdist_reference.py has entries for names that are gone: {stale}"


def test_every_entry_is_on_one_page():
    placed = [n for names in xdist_reference.sections().values() for n in names]
    assert sorted(placed) == sorted(xdist_reference.REFERENCE)


def test_notes_that_say_none_show_no_message():
    """A note that starts "None." or "None:" (nothing at all, not "None over axes that are not
    split ...") goes with an example that sends nothing."""
    loud = {
        name: entry.sends
        for name, entry in xdist_reference.REFERENCE.items()
        if re.match(r"None[.:]", entry.comm) and entry.sends
    }
    assert not loud, f"notes that say None but whose examples send: {loud}"


def _unsupported(entry) -> bool:
    """An example using a dtype this backend lacks (uint16/32/64 under Torch)."""
    return any(re.search(rf"\bxp\.{d}\b", entry.example) for d in UNSUPPORTED)


def test_reference_examples():
    results = run_reference_examples()
    failed = {
        name: f"{type(err).__name__}: {err}"
        for name, (err, _) in results.items()
        if err is not None and not _unsupported(xdist_reference.REFERENCE[name])
    }
    assert not failed, f"examples of docs/_ext/xdist_reference.py that raise: {failed}"
    if SIZE == 3:
        shown = {n: e.sends for n, e in xdist_reference.REFERENCE.items()}
        wrong = {
            name: {"measured": dict(counts), "shown": shown[name]}
            for name, (err, counts) in results.items()
            if err is None and dict(counts) != shown[name]
        }
        assert not wrong, (
            "what these examples send at 3 ranks differs from their entries in "
            f"docs/_ext/xdist_reference.py (fix the entry's sends, and its note if the rule "
            f"changed): {wrong}"
        )


# -- code blocks of the pages --------------------------------------------------------------
_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*(\{[^}]*\}|[^\s`]*)")
_RST = re.compile(r"^(\s*)\.\. code-block::\s*(\S*)")


def code_blocks(path: Path) -> list[tuple[int, str, str]]:
    """``(line, language, code)`` of each code block of a markdown or reST page."""
    lines = path.read_text().splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i]) if path.suffix == ".md" else _RST.match(lines[i])
        if m is None:
            i += 1
            continue
        start = i + 1
        if path.suffix == ".md":
            indent, fence, lang = m.groups()
            j = start
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            body = [ln[len(indent) :] for ln in lines[start:j]]
        else:
            indent, lang = m.groups()
            j = start
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith(indent + " ")):
                j += 1
            body = [ln for ln in lines[start:j] if not ln.strip().startswith(":")]
            pad = min((len(ln) - len(ln.lstrip()) for ln in body if ln.strip()), default=0)
            body = [ln[pad:] for ln in body]
        blocks.append((start, lang, "\n".join(body).strip("\n") + "\n"))
        i = j + 1
    return blocks


def test_every_block_says_its_language():
    bare = [
        f"{p.relative_to(ROOT)}:{line}"
        for p in PAGES
        for line, lang, _ in code_blocks(p)
        if not lang
    ]
    assert not bare, (
        f"code blocks without a language: {bare}; write python (it runs in the tests), bash or "
        "console (commands), or text (pictures, output)"
    )


@contextlib.contextmanager
def _restored_settings():
    """The pages change settings as a user would (scikit-learn's dispatch, xdist's config,
    warning filters); the tests after them must not see it."""
    before = xdist.get_config()
    sk = importlib.util.find_spec("sklearn") is not None
    if sk:
        import sklearn

        sk_before = sklearn.get_config()
    try:
        with warnings.catch_warnings():
            yield
    finally:
        xdist.set_config(**{f: getattr(before, f) for f in before.__dataclass_fields__})
        if sk:
            sklearn.set_config(**sk_before)


_RUN = [p for p in PAGES if any(lang in ("python", "py") for _, lang, _ in code_blocks(p))]


@pytest.mark.skipif(
    BACKEND.name != "numpy",
    reason="the pages are written for the default backend (NumPy) and run under it at every "
    "rank count; the registry's examples run under every backend",
)
@pytest.mark.parametrize("page", _RUN, ids=[str(p.relative_to(ROOT)) for p in _RUN])
def test_code_blocks_run(page, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "Agg")
    space: dict = {"__name__": "__main__"}
    rel = str(page.relative_to(ROOT))
    with shared_directory(), _restored_settings():
        for line, lang, code in code_blocks(page):
            if lang not in ("python", "py") or (rel, code.splitlines()[0]) in NOT_RUN:
                continue
            try:
                exec(compile(code, f"{rel}:{line}", "exec"), space)
            except Exception as exc:
                raise AssertionError(f"the code block at {rel}:{line} raises {exc!r}") from exc
    if "plt" in space:
        space["plt"].close("all")


# -- the site --------------------------------------------------------------------------------
@pytest.mark.skipif(
    SIZE > 1 or BACKEND.name != "numpy",
    reason="the site is built once per test command: NumPy backend, one rank",
)
@pytest.mark.time_limit(600)  # the build runs the examples of the gallery
def test_site_builds_with_warnings_as_errors(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra: pip install -e '.[docs]'")
    for module in ("pydata_sphinx_theme", "numpydoc", "myst_parser"):
        pytest.importorskip(module, reason="the docs extra: pip install -e '.[docs]'")
    env = dict(os.environ, XDIST_COMM="self")
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(DOCS), str(tmp_path / "html"), "-d", str(tmp_path / "doctrees")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    took = time.monotonic() - start
    assert done.returncode == 0, f"sphinx-build -W failed:\n{done.stdout}\n{done.stderr}"
    print(f"site built in {took:.0f} s")
    html = "".join(p.read_text() for p in (tmp_path / "html" / "api").glob("*.html"))
    missing = [
        name
        for name in xdist_reference.REFERENCE
        if f'id="{name}"' not in html and f'id="module-{name}"' not in html
    ]
    assert not missing, f"reference entries missing from the built pages: {missing}"
    assert html.count("Communication</p>") >= len(xdist_reference.REFERENCE)
    assert np.all([(tmp_path / "html" / f).exists() for f in ("index.html", "benchmarks.html")])
