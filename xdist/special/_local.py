"""Which library computes a special function on a block.

The backend offers its library's own function where it agrees with SciPy
(``backend.special_function``: ``torch.special`` for Torch, ``cupyx.scipy.special`` for CuPy,
none for NumPy); otherwise SciPy computes on the host copy of the blocks (for NumPy blocks,
the blocks themselves), forced to the loop SciPy resolves (``signature=``).

A native (non-SciPy) function gets its tensor operands cast to the loop's input dtypes and
Python scalars as 0-d arrays of them, and its result cast to the loop's output dtype: every
backend gives SciPy's dtype. Native functions serve real floating loops only (complex or
integer loops go through SciPy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..backends import Backend

__all__ = ["local_function", "scipy_ufunc"]


def scipy_ufunc(name: str) -> np.ufunc:
    """``scipy.special.<name>`` as the NumPy ufunc (not SciPy's array-API wrapper)."""
    try:
        from scipy.special import _ufuncs
    except ImportError as exc:
        raise ImportError(f"special.{name}: xdist.special needs SciPy ({exc})") from exc
    return getattr(_ufuncs, name)


def local_function(backend: Backend, name: str, loop: tuple[np.dtype, ...]) -> Callable[..., Any]:
    """The function computing ``name`` on blocks of ``backend`` (and Python scalars) with the
    ufunc loop ``loop`` (input dtypes, then the output dtype)."""
    ufunc = scipy_ufunc(name)
    native = None
    if all(d.kind == "f" for d in loop):
        native = backend.special_function(name)
    if native is None:
        return _on_host(ufunc, loop, backend)
    return _cast(native, loop, backend)


def _cast(
    fn: Callable[..., Any], loop: tuple[np.dtype, ...], backend: Backend
) -> Callable[..., Any]:
    """``fn`` on operands cast to the loop's input dtypes, its result in the output dtype."""
    xp = backend.xp
    ins, out = [backend.native_dtype(d) for d in loop[:-1]], backend.native_dtype(loop[-1])

    def local(*args):
        device = next(backend.device_of(a) for a in args if backend.is_block(a))
        where = backend.native_device(device)
        cast = [
            xp.astype(a, d) if backend.is_block(a) else xp.asarray(a, dtype=d, device=where)
            for a, d in zip(args, ins)
        ]
        result = fn(*cast)
        return result if result.dtype == out else xp.astype(result, out)

    return local


def _on_host(ufunc: np.ufunc, loop: tuple[np.dtype, ...], backend: Backend) -> Callable[..., Any]:
    """SciPy on host copies of the blocks; the result goes back to the blocks' device."""

    def local(*args):
        device = next(backend.device_of(a) for a in args if backend.is_block(a))
        host = [backend.to_host(a) if backend.is_block(a) else a for a in args]
        return backend.from_host(np.asarray(ufunc(*host, signature=loop)), device)

    return local
