"""Argument checks of the generator's methods. They read only global arguments, run on every
rank before anything is drawn or sent, and raise the same error everywhere, naming the method,
the argument and its value."""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _array
from .._dtypes import as_dtype
from .._validation import check_int
from ..backends import Backend

__all__ = ["check_dtype", "check_integer", "check_real", "check_shape", "check_xarray"]


def check_shape(size: Any, shape: Any, func: str) -> tuple[int, ...]:
    """The result shape from NumPy's ``size`` or xdist's ``shape`` (at most one of them; an
    int or a sequence of ints >= 0); ``()`` when neither is given."""
    if size is not None and shape is not None:
        raise TypeError(f"{func}: give size or shape, not both (size={size!r}, shape={shape!r})")
    value = shape if shape is not None else size
    name = "shape" if shape is not None else "size"
    if value is None:
        return ()
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(check_int(n, func, name, 0) for n in value)
    return (check_int(value, func, name, 0),)


def check_dtype(dtype: Any, kinds: str, default: np.dtype, backend: Backend, func: str) -> np.dtype:
    """``dtype`` (``None``: ``default``) as a dtype of one of ``kinds`` ("f": real floating,
    "iu": integer) that ``backend`` supports."""
    dt = default if dtype is None else as_dtype(dtype, func)
    if dt.kind not in kinds:
        want = "a real floating" if kinds == "f" else "an integer"
        raise TypeError(f"{func}: dtype must be {want} dtype, got {dt}")
    if dt not in backend.supported_dtypes():
        raise TypeError(f"{func}: the {backend.name} backend has no dtype {dt}")
    return dt


def check_real(value: Any, func: str, name: str, minimum: float | None = None) -> float:
    """A finite real scalar (a Python or NumPy int or float, not a bool) as a float."""
    if isinstance(value, (builtins.bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{func}: {name} must be a real number, got {value!r}")
    out = float(value)
    if not math.isfinite(out):
        raise ValueError(f"{func}: {name} must be finite, got {value!r}")
    if minimum is not None and out < minimum:
        raise ValueError(f"{func}: {name} must be >= {minimum}, got {value!r}")
    return out


def check_integer(value: Any, func: str, name: str) -> int:
    """An integer scalar (a Python or NumPy int, not a bool) as a Python int."""
    if isinstance(value, (builtins.bool, np.bool_)):
        raise TypeError(f"{func}: {name} must be an int, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an int, got {value!r}") from None


def check_xarray(x: Any, func: str, name: str = "x", min_ndim: int = 1) -> None:
    """``x`` is an xdist array with at least ``min_ndim`` dimensions."""
    if not isinstance(x, _array.Array):
        raise TypeError(f"{func}: {name} must be an xdist array, got {type(x).__name__}")
    if x.ndim < min_ndim:
        raise ValueError(f"{func}: {name} must have at least {min_ndim} dimension, got a 0-d array")
