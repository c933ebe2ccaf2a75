"""Statistical functions of the standard: reductions and scans over axes of a distributed array.

The reductions follow the reduction family's pipeline (``_ops.reduction``): a reduction that
leaves the split axis alone sends nothing; over the split axis the per-rank partial results
are combined by ONE ``allreduce`` and the result is replicated.

``var``/``std`` combine per-rank ``(n, mean, correction, M2)`` records with Chan et al.'s
pairwise merge (one ``allreduce`` with a record ``ReduceOp``), never a difference of sums of
squares; the correction (the mean of the deviations from the rounded mean) keeps the result
independent of the number of ranks for data with a large offset.
``cumulative_sum``/``cumulative_prod`` along the split axis need one ``exscan``.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ._array import Array
from ._dtypes import as_dtype, check_category, float64
from ._fusion import by_rows
from ._layout import Layout
from ._movement.collectives import exscan_block
from ._ops.reduction import (
    Reduction,
    array_from_kept,
    combine_partials,
    filled_block,
    kept_local_shape,
    local_size,
    plan_reduction,
    reduce_simple,
)
from ._transport.comm import ReduceOp
from ._validation import check_array, normalize_axis

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]

_complex128 = np.dtype("complex128")


# -- sum, prod ----------------------------------------------------------------------------------
def _accumulator_dtype(x: Array, dtype: Any, func: str) -> np.dtype:
    """The result dtype of sum/prod: the standard's rule, or ``dtype`` when given."""
    if dtype is not None:
        d = as_dtype(dtype, func)
        check_category(d, "numeric", func, "dtype")
        if x.dtype.kind == "c" and d.kind != "c":
            raise TypeError(f"{func}: cannot accumulate complex x ({x.dtype}) in dtype {d}")
        return d
    return x._backend.sum_dtype(x.dtype)


def _sum_prod(func: str, op: str, identity: int, x, axis, dtype, keepdims) -> Array:
    plan = plan_reduction(x, axis, keepdims, func)
    acc = _accumulator_dtype(x, dtype, func)
    native = x._backend.native_dtype(acc)
    fn = getattr(x._backend.xp, func)

    def local(block, axes):
        return fn(block, axis=axes, dtype=native, keepdims=True)

    return reduce_simple(x, plan, local, op, identity, acc)


def sum(  # noqa: A001 (the standard's name)
    x: Array, /, *, axis=None, dtype=None, keepdims: bool = False
) -> Array:
    """The standard's ``sum``: signed integers and booleans sum in int64, unsigned in uint64
    (int64 on Torch, which has no uint64), floating point in its own dtype. Over the split
    axis: one ``allreduce``."""
    return _sum_prod("sum", "sum", 0, x, axis, dtype, keepdims)


def prod(x: Array, /, *, axis=None, dtype=None, keepdims: bool = False) -> Array:
    """The standard's ``prod`` (dtype rules of ``sum``). Over the split axis: one ``allreduce``."""
    return _sum_prod("prod", "prod", 1, x, axis, dtype, keepdims)


# -- cumulative_sum, cumulative_prod ------------------------------------------------------------
def _cumulative(func: str, op: str, identity: int, x, axis, dtype, include_initial) -> Array:
    """Scan along ``axis``. Along the split axis: each rank scans its block, then one
    ``exscan`` of the blocks' totals gives what precedes the block, which is folded in."""
    check_array(x, func)
    if x.ndim == 0:
        raise ValueError(f"{func}: x must have at least one dimension")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{func}: axis is required for an array of {x.ndim} dimensions")
        axis = 0
    axis = normalize_axis(axis, x.ndim, func)
    if not isinstance(include_initial, bool):
        raise TypeError(f"{func}: include_initial must be a bool, got {include_initial!r}")
    acc = _accumulator_dtype(x, dtype, func)
    xp, backend, comm, layout = x._backend.xp, x._backend, x._comm, x._layout
    shape = tuple(n + include_initial if i == axis else n for i, n in enumerate(x.shape))
    if layout.split is None:
        out = Layout.replicated(shape)
    elif layout.split == axis and include_initial:  # the first block holds the initial value
        out = Layout(shape, axis, (layout.counts[0] + 1, *layout.counts[1:]))
    else:
        out = Layout(shape, layout.split, layout.counts)
    initial_here = out.local_shape(comm.rank)[axis] != x.lshape[axis] if include_initial else False
    fn = getattr(xp, func)
    local = fn(x._local, axis=axis, dtype=backend.native_dtype(acc), include_initial=initial_here)
    if layout.split == axis and comm.size > 1:
        tail_shape = tuple(1 if i == axis else n for i, n in enumerate(local.shape))
        if local.shape[axis] == 0:  # a rank with no rows passes the identity on
            total = filled_block(x, tail_shape, identity, acc)
        else:
            total = local[
                tuple(slice(-1, None) if i == axis else slice(None) for i in range(x.ndim))
            ]
        before = exscan_block(total, op, comm, backend)
        local = local + before if op == "sum" else local * before
    return Array._new(local, out, comm, backend)


