"""Overhead of xdist at 1 rank against plain NumPy (the D2O paper's Table 3 format).

    python benchmarks/overhead.py [--max-exp 24] [--repeat 7]

For each size 2**k and each operation (``x + y``, ``x * 2``, ``sum(x)``, ``x[::2]``) it times
NumPy and xdist on the same float64 data and prints NumPy's time divided by xdist's time: the
fraction of NumPy's speed that xdist reaches (1.0 = as fast). Times are medians of ``--repeat``
runs of enough loops to take ~20 ms each, NumPy and xdist alternating. The last table lists
xdist's fixed cost per call (xdist time minus NumPy time at 2**0 elements), in microseconds.

Run it at one rank (``python benchmarks/overhead.py``): it measures the per-call cost of the
distributed layer, not communication.
"""

from __future__ import annotations

import argparse
import os
import statistics
import timeit

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import xdist  # noqa: E402

OPS = {
    "x + y": (lambda x, y: x + y, lambda x, y: x + y),
    "x * 2": (lambda x, y: x * 2, lambda x, y: x * 2),
    "sum(x)": (lambda x, y: np.sum(x), lambda x, y: xdist.sum(x)),
    "x[::2]": (lambda x, y: x[::2], lambda x, y: x[::2]),
}


def _loops(fn, x, y) -> int:
    """Loops of ``fn`` that take about 20 ms."""
    loops, elapsed = timeit.Timer(lambda: fn(x, y)).autorange()
    return max(1, int(loops * 0.02 / max(elapsed, 1e-9)))


def _time_pair(np_fn, xd_fn, a, b, x, y, repeat: int) -> tuple[float, float]:
    """Median seconds per call of NumPy and xdist, measured alternately so that the machine's
    drifting load hits both alike."""
    n_np, n_xd = _loops(np_fn, a, b), _loops(xd_fn, x, y)
    t_np, t_xd = [], []
    for _ in range(repeat):
        t_np.append(timeit.Timer(lambda: np_fn(a, b)).timeit(n_np) / n_np)
        t_xd.append(timeit.Timer(lambda: xd_fn(x, y)).timeit(n_xd) / n_xd)
    return statistics.median(t_np), statistics.median(t_xd)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-exp", type=int, default=24)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--split", default="0", help="split axis of the xdist arrays, or none")
    args = parser.parse_args()
    split = None if args.split == "none" else int(args.split)
    comm = xdist.default_comm()
    rng = np.random.default_rng(0)
    ratios: dict[int, dict[str, float]] = {}
    fixed: dict[str, float] = {}
    for k in range(args.max_exp + 1):
        n = 2**k
        a, b = rng.standard_normal(n), rng.standard_normal(n)
        x, y = xdist.asarray(a, split=split), xdist.asarray(b, split=split)
        ratios[k] = {}
        for name, (np_fn, xd_fn) in OPS.items():
            t_np, t_xd = _time_pair(np_fn, xd_fn, a, b, x, y, args.repeat)
            ratios[k][name] = t_np / t_xd
            if k == 0:
                fixed[name] = (t_xd - t_np) * 1e6
    if comm.rank != 0:
        return
    print(f"xdist {comm.size} rank(s), split={split}, backend numpy {np.__version__}")
    print("NumPy time / xdist time (1.0 = NumPy's speed)\n")
    header = "| size | " + " | ".join(OPS) + " |"
    print(header)
    print("|" + "---|" * (len(OPS) + 1))
    for k, row in ratios.items():
        print(f"| 2^{k} | " + " | ".join(f"{row[name]:.2f}" for name in OPS) + " |")
    print("\nfixed cost per call (xdist - NumPy at 2^0 elements), microseconds\n")
    print("| " + " | ".join(OPS) + " |")
    print("|" + "---|" * len(OPS))
    print("| " + " | ".join(f"{fixed[name]:.1f}" for name in OPS) + " |")


if __name__ == "__main__":
    main()
