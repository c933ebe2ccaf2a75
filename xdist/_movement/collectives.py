"""Collectives on blocks: with ``redistribute.py`` (the layout-to-layout moves), the one
place above the transport that talks to the communicator.

Each idiom that several chapters use is named once here, and the chapter modules call these
functions instead of the communicator (``tests/packaging/test_architecture.py`` keeps it so):

- agree on a flag: ``any_rank`` / ``all_ranks``;
- exact uneven layouts from local lengths: ``counts_from_local`` / ``layout_from_local``;
- a block combined or copied with host staging: ``allreduce_block``, ``exscan_block``,
  ``bcast_block``, ``allgather_block``, ``sendrecv_block``;
- host arrays (records, counts) reduced or gathered: ``allreduce_host``, ``allgather_ints``,
  ``allgather_host``;
- several equally cut host arrays moved in one message: ``alltoallv_fields``,
  ``allgather_fields``;
- requests routed to the ranks that own what they name and answered: ``Route``,
  ``route_to_owners``, ``ask_owners``;
- neighbours: ``halo`` (the first elements of the following blocks) and ``shift_exchange``
  (a block placed at displaced global ranges);
- inputs that may differ between ranks: ``fingerprint`` (local, bounded cost; its two
  halves travel in a constructor's agreement row) and ``checksums`` (an allgather of them).

A "block" is an array of the backend library (possibly on a GPU); "host" arrays are NumPy.
The collectives of blocks stage them to the host and back here, so the device (and, with a
CUDA-aware MPI, the device path) is handled in one place; a few chapters stage small host
arrays of their own (docs/architecture.md lists them).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._layout import Layout
from .._transport.comm import Communicator, ReduceOp
from ..backends import Backend
from .redistribute import PerRank, exchange_boxes

__all__ = [
    "Route",
    "all_ranks",
    "allgather_block",
    "allgather_fields",
    "allgather_host",
    "allgather_ints",
    "allreduce_block",
    "allreduce_host",
    "alltoall_ints",
    "alltoallv_fields",
    "alltoallv_host",
    "any_rank",
    "ask_owners",
    "back_block",
    "bcast_block",
    "bcast_host",
    "block_ranges",
    "checksums",
    "differing_ranks",
    "fingerprint",
    "fingerprint_halves",
    "counts_from_local",
    "exscan_block",
    "exscan_host",
    "forward_block",
    "halo",
    "layout_from_local",
    "route_to_owners",
    "same_on_every_rank",
    "sample_key",
    "sendrecv_block",
    "shift_exchange",
]


# -- flags -------------------------------------------------------------------------------------
def any_rank(flag: bool, comm: Communicator) -> bool:
    """Whether ``flag`` holds on some rank (one ``allreduce``; none on one rank). Used to
    agree on a data-dependent failure before anyone raises."""
    if comm.size == 1:
        return bool(flag)
    return bool(comm.allreduce(np.array([bool(flag)]), "lor")[0])


def all_ranks(flag: bool, comm: Communicator) -> bool:
    """Whether ``flag`` holds on every rank (one ``allreduce``; none on one rank)."""
    if comm.size == 1:
        return bool(flag)
    return bool(comm.allreduce(np.array([bool(flag)]), "land")[0])


def same_on_every_rank(values: Sequence[int], comm: Communicator) -> bool:
    """Whether every rank gave the same ``values`` (each rank as many): one ``allreduce`` of
    their maxima and negated minima, ``2 len(values)`` ints whatever the rank count; none on
    one rank. Agreement on metadata without the ``p``-row allgather that naming the rank
    that differs needs (take that only once this says no)."""
    if comm.size == 1:
        return True
    row = np.asarray(values, dtype=np.int64)
    both = comm.allreduce(np.concatenate([row, -row]), "max")
    return bool(np.array_equal(both[: row.size], -both[row.size :]))


# -- layouts from local lengths ------------------------------------------------------------------
def counts_from_local(n_local: int, comm: Communicator) -> tuple[int, ...]:
    """Every rank's local length, in rank order (one allgather of one int; none on one rank)."""
    if comm.size == 1:
        return (int(n_local),)
    return tuple(comm.allgather_ints([int(n_local)])[:, 0].tolist())


