"""Joining and repeating: ``concat``, ``stack``, ``unstack``, ``tile`` and ``repeat``.

What moves between ranks:

- ``concat`` / ``stack``: inputs split alike along another axis (or replicated) join
  locally. Otherwise (an input split along the joined axis, or layouts that differ) every
  input's pieces move to the owners of the output in one all-to-all of boxes of global index
  space (``exchange_boxes``). Nothing gathers a whole array.
- ``unstack`` along the split axis: each slice lives on one rank and is broadcast (one
  ``bcast`` per slice, results replicated): as costly as gathering the array, so unstack
  along another axis where possible.
- ``tile`` along the split axis: the copies are new ranges of the result, which is balanced;
  every rank sends its block to the owners of each copy in one ``alltoallv``.
- ``repeat`` along the split axis: each rank repeats its own block; the result's counts are
  the sums of the repeats each rank holds (no data of ``x`` moves).
- Along any other axis: nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _block_pool as block_pool
from .._array import Array, wrap_block
from .._layout import Layout, intersect
from .._movement.collectives import allgather_ints, block_ranges, shift_exchange
from .._movement.gathers import implicit_gather
from .._movement.redistribute import (
    PerRank,
    exchange_boxes,
    redistribute_block,
    slice_replicated,
)
from .._validation import check_array, check_ints, check_same_context, normalize_axis
from .shapes import expand_dims, reshape

__all__ = ["concat", "repeat", "stack", "tile", "unstack"]


# -- concat and stack ---------------------------------------------------------------------------
def _check_arrays(arrays: Any, func: str) -> list[Array]:
    """The inputs as a list: non-empty, xdist arrays, one communicator, backend and device."""
    if not isinstance(arrays, (tuple, list)):
        raise TypeError(
            f"{func}: arrays must be a tuple or list of arrays, got {type(arrays).__name__}"
        )
    if not arrays:
        raise ValueError(f"{func}: arrays must hold at least one array")
    for k, a in enumerate(arrays):
        if not isinstance(a, Array):
            check_array(a, func, f"arrays[{k}]")  # raises
    check_same_context(arrays, func, "arrays[{}]")
    return list(arrays)


def _result_dtype(arrays: list[Array]) -> np.dtype:
    """The promoted dtype of the inputs: the standard's table where it has an entry; mixed
    kinds, which it leaves to the library, follow NumPy (as ``xdist.result_type`` does)."""
    first = arrays[0].dtype
    if all(a.dtype == first for a in arrays):
        return first
    return np.result_type(*(a.dtype for a in arrays))


def _check_shapes(arrays: list[Array], axis: int, func: str) -> None:
    first = arrays[0].shape
    for k, a in enumerate(arrays[1:], start=1):
        if a.ndim != len(first) or any(
            n != m for i, (n, m) in enumerate(zip(a.shape, first)) if i != axis
        ):
            raise ValueError(
                f"{func}: arrays[{k}] has shape {a.shape}, incompatible with arrays[0] "
                f"{first} along axes other than {axis}"
            )


def _concat_layout(layouts: list[Layout], shape: tuple[int, ...], axis: int, nranks: int):
    """Replicated if every input is; balanced along ``axis`` if any input is split along it;
    else the layout of the largest input (split along another axis)."""
    split = [lay for lay in layouts if lay.split is not None]
    if not split:
        return Layout.replicated(shape)
    if any(lay.split == axis for lay in split):
        return Layout.balanced(shape, axis, nranks)
    best = max(split, key=lambda lay: math.prod(lay.shape))
    return Layout(shape, best.split, best.counts)


def _box(layout: Layout, rank: int, axis: int, shift: int) -> list[slice]:
    """``rank``'s block of ``layout`` as explicit slices, moved by ``shift`` along ``axis``."""
    box = [slice(0, n) for n in layout.shape]
    if layout.split is not None:
        box[layout.split] = slice(*layout.local_range(rank))
    box[axis] = slice(box[axis].start + shift, box[axis].stop + shift)
    return box


