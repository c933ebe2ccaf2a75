"""``cumsum`` and ``cumprod``: NumPy's names for the standard's ``cumulative_sum`` and
``cumulative_prod``, beyond the standard, with NumPy's ``axis=None`` (the array flattened in
C order).

Communication: that of the scan along ``axis`` (none along an axis that is not split, one
``exscan`` of the blocks' totals along the split axis); ``axis=None`` on an array of more than
one dimension first flattens it with ``reshape``: local for an array split along its first
axis (or replicated), one all-to-all for one split along another. Nothing is gathered.
"""

from __future__ import annotations

from typing import Any

from ._array import Array
from ._dtypes import as_dtype, check_category
from ._manipulation_functions import reshape
from ._numpy_aliases import refuse
from ._statistical_functions import cumulative_prod, cumulative_sum
from ._validation import check_array, normalize_axis

__all__ = ["cumprod", "cumsum"]


def _scan(func: str, scan: Any, a: Any, axis: Any, dtype: Any, out: Any) -> Array:
    """Validate every argument (no message), flatten for ``axis=None``, and scan."""
    check_array(a, func, "a")
    refuse(func, out=out)
    if dtype is not None:
        dtype = as_dtype(dtype, func)
        check_category(dtype, "numeric", func, "dtype")
        if a.dtype.kind == "c" and dtype.kind != "c":
            raise TypeError(f"{func}: cannot accumulate complex a ({a.dtype}) in dtype {dtype}")
    if axis is None:
        return scan(reshape(a, (-1,)), axis=0, dtype=dtype)
    return scan(a, axis=normalize_axis(axis, a.ndim, func), dtype=dtype)


def cumsum(a: Array, axis: int | None = None, dtype: Any = None, out: Any = None) -> Array:
    """NumPy's ``cumsum`` (xdist's extension): ``cumulative_sum`` along ``axis``, of the
    flattened array for ``axis=None``; ``dtype`` in NumPy's spellings (the default that of
    ``sum``); ``out`` is not supported. Along the split axis one ``exscan``; flattening an
    array split along another axis than the first one all-to-all."""
    return _scan("cumsum", cumulative_sum, a, axis, dtype, out)


def cumprod(a: Array, axis: int | None = None, dtype: Any = None, out: Any = None) -> Array:
    """NumPy's ``cumprod`` (xdist's extension): ``cumulative_prod`` along ``axis``, of the
    flattened array for ``axis=None``; ``dtype`` in NumPy's spellings (the default that of
    ``prod``); ``out`` is not supported. Communication of ``cumsum``."""
    return _scan("cumprod", cumulative_prod, a, axis, dtype, out)
