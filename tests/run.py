"""Run the whole test suite for each backend at 1 rank, then under mpiexec at 2 and 3 ranks.

    python tests/run.py [--backends numpy,torch] [--ranks 1,2,3] [--timeout SECONDS]
                        [pytest args...]

The backends default to NumPy, plus Torch (CPU) when ``import torch`` works; each run sets
``XDIST_BACKEND``. The Torch run at one rank makes the tensors that Torch's factories create
without a device on the meta device (``XDIST_TORCH_FACTORY_DEVICE=meta``, tests/conftest.py):
a block mixed with one fails there as it does on a GPU.

Replicated data given to the constructors is compared across the ranks by xdist's default
(``check_replicated``); the runs use the defaults users have.

``tests/packaging/test_packaging.py`` (build the sdist and wheel, install the wheel into a
fresh venv) runs once per command, in the first NumPy 1-rank run; the other runs skip it.

Each run has a wall-clock limit: a hang is killed and reported as a failure. Under mpiexec a
test failing on any rank aborts the whole job (tests/conftest.py), so a failure never leaves
the other ranks waiting. Three ranks on two cores oversubscribe on purpose; MPICH is told to
yield the processor while it waits, or busy polling makes that run crawl.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# MPICH settings for more ranks than cores: yield while polling instead of spinning.
OVERSUBSCRIBE_ENV = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_POLLS_BEFORE_YIELD": "100",
    "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
}


def _mpiexec() -> str:
    exe = shutil.which(
        "mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    )
    if exe is None:
        sys.exit(
            "tests/run.py: mpiexec not found; install the MPI extra: pip install -e '.[mpi,test]'"
        )
    return exe


def _run(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """Run ``cmd``, echoing its output; kill its whole process group past ``timeout``."""
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    out: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            out.append(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        code = -1
    reader.join(timeout=5)
    return code, "".join(out)


def _counts(output: str) -> dict[str, int]:
    """The counts of pytest's closing line (``== 12 passed, 1 skipped in 3.2s ==``)."""
    lines = [ln for ln in output.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    found: dict[str, int] = {}
    if lines:
        for n, word in re.findall(
            r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", lines[-1]
        ):
            found[word.rstrip("s") if word.startswith("error") else word] = int(n)
    return found


def _default_backends() -> str:
    """numpy, and torch when it is installed (found without importing it: that is slow)."""
    return "numpy,torch" if importlib.util.find_spec("torch") is not None else "numpy"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--backends",
        default=_default_backends(),
        help="comma-separated backends (default: numpy, plus torch when installed)",
    )
    parser.add_argument("--ranks", default="1,2,3", help="comma-separated rank counts")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    args, pytest_args = parser.parse_known_args()
    ranks = [int(r) for r in args.ranks.split(",")]
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    base_env = dict(os.environ)
    base_env.setdefault("OMP_NUM_THREADS", "1")
    # Every rank must draw the same examples: set iteration order must not differ per process.
    base_env.setdefault("PYTHONHASHSEED", "0")
    # A rank waiting past this in one collective is named (before the 120 s test watchdog
    # kills a hang); 3 ranks on 2 busy cores can wait a minute without anything wrong.
    base_env.setdefault("XDIST_COLLECTIVE_TIMEOUT", "100")
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args]
    results = []
    total: dict[str, int] = {}
    runs = [(b, n) for b in backends for n in ranks]
    # tests/packaging/test_packaging.py builds and installs the package once per command, and
    # tests/packaging/test_benchmarks.py makes its smoke run of benchmarks/workloads.py once: in the
    # first NumPy 1-rank run (or the first 1-rank run); the others skip them.
    one_rank = [run for run in runs if run[1] == 1]
    packaging_run = min(one_rank, key=lambda run: run[0] != "numpy", default=None)
    for backend, n in runs:
        env = dict(base_env, XDIST_BACKEND=backend)
        env["XDIST_PACKAGING_TEST"] = "1" if (backend, n) == packaging_run else "0"
        env["XDIST_BENCHMARK_TEST"] = env["XDIST_PACKAGING_TEST"]
        if backend == "torch" and n == 1:  # tensors made without a device: see conftest.py
            env.setdefault("XDIST_TORCH_FACTORY_DEVICE", "meta")
        if n == 1:
            cmd = pytest
        else:
            env.update(OVERSUBSCRIBE_ENV)
            cmd = [_mpiexec(), "-n", str(n), sys.executable, "-m", "mpi4py", *pytest[1:]]
        where = f"{backend} at {n} rank{'s' if n > 1 else ''}"
        print(f"\n===== xdist tests, {where}: {' '.join(cmd)}", flush=True)
        start = time.monotonic()
        code, output = _run(cmd, env, args.timeout)
        elapsed = time.monotonic() - start
        if code == -1:
            verdict = f"HUNG: killed after {args.timeout:.0f} s"
        elif code == 0:
            verdict = "ok"
        else:
            verdict = f"FAILED with exit code {code}"
        counts = _counts(output)
        for k, v in counts.items():
            total[k] = total.get(k, 0) + v
        results.append((backend, n, verdict, elapsed, counts))
    print("\n===== summary")
    for backend, n, verdict, elapsed, counts in results:
        print(f"{backend:>6}, {n} rank(s): {verdict} in {elapsed:.0f} s  {counts}")
    failed_runs = sum(v != "ok" for _, _, v, _, _ in results)
    failed = total.get("failed", 0) + total.get("error", 0) + failed_runs
    line = f"{total.get('passed', 0)} passed, {failed} failed"
    if total.get("skipped"):
        line += f", {total['skipped']} skipped"
    print(f"backends {', '.join(backends)}; ranks {args.ranks}")
    print(f"total: {line}")  # the plain closing line CI reads
    return 1 if failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
