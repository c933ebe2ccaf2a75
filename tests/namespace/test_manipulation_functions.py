"""Manipulation functions against NumPy over every layout, and the messages they send."""

from __future__ import annotations

import itertools
import warnings

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
    shares_memory,
    uneven_counts,
)

import xdist

SHAPES = [(7, 5), (2, 3), (3, 4, 5), (4, 0)]
CASES = [(shape, case) for shape in SHAPES for case in layouts(shape)]
CASE_IDS = [f"{'x'.join(map(str, s))}-{layout_id(c)}" for s, c in CASES]


def _layout_of(kind: str, shape: tuple[int, ...]):
    """A layout case by name, for a given shape: rep, s<axis> (balanced), s0u (uneven)."""
    if kind == "rep":
        return None, None
    if kind == "s0u":
        return 0, uneven_counts(shape[0], SIZE)
    return int(kind[1:]), None


def _sent(counts) -> int:
    return sum(counts.values())


# -- permute_dims, expand_dims, squeeze -----------------------------------------------------------
@pytest.mark.parametrize("shape,case", CASES, ids=CASE_IDS)
def test_permute_dims(shape, case):
    g = random_array(shape, "float64", 1)
    x = distribute(g, *case)
    for perm in itertools.permutations(range(len(shape))):
        with xdist.count_collectives() as counts:
            y = xdist.permute_dims(x, perm)
        assert _sent(counts) == 0
        assert y.split == (None if x.split is None else perm.index(x.split))
        assert_equal(y, np.transpose(g, perm))
    neg = tuple(a - len(shape) for a in reversed(range(len(shape))))
    assert_equal(xdist.permute_dims(x, neg), np.transpose(g, neg))


@pytest.mark.parametrize("case", layouts((7, 5)), ids=layout_id)
def test_T(case):
    g = random_array((7, 5), "int32", 2)
    assert_equal(distribute(g, *case).T, g.T)


def test_permute_dims_0d():
    g = np.array(3.5)
    assert_equal(xdist.permute_dims(distribute(g), ()), g)


@pytest.mark.parametrize(
    "axes,exc",
    [
        ((0,), ValueError),
        ((0, 0), ValueError),
        ((0, 2), IndexError),
        ((0, 1.0), TypeError),
        (0, TypeError),
    ],
)
def test_permute_dims_errors(axes, exc):
    x = distribute(np.zeros((3, 4)), 0)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="permute_dims"):
        xdist.permute_dims(x, axes)
    assert _sent(counts) == 0


@pytest.mark.parametrize("shape,case", CASES + [((), (None, None))], ids=CASE_IDS + ["0d-rep"])
def test_expand_dims(shape, case):
    g = random_array(shape, "int64", 3)
    x = distribute(g, *case)
    for axis in range(-len(shape) - 1, len(shape) + 1):
        with xdist.count_collectives() as counts:
            y = xdist.expand_dims(x, axis=axis)
        assert _sent(counts) == 0
        assert_equal(y, np.expand_dims(g, axis))
    with pytest.raises(IndexError, match="expand_dims"):
        xdist.expand_dims(x, axis=len(shape) + 1)


SQUEEZE_SHAPES = [(1, 5), (3, 1, 4), (1, 1), (1,), (4, 1, 0), (1, 3, 1)]


@pytest.mark.parametrize("shape", SQUEEZE_SHAPES, ids=str)
def test_squeeze(shape):
    g = random_array(shape, "float32", 4)
    ones = tuple(i for i, n in enumerate(shape) if n == 1)
    choices = [(a,) for a in ones] + [ones, ()]
    for case in layouts(shape):
        x = distribute(g, *case)
        for axes in choices:
            with xdist.count_collectives() as counts:
                y = xdist.squeeze(x, axes if len(axes) != 1 else axes[0] - len(shape))
            if x.split not in axes:
                assert _sent(counts) == 0
            assert "allgatherv" not in counts or y.ndim == 0  # never a gather of the data
            assert_equal(y, np.squeeze(g, axes))


