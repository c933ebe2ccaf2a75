"""The HeAT paper's machine-learning workloads at this machine's scale: xdist.ml at 1 and 2
ranks (one thread per rank) against scikit-learn (2 threads) / NumPy, in the same run.

    python benchmarks/ml.py [--ranks 1,2] [--repeat 3] [--rounds 1] [--scale 1.0]

- k-means: 200000 x 64 float32, k=8, 30 Lloyd iterations (tol=0, max_iter=30), the same
  initial centers for everyone;
- Lasso: 100000 x 100 float64, alpha=0.1: 20 coordinate-descent epochs (tol=0, max_iter=20)
  and to convergence at tol=1e-4; xdist uses precompute="auto" (the Gram matrix, formed by
  reductions once), scikit-learn its default (residual updates);
- moments: mean and std along axis 0 of an 8192 x 8192 float64 array.

The driver times scikit-learn/NumPy itself (threadpoolctl limits BLAS/OpenMP to 2 threads),
then runs this file under ``mpiexec -n R`` for each R with OMP_NUM_THREADS=1; every rank
builds the same data from the same seed and keeps its block of samples. Times are the
median of ``--repeat`` runs (ranks synchronized before each). With ``--rounds N`` all of
that is done N times in turn (the load of a shared machine drifts over a run: each side of
a ratio then sees the same drift), each round's ratios are printed, and the tables hold the
median over rounds of each time. It prints seconds and the
ratios reference / xdist (above 1: xdist faster) and 1 rank / 2 ranks. Then CPU seconds
(``time.process_time``), which a shared, loaded machine disturbs less than wall-clock times:
the total over the reference's threads and over xdist's ranks (their ratio compares the
work done), and 1 rank's CPU over the busiest of 2 ranks' (the speedup 2 ranks can reach).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

SEED = 0
BY_HAND = "kmeans by hand (NumPy + mpi4py)"


def _sizes(scale: float) -> dict[str, tuple[int, int]]:
    def rows(n):
        return max(16, int(n * scale))

    return {"kmeans": (rows(200000), 64), "lasso": (rows(100000), 100), "moments": (8192, 8192)}


def _data(name: str, shape):
    import numpy as np

    rng = np.random.default_rng(SEED)
    if name == "kmeans":
        # Unclustered data: Lloyd keeps moving labels, so all 30 iterations run.
        X = rng.standard_normal(shape, dtype=np.float32)
        return X, X[rng.choice(shape[0], 8, replace=False)].copy()
    if name == "lasso":
        X = rng.standard_normal(shape)
        w = np.zeros(shape[1])
        w[:10] = rng.uniform(-5, 5, 10)
        return X, X @ w + rng.standard_normal(shape[0])
    return rng.standard_normal(shape), None


def _median(fn, repeat: int, sync=None) -> tuple[float, float]:
    """Median wall-clock and CPU seconds of ``repeat`` calls."""
    times, cpus = [], []
    for _ in range(repeat):
        if sync is not None:
            sync()
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c0)
        if sync is not None:
            sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), statistics.median(cpus)


def _workloads(lib: str, args):
    """{name: zero-argument function} for lib 'ref' (scikit-learn/NumPy) or 'xdist'."""
    import numpy as np

    sizes = _sizes(args.scale)
    Xk, centers = _data("kmeans", sizes["kmeans"])
    Xl, yl = _data("lasso", sizes["lasso"])
    Xm, _ = _data("moments", sizes["moments"])
    if lib == "ref":
        from sklearn.cluster import KMeans
        from sklearn.linear_model import Lasso

        def moments():
            return np.mean(Xm, axis=0), np.std(Xm, axis=0)

    else:
        import xdist
        from xdist.ml import stats
        from xdist.ml.cluster import KMeans
        from xdist.ml.linear_model import Lasso

        comm = xdist.default_comm()

        def local(a):
            return np.array(a[xdist.Layout.balanced(a.shape, 0, comm.size).local_slice(comm.rank)])

        def split(a):
            return xdist.from_local(local(a), split=0)

        n_k, Xk_local = len(Xk), local(Xk)
        Xk, yl, Xl, Xm = split(Xk), split(yl), split(Xl), split(Xm)

        def moments():
            return stats.mean(Xm, 0), stats.std(Xm, 0)

    pre = {"precompute": "auto"} if lib == "xdist" else {}
    km = {"n_clusters": 8, "init": centers, "n_init": 1, "max_iter": 30, "tol": 0.0}
    work = {"kmeans (30 iter)": lambda: KMeans(**km).fit(Xk)}
    if lib == "xdist":  # its reference is scikit-learn's k-means, timed once
        work[BY_HAND] = lambda: _kmeans_by_hand(Xk_local, centers, n_k)
    return work | {
        "lasso (20 epochs)": lambda: Lasso(alpha=0.1, max_iter=20, tol=0.0, **pre).fit(Xl, yl),
        "lasso (tol=1e-4)": lambda: Lasso(alpha=0.1, tol=1e-4, **pre).fit(Xl, yl),
        "moments (mean+std)": moments,
    }


def _kmeans_by_hand(X, centers, n_total: int, max_iter: int = 30):
    """xdist's k-means algorithm written by hand in NumPy + mpi4py on this rank's samples:
    the cost of the algorithm itself, without xdist. The same steps (centered ``[X, 1]``, one
    matmul per iteration, the argmin by whole-array passes over the transposed scores, the
    statistics updated from the samples that changed cluster, selected by ``compress`` as
    xdist's NumPy backend selects them, the final assignment and the inertia from its scores
    where that is accurate) and one allreduce per iteration (statistics and count moved
    together)."""
    import numpy as np
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    k, d = centers.shape
    mean = comm.allreduce(X.sum(axis=0, dtype=np.float64)) / n_total
    Xa = np.concatenate([X - mean.astype(X.dtype), np.ones((len(X), 1), X.dtype)], axis=1)
    c = (centers - mean).astype(X.dtype)
    ids = np.arange(k)[:, None]
    weights = np.arange(k, 0, -1, dtype=np.int8)[:, None]

    def assign(c):
        scores = Xa @ np.concatenate([-2 * c, (c * c).sum(axis=1)[:, None]], axis=1).T
        v = np.ascontiguousarray(scores.T)
        best = v.min(axis=0)
        return (k - ((v == best) * weights).max(axis=0)).astype(np.int64), best

    old, stats = None, 0
    for i in range(max_iter):
        labels, _ = assign(c)
        part = np.zeros((k, d + 2), X.dtype)  # the statistics, and the count moved in [0, -1]
        if old is None:
            part[:, :-1] = (ids == labels).astype(X.dtype) @ Xa
        else:
            changed = labels != old
            pairs = np.compress(changed, labels * k + old)  # compress: as xdist's backend
            delta = (ids == pairs // k).astype(X.dtype) - (ids == pairs % k)
            part[:, :-1] = delta @ np.compress(changed, Xa, axis=0)
            part[0, -1] = len(pairs)
        total = comm.allreduce(part)
        stats = stats + total[:, :-1]
        c, old = stats[:, :d] / stats[:, d:], labels
        if i > 0 and total[0, -1] == 0:
            break
    labels, best = assign(c)
    x_sq = np.vecdot(Xa[:, :d], Xa[:, :d])
    sums = comm.allreduce(np.array([(x_sq + best).sum(), x_sq.sum()]))
    if sums[0] > 0 and sums[1] + n_total * (c * c).sum(axis=1).max() <= 8 * sums[0]:
        return float(sums[0])
    diff = Xa - np.concatenate([c, np.ones((k, 1), X.dtype)], axis=1)[labels]
    return comm.allreduce(float(np.vecdot(diff, diff).sum()))


def worker(args) -> None:
    """Under mpiexec: time xdist's workloads; rank 0 prints one JSON line."""
    import numpy as np

    import xdist

    comm = xdist.default_comm()
    warnings.simplefilter("ignore")
    work = _workloads("xdist", args)
    sync = comm.barrier if hasattr(comm, "barrier") else None
    out = {}
    for name, fn in work.items():
        wall, cpu = _median(fn, args.repeat, sync)
        busiest, total = cpu, cpu
        if comm.size > 1:
            busiest = float(comm.allreduce(np.array([cpu]), "max")[0])
            total = float(comm.allreduce(np.array([cpu]), "sum")[0])
        out[name] = (wall, total, busiest)
    km = work["kmeans (30 iter)"]()
    out["_kmeans"] = {"iters": km.n_iter_, "inertia": km.inertia_, "by hand": work[BY_HAND]()}
    if comm.rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--rounds", type=int, default=1, help="reference and xdist timed in turn, N times"
    )
    parser.add_argument("--scale", type=float, default=1.0, help="shrink the sample counts")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    rounds = [_round(args) for _ in range(args.rounds)]
    km, ours = rounds[-1][2], rounds[-1][1][max(rounds[-1][1])]["_kmeans"]
    ref = {n: _medians([rd[0][n] for rd in rounds]) for n in rounds[0][0]}
    results = {r: {n: _medians([rd[1][r][n] for rd in rounds]) for n in ref} for r in rounds[0][1]}
    print(f"k-means iterations: scikit-learn {km.n_iter_}, xdist {ours['iters']}")
    print(
        f"k-means inertia: scikit-learn {km.inertia_:.6e}, xdist {ours['inertia']:.6e}, "
        f"by hand {ours['by hand']:.6e}"
    )
    if len(rounds) > 1:
        print(f"\nper round ({len(rounds)} rounds), reference / xdist, wall-clock:")
        for name in ref:
            per = [
                " ".join(f"{rd[0][name][0] / rd[1][r][name][0]:.2f}" for rd in rounds)
                for r in results
            ]
            print(f"- {name}: " + "; ".join(f"{r} rank(s) {p}" for r, p in zip(results, per)))
        print("\nTables: the median over rounds of each time.")
    _table("wall-clock seconds", {k: v[0] for k, v in ref.items()}, results, 0, 0)
    _table("CPU seconds (all threads, all ranks)", {k: v[1] for k, v in ref.items()}, results, 1, 2)


