"""The CuPy backend: blocks are ``cupy.ndarray`` on a CUDA device.

Deviations from the generic backend: CUDA devices only; how a block reaches MPI: it is
synchronized and staged through pinned host memory, or, with a CUDA-aware MPI, handed to MPI
in place (``to_buffer``, a contiguous device array after the device is synchronized); host
data never shares memory with a block (``asarray(..., copy=False)`` raises); ``linalg``
failures are reported (``linalg_errors``: CuPy returns NaN without ``cupyx.errstate``);
``argmax``/``argmin`` give the first NaN; the elementwise functions whose special values
CuPy computes differently from NumPy are corrected (``numpy_semantics``, ``_NAMESPACE``); and
``cupyx.scipy.special`` computes the special functions, except those in ``SPECIAL_ON_HOST``;
in-place operators write the block unless an operand may overlap it (``in_place``); and
``var``/``std`` read a block once (``shifted_moments``).
"""

from __future__ import annotations

import functools
from typing import Any

import array_api_compat.cupy as xp_cupy
import cupy
import cupyx
import numpy as np

from . import numpy_semantics
from .base import STANDARD_DTYPES, BackendBase, Device
from .moments import MIN_ROWS, from_shifted_sums
from .standard_semantics import corrected_namespace, namespace_over

__all__ = ["CuPyBackend", "backend"]


def _on_cupy(name: str):
    fn = getattr(numpy_semantics, name)

    def corrected(*args):
        return fn(cupy, *args)

    corrected.__name__ = corrected.__qualname__ = name
    corrected.__doc__ = fn.__doc__
    return corrected


# array-api-compat's cupy namespace with NumPy's special values where CuPy's differ.
_NAMESPACE = namespace_over(
    f"{__name__}.namespace",
    xp_cupy,
    {name: _on_cupy(name) for name in numpy_semantics.__all__},
    "array_api_compat.cupy, corrected",
)
# ... and the standard's preferred values where NumPy's differ (standard_semantics).
_NAMESPACE = corrected_namespace(f"{__name__}.namespace", _NAMESPACE)


