"""xdist's NaN-ignoring reductions and scans (nansum ... nancumprod) against NumPy's on the
same global data: every layout (uneven and empty blocks), NaNs in some lines, all-NaN lines,
the messages each sends, and NumPy's functions dispatching to them."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, defaulted, distribute, layouts

import xdist


def with_nans(shape, dtype="float64", seed=0) -> np.ndarray:
    """Normal data with NaNs scattered, one line along axis 0 all NaN (when 2-D)."""
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    if a.size:
        a.flat[rng.choice(a.size, max(1, a.size // 5), replace=False)] = np.nan
    if a.ndim == 2 and a.shape[1] > 1:
        a[:, 1] = np.nan
    return a


SHAPES = [(7, 4), (2, 3), (10,), (1, 5), (0, 3)]


def axes_for(shape):
    """None, the first and the last axis, and both axes of a 2-D shape."""
    return [None, 0, -1, (0, 1)] if len(shape) == 2 else [None, 0, -1]


def quiet(f, *args, **kwargs):
    """NumPy's result without its empty-slice RuntimeWarnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


def collectives_for(x: xdist.Array, axis) -> Counter:
    """What the reductions claim: one allreduce when the split axis is reduced, else none."""
    if x.split is None or SIZE == 1:
        return Counter()
    axes = range(x.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return Counter(allreduce=1) if x.split in [a % x.ndim for a in axes] else Counter()


def check_matches_numpy(name, shape, seed, rtol):
    """``xdist.<name>`` against ``np.<name>`` over every axis and layout, with the messages
    the reductions claim."""
    a = with_nans(shape, seed=seed)
    for axis in axes_for(shape):
        want = quiet(getattr(np, name), a, axis=axis)
        for case in layouts(shape):
            x = distribute(a, *case)
            with xdist.count_collectives() as counts:
                got = getattr(xdist, name)(x, axis=axis)
            assert counts == collectives_for(x, axis), (name, axis, case, counts)
            assert_equal(got, np.asarray(want), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sums_and_moments_match_numpy(name, shape):
    check_matches_numpy(name, shape, 0, 1e-12)


@pytest.mark.parametrize("ddof", [0, 1, 2.5])
@pytest.mark.parametrize("name", ["nanvar", "nanstd"])
def test_moments_ddof_and_keepdims(name, ddof):
    a = with_nans((9, 3), seed=3)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        for axis in (0, 1):
            got = getattr(xdist, name)(x, axis=axis, ddof=ddof, keepdims=True)
            want = quiet(getattr(np, name), a, axis=axis, ddof=ddof, keepdims=True)
            assert_equal(got, want, rtol=1e-12, atol=1e-12)


def test_variance_with_a_large_offset_is_the_same_at_every_rank_count():
    a = 1e8 + np.random.default_rng(5).standard_normal((40, 2))
    a[::7, 0] = np.nan
    want = np.nanvar(a, axis=0)
    for case in layouts(a.shape):
        got = xdist.nanvar(distribute(a, *case), axis=0)
        np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-9)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("name", ["nansum", "nanmean", "nanvar", "nanmin", "nanmax"])
def test_other_dtypes(name, dtype):
    a = with_nans((8, 3)) if dtype == "float32" else np.arange(24, dtype=dtype).reshape(8, 3)
    a = a.astype(dtype)
    want = quiet(getattr(np, name), a, axis=0)
    if name in ("nanmean", "nanvar") and dtype == "int32":
        want = defaulted(want)
    elif name == "nansum" and dtype == "int32":
        want = want.astype(np.int64)
    for case in layouts(a.shape):
        got = getattr(xdist, name)(distribute(a, *case), axis=0)
        assert_equal(got, want, rtol=1e-6 if dtype == "float32" else 1e-12)


def test_nanmean_complex():
    a = with_nans((6, 2)) + 1j * with_nans((6, 2), seed=1)
    for case in layouts(a.shape):
        got = xdist.nanmean(distribute(a, *case), axis=0)
        assert_equal(got, quiet(np.nanmean, a, axis=0), rtol=1e-12)


@pytest.mark.parametrize("name", ["nanmin", "nanmax"])
@pytest.mark.parametrize("shape", [(7, 4), (2, 3), (10,), (3, 1)], ids=str)
def test_extremes_match_numpy(name, shape):
    check_matches_numpy(name, shape, 2, 0.0)


@pytest.mark.parametrize("name", ["nanmin", "nanmax"])
def test_extremes_of_nothing_raise(name):
    x = distribute(np.zeros((0, 3)), 0)
    with pytest.raises(ValueError, match=f"{name}: zero-size reduction"):
        getattr(xdist, name)(x, axis=0)


@pytest.mark.parametrize("name", ["nanargmin", "nanargmax"])
def test_arg_extremes_match_numpy(name):
    a = with_nans((9, 4), seed=4)
    a[:, 1] = np.arange(9.0)  # no all-NaN line
    for case in layouts(a.shape):
        x = distribute(a, *case)
        for axis in (None, 0, 1):
            want = getattr(np, name)(a, axis=axis)
            assert_equal(getattr(xdist, name)(x, axis=axis), np.asarray(want, np.int64))


@pytest.mark.parametrize("name", ["nanargmin", "nanargmax"])
def test_arg_extremes_of_an_all_nan_line_raise_everywhere(name):
    a = with_nans((7, 3))  # column 1 is all NaN
    for case in layouts(a.shape):
        with pytest.raises(ValueError, match=f"{name}: All-NaN slice"):
            getattr(xdist, name)(distribute(a, *case), axis=0)


@pytest.mark.parametrize("name", ["nancumsum", "nancumprod"])
def test_scans_match_numpy(name):
    a = with_nans((8, 3), seed=6)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        for axis in (None, 0, 1):
            assert_equal(
                getattr(xdist, name)(x, axis=axis), getattr(np, name)(a, axis=axis), rtol=1e-12
            )


@pytest.mark.parametrize(
    "name", ["nansum", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "nancumsum"]
)
def test_numpy_functions_dispatch_without_a_gather(name):
    a = with_nans((9, 2), seed=7)
    x = distribute(a, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        got = getattr(np, name)(x, axis=0)
    assert isinstance(got, xdist.Array)
    np.testing.assert_allclose(got.to_numpy(), quiet(getattr(np, name), a, axis=0), rtol=1e-12)


def test_bad_arguments_raise_before_any_message():
    x = distribute(with_nans((5, 2)), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(IndexError, match="nanmean"):
            xdist.nanmean(x, axis=2)
        with pytest.raises(TypeError, match="nanvar: ddof"):
            xdist.nanvar(x, ddof="1")
        with pytest.raises(TypeError, match="nanmin"):
            xdist.nanmin(distribute(np.ones(3, complex), 0))
    assert counts == Counter()
