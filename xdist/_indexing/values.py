"""The value of ``x[key] = value``: its checks, the part of it each rank writes, the write.

``as_value`` takes NumPy's values as NumPy's users write them (``x[i] = a.max()``): a NumPy
scalar as the Python scalar it holds, a NumPy array (or a block of the array's library) as a
replicated array, compared between ranks as an operand is.
``check_value`` applies the standard's rules before any message. ``fetch_value`` brings each
rank the box of a value it writes: nothing moves for a Python scalar, a replicated value or
boxes already local; one allgather when every rank needs all of a split value; otherwise one
all-to-all of only the parts that are not already where they are written.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _array
from .._layout import Box, Layout, inside, intersect, resolve, shifted
from .._movement.broadcast import broadcast_shapes
from .._movement.gathers import implicit_gather
from .._movement.redistribute import exchange_boxes
from .keys import Part, local_key, selected_shape

__all__: list[str] = []

SCALARS = (bool, int, float, complex)
_KINDS = {"b": "b", "i": "iu", "u": "iu", "f": "fc", "c": "fc"}


# -- checks ------------------------------------------------------------------------------------
def as_value(x: _array.Array, value: Any) -> Any:
    """``value`` as ``check_value`` takes it: a NumPy bool, integer, float or complex scalar
    as the Python scalar it holds (the standard's rules for Python scalars then apply, not
    compared between ranks, as an operand's are not); a NumPy array (0-d too), or a block of
    ``x``'s library, as a replicated array (``_array.replicated_operand``: the ranks compare
    it, as an operand's). Else as it is."""
    if isinstance(value, np.generic):
        return value.item() if value.dtype.kind in "biufc" else value
    if isinstance(value, np.ndarray):
        _check_dtype(x, value.dtype)  # before the comparison's message
    elif not x._backend.is_block(value):
        return value
    return _array.replicated_operand(x, value, "__setitem__")


def check_value(x: _array.Array, value: Any, shape: tuple[int, ...]) -> None:
    """``value`` may be written into ``x[key]`` (of ``shape``): the standard's rules."""
    if isinstance(value, _array.Array):
        _check_array_value(x, value, shape)
    elif isinstance(value, SCALARS):
        _check_scalar_value(x, value)
    else:
        raise TypeError(
            f"__setitem__: value must be an xdist array, a NumPy array or a Python or NumPy "
            f"scalar, got {type(value).__name__}"
        )


def _check_array_value(x: _array.Array, value: _array.Array, shape: tuple[int, ...]) -> None:
    """Same kind of dtype, promoting to the dtype of ``x``, and broadcast to ``shape``."""
    func = "__setitem__"
    if value._comm is not x._comm:
        raise ValueError(f"{func}: value lives on a different communicator than the array")
    _check_dtype(x, value.dtype)
    if value.ndim > len(shape) or broadcast_shapes([shape, value.shape], func) != shape:
        raise ValueError(
            f"{func}: value of shape {value.shape} cannot be broadcast to the selection {shape}"
        )


def _check_dtype(x: _array.Array, vt: np.dtype) -> None:
    """A value of dtype ``vt`` is of the kind of ``x``'s dtype and promotes to it."""
    xt = x.dtype
    if (
        vt.kind not in _KINDS
        or _KINDS[vt.kind] != _KINDS[xt.kind]
        or np.promote_types(vt, xt) != xt
    ):
        raise TypeError(f"__setitem__: cannot store a value of {vt} in an array of {xt}")


def _check_scalar_value(x: _array.Array, value: Any) -> None:
    """The standard's mixing of Python scalars with arrays (an int must fit the dtype)."""
    func = "__setitem__"
    kind = x.dtype.kind
    ok = {bool: kind == "b", int: kind in "iufc", float: kind in "fc", complex: kind == "c"}
    if not ok[_scalar_type(value)]:
        raise TypeError(
            f"{func}: cannot store a Python {type(value).__name__} in an array of {x.dtype}"
        )
    if _scalar_type(value) is int and kind in "iu":
        info = np.iinfo(x.dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{func}: {value} is out of bounds for {x.dtype}")


def _scalar_type(value: Any) -> type:
    """The first of ``SCALARS`` that ``value`` is an instance of (a dict lookup for the exact
    types: loops of one-element writes check each value)."""
    exact = _EXACT.get(type(value))
    return exact if exact is not None else next(t for t in SCALARS if isinstance(value, t))


_EXACT = {t: t for t in SCALARS}


# -- the boxes of the value that ranks write -----------------------------------------------------
def full_box(value: Any) -> Box | None:
    """All of an array ``value``; ``None`` for a Python scalar."""
    if not isinstance(value, _array.Array):
        return None
    return tuple(slice(0, n) for n in value.shape)


def wanted(value: Any, shape: tuple[int, ...], out_axis: int, k0: int, k1: int) -> Box | None:
    """The box of ``value`` (broadcast to ``shape``) that a rank writing positions ``[k0, k1)``
    of axis ``out_axis`` needs; ``None`` when it writes nothing or ``value`` is a scalar."""
    if not isinstance(value, _array.Array) or k1 <= k0:
        return None
    axis = out_axis - (len(shape) - value.ndim)
    box = list(full_box(value))  # type: ignore[arg-type]
    if axis >= 0 and value.shape[axis] == shape[out_axis]:  # not broadcast along that axis
        box[axis] = slice(k0, k1)
    return tuple(box)


def value_moves(
    boxes: list[Box], want: list[Box | None], layout: Layout, me: int
) -> list[tuple[int, int, Box]]:
    """The ``(src, dst, box)`` moves of rank ``me`` when rank r wants the box ``want[r]`` of
    an array whose rank q holds ``boxes[q]`` (``layout``): what ``me`` sends (its block
    against every rank's box) and what it receives (the blocks meeting its own box, found by
    bisection): ``O(p)`` intersections, not every pair of ranks."""
    moves = []
    for dst, w in enumerate(want):
        box = intersect(boxes[me], w) if w is not None else None
        if box is not None:
            moves.append((me, dst, box))
    mine = want[me]
    for src in layout.ranks_meeting(mine, len(boxes)) if mine is not None else ():
        box = intersect(boxes[src], mine) if src != me else None
        if box is not None:
            moves.append((src, me, box))
    return moves


def fetch_value(value: Any, want: list[Box | None]) -> Any:
    """This rank's box ``want[rank]`` of ``value`` (``None`` for none; ``value`` itself for a
    Python scalar); only what is not local moves."""
    if not isinstance(value, _array.Array):
        return value
    layout, comm, backend = value._layout, value._comm, value._backend
    mine = want[comm.rank]
    if value.size == 0:  # nothing to move (global, so every rank agrees)
        shape_of = None if mine is None else tuple(b.stop - b.start for b in mine)
        return None if mine is None else backend.empty(shape_of, value.dtype, value.device)
    if layout.split is None or comm.size == 1:
        return None if mine is None else value._local[mine]
    boxes = [resolve(layout.local_slice(q), layout.shape) for q in range(comm.size)]
    if all(w is None or inside(w, boxes[q]) for q, w in enumerate(want)):
        return None if mine is None else value._local[shifted(mine, boxes[comm.rank])]
    if all(w == full_box(value) for w in want):
        return implicit_gather(value._local, layout, comm, backend, "__setitem__")
    moves = value_moves(boxes, want, layout, comm.rank)
    empty = (0,) * value.ndim
    got = exchange_boxes(
        [(value._local, moves, layout.origin(comm.rank))],
        [empty if w is None else tuple(s.stop - s.start for s in w) for w in want],
        [[0] * value.ndim if w is None else [s.start for s in w] for w in want],
        value.dtype,
        comm,
        backend,
        value.device,
    )
    return None if mine is None else got


# -- the write ----------------------------------------------------------------------------------
def writable_source(x: _array.Array, piece: Any) -> Any:
    """``piece`` (a block) in ``x``'s dtype, copied where it may be a view of x's own block
    (``x[1:] = x[:-1]``), which PyTorch refuses to write from; NumPy buffers such a source
    itself (``Backend.may_alias``)."""
    copy = x._backend.may_alias(x._local, piece)
    return x._backend.xp.astype(piece, x._local.dtype, copy=copy)


def write_parts(x: _array.Array, parts: list[Part], piece: Any) -> None:
    """Write ``piece`` (a Python scalar, or a block broadcastable to the local selection
    ``parts`` of ``x``'s block)."""
    key, flips = local_key(parts)
    if isinstance(piece, SCALARS):
        x._local[key] = piece
        return
    xp = x._backend.xp
    piece = xp.broadcast_to(writable_source(x, piece), selected_shape(parts))
    x._local[key] = xp.flip(piece, axis=flips) if flips else piece