@pytest.mark.parametrize(
    "axis,exc",
    [(0, ValueError), ((1, 1), ValueError), (3, IndexError), (None, TypeError), (1.0, TypeError)],
)
def test_squeeze_errors(axis, exc):
    x = distribute(np.zeros((3, 1, 4)), 0)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="squeeze"):
        xdist.squeeze(x, axis)
    assert _sent(counts) == 0


# -- reshape --------------------------------------------------------------------------------------
RESHAPES = [
    ((6, 4), (24,)),
    ((6, 4), (3, 8)),
    ((6, 4), (4, 6)),
    ((6, 4), (-1,)),
    ((6, 4), (2, 3, 4)),
    ((6, 4), (6, 2, 2)),
    ((6, 4), (1, 24, 1)),
    ((2, 3, 4), (6, 4)),
    ((2, 3, 4), (4, -1)),
    ((2, 3, 4), (2, 12)),
    ((2, 3, 4), (2, 3, 2, 2)),
    ((24,), (2, 3, 4)),
    ((24,), (4, 6)),
    ((7, 5), (5, 7)),
    ((7, 5), (35, 1)),
    ((2, 3), (3, 2)),
    ((4, 0), (0, 4)),
    ((4, 0), (2, 0, 3)),
    ((4, 0), (-1,)),
    ((1, 1), ()),
    ((1,), ()),
    ((), (1, 1)),
    ((), (-1,)),
]


@pytest.mark.parametrize("old,new", RESHAPES, ids=str)
def test_reshape(old, new):
    g = random_array(old, "float64", 5)
    expected = np.reshape(g, new)
    for case in layouts(old):
        x = distribute(g, *case)
        with xdist.count_collectives() as counts:
            y = xdist.reshape(x, new)
        assert "allgatherv" not in counts or y.ndim == 0  # never a gather of the data
        assert counts["alltoallv"] <= 2
        assert_equal(y, expected)
        assert y.split is None if (x.split is None or not new) else y.split is not None


# Reshapes that keep the split axis: local whatever the counts.
LOCAL = [
    ((6, 4), 0, (6, 2, 2)),
    ((6, 4), 1, (2, 3, 4)),
    ((6, 4), 0, (24,)),
    ((2, 3, 4), 2, (6, 4)),
    ((2, 3, 4), 1, (2, 3, 2, 2)),
    ((2, 3, 4), 0, (2, 12)),
    ((7, 5), 1, (7, 5, 1)),
    ((4, 0), 0, (0, 4)),
    ((4, 0), 1, (2, 2, 0)),
]


@pytest.mark.parametrize("old,split,new", LOCAL, ids=str)
@pytest.mark.parametrize("uneven", [False, True])
def test_reshape_local_sends_nothing(old, split, new, uneven):
    g = random_array(old, "int16", 6)
    counts = uneven_counts(old[split], SIZE) if uneven else None
    x = distribute(g, split, counts)
    with xdist.count_collectives() as sent:
        y = xdist.reshape(x, new)
    assert _sent(sent) == 0
    assert_equal(y, g.reshape(new))


def test_reshape_aligned_split0_keeps_counts():
    # (6, 4) in blocks of 2 rows is 8 elements per rank: whole rows of (3, 8) stay put.
    g = random_array((6 * SIZE, 4), "float64", 7)
    x = distribute(g, 0)
    with xdist.count_collectives() as sent:
        y = xdist.reshape(x, (3 * SIZE, 8))
    assert _sent(sent) == 0
    assert y.counts == (3,) * SIZE
    assert_equal(y, g.reshape(3 * SIZE, 8))


def test_reshape_nonlocal_messages():
    g = random_array((6, 4), "float64", 8)
    x1, x0 = distribute(g, 1), distribute(g, 0, uneven_counts(6, SIZE))
    with xdist.count_collectives() as sent:  # split 1 -> split 0, then flat ranges
        y = xdist.reshape(x1, (4, 6))
    assert_equal(y, g.reshape(4, 6))
    assert sent["alltoallv"] <= (2 if SIZE > 1 else 0) and set(sent) <= {"alltoallv"}
    with xdist.count_collectives() as sent:  # already split 0: one all-to-all
        y = xdist.reshape(x0, (4, 6))
    assert dict(sent) == ({"alltoallv": 1} if SIZE > 1 else {})
    assert y.counts == xdist.Layout.balanced((4, 6), 0, SIZE).counts
    assert_equal(y, g.reshape(4, 6))


