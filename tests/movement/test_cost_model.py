"""The cost model of docs/scaling.md (benchmarks/cost_model.py) against the collectives, bytes
and messages the transport counts for the real operations, family by family, at the rank
count of the run: the model's busiest rank must be the counted busiest rank exactly."""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import COMM, distribute

import xdist
import xdist._ops.sample_sort as sample_sort_module
import xdist.linalg._tsqr as tsqr_module
from xdist.ml.cluster import KMeans
from xdist.ml.linear_model import Lasso

_SPEC = importlib.util.spec_from_file_location(
    "cost_model", Path(__file__).resolve().parents[2] / "benchmarks" / "cost_model.py"
)
cm = importlib.util.module_from_spec(_SPEC)
sys.modules["cost_model"] = cm  # its dataclasses look their module up
_SPEC.loader.exec_module(cm)

P = COMM.size
F64 = 8


def counted(fn, *, bytes_of: tuple[str, ...] | None = None) -> dict:
    """The busiest rank's (calls, bytes, messages) by kind while ``fn()`` runs, as the model
    gives them (``bytes_of``: compare bytes only for these kinds, the others set to 0)."""
    with xdist.count_collectives() as c:
        fn()
    mine = []
    for k in cm.KINDS:
        nbytes = c.bytes[k] if bytes_of is None or k in bytes_of else 0
        mine += [c[k], nbytes, c.messages[k]]
    table = COMM.allgather_ints(mine).reshape(P, len(cm.KINDS), 3).max(axis=0)
    return {
        k: cm.Traffic(*(int(v) for v in table[i])) for i, k in enumerate(cm.KINDS) if table[i].any()
    }


def rng_matrix(n, m, dtype="float64", seed=0):
    return np.random.default_rng(seed).standard_normal((n, m)).astype(dtype)


def test_balanced_counts_are_xdists():
    for n in (0, 1, 7, 30):
        assert tuple(cm.balanced(n, P)) == xdist.Layout.balanced((n,), 0, P).counts


# -- elementwise, moves ------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(12, 10), (7, 5), (2, 9)])
def test_elementwise_and_resplit(shape):
    a, b = rng_matrix(*shape), rng_matrix(*shape, seed=1)
    x0, y0, y1 = distribute(a, 0), distribute(b, 0), distribute(b, 1)
    assert counted(lambda: x0 + y0) == cm.elementwise(P, shape, F64) == {}
    assert counted(lambda: x0 + y1) == cm.elementwise(P, shape, F64, realign=True)
    assert counted(lambda: xdist.resplit(y1, 0)) == cm.resplit(P, shape, F64)
    assert counted(lambda: xdist.resplit(x0, None)) == cm.gather(P, shape, F64)


# -- reductions and scans ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32"])
def test_reductions(dtype):
    g = (rng_matrix(9, 6) * 10).astype(dtype)
    x = distribute(g, 0)
    s = np.dtype(dtype).itemsize
    sum_bytes = xdist.sum(x, axis=0).dtype.itemsize  # the sum's dtype (int32 sums to int64)
    assert counted(lambda: xdist.sum(x, axis=0)) == cm.reduction(P, 6, sum_bytes)
    assert counted(lambda: xdist.max(x, axis=0)) == cm.reduction(P, 6, s)
    if dtype != "int32":
        assert counted(lambda: xdist.mean(x)) == cm.reduction(P, 1, 8)
        assert counted(lambda: xdist.mean(x, axis=0)) == cm.reduction(P, 6, 8)
        assert counted(lambda: xdist.std(x)) == cm.reduction(P, 1, 32)
        assert counted(lambda: xdist.std(x, axis=0)) == cm.reduction(P, 6, 32)
    assert counted(lambda: xdist.mean(x, axis=1) if dtype != "int32" else x[:, 0]) == {}
    v = distribute(g[:, 0], 0)
    assert counted(lambda: xdist.argmax(v)) == cm.reduction(P, 1, 24)
    assert counted(lambda: xdist.cumulative_sum(x, axis=0)) == cm.cumulative_sum(
        P, g.shape, xdist.cumulative_sum(x, axis=0).dtype.itemsize
    )


