"""``average`` and ``ptp``: NumPy's statistics beyond the standard, on the reduction family.

``ptp`` (and the data range of ``histogram``) needs the maximum and the minimum of the same
values. Over the split axis both travel in ONE ``allreduce`` (max): each rank sends its
maximum and its minimum mapped through an order-reversing involution (``-v`` for floating
values, NaN kept; ``~v = -v - 1`` for integers, which cannot overflow, signed or unsigned), so
the largest mapped minimum is the mapped global minimum.

``average`` with weights sums ``a * w`` and ``w`` stacked on a new first axis: one reduction,
so one ``allreduce`` when the split axis is reduced.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._data_type_functions import astype
from ._dtypes import check_category
from ._manipulation_functions import broadcast_to, reshape, stack
from ._ops.reduction import (
    Reduction,
    array_from_kept,
    combine_partials,
    filled_block,
    kept_local_shape,
    local_size,
    plan_reduction,
)
from ._statistical_functions import mean, sum
from ._utility_functions import any
from ._validation import check_array, check_same_context, normalize_axes, normalize_axis

__all__ = ["average", "ptp"]


def _flip(block: Any, xp: Any) -> Any:
    """The order-reversing involution: ``-v`` for floating values, ``~v`` for integers."""
    return xp.negative(block) if xp.isdtype(block.dtype, "real floating") else ~block


def extremes(x: Array, plan: Reduction) -> tuple[Any, Any]:
    """This rank's blocks of the maximum and the minimum of ``x`` over ``plan.axes`` (kept with
    length 1): over the split axis one ``allreduce`` (max) of ``[max, flip(min)]``; a rank with
    nothing to reduce sends the identity (the dtype's lowest value)."""
    xp, backend = x._backend.xp, x._backend
    if plan.combine and local_size(x, plan) == 0:
        lowest = -math.inf if x.dtype.kind == "f" else int(np.iinfo(x.dtype).min)
        partial = filled_block(x, (2, *kept_local_shape(x, plan)), lowest, x.dtype)
    else:
        high = backend.min_max(x._local, plan.axes, True)
        low = backend.min_max(x._local, plan.axes, False)
        partial = xp.stack([high, _flip(low, xp)])
    both = combine_partials(x, plan, partial, "max")
    return both[0, ...], _flip(both[1, ...], xp)


def ptp(x: Array, /, axis: Any = None, out: Any = None, keepdims: bool = False) -> Array:
    """NumPy's ``ptp`` (xdist's extension): ``max - min`` over ``axis``, in ``x``'s dtype
    (integers wrap as NumPy's do). None over axes that are not split; over the split axis one
    ``allreduce`` of the result-sized maxima and mapped minima together (2 x the result's
    bytes); the result is then replicated. An empty reduction raises ``ValueError``."""
    if out is not None:
        raise NotImplementedError("ptp: out= is not supported on xdist arrays; use the result")
    plan = plan_reduction(x, axis, keepdims, "ptp")
    check_category(x.dtype, "real numeric", "ptp")
    if plan.size == 0:
        raise ValueError(
            f"ptp: zero-size reduction over axes {plan.axes} of an array of shape {x.shape}"
        )
    high, low = extremes(x, plan)
    return array_from_kept(x, plan, high - low)


def _weights_along(a: Array, w: Array, axis: Any) -> Array:
    """1-D weights for ``axis`` of ``a``, shaped to broadcast against ``a`` (NumPy's rule)."""
    if axis is None:
        raise TypeError("average: axis must be given when the shapes of a and weights differ")
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise NotImplementedError(
            "average: weights shaped differently from a need an int axis; give weights shaped "
            f"as a, got axis={axis!r}"
        )
    if w.ndim != 1:
        raise TypeError(
            f"average: 1-D weights expected when the shapes of a and weights differ, got "
            f"{w.shape} and {a.shape}"
        )
    axis = normalize_axis(axis, a.ndim, "average")
    if w.shape[0] != a.shape[axis]:
        raise ValueError(
            f"average: {w.shape[0]} weights do not fit axis {axis} of length {a.shape[axis]}"
        )
    return reshape(w, tuple(n if i == axis else 1 for i, n in enumerate(a.shape)))


def average(
    a: Array,
    /,
    axis: Any = None,
    weights: Any = None,
    returned: bool = False,
    *,
    keepdims: bool = False,
) -> Array | tuple[Array, Array]:
    """NumPy's ``average`` (xdist's extension): ``mean`` without weights (integers in the
    default floating dtype), else ``sum(a * w) / sum(w)`` in NumPy's result dtype (an integer
    ``a`` joins the default floating dtype); ``returned`` adds the sum of the weights (the
    count without weights) shaped as the average.

    Communication: over the split axis, unweighted: one ``allreduce`` (``mean``'s); weighted:
    ``a * w`` and ``w`` summed together, one ``allreduce`` of twice the result (replicated).
    Over axes that are not split: none, but with weights one ``allreduce`` of a flag (``any``)
    agrees whether a weight sum of the split result is zero (``ZeroDivisionError`` on every
    rank). Weights laid out unlike ``a`` move as the elementwise operations move them
    (replicated ones are sliced locally)."""
    check_array(a, "average", "a")
    check_category(a.dtype, "numeric", "average", "a")
    axes = normalize_axes(axis, a.ndim, "average")
    if not isinstance(returned, bool):
        raise TypeError(f"average: returned must be a bool, got {returned!r}")
    default = a._backend.default_dtypes()["real floating"]
    if weights is None:
        x = a if a.dtype.kind in "fc" else astype(a, default)
        avg = mean(x, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        count = math.prod(a.shape[i] for i in axes)
        return avg, Array._new(
            filled_block(avg, avg.lshape, count, avg.dtype), avg._layout, avg._comm, avg._backend
        )
    w = weights if isinstance(weights, Array) else replicated_operand(a, weights, "average")
    check_same_context([(a, "a"), (w, "weights")], "average")
    check_category(w.dtype, "numeric", "average", "weights")
    if w.shape != a.shape:
        w = _weights_along(a, w, axis)
    if a.dtype.kind in "biu" and w.dtype.kind in "biu":
        dtype = default
    else:  # NumPy's result_type(a, w, float64) for an integer a
        dtype = np.result_type(a.dtype, w.dtype, *((default,) if a.dtype.kind in "biu" else ()))
    w = astype(w, dtype)
    both = stack([astype(a, dtype) * w, broadcast_to(w, a.shape)])
    sums = sum(both, axis=tuple(i + 1 for i in axes), keepdims=keepdims)
    total, scale = sums[0, ...], sums[1, ...]
    if any(scale == 0):
        raise ZeroDivisionError("average: the weights sum to zero, so they cannot normalize")
    avg = total / scale
    return (avg, scale) if returned else avg
