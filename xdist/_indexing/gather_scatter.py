"""Gather and scatter by global coordinates: the engine that integer-array indexing, boolean
masks, ``take`` and ``take_along_axis`` share.

``fetch`` reads, and ``store`` writes, the elements of an array at coordinates along some of
its axes (the other axes taken whole); each element is read or written by the rank that owns
it. What travels:

- the array is replicated, or not split along a coordinate axis: each rank gathers from (or
  scatters into) its own block, no message (but one ``allreduce`` to agree on an
  out-of-bounds flag when the coordinates differ between ranks);
- split along a coordinate axis, coordinates split: the requests are routed to their owners
  (``collectives.route_to_owners``: one ``alltoall`` of counts that also agrees on the
  out-of-bounds flag, then one ``alltoallv`` of the coordinates), and the values travel back
  (``fetch``) or forward (``store``) in one more ``alltoallv``;
- split along a coordinate axis, coordinates the same on every rank: ``fetch`` has each owner
  contribute what it holds to one ``allgatherv`` of the selected values (never of the
  source), and ``fetch_spread`` has each owner send every rank the values of the positions
  that rank holds of a split result (one ``alltoallv``, no request: every rank knows every
  coordinate); ``store`` has each owner write what it owns, no message.

Routing (owners, orders, counts) is computed on host copies of the coordinates, which travel
through MPI anyway; values are gathered and scattered with the backend's own indexing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _array
from .. import _block_pool as block_pool
from .._movement.collectives import (
    allgather_block,
    alltoallv_host,
    any_rank,
    back_block,
    forward_block,
    route_to_owners,
)
from ..backends import Backend
from .values import SCALARS

__all__: list[str] = []


def normalize_block(block: Any, n: int, backend: Backend) -> tuple[Any, bool]:
    """``block`` as int64 indices in ``[0, n)`` (negative ones counted from the end), and
    whether any index was out of bounds (then the values returned are not to be used). The
    bounds are checked on the block's least and greatest index (two passes), and negative
    indices are shifted only where there are some."""
    xp = backend.xp
    if math.prod(block.shape) == 0:
        return xp.astype(block, xp.int64), False
    if backend.dtype_of(block).kind == "u":
        bad = bool(xp.max(block) >= n)
        return xp.astype(block, xp.int64), bad
    if backend.dtype_of(block) != np.dtype("int64"):
        block = xp.astype(block, xp.int64)
    low = int(xp.min(block))
    bad = low < -n or int(xp.max(block)) >= n
    if low < 0:
        block = xp.where(block < 0, block + n, block)
    return block, bad


# -- local gather and scatter on a block -------------------------------------------------------
def _adv_first(block: Any, adv: tuple[int, ...], xp: Any) -> Any:
    """A view of ``block`` with the indexed axes first, in order."""
    order = (*adv, *(a for a in range(block.ndim) if a not in adv))
    return block if order == tuple(range(block.ndim)) else xp.permute_dims(block, order)


def gather_local(block: Any, adv: tuple[int, ...], coords: list[Any], backend: Backend) -> Any:
    """``(m, *rest)``: the sub-blocks of ``block`` at the ``m`` coordinates ``coords`` (one
    int64 array per axis of ``adv``, in block indices, in bounds: every caller has checked
    them) over the other axes. Along one axis of a host block, into memory the pool lends
    (``pooled_take``)."""
    xp = backend.xp
    view = _adv_first(block, adv, xp)
    if len(adv) == 1:
        rows = backend.host_view(coords[0])
        host = None if rows is None else backend.host_view(view)
        if host is not None:
            return backend.from_host(pooled_take(host, rows), backend.device_of(block))
        out = xp.take(view, coords[0], axis=0)
    else:
        out = view[(*coords, Ellipsis)]
    return out if backend.is_block(out) else backend.asarray(out)


# A sorted selection with at most this many runs of consecutive indices is copied run by
# run (a memory copy each) instead of gathered row by row: the rows of an unshuffled fold
# are one or two runs on each rank.
_FEW_RUNS = 16


def sorted_pieces(
    block: Any, axis: int, rows: np.ndarray, backend: Backend
) -> tuple[list[Any], bool]:
    """The sub-blocks of ``block`` at the non-decreasing block indices ``rows`` (a host
    array) along ``axis``, moved first, as pieces that joined along the first axis give
    them, and whether they are views of ``block``: a view of each run of consecutive rows
    where there are at most ``_FEW_RUNS`` runs (copied once, as they are joined: a memory
    copy per run), else one gathered block of its own."""
    view = _adv_first(block, (axis,), backend.xp)
    cuts = np.flatnonzero(np.diff(rows) != 1) + 1
    if rows.size == 0 or cuts.size >= _FEW_RUNS:
        where = backend.from_host(np.ascontiguousarray(rows), backend.device_of(block))
        return [gather_local(block, (axis,), [where], backend)], False
    starts = rows[np.concatenate(([0], cuts))].tolist()
    stops = (rows[np.concatenate((cuts, [rows.size])) - 1] + 1).tolist()
    return [view[a:b] for a, b in zip(starts, stops)], True


def joined(pieces: list[Any], views: bool, backend: Backend) -> Any:
    """``pieces`` joined along the first axis as a new block, in one copy (``views``: some
    piece is a view of an array's block, which the result must not share)."""
    xp = backend.xp
    if len(pieces) > 1:
        return xp.concat(pieces, axis=0)
    return xp.asarray(pieces[0], copy=True) if views else pieces[0]


def scatter_local(
    block: Any, adv: tuple[int, ...], coords: list[Any], values: Any, xp: Any, rest_key=()
) -> None:
    """Write ``values`` (broadcastable to ``(m, *rest)``) at ``coords`` of ``block``, the other
    axes selected by ``rest_key`` (positive-step slices, one per other axis, or none)."""
    view = _adv_first(block, adv, xp)
    if not isinstance(values, SCALARS):
        values = xp.astype(values, block.dtype, copy=True)  # it may be a view of ``block``
    view[(*coords, *rest_key, Ellipsis)] = values


# -- coordinates on the host and back ------------------------------------------------------------
def _host_coords(coords: list[Any], backend: Backend) -> np.ndarray:
    """``(m, k)`` int64 host array of the coordinates, to be read only (one axis: a view of
    the coordinates' own memory where they are int64 host blocks)."""
    cols = [np.asarray(backend.to_host(c), dtype=np.int64).reshape(-1) for c in coords]
    if len(cols) == 1:
        return cols[0].reshape(-1, 1)
    return np.stack(cols, axis=1) if cols else np.empty((0, 0), np.int64)


def block_coords(host: np.ndarray, offset: int, j: int, backend: Backend, device: Any) -> list[Any]:
    """The columns of global coordinates ``host`` as int64 blocks in block indices (column
    ``j``, the split axis, starts at ``offset`` in this rank's block). ``host`` is the
    caller's own copy (a selection of rows, or what arrived): its column ``j`` is shifted
    in place."""
    host[:, j] -= offset
    return [
        backend.from_host(np.ascontiguousarray(host[:, i]), device) for i in range(host.shape[1])
    ]


# -- fetch and store -----------------------------------------------------------------------------
def fetch(
    src: _array.Array,
    adv: tuple[int, ...],
    coords: list[Any],
    replicated: bool,
    bad: bool,
    error: IndexError | None,
) -> Any:
    """This rank's ``(m, *rest)`` block of ``src`` gathered at its ``m`` coordinates.

    ``coords`` are global indices along the axes ``adv`` (int64 blocks, equal on every rank
    when ``replicated``); ``bad`` says whether this rank saw an out-of-bounds index, and
    ``error`` is raised on every rank if any did (``None``: the indices are known to be in
    bounds, nothing to agree on). ``rest`` is the local extent of the other
    axes (the whole of them when ``src`` is split along an axis of ``adv``).
    """
    layout, comm, backend = src._layout, src._comm, src._backend
    s = layout.split
    if s is None or s not in adv or comm.size == 1:
        if error is not None and (bad if replicated else any_rank(bad, comm)):
            raise error
        return gather_local(src._local, adv, coords, backend)
    if replicated and bad:
        raise error  # type: ignore[misc]
    host = _host_coords(coords, backend)
    j = adv.index(s)
    owners = layout.owners(host[:, j])
    offset = layout.offsets[comm.rank]
    if replicated:  # every rank knows every request: the owners' values in one allgatherv
        rest = tuple(n for a, n in enumerate(src.shape) if a not in adv)
        width = int(np.prod(rest, dtype=np.int64))
        mine = block_coords(host[owners == comm.rank], offset, j, backend, src.device)
        vals = gather_local(src._local, adv, mine, backend)
        # The result is laid out like the indices: replicated, so the selected elements meet
        # whole on every rank (named in docs/architecture.md, with its memory).
        counts = np.bincount(owners, minlength=comm.size) * width
        out = np.empty((host.shape[0], *rest), dtype=src.dtype)
        got = allgather_block(vals, counts, comm, backend)
        out[np.argsort(owners, kind="stable")] = got.reshape(out.shape)
        return backend.from_host(out, src.device)
    route = route_to_owners(owners, comm, bad)
    if route is None:
        raise error  # type: ignore[misc]
    (asked,) = route.forward([host])
    vals = gather_local(
        src._local, adv, block_coords(asked, offset, j, backend, src.device), backend
    )
    return back_block(route, vals, backend, src.device)


def fetch_spread(
    src: _array.Array, adv: tuple[int, ...], coords: list[Any], counts: tuple[int, ...]
) -> Any:
    """This rank's rows of ``src`` gathered at the coordinates ``coords`` (global indices
    along the axes ``adv``, the same on every rank, in bounds; ``src`` split along one of
    ``adv``) for a result split along its positions with ``counts`` (rank r holds the
    ``counts[r]`` positions after those of the ranks before it): ``(counts[rank], *rest)``.

    Every rank knows every coordinate, so there are no requests: each owner reads the rows
    it holds and sends each rank those of its positions, in one ``alltoallv``; a rank
    receives only its own rows. Memory: what this rank owns of the selection (sent) and its
    part of the result (received), about one block each for a selection of the source's
    size, however the positions are ordered."""
    layout, comm, backend = src._layout, src._comm, src._backend
    host = _host_coords(coords, backend)
    j = adv.index(layout.split)  # type: ignore[arg-type]
    owners = layout.owners(host[:, j], compact=True)
    mine = np.flatnonzero(owners == comm.rank)  # positions, ascending: grouped by destination
    offset = layout.offsets[comm.rank]
    coords_here = block_coords(host[mine], offset, j, backend, src.device)
    sent = backend.to_host(gather_local(src._local, adv, coords_here, backend))
    lo = sum(counts[: comm.rank])
    held = owners[lo : lo + counts[comm.rank]]
    rest = tuple(sent.shape[1:])
    width = int(np.prod(rest, dtype=np.int64))
    sendcounts = np.diff(np.searchsorted(mine, np.cumsum((0, *counts)))) * width
    recvcounts = np.bincount(held, minlength=comm.size) * width
    sent = sent.reshape(-1)
    got = alltoallv_host(sent, sendcounts, recvcounts, comm).reshape((-1, *rest))
    del sent  # the sent rows are freed before the result is ordered: about two blocks held
    return backend.from_host(_interleaved(got, held, comm.size), src.device)


def _interleaved(got: np.ndarray, held: np.ndarray, size: int) -> np.ndarray:
    """The rows ``got`` (grouped by owner in rank order, each group in the order of its
    positions) put where ``held`` (each position's owner, below ``size``) says: each
    position's row of ``got``, taken in one pass of sequential writes. The rows: up to
    ``_FEW_OWNERS`` owners, each owner's positions numbered in turn (a pass per owner);
    beyond, the inverse of a stable sort of the owners (NumPy's radix sort for 16-bit
    keys), which lists the positions in the order of ``got``."""
    if size <= _FEW_OWNERS:
        row = np.empty(held.size, dtype=np.intp)
        start = 0
        for owner in range(size):
            at = np.flatnonzero(held == owner)
            row[at] = np.arange(start, start + at.size)
            start += at.size
    else:
        keys = held.astype(np.int16 if size < 1 << 15 else np.int64)
        order = np.argsort(keys, kind="stable")
        row = np.empty_like(order)
        row[order] = np.arange(order.size)
    return pooled_take(got, row)


# Up to this many owners, ``_interleaved`` numbers each owner's positions in a pass of its
# own: 1.1 ms against 1.9 ms for the sort at 2 owners of 375000 positions, the sort's two
# radix passes cheaper from about 8 owners.
_FEW_OWNERS = 4


def pooled_take(block: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``block[rows]`` along the first axis, ``rows`` in bounds (non-negative), into a block
    the pool lends (``block_pool.empty``: memory written before, no page faults). NumPy's
    ``take`` writes into ``out=`` directly only in a mode other than ``"raise"`` (it buffers
    the whole result otherwise); ``"clip"`` changes no index in bounds. 500000 x 16 float64,
    375000 rows: 11 ms into memory written before, against 16 ms into a new array."""
    out = block_pool.empty(block, (rows.shape[0], *block.shape[1:]))
    return np.take(block, rows, axis=0, out=out, mode="clip")


def store(
    dst: _array.Array,
    adv: tuple[int, ...],
    coords: list[Any],
    values: Any,
    replicated: bool,
    bad: bool,
    error: IndexError | None,
    rest_key: tuple = (),
) -> None:
    """Write ``values`` (a block ``(m, *rest)`` of ``dst``'s dtype, or a Python scalar) at
    this rank's ``m`` global coordinates along ``adv``; each element is written by its owner.

    When ``dst`` is split along an axis of ``adv`` and the coordinates are split, one
    ``alltoall`` of counts and two ``alltoallv`` (coordinates, values) bring every write to its
    owner; otherwise each rank writes what it owns of what it holds, with no message (but one
    ``allreduce`` to agree on ``bad`` when the coordinates differ between ranks).
    """
    layout, comm, backend = dst._layout, dst._comm, dst._backend
    xp = backend.xp
    s = layout.split
    if s is None or s not in adv or comm.size == 1:
        if error is not None and (bad if replicated else any_rank(bad, comm)):
            raise error
        scatter_local(dst._local, adv, coords, values, xp, rest_key)
        return
    if replicated and bad:
        raise error  # type: ignore[misc]
    host = _host_coords(coords, backend)
    j = adv.index(s)
    owners = layout.owners(host[:, j])
    if replicated:  # every rank holds every write: keep those it owns, no message
        keep = np.nonzero(owners == comm.rank)[0]
        got, vals = host[keep], values
        if not isinstance(values, SCALARS):
            vals = xp.take(values, backend.from_host(keep, dst.device), axis=0)
    else:
        route = route_to_owners(owners, comm, bad)
        if route is None:
            raise error  # type: ignore[misc]
        (got,) = route.forward([host])
        vals = values
        if not isinstance(values, SCALARS):
            vals = forward_block(route, values, backend, dst.device)
    where = block_coords(got, layout.offsets[comm.rank], j, backend, dst.device)
    scatter_local(dst._local, adv, where, vals, xp, rest_key)
