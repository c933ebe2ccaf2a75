"""``fftfreq`` and ``rfftfreq``: creation functions, each rank computing only its block.

They take xdist's creation keywords ``split=`` (the configured default when not given) and
``comm=``. Values follow NumPy: the integer frequency index times ``1 / (n * d)`` in double
precision, then cast to ``dtype``; so blocks equal NumPy's at any number of ranks.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .._array import Array
from .._dtypes import as_dtype
from .._placement import DEFAULT, Placement, span
from .._validation import check_int

__all__ = ["fftfreq", "rfftfreq"]


def fftfreq(
    n: int, /, *, d: float = 1.0, dtype=None, device=None, split=DEFAULT, comm=None
) -> Array:
    """The sample frequencies of a length-``n`` transform with spacing ``d``:
    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d*n)``. No message."""
    return _frequencies(n, d, dtype, device, split, comm, "fftfreq")


def rfftfreq(
    n: int, /, *, d: float = 1.0, dtype=None, device=None, split=DEFAULT, comm=None
) -> Array:
    """The sample frequencies of ``rfft`` for length ``n`` and spacing ``d``:
    ``[0, 1, ..., n//2] / (d*n)`` (``n//2 + 1`` values). No message."""
    return _frequencies(n, d, dtype, device, split, comm, "rfftfreq")


def _frequencies(n: Any, d: Any, dtype, device, split, comm, func: str) -> Array:
    n = check_int(n, func, "n", minimum=1)
    if not isinstance(d, (int, float)) or isinstance(d, builtins.bool):
        raise TypeError(f"{func}: d must be a real number, got {d!r}")
    if d == 0:
        raise ValueError(f"{func}: d must not be zero")
    t = Placement(comm, device, func)
    dt = t.default_dtype("real floating") if dtype is None else as_dtype(dtype, func)
    if dt.kind != "f":
        raise TypeError(f"{func}: dtype must be a real floating-point dtype, got {dt}")
    length = n if func == "fftfreq" else n // 2 + 1
    layout = t.layout((length,), split, func)
    k = t.iota(*span(layout, 0, t.comm.rank))
    if func == "fftfreq":
        k = t.xp.where(k < (n - 1) // 2 + 1, k, k - n)  # the negative half after the positive
    values = t.xp.astype(k, t.backend.native_dtype(np.dtype("float64"))) * (1.0 / (n * d))
    return t.array(t.xp.astype(values, t.backend.native_dtype(dt)), layout)
