"""``around``: NumPy's ``round``/``around`` with ``decimals``, beyond the standard (whose
``round`` takes none). ``Array.round(decimals)``, ``np.round(x, decimals)`` and xarray's
``DataArray.round(decimals)`` come here.

NumPy's algorithm, elementwise (no message): for ``decimals >= 0`` multiply by
``10**decimals``, round half to even, divide back; for ``decimals < 0`` divide by
``10**-decimals``, round, multiply back (integers in float64, cast back to their dtype).
Integers with ``decimals >= 0`` are returned unchanged (a copy). Complex arrays take only
``decimals=0`` (the standard's ``round``): NumPy rounds their parts separately, which a
complex product by ``10**decimals`` does not reproduce exactly.
"""

from __future__ import annotations

import operator

import numpy as np

from ._array import Array
from ._data_type_functions import astype
from ._dtypes import check_category
from ._elementwise_functions import round as round_half_even
from ._validation import check_array

__all__ = ["around"]


def around(x: Array, /, decimals: int = 0) -> Array:
    """NumPy's ``around`` (xdist's extension): ``x`` rounded to ``decimals`` decimal places,
    halves to even, in ``x``'s dtype. Elementwise: no message."""
    check_array(x, "around")
    check_category(x.dtype, "numeric", "around")
    try:
        decimals = operator.index(decimals)
    except TypeError:
        raise TypeError(f"around: decimals must be an int, got {decimals!r}") from None
    if x.dtype.kind in "iu":
        if decimals >= 0:
            return astype(x, x.dtype, copy=True)
        f = float(10 ** (-decimals))
        return astype(round_half_even(astype(x, np.dtype("float64")) / f) * f, x.dtype)
    if decimals == 0:
        return round_half_even(x)
    if x.dtype.kind == "c":
        raise TypeError(
            f"around: complex x takes decimals=0 only, got {decimals}; round real(x) and "
            "imag(x) separately"
        )
    if decimals > 0:
        f = float(10**decimals)
        return round_half_even(x * f) / f
    f = float(10 ** (-decimals))
    return round_half_even(x / f) * f
