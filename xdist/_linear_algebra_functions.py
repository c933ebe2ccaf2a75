"""Linear algebra functions of the standard: ``matmul``, ``matrix_transpose``, ``tensordot``
and ``vecdot``.

``matrix_transpose`` swaps the last two axes of each block: no message, the split axis moves
with its data (counts unchanged).

``matmul`` promotes 1-D operands (``(k,)`` to ``(1, k)`` for ``x1``, ``(k, 1)`` for ``x2``),
asks the planner (``_ops/matmul_plan.py``) which layouts the operands must have for one local
``matmul`` of the blocks to give this rank's block of the result (or, for a plan split on the
contracted axis, partial sums added by one ``allreduce``; for the ring plan, ``x1`` split on
its rows and ``x2`` on k, a sum of ``p`` products as ``x2``'s blocks pass from rank to rank),
brings them there with ``redistribute_block``, and removes the dimensions added by promotion.

``tensordot`` is a ``matmul``: the free axes stay axes of their own (batch axes and one matrix
axis each) and only the contracted axes merge into ``k``, a split contracted axis first, so the
reshapes and permutations are local (unless the operands are split along different contracted
pairs) and the matmul planner decides what moves.
``vecdot`` is ``sum(conj(x1) * x2, axis)``: local, plus one ``allreduce`` when the
contracted axis is split.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from . import _array
from ._data_type_functions import astype
from ._deferred import Deferred
from ._dtypes import check_category
from ._elementwise_functions import conj, multiply
from ._fusion import lifted, pooled_product, product
from ._layout import Layout
from ._manipulation_functions import expand_dims, permute_dims, reshape
from ._movement.broadcast import broadcast_shapes
from ._movement.collectives import allreduce_block, sendrecv_block
from ._movement.redistribute import redistribute_block
from ._ops.matmul_plan import Plan, choose_plan
from ._pending import keep_result
from ._statistical_functions import sum as _sum
from ._validation import check_array, check_int, check_same_context, normalize_axis
from .backends import Backend

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def matrix_transpose(x: _array.Array, /) -> _array.Array:
    """The standard's ``matrix_transpose``: the last two axes swapped, on each block (no
    messages), as ``permute_dims`` swaps them. A split along one of them becomes a split
    along the other."""
    check_array(x, "matrix_transpose")
    nd = x.ndim
    if nd < 2:
        raise ValueError(f"matrix_transpose: x must be at least 2-D, got {nd} dimensions")
    # permute_dims' own view: NumPy's strides noted, and writes through a view of a moved
    # copy passed on to its base (the manipulation chapter's, through the operator table)
    return _array.OPERATORS["permute_dims"](x, (*range(nd - 2), nd - 1, nd - 2))


# -- matmul -----------------------------------------------------------------------------------


def _check_operands(x1: Any, x2: Any) -> None:
    check_array(x1, "matmul", "x1")
    check_array(x2, "matmul", "x2")
    check_same_context([(x1, "x1"), (x2, "x2")], "matmul")
    for x, name in ((x1, "x1"), (x2, "x2")):
        if x.ndim == 0:
            raise ValueError(f"matmul: {name} must be at least 1-D, got a 0-d array")
        check_category(x.dtype, "numeric", "matmul", name)
    k2_axis = -2 if x2.ndim > 1 else 0
    k1, k2 = x1.shape[-1], x2.shape[k2_axis]
    if k1 != k2:
        raise ValueError(
            f"matmul: contracted axes differ: x1.shape[-1]={k1} != x2.shape[{k2_axis}]={k2}"
        )
    try:
        broadcast_shapes([x1.shape[:-2], x2.shape[:-2]], "matmul")
    except ValueError:
        raise ValueError(
            f"matmul: the batch dimensions of x1 {x1.shape} and x2 {x2.shape} do not broadcast"
        ) from None


def _promote(x: _array.Array, axis: int) -> tuple[Any, Layout]:
    """A 1-D operand's block and layout with a dimension of size 1 inserted at ``axis``."""
    layout = x._layout
    shape = (1, *layout.shape) if axis == 0 else (*layout.shape, 1)
    split = None if layout.split is None else layout.split + (axis == 0)
    block = x._backend.xp.expand_dims(x._local, axis=axis)
    return block, Layout(shape, split, layout.counts)


