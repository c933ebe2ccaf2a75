"""Argument checks shared by the namespace's functions. They run before any message is sent
and raise the same error on every rank (their inputs are global metadata)."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _array

__all__ = [
    "as_index",
    "as_number",
    "check_array",
    "check_int",
    "check_ints",
    "check_same_context",
    "normalize_axis",
    "normalize_axes",
    "ordered_axes",
    "same_context",
]


def check_array(x: Any, func: str, name: str = "x") -> None:
    if not isinstance(x, _array.Array):
        raise TypeError(f"{func}: {name} must be an xdist array, got {type(x).__name__}")


def same_context(a: Any, b: Any) -> bool:
    """Whether xdist arrays ``a`` and ``b`` share communicator, backend and device."""
    if a._comm is not b._comm or a._backend is not b._backend:
        return False
    da, db = a.device, b.device
    return da is db or da == db


def check_same_context(arrays: Sequence[Any], func: str, label: str = "operand {}") -> None:
    """The xdist arrays of one operation share one communicator, one backend and one device;
    else a ValueError naming the function, both arguments and both devices (the standard
    makes mixing devices an error, and a NumPy and a Torch array are on different devices
    even when both are on the CPU). ``arrays`` holds ``(array, argument name)`` pairs or bare
    arrays, named ``label.format(k)`` in the message (names are only formatted for an error:
    the elementwise functions check on every call)."""
    if not arrays:
        return

    def split(k: int) -> tuple[Any, str]:
        item = arrays[k]
        return item if isinstance(item, tuple) else (item, label.format(k))

    first = arrays[0][0] if isinstance(arrays[0], tuple) else arrays[0]
    comm, backend = first._comm, first._backend
    for k in range(1, len(arrays)):
        a = arrays[k][0] if isinstance(arrays[k], tuple) else arrays[k]
        if same_context(a, first):
            continue
        (_, first_name), (_, name) = split(0), split(k)
        if a._comm is not comm:
            raise ValueError(f"{func}: {name} lives on a different communicator than {first_name}")
        if a._backend is not backend:
            raise ValueError(
                f"{func}: {name} is an array of the {a._backend.name} backend and {first_name} "
                f"of the {backend.name} backend; one operation takes arrays of one backend"
            )
        raise ValueError(
            f"{func}: {name} is on device {a.device}, {first_name} on {first.device}; move "
            "one with to_device"
        )


def normalize_axis(axis: Any, ndim: int, func: str, name: str = "axis") -> int:
    """``axis`` in ``[0, ndim)``, or an error naming the function, the argument and the value.
    Any integer but a bool is an axis (``__index__``: NumPy's integers too, as NumPy and Torch
    take them; SciPy passes ``np.int64`` axes)."""
    index = as_index(axis)
    if index is None:
        raise TypeError(f"{func}: {name} must be an int, got {axis!r}")
    axis = index
    if not -ndim <= axis < ndim:
        raise IndexError(
            f"{func}: {name} {axis} is out of bounds for an array of {ndim} dimensions"
        )
    return axis % ndim


def normalize_axes(axis: Any, ndim: int, func: str, name: str = "axis") -> tuple[int, ...]:
    """``None`` (all axes), an int or a tuple of ints as a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, tuple) and as_index(axis) is not None:
        return (normalize_axis(axis, ndim, func, name),)
    if not isinstance(axis, tuple):
        raise TypeError(f"{func}: {name} must be None, an int or a tuple of ints, got {axis!r}")
    axes = tuple(normalize_axis(a, ndim, func, name) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{func}: {name} {axis} repeats an axis")
    return tuple(sorted(axes))


def as_index(value: Any) -> int | None:
    """``value`` as a Python int if it is an integer (``__index__``) and not a bool, else
    ``None``."""
    if isinstance(value, builtins.bool):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def as_number(value: Any) -> Any:
    """A number given as NumPy's scalar or as a 0-d array (xdist's, replicated as every 0-d
    array is, or NumPy's) as the Python scalar of its value, as NumPy and Torch take one
    (SciPy passes ``np.int64`` bounds to ``arange``, 0-d arrays to ``linspace`` and ``full``
    and, through ``np.testing``, as ``isclose``'s tolerances); anything else as it is, for
    the caller's check."""
    if isinstance(value, _array.Array) and value.ndim == 0:
        return value._backend.item(value._local)
    if isinstance(value, np.generic | np.ndarray) and value.ndim == 0:
        if value.dtype.kind in "biufc":
            return value.item()
    return value


def check_int(value: Any, func: str, name: str, minimum: int | None = None) -> int:
    """``value`` as a Python int (any integer but a bool; ``>= minimum`` when given), or a
    TypeError/ValueError naming ``func`` and ``name``."""
    n = as_index(value)
    if n is None:
        raise TypeError(f"{func}: {name} must be an int, got {value!r}")
    if minimum is not None and n < minimum:
        raise ValueError(f"{func}: {name} must be >= {minimum}, got {n}")
    return n


def check_ints(value: Any, func: str, name: str, minimum: int | None = None) -> tuple[int, ...]:
    """A tuple or list of ints (``>= minimum`` when given) as a tuple of Python ints, or a
    TypeError/ValueError naming ``func`` and ``name``."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{func}: {name} must be a tuple of ints, got {value!r}")
    out = tuple(as_index(v) for v in value)
    if None in out:
        raise TypeError(f"{func}: {name} {tuple(value)} must hold ints")
    if minimum is not None and any(v < minimum for v in out):  # type: ignore[operator]
        raise ValueError(f"{func}: {name} {out} must hold ints >= {minimum}")
    return out  # type: ignore[return-value]


def ordered_axes(axes: Sequence[Any], ndim: int, func: str, name: str) -> tuple[int, ...]:
    """The axes of a sequence normalized to ``[0, ndim)``, in the given order; an error
    naming ``func`` and ``name`` if one is out of bounds or repeats."""
    out = tuple(normalize_axis(a, ndim, func, name) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{func}: {name} {tuple(axes)} repeats an axis")
    return out
