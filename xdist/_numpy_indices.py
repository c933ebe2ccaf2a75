"""NumPy's index helpers beyond the standard: ``flatnonzero``, ``unravel_index``,
``ravel_multi_index``, ``ix_``, ``tril_indices``, ``triu_indices``, ``diag_indices`` and
``fill_diagonal``.

``unravel_index`` and ``ravel_multi_index`` are elementwise integer arithmetic on the index
arrays (their layout kept); the one message is the bounds check, a flag agreed by one
``allreduce`` for split indices, so an index out of bounds raises the same ``ValueError`` on
every rank. The triangle and diagonal indices are small, replicated arrays that every rank
builds from the global arguments. ``fill_diagonal`` writes the diagonal positions that lie in
each rank's block, in place.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._creation_functions import asarray
from ._data_type_functions import astype
from ._dtypes import check_category, int64
from ._elementwise_functions import clip, floor_divide, greater_equal, less, logical_or, remainder
from ._layout import Layout
from ._manipulation_functions import broadcast_arrays, reshape
from ._pending import settle
from ._placement import Placement
from ._searching_functions import nonzero
from ._utility_functions import any as any_of
from ._validation import check_array, check_int

__all__ = [
    "diag_indices",
    "fill_diagonal",
    "flatnonzero",
    "ix_",
    "ravel_multi_index",
    "tril_indices",
    "triu_indices",
    "unravel_index",
]


def flatnonzero(a: Array, /) -> Array:
    """NumPy's ``flatnonzero`` (xdist's extension): ``nonzero(ravel(a))[0]``. Communication:
    ``nonzero``'s one allgather of counts (after ``reshape``'s all-to-all for an array split
    along another axis than its first); the result is split with exact counts."""
    check_array(a, "flatnonzero", "a")
    return nonzero(reshape(a, (-1,)))[0]


def _shape(shape: Any, func: str, name: str) -> tuple[int, ...]:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{func}: {name} must be an int or a tuple of ints, got {shape!r}")
    out = tuple(check_int(s, func, name, 0) for s in shape)
    return out


def _strides(shape: tuple[int, ...], order: str, func: str) -> list[int]:
    """The flat-index stride of each axis in C or Fortran order."""
    if order not in ("C", "F"):
        raise ValueError(f"{func}: order must be 'C' or 'F', got {order!r}")
    axes = range(len(shape)) if order == "F" else reversed(range(len(shape)))
    strides, step = [0] * len(shape), 1
    for k in axes:
        strides[k], step = step, step * shape[k]
    return strides


def _indices(v: Any, func: str, name: str) -> Array:
    check_array(v, func, name)
    check_category(v.dtype, "integer", func, name)
    return astype(v, int64)


def _raise_if(bad: Array, message: str) -> None:
    """The same ``ValueError`` on every rank where any element of ``bad`` is set (one
    ``allreduce`` of one flag for a split ``bad``)."""
    if bool(any_of(bad)):
        raise ValueError(message)


def unravel_index(indices: Any, shape: Any, order: str = "C") -> tuple[Any, ...]:
    """NumPy's ``unravel_index`` (xdist's extension): the coordinates in an array of ``shape``
    of each flat index, one int64 array per axis with ``indices``' layout (a Python int gives
    Python ints). Communication: one ``allreduce`` of one flag (the bounds check) for split
    indices, none for replicated ones; the arithmetic is elementwise."""
    shape = _shape(shape, "unravel_index", "shape")
    strides = _strides(shape, order, "unravel_index")
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, bool):
        return tuple(int(v) for v in np.unravel_index(indices, shape, order=order))
    i = _indices(indices, "unravel_index", "indices")
    size = math.prod(shape)
    _raise_if(
        logical_or(less(i, 0), greater_equal(i, size)),
        f"unravel_index: an index is out of bounds for an array of size {size}",
    )
    return tuple(remainder(floor_divide(i, s), n) for s, n in zip(strides, shape))


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> Array:
    """NumPy's ``ravel_multi_index`` (xdist's extension): the flat index in an array of
    ``dims`` of each tuple of coordinates (arrays broadcast together), int64. ``mode`` (one or
    one per axis): ``'raise'`` an out-of-bounds coordinate, ``'wrap'`` it around, ``'clip'``
    it. Communication: with ``'raise'`` one ``allreduce`` of one flag for split coordinates;
    the arithmetic is elementwise (arrays of one layout: no message)."""
    dims = _shape(dims, "ravel_multi_index", "dims")
    if 0 in dims:  # no coordinate is in bounds, nor can one be wrapped or clipped into them
        raise ValueError(f"ravel_multi_index: dims {dims} has a zero entry: no flat index exists")
    strides = _strides(dims, order, "ravel_multi_index")
    if not isinstance(multi_index, (tuple, list)) or len(multi_index) != len(dims):
        raise ValueError(
            f"ravel_multi_index: multi_index must be a tuple of {len(dims)} index arrays"
        )
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or not set(modes) <= {"raise", "wrap", "clip"}:
        raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    coords = [_indices(v, "ravel_multi_index", "multi_index") for v in multi_index]
    coords = list(broadcast_arrays(*coords))
    bad = None
    for k, (c, n, m) in enumerate(zip(coords, dims, modes)):
        if m == "wrap":
            coords[k] = remainder(c, n)
        elif m == "clip":
            coords[k] = clip(c, 0, n - 1)
        else:
            out = logical_or(less(c, 0), greater_equal(c, n))
            bad = out if bad is None else logical_or(bad, out)
    if bad is not None:
        _raise_if(bad, f"ravel_multi_index: invalid entry in coordinates array for dims {dims}")
    flat = coords[0] * strides[0]
    for c, s in zip(coords[1:], strides[1:]):
        flat = flat + c * s
    return flat


def ix_(*args: Any) -> tuple[Array, ...]:
    """NumPy's ``ix_`` (xdist's extension): each 1-D sequence of indices (a boolean one: its
    true positions) shaped to index along its own axis of an open mesh, ``(1, ..., n, ...,
    1)``. Communication: none for xdist arrays (local reshapes; a split array keeps its
    split on its new axis) beyond ``nonzero``'s allgather of counts for a split boolean one;
    NumPy data or lists become replicated arrays as ``asarray`` makes them."""
    like = next((a for a in args if isinstance(a, Array)), None)
    out = []
    for k, a in enumerate(args):
        if not isinstance(a, Array):
            data = np.asarray(a)
            data = data.astype(np.int64) if data.size == 0 else data
            a = asarray(data) if like is None else replicated_operand(like, data, "ix_")
        if a.ndim != 1:
            raise ValueError(f"ix_: argument {k} must be 1-D, got shape {a.shape}")
        if a.dtype == np.bool_:
            a = nonzero(a)[0]
        check_category(a.dtype, "integer", "ix_", f"argument {k}")
        out.append(reshape(a, (1,) * k + (a.shape[0],) + (1,) * (len(args) - k - 1)))
    return tuple(out)


def _replicated(t: Placement, host: np.ndarray) -> Array:
    block = t.backend.from_host(np.ascontiguousarray(host, dtype=np.int64), t.device)
    return t.array(block, Layout.replicated(host.shape))


def _triangle(func: str, n: Any, k: Any, m: Any, device: Any, comm: Any) -> tuple[Array, Array]:
    n = check_int(n, func, "n", 0)
    k = check_int(k, func, "k")
    m = n if m is None else check_int(m, func, "m", 0)
    t = Placement(comm, device, func)
    rows, cols = getattr(np, func)(n, k, m)
    return _replicated(t, rows), _replicated(t, cols)


def tril_indices(
    n: int, k: int = 0, m: int | None = None, *, device: Any = None, comm: Any = None
) -> tuple[Array, Array]:
    """NumPy's ``tril_indices`` (xdist's extension): the row and column indices of the lower
    triangle of an ``n x m`` matrix (below the ``k``-th diagonal), int64, replicated.
    Communication: none (every rank builds them)."""
    return _triangle("tril_indices", n, k, m, device, comm)


def triu_indices(
    n: int, k: int = 0, m: int | None = None, *, device: Any = None, comm: Any = None
) -> tuple[Array, Array]:
    """NumPy's ``triu_indices`` (xdist's extension): the indices of the upper triangle, int64,
    replicated. Communication: none."""
    return _triangle("triu_indices", n, k, m, device, comm)


def diag_indices(
    n: int, ndim: int = 2, *, device: Any = None, comm: Any = None
) -> tuple[Array, ...]:
    """NumPy's ``diag_indices`` (xdist's extension): ``ndim`` copies of ``arange(n)`` (int64,
    replicated) that index the main diagonal. Communication: none."""
    n = check_int(n, "diag_indices", "n", 0)
    ndim = check_int(ndim, "diag_indices", "ndim", 1)
    idx = _replicated(Placement(comm, device, "diag_indices"), np.arange(n))
    return (idx,) * ndim


def fill_diagonal(a: Array, val: Any, wrap: bool = False) -> None:
    """NumPy's ``fill_diagonal`` (xdist's extension), in place: ``val`` (a scalar, or values
    taken in order and repeated, cast to ``a``'s dtype) on the main diagonal of ``a`` (2-D, or
    N-D with equal lengths); ``wrap`` continues a tall matrix's diagonal below, as NumPy does.
    Communication: none (each rank writes the diagonal positions in its block); NumPy data
    is compared across the ranks under ``check_replicated`` (one allgather of one int)."""
    check_array(a, "fill_diagonal", "a")
    if a.ndim < 2:
        raise ValueError(f"fill_diagonal: a must be at least 2-D, got {a.ndim} dimensions")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError(f"fill_diagonal: all dimensions of a must be equal, got {a.shape}")
    if isinstance(val, Array):
        if val.split is not None:
            raise ValueError("fill_diagonal: val must be replicated; resplit(val, None) first")
        values = val.to_numpy()
    else:
        values = np.asarray(val)
        if values.ndim:
            replicated_operand(a, values, "fill_diagonal")  # the same on every rank
    values = values.astype(a.dtype).reshape(-1)
    # NumPy's a.flat[:end:step]: flat positions of the diagonal (wrapping past the end of a
    # tall matrix's columns with wrap).
    end = a.size
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = end if wrap else min(end, a.shape[1] * a.shape[1])
    else:
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
    flat = np.arange(0, end, step)
    if values.size == 0 or flat.size == 0:
        return
    coords = list(np.unravel_index(flat, a.shape))
    k = np.arange(flat.size)
    if a.split is not None:
        lo, hi = a._layout.local_range(a._comm.rank)
        mine = (coords[a.split] >= lo) & (coords[a.split] < hi)
        coords = [c[mine] for c in coords]
        coords[a.split] = coords[a.split] - lo
        k = k[mine]
    settle()  # a block about to change must not be read later by a pending chain
    if k.size:
        backend = a._backend
        key = tuple(backend.from_host(c.astype(np.int64), a.device) for c in coords)
        a._local[key] = backend.from_host(values[k % values.size], a.device)
    if a._writeback is not None:  # a view of another array: the base sees the write (collective)
        a._writeback.written(a, None)
