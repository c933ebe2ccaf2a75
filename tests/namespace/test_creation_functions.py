"""Creation functions against NumPy: every split, uneven and empty blocks, 0-d and size-0
results, and proof that creating an array sends no message."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import (
    BACKEND,
    ON_HOST,
    RANK,
    SIZE,
    assert_equal,
    comm_params,
    defaulted,
    distribute,
    host,
    layout_id,
    layouts,
    random_array,
    shares_memory,
)

import xdist
from xdist import Layout


def quiet(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, asserting that it sent no message."""
    with xdist.count_collectives() as counts:
        out = fn(*args, **kwargs)
    assert not counts, dict(counts)
    return out


def agreed(fn, obj, *args, **kwargs):
    """``fn(obj, ...)`` for data given whole on every rank, asserting that its only messages
    are the agreement on it: one allreduce of its metadata and the fingerprint of its values
    (a fixed size, whatever the rank count; none on one rank, none for a Python scalar)."""
    with xdist.count_collectives() as counts:
        out = fn(obj, *args, **kwargs)
    scalar = isinstance(obj, (bool, int, float, complex))
    expected = {"allreduce": 1}
    if SIZE == 1 or scalar:
        expected = {}
    assert dict(counts) == expected, dict(counts)
    return out


def check(x, expected, split, **tol):
    """``x`` equals ``expected`` and is split along ``split`` in balanced blocks."""
    assert_equal(x, expected, **tol)
    assert x.layout == Layout.balanced(np.shape(expected), split, SIZE)


SHAPES = [(), (0,), (2,), (7,), (7, 3), (2, 7), (0, 4), (3, 2, 7)]
SHAPE_SPLITS = [(s, a) for s in SHAPES for a in [None, *range(len(s))]]


def ss_id(case):
    shape, split = case
    return f"{'x'.join(map(str, shape)) or '0d'}-{'rep' if split is None else f's{split}'}"


# -- zeros, ones, full, empty -------------------------------------------------------------------
@pytest.mark.parametrize("case", SHAPE_SPLITS, ids=ss_id)
@pytest.mark.parametrize("name", ["zeros", "ones", "full", "empty"])
def test_filled(case, name):
    shape, split = case
    if name == "full":
        x = quiet(xdist.full, shape, 2.5, split=split)
        expected = defaulted(np.full(shape, 2.5))
    else:
        x = quiet(getattr(xdist, name), shape, split=split)
        expected = defaulted(getattr(np, name)(shape))
    if name == "empty":
        assert (x.shape, x.dtype, x.lshape) == (shape, expected.dtype, tuple(x.local.shape))
        assert x.layout == Layout.balanced(shape, split, SIZE)
    else:
        check(x, expected, split)


@pytest.mark.parametrize(
    "value,dtype,expected",
    [
        (True, None, "bool"),
        (3, None, "int64"),
        (2.5, None, "float64"),
        (1 + 2j, None, "complex128"),
        (3, "int8", "int8"),
        (3, "uint16", "uint16"),
        (3, "float32", "float32"),
        (2.5, "complex64", "complex64"),
        (True, "int32", "int32"),
        (-7, "float64", "float64"),
    ],
)
@pytest.mark.parametrize("split", [None, 0])
def test_full_dtypes(value, dtype, expected, split):
    x = quiet(xdist.full, (7,), value, dtype=dtype, split=split)
    want = np.full(7, value, dtype=expected)
    check(x, defaulted(want) if dtype is None else want, split)


@pytest.mark.parametrize("dtype", ["int32", "bool", "complex64", "uint8"])
@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_filled_dtypes(name, dtype):
    x = quiet(getattr(xdist, name), (2, 7), dtype=getattr(xdist, dtype), split=1)
    assert x.dtype == np.dtype(dtype) and x.layout == Layout.balanced((2, 7), 1, SIZE)
    if name != "empty":
        assert_equal(x, getattr(np, name)((2, 7), dtype=dtype))


