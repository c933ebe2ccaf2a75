"""NumPy's names for functions the standard spells differently, beyond the standard, for
libraries that call them on the namespace (xarray's ``duck_array_ops.transpose`` calls
``xp.transpose``, its ``cross`` ``xp.cross``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._manipulation_functions import moveaxis, permute_dims, stack
from ._validation import check_array, normalize_axis

__all__ = ["cross", "transpose"]


def transpose(x: Array, /, axes: Any = None) -> Array:
    """NumPy's ``transpose`` (xdist's extension): ``permute_dims`` with the axes reversed
    when ``axes`` is None. Communication of ``permute_dims`` (none: the split axis moves with
    its data)."""
    check_array(x, "transpose")
    order = tuple(range(x.ndim))[::-1] if axes is None else tuple(axes)
    return permute_dims(x, order)


def _component(v: Array, i: int) -> Array:
    return v[..., i]


def cross(
    a: Any, b: Any, /, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: Any = None
) -> Array:
    """NumPy's ``cross`` (xdist's extension) of 3-vectors (or of two 2-vectors: the z
    component) along ``axisa``/``axisb`` (``axis`` sets all three), in NumPy's order of
    operations; a NumPy operand is replicated. Elementwise on the components: no message
    unless the vector axis is the split one (a component is then a broadcast slab).
    """
    like = a if isinstance(a, Array) else b
    check_array(like, "cross", "a")
    a = a if isinstance(a, Array) else replicated_operand(like, np.asarray(a), "cross")
    b = b if isinstance(b, Array) else replicated_operand(like, np.asarray(b), "cross")
    if axis is not None:
        axisa = axisb = axisc = axis
    a = moveaxis(a, normalize_axis(axisa, a.ndim, "cross", "axisa"), -1)
    b = moveaxis(b, normalize_axis(axisb, b.ndim, "cross", "axisb"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if (na, nb) not in ((3, 3), (2, 2)):
        raise ValueError(
            f"cross: the vectors must both have 3 components (or both 2), got {na} and {nb}"
        )
    a0, a1, b0, b1 = (_component(v, i) for v in (a, b) for i in (0, 1))
    if na == 2:
        return a0 * b1 - a1 * b0
    a2, b2 = _component(a, 2), _component(b, 2)
    c = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, normalize_axis(axisc, c.ndim, "cross", "axisc"))
