"""transpose and cross (xdist's extensions under NumPy's names) against NumPy on the same
data, at every layout (uneven and empty blocks), sending nothing along a vector axis that is
not split, and np.cross dispatching."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, distribute, layouts, random_array, without_gathers

import xdist


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1)])
def test_transpose_matches_numpy(axes):
    a = np.arange(24.0).reshape(4, 3, 2)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.transpose(x, axes)
        assert counts == Counter()
        assert_equal(got, np.transpose(a, axes))


@pytest.mark.parametrize("n", [3, 2])
def test_cross_matches_numpy(n):
    a, b = random_array((7, n), seed=1), random_array((7, n), seed=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # NumPy's 2-vectors
        if n == 3:
            want = np.cross(a, b)
        else:  # the z component: NumPy 2.5 no longer takes 2-vectors
            want = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
        for case in layouts(a.shape):
            x = distribute(a, *case)
            assert_equal(xdist.cross(x, distribute(b, *case)), want)
            assert_equal(xdist.cross(x, b), want)  # a NumPy operand is replicated
            if case[0] == 0:  # vectors along the other axis: the components are local
                y = distribute(b, *case)
                with xdist.count_collectives() as counts:
                    got = without_gathers(np.cross, x, y)  # NumPy's cross dispatches
                assert counts == Counter()
                assert_equal(got, want)


def test_cross_along_another_axis():
    a, b = random_array((3, 5), seed=3), random_array((3, 5), seed=4)
    for case in layouts(a.shape):
        got = xdist.cross(distribute(a, *case), distribute(b, *case), axis=0)
        assert_equal(got, np.cross(a, b, axis=0))


def test_cross_of_other_lengths_raises():
    with pytest.raises(ValueError, match="cross: the vectors must both have 3 components"):
        xdist.cross(distribute(np.ones((4, 4)), 0), np.ones((4, 4)))