# -- the *_like functions -----------------------------------------------------------------------
LIKE = {
    "zeros_like": (lambda x, **kw: xdist.zeros_like(x, **kw), np.zeros_like),
    "ones_like": (lambda x, **kw: xdist.ones_like(x, **kw), np.ones_like),
    "full_like": (
        lambda x, **kw: xdist.full_like(x, 3, **kw),
        lambda a, **kw: np.full_like(a, 3, **kw),
    ),
    "empty_like": (lambda x, **kw: xdist.empty_like(x, **kw), None),
}


@pytest.mark.parametrize("case", layouts((7, 3)), ids=layout_id)
@pytest.mark.parametrize("name", list(LIKE))
def test_like_keeps_layout(case, name):
    split, counts = case
    a = random_array((7, 3), "int32", seed=1)
    x = distribute(a, split, counts)
    ours, theirs = LIKE[name]
    y = quiet(ours, x)
    assert y.layout == x.layout and y.dtype == x.dtype  # uneven counts kept
    if theirs is not None:
        assert_equal(y, theirs(a))
    z = quiet(ours, x, dtype=xdist.float32)
    assert z.layout == x.layout and z.dtype == np.dtype("float32")
    if theirs is not None:
        assert_equal(z, theirs(a, dtype="float32"))


@pytest.mark.parametrize("case", layouts((7, 3)), ids=layout_id)
@pytest.mark.parametrize("split", [None, 0, 1])
def test_like_with_split(case, split):
    x = distribute(random_array((7, 3), seed=2), *case)
    y = quiet(xdist.ones_like, x, split=split)
    expected = x.layout if split == x.split else Layout.balanced((7, 3), split, SIZE)
    assert y.layout == expected
    assert_equal(y, np.ones((7, 3)))


@pytest.mark.parametrize("shape", [(), (0,), (2, 0)])
def test_like_small(shape):
    x = xdist.asarray(np.zeros(shape, dtype="int16"))
    assert_equal(quiet(xdist.full_like, x, 5), np.full(shape, 5, dtype="int16"))


# -- arange, linspace ---------------------------------------------------------------------------
ARANGE = [
    (10,),
    (2,),
    (0,),
    (-3,),
    (1, 10, 3),
    (10, 1, -3),
    (5, 5),
    (3, -4, -1),
    (0, 1, 0.1),
    (1.5, -2.3, -0.7),
    (0.0, 7.0),
    (-1e3, 1e3, 299.9),
    (0, 2**40, 2**37),
    (2.5,),
]


@pytest.mark.parametrize("args", ARANGE, ids=str)
@pytest.mark.parametrize("split", [None, 0])
def test_arange(args, split):
    x = quiet(xdist.arange, *args, split=split)
    check(x, defaulted(np.arange(*args)), split)


@pytest.mark.parametrize(
    "args,dtype",
    [
        ((0, 10, 3), "float32"),
        ((5, 0, -1), "uint8"),
        ((0, 1, 0.1), "float32"),
        ((-7, 7, 2), "int8"),
        ((0.5, 5, 1.5), "int64"),
        ((1, 8), "float64"),
        ((0, 300, 7), "int16"),
    ],
)
@pytest.mark.parametrize("split", [None, 0])
def test_arange_dtype(args, dtype, split):
    x = quiet(xdist.arange, *args, dtype=dtype, split=split)
    check(x, np.arange(*args, dtype=dtype), split)


LINSPACE = [
    (0, 1, 5, True),
    (0, 1, 5, False),
    (-3.5, 7.25, 7, True),
    (-3.5, 7.25, 7, False),
    (1, 1, 4, True),
    (0, 1, 0, True),
    (0, 1, 1, True),
    (0, 1, 1, False),
    (2, 0, 2, True),
    (10, -1e-3, 100, True),
    (1 + 1j, -2 + 3j, 7, True),
    (0, 5e-324, 4, True),
    (0, 1, 2, False),
    (1e300, -1e300, 3, True),
]


