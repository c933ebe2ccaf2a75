"""Zarr arrays (format 3) through zarr-python.

Loads: each rank opens the array and reads its slab, decoding each chunk it meets once, into
the block directly (Zarr's ``out=``).

Saves: every rank writes its own chunks, in parallel (each chunk is its own object in the
store). A chunk must have one writer: two ranks writing parts of one chunk would each
rewrite all of it, and the last would win. So the rows of the split axis are cut at chunk
boundaries: rank r writes the chunks whose first row it holds, from its first chunk
boundary at or after its block's start up to the next rank's. The rows of its last chunk
that lie on the following ranks (fewer than one chunk along the split axis) reach it by one
halo exchange (``collectives.halo``: one ``sendrecv`` when they are on the next rank). With
sharding (``shards=``) the unit is the shard. A replicated array is written once: each rank
writes a share of whole chunks.
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout, resolve, volume
from .._movement.agreement import from_root
from .._movement.collectives import halo
from .._ops.slabs import (
    SliceSource,
    block_pieces,
    cell_shape,
    cells,
    check_budget,
    load_dtype,
    my_part,
    read_array,
)
from .._placement import Placement
from .._validation import check_array
from ._files import AtomicSave, Progress, described, require

__all__ = ["load_zarr", "save_zarr"]


def _open(zarr: Any, path: str, func: str, mode: str = "r") -> Any:
    if not os.path.exists(path):
        raise FileNotFoundError(f"{func}: no Zarr array at {path!r}")
    try:
        return zarr.open_array(path, mode=mode)
    except PermissionError as exc:
        raise described(exc, func, path, "read") from exc
    except Exception as exc:  # zarr's own errors: a group, no metadata, bad metadata
        raise ValueError(f"{func}: {path!r} is not a Zarr array: {exc}") from None


def _inspect(zarr: Any, path: str, func: str) -> dict:
    z = _open(zarr, path, func)
    try:
        dtype = np.dtype(z.dtype)
    except TypeError:
        dtype = np.dtype(object)
    return {
        "shape": [int(n) for n in z.shape],
        "descr": np.lib.format.dtype_to_descr(dtype),
        "chunks": [int(c) for c in z.chunks],
    }


def load_zarr(
    path, split=0, *, dtype=None, device=None, comm=None, chunk_bytes=None, progress=False
) -> _array.Array:
    """Load the Zarr array at ``path`` (format 3, or 2), each rank reading only its slab
    along ``split`` (``None``: the whole array on every rank), in pieces aligned to the
    array's chunks.

    ``dtype``, ``device``, ``comm``, ``chunk_bytes`` and ``progress`` are as for
    ``load_npy``.

    Communication: rank 0 reads the metadata and broadcasts it (two broadcasts); one
    allgather agrees that every rank's read succeeded.
    """
    func = "load_zarr"
    zarr = require("zarr", func)
    where = Placement(comm, device, func)
    budget = check_budget(chunk_bytes, func)
    path = os.fspath(path)
    meta = from_root(lambda: _inspect(zarr, path, func), where.comm)
    shape, stored = tuple(meta["shape"]), np.lib.format.descr_to_dtype(meta["descr"])
    dt = load_dtype(stored, dtype, where.backend, func, f"the Zarr array {path!r}")
    layout = where.layout(shape, split, func, zero_d_replicated=True)
    # Zarr holds a chunk twice while decoding it (encoded, decoded): half-size pieces.
    cell = cell_shape(shape, stored.itemsize, max(1, budget // 2), meta["chunks"])
    opener = lambda: contextlib.nullcontext(SliceSource(_open(zarr, path, func)))
    with Progress(
        progress, where.comm, math.prod(layout.local_shape(0)) * dt.itemsize, func
    ) as bar:
        return read_array(opener, layout, dt, cell, where, bar)


def chunk_starts(layout: Layout, unit: int) -> list[int]:
    """Where each rank's writing starts along the split axis: the first multiple of ``unit``
    at or after its block's start (the axis' length for the ranks after the last chunk),
    then the axis' length."""
    n = layout.shape[layout.split]
    return [min(n, -(-lo // unit) * unit) for lo in layout.offsets] + [n]


def _halo_ranges(layout: Layout, starts: list[int]) -> list[tuple[int, int]]:
    """The rows after each rank's block that its last chunk needs (empty for most)."""
    ends = [lo + c for lo, c in zip(layout.offsets, layout.counts)]
    return [
        (hi, max(hi, starts[r + 1]) if starts[r + 1] > starts[r] else hi)
        for r, hi in enumerate(ends)
    ]


def _rows(x: _array.Array, extra: Any, piece: tuple, lo: int, hi: int) -> np.ndarray:
    """The values of the global ``piece`` from this rank's block (rows ``lo:hi`` of the
    split axis) and ``extra`` (the rows from ``hi`` on), as one host array."""
    k = x.split
    a, b = piece[k].start, piece[k].stop
    parts = []
    for src, origin, start, stop in ((x.local, lo, a, min(b, hi)), (extra, hi, max(a, hi), b)):
        if start < stop:
            key = list(piece)
            key[k] = slice(start - origin, stop - origin)
            parts.append(np.asarray(x.backend.to_host(src[tuple(key)])))
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=k)


def save_zarr(x, path, *, chunks=None, chunk_bytes=None, progress=False, **options) -> None:
    """Save ``x`` as a Zarr array (format 3) at ``path``, every rank writing its chunks in
    parallel; a Zarr store already at ``path`` is replaced (anything else there is not).

    ``chunks`` (default: Zarr's choice) and ``options`` (``compressors``, ``shards``,
    ``fill_value``, ...) go to ``zarr.create_array``. Each chunk has one writer: the rank
    holding its first row along the split axis, which receives the chunk's other rows from
    the following ranks first (one halo exchange). A replicated array is written once, each
    rank writing a share of the chunks.

    Communication: two broadcasts (the temporary store), the halo exchange (none when the
    blocks start at chunk boundaries), one allgather (every part written), two broadcasts
    (the rename).
    """
    func = "save_zarr"
    check_array(x, func)
    zarr = require("zarr", func)
    budget = check_budget(chunk_bytes, func)
    comm = x.comm

    def create(tmp: str) -> dict:
        z = zarr.create_array(
            store=tmp,
            shape=x.shape,
            dtype=x.dtype,
            chunks="auto" if chunks is None else chunks,
            zarr_format=3,
            **options,
        )
        return {"unit": [int(c) for c in (z.shards or z.chunks)]}

    with AtomicSave(path, func, comm, create, directory=True) as save:
        unit = save.info["unit"]
        cell = cell_shape(x.shape, x.dtype.itemsize, budget, unit)
        if x.split is None:
            part = my_part(x.layout, comm.rank, comm.size, unit=unit[0] if unit else 1)
            pieces = block_pieces(x.local, part[1], part[0], cell, x.backend) if part else ()
            total = volume(part[0]) * x.dtype.itemsize if part else 0
        else:
            pieces, total = _split_pieces(x, unit, cell)
        with save.part(total), Progress(progress, comm, total, func) as bar:
            z = _open(zarr, save.tmp, func, "r+")
            for piece, host in pieces:
                z[piece if piece else ...] = host
                bar.update(host.nbytes)
        save.finish()


def _split_pieces(x: _array.Array, unit: list[int], cell: tuple[int, ...]):
    """This rank's chunks of a split ``x`` as ``(global box, host array)`` pieces, and their
    bytes; runs the halo exchange (collective) when a block does not end at a chunk
    boundary."""
    comm, layout, k = x.comm, x.layout, x.split
    starts = chunk_starts(layout, unit[k])
    ranges = _halo_ranges(layout, starts)
    lo = layout.offsets[comm.rank]
    hi = lo + layout.counts[comm.rank]
    extra = None
    if any(b > a for a, b in ranges):
        extra = halo(x.local, layout, ranges, comm, x.backend, x.device)
    box = list(resolve(tuple(slice(None) for _ in x.shape), x.shape))
    box[k] = slice(starts[comm.rank], starts[comm.rank + 1])
    box = tuple(box)
    pieces = ((piece, _rows(x, extra, piece, lo, hi)) for piece in cells(box, cell))
    return pieces, volume(box) * x.dtype.itemsize
