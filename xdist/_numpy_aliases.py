"""NumPy's names for functions the standard spells differently, beyond the standard, for
libraries that call them on the namespace (xarray's ``duck_array_ops.transpose`` calls
``xp.transpose``)."""

from __future__ import annotations

from typing import Any

from ._array import Array
from ._manipulation_functions import permute_dims
from ._validation import check_array

__all__ = ["transpose"]


def transpose(x: Array, /, axes: Any = None) -> Array:
    """NumPy's ``transpose`` (xdist's extension): ``permute_dims`` with the axes reversed
    when ``axes`` is None. Communication of ``permute_dims`` (none: the split axis moves with
    its data)."""
    check_array(x, "transpose")
    order = tuple(range(x.ndim))[::-1] if axes is None else tuple(axes)
    return permute_dims(x, order)
