"""flatnonzero, unravel_index, ravel_multi_index, ix_, tril/triu/diag_indices and fill_diagonal
(NumPy's names on the namespace) against NumPy on the same data at every layout: the index
arithmetic sends only the bounds flag, fill_diagonal writes in place with no message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, random_array, without_gathers

import xdist


def test_flatnonzero_matches_numpy():
    a = random_array((7, 4), seed=1) > 0.3
    for case in layouts(a.shape):
        x = distribute(a, *case)
        assert_equal(without_gathers(xdist.flatnonzero, x), np.flatnonzero(a))
        assert_equal(without_gathers(np.flatnonzero, x), np.flatnonzero(a))


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_unravel_and_ravel_round_trip_as_numpy(dtype, order):
    shape = (4, 3, 5)
    flat = (np.arange(7 * 6) * 7 % 60).reshape(7, 6).astype(dtype)
    want = np.unravel_index(flat, shape, order=order)
    for case in layouts(flat.shape):
        x = distribute(flat, *case)
        got = without_gathers(xdist.unravel_index, x, shape, order=order)
        for g, w in zip(got, want):
            assert_equal(g, w.astype(np.int64))
        back = without_gathers(xdist.ravel_multi_index, got, shape, order=order)
        assert_equal(back, flat.astype(np.int64))
    assert xdist.unravel_index(17, shape) == tuple(int(v) for v in np.unravel_index(17, shape))


@pytest.mark.parametrize("mode", ["wrap", "clip", ("clip", "wrap")], ids=str)
def test_ravel_multi_index_modes(mode):
    rows, cols = np.array([-2, 0, 5, 9, 3]), np.array([1, 7, -1, 2, 2])
    want = np.ravel_multi_index((rows, cols), (4, 3), mode=mode)
    for case in layouts(rows.shape):
        x = (distribute(rows, *case), distribute(cols, *case))
        with xdist.count_collectives() as counts:
            got = xdist.ravel_multi_index(x, (4, 3), mode=mode)
        assert counts == Counter()  # nothing to check: no message
        assert_equal(got, want)
    assert_equal(np.ravel_multi_index(x, (4, 3), mode=mode), want)  # NumPy's dispatches


def test_the_bounds_check_is_one_flag_and_raises_everywhere():
    i = distribute(np.array([0, 5, 11, 3, 2]), 0)
    with xdist.count_collectives() as counts:
        xdist.unravel_index(i, (3, 4))
    assert counts == (Counter(allreduce=1) if SIZE > 1 else Counter())
    bad = np.array([0, 5, 12, 3, 2])  # one rank holds the bad index: every rank raises
    with pytest.raises(ValueError, match="unravel_index: an index is out of bounds"):
        xdist.unravel_index(distribute(bad, 0), (3, 4))
    with pytest.raises(ValueError, match="ravel_multi_index: invalid entry"):
        xdist.ravel_multi_index((distribute(bad, 0), distribute(bad, 0)), (13, 2))


def test_ix_matches_numpy_and_indexes_as_numpy():
    a = random_array((7, 5), seed=2)
    rows, cols = np.array([6, 0, 3]), np.array([True, False, True, False, True])
    want = np.ix_(rows, cols)
    for case in layouts(rows.shape):
        got = xdist.ix_(distribute(rows, *case), cols)
        for g, w in zip(got, want):
            assert_equal(g, w.astype(np.int64))
    got = xdist.ix_(rows.tolist(), cols)  # no xdist array: replicated ones
    assert all(g.split is None for g in got)
    assert_equal(distribute(a, 0)[got], a[want])


@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
@pytest.mark.parametrize("n,k,m", [(4, 0, None), (5, -1, 3), (3, 2, 6), (0, 0, None)])
def test_triangle_indices_match_numpy(name, n, k, m):
    with xdist.count_collectives() as counts:
        got = getattr(xdist, name)(n, k, m)
    assert counts == Counter()
    for g, w in zip(got, getattr(np, name)(n, k, m)):
        assert_equal(g, w.astype(np.int64))
        assert g.split is None


def test_diag_indices_match_numpy():
    got = xdist.diag_indices(4, 3)
    assert len(got) == 3
    for g, w in zip(got, np.diag_indices(4, 3)):
        assert_equal(g, w.astype(np.int64))


@pytest.mark.parametrize(
    "shape,val,wrap",
    [
        ((7, 3), 5.0, False),
        ((7, 3), [1.0, 2.0], True),
        ((3, 7), np.array([4.0, 5.0, 6.0, 7.0]), False),
        ((4, 4, 4), -1.0, False),
        ((5, 5), 2.7, False),
    ],
    ids=str,
)
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_fill_diagonal_matches_numpy(shape, val, wrap, dtype):
    a = random_array(shape, dtype, 3)
    want = a.copy()
    np.fill_diagonal(want, val, wrap=wrap)
    for case in layouts(shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            assert xdist.fill_diagonal(x, distribute(np.asarray(val)), wrap=wrap) is None
        assert counts == Counter()
        assert_equal(x, want)
        y = distribute(a, *case)
        np.fill_diagonal(y, val, wrap=wrap)  # NumPy's dispatches
        assert_equal(y, want)


def test_fill_diagonal_through_a_view_reaches_the_base():
    a = np.zeros((8, 4))
    want = a.copy()
    np.fill_diagonal(want[2:6], 3.0)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        xdist.fill_diagonal(x[2:6], 3.0)
        assert_equal(x, want)


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.unravel_index(x, (2, 2), order="K"), ValueError, "order must be 'C'"),
        (lambda x: xdist.unravel_index(x * 1.5, (4, 4)), TypeError, "unravel_index: indices"),
        (lambda x: xdist.ravel_multi_index((x,), (2, 2)), ValueError, "a tuple of 2 index"),
        (lambda x: xdist.ravel_multi_index((x, x), (2, 2), mode="x"), ValueError, "mode must"),
        # no coordinate fits an axis of length 0, wrapped or clipped (clip gave -1)
        *(
            (lambda x, m=m: xdist.ravel_multi_index((x, x), (0, 3), mode=m), ValueError, "zero")
            for m in ("raise", "wrap", "clip")
        ),
        (lambda x: xdist.tril_indices(-1), ValueError, "tril_indices: n must be >= 0"),
        (lambda x: xdist.fill_diagonal(x, 1), ValueError, "fill_diagonal: a must be at least 2-D"),
        (
            lambda x: xdist.fill_diagonal(distribute(np.zeros((2, 3, 1)), 0), 1),
            ValueError,
            "dimensions of a must be equal",
        ),
        (
            lambda x: xdist.ix_(distribute(np.zeros((2, 3), int), 0)),
            ValueError,
            "ix_: argument 0 must be 1-D",
        ),
    ],
)
def test_errors_before_any_message(call, exc, match):
    x = distribute(np.arange(6), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