@pytest.mark.parametrize("start,stop,num,endpoint", LINSPACE, ids=str)
@pytest.mark.parametrize("split", [None, 0])
def test_linspace(start, stop, num, endpoint, split):
    x = quiet(xdist.linspace, start, stop, num, endpoint=endpoint, split=split)
    expected = defaulted(np.linspace(start, stop, num, endpoint=endpoint))
    check(x, expected, split, rtol=1e-12)
    np.testing.assert_array_equal(x.to_numpy(), expected)  # the same formula: bit for bit


@pytest.mark.parametrize("dtype", ["float32", "complex64", "complex128"])
def test_linspace_dtype(dtype):
    x = quiet(xdist.linspace, -1, 2.5, 7, dtype=dtype, split=0)
    check(x, np.linspace(-1, 2.5, 7, dtype=dtype), 0, rtol=1e-6)


@pytest.mark.parametrize(
    "start,stop,num,endpoint,dtype",
    [
        (0, 3, 4, True, "int64"),
        (-3, 1, 8, True, "int32"),
        (0, 255, 7, False, "uint8"),
        (2.5, -7.25, 9, True, "int16"),
        (0, 1, 0, True, "int8"),
    ],
    ids=str,
)
@pytest.mark.parametrize("split", [None, 0])
def test_linspace_integer_dtype_is_numpys_floor(start, stop, num, endpoint, dtype, split):
    """An integer dtype, which the standard leaves to the library (SciPy's tests ask for
    one), gives NumPy's values: the floor of each double-precision value; bounds the dtype
    cannot hold, and bool, are refused."""
    x = quiet(xdist.linspace, start, stop, num, endpoint=endpoint, dtype=dtype, split=split)
    check(x, np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype), split)
    np.testing.assert_array_equal(
        x.to_numpy(), np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    )
    for a, b, bad in ((-1, 3, "uint8"), (0, 300, "uint8"), (0, 1, "bool"), (0j, 1, "int64")):
        with pytest.raises(TypeError, match=f"linspace: dtype {bad} cannot hold values"):
            xdist.linspace(a, b, 3, dtype=bad)


# -- eye, tril, triu ----------------------------------------------------------------------------
EYE = [
    (2, None, 0),
    (7, None, 0),
    (7, 3, 1),
    (3, 7, -2),
    (3, 7, 4),
    (7, 7, 5),
    (7, 7, -10),
    (0, 3, 0),
    (7, 2, -6),
    (1, None, 0),
]


@pytest.mark.parametrize("n_rows,n_cols,k", EYE, ids=str)
@pytest.mark.parametrize("split", [None, 0, 1])
def test_eye(n_rows, n_cols, k, split):
    x = quiet(xdist.eye, n_rows, n_cols, k=k, split=split)
    check(x, defaulted(np.eye(n_rows, n_cols, k=k)), split)


@pytest.mark.parametrize("k", [2**70, -(2**70)])
def test_diagonal_beyond_int64(k):
    """A k past every diagonal, too large for int64, selects nothing (eye) or everything
    on one side (tril, triu), as NumPy says for any k past them."""
    near = 5 if k > 0 else -7  # the nearest k past every diagonal of a 7 x 5 array
    for split in (None, 0, 1):
        check(quiet(xdist.eye, 7, 5, k=k, split=split), defaulted(np.eye(7, 5, k=near)), split)
    a = random_array((7, 5), "int64", seed=3)
    for split, counts in layouts(a.shape):
        for name in ("tril", "triu"):
            y = quiet(getattr(xdist, name), distribute(a, split, counts), k=k)
            assert_equal(y, getattr(np, name)(a, k=near))


@pytest.mark.parametrize("dtype", ["int32", "bool", "complex64"])
def test_eye_dtype(dtype):
    check(quiet(xdist.eye, 7, 5, k=-1, dtype=dtype, split=1), np.eye(7, 5, k=-1, dtype=dtype), 1)


