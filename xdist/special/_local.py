"""Which library computes a special function on a block: the one per-backend choice.

- NumPy blocks: ``scipy.special.<name>``, forced to the loop SciPy resolves (``signature=``).
- Torch blocks: ``torch.special.<name>`` where it agrees with SciPy (``_TORCH``: checked on
  edge values, infinities and NaN at float32 and float64; ``gammainc``/``gammaincc`` differ on
  NaN, ``gammaln`` at -inf, ``ndtr`` in the far tail and the Bessel ``j``/``y`` functions in
  the last digits, so those are not listed), else SciPy on the host copy of the block.
- CuPy blocks: ``cupyx.scipy.special.<name>`` where it exists and works (``_CUPY_ON_HOST``
  lists the exceptions), else SciPy on the host copy.

A native (non-SciPy) function gets its tensor operands cast to the loop's input dtypes and
Python scalars as 0-d arrays of them, and its result cast to the loop's output dtype: every
backend gives SciPy's dtype. Native functions serve real floating loops only (complex or
integer loops go through SciPy).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["local_function", "scipy_ufunc"]

# scipy.special name -> torch.special name, for the functions whose results agree.
_TORCH = {
    "entr": "entr",
    "erf": "erf",
    "erfc": "erfc",
    "erfcx": "erfcx",
    "erfinv": "erfinv",
    "exp2": "exp2",
    "expit": "expit",
    "i0": "i0",
    "i0e": "i0e",
    "i1": "i1",
    "i1e": "i1e",
    "k0": "modified_bessel_k0",
    "k0e": "scaled_modified_bessel_k0",
    "k1": "modified_bessel_k1",
    "k1e": "scaled_modified_bessel_k1",
    "log_ndtr": "log_ndtr",
    "logit": "logit",
    "ndtri": "ndtri",
    "psi": "digamma",
    "xlog1py": "xlog1py",
    "xlogy": "xlogy",
}


# cupyx.scipy.special functions that xdist does not use, with why (CuPy 14.2 on an H100).
_CUPY_ON_HOST = {
    # Did not return within 100 s on tests/test_special.py's arguments (0, -0, +-inf, NaN,
    # +-1, 0.5 and normal samples): the GPU kernel does not terminate on some of them.
    "exp1": "does not terminate",
    # NaN where SciPy gives a number, or a number where SciPy gives NaN, at some of those
    # arguments (infinities, NaN, zeros, negative arguments).
    **dict.fromkeys(
        [
            "cosdg",
            "sindg",
            "exprel",
            "expi",
            "gammasgn",
            "i0",
            "i0e",
            "i1",
            "i1e",
            "j0",
            "j1",
            "k0e",
            "k1e",
            "y0",
            "y1",
        ],
        "NaN where SciPy has a number or the reverse",
    ),
    # float32 computed in float32: up to 5e-5 relative from SciPy (which computes in double).
    **dict.fromkeys(["betaincinv", "fdtri"], "float32 results 5e-5 from SciPy's"),
}


def scipy_ufunc(name: str) -> np.ufunc:
    """``scipy.special.<name>`` as the NumPy ufunc (not SciPy's array-API wrapper)."""
    try:
        from scipy.special import _ufuncs
    except ImportError as exc:
        raise ImportError(f"special.{name}: xdist.special needs SciPy ({exc})") from exc
    return getattr(_ufuncs, name)


def local_function(backend: Any, name: str, loop: tuple[np.dtype, ...]) -> Callable[..., Any]:
    """The function computing ``name`` on blocks of ``backend`` (and Python scalars) with the
    ufunc loop ``loop`` (input dtypes, then the output dtype)."""
    ufunc = scipy_ufunc(name)
    if backend.name == "numpy":
        return lambda *args: ufunc(*args, signature=loop)
    native = None
    if all(d.kind == "f" for d in loop):
        native = _native(backend.name, name)
    if native is None:
        return _on_host(ufunc, loop, backend)
    return _cast(native, loop, backend)


def _native(backend_name: str, name: str) -> Callable[..., Any] | None:
    if backend_name == "torch" and name in _TORCH:
        import torch

        return getattr(torch.special, _TORCH[name])
    if backend_name == "cupy" and name not in _CUPY_ON_HOST:
        import cupyx.scipy.special

        return getattr(cupyx.scipy.special, name, None)
    return None


def _cast(fn: Callable[..., Any], loop: tuple[np.dtype, ...], backend: Any) -> Callable[..., Any]:
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


def _on_host(ufunc: np.ufunc, loop: tuple[np.dtype, ...], backend: Any) -> Callable[..., Any]:
    """SciPy on host copies of the blocks; the result goes back to the blocks' device."""

    def local(*args):
        device = next(backend.device_of(a) for a in args if backend.is_block(a))
        host = [backend.to_host(a) if backend.is_block(a) else a for a in args]
        return backend.from_host(np.asarray(ufunc(*host, signature=loop)), device)

    return local
