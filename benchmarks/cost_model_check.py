"""The cost model against the transport's counts on the four workloads at their real sizes.

    mpiexec -n 2 python benchmarks/cost_model_check.py

Runs k-means (200000 x 64 float32, k = 8, 30 iterations), Lasso (100000 x 100 float64, 20
epochs, with and without the Gram matrix) and the moments (8192 x 8192 float64) on random
data, counts their collectives with ``xdist.count_collectives()`` and prints, for each, the
busiest rank's counted calls, bytes and messages beside the model's
(``benchmarks/cost_model.py``). ``tests/movement/test_cost_model.py`` checks the same formulas on
small arrays in the test command; this script shows they hold at the workloads' sizes
(memory: about 1 GB per process at 2 ranks).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cost_model as cm  # noqa: E402

import xdist  # noqa: E402
from xdist.ml.cluster import KMeans  # noqa: E402
from xdist.ml.linear_model import Lasso  # noqa: E402


def busiest(counts, comm) -> cm.Cost:
    """The largest counted calls, bytes and messages over the ranks, by kind."""
    mine = []
    for k in cm.KINDS:
        mine += [counts[k], counts.bytes[k], counts.messages[k]]
    table = comm.allgather_ints(mine).reshape(comm.size, len(cm.KINDS), 3).max(axis=0)
    return {
        k: cm.Traffic(*(int(v) for v in table[i])) for i, k in enumerate(cm.KINDS) if table[i].any()
    }


def main() -> None:
    comm = xdist.default_comm()
    p, me = comm.size, comm.rank
    rng = np.random.default_rng(0)

    def split(g):
        block = g[xdist.Layout.balanced(g.shape, 0, p).local_slice(me)]
        return xdist.from_local(np.ascontiguousarray(block), split=0)

    X = rng.standard_normal((200000, 64)).astype(np.float32)
    Xk = split(X)
    Xl = rng.standard_normal((100000, 100))
    yl = Xl @ rng.standard_normal(100) + rng.standard_normal(100000)
    Xls, yls = split(Xl), split(yl)
    M = split(rng.standard_normal((8192, 8192)))
    check = xdist.get_config().check_replicated
    km = KMeans(n_clusters=8, init=X[:8] + 0.5, n_init=1, max_iter=30, tol=0.0)

    def lasso(gram):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tol=0 never converges
            Lasso(alpha=0.1, max_iter=20, tol=0.0, precompute=gram).fit(Xls, yls)

    cases = [
        ("k-means", lambda: km.fit(Xk), lambda: cm.kmeans(p, 8, 64, 4, km.n_iter_, check)),
        ("Lasso, Gram", lambda: lasso(True), lambda: cm.lasso(p, 100, 20, True, check)),
        ("Lasso, no Gram", lambda: lasso(False), lambda: cm.lasso(p, 100, 20, False, check)),
        ("mean all", lambda: xdist.mean(M), lambda: cm.reduction(p, 1, 8)),
        ("std all", lambda: xdist.std(M), lambda: cm.reduction(p, 1, 32)),
        ("mean axis 0", lambda: xdist.mean(M, axis=0), lambda: cm.reduction(p, 8192, 8)),
        ("std axis 0", lambda: xdist.std(M, axis=0), lambda: cm.reduction(p, 8192, 32)),
    ]
    for name, run, model in cases:
        with xdist.count_collectives() as counts:
            run()
        got, want = busiest(counts, comm), model()
        if name == "k-means" and got != want:  # the inertia's last reduction: 4 or 8 bytes
            want = cm.kmeans(p, 8, 64, 4, km.n_iter_, check, last_bytes=8)
        if me == 0:
            verdict = "equal" if got == want else "DIFFERENT"
            print(f"{name} at {p} ranks: {verdict}\n  counted {got}\n  model   {want}")


if __name__ == "__main__":
    main()
