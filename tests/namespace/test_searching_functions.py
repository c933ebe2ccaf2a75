"""Searching functions against NumPy: argmax/argmin (ties, NaNs, 64-bit keys), count_nonzero,
nonzero, where and searchsorted over every layout, with empty and uneven blocks; how much they
communicate; errors raised before any message."""

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

SHAPES = [(7,), (2,), (7, 5), (2, 3), (3, 4, 5), (), (4, 0)]


def _cases(shapes):
    return [
        pytest.param(shape, case, id=f"{shape}-{layout_id(case)}")
        for shape in shapes
        for case in layouts(shape)
    ]


def _no_messages(counts) -> None:
    assert sum(counts.values()) == 0, dict(counts)


def _expect(counts, **expected) -> None:
    """Exactly ``expected`` collectives at several ranks, none at one."""
    want = {k: v for k, v in expected.items() if v} if SIZE > 1 else {}
    assert dict(counts) == want, (dict(counts), want)


# -- argmax, argmin -------------------------------------------------------------------------------
def search_data(shape, dtype, seed=0) -> np.ndarray:
    """Values with many ties (small integers), NaNs for floats, and 64-bit values that differ
    only in their low bits (a float64 value would round them together)."""
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    small = rng.integers(-3, 4, size=shape)
    if dtype == np.int64:
        return (np.int64(2**62) + small).astype(np.int64)
    if dtype == np.uint64:
        return (np.uint64(2**63) + (small + 3).astype(np.uint64)).astype(np.uint64)
    if dtype.kind == "u":
        return (small + 3).astype(dtype)
    g = small.astype(dtype)
    if dtype.kind == "f" and g.size:
        g[rng.random(shape) < 0.15] = np.nan
    return g


def axis_choices(ndim):
    return [None, *range(ndim), *([-1] if ndim else [])]


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("shape,case", _cases(SHAPES))
def test_argmax_argmin(func, dtype, shape, case):
    split, counts = case
    g = search_data(shape, dtype)
    x = distribute(g, split, counts)
    for axis in axis_choices(len(shape)):
        reduced = range(len(shape)) if axis is None else (axis % len(shape),)
        for keepdims in (False, True):
            try:
                expected = getattr(np, func)(g, axis=axis, keepdims=keepdims)
            except ValueError:
                with xdist.count_collectives() as c, pytest.raises(ValueError, match=func):
                    getattr(xdist, func)(x, axis=axis, keepdims=keepdims)
                _no_messages(c)
                continue
            with xdist.count_collectives() as c:
                got = getattr(xdist, func)(x, axis=axis, keepdims=keepdims)
            assert_equal(got, np.asarray(expected, dtype=np.int64))
            over_split = split is not None and split in reduced
            _expect(c, allreduce=int(over_split))
            if split is not None and not over_split:
                assert got.split == (split if keepdims else split - (axis % len(shape) < split))
                assert got.counts == x.counts
            else:
                assert got.split is None


# Shapes whose blocks hold thousands of short lines at 1 to 3 ranks: the backends search
# those by whole-array passes (``arg_best``) instead of line by line. A line of at most 16
# (moved first by a copy) or 256 (already first and contiguous: weights in int16 above 127);
# (30000, 17) is just past the first limit, left to NumPy and Torch. Ties, NaNs and 64-bit
# values as above.
SHORT_AXES = [
    ((30000, 8), 1),
    ((30000, 16), -1),
    ((30000, 17), 1),
    ((30000, 2), 1),
    ((8, 30000), 0),
    ((200, 13000), 0),
    ((3, 9000, 5), 2),
    ((5, 4200, 3), 0),
]


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("shape,axis", SHORT_AXES, ids=str)
def test_argmax_argmin_along_short_axes(func, dtype, shape, axis):
    g = search_data(shape, dtype, seed=4)
    expected = {keep: getattr(np, func)(g, axis=axis, keepdims=keep) for keep in (False, True)}
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for keepdims in (False, True):
            got = getattr(xdist, func)(x, axis=axis, keepdims=keepdims)
            assert_equal(got, np.asarray(expected[keepdims], dtype=np.int64))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_argmax_argmin_short_axes_special_values(func):
    """Signed zeros, infinities and NaN anywhere in a line of the whole-array passes."""
    rng = np.random.default_rng(5)
    values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0])
    g = values[rng.integers(0, len(values), size=(30000, 6))]
    g[::7] = 0.0  # lines of tied signed zeros
    g[::11] = -0.0
    for split, counts in layouts(g.shape):
        for axis in (0, 1):
            got = getattr(xdist, func)(distribute(g, split, counts), axis=axis)
            assert_equal(got, getattr(np, func)(g, axis=axis).astype(np.int64))


