"""Moving an array from one layout to another with the cheapest collective.

One planner serves every operation that needs data where it is not:

- same layout: nothing moves;
- replicated -> split: every rank slices its block locally (no message);
- split -> replicated: one ``allgatherv``;
- split(a) -> split(b), or new counts on the same axis: one ``alltoallv`` moving only the
  intersection of each source block with each destination block (the Global Arrays overlap
  idea: what is already local stays).

The functions here work on local blocks and layouts, so manipulation and indexing code can use
them on blocks that are not (yet) arrays.

What reaches MPI is the backend's transport buffer: a host NumPy array (blocks are packed and
unpacked on the host; GPU blocks are staged through pinned memory), or, when the communicator
is CUDA-aware and the block lives on a GPU, the device array itself (``_on_device``): packing
and unpacking then run on the device with the backend's namespace, and nothing is staged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import array_api_compat.numpy as _xp_numpy
import numpy as np

from .._layout import Layout, shifted
from .._transport.comm import Communicator
from ..backends import Backend

__all__ = ["PerRank", "exchange_boxes", "gather_block", "redistribute_block", "slice_replicated"]


def slice_replicated(block: Any, layout: Layout, rank: int) -> Any:
    """``rank``'s block of ``layout`` cut from a full (replicated) copy, without messages."""
    if layout.split is None:
        return block
    return block[layout.local_slice(rank)]


def _on_device(comm: Communicator, backend: Backend, block: Any) -> bool:
    """Whether ``block`` travels as a device buffer (CUDA-aware MPI and a GPU block)."""
    return bool(getattr(comm, "cuda_aware", False)) and backend.device_of(block).kind != "cpu"


def _gather_device(block: Any, layout: Layout, comm: Communicator, backend: Backend) -> Any:
    xp, axis = backend.xp, layout.split
    moved = xp.moveaxis(block, axis, 0) if axis else block
    rest = tuple(moved.shape[1:])
    inner = int(np.prod(rest, dtype=np.int64))
    counts = [c * inner for c in layout.counts]  # type: ignore[union-attr]
    buf = comm.allgatherv(backend.to_buffer(moved, True), counts)
    full = xp.reshape(
        backend.from_buffer(buf, backend.device_of(block)), (layout.shape[axis], *rest)
    )
    return xp.moveaxis(full, 0, axis) if axis else full


def gather_block(block: Any, layout: Layout, comm: Communicator, backend: Backend) -> Any:
    """The whole array on every rank (one ``allgatherv``). Memory: the global array per rank."""
    if layout.split is None:
        return block
    if comm.size == 1:
        return block
    if _on_device(comm, backend, block):
        return _gather_device(block, layout, comm, backend)
    axis = layout.split
    host = backend.to_host(block)
    if axis:  # gather along axis 0, where each rank's block is contiguous
        host = np.ascontiguousarray(np.moveaxis(host, axis, 0))
    rest = host.shape[1:]
    inner = int(np.prod(rest, dtype=np.int64))
    counts = [c * inner for c in layout.counts]  # type: ignore[union-attr]
    flat = comm.allgatherv(host.reshape(-1), counts)
    full = flat.reshape((layout.shape[axis], *rest))
    if axis:
        full = np.ascontiguousarray(np.moveaxis(full, 0, axis))
    return backend.from_host(full, backend.device_of(block))


def exchange_boxes(
    sources: Sequence[tuple[Any, Sequence[tuple[int, int, tuple[slice, ...]]], Sequence[int]]],
    dst_shape_of: Sequence[tuple[int, ...]],
    dst_origin_of: Sequence[Sequence[int]],
    dtype: np.dtype,
    comm: Communicator,
    backend: Backend,
    device: Any,
) -> Any:
    """The general all-to-all: move boxes of global index space between ranks.

    ``sources`` is a list of ``(block, moves, origin)``: this rank's block of one source
    array, every ``(src_rank, dst_rank, global box)`` that moves, and the global index of the
    block's first element (so a box is cut from the block by shifting it). The destination
    block of rank r has shape ``dst_shape_of[r]`` and starts at ``dst_origin_of[r]`` (only
    this rank's entry is read). All sources travel in one ``alltoallv``. The Python work is
    proportional to the moves listed, plus two count lists of ``p`` ints.
    """
    me, size = comm.rank, comm.size
    device_path = bool(sources) and _on_device(comm, backend, sources[0][0])
    # Host path: NumPy on staged copies; device path: the backend's namespace on the blocks.
    xp = backend.xp if device_path else _xp_numpy
    native = backend.native_dtype(dtype) if device_path else dtype
    sendcounts = [0] * size
    recvcounts = [0] * size
    pieces: dict[int, list[Any]] = {}  # by destination: only the ranks this one sends to
    for block, moves, origin in sources:
        local = block if device_path else backend.to_host(block)
        for src, dst, box in moves:
            n = math.prod(s.stop - s.start for s in box)
            if src == me:
                pieces.setdefault(dst, []).append(
                    xp.reshape(xp.astype(local[shifted(box, origin)], native, copy=False), (-1,))
                )
                sendcounts[dst] += n
            if dst == me:
                recvcounts[src] += n
    send_parts = [p for dst in sorted(pieces) for p in pieces[dst]]
    if device_path:
        sendbuf = xp.concat(send_parts) if send_parts else backend.empty((0,), dtype, device)
        recv = backend.from_buffer(
            comm.alltoallv(backend.to_buffer(sendbuf, True), sendcounts, recvcounts), device
        )
        out = backend.empty(dst_shape_of[me], dtype, device)
    else:
        sendbuf = np.concatenate(send_parts) if send_parts else np.empty(0, dtype=dtype)
        recv = comm.alltoallv(sendbuf.astype(dtype, copy=False), sendcounts, recvcounts)
        out = np.empty(dst_shape_of[me], dtype=dtype)
    # Unpack in the order senders packed: by source rank, then source list, then move order.
    displ = np.concatenate([[0], np.cumsum(recvcounts)]).astype(np.int64)
    cursor: dict[int, int] = {}  # where the next box from each source starts in recv
    for _block, moves, _origin in sources:
        for src, dst, box in moves:
            if dst != me:
                continue
            shape = tuple(s.stop - s.start for s in box)
            n = math.prod(shape)
            at = cursor.get(src, int(displ[src]))
            out[shifted(box, dst_origin_of[me])] = xp.reshape(recv[at : at + n], shape)
            cursor[src] = at + n
    return out if device_path else backend.from_host(out, device)


