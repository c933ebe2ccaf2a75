"""Argument checks shared by the namespace's functions. They run before any message is sent
and raise the same error on every rank (their inputs are global metadata)."""

from __future__ import annotations

from typing import Any

__all__ = ["check_array", "normalize_axis", "normalize_axes"]


def check_array(x: Any, func: str, name: str = "x") -> None:
    from ._array import Array

    if not isinstance(x, Array):
        raise TypeError(f"{func}: {name} must be an xdist array, got {type(x).__name__}")


def normalize_axis(axis: Any, ndim: int, func: str, name: str = "axis") -> int:
    """``axis`` in ``[0, ndim)``, or an error naming the function, the argument and the value."""
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise TypeError(f"{func}: {name} must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise IndexError(
            f"{func}: {name} {axis} is out of bounds for an array of {ndim} dimensions"
        )
    return axis % ndim


def normalize_axes(axis: Any, ndim: int, func: str, name: str = "axis") -> tuple[int, ...]:
    """``None`` (all axes), an int or a tuple of ints as a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int) and not isinstance(axis, bool):
        return (normalize_axis(axis, ndim, func, name),)
    if not isinstance(axis, tuple):
        raise TypeError(f"{func}: {name} must be None, an int or a tuple of ints, got {axis!r}")
    axes = tuple(normalize_axis(a, ndim, func, name) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{func}: {name} {axis} repeats an axis")
    return tuple(sorted(axes))
