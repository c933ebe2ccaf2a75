"""Property tests of the utility functions (``all``, ``any``, ``diff``) against
array-api-strict, over random axes, dtypes and layouts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_strategies import ALL, NUMERIC, check, distributed, shapes


@st.composite
def _axis(draw, ndim: int):
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return draw(st.none() | st.integers(-ndim, ndim - 1) | several)


@pytest.mark.parametrize("func", ["all", "any"])
@given(data=st.data())
def test_all_any(func, data):
    """Any dtype; nonzero and NaN are true."""
    dtype = data.draw(st.sampled_from(ALL))
    sparse = st.sampled_from([0, 0, 0, 1]) if dtype != "bool" else st.booleans()
    elements = data.draw(st.sampled_from([None, sparse]))
    if elements is not None and dtype in ("complex64", "complex128"):
        elements = elements.map(complex)
    x = data.draw(distributed(dtype, shapes(), elements=elements))
    check(func, x, axis=data.draw(_axis(x.ndim)), keepdims=data.draw(st.booleans()))


@given(data=st.data())
def test_diff(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x = data.draw(distributed(dtype, shapes(min_dims=1, max_dims=3, max_side=7), finite=True))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    # n >= 1: with n=0 NumPy (so array-api-strict) ignores prepend/append, where the standard
    # gives them (M + N1 + N2 - n elements).
    kwargs = {"axis": axis, "n": data.draw(st.integers(1, 3))}
    for side in ("prepend", "append"):
        if data.draw(st.booleans()):
            shape = list(x.shape)
            shape[axis] = data.draw(st.integers(0, 3))
            kwargs[side] = data.draw(distributed(dtype, tuple(shape), finite=True))
    check("diff", x, **kwargs)