@comm_params
def test_reshape_on_every_comm(comm):
    g = random_array((5, 6), "complex128", 9)
    x = distribute(g, 1, comm=comm)
    assert_equal(xdist.reshape(x, (3, 10)), g.reshape(3, 10))
    assert_equal(xdist.reshape(x, (30,)), g.reshape(30))
    h = random_array((2, 6), "complex128", 12)
    y = xdist.concat([x, distribute(h, 0, comm=comm)], axis=0)
    assert y.comm is comm
    assert_equal(y, np.concatenate([g, h]))
    assert_equal(xdist.stack([x, x], axis=2), np.stack([g, g], axis=2))


@pytest.mark.parametrize(
    "shape,exc",
    [
        ((-1, -1), ValueError),
        ((5, 5), ValueError),
        ((-2, -12), ValueError),
        ((7, -1), ValueError),
        ((2.0, 12), TypeError),
        ("24", TypeError),
    ],
)
def test_reshape_errors(shape, exc):
    x = distribute(np.zeros((6, 4)), 1)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="reshape"):
        xdist.reshape(x, shape)
    assert _sent(counts) == 0


def test_reshape_zero_size_minus_one_is_ambiguous():
    with pytest.raises(ValueError, match="reshape"):
        xdist.reshape(distribute(np.zeros((4, 0)), 0), (0, -1))


def test_reshape_copy():
    g = random_array((6, 4), "float64", 10)
    x = distribute(g, 0)
    view = xdist.reshape(x, (6, 2, 2), copy=False)
    assert shares_memory(view.local, x.local) or x.local.size == 0
    copied = xdist.reshape(x, (6, 2, 2), copy=True)
    assert not shares_memory(copied.local, x.local)
    assert_equal(copied, g.reshape(6, 2, 2))
    if SIZE > 1:
        x1 = distribute(g, 1)
        with xdist.count_collectives() as counts, pytest.raises(ValueError, match="copy=False"):
            xdist.reshape(x1, (24,), copy=False)
        assert _sent(counts) == 0


def test_reshape_to_its_own_shape_is_the_array_itself():
    """``reshape(x, x.shape)`` (and ``-1`` of a 1-D array: SciPy's ``xp_ravel``) without
    ``copy=True`` is ``x``: writes reach it, and an array made replicated by default keeps
    taking the split of split data written into it; ``copy=True`` copies."""
    g = random_array((7,), "float64", 12)
    x = distribute(g, 0, uneven_counts(7, SIZE))
    for shape, copy in (((7,), None), ((-1,), None), ((7,), False)):
        assert xdist.reshape(x, shape, copy=copy) is x
    copied = xdist.reshape(x, (7,), copy=True)
    assert copied is not x and (not shares_memory(copied.local, x.local) or x.local.size == 0)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        z = xdist.reshape(xdist.zeros(7, dtype=xdist.float64), (-1,))
        z[x > 0] = x[x > 0]
    assert z.split == 0 and z.counts == x.counts
    assert_equal(z, np.where(g > 0, g, 0.0))


def test_reshape_copy_false_needs_a_view():
    g = random_array((4, 6), "float64", 11)
    x = xdist.permute_dims(distribute(g, 1), (1, 0))  # non-contiguous blocks
    with pytest.raises(ValueError, match="copy=False"):
        xdist.reshape(x, (24,), copy=False)
    assert_equal(xdist.reshape(x, (24,)), g.T.reshape(24))
    assert_equal(xdist.reshape(x, (6, 2, 2), copy=False), g.T.reshape(6, 2, 2))


# -- concat -------------------------------------------------------------------------------------
KINDS_2D = ["rep", "s0", "s1", "s0u"]


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("kinds", list(itertools.product(KINDS_2D, repeat=2)), ids="-".join)
def test_concat_two(axis, kinds):
    sizes = [(7, 4), (2, 4)] if axis == 0 else [(5, 3), (5, 2)]
    parts = [random_array(s, "float64", 20 + i) for i, s in enumerate(sizes)]
    xs = [distribute(p, *_layout_of(k, p.shape)) for p, k in zip(parts, kinds)]
    with xdist.count_collectives() as counts:
        y = xdist.concat(xs, axis=axis)
    assert set(counts) <= {"alltoallv"} and counts["alltoallv"] <= 1
    assert_equal(y, np.concatenate(parts, axis=axis))


