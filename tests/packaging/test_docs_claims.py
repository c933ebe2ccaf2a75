"""What the documentation says of the product as a whole stays true: the edition of the
standard that the front pages name is the one xdist follows by default, and the version of
the package they name is the code's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import xdist
from xdist._config import API_VERSIONS

ROOT = Path(__file__).resolve().parents[2]
FRONT = ["README.md", "docs/index.rst", "docs/api/index.rst"]


@pytest.mark.parametrize("page", FRONT)
def test_the_front_pages_name_the_default_edition(page):
    text = (ROOT / page).read_text()
    first = re.search(r"\((\d{4}\.\d{2})[),]", text)
    assert first is not None, f"{page} does not name the standard's edition"
    assert first.group(1) == API_VERSIONS[-1] == xdist.__array_api_version__, (
        f"{page} names the standard {first.group(1)}; xdist follows {API_VERSIONS[-1]}"
    )


def test_every_version_the_docs_name_is_the_code_s():
    named = {
        m.group(1)
        for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
        if "_build" not in page.parts
        for m in re.finditer(r"xdist(?:-array)?[ =]=?\s?(\d+\.\d+\.\d+\S*)", page.read_text())
    }
    assert named == {xdist.__version__}, (
        f"the docs name xdist {sorted(named)}; the code is {xdist.__version__}"
    )


# The docs describe the product as it is; how it got there belongs in git. These phrases
# mark a lab notebook: tracker numbers, the words of a working session, xdist's commits,
# and the dates and times of runs. A third-party suite pinned at a commit says how to
# reproduce a number, so a hash next to its name is allowed.
HISTORY = [
    ("a tracker number", re.compile(r"\bissues? #?\d+\b|(?<![\w/.&-])#\d+\b", re.IGNORECASE)),
    (
        "a session's words",
        re.compile(
            r"\b(?:this|that|the|last|previous|next) stop(?: before)?\b|\bstop before\b"
            r"|\bsessions?\b|\b(?:before|after|since|in) this (?:change|work|run)\b"
            r"|\bthis change\b",
            re.IGNORECASE,
        ),
    ),
    (
        "a commit",
        re.compile(
            r"(?:\b(?:main|xdist|commit)(?: at)? `?|`)"
            r"(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?:-dirty)?\b`?"
        ),
    ),
    (
        "a diary date",
        re.compile(
            r"\b20\d\d-[01]\d-[0-3]\d(?: [0-2]\d:[0-5]\d(?:-[0-2]\d:[0-5]\d)?(?: UTC)?)?\b"
            r"|\b[0-2]\d:[0-5]\d(?:-[0-2]\d:[0-5]\d)? UTC\b"
        ),
    ),
]
THIRD_PARTY_PINS = ("array-api-tests", "array-api` submodule")


def doc_pages():
    pages = [ROOT / "README.md"]
    pages += [p for p in (ROOT / "docs").rglob("*") if p.suffix in (".md", ".rst")]
    return sorted(p.relative_to(ROOT).as_posix() for p in pages if "_build" not in p.parts)


def history_phrases(text):
    """(line, phrase, kind) for each mark of a lab notebook in ``text``, outside fenced code
    blocks (code may hold any date or number)."""
    prose, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            line = ""
        prose.append("" if fenced else line)
    body = "\n".join(prose)
    found = []
    for kind, pattern in HISTORY:
        for m in pattern.finditer(body):
            before = body[max(0, m.start() - 120) : m.start()]
            if kind == "a commit" and any(name in before for name in THIRD_PARTY_PINS):
                continue
            found.append((body.count("\n", 0, m.start()) + 1, m.group(0), kind))
    return sorted(set(found))


@pytest.mark.parametrize("page", doc_pages())
def test_the_docs_describe_the_product_not_its_history(page):
    found = history_phrases((ROOT / page).read_text())
    assert not found, "\n".join(
        f"{page}:{line}: {phrase!r} ({kind})" for line, phrase, kind in found
    )


@pytest.mark.parametrize(
    "planted",
    [
        "The four workloads of issue #18 run here.",
        "Fixed in #42.",
        "This stop measured it again.",
        "The stop before gave 0.8.",
        "Not re-run: the session's device time ran out.",
        "Measured on main `8713e44`.",
        "xdist at 1fb9a67-dirty printed it.",
        "The run at xdist `2bf2d97` (load 1.3).",
        "### All four again, 2026-11-26 14:03 UTC",
        "the run of 16:48 UTC",
        "It was 2.6x before this change.",
    ],
)
def test_the_history_check_finds_a_planted_phrase(planted):
    text = f"# A page\n\nSome prose.\n{planted}\n"
    assert [line for line, _, _ in history_phrases(text)] == [4], planted


def test_the_history_check_lets_pass_what_is_no_history():
    text = "\n".join(
        [
            "array-api-tests at commit `55fcc60` (its `array-api` submodule at the 2025.12",
            "release `5f847a3`), NumPy 2.4.6, 2 cores; see data-apis/array-api-tests#106.",
            "Implicit gathers issue an `xdist.GatherWarning`; `x[3]` takes 3.0 us.",
            "```python",
            'time = np.arange("2020-01-01", "2022-01-01")  # issue #1 in code is code',
            "```",
            "start, stop = y.layout.local_range(rank); the colour `#1f77b4`.",
        ]
    )
    assert history_phrases(text) == []
