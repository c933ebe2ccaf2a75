"""NumPy's functions that xdist implements, called as ``np.<name>(x)`` on a split xdist array:
they dispatch to xdist's distributed version (``__array_function__``, xdist/_numpy_interop.py)
and give NumPy's answer with no gather (a GatherWarning would be an error here), at every
layout of the first argument."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import distribute, layouts, random_array, without_gathers

import xdist

A = random_array((7, 4), seed=1)
V = random_array((7,), seed=2)
K = np.array([3, 1, 3, 0, 2, 1, 3])

# name -> (NumPy's call, the data its first argument takes)
CALLS = {
    "percentile": (lambda np_, x: np_.percentile(x, [10, 50], axis=0), A),
    "nanpercentile": (lambda np_, x: np_.nanpercentile(x, 30, axis=0), A),
    "histogram": (lambda np_, x: np_.histogram(x, bins=5), V),
    "histogram2d": (lambda np_, x: np_.histogram2d(x, x * 2.0, bins=3), V),
    "histogramdd": (lambda np_, x: np_.histogramdd(x, bins=2), A),
    "digitize": (lambda np_, x: np_.digitize(x, np.array([-1.0, 0.0, 1.0])), A),
    "cov": (lambda np_, x: np_.cov(x, rowvar=False), A),
    "corrcoef": (lambda np_, x: np_.corrcoef(x, rowvar=False), A),
    "average": (lambda np_, x: np_.average(x, axis=0), A),
    "ptp": (lambda np_, x: np_.ptp(x, axis=0), A),
    "isclose": (lambda np_, x: np_.isclose(x, x + 1e-9), A),
    "allclose": (lambda np_, x: np_.allclose(x, x + 1e-9), A),
    "array_equal": (lambda np_, x: np_.array_equal(x, x), A),
    "argwhere": (lambda np_, x: np_.argwhere(x > 0.5), A),
    "cumsum": (lambda np_, x: np_.cumsum(x, axis=0), A),
    "cumprod": (lambda np_, x: np_.cumprod(x), A),
    "concatenate": (lambda np_, x: np_.concatenate([x, x], axis=1), A),
    "hstack": (lambda np_, x: np_.hstack([x, x]), A),
    "vstack": (lambda np_, x: np_.vstack([x, x]), A),
    "column_stack": (lambda np_, x: np_.column_stack([x, x]), A),
    "unique": (lambda np_, x: np_.unique(x, return_counts=True), K),
    "dot": (lambda np_, x: np_.dot(x, np.ones(4)), A),
    "outer": (lambda np_, x: np_.outer(x, np.arange(3.0)), V),
    "kron": (lambda np_, x: np_.kron(x, np.eye(2)), A),
    "trace": (lambda np_, x: np_.trace(x), A),
    "diag": (lambda np_, x: np_.diag(x), V),
    "atleast_2d": (lambda np_, x: np_.atleast_2d(x), V),
    "atleast_3d": (lambda np_, x: np_.atleast_3d(x), A),
    "ravel": (lambda np_, x: np_.ravel(x), A),
    "copy": (lambda np_, x: np_.copy(x), A),
    "append": (lambda np_, x: np_.append(x, np.ones((1, 4)), axis=0), A),
    "delete": (lambda np_, x: np_.delete(x, [0, 5], axis=0), A),
    "insert": (lambda np_, x: np_.insert(x, 2, 0.0, axis=0), A),
    "resize": (lambda np_, x: np_.resize(x, (3, 5)), A),
    "flatnonzero": (lambda np_, x: np_.flatnonzero(x > 0.0), A),
    "unravel_index": (lambda np_, x: np_.unravel_index(x, (2, 2)), K),
    "ravel_multi_index": (lambda np_, x: np_.ravel_multi_index((x, x), (4, 4)), K),
    "ix_": (lambda np_, x: np_.ix_(x, np.array([0, 2])), K),
    "isposinf": (lambda np_, x: np_.isposinf(x / 0.0), A),
    "isneginf": (lambda np_, x: np_.isneginf(x / 0.0), A),
    "isreal": (lambda np_, x: np_.isreal(x), A),
    "spacing": (lambda np_, x: np_.spacing(x), A),
    "interp": (lambda np_, x: np_.interp(x, np.array([-1.0, 1.0]), np.array([0.0, 2.0])), A),
    "linalg.norm": (lambda np_, x: np_.linalg.norm(x, axis=0), A),
    "linalg.lstsq": (lambda np_, x: np_.linalg.lstsq(x, np.arange(7.0))[0], A),
}


def same(got, want):
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    if isinstance(got, xdist.Array):
        got = got.to_numpy()
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_functions_dispatch_without_gathers(name):
    call, data = CALLS[name]
    with np.errstate(divide="ignore", invalid="ignore"):
        want = call(np, data)
        for case in layouts(data.shape):
            x = distribute(data.astype(np.float64) if data.dtype.kind == "f" else data, *case)
            same(without_gathers(call, np, x), want)