def cumulative_sum(
    x: Array, /, *, axis: int | None = None, dtype=None, include_initial: bool = False
) -> Array:
    """The standard's ``cumulative_sum`` (dtype rules of ``sum``). Along the split axis: one
    ``exscan``; the result keeps the layout of ``x`` (the initial zero on the first block)."""
    return _cumulative("cumulative_sum", "sum", 0, x, axis, dtype, include_initial)


def cumulative_prod(
    x: Array, /, *, axis: int | None = None, dtype=None, include_initial: bool = False
) -> Array:
    """The standard's ``cumulative_prod`` (dtype rules of ``prod``). Along the split axis: one
    ``exscan``; the result keeps the layout of ``x`` (the initial one on the first block)."""
    return _cumulative("cumulative_prod", "prod", 1, x, axis, dtype, include_initial)


# -- min, max -----------------------------------------------------------------------------------
def _min_max(func: str, x, axis, keepdims) -> Array:
    plan = plan_reduction(x, axis, keepdims, func)
    check_category(x.dtype, "real numeric", func)
    if plan.size == 0:  # as NumPy: no identity, so an empty reduction is an error
        raise ValueError(
            f"{func}: zero-size reduction over axes {plan.axes} of an array of shape {x.shape}"
        )
    dtype = x.dtype
    if dtype.kind == "f":
        identity = math.inf if func == "min" else -math.inf
    else:
        info = np.iinfo(dtype)
        identity = int(info.max if func == "min" else info.min)

    def local(block, axes):
        return x._backend.min_max(block, axes, func == "max")

    return reduce_simple(x, plan, local, func, identity, dtype)


