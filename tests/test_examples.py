"""The examples run, collectively, at every rank count of the test command, and check their
own results against NumPy / scikit-learn on the whole data (they assert internally)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quickstart():
    load("quickstart").main()


def test_sklearn_pipeline():
    result = load("sklearn_pipeline").main()
    # the same R^2 at every rank count (the example compares with NumPy itself)
    assert result["r2"] == pytest.approx(0.763252, abs=1e-6)
