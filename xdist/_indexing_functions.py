"""The standard's indexing functions: ``take`` and ``take_along_axis``.

Both are gathers by index (``_indexing.gather_scatter``): along an axis ``x`` is not split
along, every rank takes from its own block (the indices move if they must, never ``x``); along
the split axis, the indices are routed to the ranks that own them and the values come back
(the result is split like the indices, or replicated when they are). Negative indices count
from the end; out-of-bounds indices raise ``IndexError`` on every rank, before any value
moves: one ``allreduce`` of the flag where the indices differ between ranks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _array
from ._indexing.gather_scatter import fetch, normalize_block
from ._indexing.integer_arrays import gather
from ._layout import Layout
from ._movement.broadcast import align_block, output_layout
from ._movement.collectives import any_rank
from ._validation import check_array, check_same_context, normalize_axis

__all__ = ["take", "take_along_axis"]


def _check_indices(x: _array.Array, indices: Any, func: str) -> None:
    check_array(indices, func, "indices")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{func}: indices must have an integer dtype, got {indices.dtype}")
    check_same_context([(x, "x"), (indices, "indices")], func)


def take(x: _array.Array, indices: _array.Array, /, *, axis: int | None = None) -> _array.Array:
    """Elements of ``x`` at the 1-D integer ``indices`` along ``axis`` (optional for 1-D ``x``).

    The result has ``x``'s shape with ``axis`` of length ``indices.size``; it keeps ``x``'s
    split when ``axis`` is not the split axis, and takes the layout of ``indices`` otherwise.
    """
    check_array(x, "take")
    _check_indices(x, indices, "take")
    if indices.ndim != 1:
        raise ValueError(f"take: indices must be 1-D, got {indices.ndim} dimensions")
    if x.ndim == 0:
        raise ValueError("take: x must have at least one dimension")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    axis = normalize_axis(axis, x.ndim, "take")
    return gather(x, (axis,), [indices], axis, "take")


def _along_shape(x: _array.Array, indices: _array.Array, axis: int) -> tuple[int, ...]:
    """The result shape of ``take_along_axis``, or a ``ValueError``."""
    out = []
    for d, (n, k) in enumerate(zip(x.shape, indices.shape)):
        if d == axis:
            out.append(k)
        elif n == k or k == 1 or n == 1:
            out.append(n if k == 1 else k)
        else:
            raise ValueError(
                f"take_along_axis: x of shape {x.shape} and indices of shape {indices.shape} "
                f"do not broadcast along axis {d}"
            )
    return tuple(out)


def take_along_axis(x: _array.Array, indices: _array.Array, /, *, axis: int = -1) -> _array.Array:
    """``out[..., j, ...] = x[..., indices[..., j, ...], ...]`` along ``axis``, the other axes
    broadcast between ``x`` and ``indices``.

    ``x`` split along another (full-size) axis: ``indices`` are brought to ``x``'s layout and
    each rank takes from its block. ``x`` replicated: the result is split like ``indices``, no
    value moves. ``x`` split along ``axis``: each element is fetched from its owner (see
    ``_indexing.gather_scatter``); the result is split like ``indices``.
    """
    func = "take_along_axis"
    check_array(x, func)
    _check_indices(x, indices, func)
    if x.ndim == 0:
        raise ValueError(f"{func}: x must have at least one dimension")
    if indices.ndim != x.ndim:
        raise ValueError(
            f"{func}: indices must have as many dimensions as x ({x.ndim}), got {indices.ndim}"
        )
    axis = normalize_axis(axis, x.ndim, func)
    shape = _along_shape(x, indices, axis)
    n = x.shape[axis]
    error = IndexError(f"{func}: an index is out of bounds for axis {axis} with size {n}")
    s = x.split
    if s is not None and s != axis and x.shape[s] == shape[s]:
        return _along_local(x, indices, axis, Layout(shape, s, x.counts), error)
    if s is None:
        return _along_local(x, indices, axis, output_layout([indices._layout], shape), error)
    return _along_fetch(x, indices, axis, shape, error)


def _along_local(x, indices, axis: int, layout: Layout, error: IndexError) -> _array.Array:
    """Each rank takes from its own block of ``x`` (replicated, or split like ``layout``)."""
    comm, backend = x._comm, x._backend
    xp = backend.xp
    n = x.shape[axis]
    replicated = indices.split is None
    if replicated:  # every rank sees every index: no agreement needed
        _, bad = normalize_block(indices._local, n, backend)
    block = align_block(indices._local, indices._layout, layout, comm, backend, "take_along_axis")
    block, local_bad = normalize_block(block, n, backend)
    if not replicated:
        bad = local_bad
    if bad if replicated else any_rank(bad, comm):
        raise error
    src = x._local
    d = layout.split
    if x.split is None and d is not None and d != axis and x.shape[d] != 1:
        lo, hi = layout.local_range(comm.rank)
        key = [slice(None)] * x.ndim
        key[d] = slice(lo, hi)
        src = src[tuple(key)]
    out = xp.take_along_axis(src, block, axis=axis)
    return _array.Array._new(out, layout, comm, backend)


def _along_fetch(x, indices, axis: int, shape: tuple[int, ...], error: IndexError):
    """``x`` split along ``axis`` (or along an axis it broadcasts): every element is fetched
    from its owner by its full coordinates; the result is laid out like ``indices``."""
    comm, backend = x._comm, x._backend
    xp = backend.xp
    layout = output_layout([indices._layout], shape)
    lshape = layout.local_shape(comm.rank)
    m = int(np.prod(lshape, dtype=np.int64))
    block = align_block(indices._local, indices._layout, layout, comm, backend, "take_along_axis")
    block = xp.reshape(xp.broadcast_to(block, lshape), (m,))
    block, bad = normalize_block(block, x.shape[axis], backend)
    native = backend.native_device(x.device)
    coords = []
    for d in range(x.ndim):
        if d == axis:
            coords.append(block)
            continue
        start = 0
        if layout.split == d:
            start = layout.offsets[comm.rank]
        size = lshape[d] if x.shape[d] != 1 else 1
        if x.shape[d] == 1:
            coords.append(xp.zeros((m,), dtype=xp.int64, device=native))
            continue
        grid = xp.arange(start, start + size, dtype=xp.int64, device=native)
        view = [1] * x.ndim
        view[d] = size
        coords.append(xp.reshape(xp.broadcast_to(xp.reshape(grid, view), lshape), (m,)))
    adv = tuple(range(x.ndim))
    vals = fetch(x, adv, coords, layout.split is None, bad, error)
    return _array.Array._new(xp.reshape(vals, lshape), layout, comm, backend)
