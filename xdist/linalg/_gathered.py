"""The one place where the linalg functions gather whole matrices.

A dense factorization (LU, Cholesky, eigen-decomposition) needs every entry of a matrix on the
process that factors it. xdist has no distributed dense factorization, so:

- a replicated stack is computed where it is (no message);
- a stack split along a batch axis is computed by each rank on its own matrices (no message;
  functions that can fail agree on failure with one ``allreduce`` of a flag);
- a stack split along one of its two matrix axes is GATHERED by ``whole`` (the one gather of
  the linalg functions; ``solve`` uses it too): one ``allgatherv``, after which every rank
  holds the whole stack. Memory bound: all of ``x`` (``prod(shape) * itemsize`` bytes) on
  every rank, plus the backend's workspace. Every rank then holds identical data and
  computes identical results, so a data-dependent failure (a singular matrix) raises the
  same error on every rank with no further message.

Results computed on gathered matrices are replicated; an output axis that has the meaning of
the axis ``x`` was split along takes ``x``'s split again by slicing the replicated result
locally (free), so that the result of e.g. ``inv`` is laid out like its input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._array import Array, wrap_block
from .._layout import Layout
from .._movement.gathers import implicit_gather
from .._movement.redistribute import redistribute_block, slice_replicated
from ._common import agreed_result, split_on_matrix

__all__ = ["whole", "gathered", "place", "batch_layout", "align_to"]


def whole(x: Array, func: str) -> Any:
    """All of ``x`` on every rank: THE gather of the linalg functions (one ``allgatherv``
    when ``x`` is split, with a ``GatherWarning``; memory: ``x.size * itemsize`` bytes on
    every rank)."""
    return implicit_gather(x._local, x._layout, x._comm, x._backend, func)


def gathered(x: Array, func: str, compute: Callable[[Any], Any], *, may_fail: bool = True):
    """``(compute(block), work)``: ``compute`` applied to whole matrices of ``x`` and the
    layout ``work`` of the stack it saw (replicated, or ``x``'s split along a batch axis).
    See the module's docstring for what moves and the memory bound."""
    if split_on_matrix(x):
        block, work = whole(x, func), Layout.replicated(x.shape)
    else:
        block, work = x._local, x._layout
    local = work.split is not None
    result = agreed_result(func, lambda: compute(block), x, local=local and may_fail)
    return result, work


def place(
    block: Any,
    work: Layout,
    x: Array,
    shape: tuple[int, ...],
    follow: Mapping[int, int] | None = None,
) -> Array:
    """The result array of shape ``shape`` from the block computed on ``work``.

    Split along a batch axis: the result keeps that split (batch axes lead every result).
    Computed on whole matrices: replicated, except that when ``x`` is split along matrix axis
    ``a`` (``-2`` or ``-1``) and ``follow`` maps ``a`` to an output axis, the result is split
    there with ``x``'s counts, each rank slicing its part locally (no message).
    """
    if work.split is not None:
        return wrap_block(block, Layout(shape, work.split, work.counts), x)
    layout = Layout.replicated(shape)
    if split_on_matrix(x) and follow:
        axis = follow.get(x.split - x.ndim)
        if axis is not None:
            layout = Layout(shape, axis % len(shape), x.counts)
            block = slice_replicated(block, layout, x._comm.rank)
    return wrap_block(block, layout, x)


def batch_layout(out_batch: tuple[int, ...], operands: list[tuple[Layout, int]]):
    """The layout of the batch axes ``out_batch`` of a result, split like the first operand
    split along a batch axis that it does not broadcast (``None`` if there is none).
    ``operands`` holds ``(layout, number of its core axes)``."""
    for layout, core in operands:
        split, nbatch = layout.split, layout.ndim - core
        if split is None or split >= nbatch:
            continue
        axis = split + len(out_batch) - nbatch
        if layout.shape[split] == out_batch[axis]:
            return Layout(out_batch, axis, layout.counts)
    return None


def align_to(x: Array, batch: Layout, core: int, func: str) -> Any:
    """This rank's block of ``x`` for the batch split ``batch``: split like it along the
    matching batch axis, or whole where ``x`` has no such axis or broadcasts along it."""
    nbatch = x.ndim - core
    axis = batch.split - (batch.ndim - nbatch)  # type: ignore[operator]
    if axis < 0 or x.shape[axis] != batch.shape[batch.split]:  # type: ignore[index]
        return whole(x, func)
    target = Layout(x.shape, axis, batch.counts)
    return redistribute_block(x._local, x._layout, target, x._comm, x._backend)
