"""NumPy's NaN-ignoring reductions and scans, beyond the standard.

``nansum``, ``nanprod``, ``nanmean``, ``nanvar``, ``nanstd``, ``nanmin``, ``nanmax``,
``nanargmin``, ``nanargmax``, ``nancumsum``, ``nancumprod``: xdist's own extensions (the
standard has none of them), with NumPy's meaning, so that xarray's default ``skipna=True``
reductions (which call ``xp.nanmean`` and friends when the namespace has them, else NumPy's
through ``__array_function__``) stay distributed. Integer and boolean inputs hold no NaN:
the plain reduction.

Communication, as the standard's reductions (``_ops.reduction``): nothing when the split
axis is not reduced; else ONE ``allreduce`` of result-sized partials. ``nanmean`` sends the
sum and the count of valid values in one message; ``nanvar``/``nanstd`` send per-element
``(n, mean, correction, M2)`` records merged pairwise (Chan et al., the ``MOMENTS`` op of
``var``), with each element's own count of valid values; ``nanmin``/``nanmax`` send the
extreme and an all-NaN flag together. ``nanargmin``/``nanargmax`` add one agreement on
all-NaN slices (NumPy raises ``ValueError`` for them; so does every rank here).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from ._array import Array
from ._data_type_functions import astype
from ._dtypes import check_category, float64
from ._elementwise_functions import isnan
from ._manipulation_functions import reshape
from ._ops.reduction import (
    array_from_kept,
    combine_partials,
    filled_block,
    kept_local_shape,
    local_size,
    plan_reduction,
)
from ._searching_functions import argmax, argmin, where
from ._statistical_functions import (
    MOMENTS,
    cumulative_prod,
    cumulative_sum,
    max,
    min,
    prod,
    std,
    sum,
    var,
)
from ._utility_functions import all, any
from ._validation import check_array

__all__ = [
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
]

_complex128 = np.dtype("complex128")


def _has_nan(x: Array) -> builtins.bool:
    """Whether ``x``'s dtype can hold NaN (floating or complex)."""
    return x.dtype.kind in "fc"


def _float_out(x: Array, dtype: Any) -> np.dtype:
    """The result dtype of a mean or variance: ``dtype``, else ``x``'s floating dtype, else the
    backend's default floating dtype (NumPy: float64) for integers."""
    if dtype is not None:
        return np.dtype(dtype)
    if x.dtype.kind in "fc":
        return x.dtype
    return x._backend.default_dtypes()["real floating"]


def _filled(x: Array, value: float) -> Array:
    """``x`` with its NaNs replaced by ``value`` (elementwise: no message)."""
    return where(isnan(x), value, x) if _has_nan(x) else x


