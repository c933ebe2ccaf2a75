"""Data type functions of the standard: ``astype``, ``can_cast``, ``finfo``, ``iinfo``,
``isdtype`` and ``result_type``.

Only ``astype`` touches data, and only each rank's block: the layout stays and nothing is
sent. The others answer from dtypes alone.

Promotion: among the standard's dtypes NumPy 2's rules agree with the standard's table, so
``result_type`` uses them; for pairs the table leaves out (signed with ``uint64``, integer
with floating-point, bool with numbers) it gives NumPy's answer, and Python scalars are weak
as in NumPy 2 (NEP 50). ``can_cast(a, b)`` is ``result_type(a, b) == b``: the casts these
same rules make implicitly (``int16`` to ``float32``, never ``int64`` to ``float32`` or
complex to real), so it agrees with the standard's table wherever the table has an entry.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _array
from . import _block_pool as block_pool
from ._dtypes import ALL_DTYPES, as_dtype
from ._errors import NoDtypeError

__all__ = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

_SCALARS = (builtins.bool, int, float, complex)

# The kinds ``isdtype`` knows, by NumPy's ``dtype.kind`` letters.
_KINDS: dict[str, str] = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def _dtype_of(obj: Any, func: str, name: str) -> np.dtype:
    """The dtype of an xdist array, or ``obj`` itself as one of the standard's dtypes."""
    if isinstance(obj, _array.Array):
        return obj.dtype
    return as_dtype(obj, func, name)


def astype(
    x: _array.Array, dtype: Any, /, *, copy: builtins.bool = True, device: Any = None
) -> _array.Array:
    """``x`` converted to ``dtype`` block by block; the layout stays and nothing is sent.

    ``copy=False`` returns ``x`` itself when it already has ``dtype``. Casting a complex
    array to a real dtype is refused (use ``real`` or ``imag``), as the standard advises.
    """
    if not isinstance(x, _array.Array):
        raise TypeError(f"astype: x must be an xdist array, got {type(x).__name__}")
    dtype = as_dtype(dtype, "astype")
    if device is not None and x._backend.check_device(device, "astype") != x.device:
        raise ValueError(f"astype: cannot move an array on {x.device} to {device!r}")
    if x.dtype.kind == "c" and dtype.kind != "c":
        raise TypeError(
            f"astype: casting complex {x.dtype} to {dtype} would drop the imaginary part; "
            "use real() or imag() first"
        )
    if not copy and dtype == x.dtype:
        return x
    local = _pooled_cast(x._local, dtype) if x._backend.name == "numpy" else None
    if local is None:
        local = x._backend.xp.astype(x._local, x._backend.native_dtype(dtype), copy=copy)
    return _array.Array._new(local, x._layout, x._comm, x._backend)


def _pooled_cast(block: Any, dtype: np.dtype) -> Any:
    """A C-ordered NumPy block cast (or copied) into a block the pool lends where the result
    is large enough to be lent: NumPy's cast, the same as ``astype``'s, into memory written
    before rather than new pages (1,000,000 x 16 float64 to float32: 11.3 ms into a new
    array, 5.9 ms into one written before). ``None`` where ``astype`` makes it. Not ``keep``,
    as ``astype``'s own block is not: chains copy it or run at once, as before."""
    if not (isinstance(block, np.ndarray) and block.flags.c_contiguous and block.ndim >= 1):
        return None
    if block.size * dtype.itemsize < block_pool.MIN_BYTES:
        return None
    out = block_pool.empty(np.empty(0, dtype), block.shape)
    np.copyto(out, block, casting="unsafe")
    return out


