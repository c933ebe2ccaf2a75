"""The local moments behind ``var``/``std`` (``backends/moments.py``): NumPy's one-read
chunked algorithm against the corrected two-pass one and against exact rational arithmetic,
on data centred, offset (where sums of squares lose digits), drifting along the rows, float64
and float32, every axis, the leading or the trailing axes; and ``std`` of such data at every
rank count against NumPy's."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, uneven_counts

import xdist
from xdist.backends import moments

CASES = [
    ((1000,), (0,)),
    ((300, 7), (0,)),
    ((300, 7), (1,)),
    ((300, 7), (0, 1)),
    ((5, 4, 3), (0, 1)),
    ((5, 4, 3), (1, 2)),
    ((200000, 3), (0,)),
    ((3, 100000), (1,)),
    ((3, 50000), (0,)),
    ((1, 5), (0,)),
    ((5, 1), (1,)),
]


def _data(shape, offset, dtype, kind="normal"):
    rng = np.random.default_rng(len(shape) + shape[0])
    if kind == "drift":
        return (np.arange(math.prod(shape)).reshape(shape) * 1.0 + offset).astype(dtype)
    return (rng.standard_normal(shape) * 2 + offset).astype(dtype)


@pytest.mark.parametrize("kind", ["normal", "drift"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("offset", [0.0, 3.0, 1e8])
@pytest.mark.parametrize("shape,axes", CASES)
def test_chunked_matches_two_pass(shape, axes, offset, dtype, kind):
    x = _data(shape, offset, dtype, kind)
    n = math.prod(shape[a] for a in axes)
    got = moments.chunked(x, axes)
    assert got is not None
    m, c, m2 = got
    tm, tc, tm2 = moments.two_pass(np, x, axes, n, np.dtype("float64"))
    assert m.shape == tm.shape == c.shape == m2.shape
    spread = np.sqrt(np.maximum(tm2, 1e-300) / n)
    np.testing.assert_allclose(m2, tm2, rtol=1e-11, atol=1e-300)
    assert np.all(np.abs((m - tm) + (c - tc)) <= 1e-12 * spread + 1e-300)


def test_chunked_exact_on_offset_data():
    """M2 of large-offset data as exact rational arithmetic gives it, to a few ulps."""
    x = _data((700, 3000), 1e8, "float64")
    m2 = moments.chunked(x, (0,))[2][0]
    for j in (0, 1234, 2999):
        col = [Fraction(v) for v in x[:, j]]
        mean = sum(col) / len(col)
        exact = float(sum((v - mean) ** 2 for v in col))
        assert abs(m2[j] - exact) <= 1e-13 * exact


@pytest.mark.parametrize("offset,centred", [(0.0, True), (3.0, True), (1e3, False)])
def test_chunked_skips_the_shift_for_data_near_zero(monkeypatch, offset, centred):
    """Means within two deviations of zero (here 0 and 1.5) are summed without the
    subtraction pass; M2 stays within a few ulps of exact rational arithmetic."""
    x = _data((3000, 50), offset, "float64")
    calls = []
    real = np.subtract
    monkeypatch.setattr(moments.np, "subtract", lambda *a, **k: calls.append(1) or real(*a, **k))
    m2 = moments.chunked(x, (0,))[2][0]
    monkeypatch.undo()
    assert (not calls) == centred
    for j in (0, 17, 49):
        col = [Fraction(v) for v in x[:, j]]
        mean = sum(col) / len(col)
        exact = float(sum((v - mean) ** 2 for v in col))
        assert abs(m2[j] - exact) <= 1e-13 * exact


def test_chunked_declines_other_layouts():
    x = np.ones((4, 5, 6))
    assert moments.chunked(x, (1,)) is None  # a middle axis
    assert moments.chunked(x.transpose(), (0,)) is None  # not C-contiguous
    assert moments.chunked(x.astype(np.int64), (0,)) is None


@pytest.mark.parametrize("kind", ["normal", "drift"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("offset", [0.0, 3.0, 1e8])
@pytest.mark.parametrize("shape,axes", CASES)
def test_welford_matches_two_pass(shape, axes, offset, dtype, kind):
    """Torch's one-read moments for GPU blocks (``backends/torch.py: welford``), run here on
    CPU tensors: within 1e-11 of the corrected two passes (as ``chunked``; on the drifting
    200000 rows Welford's M2 is the exact one, two passes' 7e-12 off) where the means are near zero
    next to the spread; declined (``None``) where one is more than 64 deviations away."""
    torch = pytest.importorskip("torch")
    from xdist.backends.torch import WELFORD_OFFSET, welford

    x = _data(shape, offset, dtype, kind)
    n = math.prod(shape[a] for a in axes)
    tm, tc, tm2 = moments.two_pass(np, x, axes, n, np.dtype("float64"))
    got = welford(torch.from_numpy(x), axes, n)
    far = np.any(tm * tm > WELFORD_OFFSET**2 * tm2 / n)
    assert (got is None) == far, (offset, kind)
    if got is None:
        return
    m, c, m2 = (t.numpy() for t in got)
    assert m.shape == tm.shape == c.shape == m2.shape and m2.dtype == np.float64
    spread = np.sqrt(np.maximum(tm2, 1e-300) / n)
    np.testing.assert_allclose(m2, tm2, rtol=1e-11, atol=1e-300)
    assert np.all(np.abs(m - (tm + tc)) <= 1e-12 * spread + 1e-300)


def test_welford_declines_what_it_does_not_handle():
    torch = pytest.importorskip("torch")
    from xdist.backends.torch import welford

    x = torch.ones((4, 5), dtype=torch.float64)
    assert welford(x, (), 1) is None  # nothing reduced
    assert welford(x.to(torch.int64), (0,), 4) is None
    assert welford(x[:0], (0,), 0) is None  # empty


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("offset", [0.0, 1e8])
@pytest.mark.parametrize("split,uneven", [(0, False), (0, True), (1, True), (None, False)])
def test_std_of_offset_data_at_every_rank_count(split, uneven, offset, axis):
    g = _data((300, 40), offset, "float64")
    counts = uneven_counts(g.shape[split], SIZE) if uneven else None
    x = distribute(g, split, counts)
    assert_equal(xdist.std(x, axis=axis), np.std(g, axis=axis), rtol=1e-11)
    assert_equal(xdist.var(x, axis=axis, correction=1), np.var(g, axis=axis, ddof=1), rtol=1e-11)
