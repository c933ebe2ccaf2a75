"""The standard's results for the elementwise special cases that the local libraries get
wrong, written once against the array-API namespace of any backend (``xp``: NumPy, Torch or
CuPy through array-api-compat), so that every backend gives the same, preferred answer.

NumPy 2.4 and Torch 2.13 alike (and so array-api-strict, which calls NumPy):

- ``floor_divide`` with an infinite operand follows Python (``inf // 2`` is NaN,
  ``-1 // inf`` is ``-1.0``); the standard prefers ``floor(x1 / x2)`` (``+inf``, ``-0``)
  and only tolerates Python's values;
- complex ``expm1`` at infinities and NaN misses the standard's special cases (NumPy's
  ``expm1(inf + 0j)`` is ``inf + nan j``, the standard's ``inf + 0j``), and at ``-0 + 0j``
  gives ``-0 + 0j`` (the standard: ``+0 + 0j``);
- complex ``tanh`` at infinite or NaN parts: the standard fixes the values C99 leaves to
  the sign of ``sin(2 y)`` (``tanh(inf + 1e300j)`` is ``1 + 0j``, NumPy's can be ``1 - 0j``),
  and so complex ``tan``, whose special cases are those of ``-1j * tanh(x * 1j)``
  (``tan(2 + inf j)`` is ``+0 + 1j``; NumPy's and Torch's ``-0 + 1j``).

Each function computes the library's own result first, so dtypes, broadcasting and Python
scalar operands stay the library's, and corrects it only where an input is not finite: the
common, finite case pays one sum of each operand (``all_finite``; measured by
benchmarks/special_values.py, numbers in docs/backends.md), and complex ``expm1`` one
in-place pass over its result's real parts (for ``-0 + 0j``). Library-specific deviations
(Torch's complex ``acos`` and ``log1p``) stay in that library's backend module.
"""

from __future__ import annotations

import cmath
import math
import types
from typing import Any

__all__ = [
    "CORRECTED",
    "all_finite",
    "corrected_namespace",
    "expm1",
    "floor_divide",
    "namespace_over",
    "tan",
    "tanh",
]

CORRECTED = ("expm1", "floor_divide", "tan", "tanh")


def namespace_over(
    name: str, base: Any, overrides: dict[str, Any], doc: str = ""
) -> types.ModuleType:
    """The array-API namespace ``base`` with ``overrides`` in place of its functions: a module
    holding ``base``'s own names, so that looking one up costs what it costs on ``base``,
    whose other names fall through to ``base`` (PEP 562 ``__getattr__``, for namespaces that
    are themselves such modules). A fall-through costs a Python call on every lookup (and a
    Torch-backed xdist call makes several), so every name ``base`` holds is copied."""
    ns = types.ModuleType(name, doc or f"{getattr(base, '__name__', base)}, corrected")
    ns.__dict__.update({k: v for k, v in vars(base).items() if not k.startswith("__")})
    ns.__getattr__ = lambda attr: getattr(base, attr)  # type: ignore[method-assign]
    ns.__dict__.update(overrides)
    return ns


def corrected_namespace(name: str, base: Any) -> types.ModuleType:
    """The array-API namespace ``base`` with the functions of ``CORRECTED`` replaced by this
    module's, which compute on ``base`` (``namespace_over``)."""
    doc = f"{getattr(base, '__name__', base)}, with the standard's values"
    return namespace_over(name, base, {f: _bound(f, base) for f in CORRECTED}, doc)


def _bound(fname: str, base: Any) -> Any:
    fn = globals()[fname]

    def corrected(*args: Any) -> Any:
        return fn(base, *args)

    corrected.__name__ = corrected.__qualname__ = fname
    corrected.__doc__ = fn.__doc__
    return corrected


def all_finite(xp: Any, x: Any) -> bool:
    """Whether every element of ``x`` (a floating array or a Python scalar) is finite. The
    sum of ``x`` decides the common case without a temporary array: it is finite when every
    element is (and the sum does not overflow); only otherwise are the elements tested.
    The test of every element writes a boolean array as large as ``x`` and reads it again,
    which costs many times the one read of the sum (docs/backends.md has the numbers)."""
    if isinstance(x, (int, float, complex)):
        return cmath.isfinite(x)
    if bool(xp.isfinite(xp.sum(x))):
        return True
    return bool(xp.all(xp.isfinite(x)))


def _as(xp: Any, x: Any, like: Any) -> Any:
    """``x`` as an array of ``like``'s dtype and device."""
    return xp.asarray(x, dtype=like.dtype, device=getattr(like, "device", None))


def _not_finite(xp: Any, x: Any) -> Any:
    """The mask of ``x``'s elements with an infinite or NaN part, or ``None`` when there is
    none (the common case, decided by ``all_finite``)."""
    return None if all_finite(xp, x) else ~xp.isfinite(x)


