"""Manipulation functions of the standard: reshape, permute_dims, concat, stack, expand_dims,
squeeze, roll and repeat here; broadcasting, flip, moveaxis, tile and unstack in
``_manipulation_more`` (re-exported, with this module's ``__all__`` naming the whole chapter).

Where the split axis survives the operation, each rank transforms its own block and nothing
moves: permute_dims, expand_dims, squeeze of other axes, concat along a non-split axis, and
every reshape that keeps the split axis's run of the C-order layout (see ``_local_layout``).
Otherwise the data moves in one all-to-all of boxes of global index space
(``exchange_boxes``): a reshape moves flat ranges of a split-0 array, a concat sends every
input's pieces to the owners of the output. Nothing gathers a whole array.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout, intersect
from .joining import (
    _wrap,
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    check_repeats,
    flip,
    moveaxis,
    permuted,
    repeat_along,
    roll_axes,
    tile,
    unstack,
)
from .._movement.redistribute import (
    exchange_boxes,
    gather_block,
    redistribute_block,
    slice_replicated,
)
from .._validation import check_array, check_same_context, normalize_axes, normalize_axis

__all__ = [
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "concat",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "squeeze",
    "stack",
    "tile",
    "unstack",
]

Array = _array.Array


# -- permute_dims, expand_dims, squeeze ---------------------------------------------------------
def permute_dims(x: Array, /, axes: tuple[int, ...]) -> Array:
    """The standard's ``permute_dims``: local; the split axis moves to its new position."""
    check_array(x, "permute_dims")
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f"permute_dims: axes must be a tuple of ints, got {axes!r}")
    if len(axes) != x.ndim:
        raise ValueError(
            f"permute_dims: axes {tuple(axes)} must have one entry per dimension ({x.ndim})"
        )
    perm = tuple(normalize_axis(a, x.ndim, "permute_dims", "axes") for a in axes)
    if sorted(perm) != list(range(x.ndim)):
        raise ValueError(f"permute_dims: axes {tuple(axes)} is not a permutation of the axes")
    return permuted(x, perm)


def expand_dims(x: Array, /, axis: int = 0) -> Array:
    """The standard's ``expand_dims``: local; axes at or after ``axis`` shift by one."""
    check_array(x, "expand_dims")
    a = normalize_axis(axis, x.ndim + 1, "expand_dims")
    layout = x._layout
    shape = x.shape[:a] + (1,) + x.shape[a:]
    split = layout.split
    if split is not None and split >= a:
        split += 1
    local = x._backend.xp.expand_dims(x._local, axis=a)
    return _wrap(local, Layout(shape, split, layout.counts), x)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """The standard's ``squeeze`` of axes of size 1.

    Local unless the squeezed axes include the split axis (its one element then lives on one
    rank): the array is first re-split along its largest remaining axis (one all-to-all that
    moves only the owner's data), or, for a 0-d result, its one element is gathered.
    """
    check_array(x, "squeeze")
    if axis is None:
        raise TypeError("squeeze: axis must be an int or a tuple of ints, got None")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1 (shape {x.shape})")
    block, layout = x._local, x._layout
    if layout.split in axes:
        rest = [i for i in range(x.ndim) if i not in axes]
        if rest:
            target = Layout.balanced(x.shape, max(rest, key=lambda i: x.shape[i]), x._comm.size)
            block = redistribute_block(block, layout, target, x._comm, x._backend)
        else:  # a 0-d result: one element
            block = gather_block(block, layout, x._comm, x._backend)
            target = Layout.replicated(x.shape)
        layout = target
    shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    split = layout.split
    if split is not None:
        split -= sum(a < split for a in axes)
    local = x._backend.xp.squeeze(block, axis=axes)
    return _wrap(local, Layout(shape, split, layout.counts), x)


