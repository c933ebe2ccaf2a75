"""``.npy`` files: every rank reads and writes its slab at its byte offset, in parallel.

The format is a header and the array's bytes in C (or Fortran) order, so a rank's slab of a
C-ordered array split along axis 0 is one contiguous byte range, read with ``preadv`` into
the block and written with ``pwrite``. Along an axis k > 0 a slab is one run per index of the
axes before k: reads go through a memory map, and writes either write the runs or, when the
runs would be short (under ``RUN_BYTES``), first move the array to split 0 (one all-to-all),
which costs less than many small writes.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout, volume
from .._movement.agreement import from_root
from .._movement.redistribute import redistribute_block
from .._ops.slabs import (
    block_pieces,
    cell_shape,
    check_budget,
    load_dtype,
    my_part,
    read_array,
    run_starts,
    runs,
)
from .._placement import Placement
from .._validation import check_array
from ._files import AtomicSave, Progress, reading, write_at

__all__ = ["load_npy", "save_npy", "write_runs"]

# Runs shorter than this are not written one by one: the array moves to split 0 first. Each
# run is one write call, so many short runs cost more than the all-to-all that makes them
# long; from a few KiB a run, writing in place wins, and it also spares the second block the
# all-to-all needs (docs/io.md measures both ways).
RUN_BYTES = 8 << 10


def _read_header(path: str, func: str) -> dict:
    """The shape, dtype (as a .npy descr), order and data offset of the file (rank 0)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{func}: no file {path!r}")
    fmt = np.lib.format
    with reading(func, path), open(path, "rb") as f:
        try:
            version = fmt.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = fmt.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = fmt.read_array_header_2_0(f)
            else:
                shape, fortran, dtype = fmt._read_array_header(f, version)
        except (ValueError, SyntaxError) as exc:
            raise ValueError(f"{func}: {path!r} is not a .npy file: {exc}") from None
        offset = f.tell()
    need = offset + math.prod(shape) * dtype.itemsize
    if os.path.getsize(path) < need:
        raise ValueError(
            f"{func}: {path!r} is truncated: {os.path.getsize(path)} bytes, not {need}"
        )
    descr = fmt.dtype_to_descr(dtype)
    return {"shape": list(shape), "descr": descr, "fortran": bool(fortran), "offset": offset}


def _pread_into(fd: int, view: np.ndarray, offset: int) -> None:
    """Fill the C-contiguous ``view`` with the file's bytes from ``offset``."""
    buf = memoryview(view.reshape(-1).view(np.uint8))
    done = 0
    while done < len(buf):
        n = os.preadv(fd, [buf[done:]], offset + done)
        if n == 0:
            raise ValueError(
                f"load_npy: the file ended before its data did (read {offset + done} bytes of "
                f"{offset + len(buf)}): it is truncated, or its header does not match its data"
            )
        done += n


class _NpyFile:
    """A .npy file's data read by box: one ``preadv`` where the box is one run of the file
    and its destination is contiguous, a memory map otherwise."""

    def __init__(self, path: str, meta: dict) -> None:
        self.path = path
        self.shape = tuple(meta["shape"])
        self.dtype = np.lib.format.descr_to_dtype(meta["descr"])
        self.offset, self.fortran = meta["offset"], meta["fortran"]
        self._fd = os.open(path, os.O_RDONLY)
        self._map: np.memmap | None = None

    def read(self, box: Any, out: np.ndarray, at: Any) -> None:
        view = out[at] if at else out
        if not self.fortran and view.dtype == self.dtype and view.flags.c_contiguous:
            n, _, axis = runs(box, self.shape)
            if n == 1:
                start = next(run_starts(box, self.shape, axis))
                _pread_into(self._fd, view, self.offset + start * self.dtype.itemsize)
                return
        if self._map is None:
            order = "F" if self.fortran else "C"
            self._map = np.memmap(self.path, self.dtype, "r", self.offset, self.shape, order=order)
        view[...] = self._map[box] if box else self._map[...]

    def close(self) -> None:
        self._map = None
        os.close(self._fd)