KINDS_3D = ["rep", "s0", "s1", "s2", "s0u"]
TRIPLES = [
    ("s0", "s0u", "rep"),
    ("s1", "s1", "s1"),
    ("s2", "s0", "s1"),
    ("rep", "rep", "s2"),
    ("s0u", "s0u", "s0u"),
    ("rep", "rep", "rep"),
    ("s1", "rep", "s1"),
]


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("kinds", TRIPLES, ids="-".join)
def test_concat_three(axis, kinds):
    base = [3, 4, 2]
    parts = []
    for i, n in enumerate([5, 0, 2]):
        shape = list(base)
        shape[axis] = n
        parts.append(random_array(tuple(shape), "int32", 30 + i))
    kinds = [
        k if k == "rep" or int(k[1]) != axis or n > 0 else "rep" for k, n in zip(kinds, [5, 0, 2])
    ]
    xs = [distribute(p, *_layout_of(k, p.shape)) for p, k in zip(parts, kinds)]
    with xdist.count_collectives() as counts:
        y = xdist.concat(xs, axis=axis)
    assert set(counts) <= {"alltoallv"} and counts["alltoallv"] <= 1
    assert_equal(y, np.concatenate(parts, axis=axis))


@pytest.mark.parametrize("split,counts", [(0, None), (1, None), (None, None), (0, "uneven")])
def test_concat_messages(split, counts):
    a, b = random_array((7, 5), "float64", 40), random_array((4, 5), "float64", 41)
    xa = distribute(a, split, uneven_counts(7, SIZE) if counts else None)
    xb = distribute(b, split, uneven_counts(4, SIZE) if counts else None)
    for axis in (0, 1):
        other = b if axis == 0 else random_array((7, 2), "float64", 42)
        xo = (
            xb
            if axis == 0
            else distribute(other, split, uneven_counts(7, SIZE) if counts else None)
        )
        with xdist.count_collectives() as sent:
            y = xdist.concat([xa, xo], axis=axis)
        if split is None or SIZE == 1 or split != axis:
            assert _sent(sent) == 0
        else:
            assert dict(sent) == {"alltoallv": 1}  # one all-to-all, never a gather
            assert y.counts == xdist.Layout.balanced(y.shape, axis, SIZE).counts
        assert y.split == split
        assert_equal(y, np.concatenate([a, other], axis=axis))


@pytest.mark.parametrize(
    "kinds", [("rep", "s0"), ("s0", "s0u"), ("s0u", "rep", "s0")], ids="-".join
)
def test_concat_axis_none(kinds):
    shapes = [(3, 4), (5,), (2, 0, 3)][: len(kinds)]
    parts = [random_array(s, "int64", 50 + i) for i, s in enumerate(shapes)]
    xs = [distribute(p, *_layout_of(k, p.shape)) for p, k in zip(parts, kinds)]
    assert_equal(xdist.concat(xs, axis=None), np.concatenate(parts, axis=None))


def test_concat_axis_none_0d_and_split_1():
    a, b = np.array(2.5), random_array((3, 4), "float64", 51)
    y = xdist.concat([distribute(a), distribute(b, 1)], axis=None)
    assert_equal(y, np.concatenate([a, b], axis=None))


def test_concat_single_and_tuple():
    g = random_array((7, 5), "float64", 52)
    for case in layouts(g.shape):
        assert_equal(xdist.concat((distribute(g, *case),), axis=1), g)


