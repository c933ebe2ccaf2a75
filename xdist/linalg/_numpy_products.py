"""NumPy's products and diagonals on the main namespace: ``dot``, ``outer``, ``kron``,
``trace`` and ``diag`` (``xdist.dot``, ..., beyond the standard).

They sit beside ``linalg`` because ``trace`` and ``diag`` are NumPy's spellings of its
``trace`` and ``diagonal`` (along any two axes, and ``diag`` also builds a matrix); ``dot``
is ``matmul`` or ``tensordot``, ``outer`` and ``kron`` are broadcast products, so each moves
what those move. ``diag`` of a vector places each rank's entries in the rows it will hold: no
message.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _elementwise_functions as ew
from .._array import Array, replicated_operand, wrap_block
from .._distribution_functions import resplit
from .._layout import Layout
from .._linear_algebra_functions import matmul, tensordot
from .._manipulation_functions import moveaxis, reshape
from .._numpy_aliases import refuse
from .._pad import pad
from .._placement import iota
from .._validation import check_array, check_int, normalize_axis
from ._products import diagonal
from ._products import trace as linalg_trace

__all__ = ["diag", "dot", "kron", "outer", "trace"]


def _pair(a: Any, b: Any, func: str) -> tuple[Any, Any]:
    """``a`` and ``b`` with NumPy data beside an xdist array made replicated (Python scalars
    kept)."""
    like = a if isinstance(a, Array) else b
    check_array(like, func, "a or b")
    a, b = (
        v
        if isinstance(v, (Array, int, float, complex))
        else replicated_operand(like, np.asarray(v), func)
        for v in (a, b)
    )
    return a, b


def _arrays(a: Any, b: Any, func: str) -> tuple[Array, Array]:
    """``a`` and ``b`` as xdist arrays: anything else beside an xdist array made a replicated
    array as NumPy reads it."""
    like = a if isinstance(a, Array) else b
    check_array(like, func, "a or b")
    return tuple(  # type: ignore[return-value]
        v if isinstance(v, Array) else replicated_operand(like, np.asarray(v), func) for v in (a, b)
    )


def dot(a: Any, b: Any, out: Any = None) -> Array:
    """NumPy's ``dot`` (xdist's extension): the product with a scalar or 0-d array, ``matmul``
    of 1-D and 2-D arrays, and otherwise the sum over the last axis of ``a`` and the
    second-to-last of ``b`` (``tensordot``: ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``).
    ``out`` is not supported. Communication of ``matmul`` (the planner's cheapest layouts:
    contracting over the split axis is one ``allreduce`` of the result), or none for a scalar
    product."""
    refuse("dot", out=out)
    a, b = _pair(a, b, "dot")
    if not (isinstance(a, Array) and isinstance(b, Array)) or a.ndim == 0 or b.ndim == 0:
        return ew.multiply(a, b)
    if a.ndim <= 2 and b.ndim <= 2:
        return matmul(a, b)
    return tensordot(a, b, axes=([a.ndim - 1], [max(b.ndim - 2, 0)]))


def outer(a: Any, b: Any, out: Any = None) -> Array:
    """NumPy's ``outer`` (xdist's extension): ``a`` and ``b`` flattened, ``out[i, j] = a[i] *
    b[j]``. The result is split along its rows where ``a`` is split (or along its columns
    where only ``b`` is). Communication: none unless both are split; then ``b`` is made
    whole on every rank (one allgatherv of its ``N`` elements, fewer than the ``N`` columns
    of each row a rank holds of the result), never ``a``; flattening moves what ``reshape``
    moves."""
    refuse("outer", out=out)
    a, b = (reshape(v, (-1,)) for v in _arrays(a, b, "outer"))
    if a.split is not None and b.split is not None:
        b = resplit(b, None)
    return ew.multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def kron(a: Any, b: Any) -> Array:
    """NumPy's ``kron`` (xdist's extension): the Kronecker product, the shorter shape padded
    with leading ones: the block ``a[i, j] * b`` at ``(i * b.shape[0], j * b.shape[1])``. A
    broadcast product of ``a`` and ``b`` reshaped with interleaved new axes, then merged.
    Communication: none for a split ``a`` and a replicated ``b`` (the split axis leads its
    merged pair: a local reshape). Both split: ``b`` is made whole on every rank first (one
    allgatherv of ``b``, smaller than each rank's block of the result when ``a`` has at least
    as many rows as there are ranks), never ``a``. A replicated ``a`` beside a split ``b``:
    what the product and ``reshape`` move (all-to-alls)."""
    a, b = _arrays(a, b, "kron")
    if a.split is not None and b.split is not None:
        b = resplit(b, None)  # each block of a's rows meets all of b
    nd = max(a.ndim, b.ndim)
    sa, sb = (1,) * (nd - a.ndim) + a.shape, (1,) * (nd - b.ndim) + b.shape
    wide_a = reshape(a, tuple(n for s in sa for n in (s, 1)))
    wide_b = reshape(b, tuple(n for s in sb for n in (1, s)))
    return reshape(ew.multiply(wide_a, wide_b), tuple(m * n for m, n in zip(sa, sb)))


def trace(
    a: Array, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None
) -> Array:
    """NumPy's ``trace`` (xdist's extension): the sums of the ``offset`` diagonals of the
    matrices spanned by ``axis1`` and ``axis2`` (the standard's ``linalg.trace`` after moving
    them last). Communication: none, except one ``allreduce`` when one of the two axes is the
    split one; the result is then replicated."""
    refuse("trace", out=out)
    check_array(a, "trace", "a")
    if a.ndim < 2:
        raise ValueError(f"trace: a must be at least 2-D, got {a.ndim} dimensions")
    axes = (
        normalize_axis(axis1, a.ndim, "trace", "axis1"),
        normalize_axis(axis2, a.ndim, "trace", "axis2"),
    )
    if axes[0] == axes[1]:
        raise ValueError(f"trace: axis1 and axis2 must differ, got {axis1} and {axis2}")
    return linalg_trace(moveaxis(a, axes, (-2, -1)), offset=offset, dtype=dtype)


def diag(v: Any, k: int = 0) -> Array:
    """NumPy's ``diag`` (xdist's extension): of a 2-D array its ``k``-th diagonal (as
    ``linalg.diagonal``: split with exact counts where the matrix is split, no message); of a
    1-D array the square matrix with ``v`` on its ``k``-th diagonal, split along its rows
    where ``v`` is split (each rank's entries in the rows it holds, the first and last rank
    also holding the ``|k|`` empty rows). Communication: none."""
    check_array(v, "diag", "v")
    k = check_int(k, "diag", "k")
    if v.ndim == 2:
        return diagonal(v, offset=k)
    if v.ndim != 1:
        raise ValueError(f"diag: v must be 1-D or 2-D, got {v.ndim} dimensions")
    # Row i holds v[i - max(-k, 0)] at column i + k: v padded to the matrix's rows.
    rows = pad(v, [(max(-k, 0), max(k, 0))])
    n = rows.shape[0]
    lo, hi = (0, n) if rows.split is None else rows._layout.local_range(rows._comm.rank)
    backend = rows._backend
    xp = backend.xp
    on = (
        iota(0, n, backend, rows.device)[None, :] - iota(lo, hi, backend, rows.device)[:, None] == k
    )
    column = rows._local[:, None]
    block = xp.where(on, column, xp.zeros_like(column))
    layout = Layout.replicated((n, n)) if rows.split is None else Layout((n, n), 0, rows.counts)
    return wrap_block(block, layout, rows)
