"""xdist.ml.linear_model.Lasso against scikit-learn's Lasso on the same data and tol: both
descent paths (Gram and residual updates), positive, no intercept, warm start, for xdist
inputs split along samples and NumPy, array-api-strict and Torch inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import RANK, SIZE, assert_same_on_every_rank, distribute, uneven_counts
from sklearn.datasets import make_regression
from sklearn.linear_model import Lasso as SKLasso

import xdist
from xdist.ml.linear_model import Lasso


def _np(a):
    if hasattr(a, "to_numpy"):
        return a.to_numpy()
    if hasattr(a, "detach"):
        return a.detach().numpy()
    return np.asarray(a)


def _data(n=50, p=8, seed=0):
    return make_regression(n, p, n_informative=4, noise=2.0, random_state=seed)


def _check(ours, sk):
    scale = np.abs(sk.coef_).max()
    np.testing.assert_allclose(_np(ours.coef_), sk.coef_, rtol=1e-6, atol=1e-6 * scale)
    assert float(ours.intercept_) == pytest.approx(sk.intercept_, rel=1e-6, abs=1e-9)
    assert ours.n_iter_ == sk.n_iter_


@pytest.mark.parametrize("precompute", [False, True, "auto"])
@pytest.mark.parametrize("alpha", [0.1, 3.0])
@pytest.mark.parametrize("positive", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_matches_sklearn(precompute, alpha, positive, fit_intercept):
    X, y = _data()
    kw = dict(alpha=alpha, positive=positive, fit_intercept=fit_intercept, tol=1e-8)
    sk = SKLasso(**kw).fit(X, y)
    counts = uneven_counts(X.shape[0], SIZE)
    for xin, yin in [(distribute(X, 0), distribute(y, 0)), (X, y)]:
        ours = Lasso(precompute=precompute, **kw).fit(xin, yin)
        _check(ours, sk)
    x, yy = distribute(X, 0, counts), distribute(y, 0, counts)
    ours = Lasso(precompute=precompute, **kw).fit(x, yy)
    _check(ours, sk)
    assert ours.coef_.split is None
    pred = ours.predict(x)
    assert pred.split == 0
    np.testing.assert_allclose(_np(pred), sk.predict(X), rtol=1e-6, atol=1e-6)
    assert ours.score(x, yy) == pytest.approx(sk.score(X, y), rel=1e-9)


@pytest.mark.parametrize("budget", ["default", 0])
@pytest.mark.parametrize("selection", ["cyclic", "random"])
@pytest.mark.parametrize("positive", [False, True])
def test_residual_blocks_match_sklearn(selection, positive, budget, monkeypatch):
    """The residual descent over several blocks (37 features: blocks of 16, 16 and 5), with a
    zero column and a duplicated one, matches scikit-learn's one coordinate at a time: the
    coefficients, the intercept and the number of sweeps, on uneven blocks of samples; with
    the Gram columns kept (the default budget) and without (budget 0: scores from R)."""
    if budget == 0:
        from xdist.ml import linear_model

        monkeypatch.setattr(linear_model, "CROSS_GRAM_ELEMENTS", 0)
    X, y = make_regression(90, 37, n_informative=12, noise=1.0, random_state=4)
    X[:, 7] = 0.0
    X[:, 20] = X[:, 3]
    kw = dict(alpha=0.3, positive=positive, tol=1e-10, selection=selection, random_state=2)
    sk = SKLasso(precompute=False, **kw).fit(X, y)
    counts = uneven_counts(90, SIZE)
    ours = Lasso(precompute=False, **kw).fit(distribute(X, 0, counts), distribute(y, 0, counts))
    if selection == "cyclic":
        _check(ours, sk)
    else:  # other draws: the same minimum, whose share between the twin columns may differ
        got, want = _np(ours.coef_).copy(), sk.coef_.copy()
        got[3], want[3] = got[3] + got[20], want[3] + want[20]
        got[20] = want[20] = 0.0
        scale = np.abs(want).max()
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * scale)
    assert_same_on_every_rank(_np(ours.coef_))
    if selection == "cyclic":  # stopped early: the duality gap from the kept X.T @ R
        kw.update(tol=0.0, max_iter=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sk = SKLasso(precompute=False, **kw).fit(X, y)
            x, yy = distribute(X, 0, counts), distribute(y, 0, counts)
            ours = Lasso(precompute=False, **kw).fit(x, yy)
        _check(ours, sk)
        assert ours.dual_gap_ == pytest.approx(sk.dual_gap_, rel=1e-6)


@pytest.mark.parametrize("precompute", [False, True])
def test_float32_matches_sklearn(precompute):
    """float32 data stays float32 (as in scikit-learn) on both paths; the residual descent
    keeps its scores in float32 too, updated through the Gram columns over many sweeps: the
    coefficients agree with scikit-learn's float32 fit to float32 accuracy, over three
    blocks of coordinates."""
    X, y = make_regression(120, 37, n_informative=10, noise=1.0, random_state=5)
    X, y = X.astype(np.float32), y.astype(np.float32)
    kw = dict(alpha=0.5, tol=1e-6, precompute=precompute)
    sk = SKLasso(**kw).fit(X, y)
    counts = uneven_counts(120, SIZE)
    ours = Lasso(**kw).fit(distribute(X, 0, counts), distribute(y, 0, counts))
    assert ours.coef_.dtype == xdist.float32
    scale = np.abs(sk.coef_).max()
    np.testing.assert_allclose(_np(ours.coef_), sk.coef_, rtol=1e-4, atol=1e-4 * scale)
    assert float(ours.intercept_) == pytest.approx(float(sk.intercept_), rel=1e-4, abs=1e-3)
    assert_same_on_every_rank(_np(ours.coef_))


@pytest.mark.parametrize("offset", [0.0, 3.0, 1e6])
@pytest.mark.parametrize("constant", [False, True])
def test_gram_of_offset_data_matches_sklearn(offset, constant):
    """The Gram path forms ``Xc.T @ Xc`` from ``X.T @ X`` where the mean is small against
    the spread and from a centered copy where not: data shifted by 1e6 (a cancellation of
    1e12, which the shortcut would turn into errors near 1e-4) must match as well as data
    near zero, with or without a constant and a zero column (variance 0)."""
    X, y = _data(n=60, p=6, seed=3)
    X = X + offset
    if constant:
        X = np.concatenate([X, np.full((60, 1), offset + 2.5), np.zeros((60, 1))], axis=1)
    sk = SKLasso(alpha=0.2, tol=1e-10, precompute=True).fit(X, y + offset)
    counts = uneven_counts(60, SIZE)
    x, yy = distribute(X, 0, counts), distribute(y + offset, 0, counts)
    ours = Lasso(alpha=0.2, tol=1e-10, precompute=True).fit(x, yy)
    scale = np.abs(sk.coef_).max()
    np.testing.assert_allclose(_np(ours.coef_), sk.coef_, rtol=1e-6, atol=1e-6 * scale)
    assert float(ours.intercept_) == pytest.approx(sk.intercept_, rel=1e-6, abs=1e-6)


def test_gram_path_is_one_reduction_per_fit():
    X, y = _data(n=40, p=5)
    x, yy = distribute(X, 0), distribute(y, 0)
    with xdist.count_collectives() as gram:
        Lasso(alpha=0.5, precompute=True, tol=1e-8).fit(x, yy)
    # Gram: the means, finiteness checks, X.T @ X, X.T @ y and y @ y; nothing per coordinate.
    assert sum(gram.values()) < 12


@pytest.mark.parametrize("budget", ["default", 0])
@pytest.mark.parametrize("p", [5, 16, 37])
def test_residual_descent_collectives_per_sweep(p, budget, monkeypatch):
    """precompute=False. Within the budget of Gram columns, once every block's scores and
    the Gram columns of the blocks that change are known (the first sweeps), a sweep sends
    nothing, cyclic or random. With no budget, a block's change makes every block compute
    its scores again: one allreduce per block (``RESIDUAL_BLOCK`` coordinates) entered (none
    for a single block, never left), at most one per coordinate for random selection, one
    more sweep adding exactly that."""
    from xdist.ml import linear_model

    if budget == 0:
        monkeypatch.setattr(linear_model, "CROSS_GRAM_ELEMENTS", 0)
    rng = np.random.default_rng(1)  # strongly correlated columns: no fixed point in 12 sweeps
    X = rng.standard_normal((45, 1)) + 0.05 * rng.standard_normal((45, p))
    y = X @ rng.standard_normal(p)
    x, yy = distribute(X, 0, uneven_counts(45, SIZE)), distribute(y, 0)
    per_sweep = {}
    for selection in ("cyclic", "random"):
        counts = []
        for sweeps in (11, 12):
            with xdist.count_collectives() as c, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kw = dict(alpha=1e-4, tol=0.0, max_iter=sweeps, selection=selection)
                est = Lasso(precompute=False, random_state=0, **kw).fit(x, yy)
            assert est.n_iter_ == sweeps
            counts.append(c)
        per_sweep[selection] = counts[1] - counts[0]
    if SIZE == 1 or budget == "default":  # one process makes no collective for a matmul
        assert per_sweep == {"cyclic": {}, "random": {}}
    else:
        blocks = -(-p // linear_model.RESIDUAL_BLOCK)
        # one block is never left: its scores follow its updates through its own Gram
        assert per_sweep["cyclic"] == ({"allreduce": blocks} if blocks > 1 else {})
        # a coordinate drawn twice in a row keeps its block: at most one per coordinate
        assert set(per_sweep["random"]) == {"allreduce"}
        assert 0 < per_sweep["random"]["allreduce"] <= p


def test_gram_descent_sends_nothing():
    """Sweeps and duality gaps on the replicated Gram problem send no message: a fit of 12
    sweeps makes exactly the collectives of a fit that converges in a few. (Within 20
    sweeps this descent reaches a fixed point, whose gap may round to zero or below with
    one order of the reductions and not with another: that ends a fit even at ``tol=0``,
    as in scikit-learn.)"""
    X, y = _data(n=40, p=5)
    x, yy = distribute(X, 0), distribute(y, 0)
    counts = []
    for tol, max_iter in [(1e-2, 1000), (0.0, 12)]:
        with xdist.count_collectives() as c, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = Lasso(alpha=0.5, precompute=True, tol=tol, max_iter=max_iter).fit(x, yy)
        counts.append(dict(c))
    assert est.n_iter_ == 12
    assert counts[0] == counts[1]


def test_warm_start_and_random_selection():
    X, y = _data()
    x, yy = distribute(X, 0), distribute(y, 0)
    sk = SKLasso(alpha=0.5, tol=1e-10).fit(X, y)
    est = Lasso(alpha=0.5, tol=1e-10, warm_start=True).fit(x, yy)
    est.fit(x, yy)
    assert est.n_iter_ <= 2
    np.testing.assert_allclose(_np(est.coef_), sk.coef_, rtol=1e-6, atol=1e-6)
    rnd = Lasso(alpha=0.5, tol=1e-12, selection="random", random_state=0).fit(x, yy)
    np.testing.assert_allclose(_np(rnd.coef_), sk.coef_, rtol=1e-6, atol=1e-6)


def test_other_namespaces():
    import array_api_strict as strict

    X, y = _data(n=30, p=4)
    sk = SKLasso(alpha=0.2, tol=1e-8).fit(X, y)
    for precompute in (False, True):
        ours = Lasso(alpha=0.2, tol=1e-8, precompute=precompute)
        ours.fit(strict.asarray(X), strict.asarray(y))
        assert type(ours.coef_) is type(strict.asarray(X))
        _check(ours, sk)
    torch = pytest.importorskip("torch")
    for precompute in (False, True):
        ours = Lasso(alpha=0.2, tol=1e-8, precompute=precompute)
        ours.fit(torch.asarray(X, device="cpu"), torch.asarray(y, device="cpu"))
        assert isinstance(ours.coef_, torch.Tensor)
        _check(ours, sk)


def test_bad_parameters_raise_before_communication():
    X, y = _data(n=10, p=3)
    x, yy, y5 = distribute(X, 0), distribute(y, 0), distribute(y[:5], 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(ValueError, match="alpha"):
            Lasso(alpha=-1.0).fit(x, yy)
        with pytest.raises(ValueError, match="selection"):
            Lasso(selection="bogus").fit(x, yy)
        with pytest.raises(ValueError, match="inconsistent"):
            Lasso().fit(x, y5)
    assert not counts


@pytest.mark.parametrize("precompute", [False, True])
def test_sample_weight_matches_sklearn(precompute):
    X, y = _data(n=30, p=5)
    w = np.random.default_rng(4).uniform(0.2, 3.0, 30)
    sk = SKLasso(alpha=0.3, tol=1e-10, precompute=precompute).fit(X, y, sample_weight=w)
    counts = uneven_counts(30, SIZE)
    x, yy, ww = distribute(X, 0, counts), distribute(y, 0, counts), distribute(w, 0, counts)
    ours = Lasso(alpha=0.3, tol=1e-10, precompute=precompute).fit(x, yy, sample_weight=ww)
    scale = np.abs(sk.coef_).max()
    np.testing.assert_allclose(_np(ours.coef_), sk.coef_, rtol=1e-6, atol=1e-6 * scale)
    assert float(ours.intercept_) == pytest.approx(sk.intercept_, rel=1e-6, abs=1e-9)
    assert ours.score(x, yy, sample_weight=ww) == pytest.approx(
        sk.score(X, y, sample_weight=w), rel=1e-9
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_non_finite_input_raises(fit_intercept, weighted):
    X, y = _data(n=20, p=3)
    X[11, 2] = np.nan
    sw = distribute(np.ones(20), 0) if weighted else None
    with pytest.raises(ValueError, match="NaN or infinity"):
        Lasso(fit_intercept=fit_intercept).fit(distribute(X, 0), distribute(y, 0), sw)


# -- the same coef_ at every rank count, on every rank ----------------------------------------


@pytest.mark.parametrize("precompute", [False, True])
@pytest.mark.parametrize("selection", ["cyclic", "random"])
def test_same_coef_at_every_rank_count(selection, precompute):
    """coef_, intercept_ and n_iter_ of X split in balanced and uneven blocks (an empty one
    at 3 ranks) equal those of X replicated (what one rank computes) and of NumPy input to
    float64 round-off, and every rank holds the same results."""
    X, y = _data(n=45, p=8, seed=1)
    kw = dict(alpha=0.3, tol=1e-10, selection=selection, random_state=4, precompute=precompute)
    counts = uneven_counts(45, SIZE)
    inputs = [
        (distribute(X, 0), distribute(y, 0)),
        (distribute(X, 0, counts), distribute(y, 0, counts)),
    ]
    inputs += [(distribute(X), distribute(y)), (X, y)]
    ref = Lasso(**kw).fit(X, y)
    scale = np.abs(ref.coef_).max()
    for x, yy in inputs:
        est = Lasso(**kw).fit(x, yy)
        if isinstance(x, xdist.Array):
            assert_same_on_every_rank(est.coef_, est.intercept_, est.n_iter_, est.dual_gap_)
        np.testing.assert_allclose(_np(est.coef_), ref.coef_, rtol=1e-10, atol=1e-12 * scale)
        assert float(est.intercept_) == pytest.approx(float(ref.intercept_), rel=1e-10)
        assert est.n_iter_ == ref.n_iter_


@pytest.mark.parametrize("precompute", [False, True])
@pytest.mark.parametrize("state", ["none", "per-rank instance"])
def test_unseeded_random_selection_agrees_on_every_rank(state, precompute):
    """random_state=None used to draw another coordinate order on every rank (coef_ differed
    between ranks); the state is now agreed, also for a RandomState that differs by rank."""
    X, y = _data(n=40, p=12, seed=2)
    rs = None if state == "none" else np.random.RandomState(1000 + RANK)
    est = Lasso(alpha=0.5, tol=1e-3, max_iter=3, selection="random", random_state=rs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # three sweeps do not converge
        est.set_params(precompute=precompute).fit(distribute(X, 0), distribute(y, 0))
    assert_same_on_every_rank(est.coef_, est.intercept_, est.dual_gap_)


@pytest.mark.parametrize("precompute", [False, True])
def test_verbose_prints_on_rank_0(capsys, precompute):
    """Lasso(verbose=1) (scikit-learn's Lasso has no verbose) prints a line per sweep and
    each duality gap on rank 0 only, NumPy input too (spread over the ranks)."""
    X, y = _data(n=30, p=5)
    est = Lasso(alpha=0.5, tol=1e-6, precompute=precompute, verbose=1)
    est.fit(distribute(X, 0, uneven_counts(30, SIZE)), distribute(y, 0, uneven_counts(30, SIZE)))
    out = capsys.readouterr().out
    lines = ["Iteration 0, max coefficient update", "duality gap", "Converged at iteration"]
    assert all(line in out for line in lines) == (RANK == 0), out
    assert out == "" or RANK == 0
    Lasso(alpha=0.5, verbose=True).fit(X, y)
    out = capsys.readouterr().out
    assert ("Iteration 0, max coefficient update" in out) == (RANK == 0), out
    assert out == "" or RANK == 0
    with pytest.raises(ValueError, match="verbose"):
        Lasso(verbose=-1).fit(X, y)
