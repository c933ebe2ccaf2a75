"""The Python cost of xdist calls at thousands of ranks, on one process.

    python benchmarks/python_at_scale.py [--ranks 8,64,1024,4096] [--repeat 20]

Each operation runs on rank 1 of a stand-in communicator of ``p`` ranks (``SymmetricComm``)
whose collectives return at once what they would if every rank held what this one holds
(an allgather: ``p`` copies of this rank's row; a sum: ``p`` times its buffer; an exchange:
zeros of the sizes it is told). No data crosses a network and the values are not the real
ones, so what is timed is xdist's own Python per call: validation, layout arithmetic, the
loops over ranks that ``docs/scaling.md`` names. Blocks are small (100 rows of 4 per rank),
so the local work is microseconds. The medians of ``--repeat`` calls, in microseconds; a
cost growing with ``p`` is a loop over the ranks.
"""

from __future__ import annotations

import argparse
import operator
import time
import warnings

import numpy as np

import xdist
from xdist import Layout
from xdist._array import Array
from xdist._runtime import default_backend


class SymmetricComm:
    """A communicator of ``size`` ranks, this process being ``rank``, on which every rank is
    assumed to hold and send what this one does (timing only: the values are not real)."""

    cuda_aware = False

    def __init__(self, rank: int, size: int) -> None:
        self.rank, self.size = rank, size

    def node_rank(self) -> int:
        return self.rank

    def barrier(self) -> None:
        pass

    def bcast(self, buf, root):
        return np.array(buf, copy=True)

    def allreduce(self, buf, op):
        buf = np.asarray(buf)
        return buf * self.size if op == "sum" and buf.dtype.kind in "iuf" else buf.copy()

    def exscan(self, buf, op):
        buf = np.asarray(buf)
        return buf * self.rank if op == "sum" else np.ones_like(buf)

    def allgather_ints(self, values):
        return np.tile(np.asarray(values, np.int64), (self.size, 1))

    def allgatherv(self, buf, counts):
        return np.resize(np.asarray(buf).reshape(-1), int(sum(counts)))

    def alltoall_ints(self, values):
        send = np.asarray(values, np.int64).reshape(self.size, -1)
        return np.tile(send[self.rank], (self.size, 1))

    def alltoallv(self, buf, sendcounts, recvcounts):
        return np.zeros(int(sum(recvcounts)), np.asarray(buf).dtype)

    def sendrecv(self, buf, dest, recvcount, source):
        return np.zeros(int(recvcount), np.asarray(buf).dtype)

    def split(self, color, key=0):
        return self

    def dup(self):
        return self


def split_array(comm, rows=100, cols=4, seed=0):
    """A ``(p * rows, cols)`` float64 array split along rows, this rank's block random."""
    layout = Layout.balanced((comm.size * rows, cols), 0, comm.size)
    block = np.random.default_rng(seed).standard_normal(layout.local_shape(comm.rank))
    backend = default_backend()
    return Array._new(backend.asarray(block), layout, comm, backend)


OPERATIONS = {
    "x + y": lambda x, y: x + y,
    "x[10:1000]": lambda x, y: x[10:1000],
    "x[::-1]": lambda x, y: x[::-1],
    "x[:, 1]": lambda x, y: x[:, 1],
    "x[x > 0]": lambda x, y: x[x > 0],
    "take(x, idx)": lambda x, y: xdist.take(
        x, xdist.asarray(np.arange(0, x.shape[0], 7), comm=x._comm), axis=0
    ),
    "reshape": lambda x, y: xdist.reshape(x, (x.shape[0] * 2, 2)),
    "x.mT": lambda x, y: x.mT,
    "sum(x, axis=0)": lambda x, y: xdist.sum(x, axis=0),
    "concat along the split axis": lambda x, y: xdist.concat([x, y], axis=0),
    "resplit(x, 1)": lambda x, y: xdist.resplit(x, 1),
    "x.mT @ y": lambda x, y: x.mT @ y,
    "sort(x[:, 0])": lambda x, y: xdist.sort(x[:, 0]),
    "diff(x, axis=0)": lambda x, y: xdist.diff(x, axis=0),
    "asarray(replicated)": lambda x, y: xdist.asarray(np.ones(5), comm=x._comm),
    "x[2:5] = 1": lambda x, y: operator.setitem(x, slice(2, 5), 1.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="8,64,1024,4096")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    sizes = [int(p) for p in args.ranks.split(",")]
    print(f"xdist {xdist.__version__}: microseconds per call on rank 1 of p (stand-in)")
    print("| operation | " + " | ".join(f"p = {p}" for p in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for name, op in OPERATIONS.items():
        row = []
        for p in sizes:
            comm = SymmetricComm(1, p)
            x, y = split_array(comm), split_array(comm, seed=1)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    op(x, y)
                    times = []
                    for _ in range(args.repeat):
                        t0 = time.perf_counter()
                        op(x, y)
                        times.append(time.perf_counter() - t0)
                row.append(f"{np.median(times) * 1e6:.0f}")
            except Exception as exc:  # a stand-in value that the operation rejects
                row.append(f"n/a ({type(exc).__name__})")
        print(f"| `{name}` | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
