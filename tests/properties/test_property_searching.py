"""Property tests of the searching functions against array-api-strict: random data (NaN and
ties included), axes and layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_strategies import ALL, REAL, call, check, distributed, laid_out, shapes

# Few distinct values, so that ties (first occurrence wins) are common.
_TIES = st.integers(-3, 3)


def _elements(dtype: str):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return None
    if kind == "u":
        return st.integers(0, 3)
    if kind == "i":
        return _TIES
    width = np.dtype(dtype).itemsize * 8
    edges = [-1.0, 0.0, -0.0, 1.0, 2.5, float("nan"), float("inf")]
    return st.sampled_from(edges) | st.floats(-5, 5, width=width)


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@given(data=st.data())
def test_argmax_argmin(func, data):
    dtype = data.draw(st.sampled_from(REAL))
    x = data.draw(distributed(dtype, shapes(min_side=1), elements=_elements(dtype)))
    kwargs = {"keepdims": data.draw(st.booleans())}
    if x.ndim and data.draw(st.booleans()):
        kwargs["axis"] = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(func, x, **kwargs)


@given(data=st.data())
def test_count_nonzero(data):
    dtype = data.draw(st.sampled_from(ALL))
    x = data.draw(distributed(dtype, shapes(), elements=st.sampled_from([0, 0, 1])))
    axes = st.lists(st.integers(0, max(x.ndim - 1, 0)), unique=True, max_size=x.ndim).map(tuple)
    axis = data.draw(st.none() | (axes if x.ndim else st.just(())))
    check("count_nonzero", x, axis=axis, keepdims=data.draw(st.booleans()))


@given(data=st.data())
def test_nonzero(data):
    dtype = data.draw(st.sampled_from(ALL))
    x = data.draw(distributed(dtype, shapes(min_dims=1), elements=st.sampled_from([0, 0, 1])))
    check("nonzero", x)


@given(data=st.data())
def test_where(data):
    shapes3 = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=4))
    cond_shape, s1, s2 = shapes3.input_shapes
    condition = data.draw(distributed("bool", cond_shape))
    dtype = data.draw(st.sampled_from(ALL))
    x1 = data.draw(distributed(dtype, s1))
    x2 = data.draw(distributed(dtype, s2))
    if data.draw(st.booleans()):  # a Python scalar for one branch (2024.12)
        x2 = {"b": True, "i": 1, "u": 1, "f": 0.5, "c": 1j}[x1.dtype.kind]
    check("where", condition, x1, x2)


@given(data=st.data())
def test_searchsorted(data):
    dtype = data.draw(st.sampled_from(REAL))
    x1 = data.draw(distributed(dtype, shapes(1, 1, max_side=9), elements=_elements(dtype)))
    x1 = call("sort", x1)
    x2 = data.draw(distributed(dtype, shapes(max_dims=2), elements=_elements(dtype)))
    side = data.draw(st.sampled_from(["left", "right"]))
    kwargs = {"side": side}
    if data.draw(st.booleans()) and x1.shape[0]:
        order = np.argsort(data.draw(hnp.arrays(np.int8, x1.shape)), kind="stable")
        values = x1.to_numpy()[order]
        unsorted = data.draw(laid_out(values))
        kwargs["sorter"] = data.draw(laid_out(np.argsort(values, kind="stable")))
        check("searchsorted", unsorted, x2, **kwargs)
        return
    check("searchsorted", x1, x2, side=side)
