"""NetCDF-4 files through netCDF4 (or h5netcdf when netCDF4 is not installed).

Loads: each rank opens the file read-only and reads its slab of the variable. By default
the values are decoded by the CF conventions as xarray decodes them (``mask_and_scale=True``):
``_Unsigned`` integers reinterpreted, ``_FillValue`` and ``missing_value`` masked to NaN,
``scale_factor`` and ``add_offset`` applied, in the floating dtype xarray picks
(``_Decoding`` follows ``xarray.coding.variables`` step by step). ``mask_and_scale=False``
gives the values as stored.

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
from ._files import EXTRA, AtomicSave, Progress, described, reading

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


# -- CF decoding, as xarray's CFMaskCoder and CFScaleOffsetCoder ------------------------------
_CF = ("missing_value", "_FillValue", "scale_factor", "add_offset", "_Unsigned")


def _attributes(var: Any) -> dict:
    """The variable's CF decoding attributes as JSON values: a str as itself, numbers as
    ``[dtype, shape, values]`` so that every rank rebuilds the same NumPy scalar or array
    (xarray picks the result's dtype from the attributes' types)."""
    names = var.ncattrs() if hasattr(var, "ncattrs") else list(var.attrs)
    get = var.getncattr if hasattr(var, "getncattr") else var.attrs.__getitem__
    out: dict[str, Any] = {}
    for name in _CF:
        if name not in names:
            continue
        value = get(name)
        if isinstance(value, bytes):
            value = value.decode()
        if isinstance(value, str):
            out[name] = value
            continue
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            continue  # not a number xarray could compare or multiply by
        out[name] = [a.dtype.str, list(a.shape), a.ravel().tolist()]
    return out


def _rebuilt(value: Any) -> Any:
    """An attribute of ``_attributes`` as netCDF4 gives it (a NumPy scalar when scalar)."""
    if isinstance(value, str):
        return value
    descr, shape, values = value
    a = np.asarray(values, dtype=np.dtype(descr)).reshape(shape)
    return a[()] if a.ndim == 0 else a


def _choose_float_dtype(dtype: np.dtype, attrs: dict) -> np.dtype:
    """xarray's ``_choose_float_dtype``: a float dtype that holds ``dtype``'s values once
    scaled by the attributes."""
    scale, offset = attrs.get("scale_factor"), attrs.get("add_offset")
    if scale is not None or offset is not None:
        scale_type = np.dtype(type(scale)) if scale is not None else None
        offset_type = np.dtype(type(offset)) if offset is not None else None
        if (
            scale is not None
            and offset is not None
            and offset_type == scale_type
            and scale_type in (np.float32, np.float64)
        ):
            if dtype.itemsize == 4 and np.issubdtype(dtype, np.integer):
                return np.dtype(np.float64)
            return np.dtype(scale_type)
        if offset is not None:
            return np.dtype(np.float64)
        return np.dtype(scale_type)
    if dtype.itemsize <= 4 and np.issubdtype(dtype, np.floating):
        return np.dtype(np.float32)
    if dtype.itemsize <= 2 and np.issubdtype(dtype, np.integer):
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _promoted(dtype: np.dtype) -> tuple[np.dtype, Any]:
    """xarray's ``dtypes.maybe_promote`` for numbers: the dtype that holds NaN, and NaN."""
    if dtype.kind in "iu":
        dtype = np.dtype(np.float32 if dtype.itemsize <= 2 else np.float64)
    return dtype, dtype.type(np.nan)


class _Decoding:
    """The CF decoding of a variable stored as ``stored`` with the attributes ``attrs``:
    xarray's ``CFMaskCoder.decode`` (``_Unsigned``, then the fill values), then
    ``CFScaleOffsetCoder.decode``, with the same dtypes and the same operations in the same
    order, so the values agree bit for bit. ``dtype``: the decoded dtype."""

    def __init__(self, stored: np.dtype, attrs: dict) -> None:
        attrs = {k: _rebuilt(v) for k, v in attrs.items()}
        dtype = stored
        self.view: np.dtype | None = None  # _Unsigned: the stored bits reinterpreted
        self.fills: set = set()
        self.mask: tuple[np.dtype, Any] | None = None
        raw_fills = {k: attrs[k] for k in ("missing_value", "_FillValue") if k in attrs}
        for k in list(raw_fills):
            kept = {fv for fv in np.ravel(raw_fills[k]) if not _is_nan(fv)}
            if not kept and np.issubdtype(stored, np.integer):
                del raw_fills[k]  # a NaN fill of integers: xarray drops it
            else:
                self.fills |= kept
        unsigned = attrs.get("_Unsigned")
        if unsigned is not None and dtype.kind in "iu":
            fill = raw_fills.get("_FillValue")
            if dtype.kind == "i" and unsigned == "true":
                self.view = np.dtype(f"u{dtype.itemsize}")
                if fill is not None:
                    self.fills.discard(fill)
                    self.fills.add(np.array(fill, dtype=dtype).view(self.view).item())
            elif dtype.kind == "u" and unsigned == "false":
                self.view = np.dtype(f"i{dtype.itemsize}")
                if fill is not None:
                    self.fills.discard(fill)
                    self.fills.add(self.view.type(fill))
            dtype = self.view or dtype
        packed = "scale_factor" in attrs or "add_offset" in attrs
        if self.fills:
            if packed:
                mask_dtype, nan = _choose_float_dtype(dtype, attrs), np.nan
            else:
                mask_dtype, nan = _promoted(dtype)
            self.mask = (np.dtype(mask_dtype), nan)
            dtype = np.dtype(mask_dtype)
        self.scale: tuple[Any, Any, np.dtype] | None = None
        if packed:
            scale, offset = attrs.get("scale_factor"), attrs.get("add_offset")
            if np.ndim(scale) > 0:
                scale = np.asarray(scale).item()
            if np.ndim(offset) > 0:
                offset = np.asarray(offset).item()
            if not raw_fills:
                dtype = _choose_float_dtype(dtype, attrs)
            self.scale = (scale, offset, np.dtype(dtype))
        self.dtype = np.dtype(dtype)
        self.active = self.view is not None or self.mask is not None or self.scale is not None

    def __call__(self, data: np.ndarray) -> np.ndarray:
        if self.view is not None:
            data = np.asarray(data, dtype=self.view)
        if self.mask is not None:
            dtype, nan = self.mask
            data = np.array(data, dtype=dtype, copy=True)
            condition: Any = False
            for fv in self.fills:
                condition |= data == fv
            data[condition] = nan
        if self.scale is not None:
            scale, offset, dtype = self.scale
            data = data.astype(dtype=dtype, copy=True)
            if scale is not None:
                data *= scale
            if offset is not None:
                data += offset
        return data


