"""linalg.norm and linalg.lstsq (NumPy's, linalg/_numpy_linalg) against NumPy on the same data
at every layout: norm by NumPy's ord/axis/keepdims rules, lstsq of tall matrices split along
their rows by TSQR (no gather), NumPy's (x, residuals, rank, s), rank-deficient included."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    SIZE,
    assert_equal,
    defaulted,
    distribute,
    layouts,
    random_array,
    without_gathers,
)

import xdist

RTOL = {"float64": 1e-10, "float32": 1e-4, "complex128": 1e-10}


@pytest.mark.parametrize(
    "ord,axis",
    [
        (None, None),
        (None, 0),
        (1, 1),
        (np.inf, 0),
        (0, 1),
        (3, None),
        ("fro", None),
        ("nuc", None),
        (2, None),
        (-1, (1, 0)),
        (np.inf, (0, 1)),
        (-2, (0, 1)),
    ],
    ids=str,
)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_norm_of_a_matrix_matches_numpy(ord, axis, keepdims, dtype):
    a = random_array((9, 4), dtype, 1)
    if ord == 3:  # ord for a vector: NumPy wants a 1-D array with axis=None
        a = a[:, 0].copy()
    want = np.linalg.norm(a, ord, axis, keepdims)
    for case in layouts(a.shape):
        got = without_gathers(xdist.linalg.norm, distribute(a, *case), ord, axis, keepdims)
        assert_equal(got, np.asarray(want), rtol=RTOL[dtype], atol=RTOL[dtype])


def test_norm_of_stacks_integers_and_dispatch():
    a = random_array((3, 7, 4), seed=2)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        assert_equal(xdist.linalg.norm(x, axis=(2, 1)), np.linalg.norm(a, axis=(2, 1)), rtol=1e-12)
        assert_equal(
            without_gathers(np.linalg.norm, x, axis=-1), np.linalg.norm(a, axis=-1), rtol=1e-12
        )
    i = np.arange(12).reshape(4, 3)
    assert_equal(xdist.linalg.norm(distribute(i, 0)), defaulted(np.linalg.norm(i)), rtol=1e-6)


def test_norm_sends_one_allreduce_over_the_split_axis():
    x = distribute(random_array((9, 4)), 0)
    with xdist.count_collectives() as counts:
        xdist.linalg.norm(x, axis=0)
    assert counts == (Counter(allreduce=1) if SIZE > 1 else Counter())
    with xdist.count_collectives() as counts:
        xdist.linalg.norm(x, axis=1)
    assert counts == Counter()


def check_lstsq(got, want, rtol):
    x, residuals, rank, s = got
    assert rank == want[2] and isinstance(rank, int)
    assert_equal(x, want[0], rtol=rtol, atol=rtol)
    assert_equal(residuals, want[1], rtol=rtol, atol=rtol)
    assert_equal(s, want[3], rtol=rtol, atol=rtol)


@pytest.mark.parametrize("k", [None, 1, 3])
@pytest.mark.parametrize("shape", [(30, 4), (7, 3), (5, 5)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lstsq_matches_numpy(shape, k, dtype):
    a = random_array(shape, dtype, 3)
    b = random_array((shape[0],) if k is None else (shape[0], k), dtype, 4)
    want = np.linalg.lstsq(a, b)
    for case in [(None, None), (0, None), layouts(shape)[-1]]:
        got = without_gathers(xdist.linalg.lstsq, distribute(a, *case), distribute(b, *case))
        check_lstsq(got, want, RTOL[dtype])
    check_lstsq(xdist.linalg.lstsq(distribute(a, 0), b), want, RTOL[dtype])  # NumPy b
    check_lstsq(without_gathers(np.linalg.lstsq, distribute(a, 0), b), want, RTOL[dtype])


@pytest.mark.parametrize("rcond", [None, 1e-3])
def test_lstsq_of_a_rank_deficient_matrix_is_numpys_minimum_norm_answer(rcond):
    a = random_array((20, 4), seed=5)
    a[:, 3] = a[:, 0] - 2.0 * a[:, 1]
    b = random_array((20, 2), seed=6)
    want = np.linalg.lstsq(a, b, rcond=rcond)
    assert want[2] == 3 and want[1].shape == (0,)
    for case in layouts(a.shape)[:2] + layouts(a.shape)[-1:]:
        got = xdist.linalg.lstsq(distribute(a, *case), distribute(b, *case), rcond=rcond)
        check_lstsq(got, want, 1e-9)


@pytest.mark.parametrize("k", [None, 2])
@pytest.mark.parametrize("shape", [(4, 30), (3, 7), (1, 5)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_lstsq_of_a_wide_matrix_is_numpys_minimum_norm_answer(shape, k, dtype):
    """An underdetermined system (SciPy's filter design solves some): NumPy's minimum-norm
    ``x``, empty residuals, rank and singular values, at every layout of ``a`` and ``b``."""
    a = random_array(shape, dtype, 9)
    b = random_array((shape[0],) if k is None else (shape[0], k), dtype, 10)
    want = np.linalg.lstsq(a, b)
    assert want[1].shape == (0,)
    for case in layouts(shape):
        y = distribute(b, *case) if case[0] == 0 else distribute(b, None)
        got = xdist.linalg.lstsq(distribute(a, *case), y)
        check_lstsq(got, want, RTOL[dtype])
    check_lstsq(xdist.linalg.lstsq(distribute(a, 1), b), want, RTOL[dtype])  # NumPy b
    if dtype == "float32":  # (a dependent row's rounding is above float32's cut)
        return
    deficient = np.concatenate([a, a[:1] + a[-1:]])  # a row that is a sum of two others
    bb = np.concatenate([b, b[:1] + b[-1:]])
    want = np.linalg.lstsq(deficient, bb)
    assert want[2] == shape[0]
    for case in layouts(deficient.shape)[:2] + layouts(deficient.shape)[-1:]:
        got = xdist.linalg.lstsq(distribute(deficient, *case), bb)
        check_lstsq(got, want, RTOL[dtype] * 10)


def test_lstsq_sends_tsqr_and_two_allreduces():
    a, b = random_array((30, 3), seed=7), random_array((30,), seed=8)
    x, y = distribute(a, 0), distribute(b, 0)
    with xdist.count_collectives() as counts:
        xdist.linalg.lstsq(x, y)
    if SIZE > 1:
        assert counts["allreduce"] == 2 and counts["allgatherv"] <= 3
        assert set(counts) <= {"allreduce", "allgatherv"}


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (
            lambda x: xdist.linalg.lstsq(x.T, np.ones(7)),
            ValueError,
            r"lstsq: b must have shape \(3,\)",
        ),
        (
            lambda x: xdist.linalg.lstsq(x, np.ones(5)),
            ValueError,
            r"lstsq: b must have shape \(7,\)",
        ),
        (lambda x: xdist.linalg.lstsq(x, np.ones(7), rcond="x"), TypeError, "lstsq: rcond"),
        (lambda x: xdist.linalg.norm(x, "fro", axis=0), ValueError, "norm: invalid norm order"),
        (lambda x: xdist.linalg.norm(x, 3), ValueError, "matrix_norm: ord"),
        (lambda x: xdist.linalg.norm(x, axis=(0, 0)), ValueError, "norm: axis"),
    ],
)
def test_errors_before_any_message(call, exc, match):
    x = distribute(np.ones((7, 3)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
