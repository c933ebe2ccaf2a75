"""ravel, copy, append, delete, insert, resize and atleast_1d/2d/3d (NumPy's names on the
namespace) against NumPy on the same data at every layout (uneven and empty blocks): delete
and insert send nothing and keep the split with exact counts; errors before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import assert_equal, distribute, layouts, random_array, without_gathers

import xdist


def data(dtype="float64", shape=(7, 4)):
    return random_array(shape, dtype, 1)


@pytest.mark.parametrize("name", ["ravel", "copy"])
def test_ravel_and_copy_match_numpy(name):
    a = data()
    for case in layouts(a.shape):
        x = distribute(a, *case)
        got = without_gathers(getattr(xdist, name), x)
        assert_equal(got, getattr(np, name)(a))
        assert_equal(without_gathers(getattr(np, name), x), getattr(np, name)(a))
    y = xdist.copy(x)
    y[...] = 0.0
    assert_equal(x, a)  # a copy


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_append_matches_numpy(axis):
    a = data()
    v = np.ones((7, 2)) if axis == 1 else np.ones((3, 4))
    for case in layouts(a.shape):
        got = without_gathers(xdist.append, distribute(a, *case), v, axis=axis)
        assert_equal(got, np.append(a, v, axis=axis))


OBJS = [0, -1, slice(1, 6, 2), [0, 2, 2, 6], np.array([], dtype=np.int64), "mask"]


@pytest.mark.parametrize("obj", OBJS, ids=str)
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_delete_matches_numpy_and_sends_nothing(obj, axis, dtype):
    a = data(dtype)
    n = a.size if axis is None else a.shape[axis]
    if isinstance(obj, str):
        obj = np.arange(n) % 3 == 1
    elif axis == 1 and not isinstance(obj, (int, slice)):
        obj = [k for k in np.asarray(obj).tolist() if k < 4]
    want = np.delete(a, obj, axis=axis)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.delete(x, obj, axis=axis)
        if axis is not None or case[0] in (None, 0):
            assert counts == Counter()
        assert_equal(got, want)
        if axis is not None and case[0] == axis:
            assert got.split == axis and sum(got.counts) == want.shape[axis]


@pytest.mark.parametrize(
    "obj,values",
    [
        (0, -1.0),
        (7, [-1.0]),
        (3, [[-1.0, -2.0, -3.0, -4.0], [5.0, 6.0, 7.0, 8.0]]),
        ([1, 7, 1, 0], -1.0),
        ([2, 2], [[1.0], [2.0]]),
        (slice(0, 7, 3), 9.0),
        (-2, 4),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_insert_along_rows_matches_numpy_and_sends_nothing(obj, values, dtype):
    a = data(dtype)
    want = np.insert(a, obj, values, axis=0)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.insert(x, obj, values, axis=0)
        assert counts == Counter()
        assert_equal(got, want)
        assert got.split == x.split


@pytest.mark.parametrize(
    "obj,values,axis",
    [(2, [1, 2, 3, 4, 5, 6, 7], 1), ([0, 4], 3.5, 1), (5, [1.0, 2.0], None), ([0, 28], 1.0, None)],
    ids=str,
)
def test_insert_along_other_axes_matches_numpy(obj, values, axis):
    a = data()
    want = np.insert(a, obj, values, axis=axis)
    for case in layouts(a.shape):
        got = without_gathers(xdist.insert, distribute(a, *case), obj, values, axis=axis)
        assert_equal(got, want)
    v = distribute(np.asarray(values, dtype=float))  # an xdist values array
    assert_equal(xdist.insert(distribute(a, 0), obj, v, axis=axis), want)


@pytest.mark.parametrize("shape", [(3, 9), (40,), (2, 0), 5])
def test_resize_matches_numpy(shape):
    a = data()
    for case in layouts(a.shape):
        got = without_gathers(xdist.resize, distribute(a, *case), shape)
        assert_equal(got, np.resize(a, shape))
    assert_equal(
        xdist.resize(distribute(np.zeros((0, 3)), 0), (2, 2)), np.resize(np.zeros((0, 3)), (2, 2))
    )


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast_nd_matches_numpy(name):
    for a in (np.float64(2.5), np.arange(5.0), data(), random_array((2, 3, 4))):
        a = np.asarray(a)
        for case in layouts(a.shape):
            x = distribute(a, *case)
            with xdist.count_collectives() as counts:
                got = getattr(xdist, name)(x)
            assert counts == Counter()
            assert_equal(got, getattr(np, name)(a))
            assert_equal(without_gathers(getattr(np, name), x), getattr(np, name)(a))
    both = getattr(xdist, name)(distribute(np.arange(3.0), 0), np.ones(2))
    assert [b.shape for b in both] == [
        c.shape for c in getattr(np, name)(np.arange(3.0), np.ones(2))
    ]


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.delete(x, 7, axis=0), IndexError, "delete: index 7 is out of bounds"),
        (lambda x: xdist.delete(x, [True], axis=0), ValueError, "delete: a boolean obj"),
        (lambda x: xdist.delete(x, [0.5], axis=0), IndexError, "delete: obj must be ints"),
        (lambda x: xdist.insert(x, 9, 1.0, axis=0), IndexError, "insert: index 9 is out of bounds"),
        (lambda x: xdist.insert(x, 0, [1.0, 2.0], axis=0), ValueError, "insert: values of shape"),
        (lambda x: xdist.delete(x, 0, axis=2), IndexError, "delete: axis 2 is out of bounds"),
        (lambda x: xdist.ravel(x, order="F"), NotImplementedError, "ravel: the argument order"),
        (lambda x: xdist.resize(x, (-1, 2)), ValueError, "resize: new_shape"),
        (lambda x: xdist.atleast_2d(np.ones(2)), TypeError, "atleast_2d: at least one"),
    ],
)
def test_errors_before_any_message(call, exc, match):
    x = distribute(np.ones((7, 3)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
