"""Reductions of elementwise chains, ``xp.sum((a - b) ** 2)`` and the like: xdist's fused
tiles against its eager path, NumPy, Torch and JAX, on the same data.

    python benchmarks/reductions.py [--rows 8192] [--cols 8192] [--rounds 3] [--repeat 7]
        [--ranks 2] [--contenders numpy,torch,jax,xdist,xdist-eager]

The cases, on two float64 arrays ``a`` and ``b`` of ``--rows`` x ``--cols`` (a mean squared
error, its columns, a convergence test, a mean of products):

- ``sum((a - b) ** 2)``, ``sum((a - b) ** 2, axis=0)``, ``max(abs(a - b))``, ``mean(a * b)``.

The contenders: NumPy (one process; its elementwise functions run on one core), Torch (2
threads), JAX (``jax.jit`` of each expression: XLA fuses it; its CPU threads), xdist at
``--ranks`` ranks (``mpiexec``, one thread each, the NumPy backend): ``xdist`` as it runs
(the chain and its reduction made in one pass of tiles: ``docs/guide/model.md``) and
``xdist-eager`` with fusion off (``fuse_min_elements=0``: each function one pass over its
block). xdist's ``a`` and ``b`` are arrays xdist owns (copies of each rank's rows, as
``xdist.io`` or an earlier computation gives them); an array made on a user's NumPy array
runs a chain's first function at once, since the user may write into it later.

Each round starts every contender's process in turn (the order rotates each round), which
makes the data (every process the same, from one seed; each xdist rank its rows), runs each
case twice untimed, checks its results against NumPy's (relative 1e-10), then times
``--repeat`` calls of each (the ranks synchronized before and after each call) and reports
their median. Printed: the median over the rounds per contender and case, and each
contender's time over xdist's (above 1: xdist faster). Every process runs without
``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` (nothing here calls a BLAS).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
import workloads_cases as W  # noqa: E402  (rows that any process makes alike)
from harness import (  # noqa: E402
    RunRecord,
    child_env,
    median,
    mpi_env,
    mpiexec,
    thread_env,
    timed_calls,
)

CASES = ("sum((a - b) ** 2)", "sum((a - b) ** 2, axis=0)", "max(abs(a - b))", "mean(a * b)")
CONTENDERS = ("numpy", "torch", "jax", "xdist", "xdist-eager")
_KEYS = (101, 102)  # the seeds of a and b (workloads_cases._chunked; its workloads use 1-4)


def expressions(xp):
    """Each case as a function of ``(a, b)`` in the namespace ``xp``."""
    return {
        CASES[0]: lambda a, b: xp.sum((a - b) ** 2),
        CASES[1]: lambda a, b: xp.sum((a - b) ** 2, axis=0),
        CASES[2]: lambda a, b: xp.max(xp.abs(a - b)),
        CASES[3]: lambda a, b: xp.mean(a * b),
    }


def worker(kind: str, n: int, cols: int, repeat: int) -> None:
    """One contender: make the data, check and time every case, print one JSON line (rank 0)."""
    mpi, lo, hi = None, 0, n
    if kind.startswith("xdist"):
        from mpi4py import MPI

        import xdist

        if kind == "xdist-eager":
            xdist.set_config(fuse_min_elements=0)
        mpi = MPI.COMM_WORLD
        lo, hi = mpi.rank * n // mpi.size, (mpi.rank + 1) * n // mpi.size
    a, b = (W._chunked(key, (n, cols), np.float64, lo, hi) for key in _KEYS)
    if mpi is not None:
        a, b = (xdist.asarray(xdist.from_local(v, split=0), copy=True) for v in (a, b))
        fns = expressions(xdist)

        def finish(v):
            return v.to_numpy()
    elif kind == "torch":
        import torch

        torch.set_num_threads(2)
        a, b = torch.from_numpy(a), torch.from_numpy(b)
        fns = expressions(torch)
        fns[CASES[1]] = lambda a, b: torch.sum((a - b) ** 2, dim=0)

        def finish(v):
            return v.numpy()
    elif kind == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp

        a, b = jnp.asarray(a), jnp.asarray(b)
        fns = {k: jax.jit(f) for k, f in expressions(jnp).items()}

        def finish(v):
            return np.asarray(v.block_until_ready())
    else:
        fns = expressions(np)

        def finish(v):
            return np.asarray(v)

    out = {"times": {}, "results": {}}
    for case, fn in fns.items():
        got = finish(fn(a, b))
        finish(fn(a, b))
        out["results"][case] = np.asarray(got, dtype=np.float64).reshape(-1).tolist()
        out["times"][case] = timed_calls(lambda fn=fn: finish(fn(a, b)), repeat, mpi)
    if mpi is None or mpi.rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def run_contender(kind: str, args) -> dict:
    """Start one contender's process (``mpiexec`` for xdist) and read its JSON line."""
    cmd = [sys.executable, __file__, "--worker", kind, "--rows", str(args.rows)]
    cmd += ["--cols", str(args.cols), "--repeat", str(args.repeat)]
    env = child_env() | thread_env(2)
    if kind.startswith("xdist"):
        cmd = [mpiexec("reductions.py"), "-n", str(args.ranks), *cmd]
        env = child_env() | thread_env(1) | mpi_env(args.ranks)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    return {"error": (proc.stdout + proc.stderr)[-2000:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--cols", type=int, default=8192)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.rows, args.cols, args.repeat)
    names = [c for c in args.contenders.split(",") if c]
    record = RunRecord("reductions.py")
    print(record.opening(f"{args.rows} x {args.cols} float64, xdist at {args.ranks} ranks"))
    record.start()
    times: dict = {(c, k): [] for c in names for k in CASES}
    results: dict = {}
    failed: dict = {}
    for r in range(args.rounds):
        for c in names[r % len(names) :] + names[: r % len(names)]:
            got = run_contender(c, args)
            if "error" in got:
                failed[c] = got["error"]
                continue
            results[c] = got["results"]
            for k in CASES:
                times[(c, k)].append(median(got["times"][k]))
    record.stop()
    reference = results.get("numpy")
    for c, res in results.items():
        for k in CASES if reference is not None else ():
            want, have = np.asarray(reference[k]), np.asarray(res[k])
            if not np.allclose(have, want, rtol=1e-10, atol=0):
                failed[c] = f"{k}: off NumPy's by {np.max(np.abs(have - want)):.3g}"
    base = "xdist" if "xdist" in names else names[-1]
    print(
        f"\n| case | {' | '.join(f'{c} s' for c in names)} | "
        + " | ".join(f"{c} / {base}" for c in names if c != base)
        + " |"
    )
    print("|---" * (1 + len(names) + len(names) - 1) + "|")
    for k in CASES:
        meds = {c: median(times[(c, k)]) for c in names}
        cells = [f"{meds[c]:.4g}" for c in names]
        cells += [f"{meds[c] / meds[base]:.2f}" for c in names if c != base]
        print(f"| {k} | " + " | ".join(cells) + " |")
    for c, why in failed.items():
        print(f"\n{c} FAILED: {why}")
    if reference is None and "numpy" in names:
        print("\nNumPy's run failed: no result was checked")
    print(record.closing())
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
