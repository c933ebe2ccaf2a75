"""Slabs: what each rank reads or writes, cut into pieces of bounded size.

A rank's slab is its block's box in global coordinates (all of every axis but the split
axis). It is read or written piece by piece: the pieces are the cells of a grid aligned to the
file's storage chunks (or to single elements for contiguous data), grown along the last axes
while a cell holds at most ``chunk_bytes``, cut by the slab. So a load holds the block plus
one piece, and reads each storage chunk once per rank.

``from_sliceable`` builds an array from any object with ``shape``, ``dtype`` and
``__getitem__`` by slices (an h5py dataset, a Zarr array, a NetCDF variable, ``np.memmap``),
each rank reading only its slab. This module imports nothing above the array layer, so the
creation functions could call it from where they are. Where a loaded array lives (its
communicator, backend, device and split) is resolved by ``_placement``, as for every new
array; a loader's ``split`` (0 by default) leaves 0-d data replicated.
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import _array
from .._dtypes import ALL_DTYPES, as_dtype
from .._layout import Box, Layout, balanced_counts, resolve, shifted, volume
from .._movement.agreement import agree_on_errors
from .._placement import Placement
from ..backends.base import Backend, Device

__all__ = [
    "CHUNK_BYTES",
    "SliceSource",
    "block_pieces",
    "cell_shape",
    "cells",
    "check_budget",
    "from_sliceable",
    "is_lazy_array",
    "load_dtype",
    "my_part",
    "read_array",
    "read_block",
    "runs",
    "write_part",
]

CHUNK_BYTES = 64 << 20  # a piece read or written at once: 64 MiB unless chunk_bytes= says


# -- arguments ----------------------------------------------------------------------------------
def check_budget(chunk_bytes: Any, func: str) -> int:
    """``chunk_bytes`` (``None``: 64 MiB) as a positive int, or an error naming ``func``."""
    if chunk_bytes is None:
        return CHUNK_BYTES
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"{func}: chunk_bytes must be a positive int, got {chunk_bytes!r}")
    return chunk_bytes


def load_dtype(stored: np.dtype, dtype: Any, backend: Backend, func: str, what: str) -> np.dtype:
    """The dtype of a loaded array: ``dtype`` when given, else the stored one in native byte
    order; a TypeError naming ``what`` when it is not a standard dtype or the backend lacks
    it."""
    if dtype is not None:
        out = as_dtype(dtype, func)
    else:
        out = stored.newbyteorder("=") if stored.byteorder not in "=|" else stored
        if out not in ALL_DTYPES:
            raise TypeError(
                f"{func}: {what} holds {stored}, not a dtype of the standard; pass dtype= to "
                "convert it (or convert the file)"
            )
    if out not in backend.supported_dtypes():
        raise TypeError(f"{func}: the {backend.name} backend has no {out}; pass dtype=")
    return out


# -- geometry ------------------------------------------------------------------------------------
def cell_shape(
    shape: Sequence[int], itemsize: int, budget: int, base: Sequence[int] | None = None
) -> tuple[int, ...]:
    """The cell of a grid over ``shape``: ``base`` (the storage chunk; one element when
    ``None``) grown by whole multiples along the last axes first, while it holds at most
    ``budget`` bytes. Growing stops at the first axis not taken whole, so a cell of
    contiguous data is one run in C order."""
    ndim = len(shape)
    cell = [1] * ndim if base is None else [max(1, int(c)) for c in base]
    cell = [min(c, max(n, 1)) for c, n in zip(cell, shape)]
    for axis in reversed(range(ndim)):
        others = math.prod(cell) // cell[axis]
        times = max(1, budget // max(1, itemsize * others * cell[axis]))
        grown = min(cell[axis] * times, max(shape[axis], 1))
        cell[axis] = grown
        if grown < shape[axis]:
            break
    return tuple(cell)


def cells(box: Box, cell: Sequence[int]) -> Iterator[Box]:
    """The cells of the grid of ``cell`` that meet the resolved ``box``, each cut by it, in C
    order (none for an empty box; one, ``()``, for a 0-d box)."""
    ranges = []
    for s, c in zip(box, cell):
        first = (s.start // c) * c
        ranges.append([slice(max(a, s.start), min(a + c, s.stop)) for a in range(first, s.stop, c)])
    return iter(itertools.product(*ranges))


def runs(box: Box, shape: Sequence[int]) -> tuple[int, int, int]:
    """How a resolved ``box`` lies in C-ordered data of ``shape``: ``(n, length, axis)``,
    ``n`` runs of ``length`` contiguous elements, one per index of the axes before ``axis``
    (all axes after ``axis`` are whole in the box)."""
    axis = -1
    for d in reversed(range(len(shape))):
        if box[d].stop - box[d].start != shape[d]:
            axis = d
            break
    if axis < 0:
        return 1, math.prod(shape), 0
    extent = [s.stop - s.start for s in box]
    return math.prod(extent[:axis]), math.prod(extent[axis:]), axis


def run_starts(box: Box, shape: Sequence[int], axis: int) -> Iterator[int]:
    """The flat C-order index of each run's first element (see ``runs``), in order."""
    strides = [math.prod(shape[d + 1 :]) for d in range(len(shape))]
    base = sum(s.start * st for s, st in zip(box[axis:], strides[axis:]))
    outer = [range(s.start, s.stop) for s in box[:axis]]
    for index in itertools.product(*outer):
        yield base + sum(i * st for i, st in zip(index, strides))


