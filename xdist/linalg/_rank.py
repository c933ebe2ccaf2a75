"""Functions of the singular values: ``matrix_rank`` and ``pinv``.

Both are compositions of xdist functions on top of ``svdvals`` / ``svd`` (see ``_tsqr``), so
they move only what those move: nothing for replicated or batch-split stacks, one
``allgatherv`` of small factors for a tall-skinny matrix split along its rows (or a wide one
along its columns), the whole matrix on every rank for other matrix-axis splits. The
singular values are never split along their last axis, so the cutoffs are local.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _elementwise_functions as ew
from .. import _manipulation_functions as manip
from .. import _statistical_functions as stats
from .._array import Array
from .._dtypes import check_category
from .._linear_algebra_functions import matmul, matrix_transpose
from .._movement.broadcast import broadcast_shapes
from .._ops.elementwise import apply_elementwise
from ._common import check_matrices, real_dtype
from ._tsqr import svd, svdvals

__all__ = ["matrix_rank", "pinv"]


def _check_rtol(rtol: Any, x: Array, func: str) -> None:
    if rtol is None:
        return
    if isinstance(rtol, Array):
        check_category(rtol.dtype, "real floating-point", func, "rtol")
        if rtol._comm is not x._comm:
            raise ValueError(f"{func}: rtol and x live on different communicators")
        batch = x.shape[:-2]
        try:
            fits = broadcast_shapes([rtol.shape, batch], func) == batch
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(
                f"{func}: rtol of shape {rtol.shape} must broadcast to x's stack shape {batch}"
            )
        return
    if isinstance(rtol, bool) or not isinstance(rtol, (int, float)):
        raise TypeError(f"{func}: rtol must be None, a float or an xdist array, got {rtol!r}")


def _cutoff(s: Array, rtol: Any, x: Array) -> Array:
    """``rtol * max(S)`` per matrix, kept as a trailing axis of length 1. Default ``rtol``:
    ``max(M, N) * eps`` of ``x``'s real precision (the standard's default)."""
    if rtol is None:
        rtol = max(x.shape[-2:]) * float(np.finfo(real_dtype(x.dtype)).eps)
    largest = stats.max(s, axis=-1, keepdims=True)
    if isinstance(rtol, Array):
        rtol = manip.expand_dims(rtol, axis=-1)
    return ew.multiply(largest, rtol)


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The standard's ``matrix_rank``: the number of singular values above
    ``rtol * max(S)``, in the default integer dtype, laid out like ``svdvals(x)`` without
    its last axis (replicated, or split like a batch-split stack)."""
    check_matrices(x, "matrix_rank")
    _check_rtol(rtol, x, "matrix_rank")
    s = svdvals(x)
    if min(x.shape[-2:]) == 0:  # no singular values: rank 0 (and no max of nothing)
        return stats.sum(ew.greater(s, 0.0), axis=-1)
    return stats.sum(ew.greater(s, _cutoff(s, rtol, x)), axis=-1)


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """The standard's ``pinv``: ``V diag(1/S) U^H`` over the singular values above
    ``rtol * max(S)`` (the others count as zero), from ``svd(x, full_matrices=False)``.

    Layout: for a tall-skinny matrix split along its rows, ``U`` is split like ``x``, so the
    result (``N x M``) is split along its columns like ``x``'s rows with no message after
    TSQR; in general the product's layout is the matmul planner's choice.
    """
    check_matrices(x, "pinv")
    _check_rtol(rtol, x, "pinv")
    u, s, vh = svd(x, full_matrices=False)
    if min(x.shape[-2:]) == 0:
        inverse = s
    else:
        xp = x._backend.xp

        def invert(values, cut):
            keep = values > cut
            safe = xp.where(keep, values, xp.ones_like(values))
            return xp.where(keep, 1 / safe, xp.zeros_like(values))

        inverse = apply_elementwise("pinv", invert, [s, _cutoff(s, rtol, x)])
    v = ew.conj(matrix_transpose(vh)) if x.dtype.kind == "c" else matrix_transpose(vh)
    uh = ew.conj(matrix_transpose(u)) if x.dtype.kind == "c" else matrix_transpose(u)
    scaled = ew.multiply(v, manip.expand_dims(inverse, axis=-2))
    return matmul(scaled, uh)
