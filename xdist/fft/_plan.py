"""Running a list of 1-D steps on a distributed array: locally, by swapping the split, or
along the split axis in place.

- No step along the split axis (or a replicated array, or one rank): every step runs on the
  blocks as they are; no message, the layout is kept (with the new lengths).
- A step along the split axis ``a``: the steps that can run now run locally; then one
  all-to-all moves the split to another axis ``b``, the remaining steps (those along ``a``)
  run locally, and one all-to-all moves the split back to ``a``. Two all-to-alls in total
  (three only if a step along ``b`` had to wait, which the choice of ``b`` avoids whenever
  another axis can take the split).
- No other axis has at least one index per rank (a 1-D array, or thin other axes): the
  step along ``a`` runs with ``a`` kept split (``_split_axis``: the six-step FFT).

Order: a real-to-complex step comes first, a complex-to-real step last, the complex steps
in between commute; ``_phase`` runs as much as the current split allows in that order.
"""

from __future__ import annotations

from typing import Any

from .._array import Array
from .._layout import Layout
from .._movement.redistribute import redistribute_block
from ..backends import Backend
from ._split_axis import transform_split_axis
from ._steps import C2C, C2R, R2C, Step, run_local

__all__ = ["execute"]


def _shape_after(shape: tuple[int, ...], steps: list[Step]) -> tuple[int, ...]:
    for step in steps:
        shape = step.out_shape(shape)
    return shape


def _phase(steps: list[Step], split: int) -> tuple[list[Step], list[Step]]:
    """The steps that may run now with ``split`` split (in a valid order), and the rest."""
    rest = list(steps)
    now: list[Step] = []
    if rest and rest[0].kind in R2C:
        if rest[0].axis == split:
            return now, rest
        now.append(rest.pop(0))
    complex_steps = [s for s in rest if s.kind in C2C]
    last = [s for s in rest if s.kind in C2R]
    now += [s for s in complex_steps if s.axis != split]
    waiting = [s for s in complex_steps if s.axis == split]
    if last and not waiting and last[0].axis != split:
        now += last
        last = []
    return now, waiting + last


def _pick_axis(shape: tuple[int, ...], split: int, rest: list[Step], nranks: int) -> int | None:
    """The axis to move the split to: one with at least one index per rank, preferring one
    with no step left (so no third all-to-all), then the longest."""
    waiting = {s.axis for s in rest}
    candidates = [i for i in range(len(shape)) if i != split and shape[i] >= nranks]
    if not candidates:
        return None
    return min(candidates, key=lambda i: (i in waiting, -shape[i], i))


def _final(layout: Layout, shape: tuple[int, ...], nranks: int) -> Layout:
    """The result's layout: split like the input, its counts kept if the split axis kept
    its length (so the result lines up with the input), else balanced."""
    a = layout.split
    if a is None:
        return Layout.replicated(shape)
    if shape[a] == layout.shape[a]:
        return Layout(shape, a, layout.counts)
    return Layout.balanced(shape, a, nranks)


def execute(x: Array, steps: list[Step]) -> Array:
    """``steps`` applied to ``x`` (already of the first step's input dtype)."""
    comm, backend = x._comm, x._backend
    layout, a = x._layout, x._layout.split
    out_shape = _shape_after(x.shape, steps)
    if a is None or comm.size == 1 or all(s.axis != a for s in steps):
        block = run_local(x._local, steps, backend)
        return Array._new(block, _final(layout, out_shape, comm.size), comm, backend)
    now, rest = _phase(steps, a)
    shape1 = _shape_after(x.shape, now)
    b = _pick_axis(shape1, a, rest, comm.size)
    if b is None:
        block, out = _in_place(x._local, layout, steps, comm, backend)
    else:
        block, out = _swap(x._local, layout, now, rest, b, comm, backend)
    return Array._new(block, out, comm, backend)


def _swap(block, layout: Layout, now, rest, b: int, comm, backend: Backend) -> tuple[Any, Layout]:
    """Run ``now`` split along ``a``; move the split to ``b`` (one all-to-all), run what
    that allows; move it back to ``a`` (one all-to-all) and run what is left."""
    a = layout.split
    block = run_local(block, now, backend)
    shape = _shape_after(layout.shape, now)
    on_b = Layout.balanced(shape, b, comm.size)
    block = redistribute_block(block, Layout(shape, a, layout.counts), on_b, comm, backend)
    now, rest = _phase(rest, b)
    block = run_local(block, now, backend)
    shape = _shape_after(shape, now)
    back = _final(layout, shape, comm.size)
    block = redistribute_block(block, Layout(shape, b, on_b.counts), back, comm, backend)
    last, left = _phase(rest, a)
    assert not left, left  # every step along b can run once the split is back on a
    block = run_local(block, last, backend)
    return block, Layout(_shape_after(shape, last), a, back.counts)


def _in_place(block, layout: Layout, steps, comm, backend: Backend) -> tuple[Any, Layout]:
    """Run ``steps`` in order with the split kept on ``a``: the step along ``a`` with the
    six-step FFT (or the documented gather), the others locally."""
    a = layout.split
    for step in steps:
        shape = step.out_shape(layout.shape)
        if step.axis != a:
            block = run_local(block, [step], backend)
            layout = Layout(shape, a, layout.counts)
            continue
        out = _final(layout, shape, comm.size)
        block = transform_split_axis(block, layout, step, out, comm, backend)
        layout = out
    return block, layout
