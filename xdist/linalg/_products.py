"""Elementwise-like linalg functions: ``diagonal``, ``trace``, ``outer`` and ``cross``.

None of them gathers an array: ``diagonal`` sends nothing (a rank holding rows or columns of a
matrix holds the matching run of its diagonal), ``trace`` adds one ``allreduce`` when that
diagonal is split, ``outer`` gathers at most the second vector, and ``cross`` is elementwise
once no operand is split along the 3-element axis.
"""

from __future__ import annotations

from typing import Any

from .. import _elementwise_functions as ew
from .. import _manipulation_functions as manip
from .. import _statistical_functions as stats
from .._array import Array, wrap_block
from .._distribution_functions import resplit
from .._dtypes import as_dtype, check_category
from .._layout import Layout
from .._linear_algebra_functions import _check_pair
from .._movement.broadcast import broadcast_shapes
from .._movement.gathers import warn_gather
from .._ops.elementwise import apply_elementwise
from .._validation import check_array, check_int

__all__ = ["cross", "diagonal", "outer", "trace"]


# -- diagonal, trace ---------------------------------------------------------------------------
def _diagonal_length(m: int, n: int, offset: int) -> int:
    return max(0, min(m, n - offset) if offset >= 0 else min(m + offset, n))


def _diagonal_counts(x: Array, offset: int, length: int) -> tuple[int, ...]:
    """How many diagonal entries each rank's rows (or columns) hold. Diagonal entry ``i``
    lies in row ``i + max(-offset, 0)`` and column ``i + max(offset, 0)``, so a rank holding
    rows (columns) ``[lo, hi)`` holds the entries ``[lo - first, hi - first)`` clipped to
    ``[0, length)``."""
    on_rows = x.split == x.ndim - 2
    first = max(-offset, 0) if on_rows else max(offset, 0)
    counts = []
    for rank in range(x._comm.size):
        lo, hi = x._layout.local_range(rank)
        counts.append(max(0, min(hi - first, length) - max(lo - first, 0)))
    return tuple(counts)


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The standard's ``diagonal`` of each matrix (no message).

    A stack split along a batch axis keeps that split; a matrix split along its rows or
    columns gives a diagonal split along its last axis with exact, possibly uneven, counts:
    each rank takes the diagonal entries that lie in its block.
    """
    check_array(x, "diagonal")
    if x.ndim < 2:
        raise ValueError(f"diagonal: x must be at least 2-D, got {x.ndim} dimensions")
    offset = check_int(offset, "diagonal", "offset")
    m, n = x.shape[-2:]
    length = _diagonal_length(m, n, offset)
    shape = (*x.shape[:-2], length)
    xp = x._backend.xp
    if x.split is None or x.split < x.ndim - 2:
        layout = Layout(shape, x.split, x.counts)
        local_offset = offset
    else:
        layout = Layout(shape, len(shape) - 1, _diagonal_counts(x, offset, length))
        lo, _ = x._layout.local_range(x._comm.rank)
        # The block's own diagonal with its origin moved to global (lo, 0) or (0, lo).
        local_offset = offset + lo if x.split == x.ndim - 2 else offset - lo
    block = xp.linalg.diagonal(x._local, offset=local_offset)
    # A copy: NumPy's diagonal is a read-only view.
    return wrap_block(xp.asarray(block, copy=True), layout, x)


def trace(x: Array, /, *, offset: int = 0, dtype: Any = None) -> Array:
    """The standard's ``trace``: ``sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)``
    (dtype rules of ``sum``). No message, except one ``allreduce`` when the matrices are
    split along a matrix axis; the result is then replicated."""
    check_array(x, "trace")
    check_category(x.dtype, "numeric", "trace")
    if x.ndim < 2:
        raise ValueError(f"trace: x must be at least 2-D, got {x.ndim} dimensions")
    offset = check_int(offset, "trace", "offset")
    if dtype is not None:
        check_category(as_dtype(dtype, "trace"), "numeric", "trace", "dtype")
    return stats.sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


# -- outer, cross ------------------------------------------------------------------------------
def outer(x1: Array, x2: Array, /) -> Array:
    """The standard's ``outer`` of two vectors: split like ``x1`` along the rows when ``x1``
    is split (``x2``, a vector, is then gathered if it is split: one ``allgatherv``), like
    ``x2`` along the columns when only ``x2`` is split, else replicated."""
    _check_pair(x1, x2, "outer")
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer: x1 and x2 must be 1-D, got shapes {x1.shape} and {x2.shape}")
    if x1.split is not None and x2.split is not None:
        warn_gather("outer", x2._layout, x2.dtype, x2._comm)
        x2 = resplit(x2, None)
    return ew.multiply(manip.expand_dims(x1, axis=1), manip.expand_dims(x2, axis=0))


def _off_axis(x: Array, axis: int) -> Array:
    """``x`` not split along ``axis`` (its 3-element axis): re-split along its longest other
    axis (one all-to-all), or made whole if it has no other axis (3 elements)."""
    if x.split != x.ndim + axis:
        return x
    others = [a for a in range(x.ndim) if a != x.split]
    if not others:
        return resplit(x, None)
    return resplit(x, max(others, key=lambda a: x.shape[a]))


def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """The standard's ``cross`` of 3-element vectors along ``axis`` (negative), the other
    axes broadcast. Elementwise once no operand is split along ``axis``: such an operand is
    first re-split along another axis (one all-to-all); then as the elementwise functions
    (no message for operands of one layout)."""
    _check_pair(x1, x2, "cross")
    axis = check_int(axis, "cross", "axis")
    nd = min(x1.ndim, x2.ndim)
    if not -nd <= axis <= -1:
        raise ValueError(
            f"cross: axis {axis} must be a negative axis in [{-nd}, -1] (x1 has {x1.ndim} "
            f"dimensions, x2 has {x2.ndim})"
        )
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            f"cross: axis {axis} must have 3 elements in x1 and x2, got {x1.shape[axis]} "
            f"and {x2.shape[axis]}"
        )
    broadcast_shapes([x1.shape, x2.shape], "cross")
    linalg = x1._backend.xp.linalg
    operands = [_off_axis(x1, axis), _off_axis(x2, axis)]
    return apply_elementwise("cross", lambda a, b: linalg.cross(a, b, axis=axis), operands)
