"""NetCDF-4 files through netCDF4 (or h5netcdf when netCDF4 is not installed).

Loads: each rank opens the file read-only and reads its slab of the variable. Values are
returned as stored: no masking of fill values and no ``scale_factor``/``add_offset`` (as
h5py and h5netcdf read them); a packed variable is unpacked by the caller.

Saves: the NetCDF library of the PyPI wheels is serial, so the ranks write in turns, as
HDF5 saves do (rank 0 creates the file, the dimensions and the variable under a temporary
name; each rank with data then opens it, writes its slab and closes it; one allgather a
turn). NetCDF has no bool type: a bool array is refused before anything is written.
Complex values are stored as netCDF4's ``auto_complex`` compound (nc-complex).
"""

from __future__ import annotations

import contextlib
import math
import os
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout, volume
from .._movement.agreement import from_root
from .._ops.slabs import (
    SliceSource,
    cell_shape,
    check_budget,
    check_split,
    context,
    load_dtype,
    my_part,
    read_array,
    write_part,
)
from .._validation import check_array
from ._files import EXTRA, AtomicSave, Progress

__all__ = ["load_netcdf", "save_netcdf"]


def _dataset_class(func: str) -> Any:
    """A function ``(path, mode) -> dataset`` of netCDF4, else of h5netcdf's legacy API."""
    try:
        import netCDF4
    except ImportError:
        pass
    else:

        def open_netcdf4(path: str, mode: str, **kw: Any) -> Any:
            try:
                return netCDF4.Dataset(path, mode, auto_complex=True, **kw)
            except TypeError:  # netCDF4 < 1.7 has no auto_complex
                return netCDF4.Dataset(path, mode, **kw)

        return open_netcdf4
    try:
        from h5netcdf import legacyapi
    except ImportError as exc:
        raise ImportError(f"{func} needs netCDF4 (or h5netcdf), not installed: {EXTRA}") from exc
    return lambda path, mode, **kw: legacyapi.Dataset(path, mode)


def _variable(ds: Any, name: str, path: str, func: str) -> Any:
    """The variable ``name`` (a path such as ``"group/var"`` is allowed), raw values."""
    try:
        var = ds[name]
    except (KeyError, IndexError):
        var = None
    if var is None or not all(hasattr(var, a) for a in ("dimensions", "dtype", "shape")):
        raise KeyError(f"{func}: no variable {name!r} in {path!r}; it holds {list(ds.variables)}")
    if hasattr(var, "set_auto_maskandscale"):
        var.set_auto_maskandscale(False)
    return var


def _open(path: str, func: str) -> Any:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{func}: no file {path!r}")
    try:
        return _dataset_class(func)(path, "r")
    except OSError as exc:
        raise OSError(f"{func}: cannot open {path!r} as a NetCDF file: {exc}") from None


def _inspect(path: str, variable: str, func: str) -> dict:
    with _open(path, func) as ds:
        var = _variable(ds, variable, path, func)
        try:
            dtype = np.dtype(var.dtype)
        except TypeError:
            dtype = np.dtype(object)
        chunking = var.chunking() if hasattr(var, "chunking") else getattr(var, "chunks", None)
        return {
            "shape": [int(n) for n in var.shape],
            "descr": np.lib.format.dtype_to_descr(dtype),
            "chunks": list(chunking) if isinstance(chunking, (list, tuple)) else None,
        }


