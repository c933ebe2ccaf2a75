"""benchmarks/workloads.py: its NumPy references agree with scikit-learn, its checks reject a
wrong answer (``workloads_cases``), its contenders report what they ran
(``workloads_contenders``, ``workloads_report``), and a smoke run at a tiny scale checks every
contender and prints its tables.

The smoke run starts ``mpiexec`` itself, so it runs once per test command: ``tests/run.py``
sets ``XDIST_BENCHMARK_TEST=1`` in its first NumPy 1-rank run only (as for the packaging
test).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from benchmark_modules import load
from helpers import SIZE, outside_mpi_job

ROOT = Path(__file__).resolve().parents[2]
cases = load("workloads_cases")
contenders = load("workloads_contenders")
report = load("workloads_report")


def test_lloyd_by_hand_is_scikit_learns():
    from sklearn.cluster import KMeans

    d = cases.make_data("kmeans", 0.01)
    ref = cases.reference("kmeans", 0.01)["kmeans"]  # the data and the inertia
    km = KMeans(8, init=d["centers"], n_init=1, max_iter=30, tol=0.0).fit(d["X"])
    assert cases.error("kmeans", ref, km.cluster_centers_) <= cases.TOLERANCE["kmeans"]
    assert abs(cases.inertia(d["X"], km.cluster_centers_) - km.inertia_) < 1e-5 * km.inertia_
    # one iteration fewer is outside the tolerance
    fewer = cases.lloyd_numpy(d["X"], d["centers"], iters=km.n_iter_ - 1)
    assert cases.error("kmeans", ref, fewer) > cases.TOLERANCE["kmeans"]


def test_lasso_by_hand_is_scikit_learns():
    from sklearn.linear_model import Lasso

    d = cases.make_data("lasso", 0.01)
    ref = cases.lasso_numpy(d["X"], d["y"])
    for pre in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tol=0: "did not converge", by design
            m = Lasso(alpha=cases.LASSO_ALPHA, max_iter=cases.LASSO_EPOCHS, tol=0.0, precompute=pre)
            m.fit(d["X"], d["y"])
        got = np.concatenate([m.coef_, [m.intercept_]])
        assert cases.error("lasso", ref, got) <= cases.TOLERANCE["lasso"]
    assert cases.error("lasso", ref, ref * (1 + 1e-5)) > cases.TOLERANCE["lasso"]


def test_cdist_check():
    X = cases.make_data("cdist", 0.01)["X"]
    D = cases.cdist_numpy(X)
    exact = np.sqrt(((X[:, None].astype(np.float64) - X[None]) ** 2).sum(axis=-1))
    np.testing.assert_allclose(D, exact, atol=1e-2)
    assert cases.cdist_error(D, X, ..., ...) <= cases.TOLERANCE["cdist"]
    rows = slice(3, 40)  # a block of rows, as a rank holds it
    assert cases.cdist_error(D[rows], X, rows, slice(None)) <= cases.TOLERANCE["cdist"]
    assert cases.cdist_error(D * D, X, ..., ...) > cases.TOLERANCE["cdist"]
    assert cases.cdist_error(D[4:41], X, rows, slice(None)) > cases.TOLERANCE["cdist"]


def test_rows_made_anywhere_are_the_same():
    """A rank's rows are those of the whole data, whatever the cut (chunks of 4096 rows)."""
    for name in ("lasso", "cdist"):
        n = cases.sizes(0.25)[name][0]
        cuts = [0, 1, 4096, 4100, n]
        whole = cases.make_data(name, 0.25)
        parts = [cases.make_data(name, 0.25, a, b) for a, b in zip(cuts, cuts[1:])]
        for key in ("X", "y") if name == "lasso" else ("X",):
            np.testing.assert_array_equal(np.concatenate([p[key] for p in parts]), whole[key])


def test_lasso_contenders_report_their_epochs(capsys):
    """Each Lasso contender's result ends with the epochs it ran (scikit-learn's and xdist's
    ``n_iter_``; the NumPy descent runs them all), and the run names those that stopped
    early: with ``tol=0`` a sweep that changes nothing and a duality gap <= 0 in rounding
    stop the descent, and such a contender did less work than the others."""
    ops = contenders.peer_ops("sklearn", "lasso", 0.01)
    ref = cases.reference("lasso", 0.01)["lasso_gram"]
    for fn, summary in ops.values():
        with warnings.catch_warnings():  # tol=0: scikit-learn warns that it did not converge
            warnings.simplefilter("ignore")
            got = summary(fn())
        assert got.shape == (ref.shape[0] + 1,) and 1 <= got[-1] <= cases.LASSO_EPOCHS
        assert cases.error("lasso", ref, got[:-1]) <= cases.TOLERANCE["lasso"]
    fn, summary = contenders.peer_ops("numpy", "lasso", 0.01)["lasso_gram"]
    assert summary(fn())[-1] == cases.LASSO_EPOCHS
    report.report_epochs({"a": cases.LASSO_EPOCHS, "b": 8})
    report.report_epochs({"a": cases.LASSO_EPOCHS})
    report.report_epochs({"a": cases.LASSO_EPOCHS, "c": cases.LASSO_EPOCHS + 1})
    first, second, third = capsys.readouterr().out.splitlines()
    assert "but b 8 (" in first and " a " not in first
    assert second == f"- lasso: epochs run: all {cases.LASSO_EPOCHS}"
    assert third.endswith(f" (reported c {cases.LASSO_EPOCHS + 1})") and "but" not in third


