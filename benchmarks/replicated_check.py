"""What the ``check_replicated`` setting costs ``xdist.asarray`` of data given whole.

    mpiexec -n 2 python benchmarks/replicated_check.py [--sizes 1e4,1e6,1e8] [--repeat 21]

``xdist.asarray(data, split=0)`` of the same float64 NumPy array on every rank, timed with
the setting off (``False``: metadata agreed, values trusted), on (``True``, the default: a
fingerprint of about 1024 elements spread over the array, carried in the metadata
allreduce) and ``"full"`` (a fingerprint of every element), and, for scale, the fingerprint
alone: of the default sample, of every element (xdist's one-pass lane sum), and
``zlib.crc32`` of the buffer. The calls of the three settings interleave; each time is the
median of ``--repeat`` calls (at most 5 at 1e8 elements), each started after a barrier;
rank 0 prints a markdown table of medians and of the extra time over ``asarray`` with the
setting off. At one rank nothing is compared, so run it under mpiexec.

``asarray`` of host data on the NumPy backend copies nothing (each rank keeps a view of its
slab), so its own time does not grow with the array: any check that reads every element
costs many times more than it at 1e6 elements and beyond; the default's sample does not.
"""

from __future__ import annotations

import argparse
import statistics
import time
import zlib

import numpy as np

import xdist as xp
from xdist._movement.collectives import fingerprint

SETTINGS = (False, True, "full")


def timed(call, comm, repeat: int) -> float:
    """The median seconds of ``repeat`` calls, each started after a barrier."""
    times = []
    for _ in range(repeat):
        comm.barrier()
        t = time.perf_counter()
        call()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e4,1e6,1e8")
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    comm = xp.default_comm()
    backend = xp.asarray(0.0)._backend
    rows = []
    for size in [int(float(s)) for s in args.sizes.split(",")]:
        data = np.random.default_rng(0).random(size)  # the same on every rank
        repeat = min(args.repeat, 5) if size >= 10**8 else args.repeat
        got = {s: [] for s in SETTINGS}
        for _ in range(repeat):  # the settings interleave
            for setting in SETTINGS:
                with xp.config_context(check_replicated=setting):
                    got[setting].append(
                        timed(lambda: xp.asarray(data, split=0), comm, 1)  # noqa: B023
                    )
        med = {s: statistics.median(v) for s, v in got.items()}
        buffer = memoryview(data).cast("B")
        alone = {
            "sample": timed(lambda: fingerprint(data, backend), comm, repeat),  # noqa: B023
            "every": timed(lambda: fingerprint(data, backend, True), comm, repeat),  # noqa: B023
            "crc32": timed(lambda: zlib.crc32(buffer), comm, repeat),  # noqa: B023
        }
        rows.append((size, med, alone))
    if comm.rank != 0:
        return
    us = 1e6
    print(f"ranks: {comm.size}; backend: {backend.name}; float64; medians in microseconds\n")
    print(
        "| elements | asarray, check off | default (sample) | extra | full | extra "
        "| fingerprint: sample | every element | zlib.crc32 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size, med, alone in rows:
        off = med[False]
        print(
            f"| {size:.0e} | {off * us:.1f} | {med[True] * us:.1f} "
            f"| {(med[True] - off) / off:+.0%} | {med['full'] * us:.1f} "
            f"| {(med['full'] - off) / off:+.0%} | {alone['sample'] * us:.1f} "
            f"| {alone['every'] * us:.1f} | {alone['crc32'] * us:.1f} |"
        )


if __name__ == "__main__":
    main()