def load_netcdf(
    path,
    variable,
    split=0,
    *,
    dtype=None,
    device=None,
    comm=None,
    chunk_bytes=None,
    progress=False,
) -> _array.Array:
    """Load the variable ``variable`` of the NetCDF file ``path``, each rank reading only its
    slab along ``split`` (``None``: the whole array on every rank). Values are as stored
    (fill values unmasked, packed values not unscaled).

    ``dtype``, ``device``, ``comm``, ``chunk_bytes`` and ``progress`` are as for
    ``load_npy``.

    Communication: rank 0 reads the variable's metadata and broadcasts it (two broadcasts);
    one allgather agrees that every rank's read succeeded.
    """
    func = "load_netcdf"
    _dataset_class(func)  # the ImportError naming the extra comes first
    comm, backend, dev = context(comm, device, func)
    budget = check_budget(chunk_bytes, func)
    path = os.fspath(path)
    if not isinstance(variable, str) or not variable:
        raise TypeError(f"{func}: variable must be a non-empty str, got {variable!r}")
    meta = from_root(lambda: _inspect(path, variable, func), comm)
    shape, stored = tuple(meta["shape"]), np.lib.format.descr_to_dtype(meta["descr"])
    dt = load_dtype(stored, dtype, backend, func, f"the variable {variable!r}")
    layout = Layout.balanced(shape, check_split(split, len(shape), func), comm.size)
    # netCDF4 builds each piece twice (a buffer, then the result): half-size pieces.
    cell = cell_shape(shape, stored.itemsize, max(1, budget // 2), meta["chunks"])

    @contextlib.contextmanager
    def opener():
        with _open(path, func) as ds:
            yield SliceSource(_variable(ds, variable, path, func))

    with Progress(progress, comm, math.prod(layout.local_shape(0)) * dt.itemsize, func) as bar:
        return read_array(opener, layout, dt, cell, comm, backend, dev, bar)


def save_netcdf(
    x,
    path,
    variable,
    *,
    dimensions=None,
    chunk_bytes=None,
    progress=False,
    **options,
) -> None:
    """Save ``x`` as the variable ``variable`` of a new NetCDF-4 file ``path`` (replacing a
    file of that name), with dimensions named ``dimensions`` (default ``dim_0``, ``dim_1``,
    ...). ``options`` go to ``createVariable`` (``zlib``, ``chunksizes``, ...).

    The ranks write in turns, one after another (the wheels' NetCDF is serial); a replicated
    array is written by rank 0 alone. The file is made under a temporary name and renamed
    when every part is written. A bool array raises TypeError (NetCDF has no bool type).

    Communication: two broadcasts (the temporary), one allgather per rank with data (its
    turn), two broadcasts (the rename).
    """
    func = "save_netcdf"
    check_array(x, func)
    open_dataset = _dataset_class(func)
    if not isinstance(variable, str) or not variable:
        raise TypeError(f"{func}: variable must be a non-empty str, got {variable!r}")
    if x.dtype == np.bool_:
        raise TypeError(f"{func}: NetCDF has no bool type; save x.astype(xdist.uint8) instead")
    dims = tuple(f"dim_{i}" for i in range(x.ndim)) if dimensions is None else dimensions
    if (
        not isinstance(dims, (tuple, list))
        or len(dims) != x.ndim
        or not all(isinstance(d, str) and d for d in dims)
        or len(set(dims)) != len(dims)
    ):
        raise ValueError(
            f"{func}: dimensions must be {x.ndim} distinct names, one per axis, got {dimensions!r}"
        )
    budget = check_budget(chunk_bytes, func)
    comm = x.comm

    def create(tmp: str) -> dict:
        with open_dataset(tmp, "w", format="NETCDF4") as ds:
            for name, n in zip(dims, x.shape):
                ds.createDimension(name, n)
            var = ds.createVariable(variable, x.dtype, tuple(dims), **options)
            chunking = var.chunking() if hasattr(var, "chunking") else None
        return {"chunks": list(chunking) if isinstance(chunking, (list, tuple)) else None}

    save = AtomicSave(path, func, comm, create)
    part = my_part(x.layout, comm.rank, comm.size, shared=False)
    writers = [my_part(x.layout, r, comm.size, shared=False) is not None for r in range(comm.size)]
    mine = volume(part[0]) * x.dtype.itemsize if part else 0

    def write() -> None:
        with Progress(progress, comm, mine, func) as bar, open_dataset(save.tmp, "a") as ds:
            var = ds[variable]
            if hasattr(var, "set_auto_maskandscale"):
                var.set_auto_maskandscale(False)
            write_part(var, x, part, budget, save.info["chunks"], bar)

    save.in_turns(writers, write)
    save.finish()
