"""xdist.ml on NumPy input: k-means at 1 rank (the NumPy path) against 2 ranks (the data
spread over the ranks), one thread per rank.

    python benchmarks/ml_host_inputs.py [--ranks 1,2] [--repeat 3] [--rounds 3]
                                        [--rows 200000] [--features 32] [--iters 20]

Every rank builds the same 200000 x 32 float64 NumPy array from the same seed and calls
``xdist.ml.KMeans(8, init=<8 of its rows>, n_init=1, max_iter=20, tol=0).fit(X)`` on it, as
a scikit-learn script run under ``mpiexec`` would: at one rank the estimator works on the
NumPy array, at more it splits X over the ranks and returns NumPy results. Each worker times
``--repeat`` fits (ranks synchronized before each) and reports the median; a round runs each
rank count in turn, so a load that drifts on a shared machine weighs on both sides of a
ratio alike. It prints each round's times and ratio, the median over rounds of each time,
their ratio (1 rank / R ranks: above 1, R ranks are faster) and the load average before and
after; and CPU seconds (``time.process_time``) of the busiest rank, which a loaded machine
disturbs less than wall-clock time. Workers run with OMP_NUM_THREADS=1 (and OpenBLAS's and
MKL's thread counts 1), and without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, so that each
rank uses OpenBLAS's own choice of kernel for this machine.
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
K = 8


def worker(args) -> None:
    """Under mpiexec: time the fits; rank 0 prints one JSON line."""
    import numpy as np

    import xdist
    from xdist.ml import KMeans

    warnings.simplefilter("ignore")
    comm = xdist.default_comm()
    rng = np.random.default_rng(SEED)
    X = rng.standard_normal((args.rows, args.features))
    init = X[rng.choice(args.rows, K, replace=False)].copy()

    def fit():
        return KMeans(K, init=init, n_init=1, max_iter=args.iters, tol=0.0).fit(X)

    times, cpus = [], []
    for _ in range(args.repeat):
        comm.barrier()
        t0, c0 = time.perf_counter(), time.process_time()
        km = fit()
        cpus.append(time.process_time() - c0)
        comm.barrier()
        times.append(time.perf_counter() - t0)
    cpu = statistics.median(cpus)
    busiest = float(comm.allreduce(np.array([cpu]), "max")[0]) if comm.size > 1 else cpu
    if comm.rank == 0:
        out = {"time": statistics.median(times), "cpu": busiest, "n_iter": km.n_iter_}
        out |= {"inertia": km.inertia_, "centers": type(km.cluster_centers_).__name__}
        print("RESULT " + json.dumps(out), flush=True)


def _run(ranks: int, args) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(name, None)
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    cmd = [mpiexec, "-n", str(ranks), sys.executable, __file__, "--worker"]
    cmd += ["--repeat", str(args.repeat), "--rows", str(args.rows)]
    cmd += ["--features", str(args.features), "--iters", str(args.iters)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode or not lines:
        sys.exit(f"ml_host_inputs.py: {ranks} rank(s) failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[0][len("RESULT ") :])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200000)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    ranks = [int(r) for r in args.ranks.split(",")]
    load = os.getloadavg()
    print(
        f"k-means on NumPy input: {args.rows} x {args.features} float64, k={K}, "
        f"{args.iters} iterations; median of {args.repeat} fits per run, {args.rounds} rounds"
    )
    rounds = []
    for i in range(args.rounds):
        got = {r: _run(r, args) for r in ranks}
        rounds.append(got)
        line = ", ".join(
            f"{r} rank(s) {got[r]['time']:.3f} s (CPU {got[r]['cpu']:.3f} s)" for r in ranks
        )
        if 1 in got:
            line += "; " + ", ".join(
                f"1/{r} {got[1]['time'] / got[r]['time']:.2f}x" for r in ranks if r != 1
            )
        print(f"round {i + 1}: {line}")
    med = {r: statistics.median(rd[r]["time"] for rd in rounds) for r in ranks}
    cpu = {r: statistics.median(rd[r]["cpu"] for rd in rounds) for r in ranks}
    last = rounds[-1]
    for r in ranks:
        print(
            f"{r} rank(s): median {med[r]:.3f} s (CPU of the busiest rank {cpu[r]:.3f} s), "
            f"{last[r]['n_iter']} iterations, inertia {last[r]['inertia']:.9e}, "
            f"cluster_centers_ a {last[r]['centers']}"
        )
    for r in ranks:
        if r != 1 and 1 in med:
            print(
                f"speedup 1 rank / {r} ranks (medians): {med[1] / med[r]:.2f}x wall-clock, "
                f"{cpu[1] / cpu[r]:.2f}x CPU of the busiest rank"
            )
    after = os.getloadavg()
    print(
        "load average (1, 5, 15 min): before "
        + ", ".join(f"{v:.2f}" for v in load)
        + "; after "
        + ", ".join(f"{v:.2f}" for v in after)
    )


if __name__ == "__main__":
    main()
