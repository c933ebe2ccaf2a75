"""xdist.ml.stats against scipy.stats: functions along every axis and layout, the streaming
Moments transformer (Pebay merges), data with a large offset, and NumPy input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from helpers import RANK, SIZE, distribute, layout_id, layouts, uneven_counts

from xdist.ml import stats

RTOL = 1e-10


def _np(a):
    return a.to_numpy() if hasattr(a, "to_numpy") else np.asarray(a)


def _data(kind: str) -> np.ndarray:
    rng = np.random.default_rng(3)
    if kind == "skewed":
        return rng.standard_normal((7, 3)) ** 3 + 2.0
    return 1e8 + rng.standard_normal((40, 3))  # "offset": naive power sums lose every digit


def _reference(data):
    # x - 1e8 is exact near 1e8 (Sterbenz), so SciPy on the shifted data is the true value.
    return data - 1e8 if data.mean() > 1e7 else data


FUNCS = {
    "mean": (lambda x, a: stats.mean(x, a), lambda x, a: np.mean(x, axis=a), True),
    "var": (lambda x, a: stats.var(x, a), lambda x, a: np.var(x, axis=a), False),
    "var1": (lambda x, a: stats.var(x, a, ddof=1), lambda x, a: np.var(x, axis=a, ddof=1), False),
    "std": (lambda x, a: stats.std(x, a), lambda x, a: np.std(x, axis=a), False),
    "skew": (lambda x, a: stats.skew(x, a), lambda x, a: st.skew(x, axis=a), False),
    "skew_unb": (
        lambda x, a: stats.skew(x, a, bias=False),
        lambda x, a: st.skew(x, axis=a, bias=False),
        False,
    ),
    "kurt": (lambda x, a: stats.kurtosis(x, a), lambda x, a: st.kurtosis(x, axis=a), False),
    "kurt_pearson_unb": (
        lambda x, a: stats.kurtosis(x, a, fisher=False, bias=False),
        lambda x, a: st.kurtosis(x, axis=a, fisher=False, bias=False),
        False,
    ),
    "moment3": (lambda x, a: stats.moment(x, 3, a), lambda x, a: st.moment(x, 3, axis=a), False),
    "moment5": (lambda x, a: stats.moment(x, 5, a), lambda x, a: st.moment(x, 5, axis=a), False),
}


@pytest.mark.parametrize("kind", ["skewed", "offset"])
@pytest.mark.parametrize("case", layouts((7, 3)), ids=layout_id)
@pytest.mark.parametrize("axis", [0, 1, None])
@pytest.mark.parametrize("name", list(FUNCS))
def test_functions_match_scipy(kind, case, axis, name):
    data = _data(kind)
    ours, ref, shift_back = FUNCS[name]
    x = distribute(data, *case) if data.shape[0] == 7 else distribute(data, case[0])
    got = _np(ours(x, axis))
    expected = ref(_reference(data), axis)
    if shift_back and kind == "offset":
        expected = expected + 1e8
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=0)
    # NumPy input runs the very same code.
    np.testing.assert_allclose(_np(ours(data, axis)), expected, rtol=RTOL, atol=0)


def test_moment_orders_0_and_1_and_constant_slices():
    x = distribute(np.ones((5, 2)), 0)
    assert np.all(_np(stats.moment(x, 0)) == 1.0)
    assert np.all(_np(stats.moment(x, 1)) == 0.0)
    assert np.all(np.isnan(_np(stats.skew(x))))
    assert np.all(np.isnan(_np(stats.kurtosis(x))))


def test_bad_arguments():
    with pytest.raises(ValueError, match="axis 2"):
        stats.mean(np.ones((2, 2)), 2)
    with pytest.raises(TypeError, match="ddof"):
        stats.var(np.ones(3), ddof=0.5)
    with pytest.raises(ValueError, match="order must be"):
        stats.Moments(order=5).fit(np.ones((3, 2)))
    m = stats.Moments().fit(np.ones((3, 2)))
    with pytest.raises(ValueError, match="X has 3 features, but Moments is expecting 2"):
        m.partial_fit(np.ones((3, 3)))


@pytest.mark.parametrize("kind", ["skewed", "offset"])
@pytest.mark.parametrize("counts", ["balanced", "uneven"])
def test_moments_fit_and_stream(kind, counts):
    rng = np.random.default_rng(5)
    data = _data(kind) if kind == "offset" else rng.standard_normal((30, 3)) ** 3
    n = data.shape[0]
    c = None if counts == "balanced" else uneven_counts(n, SIZE)
    ref = _reference(data)
    expected = {
        "mean_": ref.mean(0) + (1e8 if kind == "offset" else 0.0),
        "var_": ref.var(0),
        "skewness_": st.skew(ref),
        "kurtosis_": st.kurtosis(ref),
    }
    whole = stats.Moments().fit(distribute(data, 0, c))
    stream = stats.Moments()
    for lo, hi in [(0, 1), (1, 9), (9, n // 2), (n // 2, n)]:  # uneven batches, one of 1 row
        stream.partial_fit(distribute(data[lo:hi], 0))
    assert whole.mean_.split is None and stream.kurtosis_.split is None  # replicated
    for est in (whole, stream, stats.Moments().fit(data)):
        assert est.n_samples_seen_ == n
        for attr, value in expected.items():
            np.testing.assert_allclose(_np(getattr(est, attr)), value, rtol=RTOL, atol=0)


def test_moments_transform_roundtrip_and_constant_feature():
    data = np.random.default_rng(1).standard_normal((9, 3))
    data[:, 1] = 4.0
    x = distribute(data, 0, uneven_counts(9, SIZE))
    m = stats.Moments(order=2).fit(x)
    z = m.transform(x)
    assert z.split == 0
    scale = data.std(0)
    scale[1] = 1.0
    np.testing.assert_allclose(_np(z), (data - data.mean(0)) / scale, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(_np(m.inverse_transform(z)), data, rtol=1e-12)
    assert not hasattr(m, "skewness_")


def test_moments_verbose_prints_on_rank_0(capsys):
    data = np.random.default_rng(4).standard_normal((11, 2))
    m = stats.Moments(verbose=1).fit(distribute(data[:5], 0, uneven_counts(5, SIZE)))
    m.partial_fit(distribute(data[5:], 0))
    out = capsys.readouterr().out
    expected = "batch of 5 samples merged, 5 samples seen.\nMoments: batch of 6 samples merged"
    assert (expected in out) == (RANK == 0), out
    assert out == "" or RANK == 0
    stats.Moments(verbose=True).fit(data)  # NumPy input: spread over the ranks too
    out = capsys.readouterr().out
    assert ("batch of 11 samples merged, 11 samples seen" in out) == (RANK == 0), out
    assert out == "" or RANK == 0
    stats.Moments().fit(distribute(data, 0))
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("bias", [True, False])
def test_constant_features_give_nan_without_a_warning(bias):
    """A constant feature has no skewness or kurtosis: NaN, as SciPy gives, with the other
    features' values intact, and no "invalid value encountered in divide" from dividing its
    zero moments by its zero variance (the quotient that is discarded)."""
    import warnings

    rng = np.random.default_rng(2)
    data = np.column_stack([np.full(20, 3.0), rng.standard_normal(20) ** 3, np.zeros(20)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_skew = st.skew(data, bias=bias)
        want_kurt = st.kurtosis(data, bias=bias)
    for x in (data, distribute(data, 0, uneven_counts(20, SIZE))):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            got = [stats.skew(x, bias=bias), stats.kurtosis(x, bias=bias)]
            fitted = stats.Moments().fit(x) if bias else None
        for value, want in zip(got, (want_skew, want_kurt)):
            np.testing.assert_allclose(_np(value), want, rtol=1e-12)
        assert np.isnan(_np(got[0])[[0, 2]]).all() and np.isfinite(_np(got[0])[1])
        if fitted is not None:
            np.testing.assert_allclose(_np(fitted.skewness_), want_skew, rtol=1e-12)
            np.testing.assert_allclose(_np(fitted.kurtosis_), want_kurt, rtol=1e-12)
