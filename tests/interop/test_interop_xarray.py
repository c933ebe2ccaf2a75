"""xarray on xdist: a labelled DataArray whose data is an xdist array split along time
(uneven blocks at 3 ranks, an empty block in the uneven layout) runs xarray's common
operations distributed. Each operation is compared with xarray over NumPy on the same data,
under ``GatherWarning`` as an error with ``gather_warning_elements=0`` (no implicit gather of
any size), and its result's data is still an xdist array. ``.values`` is the one named
gather: it warns at several ranks, as docs/xarray.md says."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import SIZE, distribute, uneven_counts, without_gathers

import xdist

xr = pytest.importorskip("xarray", reason="the test extra installs xarray")

N, M = 40, 3
SPACE = ["a", "b", "c"]


def values() -> np.ndarray:
    v = np.random.default_rng(0).normal(10.0, 2.0, (N, M))
    v[[3, 17, 18, 33], [0, 1, 1, 2]] = np.nan
    return v


def labelled(data) -> xr.DataArray:
    time = np.arange("2000-01-01", N * 3, 3, dtype="datetime64[D]").astype("datetime64[ns]")
    return xr.DataArray(data, dims=("time", "space"), coords={"time": time, "space": SPACE})


WEIGHTS = xr.DataArray(np.array([0.2, 0.3, 0.5]), dims="space", coords={"space": SPACE})

OPERATIONS = {
    "mean": lambda d: d.mean("time"),
    "mean-all": lambda d: d.mean(),
    "std": lambda d: d.std("time"),
    "var-ddof1": lambda d: d.var("time", ddof=1),
    "min": lambda d: d.min("time"),
    "max": lambda d: d.max("time"),
    "argmax": lambda d: d.argmax("time"),
    "median": lambda d: d.median("time"),
    "cumsum": lambda d: d.cumsum("time"),
    "sum-min_count": lambda d: d.sum("time", min_count=N - 2),
    "exp": lambda d: np.exp(d / 10),
    "anomalies": lambda d: d - d.mean("time"),
    "coarsen-mean": lambda d: d.coarsen(time=4, boundary="trim").mean(),
    "groupby-mean": lambda d: d.groupby("time.month").mean(),
    "rolling-mean": lambda d: d.rolling(time=5).mean(),
    "rolling-center-sum": lambda d: d.rolling(time=3, center=True).sum(),
    "shift": lambda d: d.shift(time=2),
    "shift-back": lambda d: d.shift(time=-3),
    "pad": lambda d: d.pad(time=(2, 1)),
    "dot": lambda d: xr.dot(d.fillna(0), WEIGHTS),
    "weighted-mean": lambda d: d.fillna(0).weighted(WEIGHTS).mean("space"),
    "quantile": lambda d: d.quantile(0.9, dim="time"),
    "quantiles-no-skipna": lambda d: d.quantile([0.1, 0.5], dim="time", skipna=False),
    "round": lambda d: d.round(2),
    "std-no-skipna": lambda d: d.std("time", skipna=False),
    "where": lambda d: d.where(d > 10),
    "where-other": lambda d: d.where(d > 10, 0),
    "differentiate": lambda d: d.fillna(0).differentiate("time"),
    "cross": lambda d: xr.cross(d, d.roll(time=1), dim="space"),
}

LAYOUTS = {"balanced": None, "uneven": "uneven"}


def dist(layout: str | None) -> xr.DataArray:
    counts = uneven_counts(N, SIZE) if layout else None
    return labelled(distribute(values(), 0, counts))


def host(result) -> np.ndarray:
    data = result.data
    return data.to_numpy() if isinstance(data, xdist.Array) else np.asarray(data)


@pytest.mark.parametrize("layout", list(LAYOUTS.values()), ids=list(LAYOUTS))
@pytest.mark.parametrize("name", list(OPERATIONS))
def test_operation_stays_distributed_and_matches_xarray_over_numpy(name, layout):
    op = OPERATIONS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's all-NaN slice warnings
        want = op(labelled(values()))
    got = without_gathers(op, dist(layout))
    assert isinstance(got.data, xdist.Array), type(got.data)
    assert got.dims == want.dims
    for dim in want.coords:
        np.testing.assert_array_equal(got[dim].values, want[dim].values)
    got_values, want_values = host(got), want.values
    assert got_values.shape == want_values.shape
    assert got_values.dtype == want_values.dtype, (got_values.dtype, want_values.dtype)
    np.testing.assert_allclose(got_values, want_values, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_anomalies_keep_the_split_along_time():
    da = dist(None)
    anomalies = da - da.mean("time")
    assert anomalies.data.split == 0 and anomalies.data.counts == da.data.counts
    rolled = da.rolling(time=5).mean()
    assert rolled.data.split == 0


def test_values_is_a_named_gather():
    da = dist(None)
    with xdist.config_context(gather_warning_elements=0):
        if SIZE > 1:
            with pytest.warns(xdist.GatherWarning, match="__array__"):
                whole = da.values
        else:
            whole = da.values
    np.testing.assert_array_equal(whole, values())
