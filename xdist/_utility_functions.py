"""Utility functions of the standard: ``all`` and ``any``, reductions over axes, and ``diff``.

They follow the reduction family's pipeline (``_ops.reduction``): a reduction that leaves the
split axis alone sends nothing; over the split axis, one ``allreduce`` (logical and / or) of
the per-rank partial results. An empty block is the identity (``True`` for all, ``False`` for
any), which the local library already gives.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._dtypes import bool as _bool
from ._dtypes import check_category
from ._layout import Layout
from ._manipulation_functions import concat
from ._movement.collectives import halo
from ._ops.reduction import plan_reduction, reduce_simple
from ._validation import check_array, normalize_axis

__all__ = ["all", "any", "diff"]


def _logical(func: str, op: str, identity: bool, x, axis, keepdims) -> Array:
    plan = plan_reduction(x, axis, keepdims, func)
    fn = getattr(x._backend.xp, func)

    def local(block, axes):
        return fn(block, axis=axes, keepdims=True)

    return reduce_simple(x, plan, local, op, identity, _bool)


def all(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:  # noqa: A001
    """The standard's ``all`` (any dtype; nonzero and NaN are true). Over the split axis: one
    ``allreduce`` with logical and."""
    return _logical("all", "land", True, x, axis, keepdims)


def any(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:  # noqa: A001
    """The standard's ``any`` (any dtype; nonzero and NaN are true). Over the split axis: one
    ``allreduce`` with logical or."""
    return _logical("any", "lor", False, x, axis, keepdims)


# -- diff ---------------------------------------------------------------------------------------
def _check_diff(x: Any, axis: Any, n: Any, prepend: Any, append: Any) -> int:
    """Validate every argument of ``diff`` (no message); the normalized axis."""
    check_array(x, "diff")
    check_category(x.dtype, "numeric", "diff")
    a = normalize_axis(axis, x.ndim, "diff")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"diff: n must be an int, got {n!r}")
    if n < 0:
        raise ValueError(f"diff: n must be >= 0, got {n}")
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        check_array(extra, "diff", name)
        if extra._comm is not x._comm or extra.device != x.device:
            raise ValueError(f"diff: {name} is on {extra.device}, x on {x.device}")
        rest = extra.shape[:a] + extra.shape[a + 1 :]
        if extra.ndim != x.ndim or rest != x.shape[:a] + x.shape[a + 1 :]:
            raise ValueError(
                f"diff: {name} has shape {extra.shape}, incompatible with x {x.shape} "
                f"along axes other than {a}"
            )
    return a


def _local_diff(xp: Any, block: Any, axis: int, n: int) -> Any:
    """The ``n``-th differences of a block along ``axis`` (empty when it is too short)."""
    if block.shape[axis] <= n:
        key = [slice(None)] * block.ndim
        key[axis] = slice(0, 0)
        return xp.asarray(block[tuple(key)], copy=True)
    return xp.diff(block, axis=axis, n=n)


def diff(
    x: Array,
    /,
    *,
    axis: int = -1,
    n: int = 1,
    prepend: Array | None = None,
    append: Array | None = None,
) -> Array:
    """The standard's ``diff``: the ``n``-th forward differences along ``axis``.

    ``prepend`` and ``append`` are joined to ``x`` first (``concat``, promoting dtypes as it
    does). Along any axis but the split one each rank differences its block (no message).
    Along the split axis, rank r computes the outputs that start in its block and needs the
    next ``n`` rows after it: one ``sendrecv`` from the next rank, or one ``alltoallv`` when
    blocks are empty or shorter than ``n``. The result's counts are exact: each rank keeps
    its block's count, except near the end where the outputs run out. ``n=0`` returns the
    joined input (the spec's ``M + N1 + N2 - n``).
    """
    a = _check_diff(x, axis, n, prepend, append)
    n = int(n)
    if prepend is not None or append is not None:
        x = concat([p for p in (prepend, x, append) if p is not None], axis=a)
    if n == 0:
        return x
    layout, comm, xp = x._layout, x._comm, x._backend.xp
    length = max(x.shape[a] - n, 0)
    shape = x.shape[:a] + (length,) + x.shape[a + 1 :]
    if layout.split != a or comm.size == 1:
        counts = layout.counts if layout.split != a else (length,)
        out = Layout(shape, layout.split, counts)
        return Array._new(_local_diff(xp, x._local, a, n), out, comm, x._backend)
    starts, ends = layout.bounds[:-1], layout.bounds[1:]  # NumPy over the ranks
    counts = np.maximum(0, np.minimum(ends, length) - starts)
    # Rank r's outputs x[i] for i in its block need x up to i + n: the rows after its block.
    halos = np.stack([ends, np.where(counts > 0, np.minimum(ends + n, x.shape[a]), ends)], 1)
    counts = tuple(counts.tolist())
    extended = xp.concat(
        [x._local, halo(x._local, layout, halos, comm, x._backend, x.device)], axis=a
    )
    local = _local_diff(xp, extended, a, n)
    return Array._new(local, Layout(shape, a, counts), comm, x._backend)
