"""The standard's ``fft`` extension, distributed.

A transform along axes that are not split runs on each block (the backend's FFT through
array-api-compat) and sends nothing; the layout is kept, with the new lengths where ``n`` or
``s`` change them. A transform along the split axis moves the split to another axis (one
all-to-all), transforms there and moves it back (one all-to-all): two in all, also for
``fftn``/``rfftn``/``irfftn`` over several axes, since the other axes are transformed while
the split is on the axis that is not. A 1-D array (or one whose other axes have fewer
indices than there are ranks) uses the six-step FFT along its split axis (three
all-to-alls), or, when the length is prime, the documented gather on one rank (see
``_split_axis``). The split axis keeps its counts when its length is unchanged; a new
length is split in balanced blocks.

Dtypes: ``fft``, ``ifft``, ``fftn``, ``ifftn``, ``irfft``, ``irfftn`` and ``hfft`` take a
floating-point array (a real one is taken as complex of its precision: float32 ->
complex64); ``rfft``, ``rfftn`` and ``ihfft`` need a real floating-point one. Complex
results have the input's precision (complex64 from float32), and real ones too (float32
from complex64).

``fftfreq``/``rfftfreq`` are creation functions (``split=``, ``comm=``); ``fftshift`` and
``ifftshift`` roll with one all-to-all when the split axis is shifted (see ``_shift``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._array import Array
from .._dtypes import check_category
from .._validation import check_array, check_int, normalize_axis, ordered_axes
from ._freq import fftfreq, rfftfreq
from ._plan import execute
from ._shift import fftshift, ifftshift
from ._steps import C2R, R2C, Step, complex_of

__all__ = [
    "fft",
    "ifft",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
]

_NORMS = ("backward", "ortho", "forward")


# -- argument checks (pure: they run before anything is sent) ----------------------------------
def _check_input(x: Any, kind: str, norm: Any, func: str) -> None:
    check_array(x, func)
    check_category(x.dtype, "real floating-point" if kind in R2C else "floating-point", func)
    if norm not in _NORMS:
        raise ValueError(f"{func}: norm must be one of {_NORMS}, got {norm!r}")


def _check_points(n: int, func: str, name: str = "n") -> int:
    if n < 1:
        raise ValueError(f"{func}: invalid number of data points {name}={n}; it must be >= 1")
    return n


def _as_complex(x: Array, kind: str) -> Array:
    """A real input of a complex-input transform, as complex of its precision (local)."""
    if kind in R2C or x.dtype.kind == "c":
        return x
    native = x._backend.native_dtype(complex_of(x.dtype))
    return Array._new(x._backend.xp.astype(x._local, native), x._layout, x._comm, x._backend)


# -- one axis -------------------------------------------------------------------------------------
def _one_axis(x: Any, n: Any, axis: Any, norm: Any, kind: str, func: str) -> Array:
    _check_input(x, kind, norm, func)
    if n is not None:
        n = _check_points(check_int(n, func, "n"), func)
    if x.ndim == 0:
        raise ValueError(f"{func}: x must have at least one dimension")
    axis = normalize_axis(axis, x.ndim, func)
    if n is None:
        m = x.shape[axis]
        n = _check_points(2 * (m - 1) if kind in C2R else m, func)
    return execute(_as_complex(x, kind), [Step(kind, axis, n, norm)])


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """The 1-D discrete Fourier transform along ``axis`` (cut or zero-padded to ``n``)."""
    return _one_axis(x, n, axis, norm, "fft", "fft")


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """The 1-D inverse discrete Fourier transform along ``axis``."""
    return _one_axis(x, n, axis, norm, "ifft", "ifft")


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """The 1-D transform of real input: the ``n//2 + 1`` non-negative frequencies."""
    return _one_axis(x, n, axis, norm, "rfft", "rfft")


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """The inverse of ``rfft``: ``n`` real outputs (default ``2*(m - 1)``)."""
    return _one_axis(x, n, axis, norm, "irfft", "irfft")


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """The transform of a Hermitian-symmetric signal given by its first half: ``n`` real
    outputs (default ``2*(m - 1)``)."""
    return _one_axis(x, n, axis, norm, "hfft", "hfft")


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """The inverse of ``hfft`` for real input: ``n//2 + 1`` complex outputs."""
    return _one_axis(x, n, axis, norm, "ihfft", "ihfft")


# -- several axes ---------------------------------------------------------------------------------
def _axes_and_sizes(x: Array, s: Any, axes: Any, real: bool, func: str):
    """Normalized ``axes`` (in the given order) and the length of each transform."""
    if axes is None:
        if s is not None:
            raise ValueError(f"{func}: s requires axes (the standard leaves s without axes out)")
        axes = tuple(range(x.ndim))
    elif not isinstance(axes, Sequence) or isinstance(axes, str):
        raise TypeError(f"{func}: axes must be a sequence of ints or None, got {axes!r}")
    axes = ordered_axes(axes, x.ndim, func, "axes")
    if s is None:
        sizes = [x.shape[a] for a in axes]
        if real and axes:
            sizes[-1] = 2 * (sizes[-1] - 1)
    else:
        if not isinstance(s, Sequence) or isinstance(s, str):
            raise TypeError(f"{func}: s must be a sequence of ints or None, got {s!r}")
        if len(s) != len(axes):
            raise ValueError(f"{func}: s has {len(s)} entries but axes has {len(axes)}")
        sizes = [check_int(n, func, "s") for n in s]
        sizes = [x.shape[a] if n == -1 else n for n, a in zip(sizes, axes)]
    for n in sizes:
        _check_points(n, func, "s")
    return axes, sizes


def _many_axes(x: Any, s: Any, axes: Any, norm: Any, kind: str, func: str) -> Array:
    """``kind`` is the step along the last of ``axes``; the others are fft or ifft."""
    _check_input(x, kind, norm, func)
    axes, sizes = _axes_and_sizes(x, s, axes, kind in C2R, func)
    if not axes:
        if kind in R2C or kind in C2R:
            raise ValueError(f"{func}: axes must name at least one axis")
        x = _as_complex(x, kind)
        return Array._new(
            x._backend.xp.asarray(x._local, copy=True), x._layout, x._comm, x._backend
        )
    other = "ifft" if kind in ("ifft", "irfft") else "fft"
    steps = [Step(other, a, n, norm) for a, n in zip(axes[:-1], sizes[:-1])]
    last = Step(kind, axes[-1], sizes[-1], norm)
    # A real input is transformed first, a real output last.
    steps = [last, *steps] if kind in R2C else [*steps, last]
    return execute(_as_complex(x, kind), steps)


def fftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The n-D discrete Fourier transform over ``axes`` (all by default), each cut or
    zero-padded to ``s``."""
    return _many_axes(x, s, axes, norm, "fft", "fftn")


def ifftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The n-D inverse discrete Fourier transform over ``axes``."""
    return _many_axes(x, s, axes, norm, "ifft", "ifftn")


def rfftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The n-D transform of real input; the last of ``axes`` keeps ``s[-1]//2 + 1`` entries."""
    return _many_axes(x, s, axes, norm, "rfft", "rfftn")


def irfftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """The inverse of ``rfftn``: real output, ``s[-1]`` (default ``2*(m - 1)``) entries
    along the last of ``axes``."""
    return _many_axes(x, s, axes, norm, "irfft", "irfftn")
