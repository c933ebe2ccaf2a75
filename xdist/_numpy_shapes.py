"""NumPy's functions that change what an array holds along an axis, beyond the standard:
``ravel``, ``copy``, ``append``, ``delete``, ``insert`` and ``resize``.

``delete`` and ``insert`` keep every element on the rank that holds it. The positions they
take are global arguments, the same on every rank, so each rank works out from them alone
how many elements its block keeps (or receives) along the axis: the result is split with
those exact, uneven counts, and nothing is sent. An inserted value goes to the rank holding
the element it is inserted before (past the end: the last rank), so every rank's new block
is its old block with its values in place, and the ranks stay in order.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array, replicated_operand, wrap_block
from ._creation_functions import arange, asarray, zeros
from ._distribution_functions import resplit
from ._elementwise_functions import remainder
from ._indexing_functions import take
from ._layout import Layout
from ._manipulation_functions import concat, reshape
from ._numpy_aliases import refuse
from ._validation import check_array, normalize_axis

__all__ = ["append", "copy", "delete", "insert", "ravel", "resize"]


def ravel(a: Array, /, order: str = "C") -> Array:
    """NumPy's ``ravel`` (xdist's extension): ``reshape(a, (-1,))``, a view where NumPy gives
    one. Only ``order='C'``. Communication of ``reshape``: none for an array split along its
    first axis (or replicated), else the elements move to their flat ranges (all-to-all)."""
    check_array(a, "ravel", "a")
    refuse("ravel", order=None if order == "C" else order)
    return reshape(a, (-1,))


def copy(a: Array, /, order: str = "K", subok: bool = False) -> Array:
    """NumPy's ``copy`` (xdist's extension): a new array of ``a``'s layout, each rank copying
    its block. Communication: none."""
    check_array(a, "copy", "a")
    refuse("copy", order=None if order in ("K", "C") else order, subok=subok or None)
    return asarray(a, copy=True)


def _operand(v: Any, like: Array, func: str) -> Array:
    return v if isinstance(v, Array) else replicated_operand(like, np.asarray(v), func)


def append(arr: Array, values: Any, axis: int | None = None) -> Array:
    """NumPy's ``append`` (xdist's extension): ``values`` joined after ``arr`` along ``axis``
    (both flattened when it is None); NumPy data is replicated. Communication of ``concat``:
    none for inputs split alike along another axis (or replicated), else one all-to-all."""
    check_array(arr, "append", "arr")
    values = _operand(values, arr, "append")
    if axis is None:
        return concat([reshape(arr, (-1,)), reshape(values, (-1,))], axis=0)
    return concat([arr, values], axis=axis)


def _flat_axis(arr: Array, axis: Any, func: str) -> tuple[Array, int]:
    if axis is None:
        return reshape(arr, (-1,)), 0
    return arr, normalize_axis(axis, arr.ndim, func)


def _positions(obj: Any, n: int, func: str) -> np.ndarray:
    """``obj`` (an int, a slice, ints or a boolean mask of length ``n``) as positions in
    ``[0, n)`` for ``delete``, ``[0, n]`` for ``insert`` (negative ones counted from ``n``, as
    NumPy counts them), in the order given."""
    top = n + (func == "insert")
    if isinstance(obj, slice):
        return np.arange(*obj.indices(n))
    if isinstance(obj, Array):
        if obj.split is not None:
            raise ValueError(
                f"{func}: obj must be replicated (an int, a slice or NumPy data), got an array "
                "split over the ranks; resplit(obj, None) first"
            )
        obj = obj.to_numpy()
    idx = np.asarray(obj)
    if idx.dtype == np.bool_:
        if func == "delete" and idx.shape != (n,):
            raise ValueError(f"delete: a boolean obj must have shape ({n},), got {idx.shape}")
        idx = np.flatnonzero(idx)
    if idx.size and idx.dtype.kind not in "iu":
        raise IndexError(f"{func}: obj must be ints, a slice or a boolean mask, got {idx.dtype}")
    idx = idx.astype(np.int64)
    bad = (idx < -n) | (idx >= top)
    if bad.any():
        raise IndexError(f"{func}: index {idx[bad][0]} is out of bounds for axis of size {n}")
    return np.where(idx < 0, idx + n, idx)


def _local_range(arr: Array, axis: int) -> tuple[int, int]:
    """The global indices ``[lo, hi)`` along ``axis`` held by this rank's block."""
    if arr.split != axis:
        return 0, arr.shape[axis]
    return arr._layout.local_range(arr._comm.rank)


def _rebuilt(arr: Array, axis: int, shape: tuple[int, ...], counts: Any, block: Any) -> Array:
    """``block`` as the array of ``shape``: along the split axis with ``counts``, else with
    ``arr``'s counts."""
    split = arr.split
    if split is None:
        return wrap_block(block, Layout.replicated(shape), arr)
    layout = Layout(shape, split, counts if split == axis else arr.counts)
    return wrap_block(block, layout, arr)


def delete(arr: Array, obj: Any, axis: int | None = None) -> Array:
    """NumPy's ``delete`` (xdist's extension): ``arr`` without the entries ``obj`` (an int, a
    slice, ints or a boolean mask, the same on every rank) along ``axis`` (the flattened array
    when None). Communication: none (each rank drops the entries in its block; along the
    split axis the result has exact, uneven counts); ``axis=None`` flattens first, as
    ``reshape`` does."""
    check_array(arr, "delete", "arr")
    arr, axis = _flat_axis(arr, axis, "delete")
    n = arr.shape[axis]
    keep = np.ones(n, dtype=bool)
    keep[_positions(obj, n, "delete")] = False
    counts = None
    if arr.split == axis:
        ranges = map(arr._layout.local_range, range(arr._comm.size))
        counts = tuple(int(keep[lo:hi].sum()) for lo, hi in ranges)
    lo, hi = _local_range(arr, axis)
    backend = arr._backend
    kept = backend.asarray(np.flatnonzero(keep[lo:hi]), device=arr.device)
    block = backend.xp.take(arr._local, kept, axis=axis)
    shape = arr.shape[:axis] + (int(keep.sum()),) + arr.shape[axis + 1 :]
    return _rebuilt(arr, axis, shape, counts, block)