def _concat_moves(layout: Layout, out: Layout, axis: int, shift: int, me: int, nranks: int):
    """The moves of one input (placed at ``shift`` along ``axis`` of ``out``) that this rank
    sends or receives; a replicated input serves every rank from itself. The ranks a block
    meets are found by bisection (``Layout.ranks_meeting``), not by trying every rank."""
    moves = []
    if layout.split is None:
        box = intersect(_box(layout, me, axis, shift), _box(out, me, axis, 0), out.shape)
        return [(me, me, box)] if box is not None else []
    mine = _box(layout, me, axis, shift)
    for dst in out.ranks_meeting(tuple(mine), nranks):
        box = intersect(mine, _box(out, dst, axis, 0), out.shape)
        if box is not None:
            moves.append((me, dst, box))
    target = _box(out, me, axis, 0)
    back = list(target)  # the target in the input's own coordinates, clipped to it
    lo = min(max(0, target[axis].start - shift), layout.shape[axis])
    back[axis] = slice(lo, max(lo, min(layout.shape[axis], target[axis].stop - shift)))
    for src in layout.ranks_meeting(tuple(back), nranks):
        box = intersect(_box(layout, src, axis, shift), target, out.shape)
        if box is not None and src != me:
            moves.append((src, me, box))
    return moves


def _concat(arrays: list[Array], axis: int, dtype: np.dtype) -> Array:
    """Concatenate validated arrays along ``axis`` (normalized), in ``dtype``."""
    first, nranks = arrays[0], arrays[0]._comm.size
    comm, backend, xp = first._comm, first._backend, first._backend.xp
    sizes = [a.shape[axis] for a in arrays]
    shape = first.shape[:axis] + (sum(sizes),) + first.shape[axis + 1 :]
    layouts = [a._layout for a in arrays]
    out = _concat_layout(layouts, shape, axis, nranks)
    native = backend.native_dtype(dtype)
    blocks = [a._local if a.dtype == dtype else xp.astype(a._local, native) for a in arrays]
    aligned = out.split != axis and all(
        lay.split is None or (lay.split == out.split and lay.counts == out.counts)
        for lay in layouts
    )
    if out.split is None or nranks == 1 or aligned:
        parts = (
            blocks
            if out.split is None or nranks == 1
            else [
                slice_replicated(b, out.with_shape(lay.shape, out.split), comm.rank)
                if lay.split is None
                else b
                for b, lay in zip(blocks, layouts)
            ]
        )
        joined = _pooled_concat(parts, axis, backend)
        return wrap_block(xp.concat(parts, axis=axis) if joined is None else joined, out, first)
    sources, shift = [], 0
    for block, lay, n in zip(blocks, layouts, sizes):
        moves = _concat_moves(lay, out, axis, shift, comm.rank, nranks)
        origin = [s.start for s in _box(lay, comm.rank, axis, shift)]
        sources.append((block, moves, origin))
        shift += n
    local = exchange_boxes(
        sources,
        PerRank(out.local_shape),
        PerRank(lambda r: [s.start for s in _box(out, r, axis, 0)]),
        dtype,
        comm,
        backend,
        first.device,
    )
    return wrap_block(local, out, first)


def _pooled_concat(parts: list[Any], axis: int, backend: Any) -> Any:
    """Host blocks of one dtype (NumPy, Torch on the CPU: ``host_view``) concatenated along
    ``axis`` into a block the pool lends where the result is large enough to be lent:
    NumPy's copy (the Torch backend's ``concat`` of CPU tensors is NumPy's too), into memory
    written before rather than new pages (two 1,000,000 x 16 float64 side by side, one
    process: 45-57 ms into a new array, 33-41 ms into one written before). ``None`` where the
    library makes it. (Not ``keep``: a kept block would let a product of it start a chain,
    which for k-means' ``[X, 1] @ C.T`` on the Torch backend was 4% slower.)"""
    if len(parts) < 2 or any(getattr(p, "dtype", None) != parts[0].dtype for p in parts):
        return None
    views = [backend.host_view(p) for p in parts]
    if any(v is None or v.ndim == 0 for v in views):
        return None
    shape = list(views[0].shape)
    shape[axis] = sum(v.shape[axis] for v in views)
    if math.prod(shape) * views[0].dtype.itemsize < block_pool.MIN_BYTES:
        return None
    out = block_pool.empty(parts[0], tuple(shape))
    target = backend.host_view(out)
    if target is None:
        return None
    np.concatenate(views, axis=axis, out=target)
    return out


def concat(arrays: tuple[Array, ...] | list[Array], /, *, axis: int | None = 0) -> Array:
    """The standard's ``concat`` (``axis=None``: flatten first).

    Inputs split alike along another axis (or replicated) concatenate locally. Otherwise
    (an input split along ``axis``, or layouts that differ) the output is balanced along
    ``axis`` (or takes the largest input's layout) and every input's pieces move to their
    owners in one all-to-all.
    """
    arrays = _check_arrays(arrays, "concat")
    dtype = _result_dtype(arrays)
    if axis is None:
        return _concat([reshape(a, (-1,)) for a in arrays], 0, dtype)
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError(
            "concat: 0-d arrays cannot be concatenated along an axis (axis=None flattens them)"
        )
    a = normalize_axis(axis, ndim, "concat")
    _check_shapes(arrays, a, "concat")
    return _concat(arrays, a, dtype)