class PerRank:
    """``f(r)`` for any rank ``r``, computed when asked: exchange_boxes reads one rank's."""

    def __init__(self, f: Any) -> None:
        self._f = f

    def __getitem__(self, rank: int) -> Any:
        return self._f(rank)


def redistribute_block(
    block: Any, src: Layout, dst: Layout, comm: Communicator, backend: Backend
) -> Any:
    """This rank's block of ``dst`` from this rank's block of ``src`` (same global shape)."""
    if src.shape != dst.shape:
        raise ValueError(f"redistribute: shapes differ: {src.shape} != {dst.shape}")
    if src == dst or comm.size == 1:
        return block
    if src.split is None:
        return slice_replicated(block, dst, comm.rank)
    if dst.split is None:
        return gather_block(block, src, comm, backend)
    if src.split != dst.split and not _on_device(comm, backend, block):
        return _swap_split(block, src, dst, comm, backend)
    moves = src.overlap(dst, comm.rank)  # only this rank's moves: O(p), not O(p^2)
    return exchange_boxes(
        [(block, moves, src.origin(comm.rank))],
        PerRank(dst.local_shape),
        PerRank(dst.origin),
        backend.dtype_of(block),
        comm,
        backend,
        backend.device_of(block),
    )


def _swap_split(block: Any, src: Layout, dst: Layout, comm: Communicator, backend: Backend) -> Any:
    """``redistribute_block`` from a split along axis ``a`` to one along another axis ``b``:
    this rank's block cut along ``b`` at ``dst``'s boundaries, one piece per rank, and the
    pieces received joined along ``a``, each run of ranks with equal counts in one NumPy
    reshape (``_runs``: at most two for balanced counts) instead of a box per rank in Python
    (``exchange_boxes``) or a view per rank (``np.split``), so that the Python work stays
    the same at thousands of ranks. The same message as ``exchange_boxes``:
    one ``alltoallv``, each piece the box in C order; a piece along the first axis is a
    contiguous run of the block, so no copy is made on that side."""
    a, b = src.split, dst.split
    host = np.ascontiguousarray(backend.to_host(block))
    mine = dst.local_shape(comm.rank)
    per_b = math.prod(n for i, n in enumerate(host.shape) if i != b)  # per index along b
    per_a = math.prod(n for i, n in enumerate(mine) if i != a)  # per index along a
    sendcounts = [c * per_b for c in dst.counts]  # type: ignore[union-attr]
    recvcounts = [c * per_a for c in src.counts]  # type: ignore[union-attr]
    if b == 0:
        send = host.reshape(-1)
    else:  # each run of equal counts cut in one go: axis b split into (ranks, count)
        pieces = []
        for start, k, c in _runs(dst.counts):
            cut = host[(slice(None),) * b + (slice(start, start + k * c),)]
            cut = cut.reshape((*host.shape[:b], k, c, *host.shape[b + 1 :]))
            pieces.append(np.moveaxis(cut, b, 0).reshape(-1))  # destination-major, C order
        send = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    recv = comm.alltoallv(send, sendcounts, recvcounts)
    if a == 0:
        out = recv.reshape(mine)
    else:  # each run of equal counts placed in one go, as it was cut
        out = np.empty(mine, dtype=recv.dtype)
        at = 0
        for start, k, c in _runs(src.counts):
            n = k * c * per_a
            if n:
                got = recv[at : at + n].reshape((k, *mine[:a], c, *mine[a + 1 :]))
                place = out[(slice(None),) * a + (slice(start, start + k * c),)]
                place = place.reshape((*mine[:a], k, c, *mine[a + 1 :]))  # a view: a split axis
                np.moveaxis(place, a, 0)[...] = got
            at += n
    return backend.from_host(out, backend.device_of(block))


def _runs(counts: Any) -> list[tuple[int, int, int]]:
    """``(start, ranks, count)`` of each run of equal consecutive counts: where the run's
    blocks begin along the axis, how many ranks it spans, and each one's count. Balanced
    counts make at most two runs, so ``_swap_split`` cuts and joins the blocks with a few
    NumPy calls whatever the rank count (``np.split`` makes one Python view per rank)."""
    c = np.asarray(counts, dtype=np.int64)
    edges = np.flatnonzero(np.diff(c)) + 1
    firsts = np.concatenate([[0], edges])
    lasts = np.concatenate([edges, [c.size]])
    starts = np.concatenate([[0], np.cumsum(c)])[firsts]
    return [(int(o), int(e - f), int(c[f])) for o, f, e in zip(starts, firsts, lasts)]
