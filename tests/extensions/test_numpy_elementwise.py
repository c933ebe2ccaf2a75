"""isposinf, isneginf, isreal, spacing and interp (NumPy's names on the namespace) against
NumPy on the same data at every layout: elementwise, no message."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from helpers import (
    DEFAULTS,
    SIZE,
    assert_equal,
    distribute,
    layouts,
    random_array,
    require_dtypes,
)

import xdist

SPECIAL = np.array(
    [[1.0, -np.inf, np.inf, np.nan], [0.0, -0.0, -2.5, 1e300], [3.0, -1e-310, 7.0, -1.0]]
)


def no_message(func, *args, **kwargs):
    with xdist.count_collectives() as counts:
        out = func(*args, **kwargs)
    assert counts == Counter()
    return out


@pytest.mark.parametrize("name", ["isposinf", "isneginf", "spacing", "isreal"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16"])
def test_matches_numpy_at_every_layout(name, dtype):
    a = SPECIAL.astype(dtype) if dtype != "int16" else random_array((3, 4), dtype)
    want = getattr(np, name)(a)
    if name == "spacing" and dtype == "int16":
        want = np.spacing(a.astype(DEFAULTS["real floating"]))
    for case in layouts(a.shape):
        x = distribute(a, *case)
        assert_equal(no_message(getattr(xdist, name), x), want)
        assert_equal(no_message(getattr(np, name), x), want)  # NumPy's dispatches


def test_isreal_of_complex():
    require_dtypes("complex128")
    a = np.array([1 + 0j, 2j, -3 + 0j, np.nan + 1j, 4.0])
    for case in layouts(a.shape):
        assert_equal(no_message(xdist.isreal, distribute(a, *case)), np.isreal(a))


@pytest.mark.parametrize("left,right", [(None, None), (-7.0, 9)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_interp_matches_numpy(dtype, left, right):
    xs = np.array([-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, np.nan, 4.0, 2.0, 0.25])
    x = (xs if dtype != "int32" else np.nan_to_num(xs)).astype(dtype).reshape(3, 4)
    xp_, fp = np.array([0.0, 1.0, 2.0, 2.0, 3.0]), np.array([0.0, 10.0, 5.0, 6.0, 6.0])
    want = np.interp(x, xp_, fp, left, right)
    for case in layouts(x.shape):
        got = no_message(
            xdist.interp, distribute(x, *case), distribute(xp_), distribute(fp), left, right
        )
        assert_equal(got, want)
        assert got.split == case[0]
        assert_equal(np.interp(distribute(x, *case), xp_, fp, left, right), want)
    one = np.interp(x, [1.0], [3.0])
    assert_equal(xdist.interp(distribute(x, 0), [1.0], [3.0]), one)
    # a split table (SciPy's resample passes arrays made split): gathered, with its warning
    for case in layouts(xp_.shape):
        table = distribute(xp_, *case), distribute(fp, *case)
        with (
            xdist.config_context(gather_warning_elements=0),
            warnings.catch_warnings(record=True) as seen,
        ):
            warnings.simplefilter("always")
            got = xdist.interp(distribute(x, 0), *table, left, right)
        assert_equal(got, want)
        split = case[0] is not None and SIZE > 1
        assert any(issubclass(w.category, xdist.GatherWarning) for w in seen) == split


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.interp(x, [0.0, 1.0], [1.0]), ValueError, "interp: xp and fp must be 1-D"),
        (lambda x: xdist.interp(x, [0.0], [1.0], period=2.0), NotImplementedError, "period"),
        (lambda x: xdist.interp(x, [0.0], [1j]), NotImplementedError, "interp: complex fp"),
        (lambda x: xdist.interp(x, x, x[:3]), ValueError, "interp: xp and fp must be 1-D"),
        (lambda x: xdist.interp(x, [0.0], [1.0], left="a"), TypeError, "interp: left"),
        (lambda x: xdist.isposinf(x, out=x), NotImplementedError, "isposinf: out="),
        (lambda x: xdist.spacing(x > 0), TypeError, "spacing"),
    ],
)
def test_errors_before_any_message(call, exc, match):
    x = distribute(np.arange(6.0), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
