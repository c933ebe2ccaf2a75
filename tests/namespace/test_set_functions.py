"""unique_all/counts/inverse/values against NumPy's np.unique(equal_nan=False): every layout,
duplicates, NaNs (each its own value), signed zeros, every dtype kind; how much they
communicate (never a gather of x); errors before any message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    COMM,
    SIZE,
    assert_equal,
    distribute,
    layouts,
    random_array,
    require_dtypes,
)
from test_sorting_functions import RecordingComm

import xdist

SHAPES = [(7,), (2,), (0,), (), (7, 5), (2, 3), (3, 4, 5), (4, 0)]
KINDS = ["float64", "float-ties", "float32", "int8-ties", "uint8", "int64", "bool", "complex"]


def make(shape, kind: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "float-ties":  # few values, several NaNs, both zeros
        a = np.array(rng.integers(-2, 3, size=shape), dtype=np.float64)
        a[a == 2] = np.nan
        a[a == -2] = -0.0
        return a
    if kind == "int8-ties":
        return rng.integers(-2, 2, size=shape).astype(np.int8)
    if kind == "complex":  # repeated values, and NaN in either part
        a = np.array(rng.integers(0, 2, size=shape) + 1j * rng.integers(0, 2, size=shape))
        a[rng.random(shape) < 0.2] = complex(np.nan, 1.0)
        a[rng.random(shape) < 0.1] = complex(1.0, np.nan)
        return a
    return random_array(shape, kind, seed)


def expected(a: np.ndarray):
    values, indices, inverse, counts = np.unique(
        a, return_index=True, return_inverse=True, return_counts=True, equal_nan=False
    )
    return values, indices.astype(np.int64), inverse.reshape(a.shape), counts.astype(np.int64)


def check_layouts(out, x: xdist.Array) -> None:
    """Results are split along 0 when x is split (replicated when x is); the inverse is
    laid out as x. (``unique_values`` alone may be replicated: ``check_values_layout``.)"""
    if hasattr(out, "inverse_indices"):
        assert out.inverse_indices.layout == x.layout
    values = out if isinstance(out, xdist.Array) else out.values
    assert values.split == (None if x.split is None else 0)
    for field in getattr(out, "_fields", ()):
        if field != "inverse_indices":
            assert getattr(out, field).layout == values.layout


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unique_functions_match_numpy(shape, kind):
    a = make(shape, kind)
    values, indices, inverse, counts = expected(a)
    for split, cnts in layouts(shape):
        x = distribute(a, split, cnts)
        out = xdist.unique_all(x)
        assert_equal(out.values, values)
        assert_equal(out.indices, indices)
        assert_equal(out.inverse_indices, inverse)
        assert_equal(out.counts, counts)
        check_layouts(out, x)
        check_unique_values(x, values)
        pair = xdist.unique_counts(x)
        assert_equal(pair.values, values)
        assert_equal(pair.counts, counts)
        check_layouts(pair, x)
        pair = xdist.unique_inverse(x)
        assert_equal(pair.values, values)
        assert_equal(pair.inverse_indices, inverse)
        check_layouts(pair, x)


def check_unique_values(x: xdist.Array, values: np.ndarray) -> None:
    """``unique_values`` both ways: whole on every rank while the ranks find at most
    ``gather_warning_elements`` values in all (x split along its first long axis), else
    split along 0 by the sample sort, as the other unique functions."""
    whole = x.split is not None and SIZE > 1 and int(np.prod(x.shape[: x.split])) == 1
    got = xdist.unique_values(x)
    assert_equal(got, values)
    assert got.split == (None if whole or x.split is None else 0)
    with xdist.config_context(gather_warning_elements=0):
        got = xdist.unique_values(x)
        assert_equal(got, values)
        whole = whole and values.size == 0  # no value found: within the threshold
        assert got.split == (None if whole or x.split is None else 0)


@pytest.mark.parametrize(
    "a",
    [
        np.array([0, 10**9, -5, 10**9, 3, -(2**62), 3], dtype=np.int64),  # counted: no
        np.array([-128, 127, 0, -128, 5, 127, 1], dtype=np.int8),  # the whole int8 range
        np.array([2**64 - 1, 0, 7, 2**64 - 1, 7, 1, 2], dtype=np.uint64),
        np.array([65535, 0, 65535, 3, 1, 2, 0], dtype=np.uint16),  # span 2**16: counted: no
        np.array([65534, 0, 65534, 3, 1, 2, 0], dtype=np.int32),  # span 2**16 - 1: counted
    ],
    ids=["int64-wide", "int8-full", "uint64", "uint16-full", "int32-span"],
)
def test_unique_values_of_integers_counted_or_sorted(a):
    """Integer blocks spanning few values are counted, the others sorted: the same values."""
    require_dtypes(a.dtype)
    for split, counts in layouts(a.shape):
        check_unique_values(distribute(a, split, counts), np.unique(a))


@pytest.mark.parametrize("split", [None, 0])
def test_each_nan_is_its_own_value(split):
    a = np.array([np.nan, 1.0, np.nan, 1.0, np.nan])
    out = xdist.unique_all(distribute(a, split))
    assert_equal(out.values, np.array([1.0, np.nan, np.nan, np.nan]))
    assert_equal(out.indices, np.array([1, 0, 2, 4]))
    assert_equal(out.inverse_indices, np.array([1, 0, 2, 0, 3]))
    assert_equal(out.counts, np.array([2, 1, 1, 1]))


@pytest.mark.parametrize("first", [-0.0, 0.0])
def test_signed_zeros_are_one_value_reported_as_the_first(first):
    a = np.array([1.0, first, -first, -first, first, 2.0, -first])
    for split, counts in layouts(a.shape):
        out = xdist.unique_counts(distribute(a, split, counts))
        assert_equal(out.counts, np.array([5, 1, 1]))
        assert np.signbit(out.values.to_numpy()[0]) == np.signbit(first)
        values = xdist.unique_values(distribute(a, split, counts)).to_numpy()
        assert np.signbit(values[0]) == np.signbit(first)


@pytest.mark.parametrize("shape", [(3000,), (6, 500)], ids=["1-D", "2-D"])
def test_larger_arrays_with_many_duplicates(shape):
    a = make(shape, "int8-ties", seed=4)
    values, indices, inverse, counts = expected(a)
    for split in range(len(shape)):
        out = xdist.unique_all(distribute(a, split))
        assert_equal(out.values, values)
        assert_equal(out.indices, indices)
        assert_equal(out.inverse_indices, inverse)
        assert_equal(out.counts, counts)


# -- communication ------------------------------------------------------------------------------
class VolumeComm(RecordingComm):
    """Also records how many elements each rank sends in every alltoallv."""

    def __init__(self, comm):
        super().__init__(comm)
        self.sent: list[int] = []

    def alltoallv(self, buf, sendcounts, recvcounts):
        self.sent.append(int(sum(sendcounts)))
        return self._comm.alltoallv(buf, sendcounts, recvcounts)


def _collectives(func, a, split) -> dict[str, int]:
    x = distribute(a, split)
    with xdist.count_collectives() as counts:
        func(x)
    return dict(counts)


@pytest.mark.parametrize(
    "func", [xdist.unique_all, xdist.unique_counts, xdist.unique_inverse, xdist.unique_values]
)
def test_messages_are_few_and_independent_of_size(func):
    with xdist.config_context(gather_warning_elements=0):
        small = _collectives(func, make((10,), "float64"), 0)
        large = _collectives(func, make((3000,), "float64"), 0)
    assert small == large
    if SIZE > 1:
        back = 1 if func in (xdist.unique_all, xdist.unique_inverse) else 0
        want = {"allgather": 3, "allgatherv": 2, "alltoall": 1, "alltoallv": 1 + back}
        assert small == want
    assert _collectives(func, make((10,), "float64"), None) == {}


def test_few_values_meet_whole_in_two_messages():
    """``unique_values`` of class labels: one ``allgather`` of counts, one ``allgatherv`` of
    each rank's distinct values, whatever the size of ``x``."""
    for n in (10, 3000):
        labels = np.random.default_rng(n).integers(0, 3, size=n)
        sent = _collectives(xdist.unique_values, labels, 0)
        assert sent == ({"allgather": 1, "allgatherv": 1} if SIZE > 1 else {})


