"""Creation functions of the standard, each with two more keywords: ``split=`` and ``comm=``.

Every function builds only this rank's block, from global arguments that are the same on
every rank, so creating an array sends no message (``asarray`` of an xdist array asked for
another layout, and ``meshgrid`` of split inputs laid out differently, are the exceptions;
they say so). Values that depend on the position (``arange``, ``linspace``, ``eye``,
``tril``) are computed from global indices, so a block equals the same slice of the array
made on one process.

``split``: the axis to split the result along, in balanced blocks, or ``None`` for a full
copy on every rank. When it is not given, the configured default applies
(``xdist.get_config().default_split``, from ``XDIST_DEFAULT_SPLIT``; normally ``None``), and
only to results that have that axis (smaller results are replicated). The ``*_like``
functions, ``asarray`` of an xdist array and ``tril``/``triu`` keep the layout of their input
instead. ``comm``: the communicator (``None``: ``xdist.default_comm()``). Both are resolved
by ``_placement``, as for every function that makes a new array.
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _array
from ._config import edition_sequence
from ._dtypes import ALL_DTYPES, as_dtype, complex128, float64, int64
from ._layout import Layout
from ._movement.agreement import (
    DEVICE_KINDS,
    MAX_DIMS,
    Rows,
    agree_on_errors,
    agree_on_metadata,
    checksum,
    device_code,
    dtype_code,
)
from ._movement.collectives import differing_ranks
from ._movement.gathers import implicit_gather
from ._movement.redistribute import redistribute_block
from ._ops.slabs import from_sliceable, is_lazy_array
from ._pending import keep, keep_result
from ._placement import DEFAULT, Placement, mark_unplaced, resolve_split, span
from ._runtime import default_backend
from ._transport.comm import Communicator
from ._validation import as_number, check_array, check_int, check_same_context
from .backends.base import Backend

__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]

_SCALARS = (builtins.bool, int, float, complex)
_KIND_ORDER = "biufc"  # a fill value may go into a dtype of its kind or a later one


# -- arguments (pure: checked before anything is allocated or sent) -----------------------------
def _same_comm(x: _array.Array, comm: Any, func: str) -> None:
    if comm is not None and comm is not x._comm:
        raise ValueError(f"{func}: comm must be the communicator of x (or None)")


def _shape(shape: Any, func: str) -> tuple[int, ...]:
    if isinstance(shape, Sequence) and not isinstance(shape, str):
        return tuple(check_int(n, func, "shape", 0) for n in shape)
    return (check_int(shape, func, "shape", 0),)


def _dtype(dtype: Any, func: str, default: np.dtype) -> np.dtype:
    return default if dtype is None else as_dtype(dtype, func)


def _default(kind: str, backend: Backend | None = None) -> np.dtype:
    """The backend's default dtype of ``kind`` (a key of ``default_dtypes()``): float64 for
    NumPy, float32 for Torch."""
    return (default_backend() if backend is None else backend).default_dtypes()[kind]


def _scalar_dtype(value: Any, backend: Backend | None = None) -> np.dtype:
    """The standard's dtype for a Python scalar: bool, or the backend's default integral,
    real floating or complex floating dtype."""
    if isinstance(value, builtins.bool):
        return np.dtype(builtins.bool)
    if isinstance(value, int):
        return _default("integral", backend)
    kind = "real floating" if isinstance(value, float) else "complex floating"
    return _default(kind, backend)


def _fill_value(value: Any) -> tuple[Any, np.dtype | None]:
    """``(Python scalar, its array's dtype or None)`` for a fill value: a Python scalar (a
    NumPy float64, a float, among them) as it is; a 0-d array or another NumPy scalar as
    its value and dtype (``as_number``), as NumPy, Torch and array-api-strict take one (SciPy
    fills with ``xp.asarray(constant)``)."""
    if isinstance(value, _SCALARS):
        return value, None
    number = as_number(value)
    return number, (None if number is value else value.dtype)


def _check_fill(value: Any, dtype: np.dtype, func: str) -> None:
    """A fill value must be a Python scalar whose kind fits ``dtype`` and whose value is
    representable (checked on the host, before any block exists)."""
    if not isinstance(value, _SCALARS):
        raise TypeError(
            f"{func}: fill_value must be a Python scalar or a 0-d array, got {type(value).__name__}"
        )
    kind = _scalar_dtype(value).kind
    into_bool = dtype.kind == "b" and kind != "b"
    if into_bool or _KIND_ORDER.index(kind) > _KIND_ORDER.index(dtype.kind):
        raise TypeError(f"{func}: fill_value {value!r} does not fit dtype {dtype}")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= int(value) <= info.max:
            raise OverflowError(f"{func}: fill_value {value!r} is out of range for {dtype}")


# -- empty, zeros, ones, full -------------------------------------------------------------------
def _filled(shape: Any, dtype: Any, device: Any, split: Any, comm: Any, value: Any, func: str):
    """An array of ``shape`` (default dtype: the backend's real floating one) holding
    ``value`` (``None``: uninitialized); each rank allocates only its block."""
    t = Placement(comm, device, func)
    dt = _dtype(dtype, func, t.default_dtype("real floating"))
    return _unplaced(t.filled(t.layout(_shape(shape, func), split, func), dt, value), split)


def _unplaced(x: _array.Array, split: Any) -> _array.Array:
    """``x``, noted as laid out by default where ``split`` was not given and it came out
    replicated: a write of split data may then split it (``_placement.mark_unplaced``). Its
    block is new memory that xdist has not handed out (``_pending.keep``)."""
    if split is DEFAULT and x._layout.split is None and x.ndim:
        keep(x._local)
        mark_unplaced(x)
    return x


def empty(shape, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """An uninitialized array; each rank allocates only its block."""
    return _filled(shape, dtype, device, split, comm, None, "empty")


def zeros(shape, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """An array of zeros; each rank allocates only its block."""
    return _filled(shape, dtype, device, split, comm, 0, "zeros")


def ones(shape, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """An array of ones; each rank allocates only its block."""
    return _filled(shape, dtype, device, split, comm, 1, "ones")


def full(shape, fill_value, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """An array of ``fill_value``; the dtype defaults to the scalar's (bool, int64, float64,
    complex128), or to a 0-d array's own dtype (``_fill_value``). A value of a wider kind than
    ``dtype`` (a float into an int dtype) or out of its range is an error."""
    t = Placement(comm, device, "full")
    fill_value, own = _fill_value(fill_value)
    if not isinstance(fill_value, _SCALARS):
        raise TypeError(
            f"full: fill_value must be a Python scalar or a 0-d array, got "
            f"{type(fill_value).__name__}"
        )
    dt = _dtype(dtype, "full", own if own is not None else _scalar_dtype(fill_value, t.backend))
    _check_fill(fill_value, dt, "full")
    return _unplaced(
        t.filled(t.layout(_shape(shape, "full"), split, "full"), dt, fill_value), split
    )


# -- the *_like functions -----------------------------------------------------------------------
def _like(x: Any, dtype: Any, device: Any, split: Any, comm: Any, func: str):
    """Placement, layout and dtype of a result shaped like ``x``: by default the layout of ``x``
    (same split, same counts) on its communicator and device."""
    check_array(x, func)
    t = Placement(
        comm if comm is not None else x._comm,
        device if device is not None else x.device,
        func,
        backend=x._backend,
    )
    dt = x.dtype if dtype is None else as_dtype(dtype, func)
    axis = x.split if split is DEFAULT else resolve_split(split, x.ndim, func)
    if axis == x.split and t.comm is x._comm:
        return t, x._layout, dt  # keeps uneven counts: ops between x and the result are free
    return t, Layout.balanced(x.shape, axis, t.comm.size), dt


def empty_like(x, /, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """An uninitialized array shaped like ``x``, laid out like ``x`` unless ``split`` is given."""
    t, layout, dt = _like(x, dtype, device, split, comm, "empty_like")
    return t.filled(layout, dt, None)


def zeros_like(x, /, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """Zeros shaped like ``x``, laid out like ``x`` unless ``split`` is given."""
    t, layout, dt = _like(x, dtype, device, split, comm, "zeros_like")
    return t.filled(layout, dt, 0)


def ones_like(x, /, *, dtype=None, device=None, split=DEFAULT, comm=None) -> _array.Array:
    """Ones shaped like ``x``, laid out like ``x`` unless ``split`` is given."""
    t, layout, dt = _like(x, dtype, device, split, comm, "ones_like")
    return t.filled(layout, dt, 1)


def full_like(
    x, /, fill_value, *, dtype=None, device=None, split=DEFAULT, comm=None
) -> _array.Array:
    """``fill_value`` shaped like ``x`` (dtype of ``x`` by default), laid out like ``x``
    unless ``split`` is given."""
    t, layout, dt = _like(x, dtype, device, split, comm, "full_like")
    fill_value, _ = _fill_value(fill_value)
    _check_fill(fill_value, dt, "full_like")
    return t.filled(layout, dt, fill_value)


# -- ranges -------------------------------------------------------------------------------------
def _arange_length(start, stop, step) -> int:
    if all(isinstance(v, int) for v in (start, stop, step)):
        n = -((start - stop) // step)  # exact ceil((stop - start) / step)
    else:
        n = math.ceil((stop - start) / step)  # NumPy's length, in double precision
    return builtins.max(n, 0)


def arange(
    start, /, stop=None, step=1, *, dtype=None, device=None, split=DEFAULT, comm=None
) -> _array.Array:
    """Values ``start, start + step, ...`` below ``stop`` (above it for a negative step).

    Each rank computes its own index range, the way NumPy fills a range:
    ``x[i] = start + i * ((start + step) - start)`` in the result's dtype, ``x[1]`` being
    ``start + step``; so blocks equal NumPy's ``arange`` at any number of ranks.
    """
    start, stop, step = as_number(start), as_number(stop), as_number(step)
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if not (v is None and name == "stop") and (
            not isinstance(v, (int, float)) or isinstance(v, builtins.bool)
        ):
            raise TypeError(f"arange: {name} must be an int or a float, got {v!r}")
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise ValueError("arange: step must not be zero")
    is_int = all(isinstance(v, int) for v in (start, stop, step))
    t = Placement(comm, device, "arange")
    dt = _dtype(dtype, "arange", t.default_dtype("integral" if is_int else "real floating"))
    if dt.kind not in "iuf":
        raise TypeError(f"arange: dtype must be a real numeric dtype, got {dt}")
    layout = t.layout((_arange_length(start, stop, step),), split, "arange")
    lo, hi = span(layout, 0, t.comm.rank)
    xp, native = t.xp, t.backend.native_dtype(dt)
    # One-element arrays, not 0-d ones: NumPy turns 0-d results into scalars, whose
    # wrap-around (unsigned dtypes, negative steps) warns where arrays do not.
    first = t.backend.asarray([start], dt, t.device)
    second = t.backend.asarray([start + step], dt, t.device)
    values = first + xp.astype(t.iota(lo, hi), native) * (second - first)
    if lo <= 1 < hi:
        values[1 - lo : 2 - lo] = second  # NumPy stores start + step itself, not start + delta
    return t.array(values, layout)


def linspace(
    start, stop, /, num, *, dtype=None, device=None, endpoint=True, split=DEFAULT, comm=None
) -> _array.Array:
    """``num`` evenly spaced values from ``start`` to ``stop`` (excluded if not ``endpoint``).

    Computed like NumPy's ``linspace`` from each rank's global indices:
    ``x[i] = i * step + start`` with ``step = (stop - start) / div`` (``div = num - 1`` with the
    endpoint, else ``num``), and ``x[num - 1] = stop`` with the endpoint. An integer ``dtype``
    (which the standard leaves to the library) takes NumPy's values: the floor of each
    double-precision value, real bounds that the dtype holds.
    """
    start, stop = as_number(start), as_number(stop)
    for name, v in (("start", start), ("stop", stop)):
        if not isinstance(v, (int, float, complex)) or isinstance(v, builtins.bool):
            raise TypeError(f"linspace: {name} must be a real or complex number, got {v!r}")
    num = check_int(num, "linspace", "num", 0)
    if not isinstance(endpoint, builtins.bool):
        raise TypeError(f"linspace: endpoint must be a bool, got {endpoint!r}")
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    t = Placement(comm, device, "linspace")
    kind = "complex floating" if is_complex else "real floating"
    dt = _dtype(dtype, "linspace", t.default_dtype(kind))
    integral = dt.kind in "iu" and not is_complex
    if integral:
        info = np.iinfo(dt)
        integral = info.min <= builtins.min(start, stop) <= builtins.max(start, stop) <= info.max
    if not integral and (dt.kind not in "fc" or (is_complex and dt.kind != "c")):
        raise TypeError(f"linspace: dtype {dt} cannot hold values from {start!r} to {stop!r}")
    layout = t.layout((num,), split, "linspace")
    lo, hi = span(layout, 0, t.comm.rank)
    xp = t.xp
    # Computed in double precision and then cast, as NumPy does, whatever the result dtype.
    wide = complex128 if is_complex else float64
    work = t.backend.native_dtype(wide)
    first = t.backend.asarray([start], wide, t.device)
    last = t.backend.asarray([stop], wide, t.device)
    delta = last - first
    y = xp.astype(t.iota(lo, hi), work)
    div = num - 1 if endpoint else num
    if div > 0:
        step = delta / div
        # A step that underflows to zero loses delta: NumPy then scales by delta / div.
        y = y / div * delta if builtins.bool(xp.all(step == 0)) else y * step
    else:
        y = y * delta
    y = y + first
    if endpoint and num > 1 and lo <= num - 1 < hi:
        y[num - 1 - lo : num - lo] = last
    if integral:
        y = xp.floor(y)
    return t.array(xp.astype(y, t.backend.native_dtype(dt)), layout)


# -- matrices -----------------------------------------------------------------------------------
def _diagonal_mask(t: Placement, layout: Layout, k: int, cmp: str) -> Any:
    """Boolean block over the last two axes: ``col - row`` compared with ``k`` at global
    indices (``"=="`` for ``eye``, ``"<="`` for ``tril``, ``">="`` for ``triu``)."""
    rank, nd = t.comm.rank, layout.ndim
    rows = t.iota(*span(layout, nd - 2, rank))
    cols = t.iota(*span(layout, nd - 1, rank))
    diff = cols[None, :] - rows[:, None]
    # A k past every diagonal may not fit the index dtype (Torch raises): the nearest one that
    # still lies past them all gives the same mask.
    k = min(max(k, -layout.shape[nd - 2]), layout.shape[nd - 1])
    return {"==": diff == k, "<=": diff <= k, ">=": diff >= k}[cmp]


def eye(
    n_rows, n_cols=None, /, *, k=0, dtype=None, device=None, split=DEFAULT, comm=None
) -> _array.Array:
    """Ones on the ``k``-th diagonal, zeros elsewhere; each rank places the part of the
    diagonal that crosses its block (split on rows or on columns)."""
    n_rows = check_int(n_rows, "eye", "n_rows", 0)
    n_cols = n_rows if n_cols is None else check_int(n_cols, "eye", "n_cols", 0)
    k = check_int(k, "eye", "k")
    t = Placement(comm, device, "eye")
    dt = _dtype(dtype, "eye", t.default_dtype("real floating"))
    layout = t.layout((n_rows, n_cols), split, "eye")
    mask = _diagonal_mask(t, layout, k, "==")
    return t.array(t.xp.astype(mask, t.backend.native_dtype(dt)), layout)


def _triangle(x: Any, k: Any, split: Any, comm: Any, func: str, cmp: str) -> _array.Array:
    check_array(x, func)
    if x.ndim < 2:
        raise ValueError(f"{func}: x must have at least 2 dimensions, got {x.ndim}")
    k = check_int(k, func, "k")
    _same_comm(x, comm, func)
    t = Placement(x._comm, x.device, func, backend=x._backend)
    layout = x._layout
    if split is not DEFAULT:
        axis = resolve_split(split, x.ndim, func)
        if axis != x.split:
            layout = Layout.balanced(x.shape, axis, t.comm.size)
    # Only a different layout asked by split= moves data; the mask itself needs no message.
    block = redistribute_block(x._local, x._layout, layout, t.comm, t.backend)
    mask = _diagonal_mask(t, layout, k, cmp)
    return t.array(t.xp.where(mask, block, t.xp.zeros_like(block)), layout)


def tril(x, /, *, k=0, split=DEFAULT, comm=None) -> _array.Array:
    """The lower triangle of the last two axes (at and below diagonal ``k``), from global
    indices: no message. Keeps the layout of ``x`` unless ``split`` asks for another one."""
    return _triangle(x, k, split, comm, "tril", "<=")


def triu(x, /, *, k=0, split=DEFAULT, comm=None) -> _array.Array:
    """The upper triangle of the last two axes (at and above diagonal ``k``), from global
    indices: no message. Keeps the layout of ``x`` unless ``split`` asks for another one."""
    return _triangle(x, k, split, comm, "triu", ">=")


# -- from existing data -------------------------------------------------------------------------
def _is_python_data(obj: Any) -> builtins.bool:
    # NumPy's float64 and complex128 scalars subclass float and complex, but carry a dtype
    return isinstance(obj, (*_SCALARS, list, tuple)) and not isinstance(obj, np.generic)


def _host_data(obj: Any, copy: Any, func: str, dtype: np.dtype | None = None) -> np.ndarray:
    """``obj`` (Python scalars and sequences, buffers, objects with ``__array__``) as NumPy,
    without a copy where it can be avoided: the same global data on every rank (SPMD).
    Python data is converted straight to ``dtype`` when given (so Python ints beyond int64
    can fill a ``uint64`` array)."""
    if copy is False and _is_python_data(obj):
        raise ValueError(f"{func}: copy=False, but a Python {type(obj).__name__} must be copied")
    if dtype is not None and _is_python_data(obj):
        try:
            return np.asarray(obj, dtype=dtype)
        except OverflowError:
            raise OverflowError(f"{func}: obj holds values out of the range of {dtype}") from None
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{func}: cannot make an array of obj: {exc}") from None
    try:
        data = np.asarray(obj, copy=False if copy is False else None)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{func}: cannot make an array of obj: {exc}") from None
    if _is_python_data(obj) and data.dtype.kind in "uO":
        # Only Python ints beyond int64 (or non-numbers) make NumPy pick these.
        try:
            np.asarray(obj, dtype=int64)
        except OverflowError:
            raise OverflowError(
                f"{func}: obj holds Python integers out of the int64 range"
            ) from None
        except (TypeError, ValueError):
            raise TypeError(f"{func}: obj holds values that are not numbers") from None
    return data


def _from_block(
    t: Placement, data: Any, dtype: Any, copy: Any, split: Any, func: str, agree: bool = True
):
    """The array holding ``data`` (a whole array, the same on every rank): each rank keeps
    its slice only, converted to ``dtype`` and copied as ``copy`` says. With ``agree`` (all
    but Python scalars) the ranks first agree on the arguments and the data (``_agree``),
    so that an error found on some ranks only is raised on every rank."""
    src = t.backend.dtype_of(data) if t.backend.is_block(data) else data.dtype
    error: Exception | None = None
    asked = dt = layout = None
    try:
        asked = dt = None if dtype is None else as_dtype(dtype, func)
        if dt is None:
            if src not in ALL_DTYPES:
                raise TypeError(
                    f"{func}: obj has dtype {src}, not a dtype of the standard; pass dtype="
                )
            dt = src
        if copy is False and dt != src:
            raise ValueError(f"{func}: copy=False, but converting {src} to {dt} needs a copy")
        layout = t.layout(tuple(data.shape), split, func)
        local = data[layout.local_slice(t.comm.rank)] if layout.split is not None else data
        # the library may refuse what differs between ranks (copy=False of a read-only or
        # reversed NumPy array on Torch): agreed below, so every rank raises it
        block = t.backend.asarray(local, dtype=dt, device=t.device, copy=copy)
    except (TypeError, ValueError, IndexError) as exc:
        if not agree or t.comm.size == 1:
            raise
        error = exc
    if agree:
        _agree(t, data, src, asked, split, layout, error, func)
    return t.array(block, layout)


# Codes of ``split=`` as given, in the agreement row of data given whole (``_agree``).
_NONE, _DEFAULT_SPLIT, _NOT_AN_AXIS = -(2**40), -(2**40) - 1, -(2**40) - 2


def _split_code(split: Any) -> int:
    """``split=`` as given, as an int of the agreement row."""
    if split is DEFAULT:
        return _DEFAULT_SPLIT
    if split is None:
        return _NONE
    if isinstance(split, builtins.bool):
        return _NOT_AN_AXIS
    try:
        axis = operator.index(split)
    except TypeError:
        return _NOT_AN_AXIS
    return axis if abs(axis) < 2**39 else _NOT_AN_AXIS


def _split_text(code: int) -> Any:
    return {_NONE: None, _DEFAULT_SPLIT: "default", _NOT_AN_AXIS: "not an axis"}.get(code, code)


def _agree(
    t: Placement,
    data: Any,
    src: np.dtype,
    asked: np.dtype | None,
    split: Any,
    layout: Layout | None,
    error: Exception | None,
    func: str,
) -> None:
    """The ranks agree that ``data``, given whole on every rank, is the same array on every
    rank and that they asked for the same thing, in one allreduce of one agreement row
    (``agree_on_metadata``: 73 ints, 1168 bytes whatever the rank count): this rank's
    ``error`` (argument checks that failed here), ``split=`` as given and resolved, the
    ``dtype=`` asked for, the device kind, the data's dtype and shape, and, with the
    ``check_replicated`` setting (on by default), a checksum of its values (``checksum``:
    about 1024 elements spread over the array, all of a smaller one, or with ``"full"``
    every element). An argument error found alike on every rank is raised after it (every
    rank's row is the same, so is the error). Only when the rows differ is every rank's row
    gathered (one allgather) to raise the same error everywhere: one naming the argument the
    ranks disagree on and each rank's value, else the first failing rank's own error (one
    allgather and one broadcast more), else one naming what differs in the data. Nothing is
    sent on one rank."""
    comm = t.comm
    if comm.size == 1:
        if error is not None:
            raise error
        return
    fp = 0
    if error is None and src in ALL_DTYPES and data.ndim <= MAX_DIMS:
        fp = checksum(data, t.backend)
    fields = {
        "error": int(error is not None),
        "split": _split_code(split),
        "resolved split": -1 if layout is None or layout.split is None else layout.split,
        "dtype": dtype_code(asked),
        "device": device_code(t.device.kind),
        "obj dtype": dtype_code(src),
    }
    rows = agree_on_metadata(fields, comm, shape=tuple(data.shape), checksum=fp)
    if rows is not None:
        _disagreement(rows, comm, error, func)
    if error is not None:  # the same arguments and metadata on every rank: the same error
        raise error


def _disagreement(rows: Rows, comm: Communicator, error: Exception | None, func: str) -> None:
    """Raise, on every rank, the error that every rank's agreement row (``rows``) shows."""
    named = {
        "split": [_split_text(v) for v in rows.column("split")],
        "split (with each rank's default_split setting)": [
            None if v < 0 else v for v in rows.column("resolved split")
        ],
        "dtype": [None if v < 0 else str(ALL_DTYPES[v]) for v in rows.column("dtype")],
        "device": [DEVICE_KINDS[v] for v in rows.column("device")],
    }
    for arg, values in named.items():
        if len(set(values)) > 1:
            raise ValueError(
                f"{func}: the ranks disagree on {arg}: {values} (rank r's at position r); "
                "every rank must pass the same arguments"
            )
    agree_on_errors(error, comm)  # raises the first failing rank's error on every rank
    shapes = rows.shapes()
    dtypes = [str(ALL_DTYPES[c]) if c >= 0 else "other" for c in rows.column("obj dtype")]
    if len({*zip(shapes, rows.ndims())}) > 1 or len(set(dtypes)) > 1:
        raise ValueError(
            f"{func}: obj differs between ranks (shapes {shapes}, dtypes {dtypes}, rank r's "
            "at position r); data given whole must be the same on every rank: build an array "
            "from each rank's own block with xdist.from_local"
        )
    raise ValueError(
        f"{func}: obj holds different values on different ranks: "
        f"{differing_ranks(rows.checksums())}. Data given whole must be the same on every "
        "rank: seed every rank's random generator alike (or draw with xdist.random), or build "
        "the array from each rank's own block with xdist.from_local(block, split=0). (The "
        "check_replicated setting, XDIST_CHECK_REPLICATED=0, turns this comparison off.)"
    )


def _from_array(x: _array.Array, dtype, device, copy, split, comm, func: str) -> _array.Array:
    """``x`` itself, or a copy, a cast or another layout of it when the arguments ask."""
    _same_comm(x, comm, func)
    if device is not None and x._backend.check_device(device, func) != x.device:
        raise ValueError(f"{func}: cannot move an array on {x.device} to {device!r}")
    dt = x.dtype if dtype is None else as_dtype(dtype, func)
    layout = x._layout
    if split is not DEFAULT:
        axis = resolve_split(split, x.ndim, func)
        if axis != x.split:
            layout = Layout.balanced(x.shape, axis, x._comm.size)
    moves, casts = layout != x._layout, dt != x.dtype
    if copy is False and (moves or casts):
        raise ValueError(f"{func}: copy=False, but the requested dtype or split needs a copy")
    if not (moves or casts or copy):
        return x
    xp, block = x._backend.xp, x._local
    if moves:
        block = redistribute_block(block, x._layout, layout, x._comm, x._backend)
    fresh = moves and x.split is not None and x._comm.size > 1  # gathered or exchanged
    if casts:
        block = xp.astype(block, x._backend.native_dtype(dt), copy=True)
    elif copy and not fresh:
        block = xp.asarray(block, copy=True)
    if casts or copy or fresh:  # new memory, not handed out: later chains may read it
        keep_result(block)
    return _array.Array._new(block, layout, x._comm, x._backend)


def asarray(
    obj, /, *, dtype=None, device=None, copy=None, split=DEFAULT, comm=None
) -> _array.Array:
    """An array from ``obj``: an xdist array, an array of the backend library, NumPy data, a
    buffer, a Python scalar or a nested sequence of them.

    Data that is not an xdist array is the whole global array, the same on every rank; each
    rank keeps only its slice, after one allgather in which the ranks agree on its shape and
    dtype (and, with ``check_replicated``, one of a checksum of its values), so data that
    differs between ranks raises the same error everywhere (nothing for a Python scalar). An
    array of a file library (an h5py dataset, a Zarr array, a NetCDF variable) is read by
    slab: each rank reads only its block (``xdist.io.from_sliceable``; one allgather). A
    ``np.memmap`` is sliced as it is. Python scalars give bool, int64, float64 or
    complex128. An xdist array is returned as it is unless ``dtype``, ``copy=True`` or a
    different ``split`` asks for a new one (a new split moves data: one all-to-all, or one
    allgather for ``split=None``). ``copy=False`` raises ``ValueError`` when a copy is needed.
    """
    if copy is not None and not isinstance(copy, builtins.bool):
        raise TypeError(f"asarray: copy must be True, False or None, got {copy!r}")
    if isinstance(obj, _array.Array):
        return _from_array(obj, dtype, device, copy, split, comm, "asarray")
    if is_lazy_array(obj):  # an h5py dataset, a Zarr array, a NetCDF variable: by slab
        if copy is False:
            raise ValueError("asarray: copy=False, but reading an array from a file copies it")
        axis = resolve_split(split, len(obj.shape), "asarray")
        return from_sliceable(obj, axis, dtype=dtype, device=device, comm=comm)
    t = Placement(comm, device, "asarray")
    dt = None if dtype is None else as_dtype(dtype, "asarray")
    data = obj if t.backend.is_block(obj) else _host_data(obj, copy, "asarray", dt)
    if dt is None and _is_python_data(obj) and data.dtype.kind in "fc":
        # Python floats and complex numbers take the backend's default (float32 in Torch).
        kind = "real floating" if data.dtype.kind == "f" else "complex floating"
        dtype = t.default_dtype(kind)
    return _from_block(t, data, dtype, copy, split, "asarray", not isinstance(obj, _SCALARS))


def _in_host_memory(x: Any) -> bool:
    """Whether the DLPack producer ``x`` says its data is in CPU memory (DLPack's kDLCPU)."""
    where = getattr(x, "__dlpack_device__", None)
    return where is not None and int(where()[0]) == 1


def from_dlpack(x, /, *, device=None, copy=None, split=DEFAULT, comm=None) -> _array.Array:
    """An array from any DLPack producer, holding the same whole array on every rank:
    replicated, or split along ``split`` (or the configured default) with each rank keeping
    its slice. One small ``allgather`` agrees on the shape and dtype across the ranks (as
    ``asarray`` of host data does); the data itself does not move. An xdist array is taken
    as ``asarray`` takes it. Host data
    for a GPU backend (NumPy data under CuPy) is copied to the device (``copy=False`` raises
    ``ValueError``)."""
    if isinstance(x, _array.Array):
        return _from_array(x, None, device, copy, split, comm, "from_dlpack")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: x must support DLPack (__dlpack__), got {type(x).__name__}")
    t = Placement(comm, device, "from_dlpack")
    if t.device.kind != "cpu" and _in_host_memory(x):
        # A GPU library cannot import host memory (CuPy refuses): the data is copied over.
        if copy is False:
            raise ValueError(
                f"from_dlpack: copy=False, but x is in host memory and the array goes to "
                f"{t.device}; a copy is needed"
            )
        return _from_block(t, np.from_dlpack(x), None, None, split, "from_dlpack")
    try:
        data = t.xp.from_dlpack(x, copy=False if copy is False else None)
    except BufferError as exc:
        raise ValueError(f"from_dlpack: copy=False, but x cannot be shared: {exc}") from None
    return _from_block(t, data, None, copy, split, "from_dlpack")


# -- meshgrid -----------------------------------------------------------------------------------
def meshgrid(
    *arrays, indexing="xy", split=DEFAULT, comm=None
) -> tuple[_array.Array, ...] | list[_array.Array]:
    """Coordinate grids from 1-D arrays (``indexing="xy"``: the first two axes swapped), a
    tuple (2025.12; a list when the ``api_version`` setting is earlier).

    All outputs share one layout. Unless ``split`` is given it follows the first input that
    is split: the output axis of that input is split with its counts, so that input's blocks
    serve as they are. Other inputs are needed whole along their axis: a replicated one is
    used as it is, a split one is gathered (one allgather of a 1-D array). With no split
    input the configured default applies, and nothing is sent.
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    for i, a in enumerate(arrays):
        check_array(a, "meshgrid", f"arrays[{i}]")
        if a.ndim != 1:
            raise ValueError(f"meshgrid: arrays[{i}] must be 1-D, got {a.ndim} dimensions")
    if not arrays:
        return edition_sequence([])
    first = arrays[0]
    _same_comm(first, comm, "meshgrid")
    for i, a in enumerate(arrays[1:], start=1):
        check_same_context([(first, "arrays[0]"), (a, f"arrays[{i}]")], "meshgrid")
        if a.dtype != first.dtype:
            raise TypeError(f"meshgrid: arrays differ in dtype: {first.dtype} and {a.dtype}")
    n = len(arrays)
    axes = list(range(n))  # the output axis along which input i varies
    if indexing == "xy" and n >= 2:
        axes[0], axes[1] = 1, 0
    shape = [0] * n
    for i, a in enumerate(arrays):
        shape[axes[i]] = a.shape[0]
    t = Placement(first._comm, first.device, "meshgrid", backend=first._backend)
    layout = _meshgrid_layout(arrays, axes, tuple(shape), split, t)
    return edition_sequence(_grid(t, a, axis, layout) for a, axis in zip(arrays, axes))


def _meshgrid_layout(arrays, axes, shape, split, t: Placement) -> Layout:
    if split is DEFAULT:
        for a, axis in zip(arrays, axes):
            if a.split is not None:
                return Layout(shape, axis, a.counts)
    return t.layout(shape, split, "meshgrid")


def _grid(t: Placement, a: _array.Array, axis: int, layout: Layout) -> _array.Array:
    """The grid of input ``a`` (varying along ``axis``): its block broadcast to the local shape."""
    if layout.split == axis:  # this rank's stretch of a: free when a already has these counts
        piece = redistribute_block(
            a._local, a._layout, Layout(a.shape, 0, layout.counts), t.comm, t.backend
        )
    else:
        piece = implicit_gather(a._local, a._layout, t.comm, t.backend, "meshgrid")
    view = [1] * layout.ndim
    view[axis] = -1
    xp = t.xp
    local = xp.broadcast_to(xp.reshape(piece, tuple(view)), layout.local_shape(t.comm.rank))
    return t.array(xp.asarray(local, copy=True), layout)  # writable, not a broadcast view
