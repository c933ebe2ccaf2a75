"""``histogram``, ``histogram2d``, ``histogramdd`` and ``digitize``: NumPy's, beyond the standard.

The bins are few and replicated; the data never moves. Each rank finds the bin of each of its
values against the edges (``searchsorted``, side ``right``: bin ``i`` holds
``edges[i] <= v < edges[i + 1]``, the last bin also its right edge, as NumPy's uniform and
non-uniform paths both count), counts its block (``bincount``, one extra bin collecting the
values outside the edges and NaN), and one ``allreduce`` (sum) adds the per-rank counts. When
a number of bins is given without a range, the edges come from the data's minimum and maximum,
both in one ``allreduce`` (``extremes``: 2 values per dimension); they are then NumPy's
``linspace`` of the same scalars, so the edges are NumPy's bit for bit. A replicated input (or
one rank) sends nothing. ``digitize`` is elementwise against replicated bins: no message.

Dtypes are NumPy's on every backend: ``histogram``'s counts int64 (the weights' dtype when
weighted, counted in float64 and cast once), ``histogramdd``'s float64, densities float64,
edges in the data's floating dtype (float64 for integer data), ``digitize`` int64.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._bincount import _local_bincount
from ._dtypes import check_category
from ._layout import Layout
from ._movement.broadcast import output_layout
from ._movement.collectives import allreduce_block
from ._movement.redistribute import redistribute_block
from ._numpy_statistics import extremes
from ._ops.reduction import plan_reduction
from ._validation import check_array, check_same_context

__all__ = ["digitize", "histogram", "histogram2d", "histogramdd"]

_float64 = np.dtype("float64")
_int64 = np.dtype("int64")


def _host_vector(v: Any) -> np.ndarray:
    """A small replicated argument (bin edges) as NumPy: an xdist array is brought whole (no
    message when replicated; a split one is gathered)."""
    return np.asarray(v.to_numpy() if isinstance(v, Array) else v)


def _check_edges(edges: np.ndarray, func: str, name: str) -> np.ndarray:
    if edges.ndim != 1:
        raise ValueError(f"{func}: {name} must be a 1-D array of edges, got shape {edges.shape}")
    if edges.dtype.kind not in "biuf":
        raise TypeError(f"{func}: {name} must be real numbers, got dtype {edges.dtype}")
    if np.any(edges[:-1] > edges[1:]):
        raise ValueError(f"{func}: {name} must increase monotonically, when an array")
    return edges


def _check_range(rng: Any, func: str) -> tuple[Any, Any] | None:
    if rng is None:
        return None
    try:
        first, last = rng
    except (TypeError, ValueError):
        raise TypeError(f"{func}: range must be a (min, max) pair, got {rng!r}") from None
    if first > last:
        raise ValueError(f"{func}: max must be larger than min in range, got {rng!r}")
    if not (np.isfinite(first) and np.isfinite(last)):
        raise ValueError(f"{func}: range [{first}, {last}] is not finite")
    return first, last


def _outer_edges(rng: Any, low: Any, high: Any, func: str) -> tuple[Any, Any]:
    """NumPy's ``_get_outer_edges``: the range, else the data's extremes (NumPy scalars of the
    data's dtype; ``None`` when there is no data: ``(0, 1)``), widened by 0.5 when equal."""
    if rng is not None:
        first, last = rng
    elif low is None:
        first, last = 0, 1
    else:
        first, last = low, high
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"{func}: autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _bin_count(bins: Any, func: str, name: str) -> int:
    try:
        n = operator.index(bins)
    except TypeError:
        raise TypeError(f"{func}: {name} must be an integer, when a scalar") from None
    if n < 1:
        raise ValueError(f"{func}: {name} must be positive, when an integer, got {n}")
    return n


def _sample_extremes(block: Any, layout: Layout, like: Array) -> tuple[np.ndarray, np.ndarray]:
    """The columns' minima and maxima of a ``(rows, dims)`` block laid out along the rows (one
    ``allreduce`` when split), as NumPy arrays of the data's dtype."""
    rows = Array._new(block, layout, like._comm, like._backend)
    high, low = extremes(rows, plan_reduction(rows, 0, False, "histogram"))
    low, high = (np.asarray(like._backend.to_host(v)).reshape(-1) for v in (low, high))
    return low, high


def _bin_indices(cols: list[Any], edges: list[np.ndarray], like: Array) -> Any:
    """Each row's flat bin (row-major over the dimensions' bins), or the number of bins for a
    row outside the edges in some dimension (NaN included): the trash bin."""
    xp, backend, device = like._backend.xp, like._backend, like.device
    sizes = [len(e) - 1 for e in edges]
    flat, outside = None, None
    for col, e, n in zip(cols, edges, sizes, strict=True):
        dtype = backend.native_dtype(np.result_type(backend.dtype_of(col), e.dtype))
        col = xp.astype(col, dtype)
        ends = xp.astype(backend.from_host(e, device), dtype)
        i = xp.searchsorted(ends, col, side="right") - 1
        i = xp.where(col == ends[-1], xp.asarray(n - 1, dtype=i.dtype, device=i.device), i)
        bad = (i < 0) | (i >= n)
        flat = i if flat is None else flat * n + i
        outside = bad if outside is None else outside | bad
    total = int(np.prod(sizes))
    trash = xp.asarray(total, dtype=flat.dtype, device=flat.device)
    return xp.astype(xp.where(outside, trash, flat), xp.int64), total


def _counts(cols: list[Any], w: Any, edges: list[np.ndarray], layout: Layout, like: Array) -> Any:
    """The counts in the bins, summed over the ranks (one ``allreduce`` when split): int64, or
    float64 when weighted."""
    backend = like._backend
    index, total = _bin_indices(cols, edges, like)
    counts = _local_bincount(index, w, total + 1, backend)[:total]
    if layout.split is not None and like._comm.size > 1:
        counts = allreduce_block(counts, "sum", like._comm, backend)
    return counts


def _replicated(block: Any, like: Array) -> Array:
    shape = tuple(block.shape)
    return Array._new(block, Layout.replicated(shape), like._comm, like._backend)


def _weights(weights: Any, like: Array, shape: tuple[int, ...], func: str) -> Array | None:
    if weights is None:
        return None
    w = weights if isinstance(weights, Array) else replicated_operand(like, weights, func)
    check_same_context([(like, "the sample"), (w, "weights")], func)
    if w.shape != shape:
        raise ValueError(f"{func}: weights have shape {w.shape}, the sample {shape}")
    if w.dtype.kind not in "biuf":
        raise NotImplementedError(f"{func}: weights of dtype {w.dtype} are not supported")
    return w


def _check_density(density: Any, func: str) -> bool:
    if density is not None and not isinstance(density, (bool, np.bool_)):
        raise TypeError(f"{func}: density must be a bool or None, got {density!r}")
    return bool(density)


def histogram(
    a: Array, /, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
) -> tuple[Array, Array]:
    """NumPy's ``histogram`` (xdist's extension) of all the values of ``a``: ``bins`` a number
    of equal bins (over ``range``, else the data's minimum to maximum) or the edges; weights
    shaped as ``a``. Returns ``(hist, bin_edges)``, both replicated.

    Communication: none for a replicated ``a``. A split ``a``: one ``allreduce`` (max) of 2
    values for the data's range when ``bins`` is a number and ``range`` is None, and one
    ``allreduce`` (sum) of the ``bins`` counts (8 bytes each). Weights laid out unlike ``a``
    move to the split one's layout (one ``alltoallv``; a replicated one is sliced)."""
    check_array(a, "histogram", "a")
    check_category(a.dtype, "real numeric", "histogram", "a")
    if isinstance(bins, str):
        raise NotImplementedError(
            f"histogram: bins={bins!r} (an estimator) is not supported; give a number of bins "
            "or the edges"
        )
    rng = _check_range(range, "histogram")
    dense = _check_density(density, "histogram")
    w = _weights(weights, a, a.shape, "histogram")
    number = np.ndim(bins) == 0 and not isinstance(bins, Array)
    if number:
        n = _bin_count(bins, "histogram", "bins")
    else:
        given = _check_edges(_host_vector(bins), "histogram", "bins")
    comm, backend, xp = a._comm, a._backend, a._backend.xp
    arrays = [a] if w is None else [a, w]
    layout = output_layout([v._layout for v in arrays], a.shape)
    flat = (-1,)
    col = xp.reshape(redistribute_block(a._local, a._layout, layout, comm, backend), flat)
    wb = None
    if w is not None:
        wb = redistribute_block(w._local, w._layout, layout, comm, backend)
        wb = xp.astype(xp.reshape(wb, flat), backend.native_dtype(_float64))
    if number:
        low = high = None
        if rng is None and a.size:
            rows = (
                Layout((a.size, 1), 0, _flat_counts(layout, comm.size))
                if layout.split is not None
                else Layout.replicated((a.size, 1))
            )
            lows, highs = _sample_extremes(xp.reshape(col, (-1, 1)), rows, a)
            low, high = lows[0], highs[0]
        first, last = _outer_edges(rng, low, high, "histogram")
        kind = np.result_type(first, last, a.dtype)
        kind = np.result_type(kind, float) if kind.kind in "biu" else kind
        edges = np.linspace(first, last, n + 1, endpoint=True, dtype=kind)
        if np.any(edges[:-1] >= edges[1:]):
            raise ValueError(
                f"histogram: too many bins for the data range: cannot make {n} finite-sized bins"
            )
    else:
        edges = given
    counts = _counts([col], wb, [edges], layout, a)
    if w is not None:
        counts = xp.astype(counts, backend.native_dtype(w.dtype))
    if dense:
        widths = backend.from_host(np.diff(edges).astype(_float64), a.device)
        counts = xp.astype(counts, backend.native_dtype(_float64))
        counts = counts / widths / xp.sum(counts)
    return _replicated(counts, a), _replicated(backend.from_host(edges, a.device), a)


def _flat_counts(layout: Layout, nranks: int) -> tuple[int, ...]:
    """How many elements of the flattened array each rank holds (its block, flattened)."""
    return tuple(int(np.prod(layout.local_shape(r))) for r in builtins.range(nranks))


def _sample_columns(sample: Any, func: str) -> tuple[Array | None, list[Array] | None]:
    """``(the 2-D sample, None)`` or ``(None, its 1-D columns)``, checked."""
    if isinstance(sample, Array) and sample.ndim == 2:
        check_category(sample.dtype, "real numeric", func, "sample")
        return sample, None
    cols = [sample] if isinstance(sample, Array) else sample
    try:
        cols = list(cols)
    except TypeError:
        raise TypeError(f"{func}: sample must be an xdist array or a sequence of them") from None
    if not cols:
        raise ValueError(f"{func}: sample has no dimensions")
    for i, c in enumerate(cols):
        check_array(c, func, f"sample[{i}]")
        check_category(c.dtype, "real numeric", func, f"sample[{i}]")
    check_same_context([(c, f"sample[{i}]") for i, c in enumerate(cols)], func)
    if builtins.any(c.ndim != 1 or c.shape != cols[0].shape for c in cols):
        raise ValueError(
            f"{func}: sample must be (N, D), or 1-D arrays of one length, got shapes "
            f"{[c.shape for c in cols]}"
        )
    return None, cols


def _sample_block(
    table: Array | None, cols: list[Array] | None, w: Array | None
) -> tuple[Any, Layout, Any]:
    """The sample as one ``(rows, dims)`` block per rank laid out along the rows (split, or
    replicated when nothing is split), that rows layout, and the weights' block (float64) in
    it. A 2-D sample split along its dimensions moves to its rows (one ``alltoallv``); 1-D
    arrays or weights laid out unlike the split one move to it (a replicated one is sliced)."""
    like = table if table is not None else cols[0]
    comm, backend, xp = like._comm, like._backend, like._backend.xp
    n = like.shape[0]
    others = [] if w is None else [w._layout]
    if table is not None:
        own = [Layout((n,), 0, table.counts)] if table.split == 0 else []
        line = output_layout(own + others, (n,))
        if line.split is None and table.split == 1:
            line = Layout.balanced((n,), 0, comm.size)
        rows = table._layout
        rows = (
            Layout.replicated(rows.shape)
            if line.split is None
            else Layout(rows.shape, 0, line.counts)
        )
        block = redistribute_block(table._local, table._layout, rows, comm, backend)
    else:
        line = output_layout([c._layout for c in cols] + others, (n,))
        dtype = backend.native_dtype(np.result_type(*[c.dtype for c in cols]))
        moved = [redistribute_block(c._local, c._layout, line, comm, backend) for c in cols]
        block = xp.stack([xp.astype(c, dtype) for c in moved], axis=1)
    wb = None
    if w is not None:
        wb = redistribute_block(w._local, w._layout, line, comm, backend)
        wb = xp.astype(wb, backend.native_dtype(_float64))
    return block, line, wb


def _dd_edges(bins: Any, rng: Any, block: Any, line: Layout, like: Array, func: str) -> list:
    """NumPy's edges of each dimension: ``linspace`` of the outer edges (one ``allreduce`` of
    the columns' extremes when some dimension needs them) or the given edges."""
    d = int(block.shape[1])
    try:
        if len(bins) != d:
            raise ValueError(f"{func}: bins must have one entry per dimension ({d})")
    except TypeError:
        bins = d * [bins]
    if rng is None:
        rng = (None,) * d
    elif len(rng) != d:
        raise ValueError(f"{func}: range must have one entry per dimension ({d})")
    rng = [_check_range(r, func) for r in rng]
    plans: list[Any] = []
    for i in builtins.range(d):
        if isinstance(bins[i], Array) or np.ndim(bins[i]) == 1:
            plans.append(_check_edges(_host_vector(bins[i]), func, f"bins[{i}]"))
        elif np.ndim(bins[i]) == 0:
            plans.append(_bin_count(bins[i], func, f"bins[{i}]"))
        else:
            raise ValueError(f"{func}: bins[{i}] must be a scalar or 1-D array")
    lows = highs = [None] * d
    if line.shape[0] and builtins.any(
        isinstance(p, int) and r is None for p, r in zip(plans, rng, strict=True)
    ):
        rows = (
            Layout((line.shape[0], d), line.split, line.counts)
            if line.split is not None
            else Layout.replicated((line.shape[0], d))
        )
        lows, highs = _sample_extremes(block, rows, like)
    edges = []
    for i, p in enumerate(plans):
        if isinstance(p, int):
            first, last = _outer_edges(rng[i], lows[i], highs[i], func)
            p = np.linspace(first, last, p + 1)
        edges.append(p)
    return edges


def histogramdd(
    sample: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None
) -> tuple[Array, list[Array]]:
    """NumPy's ``histogramdd`` (xdist's extension) of ``N`` points in ``D`` dimensions: an
    ``(N, D)`` array or ``D`` 1-D arrays; ``bins`` a number, the edges, or one of these per
    dimension. Returns ``(hist, edges)``: float64 counts (or densities) and the list of each
    dimension's edges, all replicated.

    Communication: none for a replicated sample. Rows split over the ranks: one ``allreduce``
    (max) of ``2 D`` values for the dimensions' ranges when a number of bins has no range,
    and one ``allreduce`` (sum) of the counts (8 bytes per bin). A 2-D sample split along its
    dimensions moves to its rows first (one ``alltoallv``), as do weights or 1-D arrays laid
    out unlike the split one."""
    table, cols = _sample_columns(sample, "histogramdd")
    like = table if table is not None else cols[0]
    dense = _check_density(density, "histogramdd")
    w = _weights(weights, like, (like.shape[0],), "histogramdd")
    block, line, wb = _sample_block(table, cols, w)
    edges = _dd_edges(bins, range, block, line, like, "histogramdd")
    xp, backend = like._backend.xp, like._backend
    columns = [block[:, i] for i in builtins.range(len(edges))]
    counts = xp.astype(_counts(columns, wb, edges, line, like), xp.float64)
    sizes = tuple(len(e) - 1 for e in edges)
    hist = xp.reshape(counts, sizes)
    if dense:
        total = xp.sum(hist)
        for i, e in enumerate(edges):
            widths = backend.from_host(np.diff(e), like.device)
            shape = tuple(s if j == i else 1 for j, s in enumerate(sizes))
            hist = hist / xp.reshape(widths, shape)
        hist = hist / total
    out = [_replicated(backend.from_host(e, like.device), like) for e in edges]
    return _replicated(hist, like), out


def histogram2d(
    x: Array,
    y: Array,
    /,
    bins: Any = 10,
    range: Any = None,
    density: Any = None,
    weights: Any = None,
) -> tuple[Array, Array, Array]:
    """NumPy's ``histogram2d`` (xdist's extension): ``histogramdd`` of the points ``(x, y)``;
    returns ``(hist, xedges, yedges)``, replicated. Communication of ``histogramdd``."""
    try:
        k = len(bins)
    except TypeError:
        k = 1
    if k not in (1, 2):
        bins = [bins, bins]
    hist, (xedges, yedges) = histogramdd([x, y], bins, range, density, weights)
    return hist, xedges, yedges


def digitize(x: Array, /, bins: Any, right: bool = False) -> Array:
    """NumPy's ``digitize`` (xdist's extension): the index of the bin of each element of ``x``
    against monotonic (increasing or decreasing) 1-D ``bins``, int64, laid out as ``x``.
    Communication: none (each rank searches its block in the replicated bins)."""
    check_array(x, "digitize")
    check_category(x.dtype, "real numeric", "digitize")
    if not isinstance(right, (bool, np.bool_)):
        raise TypeError(f"digitize: right must be a bool, got {right!r}")
    edges = _host_vector(bins)
    if edges.ndim != 1:
        raise ValueError(f"digitize: bins must be 1-D, got shape {edges.shape}")
    if edges.dtype.kind not in "biuf":
        raise TypeError(f"digitize: bins must be real numbers, got dtype {edges.dtype}")
    rising = bool(np.all(edges[:-1] <= edges[1:]))
    if not rising and not np.all(edges[:-1] >= edges[1:]):
        raise ValueError("digitize: bins must be monotonically increasing or decreasing")
    xp, backend = x._backend.xp, x._backend
    dtype = backend.native_dtype(np.result_type(x.dtype, edges.dtype))
    side = "left" if right else "right"
    values = xp.astype(xp.reshape(x._local, (-1,)), dtype)
    ends = xp.astype(backend.from_host(edges if rising else edges[::-1].copy(), x.device), dtype)
    found = xp.astype(xp.searchsorted(ends, values, side=side), xp.int64)
    if not rising:
        found = edges.shape[0] - found
    block = xp.reshape(found, tuple(x._local.shape))
    return Array._new(block, x._layout, x._comm, backend)
