"""Reordering along axes: ``flip`` and ``roll``.

Along axes other than the split one each rank reorders its own block (no message). Along the
split axis:

- ``flip``: each rank reverses its block and swaps it with its mirror rank
  ``size - 1 - rank`` (one ``sendrecv``, no all-to-all); the result's counts are the input's
  reversed, which is the same layout when the counts are symmetric (balanced ones are not, in
  general: ``(3, 2, 2)`` becomes ``(2, 2, 3)``).
- ``roll``: every element moves by the global shift; the pieces travel in one ``alltoallv``
  (``shift_exchange``) and the layout is kept. ``fft.fftshift`` rolls through ``roll_axes``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._array import Array, wrap_block
from .._layout import Layout
from .._movement.collectives import block_ranges, sendrecv_block, shift_exchange
from .._validation import check_array, normalize_axes, normalize_axis
from .shapes import reshape

__all__ = ["flip", "roll", "roll_axes"]


# -- flip ---------------------------------------------------------------------------------------
def flip(x: Array, /, *, axis: int | tuple[int, ...] | None = None) -> Array:
    """The standard's ``flip``. Local, except along the split axis: each rank reverses its
    block and swaps it with rank ``size - 1 - rank`` (one ``sendrecv``); the result's counts
    are the input's reversed (no all-to-all to rebalance them)."""
    check_array(x, "flip")
    axes = normalize_axes(axis, x.ndim, "flip")
    layout, comm, backend = x._layout, x._comm, x._backend
    block = backend.xp.flip(x._local, axis=axes)
    if layout.split not in axes or comm.size == 1:
        return wrap_block(block, layout, x)
    out = Layout(x.shape, layout.split, layout.counts[::-1])  # type: ignore[index]
    mirror = comm.size - 1 - comm.rank
    shape = out.local_shape(comm.rank)
    swapped = sendrecv_block(block, mirror, shape, mirror, comm, backend, x.device)
    return wrap_block(swapped, out, x)


# -- roll ---------------------------------------------------------------------------------------
def _int_tuple(value: Any, func: str, name: str) -> tuple[int, ...]:
    """An int or a tuple of ints as a tuple, or a TypeError naming ``func`` and ``name``."""
    items = value if isinstance(value, tuple) else (value,)
    for v in items:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{func}: {name} must be an int or a tuple of ints, got {value!r}")
    return tuple(int(v) for v in items)


def roll_axes(x: Array, shifts: dict[int, int]) -> Array:
    """``x`` rolled by ``shifts[axis]`` along each (normalized) axis. Local along every axis
    but the split one; along it, one ``alltoallv`` moves each piece to its new owner and the
    layout is kept."""
    layout, comm, xp = x._layout, x._comm, x._backend.xp
    split = layout.split if comm.size > 1 else None
    local = {a: s % x.shape[a] for a, s in shifts.items() if a != split and x.shape[a]}
    local = {a: s for a, s in local.items() if s}
    if local:
        block = xp.roll(x._local, shift=tuple(local.values()), axis=tuple(local))
    else:
        block = xp.asarray(x._local, copy=True)
    n = x.shape[split] if split is not None else 0
    if split not in shifts or n == 0 or shifts[split] % n == 0 or x.size == 0:
        return wrap_block(block, layout, x)
    s = shifts[split] % n
    src = block_ranges(layout)
    # Element i goes to i + s, or to i + s - n once it passes the end.
    return wrap_block(
        shift_exchange(block, src, (s, s - n), layout, comm, x._backend, x.device), layout, x
    )


def roll(
    x: Array, /, shift: int | tuple[int, ...], *, axis: int | tuple[int, ...] | None = None
) -> Array:
    """The standard's ``roll``. Local along axes other than the split one; along the split
    axis one ``alltoallv`` moves each piece to its new owner and the layout is kept. As in
    NumPy, an int ``shift`` applies to every axis of a tuple ``axis`` and a repeated axis
    rolls by the sum of its shifts. ``axis=None`` rolls the flattened array: a reshape to 1-D
    and back (local for an array split along axis 0; otherwise reshape's all-to-alls, and
    the result has reshape's layout)."""
    check_array(x, "roll")
    shifts = _int_tuple(shift, "roll", "shift")
    if axis is None:
        if len(shifts) != 1 or isinstance(shift, tuple):
            raise TypeError(f"roll: shift must be an int when axis is None, got {shift!r}")
        flat = reshape(x, (-1,))
        return reshape(roll_axes(flat, {0: shifts[0]}), x.shape)
    axes = tuple(normalize_axis(a, x.ndim, "roll") for a in _int_tuple(axis, "roll", "axis"))
    if len(shifts) == 1:
        shifts *= len(axes)
    elif len(axes) == 1:
        axes *= len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: shift {shift} and axis {axis} differ in length")
    total: dict[int, int] = {}
    for a, s in zip(axes, shifts):
        total[a] = total.get(a, 0) + s
    return roll_axes(x, total)
