"""NumPy's names for functions the standard spells differently, beyond the standard, for
libraries that call them on the namespace (xarray's ``duck_array_ops.transpose`` calls
``xp.transpose``, its ``cross`` ``xp.cross``) and for users who type NumPy's
(``concatenate``, ``hstack``, ``vstack``, ``column_stack``), and NumPy's spellings of standard
functions that NumPy code types all day (``absolute``, ``power``, ``amax``, the ``arc*``
names, ...): each IS the standard function (the same object), so it communicates as that
function does.

The joining functions are ``concat`` after NumPy's reshapes of the inputs (``expand_dims``
and ``reshape`` of 0-d and 1-D inputs: local), so they move what ``concat`` moves: nothing
for inputs split alike along another axis than the joined one (or replicated), else one
all-to-all."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _elementwise_functions as ew
from . import _statistical_functions as stats
from ._array import Array, replicated_operand
from ._creation_functions import asarray, eye
from ._manipulation_functions import concat, expand_dims, moveaxis, permute_dims, reshape, stack
from ._placement import DEFAULT
from ._validation import check_array, normalize_axis

__all__ = [
    "absolute",
    "amax",
    "amin",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "asanyarray",
    "ascontiguousarray",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "column_stack",
    "concatenate",
    "conjugate",
    "cross",
    "hstack",
    "identity",
    "invert",
    "left_shift",
    "power",
    "right_shift",
    "transpose",
    "true_divide",
    "vstack",
]

# NumPy's names of the standard's functions: the functions themselves.
absolute = ew.abs
arccos, arccosh, arcsin, arcsinh = ew.acos, ew.acosh, ew.asin, ew.asinh
arctan, arctan2, arctanh = ew.atan, ew.atan2, ew.atanh
conjugate = ew.conj
invert = ew.bitwise_invert
left_shift, right_shift = ew.bitwise_left_shift, ew.bitwise_right_shift
power = ew.pow
true_divide = ew.divide
amax, amin = stats.max, stats.min


def refuse(func: str, **given: Any) -> None:
    """A NotImplementedError naming the NumPy arguments of ``func`` that xdist does not take
    (each given as ``None`` where it has its default)."""
    used = sorted(k for k, v in given.items() if v is not None)
    if used:
        raise NotImplementedError(
            f"{func}: the argument{'s' if len(used) > 1 else ''} {', '.join(used)} "
            f"{'are' if len(used) > 1 else 'is'} not supported on xdist arrays"
        )


def transpose(x: Array, /, axes: Any = None) -> Array:
    """NumPy's ``transpose`` (xdist's extension): ``permute_dims`` with the axes reversed
    when ``axes`` is None. Communication of ``permute_dims`` (none: the split axis moves with
    its data)."""
    check_array(x, "transpose")
    order = tuple(range(x.ndim))[::-1] if axes is None else tuple(axes)
    return permute_dims(x, order)


def asanyarray(a: Any, dtype: Any = None, order: Any = None, *, like: Any = None, **kw: Any):
    """NumPy's ``asanyarray`` (xdist's extension): the standard's ``asarray`` (``dtype`` may
    be given second, as NumPy takes it; ``device``, ``copy``, ``split`` and ``comm`` by name).
    ``order`` and ``like`` are not supported. Communication of ``asarray``."""
    refuse("asanyarray", order=order, like=like)
    return asarray(a, dtype=dtype, **kw)


def ascontiguousarray(a: Any, dtype: Any = None, *, like: Any = None, **kw: Any) -> Array:
    """NumPy's ``ascontiguousarray`` (xdist's extension): the standard's ``asarray``. Every
    block of an xdist array is C-contiguous already (each rank's block is the library's
    array in C order), so nothing is copied for that. Communication of ``asarray``."""
    refuse("ascontiguousarray", like=like)
    return asarray(a, dtype=dtype, **kw)


def identity(
    n: int, dtype: Any = None, *, like: Any = None, device: Any = None, split=DEFAULT, comm=None
) -> Array:
    """NumPy's ``identity`` (xdist's extension): the standard's ``eye(n)`` (no message)."""
    refuse("identity", like=like)
    return eye(n, dtype=dtype, device=device, split=split, comm=comm)


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