@pytest.mark.parametrize("func", ["argmax", "argmin"])
@pytest.mark.parametrize(
    "values",
    [
        [1.0, np.nan, 3.0, np.nan, 0.0, 2.0, 5.0],  # the first NaN wins
        [-np.inf, -np.inf, 0.0, -0.0, np.inf, np.inf, 1.0],  # infinities and signed zeros
        [7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0],  # all tied: index 0
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, np.nan],  # NaN on the last rank
    ],
)
def test_argmax_argmin_special_values(func, values):
    g = np.array(values)
    for split, counts in layouts(g.shape):
        got = getattr(xdist, func)(distribute(g, split, counts))
        assert_equal(got, np.asarray(getattr(np, func)(g), dtype=np.int64))


@comm_params
def test_argmax_on_every_communicator(comm):
    g = search_data((7, 5), "float64", seed=3)
    for split in (0, 1):
        x = distribute(g, split, comm=comm)
        for axis in (None, 0, 1):
            got = xdist.argmax(x, axis=axis)
            np.testing.assert_array_equal(got.to_numpy(), np.argmax(g, axis=axis))


def test_argmax_collectives():
    """Over the split axis: exactly one allreduce; over another axis: nothing."""
    g = random_array((6, 4), "float64")
    x = distribute(g, 0)
    with xdist.count_collectives() as c:
        xdist.argmax(x, axis=0)
    _expect(c, allreduce=1)
    with xdist.count_collectives() as c:
        xdist.argmin(x, axis=None)
    _expect(c, allreduce=1)
    with xdist.count_collectives() as c:
        xdist.argmax(x, axis=1)
    _no_messages(c)


@pytest.mark.parametrize(
    "g,kwargs,error",
    [
        (np.zeros((3, 2), complex), {}, TypeError),
        (np.zeros((3, 2), bool), {}, TypeError),
        (np.zeros((3, 2)), {"axis": 2}, IndexError),
        (np.zeros((3, 2)), {"axis": 1.0}, TypeError),
        (np.zeros((3, 2)), {"keepdims": 1}, TypeError),
        (np.zeros((3, 0)), {"axis": 1}, ValueError),
        (np.zeros((0,)), {}, ValueError),
    ],
)
@pytest.mark.parametrize("func", ["argmax", "argmin"])
def test_argmax_argmin_errors_before_messages(func, g, kwargs, error):
    x = distribute(g, 0)
    with xdist.count_collectives() as c, pytest.raises(error, match=func):
        getattr(xdist, func)(x, **kwargs)
    _no_messages(c)


