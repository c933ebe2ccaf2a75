"""Sorting functions of the standard, ``sort`` and ``argsort``.

Order. Every path sorts by the pair (value, index along the axis): values in the backend's
order (NumPy's: NaN last ascending, first descending), equal values (``-0.0`` and ``0.0``,
NaNs) in index order. That is the stable order, used whatever ``stable`` says, so results never
depend on the number of ranks. ``descending=True`` keeps equal values in index order too (as
array-api-strict's ``argsort`` and Python's ``sorted(..., reverse=True)`` do), and ``sort``
returns the values in the order ``argsort`` gives.

Along a non-split axis, of a replicated array or on one rank, each rank sorts its block: no
message, the layout is kept. Along the split axis the result is split along it in balanced
blocks. With ``n`` the length of the axis and ``L`` the number of lines along it (the size of
the other axes), one of two plans:

- ``L >= p`` ranks, *transpose*: one all-to-all makes every line whole on one rank (split
  across the lines), each rank sorts its lines, one all-to-all goes back to the axis.
- ``L < p`` (a 1-D array among them), *sample sort* (PSRS, ``_ops/sample_sort.py``), all
  lines at once: each rank sorts its block of every line; ``p`` regular samples per rank and
  line pick ``p - 1`` splitters per line (ties cut by index), gathered on every rank up to
  ``GATHERED_SAMPLES`` (65536) in all, else sample-sorted over the ranks themselves; one
  ``alltoall`` of the piece lengths, one ``allgather`` of the totals and one ``alltoallv`` of
  the pieces, merged by one stable sort; one ``alltoallv`` rebalances the lines to balanced
  blocks.
"""

from __future__ import annotations

import math
from typing import Any

from ._array import Array
from ._dtypes import check_category
from ._layout import Layout
from ._movement.redistribute import redistribute_block
from ._ops.sample_sort import rebalance_lines, sample_sort
from ._validation import check_array, normalize_axis
from .backends import Backend

__all__ = ["argsort", "sort"]


# -- the standard's functions -------------------------------------------------------------------
def sort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """The standard's ``sort`` (always stable). Local along a non-split axis; along the split
    axis a distributed sort whose result is split along it in balanced blocks."""
    axis = _check("sort", x, axis, descending, stable)
    return _sort(x, axis, descending, indices=False)


def argsort(x: Array, /, *, axis: int = -1, descending: bool = False, stable: bool = True) -> Array:
    """The standard's ``argsort`` (always stable; int64 indices along ``axis``). Local along a
    non-split axis; along the split axis balanced blocks, as ``sort``."""
    axis = _check("argsort", x, axis, descending, stable)
    return _sort(x, axis, descending, indices=True)


def _check(func: str, x: Any, axis: Any, descending: Any, stable: Any) -> int:
    check_array(x, func)
    check_category(x.dtype, "real numeric", func)
    for name, flag in (("descending", descending), ("stable", stable)):
        if not isinstance(flag, bool):
            raise TypeError(f"{func}: {name} must be a bool, got {flag!r}")
    return normalize_axis(axis, x.ndim, func)


def _sort(x: Array, axis: int, descending: bool, indices: bool) -> Array:
    layout, comm = x._layout, x._comm
    if layout.split != axis or comm.size == 1:
        local = local_sort(x._local, axis, descending, indices, x._backend.xp)
        return Array._new(local, layout, comm, x._backend)
    out = Layout.balanced(x.shape, axis, comm.size)
    return Array._new(_sort_split(x, axis, descending, indices, out), out, comm, x._backend)


def local_sort(block: Any, axis: int, descending: bool, indices: bool, xp: Any) -> Any:
    """The stable sort (or argsort, int64) of a block along an axis it holds whole."""
    if not indices and not descending:
        return xp.sort(block, axis=axis, stable=True)
    order = xp.argsort(block, axis=axis, descending=descending, stable=True)
    if indices:
        return order if order.dtype == xp.int64 else xp.astype(order, xp.int64)
    # A descending sort that keeps ties in index order: NumPy-style flips would reverse them.
    return xp.take_along_axis(block, order, axis=axis)


# -- along the split axis -------------------------------------------------------------------------
def _sort_split(x: Array, axis: int, descending: bool, indices: bool, out: Layout) -> Any:
    """This rank's block of the sorted array (layout ``out``), ``x`` split along ``axis``."""
    xp, comm, backend = x._backend.xp, x._comm, x._backend
    n = x.shape[axis]
    nlines = math.prod(x.shape[:axis] + x.shape[axis + 1 :])
    moved = xp.moveaxis(x._local, axis, -1)
    rest = tuple(moved.shape[:-1])
    dtype = xp.int64 if indices else moved.dtype
    mine = out.counts[comm.rank]  # type: ignore[index]
    if n == 0 or nlines == 0:
        result = xp.zeros((nlines, mine), dtype=dtype, device=moved.device)
    else:
        lines = xp.reshape(moved, (nlines, moved.shape[-1]))
        counts = x._layout.counts
        if nlines >= comm.size:
            result = _transpose_sort(lines, counts, n, descending, indices, comm, backend)
        else:
            result = _sample_sort_lines(lines, counts, n, descending, indices, comm, backend)
    return xp.moveaxis(xp.reshape(result, (*rest, mine)), -1, axis)


def _transpose_sort(lines, counts, n, descending, indices, comm, backend: Backend) -> Any:
    """Lines made whole on one rank (one all-to-all), sorted there, and sent back."""
    nlines = lines.shape[0]
    along = Layout((nlines, n), 1, tuple(counts))
    across = Layout.balanced((nlines, n), 0, comm.size)
    whole = redistribute_block(lines, along, across, comm, backend)
    done = local_sort(whole, 1, descending, indices, backend.xp)
    return redistribute_block(
        done, across, Layout.balanced((nlines, n), 1, comm.size), comm, backend
    )


def _sample_sort_lines(lines, counts, n, descending, indices, comm, backend: Backend) -> Any:
    """``sample_sort`` of every line, then its balanced blocks (``rebalance_lines``)."""
    xp = backend.xp
    nlines, c = lines.shape
    start = sum(counts[: comm.rank])
    index = xp.arange(start, start + c, dtype=xp.int64, device=lines.device)
    index = xp.broadcast_to(xp.reshape(index, (1, c)), (nlines, c))
    res = sample_sort(
        lines, index, counts, comm, backend, descending=descending, keep_index=indices
    )
    field = res.index if indices else res.values
    return rebalance_lines(field, res.held, n, comm, backend)