def _remove_axis(block: Any, layout: Layout, axis: int, xp: Any) -> tuple[Any, Layout]:
    """Drop a dimension of size 1 added by promotion (never the split axis)."""
    shape = layout.shape[:axis] + layout.shape[axis + 1 :]
    split = layout.split
    if split is not None and split > axis:
        split -= 1
    return xp.squeeze(block, axis=axis), Layout(shape, split, layout.counts)


def _ring_blocks(b2: Any, plan: Plan, comm: Any, backend: Backend):
    """The ``x2`` blocks a rank holds as they pass around the ring: at step ``s`` the block
    of rank ``owner = rank - s`` (yielded with its range of ``x2``'s split axis), then sent
    on to the next rank while the block of ``owner - 1`` arrives from the rank before
    (``p - 1`` ``sendrecv``). Memory: two ``x2`` blocks at a time, never the whole of
    ``x2``. Every rank must take every step."""
    me, p = comm.rank, comm.size
    device = backend.device_of(b2)
    for step in range(p):
        owner = (me - step) % p
        yield plan.x2.local_range(owner), b2
        if step < p - 1:
            shape = plan.x2.local_shape((owner - 1) % p)
            b2 = sendrecv_block(b2, (me + 1) % p, shape, (me - 1) % p, comm, backend, device)


def _ring_product(b1: Any, b2: Any, plan: Plan, comm: Any, backend: Backend) -> Any:
    """This rank's block of ``x1 @ x2`` for ``x1``'s rows here and ``x2`` split on k: each
    ``x2`` block of the ring times the columns of the ``x1`` block that match it, the
    products added."""
    total = None
    for (lo, hi), block in _ring_blocks(b2, plan, comm, backend):
        part = backend.xp.matmul(b1[..., lo:hi], block)
        total = part if total is None else total + part
    return total


def _column_ring_product(b1: Any, b2: Any, plan: Plan, comm: Any, backend: Backend) -> Any:
    """This rank's block of ``x1 @ x2`` for ``x1``'s rows here and ``x2`` split on n: the
    whole ``x1`` block times each ``x2`` block of the ring, written into those columns of
    the result block (written once; nothing of the result's size is added)."""
    batch = broadcast_shapes([b1.shape[:-2], b2.shape[:-2]], "matmul")
    dtype = np.result_type(backend.dtype_of(b1), backend.dtype_of(b2))
    shape = (*batch, b1.shape[-2], plan.x2.shape[-1])
    out = backend.empty(shape, dtype, backend.device_of(b2))
    for (lo, hi), block in _ring_blocks(b2, plan, comm, backend):
        backend.matmul_into(b1, block, out[..., lo:hi])
    return out


def _small_beside(plan: Plan, rank: int) -> bool:
    """Whether the whole of ``x2`` (split on n, passed around the ring) is small beside this
    rank's block of the product (at most a 16th: ``X @ X.T`` of a narrow ``X``), so that
    holding it whole costs little and the product can start a fused chain (``product``)."""
    return math.prod(plan.x2.shape) * 16 <= math.prod(plan.out.local_shape(rank))


def _ring_whole(b2: Any, plan: Plan, comm: Any, backend: Backend) -> Any:
    """The whole of ``x2`` (split on n) on this rank, from the blocks passing around the
    ring (``_ring_blocks``: the messages of the ring's product, whatever a rank does with
    them): each block in its place along the last axis."""
    parts = sorted(_ring_blocks(b2, plan, comm, backend), key=lambda part: part[0][0])
    whole = backend.xp.concat([block for _, block in parts], axis=-1)
    keep_result(whole)  # xdist's own memory: a product's chain reads it later, uncopied
    return whole


