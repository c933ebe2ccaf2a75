"""Searching functions of the standard: ``argmax``, ``argmin``, ``count_nonzero``,
``nonzero``, ``searchsorted`` and ``where``.

What each sends (p ranks, nothing at all on one rank or for replicated inputs):

- ``argmax``/``argmin`` over an axis that is not split: nothing, the result keeps the split.
  Over the split axis (or ``axis=None`` on a split array) every rank finds its best value and
  its *global* index, and ONE ``allreduce`` with a record op keeps the best ``(value,
  index)`` pair (the first occurrence on ties, NaN beating everything as in NumPy). A record
  op was chosen over an allgather of the p partials: its message and memory are the size of
  the result, not p times it.
- ``count_nonzero``: the reduction pipeline of the statistical functions (one ``allreduce``
  when the split axis is counted over).
- ``where``: the elementwise pipeline (operands of equal layouts send nothing).
- ``nonzero``: one allgather of the per-rank counts; an array split along an axis k > 0 is
  first moved to split 0 (one all-to-all of the data), because C order of the global array is
  rank order only for blocks of the first axis.
- ``searchsorted``: see its docstring (one ``allreduce`` when ``x2`` is replicated; a
  boundary allgather plus an owner-routed all-to-all when ``x2`` is split).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ._array import Array, wrap_block
from ._data_type_functions import result_type
from ._distribution_functions import resplit
from ._dtypes import check_category, default_index
from ._fusion import by_rows
from ._layout import Layout
from ._movement.collectives import (
    allgather_block,
    allreduce_host,
    any_rank,
    ask_owners,
    layout_from_local,
)
from ._movement.redistribute import slice_replicated
from ._ops.elementwise import SCALARS, apply_elementwise
from ._ops.reduction import plan_reduction, reduce_simple
from ._transport.comm import ReduceOp
from ._validation import check_array, check_same_context, normalize_axis
from .backends import Backend

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


# -- helpers ------------------------------------------------------------------------------------
def _indices(local: Any, layout: Layout, like: Array) -> Array:
    """An index array (the default index dtype) from this rank's block."""
    out = wrap_block(local, layout, like)
    if out.dtype == default_index:
        return out
    backend = like._backend
    local = backend.xp.astype(out._local, backend.native_dtype(default_index))
    return wrap_block(local, layout, like)


def _same_context(a: Array, b: Array, func: str, name: str) -> None:
    check_same_context([(a, "x1"), (b, name)], func)


def _check_scalar_fits(value: Any, dtype: np.dtype, func: str, name: str) -> None:
    """The standard's rule for mixing a Python scalar with an array of ``dtype``: a bool
    with bool arrays, an int with numeric ones (in range for integers), a float with
    floating-point ones, a complex with complex ones."""
    if isinstance(value, builtins.bool):
        ok = dtype.kind == "b"
    elif isinstance(value, int):
        ok = dtype.kind in "iufc"
    elif isinstance(value, float):
        ok = dtype.kind in "fc"
    else:
        ok = dtype.kind == "c"
    if not ok:
        raise TypeError(f"{func}: {name}={value!r} cannot be mixed with an array of {dtype}")
    if dtype.kind in "iu" and not isinstance(value, builtins.bool):
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{func}: {name}={value!r} is out of range for {dtype}")


# -- argmax, argmin -----------------------------------------------------------------------------
def _keys(values: np.ndarray, want_max: builtins.bool) -> np.ndarray:
    """``(hi, lo)`` float64 keys whose lexicographic maximum is the best value, exactly.

    Floats: ``(±v, 0)``, NaN ``(inf, 1)`` so that NaN beats every value (NumPy's argmax and
    argmin both return the first NaN). Integers: ``v = hi * 2**32 + lo`` with ``0 <= lo <
    2**32``, both exact in float64 even for 64-bit values (negated for argmin).
    """
    keys = np.empty((*values.shape, 2), dtype=np.float64)
    if values.dtype.kind == "f":
        v = values.astype(np.float64)
        nan = np.isnan(v)
        keys[..., 0] = np.where(nan, np.inf, v if want_max else -v)
        keys[..., 1] = nan
        return keys
    v = values.astype(np.uint64 if values.dtype == np.uint64 else np.int64)
    sign = 1.0 if want_max else -1.0
    keys[..., 0] = sign * (v >> 32).astype(np.float64)
    keys[..., 1] = sign * (v & 0xFFFFFFFF).astype(np.float64)
    return keys