def _complex(xp: Any, re: Any, im: Any, like: Any) -> Any:
    """``re + im j`` with ``like``'s complex dtype, written part by part (``re + im * 1j``
    would turn ``inf * 1j`` into ``nan + inf j``). NumPy, CuPy and Torch arrays all have
    writable ``.real`` and ``.imag``."""
    out = xp.zeros(like.shape, dtype=like.dtype, device=getattr(like, "device", None))
    out.real[...] = re
    out.imag[...] = im
    return out


def floor_divide(xp: Any, x1: Any, x2: Any, /) -> Any:
    """``floor_divide``; with an infinite operand the standard's preferred
    ``floor(x1 / x2)`` (``inf // 2 == inf``, ``-1 // inf == -0``, ``inf // inf`` NaN)
    instead of Python's values. Finite operands keep the library's quotient (which agrees
    with ``remainder``: ``1 // 0.1 == 9``)."""
    out = xp.floor_divide(x1, x2)
    if not xp.isdtype(out.dtype, "real floating"):
        return out
    if all_finite(xp, x1) and all_finite(xp, x2):
        return out
    a, b = _as(xp, x1, out), _as(xp, x2, out)
    return xp.where(xp.isinf(a) | xp.isinf(b), xp.floor(a / b), out)


def expm1(xp: Any, x: Any, /) -> Any:
    """``expm1``; for a complex ``z`` with an infinite or NaN part, ``exp(z) - 1`` taken part
    by part (1 subtracted from the real part only), which gives every special case of the
    standard from ``exp``'s (C99's ``cexp``): ``+inf + 0j`` at ``+inf + 0j``, ``-1 + 0j``
    at ``-inf + inf j``, ``NaN + 0j`` at ``NaN + 0j``. A real part of ``-0`` becomes ``+0``:
    ``exp(a) cos(b) - 1`` is never ``-0`` (an exact difference of zero rounds to ``+0``), but
    NumPy and Torch compute ``expm1(a) cos(b) - 2 sin(b/2)^2``, which is ``-0`` at
    ``a = -0``, ``b = ±0`` (the standard: ``+0 ± 0j``)."""
    out = xp.expm1(x)
    if not xp.isdtype(x.dtype, "complex floating"):
        return out
    if getattr(out, "ndim", 0) == 0:  # NumPy gives a scalar, whose .real is no view
        out = _complex(xp, xp.real(out) + 0.0, xp.imag(out), xp.asarray(out))
    else:
        re = out.real  # a view: adding +0 in place turns -0 into +0 and nothing else
        re += 0.0
    bad = _not_finite(xp, x)
    if bad is None:
        return out
    e = xp.exp(x)
    return xp.where(bad, _complex(xp, xp.real(e) - 1, xp.imag(e), out), out)


def tan(xp: Any, x: Any, /) -> Any:
    """``tan``; for a complex ``z = a + bj`` with an infinite or NaN part, the standard's
    ``-1j * tanh(z * 1j)`` with ``tanh`` above (``z * 1j = -b + aj`` and ``-1j * (u + vj) =
    v - uj``, taken part by part so that no ``inf * 0`` makes a NaN)."""
    out = xp.tan(x)
    if not xp.isdtype(x.dtype, "complex floating"):
        return out
    bad = _not_finite(xp, x)
    if bad is None:
        return out
    t = tanh(xp, _complex(xp, -xp.imag(x), xp.real(x), out))
    return xp.where(bad, _complex(xp, xp.imag(t), -xp.real(t), out), out)


def tanh(xp: Any, x: Any, /) -> Any:
    """``tanh``; for a complex ``z = a + bj`` with an infinite or NaN part, the standard's
    values (odd and conjugate-symmetric): ``sign(a) + copysign(0, b) j`` for an infinite
    ``a``; for a finite ``a`` and a ``b`` infinite or NaN, ``a + NaN j`` when ``a`` is zero,
    else ``NaN + NaN j``; for a NaN ``a``, ``NaN + b j`` when ``b`` is zero, else NaN in
    both parts."""
    out = xp.tanh(x)
    if not xp.isdtype(x.dtype, "complex floating"):
        return out
    bad = _not_finite(xp, x)
    if bad is None:
        return out
    a, b = xp.real(x), xp.imag(x)
    nan = xp.full_like(a, math.nan)
    a_inf = xp.isinf(a)
    re = xp.where(a_inf, xp.sign(a), xp.where(a == 0, a, nan))
    im = xp.where(a_inf, xp.copysign(xp.zeros_like(b), b), nan)
    im = xp.where(xp.isnan(a) & (b == 0), b, im)
    return xp.where(bad, _complex(xp, re, im, out), out)
