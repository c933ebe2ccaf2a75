"""The contenders of ``benchmarks/workloads.py``, inside their processes: the peer libraries
(NumPy by hand, scikit-learn, oneDAL, Torch, JAX) and xdist, each workload's operations in each, and
the command loop of a contender's process (``serve``).

A peer's process holds the whole data; an xdist job's rank holds its own rows only, as does
a rank of the HeAT job (``heat_ops``: HeAT, the other MPI array library, at 2 ranks of one
Torch thread each, from the Python that ``--heat-python`` names). Each
operation comes with the summary the driver checks: a small result as NumPy, or, for the
distances, the error of the process's own block (``workloads_cases.cdist_error``).
"""

from __future__ import annotations

import gc
import os
import traceback

import numpy as np
from harness import answer, blas_report, command, median, timed_calls
from workloads_cases import (
    KMEANS_ITERS,
    KMEANS_K,
    LASSO_ALPHA,
    LASSO_EPOCHS,
    cdist_error,
    cdist_expression,
    cdist_numpy,
    host,
    lasso_numpy,
    lloyd_numpy,
    make_data,
    sizes,
)

PEER_GROUPS = ("numpy", "sklearn", "onedal", "torch", "jax", "heat")
# threads per process; HeAT's job has HEAT_RANKS processes of one thread each
PEER_THREADS = {"numpy": 1, "sklearn": 2, "onedal": 2, "torch": 2, "jax": 2, "heat": 1}
HEAT_RANKS = 2


def _with_epochs(coef) -> np.ndarray:
    """The NumPy Gram descent's coefficients and intercept, then its epochs (all of them)."""
    return np.append(coef, LASSO_EPOCHS)


def _estimator_ops(workload: str, d: dict, cluster: str, linear_model: str) -> dict:
    """The k-means or Lasso op of a scikit-learn-compatible library: its ``KMeans`` from
    module ``cluster``, its ``Lasso`` from module ``linear_model``."""
    import importlib

    X = d["X"]
    if workload == "kmeans":
        KMeans = importlib.import_module(cluster).KMeans
        km = {"init": d["centers"], "n_init": 1, "max_iter": KMEANS_ITERS, "tol": 0.0}

        def kmeans():
            return KMeans(KMEANS_K, algorithm="lloyd", **km).fit(X).cluster_centers_

        return {"kmeans": (kmeans, host)}
    if workload == "lasso":
        Lasso = importlib.import_module(linear_model).Lasso

        def lasso(pre):
            m = Lasso(alpha=LASSO_ALPHA, max_iter=LASSO_EPOCHS, tol=0.0, precompute=pre)
            m.fit(X, d["y"])
            return np.concatenate([m.coef_, [m.intercept_, m.n_iter_]])

        return {
            "lasso_gram": (lambda: lasso(True), host),
            "lasso_residual": (lambda: lasso(False), host),
        }
    return {}


def peer_ops(group: str, workload: str, scale: float) -> dict:
    """op -> (function, result as NumPy) of one peer library for one workload."""
    d = make_data(workload, scale)
    X = d["X"]
    ops = {}
    if group == "numpy":
        if workload == "kmeans":
            ops["kmeans"] = (lambda: lloyd_numpy(X, d["centers"]), host)
        elif workload == "lasso":
            ops["lasso_gram"] = (lambda: lasso_numpy(X, d["y"]), _with_epochs)
        elif workload == "moments":
            ops |= {
                "mean": (lambda: X.mean(), host),
                "std": (lambda: X.std(), host),
                "mean0": (lambda: X.mean(axis=0), host),
                "std0": (lambda: X.std(axis=0), host),
            }
        else:
            ops["cdist"] = (lambda: cdist_numpy(X), lambda D: cdist_error(D, X, ..., ...))
    elif group == "sklearn":
        ops |= _estimator_ops(workload, d, "sklearn.cluster", "sklearn.linear_model")
    elif group == "onedal":  # oneDAL through scikit-learn-intelex (KMeans) and daal4py (Lasso)
        ops |= _estimator_ops(workload, d, "sklearnex.cluster", "daal4py.sklearn.linear_model")
    elif group == "torch":
        import torch

        T = torch.from_numpy(X)
        if workload == "moments":
            ops |= {
                "mean": (lambda: torch.mean(T), host),
                "std": (lambda: torch.std(T, correction=0), host),
                "mean0": (lambda: torch.mean(T, dim=0), host),
                "std0": (lambda: torch.std(T, dim=0, correction=0), host),
            }
        elif workload == "cdist":
            ops["cdist"] = (
                lambda: torch.cdist(T, T),
                lambda D: cdist_error(D.numpy(), X, ..., ...),
            )
    elif group == "jax":
        import jax
        import jax.numpy as jnp

        J = jax.device_put(X)
        if workload == "kmeans":
            step = jax.jit(_jax_lloyd, static_argnums=2)
            C = jax.device_put(d["centers"])
            ops["kmeans"] = (lambda: step(J, C, KMEANS_ITERS).block_until_ready(), host)
        elif workload == "moments":
            fns = {
                "mean": jax.jit(lambda a: jnp.mean(a)),
                "std": jax.jit(lambda a: jnp.std(a)),
                "mean0": jax.jit(lambda a: jnp.mean(a, axis=0)),
                "std0": jax.jit(lambda a: jnp.std(a, axis=0)),
            }
            ops |= {k: (lambda f=f: f(J).block_until_ready(), host) for k, f in fns.items()}
        elif workload == "cdist":
            f = jax.jit(_jax_cdist)
            ops["cdist"] = (
                lambda: f(J).block_until_ready(),
                lambda D: cdist_error(np.asarray(D), X, ..., ...),
            )
    return ops


