"""Boolean mask indexing: ``x[mask]`` and ``x[mask] = value``.

``mask`` (the sole index) covers the first ``M`` axes of ``x``; ``x[mask]`` replaces them by
one axis holding the selected elements in row-major order. Its length is data-dependent, so
the result has exact, possibly uneven counts known on every rank. What travels:

- ``x`` split along axis 0 (and ``M >= 1``): ``mask`` is brought to ``x``'s layout (nothing
  moves when it is already there, a local slice when it is replicated, one all-to-all of the
  mask otherwise); each rank selects from its own block, and the blocks stay where they are:
  one ``allgather`` of the local counts, no data;
- ``x`` split along an axis the mask does not cover: every rank needs the whole mask (gathered
  if split: the mask moves, never ``x``) and selects from its block; the result keeps ``x``'s
  split and counts; no data moves;
- ``x`` split along a masked axis other than 0: a rank's selected elements are interleaved
  with other ranks' in row-major order; each rank finds the global position of its elements
  (one ``exscan`` and one ``allreduce`` of the per-row counts) and sends them to a balanced
  result (one ``alltoall`` of counts, two ``alltoallv``): only selected elements move;
- ``x`` replicated: a replicated mask selects locally (replicated result, no message); a split
  mask selects each rank's rows, split like a mask split along axis 0.

``x[mask] = value`` writes, on each rank, the selected elements it holds, with the mask
brought to ``x``'s layout as above. A split mask written through into an ``x`` that a
creation function made replicated by default (large, never handed out:
``basic.takes_split``) first gives ``x`` its split, so that neither the mask nor the rows of
``value`` are gathered. A scalar ``value`` (or one that broadcasts along the selected axis)
needs no count; a ``value`` with one row per selected element sends each rank the rows it
writes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout
from .._movement.collectives import (
    all_ranks,
    allgather_ints,
    allreduce_host,
    exscan_host,
    layout_from_local,
)
from .._movement.gathers import implicit_gather
from .._movement.redistribute import gather_block, redistribute_block
from ..backends import Backend
from .basic import alone, setitem_basic, take_layout, takes_split
from .gather_scatter import fetch, store
from .values import SCALARS, check_value, fetch_value, full_box, wanted

__all__: list[str] = []


def _check_mask(x: _array.Array, mask: _array.Array, func: str) -> None:
    if mask._comm is not x._comm:
        raise ValueError(f"{func}: the mask lives on a different communicator than the array")
    if mask.ndim > x.ndim:
        raise IndexError(
            f"{func}: a boolean index of {mask.ndim} dimensions is too many for an array of "
            f"{x.ndim} dimensions"
        )
    if any(m not in (n, 0) for m, n in zip(mask.shape, x.shape)):
        raise IndexError(
            f"{func}: the boolean index of shape {mask.shape} does not match the array's "
            f"leading dimensions {x.shape[: mask.ndim]}"
        )


def _mask_block(x: _array.Array, mask: _array.Array, whole: bool) -> Any:
    """This rank's part of ``mask`` for ``x``'s block: the whole mask when ``whole``, else the
    mask split like ``x``'s split axis (which the mask covers)."""
    backend = mask._backend
    if whole:
        return implicit_gather(
            mask._local, mask._layout, mask._comm, backend, "boolean-array indexing"
        )
    target = Layout(mask.shape, x.split, x.counts)
    return redistribute_block(mask._local, mask._layout, target, mask._comm, backend)


def _count(mask_block: Any, backend: Backend) -> int:
    xp = backend.xp
    return int(xp.sum(xp.astype(mask_block, xp.int64)))


# -- getitem ---------------------------------------------------------------------------------
def getitem_mask(x: _array.Array, mask: _array.Array) -> _array.Array:
    """``x[mask]``: see the module docstring for what communicates."""
    func = "__getitem__"
    _check_mask(x, mask, func)
    comm, backend, xp = x._comm, x._backend, x._backend.xp
    m, s = mask.ndim, x.split
    rest = x.shape[m:]
    if m == 0:
        return _zero_d_mask(x, mask)
    if mask.size == 0:
        return _empty(x, m)
    if s is None:
        return _mask_replicated(x, mask)
    if s >= m:
        sel = backend.select(x._local, _mask_block(x, mask, True))
        shape = (int(sel.shape[0]), *rest)
        return _array.Array._new(sel, Layout(shape, s - m + 1, x.counts), comm, backend)
    sel = backend.select(x._local, _mask_block(x, mask, False))
    if s == 0:
        # The counts are exchanged at one rank too (allgather_ints, not counts_from_local):
        # the tests count this message at every size.
        counts = tuple(allgather_ints([int(sel.shape[0])], comm)[:, 0].tolist())
        layout = Layout((sum(counts), *rest), 0, counts)
        return _array.Array._new(sel, layout, comm, backend)
    return _interleaved(x, mask, sel, xp)