_SCALAR = Layout.replicated(())


def _dot(x1: _array.Array, x2: _array.Array) -> _array.Array:
    """``x1 @ x2`` of two vectors of one layout (the plan ``choose_plan`` gives them, without
    its costs per call: latency-bound loops such as coordinate descent make one per step):
    the local dot, summed over the ranks when split (one allreduce of one element)."""
    comm, backend = x1._comm, x1._backend
    block = backend.xp.matmul(x1._local, x2._local)
    if not backend.is_block(block):  # NumPy gives a scalar
        block = backend.asarray(block, device=backend.device_of(x1._local))
    if x1._layout.split is not None and comm.size > 1:
        block = allreduce_block(block, "sum", comm, backend)
    return _array.Array._new(block, _SCALAR, comm, backend)


def matmul(x1: _array.Array, x2: _array.Array, /) -> _array.Array:
    """The standard's ``matmul`` on distributed operands, with the plan that moves least
    among those that gather no split operand larger than ``gather_warning_elements`` (see
    ``_ops/matmul_plan.py``). Every argument error is raised before any message."""
    _check_operands(x1, x2)
    if x1.__class__ is not _array.Array and isinstance(x1, Deferred):
        found = x1.left_product(x2)
        if found is not None:
            return found
    comm, backend = x1._comm, x1._backend
    xp = backend.xp
    if x1.ndim == 1 and x2.ndim == 1 and x1._layout == x2._layout:
        return _dot(x1, x2)
    promoted = (x1.ndim == 1, x2.ndim == 1)
    b1, l1 = _promote(x1, 0) if promoted[0] else (x1._local, x1._layout)
    b2, l2 = _promote(x2, 1) if promoted[1] else (x2._local, x2._layout)
    batch = broadcast_shapes([l1.shape[:-2], l2.shape[:-2]], "matmul")
    shape = (*batch, l1.shape[-2], l2.shape[-1])

    plan = choose_plan(l1, l2, shape, comm.size, promoted)
    b1 = redistribute_block(b1, l1, plan.x1, comm, backend)
    b2 = redistribute_block(b2, l2, plan.x2, comm, backend)
    if plan.ring and comm.size > 1 and plan.columns and _small_beside(plan, comm.rank):
        b2 = _ring_whole(b2, plan, comm, backend)  # the same messages as the ring's product
        plan = dataclasses.replace(plan, ring=False)
    if plan.ring and comm.size > 1:
        ring = _column_ring_product if plan.columns else _ring_product
        block = ring(b1, b2, plan, comm, backend)
    else:
        if not (plan.reduce and comm.size > 1) and not any(promoted):
            found = product(b1, b2, plan.out, x1)  # a chain's first function, where it can be
            if found is not None:
                return found
        block = pooled_product(b1, b2, backend) if not plan.reduce else None
        if block is None:
            block = xp.matmul(b1, b2)
    if plan.reduce and comm.size > 1:  # partial sums over the ranks' parts of k
        block = allreduce_block(block, "sum", comm, backend)

    layout = plan.out
    nd = len(shape)
    for axis in [a for a, p in ((nd - 1, promoted[1]), (nd - 2, promoted[0])) if p]:
        block, layout = _remove_axis(block, layout, axis, xp)
    return lifted(block, layout, x1)  # a new block: chains on the product read it once


# -- tensordot ---------------------------------------------------------------------------------


def _check_pair(x1: Any, x2: Any, func: str) -> None:
    """Both operands are numeric xdist arrays on one communicator and device."""
    check_array(x1, func, "x1")
    check_array(x2, func, "x2")
    check_same_context([(x1, "x1"), (x2, "x2")], func)
    check_category(x1.dtype, "numeric", func, "x1")
    check_category(x2.dtype, "numeric", func, "x2")