def _is_nan(value: Any) -> bool:
    try:
        return bool(np.isnan(value))
    except TypeError:
        return False


class _DecodedSource:
    """Reads boxes of a NetCDF variable's raw values and decodes them (``_Decoding``)."""

    copies = 4  # netCDF4's buffer and result, the decoded copy, the mask

    def __init__(self, var: Any, decoding: _Decoding) -> None:
        self.var, self.decoding = var, decoding

    def read(self, box: Any, out: np.ndarray, at: Any) -> None:
        raw = np.asarray(self.var[box] if box else self.var[...])
        out[at] = self.decoding(raw)


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
    except PermissionError as exc:
        raise described(exc, func, path, "read") from exc
    except OSError as exc:
        raise OSError(f"{func}: cannot open {path!r} as a NetCDF file: {exc}") from None


def _inspect(path: str, variable: str, func: str) -> dict:
    with _open(path, func) as ds, reading(func, path):
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
            "attrs": _attributes(var) if dtype.kind in "iuf" else {},
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
    mask_and_scale=True,
) -> _array.Array:
    """Load the variable ``variable`` of the NetCDF file ``path``, each rank reading only its
    slab along ``split`` (``None``: the whole array on every rank).

    ``mask_and_scale=True`` (the default) decodes the values by the CF conventions as
    ``xarray.open_dataset`` does: integers with ``_Unsigned`` reinterpreted, values equal to
    ``_FillValue`` or ``missing_value`` set to NaN, ``scale_factor`` and ``add_offset``
    applied; the dtype is the floating one xarray picks (``int16`` with ``float32`` factors:
    ``float32``; a fill value alone: ``float32`` for integers of up to 16 bits, else
    ``float64``). A variable without these attributes is read as stored.
    ``mask_and_scale=False`` gives the values as stored.

    ``dtype`` (a conversion of the decoded values), ``device``, ``comm``, ``chunk_bytes``
    and ``progress`` are as for ``load_npy``.

    Communication: rank 0 reads the variable's metadata and broadcasts it (two broadcasts);
    one allgather agrees that every rank's read succeeded.
    """
    func = "load_netcdf"
    _dataset_class(func)  # the ImportError naming the extra comes first
    where = Placement(comm, device, func)
    budget = check_budget(chunk_bytes, func)
    path = os.fspath(path)
    if not isinstance(variable, str) or not variable:
        raise TypeError(f"{func}: variable must be a non-empty str, got {variable!r}")
    if not isinstance(mask_and_scale, bool):
        raise TypeError(f"{func}: mask_and_scale must be a bool, got {mask_and_scale!r}")
    meta = from_root(lambda: _inspect(path, variable, func), where.comm)
    shape, stored = tuple(meta["shape"]), np.lib.format.descr_to_dtype(meta["descr"])
    decoding = _Decoding(stored, meta["attrs"] if mask_and_scale else {})
    dt = load_dtype(decoding.dtype, dtype, where.backend, func, f"the variable {variable!r}")
    layout = where.layout(shape, split, func, zero_d_replicated=True)
    # netCDF4 builds each piece twice (a buffer, then the result): half-size pieces; a
    # decoded piece is held up to four times (those two, the decoded copy, its mask).
    copies = _DecodedSource.copies if decoding.active else 2
    itemsize = max(stored.itemsize, decoding.dtype.itemsize)
    cell = cell_shape(shape, itemsize, max(1, budget // copies), meta["chunks"])

    @contextlib.contextmanager
    def opener():
        with _open(path, func) as ds:
            var = _variable(ds, variable, path, func)
            yield _DecodedSource(var, decoding) if decoding.active else SliceSource(var)

    with Progress(
        progress, where.comm, math.prod(layout.local_shape(0)) * dt.itemsize, func
    ) as bar:
        return read_array(opener, layout, dt, cell, where, bar)


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

    part = my_part(x.layout, comm.rank, comm.size, shared=False)
    writers = [my_part(x.layout, r, comm.size, shared=False) is not None for r in range(comm.size)]
    mine = volume(part[0]) * x.dtype.itemsize if part else 0

    with AtomicSave(path, func, comm, create) as save:

        def write() -> None:
            with Progress(progress, comm, mine, func) as bar, open_dataset(save.tmp, "a") as ds:
                var = ds[variable]
                if hasattr(var, "set_auto_maskandscale"):
                    var.set_auto_maskandscale(False)
                write_part(var, x, part, budget, save.info["chunks"], bar)

        save.in_turns(writers, write, mine)
        save.finish()
