"""bincount and median against NumPy on the same global data: every layout, uneven and empty
blocks, dtypes, the collectives each uses, errors before any message, and scikit-learn's
``_bincount`` / ``_median`` finding them."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, defaulted, distribute, layouts

import xdist

# -- bincount ---------------------------------------------------------------------------------
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "bool"]


def ints(n: int, dtype: str, seed: int = 0) -> np.ndarray:
    values = np.random.default_rng(seed).integers(0, 6, n)
    return (values % 2 == 1) if dtype == "bool" else values.astype(dtype)


def expected_bincount(a, w=None, minlength=0) -> np.ndarray:
    """NumPy's bincount in xdist's dtypes: int64, or the weights' floating dtype (the
    backend's default floating dtype for integer weights)."""
    out = np.bincount(a, weights=w, minlength=minlength)
    if w is None:
        return out.astype(np.int64)
    # (NumPy gives int64 for no values at all, even weighted)
    return out.astype(w.dtype) if w.dtype.kind == "f" else defaulted(out.astype(np.float64))


def bincount_collectives(x: xdist.Array) -> Counter:
    """What the docs claim: nothing for a replicated x (or one rank), else two allreduce."""
    return Counter() if x.split is None or SIZE == 1 else Counter(allreduce=2)


@pytest.mark.parametrize("minlength", [0, 3, 10])
@pytest.mark.parametrize("n", [11, 7, 2, 1, 0])
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_bincount_matches_numpy(dtype, n, minlength):
    a = ints(n, dtype)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.bincount(x, minlength=minlength)
        assert counts == bincount_collectives(x), counts
        assert got.split is None
        assert_equal(got, expected_bincount(a, minlength=minlength))


