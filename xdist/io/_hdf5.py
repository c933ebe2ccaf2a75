"""HDF5 files through h5py.

Loads: each rank opens the file read-only and reads its slab with ``read_direct`` (straight
into the block), in pieces aligned to the dataset's chunks.

Saves: the HDF5 library of h5py's PyPI wheels is serial (no MPI-IO), and two processes must
not write one file at once. So the ranks write in turns, in rank order: rank 0 creates the
file and the dataset under a temporary name, then each rank with data opens the file, writes
its slab and closes it, and the ranks agree before the next turn (one allgather a turn). The
disk sees one writer at a time; no rank holds more than its block. When h5py is built with
MPI (``h5py.get_config().mpi``) every rank opens the file together with the ``mpio`` driver
and writes its slab at once.
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Any

import numpy as np

from .. import _array
from .._layout import volume
from .._movement.agreement import from_root
from .._ops.slabs import (
    SliceSource,
    cell_shape,
    check_budget,
    load_dtype,
    my_part,
    read_array,
    write_part,
)
from .._placement import Placement
from .._validation import check_array
from ._files import AtomicSave, Progress, described, error_number, require, stale_pattern

__all__ = ["load_hdf5", "save_hdf5"]


def _datasets(h5py: Any, f: Any, limit: int = 20) -> list[str]:
    """The names of (at most ``limit``) datasets in the file, for error messages."""
    names: list[str] = []

    def visit(name: str, obj: Any) -> None:
        if isinstance(obj, h5py.Dataset) and len(names) < limit:
            names.append(name)

    f.visititems(visit)
    return names


def _open(h5py: Any, path: str, func: str, mode: str = "r") -> Any:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{func}: no file {path!r}")
    try:
        return h5py.File(path, mode)
    except OSError as exc:
        if error_number(exc) is not None:  # permission denied, ...: the cause, not the format
            raise described(exc, func, path, "read" if mode == "r" else "write") from exc
        raise OSError(f"{func}: cannot open {path!r} as an HDF5 file: {exc}") from None


def _inspect(h5py: Any, path: str, dataset: str, func: str) -> dict:
    """The dataset's shape, dtype and chunks (rank 0), or a clear error."""
    with _open(h5py, path, func) as f:
        obj = f.get(dataset)
        if not isinstance(obj, h5py.Dataset):
            what = "a group, not a dataset" if obj is not None else "not there"
            raise KeyError(
                f"{func}: {dataset!r} in {path!r} is {what}; its datasets: {_datasets(h5py, f)}"
            )
        if obj.shape is None:
            raise TypeError(f"{func}: the dataset {dataset!r} in {path!r} is empty (no shape)")
        return {
            "shape": list(obj.shape),
            "descr": np.lib.format.dtype_to_descr(np.dtype(obj.dtype.str)),
            "chunks": list(obj.chunks) if obj.chunks else None,
        }


def _check_name(name: Any, func: str, what: str) -> str:
    if not isinstance(name, str) or not name.strip("/"):
        raise TypeError(f"{func}: {what} must be a non-empty str, got {name!r}")
    return name


def load_hdf5(
    path,
    dataset,
    split=0,
    *,
    dtype=None,
    device=None,
    comm=None,
    chunk_bytes=None,
    progress=False,
) -> _array.Array:
    """Load the dataset ``dataset`` of the HDF5 file ``path``, each rank reading only its
    slab along ``split`` (``None``: the whole array on every rank).

    ``dtype``, ``device``, ``comm``, ``chunk_bytes`` (the most bytes read at once beyond the
    block, default 64 MiB; pieces are aligned to the dataset's chunks) and ``progress`` are
    as for ``load_npy``.

    Communication: rank 0 reads the dataset's metadata and broadcasts it (two broadcasts);
    one allgather agrees that every rank's read succeeded. A missing file or dataset or a
    dtype outside the standard raises the same error on every rank.
    """
    func = "load_hdf5"
    h5py = require("h5py", func)
    where = Placement(comm, device, func)
    budget = check_budget(chunk_bytes, func)
    path, dataset = os.fspath(path), _check_name(dataset, func, "dataset")
    meta = from_root(lambda: _inspect(h5py, path, dataset, func), where.comm)
    shape, stored = tuple(meta["shape"]), np.lib.format.descr_to_dtype(meta["descr"])
    dt = load_dtype(stored, dtype, where.backend, func, f"the dataset {dataset!r}")
    layout = where.layout(shape, split, func, zero_d_replicated=True)
    cell = cell_shape(shape, stored.itemsize, budget, meta["chunks"])

    @contextlib.contextmanager
    def opener():
        with _open(h5py, path, func) as f:
            yield SliceSource(f[dataset])

    with Progress(
        progress, where.comm, math.prod(layout.local_shape(0)) * dt.itemsize, func
    ) as bar:
        return read_array(opener, layout, dt, cell, where, bar)


