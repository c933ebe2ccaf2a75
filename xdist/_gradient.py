"""``gradient``: NumPy's, beyond the standard (xarray's ``differentiate`` calls
``xp.gradient``).

NumPy's formulas, in its order of operations: second-order central differences inside (for
uniform spacing ``(f[2:] - f[:-2]) / (2 dx)``, else NumPy's three weights of the uneven
spacing), first- or second-order one-sided differences at the two ends (``edge_order``).
Spacing: none (1), one scalar for every axis, or per axis a scalar or the coordinates (a
1-D NumPy array, whose constant steps NumPy reduces to a scalar; so does this).

Communication: along an axis that is not split, none. Along the split axis the shifted
views ``f[:-2]``, ``f[1:-1]``, ``f[2:]`` are combined by the elementwise pipeline, which moves
the element or two each block needs from its neighbours (one ``alltoallv`` per shifted
operand), and the ends are joined by ``concat`` (one ``alltoallv``); never a gather.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._data_type_functions import astype
from ._dtypes import check_category
from ._layout import Layout
from ._manipulation_functions import concat
from ._validation import check_array, normalize_axes

__all__ = ["gradient"]

_float64 = np.dtype("float64")


def _spacing(f: Array, varargs: tuple, axes: tuple[int, ...]) -> list[Any]:
    """Per axis: a scalar step, or NumPy's 1-D steps ``diff(coordinates)``."""
    if not varargs:
        return [1.0] * len(axes)
    if len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        return list(varargs) * len(axes)
    if len(varargs) != len(axes):
        raise TypeError(
            f"gradient: give no spacing, one scalar, or one per axis ({len(axes)}), got "
            f"{len(varargs)}"
        )
    out = []
    for a, d in zip(axes, varargs):
        if isinstance(d, Array):
            d = d.to_numpy()  # coordinates: one line along the axis, small
        dist = np.asarray(d)
        if dist.ndim == 0:
            out.append(d)
            continue
        if dist.ndim != 1 or len(dist) != f.shape[a]:
            raise ValueError(
                f"gradient: the coordinates of axis {a} must be 1-D of length {f.shape[a]}, "
                f"got shape {dist.shape}"
            )
        if np.issubdtype(dist.dtype, np.integer):
            dist = dist.astype(np.float64)
        step = np.diff(dist)
        out.append(step[0] if (step == step[0]).all() else step)
    return out


def _take(f: Array, axis: int, start: int | None, stop: int | None) -> Array:
    key = [slice(None)] * f.ndim
    key[axis] = slice(start, stop)
    return f[tuple(key)]


def _along(f: Array, weights: np.ndarray, axis: int) -> Array:
    """NumPy weights of the uneven spacing as a replicated array broadcast along ``axis``
    (an argument, the same on every rank: no checksum)."""
    shape = [1] * f.ndim
    shape[axis] = -1
    host = np.ascontiguousarray(weights.reshape(shape))
    block = f._backend.from_host(host, f.device)
    return Array._new(block, Layout.replicated(host.shape), f._comm, f._backend)


def _axis_gradient(f: Array, axis: int, dx: Any, edge_order: int, out: np.dtype) -> Array:
    f0, f1, f2 = _take(f, axis, None, -2), _take(f, axis, 1, -1), _take(f, axis, 2, None)
    uniform = np.ndim(dx) == 0
    if uniform:
        inner = (f2 - f0) / (2.0 * dx)
    else:
        dx1, dx2 = dx[0:-1], dx[1:]
        a = -(dx2) / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        inner = _along(f, a, axis) * f0 + _along(f, b, axis) * f1 + _along(f, c, axis) * f2
    n = f.shape[axis]
    first, second, third = (_take(f, axis, i, i + 1) for i in (0, 1, 2))
    last, before, third_last = (_take(f, axis, n + i, n + i + 1) for i in (-1, -2, -3))
    if edge_order == 1:
        start = (second - first) / (dx if uniform else dx[0])
        end = (last - before) / (dx if uniform else dx[-1])
    else:
        if uniform:
            a, b, c = -1.5 / dx, 2.0 / dx, -0.5 / dx
        else:
            d1, d2 = dx[0], dx[1]
            a = -(2.0 * d1 + d2) / (d1 * (d1 + d2))
            b = (d1 + d2) / (d1 * d2)
            c = -d1 / (d2 * (d1 + d2))
        start = a * first + b * second + c * third
        if uniform:
            a, b, c = 0.5 / dx, -2.0 / dx, 1.5 / dx
        else:
            d1, d2 = dx[-2], dx[-1]
            a = (d2) / (d1 * (d1 + d2))
            b = -(d2 + d1) / (d1 * d2)
            c = (2.0 * d2 + d1) / (d2 * (d1 + d2))
        end = a * third_last + b * before + c * last
    parts = [astype(p, out) for p in (start, inner, end)]
    return concat(parts, axis=axis)


def gradient(f: Array, /, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """NumPy's ``gradient`` (xdist's extension): one array per axis of ``axis`` (all when
    None), or one array for a single axis. Integers differentiate in float64.

    Along the split axis the neighbours' elements come through the elementwise pipeline and
    ``concat`` (``alltoallv``, a few elements per block); elsewhere no message.
    """
    check_array(f, "gradient")
    check_category(f.dtype, "numeric", "gradient")
    if edge_order not in (1, 2):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order!r}")
    axes = normalize_axes(axis, f.ndim, "gradient")
    for a in axes:
        if f.shape[a] < edge_order + 1:
            raise ValueError(
                f"gradient: axis {a} has {f.shape[a]} elements; edge_order={edge_order} needs "
                f"at least {edge_order + 1}"
            )
    steps = _spacing(f, varargs, axes)
    out = f.dtype if f.dtype.kind == "f" else _float64
    if f.dtype.kind in "iub":
        f = astype(f, _float64)
    grads = [_axis_gradient(f, a, d, edge_order, out) for a, d in zip(axes, steps)]
    return grads[0] if len(grads) == 1 else tuple(grads)
