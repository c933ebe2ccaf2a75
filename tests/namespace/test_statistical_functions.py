"""Statistical reductions against NumPy: every layout, every axis choice, keepdims, dtypes;
how much they communicate; errors before any message; the one-pass moment merge."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import (
    SIZE,
    UNSUPPORTED,
    assert_equal,
    comm_params,
    distribute,
    layouts,
    random_array,
    require_dtypes,
    uneven_counts,
)

import xdist
from xdist._statistical_functions import _merge_moments

SHAPES = [(7,), (2,), (7, 5), (2, 3), (4, 0), (), (3, 4, 5)]

# NumPy's reduction for each of xdist's, with the standard's keywords translated.
_NUMPY = {
    "sum": np.sum,
    "prod": np.prod,
    "min": np.min,
    "max": np.max,
    "mean": np.mean,
    "var": np.var,
    "std": np.std,
    "all": np.all,
    "any": np.any,
}

# (function, input dtype, keyword arguments)
CASES = [
    ("sum", "int8", {}),
    ("sum", "uint8", {}),
    ("sum", "int32", {}),
    ("sum", "float32", {}),
    ("sum", "float64", {}),
    ("sum", "complex128", {}),
    ("sum", "bool", {}),
    ("prod", "int64", {}),
    ("prod", "uint8", {}),
    ("prod", "float64", {}),
    ("prod", "complex128", {}),
    ("prod", "bool", {}),
    ("min", "int8", {}),
    ("min", "uint8", {}),
    ("min", "float32", {}),
    ("max", "int32", {}),
    ("max", "float64", {}),
    ("mean", "float32", {}),
    ("mean", "float64", {}),
    ("mean", "complex128", {}),
    ("var", "float32", {}),
    ("var", "float64", {}),
    ("var", "float64", {"correction": 1}),
    ("std", "float64", {}),
    ("std", "float32", {"correction": 1.0}),
]


def axis_choices(ndim: int) -> list:
    """None, every axis (and -1), tuples with and without each axis (one given reversed and
    negative), and the empty tuple."""
    out: list = [None, ()]
    out += list(range(ndim))
    if ndim:
        out.append(-1)
    if ndim >= 2:
        out += [(1, 0), (0, -1)]
    if ndim == 3:
        out += [(0, 2), (1, 2), (2, 1, 0)]
    return out


def tolerance(dtype) -> dict:
    kind, size = np.dtype(dtype).kind, np.dtype(dtype).itemsize
    if kind in "biu":
        return {}
    if size <= 4 or (kind == "c" and size == 8):
        return {"rtol": 2e-5, "atol": 2e-5}
    return {"rtol": 1e-12, "atol": 1e-12}


def expected_split(split, ndim, axes, keepdims):
    if split is None or split in axes:
        return None
    return split if keepdims else split - sum(a < split for a in axes)


def check_all_axes(name: str, g: np.ndarray, split, counts, kwargs: dict, tol: dict) -> None:
    """``xdist.<name>`` equals NumPy's on every axis choice and keepdims; the result layout is
    right; it sends nothing unless the split axis is reduced, then exactly one allreduce."""
    x = distribute(g, split, counts)
    np_kwargs = {("ddof" if k == "correction" else k): v for k, v in kwargs.items()}
    for axis in axis_choices(g.ndim):
        axes = tuple(
            sorted(
                a % g.ndim
                for a in (
                    range(g.ndim)
                    if axis is None
                    else (axis if isinstance(axis, tuple) else (axis,))
                )
            )
        )
        for keepdims in (False, True):
            where = f"{name}(axis={axis}, keepdims={keepdims}) split={split} counts={counts}"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = _NUMPY[name](g, axis=axis, keepdims=keepdims, **np_kwargs)
            except ValueError:  # min/max of nothing
                with xdist.count_collectives() as c, pytest.raises(ValueError, match=name):
                    getattr(xdist, name)(x, axis=axis, keepdims=keepdims, **kwargs)
                assert not c, where
                continue
            with xdist.count_collectives() as c, warnings.catch_warnings():
                warnings.simplefilter("error")  # xdist must not warn where NumPy does
                y = getattr(xdist, name)(x, axis=axis, keepdims=keepdims, **kwargs)
            communicates = split is not None and split in axes and SIZE > 1
            assert dict(c) == ({"allreduce": 1} if communicates else {}), (where, dict(c))
            assert y.split == expected_split(split, g.ndim, axes, keepdims), where
            if y.split is not None:
                assert y.counts == x.counts, where
            try:
                assert_equal(y, expected, **tol)
            except AssertionError as e:
                raise AssertionError(f"{where}: {e}") from None


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}" + ("-c" if c[2] else ""))
def test_reduction_matches_numpy(case, shape):
    name, dtype, kwargs = case
    if name in ("sum", "prod") and np.dtype(dtype).kind == "u":
        require_dtypes("uint64")  # unsigned sums and products accumulate in uint64
    g = random_array(shape, dtype, seed=len(shape) + 3)
    for split, counts in layouts(shape):
        check_all_axes(name, g, split, counts, kwargs, tolerance(dtype))


# -- dtype rules ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize(
    "dtype,expected",
    [
        ("int8", "int64"),
        ("int32", "int64"),
        ("uint8", "uint64"),
        ("uint32", "uint64"),
        ("bool", "int64"),
        ("float32", "float32"),
        ("complex64", "complex64"),
    ],
)
def test_sum_prod_default_dtype(name, dtype, expected):
    x = distribute(random_array((7, 2), dtype, 1), 0)
    assert getattr(xdist, name)(x).dtype == np.dtype(expected)
    assert getattr(xdist, name)(x, axis=1).dtype == np.dtype(expected)


@pytest.mark.parametrize("name", ["sum", "prod", "cumulative_sum", "cumulative_prod"])
def test_unsigned_accumulator_follows_backend(name):
    """Unsigned integers accumulate in uint64, or in int64 where the backend has no uint64
    (Torch, whose own sum gives int64): never a TypeError naming uint64."""
    g = random_array((7, 3), "uint8", 4)
    acc = "int64" if "uint64" in UNSUPPORTED else "uint64"
    expected = getattr(np, name)(g.astype(acc), axis=0)
    for split, counts in layouts(g.shape):
        assert_equal(getattr(xdist, name)(distribute(g, split, counts), axis=0), expected)


@pytest.mark.parametrize("name", ["sum", "prod"])
@pytest.mark.parametrize(
    "dtype,acc",
    [
        ("int8", "int8"),
        ("int32", "float32"),
        ("float32", "float64"),
        ("uint8", "int16"),
        ("float64", "complex128"),
    ],
)
def test_sum_prod_dtype_argument(name, dtype, acc):
    g = random_array((7, 3), dtype, 2)
    if dtype == "int8":
        g = (g * 3).astype("int8")  # overflows int8: the wrap-around must match NumPy's
    expected_fn = getattr(np, name)
    for split, counts in layouts(g.shape):
        x = distribute(g, split, counts)
        for axis in (None, 0, 1):
            y = getattr(xdist, name)(x, axis=axis, dtype=getattr(xdist, acc))
            assert_equal(y, expected_fn(g, axis=axis, dtype=acc), **tolerance(acc))


# -- cumulative_sum / cumulative_prod -----------------------------------------------------------
@pytest.mark.parametrize("shape", [(7,), (2,), (7, 5), (4, 0), (3, 4, 5)], ids=str)
@pytest.mark.parametrize(
    "name,dtype",
    [
        ("cumulative_sum", "int8"),
        ("cumulative_sum", "uint8"),
        ("cumulative_sum", "float32"),
        ("cumulative_sum", "complex128"),
        ("cumulative_sum", "bool"),
        ("cumulative_prod", "int64"),
        ("cumulative_prod", "float64"),
    ],
)
def test_cumulative_matches_numpy(name, dtype, shape):
    if name == "cumulative_sum" and np.dtype(dtype).kind == "u":
        require_dtypes("uint64")  # unsigned sums accumulate in uint64
    g = random_array(shape, dtype, 10)
    if name == "cumulative_prod" and dtype == "float64":
        g = 1 + g / 10  # keep long products moderate
    np_fn = getattr(np, name)
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for axis in ([None] if len(shape) == 1 else []) + list(range(len(shape))) + [-1]:
            for initial in (False, True):
                where = f"{name}(axis={axis}, include_initial={initial}) split={split} {counts}"
                with xdist.count_collectives() as c:
                    y = getattr(xdist, name)(x, axis=axis, include_initial=initial)
                scans = split is not None and split == (axis or 0) % len(shape) and SIZE > 1
                assert dict(c) == ({"exscan": 1} if scans else {}), (where, dict(c))
                assert y.split == split, where
                expected = np_fn(g, axis=axis, include_initial=initial)
                try:
                    assert_equal(y, expected, **tolerance(dtype))
                except AssertionError as e:
                    raise AssertionError(f"{where}: {e}") from None


def test_cumulative_dtype_argument():
    g = random_array((7,), "int32", 11)
    for split, counts in layouts(g.shape):
        x = distribute(g, split, counts)
        assert_equal(
            xdist.cumulative_sum(x, dtype=xdist.float32),
            np.cumulative_sum(g, dtype="float32"),
            rtol=1e-6,
        )
        assert_equal(
            xdist.cumulative_prod(x, dtype=xdist.int8), np.cumulative_prod(g, dtype="int8")
        )


@pytest.mark.parametrize(
    "call,error",
    [
        (lambda x: xdist.cumulative_sum(x), ValueError),  # 2-D: axis is required
        (lambda x: xdist.cumulative_sum(x, axis=2), IndexError),
        (lambda x: xdist.cumulative_prod(x, axis=(0,)), TypeError),
        (lambda x: xdist.cumulative_prod(x, axis=0, include_initial=1), TypeError),
        (lambda x: xdist.cumulative_sum(x, axis=0, dtype=xdist.bool), TypeError),
        (lambda x: xdist.cumulative_sum(distribute(np.array(1.0)), axis=0), ValueError),  # 0-d
    ],
)
def test_cumulative_bad_arguments(call, error):
    x = distribute(_X["float64"], 0)
    with xdist.count_collectives() as c, pytest.raises(error, match="^cumulative_"):
        call(x)
    assert not c


# -- min / max ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "float32", "float64"])
def test_min_max_identity_of_empty_blocks(name, dtype):
    # All values on the far side of 0, so a rank with no rows contributing 0 would show.
    g = np.abs(random_array((2, 3), dtype, 3)).astype(dtype) + 1
    if name == "max" and np.dtype(dtype).kind != "u":
        g = -g
    elif name == "max":
        g = np.full((2, 3), np.iinfo(dtype).min, dtype=dtype)
    for split, counts in layouts(g.shape) + [(0, (0,) * (SIZE - 1) + (2,))]:
        x = distribute(g, split, counts)
        for axis in (None, 0, (0, 1)):
            assert_equal(getattr(xdist, name)(x, axis=axis), getattr(np, name)(g, axis=axis))


@pytest.mark.parametrize("name", ["min", "max"])
def test_min_max_propagate_nan(name):
    g = random_array((7, 3), "float64", 4)
    g[-1, 1] = np.nan  # on the last rank only
    g[0, 2] = np.nan  # on the first rank only
    for split, counts in layouts(g.shape):
        x = distribute(g, split, counts)
        for axis in (None, 0, 1):
            assert_equal(getattr(xdist, name)(x, axis=axis), getattr(np, name)(g, axis=axis))


# Blocks of thousands of short lines reduced along the last axis: NumPy's backend reduces
# those by a transposing copy and a reduction over the first axis (at most 16 values a line,
# at least 8192 lines: (30000, 17) is just past the limit, and a split along the lines at 3
# ranks puts 10000 of them on a rank, 0 on an empty one). NaN and signed zeros included.
@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("shape", [(30000, 8), (30000, 2), (30000, 16), (30000, 17), (3, 9000, 5)])
def test_min_max_along_short_last_axes(name, dtype, shape):
    rng = np.random.default_rng(7)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.5, -2.0, 3.0])
        special = values[rng.integers(0, len(values), size=shape)]
        g = np.where(rng.random(shape) < 0.9, rng.standard_normal(shape), special).astype(dt)
    else:
        info = np.iinfo(dt)
        g = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for keepdims in (False, True):
            got = getattr(xdist, name)(x, axis=-1, keepdims=keepdims)
            assert_equal(got, getattr(np, name)(g, axis=-1, keepdims=keepdims))


# -- mean / var / std ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("correction", [2, 7, 9.5])
def test_var_degrees_of_freedom_at_or_below_zero(name, correction):
    g = random_array((7, 2), "float64", 5)
    g[:, 1] = 3.0  # constant column: M2 == 0, so 0 / 0 gives NaN, like NumPy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(np, name)(g, axis=0, ddof=correction)
    for split, counts in layouts(g.shape):
        x = distribute(g, split, counts)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = getattr(xdist, name)(x, axis=0, correction=correction)
        assert_equal(y, expected, rtol=1e-12)


@pytest.mark.parametrize("counts", ["balanced", "uneven"])
def test_var_numerically_stable(counts):
    # 1e8 plus unit noise: a one-pass sum of squares loses every digit of the variance here,
    # the pairwise merge of per-rank (n, mean, M2) must not.
    rng = np.random.default_rng(6)
    g = 1e8 + rng.standard_normal((3000, 2))
    expected = np.var(g, axis=0)
    naive = np.mean(g * g, axis=0) - np.mean(g, axis=0) ** 2
    assert np.max(np.abs(naive - expected) / expected) > 1e-6  # the naive formula fails
    x = distribute(g, 0, None if counts == "balanced" else uneven_counts(3000, SIZE))
    assert_equal(xdist.var(x, axis=0), expected, rtol=1e-6)
    assert_equal(xdist.std(x, axis=0, correction=1), np.std(g, axis=0, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(float(xdist.mean(x)), np.mean(g), rtol=1e-14)


def _record(part: np.ndarray) -> np.ndarray:
    """``(n, mean, correction, M2)`` of ``part``, as ``_second_moment`` makes it."""
    if part.size == 0:
        return np.zeros((1, 4))
    m = part.mean()
    c = np.mean(part - m)
    return np.array([[part.size, m, c, np.sum((part - m) ** 2) - part.size * c * c]])


def _summary(record: np.ndarray) -> np.ndarray:
    """``(n, mean, M2)``: the mean is the record's rounded mean plus its correction."""
    return np.stack([record[:, 0], record[:, 1] + record[:, 2], record[:, 3]], axis=1)


