"""benchmarks/pipelines.py: its data are the same at any cut of the rows, its check rejects a
wrong answer, and a smoke run at a tiny scale checks and times a few pipelines on NumPy and
on xdist at 2 ranks and prints its table.

The smoke run starts ``mpiexec`` itself, so it runs once per test command: ``tests/run.py``
sets ``XDIST_BENCHMARK_TEST=1`` in its first NumPy 1-rank run only (as for
tests/packaging/test_benchmarks.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from benchmark_modules import load
from helpers import SIZE, outside_mpi_job

ROOT = Path(__file__).resolve().parents[2]

cases = load("pipelines_cases")


def test_rows_made_anywhere_are_the_same():
    """A rank's rows are those of the whole data set, whatever the cut (4096-row chunks)."""
    for kind in ("reg", "cls", "pca"):
        n = cases.data_rows(kind, 25000)
        cuts = [0, 1, 4096, 4100, n]
        X, y = cases.make_data(kind, 25000)
        assert X.shape == (n, cases.PCA_FEATURES if kind == "pca" else cases.FEATURES)
        parts = [cases.make_data(kind, 25000, a, b) for a, b in zip(cuts, cuts[1:])]
        np.testing.assert_array_equal(np.concatenate([p[0] for p in parts]), X)
        if y is not None:
            np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), y)
    labels = cases.make_data("cls", 3000)[1]
    assert labels.dtype == np.int64 and set(np.unique(labels)) == set(range(cases.CLASSES))


def test_error_rejects_wrong_results():
    ref = np.linspace(-3.0, 5.0, 40).reshape(10, 4)
    assert cases.error(ref, ref, 1e-8, 0.0) == 0.0
    assert cases.error(ref * (1 + 1e-9), ref, 1e-8, 0.0) <= 1
    assert cases.error(ref * (1 + 1e-7), ref, 1e-8, 0.0) > 1
    assert cases.error(ref[:5], ref, 1.0, 1.0) == float("inf")  # shape
    nan = ref.copy()
    nan[0, 0] = np.nan
    assert cases.error(nan, ref, 1.0, 1.0) == float("inf")
    assert cases.error(nan, nan, 1e-8, 0.0) == 0.0  # NaN where NumPy has NaN
    labels = np.arange(6)
    assert cases.error(labels, labels, 0.0, 0.0) == 0.0
    assert cases.error(labels[::-1], labels, 1.0, 1.0) == float("inf")  # labels: exact
    spectrum = np.fft.rfft(ref, axis=0)
    assert cases.error(spectrum, spectrum, 1e-10, 0.0) == 0.0
    assert cases.error(spectrum.conj(), spectrum, 1e-6, 0.0) > 1


def test_every_case_is_named_once_and_documented():
    names = [c.name for c in cases.CASES]
    assert len(names) == len(set(names)) >= 15
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    for name in names:
        assert f"`{name}`" in text, name


@pytest.mark.skipif(
    os.environ.get("XDIST_BENCHMARK_TEST") == "0",
    reason="tests/run.py runs the benchmark smoke runs once per command, in its first NumPy "
    "1-rank run",
)
@pytest.mark.skipif(SIZE > 1, reason="the smoke run starts mpiexec itself, from one process")
def test_smoke_run(tmp_path):
    only = "standard_scaler,ridge,grid_search_ridge,pairwise_distances_argmin,stats_moments"
    only += ",fft_rfft_axis0,signal_lfilter"
    cmd = [sys.executable, str(ROOT / "benchmarks" / "pipelines.py"), "--rows", "400"]
    cmd += ["--rounds", "1", "--only", only, "--contenders", "numpy,xdist2"]
    cmd += ["--gather-elements", "0", "--json", str(tmp_path / "out.json")]
    plots = importlib.util.find_spec("matplotlib") is not None  # the bench extra
    if plots:
        cmd += ["--plot", str(tmp_path / "ratios.png")]
    # OPENBLAS_CORETYPE must not reach the contenders: they report what they saw
    env = outside_mpi_job()
    env["OPENBLAS_CORETYPE"] = "Haswell"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=110, env=env)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "every result agrees with NumPy's" in out, out
    for name in only.split(","):
        row = next(line for line in out.splitlines() if line.startswith(f"| {name} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[-1] == "ok", row
        assert cells[1] != "-" and cells[4] != "-", row  # NumPy and xdist-2 timed
    assert out.count("OPENBLAS_CORETYPE/L2_SIZE unset") == 2, out
    result = json.loads((tmp_path / "out.json").read_text())
    checks = result["checks"]
    # every collective reported, with the bytes the ranks sent; a split FFT along the
    # samples moves data, the elementwise-free check of a scaler's mean does not gather
    assert checks["fft_rfft_axis0"]["xdist2"]["bytes"] > 0
    assert checks["stats_moments"]["xdist2"]["collectives"].get("allreduce", 0) >= 1
    assert checks["standard_scaler"]["xdist2"]["gathers"] == 0
    # lfilter is NumPy code inside SciPy: the signal is gathered (every gather counted here)
    assert checks["signal_lfilter"]["xdist2"]["gathers"] >= 1
    if plots:
        assert (tmp_path / "ratios.png").read_bytes()[:4] == b"\x89PNG"
        assert "--rows 400" in (tmp_path / "ratios.txt").read_text()


@pytest.mark.skipif(
    os.environ.get("XDIST_BENCHMARK_TEST") == "0",
    reason="tests/run.py runs the benchmark smoke runs once per command, in its first NumPy "
    "1-rank run",
)
@pytest.mark.skipif(SIZE > 1, reason="the smoke run starts its processes itself")
def test_gpu_contenders_run_their_logic_on_the_cpu():
    """The GPU rows (Torch alone on the device, xdist's Torch backend with its blocks there)
    with ``--cuda-device cpu``: checked against NumPy, timed, and in their own table."""
    pytest.importorskip("torch")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "pipelines.py"), "--rows", "400"]
    cmd += ["--rounds", "1", "--only", "standard_scaler,ridge", "--cuda-device", "cpu"]
    cmd += ["--contenders", "numpy,torchcuda,xdist1cuda"]
    env = outside_mpi_job()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=110, env=env)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    assert "every result agrees with NumPy's" in out, out
    assert "| pipeline | Torch CUDA s | xdist-1 Torch-CUDA s | ratio |" in out, out
    for name in ("standard_scaler", "ridge"):
        rows = [line for line in out.splitlines() if line.startswith(f"| {name} |")]
        cells = [c.strip() for c in rows[-1].strip("|").split("|")]  # the GPU table's row
        assert len(cells) == 4 and all(float(c) > 0 for c in cells[1:]), rows[-1]