@pytest.mark.parametrize("split", [0, 1])
def test_x_is_never_gathered_and_duplicates_shrink_before_moving(split):
    comm = VolumeComm(COMM)
    a = make((6, 500), "int8-ties", seed=2)  # 4 distinct values
    out = xdist.unique_all(distribute(a, split, comm=comm))
    assert_equal(out.counts, expected(a)[3])
    assert all(n <= SIZE * SIZE for n in comm.gathered), comm.gathered  # samples, last values
    assert all(n <= 4 * SIZE for n in comm.sent), comm.sent  # local runs only


@pytest.mark.parametrize(
    "func", [xdist.unique_all, xdist.unique_counts, xdist.unique_inverse, xdist.unique_values]
)
def test_errors_raise_before_any_message(func):
    with xdist.count_collectives() as counts:
        with pytest.raises(TypeError, match=func.__name__):
            func(np.arange(3))
    assert sum(counts.values()) == 0


# -- isin (2025.12) -----------------------------------------------------------------------------
ISIN_CASES = [
    ((7,), (5,)),
    ((2, 3), (7,)),
    ((7, 5), (2, 2)),
    ((), (4,)),
    ((4,), ()),
    ((0,), (3,)),
    ((3,), (0,)),
]


@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("shapes", ISIN_CASES, ids=str)
def test_isin_matches_numpy(shapes, invert):
    rng = np.random.default_rng(7)
    a1 = np.array(rng.integers(0, 8, size=shapes[0]), dtype=np.int16)
    a2 = np.array(rng.integers(0, 8, size=shapes[1]), dtype=np.int32)
    want = np.isin(a1, a2, invert=invert)
    for split1, counts1 in layouts(a1.shape):
        for split2, counts2 in layouts(a2.shape)[:2]:
            x1 = distribute(a1, split1, counts1)
            got = xdist.isin(x1, distribute(a2, split2, counts2), invert=invert)
            assert_equal(got, want)
            assert got.layout == x1.layout