TRI_CASES = [
    (shape, case) for shape in [(7, 5), (2, 7), (3, 7, 4), (0, 4)] for case in layouts(shape)
]
TRI_IDS = [f"{'x'.join(map(str, shape))}-{layout_id(case)}" for shape, case in TRI_CASES]


@pytest.mark.parametrize("shape,case", TRI_CASES, ids=TRI_IDS)
@pytest.mark.parametrize("k", [-2, 0, 3])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu(shape, case, k, name):
    a = random_array(shape, "int64", seed=3)
    x = distribute(a, *case)
    y = quiet(getattr(xdist, name), x, k=k)
    assert y.layout == x.layout
    assert_equal(y, getattr(np, name)(a, k=k))


@pytest.mark.parametrize("split", [None, 0, 1])
def test_tril_resplit(split):
    a = random_array((7, 5), "float64", seed=4)
    y = xdist.tril(distribute(a, 0, None), k=1, split=split)
    check(y, np.tril(a, k=1), split)


# -- asarray, from_dlpack -----------------------------------------------------------------------
@pytest.mark.parametrize("case", SHAPE_SPLITS, ids=ss_id)
@pytest.mark.parametrize("copy", [None, True])
def test_asarray_numpy(case, copy):
    shape, split = case
    a = random_array(shape, "float32", seed=5)
    x = agreed(xdist.asarray, a, split=split, copy=copy)
    check(x, a, split)
    # copy=None keeps NumPy's buffer; copy=True never shares it (Torch copies 0-d arrays).
    if ON_HOST and math.prod(x.lshape) and (x.ndim or BACKEND.name == "numpy"):
        view = np.asarray(x.local)  # the block's memory, as it is (a CPU tensor's too)
        assert np.shares_memory(view, a) == (copy is None)


@pytest.mark.parametrize(
    "obj,dtype",
    [
        ([True, False], "bool"),
        ([1, 2, 3], "int64"),
        ([1.0, 2, 3], "float64"),
        ([1j, 2], "complex128"),
        ([[1, 2], [3, 4], [5, 6]], "int64"),
        (5, "int64"),
        (2.5, "float64"),
        (True, "bool"),
        (1 - 1j, "complex128"),
        ([], "float64"),
        ((1, 2.5), "float64"),
        ([[True], [False]], "bool"),
    ],
)
@pytest.mark.parametrize("split", [None, 0])
def test_asarray_python(obj, dtype, split):
    expected = np.asarray(obj)
    split = split if expected.ndim else None
    x = agreed(xdist.asarray, obj, split=split)
    expected = defaulted(expected.astype(dtype))  # Python floats: the backend's default
    assert x.dtype == expected.dtype
    check(x, expected, split)


@pytest.mark.parametrize("dtype", ["int8", "float32", "complex128", "uint64"])
def test_asarray_dtype(dtype):
    a = [[1, 2, 3]] * 7
    check(agreed(xdist.asarray, a, dtype=dtype, split=0), np.asarray(a, dtype=dtype), 0)


def test_asarray_copy_false():
    a = random_array((7, 3), seed=6)
    if not ON_HOST:  # a GPU block is always a copy of host data
        with pytest.raises(ValueError, match="asarray: copy=False.*cuda"):
            xdist.asarray(a, copy=False, split=0)
        return
    x = agreed(xdist.asarray, a, copy=False, split=0)
    assert x.local.size == 0 or np.shares_memory(x.local, a)
    with pytest.raises(ValueError, match="asarray"):
        xdist.asarray(a, copy=False, dtype="float32")


