"""Reading and writing a file with xdist.io at 1 and 2 ranks against NumPy / h5py / zarr /
pandas in one process, in the same run.

    python benchmarks/io.py [--size 2] [--ranks 1,2] [--repeat 3] [--dir /tmp] [--cold]

The array is ``--size`` GiB of float32 in 32 columns (1e6 x 32 at 0.12 GiB, scaled);
CSV uses a 64th of it (text is slow everywhere). The driver times the references in this
process: ``np.save``/``np.load``, h5py writing and reading the dataset whole, zarr (no
compression, the same chunks as xdist) and pandas ``to_csv``/``read_csv``. Then it runs this
file under ``mpiexec -n R`` for each R; the ranks build their blocks (split along the rows)
and time xdist.io's saves and loads of the same shapes. Times are medians of ``--repeat``
runs, the ranks synchronized before each.

Where the disk is the limit: the file system's own speed is printed first, one process
writing the bytes of the array with ``os.write`` (into the page cache), then ``fsync`` (to
the disk), then reading them back with ``readinto``. Files of a few GiB on a machine with
more memory stay in the page cache, so warm reads and unsynced writes measure memory copies,
which several ranks can share; ``--cold`` evicts the files from the page cache before every
read (``posix_fadvise(DONTNEED)`` after ``fsync``; no root needed), so reads come from the
disk, which one process may already saturate.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

COLS = 32
CSV_PART = 64


def _shape(size_gib: float, part: int = 1) -> tuple[int, int]:
    rows = int(size_gib * (1 << 30) / (4 * COLS)) // part
    return rows, COLS


def _evict(path: str) -> None:
    """Drop the files of ``path`` (a file or a directory) from the page cache."""
    paths = [path]
    if os.path.isdir(path):
        paths = [os.path.join(d, f) for d, _, files in os.walk(path) for f in files]
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _median(fn, repeat: int, before=None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# -- the worker: xdist under mpiexec --------------------------------------------------------------
def worker(args) -> None:
    """Under mpiexec: time xdist.io; rank 0 prints one JSON line."""
    import xdist
    import xdist.io as xio

    comm = xdist.default_comm()
    d = args.dir

    def run(fn, path=None):
        def before():
            comm.barrier()
            if args.cold and path is not None and comm.rank == 0:
                _evict(path)
            comm.barrier()

        return _median(fn, args.repeat, before)

    def array(shape, seed):
        rows = xdist.Layout.balanced(shape, 0, comm.size).local_shape(comm.rank)
        block = np.random.default_rng([seed, comm.rank]).random(rows, dtype=np.float32)
        return xdist.from_local(block, split=0)

    out = _time_binary(xdist, array(_shape(args.size), 0), d, run)
    xc = array(_shape(args.size, CSV_PART), 1)
    path = os.path.join(d, "xdist.csv")
    out["save csv"] = run(lambda: xio.save_csv(xc, path))
    out["load csv"] = run(lambda: xio.load_csv(path, dtype="float32"), path)
    if comm.rank == 0:
        print("RESULT " + json.dumps(out), flush=True)


def _time_binary(xdist, x, d: str, run) -> dict:
    """xdist.io's times for the binary formats (``run(fn, path)``: the median time)."""
    import xdist.io as xio
    from xdist.io import _npy

    chunks = (max(1, x.shape[0] // 64), COLS)
    p = {ext: os.path.join(d, f"xdist{ext}") for ext in (".npy", ".h5", ".zarr")}
    out = {
        "save npy": run(lambda: xio.save_npy(x, p[".npy"])),
        "load npy": run(lambda: xio.load_npy(p[".npy"]), p[".npy"]),
        "load npy split=1": run(lambda: xio.load_npy(p[".npy"], split=1), p[".npy"]),
    }
    x1 = xdist.resplit(x, 1)
    run_bytes = _npy.RUN_BYTES
    for name, limit in (("runs", 0), ("to split 0", 1 << 62)):
        _npy.RUN_BYTES = limit  # the two schemes of a split along axis 1, forced
        out[f"save npy split=1 ({name})"] = run(lambda: xio.save_npy(x1, p[".npy"]))
    _npy.RUN_BYTES = run_bytes
    out["save hdf5"] = run(lambda: xio.save_hdf5(x, p[".h5"], "d"))
    out["load hdf5"] = run(lambda: xio.load_hdf5(p[".h5"], "d"), p[".h5"])
    out["save zarr"] = run(lambda: xio.save_zarr(x, p[".zarr"], chunks=chunks, compressors=None))
    out["load zarr"] = run(lambda: xio.load_zarr(p[".zarr"]), p[".zarr"])
    return out


# -- the driver: the references in one process ----------------------------------------------------
def _filesystem(g: np.ndarray, d: str, repeat: int) -> dict:
    """One process moving the array's bytes: os.write (page cache), fsync, readinto."""
    path = os.path.join(d, "raw.bin")
    data = memoryview(g.reshape(-1).view(np.uint8))
    times = {"write": [], "fsync": [], "read": [], "read cold": []}
    for _ in range(repeat):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        start = time.perf_counter()
        done = 0
        while done < len(data):
            done += os.write(fd, data[done:])
        times["write"].append(time.perf_counter() - start)
        start = time.perf_counter()
        os.fsync(fd)
        times["fsync"].append(time.perf_counter() - start)
        os.close(fd)
        buf = np.empty_like(g)
        for key in ("read", "read cold"):
            if key == "read cold":
                _evict(path)
            start = time.perf_counter()
            with open(path, "rb") as f:
                f.readinto(memoryview(buf.reshape(-1).view(np.uint8)))
            times[key].append(time.perf_counter() - start)
    os.remove(path)
    return {k: statistics.median(v) for k, v in times.items()}


def references(args, d: str) -> dict:
    import h5py
    import pandas as pd
    import zarr

    g = np.random.default_rng(0).random(_shape(args.size), dtype=np.float32)
    chunks = (max(1, g.shape[0] // 64), COLS)
    p = {ext: os.path.join(d, f"ref{ext}") for ext in (".npy", ".h5", ".zarr", ".csv")}
    cold = (lambda path: lambda: _evict(path)) if args.cold else (lambda path: None)
    r = args.repeat

    def h5_save():
        with h5py.File(p[".h5"], "w") as f:
            f.create_dataset("d", data=g)

    def h5_load():
        with h5py.File(p[".h5"], "r") as f:
            return f["d"][...]

    def zarr_save():
        zarr.create_array(store=p[".zarr"], data=g, chunks=chunks, compressors=None, overwrite=True)

    out = {"filesystem": _filesystem(g, d, r)}
    out["save npy"] = _median(lambda: np.save(p[".npy"], g), r)
    out["load npy"] = _median(lambda: np.load(p[".npy"]), r, cold(p[".npy"]))
    out["load npy split=1"] = out["load npy"]
    out["save npy split=1 (runs)"] = out["save npy split=1 (to split 0)"] = out["save npy"]
    out["save hdf5"] = _median(h5_save, r)
    out["load hdf5"] = _median(h5_load, r, cold(p[".h5"]))
    out["save zarr"] = _median(zarr_save, r)
    out["load zarr"] = _median(lambda: zarr.open_array(p[".zarr"])[...], r, cold(p[".zarr"]))
    frame = pd.DataFrame(g[: _shape(args.size, CSV_PART)[0]])
    out["save csv"] = _median(lambda: frame.to_csv(p[".csv"], header=False, index=False), r)
    read = lambda: pd.read_csv(p[".csv"], header=None, dtype=np.float32)  # noqa: E731
    out["load csv"] = _median(read, r, cold(p[".csv"]))
    return out


def _table(ref: dict, results: dict, gib: float) -> None:
    print("\n| operation | reference (1 process) |", end="")
    for r in results:
        print(f" xdist {r} rank(s) | ref / xdist |", end="")
    both = 1 in results and 2 in results
    print(" 1 rank / 2 ranks |" if both else "")
    print("|" + "---|" * (2 + 2 * len(results) + both))
    for name, t in ref.items():
        if name == "filesystem":
            continue
        row = f"| {name} | {t:.3f} |"
        for res in results.values():
            row += f" {res[name]:.3f} | {t / res[name]:.2f} |"
        if both:
            row += f" {results[1][name] / results[2][name]:.2f} |"
        print(row)
    print("\nseconds (medians); ref / xdist above 1: xdist faster")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=0.25, help="GiB of float32")
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where the files go")
    parser.add_argument("--cold", action="store_true", help="read from the disk, not the cache")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    d = tempfile.mkdtemp(prefix="xdist-io-bench-", dir=args.dir)
    try:
        ref = references(args, d)
        fs, gib = ref["filesystem"], _shape(args.size)[0] * COLS * 4 / (1 << 30)
        print(f"{gib:.2f} GiB float32 ({_shape(args.size)[0]} x {COLS}); CSV a 64th of it")
        print(
            f"file system, one process: os.write {gib / fs['write']:.2f} GiB/s (page cache), "
            f"fsync {gib / fs['fsync']:.2f} GiB/s (to the disk), readinto "
            f"{gib / fs['read']:.2f} GiB/s (cached), {gib / fs['read cold']:.2f} GiB/s (cold)"
        )
        results = {}
        mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
        for r in [int(v) for v in args.ranks.split(",")]:
            cmd = [mpiexec, "-n", str(r), sys.executable, __file__, "--worker", "--dir", d]
            cmd += ["--size", str(args.size), "--repeat", str(args.repeat)]
            cmd += ["--cold"] if args.cold else []
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
            if proc.returncode or not lines:
                sys.exit(f"benchmarks/io.py: {r} rank(s) failed:\n{proc.stdout}\n{proc.stderr}")
            results[r] = json.loads(lines[0][len("RESULT ") :])
        _table(ref, results, gib)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
