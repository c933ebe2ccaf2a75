"""Exception types of xdist's own that any layer may raise."""

from __future__ import annotations

__all__ = ["AxisError"]


class AxisError(IndexError, ValueError):
    """An axis out of range for the array it names: an ``IndexError`` and a ``ValueError``,
    as NumPy's ``AxisError`` is, so that code catching either catches it."""
