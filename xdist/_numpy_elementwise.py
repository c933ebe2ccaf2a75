"""NumPy's elementwise functions beyond the standard: ``isposinf``, ``isneginf``, ``isreal``,
``spacing`` and ``interp``.

Each is one pass over the blocks (``apply_elementwise``): the result has the input's layout
and nothing is sent. ``interp`` finds each value's interval in the replicated sample points
with the library's ``searchsorted`` on each rank's block, then evaluates NumPy's formula
(``slope * (x - xp[j]) + fp[j]``, the slope of the interval as NumPy computes it), so a
split ``x`` never meets the other ranks' values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._array import Array, replicated_operand, wrap_block
from ._data_type_functions import astype
from ._dtypes import check_category
from ._movement.gathers import implicit_gather
from ._ops.elementwise import apply_elementwise
from ._validation import check_array

__all__ = ["interp", "isneginf", "isposinf", "isreal", "spacing"]


def _signed_inf(x: Array, func: str, negative: bool) -> Array:
    check_array(x, func)
    check_category(x.dtype, "real numeric", func)
    xp = x._backend.xp

    def local(a: Any) -> Any:
        if not xp.isdtype(a.dtype, "real floating"):
            return xp.zeros_like(a, dtype=xp.bool)
        return xp.isinf(a) & (xp.signbit(a) if negative else ~xp.signbit(a))

    return apply_elementwise(func, local, [x])


def isposinf(x: Array, /, out: Any = None) -> Array:
    """NumPy's ``isposinf`` (xdist's extension): where ``x`` is ``+inf`` (never for
    integers); complex ``x`` raises ``TypeError`` as in NumPy. ``out`` is not supported.
    Communication: none (elementwise; the result has ``x``'s layout)."""
    _refuse_out("isposinf", out)
    return _signed_inf(x, "isposinf", negative=False)


def isneginf(x: Array, /, out: Any = None) -> Array:
    """NumPy's ``isneginf`` (xdist's extension): where ``x`` is ``-inf``. Communication:
    none (elementwise)."""
    _refuse_out("isneginf", out)
    return _signed_inf(x, "isneginf", negative=True)


def _refuse_out(func: str, out: Any) -> None:
    if out is not None:
        raise NotImplementedError(f"{func}: out= is not supported on xdist arrays; use the result")


def isreal(x: Array, /) -> Array:
    """NumPy's ``isreal`` (xdist's extension): where the imaginary part is zero (every element
    of a real or boolean array). Communication: none (elementwise)."""
    check_array(x, "isreal")
    xp = x._backend.xp
    if x.dtype.kind == "c":
        return apply_elementwise("isreal", lambda a: xp.imag(a) == 0, [x])
    return apply_elementwise("isreal", lambda a: xp.ones_like(a, dtype=xp.bool), [x])


def spacing(x: Array, /, out: Any = None) -> Array:
    """NumPy's ``spacing`` (xdist's extension): the distance from ``x`` to the next value of
    its dtype away from zero (negative for negative ``x``; the smallest subnormal at both
    zeros; NaN at infinities). Integers and booleans are taken in the default real floating
    dtype. Communication: none (elementwise)."""
    _refuse_out("spacing", out)
    check_array(x, "spacing")
    check_category(x.dtype, "real numeric", "spacing")
    if x.dtype.kind in "biu":
        x = astype(x, x._backend.default_dtypes()["real floating"])
    xp = x._backend.xp

    def local(a: Any) -> Any:
        inf = xp.full_like(a, math.inf)
        away = xp.where(a < 0, -inf, inf)
        with np.errstate(invalid="ignore"):  # inf - inf: NaN at infinities, as NumPy gives
            return xp.nextafter(a, away) - a

    return apply_elementwise("spacing", local, [x])


# -- interp ---------------------------------------------------------------------------------
def _check_sample(v: Any, name: str) -> Any:
    """``xp`` or ``fp`` checked (no message): NumPy data, made a NumPy array, or an xdist
    array of a real dtype."""
    if isinstance(v, Array):
        check_category(v.dtype, "real numeric", "interp", name)
        return v
    v = np.asarray(v)
    if v.dtype.kind not in "biuf":
        kind = "complex fp" if v.dtype.kind == "c" else f"{name} of dtype {v.dtype}"
        raise NotImplementedError(f"interp: {kind} is not supported on xdist arrays")
    return v.astype(np.float64)


def _sample(v: Any, like: Array) -> Any:
    """A checked ``xp`` or ``fp`` as a float64 block on every rank, whole: NumPy data compared
    across the ranks under ``check_replicated``; a split xdist array gathered (the table every
    rank searches; a ``GatherWarning`` above ``gather_warning_elements``)."""
    if not isinstance(v, Array):
        v = replicated_operand(like, v, "interp")
    whole = implicit_gather(v._local, v._layout, v._comm, v._backend, "interp")
    return like._backend.xp.astype(whole, like._backend.native_dtype(np.dtype(np.float64)))


def interp(
    x: Array,
    xp: Any,
    fp: Any,
    left: float | None = None,
    right: float | None = None,
    period: Any = None,
) -> Array:
    """NumPy's ``interp`` (xdist's extension): the piecewise linear interpolant through
    ``(xp, fp)`` at ``x``, in float64: ``left`` (default ``fp[0]``) below ``xp[0]``, ``right``
    (default ``fp[-1]``) above ``xp[-1]``; ``xp`` must increase, as NumPy asks. ``x`` is an
    xdist array of any layout; ``xp`` and ``fp`` are NumPy data or xdist arrays (real).
    ``period`` and complex ``fp`` are not supported.

    Communication: none for replicated xdist ``xp`` and ``fp`` (each rank searches its own
    block of ``x``); NumPy ``xp`` and ``fp`` are compared across the ranks first under
    ``check_replicated`` (one allgather of one int each); split ones are gathered, as every
    rank searches all of them (memory: ``xp`` and ``fp`` whole on every rank; a
    ``GatherWarning`` above ``gather_warning_elements``). The result has ``x``'s layout."""
    check_array(x, "interp")
    check_category(x.dtype, "real numeric", "interp", "x")
    if period is not None:
        raise NotImplementedError("interp: period= is not supported on xdist arrays")
    for name, v in (("left", left), ("right", right)):
        if v is not None and not isinstance(v, (int, float, np.floating, np.integer)):
            raise TypeError(f"interp: {name} must be a real scalar or None, got {v!r}")
    xp, fp = _check_sample(xp, "xp"), _check_sample(fp, "fp")
    sx, sf = xp.shape, fp.shape
    if len(sx) != 1 or sx != sf or sx[0] == 0:
        raise ValueError(f"interp: xp and fp must be 1-D of one nonzero length, got {sx}, {sf}")
    px, pf = _sample(xp, x), _sample(fp, x)
    lib, n = x._backend.xp, sx[0]
    lo = float(pf[0]) if left is None else float(left)
    hi = float(pf[-1]) if right is None else float(right)

    def local(a: Any) -> Any:
        a = lib.astype(a, x._backend.native_dtype(np.dtype(np.float64)))
        j = lib.searchsorted(px, lib.reshape(a, (-1,)), side="right")
        j = lib.clip(j - 1, 0, max(n - 2, 0))  # the interval [xp[j], xp[j + 1]) of each value
        x0, f0, x1, f1 = (
            lib.reshape(lib.take(v, k), a.shape)
            for k in (j, lib.clip(j + 1, 0, n - 1))
            for v in (px, pf)
        )
        with np.errstate(all="ignore"):  # equal sample points: NumPy's NaN fallbacks below
            slope = (f1 - f0) / (x1 - x0)
            y = slope * (a - x0) + f0
            y = lib.where(lib.isnan(y), slope * (a - x1) + f1, y)
        y = lib.where(lib.isnan(y) & (f0 == f1) & ~lib.isnan(a), f0, y)
        if n == 1:  # NumPy's one sample point: fp[0] wherever x is neither below nor above
            y = f0
        y = lib.where(a == x0, f0, y)
        y = lib.where(a == px[-1], pf[-1], y)
        y = lib.where(a < px[0], lo, y)
        return lib.where(a > px[-1], hi, y)

    return wrap_block(local(x._local), x._layout, x)
