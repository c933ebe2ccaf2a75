"""histogram, histogram2d, histogramdd and digitize (xdist's extensions, NumPy's meaning)
against NumPy on the same global data at every layout: counts and edges exact, densities and
weighted counts to rounding; what they send; errors before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, require_dtypes, without_gathers

import xdist


def data(dtype="float64", shape=(7, 4), seed=0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(0, 20, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 3).astype(dtype)


def same(got, want, rtol=0.0):
    hist, edges = got
    assert_equal(hist, want[0], rtol=rtol, atol=rtol)
    assert_equal(edges, want[1])


BINS = [5, 1, [-4.0, -1.0, 0.0, 0.5, 4.0], np.array([0, 3, 3, 10, 30])]


@pytest.mark.parametrize("bins", BINS, ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8"])
def test_histogram_matches_numpy(dtype, bins):
    require_dtypes(dtype)
    a = data(dtype)
    for rng in (None, (-2, 6)):
        want = np.histogram(a, bins=bins, range=rng)
        for case in layouts(a.shape):
            same(without_gathers(xdist.histogram, distribute(a, *case), bins, rng), want)


@pytest.mark.parametrize("density", [False, True])
@pytest.mark.parametrize("bins", [4, [-5.0, 0.0, 1.0, 5.0]], ids=str)
@pytest.mark.parametrize("wdtype", ["float64", "float32", "int64"])
def test_histogram_weights_and_density(wdtype, bins, density):
    a, w = data(), data(wdtype, seed=1)
    want = np.histogram(a, bins=bins, weights=w, density=density)
    for case in layouts(a.shape):
        for wcase in (case, (None, None), (1, None)):
            got = xdist.histogram(
                distribute(a, *case), bins, weights=distribute(w, *wcase), density=density
            )
            same(got, want, rtol=1e-5 if wdtype == "float32" else 1e-12)


def test_histogram_edge_cases():
    for a in (np.full((5,), 2.0), np.zeros((0,)), np.array([1.0, 2.0, 3.0, 3.0])):
        want = np.histogram(a, bins=3)
        for case in layouts(a.shape):
            same(xdist.histogram(distribute(a, *case), 3), want)
    a = np.array([1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="autodetected range of \\[nan, nan\\]"):
        xdist.histogram(distribute(a, 0), 3)
    same(xdist.histogram(distribute(a, 0), 3, range=(0, 3)), np.histogram(a, 3, range=(0, 3)))


def test_histogram_sends_two_allreduces_or_one_with_a_range():
    x = distribute(data(), 0)
    with xdist.count_collectives() as counts:
        xdist.histogram(x, 4)
    assert counts == (Counter(allreduce=2) if SIZE > 1 else Counter())
    with xdist.count_collectives() as counts:
        xdist.histogram(x, 4, range=(-1, 1))
    assert counts == (Counter(allreduce=1) if SIZE > 1 else Counter())
    with xdist.count_collectives() as counts:
        xdist.histogram(distribute(data()), 4)
    assert counts == Counter()


@pytest.mark.parametrize(
    "bins", [3, (2, 3, 4), [np.array([-3.0, 0.0, 3.0]), 2, 5]], ids=["3", "per-dim", "mixed"]
)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_histogramdd_matches_numpy(dtype, bins):
    a = data(dtype, shape=(9, 3))
    for rng in (None, [(-2, 2), None, (0, 9)]):
        want = np.histogramdd(a, bins=bins, range=rng)
        for case in layouts(a.shape):
            hist, edges = without_gathers(
                xdist.histogramdd, distribute(a, *case), bins=bins, range=rng
            )
            assert_equal(hist, want[0])
            assert len(edges) == len(want[1])
            for got, e in zip(edges, want[1], strict=True):
                assert_equal(got, e)


def test_histogramdd_weights_density_and_columns():
    a, w = data(shape=(8, 2)), data(seed=2, shape=(8,)) ** 2
    want = np.histogramdd(a, bins=(3, 2), weights=w, density=True)
    for case in layouts(a.shape):
        for wcase in layouts(w.shape):
            hist, edges = xdist.histogramdd(
                distribute(a, *case), bins=(3, 2), weights=distribute(w, *wcase), density=True
            )
            assert_equal(hist, want[0], rtol=1e-12)
    cols = [distribute(a[:, 0], 0), distribute(a[:, 1])]
    assert_equal(xdist.histogramdd(cols, bins=3)[0], np.histogramdd([a[:, 0], a[:, 1]], 3)[0])


@pytest.mark.parametrize("bins", [4, (3, 5), [-1.0, 0.0, 2.0], (2, [-1.0, 0.0, 2.0])], ids=str)
def test_histogram2d_matches_numpy(bins):
    a = data(shape=(10, 2))
    want = np.histogram2d(a[:, 0], a[:, 1], bins=bins, density=True)
    for case in layouts(a.shape[:1]):
        x, y = distribute(a[:, 0], *case), distribute(a[:, 1], *case)
        got = without_gathers(xdist.histogram2d, x, y, bins=bins, density=True)
        for g, w in zip(got, want, strict=True):
            assert_equal(g, w, rtol=1e-12)


def test_histogramdd_sends_two_allreduces():
    x = distribute(data(shape=(9, 3)), 0)
    with xdist.count_collectives() as counts:
        xdist.histogramdd(x, bins=2)
    assert counts == (Counter(allreduce=2) if SIZE > 1 else Counter())


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize(
    "bins", [[-1.0, 0.0, 0.0, 2.5], [3, 1, 0, -2], np.array([0.5])], ids=["up", "down", "one"]
)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_digitize_matches_numpy_and_sends_nothing(dtype, bins, right):
    a = data(dtype)
    if dtype != "int32":
        a[0, 0] = np.nan
    want = np.digitize(a, bins, right=right)
    for case in layouts(a.shape):
        x = distribute(a, *case)
        with xdist.count_collectives() as counts:
            got = xdist.digitize(x, bins, right=right)
        assert counts == Counter()
        assert_equal(got, want)
        assert got.split == x.split and got.counts == x.counts


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.histogram(x, "auto"), NotImplementedError, "histogram: bins='auto'"),
        (lambda x: xdist.histogram(x, 0), ValueError, "bins must be positive"),
        (lambda x: xdist.histogram(x, 2.5), TypeError, "bins must be an integer"),
        (lambda x: xdist.histogram(x, [3, 1, 2]), ValueError, "increase monotonically"),
        (lambda x: xdist.histogram(x, 3, range=(2, 1)), ValueError, "max must be larger"),
        (lambda x: xdist.histogram(x, 3, range=(0, np.inf)), ValueError, "not finite"),
        (lambda x: xdist.histogram(x, 3, weights=np.ones(3)), ValueError, "weights have shape"),
        (lambda x: xdist.histogram(x, 3, density=1), TypeError, "density must be a bool"),
        (lambda x: xdist.histogramdd(x, bins=(2, 2)), ValueError, "one entry per dimension"),
        (lambda x: xdist.histogramdd(x, range=[(0, 1)]), ValueError, "one entry per dimension"),
        (lambda x: xdist.digitize(x, [1, 3, 2]), ValueError, "monotonically increasing or"),
        (lambda x: xdist.digitize(x, [[1.0]]), ValueError, "bins must be 1-D"),
        (lambda x: xdist.digitize(x > 0, [1.0]), TypeError, "real numeric"),
    ],
)
def test_bad_arguments_raise_before_any_message(call, exc, match):
    x = distribute(data(shape=(7, 3)), 0)
    with xdist.config_context(check_replicated=False), xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert counts == Counter()
