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
