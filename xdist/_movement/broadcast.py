"""Broadcasting between distributed operands: the output layout and each operand's block.

Shared by every op that combines arrays elementwise (the elementwise functions, ``where``,
``clip``...). The output takes the layout of the largest operand split along an axis it does
not broadcast; a replicated operand is then sliced locally (free), an operand with the same
layout is used as it is (free), and only an operand split differently moves (all-to-all), or is
gathered when it is broadcast along the output's split axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._layout import Layout
from ..backends import Backend
from .gathers import implicit_gather
from .redistribute import redistribute_block

__all__ = ["broadcast_shapes", "output_layout", "align_block", "as_is"]


def broadcast_shapes(shapes: Sequence[tuple[int, ...]], func: str) -> tuple[int, ...]:
    """The standard's broadcasting of global shapes, or a ``ValueError`` naming ``func``."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        for i, n in enumerate(shape, start=ndim - len(shape)):
            if n == out[i] or n == 1:
                continue
            if out[i] == 1:
                out[i] = n
            else:
                raise ValueError(
                    f"{func}: shapes {' and '.join(str(tuple(s)) for s in shapes)} "
                    "cannot be broadcast together"
                )
    return tuple(out)


def _axis_in(x_layout: Layout, out_ndim: int, out_axis: int) -> int:
    """The axis of an operand that lines up with ``out_axis`` of the output (may be < 0)."""
    return out_axis - (out_ndim - x_layout.ndim)


def output_layout(layouts: Sequence[Layout], out_shape: tuple[int, ...]) -> Layout:
    """The layout of the result: that of the largest operand split along a full-size axis."""
    best: Layout | None = None
    best_size = -1
    for layout in layouts:
        if layout.split is None:
            continue
        out_axis = layout.split + (len(out_shape) - layout.ndim)
        if layout.shape[layout.split] != out_shape[out_axis]:
            continue  # split along a broadcast axis: this operand will be gathered
        size = 1
        for n in layout.shape:
            size *= n
        if size > best_size:
            best, best_size = layout, size
    if best is None:
        return Layout.replicated(out_shape)
    out_axis = best.split + (len(out_shape) - best.ndim)  # type: ignore[operator]
    return Layout(out_shape, out_axis, best.counts)


def as_is(layout: Layout, out: Layout) -> bool:
    """Whether an operand of ``layout`` broadcasts against the output's local block as it is,
    the case where ``align_block`` leaves it untouched: split like the output along the
    same axis, or replicated with no axis, or length 1, along the output's split axis."""
    if out.split is None:
        return layout.split is None
    axis = _axis_in(layout, out.ndim, out.split)
    if layout.split is None:
        return axis < 0 or layout.shape[axis] == 1
    return (
        layout.split == axis
        and layout.counts == out.counts
        and layout.shape[axis] == out.shape[out.split]
    )


def align_block(
    block: Any, layout: Layout, out: Layout, comm: Any, backend: Backend, func: str
) -> Any:
    """This rank's part of an operand, ready to broadcast against the output's local block."""
    if out.split is None or comm.size == 1:
        return implicit_gather(block, layout, comm, backend, func)
    axis = _axis_in(layout, out.ndim, out.split)
    if axis < 0 or layout.shape[axis] != out.shape[out.split]:
        # The operand has no such axis or broadcasts along it: every rank needs all of it.
        return implicit_gather(block, layout, comm, backend, func)
    target = Layout(layout.shape, axis, out.counts)
    return redistribute_block(block, layout, target, comm, backend)
