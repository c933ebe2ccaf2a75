"""Which of xarray's common operations keep an xdist array distributed.

    mpiexec -n 3 python conformance/xarray_probe.py [--verbose]

(``tests/run.py``'s MPICH settings for more ranks than cores: ``MPIR_CVAR_CH4_PROGRESS_THROTTLE=1
MPIR_CVAR_POLLS_BEFORE_YIELD=100 MPIR_CVAR_ENABLE_HEAVY_YIELD=1``.)

A labelled ``(time, space)`` DataArray of daily values with a few NaNs, its data an xdist
array split along ``time`` (uneven blocks at 3 ranks), goes through each operation of the
list below, under ``warnings.simplefilter("error", xdist.GatherWarning)`` with
``gather_warning_elements=0``, so that any implicit gather, however small, is an error. Each
operation is counted as

- ``distributed``: ran without a gather and gave xarray-over-NumPy's values;
- ``gathers``: raised a ``GatherWarning`` (the data came back through NumPy whole);
- ``fails``: raised anything else, or gave other values than xarray over NumPy.

Rank 0 prints the counts and, with ``--verbose`` (or for every operation that is not
distributed), what happened. ``.values`` is the one named gather of the list: it counts as a
gather by design.
"""

from __future__ import annotations

import argparse
import sys
import traceback
import warnings

import numpy as np
import xarray as xr

import xdist as xp


def _data() -> tuple[xr.DataArray, xr.DataArray, xr.DataArray]:
    """The same labelled data over NumPy and over xdist (split along time), and weights."""
    rng = np.random.default_rng(0)
    n, m = 100, 3
    values = rng.normal(10.0, 2.0, (n, m))
    values[[3, 40, 41, 77], [0, 1, 1, 2]] = np.nan
    coords = {
        "time": np.arange("2000-01-01", n, dtype="datetime64[D]").astype("datetime64[ns]"),
        "space": ["a", "b", "c"],
    }
    ref = xr.DataArray(values, dims=("time", "space"), coords=coords, name="t2m")
    dist = xr.DataArray(
        xp.asarray(values, split=0), dims=("time", "space"), coords=coords, name="t2m"
    )
    weights = xr.DataArray(
        np.array([0.2, 0.3, 0.5]), dims="space", coords={"space": ["a", "b", "c"]}
    )
    return ref, dist, weights