def _zero_d_mask(x: _array.Array, mask: _array.Array) -> _array.Array:
    """A 0-d mask adds an axis of length 1 (True) or 0 (False) in front; no message."""
    keep = bool(mask._backend.to_host(mask._local))
    block = x._backend.xp.expand_dims(x._local, axis=0)
    if not keep:
        block = block[0:0, ...]
    shape = (int(keep), *x.shape)
    split = None if x.split is None else x.split + 1
    layout = Layout(shape, split, x.counts if split is not None else None)
    return _array.Array._new(block, layout, x._comm, x._backend)


def _empty(x: _array.Array, m: int) -> _array.Array:
    """A mask with a zero-length axis selects nothing."""
    rest = x.shape[m:]
    if x.split is not None and x.split >= m:
        layout = Layout((0, *rest), x.split - m + 1, x.counts)
    else:
        layout = Layout.replicated((0, *rest))
    block = x._backend.empty(layout.local_shape(x._comm.rank), x.dtype, x.device)
    return _array.Array._new(block, layout, x._comm, x._backend)


def _mask_replicated(x: _array.Array, mask: _array.Array) -> _array.Array:
    comm, backend = x._comm, x._backend
    rest = x.shape[mask.ndim :]
    if mask.split is None:
        sel = backend.select(x._local, gather_block(mask._local, mask._layout, comm, backend))
        return _array.Array._new(sel, Layout.replicated((int(sel.shape[0]), *rest)), comm, backend)
    mlayout = mask._layout
    mblock = mask._local
    if mlayout.split != 0:  # rows of x must be whole on a rank: move the mask (not x)
        target = Layout.balanced(mask.shape, 0, comm.size)
        mblock = redistribute_block(mblock, mlayout, target, comm, backend)
        mlayout = target
    lo, hi = mlayout.local_range(comm.rank)
    sel = backend.select(x._local[lo:hi, ...], mblock)
    return _array.Array._new(sel, layout_from_local(tuple(sel.shape), 0, comm), comm, backend)


def _positions(x: _array.Array, mask_block: Any) -> tuple[np.ndarray, int]:
    """Global positions, in row-major order of the mask, of this rank's selected elements
    (``x`` split along masked axis ``s > 0``), and the total count.

    With ``cnt[p]`` this rank's count in row ``p`` of the axes before ``s``: the element
    ``i`` of row ``p`` lands at ``sum(total[:p]) + sum(cnt of lower ranks in row p) + i``.
    """
    comm, backend = x._comm, x._backend
    xp = backend.xp
    rows = int(np.prod(x.shape[: x.split], dtype=np.int64))
    flat = xp.reshape(xp.astype(mask_block, xp.int64), (rows, -1))
    cnt = np.asarray(backend.to_host(xp.sum(flat, axis=1)), dtype=np.int64).reshape(rows)
    before = exscan_host(cnt, "sum", comm)
    total = allreduce_host(cnt, "sum", comm)
    start = np.concatenate([[0], np.cumsum(total)[:-1]]) + before
    first = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    n = int(cnt.sum())
    pos = np.repeat(start, cnt) + (np.arange(n) - np.repeat(first, cnt))
    return pos.astype(np.int64), int(total.sum())


def _interleaved(x: _array.Array, mask: _array.Array, sel: Any, xp: Any) -> _array.Array:
    """``x`` split along masked axis ``s > 0``: the selected elements go to a balanced result
    at their row-major positions (only they move)."""
    comm, backend = x._comm, x._backend
    pos, total = _positions(x, _mask_block(x, mask, False))
    layout = Layout.balanced((total, *x.shape[mask.ndim :]), 0, comm.size)
    block = backend.empty(layout.local_shape(comm.rank), x.dtype, x.device)
    out = _array.Array._new(block, layout, comm, backend)
    where = [backend.from_host(pos, x.device)]
    store(out, (0,), where, sel, False, False, None)
    return out


