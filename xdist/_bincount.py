"""``bincount``: NumPy's, beyond the standard (scikit-learn looks it up as ``xp.bincount``).

The result is small (``max(x) + 1`` bins, or ``minlength``) and replicated. For ``x`` split
over several ranks: one ``allreduce`` (max) of ``(max, -min)`` of the local blocks gives the
number of bins and finds negative values (then every rank raises), each rank counts its block
into that many bins, and one ``allreduce`` (sum) adds the counts. A replicated ``x`` (or one
rank) sends nothing. When ``x`` and ``weights`` are laid out differently, the split one's
layout is used and the other is moved to it (``redistribute_block``: a replicated one is
sliced for free, one split otherwise moves with one ``alltoallv``; nothing is gathered).

Dtypes: int64 counts without weights; with weights, their dtype when it is floating-point
(NumPy always gives float64; scikit-learn keeps its sample weights' dtype), else the
backend's default floating dtype. Weighted counts accumulate in float64 and are rounded once.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ._array import Array
from ._layout import Layout
from ._movement.broadcast import output_layout
from ._movement.collectives import allreduce_block, allreduce_host
from ._movement.redistribute import redistribute_block
from ._validation import check_array, check_same_context
from .backends import Backend

__all__ = ["bincount"]

_float64 = np.dtype("float64")


def bincount(x: Array, /, *, weights: Array | None = None, minlength: int = 0) -> Array:
    """NumPy's ``bincount`` of a 1-D array of non-negative integers (bool counts as 0 and
    1), optionally weighted; the result is replicated. Two ``allreduce`` for a split ``x``."""
    out_dtype, minlength = _check(x, weights, minlength)
    comm, backend, xp = x._comm, x._backend, x._backend.xp
    arrays = [x] if weights is None else [x, weights]
    layout = output_layout([a._layout for a in arrays], x.shape)  # a split operand wins
    split = layout.split is not None and comm.size > 1
    block = redistribute_block(x._local, x._layout, layout, comm, backend)
    if block.dtype != xp.int64:  # NumPy counts in intp; unsigned minima must not wrap
        block = xp.astype(block, xp.int64)
    w = None
    if weights is not None:
        w = redistribute_block(weights._local, weights._layout, layout, comm, backend)
        w = xp.astype(w, backend.native_dtype(_float64))
    nbins = _nbins(x, block, minlength, split)
    local = _local_bincount(block, w, nbins, backend)
    if split:
        local = allreduce_block(local, "sum", comm, backend)
    if weights is not None and out_dtype != _float64:
        local = xp.astype(local, backend.native_dtype(out_dtype))
    return Array._new(local, Layout.replicated((nbins,)), comm, backend)


def _check(x: Any, weights: Any, minlength: Any) -> tuple[np.dtype, int]:
    """Validate the arguments (global metadata only): the result's dtype and ``minlength``."""
    check_array(x, "bincount")
    if x.ndim != 1:
        raise ValueError(f"bincount: x must be 1-D, got {x.ndim} dimensions (shape {x.shape})")
    if x.dtype.kind not in "biu" or x.dtype == np.dtype("uint64"):
        raise TypeError(
            f"bincount: x must have an integer dtype that casts safely to int64, got {x.dtype}"
        )
    try:
        minlength = operator.index(minlength)
    except TypeError:
        raise TypeError(f"bincount: minlength must be an int, got {minlength!r}") from None
    if minlength < 0:
        raise ValueError(f"bincount: minlength must not be negative, got {minlength}")
    if weights is None:
        return np.dtype("int64"), minlength
    check_array(weights, "bincount", "weights")
    check_same_context([(x, "x"), (weights, "weights")], "bincount")
    if weights.shape != x.shape:
        raise ValueError(
            f"bincount: weights and x have different shapes: {weights.shape} != {x.shape}"
        )
    if weights.dtype.kind not in "biuf":
        raise TypeError(f"bincount: weights must have a real dtype, got {weights.dtype}")
    if weights.dtype.kind == "f":
        return weights.dtype, minlength
    return x._backend.default_dtypes()["real floating"], minlength


def _nbins(x: Array, block: Any, minlength: int, split: bool) -> int:
    """``max(max(x) + 1, minlength)``; a ValueError on every rank if ``x`` has a negative."""
    xp, backend = x._backend.xp, x._backend
    if block.shape[0]:
        ends = backend.to_host(xp.stack([xp.max(block), -xp.min(block)]))
    else:  # an empty block: max -1 (no bins), min 0 (no negatives)
        ends = np.array([-1, 0], np.int64)
    if split:
        ends = allreduce_host(ends, "max", x._comm)
    if ends[1] > 0:
        raise ValueError(f"bincount: x must not have negative values, got {-int(ends[1])}")
    return max(int(ends[0]) + 1, minlength)


def _local_bincount(block: Any, w: Any, nbins: int, backend: Backend) -> Any:
    """This block counted into exactly ``nbins`` bins (int64, or float64 when weighted)."""
    xp = backend.xp
    if block.shape[0] == 0:  # some libraries refuse to count an empty array of no dtype
        dtype = xp.int64 if w is None else w.dtype
        device = backend.native_device(backend.device_of(block))
        return xp.zeros((nbins,), dtype=dtype, device=device)
    out = xp.bincount(block, weights=w, minlength=nbins)
    if w is None and out.dtype != xp.int64:
        out = xp.astype(out, xp.int64)
    return out
