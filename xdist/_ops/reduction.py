"""The reduction family: the plan and the steps every reduction over axes shares.

validate -> plan the output layout (``plan_reduction``, from global metadata only) -> reduce
this rank's block over the axes with ``keepdims`` (a partial result) -> if the split axis was
reduced over several ranks, combine the partials with ONE ``allreduce`` (the result is then
replicated: ``combine_partials``) -> drop the kept axes and wrap (``array_from_kept``).

A reduction that leaves the split axis alone sends nothing: its result stays split, with the
same counts along the (renumbered) split axis. A replicated input gives a replicated output
with no message. A rank holding no rows contributes the identity of the reduction.

The statistical (sum, mean, var, ...), utility (all, any) and searching (count_nonzero)
chapters and ``median`` build on it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np

from .._array import Array
from .._fusion import by_rows
from .._layout import Layout
from .._movement.collectives import allreduce_block
from .._pending import keep_result
from .._transport.comm import ReduceOp
from .._validation import check_array, normalize_axes

__all__ = [
    "Reduction",
    "array_from_kept",
    "combine_partials",
    "filled_block",
    "kept_local_shape",
    "local_size",
    "plan_reduction",
    "reduce_simple",
]


@dataclass(frozen=True)
class Reduction:
    """What a reduction of ``x`` over ``axes`` does, decided from global metadata only."""

    axes: tuple[int, ...]  # sorted, distinct
    keepdims: bool
    out: Layout  # the result's layout
    combine: bool  # whether the partial results of several ranks must be combined
    size: int  # how many elements are reduced into each element of the result (global)


def plan_reduction(x: Any, axis: Any, keepdims: Any, func: str) -> Reduction:
    """Check the arguments (raising on every rank before any message) and plan the result."""
    check_array(x, func)
    axes = normalize_axes(axis, x.ndim, func)
    if not isinstance(keepdims, bool):
        raise TypeError(f"{func}: keepdims must be a bool, got {keepdims!r}")
    return _plan(x._layout, axes, keepdims, x._comm.size)


@functools.lru_cache(maxsize=1024)
def _plan(layout: Layout, axes: tuple[int, ...], keepdims: bool, nranks: int) -> Reduction:
    """The plan of a reduction, a function of global metadata only: remembered (an iterative
    algorithm reduces the same layouts on every iteration)."""
    shape = layout.shape
    if keepdims:
        out_shape = tuple(1 if i in axes else n for i, n in enumerate(shape))
    else:
        out_shape = tuple(n for i, n in enumerate(shape) if i not in axes)
    split = layout.split
    size = math.prod(shape[a] for a in axes)
    if split is None or split in axes:
        out = Layout.replicated(out_shape)
        combine = split is not None and nranks > 1
    else:
        new_split = split if keepdims else split - sum(a < split for a in axes)
        out = Layout(out_shape, new_split, layout.counts)
        combine = False
    return Reduction(axes, keepdims, out, combine, size)


def local_size(x: Array, plan: Reduction) -> int:
    """How many elements of this rank's block are reduced into each element of the partial."""
    lshape = x.lshape
    return math.prod(lshape[a] for a in plan.axes)


def kept_local_shape(x: Array, plan: Reduction) -> tuple[int, ...]:
    """The shape of this rank's partial result (reduced axes kept with length 1)."""
    return tuple(1 if i in plan.axes else n for i, n in enumerate(x.lshape))


def filled_block(x: Array, shape: tuple[int, ...], value: Any, dtype: np.dtype) -> Any:
    """A block of ``shape`` filled with ``value``, on the device of ``x``'s block."""
    xp = x._backend.xp
    device = array_api_compat.device(x._local)
    return xp.full(shape, value, dtype=x._backend.native_dtype(dtype), device=device)


def combine_partials(x: Array, plan: Reduction, partial: Any, op: str | ReduceOp) -> Any:
    """The partial results of all ranks combined with one ``allreduce`` when the plan needs it
    (the only message of a reduction); otherwise ``partial`` itself."""
    backend = x._backend
    if not backend.is_block(partial):  # some libraries return scalars for 0-d results
        partial = backend.asarray(partial)
    if not plan.combine:
        return partial
    return allreduce_block(partial, op, x._comm, backend)


def array_from_kept(x: Array, plan: Reduction, block: Any) -> Array:
    """The result array from this rank's result block with the reduced axes kept (length 1):
    they are dropped unless the plan keeps them."""
    backend = x._backend
    if not backend.is_block(block):
        block = backend.asarray(block)
    keep_result(block)  # a new block (a reduction's result): chains may read it without a copy
    if not plan.keepdims:
        block = backend.xp.reshape(block, plan.out.local_shape(x._comm.rank))
    return Array._new(block, plan.out, x._comm, x._backend)


def reduce_simple(
    x: Array,
    plan: Reduction,
    local_fn: Callable[[Any, tuple[int, ...]], Any],
    op: str,
    identity: Any,
    dtype: np.dtype,
) -> Array:
    """A reduction whose partials combine with a builtin ``op``: ``local_fn(block, axes)``
    gives the kept-dims partial; a rank with nothing to reduce contributes ``identity``."""
    if plan.combine and local_size(x, plan) == 0:
        partial = filled_block(x, kept_local_shape(x, plan), identity, dtype)
    else:
        axes = plan.axes
        # (x is an argument of the public function, its helper, this one and by_rows)
        partial = by_rows(x, lambda block: local_fn(block, axes), axes, 4, op)
    return array_from_kept(x, plan, combine_partials(x, plan, partial, op))