# -- sample sort -------------------------------------------------------------------------------
@pytest.mark.parametrize("gathered", [cm.GATHERED_SAMPLES, 0], ids=["gathered", "over-ranks"])
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_sort(monkeypatch, dtype, gathered):
    """Both ways of finding the splitters: the samples gathered on every rank, and (as past
    256 ranks) sorted over the ranks, forced here by no room for gathered samples."""
    assert cm.GATHERED_SAMPLES == sample_sort_module.GATHERED_SAMPLES
    monkeypatch.setattr(sample_sort_module, "GATHERED_SAMPLES", gathered)
    n = 30
    g = np.arange(n, 0, -1).astype(dtype)  # reversed: every block goes to its mirrored range
    x = distribute(g, 0)
    want = cm.sort(P, n, g.itemsize, "reversed", gathered)
    assert counted(lambda: xdist.sort(x)) == want
    sorted_ = distribute(np.sort(g), 0)  # in order already: nothing leaves any rank
    assert counted(lambda: xdist.sort(sorted_)) == cm.sort(P, n, g.itemsize, "sorted", gathered)


def test_unique_and_median():
    n = 30
    g = np.arange(n, 0, -1).astype("float64")  # distinct and reversed
    x = distribute(g, 0)
    assert counted(lambda: xdist.unique_values(x)) == cm.unique_values(P, n, 8, "reversed")
    with xdist.config_context(gather_warning_elements=0):
        sorted_ = counted(lambda: xdist.unique_values(x))
    assert sorted_ == cm.unique_values(P, n, 8, "reversed", whole_at_most=0)
    assert counted(lambda: xdist.median(x)) == cm.median(P, n, 8, "reversed")


# -- matmul ------------------------------------------------------------------------------------
def test_matmul_plans():
    X = distribute(rng_matrix(60, 4), 0)
    W = distribute(rng_matrix(4, 3), None)
    assert counted(lambda: X @ W) == cm.matmul_rows_replicated(P) == {}
    Y = distribute(rng_matrix(60, 2), 0)
    assert counted(lambda: xdist.matrix_transpose(X) @ Y) == cm.matmul_contraction(P, 4, 2, F64)
    assert counted(lambda: xdist.matrix_transpose(X) @ X) == cm.matmul_contraction(P, 4, 4, F64)
    A, B = distribute(rng_matrix(12, 12), 0), distribute(rng_matrix(12, 5), 0)
    with xdist.config_context(gather_warning_elements=16):  # B may not be gathered
        assert counted(lambda: A @ B) == cm.matmul_ring(P, 12, 5, F64)


# -- indexing ----------------------------------------------------------------------------------
def test_indexing():
    g = rng_matrix(12, 5)
    x = distribute(g, 0)
    assert counted(lambda: x[2:9]) == {}
    assert counted(lambda: x[5]) == cm.index_int(P, g.shape, F64)
    assert counted(lambda: x[::-1]) == cm.index_reversed(P, g.shape, F64)
    wanted = [11, 0, 5, 3, 3, 8, 1, 10, 2]
    idx = distribute(np.array(wanted), 0)
    assert counted(lambda: xdist.take(x, idx, axis=0)) == cm.index_take(P, g.shape, F64, wanted)
    mask = distribute(g[:, 0] > 0, 0)
    assert counted(lambda: x[mask]) == cm.index_mask(P)


# -- linalg, fft -------------------------------------------------------------------------------
def conditioned_matrix(rows, cols, cond, seed=0):
    """Random first ``cols`` rows over rows whose singular values run from 1 to ``1 / cond``
    (the rows Cholesky QR factors), where there are at least ``cols`` of them."""
    rng = np.random.default_rng(seed)
    below = rng.standard_normal((rows - cols, cols))
    if rows >= 2 * cols:
        below = np.linalg.qr(below)[0] * np.geomspace(1, 1 / cond, cols)
    return np.concatenate([rng.standard_normal((cols, cols)), below])


@pytest.mark.parametrize("cholesky", ["one_pass", "cholesky", "householder"])
@pytest.mark.parametrize("stacked", [cm.STACKED_ELEMENTS, 0], ids=["stacked", "tree"])
@pytest.mark.parametrize("rows", [40, 9, 5])
def test_tsqr(monkeypatch, rows, stacked, cholesky):
    """Cholesky QR's Gram matrices (one of them for rows conditioned within
    ``_ONE_PASS_LIMIT``, two for rows conditioned 100) and Householder's R factors, each
    both ways: stacked on every rank, and (as for ``p N^2`` above ``STACKED_ELEMENTS``,
    forced here) reduced by an allreduce (Cholesky) or combined up a binary tree
    (Householder)."""
    assert cm.STACKED_ELEMENTS == tsqr_module.STACKED_ELEMENTS
    monkeypatch.setattr(tsqr_module, "STACKED_ELEMENTS", stacked)
    if cholesky == "householder":
        monkeypatch.setattr(tsqr_module, "cholesky_proxy", lambda *args: None)
    one_pass = cholesky == "one_pass"
    T = distribute(conditioned_matrix(rows, 3, 2.0 if one_pass else 100.0), 0)
    want = cm.tsqr(P, rows, 3, F64, stacked, cholesky != "householder", one_pass)
    assert counted(lambda: xdist.linalg.qr(T)) == want
    assert counted(lambda: xdist.linalg.svd(T, full_matrices=False)) == want