def _numpy_beside(x1: Any, x2: Any, func: str) -> tuple[Any, Any]:
    """A NumPy array beside an xdist array as a replicated operand (opt_einsum, which
    xarray's ``dot`` uses, calls ``xdist.tensordot`` with NumPy weights)."""
    if isinstance(x1, np.ndarray) and isinstance(x2, _array.Array):
        x1 = _array.replicated_operand(x2, x1, func)
    elif isinstance(x2, np.ndarray) and isinstance(x1, _array.Array):
        x2 = _array.replicated_operand(x1, x2, func)
    return x1, x2


def _bool_beside_numeric(x1: Any, x2: Any) -> tuple[Any, Any]:
    """A boolean operand beside a numeric one takes the other's dtype, as NumPy's
    ``tensordot`` promotes it (beyond the standard; xarray's ``weighted`` contracts a mask)."""
    if not (isinstance(x1, _array.Array) and isinstance(x2, _array.Array)):
        return x1, x2
    if x1.dtype.kind == "b" and x2.dtype.kind != "b":
        x1 = astype(x1, x2.dtype)
    elif x2.dtype.kind == "b" and x1.dtype.kind != "b":
        x2 = astype(x2, x1.dtype)
    return x1, x2


def _axis_list(seq: Any, ndim: int, name: str) -> list[int]:
    if not isinstance(seq, (tuple, list)):
        raise TypeError(f"tensordot: {name} must be a sequence of ints, got {seq!r}")
    axes = [normalize_axis(a, ndim, "tensordot", name) for a in seq]
    if len(set(axes)) != len(axes):
        raise ValueError(f"tensordot: {name} {tuple(seq)} repeats an axis")
    return axes


def _contracted_axes(axes: Any, x1: _array.Array, x2: _array.Array):
    """The contracted axes of ``x1`` and ``x2`` as two lists of pairs' members, checked."""
    if isinstance(axes, int) and not isinstance(axes, bool):
        if not 0 <= axes <= min(x1.ndim, x2.ndim):
            raise ValueError(
                f"tensordot: axes={axes} must be in [0, {min(x1.ndim, x2.ndim)}] for arrays "
                f"of {x1.ndim} and {x2.ndim} dimensions"
            )
        a1, a2 = list(range(x1.ndim - axes, x1.ndim)), list(range(axes))
    elif isinstance(axes, (tuple, list)) and len(axes) == 2:
        a1 = _axis_list(axes[0], x1.ndim, "axes[0]")
        a2 = _axis_list(axes[1], x2.ndim, "axes[1]")
        if len(a1) != len(a2):
            raise ValueError(f"tensordot: axes {axes!r} must be two sequences of equal length")
    else:
        raise TypeError(f"tensordot: axes must be an int or a pair of sequences, got {axes!r}")
    for i, j in zip(a1, a2):
        if x1.shape[i] != x2.shape[j]:
            raise ValueError(
                f"tensordot: contracted axes differ: x1.shape[{i}]={x1.shape[i]} != "
                f"x2.shape[{j}]={x2.shape[j]}"
            )
    return a1, a2


def _split_pair_first(a1: list[int], a2: list[int], s1: int | None, s2: int | None):
    """The pairs reordered so that a contracted split axis comes first: merging the
    contracted axes into one is then local (the split axis leads its group)."""
    pairs = list(zip(a1, a2))
    for k, (i, j) in enumerate(pairs):
        if i == s1 or (j == s2 and s1 not in a1):
            pairs.insert(0, pairs.pop(k))
            break
    return [i for i, _ in pairs], [j for _, j in pairs]