def load_npy(
    path, split=0, *, dtype=None, device=None, comm=None, chunk_bytes=None, progress=False
) -> _array.Array:
    """Load a ``.npy`` file, each rank reading only its slab along ``split`` (``None``: the
    whole array on every rank).

    Parameters
    ----------
    path : str or os.PathLike
    split : int or None
        The axis to split the array along (uneven counts are balanced: they differ by one).
    dtype : dtype, optional
        Convert to this dtype while reading (default: the file's, in native byte order).
    device, comm : optional
        Where the array lives (default: the default device and communicator).
    chunk_bytes : int, optional
        The most bytes read at once beyond the block (default 64 MiB).
    progress : bool
        A progress bar on rank 0 (tqdm, when installed).

    Communication: rank 0 reads the header and broadcasts it (two broadcasts); then one
    allgather agrees that every rank's read succeeded. A missing or malformed file or a
    dtype outside the standard raises the same error on every rank.
    """
    func = "load_npy"
    where = Placement(comm, device, func)
    budget = check_budget(chunk_bytes, func)
    path = os.fspath(path)
    meta = from_root(lambda: _read_header(path, func), where.comm)
    shape = tuple(meta["shape"])
    stored = np.lib.format.descr_to_dtype(meta["descr"])
    dt = load_dtype(stored, dtype, where.backend, func, repr(path))
    layout = where.layout(shape, split, func, zero_d_replicated=True)
    cell = cell_shape(shape, stored.itemsize, budget)

    @contextlib.contextmanager
    def opener():
        with reading(func, path):
            source = _NpyFile(path, meta)
        try:
            yield source
        finally:
            source.close()

    with Progress(
        progress, where.comm, math.prod(layout.local_shape(0)) * dt.itemsize, func
    ) as bar:
        return read_array(opener, layout, dt, cell, where, bar)


def header_bytes(shape: tuple[int, ...], dtype: np.dtype) -> bytes:
    """The .npy header of a C-ordered array (version 1.0, or 2.0 when it needs more room):
    the same bytes on every rank, so each knows where the data starts."""
    d = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    buf = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(buf, d)
    except ValueError:
        buf = io.BytesIO()
        np.lib.format.write_array_header_2_0(buf, d)
    return buf.getvalue()


def write_runs(fd: int, host: np.ndarray, box: Any, shape: tuple[int, ...], base: int) -> int:
    """Write ``host`` (C-contiguous, the values of ``box``) into a C-ordered file of ``shape``
    whose data starts at byte ``base``: one ``pwrite`` per run. Returns the bytes written."""
    n, length, axis = runs(box, shape)
    size = host.dtype.itemsize
    rows = np.ascontiguousarray(host).reshape(n, length).view(np.uint8)
    for i, start in enumerate(run_starts(box, shape, axis)):
        write_at(fd, memoryview(rows[i]), base + start * size)
    return n * length * size


def _ready(x: _array.Array) -> _array.Array:
    """``x``, or ``x`` moved to split 0 (one all-to-all) when split along an axis k > 0
    whose runs (a block's extent along k times the later axes) are shorter than RUN_BYTES."""
    k = x.split
    if k is None or k == 0 or x.comm.size == 1:
        return x
    shortest = min((c for c in x.counts if c), default=0)
    if shortest * math.prod(x.shape[k + 1 :]) * x.dtype.itemsize >= RUN_BYTES:
        return x
    target = Layout.balanced(x.shape, 0, x.comm.size)
    block = redistribute_block(x.local, x.layout, target, x.comm, x.backend)
    return _array.Array._new(block, target, x.comm, x.backend)


def save_npy(x, path, *, chunk_bytes=None, progress=False) -> None:
    """Save ``x`` as a ``.npy`` file (C order), every rank writing its slab in parallel.

    Rank 0 writes the header and sizes the file, then each rank writes its block's bytes at
    their offset: a block of a split along axis 0 is one byte range; along an axis k > 0 it
    is one run per index of the earlier axes, written as they are when long, else after
    moving the array to split 0. A replicated array is written once, each rank writing a
    share of its rows.

    Communication: two broadcasts (the temporary's name), one allgather (every part
    written), two broadcasts (the rename); one all-to-all for short runs. The file appears
    under ``path`` only when complete.
    """
    func = "save_npy"
    check_array(x, func)
    budget = check_budget(chunk_bytes, func)
    header = header_bytes(x.shape, x.dtype)
    total = len(header) + x.size * x.dtype.itemsize
    x = _ready(x)
    comm = x.comm
    part = my_part(x.layout, comm.rank, comm.size)

    def create(tmp: str) -> None:
        with open(tmp, "xb") as f:
            f.write(header)
            f.truncate(total)

    mine = volume(part[0]) * x.dtype.itemsize if part else 0
    with AtomicSave(path, func, comm, create) as save:
        with save.part(mine), Progress(progress, comm, mine, func) as bar:
            if part is not None:
                box, origin = part
                cell = cell_shape(x.shape, x.dtype.itemsize, budget)
                fd = os.open(save.tmp, os.O_WRONLY)
                try:
                    for piece, host in block_pieces(x.local, origin, box, cell, x.backend):
                        bar.update(write_runs(fd, host, piece, x.shape, len(header)))
                finally:
                    os.close(fd)
        save.finish()
