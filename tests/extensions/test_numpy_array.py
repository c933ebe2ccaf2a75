"""array (xdist's extension, NumPy's constructor) against NumPy: data and xdist arrays,
NumPy's copy semantics (True copies, None only when needed, False raises when a copy is
needed), dtype spellings, ndmin (the split moves with its axis), and the NumPy arguments
refused before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, defaulted, distribute, layouts

import xdist


def test_from_data_matches_numpy():
    for obj in ([[1, 2], [3, 4]], np.arange(6.0).reshape(2, 3), 3.5, [True, False]):
        want = np.array(obj)
        got = xdist.array(obj)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got.to_numpy(), want)
    assert_equal(xdist.array([1, 2, 3], float), np.array([1, 2, 3], float))
    assert_equal(xdist.array([1, 2, 3], dtype="float32"), np.array([1, 2, 3], "float32"))


def test_data_is_copied():
    a = np.arange(6.0)
    x = xdist.array(a)
    a[0] = 99.0
    assert x.to_numpy()[0] == 0.0


def test_from_an_xdist_array():
    a = np.arange(12.0).reshape(4, 3)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            y = xdist.array(x)  # copy=True: a new array, laid out as x
            z = xdist.array(x, copy=None)  # nothing needed: x itself
        assert counts == Counter()
        assert y is not x and y._layout == x._layout and z is x
        y[...] = 0.0
        assert_equal(x, a)
        assert_equal(xdist.array(x, "int32"), a.astype("int32"))
        with pytest.raises(ValueError, match="copy=False"):
            xdist.array(x, dtype="float32", copy=False)


@pytest.mark.parametrize("ndmin", [0, 1, 3, 4])
def test_ndmin(ndmin):
    a = np.arange(12.0).reshape(4, 3)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.array(x, ndmin=ndmin)
        assert counts == Counter()
        assert_equal(got, np.array(a, ndmin=ndmin))
        if x.split is not None:
            assert got.split == x.split + max(ndmin - 2, 0)
    assert_equal(xdist.array(2.0, ndmin=2), defaulted(np.array(2.0, ndmin=2)))


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"order": "F"}, NotImplementedError, "array: the argument order"),
        ({"like": np.ones(2)}, NotImplementedError, "array: the argument like"),
        ({"ndmin": 1.5}, TypeError, "array: ndmin must be an int"),
        ({"subok": None}, TypeError, "array: subok must be a bool"),
    ],
)
def test_refused_arguments_raise_before_any_message(kwargs, exc, match):
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.array([1.0, 2.0], **kwargs)
    assert counts == Counter()