# -- promotion ---------------------------------------------------------------------------
def result_type(*arrays_and_dtypes: Any) -> np.dtype:
    """The dtype of an operation on the arguments (arrays, dtypes and Python scalars).

    At least one argument must be an array or a dtype; Python scalars are weak: they take
    the kind of the arrays where they can (``int8`` with ``1`` is ``int8``).
    """
    dtypes: list[np.dtype] = []
    scalars: list[Any] = []
    for arg in arrays_and_dtypes:
        if isinstance(arg, _SCALARS):
            scalars.append(arg)
        else:
            dtypes.append(_dtype_of(arg, "result_type", "arrays_and_dtypes"))
    if not dtypes:
        # Nothing at all is NumPy's ValueError; Python scalars alone are both (NoDtypeError).
        exc = NoDtypeError if scalars else ValueError
        raise exc("result_type: at least one argument must be an array or a dtype")
    out = np.result_type(*dtypes, *scalars)
    if out not in ALL_DTYPES:  # not reachable with standard dtypes; guards NumPy changes
        raise TypeError(f"result_type: {arrays_and_dtypes} promote to {out}, not a standard dtype")
    return out


def can_cast(from_: Any, to: Any, /) -> builtins.bool:
    """Whether ``from_`` (a dtype or an array) promotes to ``to``: ``result_type`` of the
    two is ``to``, so no value changes (bool to any dtype, ``uint8`` to ``int16``, ``int32``
    to ``float64``; not ``int64`` to ``float32``, ``uint64`` to ``int64`` or complex to real)."""
    src = _dtype_of(from_, "can_cast", "from_")
    dst = as_dtype(to, "can_cast", "to")
    return builtins.bool(np.promote_types(src, dst) == dst)


# -- limits ------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class finfo_object:  # noqa: N801 (the standard calls it finfo_object)
    """Machine limits of a floating-point dtype (for complex: of its real component)."""

    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: np.dtype


@dataclass(frozen=True, eq=False)
class iinfo_object:  # noqa: N801
    """Machine limits of an integer dtype."""

    bits: int
    max: int
    min: int
    dtype: np.dtype


def finfo(type: Any, /) -> finfo_object:  # noqa: A002 (the standard's name)
    """Limits of a real or complex floating-point dtype (or of an array's dtype)."""
    dtype = _dtype_of(type, "finfo", "type")
    if dtype.kind not in "fc":
        raise TypeError(f"finfo: type must be a floating-point dtype, got {dtype}")
    info = np.finfo(dtype)
    return finfo_object(
        bits=int(info.bits),
        eps=float(info.eps),
        max=float(info.max),
        min=float(info.min),
        smallest_normal=float(info.smallest_normal),
        dtype=np.dtype(info.dtype),
    )


def iinfo(type: Any, /) -> iinfo_object:  # noqa: A002
    """Limits of an integer dtype (or of an array's dtype)."""
    dtype = _dtype_of(type, "iinfo", "type")
    if dtype.kind not in "iu":
        raise TypeError(f"iinfo: type must be an integer dtype, got {dtype}")
    info = np.iinfo(dtype)
    return iinfo_object(bits=int(info.bits), max=int(info.max), min=int(info.min), dtype=dtype)


# -- kinds -------------------------------------------------------------------------------
def _is_kind(dtype: np.dtype, kind: Any) -> builtins.bool:
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"isdtype: unknown kind {kind!r}; expected one of {list(_KINDS)}")
        return dtype.kind in _KINDS[kind]
    if isinstance(kind, tuple):
        raise TypeError(f"isdtype: kind tuples cannot be nested, got {kind!r}")
    return dtype == as_dtype(kind, "isdtype", "kind")


def isdtype(dtype: Any, kind: Any) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name of the standard (``"bool"``,
    ``"signed integer"``, ``"unsigned integer"``, ``"integral"``, ``"real floating"``,
    ``"complex floating"``, ``"numeric"``), or a tuple of those (any of them)."""
    dtype = as_dtype(dtype, "isdtype")
    if isinstance(kind, tuple):
        return any([_is_kind(dtype, k) for k in kind])  # a list: every kind is checked
    return _is_kind(dtype, kind)
