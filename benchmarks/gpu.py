"""The four workloads of benchmarks/workloads.py on one GPU: xdist's Torch-CUDA and CuPy
backends against Torch.

    python benchmarks/gpu.py [--scale 1.0] [--cdist-rows 20000] [--repeat 7]
        [--only kmeans,lasso,moments,cdist] [--contenders torch,xdist-torch,xdist-cupy]

One process, one GPU, one rank (no mpiexec): the data of benchmarks/workloads.py (the same
seeds and sizes; ``--scale`` multiplies the row counts of k-means, Lasso and the moments,
``--cdist-rows`` sets the distances' rows), copied to the GPU once per contender. The
contenders:

- ``torch``: Torch alone on the GPU: a Lloyd loop, the Gram coordinate descent written as
  tensor operations (no host round trip per coordinate), ``torch.mean``/``torch.std``,
  ``torch.cdist``;
- ``xdist-torch``: ``xdist.ml.KMeans``, ``xdist.ml.Lasso`` (precompute True / False /
  "auto"), ``xdist.mean``/``std``, the distance expression (``workloads_cases.cdist_expression``),
  on the Torch backend with ``XDIST_DEVICE=cuda``;
- ``xdist-cupy``: the same code on the CuPy backend.

Every result is checked against NumPy's on the same data (the tolerances of
benchmarks/workloads.py; k-means by its inertia, which float32 Lloyd reaches along
different paths); a result off the mark is printed and not timed. Each call is timed from a
synchronized device to a synchronized device; the rounds interleave the contenders and each
time is the median of ``--repeat`` calls. Printed: a markdown table of the medians and the
ratio Torch / xdist (above 1: xdist faster). For k-means it also prints the host calls of one
Lloyd iteration (Python functions and C functions called, ``lloyd_calls``) per contender.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads_cases as W  # noqa: E402  (the data, references and tolerances of the CPU run)

CONTENDERS = ("torch", "xdist-torch", "xdist-cupy")
OPS = {
    "kmeans": ["kmeans"],
    "lasso": ["lasso_gram", "lasso_residual", "lasso_auto"],
    "moments": ["mean", "std", "mean0", "std0"],
    "cdist": ["cdist"],
}


DEVICE = "cuda"  # --device cpu runs the script's own logic on a machine without a GPU


def sync(name: str) -> None:
    import torch

    if DEVICE == "cuda":
        torch.cuda.synchronize()
    if name == "xdist-cupy":
        import cupy

        cupy.cuda.Device().synchronize()


def torch_ops(workload: str, d: dict) -> dict:
    import torch

    dev = torch.device(DEVICE)
    X = torch.from_numpy(d["X"]).to(dev)
    if workload == "kmeans":
        C0 = torch.from_numpy(d["centers"]).to(dev)

        def lloyd():
            c = C0.clone()
            for _ in range(W.KMEANS_ITERS):
                labels = torch.argmin((c * c).sum(1) - 2 * (X @ c.T), dim=1)
                sums = torch.zeros_like(c).index_add_(0, labels, X)
                counts = torch.bincount(labels, minlength=c.shape[0]).to(X.dtype)
                c = torch.where(counts[:, None] > 0, sums / counts.clamp(min=1)[:, None], c)
            return c

        return {"kmeans": lloyd}
    if workload == "lasso":
        y = torch.from_numpy(d["y"]).to(dev)

        def gram():
            n, p = X.shape
            xm, ym = X.mean(0), y.mean()
            Xc = X - xm
            Q, q = Xc.T @ Xc, Xc.T @ (y - ym)
            w = torch.zeros(p, dtype=X.dtype, device=dev)
            l1 = W.LASSO_ALPHA * n
            diag = torch.diagonal(Q)
            for _ in range(W.LASSO_EPOCHS):
                for j in range(p):
                    tmp = q[j] - Q[j] @ w + diag[j] * w[j]
                    w[j] = torch.sign(tmp) * torch.clamp(tmp.abs() - l1, min=0) / diag[j]
            return torch.cat([w, (ym - xm @ w)[None]])

        return {"lasso_gram": gram}
    if workload == "moments":
        return {
            "mean": lambda: torch.mean(X),
            "std": lambda: torch.std(X, correction=0),
            "mean0": lambda: torch.mean(X, dim=0),
            "std0": lambda: torch.std(X, dim=0, correction=0),
        }
    return {"cdist": lambda: torch.cdist(X, X)}


def xdist_ops(workload: str, d: dict) -> dict:
    import xdist

    X = xdist.asarray(d["X"], split=0)
    if workload == "kmeans":
        from xdist.ml import KMeans

        km = {"init": d["centers"], "n_init": 1, "max_iter": W.KMEANS_ITERS, "tol": 0.0}
        return {"kmeans": lambda: KMeans(W.KMEANS_K, **km).fit(X).cluster_centers_}
    if workload == "lasso":
        from xdist.ml import Lasso

        y = xdist.asarray(d["y"], split=0)

        def lasso(pre):
            m = Lasso(alpha=W.LASSO_ALPHA, max_iter=W.LASSO_EPOCHS, tol=0.0, precompute=pre)
            m.fit(X, y)
            return xdist.concat([xdist.reshape(m.coef_, (-1,)), xdist.reshape(m.intercept_, (1,))])

        return {
            "lasso_gram": lambda: lasso(True),
            "lasso_residual": lambda: lasso(False),
            "lasso_auto": lambda: lasso("auto"),
        }
    if workload == "moments":
        return {
            "mean": lambda: xdist.mean(X),
            "std": lambda: xdist.std(X),
            "mean0": lambda: xdist.mean(X, axis=0),
            "std0": lambda: xdist.std(X, axis=0),
        }

    return {"cdist": lambda: W.cdist_expression(xdist, X)}


def check(workload: str, op: str, ref: dict, d: dict, got) -> float:
    """The result's error, to compare with the workload's tolerance (k-means: the relative
    difference of the inertia from NumPy's)."""
    host = W.host(got)
    if workload == "cdist":
        return W.cdist_error(host, d["X"], slice(None), slice(None))
    return W.error(workload, ref[op], host)


def contender_ops(name: str, workload: str, d: dict) -> dict:
    if name == "torch":
        return torch_ops(workload, d)
    import xdist

    backend = "torch" if name == "xdist-torch" else "cupy"
    with xdist.backend_context(backend, DEVICE):
        ops = xdist_ops(workload, d)

    def inside(fn):
        def call():
            with xdist.backend_context(backend, DEVICE):
                return fn()

        return call

    return {op: inside(fn) for op, fn in ops.items()}


def _calls(fn) -> int:
    """How many Python-level calls (functions and C functions alike: what a host thread does
    for the device) one call of ``fn`` makes."""
    count = [0]

    def profile(frame, event, arg):
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count[0]


def lloyd_calls(name: str, d: dict) -> float:
    """The host calls of one Lloyd iteration: for xdist, the calls of a fit of 2 m iterations
    less those of a fit of m (tol=0: the same setup and end), over m; for Torch alone, its
    loop's calls over its iterations."""
    if name == "torch":
        return _calls(torch_ops("kmeans", d)["kmeans"]) / W.KMEANS_ITERS
    import xdist
    from xdist.ml import KMeans

    m = W.KMEANS_ITERS // 2
    backend = "torch" if name == "xdist-torch" else "cupy"
    with xdist.backend_context(backend, DEVICE):
        X = xdist.asarray(d["X"], split=0)
        fits = []
        for iters in (m, 2 * m):
            km = KMeans(W.KMEANS_K, init=d["centers"], n_init=1, max_iter=iters, tol=0.0)
            km.fit(X)  # (warm)
            fits.append((_calls(lambda km=km: km.fit(X)), km.n_iter_))
    (c1, i1), (c2, i2) = fits
    return (c2 - c1) / max(1, i2 - i1)


def run_workload(workload, args, contenders) -> list[tuple]:
    shape = W.sizes(args.scale)[workload]
    if workload == "cdist":
        shape = (args.cdist_rows, shape[1])
    d = W.make_data(workload, args.scale)
    if workload == "cdist":
        d = {"X": W._chunked(W.WORKLOADS.index("cdist") + 1, shape, np.float32, 0, shape[0])}
    ref = W.reference(workload, args.scale) if workload != "cdist" else {}
    rows = []
    times: dict[tuple[str, str], list[float]] = {}
    live: dict[str, dict] = {}
    for name in contenders:
        try:
            ops = contender_ops(name, workload, d)
        except Exception as exc:  # a backend that cannot run here is reported, not fatal
            print(f"{workload} {name}: setup failed: {exc!r}", flush=True)
            continue
        for op, fn in list(ops.items()):
            try:
                got = fn()
                sync(name)
                err = check(workload, op, ref, d, got)
            except Exception as exc:
                print(f"{workload} {name} {op}: failed: {exc!r}", flush=True)
                del ops[op]
                continue
            ok = err <= W.TOLERANCE[workload]
            print(f"{workload} {name} {op}: error {err:.2e} ({'ok' if ok else 'OFF'})", flush=True)
            if not ok:
                del ops[op]
        live[name] = ops
    names = list(live)
    for r in range(args.rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            for op, fn in live[name].items():
                ts = []
                for _ in range(args.repeat):
                    sync(name)
                    t0 = time.perf_counter()
                    fn()
                    sync(name)
                    ts.append(time.perf_counter() - t0)
                times.setdefault((name, op), []).append(statistics.median(ts))
    if workload == "kmeans":
        for name in names:
            print(f"kmeans {name}: {lloyd_calls(name, d):.0f} host calls per Lloyd iteration")
    for op in OPS[workload]:
        base = times.get(("torch", op if op in live.get("torch", {}) else "lasso_gram"))
        for name in names:
            t = times.get((name, op))
            if t is None:
                continue
            tm = statistics.median(t)
            ratio = statistics.median(base) / tm if base and name != "torch" else None
            rows.append((workload, "x".join(map(str, shape)), op, name, tm, ratio))
    del live
    import gc

    gc.collect()
    import torch

    if DEVICE == "cuda":
        torch.cuda.empty_cache()
    try:
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
    except ImportError:
        pass
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--cdist-rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=",".join(W.WORKLOADS))
    parser.add_argument("--contenders", default=",".join(CONTENDERS))
    parser.add_argument("--device", default="cuda", help="cuda; cpu checks the script only")
    args = parser.parse_args()
    global DEVICE
    DEVICE = args.device
    import torch

    gpu = torch.cuda.get_device_name() if DEVICE == "cuda" else "CPU"
    print(f"# {gpu}, torch {torch.__version__}", end="")
    try:
        import cupy

        print(f", cupy {cupy.__version__}", end="")
    except ImportError:
        pass
    print(f", scale {args.scale}, cdist rows {args.cdist_rows}", flush=True)
    rows = []
    for workload in args.only.split(","):
        rows += run_workload(workload, args, args.contenders.split(","))
    print("\n| workload | shape | op | contender | median s | Torch / xdist |")
    print("|---|---|---|---|---|---|")
    for workload, shape, op, name, t, ratio in rows:
        r = "" if ratio is None else f"{ratio:.2f}"
        print(f"| {workload} | {shape} | {op} | {name} | {t:.5f} | {r} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
