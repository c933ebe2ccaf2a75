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


# -- concatenate, hstack, vstack, column_stack ------------------------------------------------
def joined_inputs():
    """Inputs of every rank NumPy's joining functions take, 0-d to 2-D."""
    m = random_array((7, 3), seed=5)
    return {
        "columns": [m, m[:, :2] + 1.0, m[:, :1]],
        "rows": [m, m[:2] * 2.0],
        "1d": [m[:, 0], m[:, 1] + 0.5],
        "0d": [np.array(1.5), np.array(-2.0)],
    }


def _joined_layouts(arrays):
    """Each input laid out the same way (the first's every layout), and mixed: the first
    split, the rest NumPy (replicated)."""
    for case in layouts(arrays[0].shape):
        if all(a.ndim == arrays[0].ndim for a in arrays) and case[1] is None:
            yield [distribute(a, *case) for a in arrays]
        yield [distribute(arrays[0], *case), *arrays[1:]]


@pytest.mark.parametrize(
    "name,kind",
    [
        (name, kind)
        for name, kinds in {
            "hstack": ["columns", "1d", "0d"],
            "vstack": ["rows", "1d", "0d"],
            "column_stack": ["columns", "1d", "0d"],
        }.items()
        for kind in kinds
    ],
)
def test_stacking_matches_numpy(name, kind):
    arrays = joined_inputs()[kind]
    want = getattr(np, name)(arrays)
    for xs in _joined_layouts(arrays):
        assert_equal(without_gathers(getattr(xdist, name), xs), want)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate_matches_numpy(axis):
    m = random_array((7, 3), seed=6)
    arrays = [m, m + 1.0] if axis is None else [m, m * 2.0]
    want = np.concatenate(arrays, axis=axis)
    for xs in _joined_layouts(arrays):
        assert_equal(without_gathers(xdist.concatenate, xs, axis=axis), want)
    ints = [np.arange(6).reshape(2, 3), np.ones((1, 3), "float32")]
    assert_equal(xdist.concatenate([distribute(ints[0], 0), ints[1]]), np.concatenate(ints))


def test_joining_along_another_axis_than_the_split_sends_nothing():
    a, b = random_array((7, 3), seed=7), random_array((7, 2), seed=8)
    x, y = distribute(a, 0), distribute(b, 0)
    with xdist.count_collectives() as counts:
        got = [xdist.hstack([x, y]), xdist.column_stack([x[:, 0], y]), xdist.concatenate((x, y), 1)]
    assert counts == Counter()
    for g in got[::2]:
        assert g.split == 0 and g.counts == x.counts
        assert_equal(g, np.hstack([a, b]))


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.concatenate([x], out=x), NotImplementedError, "argument out"),
        (lambda x: xdist.concatenate([x], dtype="f4"), NotImplementedError, "argument dtype"),
        (lambda x: xdist.hstack([x], casting="unsafe"), NotImplementedError, "argument casting"),
        (lambda x: xdist.vstack(x), TypeError, "vstack: arrays must be a list or tuple"),
        (lambda x: xdist.column_stack([np.ones(3)]), TypeError, "at least one xdist array"),
        (lambda x: xdist.concatenate([x, x[:, :2]], axis=0), ValueError, "concat: arrays"),
    ],
)
def test_joining_errors_before_any_message(call, exc, match):
    x = distribute(np.ones((7, 3)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
