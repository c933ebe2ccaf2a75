"""``fftshift`` and ``ifftshift``: a roll by ``n//2`` (``-(n//2)``) along each axis.

Both are xdist's ``roll`` (``roll_axes``): axes that are not split roll inside each block
(no message); the split axis rolls with one all-to-all that moves two ranges, global
indices ``[0, n - s)`` to ``[s, n)`` and ``[n - s, n)`` to ``[0, s)``. The layout is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._array import Array
from .._manipulation_functions.reordering import roll_axes
from .._validation import check_array, normalize_axis

__all__ = ["fftshift", "ifftshift"]


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Shift the zero-frequency entry to the center: roll by ``n//2`` along ``axes`` (all
    by default; a repeated axis rolls again). One all-to-all if the split axis moves."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """The inverse of ``fftshift``: roll by ``-(n//2)`` along ``axes`` (all by default)."""
    return _shift(x, axes, -1, "ifftshift")


def _axes(axes: Any, ndim: int, func: str) -> list[int]:
    if axes is None:
        return list(range(ndim))
    if isinstance(axes, int) and not isinstance(axes, bool):
        return [normalize_axis(axes, ndim, func, "axes")]
    if not isinstance(axes, Sequence) or isinstance(axes, str):
        raise TypeError(f"{func}: axes must be None, an int or a sequence of ints, got {axes!r}")
    return [normalize_axis(a, ndim, func, "axes") for a in axes]


def _shift(x: Array, axes: Any, sign: int, func: str) -> Array:
    check_array(x, func)
    shifts: dict[int, int] = {}
    for a in _axes(axes, x.ndim, func):
        shifts[a] = shifts.get(a, 0) + sign * (x.shape[a] // 2)
    return roll_axes(x, shifts)
