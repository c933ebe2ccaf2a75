"""A scikit-learn Pipeline fitted on a distributed array, and SciPy statistics of its
residuals, with the data split by rows over the ranks and never gathered.

    mpiexec -n 2 python examples/sklearn_pipeline.py

scikit-learn runs on xdist arrays through its array API dispatch
(``sklearn.set_config(array_api_dispatch=True)``), SciPy through ``SCIPY_ARRAY_API=1``
(set before SciPy is first imported; scikit-learn imports it). Implicit gathers of more
than a sample vector are made errors, so the run proves that the data matrix stays split.
The fitted model is checked against the same pipeline on the whole data with NumPy.
"""

from __future__ import annotations

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # before anything imports SciPy

import warnings  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from scipy import stats  # noqa: E402
from sklearn.decomposition import PCA  # noqa: E402
from sklearn.linear_model import Ridge  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import xdist as xp  # noqa: E402

N_ROWS, N_COLS, CHUNK = 60_000, 12, 10_000
COEF = np.linspace(-2.0, 3.0, N_COLS)


def rows(start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``start:stop`` of the global data set (features and target), the same whatever
    the number of ranks: the data is made in chunks of ``CHUNK`` rows, each from its seed."""
    xs, ys = [], []
    for first in range(start - start % CHUNK, stop, CHUNK):
        rng = np.random.default_rng(first // CHUNK)
        X = rng.standard_normal((CHUNK, N_COLS)) * np.arange(1, N_COLS + 1) + 5.0
        y = X @ COEF + rng.standard_normal(CHUNK)
        keep = slice(max(start - first, 0), stop - first)
        xs.append(X[keep])
        ys.append(y[keep])
    if not xs:
        return np.empty((0, N_COLS)), np.empty(0)
    return np.concatenate(xs), np.concatenate(ys)


def pipeline():
    return make_pipeline(StandardScaler(), PCA(n_components=8), Ridge(alpha=1.0, solver="svd"))


def main() -> dict[str, float]:
    comm = xp.default_comm()
    counts = xp.Layout.balanced((N_ROWS, N_COLS), 0, comm.size).counts
    start = sum(counts[: comm.rank])
    X_local, y_local = rows(start, start + counts[comm.rank])
    X = xp.from_local(X_local, split=0)  # each rank holds only its rows
    y = xp.from_local(y_local, split=0)

    with (
        sklearn.config_context(array_api_dispatch=True),
        xp.config_context(gather_warning_elements=N_ROWS),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("error", xp.GatherWarning)  # a gathered data matrix is an error
        model = pipeline().fit(X, y)
        r2 = model.score(X, y)  # a Python float, the same on every rank
        residuals = y - model.predict(X)  # split like X
        skew = float(stats.skew(residuals))  # SciPy on the split residuals: one reduction
        kurt = float(stats.kurtosis(residuals))

    # The same pipeline on the whole data with NumPy, on every rank (the check only).
    X_all, y_all = rows(0, N_ROWS)
    reference = pipeline().fit(X_all, y_all)
    coef = model[-1].coef_.to_numpy()  # small and replicated
    assert np.allclose(coef, reference[-1].coef_, rtol=1e-8, atol=1e-10)
    assert np.isclose(r2, reference.score(X_all, y_all), rtol=1e-10)
    res_all = y_all - reference.predict(X_all)
    assert np.isclose(skew, stats.skew(res_all), rtol=1e-6, atol=1e-10)

    if comm.rank == 0:
        print(f"{comm.size} rank(s); X: shape {X.shape}, split {X.split}, counts {X.counts}")
        print(f"R^2 {r2:.6f}; residual skewness {skew:.4f}, excess kurtosis {kurt:.4f}")
        print("matches the same Pipeline on the whole data with NumPy: True")
    return {"r2": r2, "skew": skew, "kurtosis": kurt}


if __name__ == "__main__":
    main()