@pytest.mark.parametrize(
    "dtypes,expected",
    [
        (("int8", "int16"), "int16"),
        (("uint8", "int8"), "int16"),
        (("float32", "float64"), "float64"),
        (("float64", "complex64"), "complex128"),
        (("bool", "bool"), "bool"),
        (("uint32", "int32", "int8"), "int64"),
        (("int32", "float32"), "float64"),
        (("bool", "int8"), "int8"),  # mixed kinds: as NumPy
    ],
)
def test_concat_promotes(dtypes, expected):
    parts = [random_array((3, 2), d, 60 + i) for i, d in enumerate(dtypes)]
    xs = [distribute(p, i % 2 if SIZE > 1 else 0) for i, p in enumerate(parts)]
    y = xdist.concat(xs, axis=0)
    assert y.dtype == np.dtype(expected)
    assert_equal(y, np.concatenate([p.astype(expected) for p in parts]))
    s = xdist.stack(xs, axis=1)
    assert_equal(s, np.stack([p.astype(expected) for p in parts], axis=1))


def _d(shape, dtype="float64", split=0, comm=None):
    return lambda: distribute(np.zeros(shape, dtype), split if shape else None, comm=comm)


BAD_CONCATS = {  # name: (input makers, keyword arguments, error)
    "empty": ([], {}, ValueError),
    "shapes": ([_d((3, 4)), _d((3, 5))], {}, ValueError),
    "ndim": ([_d((3, 4)), _d((3, 4, 1))], {}, ValueError),
    "axis": ([_d((3, 4)), _d((3, 4))], {"axis": 2}, IndexError),
    "axis-type": ([_d((3, 4))], {"axis": 1.0}, TypeError),
    "0-d": ([_d(())], {}, ValueError),
    "comm": ([_d((3, 4)), _d((3, 4), comm=xdist.SelfComm())], {}, ValueError),
    "not-an-array": ([_d((3, 4)), lambda: np.zeros((3, 4))], {}, TypeError),
}


@pytest.mark.parametrize("name", list(BAD_CONCATS))
def test_concat_errors(name):
    makers, kwargs, exc = BAD_CONCATS[name]
    arrays = [make() for make in makers]
    with xdist.count_collectives() as counts, pytest.raises(exc, match="concat"):
        xdist.concat(arrays, **kwargs)
    assert _sent(counts) == 0


def test_concat_not_a_list():
    with pytest.raises(TypeError, match="concat"):
        xdist.concat(distribute(np.zeros((3, 4)), 0))


# -- stack --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kinds",
    [
        ("rep", "rep"),
        ("s0", "s0"),
        ("s1", "rep"),
        ("s0", "s1"),
        ("s0u", "s0", "rep"),
        ("s0u", "s0u"),
    ],
    ids="-".join,
)
def test_stack(kinds):
    parts = [random_array((7, 5), "float64", 70 + i) for i in range(len(kinds))]
    xs = [distribute(p, *_layout_of(k, p.shape)) for p, k in zip(parts, kinds)]
    same = all(k == "rep" for k in kinds) or len({k for k in kinds if k != "rep"}) == 1
    for axis in range(-3, 3):
        with xdist.count_collectives() as counts:
            y = xdist.stack(xs, axis=axis)
        if same:
            assert _sent(counts) == 0
        assert set(counts) <= {"alltoallv"} and counts["alltoallv"] <= 1
        assert_equal(y, np.stack(parts, axis=axis))


@pytest.mark.parametrize("shape", [(), (4, 0), (2, 3)], ids=str)
def test_stack_shapes(shape):
    parts = [random_array(shape, "int8", 80 + i) for i in range(3)]
    for case in layouts(shape):
        xs = [distribute(p, *case) for p in parts]
        for axis in range(len(shape) + 1):
            assert_equal(xdist.stack(xs, axis=axis), np.stack(parts, axis=axis))


@pytest.mark.parametrize(
    "args,exc",
    [
        (lambda a: ([],), ValueError),
        (lambda a: ([a, distribute(np.zeros((3, 5)), 0)],), ValueError),
        (lambda a: ([a, a], 3), IndexError),
        (lambda a: ([a, a], 1.0), TypeError),
    ],
)
def test_stack_errors(args, exc):
    a = distribute(np.zeros((3, 4)), 0)
    call = args(a)
    with xdist.count_collectives() as counts, pytest.raises(exc, match="stack"):
        xdist.stack(call[0], **({"axis": call[1]} if len(call) > 1 else {}))
    assert _sent(counts) == 0
