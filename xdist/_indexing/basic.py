"""Basic indexing: keys of ints, slices, ``None`` and ``Ellipsis``, read and written.

Each rank selects from its own block (``take_parts``). What communicates depends on what
selects the split axis: a positive-step slice nothing (the result keeps the exact, uneven
counts); a negative-step slice one all-to-all to a balanced layout; an int one ``bcast`` of
the owner's piece (the result is replicated). A write fetches only the boxes of the value
that are not already where they are written (``values.fetch_value``).
"""

from __future__ import annotations

from typing import Any

from .. import _array
from .._layout import Layout, intersect
from .._movement.collectives import bcast_block
from .._movement.redistribute import exchange_boxes
from .keys import (
    Part,
    local_key,
    local_parts,
    normalize_key,
    rank_positions,
    selected_shape,
    split_part,
)
from .values import check_value, fetch_value, full_box, wanted, write_parts

__all__: list[str] = []


def take_parts(block: Any, parts: list[Part], backend: Any) -> Any:
    """The selection ``parts`` (in block indices) of ``block``, as a block."""
    key, flips = local_key(parts)
    out = block[(*key, Ellipsis)]  # a trailing Ellipsis keeps NumPy from returning a scalar
    if not backend.is_block(out):
        out = backend.asarray(out)
    return backend.xp.flip(out, axis=flips) if flips else out


# -- getitem ------------------------------------------------------------------------------------
def replicated_basic(x: _array.Array, items: tuple) -> _array.Array | None:
    """``x[items]`` for a replicated ``x`` and ints, ``None``, ``Ellipsis`` and slices of
    int bounds and a positive step (what every backend slices alike), by the library
    directly: the same view as the general path (an Ellipsis is appended so that NumPy gives
    a 0-d array, not a scalar), in half its time. ``None`` where anything else is in
    the key or the library refuses it: the general path then raises xdist's error."""
    ellipsis = False
    for k in items:
        if k is Ellipsis:
            if ellipsis:  # Torch takes two
                return None
            ellipsis = True
        elif type(k) is slice:
            start, stop, step = k.start, k.stop, k.step
            if not (
                (start is None or type(start) is int)
                and (stop is None or type(stop) is int)
                and (step is None or (type(step) is int and step > 0))
            ):
                return None
        elif not (k is None or type(k) is int):
            return None
    try:
        block = x._local[items if ellipsis else (*items, Ellipsis)]
    except (IndexError, TypeError, ValueError):
        return None
    return _array.wrap_block(block, Layout.replicated(tuple(block.shape)), x)


def getitem_basic(x: _array.Array, key: Any) -> _array.Array:
    """``x[key]`` for a basic key (see the module docstring for what communicates)."""
    layout, comm, backend = x._layout, x._comm, x._backend
    parts = normalize_key(key, x.shape, "__getitem__")
    shape = selected_shape(parts)
    if layout.split is None:
        block = take_parts(x._local, parts, backend)
        return _array.Array._new(block, Layout.replicated(shape), comm, backend)
    at, out_axis = split_part(parts, layout.split)
    if out_axis is None:
        return _getitem_owner(x, parts, at, shape)
    ranks = rank_positions(layout, parts[at])  # type: ignore[arg-type]
    k0, k1 = ranks[comm.rank]
    local = local_parts(parts, at, k0, k1, layout.offsets[comm.rank])
    piece = take_parts(x._local, local, backend)
    counts = tuple(b - a for a, b in ranks)
    if parts[at].step > 0 or sum(c > 0 for c in counts) <= 1:  # type: ignore[union-attr]
        # In rank order already (a positive step, or at most one rank holds anything).
        return _array.Array._new(piece, Layout(shape, out_axis, counts), comm, backend)
    return _reversed_to_balanced(x, piece, ranks, shape, out_axis)


def _getitem_owner(x: _array.Array, parts: list[Part], at: int, shape: tuple[int, ...]):
    """An int on the split axis: the owner's piece, broadcast to every rank (one ``bcast``)."""
    layout, comm, backend = x._layout, x._comm, x._backend
    owner = layout.owner(parts[at])  # type: ignore[arg-type]
    piece = None
    if comm.rank == owner:
        local = list(parts)
        local[at] = parts[at] - layout.offsets[owner]  # type: ignore[operator]
        piece = take_parts(x._local, local, backend)
    if comm.size > 1:  # bcast_block copies, so no rank's result is a view of x's block
        piece = bcast_block(piece, shape, x.dtype, owner, comm, backend, x.device)
    return _array.Array._new(piece, Layout.replicated(shape), comm, backend)


def _reversed_to_balanced(x, piece, ranks, shape, out_axis) -> _array.Array:
    """A negative step on the split axis: rank q holds result positions ``ranks[q]``, in
    reverse rank order; one all-to-all moves them to balanced blocks in rank order."""
    comm, backend = x._comm, x._backend
    target = Layout.balanced(shape, out_axis, comm.size)
    full = [slice(0, n) for n in shape]
    held = []
    for k0, k1 in ranks:
        box = list(full)
        box[out_axis] = slice(k0, k1)
        held.append(tuple(box))
    moves = []
    for src, box in enumerate(held):
        for dst in range(comm.size):
            common = intersect(box, target.local_slice(dst), shape)
            if common is not None:
                moves.append((src, dst, common))
    block = exchange_boxes(
        [(piece, moves, [s.start for s in held[comm.rank]])],
        [target.local_shape(r) for r in range(comm.size)],
        [target.origin(r) for r in range(comm.size)],
        x.dtype,
        comm,
        backend,
        x.device,
    )
    return _array.Array._new(block, target, comm, backend)


# -- setitem ------------------------------------------------------------------------------------
def setitem_basic(x: _array.Array, key: Any, value: Any) -> None:
    """``x[key] = value`` for a basic key: each rank writes the selected elements it owns."""
    parts = normalize_key(key, x.shape, "__setitem__")
    shape = selected_shape(parts)
    check_value(x, value, shape)
    layout, rank, size = x._layout, x._comm.rank, x._comm.size
    if layout.split is None:
        write_parts(x, parts, fetch_value(value, [full_box(value)] * size))
        return
    at, out_axis = split_part(parts, layout.split)
    offset = layout.offsets[rank]
    if out_axis is None:  # an int: only the owner writes, and it needs all of value
        owner = layout.owner(parts[at])  # type: ignore[arg-type]
        want = [full_box(value) if q == owner else None for q in range(size)]
        piece = fetch_value(value, want)
        if rank == owner:
            local = list(parts)
            local[at] = parts[at] - offset  # type: ignore[operator]
            write_parts(x, local, piece)
        return
    ranks = rank_positions(layout, parts[at])  # type: ignore[arg-type]
    want = [wanted(value, shape, out_axis, k0, k1) for k0, k1 in ranks]
    piece = fetch_value(value, want)
    k0, k1 = ranks[rank]
    if k1 > k0:
        write_parts(x, local_parts(parts, at, k0, k1, offset), piece)
