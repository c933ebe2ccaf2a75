"""Property tests of the statistical functions: random axes (tuples included), keepdims,
dtypes and layouts, against array-api-strict. Sums are compared with a tolerance that
allows the ranks' partial sums to be added in another order."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import UNSUPPORTED
from hypothesis import assume, given
from hypothesis import strategies as st
from property_strategies import (
    COMPLEX,
    NUMERIC,
    REAL,
    REAL_FLOAT,
    call,
    compare,
    distributed,
    oracle,
    shapes,
)

_BOUND = 100.0
# Unsigned sums and products accumulate in uint64, which Torch lacks (a library limitation).
_ACCUMULABLE = tuple(d for d in NUMERIC if "uint64" not in UNSUPPORTED or d[0] != "u")


def _values(dtype: str, bound: float = _BOUND):
    """Finite values within ``bound`` for floats (sums of them cannot overflow); any value
    for integers (their wrap-around does not depend on the order of the sum)."""
    kind = np.dtype(dtype).kind
    width = np.dtype(dtype).itemsize * 8
    if kind == "f":
        return st.floats(-bound, bound, width=width)
    if kind == "c":
        part = st.floats(-bound, bound, width=width // 2)
        return st.builds(complex, part, part)
    return None


@st.composite
def _axis(draw, ndim: int):
    """None, one axis (negative ones too) or a tuple of distinct axes in any order."""
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return draw(st.none() | one | several)


def _tolerances(x, func: str) -> dict:
    eps = float(np.finfo(x.dtype).eps) if x.dtype.kind in "fc" else 0.0
    n = max(x.size, 1)
    atol = {"sum": n * eps * _BOUND, "mean": eps * _BOUND * 4, "var": n * eps * _BOUND**2}
    scale = atol.get(func, 0.0)
    if func == "std":
        scale = math.sqrt(n * eps) * _BOUND
    return {"rtol": 8 * eps, "atol": 4 * scale}


@pytest.mark.parametrize("func", ["sum", "prod"])
@given(data=st.data())
def test_sum_prod(func, data):
    dtype = data.draw(st.sampled_from(_ACCUMULABLE))
    bound = 2.0 if func == "prod" else _BOUND
    x = data.draw(distributed(dtype, shapes(), elements=_values(dtype, bound)))
    axis = data.draw(_axis(x.ndim))
    kwargs = {"axis": axis, "keepdims": data.draw(st.booleans())}
    if data.draw(st.booleans()):  # an accumulator of at least x's size
        wider = {"f": REAL_FLOAT, "c": COMPLEX, "i": ("int64",), "u": ("uint64",)}
        kwargs["dtype"] = np.dtype(data.draw(st.sampled_from(wider[np.dtype(dtype).kind])))
        assume(np.dtype(kwargs["dtype"]).itemsize >= np.dtype(dtype).itemsize)
    compare(call(func, x, **kwargs), oracle(func, x, **kwargs), **_tolerances(x, "sum"))


@pytest.mark.parametrize("func", ["min", "max"])
@given(data=st.data())
def test_min_max(func, data):
    """NaN propagates; an empty reduction is an error."""
    x = data.draw(distributed(data.draw(st.sampled_from(REAL)), shapes()))
    axis = data.draw(_axis(x.ndim))
    keepdims = data.draw(st.booleans())
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    if math.prod(x.shape[a] for a in axes) == 0:
        with pytest.raises(ValueError, match=f"^{func}: "):
            call(func, x, axis=axis, keepdims=keepdims)
        return
    compare(
        call(func, x, axis=axis, keepdims=keepdims), oracle(func, x, axis=axis, keepdims=keepdims)
    )


@given(data=st.data())
def test_mean(data):
    dtype = data.draw(st.sampled_from(REAL_FLOAT + COMPLEX))
    x = data.draw(distributed(dtype, shapes(), elements=_values(dtype)))
    kwargs = {"axis": data.draw(_axis(x.ndim)), "keepdims": data.draw(st.booleans())}
    compare(call("mean", x, **kwargs), oracle("mean", x, **kwargs), **_tolerances(x, "mean"))


@pytest.mark.parametrize("func", ["var", "std"])
@given(data=st.data())
def test_var_std(func, data):
    dtype = data.draw(st.sampled_from(REAL_FLOAT))
    x = data.draw(distributed(dtype, shapes(), elements=_values(dtype)))
    kwargs = {
        "axis": data.draw(_axis(x.ndim)),
        "keepdims": data.draw(st.booleans()),
        "correction": data.draw(st.sampled_from([0, 1, 0.5, 2.0])),
    }
    compare(call(func, x, **kwargs), oracle(func, x, **kwargs), **_tolerances(x, func))


@pytest.mark.parametrize("func", ["cumulative_sum", "cumulative_prod"])
@given(data=st.data())
def test_cumulative(func, data):
    dtype = data.draw(st.sampled_from(_ACCUMULABLE))
    bound = 2.0 if func == "cumulative_prod" else _BOUND
    x = data.draw(distributed(dtype, shapes(min_dims=1), elements=_values(dtype, bound)))
    kwargs = {"include_initial": data.draw(st.booleans())}
    if x.ndim > 1 or data.draw(st.booleans()):
        kwargs["axis"] = data.draw(st.integers(-x.ndim, x.ndim - 1))
    compare(call(func, x, **kwargs), oracle(func, x, **kwargs), **_tolerances(x, "sum"))