def min(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:  # noqa: A001
    """The standard's ``min`` (NaN propagates). An empty reduction raises ``ValueError``."""
    return _min_max("min", x, axis, keepdims)


def max(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:  # noqa: A001
    """The standard's ``max`` (NaN propagates). An empty reduction raises ``ValueError``."""
    return _min_max("max", x, axis, keepdims)


# -- mean, var, std -----------------------------------------------------------------------------
def mean(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:
    """The standard's ``mean``: a sum in float64 (complex128) over the ranks, one
    ``allreduce`` when the split axis is reduced, divided by the global count, cast back."""
    plan = plan_reduction(x, axis, keepdims, "mean")
    if x.dtype.kind not in "fc":  # NumPy promotes integers silently: say how to do it here
        raise TypeError(
            f"mean: x must have a floating-point dtype, got {x.dtype}; convert it "
            "first: xp.mean(x.astype(xp.float64))"
        )
    xp, backend = x._backend.xp, x._backend
    wide = _complex128 if x.dtype.kind == "c" else float64
    native = backend.native_dtype(wide)

    def local(block):
        return xp.sum(block, axis=plan.axes, dtype=native, keepdims=True)

    partial = by_rows(x, local, plan.axes, 2, "sum")  # (x: mean's and by_rows' argument)
    total = combine_partials(x, plan, partial, "sum")
    if plan.size == 0:  # NumPy's mean of nothing is NaN (nan+nanj for complex)
        nan = complex(math.nan, math.nan) if x.dtype.kind == "c" else math.nan
        result = filled_block(x, tuple(total.shape), nan, x.dtype)
    else:
        result = xp.astype(total / plan.size, backend.native_dtype(x.dtype), copy=False)
    return array_from_kept(x, plan, result)


def _merge_moments(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Merge records ``(n, mean, c, M2)`` of two disjoint parts of the data (rows of ``a``,
    ``b``); the part's mean is ``mean + c``, a rounded mean and its small correction.

    Chan, Golub & LeVeque's pairwise update (exact in exact arithmetic, and stable: it never
    forms a difference of large sums of squares):
        n = na + nb;  d = (mb - ma) + (cb - ca);  mean = ma + (ca + d*nb/n);
        M2 = M2a + M2b + d^2*na*nb/n
    The corrections keep ``d`` accurate when the means are large and close (data with a large
    offset, 1e8 + noise): ``mb - ma`` alone would carry the rounding of both means, an error
    of ``ulp(mean)`` in ``d``, which the ``d^2`` term turns into a relative error of about
    ``ulp(mean) / sqrt(n)`` in M2.
    A part with n == 0 contributes nothing: the other record is taken as it is (so an empty
    part's mean, which is meaningless, never enters the result; two empty parts give n == 0).
    """
    na, ma, ca, qa = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    nb, mb, cb, qb = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    n = na + nb
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        w = np.divide(nb, n, out=np.zeros_like(n), where=n > 0)  # nb / n
        d = (mb - ma) + (cb - ca)
        out = np.stack([n, ma, ca + d * w, qa + qb + d * d * na * w], axis=1)
    out[nb == 0] = a[nb == 0]
    out[na == 0] = b[na == 0]
    return out


# One module-level op: the MPI transport builds its user-defined op once per ReduceOp value.
MOMENTS = ReduceOp("chan_moments", 4, _merge_moments)


def _check_correction(correction: Any, func: str) -> float:
    if isinstance(correction, bool) or not isinstance(correction, (int, float)):
        raise TypeError(f"{func}: correction must be an int or a float, got {correction!r}")
    return float(correction)


def _second_moment(x: Array, plan: Reduction) -> Any:
    """M2 (the sum of squared deviations from the mean) over the reduced axes, in float64: each
    rank's block by its backend (``Backend.moments``: the mean, the mean of the deviations
    from it, which corrects the rounded mean and M2, and M2), then the ranks'
    ``(n, mean, correction, M2)`` records merged by one ``allreduce`` with ``MOMENTS`` when
    the split axis is reduced."""
    xp, backend = x._backend.xp, x._backend
    shape = kept_local_shape(x, plan)
    n = local_size(x, plan)
    if n == 0:  # a rank with no rows (or nothing at all to reduce)
        m = c = m2 = filled_block(x, shape, 0.0, float64)
    else:  # the backend's algorithm: one read of the block, or the corrected two passes
        m, c, m2 = backend.moments(x._local, plan.axes, n)
    if not plan.combine:
        return m2
    record = xp.stack([filled_block(x, shape, float(n), float64), m, c, m2], axis=-1)
    merged = combine_partials(x, plan, record, MOMENTS)
    return merged[..., 3]


def _variance(func: str, x, axis, correction, keepdims, root: bool) -> Array:
    plan = plan_reduction(x, axis, keepdims, func)
    check_category(x.dtype, "real floating-point", func)
    correction = _check_correction(correction, func)
    xp, backend = x._backend.xp, x._backend
    m2 = _second_moment(x, plan)
    dof = builtins.max(plan.size - correction, 0.0)  # NumPy clamps the degrees of freedom
    if dof > 0:
        var = m2 / dof
    else:  # M2 / 0 as NumPy gives it (inf, or NaN for 0 / 0 and NaN data), without warnings
        var = xp.where(m2 > 0, xp.full_like(m2, math.inf), xp.full_like(m2, math.nan))
    if root:
        var = xp.sqrt(var)
    return array_from_kept(x, plan, xp.astype(var, backend.native_dtype(x.dtype), copy=False))


def _ddof(correction: Any, ddof: Any, func: str) -> Any:
    """``ddof``, NumPy's name for ``correction`` (xarray passes it), when it is given."""
    if ddof is None:
        return correction
    if correction != 0.0:
        raise TypeError(f"{func}: give correction or NumPy's ddof, not both")
    return ddof


def var(
    x: Array,
    /,
    *,
    axis=None,
    correction: int | float = 0.0,
    keepdims: bool = False,
    ddof: int | float | None = None,
) -> Array:
    """The standard's ``var``: ``M2 / (N - correction)``, each block's moments by its backend
    (``Backend.moments``: one read of a NumPy or Torch CPU block, else the corrected two-pass
    algorithm) and (over the split axis) one ``allreduce`` of ``(n, mean, correction, M2)``
    records merged pairwise (Chan et al.). ``ddof`` (beyond the standard): NumPy's name for
    ``correction``."""
    correction = _ddof(correction, ddof, "var")
    return _variance("var", x, axis, correction, keepdims, root=False)


def std(
    x: Array,
    /,
    *,
    axis=None,
    correction: int | float = 0.0,
    keepdims: bool = False,
    ddof: int | float | None = None,
) -> Array:
    """The standard's ``std``: the square root of ``var`` (same single pass and message).
    ``ddof`` (beyond the standard): NumPy's name for ``correction``."""
    correction = _ddof(correction, ddof, "std")
    return _variance("std", x, axis, correction, keepdims, root=True)
