"""quantile, nanquantile and nanmedian (xdist's extensions, NumPy's meaning, linear method)
against NumPy bit for bit on the same global data: every layout (uneven and empty blocks),
axes kept and reduced, scalar and array q, NaNs and all-NaN lines, no gather of the data, and
NumPy's functions dispatching to them."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, defaulted, distribute, layouts, without_gathers

import xdist


def data(shape=(7, 4), nans=True, seed=0) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal(shape)
    if nans and a.ndim == 2:
        a[[1, 5], [0, 2]] = np.nan
        a[:, -1] = np.nan
    return a


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


QS = [0.5, [0.1, 0.9], np.array([0.0, 1.0, 0.37]), 0.25]
AXES = [None, 0, 1, (0, 1), -1]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantiles_match_numpy(name, axis, keepdims):
    for a in (data(), data(nans=False)):
        for q in QS:
            want = quiet(getattr(np, name), a, q, axis=axis, keepdims=keepdims)
            for case in layouts(a.shape):
                got = without_gathers(
                    getattr(xdist, name), distribute(a, *case), q, axis=axis, keepdims=keepdims
                )
                assert_equal(got, np.asarray(want))


@pytest.mark.parametrize("axis", AXES, ids=str)
def test_nanmedian_matches_numpy(axis):
    for a in (data(), data((8, 3), seed=1), data((2, 5), nans=False)):
        want = quiet(np.nanmedian, a, axis=axis)
        for case in layouts(a.shape):
            got = without_gathers(xdist.nanmedian, distribute(a, *case), axis=axis)
            assert_equal(got, np.asarray(want))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_dtypes(dtype):
    a = (data((9, 2), nans=False) * 10).astype(dtype)
    for q in (0.3, [0.3, 0.8]):
        want = np.quantile(a, q, axis=0)
        if dtype == "int32" and isinstance(q, float):  # the default floating dtype
            want = defaulted(want)
        for case in layouts(a.shape):
            assert_equal(xdist.quantile(distribute(a, *case), q, axis=0), want, rtol=1e-6)
    for case in layouts(a.shape):
        want = np.nanmedian(a, axis=0)
        want = defaulted(want) if dtype == "int32" else want
        assert_equal(xdist.nanmedian(distribute(a, *case), axis=0), want, rtol=1e-6)


def test_a_kept_split_axis_sends_nothing_and_stays_split():
    a = data((9, 5))
    x = distribute(a, 0)
    with xdist.count_collectives() as counts:
        got = xdist.nanquantile(x, [0.2, 0.7], axis=1)
    assert counts == Counter()
    assert got.split == 1 and got.counts == x.counts


def test_numpy_functions_dispatch():
    a = data()
    x = distribute(a, 0)
    for f, args in [(np.quantile, (0.3,)), (np.nanquantile, ([0.1, 0.6],)), (np.nanmedian, ())]:
        got = without_gathers(f, x, *args, axis=0)
        assert isinstance(got, xdist.Array)
        assert_equal(got, np.asarray(quiet(f, a, *args, axis=0)))


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"q": 1.5}, ValueError, "range \\[0, 1\\]"),
        ({"q": [[0.5]]}, ValueError, "scalar or 1-D"),
        ({"q": 0.5, "method": "nearest"}, ValueError, "only NumPy's 'linear'"),
        ({"q": 0.5, "axis": 2}, IndexError, "axis"),
    ],
)
def test_bad_arguments_raise_before_any_message(kwargs, exc, match):
    x = distribute(data(), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.quantile(x, kwargs.pop("q"), **kwargs)
    assert counts == Counter()
    with pytest.raises(ValueError, match="quantile: no values"):
        xdist.quantile(distribute(np.zeros((0, 3)), 0), 0.5, axis=0)


@pytest.mark.parametrize("shape,axis", [((0, 3), 0), ((4, 0), 1), ((4, 0), None), ((0, 0), 1)])
def test_nan_functions_over_no_values_are_nan(shape, axis):
    """Reduced axes of length 0: NaN lines, as NumPy's ``nan*`` functions give (``quantile``
    raises, as NumPy's); each rank fills its own lines, no message. A scalar ``q`` (NumPy's
    result keeps no axis for ``q`` here even where ``q`` is an array: its ``nanmean`` of the
    empty array)."""
    a = np.zeros(shape)
    for case in layouts(shape):
        x = distribute(a, *case)
        for keepdims in (False, True):
            with xdist.count_collectives() as counts:
                got = [
                    xdist.nanmedian(x, axis=axis, keepdims=keepdims),
                    xdist.nanquantile(x, 0.3, axis=axis, keepdims=keepdims),
                    xdist.nanpercentile(x, 30.0, axis=axis, keepdims=keepdims),
                ]
            assert counts == Counter()
            want = quiet(np.nanmedian, a, axis=axis, keepdims=keepdims)
            for g in got:
                assert_equal(g, np.asarray(want))
        lines = quiet(np.nanmean, a, axis=axis)
        got = xdist.nanquantile(x, [0.2, 0.7], axis=axis)
        assert_equal(got, np.stack([lines, lines]))
