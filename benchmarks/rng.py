"""Speed of xdist.random against NumPy's own Generator, per element.

    python benchmarks/rng.py [--n 4194304] [--repeat 9]
    mpiexec -n 2 python benchmarks/rng.py
    mpiexec -n 2 python benchmarks/rng.py --runs

At one rank it times ``random``, ``standard_normal`` and ``integers(0, 1000)`` (float64 and
int64, ``--n`` elements, split along axis 0) against ``numpy.random.default_rng()`` (PCG64, the
generator NumPy users have) and ``numpy.random.Generator(Philox)`` (the bit generator xdist
uses), alternating the three so that the machine's drifting load hits them alike. It prints
medians of ``--repeat`` runs in ns per element and the ratios xdist / NumPy.

Under ``mpiexec -n p`` every rank first times the whole ``--n`` elements alone on its own
one-rank communicator, all ranks at once (the 1-rank baseline under the same load on the
cores and memory), then the ranks draw the same ``--n`` elements together, split along
axis 0 (each rank N/p, no message); the time of a call is the slowest rank's. It prints the
speedup baseline / p-rank time (p is ideal).

``--runs`` (at 2 or more ranks) measures the choice between drawing a block split along
axis 1 run by run and drawing it split along axis 0 then moving it with one all-to-all, for
several run lengths (``xdist.random._layouts.RUN_MIN`` is the crossover).
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import xdist  # noqa: E402
import xdist.random as xr  # noqa: E402
from xdist.random import _layouts  # noqa: E402

DISTRIBUTIONS = {
    "random": (lambda g, n: g.random(n), {"dtype": "float64"}),
    "standard_normal": (lambda g, n: g.standard_normal(n), {"dtype": "float64"}),
    "integers(0, 1000)": (lambda g, n: g.integers(0, 1000, n), {"dtype": "int64"}),
}


def _xdist_call(name: str, rng, n: int, comm):
    method = name.split("(")[0]
    args = (0, 1000) if method == "integers" else ()
    kw = DISTRIBUTIONS[name][1]
    return lambda: getattr(rng, method)(*args, n, split=0, comm=comm, **kw)


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def _slowest(seconds: float, comm) -> float:
    """The largest of every rank's ``seconds`` (benchmarks may talk to the communicator)."""
    if comm.size == 1:
        return seconds
    return float(comm.allreduce(np.array([seconds]), "max")[0])


def one_rank(n: int, repeat: int) -> None:
    pcg = np.random.default_rng(1)
    philox = np.random.Generator(np.random.Philox(1))
    rng = xr.default_rng(1)
    comm = xdist.SelfComm()
    print(f"xdist.random at 1 rank, {n} elements, NumPy {np.__version__}: ns per element")
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print("(medians of", repeat, "runs; ratio = xdist / NumPy, lower is faster)\n")
    print("| distribution | xdist | NumPy PCG64 | NumPy Philox | xdist/PCG64 | xdist/Philox |")
    print("|---|---|---|---|---|---|")
    for name, (np_fn, _) in DISTRIBUTIONS.items():
        ours = _xdist_call(name, rng, n, comm)
        times: dict[str, list[float]] = {"xdist": [], "pcg": [], "philox": []}
        ours()  # warm up (first allocations)
        for _ in range(repeat):
            times["xdist"].append(_timed(ours))
            times["pcg"].append(_timed(np_fn, pcg, n))
            times["philox"].append(_timed(np_fn, philox, n))
        t = {k: statistics.median(v) / n * 1e9 for k, v in times.items()}
        print(
            f"| {name} | {t['xdist']:.2f} | {t['pcg']:.2f} | {t['philox']:.2f} | "
            f"{t['xdist'] / t['pcg']:.2f} | {t['xdist'] / t['philox']:.2f} |"
        )


def many_ranks(n: int, repeat: int) -> None:
    comm = xdist.default_comm()
    alone, together = xr.default_rng(1), xr.default_rng(1)
    rows = []
    for name in DISTRIBUTIONS:
        solo = _xdist_call(name, alone, n, xdist.SelfComm())
        joint = _xdist_call(name, together, n, comm)
        solo(), joint()
        t_solo, t_joint = [], []
        for _ in range(repeat):
            t_solo.append(_slowest(_timed(solo), comm))
            t_joint.append(_slowest(_timed(joint), comm))
        rows.append((name, statistics.median(t_solo), statistics.median(t_joint)))
    if comm.rank:
        return
    print(f"xdist.random at {comm.size} ranks, {n} elements split along axis 0: ns per element")
    print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print("(1-rank baseline: every rank drawing all n at once on its own; medians of", repeat)
    print("runs of the slowest rank)\n")
    print(f"| distribution | 1 rank | {comm.size} ranks | speedup |")
    print("|---|---|---|---|")
    for name, solo, joint in rows:
        print(f"| {name} | {solo / n * 1e9:.2f} | {joint / n * 1e9:.2f} | {solo / joint:.2f} |")


def run_lengths(n: int, repeat: int) -> None:
    """Per-run drawing against draw-along-0-and-move, for blocks split along axis 1."""
    comm = xdist.default_comm()
    rng = xr.default_rng(1)
    out = []
    for run in (32, 64, 128, 256, 1024, 4096):
        cols = run * comm.size
        shape = (max(n // cols, comm.size), cols)
        result = {}
        for label, threshold in (("per run", 0), ("moved", 1 << 62)):
            _layouts.RUN_MIN = threshold
            fn = functools.partial(rng.random, shape, dtype="float64", split=1)
            fn()
            times = [_slowest(_timed(fn), comm) for _ in range(repeat)]
            result[label] = statistics.median(times) / (shape[0] * cols) * 1e9
        out.append((run, result))
    if comm.rank:
        return
    print(f"random((rows, cols), split=1) at {comm.size} ranks, ~{n} elements: ns per element\n")
    print("| run length (cols / p) | per run | along 0, then moved |")
    print("|---|---|---|")
    for run, r in out:
        print(f"| {run} | {r['per run']:.2f} | {r['moved']:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 22)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--runs", action="store_true", help="per-run vs moved, split axis 1")
    args = parser.parse_args()
    comm = xdist.default_comm()
    if args.runs:
        run_lengths(args.n, args.repeat)
    elif comm.size == 1:
        one_rank(args.n, args.repeat)
    else:
        many_ranks(args.n, args.repeat)


if __name__ == "__main__":
    main()
