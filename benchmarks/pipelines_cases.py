"""The pipelines of ``benchmarks/pipelines.py``: their data, their code and their checks.

Each pipeline is written once, as a function of ``(X, y, xp)``: ``X`` and ``y`` are NumPy
arrays, Torch tensors or xdist arrays (split along samples), ``xp`` their namespace
(``array_api_compat.array_namespace(X)``). scikit-learn runs with
``array_api_dispatch=True`` and SciPy with ``SCIPY_ARRAY_API=1`` for every contender, so
the same lines run on all three. A pipeline returns a dict of named results (arrays, or
Python floats); each is compared with the NumPy contender's (``Case.rtol`` and
``Case.atol``, the latter relative to the largest magnitude of the NumPy result).

Data (``make_data``; every process makes the same numbers, each rank only its rows, in
chunks of 4096 rows each from its own seed, as ``benchmarks/workloads.py``):

- ``reg``: ``rows x 16`` float64, features of different scales and offsets; ``y`` a linear
  function of them plus noise (float64);
- ``cls``: the same features; ``y`` three classes (int64) from a noisy linear score;
- ``pca``: ``rows / 5 x 64`` float32 (200000 x 64 at 1,000,000 rows),
  features with decaying scales, so that the leading components are well separated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

SEED = 0
CHUNK = 4096
FEATURES = 16
PCA_FEATURES = 64
PCA_ROW_RATIO = 5  # the PCA data has rows / 5 rows
CLASSES = 3

_RNG = np.random.default_rng([SEED, 1000])
SCALES = np.linspace(0.5, 3.0, FEATURES)
OFFSETS = np.linspace(-2.0, 5.0, FEATURES)
COEF = _RNG.uniform(-2.0, 2.0, FEATURES)
CLASS_W = _RNG.standard_normal((FEATURES, CLASSES))
CENTERS = _RNG.standard_normal((32, FEATURES)) * SCALES + OFFSETS  # pairwise distances' Y
PCA_SCALES = (2.0 * 0.9 ** np.arange(PCA_FEATURES)).astype(np.float32)
ALPHAS = (0.1, 1.0, 10.0)


def data_rows(kind: str, rows: int) -> int:
    """How many rows the data set ``kind`` has at ``--rows rows``."""
    return max(64, rows // PCA_ROW_RATIO) if kind == "pca" else rows


def make_data(kind: str, rows: int, start: int = 0, stop: int | None = None):
    """Rows ``[start, stop)`` of data set ``kind`` at ``--rows rows``: ``(X, y)`` as NumPy
    arrays (``y`` None for ``pca``). Every row is computed by elementwise operations from
    its chunk's seed, so any cut of the rows gives the same bits."""
    n = data_rows(kind, rows)
    stop = n if stop is None else min(stop, n)
    start = min(start, stop)
    xs, ys = [], []
    for c in range(start // CHUNK, -(-stop // CHUNK)):
        lo, hi = c * CHUNK, min((c + 1) * CHUNK, n)
        a, b = max(lo, start) - lo, min(hi, stop) - lo
        rng = np.random.default_rng([SEED, 1 if kind == "pca" else 2, c])
        if kind == "pca":
            G = rng.standard_normal((hi - lo, PCA_FEATURES), dtype=np.float32)
            xs.append((G * PCA_SCALES + 1.0)[a:b])
            continue
        G = rng.standard_normal((hi - lo, FEATURES))
        noise = rng.standard_normal((hi - lo, CLASSES + 1))
        X = G * SCALES + OFFSETS
        if kind == "reg":
            y = (X * COEF).sum(axis=1) + noise[:, 0]
        else:  # a row's scores by a sum along the row, not by BLAS (the same at any cut)
            scores = (G[:, :, None] * CLASS_W[None]).sum(axis=1) + 0.5 * noise[:, 1:]
            y = scores.argmax(axis=1).astype(np.int64)
        xs.append(X[a:b])
        ys.append(y[a:b])
    width = PCA_FEATURES if kind == "pca" else FEATURES
    dtype = np.float32 if kind == "pca" else np.float64
    X = np.concatenate(xs) if xs else np.empty((0, width), dtype)
    if kind == "pca":
        return X, None
    y = np.concatenate(ys) if ys else np.empty(0, np.float64 if kind == "reg" else np.int64)
    return X, y


@dataclass(frozen=True)
class Case:
    name: str
    data: str  # "reg", "cls" or "pca"
    fn: Callable[[Any, Any, Any], dict]
    rtol: float
    atol: float  # relative to the largest magnitude of each NumPy result
    what: str  # one line for the docs and the table's legend


# -- scikit-learn ---------------------------------------------------------------------------


def standard_scaler(X, y, xp):
    from sklearn.preprocessing import StandardScaler

    return {"Xt": StandardScaler().fit_transform(X)}


def scaler_pca_full(X, y, xp):
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(StandardScaler(), PCA(8, svd_solver="full"))
    Xt = pipe.fit_transform(X)
    pca = pipe[-1]
    return {"Xt": Xt, "components": pca.components_, "variance": pca.explained_variance_}


def pca_randomized(X, y, xp):
    from sklearn.decomposition import PCA

    pca = PCA(8, svd_solver="randomized", random_state=0)
    Xt = pca.fit_transform(X)
    return {"Xt": Xt, "components": pca.components_, "variance": pca.explained_variance_}


def ridge(X, y, xp):
    from sklearn.linear_model import Ridge

    m = Ridge(alpha=1.0).fit(X, y)
    return {"coef": m.coef_, "intercept": m.intercept_}


def ridge_cv(X, y, xp):
    from sklearn.linear_model import RidgeCV

    m = RidgeCV(alphas=ALPHAS).fit(X, y)
    return {"coef": m.coef_, "intercept": m.intercept_, "alpha": float(m.alpha_)}


def poly_ridge_cv(X, y, xp):
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    pipe = make_pipeline(StandardScaler(), PolynomialFeatures(2), RidgeCV(alphas=ALPHAS))
    pipe.fit(X, y)
    return {"coef": pipe[-1].coef_, "intercept": pipe[-1].intercept_}


def logistic_regression(X, y, xp):
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(StandardScaler(), PCA(8), LogisticRegression(max_iter=200))
    pipe.fit(X, y)
    return {"coef": pipe[-1].coef_, "proba": pipe.predict_proba(X)}


def lda_svd(X, y, xp):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    m = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    return {"coef": m.coef_, "intercept": m.intercept_, "Xt": m.transform(X)}


def gaussian_nb(X, y, xp):
    from sklearn.naive_bayes import GaussianNB

    m = GaussianNB().fit(X, y)
    return {"theta": m.theta_, "var": m.var_, "proba": m.predict_proba(X)}


def gaussian_mixture(X, y, xp):
    from sklearn.mixture import GaussianMixture

    # scikit-learn allows only the random initializations under array API dispatch
    m = GaussianMixture(3, init_params="random_from_data", max_iter=20, random_state=0).fit(X)
    return {"means": m.means_, "weights": m.weights_, "lower_bound": float(m.lower_bound_)}


def nystroem_ridge(X, y, xp):
    from sklearn.kernel_approximation import Nystroem
    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(
        StandardScaler(), Nystroem(gamma=0.02, n_components=100, random_state=0), Ridge(1.0)
    )
    pipe.fit(X, y)
    return {"prediction": pipe.predict(X)}


def split_ridge_score(X, y, xp):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import train_test_split

    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
    m = Ridge(alpha=1.0).fit(Xtr, ytr)
    return {"coef": m.coef_, "r2": float(m.score(Xte, yte))}


def cross_val_ridge(X, y, xp):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import KFold, cross_val_score

    cv = KFold(5, shuffle=True, random_state=0)
    return {"scores": cross_val_score(Ridge(alpha=1.0), X, y, cv=cv)}


def grid_search_ridge(X, y, xp):
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(Ridge(), {"alpha": list(ALPHAS)}, cv=3).fit(X, y)
    return {
        "mean_test_score": search.cv_results_["mean_test_score"],
        "best_alpha": float(search.best_params_["alpha"]),
        "coef": search.best_estimator_.coef_,
    }


def pairwise_distances(X, y, xp):
    from sklearn.metrics import pairwise_distances as pd

    return {"D": pd(X, xp.asarray(CENTERS))}


def pairwise_distances_argmin(X, y, xp):
    from sklearn.metrics import pairwise_distances_argmin as pda

    return {"labels": pda(X, xp.asarray(CENTERS))}


def metrics(X, y, xp):
    from sklearn.metrics import (
        accuracy_score,
        f1_score,
        mean_absolute_error,
        mean_squared_error,
        r2_score,
    )

    pred = 0.9 * y + 0.1 * X[:, 0]
    cut = xp.mean(y)
    truth, guess = xp.astype(y > cut, xp.int64), xp.astype(pred > cut, xp.int64)
    return {
        "r2": float(r2_score(y, pred)),
        "mse": float(mean_squared_error(y, pred)),
        "mae": float(mean_absolute_error(y, pred)),
        "accuracy": float(accuracy_score(truth, guess)),
        "f1": float(f1_score(truth, guess)),
    }


# -- SciPy ----------------------------------------------------------------------------------


def stats_zscore(X, y, xp):
    from scipy import stats

    return {"Z": stats.zscore(X, axis=0)}


def stats_moments(X, y, xp):
    from scipy import stats

    d = stats.describe(X, axis=0)
    return {
        "skew": stats.skew(X, axis=0),
        "kurtosis": stats.kurtosis(X, axis=0),
        "min": d.minmax[0],
        "max": d.minmax[1],
        "mean": d.mean,
        "variance": d.variance,
        "describe_skew": d.skewness,
        "describe_kurtosis": d.kurtosis,
    }


def special(X, y, xp):
    from scipy import special as sp

    return {"logsumexp": sp.logsumexp(X, axis=1), "expit": sp.expit(X)}


def fft_rfft_axis0(X, y, xp):
    import scipy.fft

    return {"F": scipy.fft.rfft(X, axis=0)}


def fft_rfft_axis1(X, y, xp):
    import scipy.fft

    return {"F": scipy.fft.rfft(X, axis=1)}


SMOOTH = np.hanning(33)[1:-1] / np.hanning(33)[1:-1].sum()  # a 31-tap smoothing kernel


def signal_fftconvolve(X, y, xp):
    from scipy import signal

    kernel = xp.asarray(SMOOTH[:, None])  # SciPy wants the kernel in X's namespace
    return {"S": signal.fftconvolve(X, kernel, mode="same", axes=0)}


def signal_lfilter(X, y, xp):
    from scipy import signal

    b, a = signal.butter(4, 0.1)  # NumPy coefficients (no array given), then X's namespace
    b, a = xp.asarray(b), xp.asarray(a)
    return {"S": signal.lfilter(b, a, X, axis=0)}


CASES = [
    Case("standard_scaler", "reg", standard_scaler, 1e-10, 1e-12, "StandardScaler().fit_transform"),
    Case("scaler_pca_full", "pca", scaler_pca_full, 1e-3, 1e-3,
         "StandardScaler -> PCA(8, svd_solver='full'), float32 64 features"),
    Case("pca_randomized", "pca", pca_randomized, 1e-3, 1e-3,
         "PCA(8, svd_solver='randomized', random_state=0), float32 64 features"),
    Case("ridge", "reg", ridge, 1e-8, 1e-10, "Ridge(alpha=1).fit"),
    Case("ridge_cv", "reg", ridge_cv, 1e-8, 1e-10, "RidgeCV(alphas=(0.1, 1, 10)).fit"),
    Case("poly_ridge_cv", "reg", poly_ridge_cv, 1e-6, 1e-8,
         "StandardScaler -> PolynomialFeatures(2) -> RidgeCV"),
    Case("logistic_regression", "cls", logistic_regression, 1e-4, 1e-4,
         "StandardScaler -> PCA(8) -> LogisticRegression (lbfgs), 3 classes"),
    Case("lda_svd", "cls", lda_svd, 1e-7, 1e-9, "LinearDiscriminantAnalysis(solver='svd')"),
    Case("gaussian_nb", "cls", gaussian_nb, 1e-8, 1e-10, "GaussianNB, predict_proba"),
    Case("gaussian_mixture", "reg", gaussian_mixture, 1e-6, 1e-8,
         "GaussianMixture(3, init_params='random_from_data', max_iter=20)"),
    Case("nystroem_ridge", "reg", nystroem_ridge, 1e-6, 1e-8,
         "StandardScaler -> Nystroem(100 components) -> Ridge, predict"),
    Case("split_ridge_score", "reg", split_ridge_score, 1e-8, 1e-10,
         "train_test_split -> Ridge -> score"),
    Case("cross_val_ridge", "reg", cross_val_ridge, 1e-8, 1e-10,
         "cross_val_score(Ridge, KFold(5, shuffle=True))"),
    Case("grid_search_ridge", "reg", grid_search_ridge, 1e-8, 1e-10,
         "GridSearchCV(Ridge, alpha in (0.1, 1, 10), cv=3)"),
    Case("pairwise_distances", "reg", pairwise_distances, 1e-7, 1e-8,
         "pairwise_distances(X, 32 centers)"),
    Case("pairwise_distances_argmin", "reg", pairwise_distances_argmin, 0.0, 0.0,
         "pairwise_distances_argmin(X, 32 centers)"),
    # accuracy_score returns the default float dtype: float32 on Torch
    Case("metrics", "reg", metrics, 1e-6, 1e-12,
         "r2, MSE, MAE, accuracy, f1 of a prediction"),
    Case("stats_zscore", "reg", stats_zscore, 1e-10, 1e-12, "scipy.stats.zscore(axis=0)"),
    Case("stats_moments", "reg", stats_moments, 1e-8, 1e-10,
         "scipy.stats skew, kurtosis, describe (axis=0)"),
    Case("special", "reg", special, 1e-12, 1e-14, "scipy.special logsumexp(axis=1), expit"),
    Case("fft_rfft_axis0", "reg", fft_rfft_axis0, 1e-8, 1e-10,
         "scipy.fft.rfft along the samples (the split axis)"),
    Case("fft_rfft_axis1", "reg", fft_rfft_axis1, 1e-10, 1e-12,
         "scipy.fft.rfft along the features"),
    Case("signal_fftconvolve", "reg", signal_fftconvolve, 1e-8, 1e-10,
         "scipy.signal.fftconvolve, 31-tap kernel along the samples"),
    Case("signal_lfilter", "reg", signal_lfilter, 1e-8, 1e-10,
         "scipy.signal.lfilter, 4th-order Butterworth along the samples"),
]  # fmt: skip
BY_NAME = {c.name: c for c in CASES}


def flatten(result: dict) -> dict[str, Any]:
    """A pipeline's results with tuples spread out (``name.0``, ``name.1``)."""
    out = {}
    for key, value in result.items():
        if isinstance(value, tuple):
            out |= {f"{key}.{i}": v for i, v in enumerate(value)}
        else:
            out[key] = value
    return out


def error(got, ref, rtol: float, atol: float) -> float:
    """The largest ``|got - ref| / (atol + rtol |ref|)``: at most 1 is within tolerance (an
    exact comparison gives 0 or inf); inf for a shape mismatch or NaN where ``ref`` has none.
    ``atol`` here is absolute (the caller scales it)."""
    got = np.asarray(got)
    ref = np.asarray(ref)
    if got.shape != ref.shape:
        return float("inf")
    if got.size == 0:
        return 0.0
    if ref.dtype.kind in "biu" or got.dtype.kind in "biu":
        return 0.0 if np.array_equal(got, ref) else float("inf")
    ref = ref.astype(np.complex128 if ref.dtype.kind == "c" else np.float64)
    got = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
    same_nan = np.isnan(got) == np.isnan(ref)
    if not same_nan.all():
        return float("inf")
    finite = ~np.isnan(ref)
    diff = np.abs(got[finite] - ref[finite])
    bound = atol + rtol * np.abs(ref[finite])
    if diff.size == 0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(diff == 0, 0.0, diff / bound)
    return float(np.nan_to_num(ratio, nan=np.inf, posinf=np.inf).max())