def _combine_best(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per record ``(hi, lo, index)``: the larger key, the smaller index on equal keys.

    A total order on records, so the merge is associative and commutative. A rank with
    nothing to offer sends ``(-inf, -inf, inf)``, which loses to every real record.
    """
    a_wins = (a[:, 0] > b[:, 0]) | (
        (a[:, 0] == b[:, 0]) & ((a[:, 1] > b[:, 1]) | ((a[:, 1] == b[:, 1]) & (a[:, 2] < b[:, 2])))
    )
    return np.where(a_wins[:, None], a, b)


_BEST = ReduceOp("argbest", 3, _combine_best)  # one op object: MPI builds its op once


def _records(values: np.ndarray, index: np.ndarray, want_max: builtins.bool) -> np.ndarray:
    """Records ``(hi, lo, global index)``; a float64 index is exact below 2**53."""
    rec = np.empty((*index.shape, 3), dtype=np.float64)
    rec[..., :2] = _keys(values, want_max)
    rec[..., 2] = index
    return rec


def _empty_records(shape: tuple[int, ...]) -> np.ndarray:
    rec = np.empty((*shape, 3), dtype=np.float64)
    rec[..., :2] = -np.inf
    rec[..., 2] = np.inf
    return rec


def _split_partial(x: Array, axis: int, want_max: builtins.bool) -> np.ndarray:
    """This rank's best records along the split ``axis``, kept with length 1 there."""
    backend, xp = x._backend, x._backend.xp
    kept = tuple(1 if i == axis else n for i, n in enumerate(x.lshape))
    if x.lshape[axis] == 0:
        return _empty_records(kept)
    idx = backend.arg_best(x._local, axis, True, want_max)
    values = xp.take_along_axis(x._local, idx, axis=axis)
    offset = x._layout.offsets[x._comm.rank]
    index = backend.to_host(idx).astype(np.int64) + offset
    return _records(backend.to_host(values), index, want_max)


def _flat_partial(x: Array, want_max: builtins.bool) -> np.ndarray:
    """This rank's best record over its whole block, with the C-order index in the global
    array (the block's coordinates shifted by its offset along the split axis)."""
    backend, xp = x._backend, x._backend.xp
    lshape = x.lshape
    if math.prod(lshape) == 0:
        return _empty_records((1,))
    flat = xp.reshape(x._local, (-1,))
    f = int((xp.argmax if want_max else xp.argmin)(flat))
    value = backend.to_host(flat[f : f + 1])
    coords = list(np.unravel_index(f, lshape))
    coords[x.split] += x._layout.offsets[x._comm.rank]
    g = int(np.ravel_multi_index(tuple(coords), x.shape))
    return _records(value, np.array([g]), want_max)


def _arg_best(func: str, x: Any, axis: Any, keepdims: Any) -> Array:
    check_array(x, func)
    check_category(x.dtype, "real numeric", func)
    if axis is not None:
        axis = normalize_axis(axis, x.ndim, func)
    if not isinstance(keepdims, builtins.bool):
        raise TypeError(f"{func}: keepdims must be a bool, got {keepdims!r}")
    reduced = tuple(range(x.ndim)) if axis is None else (axis,)
    if math.prod(x.shape[a] for a in reduced) == 0:  # checked before any message
        raise ValueError(
            f"{func}: zero-size search over axis={axis} of an array of shape {x.shape}"
        )
    if keepdims:
        out_shape = tuple(1 if i in reduced else n for i, n in enumerate(x.shape))
    else:
        out_shape = tuple(n for i, n in enumerate(x.shape) if i not in reduced)
    split, comm, want_max = x.split, x._comm, func == "argmax"
    if split is None or split not in reduced or comm.size == 1:
        # Everything searched is on this rank (offsets are 0 on one rank).
        if split is None or split in reduced:
            out = Layout.replicated(out_shape)
        else:
            out = Layout(out_shape, split if keepdims else split - (axis < split), x.counts)
        backend = x._backend
        # (x: argmin's, _arg_best's and by_rows' argument)
        found = by_rows(x, lambda b: backend.arg_best(b, axis, keepdims, want_max), reduced, 3)
        return _indices(found, out, x)
    partial = _flat_partial(x, want_max) if axis is None else _split_partial(x, axis, want_max)
    best = allreduce_host(partial, _BEST, comm)
    index = best[..., 2].astype(np.int64).reshape(out_shape)
    return _indices(x._backend.from_host(index, x.device), Layout.replicated(out_shape), x)


def argmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """The standard's ``argmax``: the index of the first maximum (the first NaN if any).

    Over the split axis (or ``axis=None`` on a split array): one ``allreduce`` of ``(value,
    global index)`` records, the size of the result; otherwise no message. A zero-size search
    raises ``ValueError`` on every rank before any message.
    """
    return _arg_best("argmax", x, axis, keepdims)


def argmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """The standard's ``argmin``: the index of the first minimum (the first NaN if any);
    communication as ``argmax``."""
    return _arg_best("argmin", x, axis, keepdims)


# -- count_nonzero ------------------------------------------------------------------------------
def count_nonzero(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:
    """The standard's ``count_nonzero`` in the default index dtype (complex: either part
    nonzero). Counting over the split axis: one ``allreduce`` of the local counts."""
    plan = plan_reduction(x, axis, keepdims, "count_nonzero")
    return reduce_simple(x, plan, x._backend.count_nonzero, "sum", 0, default_index)


# -- where --------------------------------------------------------------------------------------
def where(condition: Array, x1, x2, /) -> Array:
    """The standard's ``where``: ``x1`` where ``condition`` holds, else ``x2``, broadcast
    together (``x1`` or ``x2`` may be a Python scalar). The dtype is ``result_type(x1, x2)``.
    Operands of equal layouts send nothing; others move as in the elementwise functions."""
    check_array(condition, "where", "condition")
    if condition.dtype.kind != "b":
        raise TypeError(f"where: condition must have a boolean dtype, got {condition.dtype}")
    for arg, name in ((x1, "x1"), (x2, "x2")):
        if not isinstance(arg, (Array, *SCALARS)):
            raise TypeError(
                f"where: {name} must be an xdist array or a Python scalar, got {type(arg).__name__}"
            )
    arrays = [a for a in (x1, x2) if isinstance(a, Array)]
    if not arrays:
        raise TypeError("where: at least one of x1 and x2 must be an array")
    for arg, name in ((x1, "x1"), (x2, "x2")):
        if not isinstance(arg, Array):
            _check_scalar_fits(arg, arrays[0].dtype, "where", name)
    dtype = result_type(x1, x2)
    backend = condition._backend
    xp, native = backend.xp, backend.native_dtype(dtype)

    def local(c, a, b):
        out = xp.where(c, a, b)
        if not backend.is_block(out):
            out = backend.asarray(out)
        return out if backend.dtype_of(out) == dtype else xp.astype(out, native)

    return apply_elementwise("where", local, [condition, x1, x2], fuse=True)


# -- nonzero ------------------------------------------------------------------------------------
def nonzero(x: Array, /) -> tuple[Array, ...]:
    """The standard's ``nonzero``: one 1-D index array per axis, in C order of ``x``.

    A replicated ``x`` gives replicated results with no message. A split ``x`` gives results
    split along their only axis with exact, uneven counts: rank r holds the indices of the
    nonzeros of its own block (one allgather of the counts). An ``x`` split along an axis
    k > 0 is first moved to split 0 (one all-to-all of ``x``): only blocks of the first axis
    follow C order.
    """
    check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: x must have at least one dimension, got a 0-d array")
    if x.split not in (None, 0):
        x = resplit(x, 0)
    comm, xp = x._comm, x._backend.xp
    local = xp.nonzero(x._local)
    n_local = int(local[0].shape[0])
    if x.split is None:
        layout = Layout.replicated((n_local,))
        return tuple(_indices(i, layout, x) for i in local)
    layout = layout_from_local((n_local,), 0, comm)
    first = _indices(local[0], layout, x)
    offset = x._layout.offsets[comm.rank]
    if offset:
        first = wrap_block(first._local + offset, layout, x)
    return (first, *(_indices(i, layout, x) for i in local[1:]))


# -- searchsorted -------------------------------------------------------------------------------
def _sorted_by(x1: Array, sorter: Array) -> Array:
    """``x1[sorter]``: split like ``sorter`` (like ``x1`` when ``sorter`` is replicated).

    Each rank asks the owners of the ``x1`` elements its part of ``sorter`` names for them:
    no message when ``x1`` is replicated (but one flag ``allreduce`` if ``sorter`` is split),
    else one alltoall of counts and two ``alltoallv`` of this rank's share of ``sorter``
    (``collectives.ask_owners``).
    Out-of-range indices raise ``IndexError`` on every rank.
    """
    comm, backend = x1._comm, x1._backend
    n = x1.shape[0]
    target = x1._layout if sorter.split is None else sorter._layout
    mine = (
        sorter._local
        if sorter.split is not None
        else slice_replicated(sorter._local, target, comm.rank)
    )
    keys = backend.to_host(mine)
    keys = keys.astype(np.int64).reshape(-1)
    bad = builtins.bool(((keys < 0) | (keys >= n)).any())
    message = f"searchsorted: sorter holds indices outside [0, {n}) for x1 of length {n}"
    if x1.split is None or comm.size == 1:
        if target.split is not None:
            bad = any_rank(bad, comm)
        if bad:
            raise IndexError(message)
        local = backend.xp.take(x1._local, backend.from_host(keys, x1.device), axis=0)
        return Array._new(local, target, comm, backend)
    host = backend.to_host(x1._local)
    offset = x1._layout.offsets[comm.rank]
    owners = x1._layout.owners(np.clip(keys, 0, max(n - 1, 0)))
    values = ask_owners(keys, owners, lambda k: host[k - offset], comm, bad)
    if values is None:
        raise IndexError(message)
    return Array._new(backend.from_host(values, x1.device), target, comm, backend)


def _local_search(backend: Backend, block: Any, keys: Any, side: str) -> Any:
    """``searchsorted`` of ``keys`` in a sorted block, NaNs placed as NumPy places them:
    NaNs of the block (last) are counted apart, because backends disagree on where a NaN or
    a number goes among them (NumPy: numbers before the NaNs; Torch: after them)."""
    xp = backend.xp
    if backend.dtype_of(block).kind != "f":
        return xp.searchsorted(block, keys, side=side)
    n = block.shape[0]
    nans = int(xp.sum(xp.astype(xp.isnan(block), xp.int64)))
    if not nans:
        return xp.searchsorted(block, keys, side=side)
    found = xp.searchsorted(block[: n - nans], keys, side=side)
    nan_at = xp.full_like(found, n - nans if side == "left" else n)
    return xp.where(xp.isnan(keys), nan_at, found)


def _search_routed(x1: Array, x2: Array, side: str) -> Any:
    """This rank's result block for a split ``x1`` and a split ``x2``.

    Every rank learns the first value of each non-empty block of ``x1`` (one ``allgatherv``
    of at most p values). A value v then belongs to the last block whose first value is
    ``< v`` (``<=`` for side='right'): every earlier element is below it, every later one is
    not, so the answer is that block's offset plus a local search there. Values before the
    first block answer 0 without moving; the others go to their owner and their answers come
    back (``collectives.ask_owners``: one alltoall of counts, two ``alltoallv`` of ``x2``'s local
    size).
    """
    comm, backend = x1._comm, x1._backend
    counts = x1.counts
    present = [r for r in range(comm.size) if counts[r] > 0]
    firsts = allgather_block(x1._local[:1], [1 if c > 0 else 0 for c in counts], comm, backend)
    values = backend.to_host(x2._local).reshape(-1)
    j = np.searchsorted(firsts, values, side=side) - 1
    ask = j >= 0
    owners = np.asarray(present, dtype=np.int64)[j[ask]]
    offset = x1._layout.offsets[comm.rank]

    def answer(received: np.ndarray) -> np.ndarray:
        found = _local_search(backend, x1._local, backend.from_host(received, x1.device), side)
        return backend.to_host(found).astype(np.int64) + offset

    out = np.zeros(values.shape[0], dtype=np.int64)
    out[ask] = ask_owners(values[ask], owners, answer, comm)
    return backend.from_host(out.reshape(x2.lshape), x2.device)


def searchsorted(
    x1: Array, x2: Any, /, *, side: str = "left", sorter: Array | None = None
) -> Array:
    """The standard's ``searchsorted``: for every value v of ``x2``, the number of elements
    of the sorted 1-D ``x1`` that are ``< v`` (``<= v`` for ``side='right'``). The result
    has the shape and layout of ``x2`` (a Python scalar ``x2``, 2025.12: a 0-d array).

    Messages, with p ranks, n = len(x1) and m = this rank's part of ``x2``:

    - ``x1`` replicated: none.
    - ``x1`` split, ``x2`` replicated: the count of a value is the sum over the blocks of its
      count in each block, so every rank searches its block for all of ``x2`` and one
      ``allreduce`` of ``x2.size`` ints adds them up.
    - both split: routed to the owning block (see ``_search_routed``): an allgatherv of p
      values, an allgather of p counts per rank and two ``alltoallv`` of at most m elements.
      Nothing of size n moves.

    ``sorter``: ``x1[sorter]`` is formed first, by owner-routed requests (``_sorted_by``).
    """
    check_array(x1, "searchsorted", "x1")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: x1 must be 1-D, got shape {x1.shape}")
    check_category(x1.dtype, "real numeric", "searchsorted", "x1")
    if isinstance(x2, SCALARS):
        _check_scalar_fits(x2, x1.dtype, "searchsorted", "x2")
        block = x1._backend.asarray(x2, dtype=x1.dtype)
        x2 = Array._new(block, Layout.replicated(()), x1._comm, x1._backend)
    check_array(x2, "searchsorted", "x2")
    check_category(x2.dtype, "real numeric", "searchsorted", "x2")
    _same_context(x1, x2, "searchsorted", "x2")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if sorter is not None:
        check_array(sorter, "searchsorted", "sorter")
        check_category(sorter.dtype, "integer", "searchsorted", "sorter")
        if sorter.shape != x1.shape:
            raise ValueError(
                f"searchsorted: sorter has shape {sorter.shape}, x1 has shape {x1.shape}"
            )
        _same_context(x1, sorter, "searchsorted", "sorter")
        x1 = _sorted_by(x1, sorter)
    comm, backend = x1._comm, x1._backend
    if x1.split is None or comm.size == 1 or x2.size == 0:
        local = _local_search(backend, x1._local, x2._local, side)
        return _indices(local, x2._layout, x2)
    if x2.split is None:
        partial = backend.to_host(_local_search(backend, x1._local, x2._local, side))
        total = allreduce_host(np.asarray(partial, dtype=np.int64), "sum", comm)
        return _indices(backend.from_host(total, x2.device), x2._layout, x2)
    return _indices(_search_routed(x1, x2, side), x2._layout, x2)