def layout_from_local(local_shape: Sequence[int], axis: int, comm: Communicator) -> Layout:
    """The exact, possibly uneven layout split along ``axis`` whose block on this rank has
    ``local_shape`` (the other axes are the same on every rank)."""
    counts = counts_from_local(local_shape[axis], comm)
    shape = list(local_shape)
    shape[axis] = sum(counts)
    return Layout(tuple(shape), axis, counts)


# -- host arrays ---------------------------------------------------------------------------------
def allreduce_host(buf: np.ndarray, op: str | ReduceOp, comm: Communicator) -> np.ndarray:
    """``buf`` combined over the ranks with ``op`` (a builtin name or a record ``ReduceOp``)."""
    return comm.allreduce(buf, op)


def exscan_host(buf: np.ndarray, op: str, comm: Communicator) -> np.ndarray:
    """The ``op``-combination of the ``buf`` of every rank before this one (the identity on
    rank 0)."""
    return comm.exscan(buf, op)


def bcast_host(buf: np.ndarray, root: int, comm: Communicator) -> np.ndarray:
    """``root``'s ``buf`` on every rank (the others pass a buffer of the same shape/dtype)."""
    return comm.bcast(buf, root)


def allgather_ints(values: Sequence[int], comm: Communicator) -> np.ndarray:
    """A ``(p, len(values))`` int64 table: row r holds rank r's ``values``."""
    return comm.allgather_ints(values)


def alltoall_ints(table: np.ndarray, comm: Communicator) -> np.ndarray:
    """``table[q]`` (``m`` ints) sent to each rank ``q``; returns the ``(p, m)`` int64 table
    whose row ``q`` is what rank ``q`` sent here (one ``alltoall``; small metadata only)."""
    table = np.asarray(table, dtype=np.int64)
    return comm.alltoall_ints(table.reshape(-1)).reshape(comm.size, -1)


def allgather_host(buf: np.ndarray, counts: Sequence[int], comm: Communicator) -> np.ndarray:
    """The flat host buffers of every rank (``counts[r]`` elements from rank r), in order."""
    return comm.allgatherv(buf, [int(c) for c in counts])


def alltoallv_host(
    buf: np.ndarray, sendcounts: Sequence[int], recvcounts: Sequence[int], comm: Communicator
) -> np.ndarray:
    """``buf`` cut into ``sendcounts[q]`` elements for each rank q, in rank order; returns what
    every rank sent here, ``recvcounts[q]`` elements from rank q, in rank order."""
    return comm.alltoallv(buf, [int(c) for c in sendcounts], [int(c) for c in recvcounts])


# -- blocks, staged through the host --------------------------------------------------------------
def allreduce_block(block: Any, op: str | ReduceOp, comm: Communicator, backend: Backend) -> Any:
    """``block`` combined over the ranks with ``op``, on ``block``'s device."""
    host = comm.allreduce(backend.to_host(block), op)
    return backend.from_host(host, backend.device_of(block))


def exscan_block(block: Any, op: str, comm: Communicator, backend: Backend) -> Any:
    """The ``op``-combination of the blocks of the ranks before this one, on ``block``'s
    device (the identity on rank 0)."""
    host = comm.exscan(backend.to_host(block), op)
    return backend.from_host(host, backend.device_of(block))


def bcast_block(
    block: Any,
    shape: tuple[int, ...],
    dtype: np.dtype,
    root: int,
    comm: Communicator,
    backend: Backend,
    device: Any,
) -> Any:
    """``root``'s ``block`` (of ``shape`` and ``dtype``) on every rank, on ``device``; the
    other ranks' ``block`` is ignored (it may be ``None``)."""
    if comm.rank == root:
        host = np.array(backend.to_host(block), copy=True).reshape(shape)
    else:
        host = np.empty(shape, dtype=dtype)
    return backend.from_host(comm.bcast(host, root).reshape(shape), device)