def _jax_lloyd(X, c, iters):
    import jax
    import jax.numpy as jnp

    def body(_, c):
        labels = jnp.argmin(jnp.sum(c * c, axis=1) - 2 * (X @ c.T), axis=1)
        onehot = jax.nn.one_hot(labels, c.shape[0], dtype=X.dtype)
        counts = onehot.sum(axis=0)
        sums = onehot.T @ X
        return jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts, 1)[:, None], c)

    return jax.lax.fori_loop(0, iters, body, c)


def _jax_cdist(X):
    import jax.numpy as jnp

    sq = jnp.sum(X * X, axis=1)
    return jnp.sqrt(jnp.maximum(sq[:, None] + sq[None, :] - 2 * (X @ X.T), 0))


def _moment_ops(lib, X) -> dict:
    """The moments' ops of a library whose ``mean`` and ``std`` take ``axis`` (the standard's
    and HeAT's; the population std by default)."""
    return {
        "mean": (lambda: lib.mean(X), host),
        "std": (lambda: lib.std(X), host),
        "mean0": (lambda: lib.mean(X, axis=0), host),
        "std0": (lambda: lib.std(X, axis=0), host),
    }


def _balanced(n: int, rank: int, size: int) -> slice:
    """This rank's rows of ``n`` in balanced blocks (the first ``n % size`` ranks one more),
    as xdist's ``Layout.balanced`` places them, for the ranks of xdist and of HeAT alike (which
    has no xdist to ask; ``is_split=0`` keeps a rank's rows where they are)."""
    start = rank * (n // size) + min(rank, n % size)
    return slice(start, start + n // size + (rank < n % size))


def heat_ops(workload: str, scale: float) -> dict:
    """op -> (function, result as NumPy) of HeAT for one workload, this rank's rows (split 0):
    the moments and the distances (HeAT's ``KMeans`` and ``Lasso`` take 18 s and 9 s at 2
    ranks here: one-off numbers in docs/benchmarks.md, not rows of the run)."""
    import heat as ht
    import torch

    comm = ht.MPI_WORLD
    rows = _balanced(sizes(scale)[workload][0], comm.rank, comm.size)
    d = make_data(workload, scale, rows.start, rows.stop)
    X = ht.array(torch.from_numpy(d["X"]), is_split=0)
    ops = {}
    if workload == "moments":
        ops |= _moment_ops(ht, X)
    elif workload == "cdist":
        Xall = make_data(workload, scale)["X"]  # for the check: 20000 x 18 is small

        def error(D):
            return cdist_error(D.larray.numpy(), Xall, rows, ...)

        ops["cdist"] = (lambda: ht.spatial.cdist(X, X), error)
    return ops


def xdist_ops(workload: str, scale: float) -> dict:
    """op -> (function, result as NumPy) of xdist for one workload, this rank's rows."""
    import xdist

    comm = xdist.default_comm()
    rows = _balanced(sizes(scale)[workload][0], comm.rank, comm.size)
    d = make_data(workload, scale, rows.start, rows.stop)
    X = xdist.from_local(d["X"], split=0)
    ops = {}
    if workload == "kmeans":
        from xdist.ml import KMeans

        km = {"init": d["centers"], "n_init": 1, "max_iter": KMEANS_ITERS, "tol": 0.0}
        ops["kmeans"] = (lambda: KMeans(KMEANS_K, **km).fit(X).cluster_centers_, host)
    elif workload == "lasso":
        from xdist.ml import Lasso

        y = xdist.from_local(d["y"], split=0)

        def lasso(pre):
            m = Lasso(alpha=LASSO_ALPHA, max_iter=LASSO_EPOCHS, tol=0.0, precompute=pre)
            return m.fit(X, y)

        def coef(m):  # and the epochs run, last
            values = [host(m.coef_).ravel(), host(m.intercept_).ravel(), [m.n_iter_]]
            return np.concatenate(values)

        ops["lasso_gram"] = (lambda: lasso(True), coef)
        ops["lasso_residual"] = (lambda: lasso(False), coef)
        ops["lasso_auto"] = (lambda: lasso("auto"), coef)
    elif workload == "moments":
        ops |= _moment_ops(xdist, X)
    else:
        import sklearn
        from sklearn.metrics import pairwise_distances

        def expression():
            return cdist_expression(xdist, X)

        def through_sklearn():
            with sklearn.config_context(array_api_dispatch=True):
                return pairwise_distances(X)

        Xall = make_data(workload, scale)["X"]  # for the check: 20000 x 18 is small

        def error(D):
            box = D.layout.local_slice(comm.rank)
            local = D.local
            local = local.numpy() if hasattr(local, "numpy") else np.asarray(local)
            return cdist_error(local, Xall, box[0], box[1])

        ops["cdist"] = (expression, error)
        ops["cdist_sklearn"] = (through_sklearn, error)
    return ops


def serve(kind: str) -> None:
    """A contender's process: commands as JSON lines on stdin (rank 0's, under mpiexec),
    answers as ``harness.PREFIX`` + JSON lines on stdout (rank 0's)."""
    mpi = None
    if kind not in ("xdist", "heat") and hasattr(os, "sched_setaffinity"):
        # a multi-threaded peer gets as many CPUs as its threads, pinned before its library
        # is imported (JAX's thread pool follows the CPUs the process may use); a one-thread
        # peer, as the ranks of xdist and HeAT, is left to the scheduler
        cpus = sorted(os.sched_getaffinity(0))
        if 1 < PEER_THREADS[kind] < len(cpus):
            os.sched_setaffinity(0, cpus[: PEER_THREADS[kind]])
    if kind in ("xdist", "heat"):  # an mpiexec job: rank 0 speaks for it
        from mpi4py import MPI

        mpi = MPI.COMM_WORLD
    if kind == "xdist":
        import xdist  # noqa: F401  (imported before anything is timed)
    elif kind == "heat":
        import heat  # noqa: F401
        import torch

        torch.set_num_threads(PEER_THREADS["heat"])  # (Torch under mpiexec: set, not read)
    elif kind == "torch":
        import torch

        torch.set_num_threads(PEER_THREADS["torch"])
    elif kind == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
    elif kind == "onedal":
        import daal4py

        daal4py.daalinit(PEER_THREADS["onedal"])  # oneDAL's own (TBB) threads
    import warnings

    warnings.simplefilter("ignore")
    ops, results = {}, {}
    while True:
        msg = command(mpi)
        reply: dict = {}
        try:
            if msg["cmd"] == "quit":
                break
            if msg["cmd"] == "setup":
                ops, results = {}, {}
                gc.collect()
                if kind == "xdist":
                    ops = xdist_ops(msg["workload"], msg["scale"])
                elif kind == "heat":
                    ops = heat_ops(msg["workload"], msg["scale"])
                else:
                    ops = peer_ops(kind, msg["workload"], msg["scale"])
                for op, (fn, summary) in list(ops.items()):
                    try:
                        got = summary(fn())  # the first call: compiles, warms, is checked
                        if kind == "xdist":  # (its loops compile at a chain's second run)
                            fn()
                        if msg["workload"] == "cdist" and mpi is not None:
                            got = mpi.allreduce(got, op=MPI.MAX)
                        results[op] = np.asarray(got).tolist()
                    except Exception:  # this op only; xdist raises alike on every rank
                        results[op] = {"error": traceback.format_exc(limit=4)}
                        del ops[op]
                reply = {"results": results, "threads": _threads(kind)}
            elif msg["cmd"] == "time":
                calls = timed_calls(ops[msg["op"]][0], msg["repeat"], mpi)
                reply = {"time": median(calls), "spread": max(calls) / min(calls)}
            elif msg["cmd"] == "free":
                ops, results = {}, {}
                gc.collect()
        except Exception:  # reported to the driver, which marks the contender failed
            reply = {"error": traceback.format_exc(limit=4)}
        answer(mpi, reply)


def _threads(kind: str) -> str:
    """The thread settings in effect, as this process sees them."""
    out = f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}"
    if kind in ("torch", "heat") or (
        kind == "xdist" and os.environ.get("XDIST_BACKEND") == "torch"
    ):
        import torch

        out += f", torch.get_num_threads()={torch.get_num_threads()}"
    if kind == "onedal":
        import importlib.metadata

        import daal4py

        out += f", daal4py {importlib.metadata.version('daal4py')} "
        out += f"({daal4py.num_threads()} threads, scikit-learn "
        out += f"{importlib.metadata.version('scikit-learn')})"
    if hasattr(os, "sched_getaffinity"):
        out += f", CPUs {len(os.sched_getaffinity(0))}"
    return out + "; " + blas_report(kind)
