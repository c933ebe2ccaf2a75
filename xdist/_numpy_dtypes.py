"""NumPy's questions about dtypes and Python objects, beyond the standard: ``promote_types``,
``issubdtype``, ``iscomplexobj``, ``isrealobj``, ``isscalar`` and ``iterable``.

xdist's dtypes are NumPy ``dtype`` objects, so NumPy answers these from global metadata:
nothing is sent, and every rank gets the same answer. An xdist array is never a scalar, and
is iterable where NumPy's array of its shape is (at least one dimension).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._dtypes import ALL_DTYPES

__all__ = ["iscomplexobj", "isrealobj", "isscalar", "issubdtype", "iterable", "promote_types"]


def _dtype(value: Any, func: str, name: str) -> np.dtype:
    try:
        return np.dtype(value)
    except TypeError:
        raise TypeError(f"{func}: {name}={value!r} is not a dtype") from None


def promote_types(type1: Any, type2: Any, /) -> np.dtype:
    """NumPy's ``promote_types`` (xdist's extension): the smallest dtype to which both cast
    safely, in any of NumPy's spellings (``float``, ``"f4"``, ``xp.int8``); a result that is
    not one of the standard's dtypes (``float16``, ``object``) raises ``TypeError``.
    Communication: none."""
    dt = np.promote_types(
        _dtype(type1, "promote_types", "type1"), _dtype(type2, "promote_types", "type2")
    )
    if dt not in ALL_DTYPES:
        raise TypeError(
            f"promote_types: {type1!r} and {type2!r} promote to {dt}, not a dtype of xdist"
        )
    return dt


def issubdtype(arg1: Any, arg2: Any, /) -> bool:
    """NumPy's ``issubdtype`` (xdist's extension): whether ``arg1`` is ``arg2`` or below it in
    NumPy's hierarchy (``xp.issubdtype(x.dtype, np.floating)``). The standard's question is
    ``xp.isdtype(x.dtype, 'real floating')``. Communication: none."""
    return bool(np.issubdtype(arg1, arg2))


def _dtype_of(x: Any) -> np.dtype:
    dtype = getattr(x, "dtype", None)
    return np.asarray(x).dtype if dtype is None else np.dtype(dtype)


def iscomplexobj(x: Any, /) -> bool:
    """NumPy's ``iscomplexobj`` (xdist's extension): whether ``x``'s dtype is complex (an
    object with a ``dtype``, or data NumPy reads). Communication: none."""
    return _dtype_of(x).kind == "c"


def isrealobj(x: Any, /) -> bool:
    """NumPy's ``isrealobj`` (xdist's extension): ``not iscomplexobj(x)``. Communication:
    none."""
    return not iscomplexobj(x)


def isscalar(element: Any, /) -> bool:
    """NumPy's ``isscalar`` (xdist's extension): Python and NumPy scalars, strings and bytes
    are; arrays of any kind, 0-d ones included, are not. Communication: none."""
    return not isinstance(element, Array) and bool(np.isscalar(element))


def iterable(y: Any, /) -> bool:
    """NumPy's ``iterable`` (xdist's extension): whether ``iter(y)`` works; an xdist array is
    iterable when it has at least one dimension, as a NumPy array. Communication: none."""
    if isinstance(y, Array):
        return y.ndim > 0
    return bool(np.iterable(y))