def _medians(rows: list) -> tuple:
    """The median of each column of equal-length tuples."""
    return tuple(statistics.median(col) for col in zip(*rows))


def _round(args):
    """One round: the reference's times, then xdist's at each rank count, so that a load
    that drifts on a shared machine weighs on both sides of a ratio alike."""
    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore")
    with threadpool_limits(2):
        work = _workloads("ref", args)
        ref = {name: _median(fn, args.repeat) for name, fn in work.items()}
        km = work["kmeans (30 iter)"]()
        del work
    # The row of the k-means written by hand has scikit-learn's k-means as its reference.
    names = ["kmeans (30 iter)", BY_HAND, *list(ref)[1:]]
    ref = {name: ref.get(name, ref["kmeans (30 iter)"]) for name in names}
    results = {}
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for r in [int(v) for v in args.ranks.split(",")]:
        cmd = [mpiexec, "-n", str(r), sys.executable, __file__, "--worker"]
        cmd += ["--repeat", str(args.repeat), "--scale", str(args.scale)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if proc.returncode or not lines:
            sys.exit(f"benchmarks/ml.py: {r} rank(s) failed:\n{proc.stdout}\n{proc.stderr}")
        results[r] = json.loads(lines[0][len("RESULT ") :])
    return ref, results, km


def _table(what: str, ref: dict, results: dict, col: int, speed_col: int) -> None:
    """One table: reference and xdist times in ``col``; 1 rank / 2 ranks from ``speed_col``."""
    print(f"\n{what}\n")
    head = "| workload | reference (2 threads) |"
    head += "".join(f" xdist {r} rank(s) | ref / xdist {r} |" for r in results)
    both = 1 in results and 2 in results
    if both:
        head += " 1 rank / 2 ranks |" if speed_col == col else " 1 rank / busiest of 2 |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, t_ref in ref.items():
        row = f"| {name} | {t_ref:.3f} |"
        for res in results.values():
            row += f" {res[name][col]:.3f} | {t_ref / res[name][col]:.2f} |"
        if both:
            row += f" {results[1][name][col] / results[2][name][speed_col]:.2f} |"
        print(row)


if __name__ == "__main__":
    main()
