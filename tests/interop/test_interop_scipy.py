"""SciPy with ``SCIPY_ARRAY_API=1`` on xdist arrays split along samples.

Each test calls the same SciPy function on NumPy arrays and on xdist arrays (balanced and very
uneven blocks, an empty one included), along the split axis and along the other one, and
compares. Every test runs with every implicit gather made an error (``no_gather(0)``): with
``SCIPY_ARRAY_API`` set, SciPy's stats, special, fft, signal and integrate functions reach
xdist's own functions instead of converting the data to NumPy.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy
from interop_support import COUNTS, N, assert_close, data, host, no_gather, split_rows
from scipy import fft, integrate, signal, special, stats

import xdist

pytestmark = pytest.mark.parametrize("counts", list(COUNTS.values()), ids=list(COUNTS))


@pytest.fixture(autouse=True)
def guarded():
    with no_gather(0):
        yield


def test_array_api_dispatch_is_on(counts):
    """SciPy read SCIPY_ARRAY_API when first imported: without it these tests would only
    prove the host round-trip (and no_gather would fail them at several ranks)."""
    assert os.environ.get("SCIPY_ARRAY_API") == "1"
    assert scipy._lib._array_api.SCIPY_ARRAY_API


def both(fn, counts, *arrays):
    return fn(*arrays), fn(*(split_rows(a, counts) for a in arrays))


@pytest.mark.parametrize("axis", [0, 1])
def test_special_logsumexp_softmax(counts, axis):
    X = data()[0]
    for fn in (special.logsumexp, special.softmax, special.log_softmax):
        ref, got = both(lambda X, fn=fn: fn(X, axis=axis), counts, X)
        assert isinstance(got, xdist.Array)
        assert_close(got, ref, rtol=1e-12)
    ref, got = both(lambda X: special.logsumexp(X), counts, X)
    assert_close(got, ref, rtol=1e-12)


@pytest.mark.parametrize("name", ["erf", "expit", "gammaln", "ndtr", "xlogy"])
def test_special_ufuncs(counts, name):
    X = np.abs(data()[0]) + 0.5
    fn = getattr(special, name)
    args = (X, X[::-1].copy()) if name == "xlogy" else (X,)
    ref, got = both(fn, counts, *args)
    assert isinstance(got, xdist.Array) and got.split == 0
    assert_close(got, ref, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1])
def test_stats_moments(counts, axis):
    X = data()[0]
    cases = [
        lambda X: stats.skew(X, axis=axis),
        lambda X: stats.skew(X, axis=axis, bias=False),
        lambda X: stats.kurtosis(X, axis=axis),
        lambda X: stats.kurtosis(X, axis=axis, fisher=False, bias=False),
        lambda X: stats.moment(X, order=3, axis=axis),
        lambda X: stats.zscore(X, axis=axis),
        lambda X: stats.zscore(X, axis=axis, ddof=1),
    ]
    for fn in cases:
        ref, got = both(fn, counts, X)
        assert isinstance(got, xdist.Array)
        assert_close(got, ref, rtol=1e-10)


@pytest.mark.parametrize("axis", [0, 1])
def test_stats_describe(counts, axis):
    X = data()[0]
    ref, got = both(lambda X: stats.describe(X, axis=axis), counts, X)
    assert int(got.nobs) == ref.nobs
    assert_close(got.minmax, ref.minmax, rtol=0)
    for field in ("mean", "variance", "skewness", "kurtosis"):
        assert_close(getattr(got, field), getattr(ref, field), rtol=1e-10)


def test_stats_ttest_ind(counts):
    X = data()[0]
    a, b = X[: N // 2], X[N // 2 :] + 0.3
    for kwargs in ({}, {"equal_var": False}):
        ref, got = both(lambda a, b, k=kwargs: stats.ttest_ind(a, b, **k), counts, a, b)
        assert_close(got.statistic, ref.statistic, rtol=1e-10)
        assert_close(got.pvalue, ref.pvalue, rtol=1e-8)
        assert_close(got.df, ref.df, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1])
def test_fft(counts, axis):
    """Along the split axis (0: the axis is swapped with two all-to-alls; 60 rows, a
    composite length) and along the other one (local)."""
    X = data()[0][: N - 1]
    for fn in (fft.fft, fft.rfft, fft.ifft):
        ref, got = both(lambda X, fn=fn: fn(X, axis=axis), counts, X)
        assert isinstance(got, xdist.Array)
        assert_close(got, ref, rtol=1e-10, atol=1e-10)
    roundtrip = lambda X: fft.irfft(fft.rfft(X, axis=axis), n=X.shape[axis], axis=axis)
    ref, got = both(roundtrip, counts, X)
    assert_close(got, X, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("n", [N - 1, N])
def test_fft_1d(counts, n):
    """A 1-D split signal: the six-step FFT (three all-to-alls) for a composite length; a
    prime length has no factorization to distribute, so it is gathered onto one rank with a
    GatherWarning (here an error), and the answer is still right."""
    y = data()[1][:n]
    ys = split_rows(y, counts)
    prime = n == N
    if prime and xdist.default_comm().size > 1:
        with pytest.raises(xdist.GatherWarning, match="fft: .* on one rank"):
            fft.fft(ys)
    with xdist.config_context(gather_warning_elements=n if prime else 0):
        for fn in (fft.fft, fft.rfft, fft.ifft):
            assert_close(fn(ys), fn(y), rtol=1e-10, atol=1e-10)


def test_signal_fftconvolve(counts):
    """A split signal with a small replicated kernel (SciPy wants one namespace, so the
    kernel is an xdist array too: ``xp.asarray`` of a NumPy array is replicated)."""
    X, y, _ = data()
    kernel = np.hanning(9)
    k = xdist.asarray(kernel)
    assert k.split is None
    for mode in ("full", "same", "valid"):
        ref = signal.fftconvolve(y, kernel, mode=mode)
        got = signal.fftconvolve(split_rows(y, counts), k, mode=mode)
        assert_close(got, ref, rtol=1e-9, atol=1e-10)
    ref = signal.fftconvolve(X, kernel[:, None], axes=0)
    got = signal.fftconvolve(split_rows(X, counts), k[:, None], axes=0)
    assert_close(got, ref, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("axis", [0, 1])
def test_integrate_trapezoid(counts, axis):
    X = data()[0]
    ref, got = both(lambda X: integrate.trapezoid(X, axis=axis), counts, X)
    assert_close(got, ref, rtol=1e-12)
    ref, got = both(lambda X: integrate.trapezoid(X, dx=0.25, axis=axis), counts, X)
    assert_close(got, ref, rtol=1e-12)
    assert host(got).shape == ref.shape


def test_elementwise_solvers_and_cumulative_simpson(counts):
    """SciPy's elementwise iterative methods (``differentiate.derivative``,
    ``optimize.elementwise.find_root``, ``integrate.tanhsinh``: they fill their status arrays with
    ``xp.full(n, xp.asarray(code))``, take a 0-d ``args`` and make their work arrays with
    creation functions) and ``cumulative_simpson`` (``np.int64`` axes inside), on split
    samples: NumPy's values. With ``default_split=0`` the work arrays are split too, and
    nothing is gathered (the fixture's ``no_gather(0)``); under the default the work arrays
    are made replicated and take the samples' split when the solvers write into them through
    split masks and index arrays: the same values, split, and nothing of the samples'
    length gathered."""
    from scipy import differentiate
    from scipy.optimize import elementwise

    x = np.linspace(0.5, 2.5, N)
    xs = split_rows(x, counts)
    lo, hi = split_rows(np.zeros(N), counts), split_rows(np.full(N, 3.0), counts)
    ref_d = differentiate.derivative(np.exp, x).df
    ref_a = differentiate.derivative(lambda t, c: c * t**2, x, args=np.asarray(3.0)).df
    ref_r = elementwise.find_root(
        lambda t, a: t * t - a, (np.zeros(N), np.full(N, 3.0)), args=(x,)
    ).x
    # (small arrays of SciPy's own, 4 or 8 coefficients, are split too and gathered back)
    with xdist.config_context(default_split=0), no_gather(N // 2):
        got = differentiate.derivative(xdist.exp, xs).df
        assert isinstance(got, xdist.Array) and got.split == 0
        assert_close(got, ref_d, rtol=1e-10)
        got = differentiate.derivative(lambda t, c: c * t**2, xs, args=xdist.asarray(3.0)).df
        assert_close(got, ref_a, rtol=1e-10)
        got = elementwise.find_root(lambda t, a: t * t - a, (lo, hi), args=(xs,)).x
        assert got.split == 0
        assert_close(got, ref_r, rtol=1e-12, atol=1e-12)
    # The default: the work arrays made replicated take the split of the samples written
    # into them through split masks and indices, and nothing of N elements is gathered.
    with no_gather(N // 2):
        got = differentiate.derivative(xdist.exp, xs).df
        assert got.split == 0
        assert_close(got, ref_d, rtol=1e-10)
        got = elementwise.find_root(lambda t, a: t * t - a, (lo, hi), args=(xs,)).x
        assert got.split == 0
        assert_close(got, ref_r, rtol=1e-12, atol=1e-12)
        got = integrate.tanhsinh(xdist.exp, lo, xs).integral
        assert got.split == 0
        assert_close(got, integrate.tanhsinh(np.exp, np.zeros(N), x).integral, rtol=1e-12)
        # 2-D limits: the work arrays are flattened (``xp_ravel``) 2-D ones
        x2 = np.stack([x, 2.0 * x], axis=1)
        got = integrate.tanhsinh(
            xdist.exp, split_rows(np.zeros((N, 2)), counts), split_rows(x2, counts)
        )
        assert got.integral.split == 0
        ref = integrate.tanhsinh(np.exp, np.zeros((N, 2)), x2).integral
        assert_close(got.integral, ref, rtol=1e-12)
    X = data()[0]
    # SciPy's constants (1/3, 1/12) are arrays of the default dtype: float32 on Torch
    default = xdist.__array_namespace_info__().default_dtypes()["real floating"]
    rtol = 1e-12 if default == xdist.float64 else 1e-6
    for axis in (0, 1, -1):
        ref, got = both(lambda X, axis=axis: integrate.cumulative_simpson(X, axis=axis), counts, X)
        assert_close(got, ref, rtol=rtol)
