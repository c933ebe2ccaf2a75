"""scikit-learn and SciPy pipelines on NumPy, Torch and xdist arrays: the same code, timed.

    python benchmarks/pipelines.py [--rows 20000] [--rounds 3] [--repeat 1]
        [--only name,name] [--contenders numpy,torch,xdist1,xdist2,xdist2torch]
        [--gather-elements N] [--json out.json] [--plot ratios.png] [--cuda-device cuda]

Each pipeline of ``benchmarks/pipelines_cases.py`` is one function of ``(X, y, xp)``, run
with ``sklearn.set_config(array_api_dispatch=True)`` and ``SCIPY_ARRAY_API=1`` by every
contender on the same data (``--rows`` samples x 16 float64 features; the PCA cases
``--rows / 5`` x 64 float32):

- ``numpy``: NumPy arrays, 2 threads; its results are the reference;
- ``torch``: Torch CPU tensors, 2 threads (``torch.set_num_threads(2)``);
- ``xdist1``: xdist arrays split along samples, ``mpiexec -n 1``, NumPy backend, 2 threads;
- ``xdist2``: the same at ``mpiexec -n 2``, one thread per rank;
- ``xdist2torch``: ``mpiexec -n 2`` with ``XDIST_BACKEND=torch``, one Torch thread per rank
  (``XDIST_TORCH_THREADS=1``: under mpiexec Torch's own default would drop to one anyway);
- on a GPU (named in ``--contenders``, not run by default): ``torchcuda``, Torch tensors on
  the GPU; ``xdist1cuda``, xdist's Torch backend with its blocks on the GPU
  (``XDIST_DEVICE=cuda``), one process without MPI. Their calls are timed up to a
  synchronized device. ``--cuda-device cpu`` runs them on the CPU instead, to check the
  script on a machine without a GPU.

Every contender is its own long-lived process (``benchmarks/harness.py``'s ``Server``),
started with its threads set in the environment (``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ...) and without ``OPENBLAS_CORETYPE`` and
``OPENBLAS_L2_SIZE``, so OpenBLAS picks its kernel from the CPU for all of them alike; each
reports the BLAS it loaded (threadpoolctl: ``internal_api``, ``architecture``, threads;
Torch's build BLAS). xdist ranks make only their own rows.

For each pipeline every contender first runs it once, untimed (warm caches): its results
are compared with NumPy's (``Case.rtol`` / ``Case.atol``), and on xdist the call is made
under ``xdist.count_collectives()`` (collective calls, and the bytes of payload that the
ranks contribute for other ranks, summed over the ranks) with warnings recorded (the
``xdist.GatherWarning``s it issued, with xdist's threshold at 0 so that every implicit
gather is seen: those of more than ``--gather-elements`` elements, by default ``--rows``,
i.e. more than one sample vector, in the table; the smaller ones listed below it). A
pipeline that raises or whose result is off is reported as failing, in the table and at
the end, never dropped. Then
``--rounds`` rounds: each round times every contender once per pipeline, in turn (the order
rotates by one each round), each time the median of ``--repeat`` calls, ranks synchronized
before and after each call. The table holds the median over the rounds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import harness  # noqa: E402
import pipelines_cases as cases  # noqa: E402

# name -> (label, process kind, xdist backend, ranks, threads per process or rank)
CONTENDERS = {
    "numpy": ("NumPy", "numpy", None, 1, 2),
    "torch": ("Torch", "torch", None, 1, 2),
    "xdist1": ("xdist-1", "xdist", "numpy", 1, 2),
    "xdist2": ("xdist-2", "xdist", "numpy", 2, 1),
    "xdist2torch": ("xdist-2 torch", "xdist", "torch", 2, 1),
    "torchcuda": ("Torch CUDA", "torch", None, 1, 2),
    "xdist1cuda": ("xdist-1 Torch-CUDA", "xdist", "torch", 1, 2),
}
ON_GPU = ("torchcuda", "xdist1cuda")  # their arrays on ``--cuda-device``; not run by default
COUNTED = "xdist2"  # the contender whose collectives, bytes and gathers the table shows


# -- inside a contender's process -------------------------------------------------------------


def _host_piece(v, rank: int):
    """(a result as NumPy on this rank, the box of the whole result it is, or None)."""
    mod = type(v).__module__
    if mod.startswith("xdist"):
        import xdist

        if v.split is None:
            return xdist.to_numpy(v), None  # replicated: every rank holds it whole
        box = v.layout.local_slice(rank)
        local = v.local
        if hasattr(local, "detach"):
            local = local.detach().cpu().numpy()
        return np.asarray(local), box
    if mod.startswith("torch"):
        return v.detach().cpu().numpy(), None
    return np.asarray(v), None


def _gathered_elements(message: str) -> float:
    """The elements of the array a ``GatherWarning`` names ("collects the whole (20000, 16)
    float64 array ..."); inf where the message does not say (counted as large)."""
    import re

    found = re.search(r"the whole \(([0-9, ]*)\)", message)
    if not found:
        return float("inf")
    return float(np.prod([int(n) for n in found.group(1).replace(" ", "").split(",") if n]))


class Contender:
    """One contender's data and pipelines, in its process (every rank under mpiexec)."""

    def __init__(self, kind: str):
        # "torch" or "xdist", with ":DEVICE" for the arrays on a device (``ON_GPU``)
        kind, _, self.device = kind.partition(":")
        self.kind = kind
        self.mpi = None
        if kind == "xdist":
            if not self.device:  # (on a device: one process, no MPI)
                from mpi4py import MPI

                self.mpi = MPI.COMM_WORLD
            import xdist  # noqa: F401  (imported before anything is timed)
        elif kind == "torch":
            import torch

            torch.set_num_threads(CONTENDERS["torch"][4])
        import sklearn

        sklearn.set_config(array_api_dispatch=True)
        self.rank = 0 if self.mpi is None else self.mpi.rank
        self.size = 1 if self.mpi is None else self.mpi.size
        self.data: dict = {}

    def _moved(self, a):
        """A NumPy array as a Torch tensor on this contender's device (``None`` stays)."""
        if a is None:
            return None
        import torch

        return torch.from_numpy(a).to(self.device or "cpu")

    def arrays(self, kind: str, rows: int):
        if kind in self.data:
            return self.data[kind]
        if self.kind == "xdist":
            import xdist

            n = cases.data_rows(kind, rows)
            s = xdist.Layout.balanced((n,), 0, self.size).local_slice(self.rank)[0]
            X, y = cases.make_data(kind, rows, s.start, s.stop)
            if self.device:
                X, y = self._moved(X), self._moved(y)
            X = xdist.from_local(X, split=0)
            y = None if y is None else xdist.from_local(y, split=0)
        else:
            X, y = cases.make_data(kind, rows)
            if self.kind == "torch":
                X, y = self._moved(X), self._moved(y)
        from array_api_compat import array_namespace

        self.data[kind] = (X, y, array_namespace(X))
        return self.data[kind]

    def call(self, case: cases.Case, rows: int):
        X, y, xp = self.arrays(case.data, rows)
        return case.fn(X, y, xp)

    def check(
        self, case: cases.Case, rows: int, refdir: Path, reference: bool, gather_elements: int
    ) -> dict:
        """Run ``case`` once: its results saved (the reference) or compared with the saved
        ones; on xdist its collectives, bytes and gathers counted."""
        import warnings

        out = {"error": None, "err": 0.0, "worst": "", "collectives": {}, "bytes": 0}
        out |= {"messages": 0, "gathers": 0, "small_gathers": 0, "gather_first": ""}
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("ignore")
                if self.kind == "xdist":
                    import xdist

                    warnings.simplefilter("always", xdist.GatherWarning)
                    with (  # every implicit gather warns; sorted by size below
                        xdist.config_context(gather_warning_elements=0),
                        xdist.count_collectives() as counts,
                    ):
                        result = self.call(case, rows)
                    out["collectives"] = dict(counts)
                    out["bytes"] = int(sum(counts.bytes.values()))
                    out["messages"] = int(sum(counts.messages.values()))
                    gathers = [
                        str(w.message)
                        for w in caught
                        if issubclass(w.category, xdist.GatherWarning)
                    ]
                    large = [g for g in gathers if _gathered_elements(g) > gather_elements]
                    out["gathers"] = len(large)
                    out["small_gathers"] = len(gathers) - len(large)
                    out["gather_first"] = large[0] if large else ""
                else:
                    result = self.call(case, rows)
            out["check_s"] = time.perf_counter() - t0
            for key, value in cases.flatten(result).items():
                got, box = _host_piece(value, self.rank)
                path = refdir / f"{case.name}.{key}.npy"
                if reference:
                    np.save(path, got)
                    continue
                if not path.exists():
                    raise KeyError(f"result {key!r}: NumPy's pipeline gave no such result")
                ref = np.load(path, mmap_mode="r")
                scale = float(np.abs(ref).max(initial=0)) if ref.size else 0.0
                part = ref if box is None else ref[box]
                e = cases.error(got, part, case.rtol, case.atol * scale)
                if e > 1 and got.ndim == 2 and part.shape == got.shape and part.size:
                    # an SVD's sign choice: the same up to the signs of columns?
                    signs = np.where((np.asarray(part) * got).sum(axis=0) < 0, -1, 1)
                    if cases.error(got * signs, part, case.rtol, case.atol * scale) <= 1:
                        out["note"] = f"{key} matches NumPy's up to the signs of its columns"
                if e > out["err"] or not out["worst"]:
                    out["err"], out["worst"] = e, key
        except Exception:
            out["error"] = traceback.format_exc(limit=-6)
            out["err"] = float("inf")
        if self.mpi is not None:  # the worst over the ranks; the bytes of all ranks
            from mpi4py import MPI

            out["err"] = self.mpi.allreduce(out["err"], op=MPI.MAX)
            out["bytes"] = self.mpi.allreduce(out["bytes"], op=MPI.SUM)
            out["messages"] = self.mpi.allreduce(out["messages"], op=MPI.SUM)
            errors = self.mpi.allgather(out["error"])
            out["error"] = next((e for e in errors if e), None)
        return out

    def time(self, case: cases.Case, rows: int, repeat: int) -> float:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return harness.timed(lambda: self.call(case, rows), repeat, self.mpi)


def serve(kind: str) -> None:
    """A contender's process: commands as JSON lines on rank 0's stdin, answers on its
    stdout (``harness.PREFIX`` lines)."""
    me = Contender(kind)
    while True:
        msg = harness.command(me.mpi)
        if msg["cmd"] == "quit":
            break
        reply: dict = {}
        try:
            if msg["cmd"] == "setup":
                refdir = Path(msg["refdir"])
                results = {}
                for name in msg["only"]:
                    case = cases.BY_NAME[name]
                    results[name] = me.check(
                        case, msg["rows"], refdir, msg["reference"], msg["gather_elements"]
                    )
                reply = {"results": results, "blas": harness.blas_report(me.kind)}
                if me.mpi is not None:
                    reply["ranks"] = me.mpi.size
            elif msg["cmd"] == "time":
                reply = {"time": me.time(cases.BY_NAME[msg["case"]], msg["rows"], msg["repeat"])}
        except Exception:
            reply = {"error": traceback.format_exc(limit=-6)}
        harness.answer(me.mpi, reply)


# -- the driver ---------------------------------------------------------------------------------


def _child_env() -> dict[str, str]:
    """The environment of every contender: without OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, and
    without an enclosing MPI job's variables (a test may run this under mpiexec)."""
    mpi_vars = ("PMI_", "PMIX_", "OMPI_", "HYDRA_", "MPI_LOCAL")
    return harness.child_env(lambda k: k.startswith(mpi_vars))


def start(names: list[str], timeout: float, cuda_device: str = "cuda") -> dict:
    me = [sys.executable, "-m", "mpi4py", str(Path(__file__).resolve()), "--serve"]
    plain = [sys.executable, str(Path(__file__).resolve()), "--serve"]
    servers = {}
    for name in names:
        label, kind, backend, ranks, threads = CONTENDERS[name]
        env = _child_env() | harness.thread_env(threads)
        if name in ON_GPU:  # one process, its arrays on the device
            if kind == "xdist":
                env |= {"XDIST_BACKEND": backend, "XDIST_DEVICE": cuda_device}
                env |= {"XDIST_TORCH_THREADS": str(threads)}
            where = f"{kind}:{cuda_device}"
            servers[name] = harness.Server(name, plain + [where], env, timeout)
            continue
        if kind != "xdist":
            servers[name] = harness.Server(name, plain + [kind], env, timeout)
            continue
        env |= {"XDIST_BACKEND": backend, "XDIST_TORCH_THREADS": str(threads)}
        env |= harness.mpi_env(ranks)
        cmd = [harness.mpiexec("pipelines.py"), "-n", str(ranks), *me, "xdist"]
        servers[name] = harness.Server(name, cmd, env, timeout)
    return servers


def run(args) -> dict:
    names = ["numpy"] + [c for c in args.contenders if c != "numpy"]  # NumPy: the reference
    out: dict = {"rows": args.rows, "contenders": {}, "checks": {}, "times": {}, "failed": {}}
    refdir = Path(tempfile.mkdtemp(prefix="xdist-pipelines-"))
    servers = start(names, args.timeout, args.cuda_device)
    try:
        for name in names:
            t0 = time.monotonic()
            reply = servers[name].ask(
                cmd="setup", rows=args.rows, only=args.only, refdir=str(refdir),
                reference=name == "numpy", gather_elements=args.gather_elements,
            )  # fmt: skip
            if "error" in reply:
                out["failed"][name] = reply["error"].strip()
                print(f"- {CONTENDERS[name][0]}: FAILED to start or set up", flush=True)
                continue
            out["contenders"][name] = {"blas": reply["blas"], "label": CONTENDERS[name][0]}
            for case, res in reply["results"].items():
                out["checks"].setdefault(case, {})[name] = res
            bad = [c for c, r in reply["results"].items() if r["error"] or r["err"] > 1]
            print(
                f"- {CONTENDERS[name][0]}: {reply['blas']}; checked {len(reply['results'])} "
                f"pipelines in {time.monotonic() - t0:.1f} s"
                + (f", {len(bad)} failing: {', '.join(bad)}" if bad else ""),
                flush=True,
            )
        live = [n for n in names if n in out["contenders"]]
        t0 = time.monotonic()
        for r in range(args.rounds):
            for case in args.only:
                # every contender is timed, even one whose check failed (its row says so);
                # one that raised has nothing to time
                order = [n for n in live if not out["checks"][case][n]["error"]]
                shift = r % max(1, len(order))
                for name in order[shift:] + order[:shift]:
                    time.sleep(args.settle)  # the last contender's BLAS threads go idle
                    reply = servers[name].ask(
                        cmd="time", case=case, rows=args.rows, repeat=args.repeat
                    )
                    t = reply.get("time", float("nan"))
                    if "error" in reply:
                        out["failed"][f"{name} {case} (timed)"] = reply["error"].strip()
                    out["times"].setdefault(case, {}).setdefault(name, []).append(t)
            print(f"- round {r + 1} of {args.rounds}: {time.monotonic() - t0:.1f} s", flush=True)
    finally:
        for s in servers.values():
            s.close()
        shutil.rmtree(refdir, ignore_errors=True)
    return out


def _fmt(v: float) -> str:
    if v != v:
        return "-"
    return f"{v:.3g}" if v < 10 else f"{v:.1f}"


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _last_line(text: str) -> str:
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    return lines[-1].strip() if lines else ""


def verdict(checks: dict) -> tuple[str, list[str]]:
    """The ok column of a pipeline, and a line per failing contender."""
    lines = []
    for name, res in checks.items():
        label = CONTENDERS[name][0]
        if res["error"]:
            lines.append(f"{label}: raised {_last_line(res['error'])}")
        elif res["err"] > 1:
            note = f" ({res['note']})" if res.get("note") else ""
            lines.append(
                f"{label}: wrong result: {res['worst']} off by {res['err']:.3g}x the "
                f"tolerance{note}"
            )
    if not lines:
        return "ok", lines
    return "FAIL " + ",".join(ln.split(":")[0] for ln in lines), lines


def _time_cell(checks: dict, times: dict, name: str) -> str:
    """A contender's cell of a pipeline's row: its median time, ``error`` where its check
    raised, empty where it did not run."""
    if name not in checks:
        return ""
    return "error" if checks[name]["error"] else _fmt(harness.median(times.get(name)))


def _gpu_table(out: dict, args) -> None:
    """The GPU contenders' table, where one ran: Torch alone against xdist's Torch-CUDA
    backend at one process (above 1: xdist faster)."""
    if not any(c in out["contenders"] for c in ON_GPU):
        return
    print(f"On `{args.cuda_device}` (Torch alone / xdist-1 Torch-CUDA: above 1, xdist faster)\n")
    print("| pipeline | " + " | ".join(f"{CONTENDERS[c][0]} s" for c in ON_GPU) + " | ratio |")
    print("|---" * (len(ON_GPU) + 2) + "|")
    for case in args.only:
        checks, times = out["checks"].get(case, {}), out["times"].get(case, {})
        cells = [_time_cell(checks, times, c) for c in ON_GPU]
        torch_s, xdist_s = (harness.median(times.get(c)) for c in ON_GPU)
        ratio = torch_s / xdist_s if xdist_s == xdist_s and xdist_s > 0 else float("nan")
        print(f"| {case} | " + " | ".join(cells) + f" | {_fmt(ratio)} |")
    print()


def table(out: dict, args) -> dict:
    """Print the markdown table; return {case: NumPy s / xdist-2 s} (and the others)."""
    cols = ["numpy", "torch", "xdist1", "xdist2", "xdist2torch"]
    heads = ["NumPy s", "Torch s", "xdist-1 s", "xdist-2 s", "xdist-2 torch s"]
    print(
        f"\n### {args.rows} rows, median of {args.rounds} round(s) (each the median of "
        f"{args.repeat} call(s)); collectives, bytes, gathers: xdist-2 (NumPy backend)\n"
    )
    print(
        "| pipeline | " + " | ".join(heads)
        + " | NumPy / xdist-2 | collectives | bytes | gathers | ok |"
    )  # fmt: skip
    print("|---" * (len(heads) + 6) + "|")
    ratios, failures = {}, []
    for case in args.only:
        checks = out["checks"].get(case, {})
        times = out["times"].get(case, {})
        cells = [_time_cell(checks, times, c) for c in cols]
        base = harness.median(times.get("numpy"))
        ratios[case] = {c: base / harness.median(times.get(c)) for c in cols[1:] if times.get(c)}
        ratio = ratios[case].get("xdist2", float("nan"))
        counted = checks.get(COUNTED) or {}
        if counted and not counted.get("error"):
            coll = str(sum(counted["collectives"].values()))
            moved, gathers = _bytes(counted["bytes"]), str(counted["gathers"])
        else:
            coll = moved = gathers = "-"
        ok, lines = verdict(checks)
        failures += [f"{case}: {ln}" for ln in lines]
        row = [case, *cells, _fmt(ratio), coll, moved, gathers, ok]
        print("| " + " | ".join(row) + " |")
    print()
    _gpu_table(out, args)
    for case in args.only:
        counted = (out["checks"].get(case) or {}).get(COUNTED) or {}
        if counted.get("gathers"):
            print(f"- gathers, {case}: {counted['gathers']}; first: {counted['gather_first']}")
    small = {
        case: n
        for case in args.only
        if (n := ((out["checks"].get(case) or {}).get(COUNTED) or {}).get("small_gathers"))
    }
    if small:
        print(
            f"- smaller implicit gathers (at most {args.gather_elements} elements each, not in "
            "the gathers column): " + ", ".join(f"{case} {n}" for case, n in small.items())
        )
    if failures:
        print("\nFailing (error or wrong result; timed anyway where it ran):")
        for line in failures:
            print(f"- {line}")
    return ratios


def plot(ratios: dict, path: str, caption: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [("xdist1", "xdist-1"), ("xdist2", "xdist-2"), ("xdist2torch", "xdist-2 torch")]
    names = list(ratios)
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(names) + 1.6))
    height = 0.8 / len(shown)
    for i, (key, label) in enumerate(shown):
        ys = [k + (i - (len(shown) - 1) / 2) * height for k in range(len(names))]
        ax.barh(ys, [ratios[n].get(key, float("nan")) for n in names], height=height, label=label)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_yticks(range(len(names)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("NumPy's time / xdist's time (above 1: xdist faster)")
    ax.legend(fontsize=8)
    ax.set_title("scikit-learn and SciPy pipelines on xdist against NumPy", fontsize=10)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    Path(path).with_suffix(".txt").write_text(caption + "\n")
    plt.close(fig)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000, help="samples (PCA cases: / 5)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1, help="calls per contender per round")
    parser.add_argument(
        "--settle",
        type=float,
        default=0.2,
        help="seconds of pause before each contender's timed calls, so that the threads of "
        "the contender before (OpenBLAS's spin for a while after a call) leave the cores",
    )
    parser.add_argument("--only", default=",".join(c.name for c in cases.CASES))
    parser.add_argument("--contenders", default=",".join(c for c in CONTENDERS if c not in ON_GPU))
    parser.add_argument(
        "--cuda-device",
        default="cuda",
        help=f"the device of {', '.join(ON_GPU)}; cpu checks the script without a GPU",
    )
    parser.add_argument("--json", default=None, help="write the results to this file")
    parser.add_argument("--plot", default=None, help="a PNG bar chart of the ratios")
    parser.add_argument(
        "--gather-elements",
        type=int,
        default=None,
        help="the table's gathers: implicit gathers (GatherWarnings) of more elements than "
        "this; the smaller ones are listed apart (default: --rows, one sample vector)",
    )
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per command")
    parser.add_argument("--serve", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    args.only = [c.strip() for c in args.only.split(",") if c.strip()]
    if args.gather_elements is None:
        args.gather_elements = args.rows
    args.contenders = [c.strip() for c in args.contenders.split(",") if c.strip()]
    bad = [c for c in args.only if c not in cases.BY_NAME]
    bad += [c for c in args.contenders if c not in CONTENDERS]
    if bad:
        parser.error(
            f"unknown pipeline or contender {bad}; pipelines {list(cases.BY_NAME)}, "
            f"contenders {list(CONTENDERS)}"
        )
    record = harness.RunRecord("pipelines.py")
    print(
        record.opening(
            f"{args.rows} x {cases.FEATURES} float64, PCA "
            f"{cases.data_rows('pca', args.rows)} x {cases.PCA_FEATURES} float32"
        )
    )
    print(f"versions: {harness.versions()}", flush=True)
    record.start()
    out = run(args)
    ratios = table(out, args)
    record.stop()
    caption = record.caption()
    if args.plot:
        plot(ratios, args.plot, caption)
        print(f"wrote {args.plot}")
    if args.json:
        Path(args.json).write_text(json.dumps(out | {"command": caption}, indent=1))
    print(record.closing())
    for name, why in out["failed"].items():
        print(f"- FAILED {name}: {_last_line(why)}")
    failing = any(verdict(c)[1] for c in out["checks"].values()) or out["failed"]
    print("some pipelines failed (above)" if failing else "every result agrees with NumPy's")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
