"""scikit-learn with ``array_api_dispatch=True`` on xdist arrays split along samples.

Every test fits or evaluates the same thing on NumPy arrays and on xdist arrays (balanced and
very uneven blocks, an empty one included) and compares. Every test runs with implicit
gathers of more than a sample vector turned into errors (``interop.no_gather``): the data
matrix is never collected on one rank.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from helpers import DEFAULTS, SIZE
from interop_support import COUNTS, GATHER_LIMIT, N, assert_close, data, host, no_gather, split_rows
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.metrics import (
    accuracy_score,
    calinski_harabasz_score,
    davies_bouldin_score,
    f1_score,
    mean_squared_error,
    median_absolute_error,
    pairwise_distances,
    pairwise_kernels,
    r2_score,
)
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler
from sklearn.utils.stats import _weighted_percentile

import xdist

pytestmark = pytest.mark.parametrize("counts", list(COUNTS.values()), ids=list(COUNTS))


@pytest.fixture(autouse=True)
def dispatch():
    with sklearn.config_context(array_api_dispatch=True), no_gather():
        yield


def both(fn, counts, *arrays):
    """``fn`` on NumPy arrays and on the same arrays split along samples."""
    return fn(*arrays), fn(*(split_rows(a, counts) for a in arrays))


def test_no_gather_mode_is_live(counts):
    """The guard the other tests rely on: a host round-trip of the data matrix raises."""
    X = split_rows(data()[0], counts)
    if SIZE == 1:  # nothing moves at one rank, so nothing warns
        assert np.asarray(X).shape == X.shape
        return
    with pytest.raises(xdist.GatherWarning, match="__array__"):
        np.asarray(X)


@pytest.mark.parametrize("solver", ["full", "randomized", "covariance_eigh"])
def test_pca(counts, solver):
    X = data()[0]

    def fit(X):
        pca = PCA(3, svd_solver=solver, power_iteration_normalizer="QR", random_state=0).fit(X)
        return pca, pca.transform(X)

    (ref, ref_t), (got, got_t) = both(fit, counts, X)
    assert isinstance(got_t, xdist.Array) and got_t.split == 0
    assert_close(got.components_, ref.components_, rtol=1e-8)
    assert_close(got.explained_variance_, ref.explained_variance_, rtol=1e-8)
    assert_close(got.mean_, ref.mean_)
    assert_close(got_t, ref_t, rtol=1e-8, atol=1e-10)


def test_ridge_svd(counts):
    X, y, _ = data()
    fit = lambda X, y: Ridge(alpha=0.5, solver="svd").fit(X, y)
    ref, got = both(fit, counts, X, y)
    assert_close(got.coef_, ref.coef_, rtol=1e-9)
    assert_close(got.intercept_, ref.intercept_, rtol=1e-9)
    Xs = split_rows(X, counts)
    assert_close(got.predict(Xs), ref.predict(X), rtol=1e-9)


def test_linear_discriminant_analysis(counts):
    X, _, labels = data()
    fit = lambda X, y: LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    ref, got = both(fit, counts, X, labels)
    Xs = split_rows(X, counts)
    assert_close(got.means_, ref.means_)
    assert_close(got.scalings_, ref.scalings_, rtol=1e-8)
    np.testing.assert_array_equal(host(got.predict(Xs)), ref.predict(X))
    assert_close(got.predict_proba(Xs), ref.predict_proba(X), rtol=1e-8)


def test_gaussian_mixture(counts):
    X = data()[0]
    fit = lambda X: GaussianMixture(2, init_params="random_from_data", random_state=0).fit(X)
    ref, got = both(fit, counts, X)
    assert_close(got.means_, ref.means_, rtol=1e-7)
    assert_close(got.covariances_, ref.covariances_, rtol=1e-7)
    assert got.n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(host(got.predict(split_rows(X, counts))), ref.predict(X))


@pytest.mark.parametrize("scaler", [StandardScaler, MinMaxScaler, Normalizer])
def test_scalers(counts, scaler):
    X = data()[0]
    ref, got = both(lambda X: scaler().fit_transform(X), counts, X)
    assert isinstance(got, xdist.Array) and got.split == 0
    assert_close(got, ref)
    inverse = getattr(scaler(), "inverse_transform", None)
    if inverse is not None:
        Xs = split_rows(X, counts)
        model = scaler().fit(Xs)
        assert_close(model.inverse_transform(model.transform(Xs)), X, rtol=1e-12)


def test_metrics(counts):
    """Regression and classification metrics on split sample vectors, with EVERY gather an
    error (the vectors are the data here); ``median_absolute_error`` runs on
    ``xdist.median`` and ``f1_score`` on ``xdist.bincount`` (scikit-learn looks both up; its
    fallback would round-trip the vectors through NumPy)."""
    X, y, labels = data()
    f1 = lambda a, b: f1_score(a, b, average="macro")
    pred = y + 0.3 * np.sin(np.arange(N))
    flipped = labels.copy()
    flipped[::7] = (flipped[::7] + 1) % 3
    for metric, a, b in [
        (r2_score, y, pred),
        (mean_squared_error, y, pred),
        (median_absolute_error, y, pred),
        (accuracy_score, labels, flipped),
        (f1, labels, flipped),
    ]:
        with no_gather(0):
            ref, got = both(metric, counts, a, b)
        assert isinstance(got, float)
        # accuracy of integer labels is computed in the default float dtype (float32 on Torch)
        single = a.dtype.kind == "i" and DEFAULTS["real floating"] == np.float32
        assert got == pytest.approx(ref, rel=1e-6 if single else 1e-12)


def test_weighted_percentile(counts):
    """scikit-learn's ``_weighted_percentile`` (weighted medians and quantiles of its metrics
    and losses) along split samples, and of a NumPy scalar: a NumPy ``float64`` scalar is a
    Python ``float`` too, but keeps its dtype (it took the backend's default, float32 under
    Torch)."""
    X, y, _ = data()
    weights = np.abs(np.sin(np.arange(N))) + 0.1
    for a, q in [(y, 50), (X, [25, 75])]:
        ref, got = both(lambda a, w, q=q: _weighted_percentile(a, w, q), counts, a, weights)
        assert_close(got, ref)
    with sklearn.config_context(array_api_dispatch=True):
        got = _weighted_percentile(xdist.asarray(np.float64(42)), xdist.asarray(np.int32(1)), 50)
    assert got.dtype == xdist.float64 and float(got) == 42.0


def test_cluster_metrics(counts):
    """Calinski-Harabasz and Davies-Bouldin scores: per-cluster means and dispersions of split
    samples (the cluster metrics of scikit-learn's array-API tests)."""
    X, _, labels = data()
    for metric in (calinski_harabasz_score, davies_bouldin_score):
        ref, got = both(metric, counts, X, labels)
        assert float(got) == pytest.approx(ref, rel=1e-10)


def test_pairwise_distances(counts):
    # ||x||^2 - 2 x.y + ||y||^2 cancels to rounding at x == y, and the square root amplifies
    # it to ~sqrt(eps) * |x|: the libraries' matmuls differ there, hence atol
    X = data()[0]
    ref, got = both(lambda X: pairwise_distances(X, X[:9]), counts, X)
    assert_close(got, ref, atol=1e-6)
    ref, got = both(lambda X: pairwise_distances(X), counts, X)  # N x N, split along rows
    assert isinstance(got, xdist.Array) and got.split == 0
    assert_close(got, ref, atol=1e-6)


@pytest.mark.parametrize(
    "func, metric, kwds",
    [
        (pairwise_distances, "euclidean", {}),
        (pairwise_distances, "manhattan", {}),
        (pairwise_kernels, "polynomial", {"degree": 1}),
        (pairwise_kernels, "rbf", {"gamma": 0.1}),
        (pairwise_kernels, "laplacian", {"gamma": 0.1}),
    ],
)
def test_pairwise_metrics_and_kernels(counts, func, metric, kwds):
    """The distances and kernels of scikit-learn's ``test_pairwise_parallel_array_api``, of
    split samples against a few of them (split too) and against themselves. That test's
    ``n_jobs=2`` runs xdist in joblib threads, which xdist refuses at several ranks
    (tests/transport/test_watchdog.py); here scikit-learn computes in the calling thread.

    scikit-learn's manhattan distances (laplacian kernel too) write each block of results
    into an ``xp.empty`` output, replicated by default: the ``N x 9`` result is gathered
    there (docs/interop.md), and ``N x N`` would broadcast ``Y`` whole, so only ``N x 9``."""
    X = data()[0]
    writes_replicated = metric in ("manhattan", "laplacian")
    with no_gather(X.shape[0] * 9 if writes_replicated else GATHER_LIMIT):
        ref, got = both(lambda X: func(X, X[:9], metric=metric, **kwds), counts, X)
    assert isinstance(got, xdist.Array) and got.split == (None if writes_replicated else 0)
    assert_close(got, ref, rtol=1e-9, atol=1e-6)
    if not writes_replicated:
        ref, got = both(lambda X: func(X, metric=metric, **kwds), counts, X)
        assert isinstance(got, xdist.Array) and got.split == 0
        assert_close(got, ref, rtol=1e-9, atol=1e-6)


def test_train_test_split(counts):
    X, y, _ = data()
    split = lambda X, y: train_test_split(X, y, test_size=0.25, random_state=0)
    ref, got = both(split, counts, X, y)
    assert len(got) == 4
    assert_close(got, ref, rtol=0, atol=0)


def test_pipeline(counts):
    X, y, _ = data()
    make = lambda: make_pipeline(StandardScaler(), PCA(n_components=4), Ridge(solver="svd"))
    ref, got = both(lambda X, y: make().fit(X, y), counts, X, y)
    Xs = split_rows(X, counts)
    assert_close(got.predict(Xs), ref.predict(X), rtol=1e-8)
    assert got.score(Xs, split_rows(y, counts)) == pytest.approx(ref.score(X, y), rel=1e-10)
