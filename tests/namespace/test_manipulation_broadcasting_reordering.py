"""The manipulation chapter's broadcasting (broadcast_to/arrays/shapes), reordering (flip,
roll, moveaxis) and repetition (repeat, tile, unstack) against NumPy over every layout, and
the messages they send; shapes, concat and stack are in test_manipulation_functions.py."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    SIZE,
    assert_equal,
    comm_params,
    distribute,
    layout_id,
    layouts,
    random_array,
    uneven_counts,
)

import xdist

SHAPES = [(7, 5), (2, 3), (3, 4, 5), (4, 0), (5,)]
CASES = [(shape, case) for shape in SHAPES for case in layouts(shape)]
CASE_IDS = [f"{'x'.join(map(str, s))}-{layout_id(c)}" for s, c in CASES]
with_cases = pytest.mark.parametrize("shape,case", CASES, ids=CASE_IDS)


def _moves_split(x, axes) -> bool:
    """Whether an operation along ``axes`` touches the split axis on several ranks."""
    return SIZE > 1 and x.split is not None and x.split in axes


def _no_messages(counts) -> None:
    assert sum(counts.values()) == 0, dict(counts)


# -- broadcast_to, broadcast_arrays, broadcast_shapes -------------------------------------------
BROADCASTS = [
    ((7, 5), (2, 7, 5)),
    ((7, 1), (7, 4)),
    ((1, 5), (6, 5)),
    ((1, 5), (3, 0, 5)),
    ((3, 1, 4), (2, 3, 2, 4)),
    ((5,), (7, 5)),
    ((2, 0), (3, 2, 0)),
    ((1,), (0,)),
    ((), (3, 2)),
]


@pytest.mark.parametrize("old,new", BROADCASTS, ids=str)
def test_broadcast_to(old, new):
    g = random_array(old, "int32", 1)
    lead = len(new) - len(old)
    for case in layouts(old):
        x = distribute(g, *case)
        with xdist.count_collectives() as counts:
            y = xdist.broadcast_to(x, new)
        assert_equal(y, np.broadcast_to(g, new))
        y.local[...] = 0  # writable: materialized, not a view
        assert_equal(x, g)
        if x.split is None:
            assert y.split is None
            _no_messages(counts)
        elif old[x.split] == new[x.split + lead]:
            assert (y.split, y.counts) == (x.split + lead, x.counts)
            _no_messages(counts)
        else:  # broadcast along the split axis: x (small) is gathered, the result balanced
            assert set(counts) <= {"allgatherv"}
            assert y.counts == xdist.Layout.balanced(new, x.split + lead, SIZE).counts


@pytest.mark.parametrize(
    "shape,exc",
    [((3,), ValueError), ((5, 4), ValueError), ((4,), ValueError), ((2, -4), ValueError)],
)
def test_broadcast_to_errors(shape, exc):
    x = distribute(np.zeros((2, 4)), 0)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="broadcast_to"):
        xdist.broadcast_to(x, shape)
    _no_messages(counts)
    with pytest.raises(TypeError, match="broadcast_to"):
        xdist.broadcast_to(x, (2, 4.0))


KINDS = ["rep", "s0", "s1", "s0u"]
PAIRS = [((7, 1), (1, 5)), ((7, 5), (5,)), ((1, 5), (7, 5)), ((2, 3), (2, 3)), ((3, 0), (1, 1))]


def _make(g, kind):
    if kind == "rep" or g.ndim == 0:
        return distribute(g)
    axis = 0 if kind == "s0u" else int(kind[1:])
    if axis >= g.ndim:
        return distribute(g)
    counts = uneven_counts(g.shape[0], SIZE) if kind == "s0u" else None
    return distribute(g, axis, counts)


@pytest.mark.parametrize("shapes", PAIRS, ids=str)
@pytest.mark.parametrize("kinds", [(a, b) for a in KINDS for b in KINDS], ids="-".join)
def test_broadcast_arrays(shapes, kinds):
    parts = [random_array(s, d, 2 + i) for i, (s, d) in enumerate(zip(shapes, ["f8", "i2"]))]
    xs = [_make(p, k) for p, k in zip(parts, kinds)]
    with xdist.count_collectives() as counts:
        ys = xdist.broadcast_arrays(*xs)
    assert isinstance(ys, tuple) and len(ys) == 2  # a list before 2025.12
    assert ys[0].layout == ys[1].layout  # one layout for all results
    # Only a split operand that is broadcast (so smaller than the result) is ever gathered.
    assert "allgatherv" not in counts or any(
        x.split is not None and x.shape != ys[0].shape for x in xs
    )
    for y, e in zip(ys, np.broadcast_arrays(*parts)):
        assert_equal(y, e)
    if all(x.layout == xs[0].layout for x in xs):
        _no_messages(counts)


def test_broadcast_arrays_edge_cases():
    assert xdist.broadcast_arrays() == ()
    x = distribute(random_array((3, 4), "f8", 3), 0)
    (y,) = xdist.broadcast_arrays(x)
    assert y is x
    with pytest.raises(ValueError, match="broadcast_arrays"):
        xdist.broadcast_arrays(x, distribute(np.zeros((4, 3)), 0))
    with pytest.raises(TypeError, match="broadcast_arrays"):
        xdist.broadcast_arrays(x, np.zeros((3, 4)))


def test_broadcast_shapes():
    assert xdist.broadcast_shapes() == ()
    assert xdist.broadcast_shapes((3, 1), (4,), (2, 1, 1)) == (2, 3, 4)
    assert xdist.broadcast_shapes((0, 1), (1, 5)) == (0, 5)
    with pytest.raises(ValueError, match="broadcast_shapes"):
        xdist.broadcast_shapes((3,), (4,))
    with pytest.raises(TypeError, match="broadcast_shapes"):
        xdist.broadcast_shapes((3.0,))


# -- moveaxis and flip ----------------------------------------------------------------------------
@with_cases
def test_moveaxis(shape, case):
    g = random_array(shape, "float32", 4)
    x = distribute(g, *case)
    nd = len(shape)
    choices = [(s, d) for s in range(-nd, nd) for d in range(-nd, nd)]
    if nd > 1:
        choices += [((0, 1), (1, 0)), ((0, -1), (-1, 0))]
    for src, dst in choices:
        with xdist.count_collectives() as counts:
            y = xdist.moveaxis(x, src, dst)
        _no_messages(counts)
        assert_equal(y, np.moveaxis(g, src, dst))


@pytest.mark.parametrize(
    "src,dst,exc",
    [
        (0, 2, IndexError),
        ((0, 0), (0, 1), ValueError),
        ((0, 1), 0, ValueError),
        (0.0, 1, TypeError),
    ],
)
def test_moveaxis_errors(src, dst, exc):
    x = distribute(np.zeros((3, 4)), 0)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="moveaxis"):
        xdist.moveaxis(x, src, dst)
    _no_messages(counts)


@with_cases
def test_flip(shape, case):
    g = random_array(shape, "int64", 5)
    x = distribute(g, *case)
    nd = len(shape)
    for axis in [None, *range(-nd, nd), (-1, 0) if nd > 1 else (0,), tuple(range(nd))]:
        with xdist.count_collectives() as counts:
            y = xdist.flip(x, axis=axis)
        assert_equal(y, np.flip(g, axis=axis))
        axes = range(nd) if axis is None else np.atleast_1d(axis) % nd
        if _moves_split(x, list(axes)):
            assert dict(counts) == {"sendrecv": 1}  # a swap with the mirror rank, no all-to-all
            assert y.counts == x.counts[::-1]
        else:
            _no_messages(counts)
            assert y.layout == x.layout


def test_flip_0d_and_errors():
    assert_equal(xdist.flip(distribute(np.array(2.5))), np.array(2.5))
    x = distribute(np.zeros((3, 4)), 0)
    for axis, exc in [(2, IndexError), ((0, 0), ValueError), (1.0, TypeError)]:
        with xdist.count_collectives() as counts, pytest.raises(exc, match="flip"):
            xdist.flip(x, axis=axis)
        _no_messages(counts)


# -- roll -----------------------------------------------------------------------------------------
SHIFTS = [0, 1, -3, 17, -100]


@with_cases
def test_roll_one_axis(shape, case):
    g = random_array(shape, "complex128", 6)
    x = distribute(g, *case)
    for axis in range(-len(shape), len(shape)):
        for shift in SHIFTS:
            with xdist.count_collectives() as counts:
                y = xdist.roll(x, shift, axis=axis)
            assert_equal(y, np.roll(g, shift, axis=axis))
            assert y.layout == x.layout
            n = shape[axis]
            if _moves_split(x, [axis % len(shape)]) and n and shift % n and g.size:
                assert dict(counts) == {"alltoallv": 1}
            else:
                _no_messages(counts)


@with_cases
def test_roll_flat_and_tuples(shape, case):
    g = random_array(shape, "int16", 7)
    x = distribute(g, *case)
    for shift in SHIFTS:
        with xdist.count_collectives() as counts:
            y = xdist.roll(x, shift)
        assert_equal(y, np.roll(g, shift))
        if x.split == 0 or x.split is None:  # flattening is local: at most the one all-to-all
            assert set(counts) <= {"alltoallv"} and counts["alltoallv"] <= 1
    nd = len(shape)
    if nd > 1:
        for shift, axis in [((2, -1), (0, 1)), (3, (0, -1)), ((1, 4), (1, 1)), ((-9, 2), (-1, 0))]:
            assert_equal(xdist.roll(x, shift, axis=axis), np.roll(g, shift, axis=axis))


def test_roll_0d_and_errors():
    assert_equal(xdist.roll(distribute(np.array(7)), 3), np.array(7))
    x = distribute(np.zeros((3, 4)), 0)
    bad = [
        ({"shift": 1, "axis": 2}, IndexError),
        ({"shift": (1, 2), "axis": (0, 1, 1)}, ValueError),
        ({"shift": (1, 2)}, TypeError),
        ({"shift": 1.5}, TypeError),
        ({"shift": 1, "axis": 0.0}, TypeError),
    ]
    for kwargs, exc in bad:
        with xdist.count_collectives() as counts, pytest.raises(exc, match="roll"):
            xdist.roll(x, **kwargs)
        _no_messages(counts)


# -- repeat ---------------------------------------------------------------------------------------
@with_cases
def test_repeat_int(shape, case):
    g = random_array(shape, "uint8", 8)
    x = distribute(g, *case)
    for axis in [None, *range(-len(shape), len(shape))]:
        for repeats in (0, 1, 3):
            with xdist.count_collectives() as counts:
                y = xdist.repeat(x, repeats, axis=axis)
            assert_equal(y, np.repeat(g, repeats, axis=axis))
            if axis is not None:
                _no_messages(counts)  # no data of x moves, counts are known
            if axis is not None and y.split == axis % len(shape) and SIZE > 1:
                assert y.counts == tuple(c * repeats for c in x.counts)


def _repeats_for(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 4, size=n).astype(np.int32)


REPEATS_KINDS = ["rep", "s0", "s0u", "one"]


@with_cases
@pytest.mark.parametrize("rkind", REPEATS_KINDS)
def test_repeat_array(shape, case, rkind):
    g = random_array(shape, "float64", 9)
    x = distribute(g, *case)
    for axis in [None, *range(len(shape))]:
        m = g.size if axis is None else shape[axis]
        r = np.array([2], np.int64) if rkind == "one" else _repeats_for(m, m + 1)
        split = None if rkind == "rep" else 0
        rcounts = uneven_counts(r.shape[0], SIZE) if rkind == "s0u" else None
        reps = distribute(r, split, rcounts)
        with xdist.count_collectives() as counts:
            y = xdist.repeat(x, reps, axis=axis)
        assert_equal(y, np.repeat(g, r, axis=axis))
        if axis is not None and rkind == "rep":
            _no_messages(counts)  # replicated repeats: every count is known locally
        if axis is not None:
            assert counts["alltoallv"] <= 1 and "allgatherv" not in counts or x.split != axis


def test_repeat_exact_counts():
    g = random_array((6, 2), "int32", 10)
    r = np.array([0, 5, 1, 0, 2, 3])
    x = distribute(g, 0, uneven_counts(6, SIZE))
    y = xdist.repeat(x, distribute(r), axis=0)
    expected = tuple(int(r[slice(*x.layout.local_range(k))].sum()) for k in range(SIZE))
    assert y.counts == expected
    assert_equal(y, np.repeat(g, r, axis=0))


@pytest.mark.parametrize("rsplit", [None, 0])
def test_repeat_negative_array_raises_everywhere(rsplit):
    x = distribute(np.zeros((4, 3)), 0)
    reps = distribute(np.array([1, -1, 2, 0]), rsplit)
    with pytest.raises(ValueError, match="repeat"):
        xdist.repeat(x, reps, axis=0)
    with pytest.raises(ValueError, match="repeat"):
        xdist.repeat(x, reps[:3], axis=1)


@pytest.mark.parametrize(
    "repeats,axis,exc",
    [
        (-1, 0, ValueError),
        (2.0, 0, TypeError),
        (True, 0, TypeError),
        (2, 2, IndexError),
        (2, 0.0, TypeError),
        ("float", 0, TypeError),
        ("shape", 0, ValueError),
        ("2d", 0, ValueError),
    ],
)
def test_repeat_errors(repeats, axis, exc):
    x = distribute(np.zeros((4, 3)), 0)
    arrays = {
        "float": np.ones(4),
        "shape": np.ones(3, dtype=np.int64),
        "2d": np.ones((4, 1), dtype=np.int64),
    }
    if isinstance(repeats, str):
        repeats = distribute(arrays[repeats], 0)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="repeat"):
        xdist.repeat(x, repeats, axis=axis)
    _no_messages(counts)


def test_repeat_0d():
    g = np.array(4.0)
    assert_equal(xdist.repeat(distribute(g), 3), np.repeat(g, 3))
    assert_equal(xdist.repeat(distribute(g), distribute(np.array([2]))), np.repeat(g, [2]))


# -- tile -----------------------------------------------------------------------------------------
TILES = [(2,), (1, 3), (3, 1), (2, 1, 1), (2, 2, 2, 2), (0, 2), (1,)]


@with_cases
def test_tile(shape, case):
    g = random_array(shape, "bool", 11)
    x = distribute(g, *case)
    for reps in TILES:
        with xdist.count_collectives() as counts:
            y = xdist.tile(x, reps)
        assert_equal(y, np.tile(g, reps))
        full = (1,) * (len(shape) - len(reps)) + reps
        if x.split is not None:
            axis = x.split + max(len(reps) - len(shape), 0)
            assert y.split == axis
            k = full[x.split - len(shape)] if len(reps) >= len(shape) - x.split else 1
            if SIZE > 1 and k > 1 and y.size:
                assert dict(counts) == {"alltoallv": 1}
                assert y.layout.is_balanced
            else:
                _no_messages(counts)
        else:
            _no_messages(counts)


def test_tile_0d_and_errors():
    g = np.array(3)
    assert_equal(xdist.tile(distribute(g), (2, 3)), np.tile(g, (2, 3)))
    assert_equal(xdist.tile(distribute(g), ()), np.tile(g, ()))
    x = distribute(np.zeros((3, 4)), 0)
    for reps, exc in [((-1,), ValueError), ((2.0,), TypeError), (2, TypeError)]:
        with xdist.count_collectives() as counts, pytest.raises(exc, match="tile"):
            xdist.tile(x, reps)
        _no_messages(counts)


# -- unstack --------------------------------------------------------------------------------------
@with_cases
def test_unstack(shape, case):
    g = random_array(shape, "int8", 12)
    x = distribute(g, *case)
    for axis in range(-len(shape), len(shape)):
        with xdist.count_collectives() as counts:
            ys = xdist.unstack(x, axis=axis)
        expected = [np.take(g, i, axis=axis) for i in range(shape[axis])]
        assert isinstance(ys, tuple) and len(ys) == len(expected)
        for y, e in zip(ys, expected):
            assert_equal(y, e)
        a = axis % len(shape)
        if _moves_split(x, [a]) and len(shape) == 1:  # 0-d slices are replicated: one gather
            assert dict(counts) == ({"allgatherv": 1} if shape[a] else {})
            assert all(y.split is None for y in ys)
        elif _moves_split(x, [a]):  # each slice stays whole on the rank that owns it
            _no_messages(counts)
            for i, y in enumerate(ys):
                assert y.split == 0 and y.counts[x.layout.owner(i)] == y.shape[0]
        else:
            _no_messages(counts)
            if x.split is not None and x.split != a:
                assert all(y.counts == x.counts for y in ys)


def test_unstack_errors():
    for x, axis, exc in [
        (distribute(np.zeros((3, 4)), 0), 2, IndexError),
        (distribute(np.zeros((3, 4)), 0), 0.0, TypeError),
        (distribute(np.array(1.0)), 0, IndexError),
    ]:
        with xdist.count_collectives() as counts, pytest.raises(exc, match="unstack"):
            xdist.unstack(x, axis=axis)
        _no_messages(counts)


@comm_params
def test_on_every_comm(comm):
    g = random_array((7, 4), "float64", 13)
    x = distribute(g, 0, comm=comm)
    assert_equal(xdist.flip(x, axis=0), np.flip(g, axis=0))
    assert_equal(xdist.roll(x, 3, axis=0), np.roll(g, 3, axis=0))
    assert_equal(xdist.tile(x, (2, 1)), np.tile(g, (2, 1)))
    assert_equal(xdist.repeat(x, 2, axis=0), np.repeat(g, 2, axis=0))
    y = xdist.broadcast_to(x, (2, 7, 4))
    assert y.comm is comm
    assert_equal(y, np.broadcast_to(g, (2, 7, 4)))