@pytest.mark.parametrize("split", [None, 0])
def test_isin_with_python_ints(split):
    a = np.array([3, 1, 4, 1, 5, 9, 2], dtype=np.uint8)
    x = distribute(a, split)
    assert_equal(xdist.isin(x, 1), a == 1)
    assert_equal(xdist.isin(x, 7, invert=True), a != 7)
    assert_equal(xdist.isin(4, x), np.asarray(True))
    assert_equal(xdist.isin(6, x), np.asarray(False))


@pytest.mark.parametrize(
    "args, kwargs, error",
    [
        ((np.arange(3), np.arange(3)), {}, TypeError),
        ((1, 2), {}, TypeError),
        (("x", 1.5), {}, TypeError),
        (("f", "x"), {}, TypeError),
        (("x", 300), {}, OverflowError),
        (("x", "x"), {"invert": 1}, TypeError),
    ],
    ids=["numpy", "two-ints", "float-scalar", "float-array", "overflow", "invert"],
)
def test_isin_errors_raise_before_any_message(args, kwargs, error):
    arrays = {"x": distribute(np.arange(7, dtype=np.uint8), 0), "f": distribute(np.ones(7), 0)}
    args = tuple(arrays.get(a, a) if isinstance(a, str) else a for a in args)
    with xdist.count_collectives() as counts:
        with pytest.raises(error, match="isin"):
            xdist.isin(*args, **kwargs)
    assert sum(counts.values()) == 0
