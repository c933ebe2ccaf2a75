"""``take`` and ``take_along_axis`` against NumPy for every layout of ``x`` and of the indices,
and what they send: along a non-split axis nothing moves but the indices; along the split
axis one ``alltoall`` of counts and two ``alltoallv`` (split indices) or one ``allgatherv`` of
the selected values (replicated indices), never a gather of ``x``."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, comm_params, distribute, layout_id, layouts, random_array

import xdist


def _indices(n: int) -> list[np.ndarray]:
    """Index sets for an axis of length ``n``: negative, repeated, reversed, empty."""
    out = [np.array([], dtype=np.int64)]
    if n:
        out += [
            np.array([0, n - 1, -1, -n, n // 2, n // 2], dtype=np.int64),
            np.arange(n)[::-1].copy(),
        ]
    return out


def _pairs(xshape, ishape):
    """(x layout, indices layout) pairs: every layout of each, one varying at a time."""
    xs, js = layouts(xshape), layouts(ishape)
    return [(a, js[0]) for a in xs] + [(xs[0], b) for b in js[1:]] + [(xs[-1], js[-1])]


# -- take ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "shape,axis", [((7,), 0), ((2,), 0), ((7, 5), 0), ((7, 5), 1), ((2, 3), -1), ((3, 4, 5), 1)]
)
def test_take_matches_numpy(shape, axis):
    g = random_array(shape, seed=1)
    for idx in _indices(shape[axis]):
        for xl, il in _pairs(shape, idx.shape):
            x, i = distribute(g, *xl), distribute(idx, *il)
            out = xdist.take(x, i, axis=axis)
            assert_equal(out, np.take(g, idx, axis=axis))


def test_take_axis_defaults_for_1d():
    g = random_array((7,), "int32", seed=2)
    idx = np.array([6, 0, -2, 3])
    for layout in layouts((7,)):
        assert_equal(xdist.take(distribute(g, *layout), distribute(idx, 0)), g[idx])


@pytest.mark.parametrize("dtype", ["bool", "complex64", "uint8", "int64"])
@pytest.mark.parametrize("itype", ["int32", "uint8", "int16"])
def test_take_dtypes(dtype, itype):
    g = random_array((7, 3), dtype, seed=3)
    idx = np.array([2, 0, 6, 2], dtype=itype)
    for split in [None, 0, 1]:
        out = xdist.take(distribute(g, split), distribute(idx, 0), axis=0)
        assert_equal(out, np.take(g, idx, axis=0))


def test_take_empty_axis():
    g = np.zeros((0, 3))
    out = xdist.take(distribute(g, 0), distribute(np.array([], dtype=np.int64), 0), axis=0)
    assert_equal(out, np.zeros((0, 3)))


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_take_along_split_axis_routes_indices(counts):
    g = random_array((7, 5), seed=4)
    x = distribute(g, 0, None if counts is None else layouts((7, 5))[-1][1])
    idx = np.array([6, 0, 3, -1, 2, 2, 5, 1])
    i = distribute(idx, 0, layouts(idx.shape)[-1][1])
    with xdist.count_collectives() as sent:
        out = xdist.take(x, i, axis=0)
    assert sent == (Counter(alltoall=1, alltoallv=2) if SIZE > 1 else Counter())
    assert out.split == 0 and out.counts == i.counts  # the layout of the indices
    assert_equal(out, g[idx])
    with xdist.count_collectives() as sent:
        out = xdist.take(x, distribute(idx, None), axis=0)
    # Replicated indices: each owner contributes what it holds to one allgatherv of the
    # selected rows (never of x); the result is replicated.
    assert sent == (Counter(allgatherv=1) if SIZE > 1 else Counter())
    assert out.split is None
    assert_equal(out, g[idx])


def test_take_along_other_axis_moves_no_data_of_x():
    g = random_array((7, 5), seed=5)
    x = distribute(g, 0, layouts((7, 5))[-1][1])
    idx = np.array([4, 0, -1])
    with xdist.count_collectives() as sent:
        out = xdist.take(x, distribute(idx, None), axis=1)
    assert sum(sent.values()) == 0
    assert out.split == 0 and out.counts == x.counts
    assert_equal(out, g[:, idx])
    i = distribute(idx, 0)
    with xdist.count_collectives() as sent:
        out = xdist.take(x, i, axis=1)  # only the indices are gathered
    assert sent == (Counter(allgatherv=1) if SIZE > 1 else Counter())
    assert_equal(out, g[:, idx])


def test_take_from_replicated_follows_the_indices():
    g = random_array((7, 5), seed=6)
    idx = np.array([4, 0, -1, 2, 6])
    i = distribute(idx, 0)
    with xdist.count_collectives() as sent:
        out = xdist.take(distribute(g, None), i, axis=0)
    # Every rank takes its part locally; the ranks only agree on the bounds check.
    assert sent == (Counter(allreduce=1) if SIZE > 1 else Counter())
    assert out.split == 0 and out.counts == i.counts
    assert_equal(out, g[idx])


@pytest.mark.parametrize("xsplit,isplit", [(0, 0), (0, None), (None, 0), (1, 0), (None, None)])
def test_take_out_of_bounds_raises_on_every_rank(xsplit, isplit):
    g = random_array((7, 5), seed=7)
    for bad in [7, -8]:
        idx = np.array([0, 1, 2, 3, bad])  # the bad index sits on the last rank's block
        x, i = distribute(g, xsplit), distribute(idx, isplit)
        with xdist.count_collectives() as sent:
            with pytest.raises(IndexError, match="take: an index is out of bounds"):
                xdist.take(x, i, axis=0)
        assert "alltoallv" not in sent and sent["allgatherv"] <= int(xsplit == 1 and SIZE > 1)


def _bad_take_calls():
    x = distribute(random_array((7, 5), seed=8), 0)
    i = distribute(np.array([0, 1]), 0)
    floats, matrix = distribute(np.array([0.0]), 0), distribute(np.array([[0]]), 0)
    scalar = distribute(np.array(1.0))
    return [
        (lambda: xdist.take(x, i), ValueError, "axis is required"),
        (lambda: xdist.take(x, i, axis=2), IndexError, "axis 2"),
        (lambda: xdist.take(x, i, axis=1.0), TypeError, "axis"),
        (lambda: xdist.take(x, floats, axis=0), TypeError, "integer"),
        (lambda: xdist.take(x, matrix, axis=0), ValueError, "1-D"),
        (lambda: xdist.take(x, np.array([0]), axis=0), TypeError, "indices"),
        (lambda: xdist.take(np.ones(3), i), TypeError, "x must"),
        (lambda: xdist.take(scalar, i), ValueError, "dimension"),
    ]


def test_take_errors_raise_before_any_message():
    for call, error, match in _bad_take_calls():
        with xdist.count_collectives() as sent:
            with pytest.raises(error, match=match):
                call()
        assert sum(sent.values()) == 0, match


# -- take_along_axis ---------------------------------------------------------------------------
ALONG = [
    ((7,), (4,), 0),
    ((7,), (0,), 0),
    ((7, 5), (7, 3), 1),
    ((7, 5), (9, 5), 0),
    ((7, 5), (1, 6), 1),
    ((7, 1), (7, 4), 1),
    ((2, 3), (2, 1), 0),
    ((3, 4, 5), (3, 2, 5), 1),
    ((3, 4, 5), (3, 4, 2), -1),
]


@pytest.mark.parametrize("shape,ishape,axis", ALONG, ids=[f"{a}-{b}-{c}" for a, b, c in ALONG])
def test_take_along_axis_matches_numpy(shape, ishape, axis):
    g = random_array(shape, seed=9)
    rng = np.random.default_rng(10)
    n = shape[axis]
    idx = rng.integers(-n, n, size=ishape)
    expected = np.take_along_axis(g, idx, axis=axis)
    for xl, il in _pairs(shape, ishape):
        out = xdist.take_along_axis(distribute(g, *xl), distribute(idx, *il), axis=axis)
        assert_equal(out, expected)


def test_take_along_axis_default_axis_and_dtypes():
    g = random_array((4, 6), "complex128", seed=11)
    idx = np.array([[5, 0], [1, 1], [-1, 2], [3, 4]], dtype=np.int32)
    out = xdist.take_along_axis(distribute(g, 1), distribute(idx, 0))
    assert_equal(out, np.take_along_axis(g, idx, axis=-1))


def test_take_along_a_non_split_axis_sends_nothing():
    g = random_array((7, 5), seed=12)
    idx = np.argsort(g, axis=1)
    counts = layouts((7, 5))[-1][1]
    x, i = distribute(g, 0, counts), distribute(idx, 0, counts)
    with xdist.count_collectives() as sent:
        out = xdist.take_along_axis(x, i, axis=1)
    assert sent == (Counter(allreduce=1) if SIZE > 1 else Counter())  # bounds flag
    assert out.counts == x.counts
    assert_equal(out, np.sort(g, axis=1))


def test_take_along_the_split_axis_routes_elements():
    g = random_array((7, 5), seed=13)
    idx = np.argsort(g, axis=0)
    x, i = distribute(g, 0), distribute(idx, 1)
    with xdist.count_collectives() as sent:
        out = xdist.take_along_axis(x, i, axis=0)
    assert sent == (Counter(alltoall=1, alltoallv=2) if SIZE > 1 else Counter())
    assert out.split == 1 and out.counts == i.counts
    assert_equal(out, np.sort(g, axis=0))


@pytest.mark.parametrize("xsplit,isplit", [(0, 0), (0, None), (1, 0), (None, 1)])
def test_take_along_axis_out_of_bounds(xsplit, isplit):
    g = random_array((7, 5), seed=14)
    idx = np.zeros((7, 2), dtype=np.int64)
    idx[-1, -1] = 5
    with pytest.raises(IndexError, match="take_along_axis: an index is out of bounds"):
        xdist.take_along_axis(distribute(g, xsplit), distribute(idx, isplit), axis=1)


def test_take_along_axis_errors_raise_before_any_message():
    x = distribute(random_array((7, 5), seed=15), 0)
    vector, short = distribute(np.zeros(3, int), 0), distribute(np.zeros((6, 2), int), 0)
    floats, good = distribute(np.zeros((7, 2)), 0), distribute(np.zeros((7, 2), int), 0)
    bad = [
        (lambda: xdist.take_along_axis(x, vector), ValueError, "dimensions"),
        (lambda: xdist.take_along_axis(x, short), ValueError, "do not broadcast along axis 0"),
        (lambda: xdist.take_along_axis(x, floats), TypeError, "integer"),
        (lambda: xdist.take_along_axis(x, x, axis=0), TypeError, "integer"),
        (lambda: xdist.take_along_axis(x, good, axis=2), IndexError, "axis 2"),
    ]
    for call, error, match in bad:
        with xdist.count_collectives() as sent:
            with pytest.raises(error, match=match):
                call()
        assert sum(sent.values()) == 0, match


@comm_params
def test_indexing_functions_on_every_communicator(comm):
    g = random_array((7, 5), seed=16)
    idx = np.array([3, -1, 0, 3])
    x, i = distribute(g, 0, comm=comm), distribute(idx, 0, comm=comm)
    assert_equal(xdist.take(x, i, axis=0), g[idx])
    assert_equal(xdist.take(x, i, axis=1), g[:, idx])
    j = distribute(np.argsort(g, axis=0), 1, comm=comm)
    assert_equal(xdist.take_along_axis(x, j, axis=0), np.sort(g, axis=0))


def test_layout_ids_are_readable():
    assert [layout_id(c) for c in layouts((3, 2))][:3] == ["rep", "s0", "s1"]
