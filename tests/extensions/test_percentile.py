"""percentile and nanpercentile (xdist's extensions, NumPy's meaning): quantile of q / 100,
against NumPy on the same global data at every layout, NumPy's arguments xdist does not take
refused by name before any message."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, distribute, layouts, without_gathers

import xdist


def data(dtype="float64", nans=True) -> np.ndarray:
    a = (np.random.default_rng(3).standard_normal((7, 4)) * 10).astype(dtype)
    if nans and a.dtype.kind == "f":
        a[[1, 5], [0, 2]] = np.nan
    return a


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)], ids=str)
@pytest.mark.parametrize("name", ["percentile", "nanpercentile"])
def test_percentiles_match_numpy(name, axis, keepdims):
    for a in (data(), data(nans=False)):
        for q in (50.0, [10, 90], np.array([0.0, 100.0, 37.5])):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = getattr(np, name)(a, q, axis=axis, keepdims=keepdims)
            for case in layouts(a.shape):
                got = without_gathers(
                    getattr(xdist, name), distribute(a, *case), q, axis=axis, keepdims=keepdims
                )
                assert_equal(got, np.asarray(want))


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_dtypes(dtype):
    a = data(dtype, nans=False)
    want = np.percentile(a, [25, 75], axis=0)
    for case in layouts(a.shape):
        assert_equal(xdist.percentile(distribute(a, *case), [25, 75], axis=0), want, rtol=1e-6)


def test_a_kept_split_axis_sends_nothing():
    x = distribute(data(), 0)
    with xdist.count_collectives() as counts:
        xdist.nanpercentile(x, [20, 70], axis=1)
    assert counts == Counter()


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"q": 150}, ValueError, r"range \[0, 100\]"),
        ({"q": 50, "method": "nearest"}, NotImplementedError, "percentile: method='nearest'"),
        ({"q": 50, "method": "bogus"}, ValueError, "percentile: method 'bogus'"),
        ({"q": 50, "out": np.zeros(4)}, NotImplementedError, "percentile: out="),
        ({"q": 50, "weights": np.ones(7)}, NotImplementedError, "percentile: weights="),
        ({"q": 50, "interpolation": "linear"}, TypeError, "percentile: interpolation="),
    ],
)
def test_bad_arguments_raise_before_any_message(kwargs, exc, match):
    x = distribute(data(), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.percentile(x, kwargs.pop("q"), axis=0, **kwargs)
    assert counts == Counter()
