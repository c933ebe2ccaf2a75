"""xdist's own distribution functions: building arrays from blocks, moving them between
layouts, and a whole NumPy copy."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _array
from ._layout import Layout
from ._movement.collectives import allgather_ints
from ._movement.redistribute import gather_block, redistribute_block
from ._runtime import default_backend, default_comm
from ._transport.comm import Communicator
from ._validation import check_array, normalize_axis

__all__ = ["from_local", "resplit", "balance", "to_numpy"]


def from_local(
    block: Any, split: int | None = 0, *, comm: Communicator | None = None
) -> _array.Array:
    """An array made of each rank's ``block``, stacked along ``split`` in rank order.

    Blocks may have any length along ``split`` (zero included) but must agree on every other
    dimension; the counts are found with one allgather. With ``split=None`` every rank passes
    the same whole array (not checked: no message is sent).
    """
    comm = default_comm() if comm is None else comm
    backend = default_backend()
    if not backend.is_block(block):
        block = backend.asarray(block)
    if split is None:
        return _array.Array._new(block, Layout.replicated(tuple(block.shape)), comm, backend)
    ndim = block.ndim
    if ndim == 0:
        raise ValueError("from_local: a 0-d block cannot be split")
    axis = normalize_axis(split, ndim, "from_local", "split")
    info = allgather_ints([ndim, *block.shape, *([0] * (32 - ndim))], comm)
    if np.any(info[:, 0] != ndim):
        raise ValueError(
            f"from_local: blocks differ in number of dimensions: {info[:, 0].tolist()}"
        )
    shapes = info[:, 1 : ndim + 1]
    other = np.delete(shapes, axis, axis=1)
    if np.any(other != other[0]):
        raise ValueError(
            f"from_local: blocks must agree on every dimension but split={axis}; got shapes "
            f"{[tuple(s) for s in shapes.tolist()]}"
        )
    counts = tuple(int(c) for c in shapes[:, axis])
    shape = list(block.shape)
    shape[axis] = sum(counts)
    return _array.Array._new(block, Layout(tuple(shape), axis, counts), comm, backend)


def resplit(x: _array.Array, axis: int | None, /) -> _array.Array:
    """``x`` split along ``axis`` in balanced blocks (``None``: a full copy on every rank).

    Split to split moves only what changes owner, in one all-to-all; to ``None`` is one
    allgather (every rank then holds the global array); from ``None`` no message is sent.
    """
    check_array(x, "resplit")
    if axis is not None:
        if x.ndim == 0:
            raise ValueError("resplit: a 0-d array cannot be split")
        axis = normalize_axis(axis, x.ndim, "resplit")
    target = Layout.balanced(x.shape, axis, x._comm.size)
    return _relayout(x, target)


def balance(x: _array.Array, /) -> _array.Array:
    """``x`` with balanced counts on the same split axis (one all-to-all if unbalanced)."""
    check_array(x, "balance")
    return _relayout(x, Layout.balanced(x.shape, x.split, x._comm.size))


def _relayout(x: _array.Array, target: Layout) -> _array.Array:
    if target == x._layout:
        return x
    block = redistribute_block(x._local, x._layout, target, x._comm, x._backend)
    return _array.Array._new(block, target, x._comm, x._backend)


def to_numpy(x: _array.Array) -> np.ndarray:
    """The whole array as a new NumPy array on every rank: one allgather; memory of the
    global array. Always a copy (a replicated array, or one rank, copies its block)."""
    check_array(x, "to_numpy")
    host = x._backend.to_host(gather_block(x._local, x._layout, x._comm, x._backend))
    if x._layout.split is None or x._comm.size == 1:  # the host array may be the block itself
        host = np.array(host, copy=True)
    return host