def my_part(
    layout: Layout, rank: int, size: int, *, shared: bool = True, unit: int = 1
) -> tuple[Box, list[int]] | None:
    """The box this rank writes and the global origin of its block, or ``None`` (nothing).

    A split array: the rank's own block. A replicated array is written once: with ``shared``
    every rank writes a balanced share of its first axis in whole ``unit``s (storage chunks),
    else rank 0 writes all of it (a 0-d array always by rank 0).
    """
    full = resolve(tuple(slice(None) for _ in layout.shape), layout.shape)
    if layout.split is not None:
        box = resolve(layout.local_slice(rank), layout.shape)
        return (box, layout.origin(rank)) if volume(box) else None
    if layout.ndim == 0 or not shared:
        return (full, [0] * layout.ndim) if rank == 0 and volume(full) else None
    n = layout.shape[0]
    counts = balanced_counts(-(-n // unit), size)
    lo = min(n, unit * sum(counts[:rank]))
    box = (slice(lo, min(n, lo + unit * counts[rank])), *full[1:])
    return (box, [0] * layout.ndim) if volume(box) else None


# -- reading -------------------------------------------------------------------------------------
def is_lazy_array(obj: Any) -> bool:
    """Whether ``obj`` is an array of a file library that reads on slicing (an h5py dataset, a
    Zarr array, a netCDF4 or h5netcdf variable): ``asarray`` should read only the slab."""
    root = type(obj).__module__.split(".")[0]
    return root in ("h5py", "zarr", "netCDF4", "h5netcdf") and all(
        hasattr(obj, a) for a in ("shape", "dtype", "__getitem__")
    )


class SliceSource:
    """Reads boxes of an object sliceable like an array into a host array, without a
    temporary where the library can fill a given array (h5py ``read_direct``, Zarr's
    ``out=``)."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        root = type(obj).__module__.split(".")[0]
        self._h5py = root == "h5py" and hasattr(obj, "read_direct")
        self._zarr = root == "zarr" and hasattr(obj, "get_basic_selection")
        # How many pieces the library holds at once while reading one: Zarr decodes each
        # chunk from its encoded bytes, netCDF4 fills a buffer and then makes the result.
        self.copies = 2 if root in ("zarr", "netCDF4") else 1

    def read(self, box: Box, out: np.ndarray, at: Box) -> None:
        """The stored ``box`` into ``out[at]`` (``out``: a C-contiguous host array)."""
        if not box:  # 0-d
            out[...] = self.obj[...]
        elif self._h5py and out.dtype == self.obj.dtype:
            self.obj.read_direct(out, source_sel=box, dest_sel=at)
        elif self._zarr and out.dtype == self.obj.dtype:
            from zarr.core.buffer import default_buffer_prototype

            nd = default_buffer_prototype().nd_buffer.from_numpy_array(out[at])
            self.obj.get_basic_selection(box, out=nd)
        else:
            out[at] = self.obj[box]


def read_block(
    source: Any,
    layout: Layout,
    rank: int,
    dtype: np.dtype,
    backend: Backend,
    device: Device,
    cell: Sequence[int],
    progress: Any = None,
) -> Any:
    """This rank's block of ``layout``, read from ``source`` (``source.read(box, out, at)``)
    cell by cell. On the CPU the cells go straight into the block's host memory; on a GPU
    each goes through a host buffer of one cell."""
    shape = layout.local_shape(rank)
    box = resolve(layout.local_slice(rank), layout.shape)
    origin = [s.start for s in box]
    on_host = getattr(device, "kind", "cpu") == "cpu"
    host = np.empty(shape, dtype) if on_host else None
    block = None if on_host else backend.empty(shape, dtype, device)
    for piece in cells(box, cell):
        at = shifted(piece, origin)
        if on_host:
            source.read(piece, host, at)
        else:
            buf = np.empty(tuple(s.stop - s.start for s in piece), dtype)
            source.read(piece, buf, tuple(slice(None) for _ in piece))
            block[at] = backend.from_host(buf, device)
        if progress is not None:
            progress.update(volume(piece) * dtype.itemsize)
    return backend.from_host(host, device) if on_host else block


def read_array(
    opener: Callable[[], Any],
    layout: Layout,
    dtype: np.dtype,
    cell: Sequence[int],
    where: Placement,
    progress: Any = None,
) -> _array.Array:
    """The array of ``layout`` (placed ``where``) whose blocks each rank reads from the source
    that ``opener()`` opens (a context manager); ``progress.update(bytes)`` follows the
    reading. A rank that fails raises its error on every rank: one allgather."""
    block, error = None, None
    rank, backend = where.comm.rank, where.backend
    try:
        with opener() as source:
            block = read_block(source, layout, rank, dtype, backend, where.device, cell, progress)
    except Exception as exc:
        error = exc
    agree_on_errors(error, where.comm)
    return where.array(block, layout)


def from_sliceable(
    obj: Any, split: int | None = 0, *, dtype=None, device=None, comm=None, chunk_bytes=None
) -> _array.Array:
    """An array of ``obj``, any object with ``shape``, ``dtype`` and ``__getitem__`` by
    slices (an h5py dataset, a Zarr array, a NetCDF variable, ``np.memmap``): each rank reads
    only its slab, in pieces of at most ``chunk_bytes`` (64 MiB), so it holds its block plus
    one piece. ``split=None``: every rank reads the whole array; 0-d data is replicated.

    The values are what ``obj[box]`` gives, converted to ``obj.dtype`` (or ``dtype``): a
    netCDF4 variable that unpacks ``scale_factor`` on reading needs ``dtype=``. Every rank
    passes the same object (each opened the file). Communication: one allgather (a read that
    fails on some rank raises its error on every rank).
    """
    func = "from_sliceable"
    where = Placement(comm, device, func)
    budget = check_budget(chunk_bytes, func)
    if not all(hasattr(obj, a) for a in ("shape", "dtype", "__getitem__")):
        raise TypeError(f"{func}: obj must have shape, dtype and __getitem__, got {type(obj)}")
    shape = tuple(int(n) for n in obj.shape)
    dt = load_dtype(np.dtype(obj.dtype), dtype, where.backend, func, "the object")
    layout = where.layout(shape, split, func, zero_d_replicated=True)
    base = getattr(obj, "chunks", None)
    source = SliceSource(obj)
    piece = max(1, budget // source.copies)
    cell = cell_shape(shape, dt.itemsize, piece, base if isinstance(base, tuple) else None)
    return read_array(lambda: contextlib.nullcontext(source), layout, dt, cell, where)


# -- writing -------------------------------------------------------------------------------------
def block_pieces(
    block: Any, origin: Sequence[int], box: Box, cell: Sequence[int], backend: Backend
) -> Iterator[tuple[Box, np.ndarray]]:
    """``(global cell, host array)`` for each cell of ``box`` (the part of ``block`` this rank
    writes; ``origin``: the global index of ``block``'s first element), one at a time."""
    for piece in cells(box, cell):
        at = shifted(piece, origin)
        yield piece, np.asarray(backend.to_host(block[at] if at else block))


def write_part(
    target: Any, x: _array.Array, part: Any, budget: int, chunks: Any, progress: Any
) -> None:
    """This rank's ``part`` (``my_part``) of ``x`` into ``target`` (an h5py dataset, a NetCDF
    variable: anything assignable by a box), in pieces aligned to ``chunks``."""
    box, origin = part
    cell = cell_shape(x.shape, x.dtype.itemsize, budget, chunks)
    for piece, host in block_pieces(x.local, origin, box, cell, x.backend):
        target[piece if piece else ()] = host
        progress.update(host.nbytes)
