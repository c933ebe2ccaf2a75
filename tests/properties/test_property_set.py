"""Property tests of the set functions against array-api-strict: random data with repeats,
NaN (each NaN its own value) and signed zeros, and random layouts. The standard leaves the
order of the unique values unspecified; xdist and array-api-strict both sort them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_strategies import INTEGER, REAL, check, compare, distributed, shapes

import xdist


def _elements(dtype: str):
    kind = np.dtype(dtype).kind
    if kind in "iu":
        return st.integers(0, 5)
    if kind == "c":
        return st.sampled_from([0j, 1 + 1j, 1j, 2.0 + 0j])
    width = np.dtype(dtype).itemsize * 8
    return st.sampled_from([0.0, -0.0, 1.0, 2.5, float("inf")]) | st.floats(-3, 3, width=width)


@pytest.mark.parametrize("func", ["unique_values", "unique_counts", "unique_inverse", "unique_all"])
@given(data=st.data())
def test_unique(func, data):
    dtype = data.draw(st.sampled_from(REAL))
    x = data.draw(distributed(dtype, shapes(max_side=7), elements=_elements(dtype)))
    check(func, x)


@given(data=st.data())
def test_unique_values_with_nan_and_complex(data):
    """NaN values are distinct from each other: each one is a unique value of its own."""
    dtype = data.draw(st.sampled_from(["float64", "complex128"]))
    elements = _elements(dtype)
    if dtype == "float64":
        elements = elements | st.just(float("nan"))
    x = data.draw(distributed(dtype, shapes(max_dims=2, max_side=7), elements=elements))
    check("unique_values", x)


@given(data=st.data())
def test_isin(data):
    """2025.12. The oracle is NumPy: array-api-strict 2.6.1's isin ignores ``invert``."""
    dtype = data.draw(st.sampled_from(INTEGER))
    x1 = data.draw(distributed(dtype, shapes(max_dims=2), elements=st.integers(0, 6)))
    x2 = data.draw(distributed(dtype, shapes(max_dims=2), elements=st.integers(0, 6)))
    invert = data.draw(st.booleans())
    expected = np.isin(x1.to_numpy(), x2.to_numpy(), invert=invert)
    compare(xdist.isin(x1, x2, invert=invert), expected)