def _inserted(arr: Array, positions: np.ndarray, values: Any, axis: int, scalar: bool) -> Any:
    """NumPy's values of ``insert``, on the host in ``arr``'s dtype: one slab along ``axis``
    per position, the other axes those of ``arr`` (``arr``'s dtype: NumPy casts them)."""
    if isinstance(values, Array):
        if values.split is not None:
            values = resplit(values, None)  # the inserted values, needed whole along axis
        values = values.to_numpy()
    values = np.array(values, dtype=arr.dtype, ndmin=arr.ndim)
    if scalar:
        values = np.moveaxis(values, 0, axis)
        count = values.shape[axis]
    else:
        count = len(positions)
    target = arr.shape[:axis] + (count,) + arr.shape[axis + 1 :]
    try:
        return np.broadcast_to(values, target)
    except ValueError:
        raise ValueError(
            f"insert: values of shape {values.shape} do not fit the inserted shape {target}"
        ) from None


def _owned(arr: Array, axis: int, positions: np.ndarray, rank: int) -> np.ndarray:
    """Which inserted values go to ``rank``'s block: those before one of its entries, and on
    the last rank those past the end."""
    if arr.split != axis:
        return np.ones(positions.shape, dtype=bool)
    lo, hi = arr._layout.local_range(rank)
    last = rank == arr._comm.size - 1
    return (positions >= lo) & ((positions < hi) | (last & (positions == hi)))


def insert(arr: Array, obj: Any, values: Any, axis: int | None = None) -> Array:
    """NumPy's ``insert`` (xdist's extension): ``values`` inserted before the entries ``obj``
    (an int, a slice, ints, or a boolean mask's true positions; the same on every rank) along
    ``axis`` (the flattened array when None), NumPy's broadcasting of ``values`` and its cast
    to ``arr``'s dtype. ``values``: a scalar, NumPy data or an xdist array.

    Communication: none (a split ``values`` is gathered first: one allgather of it). Each
    value goes to the rank holding the entry it precedes (past the end, the last rank), so
    along the split axis the result has exact, uneven counts and the old entries stay where
    they are; ``axis=None`` flattens first, as ``reshape`` does."""
    check_array(arr, "insert", "arr")
    arr, axis = _flat_axis(arr, axis, "insert")
    n = arr.shape[axis]
    scalar = isinstance(obj, (int, np.integer)) and not isinstance(obj, bool)
    positions = _positions(obj, n, "insert")
    slabs = _inserted(arr, positions, values, axis, scalar)
    if scalar:
        positions = np.full(slabs.shape[axis], positions)
    order = np.argsort(positions, kind="stable")  # NumPy's order for equal positions
    positions = positions[order]
    lo, hi = _local_range(arr, axis)
    own = np.flatnonzero(_owned(arr, axis, positions, arr._comm.rank))
    # The new block: its old entries, with its values slotted in before the entries they
    # precede (each after the values before it).
    slot = positions[own] - lo + np.arange(own.size)
    perm = np.empty((hi - lo) + own.size, dtype=np.int64)
    old = np.ones(perm.size, dtype=bool)
    old[slot] = False
    perm[old] = np.arange(hi - lo)
    perm[slot] = (hi - lo) + np.arange(own.size)
    part = np.take(slabs, order[own], axis=axis)
    if arr.split is not None and arr.split != axis:
        part = part[arr._layout.local_slice(arr._comm.rank)]
    backend, xp = arr._backend, arr._backend.xp
    part = backend.asarray(np.ascontiguousarray(part), device=arr.device)
    both = xp.concat([arr._local, part], axis=axis)
    block = xp.take(both, backend.asarray(perm, device=arr.device), axis=axis)
    counts = None
    if arr.split == axis:
        counts = tuple(
            c + int(_owned(arr, axis, positions, r).sum()) for r, c in enumerate(arr.counts)
        )
    shape = arr.shape[:axis] + (n + len(positions),) + arr.shape[axis + 1 :]
    return _rebuilt(arr, axis, shape, counts, block)


def resize(a: Array, new_shape: Any) -> Array:
    """NumPy's ``resize`` (xdist's extension): ``a``'s elements in C order, repeated as often as
    needed to fill ``new_shape`` (zeros when ``a`` is empty). The result is split along its
    first axis (balanced); each rank fetches the elements of its block from their owners
    (``take``: an all-to-all of requests and one of values), never the whole of ``a``."""
    check_array(a, "resize", "a")
    shape = (new_shape,) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    if any(not isinstance(s, (int, np.integer)) or s < 0 for s in shape):
        raise ValueError(f"resize: new_shape must hold non-negative ints, got {new_shape!r}")
    total, flat = math.prod(shape), reshape(a, (-1,))
    split = 0 if shape and a.split is not None else None
    if a.size == 0 or total == 0:
        return zeros(shape, dtype=a.dtype, device=a.device, split=split, comm=a._comm)
    where = remainder(arange(total, device=a.device, split=split, comm=a._comm), a.size)
    return reshape(take(flat, where, axis=0), shape)
