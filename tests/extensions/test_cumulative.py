"""cumsum and cumprod (xdist's extensions under NumPy's names) against NumPy on the same
global data: axis=None (the flattened array) and every axis, every layout (uneven and empty
blocks), NumPy's dtypes, the flatten of a split array without a gather, the collectives, and
errors before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, without_gathers

import xdist

FUNCS = ["cumsum", "cumprod"]


def data(dtype: str, shape=(7, 3)) -> np.ndarray:
    """Small integers (exact in any order of summation), in ``dtype``."""
    a = np.random.default_rng(0).integers(-2, 3, shape)
    return (a > 0) if dtype == "bool" else a.astype(dtype)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int64", "bool"])
@pytest.mark.parametrize("name", FUNCS)
def test_matches_numpy(name, dtype, axis):
    a = data(dtype)
    want = getattr(np, name)(a, axis=axis)
    for case in layouts(a.shape):
        got = without_gathers(getattr(xdist, name), distribute(a, *case), axis=axis)
        assert_equal(got, want)


@pytest.mark.parametrize("name", FUNCS)
def test_other_shapes(name):
    for a in (data("float64", (2, 3, 2)), data("int64", (5,)), np.zeros((0, 3)), np.array(2.0)):
        want = getattr(np, name)(a)
        for case in layouts(a.shape):
            assert_equal(without_gathers(getattr(xdist, name), distribute(a, *case)), want)


@pytest.mark.parametrize("name", FUNCS)
def test_dtype_in_numpy_spellings(name):
    a = data("int32")
    for dtype in (float, "float32", np.int64):
        want = getattr(np, name)(a, axis=0, dtype=dtype)
        for case in layouts(a.shape):
            assert_equal(getattr(xdist, name)(distribute(a, *case), axis=0, dtype=dtype), want)


def test_collectives():
    """axis=None flattens locally when split along the first axis, with one all-to-all
    when split along another; the scan along the split axis is one exscan."""
    a = data("float64")
    for split, moves in ((None, Counter()), (0, Counter()), (1, Counter(alltoallv=1))):
        x = distribute(a, split)
        with xdist.count_collectives() as counts:
            xdist.cumsum(x)
        scan = Counter() if split is None else Counter(exscan=1)
        assert counts == (Counter() if SIZE == 1 else moves + scan)
    with xdist.count_collectives() as counts:
        xdist.cumprod(distribute(a, 0), axis=1)
    assert counts == Counter()


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"out": np.empty(21)}, NotImplementedError, "cumsum: the argument out"),
        ({"axis": 2}, IndexError, "cumsum: axis 2 is out of bounds"),
        ({"axis": 1.0}, TypeError, "cumsum: axis must be an int"),
        ({"dtype": "bool"}, TypeError, "cumsum: dtype must have a numeric dtype"),
        ({"dtype": "float16"}, TypeError, "cumsum: dtype must be a dtype of the standard"),
    ],
)
def test_bad_arguments_raise_before_any_message(kwargs, exc, match):
    x = distribute(data("float64"), 1)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.cumsum(x, **kwargs)
        with pytest.raises(TypeError, match="cumprod: a must be an xdist array"):
            xdist.cumprod(np.ones(3))
    assert counts == Counter()
