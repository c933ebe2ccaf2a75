"""What the benchmarks that race contender processes share (``workloads.py``, ``pipelines.py``).

Every contender is a long-lived process that the driver commands over its stdin with JSON
lines: a peer library is one process, an xdist configuration one ``mpiexec`` job whose rank
0 reads the commands and passes them on. Answers come back on rank 0's stdout as lines
that start with ``PREFIX``, so that anything else a library prints is ignored. Here: the
process side (``command``, ``answer``, ``timed``), the driver side (``Server``, the
environments, ``mpiexec``) and the record of a run (``RunRecord``: date, load, versions).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

PREFIX = "@@ "  # marks the servers' protocol lines on stdout
# MPICH settings for more ranks than cores (as tests/run.py): yield while polling.
OVERSUBSCRIBE_ENV = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_POLLS_BEFORE_YIELD": "100",
    "MPIR_CVAR_ENABLE_HEAVY_YIELD": "1",
}


# -- inside a contender's process ----------------------------------------------------------


def command(mpi) -> dict:
    """The next command: rank 0 reads stdin and sends it on; the other ranks poll for it
    with short sleeps (a blocking receive would spin on the CPU another process is timed on)."""
    if mpi is None or mpi.rank == 0:
        line = sys.stdin.readline()
        msg = json.loads(line) if line.strip() else {"cmd": "quit"}
        if mpi is not None:
            for r in range(1, mpi.size):
                mpi.send(msg, dest=r, tag=7)
        return msg
    req = mpi.irecv(source=0, tag=7)
    while True:
        done, msg = req.test()
        if done:
            return msg
        time.sleep(0.002)


def answer(mpi, reply: dict) -> None:
    """Send ``reply`` to the driver: rank 0 speaks for the job."""
    if mpi is None or mpi.rank == 0:
        print(PREFIX + json.dumps(reply), flush=True)


def _finish() -> None:
    """The work of a call done: xdist records chains of elementwise functions and runs them
    when their value is needed, so a result that the call returns unread is made here, in
    the timed interval (``xdist.synchronize``), as an eager library made it in the call; the
    kernels a call queued on a GPU are waited for (Torch's ``cuda.synchronize``)."""
    xdist = sys.modules.get("xdist")
    if xdist is not None:
        xdist.synchronize()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():  # a GPU's queue finished too
        torch.cuda.synchronize()


def timed(fn: Callable[[], object], repeat: int, mpi) -> float:
    """The median of ``repeat`` calls of ``fn``, in seconds (``timed_calls``)."""
    return statistics.median(timed_calls(fn, repeat, mpi))


def timed_calls(fn: Callable[[], object], repeat: int, mpi) -> list[float]:
    """The seconds of ``repeat`` calls of ``fn``, the ranks synchronized before and after
    each call (a call lasts until the slowest rank is done), its pending work made
    (``_finish``)."""
    times = []
    for _ in range(repeat):
        if mpi is not None:
            mpi.Barrier()
        t0 = time.perf_counter()
        result = fn()
        _finish()  # (with the result held: a result dropped unread would never be made)
        if mpi is not None:
            mpi.Barrier()
        times.append(time.perf_counter() - t0)
        del result
    return times


def blas_report(kind: str) -> str:
    """The BLAS this process runs (threadpoolctl), and Torch's where Torch is used."""
    from threadpoolctl import threadpool_info

    parts = []
    for info in threadpool_info():
        if info.get("user_api") != "blas":
            continue
        parts.append(
            f"{info.get('internal_api')} {info.get('version')} {info.get('architecture')} "
            f"kernel, {info.get('num_threads')} threads ({Path(info['filepath']).name})"
        )
    if kind in ("torch", "heat") or (
        kind == "xdist" and os.environ.get("XDIST_BACKEND") == "torch"
    ):
        import re

        import torch

        blas = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
        name = blas.group(1) if blas else "unknown"
        parts.append(f"torch's BLAS {name}, {torch.get_num_threads()} threads")
    unset = ", ".join(f"{k}={os.environ[k]}" for k in UNSET_BLAS if k in os.environ) or "unset"
    return "; ".join(parts) + f"; OPENBLAS_CORETYPE/L2_SIZE {unset}"


# -- the driver ----------------------------------------------------------------------------


def thread_env(n: int) -> dict[str, str]:
    """The variables that set a process's threads, set before any library reads them."""
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")
    return dict.fromkeys(names, str(n)) | {"VECLIB_MAXIMUM_THREADS": str(n)}


# Set by some machine images for old OpenBLAS builds; they pin a slower kernel than the one
# OpenBLAS picks from the CPU, so no contender runs with them.
UNSET_BLAS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def child_env(drop: Callable[[str], bool] = lambda name: False) -> dict[str, str]:
    """This process's environment, less ``UNSET_BLAS`` and the variables ``drop`` names, for a
    contender:
    SciPy's array API on, a fixed hash seed, and Torch's large CPU tensors on huge pages, as
    NumPy's arrays are and as xdist's Torch backend asks (backends/torch.py), so that the
    Torch peer and xdist's Torch backend use the same allocator."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET_BLAS and not drop(k)}
    env.setdefault("THP_MEM_ALLOC_ENABLE", "1")
    return env | {"SCIPY_ARRAY_API": "1", "PYTHONHASHSEED": "0"}


def mpi_env(ranks: int) -> dict[str, str]:
    """What an xdist job of ``ranks`` ranks adds to its environment on this machine."""
    return OVERSUBSCRIBE_ENV if ranks > (os.cpu_count() or 1) else {}


def mpiexec(script: str) -> str:
    """The ``mpiexec`` of this Python's environment first (as tests/run.py); without one the
    benchmark ``script`` cannot run xdist, and exits saying so."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    found = shutil.which("mpiexec", path=path)
    if found is None:
        sys.exit(f"benchmarks/{script}: mpiexec not found; pip install -e '.[mpi,bench]'")
    return found


class Server:
    """One contender process (a peer library, or an mpiexec job of xdist)."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], timeout: float):
        self.name, self.timeout, self.dead = name, timeout, None
        self.err = open(_stderr_file(name), "w+")  # noqa: SIM115  (the process's stderr, kept)
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            env=env,
            text=True,
            start_new_session=True,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            if line.startswith(PREFIX):
                self.lines.put(json.loads(line[len(PREFIX) :]))
        self.lines.put({"error": "the process ended"})

    def ask(self, **msg) -> dict:
        if self.dead:
            return {"error": self.dead}
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # the process has ended (a peer not installed, ...): the pump says so below
        try:
            reply = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            reply = {"error": f"no answer in {self.timeout:.0f} s"}
        if "error" in reply and "Traceback" not in reply["error"]:
            self.err.seek(0)
            self.dead = reply["error"] + "\n" + self.err.read()[-3000:]
            self.close()
            return {"error": self.dead}
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=30)
            except Exception:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        if not self.err.closed:
            self.err.close()
            os.unlink(self.err.name)  # what a failure needed from it is in self.dead


def _stderr_file(name: str) -> str:
    import tempfile

    fd, path = tempfile.mkstemp(prefix=f"xdist-bench-{name.replace(' ', '_')}-", suffix=".err")
    os.close(fd)
    return path


# -- the record of a run ---------------------------------------------------------------------


def versions() -> str:
    """The libraries' versions (from their metadata, nothing imported) and xdist's commit."""
    import importlib.metadata

    out = []
    for dist in ("numpy", "scikit-learn", "torch", "jax", "mpi4py"):
        try:
            out.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{dist} absent")
    git = subprocess.run(
        ["git", "-C", str(Path(__file__).resolve().parent), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    commit = git.stdout.strip() or "unknown"
    return ", ".join(out) + f", Python {sys.version.split()[0]}, xdist at {commit}"


class RunRecord:
    """When and under what load a benchmark ran, and with which libraries: its first lines,
    the caption of its plots and JSON, its last line. The load average is read at the start
    and at the end, since a busy machine makes every time of the run suspect."""

    def __init__(self, script: str):
        self.script = script
        self.args = " ".join(sys.argv[1:])
        self.started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.load0 = os.getloadavg()[0]
        self.load1 = self.load0
        self.t0 = self.took = 0.0

    def opening(self, what: str) -> str:
        """The first line: the command, the date, the machine, the load, then ``what``."""
        return (
            f"benchmarks/{self.script} {self.args}: {self.started}, {os.cpu_count()} CPUs, "
            f"load {self.load0:.1f}; {what}"
        )

    def start(self) -> None:
        self.t0 = time.monotonic()

    def stop(self) -> None:
        self.load1 = os.getloadavg()[0]
        self.took = time.monotonic() - self.t0

    def caption(self) -> str:
        return (
            f"python benchmarks/{self.script} {self.args} ({self.started}, {os.cpu_count()} "
            f"CPUs, load average {self.load0:.1f} at the start, {self.load1:.1f} at the end; "
            f"{versions()})"
        )

    def closing(self) -> str:
        return (
            f"\n{self.took:.0f} s; load average {self.load0:.1f} at the start, "
            f"{self.load1:.1f} at the end"
        )


def median(values) -> float:
    """The median of the values that are not NaN (a failed call's time); NaN if none."""
    vals = [v for v in values or [] if v == v]
    return statistics.median(vals) if vals else float("nan")