@pytest.mark.parametrize("wdtype", ["float32", "float64", "int32", "bool"])
@pytest.mark.parametrize("n", [11, 2, 0])
def test_weighted_bincount_matches_numpy(n, wdtype):
    a = ints(n, "int64", seed=1)
    w = np.random.default_rng(2).standard_normal(n)
    w = (w > 0) if wdtype == "bool" else (w * 4).astype(wdtype)
    expected = expected_bincount(a, w, minlength=2)
    rtol = 1e-6 if expected.dtype == np.float32 else 1e-12  # sums in another order
    for case in layouts(a.shape):
        x, weights = distribute(a, *case), distribute(w, *case)
        with xdist.count_collectives() as counts:
            got = xdist.bincount(x, weights=weights, minlength=2)
        assert counts == bincount_collectives(x), counts
        assert_equal(got, expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("wsplit", [None, 0, "uneven"])
def test_weights_laid_out_differently(wsplit):
    """The split operand's layout wins; a replicated one is sliced, another split moves."""
    a = ints(11, "int32", seed=3)
    w = np.linspace(0.0, 1.0, 11)
    wcounts = layouts(a.shape)[-1][1] if wsplit == "uneven" else None
    weights = distribute(w, None if wsplit is None else 0, wcounts)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.bincount(x, weights=weights)
        moved = x.split is not None and weights.split is not None and x.layout != weights.layout
        expected = Counter() if SIZE == 1 else Counter(allreduce=2)
        if x.split is None and weights.split is None:
            expected = Counter()
        if moved and SIZE > 1:
            expected["alltoallv"] = 1
        assert counts == expected, counts
        assert_equal(got, np.bincount(a, w), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("split", [None, 0, "uneven"])
def test_negative_values_raise_on_every_rank(split):
    a = np.array([3, 0, 1, -2, 5, 1, 0], np.int64)
    counts_ = layouts(a.shape)[-1][1] if split == "uneven" else None
    x = distribute(a, None if split is None else 0, counts_)
    with xdist.count_collectives() as counts, pytest.raises(ValueError, match="negative"):
        xdist.bincount(x)
    # A data-dependent error: agreed by the allreduce that finds the extremes, not before.
    assert counts == (Counter() if x.split is None or SIZE == 1 else Counter(allreduce=1))


_BAD_BINCOUNT = {
    "not an array": (lambda o: xdist.bincount([1, 2]), TypeError, "x must be an xdist array"),
    "2-D": (lambda o: xdist.bincount(o["2-D"]), ValueError, "1-D"),
    "float": (lambda o: xdist.bincount(o["w"]), TypeError, "integer dtype"),
    "uint64": (lambda o: xdist.bincount(o["uint64"]), TypeError, "integer dtype"),
    "minlength<0": (lambda o: xdist.bincount(o["x"], minlength=-1), ValueError, "negative"),
    "minlength float": (lambda o: xdist.bincount(o["x"], minlength=1.5), TypeError, "minlength"),
    "weights shape": (
        lambda o: xdist.bincount(o["x"], weights=o["short"]),
        ValueError,
        "different shapes",
    ),
    "weights type": (lambda o: xdist.bincount(o["x"], weights=np.ones(7)), TypeError, "weights"),
    "complex weights": (
        lambda o: xdist.bincount(o["x"], weights=o["complex"]),
        TypeError,
        "real dtype",
    ),
}


@pytest.mark.parametrize("case", list(_BAD_BINCOUNT))
def test_bincount_errors_before_any_message(case):
    operands = {  # built first: making them communicates, the failing call must not
        "x": distribute(ints(7, "int64"), 0),
        "w": distribute(np.ones(7), 0),
        "short": distribute(np.ones(6), 0),
        "2-D": distribute(np.ones((2, 3), np.int64), 0),
        "complex": distribute(np.ones(7, np.complex64), 0),
    }
    if case == "uint64":  # (skipped under Torch, which has no uint64: see conftest)
        operands["uint64"] = distribute(np.ones(3, np.uint64), 0)
    call, error, match = _BAD_BINCOUNT[case]
    with xdist.count_collectives() as counts, pytest.raises(error, match=match) as info:
        call(operands)
    assert str(info.value).startswith("bincount:")
    assert sum(counts.values()) == 0


def test_scikit_learn_bincount_uses_it():
    from sklearn.utils._array_api import _bincount

    a, w = ints(11, "int64", seed=4), np.linspace(1.0, 2.0, 11)
    for case in layouts(a.shape):
        got = _bincount(distribute(a, *case), weights=distribute(w, *case), minlength=8, xp=xdist)
        assert_equal(got, np.bincount(a, w, minlength=8), rtol=1e-12, atol=1e-12)


# -- median ----------------------------------------------------------------------------------
SHAPES = [(), (7,), (2,), (1,), (0,), (7, 5), (2, 3), (4, 0), (3, 4, 5)]
KINDS = ["float64", "float32", "int32", "uint8", "float-nan", "ties"]


def values(shape, kind: str, seed: int = 0) -> np.ndarray:
    """Test data; ``float-nan`` has a NaN in some lines, ``ties`` repeats few values."""
    rng = np.random.default_rng(seed)
    if kind == "ties":
        return rng.integers(-2, 3, shape).astype(np.float64)
    if kind == "float-nan":
        a = rng.standard_normal(shape)
        a[rng.random(shape) < 0.1] = np.nan
        return a
    if kind in ("int32", "uint8"):
        return rng.integers(0, 100, shape).astype(kind)
    return rng.standard_normal(shape).astype(kind)


def axes_of(ndim: int):
    out = [None, *range(ndim), -1] if ndim else [None]
    if ndim == 3:
        out += [(0, 2), (1, 2), (0, 1)]
    return out


def expected_median(a, axis, keepdims) -> np.ndarray:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # the median of no values is NaN
        out = np.asarray(np.median(a, axis=axis, keepdims=keepdims))
    return out if a.dtype.kind == "f" else defaulted(out)


def reduces_split(x: xdist.Array, axis) -> bool:
    if x.split is None:
        return False
    return axis is None or x.split in {a % x.ndim for a in np.atleast_1d(axis)}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_median_matches_numpy(shape, kind):
    a = values(shape, kind)
    for case in layouts(shape):
        x = distribute(a, *case)
        for axis in axes_of(len(shape)):
            for keepdims in (False, True):
                with xdist.count_collectives() as counts:
                    got = xdist.median(x, axis=axis, keepdims=keepdims)
                assert_equal(got, expected_median(a, axis, keepdims))
                if not reduces_split(x, axis):  # the split survives: local
                    assert sum(counts.values()) == 0, counts
                    assert (got.split is None) == (x.split is None)
                    continue
                assert got.split is None
                if SIZE > 1 and x.size:  # a distributed sort, then the middle ones: no gather
                    assert counts["allgatherv"] >= 1 and counts["allreduce"] == 0, counts


@pytest.mark.parametrize("n", [7, 8, 2, 1])
@pytest.mark.parametrize("split", [0, "uneven"])
def test_median_of_a_split_vector_is_one_sort_and_one_allgatherv(split, n):
    a = values((n,), "float64", seed=5)
    counts_ = layouts(a.shape)[-1][1] if split == "uneven" else None
    x = distribute(a, 0, counts_)
    with xdist.count_collectives() as sort_counts:
        xdist.sort(x)
    with xdist.count_collectives() as counts:
        got = xdist.median(x)
    assert_equal(got, np.median(a))
    if SIZE > 1:
        assert counts == sort_counts + Counter(allgatherv=1), (counts, sort_counts)


@pytest.mark.parametrize("split", [None, 0, 1])
def test_median_of_integers_averages_in_float64(split):
    """Even counts average the two middle integers in float64 (NumPy's mean), once rounded
    to the result dtype: large neighbours do not lose their half."""
    a = np.array([[2**40 + 1, 3], [2**40 + 2, 4], [5, 6], [7, 2**40]], np.int64)
    x = distribute(a, split)
    for axis in (None, 0, 1):
        assert_equal(xdist.median(x, axis=axis), defaulted(np.median(a, axis=axis)))


def test_median_propagates_nan_and_infinities():
    a = np.array([[np.nan, 1.0, 2.0, 3.0], [np.inf, -np.inf, 1.0, 2.0], [0.0, -0.0, 5.0, 5.0]])
    for case in layouts(a.shape):
        x = distribute(a, *case)
        for axis in (None, 0, 1):
            assert_equal(xdist.median(x, axis=axis), np.median(a, axis=axis))


_BAD_MEDIAN = {  # the operand, the call, the error
    "not an array": (None, lambda x: xdist.median(np.ones(3)), TypeError, "xdist array"),
    "bool": ("bool", xdist.median, TypeError, "real numeric"),
    "complex": ("complex128", xdist.median, TypeError, "real numeric"),
    "axis": (None, lambda x: xdist.median(x, axis=2), IndexError, "out of bounds"),
    "axis type": (None, lambda x: xdist.median(x, axis=[0]), TypeError, "axis"),
    "repeated": (None, lambda x: xdist.median(x, axis=(0, 0)), ValueError, "repeats"),
    "keepdims": (None, lambda x: xdist.median(x, keepdims=1), TypeError, "keepdims"),
}


@pytest.mark.parametrize("case", list(_BAD_MEDIAN))
def test_median_errors_before_any_message(case):
    dtype, call, error, match = _BAD_MEDIAN[case]
    a = values((7, 5), "float64")
    x = distribute(a if dtype is None else a.astype(dtype), 0)
    with xdist.count_collectives() as counts, pytest.raises(error, match=match) as info:
        call(x)
    assert str(info.value).startswith("median:")
    assert sum(counts.values()) == 0


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_scikit_learn_median_uses_it(axis):
    from sklearn.utils._array_api import _median

    a = values((7, 5), "float64", seed=6)
    for case in layouts(a.shape):
        got = _median(distribute(a, *case), axis=axis, xp=xdist)
        assert_equal(got, np.median(a, axis=axis))