# -- reshape ------------------------------------------------------------------------------------
def _target_shape(shape: Any, old: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with its ``-1`` resolved, checked against the size of ``old``."""
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"reshape: shape must be a tuple of ints, got {shape!r}")
    dims = []
    for n in shape:
        if isinstance(n, bool):
            raise TypeError(f"reshape: shape {tuple(shape)} must hold ints")
        try:
            dims.append(operator.index(n))
        except TypeError:
            raise TypeError(f"reshape: shape {tuple(shape)} must hold ints") from None
    size = math.prod(old)
    if dims.count(-1) > 1:
        raise ValueError(f"reshape: shape {tuple(dims)} has more than one -1")
    if any(n < -1 for n in dims):
        raise ValueError(f"reshape: shape {tuple(dims)} has a negative dimension")
    if -1 in dims:
        known = math.prod(n for n in dims if n != -1)
        if known == 0 or size % known:
            raise ValueError(f"reshape: cannot reshape an array of shape {old} into {tuple(dims)}")
        dims[dims.index(-1)] = size // known
    if math.prod(dims) != size:
        raise ValueError(
            f"reshape: cannot reshape an array of shape {old} (size {size}) into {tuple(dims)}"
        )
    return tuple(dims)


def _local_layout(layout: Layout, new: tuple[int, ...], nranks: int) -> Layout | None:
    """The layout of ``new`` that each rank reaches by reshaping its own block, if any.

    In C order a split-``s`` array is, per index of the axes before ``s`` (``P`` of them), a
    row in which rank i holds the run ``[o_i * R, (o_i + c_i) * R)`` with ``R`` the size of
    the axes after ``s``. If some axis ``t`` of ``new`` has the same ``P`` axes-before and
    every run boundary falls on a multiple of ``R'`` (the size after ``t``), the runs are
    whole slabs of axis ``t``: rank i holds ``c_i * R / R'`` of them. An empty array is free.
    """
    if math.prod(layout.shape) == 0:
        return Layout.balanced(new, 0, nranks) if new else Layout.replicated(new)
    s, counts = layout.split, layout.counts
    before = math.prod(layout.shape[:s])
    run = math.prod(layout.shape[s + 1 :])
    for t in range(len(new)):
        if math.prod(new[:t]) != before:
            continue
        slab = math.prod(new[t + 1 :])
        if all(c * run % slab == 0 for c in counts):
            return Layout(new, t, tuple(c * run // slab for c in counts))
    return None


def _reshape_block(x: Array, block: Any, out: Layout, copy: bool | None) -> Array:
    """Reshape each rank's block to its block of ``out`` (no data moves between ranks)."""
    xp, comm = x._backend.xp, x._comm
    shape = out.local_shape(comm.rank)
    if copy is not False:
        return _wrap(xp.reshape(block, shape, copy=copy), out, x)
    try:
        local, ok = xp.reshape(block, shape, copy=False), True
    except (ValueError, AttributeError):  # CuPy (through array-api-compat): AttributeError
        local, ok = None, False
    if comm.size > 1:  # a view may exist on some ranks only (strides): agree before raising
        ok = bool(comm.allreduce(np.array([ok]), "land")[0])
    if not ok:
        raise ValueError(
            f"reshape: copy=False but a block of shape {x.lshape} cannot be "
            f"viewed as {shape} without a copy"
        )
    return _wrap(local, out, x)


def _range_moves(src: Sequence[tuple[int, int]], dst: Sequence[tuple[int, int]]):
    """``(src_rank, dst_rank, (slice,))`` for each overlap of two partitions of ``[0, n)``
    into consecutive ranges (a merge: O(ranks))."""
    moves, i, j = [], 0, 0
    while i < len(src) and j < len(dst):
        lo, hi = max(src[i][0], dst[j][0]), min(src[i][1], dst[j][1])
        if lo < hi:
            moves.append((i, j, (slice(lo, hi),)))
        if src[i][1] <= dst[j][1]:
            i += 1
        else:
            j += 1
    return moves


def _move_flat(block: Any, src: Layout, dst: Layout, comm: Any, backend: Any) -> Any:
    """This rank's block of ``dst`` from its block of ``src``, both split along axis 0: in C
    order each block is a contiguous range of the flat array, so flat ranges move in one
    all-to-all."""
    r_src, r_dst = math.prod(src.shape[1:]), math.prod(dst.shape[1:])
    src_ranges = [(o * r_src, (o + c) * r_src) for o, c in zip(src.offsets, src.counts)]
    dst_ranges = [(o * r_dst, (o + c) * r_dst) for o, c in zip(dst.offsets, dst.counts)]
    me = comm.rank
    flat = backend.xp.reshape(block, (-1,))
    out = exchange_boxes(
        [(flat, _range_moves(src_ranges, dst_ranges), [src_ranges[me][0]])],
        [(hi - lo,) for lo, hi in dst_ranges],
        [[lo] for lo, _ in dst_ranges],
        backend.dtype_of(block),
        comm,
        backend,
        backend.device_of(block),
    )
    return backend.xp.reshape(out, dst.local_shape(me))


def reshape(x: Array, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Array:
    """The standard's ``reshape``.

    Local when the split axis survives (``_local_layout``). Otherwise the array is moved to
    split 0 (one all-to-all, skipped if it already is) and flat ranges move to a balanced
    split-0 layout of the new shape (one all-to-all); a 0-d result gathers its one element.
    ``copy=False`` raises when data must move between ranks; on a local reshape the ranks
    agree with one small allreduce whether every block can be viewed (strides differ).
    """
    check_array(x, "reshape")
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"reshape: copy must be None or a bool, got {copy!r}")
    new = _target_shape(shape, x.shape)
    layout, comm = x._layout, x._comm
    if layout.split is None:
        return _reshape_block(x, x._local, Layout.replicated(new), copy)
    if comm.size == 1:
        return _reshape_block(x, x._local, Layout.balanced(new, 0 if new else None, 1), copy)
    local = _local_layout(layout, new, comm.size)
    if local is not None:
        return _reshape_block(x, x._local, local, copy)
    if copy is False:
        raise ValueError(
            f"reshape: copy=False but reshaping {x.shape} split along axis {layout.split} "
            f"into {new} moves data between ranks"
        )
    backend, block = x._backend, x._local
    if not new:  # the one element of a size-1 array
        full = gather_block(block, layout, comm, backend)
        return _wrap(backend.xp.reshape(full, ()), Layout.replicated(()), x)
    if layout.split != 0:
        target = Layout.balanced(x.shape, 0, comm.size)
        block, layout = redistribute_block(block, layout, target, comm, backend), target
        local = _local_layout(layout, new, comm.size)
        if local is not None:
            return _reshape_block(x, block, local, None)
    out = Layout.balanced(new, 0, comm.size)
    return _wrap(_move_flat(block, layout, out, comm, backend), out, x)


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
    sends or receives; a replicated input serves every rank from itself."""
    moves = []
    if layout.split is None:
        box = intersect(_box(layout, me, axis, shift), _box(out, me, axis, 0), out.shape)
        return [(me, me, box)] if box is not None else []
    mine = _box(layout, me, axis, shift)
    for dst in range(nranks):
        box = intersect(mine, _box(out, dst, axis, 0), out.shape)
        if box is not None:
            moves.append((me, dst, box))
    target = _box(out, me, axis, 0)
    for src in range(nranks):
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
        return _wrap(xp.concat(parts, axis=axis), out, first)
    sources, shift = [], 0
    for block, lay, n in zip(blocks, layouts, sizes):
        moves = _concat_moves(lay, out, axis, shift, comm.rank, nranks)
        origin = [s.start for s in _box(lay, comm.rank, axis, shift)]
        sources.append((block, moves, origin))
        shift += n
    local = exchange_boxes(
        sources,
        [out.local_shape(r) for r in range(nranks)],
        [[s.start for s in _box(out, r, axis, 0)] for r in range(nranks)],
        dtype,
        comm,
        backend,
        first.device,
    )
    return _wrap(local, out, first)


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


# -- roll and repeat (their split-axis cores are in _manipulation_more) -------------------------
def _int_tuple(value: Any, func: str, name: str) -> tuple[int, ...]:
    """An int or a tuple of ints as a tuple, or a TypeError naming ``func`` and ``name``."""
    items = value if isinstance(value, tuple) else (value,)
    for v in items:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{func}: {name} must be an int or a tuple of ints, got {value!r}")
    return tuple(int(v) for v in items)


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    """The standard's ``roll``. Local along axes other than the split one; along the split
    axis one ``alltoallv`` moves each piece to its new owner and the layout is kept. As in
    NumPy, an int ``shift`` applies to every axis of a tuple ``axis`` and a repeated axis
    rolls by the sum of its shifts. ``axis=None`` rolls the flattened array: a reshape to 1-D
    and back (local for an array split along axis 0; otherwise reshape's all-to-alls, and
    the result has reshape's layout)."""
    check_array(x, "roll")
    shifts = _int_tuple(shift, "roll", "shift")
    if axis is None:
        if len(shifts) != 1 or isinstance(shift, tuple):
            raise TypeError(f"roll: shift must be an int when axis is None, got {shift!r}")
        flat = reshape(x, (-1,))
        return reshape(roll_axes(flat, {0: shifts[0]}), x.shape)
    axes = tuple(normalize_axis(a, x.ndim, "roll") for a in _int_tuple(axis, "roll", "axis"))
    if len(shifts) == 1:
        shifts *= len(axes)
    elif len(axes) == 1:
        axes *= len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift} and axis {axis} differ in length")
    total: dict[int, int] = {}
    for a, s in zip(axes, shifts):
        total[a] = total.get(a, 0) + s
    return roll_axes(x, total)


def repeat(x: Array, repeats: int | Array, /, *, axis: int | None = None) -> Array:
    """The standard's ``repeat``: each rank repeats its own block and no data of ``x``
    moves; along the split axis the result's counts are the repeats of each rank's range
    (exact, uneven). A repeats array costs at most an all-to-all or an allgather of the
    repeats themselves and one small allgather of counts (``repeat_along``); negative repeats
    in an array raise on every rank after that. ``axis=None`` repeats the flattened array
    (a reshape to 1-D, local for an array split along axis 0)."""
    check_array(x, "repeat")
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, "repeat")
    check_repeats(x, repeats, axis)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    return repeat_along(x, repeats, axis)
