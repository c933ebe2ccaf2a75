"""isclose, allclose and array_equal (xdist's extensions, NumPy's meaning) against NumPy on
the same global data: every layout (uneven and empty blocks), operands of one layout, of
another, NumPy operands and Python scalars, infinities and NaNs, dtypes, the one allreduce of
the Python bools (the same on every rank), and errors before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    SIZE,
    assert_equal,
    assert_same_on_every_rank,
    distribute,
    layouts,
    without_gathers,
)

import xdist


def pair(dtype="float64", shape=(7, 4), seed=0) -> tuple[np.ndarray, np.ndarray]:
    """``a`` and a ``b`` that is close to it in some places, far in others, with infinities
    and NaNs for floating dtypes."""
    rng = np.random.default_rng(seed)
    a = rng.integers(-5, 6, shape).astype(dtype)
    b = a.copy()
    if np.dtype(dtype).kind == "f":
        a = a * np.float64(1.5).astype(dtype)
        b = a + (rng.random(shape) < 0.4).astype(dtype) * np.asarray(1e-6).astype(dtype)
        b.flat[::5] += 1
        a.flat[[1, 2, 3]] = [np.inf, -np.inf, np.nan]
        b.flat[[1, 2, 3, 4]] = [np.inf, np.inf, np.nan, np.nan]
    else:
        b.flat[::3] += 1
    return a, b


def split_collectives(x: xdist.Array) -> Counter:
    """The one allreduce of a Python bool of a split array (none replicated or at one rank)."""
    return Counter() if x.split is None or SIZE == 1 else Counter(allreduce=1)


@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_isclose_matches_numpy(dtype, equal_nan):
    a, b = pair(dtype)
    for tol in ({}, {"rtol": 1e-3, "atol": 0.5}, {"rtol": 0, "atol": 0}):
        want = np.isclose(a, b, equal_nan=equal_nan, **tol)
        for case in layouts(a.shape):
            x, y = distribute(a, *case), distribute(b, *case)
            with xdist.count_collectives() as counts:
                got = without_gathers(xdist.isclose, x, y, equal_nan=equal_nan, **tol)
            assert counts == Counter()  # one layout: elementwise, no message
            assert got.split == x.split
            assert_equal(got, want)
            assert_equal(xdist.isclose(x, distribute(b, 1), equal_nan=equal_nan, **tol), want)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_isclose_with_numpy_operands_and_scalars(dtype):
    a, b = pair(dtype, seed=1)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        assert_equal(without_gathers(xdist.isclose, x, b), np.isclose(a, b))
        assert_equal(xdist.isclose(b, x), np.isclose(b, a))  # not symmetric
        assert_equal(xdist.isclose(x, b[0]), np.isclose(a, b[0]))  # broadcast row
        for s in (1, 1.5, 3.0000001, -2):
            assert_equal(xdist.isclose(x, s), np.isclose(a, s))
            assert_equal(xdist.isclose(s, x, atol=0.6), np.isclose(s, a, atol=0.6))
        # 0-d arrays as tolerances (np.testing.assert_allclose passes them through)
        zero_d = {"rtol": xdist.asarray(1e-3), "atol": np.asarray(0.5)}
        got = xdist.isclose(x, b, **zero_d)
        assert_equal(got, np.isclose(a, b, rtol=1e-3, atol=0.5))


@pytest.mark.parametrize("equal_nan", [False, True])
def test_allclose_matches_numpy(equal_nan):
    a, b = pair()
    finite = np.where(np.isfinite(a), a, 0.0)
    cases = [(a, b), (a, a), (finite, finite + 1e-9), (finite, finite + 1e-3), (a[:0], b[:0])]
    for u, v in cases:
        want = np.allclose(u, v, equal_nan=equal_nan)
        for case in layouts(u.shape):
            x, y = distribute(u, *case), distribute(v, *case)
            with xdist.count_collectives() as counts:
                got = without_gathers(xdist.allclose, x, y, equal_nan=equal_nan)
            assert type(got) is bool and got == want
            assert counts == split_collectives(x)
            assert_same_on_every_rank(got)
            assert xdist.allclose(x, v, equal_nan=equal_nan) == want


@pytest.mark.parametrize("equal_nan", [False, True])
def test_array_equal_matches_numpy(equal_nan):
    a, b = pair()
    i = np.arange(28).reshape(7, 4)
    cases = [(a, b), (a, a.copy()), (i, i.astype("float32")), (i, i + (i == 5)), (a[:0], a[:0])]
    for u, v in cases:
        want = np.array_equal(u, v, equal_nan=equal_nan)
        for case in layouts(u.shape):
            x = distribute(u, *case)
            with xdist.count_collectives() as counts:
                got = without_gathers(xdist.array_equal, x, distribute(v, *case), equal_nan)
            assert type(got) is bool and got == want
            assert counts == split_collectives(x)
            assert_same_on_every_rank(got)
            assert xdist.array_equal(x, v, equal_nan=equal_nan) == want
            assert xdist.array_equal(v, x, equal_nan=equal_nan) == want


def test_array_equal_of_different_shapes_is_false_with_no_message():
    a = np.arange(12.0).reshape(4, 3)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            assert xdist.array_equal(x, distribute(a.T.copy(), 0)) is False
            assert xdist.array_equal(x, a[:3]) is False
            assert xdist.array_equal(x, 1.0) is False
        assert counts == Counter()
    assert xdist.array_equal(distribute(np.array(2.0)), 2) is True


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.isclose(x, np.ones((3, 4))), ValueError, "isclose: shapes"),
        (lambda x: xdist.allclose(x, np.ones(3)), ValueError, "isclose: shapes"),
        (lambda x: xdist.isclose(x, x, rtol=np.ones(4)), NotImplementedError, "isclose: rtol"),
        (lambda x: xdist.isclose(x, x, atol=x), NotImplementedError, "isclose: atol"),
        (lambda x: xdist.isclose(x, x, equal_nan=1), TypeError, "isclose: equal_nan"),
        (lambda x: xdist.isclose(1.0, 2.0), TypeError, "isclose: a or b must be an xdist"),
        (lambda x: xdist.isclose(x, np.array(["a"])), TypeError, "isclose: b must have"),
        (lambda x: xdist.array_equal(x, x, equal_nan=None), TypeError, "array_equal: equal_nan"),
    ],
)
def test_bad_arguments_raise_before_any_message(call, exc, match):
    x = distribute(np.ones((7, 4)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