def allgather_block(
    block: Any, counts: Sequence[int], comm: Communicator, backend: Backend
) -> np.ndarray:
    """The flattened blocks of every rank (``counts[r]`` elements from rank r), in rank
    order, as one host array."""
    return comm.allgatherv(backend.to_host(block).reshape(-1), [int(c) for c in counts])


def sendrecv_block(
    block: Any,
    dest: int,
    shape: tuple[int, ...],
    source: int,
    comm: Communicator,
    backend: Backend,
    device: Any,
) -> Any:
    """Send ``block`` to ``dest`` and receive a block of ``shape`` from ``source``."""
    host = backend.to_host(block).reshape(-1)
    recv = comm.sendrecv(host, dest, int(np.prod(shape, dtype=np.int64)), source)
    return backend.from_host(recv.reshape(shape), device)


# -- several equally cut host arrays in one message ------------------------------------------------
def _packed(fields: Sequence[np.ndarray]) -> np.ndarray:
    """Arrays of one length (any trailing shapes and dtypes) as one record array."""
    if len(fields) == 1 and fields[0].ndim == 1:
        return fields[0]
    dtype = np.dtype([(f"f{i}", f.dtype, f.shape[1:]) for i, f in enumerate(fields)])
    buf = np.empty(len(fields[0]), dtype)
    for i, f in enumerate(fields):
        buf[f"f{i}"] = f
    return buf


