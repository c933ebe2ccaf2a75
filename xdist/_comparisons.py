"""``isclose``, ``allclose`` and ``array_equal``: NumPy's, beyond the standard.

``isclose`` is NumPy's formula, elementwise in one pass over the blocks (``apply_elementwise``):
``|a - b| <= atol + rtol*|b|`` where ``b`` is finite, or ``a == b`` (infinities of one sign),
or, with ``equal_nan``, both NaN. As in NumPy the operands are compared in the dtype of
``a - b`` once ``b`` is made floating (integers and booleans in float64), and the tolerances
are Python scalars, weak beside the arrays. ``allclose`` and ``array_equal`` reduce that
elementwise answer with ``all``: a Python bool, the same on every rank.

Communication: none for the elementwise answer when the operands share a layout (a replicated
or NumPy operand is sliced locally; other layouts move as in the elementwise functions). The
Python bool of ``allclose`` and ``array_equal`` is one ``allreduce`` of one byte (logical and)
for a split operand, none for replicated ones; ``array_equal`` of arrays whose shapes differ
answers ``False`` with no message.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._ops.elementwise import SCALARS, apply_elementwise
from ._utility_functions import all
from ._validation import as_number

__all__ = ["allclose", "array_equal", "isclose"]


def _weak(v: Any) -> bool:
    """A Python scalar: weak beside arrays (NumPy's scalars are arrays of their dtype)."""
    return isinstance(v, SCALARS) and not isinstance(v, np.generic)


def _operands(func: str, a: Any, b: Any) -> tuple[Array, Any, Any]:
    """The xdist array that gives the context, and ``a`` and ``b`` with other data made NumPy
    arrays (Python scalars kept: they are weak until the dtype is known). Nothing is sent."""
    like = a if isinstance(a, Array) else b
    if not isinstance(like, Array):
        raise TypeError(
            f"{func}: a or b must be an xdist array, got {type(a).__name__} and {type(b).__name__}"
        )
    x, y = (v if isinstance(v, Array) or _weak(v) else np.asarray(v)[()] for v in (a, b))
    for v, name in ((x, "a"), (y, "b")):
        if np.result_type(_dtype_of(v)).kind not in "biufc":
            raise TypeError(f"{func}: {name} must have a numeric or bool dtype, got {v!r}")
    return like, x, y


def _shape(v: Any) -> tuple[int, ...]:
    return v.shape if isinstance(v, Array) else np.shape(v)


def _dtype_of(v: Any) -> Any:
    return v if _weak(v) else v.dtype


def _as_array(v: Any, like: Array, dtype: np.dtype | None, func: str) -> Array:
    """NumPy data as a replicated array (its values compared across the ranks), a Python
    scalar as a NumPy scalar of ``dtype`` (no message)."""
    if isinstance(v, Array):
        return v
    return replicated_operand(like, dtype.type(v) if _weak(v) else v, func)


def _broadcast(func: str, x: Any, y: Any) -> tuple[int, ...]:
    """The broadcast shape of ``x`` and ``y``, or a ValueError naming both (no message)."""
    shapes = [_shape(v) for v in (x, y)]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{func}: shapes {shapes[0]} and {shapes[1]} do not broadcast") from None


def _tolerance(value: Any, name: str) -> float:
    """A tolerance as a float: a real number, or a 0-d real array (``as_number``):
    ``np.testing.assert_allclose`` passes one through."""
    value = as_number(value)
    if isinstance(value, Array) or not isinstance(value, numbers.Real):
        raise NotImplementedError(
            f"isclose: {name} must be a real scalar, got {type(value).__name__}; arrays of "
            "tolerances are not supported"
        )
    return float(value)


def isclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Array:
    """NumPy's ``isclose`` (xdist's extension): where ``|a - b| <= atol + rtol*|b|`` (not
    symmetric in ``a`` and ``b``), infinities equal to themselves, NaN equal to NaN only with
    ``equal_nan``. A boolean array of the broadcast shape, laid out as the elementwise
    functions lay out their results; a NumPy operand is replicated. ``rtol`` and ``atol`` are
    real scalars. Communication: none when the operands share a layout (see the elementwise
    functions otherwise)."""
    like, x, y = _operands("isclose", a, b)
    rtol, atol = _tolerance(rtol, "rtol"), _tolerance(atol, "atol")
    if not isinstance(equal_nan, bool):
        raise TypeError(f"isclose: equal_nan must be a bool, got {equal_nan!r}")
    _broadcast("isclose", x, y)
    # NumPy makes b floating first (a Python int b a Python float), then compares in the
    # dtype of a - b.
    if _weak(y):
        y = y if isinstance(y, complex) else float(y)
        work = np.result_type(_dtype_of(x), y)
    else:
        work = np.result_type(_dtype_of(x), np.result_type(y.dtype, 1.0))
    x, y = (_as_array(v, like, work, "isclose") for v in (x, y))
    xp, native = like._backend.xp, like._backend.native_dtype(work)

    def local(u: Any, v: Any) -> Any:
        u, v = xp.astype(u, native, copy=False), xp.astype(v, native, copy=False)
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf, as NumPy's
            close = (xp.abs(u - v) <= atol + rtol * xp.abs(v)) & xp.isfinite(v)
            close = close | (u == v)
        if equal_nan:
            close = close | (xp.isnan(u) & xp.isnan(v))
        return close

    return apply_elementwise("isclose", local, [x, y])


def allclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """NumPy's ``allclose`` (xdist's extension): whether ``isclose`` holds everywhere, as a
    Python bool agreed on every rank; shapes that do not broadcast raise. Communication:
    ``isclose``'s, then one ``allreduce`` of one byte for a split operand (none when every
    operand is replicated)."""
    return bool(all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    """NumPy's ``array_equal`` (xdist's extension): whether ``a1`` and ``a2`` have one shape
    and equal elements (NaN equal to NaN with ``equal_nan``), as a Python bool agreed on every
    rank; ``False`` for different shapes, with no message. Communication: none for the
    comparison when the arrays share a layout, then one ``allreduce`` of one byte for a split
    operand."""
    like, x, y = _operands("array_equal", a1, a2)
    if not isinstance(equal_nan, bool):
        raise TypeError(f"array_equal: equal_nan must be a bool, got {equal_nan!r}")
    if _shape(x) != _shape(y):
        return False
    x, y = (_as_array(v, like, np.result_type(v), "array_equal") for v in (x, y))
    work = np.result_type(x.dtype, y.dtype)
    xp, native = like._backend.xp, like._backend.native_dtype(work)
    nan = equal_nan and work.kind in "fc"

    def local(u: Any, v: Any) -> Any:
        u, v = xp.astype(u, native, copy=False), xp.astype(v, native, copy=False)
        same = u == v
        return same | (xp.isnan(u) & xp.isnan(v)) if nan else same

    return bool(all(apply_elementwise("array_equal", local, [x, y])))
