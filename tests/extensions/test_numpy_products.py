"""dot, outer, kron, trace and diag (NumPy's names on the namespace, linalg/_numpy_products)
against NumPy on the same data at every layout (uneven and empty blocks), without gathers;
what they send; errors before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, random_array, without_gathers

import xdist

FLOAT_RTOL = {"float32": 1e-5, "float64": 1e-12, "int64": 0.0}


def data(shape, dtype="float64", seed=0):
    return random_array(shape, dtype, seed)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize(
    "sa,sb",
    [((7, 3), (3, 4)), ((7,), (7,)), ((3,), (3, 5)), ((7, 3), (3,)), ((2, 7, 3), (4, 3, 2))],
)
def test_dot_matches_numpy(sa, sb, dtype):
    a, b = data(sa, dtype, 1), data(sb, dtype, 2)
    want = np.dot(a, b)
    for case in layouts(sa):
        got = without_gathers(xdist.dot, distribute(a, *case), distribute(b))
        assert_equal(got, want, rtol=FLOAT_RTOL[dtype], atol=FLOAT_RTOL[dtype])
        got = without_gathers(np.dot, distribute(a, *case), b)  # NumPy's dot dispatches
        assert_equal(got, want, rtol=FLOAT_RTOL[dtype], atol=FLOAT_RTOL[dtype])
    assert_equal(xdist.dot(distribute(a, 0), 2), a * 2)  # a Python scalar stays weak


def test_dot_over_the_split_axis_sends_one_allreduce():
    a = data((7, 3))
    x = distribute(a, 0)
    with xdist.count_collectives() as counts:
        got = xdist.dot(x.T, x)
    assert counts == (Counter(allreduce=1) if SIZE > 1 else Counter())
    assert_equal(got, a.T @ a, rtol=1e-12)


@pytest.mark.parametrize("sb", [(5,), (2, 3)])
def test_outer_flattens_as_numpy(sb):
    a, b = data((7, 2), seed=3), data(sb, seed=4)
    want = np.outer(a, b)
    for case in layouts(a.shape):
        for bcase in layouts(b.shape)[:2]:
            got = without_gathers(xdist.outer, distribute(a, *case), distribute(b, *bcase))
            assert_equal(got, want)
    x = distribute(a[:, 0], 0)
    with xdist.count_collectives() as counts:
        got = xdist.outer(x, distribute(b))  # b replicated: nothing moves
    assert counts == Counter() and got.split == 0


@pytest.mark.parametrize(
    "sa,sb", [((7, 3), (2, 2)), ((7,), (3,)), ((3,), (2, 4)), ((7, 2), (3, 1, 2))]
)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_kron_matches_numpy(sa, sb, dtype):
    a, b = data(sa, dtype, 5), data(sb, dtype, 6)
    want = np.kron(a, b)
    for case in layouts(sa):
        for bcase in layouts(sb)[:2]:
            got = without_gathers(xdist.kron, distribute(a, *case), distribute(b, *bcase))
            assert_equal(got, want)
    with xdist.count_collectives() as counts:
        xdist.kron(distribute(a, 0), distribute(b))
    assert counts == Counter()


@pytest.mark.parametrize("offset", [0, 1, -2])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (2, 0), (1, 2)])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_trace_matches_numpy(axes, offset, dtype):
    a = data((7, 5, 6), dtype, 7)
    want = np.trace(a, offset, *axes)
    for case in layouts(a.shape):
        got = without_gathers(xdist.trace, distribute(a, *case), offset, *axes)
        assert_equal(got, want, rtol=FLOAT_RTOL.get(dtype, 0.0))
        assert_equal(
            np.trace(distribute(a, *case), offset, *axes), want, rtol=FLOAT_RTOL.get(dtype, 0.0)
        )


@pytest.mark.parametrize("k", [0, 2, -3])
@pytest.mark.parametrize("shape", [(7,), (7, 4), (3, 6), (0,)])
def test_diag_matches_numpy(shape, k):
    a = data(shape, seed=8)
    a.flat[::3] = np.inf  # off-diagonal zeros stay zeros
    want = np.diag(a, k)
    for case in layouts(shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.diag(x, k)
        assert counts == Counter()
        assert_equal(got, want)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.dot(x, x, out=x), NotImplementedError, "dot: the argument out"),
        (lambda x: xdist.outer(x, x, out=x), NotImplementedError, "outer: the argument out"),
        (lambda x: xdist.trace(x, axis1=1, axis2=1), ValueError, "trace: axis1 and axis2"),
        (lambda x: xdist.trace(x[:, 0]), ValueError, "trace: a must be at least 2-D"),
        (
            lambda x: xdist.diag(xdist.reshape(x, (7, 3, 1))),
            ValueError,
            "diag: v must be 1-D or 2-D",
        ),
        (lambda x: xdist.dot(x, x), ValueError, "matmul"),
        (lambda x: xdist.kron([1], [2]), TypeError, "kron: a or b must be an xdist array"),
    ],
)
def test_errors_before_any_message(call, exc, match):
    x = distribute(np.ones((7, 3)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
