"""``pad``: NumPy's, beyond the standard (xarray's ``pad``, ``shift`` and ``rolling`` call
``xp.pad``).

Modes ``constant`` (the default), ``edge``, ``reflect``, ``symmetric`` and ``wrap``, with
NumPy's meaning and result dtype (``x``'s). Communication:

- ``constant``: none on any axis. Along the split axis the first rank prepends the ``before``
  values and the last rank appends the ``after`` values: the result keeps every other block
  as it is (its counts are the input's, with the first and last changed).
- ``edge``, ``reflect``, ``symmetric``, ``wrap``: along an axis that is not split, none (each
  rank pads its block). Along the split axis the edge pieces are basic slices of ``x``
  (``flip`` for the mirrored modes: one ``sendrecv``), joined to ``x`` by ``concat`` (one
  ``alltoallv``); the pieces have the pad widths' length, never the whole array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._layout import Layout
from ._manipulation_functions import concat, flip
from ._ops.reduction import filled_block
from ._validation import check_array

__all__ = ["pad"]

_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


def _pairs(value: Any, ndim: int, func: str, name: str, cast: type) -> list[tuple[Any, Any]]:
    """NumPy's per-axis ``(before, after)`` pairs from a scalar, a pair or one pair per axis."""
    a = np.asarray(value, dtype=object)
    try:
        pairs = np.broadcast_to(a, (ndim, 2)) if a.ndim <= 2 else None
    except ValueError:
        pairs = None
    if pairs is None:
        raise ValueError(
            f"{func}: {name} must be a scalar, a (before, after) pair or one pair per axis of "
            f"the {ndim}-d array, got {value!r}"
        )
    out = []
    for before, after in pairs.tolist():
        if cast is int:
            for v in (before, after):
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                    raise ValueError(
                        f"{func}: {name} must hold non-negative integers, got {value!r}"
                    )
            before, after = int(before), int(after)
        out.append((before, after))
    return out


def pad(x: Array, pad_width: Any, mode: str = "constant", *, constant_values: Any = 0) -> Array:
    """NumPy's ``pad`` (xdist's extension): ``x`` widened by ``pad_width`` (an int, a
    ``(before, after)`` pair, or one pair per axis) with ``mode``'s values.

    ``constant`` pads with ``constant_values`` (a scalar, a pair or one pair per axis) and
    sends nothing. The other modes send nothing along axes that are not split; along the
    split axis they join slices of ``x`` as long as the pad widths (a ``sendrecv`` for each
    mirrored piece and one ``alltoallv``); pads wider than the axis repeat it (a step per
    period for ``reflect``/``symmetric``).
    """
    check_array(x, "pad")
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {_MODES}, got {mode!r}")
    if x.ndim == 0:
        raise ValueError("pad: x must have at least one dimension")
    widths = _pairs(pad_width, x.ndim, "pad", "pad_width", int)
    if mode == "constant":
        values = _pairs(constant_values, x.ndim, "pad", "constant_values", object)
        for axis, ((b, a), (vb, va)) in enumerate(zip(widths, values)):
            x = _constant(x, axis, b, a, vb, va)
        return x
    for axis, (b, a) in enumerate(widths):
        if (b or a) and x.shape[axis] == 0:
            raise ValueError(
                f"pad: mode {mode!r} cannot extend the empty axis {axis}; use mode='constant'"
            )
    for axis, (b, a) in enumerate(widths):
        n = x.shape[axis]
        # Mirrored modes wider than the axis reflect again, as NumPy's: in steps of at most
        # the period (each step mirrors the array padded so far).
        step = n - 1 if mode == "reflect" else n
        if mode == "reflect" and n == 1:
            mode_here, step = "edge", max(b, a, 1)
        else:
            mode_here = mode
        while b or a:
            sb, sa = (b, a) if mode_here in ("edge", "wrap") else (min(b, step), min(a, step))
            pieces = _pieces(x, axis, sb, sa, mode_here)
            x = concat([p for p in pieces if p.shape[axis]], axis=axis)
            b, a = b - sb, a - sa
    return x


def _take(x: Array, axis: int, start: int, stop: int) -> Array:
    key = [slice(None)] * x.ndim
    key[axis] = slice(start, stop)
    return x[tuple(key)]


def _pieces(x: Array, axis: int, b: int, a: int, mode: str) -> list[Array]:
    """``[before, x, after]`` along ``axis`` for the non-constant modes."""
    n = x.shape[axis]
    if mode == "edge":
        first, last = _take(x, axis, 0, 1), _take(x, axis, n - 1, n)
        return [*[first] * b, x, *[last] * a]
    if mode == "wrap":  # the periodic extension: whole copies of x and a part of one
        return [
            _take(x, axis, n - b % n, n),
            *[x] * (b // n + a // n + 1),
            _take(x, axis, 0, a % n),
        ]
    if mode == "reflect":  # the edge element is not repeated
        before = flip(_take(x, axis, 1, b + 1), axis=axis)
        after = flip(_take(x, axis, n - a - 1, n - 1), axis=axis)
    else:  # symmetric: the edge element is repeated
        before = flip(_take(x, axis, 0, b), axis=axis)
        after = flip(_take(x, axis, n - a, n), axis=axis)
    return [before, x, after]


def _constant(x: Array, axis: int, b: int, a: int, vb: Any, va: Any) -> Array:
    """``x`` with ``b`` values ``vb`` before and ``a`` values ``va`` after along ``axis``:
    on the first and last rank only along the split axis; no message."""
    if not (b or a):
        return x
    layout, comm, xp = x._layout, x._comm, x._backend.xp
    shape = tuple(n + b + a if i == axis else n for i, n in enumerate(x.shape))
    split, me = layout.split, comm.rank
    if split == axis:
        counts = list(layout.counts)
        counts[0] += b
        counts[-1] += a
        out = Layout(shape, split, tuple(counts))
        here_b, here_a = (b if me == 0 else 0), (a if me == comm.size - 1 else 0)
    else:
        counts = layout.counts if split is not None else None
        out = Layout(shape, split, counts) if split is not None else Layout.replicated(shape)
        here_b, here_a = b, a
    parts = []
    for count, value in ((here_b, vb), (None, None), (here_a, va)):
        if count is None:
            parts.append(x._local)
        elif count:
            lshape = tuple(count if i == axis else n for i, n in enumerate(x.lshape))
            parts.append(filled_block(x, lshape, _fill(value, x.dtype), x.dtype))
    local = xp.concat(parts, axis=axis) if len(parts) > 1 else parts[0]
    return Array._new(local, out, comm, x._backend)


def _fill(value: Any, dtype: np.dtype) -> Any:
    """``value`` as NumPy casts it into ``dtype`` (a NaN into floating dtypes only)."""
    if isinstance(value, Array):
        raise TypeError("pad: constant_values must be Python or NumPy scalars, not xdist arrays")
    cast = np.asarray(value).astype(dtype, casting="unsafe")
    return cast.item()
