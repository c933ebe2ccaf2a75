"""xdist.ml as a scikit-learn citizen: check_estimator on NumPy input, clone, Pipeline and
GridSearchCV; the estimators' sources import nothing but the Array API machinery (no xdist
internals, no backend library); fitted attributes stay in the input's namespace."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from helpers import distribute
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import check_estimator

import xdist
from xdist.ml import KMeans, Lasso, Moments

ML = Path(__file__).resolve().parents[2] / "ml"

# Checks expected to fail, with the reason (the same list scikit-learn keeps for its KMeans).
EXPECTED_FAILURES = {
    "KMeans": {
        "check_sample_weight_equivalence_on_dense_data": (
            "sample_weight is not equivalent to removing/repeating samples "
            "(k-means++ seeding draws differ); scikit-learn marks its KMeans the same way"
        ),
    },
}

ALLOWED_IMPORTS = {"__future__", "array_api_compat", "math", "numbers", "warnings", "sklearn"}
FORBIDDEN = {"numpy", "torch", "cupy", "scipy", "mpi4py", "jax", "dask", "array_api_strict"}


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level


@pytest.mark.parametrize("path", sorted(ML.glob("*.py")), ids=lambda p: p.name)
def test_ml_sources_import_only_the_array_api(path):
    for module, level in _imports(path):
        if level > 0:  # relative: only ml's own modules, never xdist internals (..)
            assert level == 1, f"{path.name}: imports from {'.' * level}{module}"
            continue
        top = module.split(".")[0]
        assert top not in FORBIDDEN, f"{path.name}: imports backend library {module}"
        if top == "xdist":
            assert module == "xdist", f"{path.name}: imports xdist internals ({module})"
            continue
        assert top in ALLOWED_IMPORTS, f"{path.name}: imports {module}"


@pytest.mark.parametrize(
    "est", [Moments(), KMeans(n_clusters=3, n_init=2), Lasso()], ids=lambda e: type(e).__name__
)
def test_check_estimator(est):
    """At several ranks the checks' NumPy data is spread over the ranks, so it must be the
    same on every rank: a few checks draw from NumPy's global generator (a permutation in
    ``check_methods_sample_order_invariance``), seeded here alike on every rank."""
    expected = EXPECTED_FAILURES.get(type(est).__name__, {})
    state = np.random.get_state()
    np.random.seed(0)
    try:
        results = check_estimator(est, on_fail=None, expected_failed_checks=expected)
    finally:
        np.random.set_state(state)
    failed = [
        (r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"
    ]
    assert failed == []


def test_clone_pipeline_gridsearch_on_numpy():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = X @ np.array([1.0, 0.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(60)
    est = Lasso(alpha=0.5)
    twin = clone(est)
    assert twin.get_params() == est.get_params() and twin is not est
    est.set_params(alpha=0.01)
    assert est.alpha == 0.01
    pipe = make_pipeline(Moments(order=2), Lasso())
    grid = GridSearchCV(pipe, {"lasso__alpha": [0.001, 0.1, 10.0]}, cv=3).fit(X, y)
    assert grid.best_params_["lasso__alpha"] != 10.0
    assert grid.score(X, y) > 0.9
    km = GridSearchCV(KMeans(random_state=0), {"n_clusters": [2, 3]}, cv=2).fit(X)
    assert km.best_estimator_.cluster_centers_.shape[1] == 4


def test_pipeline_on_distributed_input():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 3)) * [1.0, 10.0, 100.0]
    y = X @ np.array([1.0, 0.1, 0.0]) + 1.0
    x, yy = distribute(X, 0), distribute(y, 0)
    pipe = make_pipeline(Moments(order=2), Lasso(alpha=0.01, tol=1e-10)).fit(x, yy)
    pred = pipe.predict(x)
    assert isinstance(pred, xdist.Array) and pred.split == 0
    ref = make_pipeline(Moments(order=2), Lasso(alpha=0.01, tol=1e-10)).fit(X, y)
    np.testing.assert_allclose(pred.to_numpy(), ref.predict(X), rtol=1e-9, atol=1e-9)


def test_moments_other_namespaces():
    import array_api_strict as strict

    data = np.random.default_rng(2).standard_normal((20, 3)) ** 3
    ref = Moments().fit(data)
    m = Moments().fit(strict.asarray(data))
    assert type(m.kurtosis_) is type(strict.asarray(data))
    np.testing.assert_allclose(np.asarray(m.kurtosis_), ref.kurtosis_, rtol=1e-10)
    torch = pytest.importorskip("torch")
    m = Moments().fit(torch.asarray(data, device="cpu"))
    assert isinstance(m.skewness_, torch.Tensor)
    np.testing.assert_allclose(m.skewness_.numpy(), ref.skewness_, rtol=1e-10)