# -- joining ------------------------------------------------------------------------------------
def _arrays(arrays: Any, func: str, dtype: Any, casting: Any) -> list[Array]:
    """NumPy's sequence of arrays as xdist arrays: NumPy data beside them replicated (each
    compared across the ranks, as any NumPy operand)."""
    refuse(func, dtype=dtype, casting=None if casting == "same_kind" else casting)
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(
            f"{func}: arrays must be a list or tuple of arrays, got {type(arrays).__name__}"
        )
    like = next((a for a in arrays if isinstance(a, Array)), None)
    if like is None:
        raise TypeError(f"{func}: arrays must hold at least one xdist array")
    return [
        a if isinstance(a, Array) else replicated_operand(like, np.asarray(a), func) for a in arrays
    ]


def concatenate(
    arrays: Any,
    /,
    axis: int | None = 0,
    out: Any = None,
    *,
    dtype: Any = None,
    casting: str = "same_kind",
) -> Array:
    """NumPy's ``concatenate`` (xdist's extension): the standard's ``concat`` (``axis=None``
    flattens in C order). ``out``, ``dtype`` and ``casting`` are not supported. Communication
    of ``concat``."""
    refuse("concatenate", out=out)
    return concat(_arrays(arrays, "concatenate", dtype, casting), axis=axis)


def _at_least(x: Array, ndim: int, axis: int) -> Array:
    """NumPy's ``atleast_1d``/``atleast_2d`` shapes (``column_stack``'s columns with
    ``axis=1``): a 0-d array as ``(1,)*ndim``, a 1-D one with a new axis at ``axis``."""
    if x.ndim == 0:
        return reshape(x, (1,) * ndim)
    if x.ndim < ndim:
        return expand_dims(x, axis=axis)
    return x


def _at_least_nd(func: str, ndim: int, arys: tuple) -> Any:
    like = next((a for a in arys if isinstance(a, Array)), None)
    if like is None:
        raise TypeError(f"{func}: at least one argument must be an xdist array")
    out = []
    for a in arys:
        a = a if isinstance(a, Array) else replicated_operand(like, np.asarray(a), func)
        if ndim == 3 and a.ndim in (1, 2):  # NumPy's (N,) -> (1, N, 1), (M, N) -> (M, N, 1)
            a = expand_dims(_at_least(a, 2, 0), axis=2)
        out.append(_at_least(a, ndim, 0))
    return out[0] if len(out) == 1 else tuple(out)


def atleast_1d(*arys: Any) -> Any:
    """NumPy's ``atleast_1d`` (xdist's extension): 0-d arrays as shape ``(1,)``, others as they
    are; one array for one argument, else a tuple. NumPy data is replicated. Communication:
    none (local reshapes; the split moves with its axis)."""
    return _at_least_nd("atleast_1d", 1, arys)


def atleast_2d(*arys: Any) -> Any:
    """NumPy's ``atleast_2d`` (xdist's extension): 0-d arrays as ``(1, 1)``, 1-D ones as rows
    ``(1, N)``. Communication: none (local reshapes)."""
    return _at_least_nd("atleast_2d", 2, arys)


def atleast_3d(*arys: Any) -> Any:
    """NumPy's ``atleast_3d`` (xdist's extension): 0-d arrays as ``(1, 1, 1)``, 1-D ones as
    ``(1, N, 1)``, 2-D ones as ``(M, N, 1)``. Communication: none (local reshapes)."""
    return _at_least_nd("atleast_3d", 3, arys)


def hstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Array:
    """NumPy's ``hstack`` (xdist's extension): ``concat`` along the first axis of 1-D inputs
    (0-d ones made 1-D), else along the second. Communication of ``concat``."""
    arrays = [_at_least(a, 1, 0) for a in _arrays(tup, "hstack", dtype, casting)]
    return concat(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def vstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> Array:
    """NumPy's ``vstack`` (xdist's extension): ``concat`` along the first axis, 1-D inputs
    made rows (``(1, N)``) and 0-d ones ``(1, 1)``. Communication of ``concat``."""
    return concat([_at_least(a, 2, 0) for a in _arrays(tup, "vstack", dtype, casting)], axis=0)


def column_stack(tup: Any) -> Array:
    """NumPy's ``column_stack`` (xdist's extension): ``concat`` along the second axis, 1-D
    inputs made columns (``(N, 1)``) and 0-d ones ``(1, 1)``. Communication of ``concat``."""
    arrays = _arrays(tup, "column_stack", None, "same_kind")
    return concat([_at_least(a, 2, 1) for a in arrays], axis=1)
