"""docs/numpy-coverage.md is what conformance/numpy_coverage.py writes from the checked-in
call counts and the xdist of this checkout: a name that gains or loses an implementation, or
a hint, shows on the page or this test fails. Every NumPy name in the table that xdist does
not have raises an ``AttributeError`` that says what to use instead."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "numpy_coverage", ROOT / "conformance" / "numpy_coverage.py"
)
coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage)

TOP = list(json.loads(coverage.USAGE.read_text())["calls"])[: coverage.TOP]


def test_page_is_current():
    page = coverage.PAGE.read_text()
    assert page == coverage.table(), (
        "docs/numpy-coverage.md is out of date: run python conformance/numpy_coverage.py table"
    )


@pytest.mark.parametrize("name", TOP)
def test_every_missing_name_has_a_hint(name):
    kind, use = coverage.status(name)
    if kind in ("missing", "standard, other name"):
        _, error = coverage._lookup(name)
        assert ";" in error and len(error.split(";", 1)[1].strip()) > 10, (
            f"xdist's AttributeError for {name!r} gives no hint: {error!r}"
        )


def test_counts_rank_the_names():
    calls = list(json.loads(coverage.USAGE.read_text())["calls"].values())
    assert len(calls) >= coverage.TOP and calls == sorted(calls, reverse=True)


def test_aliases_name_standard_functions():
    for numpy_name, standard in coverage.STANDARD_NAMES.items():
        assert coverage._standard(standard), (numpy_name, standard)
        assert not coverage._standard(numpy_name) or numpy_name == standard, numpy_name


def test_every_ndarray_method_is_on_array_or_says_why():
    import numpy as np

    import xdist

    names = {m for m in dir(np.ndarray) if not m.startswith("_")}
    missing = {m for m in names if not hasattr(xdist.Array, m)}
    reasons = set(coverage.MISSING_METHODS)
    assert missing <= reasons, f"ndarray members without a reason: {sorted(missing - reasons)}"
    assert not reasons & (names - missing), (
        f"members xdist's Array has, still given a reason: {sorted(reasons & (names - missing))}"
    )