def operations(w: xr.DataArray) -> list[tuple[str, object]]:
    """``(name, f)``: ``f(da)`` for a DataArray ``da``."""
    ops = [
        ("mean()", lambda d: d.mean()),
        ("mean('time')", lambda d: d.mean("time")),
        ("mean('space')", lambda d: d.mean("space")),
        ("sum('time')", lambda d: d.sum("time")),
        ("std('time')", lambda d: d.std("time")),
        ("var('time', ddof=1)", lambda d: d.var("time", ddof=1)),
        ("min('time')", lambda d: d.min("time")),
        ("max('time')", lambda d: d.max("time")),
        ("argmax('time')", lambda d: d.argmax("time")),
        ("argmin('time')", lambda d: d.argmin("time")),
        ("idxmax('time')", lambda d: d.idxmax("time")),
        ("median('time')", lambda d: d.median("time")),
        ("cumsum('time')", lambda d: d.cumsum("time")),
        ("cumprod('time')", lambda d: (d / 10).cumprod("time")),
        ("prod('space')", lambda d: d.prod("space")),
        ("count('time')", lambda d: d.count("time")),
        ("sum(min_count=98)", lambda d: d.sum("time", min_count=98)),
        ("mean(skipna=False)", lambda d: d.mean("time", skipna=False)),
        ("std(skipna=False)", lambda d: d.std("time", skipna=False)),
        ("max(skipna=False)", lambda d: d.max("time", skipna=False)),
        ("quantile(0.9, 'time')", lambda d: d.quantile(0.9, dim="time")),
        ("quantile([.1,.5], skipna=False)", lambda d: d.quantile([0.1, 0.5], skipna=False)),
        ("np.exp(da)", lambda d: np.exp(d / 10)),
        ("np.sqrt(abs(da))", lambda d: np.sqrt(abs(d))),
        ("da + 1", lambda d: d + 1),
        ("da * da", lambda d: d * d),
        ("-da", lambda d: -d),
        ("da ** 2", lambda d: d**2),
        ("da > 10", lambda d: d > 10),
        ("anomalies", lambda d: d - d.mean("time")),
        ("standardized", lambda d: (d - d.mean("time")) / d.std("time")),
        ("isnull()", lambda d: d.isnull()),
        ("fillna(0)", lambda d: d.fillna(0)),
        ("where(cond)", lambda d: d.where(d > 10)),
        ("where(cond, 0)", lambda d: d.where(d > 10, 0)),
        ("xr.where", lambda d: xr.where(d > 10, d, -d)),
        ("clip(8, 12)", lambda d: d.clip(8, 12)),
        ("round(2)", lambda d: d.round(2)),
        ("astype(float32)", lambda d: d.astype("float32")),
        ("isel(time=slice)", lambda d: d.isel(time=slice(20, 60))),
        ("isel(time=5)", lambda d: d.isel(time=5)),
        ("sel(time=range)", lambda d: d.sel(time=slice("2000-02-01", "2000-02-20"))),
        ("transpose()", lambda d: d.transpose()),
        ("coarsen(time=7).mean()", lambda d: d.coarsen(time=7, boundary="trim").mean()),
        ("groupby('time.month').mean()", lambda d: d.groupby("time.month").mean()),
        ("resample(time='MS').mean()", lambda d: d.resample(time="MS").mean()),
        ("rolling(time=5).mean()", lambda d: d.rolling(time=5).mean()),
        ("rolling(center).sum()", lambda d: d.rolling(time=3, center=True).sum()),
        ("shift(time=2)", lambda d: d.shift(time=2)),
        ("roll(time=2)", lambda d: d.roll(time=2)),
        ("pad(time=2)", lambda d: d.pad(time=2)),
        ("diff('time')", lambda d: d.diff("time")),
        ("xr.dot(da, w)", lambda d: xr.dot(d, w)),
        ("weighted(w).mean('space')", lambda d: d.fillna(0).weighted(w).mean("space")),
        ("concat(time)", lambda d: xr.concat([d, d], "time")),
        ("integrate('time')", lambda d: d.fillna(0).integrate("time")),
        (".values", lambda d: d.values),
    ]
    return ops


def _host(result: object) -> np.ndarray:
    data = result.data if isinstance(result, xr.DataArray) else result
    if isinstance(data, xp.Array):
        return xp.to_numpy(data)
    return np.asarray(data)


def _same(got: object, want: object) -> bool:
    a, b = _host(got), _host(want)
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True))
    return bool(np.array_equal(a, b))


def probe(verbose: bool) -> dict[str, list[str]]:
    rank = xp.default_comm().rank
    ref, dist, w = _data()
    outcome: dict[str, list[str]] = {"distributed": [], "gathers": [], "fails": []}
    xp.set_config(gather_warning_elements=0)
    for name, f in operations(w):
        want = f(ref)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", xp.GatherWarning)
                got = f(dist)
                kind = "distributed" if _same(got, want) else "fails"
                why = "" if kind == "distributed" else "values differ from xarray over NumPy"
        except xp.GatherWarning as e:
            kind, why = "gathers", str(e).splitlines()[0][:160]
        except Exception as e:  # noqa: BLE001 - the probe counts every failure
            kind = "fails"
            why = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
            if verbose and rank == 0:
                traceback.print_exc()
        outcome[kind].append(name)
        if rank == 0 and (verbose or kind != "distributed"):
            print(f"{kind:>12}  {name:<32} {why}", flush=True)
    return outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="print every operation")
    args = parser.parse_args()
    outcome = probe(args.verbose)
    comm = xp.default_comm()
    if comm.rank == 0:
        total = sum(len(v) for v in outcome.values())
        counts = ", ".join(f"{len(v)} {k}" for k, v in outcome.items())
        print(
            f"xarray {xr.__version__}, {comm.size} rank(s), "
            f"backend {xp.asarray(0)._backend.name}: "
            f"{total} operations: {counts}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
