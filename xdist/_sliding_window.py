"""``sliding_window_view``: NumPy's ``lib.stride_tricks.sliding_window_view``, beyond the
standard (xarray's ``rolling`` and ``rolling_exp`` call ``xp.lib.stride_tricks.
sliding_window_view``; ``xdist.lib.stride_tricks`` gives it that name).

The windows of each listed axis become a new last axis, in the order given, as in NumPy.
Unlike NumPy's read-only view, the result is a new array: a window of length ``w`` along an
axis holds ``w`` copies of the data (memory: ``w`` times the block's), which is what the
reductions over windows that follow read anyway.

Communication: along an axis that is not split, none. Along the split axis, rank r keeps the
windows that start in its block and needs the ``w - 1`` elements after it: one ``sendrecv``
from the next rank (the halo), or one ``alltoallv`` when blocks are empty or shorter than
the halo. The result's counts are exact: each rank keeps its block's count, except near the
end where the windows run out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._array import Array
from ._layout import Layout
from ._movement.collectives import halo
from ._validation import check_array, normalize_axis

__all__ = ["sliding_window_view"]


def _check(x: Array, window_shape: Any, axis: Any) -> list[tuple[int, int]]:
    """``(axis, window length)`` pairs, checked as NumPy checks them."""
    check_array(x, "sliding_window_view")
    shape = tuple(np.atleast_1d(window_shape).tolist()) if window_shape is not None else None
    if shape is None or not all(
        isinstance(w, int) and not isinstance(w, bool) and w >= 1 for w in shape
    ):
        raise ValueError(
            f"sliding_window_view: window_shape must be a positive int or a tuple of them, got "
            f"{window_shape!r}"
        )
    if axis is None:
        if len(shape) != x.ndim:
            raise ValueError(
                f"sliding_window_view: window_shape {window_shape!r} must have one length per "
                f"axis of the {x.ndim}-d array when axis is None"
            )
        axes = list(range(x.ndim))
    else:
        axes = [
            normalize_axis(a, x.ndim, "sliding_window_view") for a in np.atleast_1d(axis).tolist()
        ]
        if len(axes) != len(shape):
            raise ValueError(
                f"sliding_window_view: window_shape {window_shape!r} and axis {axis!r} differ "
                "in length"
            )
    if len(set(axes)) != len(axes):
        raise ValueError(f"sliding_window_view: axis {axis!r} repeats an axis")
    for a, w in zip(axes, shape):
        if w > x.shape[a]:
            raise ValueError(
                f"sliding_window_view: window length {w} is larger than axis {a} of the "
                f"array ({x.shape[a]})"
            )
    return list(zip(axes, shape))


def sliding_window_view(
    x: Array, window_shape: Any, axis: Any = None, *, subok: bool = False, writeable: bool = False
) -> Array:
    """NumPy's ``sliding_window_view`` (xdist's extension): the windows of length
    ``window_shape`` along ``axis`` (all axes when None), as new last axes.

    A new array, not a view (``subok`` and ``writeable`` are accepted for NumPy's signature
    and have no effect). Along the split axis: one halo ``sendrecv`` of ``w - 1`` elements
    (one ``alltoallv`` past empty or short blocks); elsewhere no message.
    """
    pairs = _check(x, window_shape, axis)
    for a, w in pairs:
        x = _windows(x, a, w)
    return x


def _local_windows(xp: Any, block: Any, axis: int, w: int, count: int) -> Any:
    """The ``count`` windows of length ``w`` along ``axis`` that start in ``block``, as a new
    last axis."""

    def part(k: int) -> Any:
        key = [slice(None)] * block.ndim
        key[axis] = slice(k, k + count)
        return block[tuple(key)]

    return xp.stack([part(k) for k in range(w)], axis=-1)


def _windows(x: Array, a: int, w: int) -> Array:
    layout, comm, xp = x._layout, x._comm, x._backend.xp
    length = x.shape[a] - w + 1
    shape = (*x.shape[:a], length, *x.shape[a + 1 :], w)
    if layout.split != a or comm.size == 1:
        if layout.split is None:
            out = Layout.replicated(shape)
        else:
            out = Layout(shape, layout.split, layout.counts if layout.split != a else (length,))
        local = _local_windows(xp, x._local, a, w, x.lshape[a] - w + 1)
        return Array._new(local, out, comm, x._backend)
    starts, ends = layout.bounds[:-1], layout.bounds[1:]  # NumPy over the ranks
    counts = np.maximum(0, np.minimum(ends, length) - starts)
    # Rank r's windows start at lo..lo+c-1 and reach lo+c+w-2: the rows after its block.
    reach = np.where(counts > 0, np.maximum(ends, starts + counts + w - 1), ends)
    halos = np.stack([ends, reach], 1)
    counts = tuple(counts.tolist())
    extended = xp.concat(
        [x._local, halo(x._local, layout, halos, comm, x._backend, x.device)], axis=a
    )
    local = _local_windows(xp, extended, a, w, counts[comm.rank])
    return Array._new(local, Layout(shape, a, counts), comm, x._backend)