def test_asarray_copy_false_refused_on_one_rank_raises_on_every_rank():
    """Data read-only on rank 0 only: Torch's CPU tensors cannot share it (Torch has no
    read-only tensors), so ``copy=False`` is refused, and the ranks agree on it: every rank
    raises the same error, none goes on alone. NumPy blocks share it (the flag stays); a
    GPU refuses ``copy=False`` on every rank anyway."""
    a = random_array((7, 3), seed=6)
    if RANK == 0:
        a.setflags(write=False)
    if BACKEND.name == "torch" and ON_HOST:
        with pytest.raises(ValueError, match="asarray: copy=False, but obj is a read-only"):
            xdist.asarray(a, copy=False, split=0)
        x = agreed(xdist.asarray, a, split=0)  # copied where read-only, shared elsewhere
        check(x, a, 0)
    elif ON_HOST:
        x = agreed(xdist.asarray, a, copy=False, split=0)
        assert x.local.size == 0 or np.shares_memory(x.local, a)
    else:
        with pytest.raises(ValueError, match="asarray: copy=False.*cuda"):
            xdist.asarray(a, copy=False, split=0)


@pytest.mark.parametrize("case", layouts((7, 3)), ids=layout_id)
def test_asarray_xdist(case):
    a = random_array((7, 3), seed=7)
    x = distribute(a, *case)
    assert quiet(xdist.asarray, x) is x
    assert quiet(xdist.asarray, x, copy=False) is x
    assert quiet(xdist.asarray, x, split=x.split) is x  # same axis: the counts stay
    y = quiet(xdist.asarray, x, copy=True)
    assert y.layout == x.layout and (y.local.size == 0 or not shares_memory(y.local, x.local))
    assert_equal(y, a)
    z = quiet(xdist.asarray, x, dtype="float32")
    assert z.layout == x.layout
    assert_equal(z, a.astype("float32"))


@pytest.mark.parametrize("case", layouts((7, 3)), ids=layout_id)
@pytest.mark.parametrize("split", [None, 0, 1])
@pytest.mark.parametrize("copy", [None, True])
def test_asarray_resplit(case, split, copy):
    a = random_array((7, 3), seed=8)
    x = distribute(a, *case)
    y = xdist.asarray(x, split=split, copy=copy)
    expected = x.layout if split == x.split else Layout.balanced((7, 3), split, SIZE)
    assert y.layout == expected
    assert_equal(y, a)
    if copy and y.local.size:
        assert not shares_memory(y.local, x.local)
    if y.layout != x.layout:
        with pytest.raises(ValueError, match="copy=False"):
            xdist.asarray(x, split=split, copy=False)


@pytest.mark.parametrize(
    "shape,split", [((7, 3), None), ((7, 3), 0), ((7, 3), 1), ((2,), 0), ((), None)]
)
def test_from_dlpack(shape, split):
    a = random_array(shape, "int32", seed=9)
    x = agreed(xdist.from_dlpack, a, split=split)
    check(x, a, split)
    y = quiet(xdist.from_dlpack, x)
    assert y is x


def test_from_dlpack_copy():
    a = random_array((7,), seed=10)
    x = xdist.from_dlpack(a, copy=True, split=0)
    assert x.local.size == 0 or not ON_HOST or not np.shares_memory(x.local, a)
    assert_equal(x, a)
    if not ON_HOST:  # host data reaches a GPU by a copy only
        with pytest.raises(ValueError, match="from_dlpack: copy=False"):
            xdist.from_dlpack(a, copy=False)


# -- meshgrid -----------------------------------------------------------------------------------
MESH = [
    ((7, 2), (None, None)),
    ((7, 2), (0, None)),
    ((7, 2), (None, 0)),
    ((2, 7, 3), (None, 0, None)),
    ((2, 7, 3), (0, None, 0)),
    ((7,), (0,)),
    ((0, 3), (0, None)),
    ((3, 7), ("u", None)),
]