def save_hdf5(x, path, dataset, *, mode="w", chunk_bytes=None, progress=False, **options) -> None:
    """Save ``x`` as the dataset ``dataset`` of the HDF5 file ``path``.

    ``mode="w"`` makes a new file (replacing one of that name); ``mode="a"`` adds the
    dataset to the file (replacing a dataset of that name), creating the file if needed.
    ``options`` go to h5py's ``create_dataset`` (``chunks``, ``compression``, ...).

    The ranks write in turns, one after another (h5py's wheels have no parallel HDF5); with
    an MPI build of h5py they write together through MPI-IO. A replicated array is written
    by rank 0 alone. The file (or, with ``mode="a"``, the dataset) is made under a temporary
    name and renamed when every rank's part is written, so a failed save leaves nothing
    under ``path`` (or ``dataset``).

    Communication: two broadcasts (the temporary), one allgather per rank with data (its
    turn), two broadcasts (the rename); with ``mode="a"`` two broadcasts more.
    """
    func = "save_hdf5"
    check_array(x, func)
    h5py = require("h5py", func)
    dataset = _check_name(dataset, func, "dataset")
    if mode not in ("w", "a"):
        raise ValueError(f"{func}: mode must be 'w' or 'a', got {mode!r}")
    budget = check_budget(chunk_bytes, func)
    comm, path = x.comm, os.path.abspath(os.fspath(path))
    if mode == "a" and from_root(lambda: os.path.isfile(path), comm):
        save = _append(h5py, x, path, dataset, options, func)
    elif h5py.get_config().mpi and comm.size > 1 and hasattr(comm, "mpi_comm"):
        return _save_mpio(h5py, x, path, dataset, options, budget, progress, func)
    else:
        save = _new_file(h5py, x, path, dataset, options, func)
    with save:
        part = my_part(x.layout, comm.rank, comm.size, shared=False)
        writers = [
            my_part(x.layout, r, comm.size, shared=False) is not None for r in range(comm.size)
        ]
        name = save.info["dataset"]
        mine = volume(part[0]) * x.dtype.itemsize if part else 0

        def write() -> None:
            with (
                Progress(progress, comm, mine, func) as bar,
                h5py.File(save.info["file"], "r+") as f,
            ):
                write_part(f[name], x, part, budget, save.info["chunks"], bar)

        save.in_turns(writers, write, mine)
        save.finish()


def _create(f: Any, name: str, x: _array.Array, options: dict) -> list | None:
    dset = f.create_dataset(name, shape=x.shape, dtype=x.dtype, **options)
    return list(dset.chunks) if dset.chunks else None


def _new_file(h5py, x, path, dataset, options, func) -> AtomicSave:
    """A new file under a temporary name, renamed at the end."""

    def create(tmp: str) -> dict:
        with h5py.File(tmp, "w-") as f:
            chunks = _create(f, dataset, x, options)
        return {"file": tmp, "dataset": dataset, "chunks": chunks}

    return AtomicSave(path, func, x.comm, create)


def _append(h5py, x, path, dataset, options, func) -> AtomicSave:
    """A dataset added to an existing file under a temporary name, moved to ``dataset`` at
    the end (the file itself is not copied)."""

    def create(tmp: str) -> dict:
        with _open(h5py, path, func, "r+") as f:
            there = f.get(dataset)
            if there is not None and not isinstance(there, h5py.Dataset):
                raise ValueError(f"{func}: {dataset!r} in {path!r} is a group, not a dataset")
            _remove_stale(h5py, f, dataset)
            chunks = _create(f, tmp, x, options)
        return {"file": path, "dataset": tmp, "chunks": chunks}

    def commit(tmp: str, final: str) -> None:
        with h5py.File(final, "r+") as f:
            if dataset in f:
                del f[dataset]
            f.move(tmp, dataset)

    def discard(tmp: str) -> None:
        with contextlib.suppress(Exception), h5py.File(path, "r+") as f:
            if tmp in f:
                del f[tmp]

    return AtomicSave(
        path,
        func,
        x.comm,
        create,
        temporary=lambda final, token: f"{dataset}.{token}.xdist-tmp",
        commit=commit,
        discard=discard,
    )


def _remove_stale(h5py: Any, f: Any, dataset: str) -> None:
    """Delete the temporary datasets that earlier saves of ``dataset`` left in its group (a
    process killed mid-save cannot): ``<name>.<16 hex digits>.xdist-tmp``, no other."""
    group_name, _, name = dataset.strip("/").rpartition("/")
    group = f.get(group_name) if group_name else f
    if not isinstance(group, h5py.Group):
        return
    pattern = stale_pattern(name)
    for key in [k for k in group if pattern.fullmatch(k) and not k.startswith(".")]:
        del group[key]


def _save_mpio(h5py, x, path, dataset, options, budget, progress, func) -> None:
    """Every rank writes its slab at once through MPI-IO (an MPI build of h5py). Opening
    the file and creating the dataset are collective in HDF5 itself: an error there on one
    rank alone cannot be agreed on first (a limit of parallel HDF5)."""
    comm = x.comm

    def create(tmp: str) -> dict:
        open(tmp, "xb").close()  # the target directory is writable and the name free
        return {}

    part = my_part(x.layout, comm.rank, comm.size, shared=True)
    mine = volume(part[0]) * x.dtype.itemsize if part else 0
    with AtomicSave(path, func, comm, create) as save:
        with save.part(mine), Progress(progress, comm, mine, func) as bar:
            with h5py.File(save.tmp, "w", driver="mpio", comm=comm.mpi_comm) as f:
                dset = f.create_dataset(dataset, shape=x.shape, dtype=x.dtype, **options)
                if part is not None:
                    write_part(dset, x, part, budget, dset.chunks, bar)
        save.finish()
