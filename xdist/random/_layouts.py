"""Which global elements each rank draws, and how they reach the requested layout.

Element values depend on their global C-order flat index only, so a rank draws the flat
ranges its block covers:

- replicated: the whole range (every rank draws everything: a full copy costs O(N) anyway);
- split along axis 0, or whole along the split axis: one contiguous range;
- split along another axis ``a``: one run of ``count * inner`` elements for each of the
  ``prod(shape[:a])`` leading indices. Each run costs one repositioning of the bit generator
  (a few microseconds), so when the runs are short (``< RUN_MIN`` elements) the block is
  drawn split along the first axis that has at least one index per rank (a few long runs)
  and moved to the requested split by one all-to-all (``redistribute_block``): compute stays
  O(N/p) per rank and each element travels at most once.

The decision uses the global layout only, so every rank takes the same one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._layout import Layout
from .._movement.redistribute import redistribute_block
from ..backends import Backend, get_backend

__all__ = ["RUN_MIN", "draw_block", "draw_layout", "from_flat"]

# Below this many elements per run, drawing run by run costs more than one all-to-all:
# repositioning the bit generator costs a few microseconds, about what moving 100 to 200
# elements through the all-to-all costs (``python benchmarks/rng.py --runs`` under mpiexec:
# docs/random.md).
RUN_MIN = 128

Fill = Callable[[int, int], np.ndarray]


def draw_layout(layout: Layout, size: int) -> Layout:
    """The layout in which the ranks draw: ``layout`` itself unless its blocks are many short
    runs of the flat index, then a split along an earlier axis (see the module docstring)."""
    a, shape = layout.split, layout.shape
    if a is None or a == 0 or size == 1 or math.prod(shape[:a]) == 1:
        return layout
    if shape[a] // size * math.prod(shape[a + 1 :]) >= RUN_MIN:
        return layout
    for b in range(a):
        if shape[b] >= size:
            return Layout.balanced(shape, b, size)
    return layout


def _runs(layout: Layout, rank: int) -> list[tuple[int, int]]:
    """The flat ranges ``[lo, hi)`` of ``rank``'s block of ``layout``, in C order."""
    shape = layout.shape
    total = math.prod(shape)
    a = layout.split
    if a is None:
        return [(0, total)]
    lo, hi = layout.local_range(rank)
    if lo == hi:
        return []
    if hi - lo == shape[a]:
        return [(0, total)]
    inner = math.prod(shape[a + 1 :])
    row = shape[a] * inner
    return [(o * row + lo * inner, o * row + hi * inner) for o in range(math.prod(shape[:a]))]


def _draw(fill: Fill, layout: Layout, rank: int, dtype: np.dtype) -> np.ndarray:
    """This rank's block of ``layout`` on the host: ``fill(lo, hi)`` gives the elements of the
    flat range ``[lo, hi)``."""
    local = layout.local_shape(rank)
    runs = _runs(layout, rank) if math.prod(local) else []
    if len(runs) == 1:
        return np.asarray(fill(*runs[0]), dtype=dtype).reshape(local)
    out = np.empty(math.prod(local), dtype=dtype)
    at = 0
    for lo, hi in runs:
        out[at : at + hi - lo] = fill(lo, hi)
        at += hi - lo
    return out.reshape(local)


def draw_block(fill: Fill, layout: Layout, dtype: np.dtype, comm: Any) -> np.ndarray:
    """This rank's block of ``layout`` on the host, drawn in ``draw_layout``'s layout (no
    message, or one all-to-all of host arrays)."""
    plan = draw_layout(layout, comm.size)
    block = _draw(fill, plan, comm.rank, dtype)
    if plan != layout:
        block = redistribute_block(block, plan, layout, comm, get_backend("numpy"))
    return block


def from_flat(block: Any, counts: tuple[int, ...], layout: Layout, comm: Any, backend: Backend):
    """This rank's block of ``layout`` from a flat array of ``layout``'s size held in
    contiguous pieces (``counts[r]`` elements on rank r, in rank order): the C-order reshape
    of the flat array. At most two all-to-alls (one allgather for a replicated ``layout``)."""
    xp, total = backend.xp, math.prod(layout.shape)
    flat = Layout((total,), 0, tuple(counts))
    if layout.split is None:
        whole = redistribute_block(block, flat, Layout.replicated((total,)), comm, backend)
        return xp.reshape(whole, layout.shape)
    lead = layout if layout.split == 0 else Layout.balanced(layout.shape, 0, comm.size)
    inner = math.prod(layout.shape[1:])
    rows = Layout((total,), 0, tuple(c * inner for c in lead.counts))  # type: ignore[union-attr]
    mine = redistribute_block(block, flat, rows, comm, backend)
    mine = xp.reshape(mine, lead.local_shape(comm.rank))
    return redistribute_block(mine, lead, layout, comm, backend)
