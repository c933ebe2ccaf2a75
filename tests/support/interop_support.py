"""Shared setup of the scikit-learn and SciPy interop tests.

``no_gather(limit)`` turns every implicit gather of more than ``limit`` elements into an
error. The SciPy tests use 0: nothing split is ever collected. The scikit-learn tests use
``GATHER_LIMIT = N``: a sample-sized vector may be collected (scikit-learn's
``pairwise_distances`` broadcasts the row norms of ``Y`` against every row; ``GaussianMixture``
writes a sample vector into a replicated array; ``LinearDiscriminantAnalysis`` takes the SVD
of the small class-means matrix), the ``N x D`` data matrix may not.

``SCIPY_ARRAY_API`` must be set before SciPy is first imported; tests/conftest.py sets it.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
from helpers import SIZE, distribute, uneven_counts

import xdist

N, D = 61, 6  # odd, so blocks are uneven at 2 and 3 ranks
GATHER_LIMIT = N

# balanced blocks, and very uneven ones with an empty block (at 2 and 3 ranks)
COUNTS = {"balanced": "balanced", "uneven": "uneven"}


@contextlib.contextmanager
def no_gather(limit: int = GATHER_LIMIT):
    """Implicit gathers of more than ``limit`` elements raise ``GatherWarning``."""
    with (
        xdist.config_context(gather_warning_elements=limit),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("error", xdist.GatherWarning)
        yield


def data(seed: int = 0):
    """``(X, y, labels)`` as NumPy arrays: features, a continuous target, 3 classes."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((N, D)) * np.arange(1, D + 1) + 3.0
    y = X @ rng.standard_normal(D) + 0.1 * rng.standard_normal(N)
    labels = np.argmax(X[:, :3] - 3.0 + rng.standard_normal((N, 3)), axis=1).astype(np.int64)
    return X, y, labels


def split_rows(a: np.ndarray, counts: str) -> xdist.Array:
    """``a`` split along its first axis (samples) in ``"balanced"`` or ``"uneven"`` blocks."""
    return distribute(a, 0, uneven_counts(len(a), SIZE) if counts == "uneven" else None)


def host(value):
    """Results as NumPy: xdist arrays gathered (explicitly), tuples and lists element-wise."""
    if isinstance(value, xdist.Array):
        return value.to_numpy()
    if isinstance(value, (tuple, list)):
        return type(value)(host(v) for v in value)
    return np.asarray(value)


def assert_close(actual, expected, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    """``actual`` (xdist results) equals ``expected`` (NumPy results) to ``rtol``."""
    actual, expected = host(actual), host(expected)
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol, atol)
        return
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