# -- count_nonzero ------------------------------------------------------------------------------
def nonzero_data(shape, dtype, seed=1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keep = rng.random(shape) < 0.5
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return keep
    if dtype.kind == "c":  # nonzero through either part
        parts = rng.integers(0, 2, size=shape) == 0
        return np.where(keep, np.where(parts, 1j, 2.0), 0).astype(dtype)
    if dtype.kind == "f":  # -0.0 is zero, NaN is not
        return np.where(keep, np.where(rng.random(shape) < 0.3, np.nan, 1.5), -0.0).astype(dtype)
    return np.where(keep, rng.integers(1, 5, size=shape), 0).astype(dtype)


def count_axes(ndim):
    out = [None, (), *range(ndim), *([-1] if ndim else [])]
    if ndim >= 2:
        out += [(0, 1), (-1, 0)]
    return out


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64", "complex128"])
@pytest.mark.parametrize("shape,case", _cases(SHAPES))
def test_count_nonzero(dtype, shape, case):
    split, counts = case
    g = nonzero_data(shape, dtype)
    x = distribute(g, split, counts)
    for axis in count_axes(len(shape)):
        axes = range(len(shape)) if axis is None else np.atleast_1d(axis) % max(len(shape), 1)
        for keepdims in (False, True):
            with xdist.count_collectives() as c:
                got = xdist.count_nonzero(x, axis=axis, keepdims=keepdims)
            expected = np.count_nonzero(g, axis=axis, keepdims=keepdims)
            assert_equal(got, np.asarray(expected, dtype=np.int64))
            _expect(c, allreduce=int(split is not None and split in list(axes)))


def test_count_nonzero_errors_before_messages():
    x = distribute(np.ones((3, 2)), 0)
    for kwargs, error in [({"axis": 2}, IndexError), ({"axis": (0, 0)}, ValueError)]:
        with xdist.count_collectives() as c, pytest.raises(error, match="count_nonzero"):
            xdist.count_nonzero(x, **kwargs)
        _no_messages(c)


# -- where ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,case", _cases([(7,), (2,), (7, 5), (2, 3), (), (4, 0)]))
def test_where_same_layout(shape, case):
    split, counts = case
    cond = random_array(shape, "bool", seed=2)
    a, b = random_array(shape, "float32", seed=3), random_array(shape, "float64", seed=4)
    xs = [distribute(v, split, counts) for v in (cond, a, b)]
    with xdist.count_collectives() as c:
        got = xdist.where(*xs)
    assert_equal(got, np.where(cond, a, b))
    _no_messages(c)


@pytest.mark.parametrize(
    "shapes",
    [((7, 1), (7, 5), (5,)), ((5,), (7, 1), ()), ((2, 3), (3,), (2, 1)), ((1,), (4, 0), (0,))],
)
def test_where_broadcasting(shapes):
    cond = random_array(shapes[0], "bool", seed=5)
    a = random_array(shapes[1], "int16", seed=6)
    b = random_array(shapes[2], "int32", seed=7)
    expected = np.where(cond, a, b)
    for split in (None, 0, -1):
        operands = [
            distribute(v, None if split is None or v.ndim == 0 else split) for v in (cond, a, b)
        ]
        assert_equal(xdist.where(*operands), expected)


@pytest.mark.parametrize(
    "dtype,x1,x2",
    [
        ("float32", 2.5, None),
        ("float32", None, -1),
        ("int8", 7, None),
        ("uint8", None, 200),
        ("bool", True, None),
        ("complex64", None, 1j),
        ("float64", None, float("nan")),
    ],
)
@pytest.mark.parametrize("shape,case", _cases([(7,), (7, 5)]))
def test_where_scalars(dtype, x1, x2, shape, case):
    split, counts = case
    cond = random_array(shape, "bool", seed=8)
    g = random_array(shape, dtype, seed=9)
    c, x = distribute(cond, split, counts), distribute(g, split, counts)
    args = (x1, x) if x2 is None else (x, x2)
    np_args = (x1, g) if x2 is None else (g, x2)
    with xdist.count_collectives() as counter:
        got = xdist.where(c, *args)
    expected = np.where(cond, *np_args)
    assert_equal(got, expected.astype(dtype))
    _no_messages(counter)


@pytest.mark.parametrize(
    "make,error",
    [
        (lambda d: xdist.where(d["x"], d["x"], d["x"]), TypeError),  # condition not bool
        (lambda d: xdist.where(d["c"], 1, 2.0), TypeError),  # two scalars
        (lambda d: xdist.where(d["c"], np.ones(7), d["x"]), TypeError),  # a NumPy array
        (lambda d: xdist.where(d["c"], d["i8"], 1.5), TypeError),
        (lambda d: xdist.where(d["c"], d["i8"], 300), OverflowError),
        (lambda d: xdist.where(d["c"], d["x"], True), TypeError),
        (lambda d: xdist.where(d["c"], d["x"], d["short"]), ValueError),
        (lambda d: xdist.where(1, d["x"], d["x"]), TypeError),
    ],
)
def test_where_errors_before_messages(make, error):
    d = {
        "c": distribute(np.ones(7, bool), 0),
        "x": distribute(np.ones(7), 0),
        "i8": distribute(np.ones(7, np.int8), 0),
        "short": distribute(np.ones(3), 0),
    }
    with xdist.count_collectives() as counter, pytest.raises(error, match="where"):
        make(d)
    _no_messages(counter)


# -- nonzero -------------------------------------------------------------------------------------
def _expected_counts(g: np.ndarray, x: xdist.Array) -> tuple[int, ...]:
    """Each rank's number of nonzeros in its row block (x moved to split 0 if it was not)."""
    counts = x.counts if x.split == 0 else xdist.Layout.balanced(g.shape, 0, SIZE).counts
    ends = np.cumsum((0, *counts))
    return tuple(int(np.count_nonzero(g[ends[r] : ends[r + 1]])) for r in range(SIZE))


@pytest.mark.parametrize("fill", ["random", "none", "all"])
@pytest.mark.parametrize("dtype", ["bool", "float64", "complex128"])
@pytest.mark.parametrize("shape,case", _cases([(7,), (2,), (7, 5), (2, 3), (3, 4, 5), (4, 0)]))
def test_nonzero(fill, dtype, shape, case):
    split, counts = case
    g = nonzero_data(shape, dtype, seed=11)
    if fill != "random":
        g = (np.ones if fill == "all" else np.zeros)(shape, dtype)
    x = distribute(g, split, counts)
    with xdist.count_collectives() as c:
        got = xdist.nonzero(x)
    expected = np.nonzero(g)
    assert isinstance(got, tuple) and len(got) == len(expected)
    for out, want in zip(got, expected):
        assert_equal(out, want.astype(np.int64))
    if split is None:
        assert all(out.split is None for out in got)
        _no_messages(c)
        return
    assert all(out.split == 0 and out.counts == _expected_counts(g, x) for out in got)
    _expect(c, allgather=1, alltoallv=int(split != 0))


def test_nonzero_zero_dim_raises_before_messages():
    x = distribute(np.array(3.0))
    with xdist.count_collectives() as c, pytest.raises(ValueError, match="nonzero"):
        xdist.nonzero(x)
    _no_messages(c)


# -- searchsorted --------------------------------------------------------------------------------
X1_DATA = {
    "dups": np.array([-2.0, 0.0, 0.0, 1.0, 1.0, 1.0, 4.0]),
    "two": np.array([1.0, 3.0]),
    "empty": np.zeros(0),
    "nan_tail": np.array([0.0, 1.0, 2.0, np.nan, np.nan]),
}
X2_VALUES = np.array([-9.0, -2.0, 0.0, 0.5, 1.0, 3.0, 4.0, 5.0, np.nan, 1.0, -0.0, 2.0])


def x1_layouts(n):
    out = [(None, None), (0, None), (0, uneven_counts(n, SIZE))]
    if SIZE > 1:  # every element on the last rank
        out.append((0, (0,) * (SIZE - 1) + (n,)))
    return out


def x2_layouts(shape):
    return layouts(shape) + ([(0, uneven_counts(shape[0], SIZE))] if shape else [])


def _expected_search_counts(c, x1, x2):
    """One allreduce for a split x1 and replicated x2; the routed plan for both split."""
    if x1.split is None or x2.size == 0:
        _no_messages(c)
    elif x2.split is None:
        _expect(c, allreduce=1)
    else:
        # the owners are asked through collectives.ask_owners: counts by one alltoall
        _expect(c, allgatherv=1, alltoall=1, alltoallv=2)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("name", list(X1_DATA))
@pytest.mark.parametrize("x2_shape", [(12,), (3, 4), (), (0,)])
def test_searchsorted(side, name, x2_shape):
    a = X1_DATA[name]
    v = X2_VALUES[: int(np.prod(x2_shape))].reshape(x2_shape)
    expected = np.searchsorted(a, v, side=side).astype(np.int64)
    for split1, counts1 in x1_layouts(a.shape[0]):
        x1 = distribute(a, split1, counts1)
        for split2, counts2 in x2_layouts(x2_shape):
            x2 = distribute(v, split2, counts2)
            with xdist.count_collectives() as c:
                got = xdist.searchsorted(x1, x2, side=side)
            assert_equal(got, expected)
            assert got.layout == x2.layout
            _expected_search_counts(c, x1, x2)


@pytest.mark.parametrize(
    "dtype1,dtype2", [("int16", "int16"), ("int64", "float64"), ("uint8", "int32")]
)
def test_searchsorted_dtypes(dtype1, dtype2):
    a = np.sort(random_array((9,), dtype1, seed=12))
    v = random_array((4, 3), dtype2, seed=13)
    for side in ("left", "right"):
        expected = np.searchsorted(a, v, side=side).astype(np.int64)
        for split1, counts1 in x1_layouts(9):
            for split2, counts2 in x2_layouts((4, 3)):
                got = xdist.searchsorted(
                    distribute(a, split1, counts1), distribute(v, split2, counts2), side=side
                )
                assert_equal(got, expected)


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_sorter(side):
    a = random_array((8,), "int32", seed=14)
    order = np.argsort(a, kind="stable")
    v = np.array([-60, -5, 0, 3, 17, 60, a[0], a[-1]], dtype=np.int32)
    expected = np.searchsorted(a, v, side=side, sorter=order).astype(np.int64)
    for split1, counts1 in x1_layouts(8):
        for split_s, counts_s in x1_layouts(8):
            for split2 in (None, 0):
                got = xdist.searchsorted(
                    distribute(a, split1, counts1),
                    distribute(v, split2),
                    side=side,
                    sorter=distribute(order, split_s, counts_s),
                )
                assert_equal(got, expected)


@pytest.mark.parametrize("split", [None, 0])
def test_searchsorted_scalar(split):
    a = np.array([1.0, 2.0, 2.0, 5.0, 8.0, 9.0, 9.5])
    x1 = distribute(a, split)
    for value in (2, 2.0, -1.5, 100.0):
        for side in ("left", "right"):
            got = xdist.searchsorted(x1, value, side=side)
            assert_equal(got, np.asarray(np.searchsorted(a, value, side=side), dtype=np.int64))


@pytest.mark.parametrize("x1_split", [None, 0])
def test_searchsorted_bad_sorter_raises_everywhere(x1_split):
    a = np.arange(7.0)
    bad = np.array([0, 1, 2, 3, 4, 5, 7])  # 7 is out of range
    for split_s in (None, 0):
        with pytest.raises(IndexError, match="sorter"):
            xdist.searchsorted(
                distribute(a, x1_split), distribute(a, 0), sorter=distribute(bad, split_s)
            )


@pytest.mark.parametrize(
    "make,error",
    [
        (lambda d: xdist.searchsorted(d["2d"], d["v"]), ValueError),
        (lambda d: xdist.searchsorted(d["a"], d["v"], side="middle"), ValueError),
        (lambda d: xdist.searchsorted(d["a"], d["v"], sorter=d["short"]), ValueError),
        (lambda d: xdist.searchsorted(d["a"], d["v"], sorter=d["a"]), TypeError),
        (lambda d: xdist.searchsorted(d["a"], d["complex"]), TypeError),
        (lambda d: xdist.searchsorted(d["bool"], d["v"]), TypeError),
        (lambda d: xdist.searchsorted(d["a"], np.ones(3)), TypeError),
        (lambda d: xdist.searchsorted(d["a"], 1j), TypeError),
        (lambda d: xdist.searchsorted(d["a"], True), TypeError),
    ],
)
def test_searchsorted_errors_before_messages(make, error):
    d = {
        "a": distribute(np.arange(7.0), 0),
        "v": distribute(np.ones(5), 0),
        "2d": distribute(np.ones((2, 2)), 0),
        "short": distribute(np.arange(3), 0),
        "complex": distribute(np.ones(3, complex), 0),
        "bool": distribute(np.ones(3, bool), 0),
    }
    with xdist.count_collectives() as c, pytest.raises(error, match="searchsorted"):
        make(d)
    _no_messages(c)


@comm_params
def test_searchsorted_on_every_communicator(comm):
    a = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 5.0, 8.0])
    v = np.array([[-1.0, 1.0, 4.0], [8.0, 9.0, 0.5]])
    x1 = distribute(a, 0, comm=comm)
    for split in (None, 0, 1):
        got = xdist.searchsorted(x1, distribute(v, split, comm=comm), side="right")
        np.testing.assert_array_equal(got.to_numpy(), np.searchsorted(a, v, side="right"))
