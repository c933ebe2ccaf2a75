"""Exception types of xdist's own that any layer may raise."""

from __future__ import annotations

__all__ = ["AxisError", "NoDtypeError"]


class AxisError(IndexError, ValueError):
    """An axis out of range for the array it names: an ``IndexError`` and a ``ValueError``,
    as NumPy's ``AxisError`` is, so that code catching either catches it."""


class NoDtypeError(TypeError, ValueError):
    """``result_type`` of Python scalars alone, with no array or dtype to promote with: a
    ``TypeError`` (arguments of the wrong type; xarray asks with a lone scalar and catches
    it) and a ``ValueError`` (array-api-strict's error for no array or dtype; SciPy catches
    it and takes its default dtype)."""
