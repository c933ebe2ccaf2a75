"""``median``: NumPy's, beyond the standard (scikit-learn looks it up as ``xp.median``).

NumPy's semantics: the middle element of the sorted values, or the mean of the two middle
ones for an even count; NaN wherever a NaN is among the values; NaN for no values. The result
is floating: the input's dtype, or the backend's default floating dtype for an integer input
(NumPy: float64), the two middle integers averaged in float64 and rounded once.

Where the values of each result element live (reduced axes not split, a replicated input, one
rank), each rank sorts its block along them: no message; the layout follows the reductions'
rules (``plan_reduction``). When the split axis is reduced, the data is never gathered: the
reduced axes of each block become one line per result element (the order of the values does
not matter), the lines are sorted with the distributed sort (``_sorting_functions``, balanced
result), and one ``allgatherv`` brings the three elements each line needs (the two middle
ones and the last, NaN if the line has any) from the ranks holding them: the result is
replicated.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array
from ._dtypes import check_category
from ._layout import Layout
from ._movement.collectives import allgather_block
from ._ops.reduction import Reduction, filled_block, plan_reduction
from ._sorting_functions import sort
from ._validation import check_array
from .backends import Backend

__all__ = ["median"]

_float64 = np.dtype("float64")


def median(x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False):
    """NumPy's ``median`` over ``axis`` (None: all axes). Local unless the split axis is
    reduced; then a distributed sort and one ``allgatherv``, with a replicated result."""
    check_array(x, "median")
    check_category(x.dtype, "real numeric", "median")
    plan = plan_reduction(x, axis, keepdims, "median")
    out = x.dtype if x.dtype.kind == "f" else x._backend.default_dtypes()["real floating"]
    if plan.combine:
        block = _split_median(x, plan, out)
    else:
        block = _local_median(x, plan.axes, out)
        block = x._backend.xp.reshape(block, plan.out.local_shape(x._comm.rank))
    return Array._new(block, plan.out, x._comm, x._backend)


def _lines(block: Any, axes: tuple[int, ...], first: int | None, xp: Any) -> Any:
    """``block`` as ``(kept elements, reduced elements)``, axis ``first`` first among the
    reduced ones."""
    kept = [i for i in range(block.ndim) if i not in axes]
    reduced = sorted(axes, key=lambda a: a != first)
    moved = xp.permute_dims(block, (*kept, *reduced))
    nkept = math.prod(block.shape[i] for i in kept)
    return xp.reshape(moved, (nkept, math.prod(block.shape[a] for a in axes)))


def _local_median(x: Array, axes: tuple[int, ...], out: np.dtype) -> Any:
    """The median of this rank's block over ``axes`` (held whole), as a flat block."""
    backend, xp = x._backend, x._backend.xp
    lines = _lines(x._local, axes, None, xp)
    nlines, n = lines.shape
    if n == 0 or nlines == 0:
        return _nans(x, nlines, out)
    ordered = xp.sort(lines, axis=1)
    picks = [ordered[:, k] for k in _positions(n)]
    return _middle(*picks, n, out, backend)


def _split_median(x: Array, plan: Reduction, out: np.dtype) -> Any:
    """The median over reduced axes that include the split one: sort, then pick."""
    backend, comm, xp = x._backend, x._comm, x._backend.xp
    n = math.prod(x.shape[a] for a in plan.axes)
    nlines = math.prod(s for i, s in enumerate(x.shape) if i not in plan.axes)
    if n == 0 or nlines == 0:  # global metadata: every rank takes this branch
        return xp.reshape(_nans(x, nlines, out), plan.out.shape)
    rest = n // x.shape[x.split]
    lines = _lines(x._local, plan.axes, x.split, xp)
    layout = Layout((nlines, n), 1, tuple(c * rest for c in x.counts))
    ordered = sort(Array._new(lines, layout, comm, backend), axis=1)
    picks = _gather_columns(ordered, _positions(n))
    return xp.reshape(_middle(*picks, n, out, backend), plan.out.shape)


def _positions(n: int) -> list[int]:
    """The sorted positions a median of ``n`` values reads: the two middle ones, the last."""
    return [(n - 1) // 2, n // 2, n - 1]


def _gather_columns(a: Array, columns: list[int]) -> list[Any]:
    """Columns of a 2-D array split along axis 1, on every rank: one ``allgatherv`` in which
    each rank gives the columns it holds (their owners found by one ``searchsorted``; the
    columns arrive in rank order, which is their ascending order)."""
    backend, comm, xp = a._backend, a._comm, a._backend.xp
    wanted = sorted(set(columns))
    nlines, layout = a.shape[0], a._layout
    owners = layout.owners(np.asarray(wanted, dtype=np.int64))
    lo = layout.offsets[comm.rank]
    mine = [a._local[:, c - lo] for c in np.asarray(wanted)[owners == comm.rank].tolist()]
    send = xp.stack(mine) if mine else xp.reshape(a._local[:, :0], (0, nlines))
    counts = np.bincount(owners, minlength=comm.size) * nlines
    flat = allgather_block(send, counts.tolist(), comm, backend)
    got = dict(zip(wanted, flat.reshape(len(wanted), nlines)))
    return [backend.from_host(np.ascontiguousarray(got[c]), a.device) for c in columns]


def _middle(a: Any, b: Any, last: Any, n: int, out: np.dtype, backend: Backend) -> Any:
    """NumPy's median from the two middle sorted values and the last one (NaN sorts last)."""
    xp = backend.xp
    work = backend.native_dtype(out if backend.dtype_of(a).kind == "f" else _float64)
    a = xp.astype(a, work)
    mid = a if n % 2 else (a + xp.astype(b, work)) / 2
    mid = xp.astype(mid, backend.native_dtype(out))
    if backend.dtype_of(last).kind == "f":
        mid = xp.where(xp.isnan(last), xp.astype(last, mid.dtype), mid)
    return mid


def _nans(x: Array, nlines: int, out: np.dtype) -> Any:
    """``nlines`` NaNs: the median of no values."""
    return filled_block(x, (nlines,), math.nan, out)