def _unpacked(buf: np.ndarray, like: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len(like) == 1 and like[0].ndim == 1:
        return [buf]
    # A copy, not ascontiguousarray: a field of one element keeps its record stride there.
    return [buf[f"f{i}"].copy() for i in range(len(like))]


def alltoallv_fields(
    fields: Sequence[np.ndarray],
    sendcounts: Sequence[int],
    recvcounts: Sequence[int],
    comm: Communicator,
) -> list[np.ndarray]:
    """One ``alltoallv`` moving several host arrays cut alike along their first axis
    (``sendcounts`` rows to each rank; ``recvcounts`` rows from each)."""
    got = alltoallv_host(_packed(fields), sendcounts, recvcounts, comm)
    return _unpacked(got, fields)


def allgather_fields(
    fields: Sequence[np.ndarray], counts: Sequence[int], comm: Communicator
) -> list[np.ndarray]:
    """One ``allgatherv`` of several host arrays of one length (``counts[r]`` rows from r)."""
    return _unpacked(allgather_host(_packed(fields), counts, comm), fields)


# -- ask the owners and answer --------------------------------------------------------------------
@dataclass(frozen=True)
class Route:
    """Rows sent to the ranks that own them, and replies brought back in the rows' order.

    ``order`` sorts this rank's rows by owner; ``sendcounts[q]`` rows go to rank q and
    ``recvcounts[q]`` arrive from it.
    """

    order: np.ndarray
    sendcounts: np.ndarray
    recvcounts: np.ndarray
    comm: Communicator

    def forward(self, fields: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each row of ``fields`` (host arrays, one row per request) at its owner: one
        ``alltoallv``; the rows arrive grouped by source rank."""
        return alltoallv_fields(
            [f[self.order] for f in fields], self.sendcounts, self.recvcounts, self.comm
        )

    def back(self, replies: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The owners' ``replies`` (one row per received request, in arrival order) at the
        ranks that asked, in the order of their rows: one ``alltoallv``."""
        got = alltoallv_fields(replies, self.recvcounts, self.sendcounts, self.comm)
        out = []
        for g in got:
            o = np.empty_like(g)
            o[self.order] = g
            out.append(o)
        return out


def route_to_owners(owners: np.ndarray, comm: Communicator, bad: bool = False) -> Route | None:
    """The route of this rank's requests to ``owners`` (one rank per request), after one
    ``alltoall`` of the counts that also agrees on ``bad``: ``None`` on every rank when some
    rank saw a bad request (each then raises its error, and no data moves)."""
    size = comm.size
    owners = np.asarray(owners, dtype=np.int64)
    sendcounts = np.bincount(owners, minlength=size) if not bad else np.zeros(size, np.int64)
    meta = comm.alltoall_ints([v for q in range(size) for v in (int(sendcounts[q]), int(bad))])
    if meta[:, 1].any():
        return None
    order = np.argsort(owners, kind="stable")
    return Route(order, sendcounts, meta[:, 0].astype(np.int64), comm)


def ask_owners(
    keys: np.ndarray,
    owners: np.ndarray,
    answer: Callable[[np.ndarray], np.ndarray],
    comm: Communicator,
    bad: bool = False,
) -> np.ndarray | None:
    """Send every key (rows of a host array) to rank ``owners[i]``, which replies with
    ``answer(keys it received)`` (one reply row per key); returns the replies in the order of
    ``keys``, or ``None`` on every rank when some rank passed ``bad`` (agreed with the counts).

    Messages: one ``alltoall`` of counts and flags, one ``alltoallv`` of the keys and one of
    the replies.
    """
    route = route_to_owners(owners, comm, bad)
    if route is None:
        return None
    (received,) = route.forward([keys])
    (replies,) = route.back([np.asarray(answer(received))])
    return replies


# -- neighbours -----------------------------------------------------------------------------------
def _axis_box(shape: Sequence[int], axis: int, lo: int, hi: int) -> tuple[slice, ...]:
    full = [slice(0, n) for n in shape]
    full[axis] = slice(lo, hi)
    return tuple(full)


def _axis_origin(ndim: int, axis: int, start: int) -> list[int]:
    at = [0] * ndim
    at[axis] = start
    return at


def halo(
    block: Any,
    layout: Layout,
    halos: Sequence[tuple[int, int]],
    comm: Communicator,
    backend: Backend,
    device: Any,
) -> Any:
    """This rank's halo: the global range ``halos[rank]`` of the split axis (after its block).

    When every halo lies in the next rank's block, one ``sendrecv`` shifts the first rows of
    each block to the rank before; otherwise (empty or short blocks) one ``alltoallv`` brings
    the range from whichever ranks hold it.
    """
    axis, me, size = layout.split, comm.rank, comm.size
    starts, ends = layout.bounds[:-1], layout.bounds[1:]  # the blocks, as NumPy arrays
    h = np.asarray(halos, dtype=np.int64).reshape(size, 2)
    lo, hi = h[:, 0], h[:, 1]
    shape = list(layout.local_shape(me))
    shape[axis] = int(hi[me] - lo[me])
    following = np.append(ends[1:], ends[-1])  # the end of the next rank's block
    if bool(np.all((lo == hi) | (hi <= following))):
        send = int(hi[me - 1] - lo[me - 1]) if me > 0 else 0
        key = [slice(None)] * layout.ndim
        key[axis] = slice(0, send)
        return sendrecv_block(
            block[tuple(key)],
            (me - 1) % size,
            tuple(shape),
            (me + 1) % size,
            comm,
            backend,
            device,
        )
    # Only what this rank receives or sends, found by NumPy over the ranks: O(p) in C.
    moves = []
    meets = (starts < hi[me]) & (ends > lo[me]) & (starts < ends) & (lo[me] < hi[me])
    for src in np.nonzero(meets)[0].tolist():
        a, b = max(int(lo[me]), int(starts[src])), min(int(hi[me]), int(ends[src]))
        moves.append((src, me, _axis_box(layout.shape, axis, a, b)))
    mine_lo, mine_hi = int(starts[me]), int(ends[me])
    wanted = (lo < mine_hi) & (hi > mine_lo) & (lo < hi) & (mine_lo < mine_hi)
    for dst in np.nonzero(wanted)[0].tolist():
        if dst != me:
            a, b = max(int(lo[dst]), mine_lo), min(int(hi[dst]), mine_hi)
            moves.append((me, dst, _axis_box(layout.shape, axis, a, b)))

    def halo_shape(r: int) -> tuple[int, ...]:
        return tuple(int(hi[r] - lo[r]) if i == axis else m for i, m in enumerate(layout.shape))

    return exchange_boxes(
        [(block, moves, _axis_origin(layout.ndim, axis, mine_lo))],
        PerRank(halo_shape),
        PerRank(lambda r: _axis_origin(layout.ndim, axis, int(lo[r]))),
        backend.dtype_of(block),
        comm,
        backend,
        device,
    )


def block_ranges(layout: Layout) -> np.ndarray:
    """Every rank's ``(lo, hi)`` along the split axis, as a ``(p, 2)`` int64 array."""
    return np.stack([layout.bounds[:-1], layout.bounds[1:]], axis=1)


def _interval_moves(src: Any, shift: int, dst: np.ndarray, me: int):
    """``(src_rank, dst_rank, (lo, hi))`` in destination coordinates for each overlap of a
    source range moved by ``shift`` with a destination range, that this rank sends or
    receives (each rank lists only its own; exchange_boxes needs no more), by NumPy over
    the ranks' ``(p, 2)`` ranges."""
    moved = np.asarray(src, dtype=np.int64).reshape(-1, 2) + shift
    lo, hi = np.maximum(moved[me, 0], dst[:, 0]), np.minimum(moved[me, 1], dst[:, 1])
    moves = [(me, r, (int(lo[r]), int(hi[r]))) for r in np.flatnonzero(lo < hi).tolist()]
    lo, hi = np.maximum(moved[:, 0], dst[me, 0]), np.minimum(moved[:, 1], dst[me, 1])
    moves += [
        (r, me, (int(lo[r]), int(hi[r]))) for r in np.flatnonzero(lo < hi).tolist() if r != me
    ]
    return moves


def shift_exchange(
    block: Any,
    src: Any,
    shifts: Sequence[int],
    out: Layout,
    comm: Communicator,
    backend: Backend,
    device: Any,
) -> Any:
    """This rank's block of ``out`` when every rank's ``block`` (global range ``src[rank]``
    along ``out.split``, all of every other axis of ``out``; ``src`` a ``(p, 2)`` array such
    as ``block_ranges``) is placed at each displacement in ``shifts``; ranges falling outside
    the axis are dropped. One ``alltoallv``."""
    axis, me = out.split, comm.rank
    dst = block_ranges(out)
    sources = []
    for shift in shifts:
        moves = [
            (s, d, _axis_box(out.shape, axis, *r))
            for s, d, r in _interval_moves(src, shift, dst, me)
        ]
        sources.append((block, moves, _axis_origin(out.ndim, axis, int(src[me][0]) + shift)))
    return exchange_boxes(
        sources,
        PerRank(out.local_shape),
        PerRank(lambda r: _axis_origin(out.ndim, axis, int(dst[r, 0]))),
        backend.dtype_of(block),
        comm,
        backend,
        device,
    )


# -- blocks along a route (rows of values sent to their owners and back) ---------------------------
def forward_block(route: Route, block: Any, backend: Backend, device: Any) -> Any:
    """Each row of ``block`` (one row per request of ``route``) at its owner, on ``device``:
    one ``alltoallv``; the rows arrive grouped by source rank, as ``route.forward``'s do."""
    (host,) = route.forward([backend.to_host(block)])
    return backend.from_host(host, device)


def back_block(route: Route, block: Any, backend: Backend, device: Any) -> Any:
    """The owners' replies ``block`` (one row per received request, in arrival order) at the
    ranks that asked, in the order of their requests, on ``device``: one ``alltoallv``."""
    (host,) = route.back([backend.to_host(block)])
    return backend.from_host(host, device)


# -- inputs that may differ between ranks -------------------------------------------------------
# A fingerprint reads at most this many elements, spread evenly over every axis (all of a
# smaller array): a bounded cost, where hashing every byte would cost more than the
# constructor it guards (benchmarks/replicated_check.py).
SAMPLE_ELEMENTS = 1024
_LANES = 64
# Distinct odd 64-bit weights, one per word of a sample (up to 16 bytes an element).
_WEIGHTS = (np.arange(2 * SAMPLE_ELEMENTS, dtype=np.uint64) * np.uint64(2) + np.uint64(1)) * (
    np.uint64(0x9E3779B97F4A7C15)
)
_MASK64 = (1 << 64) - 1


@functools.lru_cache(maxsize=256)
def sample_key(shape: tuple[int, ...]) -> tuple[slice, ...] | None:
    """The basic-slicing key that picks about ``SAMPLE_ELEMENTS`` evenly spaced elements of
    an array of ``shape`` (``None``: the array is small enough to be read whole). The budget
    is shared among the axes, shortest first, so that every axis is sampled."""
    if math.prod(shape) <= SAMPLE_ELEMENTS:
        return None
    steps = [1] * len(shape)
    left = SAMPLE_ELEMENTS
    order = sorted(range(len(shape)), key=lambda a: shape[a])
    for i, axis in enumerate(order):
        n = shape[axis]
        want = max(1, math.ceil(left ** (1 / (len(order) - i))))
        steps[axis] = -(-n // min(n, want))
        left = max(1, left // -(-n // steps[axis]))
    return tuple(slice(None, None, step) for step in steps)


def _fold(raw: np.ndarray) -> int:
    """A 64-bit fingerprint of the bytes ``raw`` in one pass: the bytes as uint64 words, each
    weighted by a distinct odd constant (a sample: one wrapping dot product) or, for more
    words than weights, summed (wrapping) in 64 lanes by position and the lanes weighted;
    with the trailing bytes and the byte count, mixed by SplitMix64's finalizer."""
    n = raw.size // 8
    words = raw[: 8 * n].view(np.uint64)
    if n <= _WEIGHTS.size:
        h = int(np.dot(words, _WEIGHTS[:n]))
    else:
        whole = n // _LANES * _LANES
        lanes = words[:whole].reshape(-1, _LANES).sum(axis=0, dtype=np.uint64)
        lanes[: n - whole] += words[whole:]
        h = int(np.dot(lanes, _WEIGHTS[:_LANES]))
    h += int.from_bytes(raw[8 * n :].tobytes(), "little") * 0xD6E8FEB86659FD93 + raw.size
    h &= _MASK64
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK64
    return h ^ (h >> 31)


def fingerprint(data: Any, backend: Backend, full: bool = False) -> int:
    """A 64-bit fingerprint of the values of ``data`` (a block of ``backend`` or a NumPy
    array of a standard dtype): of ``SAMPLE_ELEMENTS`` evenly spaced elements (every element
    of a smaller array), or with ``full`` of every element. Only the sample is copied to the
    host (a block on a GPU stages the sample, not the block; ``full`` stages the block). Equal
    data give equal fingerprints on every rank; data whose sampled elements differ in any bit
    give different ones (up to a 2^-64 chance). No message."""
    shape = tuple(int(n) for n in data.shape)
    if math.prod(shape) == 0:
        return 0
    key = None if full else sample_key(shape)
    if key is not None:
        data = data[key]
    host = backend.to_host(data) if backend.is_block(data) else np.asarray(data)
    return _fold(np.ascontiguousarray(host).reshape(-1).view(np.uint8))


def fingerprint_halves(value: int) -> list[int]:
    """A 64-bit ``value`` as two non-negative ints below 2^32, so that it travels in an int64
    row that ``same_on_every_rank`` negates."""
    return [value >> 32, value & 0xFFFFFFFF]


def checksums(data: Any, comm: Communicator, backend: Backend, full: bool = False) -> list[int]:
    """Every rank's ``fingerprint`` of its ``data`` (one allgather of one int): whether
    replicated data is the same on every rank, and which ranks differ. None on one rank."""
    mine = fingerprint(data, backend, full)
    if comm.size == 1:
        return [mine]
    signed = mine - (1 << 64) if mine >> 63 else mine  # the same 64 bits as an int64
    return [v & _MASK64 for v in allgather_ints([signed], comm)[:, 0].tolist()]


def differing_ranks(values: Sequence[Any]) -> str:
    """Which ranks' ``values`` differ from rank 0's, for an error message."""
    same = [r for r, v in enumerate(values) if v == values[0]]
    other = [r for r, v in enumerate(values) if v != values[0]]
    return f"ranks {other} differ from rank 0 (ranks {same} agree with it)"