def stack(arrays: tuple[Array, ...] | list[Array], /, *, axis: int = 0) -> Array:
    """The standard's ``stack``: ``expand_dims`` of every input (local) and a ``concat``
    along the new axis, local when the inputs share a layout (or are replicated)."""
    arrays = _check_arrays(arrays, "stack")
    dtype = _result_dtype(arrays)
    first = arrays[0].shape
    for k, x in enumerate(arrays[1:], start=1):
        if x.shape != first:
            raise ValueError(f"stack: arrays[{k}] has shape {x.shape}, arrays[0] {first}")
    a = normalize_axis(axis, len(first) + 1, "stack")
    return _concat([expand_dims(x, axis=a) for x in arrays], a, dtype)


# -- repeat -------------------------------------------------------------------------------------
def _check_repeats(x: Array, repeats: Any, axis: int | None) -> None:
    """The standard's rules for ``repeats`` (before any message)."""
    if isinstance(repeats, Array):
        if repeats.dtype.kind not in "iu":
            raise TypeError(f"repeat: repeats must have an integer dtype, got {repeats.dtype}")
        size = x.size if axis is None else x.shape[axis]
        if repeats.shape not in ((1,), (size,)):
            raise ValueError(
                f"repeat: repeats of shape {repeats.shape} must have shape (1,) or ({size},)"
            )
        check_same_context([(x, "x"), (repeats, "repeats")], "repeat")
        return
    if isinstance(repeats, (bool, np.bool_)) or not isinstance(repeats, (int, np.integer)):
        raise TypeError(f"repeat: repeats must be an int or an integer array, got {repeats!r}")
    if repeats < 0:
        raise ValueError(f"repeat: repeats must be >= 0, got {repeats}")


def _repeat_int(x: Array, repeats: int, axis: int) -> Array:
    layout = x._layout
    shape = list(x.shape)
    shape[axis] *= repeats
    counts = layout.counts
    if layout.split == axis:
        counts = tuple(c * repeats for c in counts)  # type: ignore[union-attr]
    local = x._backend.xp.repeat(x._local, repeats, axis=axis)
    return wrap_block(local, Layout(tuple(shape), layout.split, counts), x)


def _negative(func: str) -> ValueError:
    return ValueError(f"{func}: repeats must be >= 0")


def _repeat_along(x: Array, repeats: int | Array, axis: int) -> Array:
    """``x`` repeated along ``axis`` (``repeats`` checked by ``_check_repeats``).

    No data of ``x`` moves. A ``(1,)`` repeats array is read as an int (one ``bcast`` when
    split). A full one is, along the split axis, cut to ``x``'s counts (free when replicated,
    else one all-to-all of the repeats) and the new counts are known locally when it is
    replicated, else found with one small allgather; along another axis every rank needs all
    of it (one allgatherv of the repeats when split).
    """
    if isinstance(repeats, Array) and repeats.shape == (1,):
        repeats = int(repeats)
        if repeats < 0:
            raise _negative("repeat")
    if not isinstance(repeats, Array):
        return _repeat_int(x, int(repeats), axis)
    layout, comm, backend = x._layout, x._comm, x._backend
    shape = list(x.shape)
    counts = layout.counts
    if layout.split == axis and comm.size > 1:
        target = Layout(repeats.shape, 0, layout.counts)
        if repeats.split is None:  # every rank has all of them: the counts need no message
            full = backend.to_host(repeats._local).astype(np.int64)
            if np.any(full < 0):
                raise _negative("repeat")
            ranges = [target.local_range(r) for r in range(comm.size)]
            counts = tuple(int(full[lo:hi].sum()) for lo, hi in ranges)
            mine = full[slice(*ranges[comm.rank])]
        else:
            block = redistribute_block(repeats._local, repeats._layout, target, comm, backend)
            mine = backend.to_host(block).astype(np.int64)
            info = allgather_ints([int(mine.sum()), int(np.any(mine < 0))], comm)
            if info[:, 1].any():
                raise _negative("repeat")
            counts = tuple(info[:, 0].tolist())
        shape[axis] = sum(counts)  # type: ignore[arg-type]
    else:
        block = implicit_gather(repeats._local, repeats._layout, comm, backend, "repeat")
        mine = backend.to_host(block).astype(np.int64)
        if np.any(mine < 0):
            raise _negative("repeat")
        shape[axis] = int(mine.sum())
        if layout.split == axis:  # one rank holds the axis
            counts = (shape[axis],)
    local = backend.xp.repeat(x._local, backend.from_host(mine, x.device), axis=axis)
    return wrap_block(local, Layout(tuple(shape), layout.split, counts), x)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """The standard's ``repeat``: each rank repeats its own block and no data of ``x``
    moves; along the split axis the result's counts are the repeats of each rank's range
    (exact, uneven). A repeats array costs at most an all-to-all or an allgather of the
    repeats themselves and one small allgather of counts (``_repeat_along``); negative repeats
    in an array raise on every rank after that. ``axis=None`` repeats the flattened array
    (a reshape to 1-D, local for an array split along axis 0)."""
    check_array(x, "repeat")
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, "repeat")
    _check_repeats(x, repeats, axis)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    return _repeat_along(x, repeats, axis)


