"""``quantile``, ``nanquantile``, ``nanmedian``, ``percentile`` and ``nanpercentile``: NumPy's,
beyond the standard (xarray's ``quantile`` and its default ``skipna=True`` ``median`` call
them; a percentile is the quantile of ``q / 100``, divided in float64 as NumPy divides).

NumPy's ``linear`` method (its default, the only one offered): for a line of ``k`` values
sorted, the virtual index ``v = (k - 1)*q``, the two neighbours at ``floor(v)`` and
``floor(v) + 1`` (clamped to the line), and NumPy's ``_lerp`` between them. ``quantile``
gives NaN for a line holding a NaN; ``nanquantile`` and ``nanmedian`` use the ``k`` values of
each line that are not NaN (NaN where there are none, reduced axes of length 0 included);
``nanmedian`` is the mean of the two
middle values, as NumPy's. The result has the quantiles' axes first, then the kept axes.

Communication: the reduced axes of each block become one line per result element (their
order does not matter), as in ``median``. Where the lines are whole on each rank (the split
axis is kept, or ``x`` is replicated) every step is local: no message, and the result keeps
the split. When the split axis is reduced the data is never gathered: the lines are sorted
by the distributed sort (``sort`` along the split axis), one ``allreduce`` counts each line's
valid values (``nan*`` only), and the two neighbours of each quantile are fetched from their
owners (``take_along_axis``); the result is replicated (memory: the result).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array
from ._data_type_functions import astype
from ._dtypes import check_category
from ._elementwise_functions import clip, floor, isnan, logical_not
from ._indexing_functions import take_along_axis
from ._layout import Layout
from ._manipulation_functions import expand_dims
from ._median import _lines
from ._ops.reduction import filled_block
from ._searching_functions import where
from ._sorting_functions import sort
from ._statistical_functions import sum
from ._validation import check_array, normalize_axes

__all__ = ["nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]

_int64 = np.dtype("int64")
_float64 = np.dtype("float64")


def _check_q(q: Any, func: str, top: int = 1) -> np.ndarray:
    """``q`` as float64 probabilities, given in ``[0, top]`` (100 for percentiles, divided as
    NumPy divides them)."""
    if isinstance(q, Array):
        q = q.to_numpy()  # a handful of probabilities (replicated or small)
    qs = np.asarray(q, dtype=np.float64)
    if qs.ndim > 1:
        raise ValueError(f"{func}: q must be a scalar or 1-D, got shape {qs.shape}")
    if not np.all((qs >= 0) & (qs <= top)):
        raise ValueError(f"{func}: q must be in the range [0, {top}], got {q!r}")
    return qs / top if top != 1 else qs


def _lines_array(x: Array, axes: tuple[int, ...]) -> Array:
    """``x``'s reduced axes as the second axis of a ``(lines, values)`` array: split along the
    values when the split axis is reduced, else along the lines (each rank's own lines, in
    its block's order: only line-wise steps follow, and the result block is put back in
    ``x``'s layout)."""
    xp, comm = x._backend.xp, x._comm
    n = math.prod(x.shape[a] for a in axes)
    nlines = math.prod(s for i, s in enumerate(x.shape) if i not in axes)
    if x.split is not None and x.split in axes:
        rest = n // x.shape[x.split] if x.shape[x.split] else 0
        block = _lines(x._local, axes, x.split, xp)
        layout = Layout((nlines, n), 1, tuple(c * rest for c in x.counts))
    else:
        block = _lines(x._local, axes, None, xp)
        if x.split is None:
            layout = Layout.replicated((nlines, n))
        else:
            per = [
                math.prod(c if i == x.split else s for i, s in enumerate(x.shape) if i not in axes)
                for c in x.counts
            ]
            layout = Layout((nlines, n), 0, tuple(per))
    return Array._new(block, layout, comm, x._backend)


def _result(x: Array, axes: tuple[int, ...], keepdims: bool, q_shape: tuple, res: Array) -> Array:
    """The ``(lines, quantiles)`` result as NumPy's ``q.shape + kept shape``: in ``x``'s
    layout (the split axis moved past the quantiles' axes) when the lines were whole on each
    rank, else replicated."""
    xp, comm, backend = x._backend.xp, x._comm, x._backend
    if keepdims:
        kept = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    else:
        kept = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    shape = q_shape + kept
    block = xp.permute_dims(res._local, (1, 0))
    if x.split is None or x.split in axes:
        return Array._new(xp.reshape(block, shape), Layout.replicated(shape), comm, backend)
    before = len([a for a in axes if a < x.split])
    split = len(q_shape) + (x.split if keepdims else x.split - before)
    layout = Layout(shape, split, x.counts)
    return Array._new(xp.reshape(block, layout.local_shape(comm.rank)), layout, comm, backend)


def _prepare(
    func: str, x: Any, axis: Any, keepdims: Any, skip: bool
) -> tuple[tuple[int, ...], int]:
    """The reduced axes and the values per line; reduced axes holding no value raise for
    ``quantile`` (as NumPy's) and are NaN lines for the ``nan*`` functions (``_no_values``)."""
    check_array(x, func)
    check_category(x.dtype, "real numeric", func)
    if not isinstance(keepdims, bool):
        raise TypeError(f"{func}: keepdims must be a bool, got {keepdims!r}")
    axes = normalize_axes(axis, x.ndim, func)
    n = math.prod(x.shape[a] for a in axes)
    if n == 0 and not skip:
        raise ValueError(f"{func}: no values to take quantiles of along axes {axes}")
    return axes, n


def _no_values(x: Array, axes: tuple[int, ...], keepdims: bool, q_shape: tuple, dtype) -> Array:
    """The ``nan*`` functions over reduced axes of length 0: NaN for every line and quantile,
    as NumPy's (which warns of all-NaN slices). The lines' layout as the general path's, each
    rank filling its own; no message. (NumPy gives this result the kept shape whatever
    ``q``'s shape, its ``nanmean`` of the empty array; here it has ``q``'s axes first, as
    every other result of these functions.)"""
    lines = _lines_array(x, axes)
    layout = _per_line(lines, math.prod(q_shape))
    block = filled_block(lines, layout.local_shape(x._comm.rank), math.nan, dtype)
    return _result(x, axes, keepdims, q_shape, Array._new(block, layout, x._comm, x._backend))


def _per_line(lines: Array, *rest: int) -> Layout:
    """The layout of values per line (``rest``: their shape) beside ``lines``: split as the
    lines where they are split, else replicated."""
    shape = (lines.shape[0], *rest)
    return Layout(shape, 0, lines.counts) if lines.split == 0 else Layout.replicated(shape)


def _valid_counts(lines: Array, n: int, skip: bool) -> Array:
    """Each line's count of values that are not NaN (``nan*``: one ``allreduce`` when the
    values are split), else ``n`` for every line (no message); laid out like the lines."""
    if skip and lines.dtype.kind == "f":
        return sum(astype(logical_not(isnan(lines)), _int64), axis=1)
    layout = _per_line(lines)
    block = filled_block(lines, layout.local_shape(lines._comm.rank), n, _int64)
    return Array._new(block, layout, lines._comm, lines._backend)


def _pick(ordered: Array, index: Array, n: int) -> Array:
    """The sorted values at ``index`` (lines, quantiles; floats), clamped into the line: local
    for whole lines, fetched from their owners (``take_along_axis``) for split ones."""
    i = astype(clip(index, 0, n - 1), _int64)
    if ordered.split == 1:
        return take_along_axis(ordered, i, axis=1)
    # Whole lines, laid out alike (split along the lines, or replicated): each rank takes from
    # its own block, and the clamped indices need no agreement on bounds.
    local = ordered._backend.xp.take_along_axis(ordered._local, i._local, axis=1)
    return Array._new(local, i._layout, ordered._comm, ordered._backend)


def _lerp(a: Array, b: Array, t: Array, work: np.dtype) -> Array:
    """NumPy's ``_lerp``: ``a + (b - a)*t``, or ``b - (b - a)*(1 - t)`` where ``t >= 0.5``."""
    diff = astype(b - a, work)
    return where(t >= 0.5, astype(b, work) - diff * (1 - t), astype(a, work) + diff * t)


def _nan_lines(out: Array, ordered: Array, k: Array, n: int, skip: bool) -> Array:
    """NaN for lines holding a NaN (``quantile``: NaN sorts last) or no valid value (``nan*``)."""
    if ordered.dtype.kind != "f":
        return out
    if skip:
        return where(expand_dims(k, axis=1) == 0, math.nan, out)
    last = _pick(ordered, astype(expand_dims(k, axis=1) - 1, _float64), n)
    return where(isnan(last), math.nan, out)


def _quantile(
    func: str, x: Any, q: Any, axis: Any, keepdims: Any, method: str, skip: bool, top: int = 1
):
    axes, n = _prepare(func, x, axis, keepdims, skip)
    if method != "linear":
        raise ValueError(f"{func}: method {method!r} is not offered; only NumPy's 'linear'")
    qs = _check_q(q, func, top)
    # NumPy's dtype: a Python float q keeps a floating x's dtype; an array q is float64.
    scalar_q = isinstance(q, (int, float)) and not isinstance(q, bool)
    floating = x.dtype if x.dtype.kind == "f" else x._backend.default_dtypes()["real floating"]
    work = floating if scalar_q else np.result_type(floating, _float64)
    if n == 0:
        return _no_values(x, axes, keepdims, qs.shape, work)
    lines = _lines_array(x, axes)
    ordered = sort(lines, axis=1)
    k = _valid_counts(lines, n, skip)
    # q is an argument, the same on every rank: a replicated array without a checksum.
    qv = Array._new(
        x._backend.from_host(np.atleast_1d(qs), x.device),
        Layout.replicated((qs.size,)),
        x._comm,
        x._backend,
    )
    count = astype(expand_dims(k, axis=1), _float64)
    # NumPy's virtual index of the linear method, (n - 1) * q, and its neighbours, in float64
    # (a Python float q then weighs in x's dtype, as NumPy's weak q does).
    v = (count - 1) * qv
    last = count - 1
    above, below = v >= last, v < 0
    prev = where(below, 0.0, where(above, last, floor(v)))
    nxt = where(above | below, prev, prev + 1)
    out = _lerp(_pick(ordered, prev, n), _pick(ordered, nxt, n), astype(v - prev, work), work)
    return _result(x, axes, keepdims, qs.shape, _nan_lines(out, ordered, k, n, skip))


def quantile(
    x: Array, /, q: Any, *, axis=None, method: str = "linear", keepdims: bool = False
) -> Array:
    """NumPy's ``quantile`` (xdist's extension), ``linear`` method: NaN for a line holding a
    NaN. The quantiles' axes come first. Local when the split axis is kept; when it is
    reduced, a distributed sort and the neighbours fetched from their owners (replicated
    result). Never a gather of the data."""
    return _quantile("quantile", x, q, axis, keepdims, method, skip=False)


def nanquantile(
    x: Array, /, q: Any, *, axis=None, method: str = "linear", keepdims: bool = False
) -> Array:
    """NumPy's ``nanquantile`` (xdist's extension): ``quantile`` of each line's values that
    are not NaN (NaN where there are none). Communication of ``quantile``, and one
    ``allreduce`` of the counts of valid values when the split axis is reduced."""
    return _quantile("nanquantile", x, q, axis, keepdims, method, skip=True)


def nanmedian(x: Array, /, *, axis=None, keepdims: bool = False) -> Array:
    """NumPy's ``nanmedian`` (xdist's extension): the median of each line's values that are
    not NaN, the mean of the two middle ones for an even count (NaN where there are none).
    Communication of ``nanquantile``."""
    axes, n = _prepare("nanmedian", x, axis, keepdims, skip=True)
    out = x.dtype if x.dtype.kind == "f" else x._backend.default_dtypes()["real floating"]
    if n == 0:
        return _no_values(x, axes, keepdims, (), out)
    lines = _lines_array(x, axes)
    ordered = sort(lines, axis=1)
    k = expand_dims(_valid_counts(lines, n, skip=True), axis=1)
    a = astype(_pick(ordered, astype((k - 1) // 2, _float64), n), out)
    b = astype(_pick(ordered, astype(k // 2, _float64), n), out)
    mid = where(k % 2 == 1, a, (a + b) / 2)
    return _result(x, axes, keepdims, (), _nan_lines(mid, ordered, k[:, 0], n, skip=True))


# NumPy's other methods of quantile and percentile: known, but not offered here.
_NUMPY_METHODS = (
    "inverted_cdf",
    "averaged_inverted_cdf",
    "closest_observation",
    "interpolated_inverted_cdf",
    "hazen",
    "weibull",
    "median_unbiased",
    "normal_unbiased",
    "lower",
    "higher",
    "midpoint",
    "nearest",
)


def _percentile_function(func: str, doc: str):
    """``percentile`` or ``nanpercentile`` with NumPy's signature: NumPy's arguments that
    xdist does not take raise, naming them; then the quantiles of ``q / 100``."""

    def percentile(
        x: Array,
        /,
        q: Any,
        axis: Any = None,
        out: Any = None,
        overwrite_input: bool = False,
        method: str = "linear",
        keepdims: bool = False,
        *,
        weights: Any = None,
        interpolation: Any = None,
    ) -> Array:
        if out is not None:
            raise NotImplementedError(f"{func}: out= is not supported on xdist arrays")
        if weights is not None:
            raise NotImplementedError(f"{func}: weights= is not supported on xdist arrays")
        if interpolation is not None:
            raise TypeError(f"{func}: interpolation= is NumPy's deprecated name; use method=")
        if not isinstance(overwrite_input, bool):
            raise TypeError(f"{func}: overwrite_input must be a bool, got {overwrite_input!r}")
        if method in _NUMPY_METHODS:
            raise NotImplementedError(f"{func}: method={method!r} is not supported; only 'linear'")
        skip = func == "nanpercentile"
        return _quantile(func, x, q, axis, keepdims, method, skip, top=100)

    percentile.__name__ = percentile.__qualname__ = func
    percentile.__doc__ = doc
    return percentile


percentile = _percentile_function(
    "percentile",
    """NumPy's ``percentile`` (xdist's extension): ``quantile`` of ``q / 100`` (``q`` in
    ``[0, 100]``), NumPy's ``linear`` method bit for bit; ``overwrite_input`` is accepted and
    changes nothing. Communication of ``quantile``: none when the split axis is kept; when it
    is reduced, the distributed sort (``alltoallv``) and result-sized ``allgatherv`` of the
    neighbours; the result is then replicated.""",
)
nanpercentile = _percentile_function(
    "nanpercentile",
    """NumPy's ``nanpercentile`` (xdist's extension): ``nanquantile`` of ``q / 100``.
    Communication of ``nanquantile`` (one more ``allreduce`` of the valid counts).""",
)
