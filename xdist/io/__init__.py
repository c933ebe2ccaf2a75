"""Loading and saving distributed arrays by slab: HDF5, Zarr, NetCDF, ``.npy`` and CSV.

Each rank reads only the part of the file it holds (its slab, for any split axis), so a load
needs the memory of the block plus one piece (``chunk_bytes``, 64 MiB by default), never the
whole file. Saves write in parallel where the format allows it (``.npy``, Zarr, CSV) and rank
by rank otherwise (HDF5 and NetCDF from the PyPI wheels), always under a temporary name that
is renamed once every rank's part is written (the next save of a path removes what a killed
save of it left). Errors (a missing file, dataset or variable, a dtype outside the standard,
a path that cannot be written, a failed write) are raised alike on every rank; I/O errors
name the function, the path and the cause (``ENOSPC``, ``EACCES``, ...). NetCDF values are
decoded by the CF conventions as xarray decodes them.

h5py, zarr and netCDF4 (or h5netcdf) are optional: ``pip install 'xdist-array[io]'``.
"""

from __future__ import annotations

import os
from typing import Any

from .._ops.slabs import from_sliceable, is_lazy_array
from ._csv import load_csv, save_csv
from ._hdf5 import load_hdf5, save_hdf5
from ._netcdf import load_netcdf, save_netcdf
from ._npy import load_npy, save_npy
from ._zarr import load_zarr, save_zarr

__all__ = [
    "from_sliceable",
    "is_lazy_array",
    "load",
    "load_csv",
    "load_hdf5",
    "load_netcdf",
    "load_npy",
    "load_zarr",
    "save",
    "save_csv",
    "save_hdf5",
    "save_netcdf",
    "save_npy",
    "save_zarr",
]

# The format of each file extension.
FORMATS = {
    ".npy": "npy",
    ".h5": "hdf5",
    ".hdf5": "hdf5",
    ".hdf": "hdf5",
    ".he5": "hdf5",
    ".nc": "netcdf",
    ".nc4": "netcdf",
    ".cdf": "netcdf",
    ".netcdf": "netcdf",
    ".zarr": "zarr",
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "csv",
}
_LOAD = {
    "npy": load_npy,
    "hdf5": load_hdf5,
    "netcdf": load_netcdf,
    "zarr": load_zarr,
    "csv": load_csv,
}
_SAVE = {
    "npy": save_npy,
    "hdf5": save_hdf5,
    "netcdf": save_netcdf,
    "zarr": save_zarr,
    "csv": save_csv,
}


def _format(path: Any, func: str) -> tuple[str, str]:
    """The format of ``path`` by its extension, and the extension."""
    ext = os.path.splitext(os.fspath(path).rstrip("/" + os.sep))[1].lower()
    if ext not in FORMATS:
        raise ValueError(
            f"{func}: cannot tell the format of {os.fspath(path)!r} from its extension; "
            f"known: {', '.join(FORMATS)} (or call load_npy, load_hdf5, ... directly)"
        )
    return FORMATS[ext], ext


def load(path, *args, **kwargs):
    """Load ``path`` with the loader of its extension (``.npy``, ``.h5``/``.hdf5``,
    ``.nc``, ``.zarr``, ``.csv``/``.txt``/``.tsv``); ``args`` and ``kwargs`` go to it, e.g.
    ``load("data.h5", "temperature", split=0)``. A ``.tsv`` file is read tab-delimited."""
    fmt, ext = _format(path, "load")
    if ext == ".tsv":
        kwargs.setdefault("delimiter", "\t")
    return _LOAD[fmt](path, *args, **kwargs)


def save(x, path, *args, **kwargs) -> None:
    """Save ``x`` to ``path`` with the saver of its extension (see ``load``), e.g.
    ``save(x, "data.h5", "temperature")``."""
    fmt, ext = _format(path, "save")
    if ext == ".tsv":
        kwargs.setdefault("delimiter", "\t")
    return _SAVE[fmt](x, path, *args, **kwargs)
