"""around (xdist's extension: NumPy's round with decimals), Array.round and np.round against
NumPy on the same data, at every layout, sending nothing."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, distribute, layouts

import xdist


def values(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(0)
    if dtype[0] in "iu":
        return rng.integers(0, 120, (7, 3)).astype(dtype)
    a = (rng.standard_normal((7, 3)) * 1000).astype(dtype)
    a[0, 0], a[1, 1] = 2.5, -0.125  # halves round to even
    return a


@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 2, 3])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int16", "uint8"])
def test_around_matches_numpy(dtype, decimals):
    a = values(dtype)
    want = np.round(a, decimals)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.around(x, decimals)
        assert counts == Counter()
        assert_equal(got, want)
        assert_equal(x.round(decimals), want)
        assert_equal(np.round(x, decimals), want)
        assert_equal(np.around(x, decimals), want)


def test_complex_rounds_to_integers_only():
    z = np.array([1.5 + 2.5j, -0.5 - 1.5j])
    x = distribute(z, 0)
    assert_equal(xdist.around(x), np.round(z))
    with pytest.raises(TypeError, match="around: complex x takes decimals=0 only"):
        xdist.around(x, 1)
    with pytest.raises(TypeError, match="around: decimals must be an int"):
        xdist.around(distribute(values("float64"), 0), 1.5)