# cupyx.scipy.special functions that xdist does not use, with why (CuPy 14.2 on an H100):
# these run SciPy on the host copy of the blocks.
SPECIAL_ON_HOST = {
    # The GPU kernel does not terminate on some of tests/extensions/test_special.py's
    # arguments (0, -0, +-inf, NaN, +-1, 0.5 and normal samples).
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


# The sums of d = x - shift and of d * d in one read of x, as the real and imaginary parts of
# one complex128 sum (one reduction kernel, two results, accumulated in double).
_SHIFTED_SUMS = cupy.ReductionKernel(
    "T x, float64 shift",
    "complex128 sums",
    "_xdist_shifted(x, shift)",
    "a + b",
    "sums = a",
    "complex<double>(0, 0)",
    "xdist_shifted_sums",
    reduce_type="complex<double>",
    preamble="""
__device__ complex<double> _xdist_shifted(double x, double shift) {
    double d = x - shift;
    return complex<double>(d, d * d);
}""",
)
_GROUPS = 4096  # a whole block reduced as this many rows at once, then their sums added


def shifted_moments(block: cupy.ndarray, axes: tuple[int, ...], n: int):
    """``(mean, correction, M2)`` of a float32/float64 block over ``axes`` (kept) in float64
    by the shifted-data algorithm of ``moments.chunked``, reading the block once: the shift
    is the mean of the first ``MIN_ROWS`` indices of each reduced axis, and one reduction
    kernel sums ``d`` and ``d * d``. A whole contiguous block is reduced as ``_GROUPS`` rows
    in parallel (and its last few elements), then their sums are added: CuPy reduces each
    output in one thread block. ``None`` where the layout or the data do not allow it
    (``moments.from_shifted_sums``)."""
    if not axes or block.dtype not in (cupy.float32, cupy.float64) or block.size == 0:
        return None
    first = tuple(slice(0, MIN_ROWS) if a in axes else slice(None) for a in range(block.ndim))
    shift = cupy.mean(block[first], axis=axes, keepdims=True, dtype=cupy.float64)
    if len(axes) == block.ndim and block.flags.c_contiguous:
        flat, s = block.reshape(-1), shift.reshape(1)
        whole = block.size - block.size % _GROUPS
        sums = _SHIFTED_SUMS(flat[whole:], s, axis=0)
        if whole:
            sums = sums + cupy.sum(_SHIFTED_SUMS(flat[:whole].reshape(_GROUPS, -1), s, axis=1))
        sums = sums.reshape(shift.shape)
    else:
        sums = _SHIFTED_SUMS(block, shift, axis=axes, keepdims=True)
    return from_shifted_sums(cupy, shift, sums.real, sums.imag, n)


@functools.cache
def _device(index: int) -> Device:
    """The Device of CUDA device ``index``, made once (every xdist call asks for it)."""
    return Device("cupy", "cuda", index)


class CuPyBackend(BackendBase):
    name = "cupy"
    xp = _NAMESPACE
    _dtypes = {d: d for d in STANDARD_DTYPES}

    def devices(self) -> list[Device]:
        return [Device("cupy", "cuda", i) for i in range(cupy.cuda.runtime.getDeviceCount())]

    def device_of(self, block: cupy.ndarray) -> Device:
        return _device(block.device.id)

    def native_device(self, device: Device) -> cupy.cuda.Device:
        return cupy.cuda.Device(device.index)

    def is_block(self, obj: Any) -> bool:
        return isinstance(obj, cupy.ndarray)

    def dtype_of(self, block: cupy.ndarray) -> np.dtype:
        return block.dtype

    def native_dtype(self, dtype: np.dtype) -> np.dtype:
        return np.dtype(dtype)

    def asarray(self, obj, dtype=None, device=None, copy=None) -> cupy.ndarray:
        dev = self.check_device(device, "asarray")
        if copy is False and not isinstance(obj, cupy.ndarray):
            raise ValueError(f"asarray: copy=False, but host data must be copied to {dev}")
        with self.native_device(dev):
            return xp_cupy.asarray(obj, dtype=dtype, copy=copy)

    def empty(self, shape, dtype, device=None) -> cupy.ndarray:
        dev = self.check_device(device, "empty")
        with self.native_device(dev):
            return cupy.empty(shape, dtype=dtype)

    def to_host(self, block: cupy.ndarray) -> np.ndarray:
        staging = cupyx.empty_pinned(block.shape, dtype=block.dtype)
        with block.device:
            block.get(out=staging)  # blocking: the GPU work on the stream completes first
        return staging

    def from_host(self, array: np.ndarray, device: Device | None = None) -> cupy.ndarray:
        dev = self.default_device() if device is None else device
        with self.native_device(dev):
            return cupy.asarray(array)

    # -- transport buffers (see BackendBase.to_buffer) -------------------------------------
    def is_c_contiguous(self, block: cupy.ndarray) -> bool:
        return block.flags.c_contiguous

    def device_contiguous(self, block: cupy.ndarray) -> cupy.ndarray:
        if block.flags.c_contiguous:
            return block
        with block.device:
            return block.copy(order="C")

    def synchronize(self, device: Device) -> None:
        cupy.cuda.Device(device.index).synchronize()

    def linalg_errors(self):
        # CuPy checks cuSOLVER's status (and synchronizes) only when asked to.
        return cupyx.errstate(linalg="raise")

    def special_function(self, name: str) -> Any:
        """``cupyx.scipy.special``'s function where it exists and agrees with SciPy (not in
        ``SPECIAL_ON_HOST``)."""
        if name in SPECIAL_ON_HOST:
            return None
        import cupyx.scipy.special  # only when a special function is first used: slow import

        return getattr(cupyx.scipy.special, name, None)

    def in_place(self, op, block: cupy.ndarray, value) -> bool:
        """CuPy's in-place operators (a kernel writing ``block``), unless the value is
        another array that may share memory with the block: CuPy does not buffer an
        overlapping operand as NumPy does, so a partly overlapping one would race."""
        if isinstance(value, cupy.ndarray) and value is not block:
            if self.may_alias(block, value):
                return False
        op(block, value)
        return True

    def may_alias(self, block: cupy.ndarray, value: cupy.ndarray) -> bool:
        """``cupy.may_share_memory``: CuPy's copy kernels do not buffer an overlap."""
        return cupy.may_share_memory(block, value)

    def moments(self, block: cupy.ndarray, axes: tuple[int, ...], n: int):
        """The moments of ``BackendBase.moments`` reading the block once
        (``shifted_moments``) where it can; else the corrected two passes."""
        found = shifted_moments(block, axes, n)
        return found if found is not None else super().moments(block, axes, n)

    def arg_best(self, block: cupy.ndarray, axis: int | None, keepdims: bool, want_max: bool):
        """CuPy's ``argmax``/``argmin``, except in lines holding NaN: CuPy's parallel
        reduction returns one of the NaNs, not the first (seen on an H100, CuPy 14.2), so
        those lines take the first NaN's position (NumPy's answer and the standard's)."""
        found = super().arg_best(block, axis, keepdims, want_max)
        if block.dtype.kind != "f":
            return found
        nan = cupy.isnan(block)
        first_nan = cupy.argmax(nan, axis=axis, keepdims=keepdims)  # booleans: the first True
        return cupy.where(cupy.any(nan, axis=axis, keepdims=keepdims), first_nan, found)


def backend() -> CuPyBackend:
    return CuPyBackend()