def test_solve():
    A = distribute(rng_matrix(6, 6) + 6 * np.eye(6), 0)
    b = distribute(np.ones((6, 2)), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xdist.GatherWarning)
        assert counted(lambda: xdist.linalg.solve(A, b)) == cm.solve(P, 6, 2, F64)


def test_fft_split_axis():
    x = distribute(rng_matrix(10, 16), 0)  # 16 columns: axis 1 can take the split up to 16
    assert counted(lambda: xdist.fft.fft(x, axis=0)) == cm.fft_split(P, (10, 16), 16)
    assert counted(lambda: xdist.fft.fft(x, axis=1)) == {}


# -- io, random --------------------------------------------------------------------------------
def test_io_npy(tmp_path_factory):
    pytest.importorskip("h5py")  # the io extra
    folder = tempfile.mkdtemp() if COMM.rank == 0 else None
    if P > 1:
        folder = COMM.mpi_comm.bcast(folder)
    path = os.path.join(folder, "x.npy")
    x = distribute(rng_matrix(12, 5), 0)
    assert counted(lambda: xdist.io.save(x, path), bytes_of=("allgather",)) == cm.io_npy(P, True)
    assert counted(lambda: xdist.io.load(path), bytes_of=("allgather",)) == cm.io_npy(P, False)


def test_random():
    check = xdist.get_config().check_replicated  # the test command sets it
    draw = cm.random_draw(P, seeded=True, check_replicated=check)
    assert counted(lambda: xdist.random.default_rng(3).standard_normal((10, 3))) == draw
    assert counted(lambda: xdist.random.default_rng()) == cm.random_draw(P, seeded=False)


# -- the workloads -----------------------------------------------------------------------------
@pytest.mark.parametrize("select", [True, False])
@pytest.mark.parametrize("iterations", [3, 5])
def test_kmeans(monkeypatch, iterations, select):
    """Both Lloyd paths: selections of the moved samples (blocks in host memory) and the
    full product with a count (blocks on a GPU; forced here either way)."""
    from xdist.ml import cluster

    monkeypatch.setattr(cluster, "_reads_on_host", lambda X: select)
    X = rng_matrix(600, 6, "float32")
    Xs = distribute(X, 0)
    fit = KMeans(n_clusters=4, init=X[:4].copy(), n_init=1, max_iter=iterations, tol=0.0)
    got = counted(lambda: fit.fit(Xs))
    assert fit.n_iter_ == iterations  # the model assumes every iteration runs
    check = xdist.get_config().check_replicated
    assert got == cm.kmeans(P, 4, 6, 4, iterations, check_replicated=check, select=select)


@pytest.mark.parametrize("gram", [True, False])
@pytest.mark.parametrize("d", [7, 4, 40])
def test_lasso(gram, d):
    """d = 40: three blocks of coordinates, on strongly correlated columns so that every
    block's coefficients change in every sweep (the model's upper bound is then exact)."""
    g = np.random.default_rng(0)
    X = g.standard_normal((300, d))
    if d > 16:
        X = X * 0.05 + g.standard_normal((300, 1))
    y = X @ g.standard_normal(d) + 0.1 * g.standard_normal(300)
    Xs, ys = distribute(X, 0), distribute(y, 0)
    alpha = 0.1 if d <= 16 else 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tol=0 never converges
        fit = Lasso(alpha=alpha, max_iter=4, tol=0.0, precompute=gram)
        got = counted(lambda: fit.fit(Xs, ys))
    assert fit.n_iter_ == 4
    assert got == cm.lasso(P, d, 4, gram, check_replicated=xdist.get_config().check_replicated)


def test_cdist_expression():
    a = distribute(rng_matrix(60, 5, "float32"), 0)

    def cdist():
        sq = xdist.sum(a * a, axis=1)
        return sq[:, None] + sq[None, :] - 2 * (a @ a.T)

    assert counted(cdist) == cm.cdist_expression(P, 60, 5, 4)
    with xdist.config_context(gather_warning_elements=100):  # a.T (300) may not be gathered
        assert counted(cdist) == cm.cdist_expression(P, 60, 5, 4, budget=100)


def test_network_prices_nothing_at_one_rank():
    net = cm.Network()
    assert net.seconds(cm.kmeans(1, 8, 64, 4, 30), 1) == 0.0
    many = net.seconds(cm.kmeans(64, 8, 64, 4, 30), 64)
    assert 0 < many < net.seconds(cm.kmeans(4096, 8, 64, 4, 30), 4096)
