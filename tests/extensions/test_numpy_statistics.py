"""average and ptp (xdist's extensions, NumPy's meaning) against NumPy on the same global data
at every layout; what they send over the split axis; errors before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    DEFAULTS,
    assert_equal,
    defaulted,
    distribute,
    layouts,
    require_dtypes,
    without_gathers,
)

import xdist


def data(dtype="float64", shape=(7, 4), seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 100, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 5).astype(dtype)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1), -1], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8"])
def test_ptp_matches_numpy(dtype, axis, keepdims):
    require_dtypes(dtype)
    a = data(dtype)
    if dtype == "int16":
        a[0, 0] = -30000  # a range past int16: wraps as NumPy's does
        a[-1, -1] = 30000
    want = np.ptp(a, axis=axis, keepdims=keepdims)
    for case in layouts(a.shape):
        got = without_gathers(xdist.ptp, distribute(a, *case), axis=axis, keepdims=keepdims)
        assert_equal(got, np.asarray(want))


def test_ptp_propagates_nan_and_sends_one_allreduce():
    a = data()
    a[2, 1] = np.nan
    for case in layouts(a.shape):
        assert_equal(xdist.ptp(distribute(a, *case), axis=0), np.ptp(a, axis=0))
    x = distribute(a, 0)
    with xdist.count_collectives() as counts:
        xdist.ptp(x, axis=0)
    assert counts == (Counter(allreduce=1) if x.comm.size > 1 else Counter())
    with xdist.count_collectives() as counts:
        xdist.ptp(x, axis=1)
    assert counts == Counter()


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_average_unweighted(dtype, axis, keepdims):
    a = data(dtype)
    want, count = np.average(a, axis=axis, returned=True, keepdims=keepdims)
    if dtype == "int32":
        want, count = defaulted(want), defaulted(count)
    for case in layouts(a.shape):
        got, scl = without_gathers(
            xdist.average, distribute(a, *case), axis=axis, returned=True, keepdims=keepdims
        )
        assert_equal(got, want, rtol=1e-6 if got.dtype == np.float32 else 1e-12)
        assert_equal(scl, np.broadcast_to(count, want.shape).astype(want.dtype))


@pytest.mark.parametrize("axis", [None, 0, 1], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_average_weighted_like_a(dtype, axis):
    a = data(dtype)
    w = data("float64", seed=1) ** 2
    want, scl = np.average(a, axis=axis, weights=w, returned=True)
    for case in layouts(a.shape):
        for wcase in (case, (None, None)):
            got, total = without_gathers(
                xdist.average,
                distribute(a, *case),
                axis=axis,
                weights=distribute(w, *wcase),
                returned=True,
            )
            assert_equal(got, np.asarray(want), rtol=1e-12)
            assert_equal(total, np.asarray(scl), rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_average_weighted_along_an_axis(axis):
    a = data()
    w = np.arange(1.0, a.shape[axis] + 1)
    want = np.average(a, axis=axis, weights=w, keepdims=True)
    for case in layouts(a.shape):
        got = xdist.average(distribute(a, *case), axis=axis, weights=w, keepdims=True)
        assert_equal(got, want, rtol=1e-12)


def test_average_int_weights_default_dtype():
    a = data("int32")
    w = data("int32", seed=2) + 1
    want = defaulted(np.average(a, axis=0, weights=w))
    got = xdist.average(distribute(a, 0), axis=0, weights=distribute(w, 0))
    assert got.dtype == DEFAULTS["real floating"]
    assert_equal(got, want, rtol=1e-6)


def test_average_weighted_sends_one_allreduce():
    a, w = data(), data(seed=1) ** 2
    x, wx = distribute(a, 0), distribute(w, 0)
    for axis in (0, 1):  # the sums over the split axis; the zero check of a split result
        with xdist.count_collectives() as counts:
            xdist.average(x, axis=axis, weights=wx)
        assert counts == (Counter(allreduce=1) if x.comm.size > 1 else Counter())


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"weights": np.ones(4)}, TypeError, "axis must be given"),
        ({"weights": np.ones(5), "axis": 1}, ValueError, "5 weights do not fit axis 1"),
        ({"weights": np.ones((2, 2)), "axis": 0}, TypeError, "1-D weights expected"),
        ({"weights": np.ones(4), "axis": (0, 1)}, NotImplementedError, "an int axis"),
        ({"axis": 3}, IndexError, "axis"),
        ({"returned": 1}, TypeError, "returned must be a bool"),
    ],
)
def test_average_bad_arguments(kwargs, exc, match):
    x = distribute(data(), 0)
    with xdist.config_context(check_replicated=False), xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.average(x, **kwargs)
    assert counts == Counter()


def test_average_zero_weights_raise_on_every_rank():
    a = data()
    with pytest.raises(ZeroDivisionError, match="average: the weights sum to zero"):
        xdist.average(distribute(a, 0), axis=0, weights=distribute(np.zeros_like(a), 0))


def test_ptp_bad_arguments():
    x = distribute(data(), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(TypeError, match="ptp: x must have a real numeric dtype"):
            xdist.ptp(x > 0)
        with pytest.raises(ValueError, match="ptp: zero-size reduction"):
            xdist.ptp(distribute(np.zeros((0, 3)), 0), axis=0)
        with pytest.raises(NotImplementedError, match="ptp: out="):
            xdist.ptp(x, out=np.zeros(4))
    assert counts == Counter()
