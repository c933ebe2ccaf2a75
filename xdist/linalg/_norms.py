"""Norms: ``vector_norm`` and ``matrix_norm``, as compositions of xdist's elementwise
functions and reductions: local work, plus the one ``allreduce`` of a reduction over the
split axis (none when the split axis is not reduced).

``matrix_norm`` with ``ord`` 1 / -1 / inf / -inf is two reductions (a sum over one matrix
axis, then a max or min over the other); only the one over the split axis sends, so there is
still one ``allreduce``. ``ord`` 2 / -2 / 'nuc' reduce ``svdvals`` (see ``_tsqr``).
"""

from __future__ import annotations

import math
from typing import Any

from .. import _elementwise_functions as ew
from .. import _manipulation_functions as manip
from .. import _statistical_functions as stats
from .._array import Array
from .._dtypes import check_category
from .._validation import check_array, normalize_axes
from ._common import check_matrices, real_dtype
from ._tsqr import svdvals

__all__ = ["matrix_norm", "vector_norm"]


def _check_matrix_ord(ord: Any) -> None:
    if isinstance(ord, str):
        ok = ord in ("fro", "nuc")
    else:
        number = isinstance(ord, (int, float)) and not isinstance(ord, bool)
        ok = number and ord in (1, -1, 2, -2, math.inf, -math.inf)
    if not ok:
        raise ValueError(
            f"matrix_norm: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; got {ord!r}"
        )


def _check_keepdims(keepdims: Any, func: str) -> None:
    if not isinstance(keepdims, bool):
        raise TypeError(f"{func}: keepdims must be a bool, got {keepdims!r}")


def vector_norm(
    x: Array, /, *, axis: int | tuple[int, ...] | None = None, keepdims: bool = False, ord=2
) -> Array:
    """The standard's ``vector_norm`` of the elements over ``axis`` (all of them by
    default), for any real ``ord``: ``inf`` / ``-inf`` are ``max`` / ``min`` of ``|x|``,
    ``0`` counts the non-zeros, otherwise ``sum(|x|**ord)**(1/ord)``. The result is real,
    of ``x``'s precision."""
    check_array(x, "vector_norm")
    check_category(x.dtype, "floating-point", "vector_norm")
    axes = normalize_axes(axis, x.ndim, "vector_norm")
    _check_keepdims(keepdims, "vector_norm")
    if isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ValueError(f"vector_norm: ord must be an int or a float, got {ord!r}")
    kw = {"axis": axes, "keepdims": keepdims}
    if ord == 0:
        return stats.sum(ew.not_equal(x, 0), dtype=real_dtype(x.dtype), **kw)
    a = ew.abs(x)
    if ord == math.inf:
        return stats.max(a, **kw)
    if ord == -math.inf:
        return stats.min(a, **kw)
    if ord == 1:
        return stats.sum(a, **kw)
    if ord == 2:
        return ew.sqrt(stats.sum(ew.multiply(a, a), **kw))
    return ew.pow(stats.sum(ew.pow(a, float(ord)), **kw), 1.0 / ord)


def matrix_norm(x: Array, /, *, keepdims: bool = False, ord: Any = "fro") -> Array:
    """The standard's ``matrix_norm`` of each matrix: 'fro' (default; ``None`` too), 'nuc',
    1 / -1 (max / min column sum of ``|x|``), inf / -inf (max / min row sum), 2 / -2
    (largest / smallest singular value). The result is real, of ``x``'s precision."""
    check_matrices(x, "matrix_norm")
    _check_keepdims(keepdims, "matrix_norm")
    ord = "fro" if ord is None else ord
    _check_matrix_ord(ord)
    rows, cols = x.ndim - 2, x.ndim - 1
    if ord in ("fro", "nuc") or ord in (2, -2):
        out = _from_values(x, ord)
    else:
        a = ew.abs(x)
        inner, outer = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = stats.sum(a, axis=inner, keepdims=True)
        pick = stats.max if ord > 0 else stats.min
        out = pick(sums, axis=outer, keepdims=True)
    return out if keepdims else manip.squeeze(out, axis=(rows, cols))


def _from_values(x: Array, ord: Any) -> Array:
    """'fro' from the elements; 'nuc', 2, -2 from the singular values (keepdims shape)."""
    if ord == "fro":
        a = ew.abs(x)
        return ew.sqrt(stats.sum(ew.multiply(a, a), axis=(-2, -1), keepdims=True))
    s = svdvals(x)
    pick = stats.sum if ord == "nuc" else stats.max if ord == 2 else stats.min
    return manip.expand_dims(pick(s, axis=-1, keepdims=True), axis=-1)