def test_merge_moments_matches_whole_data():
    rng = np.random.default_rng(7)
    data = 5.0 + 1e3 * rng.standard_normal(40)
    cuts = [0, 0, 3, 3, 17, 39, 40, 40]  # empty parts included
    parts = [data[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    merged = _record(parts[0])
    for part in parts[1:]:  # left to right
        merged = _merge_moments(merged, _record(part))
    tree = _merge_moments(
        _merge_moments(_record(parts[0]), _record(parts[3])),
        _merge_moments(_record(parts[5]), _record(parts[4])),
    )
    tree = _merge_moments(tree, _merge_moments(_record(parts[1]), _record(parts[2])))
    whole = _summary(_record(data))
    np.testing.assert_allclose(_summary(merged), whole, rtol=1e-12)
    np.testing.assert_allclose(_summary(tree), whole, rtol=1e-12)
    np.testing.assert_array_equal(
        _merge_moments(np.zeros((1, 4)), np.zeros((1, 4))), np.zeros((1, 4))
    )


@pytest.mark.parametrize("counts", ["balanced", "uneven"])
def test_var_of_offset_data_does_not_depend_on_the_ranks(counts):
    """1e8 + N(0, 1): each rank's mean is rounded to ulp(1e8) = 1.5e-8; merging the rounded
    means alone put an error of ~ulp / sqrt(n) into M2 (2.6e-9 relative at 2-3 ranks). With
    the corrections of the corrected two-pass algorithm the result is as good as NumPy's on
    the whole data at any number of ranks."""
    rng = np.random.default_rng(11)
    g = 1e8 + rng.standard_normal((60, 3))
    exact = np.array([float(np.var(col.astype(np.longdouble), dtype=np.longdouble)) for col in g.T])
    numpy_error = np.max(np.abs(np.var(g, axis=0) - exact) / exact)
    x = distribute(g, 0, None if counts == "balanced" else uneven_counts(60, SIZE))
    error = np.max(np.abs(xdist.var(x, axis=0).to_numpy() - exact) / exact)
    assert error <= max(4 * numpy_error, 1e-14), (error, numpy_error)


# -- every communicator -------------------------------------------------------------------------
@comm_params
def test_reductions_on_every_communicator(comm):
    g = random_array((7, 4), "float64", 8)
    for split in (None, 0, 1):
        x = distribute(g, split, comm=comm)
        assert_equal(xdist.sum(x, axis=0), g.sum(axis=0), rtol=1e-12, atol=1e-12)
        assert_equal(xdist.max(x), g.max())
        assert_equal(xdist.var(x, axis=(0, 1), correction=1), g.var(ddof=1), rtol=1e-12)
        assert_equal(
            xdist.mean(x, axis=1, keepdims=True), g.mean(axis=1, keepdims=True), rtol=1e-12
        )


# -- errors: raised on every rank before any message --------------------------------------------
_X = {
    "float64": random_array((7, 3), "float64", 9),
    "int32": random_array((7, 3), "int32", 9),
    "bool": random_array((7, 3), "bool", 9),
    "complex128": random_array((7, 3), "complex128", 9),
}


@pytest.mark.parametrize(
    "call,error",
    [
        (lambda x: xdist.sum(x, axis=2), IndexError),
        (lambda x: xdist.prod(x, axis=-3), IndexError),
        (lambda x: xdist.min(x, axis=1.0), TypeError),
        (lambda x: xdist.max(x, axis=[0, 1]), TypeError),
        (lambda x: xdist.mean(x, axis=(0, -2)), ValueError),
        (lambda x: xdist.var(x, axis=(1, 1)), ValueError),
        (lambda x: xdist.std(x, keepdims=1), TypeError),
        (lambda x: xdist.sum(x, dtype=np.float16), TypeError),
        (lambda x: xdist.prod(x, dtype=xdist.bool), TypeError),
        (lambda x: xdist.var(x, correction="1"), TypeError),
        (lambda x: xdist.std(x, correction=True), TypeError),
        (lambda x: xdist.sum(np.ones(3)), TypeError),
    ],
)
def test_bad_arguments_raise_before_communicating(call, error):
    for split in (None, 0):
        x = distribute(_X["float64"], split)
        with xdist.count_collectives() as c, pytest.raises(error):
            call(x)
        assert not c


@pytest.mark.parametrize(
    "name,dtype",
    [
        ("min", "complex128"),
        ("max", "bool"),
        ("mean", "int32"),
        ("mean", "bool"),
        ("var", "complex128"),
        ("var", "int32"),
        ("std", "bool"),
    ],
)
def test_bad_dtype_raises_before_communicating(name, dtype):
    x = distribute(_X[dtype], 0)
    with xdist.count_collectives() as c, pytest.raises(TypeError, match=f"^{name}: "):
        getattr(xdist, name)(x)
    assert not c


def test_complex_sum_in_real_dtype_raises():
    x = distribute(_X["complex128"], 0)
    with xdist.count_collectives() as c, pytest.raises(TypeError, match="^sum: "):
        xdist.sum(x, dtype=xdist.float64)
    assert not c


def test_empty_min_raises_everywhere_before_communicating():
    x = distribute(np.zeros((0, 3)), 0)
    for name in ("min", "max"):
        with xdist.count_collectives() as c, pytest.raises(ValueError, match=f"^{name}: "):
            getattr(xdist, name)(x, axis=0)
        assert not c
        assert getattr(xdist, name)(x, axis=1).shape == (0,)


@pytest.mark.parametrize("name", ["var", "std"])
def test_ddof_is_numpys_name_for_correction(name):
    a = random_array((7, 3), seed=11)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        got = getattr(xdist, name)(x, axis=0, ddof=1)
        np.testing.assert_allclose(got.to_numpy(), getattr(np, name)(a, axis=0, ddof=1), rtol=1e-12)
        with pytest.raises(TypeError, match=f"{name}: give correction or NumPy's ddof"):
            getattr(xdist, name)(x, correction=1, ddof=1)