# -- sums and products ----------------------------------------------------------------------------
def nansum(x: Array, /, *, axis=None, dtype=None, keepdims: bool = False) -> Array:
    """NumPy's ``nansum`` (xdist's extension): ``sum`` with NaNs counted as zero (all-NaN or
    empty: 0). Communication of ``sum``: one ``allreduce`` over the split axis."""
    check_array(x, "nansum")
    return sum(_filled(x, 0.0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(x: Array, /, *, axis=None, dtype=None, keepdims: bool = False) -> Array:
    """NumPy's ``nanprod`` (xdist's extension): ``prod`` with NaNs counted as one.
    Communication of ``prod``."""
    check_array(x, "nanprod")
    return prod(_filled(x, 1.0), axis=axis, dtype=dtype, keepdims=keepdims)


def _flat_axis(x: Array, axis: Any, func: str) -> tuple[Array, int]:
    """NumPy's scans take ``axis=None`` as the flattened array."""
    check_array(x, func)
    if axis is None:
        return reshape(x, (-1,)), 0
    return x, axis


def nancumsum(x: Array, /, *, axis: int | None = None, dtype=None) -> Array:
    """NumPy's ``nancumsum`` (xdist's extension): the running sum with NaNs counted as zero;
    ``axis=None`` scans the flattened array. Along the split axis: one ``exscan``."""
    x, axis = _flat_axis(x, axis, "nancumsum")
    return cumulative_sum(_filled(x, 0.0), axis=axis, dtype=dtype)


def nancumprod(x: Array, /, *, axis: int | None = None, dtype=None) -> Array:
    """NumPy's ``nancumprod`` (xdist's extension): the running product with NaNs counted as
    one; ``axis=None`` scans the flattened array. Along the split axis: one ``exscan``."""
    x, axis = _flat_axis(x, axis, "nancumprod")
    return cumulative_prod(_filled(x, 1.0), axis=axis, dtype=dtype)


# -- mean, var, std -------------------------------------------------------------------------------
def _valid_sums(x: Array, axes: tuple[int, ...]) -> tuple[Any, Any, Any, Any]:
    """This rank's block in the working dtype, its mask of valid values, and the sum and the
    count of the valid values over ``axes`` (kept, length 1)."""
    xp, backend = x._backend.xp, x._backend
    wide = _complex128 if x.dtype.kind == "c" else float64
    block = xp.astype(x._local, backend.native_dtype(wide))
    valid = xp.logical_not(xp.isnan(block))
    zero = xp.zeros_like(block)
    total = xp.sum(xp.where(valid, block, zero), axis=axes, keepdims=True)
    count = xp.sum(xp.astype(valid, backend.native_dtype(wide)), axis=axes, keepdims=True)
    return block, valid, total, count


def _safe_divide(xp: Any, num: Any, den: Any) -> Any:
    """``num / den`` where ``den > 0``, NaN elsewhere (NumPy's value), with no warning."""
    ok = den > 0 if not xp.isdtype(den.dtype, "complex floating") else xp.real(den) > 0
    ratio = num / xp.where(ok, den, xp.ones_like(den))
    return xp.where(ok, ratio, xp.full_like(ratio, math.nan))


def nanmean(x: Array, /, *, axis=None, dtype=None, keepdims: bool = False) -> Array:
    """NumPy's ``nanmean`` (xdist's extension): the mean of the values that are not NaN (NaN
    where there are none). Integers: the mean in the default floating dtype.

    Over the split axis: one ``allreduce`` of the float64 (complex128) sums and counts of
    valid values together."""
    plan = plan_reduction(x, axis, keepdims, "nanmean")
    check_category(x.dtype, "numeric", "nanmean")
    out = _float_out(x, dtype)
    xp, backend = x._backend.xp, x._backend
    _, _, total, count = _valid_sums(x, plan.axes)
    both = combine_partials(x, plan, xp.stack([total, count], axis=-1), "sum")
    mean = _safe_divide(xp, both[..., 0], both[..., 1])
    if out.kind != "c" and backend.dtype_of(mean).kind == "c":
        mean = xp.real(mean)
    return array_from_kept(x, plan, xp.astype(mean, backend.native_dtype(out)))


def _check_ddof(ddof: Any, func: str) -> float:
    if isinstance(ddof, builtins.bool) or not isinstance(ddof, (int, float)):
        raise TypeError(f"{func}: ddof must be an int or a float, got {ddof!r}")
    return float(ddof)


def _nan_variance(func: str, x: Array, axis, dtype, ddof, keepdims, root: builtins.bool) -> Array:
    plan = plan_reduction(x, axis, keepdims, func)
    check_category(x.dtype, "real numeric", func)
    ddof = _check_ddof(ddof, func)
    if not _has_nan(x):
        fn = std if root else var
        result = fn(
            x if x.dtype.kind == "f" else _as_float(x),
            axis=axis,
            correction=ddof,
            keepdims=keepdims,
        )
        return result if dtype is None else _cast(result, np.dtype(dtype))
    out = _float_out(x, dtype)
    xp, backend = x._backend.xp, x._backend
    block, valid, total, n = _valid_sums(x, plan.axes)
    # Each kept element's own count of valid values: the corrected two-pass moments of
    # ``var`` over the valid values only, then Chan's pairwise merge across the ranks.
    one = xp.ones_like(n)
    m = total / xp.where(n > 0, n, one)
    dev = xp.where(valid, block - m, xp.zeros_like(block))
    c = xp.sum(dev, axis=plan.axes, keepdims=True) / xp.where(n > 0, n, one)
    m2 = xp.sum(xp.square(dev), axis=plan.axes, keepdims=True) - n * c * c
    if plan.combine:
        if local_size(x, plan) == 0:
            n = m = c = m2 = filled_block(x, kept_local_shape(x, plan), 0.0, float64)
        merged = combine_partials(x, plan, xp.stack([n, m, c, m2], axis=-1), MOMENTS)
        n, m2 = merged[..., 0], merged[..., 3]
    dof = n - ddof
    result = _safe_divide(xp, m2, dof)
    if root:
        result = xp.sqrt(result)
    return array_from_kept(x, plan, xp.astype(result, backend.native_dtype(out)))


def _as_float(x: Array) -> Array:
    return astype(x, x._backend.default_dtypes()["real floating"])


def _cast(x: Array, dtype: np.dtype) -> Array:
    return astype(x, dtype)


def nanvar(
    x: Array, /, *, axis=None, dtype=None, ddof: int | float = 0, keepdims: bool = False
) -> Array:
    """NumPy's ``nanvar`` (xdist's extension): the variance of the values that are not NaN,
    ``M2 / (n - ddof)`` with each element's own count ``n`` (NaN where ``n - ddof <= 0``).

    Over the split axis: one ``allreduce`` of per-element ``(n, mean, correction, M2)``
    records merged pairwise (Chan et al.), as ``var``."""
    return _nan_variance("nanvar", x, axis, dtype, ddof, keepdims, root=False)


def nanstd(
    x: Array, /, *, axis=None, dtype=None, ddof: int | float = 0, keepdims: bool = False
) -> Array:
    """NumPy's ``nanstd`` (xdist's extension): the square root of ``nanvar`` (same message)."""
    return _nan_variance("nanstd", x, axis, dtype, ddof, keepdims, root=True)


# -- min, max -------------------------------------------------------------------------------------
def _nan_extreme(func: str, x: Array, axis, keepdims) -> Array:
    plan = plan_reduction(x, axis, keepdims, func)
    check_category(x.dtype, "real numeric", func)
    want_max = func == "nanmax"
    if not _has_nan(x):
        return (max if want_max else min)(x, axis=axis, keepdims=keepdims)
    if plan.size == 0:  # as NumPy: no identity, so an empty reduction is an error
        raise ValueError(
            f"{func}: zero-size reduction over axes {plan.axes} of an array of shape {x.shape}"
        )
    xp, backend = x._backend.xp, x._backend
    fill = -math.inf if want_max else math.inf
    shape = kept_local_shape(x, plan)
    if plan.combine and local_size(x, plan) == 0:
        best = filled_block(x, shape, fill, x.dtype)
        flag = filled_block(x, shape, 0.0 if want_max else 1.0, x.dtype)
    else:
        nan = xp.isnan(x._local)
        best = backend.min_max(
            xp.where(nan, xp.full_like(x._local, fill), x._local), plan.axes, want_max
        )
        # nanmax: the max of the valid flags (0: none valid); nanmin: the min of the NaN flags
        # (1: all NaN). Both travel with the extreme under the same op.
        flags = xp.astype(xp.logical_not(nan) if want_max else nan, backend.native_dtype(x.dtype))
        flag = backend.min_max(flags, plan.axes, want_max)
    both = combine_partials(x, plan, xp.stack([best, flag], axis=-1), func[3:])
    best, flag = both[..., 0], both[..., 1]
    empty = flag == 0 if want_max else flag == 1
    return array_from_kept(x, plan, xp.where(empty, xp.full_like(best, math.nan), best))


def nanmin(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:
    """NumPy's ``nanmin`` (xdist's extension): the minimum of the values that are not NaN
    (NaN where all are). Over the split axis: one ``allreduce`` of the minima with an
    all-NaN flag. An empty reduction raises ``ValueError``."""
    return _nan_extreme("nanmin", x, axis, keepdims)


def nanmax(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:
    """NumPy's ``nanmax`` (xdist's extension): the maximum of the values that are not NaN
    (NaN where all are). Communication as ``nanmin``."""
    return _nan_extreme("nanmax", x, axis, keepdims)


# -- argmin, argmax -------------------------------------------------------------------------------
def _nan_arg(func: str, x: Array, axis, keepdims) -> Array:
    check_array(x, func)
    best = argmax if func == "nanargmax" else argmin
    if not _has_nan(x):
        return best(x, axis=axis, keepdims=keepdims)
    fill = -math.inf if func == "nanargmax" else math.inf
    found = best(_filled(x, fill), axis=axis, keepdims=keepdims)  # checks axis, keepdims
    # A data-dependent failure, agreed by every rank (bool() of a replicated or reduced
    # result is collective) before any rank raises.
    if builtins.bool(any(all(isnan(x), axis=axis))):
        raise ValueError(f"{func}: All-NaN slice encountered (axis={axis})")
    return found


def nanargmax(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """NumPy's ``nanargmax`` (xdist's extension): the index of the first maximum among the
    values that are not NaN; an all-NaN slice raises ``ValueError`` on every rank.
    Communication: ``argmax``'s, and one ``allreduce`` for the all-NaN check."""
    return _nan_arg("nanargmax", x, axis, keepdims)


def nanargmin(x: Array, /, *, axis: int | None = None, keepdims: bool = False) -> Array:
    """NumPy's ``nanargmin`` (xdist's extension): as ``nanargmax`` for the minimum."""
    return _nan_arg("nanargmin", x, axis, keepdims)