# -- setitem ---------------------------------------------------------------------------------
def setitem_mask(x: _array.Array, mask: _array.Array, value: Any) -> None:
    """``x[mask] = value``: see the module docstring for what communicates."""
    func = "__setitem__"
    _check_mask(x, mask, func)
    m = mask.ndim
    rest = x.shape[m:]
    lead = _lead(value, len(rest))
    check_value(x, value, (lead if lead is not None else 1, *rest))
    if m == 0:
        n = int(bool(mask._backend.to_host(mask._local)))
        _check_rows(lead, n)
        if n:
            setitem_basic(x, Ellipsis, value[0, ...] if lead is not None else value)
        return
    if mask.size == 0:
        _check_rows(lead, 0)
        return
    if x.split is None and mask.split is not None and takes_split(x):
        # x made replicated by default takes the mask's split: each rank writes its rows
        take_layout(x, Layout(x.shape, mask.split, mask.counts), all_ranks(alone(x), x._comm))
    s = x.split
    whole = s is None or s >= m
    mblock = _mask_block(x, mask, whole)
    if lead is None or lead == 1:  # the same values for every selected element
        v = value[0, ...] if lead == 1 else value
        out_axis = None if s is None or s < m else s - m
        _write(x, mblock, fetch_value(v, _written(v, rest, out_axis, x._layout, x._comm.size)))
        return
    _write(x, mblock, _rows(x, mblock, value, whole))


def _lead(value: Any, nrest: int) -> int | None:
    """The length of ``value``'s selected axis, or ``None`` when it has none."""
    if isinstance(value, _array.Array) and value.ndim == nrest + 1:
        return value.shape[0]
    return None


def _check_rows(lead: int | None, n: int) -> None:
    if lead is not None and lead not in (1, n):
        raise ValueError(
            f"__setitem__: value with {lead} rows cannot be broadcast to the {n} selected elements"
        )


def _written(v: Any, shape: tuple, out_axis: int | None, layout: Layout, size: int) -> list:
    """The box of ``v`` (broadcast to ``shape``) that each rank writes: the range of
    ``layout``'s block along ``out_axis``, or all of ``v`` when ``out_axis`` is ``None``."""
    if out_axis is None:
        return [full_box(v)] * size
    return [wanted(v, shape, out_axis, *layout.local_range(q)) for q in range(size)]


def _rows(x: _array.Array, mblock: Any, value: _array.Array, whole: bool) -> Any:
    """The rows of ``value`` (one per selected element) that this rank writes, in order."""
    comm, backend = x._comm, x._backend
    s, m = x.split, mblock.ndim
    n_local = _count(mblock, backend)
    if whole:  # every rank writes every selected element (of its part of the rest axes)
        _check_rows(value.shape[0], n_local)
        out_axis = None if s is None else s - m + 1
        shape = (n_local, *x.shape[m:])
        return fetch_value(value, _written(value, shape, out_axis, x._layout, comm.size))
    if s == 0:  # this rank writes the rows of its selected elements, in rank order
        rows = layout_from_local((n_local,), 0, comm)
        _check_rows(value.shape[0], rows.shape[0])
        return fetch_value(value, _written(value, value.shape, 0, rows, comm.size))
    pos, total = _positions(x, mblock)
    _check_rows(value.shape[0], total)
    src = value
    if src.split not in (None, 0):  # rows must be whole on their owner
        target = Layout.balanced(src.shape, 0, comm.size)
        block = redistribute_block(src._local, src._layout, target, comm, backend)
        src = _array.Array._new(block, target, comm, backend)
    where = [backend.from_host(pos, x.device)]
    return fetch(src, (0,), where, False, False, None)


def _write(x: _array.Array, mblock: Any, piece: Any) -> None:
    if piece is None:
        return
    if not isinstance(piece, SCALARS):
        # A copy of x's dtype: ``piece`` may be a view of x's own block.
        piece = x._backend.xp.astype(piece, x._local.dtype, copy=True)
    x._local[mblock] = piece
