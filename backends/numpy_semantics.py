"""NumPy's results for the elementwise functions whose special values or overflow another
library computes differently, written against NumPy's module API (``m`` is ``numpy`` or
``cupy``): the same code runs on NumPy, where tests/backends/test_numpy_semantics.py checks it
against NumPy's own loops on grids of special values, and on CuPy, which uses it
(backends/cupy.py).

What CuPy 14.2 gave on an H100 that NumPy does not (a sweep of every elementwise function
over 0, -0, +-1, +-inf, NaN, the largest and smallest normal numbers; docs/backends.md):

- complex ``divide`` and ``reciprocal`` divide by ``|b|**2``, which overflows: ``1 / 3e38j``
  in complex64 is NaN, and anything divided by ``0j`` is NaN where NumPy gives infinities;
- complex ``abs`` and ``hypot`` overflow within one rounding of the largest number
  (``hypot(1, 1.8e308)`` is inf), and complex ``log``, ``log1p`` and ``sign`` with them;
  ``log2`` and ``log10`` divide by a complex ``log(2)``, so ``log2(0j)`` is ``-inf + nan j``;
- float ``floor_divide`` and ``remainder`` follow C, not Python: ``1.0 // -inf`` is ``-0.0``
  (the standard allows NumPy's ``-1.0``), ``3.0 % inf`` is NaN (the standard says 3.0) and a
  zero remainder is not signed as the divisor;
- complex ``pow`` with a zero base gives infinities or NaN where NumPy gives 0 or NaN;
- complex ``expm1`` is ``exp(z) - 1``, which loses tiny arguments (CuPy 14.2 on an H200:
  ``expm1(1.2e-38 + 0j)`` in complex64 is 0) and gives ``inf + 0j`` where NumPy gives
  ``inf + nan j`` (``expm1(1e300 + 0j)``).

Each function computes the library's own result first and corrects it, so that dtypes,
broadcasting and Python scalar operands stay the library's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "abs",
    "divide",
    "expm1",
    "floor_divide",
    "hypot",
    "log",
    "log1p",
    "log2",
    "log10",
    "pow",
    "reciprocal",
    "remainder",
    "sign",
]

_LN2_INV = 1.4426950408889634  # 1 / log(2)
_LN10_INV = 0.4342944819032518  # 1 / log(10)


def _parts(m: Any, x: Any, dtype: Any) -> tuple[Any, Any]:
    z = m.asarray(x, dtype=dtype)
    return z.real, z.imag


def _complex(m: Any, re: Any, im: Any, dtype: Any) -> Any:
    out = m.empty(np.broadcast_shapes(re.shape, im.shape), dtype=dtype)
    out.real[...] = re
    out.imag[...] = im
    return out


def expm1(m: Any, x: Any, /) -> Any:
    """NumPy's complex ``expm1``: ``expm1(a) cos(b) - 2 sin(b / 2)**2 + exp(a) sin(b) j`` for
    ``z = a + bj`` (NumPy's loop), exact to rounding for tiny ``z``; real ``x`` as ``m``'s."""
    out = m.expm1(x)
    if out.dtype.kind != "c":
        return out
    a, b = _parts(m, x, out.dtype)
    half = m.sin(b / 2)
    return _complex(m, m.expm1(a) * m.cos(b) - 2 * half * half, m.exp(a) * m.sin(b), out.dtype)


def _scaled_hypot(m: Any, a: Any, b: Any) -> Any:
    """``sqrt(a**2 + b**2)`` without overflow: ``s * sqrt(1 + (t / s)**2)``, ``s >= t``."""
    s, t = m.maximum(m.abs(a), m.abs(b)), m.minimum(m.abs(a), m.abs(b))
    r = t / m.where(s == 0, 1, s)
    return s * m.sqrt(1 + r * r)


def hypot(m: Any, x1: Any, x2: Any, /) -> Any:
    """``hypot``, recomputed by scaling where the library's overflowed on finite operands."""
    h = m.hypot(x1, x2)
    a, b = m.asarray(x1, dtype=h.dtype), m.asarray(x2, dtype=h.dtype)
    over = m.isinf(h) & m.isfinite(a) & m.isfinite(b)
    return m.where(over, _scaled_hypot(m, a, b), h)


def abs(m: Any, x: Any, /) -> Any:  # noqa: A001 (the standard's name)
    if x.dtype.kind != "c":
        return m.abs(x)
    return hypot(m, x.real, x.imag)


def divide(m: Any, x1: Any, x2: Any, /) -> Any:
    """``divide``; complex quotients by NumPy's algorithm (Smith's, scaled by the larger
    part of the divisor; a zero divisor divides each part by zero)."""
    out = m.divide(x1, x2)
    if out.dtype.kind != "c":
        return out
    (ar, ai), (br, bi) = _parts(m, x1, out.dtype), _parts(m, x2, out.dtype)
    abr, abi = m.abs(br), m.abs(bi)
    first = abr >= abi  # NumPy's branch; NaN takes the second
    zero = (abr == 0) & (abi == 0)
    # Divided by the scale rather than multiplied by its reciprocal (NumPy's way): that
    # reciprocal is subnormal for a float32 divisor near the largest number, and CUDA
    # flushes it to 0 (then inf / 3e38j gives NaN).
    rat1 = bi / m.where(zero, 1, br)
    den1 = br + bi * rat1
    re1, im1 = (ar + ai * rat1) / den1, (ai - ar * rat1) / den1
    re0, im0 = ar / abr, ai / abr
    rat2 = br / m.where(abi == 0, 1, bi)
    den2 = bi + br * rat2
    re2, im2 = (ar * rat2 + ai) / den2, (ai * rat2 - ar) / den2
    re = m.where(first, m.where(zero, re0, re1), re2)
    im = m.where(first, m.where(zero, im0, im1), im2)
    return _complex(m, re, im, out.dtype)


def reciprocal(m: Any, x: Any, /) -> Any:
    """``reciprocal``; complex: ``divide``'s algorithm, except that ``1 / 0`` is NaN (NumPy's
    reciprocal has no zero-divisor branch)."""
    if x.dtype.kind != "c":
        return m.reciprocal(x)
    out = divide(m, m.ones((), dtype=x.dtype), x)
    nan = m.asarray(complex(float("nan"), float("nan")), dtype=x.dtype)
    return m.where(x == 0, nan, out)


def sign(m: Any, x: Any, /) -> Any:
    """``sign``; a complex ``z`` is ``z / |z|`` part by part, as NumPy's: 0 for 0, NaN for a
    NaN ``|z|``; where ``|z|`` is infinite, NaN when both parts are, else the sign of the
    infinite part, or of the imaginary part when ``|z|`` overflowed (NumPy's rule)."""
    if x.dtype.kind != "c":
        return m.sign(x)
    re, im = x.real, x.imag
    a = hypot(m, re, im)
    inf_re, inf_im = m.isinf(re), m.isinf(im)
    nan = m.asarray(float("nan"), dtype=re.dtype)
    on_inf_re = m.where(inf_re, m.where(inf_im, nan, m.sign(re)), 0)
    on_inf_im = m.where(inf_re, m.where(inf_im, nan, 0), m.sign(im))
    safe = m.where(a == 0, 1, a)

    def part(p, on_inf):
        return m.where(a == 0, 0, m.where(m.isinf(a), on_inf, p / safe))

    return _complex(m, part(re, on_inf_re), part(im, on_inf_im), x.dtype)


def log(m: Any, x: Any, /) -> Any:
    """``log``; for a complex ``z`` whose real part came out non-finite for a non-zero
    ``z``, the real part is ``log(|z|)`` with an ``|z|`` that does not overflow."""
    out = m.log(x)
    if x.dtype.kind != "c":
        return out
    return _fix_log_real(m, out, x.real, x.imag)


def _fix_log_real(m: Any, out: Any, re: Any, im: Any) -> Any:
    bad = ~m.isfinite(out.real) & ((re != 0) | (im != 0))
    real = m.where(bad, m.log(hypot(m, re, im)), out.real)
    return _complex(m, real, out.imag, out.dtype)


def log1p(m: Any, x: Any, /) -> Any:
    """``log1p``; complex: the imaginary part ``atan2(im, re + 1)`` (NumPy's; CuPy adds 1 as
    a complex number, which turns ``-0j`` into ``+0j``), the real part as ``log``'s."""
    out = m.log1p(x)
    if x.dtype.kind != "c":
        return out
    re1 = x.real + 1
    out = _fix_log_real(m, out, re1, x.imag)
    return _complex(m, out.real, m.arctan2(x.imag, re1), x.dtype)


def log2(m: Any, x: Any, /) -> Any:
    """``log2``; complex: ``log(z) / log(2)`` part by part (not a complex division)."""
    if x.dtype.kind != "c":
        return m.log2(x)
    z = log(m, x)
    return _complex(m, z.real * _LN2_INV, z.imag * _LN2_INV, x.dtype)


def log10(m: Any, x: Any, /) -> Any:
    if x.dtype.kind != "c":
        return m.log10(x)
    z = log(m, x)
    return _complex(m, z.real * _LN10_INV, z.imag * _LN10_INV, x.dtype)


def _divmod(m: Any, a: Any, b: Any) -> tuple[Any, Any]:
    """NumPy's (Python's) floating ``divmod``: the quotient floored, the remainder with the
    divisor's sign (a zero remainder signed as the divisor), from ``fmod``."""
    mod = m.fmod(a, b)
    div = (a - mod) / b
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    mod = m.where(adjust, mod + b, m.where(mod == 0, m.copysign(0 * mod, b), mod))
    div = m.where(adjust, div - 1, div)
    floor = m.floor(div)
    floor = m.where(div - floor > 0.5, floor + 1, floor)
    floor = m.where(div == 0, m.copysign(0 * div, a / b), floor)
    by_zero = b == 0
    return m.where(by_zero, a / b, floor), m.where(by_zero, m.fmod(a, b), mod)


def floor_divide(m: Any, x1: Any, x2: Any, /) -> Any:
    out = m.floor_divide(x1, x2)
    if out.dtype.kind != "f":
        return out
    return _divmod(m, m.asarray(x1, dtype=out.dtype), m.asarray(x2, dtype=out.dtype))[0]


def remainder(m: Any, x1: Any, x2: Any, /) -> Any:
    out = m.remainder(x1, x2)
    if out.dtype.kind != "f":
        return out
    return _divmod(m, m.asarray(x1, dtype=out.dtype), m.asarray(x2, dtype=out.dtype))[1]


def _integer_power(m: Any, a: Any, n: Any) -> Any:
    """``a ** n`` for integers ``|n| < 100`` by NumPy's products: ``a``, ``a * a`` and
    ``a * a * a`` for 1, 2 and 3, else binary powering from 1 (then ``1 / that`` for ``n < 0``).
    Where a product overflows, the infinite and NaN parts may differ from NumPy's."""
    k = m.abs(n).astype(m.int64)
    acc = m.ones(k.shape, dtype=a.dtype)
    p = a
    for bit in range(7):  # |n| < 100 < 2**7
        acc = m.where((k >> bit) & 1 == 1, acc * p, acc)
        p = p * p
    a2 = a * a
    acc = m.where(n == 1, a, m.where(n == 2, a2, m.where(n == 3, a2 * a, acc)))
    return m.where(n < 0, divide(m, m.ones((), dtype=a.dtype), acc), acc)


def pow(m: Any, x1: Any, x2: Any, /) -> Any:  # noqa: A001 (the standard's name)
    """``pow``; complex, as NumPy's: a real integer exponent below 100 in magnitude by
    products (``_integer_power``; CuPy's ``exp(x2 * log(x1))`` gives ``inf + nan j`` for
    ``(1 + 1.8e308j) ** 1``); NaN where ``x2 * log(x1)`` is finite recomputed as its ``exp``,
    with ``log`` above (CuPy's is NaN for ``(1.8e308j) ** 1j``); a zero base gives 1 for a
    zero exponent (the library's own), 0 for an exponent with a positive real part and NaN
    otherwise."""
    out = m.power(x1, x2)
    if out.dtype.kind != "c":
        return out
    a, b = m.asarray(x1, dtype=out.dtype), m.asarray(x2, dtype=out.dtype)
    base0, exp0 = a == 0, b == 0
    lost = m.isnan(out.real) & m.isnan(out.imag) & m.isfinite(a) & ~base0
    if bool(m.any(lost)):  # the log and exp passes only where the library lost a value
        power = b * log(m, m.where(base0, 1, a))
        out = m.where(lost & m.isfinite(power), m.exp(power), out)
    small = (b.imag == 0) & (m.floor(b.real) == b.real) & (m.abs(b.real) < 100) & ~exp0
    if bool(m.any(small)):
        out = m.where(small, _integer_power(m, a, m.where(small, b.real, 0)), out)
    nan = m.asarray(complex(float("nan"), float("nan")), dtype=out.dtype)
    at_zero = m.where(b.real > 0, m.zeros((), dtype=out.dtype), nan)
    return m.where(base0 & ~exp0, at_zero, out)
