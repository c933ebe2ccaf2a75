"""Broadcasting: ``broadcast_to``, ``broadcast_arrays`` and ``broadcast_shapes``.

New axes and size-1 axes are materialized on each rank (writable results, not views); a
split operand keeps its split and nothing moves. An operand split along an axis it
broadcasts (length 1 there, so small) is gathered first, then each rank materializes its
balanced block. ``broadcast_arrays`` moves an operand split differently from the result (one
all-to-all). The rules (result shape and layout) are the movement layer's
(``_movement.broadcast``), shared with the elementwise functions.
"""

from __future__ import annotations

from typing import Any

from .._array import Array, wrap_block
from .._config import edition_sequence
from .._layout import Layout
from .._movement.broadcast import align_block, output_layout
from .._movement.broadcast import broadcast_shapes as _broadcast_shapes
from .._movement.gathers import implicit_gather
from .._validation import check_array, check_ints, check_same_context

__all__ = ["broadcast_arrays", "broadcast_shapes", "broadcast_to"]


def _materialize(xp: Any, block: Any, shape: tuple[int, ...]) -> Any:
    """``block`` broadcast to ``shape`` as a writable array (not a broadcast view)."""
    return xp.asarray(xp.broadcast_to(block, shape), copy=True)


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The standard's ``broadcast_shapes`` (2025.12): global metadata only, no message."""
    checked = [check_ints(s, "broadcast_shapes", f"shapes[{k}]", 0) for k, s in enumerate(shapes)]
    return _broadcast_shapes(checked, "broadcast_shapes")


def broadcast_to(x: Array, /, shape: tuple[int, ...]) -> Array:
    """The standard's ``broadcast_to``, materialized on each rank (writable, not a view).

    A split ``x`` keeps its split (moved by the new leading axes) and counts, and nothing
    moves; a replicated ``x`` gives a replicated result, so every rank holds all of it. An
    ``x`` split along an axis it broadcasts (length 1 there) is gathered first (one
    ``allgatherv`` of ``x``, which is small: at most the result's size over that axis's new
    length), then each rank materializes its block of a result balanced along that axis.
    """
    check_array(x, "broadcast_to")
    shape = check_ints(shape, "broadcast_to", "shape", 0)
    if len(shape) < x.ndim or _broadcast_shapes([x.shape, shape], "broadcast_to") != shape:
        raise ValueError(f"broadcast_to: cannot broadcast an array of shape {x.shape} to {shape}")
    layout, comm, xp = x._layout, x._comm, x._backend.xp
    block = x._local
    if layout.split is None:
        out = Layout.replicated(shape)
    else:
        axis = layout.split + len(shape) - x.ndim
        if x.shape[layout.split] == shape[axis]:
            out = Layout(shape, axis, layout.counts)
        else:  # length 1 broadcast along the split axis: every rank needs the whole of x
            block = implicit_gather(block, layout, comm, x._backend, "broadcast_to")
            out = Layout.balanced(shape, axis, comm.size)
    return wrap_block(_materialize(xp, block, out.local_shape(comm.rank)), out, x)


def broadcast_arrays(*arrays: Array) -> tuple[Array, ...] | list[Array]:
    """The standard's ``broadcast_arrays``: a tuple (2025.12; a list when the ``api_version``
    setting is earlier).

    All results share one layout: that of the largest input split along an axis it does not
    broadcast (``_movement.broadcast.output_layout``); an input split differently moves there
    (one all-to-all), one split along a broadcast axis is gathered (small). Inputs that
    already have the result's shape and layout are returned as they are.
    """
    for k, a in enumerate(arrays):
        check_array(a, "broadcast_arrays", f"arrays[{k}]")
    if not arrays:
        return edition_sequence([])
    check_same_context(arrays, "broadcast_arrays", "arrays[{}]")
    shape = _broadcast_shapes([a.shape for a in arrays], "broadcast_arrays")
    out = output_layout([a._layout for a in arrays], shape)
    first = arrays[0]
    comm, backend = first._comm, first._backend
    local_shape = out.local_shape(comm.rank)
    result = []
    for a in arrays:
        if a._layout == out:
            result.append(a)
            continue
        block = align_block(a._local, a._layout, out, comm, backend, "broadcast_arrays")
        result.append(wrap_block(_materialize(backend.xp, block, local_shape), out, a))
    return edition_sequence(result)
