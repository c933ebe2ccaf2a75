"""Shape manipulation: ``reshape``, ``squeeze``, ``expand_dims``, ``permute_dims`` and
``moveaxis``.

Where the split axis survives, each rank transforms its own block and nothing moves:
``permute_dims``, ``moveaxis``, ``expand_dims``, ``squeeze`` of other axes, and every
``reshape`` that keeps the split axis's run of the C-order layout (see ``_local_layout``).
Otherwise a reshape moves flat ranges of a split-0 array in one all-to-all of boxes of global
index space (``exchange_boxes``); a squeeze of the split axis re-splits the array first.
Nothing gathers a whole array (but a 0-d result's one element).

NumPy returns views from all of these (``reshape`` where the array's strides allow it), so a
write into the result reaches ``x`` at every rank count: a view of ``x``'s blocks shares their
memory; a result that moved (or a reshape whose block had to be copied), or that views such a
result, holds a write-back (``Reshape``, ``Permutation``; a moved squeeze, the key's
``Selection``) that names ``x`` and carries each write there. ``reshape`` asks the strides
NumPy would give ``x`` (``_indexing.strides.model_strides``) whether NumPy views or copies,
and does the same at every rank count: a copy where NumPy copies (no write-back), else a view
or a result that writes back. Writes into ``x`` after a moved result was made are not seen in
it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._array import Array, WriteBack, wrap_block
from .._indexing.basic import writes_through
from .._indexing.strides import c_strides, model_strides, note_strides, noted_strides
from .._layout import Layout
from .._movement.collectives import all_ranks
from .._movement.redistribute import exchange_boxes, gather_block, redistribute_block
from .._placement import mark_unplaced, unplaced
from .._transport.comm import Communicator
from .._validation import (
    as_index,
    check_array,
    check_ints,
    normalize_axes,
    normalize_axis,
    ordered_axes,
)
from ..backends.base import Backend

__all__ = ["expand_dims", "moveaxis", "permute_dims", "reshape", "squeeze"]


# -- views and their write-backs ----------------------------------------------------------------
class Reshape(WriteBack):
    """The write-back of ``view = reshape(base, shape)``, and of ``expand_dims`` and a
    ``squeeze`` that keeps the split axis (reshapes that add or drop axes of length 1).

    ``how`` says where the view's data lies: ``"shared"``, in ``base``'s blocks (a write is
    there already, and ``base``'s own write-back takes all of it); ``"block"``, in a copy of
    this rank's block whose strides the library could not view (written back into the block,
    no message, then passed on as well); ``"moved"``, in a copy that moved between ranks
    (written back by the reverse move, ``base[...] = ...``)."""

    __slots__ = ("shape", "how")

    def __init__(self, base: Array, shape: tuple[int, ...], how: str = "shared") -> None:
        super().__init__(base)
        self.shape = shape
        self.how = how

    def written(self, view: Array, parts: list | None) -> None:
        base = self.base
        if self.how == "moved":
            base[...] = reshape(view, base.shape, copy=True)
            return
        if self.how == "block":
            base._local[...] = base._backend.xp.reshape(view._local, base._local.shape)
        self.pass_on(None)


class Permutation(WriteBack):
    """The write-back of ``view = permute_dims(base, axes)`` (``moveaxis``, ``.T``, ``.mT``):
    the view shares ``base``'s blocks, so a write is there already, and ``base``'s own
    write-back takes all of it."""

    __slots__ = ("axes",)

    def __init__(self, base: Array, axes: tuple[int, ...]) -> None:
        super().__init__(base)
        self.axes = axes

    def written(self, view: Array, parts: list | None) -> None:
        self.pass_on(None)


def _view(
    out: Array,
    x: Array,
    strides: tuple[int, ...] | None,
    back: Callable[[Array, tuple[int, ...]], WriteBack],
    mapping: tuple[int, ...],
) -> Array:
    """``out``, a view of ``x``'s blocks with NumPy's ``strides`` (``None``: its block shows
    them). Writes into it are in ``x``'s blocks; where ``x`` writes back itself, ``out``
    holds the write-back ``back(x, mapping)`` that passes them on."""
    note_strides(out, strides)
    if x._writeback is not None:
        out._writeback = back(x, mapping)
    return out


# -- permutations, new and squeezed axes --------------------------------------------------------
def _permuted(x: Array, perm: tuple[int, ...]) -> Array:
    """``x`` with its axes in the (validated, normalized) order ``perm``: local (a view)."""
    layout = x._layout
    split = None if layout.split is None else perm.index(layout.split)
    shape = tuple(x.shape[a] for a in perm)
    local = x._backend.xp.permute_dims(x._local, perm)
    strides = model_strides(x)
    if strides is not None:
        strides = tuple(strides[a] for a in perm)
    return _view(
        wrap_block(local, Layout(shape, split, layout.counts), x), x, strides, Permutation, perm
    )


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
    return _permuted(x, perm)


def expand_dims(x: Array, /, axis: int | tuple[int, ...] = 0) -> Array:
    """The standard's ``expand_dims``: local (a view). ``axis`` an int, or (2025.12) a tuple
    of distinct positions in the result (``[-M, M)``, ``M = x.ndim + len(axis)``); the other
    axes keep their order and the split axis moves with them."""
    check_array(x, "expand_dims")
    if isinstance(axis, tuple):
        axes = normalize_axes(axis, x.ndim + len(axis), "expand_dims")
    else:
        axes = (normalize_axis(axis, x.ndim + 1, "expand_dims"),)
    shape, split, local = list(x.shape), x._layout.split, x._local
    strides = model_strides(x)
    steps = None if strides is None else list(strides)
    for a in axes:  # ascending: each insertion leaves the earlier ones in place
        if steps is not None:  # the new axis's stride does not matter: a C-order one
            steps.insert(a, steps[a] * shape[a] if a < len(shape) else 1)
        shape.insert(a, 1)
        if split is not None and split >= a:
            split += 1
        local = x._backend.xp.expand_dims(local, axis=a)
    strides = None if steps is None else tuple(steps)
    layout = Layout(tuple(shape), split, x._layout.counts)
    return _view(wrap_block(local, layout, x), x, strides, Reshape, layout.shape)


def squeeze(x: Array, /, axis: int | tuple[int, ...]) -> Array:
    """The standard's ``squeeze`` of axes of size 1.

    Local (a view) unless the squeezed axes include the split axis (its one element then lives
    on one rank): the array is first re-split along its largest remaining axis (one
    all-to-all that moves only the owner's data), or, for a 0-d result, its one element is
    gathered; that result writes itself back into ``x`` after each write.
    """
    check_array(x, "squeeze")
    if axis is None:
        raise TypeError("squeeze: axis must be an int or a tuple of ints, got None")
    axes = normalize_axes(axis, x.ndim, "squeeze")
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1 (shape {x.shape})")
    block, layout = x._local, x._layout
    moved = layout.split in axes
    if moved:
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
    out = wrap_block(local, Layout(shape, split, layout.counts), x)
    strides = model_strides(x)
    if strides is not None:
        strides = tuple(s for i, s in enumerate(strides) if i not in axes)
    if not moved:
        return _view(out, x, strides, Reshape, shape)
    note_strides(out, strides)
    parts = [0 if i in axes else range(n) for i, n in enumerate(x.shape)]
    return writes_through(out, x, parts, copied=True)


def _axis_list(axes: Any, ndim: int, func: str, name: str) -> tuple[int, ...]:
    """An int or a tuple of ints as normalized axes, in the given order, without repeats; any
    integer but a bool, and a list for the tuple (NumPy and Torch take both; SciPy's
    ``hilbert2`` moves ``[1, 2]``)."""
    if not isinstance(axes, tuple | list) and as_index(axes) is not None:
        axes = (axes,)
    if not isinstance(axes, tuple | list):
        raise TypeError(f"{func}: {name} must be an int or a tuple of ints, got {axes!r}")
    return ordered_axes(axes, ndim, func, name)


def moveaxis(
    x: Array, source: int | tuple[int, ...], destination: int | tuple[int, ...], /
) -> Array:
    """The standard's ``moveaxis``: a permutation of the axes, local (no message)."""
    check_array(x, "moveaxis")
    src = _axis_list(source, x.ndim, "moveaxis", "source")
    dst = _axis_list(destination, x.ndim, "moveaxis", "destination")
    if len(src) != len(dst):
        raise ValueError(
            f"moveaxis: source {source} and destination {destination} differ in length"
        )
    order = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permuted(x, tuple(order))


# -- reshape ------------------------------------------------------------------------------------
def _target_shape(shape: Any, old: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with its ``-1`` resolved, checked against the size of ``old``."""
    dims = list(check_ints(shape, "reshape", "shape"))
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
    s = layout.split
    counts = np.diff(layout.bounds)  # one NumPy pass over the ranks, not a Python loop
    before = math.prod(layout.shape[:s])
    run = math.prod(layout.shape[s + 1 :])
    for t in range(len(new)):
        if math.prod(new[:t]) != before:
            continue
        slab = math.prod(new[t + 1 :])
        if not (counts * run % slab).any():
            return Layout.trusted(new, t, tuple((counts * run // slab).tolist()))
    return None


def _nocopy_strides(old: tuple[int, ...], strides: tuple[int, ...], new: tuple[int, ...]):
    """The strides of ``new`` viewing an array of shape ``old`` and ``strides`` (elements)
    without a copy, or ``None`` when NumPy would copy it.

    Axes of length 1 do not count. The remaining axes of ``old`` and of ``new`` fall into runs
    of equal products; each run of ``old`` must be one stretch of memory (each axis's stride is
    the next one's times its length), and its run of ``new`` takes C strides inside it. An
    empty array is always viewed.
    """
    if 0 in old:
        return c_strides(new)
    dims = [(n, s) for n, s in zip(old, strides) if n != 1]
    out = [1] * len(new)  # axes of length 1 left at the end: any stride
    i = j = 0
    while i < len(dims) and j < len(new):
        i2, j2, po, pn = i + 1, j + 1, dims[i][0], new[j]
        while po != pn:
            if pn < po:
                pn, j2 = pn * new[j2], j2 + 1
            else:
                po, i2 = po * dims[i2][0], i2 + 1
        if any(dims[k][1] != dims[k + 1][0] * dims[k + 1][1] for k in range(i, i2 - 1)):
            return None
        out[j2 - 1] = dims[i2 - 1][1]
        for k in range(j2 - 1, j, -1):
            out[k - 1] = out[k] * new[k]
        i, j = i2, j2
    return tuple(out)


def _numpy_view(x: Array, new: tuple[int, ...]) -> tuple[int, ...] | bool | None:
    """How NumPy reshapes ``x`` into ``new``: a view with these strides, ``True`` for a view
    in C order (nothing to note), ``False`` for a copy, or ``None`` where ``x``'s block
    decides (it shows NumPy's strides itself)."""
    strides = noted_strides(x)
    if strides is None:  # not noted: in C order, or its block shows its strides
        return True if x._layout.split is not None or x._backend.is_c_contiguous(x._local) else None
    view = _nocopy_strides(x.shape, strides, new)
    return False if view is None else view


def _block_view(xp: Any, block: Any, shape: tuple[int, ...]) -> Any:
    """``block`` viewed as ``shape``, or ``None`` where its strides need a copy."""
    try:
        return xp.reshape(block, shape, copy=False)
    except (ValueError, AttributeError):  # CuPy (through array-api-compat): AttributeError
        return None


def _reshape_block(x: Array, out: Layout, copy: bool | None, view: Any) -> Array:
    """Reshape each rank's block to its block of ``out`` (no data moves between ranks).

    A copy where ``copy`` is True or NumPy copies (``view`` False: see ``_numpy_view``). Else
    a view of the block; where this rank's block cannot be viewed so (its strides), a copy
    that writes itself back into the block after each write, unless NumPy copies it too
    (``view`` None). ``copy=False`` raises on every rank if any rank would copy.
    """
    xp, comm = x._backend.xp, x._comm
    shape = out.local_shape(comm.rank)
    if copy or view is False:
        return wrap_block(xp.reshape(x._local, shape, copy=True), out, x)
    local = _block_view(xp, x._local, shape)
    if copy is False and not all_ranks(local is not None, comm):  # strides differ per rank
        raise ValueError(
            f"reshape: copy=False but a block of shape {x.lshape} cannot be "
            f"viewed as {shape} without a copy"
        )
    strides = view if isinstance(view, tuple) else None
    if local is not None:
        return _view(wrap_block(local, out, x), x, strides, Reshape, out.shape)
    result = wrap_block(xp.reshape(x._local, shape, copy=True), out, x)
    if view is None:  # the block's own strides need a copy: so do NumPy's
        return result
    note_strides(result, strides)
    result._writeback = Reshape(x, out.shape, "block")
    return result


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


def _move_flat(block: Any, src: Layout, dst: Layout, comm: Communicator, backend: Backend) -> Any:
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
    """The standard's ``reshape``, viewing or copying where NumPy does.

    Local when the split axis survives (``_local_layout``). Otherwise the array is moved to
    split 0 (one all-to-all, skipped if it already is) and flat ranges move to a balanced
    split-0 layout of the new shape (one all-to-all); a 0-d result gathers its one element.
    Where NumPy would give a view, the moved result writes itself back into ``x`` after each
    write (the reverse move). ``copy=False`` raises where NumPy would copy and where data must
    move between ranks; on a local reshape the ranks agree with one small allreduce whether
    every block can be viewed (strides differ). To its own shape, without ``copy=True``: ``x``
    itself. A replicated ``x`` made so by default (``_placement.unplaced``) gives a result
    made so by default too.
    """
    check_array(x, "reshape")
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"reshape: copy must be None or a bool, got {copy!r}")
    new = _target_shape(shape, x.shape)
    if new == x.shape and not copy:
        # x itself, as the view of all of it that NumPy gives: an array made replicated by
        # default stays one that split data written into it may split (SciPy's xp_ravel of
        # a new 1-D work array)
        return x
    view = False if copy else _numpy_view(x, new)
    if copy is False and view is False:
        raise ValueError(
            f"reshape: copy=False but NumPy cannot view this array of shape {x.shape} as {new} "
            "without a copy (its elements are not evenly spaced in memory)"
        )
    layout, comm = x._layout, x._comm
    if layout.split is None:
        out = _reshape_block(x, Layout.replicated(new), copy, view)
        if unplaced(x) and out._writeback is None:
            # a reshape of an array made replicated by default is one too (SciPy's xp_ravel
            # of a 2-D work array): split data written into it may split it while nothing
            # else refers to its memory (``_indexing.basic.alone``)
            mark_unplaced(out)
        return out
    if comm.size == 1:
        return _reshape_block(x, Layout.balanced(new, 0 if new else None, 1), copy, view)
    local = _local_layout(layout, new, comm.size)
    if local is not None:
        return _reshape_block(x, local, copy, view)
    if copy is False:
        raise ValueError(
            f"reshape: copy=False but reshaping {x.shape} split along axis {layout.split} "
            f"into {new} moves data between ranks"
        )
    out = _reshape_moved(x, new)
    if view is False:
        return out
    note_strides(out, view if isinstance(view, tuple) else None)
    if out.size:
        out._writeback = Reshape(x, new, "moved")
    return out


def _reshape_moved(x: Array, new: tuple[int, ...]) -> Array:
    """``x`` (split, at more than one rank) reshaped to ``new`` by moving data (a copy)."""
    layout, comm, backend, block = x._layout, x._comm, x._backend, x._local
    if not new:  # the one element of a size-1 array
        full = gather_block(block, layout, comm, backend)
        return wrap_block(backend.xp.reshape(full, ()), Layout.replicated(()), x)
    if layout.split != 0:
        target = Layout.balanced(x.shape, 0, comm.size)
        block, layout = redistribute_block(block, layout, target, comm, backend), target
        local = _local_layout(layout, new, comm.size)
        if local is not None:
            return wrap_block(backend.xp.reshape(block, local.local_shape(comm.rank)), local, x)
    out = Layout.balanced(new, 0, comm.size)
    return wrap_block(_move_flat(block, layout, out, comm, backend), out, x)
