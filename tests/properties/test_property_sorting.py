"""Property tests of ``sort`` and ``argsort`` against array-api-strict: random data with many
ties, NaN, infinities and signed zeros, every axis, both directions, stable sorts, and
random layouts (the split axis sorted too)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_strategies import REAL, check, distributed, shapes


def _elements(dtype: str):
    """Few distinct values (ties are the hard part of a distributed stable sort)."""
    kind = np.dtype(dtype).kind
    if kind == "b":
        return None
    if kind == "u":
        return st.integers(0, 4) | st.just(int(np.iinfo(dtype).max))
    if kind == "i":
        return st.integers(-3, 3) | st.just(int(np.iinfo(dtype).min))
    width = np.dtype(dtype).itemsize * 8
    edges = [0.0, -0.0, 1.0, -2.0, float("nan"), float("inf"), float("-inf")]
    return st.sampled_from(edges) | st.floats(-5, 5, width=width)


@pytest.mark.parametrize("func", ["sort", "argsort"])
@given(data=st.data())
def test_sort_argsort(func, data):
    dtype = data.draw(st.sampled_from(REAL))
    x = data.draw(distributed(dtype, shapes(min_dims=1, max_side=9), elements=_elements(dtype)))
    kwargs = {
        "axis": data.draw(st.integers(-x.ndim, x.ndim - 1)),
        "descending": data.draw(st.booleans()),
        "stable": True,  # an unstable argsort may order ties either way
    }
    if func == "sort":
        kwargs["stable"] = data.draw(st.booleans())
    check(func, x, **kwargs)
