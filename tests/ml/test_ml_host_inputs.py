"""xdist.ml on host data (NumPy arrays, pandas frames and series, lists) under several ranks:
the same global data on every rank is split over the ranks (each works on its block of
samples), and the results are NumPy arrays equal to those of the same estimator on the NumPy
data at one rank, the same on every rank. At one rank NumPy input keeps the NumPy path."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import SIZE
from sklearn.datasets import make_blobs, make_regression

import xdist
from xdist.ml import KMeans, Lasso, Moments, cluster, linear_model, stats


def _kinds(X, columns=True):
    """(name, X as that kind of host data)."""
    yield "numpy", X
    names = [f"f{j}" for j in range(X.shape[1])] if columns else None
    yield "pandas", pd.DataFrame(X, columns=names)
    yield "list", X.tolist()


def _one_rank(fn):
    """``fn()`` as one rank computes it: the default communicator is one process, so host
    data takes the NumPy path (today's, at one rank)."""
    previous = xdist.set_default_comm(xdist.SelfComm())
    try:
        return fn()
    finally:
        xdist.set_default_comm(previous)


def _same_on_every_rank(*values):
    """Each NumPy array or number is bitwise the same on every rank (each rank's copy stacked
    by ``from_local`` and gathered)."""
    for value in values:
        a = np.asarray(value, dtype=np.float64)
        rows = xdist.from_local(a[None]).to_numpy()
        for r in range(1, rows.shape[0]):
            np.testing.assert_array_equal(rows[r], rows[0], err_msg=f"rank {r} differs")


def _capture(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that records the array it is given second
    (after ``xp``): the X the algorithm works on."""
    seen, original = [], getattr(module, name)

    def wrapper(xp, X, *args, **kwargs):
        seen.append(X)
        return original(xp, X, *args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return seen


def _assert_divided(X, n):
    """At several ranks the algorithm received an xdist array split along samples, this
    rank holding its balanced share of the n rows; at one rank the NumPy array itself."""
    if SIZE == 1:
        assert isinstance(X, np.ndarray), type(X)
        return
    assert isinstance(X, xdist.Array) and X.split == 0, type(X)
    assert X.local.shape[0] in (n // SIZE, n // SIZE + 1), X.local.shape


def _blobs(n=90, d=3):
    return make_blobs(n, d, centers=4, cluster_std=1.5, random_state=2)[0]


# -- KMeans ----------------------------------------------------------------------------------


@pytest.mark.parametrize("init", ["k-means++", "random", "array"])
def test_kmeans_host_inputs_match_one_rank(monkeypatch, init):
    X = _blobs()
    kw = {"init": X[[0, 20, 40, 60]] if init == "array" else init, "n_init": 2}
    ref = _one_rank(lambda: KMeans(4, random_state=0, **kw).fit(X))
    Y = X[::3] + 0.25
    ref_out = _one_rank(lambda: (ref.predict(Y), ref.transform(Y), ref.score(Y)))
    for kind, xin in _kinds(X):
        seen = _capture(monkeypatch, cluster, "_lloyd")
        est = KMeans(4, random_state=0, **kw).fit(xin)
        _assert_divided(seen[0], X.shape[0])
        monkeypatch.undo()
        for attr in ("cluster_centers_", "labels_"):
            assert type(getattr(est, attr)) is np.ndarray, (kind, attr)
        np.testing.assert_allclose(est.cluster_centers_, ref.cluster_centers_, rtol=1e-12)
        np.testing.assert_array_equal(est.labels_, ref.labels_)
        assert est.inertia_ == pytest.approx(ref.inertia_, rel=1e-12)
        assert est.n_iter_ == ref.n_iter_
        yin = next(v for k, v in _kinds(Y) if k == kind)
        pred, dist, score = est.predict(yin), est.transform(yin), est.score(yin)
        assert type(pred) is np.ndarray and type(dist) is np.ndarray
        np.testing.assert_array_equal(pred, ref_out[0])
        np.testing.assert_allclose(dist, ref_out[1], rtol=1e-12)
        assert score == pytest.approx(ref_out[2], rel=1e-12)
        _same_on_every_rank(est.cluster_centers_, est.labels_, est.inertia_, est.n_iter_)
        _same_on_every_rank(pred, dist, score)


def test_kmeans_fit_on_numpy_input_communicates_only_with_several_ranks():
    """The old path at several ranks fitted the whole data on every rank and sent nothing;
    now the per-iteration reductions are those of split data."""
    X = _blobs(n=300)
    with xdist.count_collectives() as counts:
        KMeans(4, init=X[:4], n_init=1, max_iter=5, tol=0.0).fit(X)
    if SIZE == 1:
        assert not counts
    else:
        assert counts["allreduce"] >= 5, dict(counts)


def test_kmeans_weights_and_float32_host_inputs():
    X = _blobs().astype(np.float32)
    w = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0]).astype(np.float32)
    ref = _one_rank(lambda: KMeans(4, random_state=1, n_init=1).fit(X, sample_weight=w))
    for wk in (w, w.tolist(), pd.Series(w)):
        est = KMeans(4, random_state=1, n_init=1).fit(X, sample_weight=wk)
        assert est.cluster_centers_.dtype == np.float32
        np.testing.assert_allclose(est.cluster_centers_, ref.cluster_centers_, rtol=1e-5)
        np.testing.assert_array_equal(est.labels_, ref.labels_)
        assert est.score(X, sample_weight=wk) == pytest.approx(
            ref.score(X, sample_weight=w), rel=1e-5
        )


def test_kmeans_unseeded_fit_of_numpy_input_is_the_same_on_every_rank():
    """random_state=None: the seeding is agreed over the ranks (each process's own entropy
    gave each rank other centers when every rank fitted the NumPy data alone)."""
    X = np.random.default_rng(4).standard_normal((200, 2))
    est = KMeans(5, n_init=2).fit(X)
    _same_on_every_rank(est.cluster_centers_, est.labels_, est.inertia_)


def test_kmeans_callable_init_gets_the_host_array():
    X = _blobs()
    got = []

    def init(data, k, random_state):
        got.append(type(data))
        return data[:k]

    est = KMeans(4, init=init, n_init=1).fit(X.tolist())
    assert got == [np.ndarray]
    ref = _one_rank(lambda: KMeans(4, init=X[:4], n_init=1).fit(X))
    np.testing.assert_allclose(est.cluster_centers_, ref.cluster_centers_, rtol=1e-12)


def test_kmeans_parameter_errors_before_communication():
    X = _blobs()
    with xdist.count_collectives() as counts:
        with pytest.raises(TypeError, match="max_iter"):
            KMeans(2, max_iter=1.5).fit(X)
        with pytest.raises(ValueError, match="init"):
            KMeans(2, init="bogus").fit(X.tolist())
    assert not counts


def test_kmeans_fitted_on_host_data_predicts_xdist_input():
    """Attributes fitted on spread host data (NumPy) meet an xdist X as replicated arrays:
    the result stays an xdist array split like X."""
    X = _blobs()
    est = KMeans(4, random_state=0, n_init=1).fit(X)
    x = xdist.asarray(X, split=0)
    pred = est.predict(x)
    assert isinstance(pred, xdist.Array) and pred.split == 0
    np.testing.assert_array_equal(pred.to_numpy(), est.labels_)


@pytest.mark.skipif(SIZE == 1, reason="one rank: nothing to differ")
def test_host_data_that_differs_between_ranks_raises_on_every_rank():
    """Host data is one global array given whole on every rank: data that differs between
    ranks (each rank's own sample, say) raises the same error everywhere, which names
    ``from_local`` for blocks that are meant to differ."""
    rank = xdist.default_comm().rank
    X = np.random.default_rng(rank).standard_normal((50, 2))
    with xdist.config_context(check_replicated=True):
        with pytest.raises(ValueError, match="different values on different ranks"):
            KMeans(2, n_init=1, random_state=0).fit(X)


# -- feature names ---------------------------------------------------------------------------


@pytest.mark.parametrize("est", [KMeans(3, random_state=0, n_init=1), Lasso(0.1), Moments()])
def test_feature_names_from_pandas(est):
    X, y = make_regression(60, 4, random_state=0)
    names = np.array(["a", "b", "c", "d"], dtype=object)
    est.fit(pd.DataFrame(X, columns=names), y)
    assert est.feature_names_in_.dtype == object
    np.testing.assert_array_equal(est.feature_names_in_, names)
    with pytest.warns(UserWarning, match="fitted with feature names"):
        est.predict(X) if hasattr(est, "predict") else est.transform(X)
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")


# -- Lasso -----------------------------------------------------------------------------------


@pytest.mark.parametrize("precompute", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_lasso_host_inputs_match_one_rank(monkeypatch, precompute, weighted):
    X, y = make_regression(70, 6, n_informative=3, noise=2.0, random_state=0)
    w = np.random.default_rng(1).uniform(0.5, 2.0, 70) if weighted else None
    kw = {"alpha": 0.5, "tol": 1e-10, "precompute": precompute}
    ref = _one_rank(lambda: Lasso(**kw).fit(X, y, sample_weight=w))
    ref_pred, ref_score = _one_rank(lambda: (ref.predict(X[:9]), ref.score(X, y)))
    for kind, xin in _kinds(X):
        yin = {"numpy": y, "pandas": pd.Series(y), "list": y.tolist()}[kind]
        win = None if w is None else {"numpy": w, "pandas": pd.Series(w), "list": list(w)}[kind]
        step = "_center" if weighted else "_centered_gram" if precompute else "_cd_residual"
        seen = _capture(monkeypatch, linear_model, step)
        est = Lasso(**kw).fit(xin, yin, sample_weight=win)
        monkeypatch.undo()
        _assert_divided(seen[0], X.shape[0])
        assert type(est.coef_) is np.ndarray
        np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-10, atol=1e-12)
        assert float(est.intercept_) == pytest.approx(float(ref.intercept_), rel=1e-10)
        assert est.n_iter_ == ref.n_iter_
        pred = est.predict(xin[:9])
        assert type(pred) is np.ndarray
        np.testing.assert_allclose(pred, ref_pred, rtol=1e-10)
        assert est.score(xin, yin) == pytest.approx(ref_score, rel=1e-10)
        _same_on_every_rank(est.coef_, est.intercept_, est.n_iter_, est.dual_gap_, pred)


def test_lasso_targets_split_like_the_samples(monkeypatch):
    """y given as host data beside spread X is split along samples as X is (rows aligned,
    each rank holding its share), not replicated on every rank."""
    X, y = make_regression(70, 6, random_state=0)
    seen = []
    original = linear_model.check_finite

    def spy(xp, a, name):
        if name.endswith(": y"):
            seen.append(a)
        return original(xp, a, name)

    monkeypatch.setattr(linear_model, "check_finite", spy)
    Lasso(0.1).fit(X, y.tolist())
    (yy,) = seen
    _assert_divided(yy, 70)


def test_lasso_parameter_errors_before_communication():
    X, y = make_regression(30, 3, random_state=0)
    with xdist.count_collectives() as counts:
        with pytest.raises(ValueError, match="selection"):
            Lasso(selection="bogus").fit(X, y)
    assert not counts


# -- Moments ---------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_moments_host_inputs_match_one_rank(monkeypatch):
    X = np.random.default_rng(3).standard_normal((61, 3)) ** 3 + 1e3
    ref = _one_rank(lambda: Moments().fit(X[:40]).partial_fit(X[40:]))
    ref_t = _one_rank(lambda: ref.transform(X[:5]))
    for kind, xin in _kinds(X):
        seen = _capture(monkeypatch, stats, "_central_parts")
        est = Moments().fit(xin[:40]).partial_fit(xin[40:])
        monkeypatch.undo()
        _assert_divided(seen[0], 40)
        for attr in ("mean_", "var_", "scale_", "skewness_", "kurtosis_"):
            got, want = getattr(est, attr), getattr(ref, attr)
            assert type(got) is np.ndarray, (kind, attr)
            np.testing.assert_allclose(got, want, rtol=1e-10, err_msg=f"{kind} {attr}")
            _same_on_every_rank(got)
        assert est.n_samples_seen_ == 61
        t = est.transform(xin[:5])
        assert type(t) is np.ndarray
        np.testing.assert_allclose(t, ref_t, rtol=1e-10)
        np.testing.assert_allclose(est.inverse_transform(t), X[:5], rtol=1e-12)


def test_moments_verbose_on_numpy_input_prints_on_rank_0(capsys):
    Moments(verbose=1).fit(np.ones((10, 2)))
    out = capsys.readouterr().out
    assert out.count("batch of 10 samples") == (1 if xdist.default_comm().rank == 0 else 0)


# -- the moment functions --------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("name", ["mean", "var", "std", "skew", "kurtosis", "moment"])
def test_moment_functions_on_numpy_input_match_one_rank(monkeypatch, name, axis):
    """NumPy data under several ranks is split along the reduced axis (so the result is
    replicated: nothing is gathered) and the result is NumPy, equal to one rank's."""
    X = np.random.default_rng(5).standard_normal((13, 7)) ** 3 + 10.0
    fn = {"moment": lambda x, a: stats.moment(x, 3, a)}.get(name, getattr(stats, name))
    ref = _one_rank(lambda: fn(X, axis))
    seen = _capture(monkeypatch, stats, "_central")
    got = fn(X, axis)
    monkeypatch.undo()
    assert isinstance(got, (np.ndarray, np.generic)), type(got)
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    _same_on_every_rank(got)
    if name != "mean":
        x = seen[0]
        if SIZE == 1:
            assert isinstance(x, np.ndarray)
        else:
            assert isinstance(x, xdist.Array) and x.split == (0 if axis is None else axis)
            n = X.shape[0 if axis is None else axis]
            assert x.local.shape[x.split] in (n // SIZE, n // SIZE + 1)
