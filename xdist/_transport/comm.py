"""The communicator protocol, the one-process communicator and the collective counter.

Every distributed algorithm in xdist talks to other ranks only through a ``Communicator``.
Array data travels as contiguous NumPy buffers (the backends stage device memory through
them) or, when the MPI library is CUDA-aware, as ``DeviceBuffer``s wrapping contiguous device
arrays that MPI reads and writes in place; nothing here pickles an array. ``MPIComm`` (in
``_mpi``) implements the protocol on mpi4py; ``SelfComm`` implements it for one process
with plain copies, so xdist works on a machine with no MPI library at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..backends.base import DeviceBuffer

__all__ = [
    "Communicator",
    "DeviceBuffer",
    "SelfComm",
    "ReduceOp",
    "BUILTIN_OPS",
    "CollectiveCounts",
    "count_collectives",
    "reduce_local",
]

BUILTIN_OPS = ("sum", "prod", "min", "max", "land", "lor")


@dataclass(frozen=True, slots=True)
class ReduceOp:
    """A user-defined reduction over records of ``record`` float64 values.

    ``combine(a, b)`` takes two arrays of shape ``(n, record)`` and returns their merge; it
    must be associative and commutative (up to rounding). Used for the one-pass moment merges
    of the statistical functions (Chan / Pébay), which need more than MPI's builtin ops.
    """

    name: str
    record: int
    combine: Callable[[np.ndarray, np.ndarray], np.ndarray]


def buffer_size(buf: Any) -> int:
    """Elements in a host ndarray or a ``DeviceBuffer`` (no conversion of device memory)."""
    return buf.size if isinstance(buf, DeviceBuffer) else int(np.size(buf))


def reduce_local(a: np.ndarray, b: np.ndarray, op: str | ReduceOp) -> np.ndarray:
    """Combine two partial results with ``op`` the way the collective does."""
    if isinstance(op, ReduceOp):
        return op.combine(a.reshape(-1, op.record), b.reshape(-1, op.record)).reshape(a.shape)
    if op == "sum":
        return a + b
    if op == "prod":
        return a * b
    if op == "min":
        return np.minimum(a, b)  # propagates NaN, as the standard's min does
    if op == "max":
        return np.maximum(a, b)
    if op == "land":
        return np.logical_and(a, b)
    if op == "lor":
        return np.logical_or(a, b)
    raise ValueError(f"allreduce: unknown op {op!r}; expected one of {BUILTIN_OPS} or a ReduceOp")


def check_op(op: str | ReduceOp) -> None:
    if not isinstance(op, ReduceOp) and op not in BUILTIN_OPS:
        raise ValueError(
            f"allreduce: unknown op {op!r}; expected one of {BUILTIN_OPS} or a ReduceOp"
        )


class CollectiveCounts(Counter):
    """What ``count_collectives`` yields: a ``Counter`` of logical collective calls by name,
    with two more counters by name for this rank's traffic:

    - ``bytes``: the payload this rank contributes for other ranks (counted once, whatever
      the collective's algorithm fans it out to): ``allreduce``, ``exscan`` its buffer
      (``exscan``: not on the last rank, whose buffer reaches nobody); ``bcast`` its buffer
      on the root, nothing elsewhere; ``allgather``, ``allgatherv`` its own part;
      ``alltoall``, ``alltoallv`` the parts for the other ranks (its own part stays);
      ``sendrecv`` its buffer when the destination is another rank;
    - ``messages``: how many other ranks that payload is addressed to (``allreduce``,
      ``allgather(v)``, ``bcast`` from the root: p - 1; ``exscan``: the ranks after this one;
      ``alltoall(v)``: the other ranks with a nonempty part; ``sendrecv``: 1 to another rank).

    A one-rank communicator sends nothing: zero bytes and messages. Array data is counted in
    its dtype's bytes (a dtype sent as raw bytes counts the same).
    """

    def __init__(self) -> None:
        super().__init__()
        self.bytes: Counter[str] = Counter()
        self.messages: Counter[str] = Counter()


class _CollectiveCounter:
    """Counts collective calls by name, and the traffic of each, for tests (DTensor's
    CommDebugMode idea). ``active`` is falsy when nobody counts, so a collective pays one
    truth test and computes no sizes."""

    def __init__(self) -> None:
        self.active: list[CollectiveCounts] = []

    def record(self, name: str) -> None:
        for counts in self.active:
            counts[name] += 1

    def traffic(self, name: str, nbytes: int, messages: int) -> None:
        """Add this rank's payload for other ranks (``CollectiveCounts``) to every counter."""
        for counts in self.active:
            counts.bytes[name] += int(nbytes)
            counts.messages[name] += int(messages)

    @contextmanager
    def counting(self) -> Iterator[CollectiveCounts]:
        counts = CollectiveCounts()
        self.active.append(counts)
        try:
            yield counts
        finally:
            self.active.remove(counts)


_counter = _CollectiveCounter()


def count_collectives() -> contextmanager:  # type: ignore[valid-type]
    """Context manager yielding a ``CollectiveCounts`` (a ``Counter`` of collective calls
    made inside it, by name; ``.bytes`` and ``.messages`` by name for this rank's traffic).

    Every communicator (one-process or MPI) reports to it, one count per logical call
    however many chunks the call was cut into::

        with xdist.count_collectives() as counts:
            y = x.sum(axis=0)            # x split along axis 0, 8 float64 columns
        assert counts == {"allreduce": 1} and counts.bytes["allreduce"] == 64  # at p > 1
    """
    return _counter.counting()


@runtime_checkable
class Communicator(Protocol):
    """What xdist needs from a communicator. Every method is collective unless noted."""

    @property
    def rank(self) -> int:
        """This process's number among the communicator's ranks, ``0 <= rank < size``."""
        ...

    @property
    def size(self) -> int:
        """The number of ranks."""
        ...

    @property
    def cuda_aware(self) -> bool:
        """Whether collectives take ``DeviceBuffer``s (a CUDA-aware MPI); else host only."""
        ...

    def node_rank(self) -> int:
        """This rank's position among the ranks of its node (collective on first call)."""
        ...

    def barrier(self) -> None:
        """Return once every rank has entered it: time a step between two barriers, so that
        the time is the slowest rank's (on a GPU, synchronise the device as well)."""
        ...

    def bcast(self, buf: np.ndarray, root: int) -> np.ndarray:
        """Broadcast ``buf`` of ``root`` into ``buf`` of every rank (same shape and dtype)."""
        ...

    def allreduce(self, buf: np.ndarray, op: str | ReduceOp) -> np.ndarray:
        """Combine ``buf`` of all ranks elementwise; a new array on every rank."""
        ...

    def exscan(self, buf: np.ndarray, op: str) -> np.ndarray:
        """Exclusive prefix reduction; rank 0 gets the identity of ``op`` (sum or prod)."""
        ...

    def allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        """Each rank gives ``len(values)`` ints; returns an int64 array ``(size, len(values))``."""
        ...

    def allgatherv(self, buf: np.ndarray, counts: Sequence[int]) -> np.ndarray:
        """Concatenate the flat ``buf`` of every rank (rank r gives ``counts[r]`` elements)."""
        ...

    def alltoall_ints(self, values: Sequence[int]) -> np.ndarray:
        """Each rank gives ``size * m`` ints, ``m`` for each rank in rank order; returns an int64
        array ``(size, m)`` whose row ``q`` is what rank ``q`` gave this rank. Meant for small
        metadata (the counts of a following ``alltoallv``, error flags)."""
        ...

    def alltoallv(
        self, buf: np.ndarray, sendcounts: Sequence[int], recvcounts: Sequence[int]
    ) -> np.ndarray:
        """Flat ``buf`` holds ``sendcounts[r]`` elements for each rank r in order; returns the
        flat concatenation of ``recvcounts[r]`` elements received from each rank r."""
        ...

    def sendrecv(self, buf: np.ndarray, dest: int, recvcount: int, source: int) -> np.ndarray:
        """Send flat ``buf`` to ``dest`` and receive ``recvcount`` elements from ``source``."""
        ...

    def split(self, color: int, key: int = 0) -> Communicator:
        """A communicator per ``color`` of the ranks that gave it, ordered by ``key``."""
        ...

    def dup(self) -> Communicator:
        """A communicator of the same ranks whose messages never match this one's."""
        ...


class SelfComm:
    """The communicator of one process: every collective is a local copy."""

    rank = 0
    size = 1
    cuda_aware = False  # one process: nothing to send, so blocks never need a device buffer

    def __repr__(self) -> str:
        return "SelfComm()"

    def node_rank(self) -> int:
        return 0

    def barrier(self) -> None:
        _counter.record("barrier")

    def bcast(self, buf: np.ndarray, root: int) -> np.ndarray:
        _check_root(root, 1)
        _counter.record("bcast")
        return buf

    def allreduce(self, buf: np.ndarray, op: str | ReduceOp) -> np.ndarray:
        check_op(op)
        _counter.record("allreduce")
        return np.array(buf, copy=True)

    def exscan(self, buf: np.ndarray, op: str) -> np.ndarray:
        _counter.record("exscan")
        return exscan_identity(buf, op)

    def allgather_ints(self, values: Sequence[int]) -> np.ndarray:
        _counter.record("allgather")
        return np.asarray(values, dtype=np.int64).reshape(1, -1)

    def alltoall_ints(self, values: Sequence[int]) -> np.ndarray:
        send = np.asarray(values, dtype=np.int64).reshape(-1)
        _counter.record("alltoall")
        return send.reshape(1, -1).copy()

    def allgatherv(self, buf: np.ndarray, counts: Sequence[int]) -> np.ndarray:
        _check_counts("allgatherv", buf.size, counts, 1)
        _counter.record("allgatherv")
        return np.array(buf.reshape(-1), copy=True)

    def alltoallv(
        self, buf: np.ndarray, sendcounts: Sequence[int], recvcounts: Sequence[int]
    ) -> np.ndarray:
        _check_counts("alltoallv", buf.size, sendcounts, 1)
        _counter.record("alltoallv")
        return np.array(buf.reshape(-1), copy=True)

    def sendrecv(self, buf: np.ndarray, dest: int, recvcount: int, source: int) -> np.ndarray:
        _check_root(dest, 1)
        _check_root(source, 1)
        _counter.record("sendrecv")
        return np.array(buf.reshape(-1), copy=True)

    def split(self, color: int, key: int = 0) -> SelfComm:
        _counter.record("split")
        return SelfComm()

    def dup(self) -> SelfComm:
        _counter.record("dup")
        return SelfComm()


def exscan_identity(buf: np.ndarray, op: str) -> np.ndarray:
    if op == "sum":
        return np.zeros_like(buf)
    if op == "prod":
        return np.ones_like(buf)
    raise ValueError(f"exscan: op must be 'sum' or 'prod', got {op!r}")


def _check_root(root: int, size: int) -> None:
    if not 0 <= root < size:
        raise ValueError(f"rank {root} out of range for a communicator of size {size}")


def _check_counts(name: str, n: int, counts: Sequence[int], size: int) -> None:
    if len(counts) != size:
        raise ValueError(f"{name}: expected {size} counts, got {len(counts)}")
    if sum(counts) != n:
        raise ValueError(f"{name}: counts sum to {sum(counts)} but the buffer has {n} elements")