def tensordot(
    x1: _array.Array, x2: _array.Array, /, *, axes: int | tuple[Any, Any] = 2
) -> _array.Array:
    """The standard's ``tensordot``, as one distributed ``matmul``. A NumPy array beside an
    xdist array is a replicated operand, and a boolean operand beside a numeric one takes
    its dtype (both beyond the standard, as NumPy).

    With free axes ``f1`` of ``x1``, ``f2`` of ``x2`` (``a``, ``b`` of them) and ``K`` the
    product of the contracted sizes: ``x1`` becomes ``(f1[:-1], 1 * (b-1), f1[-1], K)`` and
    ``x2`` ``(f2[:-1], K, f2[-1])``; their ``matmul`` is ``(f1[:-1], f2[:-1], f1[-1], f2[-1])``
    and a permutation gives ``(f1, f2)``. Free axes are never merged, so a split free axis
    stays split (no message to prepare); the matmul planner moves what must move.
    """
    x1, x2 = _numpy_beside(x1, x2, "tensordot")
    x1, x2 = _bool_beside_numeric(x1, x2)
    _check_pair(x1, x2, "tensordot")
    a1, a2 = _contracted_axes(axes, x1, x2)
    a1, a2 = _split_pair_first(a1, a2, x1.split, x2.split)
    f1 = [i for i in range(x1.ndim) if i not in a1]
    f2 = [i for i in range(x2.ndim) if i not in a2]
    a, b = len(f1), len(f2)
    k = math.prod(x1.shape[i] for i in a1)
    y1 = reshape(permute_dims(x1, (*f1, *a1)), (*(x1.shape[i] for i in f1), k))
    for _ in range(b - 1 if a else 0):  # room for x2's batch axes: (f1[:-1], 1.., f1[-1], K)
        y1 = expand_dims(y1, axis=a - 1)
    if b:
        order = (*f2[:-1], *a2, f2[-1])
        shape = (*(x2.shape[i] for i in f2[:-1]), k, x2.shape[f2[-1]])
    else:
        order, shape = tuple(a2), (k,)
    y2 = reshape(permute_dims(x2, order), shape)
    out = matmul(y1, y2)
    if a and b:  # (f1[:-1], f2[:-1], f1[-1], f2[-1]) -> (f1, f2)
        n = a + b
        out = permute_dims(out, (*range(a - 1), n - 2, *range(a - 1, n - 2), n - 1))
    return out


# -- vecdot ------------------------------------------------------------------------------------


def vecdot(x1: _array.Array, x2: _array.Array, /, *, axis: int = -1) -> _array.Array:
    """The standard's ``vecdot``: ``sum(conj(x1) * x2, axis=axis)`` with broadcasting of the
    other axes. The product is elementwise (local for operands of one layout) and the sum
    sends one ``allreduce`` when ``axis`` is the split axis of the product, nothing otherwise.
    The result has the promoted dtype of ``x1`` and ``x2`` (no widening of integers)."""
    _check_pair(x1, x2, "vecdot")
    axis = check_int(axis, "vecdot", "axis")
    nd = min(x1.ndim, x2.ndim)
    if not -nd <= axis <= -1:
        raise ValueError(
            f"vecdot: axis {axis} must be a negative axis in [{-nd}, -1] (x1 has "
            f"{x1.ndim} dimensions, x2 has {x2.ndim})"
        )
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(
            f"vecdot: contracted axes differ: x1.shape[{axis}]={x1.shape[axis]} != "
            f"x2.shape[{axis}]={x2.shape[axis]}"
        )
    broadcast_shapes([x1.shape, x2.shape], "vecdot")
    if axis == -1 and x1.dtype == x2.dtype and x1._layout == x2._layout and x1.split != x1.ndim - 1:
        # Operands of one layout contracted along a local axis: the library's own vecdot,
        # where the backend has a faster one.
        block = x1._backend.vecdot_last_axis(x1._local, x2._local)
        if block is not None:
            layout = Layout(x1.shape[:-1], x1.split, x1.counts)
            return _array.wrap_block(block, layout, x1)  # a NumPy scalar for 1-D operands
    product = multiply(conj(x1) if x1.dtype.kind == "c" else x1, x2)
    return _sum(product, axis=axis, dtype=product.dtype)