@pytest.mark.parametrize("sizes,splits", MESH, ids=str)
@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(sizes, splits, indexing):
    data = [np.arange(n, dtype="float64") * (i + 1) for i, n in enumerate(sizes)]
    arrays = []
    for d, s in zip(data, splits):
        counts = None
        if s == "u":
            s, counts = 0, (0,) * (SIZE - 1) + (len(d),)
        arrays.append(distribute(d, s, counts))
    expected = np.meshgrid(*data, indexing=indexing)
    with xdist.count_collectives() as counts:
        grids = xdist.meshgrid(*arrays, indexing=indexing)
    first = next((i for i, a in enumerate(arrays) if a.split is not None), None)
    if first is None:
        assert not counts, dict(counts)
    for g, e in zip(grids, expected):
        assert_equal(g, e)
        assert g.layout == grids[0].layout
    if first is not None:  # the output axis of the first split input, with its counts
        axis = 1 - first if indexing == "xy" and len(sizes) > 1 and first < 2 else first
        assert grids[0].split == axis and grids[0].counts == arrays[first].counts


def test_meshgrid_split_given():
    data = [np.arange(7.0), np.arange(2.0)]
    grids = xdist.meshgrid(*[xdist.asarray(d) for d in data], split=1)
    for g, e in zip(grids, np.meshgrid(*data)):
        check(g, e, 1)
    assert xdist.meshgrid() == ()


# -- the configured default split ---------------------------------------------------------------
def test_default_split_axis0():
    a = random_array((7, 3), seed=11)
    with xdist.config_context(default_split=0):
        check(quiet(xdist.zeros, (7, 3)), defaulted(np.zeros((7, 3))), 0)
        check(quiet(xdist.zeros, ()), defaulted(np.zeros(())), None)  # 0-d: replicated
        check(quiet(xdist.arange, 7), np.arange(7), 0)
        check(agreed(xdist.asarray, a), a, 0)
        check(quiet(xdist.asarray, 3.5), defaulted(np.asarray(3.5)), None)
        check(quiet(xdist.eye, 2, 7), defaulted(np.eye(2, 7)), 0)
        check(quiet(xdist.full, (2,), 1, split=None), np.ones(2, dtype="int64"), None)
        x = distribute(a, 1)
        assert quiet(xdist.zeros_like, x).layout == x.layout  # the input's layout wins
        assert xdist.asarray(x) is x


def test_default_split_axis1():
    with xdist.config_context(default_split=1):
        check(quiet(xdist.ones, (7,)), defaulted(np.ones(7)), None)  # no axis 1: replicated
        check(quiet(xdist.eye, 3, 7), defaulted(np.eye(3, 7)), 1)
        check(quiet(xdist.linspace, 0, 1, 7), defaulted(np.linspace(0, 1, 7)), None)
        g = xdist.meshgrid(xdist.arange(2, split=None), xdist.arange(7, split=None), indexing="ij")
        check(g[1], np.meshgrid(np.arange(2), np.arange(7), indexing="ij")[1], 1)
    assert xdist.zeros((7, 3)).split is None  # restored


# -- communicators ------------------------------------------------------------------------------
@comm_params
def test_on_comm(comm):
    x = quiet(xdist.arange, 7, split=0, comm=comm)
    assert x.comm is comm and x.counts == Layout.balanced((7,), 0, comm.size).counts
    lo, hi = x.layout.local_range(comm.rank)
    np.testing.assert_array_equal(host(x.local), np.arange(lo, hi))
    e = quiet(xdist.eye, 7, 4, k=-1, split=0, comm=comm)
    np.testing.assert_array_equal(host(e.local), np.eye(7, 4, k=-1)[lo:hi])
    z = quiet(xdist.zeros_like, e, comm=comm)
    assert z.layout == e.layout and z.comm is comm


# -- errors, raised before any message ----------------------------------------------------------
def _x():
    return distribute(np.arange(6.0).reshape(2, 3), 0)