# -- tile and unstack ---------------------------------------------------------------------------
def tile(x: Array, repetitions: tuple[int, ...], /) -> Array:
    """The standard's ``tile``. Local along every axis but the split one; along it, the
    copies are new ranges of a result balanced along that axis, filled by one ``alltoallv``
    (every rank sends its block to the owners of each copy)."""
    check_array(x, "tile")
    reps = check_ints(repetitions, "tile", "repetitions", 0)
    layout, comm, backend = x._layout, x._comm, x._backend
    xp = backend.xp
    lead = max(len(reps) - x.ndim, 0)
    shape = (1,) * lead + x.shape
    reps = (1,) * (len(shape) - len(reps)) + reps
    split = None if layout.split is None else layout.split + lead
    block = xp.reshape(x._local, (1,) * lead + tuple(x._local.shape))
    out_shape = tuple(n * r for n, r in zip(shape, reps))
    if split is None:
        return wrap_block(xp.tile(block, reps), Layout.replicated(out_shape), x)
    if comm.size == 1:
        return wrap_block(xp.tile(block, reps), Layout.balanced(out_shape, split, 1), x)
    k = reps[split]
    local_reps = reps[:split] + (1,) + reps[split + 1 :]
    block = xp.tile(block, local_reps)
    if k == 1:
        return wrap_block(block, Layout(out_shape, split, layout.counts), x)
    out = Layout.balanced(out_shape, split, comm.size)
    if math.prod(out_shape) == 0:
        return wrap_block(backend.empty(out.local_shape(comm.rank), x.dtype, x.device), out, x)
    src = block_ranges(layout)
    n = shape[split]
    shifts = [j * n for j in range(k)]
    return wrap_block(shift_exchange(block, src, shifts, out, comm, backend, x.device), out, x)


def unstack(x: Array, /, *, axis: int = 0) -> tuple[Array, ...]:
    """The standard's ``unstack``. Along any axis but the split one each rank slices its
    block and the results keep the split (no message). Along the split axis each slice lies
    whole on the rank that owns its index: the result is split along its first axis with all
    of it on that rank (no message). A 1-D ``x`` unstacks into 0-d arrays, which are
    replicated: one allgather of ``x`` (a gather, with its ``GatherWarning``)."""
    check_array(x, "unstack")
    a = normalize_axis(axis, x.ndim, "unstack")
    layout, comm = x._layout, x._comm
    before = (slice(None),) * a
    shape = x.shape[:a] + x.shape[a + 1 :]
    split = layout.split
    if split == a and comm.size > 1:
        if x.ndim == 1:
            whole = implicit_gather(x._local, layout, comm, x._backend, "unstack")
            out = Layout.replicated(())
            return tuple(wrap_block(whole[i], out, x) for i in range(x.shape[0]))
        return tuple(_owned_slice(x, before, i, shape) for i in range(x.shape[a]))
    if split is None or split == a:  # replicated, or split along a on one rank
        out = Layout.replicated(shape)
    else:
        out = Layout(shape, split - (split > a), layout.counts)
    return tuple(wrap_block(part, out, x) for part in x._backend.unstack(x._local, a))


def _owned_slice(x: Array, before: tuple, i: int, shape: tuple[int, ...]) -> Array:
    """Slice ``i`` of ``x`` along its split axis, left on its owner: split along its first
    axis with every index on that rank."""
    owner, rank = x._layout.owner(i), x._comm.rank
    counts = tuple(shape[0] if r == owner else 0 for r in range(x._comm.size))
    out = Layout(shape, 0, counts)
    if rank == owner:
        block = x._local[(*before, i - x._layout.offsets[rank], Ellipsis)]
    else:
        block = x._backend.empty(out.local_shape(rank), x.dtype, x.device)
    return wrap_block(block, out, x)