@pytest.mark.parametrize("n", [0, 1, 5, 8192, 20001])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_the_heat_peer_makes_the_rows_an_xdist_rank_makes(n, size):
    """The ranks of xdist and HeAT (not installed here: it needs Python 3.12) make their rows
    by ``_balanced``: xdist's balanced rows, so both hold the same data as xdist lays it out."""
    from xdist import Layout

    for rank in range(size):
        want = Layout.balanced((n, 4), 0, size).local_slice(rank)[0]
        assert contenders._balanced(n, rank, size) == slice(want.start, want.stop)


@pytest.mark.skipif(
    os.environ.get("XDIST_BENCHMARK_TEST") == "0",
    reason="tests/run.py runs the benchmark smoke run once per command, in its first NumPy "
    "1-rank run",
)
@pytest.mark.skipif(SIZE > 1, reason="the smoke run starts mpiexec itself, from one process")
def test_smoke_run(tmp_path):
    cmd = [sys.executable, str(ROOT / "benchmarks" / "workloads.py"), "--scale", "0.005"]
    cmd += ["--rounds", "2", "--repeat", "1", "--only", "moments", "--peers", "numpy"]
    cmd += ["--xdist", "numpy:1,numpy:2", "--json", str(tmp_path / "times.json")]
    plots = importlib.util.find_spec("matplotlib") is not None  # the bench extra
    if plots:
        cmd += ["--plots", str(tmp_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "every result checked against NumPy's: all within tolerance" in out
    for case in ("mean all", "std all", "mean axis 0", "std axis 0"):
        assert f"| {case} | NumPy 1 thread |" in out
        assert f"| {case} | xdist numpy 1 rank |" in out
        assert f"| {case} | xdist numpy 2 ranks |" in out
    assert "| median s | per round | slowest / fastest call, worst round |" in out
    assert "### Best peer / xdist" in out
    if plots:
        for name in ("workloads_ratios.png", "workloads_scaling.png"):
            assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
            assert "--scale 0.005" in (tmp_path / name).with_suffix(".txt").read_text()


@pytest.mark.skipif(
    os.environ.get("XDIST_BENCHMARK_TEST") == "0",
    reason="tests/run.py runs the benchmark smoke runs once per command",
)
@pytest.mark.skipif(SIZE > 1, reason="one process is enough")
def test_gpu_script_runs_its_logic_on_the_cpu():
    """benchmarks/gpu.py (the four workloads on one GPU) with ``--device cpu``: every
    contender checked against NumPy, timed and tabulated, as it runs on a GPU."""
    pytest.importorskip("torch")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "gpu.py"), "--device", "cpu"]
    cmd += ["--contenders", "torch,xdist-torch", "--scale", "0.01", "--cdist-rows", "300"]
    cmd += ["--rounds", "1", "--repeat", "1"]
    env = outside_mpi_job()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "OFF" not in proc.stdout and "failed" not in proc.stdout, proc.stdout
    for op in ("kmeans", "lasso_gram", "lasso_residual", "std0", "cdist"):
        assert f"| {op} | xdist-torch |" in proc.stdout, proc.stdout
    # the host calls of a Lloyd iteration, counted for each contender
    calls = re.findall(r"kmeans (\S+): (\d+) host calls per Lloyd iteration", proc.stdout)
    assert {name for name, _ in calls} == {"torch", "xdist-torch"}, proc.stdout
    assert all(int(n) > 0 for _, n in calls), proc.stdout


@pytest.mark.skipif(
    os.environ.get("XDIST_BENCHMARK_TEST") == "0",
    reason="tests/run.py runs the benchmark smoke runs once per command",
)
@pytest.mark.skipif(SIZE > 1, reason="the smoke run starts mpiexec itself, from one process")
def test_reductions_script_checks_and_times_every_case():
    """benchmarks/reductions.py at a tiny size: xdist fused and eager (2 ranks) checked
    against NumPy and timed on every case, with their ratios."""
    cmd = [sys.executable, str(ROOT / "benchmarks" / "reductions.py"), "--rows", "300"]
    cmd += ["--cols", "40", "--rounds", "1", "--repeat", "1"]
    cmd += ["--contenders", "numpy,xdist,xdist-eager"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=outside_mpi_job())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "FAILED" not in proc.stdout, proc.stdout
    assert "| case | numpy s | xdist s | xdist-eager s | numpy / xdist | xdist-eager / xdist |" in (
        proc.stdout
    )
    for case in ("sum((a - b) ** 2)", "sum((a - b) ** 2, axis=0)", "max(abs(a - b))"):
        row = next(line for line in proc.stdout.splitlines() if line.startswith(f"| {case} |"))
        cells = [c.strip() for c in row.strip("|").split("|")[1:]]
        assert len(cells) == 5 and all(float(c) > 0 for c in cells), row


@pytest.mark.skipif(SIZE > 1, reason="one process plays every rank of its stand-in")
def test_python_at_scale_runs_every_operation(capsys):
    """benchmarks/python_at_scale.py: every operation runs on its stand-in communicator at
    8 and 64 ranks (below the sort's distributed splitters) and gets a time."""
    module = load("python_at_scale")
    argv = sys.argv
    sys.argv = ["python_at_scale.py", "--ranks", "8,64", "--repeat", "1"]
    try:
        module.main()
    finally:
        sys.argv = argv
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| `")]
    assert len(rows) == len(module.OPERATIONS)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert all(c.isdigit() for c in cells[1:]), row
