"""cov and corrcoef (xdist's extensions, NumPy's meaning) against NumPy on the same global data
at every layout, weights and ddof included; one allreduce of the merged co-moment records;
errors before any message.

Tolerance: xdist merges the ranks' centred cross-products (Chan et al.) where NumPy centres on
the global mean. Either way the mean of data with an offset of 1e6 is rounded to
ulp(1e6) ~ 1.2e-10, and the deviations from it, of size sigma (0.1 to 5 here), carry that
error: each result is within about ulp(offset) / sigma ~ 1e-9 of the exact one, relative to
the largest covariance, so the two agree to 1e-9 of it (float64; 1e-6 when NumPy computes in
float32)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layouts, without_gathers

import xdist


def data(shape=(3, 9), offset=1e6, seed=0, dtype="float64") -> np.ndarray:
    rng = np.random.default_rng(seed)
    scale = np.resize([1.0, 5.0, 0.1], shape[0])[:, None]
    return (rng.standard_normal(shape) * scale + offset).astype(dtype)


def close(got, want):
    want = np.asarray(want)
    scale = float(np.nanmax(np.abs(want))) if want.size else 0.0
    rtol = 1e-6 if want.dtype == np.float32 else 1e-9
    assert_equal(got, want, rtol=rtol, atol=rtol * scale)


F = np.array([1, 0, 2, 3, 1, 1, 4, 2, 1])
A = np.linspace(0.1, 2.0, 9)
KWARGS = [
    {},
    {"bias": True},
    {"ddof": 3},
    {"fweights": F},
    {"aweights": A},
    {"fweights": F, "aweights": A, "ddof": 2},
]


@pytest.mark.parametrize("kwargs", KWARGS, ids=lambda k: ",".join(k) or "plain")
@pytest.mark.parametrize("rowvar", [True, False])
def test_cov_matches_numpy(rowvar, kwargs):
    a = data() if rowvar else data().T
    want = np.cov(a, rowvar=rowvar, **kwargs)
    for case in layouts(a.shape):
        weights = {k: distribute(v, 0) for k, v in kwargs.items() if k.endswith("weights")}
        got = without_gathers(xdist.cov, distribute(a, *case), rowvar=rowvar, **kwargs | weights)
        close(got, want)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_cov_dtypes_are_numpy_float64(dtype):
    a = (data(offset=0) * 10).astype(dtype)
    for case in layouts(a.shape):
        close(xdist.cov(distribute(a, *case)), np.cov(a))
    close(xdist.cov(distribute(a, 1), dtype=np.float32), np.cov(a, dtype=np.float32))


def test_cov_of_one_variable_and_of_y():
    a, b = data(), data(seed=1)
    for case in layouts(a.shape):
        x, y = distribute(a, *case), distribute(b, *case)
        close(xdist.cov(x[0, :]), np.cov(a[0]))
        close(xdist.cov(x, y), np.cov(a, b))
        close(xdist.corrcoef(x, y), np.corrcoef(a, b))
        close(xdist.corrcoef(x[1, :]), np.corrcoef(a[1]))


def test_one_row_and_one_column_read_as_the_installed_numpy_reads_them():
    """A single row with ``rowvar=False`` is one observation of each column from NumPy 2.2
    (a matrix of NaN), one variable before; a single row of ``y`` is one variable in every
    version. Empty blocks are among the layouts."""
    for a, b in [(data((1, 4)), data((1, 4), seed=1)), (data((4, 1)), data((4, 1), seed=1))]:
        for rowvar in (True, False):
            for case in layouts(a.shape):
                x = distribute(a, *case)
                with np.errstate(divide="ignore", invalid="ignore"):
                    close(xdist.cov(x, rowvar=rowvar), np.cov(a, rowvar=rowvar))
                    close(xdist.corrcoef(x, rowvar=rowvar), np.corrcoef(a, rowvar=rowvar))
                try:
                    want = np.cov(a, b, rowvar=rowvar)
                except ValueError:  # numbers of observations differ
                    with pytest.raises(ValueError, match="different numbers of observations"):
                        xdist.cov(x, distribute(b, *case), rowvar=rowvar)
                else:
                    close(xdist.cov(x, distribute(b, *case), rowvar=rowvar), want)


def test_corrcoef_matches_numpy():
    a = data((4, 11))
    for case in layouts(a.shape):
        close(xdist.corrcoef(distribute(a, *case)), np.corrcoef(a))
        close(xdist.corrcoef(distribute(a, *case), rowvar=False), np.corrcoef(a, rowvar=False))


def test_one_allreduce_of_the_records():
    x = distribute(data(), 1)  # observations split
    with xdist.count_collectives() as counts:
        xdist.cov(x)
    assert counts == (Counter(allreduce=1) if SIZE > 1 else Counter())
    if SIZE > 1:
        d = x.shape[0]
        assert counts.bytes["allreduce"] == 8 * (2 + d + d * d)
    with xdist.count_collectives() as counts:
        xdist.cov(distribute(data()))
    assert counts == Counter()


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"ddof": 1.5}, ValueError, "ddof must be an integer"),
        ({"fweights": np.ones(9)}, TypeError, "fweights must be integer"),
        ({"fweights": np.ones(4, int)}, RuntimeError, "incompatible numbers of samples"),
        ({"aweights": np.ones((9, 1))}, RuntimeError, "aweights must be 1-D"),
        ({"rowvar": 1}, TypeError, "rowvar must be a bool"),
    ],
)
def test_bad_arguments_raise_before_any_message(kwargs, exc, match):
    x = distribute(data(), 1)
    with xdist.config_context(check_replicated=False), xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            xdist.cov(x, **kwargs)
    assert counts == Counter()
    with pytest.raises(ValueError, match="cannot be negative"):
        xdist.cov(x, aweights=distribute(-A, 0))
    with pytest.raises(NotImplementedError, match="real only"):
        xdist.cov(xdist.astype(x, xdist.complex128))