ERRORS = [
    (lambda: xdist.zeros((-1,)), ValueError, "zeros: shape"),
    (lambda: xdist.zeros((2, 2.0)), TypeError, "zeros: shape"),
    (lambda: xdist.zeros((2,), split=1), IndexError, "zeros: split 1"),
    (lambda: xdist.zeros((), split=0), ValueError, "0-d"),
    (lambda: xdist.zeros(2, split="0"), TypeError, "split"),
    (lambda: xdist.zeros(2, dtype="float16"), TypeError, "zeros: dtype"),
    (lambda: xdist.zeros(2, device="gpu"), ValueError, "zeros: device 'gpu'"),
    (lambda: xdist.zeros(2, comm="world"), TypeError, "zeros: comm"),
    (lambda: xdist.full(2, 1.5, dtype="int32"), TypeError, "full: fill_value 1.5"),
    (lambda: xdist.full(2, 1j, dtype="float64"), TypeError, "full: fill_value"),
    (lambda: xdist.full(2, 2, dtype="bool"), TypeError, "full: fill_value"),
    (lambda: xdist.full(2, 300, dtype="uint8"), OverflowError, "full: fill_value 300"),
    (lambda: xdist.full(2, -1, dtype="uint8"), OverflowError, "full"),
    (lambda: xdist.full(2, "a"), TypeError, "full: fill_value"),
    (lambda: xdist.arange(0, 5, 0), ValueError, "arange: step"),
    (lambda: xdist.arange(1j), TypeError, "arange: start"),
    (lambda: xdist.arange(5, dtype="bool"), TypeError, "arange: dtype"),
    (lambda: xdist.linspace(0, 1, -1), ValueError, "linspace: num"),
    (lambda: xdist.linspace(0, 1, 2.0), TypeError, "linspace: num"),
    (lambda: xdist.linspace(0, 1j, 3, dtype="float64"), TypeError, "linspace: dtype"),
    (lambda: xdist.linspace(0, 1, 3, dtype="bool"), TypeError, "linspace: dtype"),
    (lambda: xdist.eye(-1), ValueError, "eye: n_rows"),
    (lambda: xdist.eye(3, k=0.5), TypeError, "eye: k"),
    (lambda: xdist.eye(3, split=2), IndexError, "eye: split"),
    (lambda: xdist.tril(xdist.zeros(3)), ValueError, "tril: x must have at least 2"),
    (lambda: xdist.triu(np.zeros((2, 2))), TypeError, "triu: x"),
    (lambda: xdist.meshgrid(xdist.zeros((2, 2))), ValueError, "meshgrid: arrays"),
    (lambda: xdist.meshgrid(xdist.zeros(2), indexing="yx"), ValueError, "meshgrid: indexing"),
    (lambda: xdist.meshgrid(xdist.zeros(2), xdist.zeros(2, dtype="int64")), TypeError, "meshgrid"),
    (lambda: xdist.asarray([1, 2], copy=False), ValueError, "asarray: copy=False"),
    (lambda: xdist.asarray(_x(), dtype="float32", copy=False), ValueError, "asarray: copy=False"),
    (lambda: xdist.asarray(_x(), split=1, copy=False), ValueError, "asarray: copy=False"),
    (lambda: xdist.asarray(2**63), OverflowError, "asarray"),
    (lambda: xdist.asarray([[1, 2], [3]]), ValueError, "asarray"),
    (lambda: xdist.asarray(["a"]), TypeError, "asarray"),
    (lambda: xdist.asarray([None]), TypeError, "asarray"),
    (lambda: xdist.asarray(np.zeros(2, "float16")), TypeError, "asarray"),
    (lambda: xdist.asarray(_x(), split=2), IndexError, "asarray: split"),
    (lambda: xdist.asarray(_x(), device="gpu"), ValueError, "asarray: device"),
    (lambda: xdist.from_dlpack([1, 2]), TypeError, "from_dlpack"),
    (lambda: xdist.full_like(_x(), 1j), TypeError, "full_like: fill_value"),
    (lambda: xdist.zeros_like(_x(), split=3), IndexError, "zeros_like: split"),
    (lambda: xdist.ones_like([1.0]), TypeError, "ones_like: x"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_before_messages(index):
    call, exc, match = ERRORS[index]
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call()
    # Only the agreement on data given whole (one allreduce) may come first: the ranks then
    # find the same fault in the same data.
    agreed = counts.get("allreduce", 0)
    assert sum(counts.values()) == agreed and agreed <= 1, dict(counts)


def test_rank_independent_blocks():
    """A block is the same slice of the global array whatever the rank: a direct check of
    the local values (no gather involved)."""
    x = xdist.linspace(-2.0, 3.0, 11, split=0)
    lo, hi = x.layout.local_range(RANK)
    np.testing.assert_array_equal(host(x.local), np.linspace(-2.0, 3.0, 11)[lo:hi])


def test_comm_that_is_not_a_communicator_is_refused():
    """``comm=`` must be an xdist Communicator, before and after a real one was accepted
    (accepted types are remembered, so the check costs a set lookup after the first)."""
    for bad in (42, "world", object()):
        with pytest.raises(TypeError, match="zeros: comm must be an xdist Communicator"):
            xdist.zeros(3, comm=bad)
    assert xdist.zeros(3, comm=xdist.default_comm()).shape == (3,)
    with pytest.raises(TypeError, match=r"ones: comm must be an xdist Communicator, got int"):
        xdist.ones(3, comm=7)


@pytest.mark.parametrize("split", [None, 0])
def test_numbers_given_as_numpy_scalars_and_zero_d_arrays(split):
    """A number given as NumPy's scalar or as a 0-d array (xdist's or NumPy's) is taken as
    its value, as NumPy and Torch take it (SciPy passes ``np.int64`` bounds to ``arange``, a
    0-d array to ``linspace`` and to ``full``); ``full`` then takes the array's dtype, and
    no message is sent. A 0-d array of another kind than the dtype, or a 1-d one, is still
    refused."""
    i32 = xdist.asarray(7, dtype=xdist.int32)
    x = quiet(xdist.full, (5,), i32, split=split)
    check(x, np.full(5, 7, dtype=np.int32), split)
    x = quiet(xdist.full, (5,), np.float32(1.5), split=split)
    check(x, np.full(5, 1.5, dtype=np.float32), split)
    x = quiet(xdist.full, (2, 3), np.asarray(2.5), dtype=xdist.float32, split=split)
    check(x, np.full((2, 3), 2.5, dtype=np.float32), split)
    x = quiet(xdist.full, (4,), xdist.asarray(np.nan), split=split)
    check(x, defaulted(np.full(4, np.nan)), split)
    like = xdist.zeros((7, 3), split=split)
    y = quiet(xdist.full_like, like, xdist.asarray(-2.0))
    check(y, np.full((7, 3), -2.0, dtype=host(like.local).dtype), split)
    x = quiet(xdist.arange, np.int64(2), np.int64(11), np.int32(3), split=split)
    check(x, defaulted(np.arange(2, 11, 3)), split)
    x = quiet(xdist.arange, xdist.asarray(1.5), split=split)
    check(x, defaulted(np.arange(1.5)), split)
    x = quiet(xdist.linspace, xdist.asarray(0.5), np.float64(2.0), np.int64(7), split=split)
    check(x, defaulted(np.linspace(0.5, 2.0, 7)), split)
    with pytest.raises(TypeError, match="full: fill_value 1.5 does not fit dtype int32"):
        xdist.full(3, xdist.asarray(1.5), dtype=xdist.int32)
    with pytest.raises(TypeError, match="full: fill_value must be a Python scalar or a 0-d"):
        xdist.full(3, xdist.ones(2))
    with pytest.raises(TypeError, match="arange: start must be an int or a float, got True"):
        xdist.arange(np.bool_(True))
    with pytest.raises(TypeError, match="linspace: start must be a real or complex number"):
        xdist.linspace(np.asarray([0.0]), 1.0, 3)
