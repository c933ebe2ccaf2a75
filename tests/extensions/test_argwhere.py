"""argwhere (xdist's extension, NumPy's meaning) against NumPy on the same global data: 0-d
to 3-D arrays of every dtype kind, every layout (uneven and empty blocks), no nonzero element,
the result split along its first axis, the collectives of nonzero and no more."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, without_gathers

import xdist


def data(shape, dtype) -> np.ndarray:
    n = int(np.prod(shape))
    a = (np.random.default_rng(1).integers(0, 3, n) * (np.arange(n) % 4 != 1)).reshape(shape)
    return (a > 0) if dtype == "bool" else a.astype(dtype)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64"])
@pytest.mark.parametrize("shape", [(9,), (7, 4), (3, 4, 2), (0, 3), (2, 5)])
def test_matches_numpy(shape, dtype):
    a = data(shape, dtype)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        got = without_gathers(xdist.argwhere, x)
        assert_equal(got, np.argwhere(a))
        assert got.split == (None if x.split is None else 0)
        assert_equal(xdist.argwhere(distribute(np.zeros_like(a), *case)), np.argwhere(0 * a))


@pytest.mark.parametrize("value", [0.0, 3.0])
def test_0d(value):
    assert_equal(xdist.argwhere(distribute(np.array(value))), np.argwhere(np.array(value)))


def test_collectives():
    """nonzero's: one allgather of the counts, one all-to-all first for a split along an axis
    other than the first; the columns join with no message."""
    a = data((7, 4), "float64")
    for split, want in ((None, Counter()), (0, Counter(allgather=1))):
        with xdist.count_collectives() as counts:
            xdist.argwhere(distribute(a, split))
        assert counts == (Counter() if SIZE == 1 else want)
    with xdist.count_collectives() as counts:
        xdist.argwhere(distribute(a, 1))
    assert counts == (Counter() if SIZE == 1 else Counter(allgather=1, alltoallv=1))


def test_not_an_array_raises():
    with pytest.raises(TypeError, match="argwhere: a must be an xdist array"):
        xdist.argwhere(np.ones(3))
