"""The PyTorch backend: blocks are ``torch.Tensor`` on the CPU or a CUDA device.

Deviations from the generic backend: Torch's dtypes (no uint16/32/64 arithmetic, so those are
refused), float32 as the default floating dtype, CUDA devices, threads per rank, how a block
reaches MPI (a CPU tensor is viewed as NumPy without a copy; a CUDA tensor is synchronized and
staged through pinned host memory), the local functions whose results xdist corrects
(``_NAMESPACE``), no uint64 accumulator (``sum_dtype``), and the ``torch.special`` functions
that agree with SciPy (``SPECIAL_FUNCTIONS``).
"""

from __future__ import annotations

import functools
import math
import os
from typing import Any

import array_api_compat.torch as xp_torch
import numpy as np
import torch
from torch.autograd.graph import increment_version

from .._config import torch_threads_setting
from .base import BackendBase, Device, host_solve_upper_right
from .moments import chunked
from .numpy import NumPyBackend, gemm_operand
from .numpy import matmul as numpy_matmul
from .standard_semantics import all_finite, corrected_namespace, namespace_over
from .threads import OPENBLAS_VARS, cores_per_rank

__all__ = ["TorchBackend", "backend"]

_DTYPES = {
    np.dtype("bool"): torch.bool,
    np.dtype("int8"): torch.int8,
    np.dtype("int16"): torch.int16,
    np.dtype("int32"): torch.int32,
    np.dtype("int64"): torch.int64,
    np.dtype("uint8"): torch.uint8,
    np.dtype("float32"): torch.float32,
    np.dtype("float64"): torch.float64,
    np.dtype("complex64"): torch.complex64,
    np.dtype("complex128"): torch.complex128,
}


def _remainder(x1: Any, x2: Any, /) -> torch.Tensor:
    """Torch's ``remainder`` with a zero result signed as the divisor, as the standard and
    NumPy say (``-0.0 % 1.0 == +0.0``, ``0.0 % -1.0 == -0.0``); Torch signs it as the dividend.
    Torch's vectorized kernel gives NaN where the quotient ``x1 / x2`` overflows (finite
    operands, ``1.4e6 % 4e-33`` in float32), though the remainder is exact and small: those
    elements, rare, are computed again by NumPy's on the host."""
    out = xp_torch.remainder(x1, x2)
    if not out.is_floating_point():
        return out
    # a nonzero floored remainder has the divisor's sign already: one copysign signs the zeros
    out = torch.copysign(out, x2).to(out.dtype)
    if out.is_complex():
        return out
    nan = torch.isnan(out)
    if not bool(nan.any()):  # the common case: one pass
        return out
    a, b = (torch.as_tensor(v, dtype=out.dtype, device=out.device) for v in (x1, x2))
    a, b = torch.broadcast_tensors(a, b)
    lost = nan & torch.isfinite(a) & torch.isfinite(b) & (b != 0)
    if not bool(lost.any()):
        return out
    where = lost.nonzero(as_tuple=True)
    again = np.remainder(a[where].cpu().numpy(), b[where].cpu().numpy())
    out = out.clone()
    out[where] = torch.from_numpy(again).to(out.device)
    return out


# -- complex sorting: Torch cannot sort complex numbers on the CPU, xdist's sorts, sample sort
# and unique functions need it. Complex numbers are ordered as NumPy orders them: by the keys
# (class, real, imag), class 0 for R + Rj, 1 for R + nan j, 2 for nan + Rj, 3 for nan + nan j,
# a NaN part counting as 0 in the other keys (equal values keep index order).
def _complex_keys(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    re, im = torch.real(x), torch.imag(x)
    nre, nim = torch.isnan(re), torch.isnan(im)
    cls = 2 * nre.to(torch.int8) + nim.to(torch.int8)
    return cls, torch.where(nre, 0.0, re), torch.where(nim, 0.0, im)


def _argsort(x: torch.Tensor, /, *, axis=-1, descending=False, stable=True) -> torch.Tensor:
    """``argsort``, complex numbers in NumPy's order (stable: one stable sort per key, least
    significant first)."""
    if not x.is_complex():
        return xp_torch.argsort(x, axis=axis, descending=descending, stable=stable)
    if x.ndim == 0:
        return torch.zeros((), dtype=torch.int64, device=x.device)
    order = None
    for key in reversed(_complex_keys(x)):
        k = key if order is None else torch.take_along_dim(key, order, dim=axis)
        step = torch.argsort(k, dim=axis, descending=descending, stable=True)
        order = step if order is None else torch.take_along_dim(order, step, dim=axis)
    return order


def _sort(x: torch.Tensor, /, *, axis=-1, descending=False, stable=True) -> torch.Tensor:
    if not x.is_complex() or x.ndim == 0:
        return xp_torch.sort(x, axis=axis, descending=descending, stable=stable)
    order = _argsort(x, axis=axis, descending=descending)
    return torch.take_along_dim(x, order, dim=axis)


def _keys_less(a: tuple, b: tuple) -> torch.Tensor:
    """Whether the keys ``a`` come before the keys ``b`` (lexicographically)."""
    less = a[2] < b[2]
    for ka, kb in ((a[1], b[1]), (a[0], b[0])):
        less = (ka < kb) | ((ka == kb) & less)
    return less


def _searchsorted(x1: torch.Tensor, x2: Any, /, *, side="left", sorter=None) -> torch.Tensor:
    """``searchsorted``; in a 1-D complex ``x1`` (NumPy's order), a binary search of every
    key at once: ``bit_length(n)`` halvings of ``[lo, hi)``, each one gather and compare."""
    if not x1.is_complex() or x1.ndim != 1 or sorter is not None:
        return xp_torch.searchsorted(x1, x2, side=side, sorter=sorter)
    seq, keys = _complex_keys(x1), _complex_keys(torch.as_tensor(x2, dtype=x1.dtype))
    n = x1.shape[0]
    lo = torch.zeros(keys[0].shape, dtype=torch.int64, device=x1.device)
    hi = torch.full_like(lo, n)
    for _ in range(n.bit_length()):
        active = lo < hi
        mid = (lo + hi) // 2
        at = tuple(k[mid.clamp(max=n - 1)] for k in seq)
        # left: the first position whose value is not below the key; right: above the key.
        right = _keys_less(at, keys) if side == "left" else ~_keys_less(keys, at)
        lo = torch.where(active & right, mid + 1, lo)
        hi = torch.where(active & ~right, mid, hi)
    return lo


def _on_host(name: str, dtypes: tuple, torch_fn: Any, quiet: bool = False) -> Any:
    """The backend's binary ``name``: NumPy's ufunc of that name on views of two CPU tensors of
    one of ``dtypes`` outside autograd (or of one such integer tensor and a Python int
    that its dtype holds), into ``out`` where given and of the result's shape; else
    ``torch_fn``. Used where Torch's CPU kernel is the slower and both give the same
    values and dtype: comparisons (a bool per element), and integer ``+ - *`` (both wrap
    around). On one thread, 100000 int64: ``!=`` 56 us in Torch against 19 us, ``-`` 61
    against 26 us; 65536 float32 ``!=`` 42 against 6 us. (Torch's float arithmetic is as
    fast as NumPy's, faster for a broadcast row.) None of these loops sets a floating-point
    flag (comparisons of NaN included), so they run outside ``np.errstate``; ``quiet``:
    inside it, for integer ``//`` and ``%``, which flag a zero divisor (NumPy's 0 there,
    where Torch raises; xdist's ``integer_division`` never passes one). Those two, 100000
    int64 by a Python int: ``//`` 51 us in Torch against 25 us, ``%`` 32 against 12."""

    def fn(x1: Any, x2: Any, /, *, out: torch.Tensor | None = None) -> torch.Tensor:
        views = _host_operands(x1, x2, dtypes)
        return _on_views(getattr(np, name), views, (x1, x2), out, torch_fn, quiet=quiet)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _on_views(
    ufunc: Any, views: Any, args: tuple, out: Any, torch_fn: Any, quiet: bool = True
) -> torch.Tensor:
    """``ufunc`` on ``views``, NumPy views of ``args`` (``None``: ``torch_fn`` on ``args``),
    into ``out`` where given and of the result's shape (else ``torch_fn``, which resizes
    it, as Torch does). ``quiet``: under ``np.errstate(all="ignore")``, as Torch does not
    warn (``False`` for loops that set no floating-point flag: 1 us less per call)."""
    into = None
    if views is not None and out is not None:
        into = _out_view(out, views, out.dtype)
        if into is None:
            views = None
    if views is None:
        return torch_fn(*args) if out is None else torch_fn(*args, out=out)
    if quiet:
        with np.errstate(all="ignore"):
            result = ufunc(*views) if into is None else ufunc(*views, out=into)
    else:
        result = ufunc(*views) if into is None else ufunc(*views, out=into)
    return out if into is not None else torch.from_numpy(np.asarray(result))


def _host_operands(x1: Any, x2: Any, dtypes: tuple) -> tuple | None:
    """NumPy views of ``x1`` and ``x2`` for ``_on_host``, or ``None``."""
    if not isinstance(x1, torch.Tensor):
        x1, x2 = x2, x1
        swap = True
    else:
        swap = False
    if not isinstance(x1, torch.Tensor) or x1.dtype not in dtypes:
        return None
    a = _own_view(x1, dtypes)
    if a is None:
        return None
    if isinstance(x2, torch.Tensor):
        b = _own_view(x2, dtypes) if x2.dtype == x1.dtype else None
        if b is None:
            return None
    elif type(x2) is int and x1.dtype in _INTEGERS:
        low, high = _INTEGER_RANGES[x1.dtype]
        if not low <= x2 <= high:
            return None
        b = x2
    else:
        return None
    return (b, a) if swap else (a, b)


_INTEGERS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)
# each integer dtype's (min, max), read once (``np.iinfo`` costs 1 us a call, a fifth of a
# small operation's own time)
_INTEGER_RANGES = {t: (int(torch.iinfo(t).min), int(torch.iinfo(t).max)) for t in _INTEGERS}
_COMPARED = (*_INTEGERS, torch.float32, torch.float64, torch.bool)


def _subtract(x1: Any, x2: Any, /, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """Torch's ``subtract`` with complex results computed part by part, as NumPy and C99 do:
    Torch subtracts ``-1 * x2`` as a complex product, so an infinite imaginary part of
    ``x2`` turns the real part into NaN (``(1+2j) - (1+infj)`` gave ``nan-infj``). Into
    ``out`` where given (a real result: Torch's own)."""
    if out is not None and not out.is_complex():
        return xp_torch.subtract(x1, x2, out=out)
    out = xp_torch.subtract(x1, x2)
    if not out.is_complex():
        return out
    a = torch.as_tensor(x1, dtype=out.dtype, device=out.device)
    b = torch.as_tensor(x2, dtype=out.dtype, device=out.device)
    return torch.complex(a.real - b.real, a.imag - b.imag)


def _pow(x1: Any, x2: Any, /) -> torch.Tensor:
    """Torch's ``pow``; a complex ``x1 ** 0`` is 1, as the standard says (Torch gives NaN for
    ``0j ** 0j``)."""
    out = xp_torch.pow(x1, x2)
    if not out.is_complex():
        return out
    b = torch.as_tensor(x2, dtype=out.dtype, device=out.device)
    return torch.where(b == 0, torch.ones((), dtype=out.dtype, device=out.device), out)


def _acos(x: Any, /) -> torch.Tensor:
    """Torch's ``acos`` with a zero imaginary part signed opposite to ``x``'s, as the
    standard's conjugate symmetry asks (``acos(0j)`` is ``pi/2 - 0j``; Torch's complex128
    gives ``+0j``)."""
    out = xp_torch.acos(x)
    if not out.is_complex():
        return out
    zero = out.imag == 0
    if not bool(zero.any()):
        return out
    im = torch.where(zero, torch.copysign(torch.zeros_like(out.imag), -x.imag), out.imag)
    return torch.complex(out.real, im)


def _sqrt(x: Any, /, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """``sqrt`` correctly rounded, as the standard (and IEEE 754) requires: Torch's CPU kernel
    is not (1.3% of random float64 and 17% of float32 results differ from the correctly
    rounded ones in the last place), so a float32 or float64 CPU tensor's is NumPy's (the
    processor's square root instruction) on a view of it, into ``out`` where given; the
    rest is Torch's (CUDA's ``sqrt`` is correctly rounded)."""
    return _on_views(np.sqrt, _typed_views((x,), out), (x,), out, torch.sqrt)


_ROUNDED = (torch.float32, torch.float64)


def _log1p(x: Any, /) -> torch.Tensor:
    """Torch's ``log1p``; where a complex ``x`` has an infinite or NaN part,
    ``log(re + 1 + im j)`` (the parts built apart): the standard's ``+inf + NaN j`` at
    ``inf + NaN j`` and ``NaN + inf j``, where Torch gives ``NaN + NaN j``."""
    out = xp_torch.log1p(x)
    if not out.is_complex():
        return out
    if all_finite(xp_torch, x):
        return out
    return torch.where(torch.isfinite(x), out, torch.log(torch.complex(x.real + 1, x.imag)))


def _diff(x: torch.Tensor, /, *, axis=-1, n=1, prepend=None, append=None) -> torch.Tensor:
    """Torch's ``diff`` part by part for complex ``x`` (its differences are ``_subtract``'s)."""
    if not x.is_complex():
        return xp_torch.diff(x, axis=axis, n=n, prepend=prepend, append=append)

    def part(t, take):
        return None if t is None else take(torch.as_tensor(t, dtype=x.dtype, device=x.device))

    halves = [
        xp_torch.diff(
            take(x), axis=axis, n=n, prepend=part(prepend, take), append=part(append, take)
        )
        for take in (torch.real, torch.imag)
    ]
    return torch.complex(*halves)


def _sum(x: torch.Tensor, /, *, axis=None, dtype=None, keepdims: bool = False) -> torch.Tensor:
    """Torch's ``sum``; a float32 or float16 block of the CPU summed in float64 (``mean``'s
    and k-means' accumulations) by NumPy on a view of it: Torch's own widening CPU sum is
    several times slower than NumPy's, and NumPy's pairwise sum is as accurate. Likewise a
    float32 or float64 block summed in its own dtype over its leading axes with a wide rest
    (``_wide_rows``)."""
    view = _numpy_view(x, (torch.float32, torch.float16)) if dtype == torch.float64 else None
    if view is None and dtype in (None, x.dtype) and _wide_rows(x, axis):
        view = _numpy_view(x, (torch.float32, torch.float64))
    if view is not None:  # (the NumPy backend's sum: its compiled loops where they apply)
        wide = np.float64 if dtype == torch.float64 else None
        found = _HOST.xp.sum(view, axis=axis, dtype=wide, keepdims=keepdims)
        return torch.from_numpy(np.asarray(found))
    return xp_torch.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)


WELFORD_OFFSET = 64.0  # |mean| / std above this: Welford's M2 is taken again by two passes
# kept elements per reduced index from which NumPy's column sums win (measured at one thread
# on 4 million elements: float64 rows of 100 NumPy 1.3x faster, of 64 Torch 1.2x; float32
# rows of 1024 NumPy 4x, of 256 Torch 1.6x)
_WIDE_ROWS = {torch.float64: 96, torch.float32: 512}


def _wide_rows(x: torch.Tensor, axis) -> bool:
    """Whether ``axis`` are the leading axes of a C-contiguous tensor (not all of them) and
    the kept trailing part has at least ``_WIDE_ROWS`` elements of its dtype: NumPy then
    adds whole rows, which Torch's CPU kernel does more slowly. For a narrower rest (200000 x
    64 float32 over axis 0), the last axes or all of them, Torch's own sum is faster."""
    if axis is None or not x.is_contiguous():
        return False
    axes = sorted(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    k = len(axes)
    wide = _WIDE_ROWS.get(x.dtype)
    return bool(axes == list(range(k)) and k < x.ndim and wide and math.prod(x.shape[k:]) >= wide)


def _concat(arrays, /, *, axis: int | None = 0) -> torch.Tensor:
    """``concat``; CPU tensors of one dtype outside autograd by NumPy's ``concatenate`` on
    views of them: Torch's CPU copy of strided parts (columns of a block stacked) is
    slower than NumPy's. The same values either way (a copy)."""
    arrays = list(arrays)
    if arrays and all(a.ndim > 0 and a.dtype == arrays[0].dtype for a in arrays):
        views = [_numpy_view(a, _COPIED_DTYPES) for a in arrays]
        if all(v is not None for v in views):
            return torch.from_numpy(np.concatenate(views, axis=axis))
    return xp_torch.concat(arrays, axis=axis)


def _matmul(x1: torch.Tensor, x2: torch.Tensor, /) -> torch.Tensor:
    """``matmul``; integer tensors off the CPU by ``_integer_matmul`` (CUDA has no integer
    GEMM: ``addmm_cuda`` is not implemented for int64). Real float tensors of the CPU of
    one dtype, outside autograd, by NumPy's product on views of them where NumPy's BLAS
    runs as many threads as Torch (``_blas_threads``): the Torch wheel's CPU GEMM is up to
    2.7x slower than NumPy's OpenBLAS on tall and thin operands (k-means' ``X @ C.T``, a
    Gram matrix, the distances' ``X @ Y.T``; ``benchmarks/workloads.py``)."""
    views = _blas_views(x1, x2)
    if views is not None and _products(views[0].shape, views[1].shape):
        return torch.from_numpy(np.asarray(numpy_matmul(*views)))
    if x1.device.type == "cpu" or not (_is_integer(x1) and _is_integer(x2)):
        return xp_torch.matmul(x1, x2)
    return _integer_matmul(x1, x2)


def _blas_views(*tensors: torch.Tensor) -> list[np.ndarray] | None:
    """NumPy views of real float CPU tensors of one dtype outside autograd, for NumPy's BLAS
    where it runs as many threads as Torch (``_matmul``); else ``None``."""
    dtype = tensors[0].dtype
    if dtype not in _FLOATS or any(t.dtype != dtype for t in tensors):
        return None
    if torch.get_num_threads() != _blas_threads():
        return None
    views = [_numpy_view(t, _FLOATS) for t in tensors]
    return None if any(v is None for v in views) else views  # type: ignore[return-value]


def _products(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Whether ``matmul`` takes operands of shapes ``a`` and ``b`` (else Torch's own call
    raises its own error)."""
    if not a or not b or a[-1] != b[-2 if len(b) > 1 else 0]:
        return False
    try:
        np.broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        return False
    return True


@functools.cache
def _blas_threads() -> int:
    """The threads of NumPy's BLAS, read once: threadpoolctl's count where it is installed
    (as with scikit-learn), else OpenBLAS's rule when it is loaded (``OPENBLAS_NUM_THREADS``,
    ``GOTO_NUM_THREADS``, ``OMP_NUM_THREADS``, else the CPUs this process may run on)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        pass
    else:
        for lib in threadpool_info():
            if lib.get("user_api") == "blas" and "numpy" in str(lib.get("filepath", "")):
                return int(lib["num_threads"])
    for name in OPENBLAS_VARS:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _is_integer(x: torch.Tensor) -> bool:
    return not (x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool)


def _integer_matmul(x1: torch.Tensor, x2: torch.Tensor, /) -> torch.Tensor:
    """``matmul`` of integer tensors as sums of products over chunks of the inner axis (each
    chunk's products at most 2**24 elements), in the result dtype: exact, wrapping around
    as NumPy's and Torch's CPU products do."""
    dtype = torch.promote_types(x1.dtype, x2.dtype)
    a, b = x1.to(dtype), x2.to(dtype)
    vector_a, vector_b = a.ndim == 1, b.ndim == 1
    a = a[None, :] if vector_a else a
    b = b[:, None] if vector_b else b
    if a.shape[-1] != b.shape[-2]:
        return xp_torch.matmul(x1, x2)  # the library's own error
    k = a.shape[-1]
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = torch.zeros((*batch, a.shape[-2], b.shape[-1]), dtype=dtype, device=a.device)
    step = max(1, 2**24 // max(1, out.numel()))
    for lo in range(0, k, step):
        part = a[..., :, lo : lo + step, None] * b[..., None, lo : lo + step, :]
        out += part.sum(dim=-2, dtype=dtype)
    if vector_b:
        out = out[..., 0]
    if vector_a:
        out = out[..., 0, :] if not vector_b else out[..., 0]
    return out


def welford(block: torch.Tensor, axes: tuple[int, ...], n: int):
    """``(mean, correction, M2)`` of a real float block over ``axes`` (kept, length 1) in
    float64 by Torch's ``var_mean``: Welford's updates, one read of the block (float32 and
    narrower widened first). ``None`` for other blocks and where some mean is more than
    ``WELFORD_OFFSET`` standard deviations from zero: Welford's M2 loses digits
    with the offset (about 1e-14 relative at 64, 1e-10 at 1e6 standard deviations), where
    the corrected two passes do not. The correction is zero: the mean is Welford's own."""
    if not axes or not block.is_floating_point() or block.numel() == 0:
        return None
    wide = block if block.dtype == torch.float64 else block.to(torch.float64)
    var, mean = torch.var_mean(wide, dim=axes, correction=0, keepdim=True)
    if bool(torch.any(mean * mean > WELFORD_OFFSET**2 * var)):  # NaN compares False
        return None
    return mean, torch.zeros_like(mean), var * n


# Torch dtypes whose tensors NumPy views exactly: real ones for NumPy's kernels, and
# complex and bool besides where the data are only copied.
_REAL_DTYPES = (
    torch.float16,
    torch.float32,
    torch.float64,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
)
_COPIED_DTYPES = (*_REAL_DTYPES, torch.complex64, torch.complex128, torch.bool)
# the tensor dtypes that a Python number of each type is written into through NumPy's view
# (``write_number``): the same conversion as Torch's
_WRITTEN_NUMBERS = {
    float: (torch.float32, torch.float64),
    int: _INTEGERS,
    bool: (torch.bool,),
}
_FLOATS = (torch.float32, torch.float64)


def _numpy_view(x: torch.Tensor, dtypes: tuple) -> np.ndarray | None:
    """A NumPy view of a CPU tensor of one of ``dtypes`` outside autograd (where NumPy's
    kernel beats Torch's), or ``None``. A pending conjugate or negative bit is resolved
    first (a copy). Called on every block of the kernels above, so the cheapest tests come
    first and a tensor's own memory is viewed by one Torch call (``Tensor.numpy`` refuses a
    pending bit itself): right after a large product has evicted the caches, ``numpy()``
    costs 12-25 us (0.8 warm) and a property such as ``is_cpu`` 2-6 us (0.06 warm)."""
    if x.dtype not in dtypes or x.requires_grad or not x.is_cpu:
        return None
    try:
        return x.numpy()
    except RuntimeError:  # a pending conjugate or negative bit
        return x.resolve_conj().resolve_neg().numpy()


def _own_view(x: torch.Tensor, dtypes: tuple) -> np.ndarray | None:
    """``_numpy_view`` of ``x`` where it is ``x``'s own memory (no conjugate or negative bit
    pending, which ``_numpy_view`` would resolve into a copy): a view that may be written,
    or read as ``x``'s memory; else ``None``."""
    # _numpy_view's checks written out, not called: every kernel above views its operands
    # and its out= tensor so (0.5 us of the 6 us of a call on 1000 elements)
    if x.dtype not in dtypes or x.requires_grad or not x.is_cpu:
        return None
    try:
        return x.numpy()
    except RuntimeError:  # a pending conjugate or negative bit: not its own memory
        return None


def _out_view(out: torch.Tensor, views: Any, dtype: torch.dtype) -> np.ndarray | None:
    """``_own_view`` of an ``out=`` tensor of ``dtype`` to write the result of a function of
    ``views`` (NumPy views and Python scalars) into, where it has the result's shape;
    ``None`` for one of another shape, which Torch's own function resizes (and which must be
    left unviewed: a tensor whose memory NumPy has viewed cannot be resized)."""
    shape = tuple(out.shape)
    if any(isinstance(v, np.ndarray) and v.shape != shape for v in views):
        if np.broadcast_shapes(*map(np.shape, views)) != shape:  # (else one broadcasts)
            return None
    return _own_view(out, (dtype,))


def _astype(x: torch.Tensor, dtype: Any, /, *, copy: bool = True, device: Any = None) -> Any:
    """``astype``; a bool CPU tensor outside autograd to float32 or float64 by NumPy's cast
    on its memory (the same 0 and 1), where Torch's kernel is the slower: 48000 elements 29
    us against 4-10 us, 1,000,000 560 us against 85-210 us, on one thread (a one-hot
    membership matrix, ``astype(labels == ids, float)``); else array-api-compat's."""
    if (
        x.dtype is torch.bool
        and dtype in _FLOATS
        and (device is None or torch.device(device) == x.device)
    ):
        view = _own_view(x, (torch.bool,))
        if view is not None:
            return torch.from_numpy(view.astype(_NUMPY_FLOATS[dtype]))
    return xp_torch.astype(x, dtype, copy=copy, device=device)


_NUMPY_FLOATS = {torch.float32: np.float32, torch.float64: np.float64}


# Torch's CPU kernels of these functions give an element other bits in their vector loop
# than in the scalar loop of a call's last elements, so that its value would depend on where
# its block starts and ends: on the rank count, on a fused chain's tiles. NumPy's loops give
# every element the same bits wherever it lies (and are faster, but for float64 ``hypot``:
# 14 against 2.3 ms for 1,000,000 on one thread).
_UFUNCS_ANYWHERE = {
    "sinh": np.sinh,
    "cosh": np.cosh,
    "atanh": np.arctanh,
    "atan2": np.arctan2,
    "pow": np.power,
    "hypot": np.hypot,
}


def _anywhere(name: str, torch_fn: Any) -> Any:
    """The backend's ``name`` (``_UFUNCS_ANYWHERE``) of float32 or float64 CPU tensors of one
    dtype outside autograd, and Python ints and floats (taken in that dtype, as Torch takes
    them): NumPy's ufunc on views, into ``out`` where given and of the result's shape; else
    ``torch_fn`` (complex and integer tensors, autograd, GPUs: CUDA computes every element
    alike)."""
    ufunc = _UFUNCS_ANYWHERE[name]

    def fn(*args: Any, out: torch.Tensor | None = None) -> torch.Tensor:
        return _on_views(ufunc, _typed_views(args, out), args, out, torch_fn)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _typed_views(
    args: tuple, out: Any = None, scalars: dict = _NUMPY_FLOATS, result: dict | None = None
) -> list | None:
    """NumPy views of CPU tensors outside autograd of one dtype among ``scalars`` (Torch's
    dtype -> NumPy's scalar type), with the Python numbers among ``args`` (ints and floats,
    complex numbers for a complex dtype) as scalars of that dtype, as Torch takes them (at
    least one tensor; an ``out`` of the result's dtype: ``result``'s for an argument's dtype,
    else the argument's); else ``None``."""
    dtype = next((a.dtype for a in args if isinstance(a, torch.Tensor)), None)
    if dtype not in scalars:
        return None
    if out is not None and out.dtype != (result or {}).get(dtype, dtype):
        return None
    scalar = scalars[dtype]
    numbers = (int, float, complex) if dtype.is_complex else (int, float)
    views = []
    for a in args:
        if isinstance(a, torch.Tensor):
            v = _numpy_view(a, (dtype,))
            if v is None:
                return None
        elif type(a) in numbers:
            with np.errstate(over="ignore"):  # (an int beyond float32's range is inf there)
                v = scalar(a)
        else:
            return None
        views.append(v)
    return views


# Torch's CPU kernels of complex ``*``, ``/``, ``square``, ``abs`` (and so ``sign``, its
# ``x / abs(x)``) give a call's last elements other bits too (``_UFUNCS_ANYWHERE``); NumPy's
# take as long but for ``abs``, 9x faster (500000 complex128: 0.44 against 3.9 ms).
_NUMPY_COMPLEX = {torch.complex64: np.complex64, torch.complex128: np.complex128}
_REAL_OF = {torch.complex64: torch.float32, torch.complex128: torch.float64}


def _complex_sign(z: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """array-api-compat's complex ``sign`` (``z / |z|``, 0 for 0: the standard's, NaN for a NaN
    part, where NumPy's own ``sign`` gives ``1 + 0j`` for ``inf + nan j``) in NumPy."""
    r = np.asarray(z / np.abs(z))
    r[z == 0] = 0
    if out is None:
        return r
    out[...] = r
    return out


def _complex_anywhere(ufunc: Any, torch_fn: Any, result: dict | None = None) -> Any:
    """``ufunc`` on views of complex CPU tensors of one dtype outside autograd and Python
    numbers (``_typed_views``; ``result``: the result's dtype of an argument's, if another),
    into ``out`` where given and of the result's shape; else ``torch_fn``."""

    def fn(*args: Any, out: torch.Tensor | None = None) -> torch.Tensor:
        views = _typed_views(args, out, _NUMPY_COMPLEX, result)
        return _on_views(ufunc, views, args, out, torch_fn)

    fn.__name__ = fn.__qualname__ = getattr(torch_fn, "__name__", ufunc.__name__)
    return fn


def _logaddexp(x1: Any, x2: Any, /, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """``logaddexp`` of float CPU tensors outside autograd by NumPy's formula on Torch's
    ``exp`` and ``log1p`` (whose CPU kernels compute every element alike; Torch's own
    ``logaddexp`` does not, see ``_UFUNCS_ANYWHERE``, and NumPy's is 5x slower):
    ``x + log1p(exp(y - x))`` for the larger ``x``, ``x + log(2)`` where ``x == y`` (an
    infinity of one sign), NaN where either is NaN; into ``out`` where given and of the
    result's shape. Else Torch's."""
    views = _typed_views((x1, x2), out)
    if views is None:
        return xp_torch.logaddexp(x1, x2) if out is None else xp_torch.logaddexp(x1, x2, out=out)
    a, b = (torch.from_numpy(np.asarray(v)) for v in views)  # (their memory: no copy)
    if out is not None and tuple(out.shape) != torch.broadcast_shapes(a.shape, b.shape):
        return xp_torch.logaddexp(x1, x2, out=out)
    big, small = torch.maximum(a, b), torch.minimum(a, b)
    r = big + torch.log1p(torch.exp(small - big))
    r = torch.where(a == b, a + math.log(2.0), r)  # (inf + inf: the difference is NaN)
    r = torch.where(torch.isnan(a) | torch.isnan(b), a + b, r)
    if out is None:
        return r
    out.copy_(r)
    return out


# ``torch.special``'s functions whose CPU kernels give an element other bits in their vector
# loop than in a call's last elements (``_UFUNCS_ANYWHERE``): SciPy's on the CPU.
_SPECIAL_ANYWHERE = ("exp2", "expit")


def _scipy_on_cpu(name: str, torch_fn: Any) -> Any:
    """``scipy.special``'s ``name`` on a view of a float CPU tensor outside autograd (where
    SciPy is installed), else ``torch_fn``."""

    def fn(x: Any) -> torch.Tensor:
        view = _numpy_view(x, _ROUNDED) if isinstance(x, torch.Tensor) else None
        if view is not None:
            try:
                from scipy import special
            except ImportError:
                view = None
        if view is None:
            return torch_fn(x)
        return torch.from_numpy(np.asarray(getattr(special, name)(view)))

    fn.__name__ = fn.__qualname__ = name
    return fn


def _same_real(name: str, general: Any) -> Any:
    """The backend's binary ``name`` (``+ - * /``): Torch's own function for two tensors of
    one real floating dtype, or one such tensor and a Python int or float, which
    array-api-compat's wrapper and the complex and integer cases of ``general`` reach
    after checks that find nothing to change (its type promotion is the identity there);
    ``general`` for everything else. The checks cost little warm (2-3 us) but about 40 us
    of a 70 us call on a (8, 64) float32 right after a large product has evicted them from
    the caches (k-means' centre updates)."""
    torch_fn = getattr(torch, name)

    def fn(x1: Any, x2: Any, /, *, out: torch.Tensor | None = None) -> torch.Tensor:
        t1, t2 = type(x1) is torch.Tensor, type(x2) is torch.Tensor
        if (
            (x1.dtype is x2.dtype if t1 and t2 else t1 or t2)
            and (x1 if t1 else x2).dtype in _ROUNDED
            and (t1 or type(x1) in (int, float))
            and (t2 or type(x2) in (int, float))
        ):
            return torch_fn(x1, x2) if out is None else torch_fn(x1, x2, out=out)
        return general(x1, x2) if out is None else general(x1, x2, out=out)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _squared(general: Any) -> Any:
    """The backend's ``pow``: ``x1 * x1`` for a tensor of a real floating dtype squared (an
    exponent of 2, k-means' and variances' ``d ** 2``), the one correctly rounded product
    that NumPy's ``power`` computes too (``_UFUNCS_ANYWHERE``), without ``general``'s
    checks (cold, as in ``_same_real``: 65 against 25 us); ``general`` for the rest."""

    def fn(x1: Any, x2: Any, /, *, out: torch.Tensor | None = None) -> torch.Tensor:
        if (
            type(x1) is torch.Tensor
            and type(x2) in (int, float)
            and x2 == 2
            and x1.dtype in _ROUNDED
        ):
            return torch.mul(x1, x1) if out is None else torch.mul(x1, x1, out=out)
        return general(x1, x2) if out is None else general(x1, x2, out=out)

    fn.__name__ = fn.__qualname__ = "pow"
    return fn


# array-api-compat's torch namespace, with the functions above in place of its own
_NAMESPACE = namespace_over(
    f"{__name__}.namespace",
    xp_torch,
    {
        "remainder": _on_host("remainder", _INTEGERS, _remainder, quiet=True),
        "floor_divide": _on_host("floor_divide", _INTEGERS, xp_torch.floor_divide, quiet=True),
        "subtract": _same_real("subtract", _on_host("subtract", _INTEGERS, _subtract)),
        "add": _same_real("add", _on_host("add", _INTEGERS, xp_torch.add)),
        "multiply": _same_real(
            "multiply",
            _complex_anywhere(np.multiply, _on_host("multiply", _INTEGERS, xp_torch.multiply)),
        ),
        "divide": _same_real("divide", _complex_anywhere(np.divide, xp_torch.divide)),
        "square": _complex_anywhere(np.square, xp_torch.square),
        "abs": _complex_anywhere(np.abs, xp_torch.abs, _REAL_OF),
        "sign": _complex_anywhere(_complex_sign, xp_torch.sign),
        **{
            name: _on_host(name, _COMPARED, getattr(xp_torch, name))
            for name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
        },
        "pow": _squared(_anywhere("pow", _pow)),
        **{
            name: _anywhere(name, getattr(xp_torch, name))
            for name in ("sinh", "cosh", "atanh", "atan2", "hypot")
        },
        "logaddexp": _logaddexp,
        "diff": _diff,
        "acos": _acos,
        "log1p": _log1p,
        "sqrt": _sqrt,
        "sum": _sum,
        "argsort": _argsort,
        "sort": _sort,
        "searchsorted": _searchsorted,
        "matmul": _matmul,
        "concat": _concat,
        "astype": _astype,
    },
    "array_api_compat.torch, corrected",
)
# ... and the standard's special values where NumPy's and Torch's differ alike
# (standard_semantics: floor_divide with infinities, complex expm1, tan and tanh).
_NAMESPACE = corrected_namespace(f"{__name__}.namespace", _NAMESPACE)


# scipy.special name -> torch.special name, for the functions whose results agree with
# SciPy's (checked on edge values, infinities and NaN at float32 and float64). Not listed:
# ``gammainc``/``gammaincc`` differ on NaN, ``gammaln`` at -inf, ``ndtr`` in the far tail and
# the Bessel ``j``/``y`` functions in the last digits.
SPECIAL_FUNCTIONS = {
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


def _threads_per_rank() -> int:
    """Cores per rank on this node (``threads.cores_per_rank``). Under mpiexec, Torch reads
    MPICH's MPI_LOCALNRANKS and silently drops to one thread; xdist sets the count
    explicitly. XDIST_TORCH_THREADS wins, checked when the backend is first made
    (``_config.torch_threads_setting``: the same ValueError on every rank, which share the
    environment)."""
    threads = torch_threads_setting()
    return cores_per_rank() if threads is None else threads


class TorchBackend(BackendBase):
    name = "torch"
    xp = _NAMESPACE
    _dtypes = _DTYPES

    def __init__(self) -> None:
        torch.set_num_threads(_threads_per_rank())
        self._from = {v: k for k, v in _DTYPES.items()}
        self._devices: dict[torch.device, Device] = {}  # every xdist call asks (same_context)

    def devices(self) -> list[Device]:
        cuda = [Device("torch", "cuda", i) for i in range(torch.cuda.device_count())]
        return [Device("torch", "cpu"), *cuda]

    def device_of(self, block: torch.Tensor) -> Device:
        dev = block.device
        found = self._devices.get(dev)
        if found is None:
            index = dev.index if dev.type != "cpu" else None
            found = self._devices[dev] = Device("torch", dev.type, index)
        return found

    def native_device(self, device: Device) -> torch.device:
        return torch.device(str(device))

    def is_block(self, obj: Any) -> bool:
        return isinstance(obj, torch.Tensor)

    def dtype_of(self, block: torch.Tensor) -> np.dtype:
        return self._from[block.dtype]

    def asarray(self, obj: Any, dtype=None, device=None, copy=None) -> torch.Tensor:
        if isinstance(obj, np.generic):
            obj = np.asarray(obj)
        if isinstance(obj, np.ndarray):
            if obj.ndim == 0 and copy:
                # Torch refuses copy=True of a 0-d NumPy array with a dtype change ("can't
                # alias"): the copy is made here, and Torch may use it as it is.
                obj, copy = obj.copy(), None
            if any(st < 0 for st in obj.strides):
                # Torch cannot view negative strides (a reversed NumPy slice): copy it first.
                if copy is False:
                    raise ValueError("asarray: copy=False, but Torch cannot share negative strides")
                obj, copy = np.ascontiguousarray(obj), None
            if dtype is None:
                dtype = obj.dtype  # a TypeError for uint16/32/64, which Torch cannot compute with
            dev = self.check_device(device, "asarray")
            if dev.kind != "cpu":  # host data is copied to the GPU (Torch's asarray refuses 0-d)
                if copy is False:
                    raise ValueError(f"asarray: copy=False, but host data must be copied to {dev}")
                native = self.native_dtype(dtype)
                plain = obj.flags.c_contiguous and obj.flags.writeable  # from_numpy warns
                host = obj if plain else np.array(obj, order="C")
                return torch.from_numpy(host).to(device=self.native_device(dev), dtype=native)
            if not obj.flags.writeable and obj.size:
                # Torch's tensors have no read-only flag: one sharing a read-only array (a
                # memmap opened for reading, a broadcast view) would let xdist write into it
                if copy is False:
                    raise ValueError(
                        "asarray: copy=False, but obj is a read-only NumPy array, which a "
                        "Torch tensor cannot share safely (Torch has no read-only tensors); "
                        "pass copy=None to copy it, or make it writable"
                    )
                obj, copy = np.array(obj, order="C"), None
        return super().asarray(obj, dtype, device, copy)

    def default_dtypes(self) -> dict[str, np.dtype]:
        return {
            **super().default_dtypes(),
            "real floating": np.dtype("float32"),
            "complex floating": np.dtype("complex64"),
        }

    def to_host(self, block: torch.Tensor) -> np.ndarray:
        block = block.detach().resolve_conj().resolve_neg()
        if block.device.type == "cpu":
            return block.contiguous().numpy()
        # Stage through pinned memory; .copy_ + synchronize makes the GPU work complete first.
        staging = torch.empty(block.shape, dtype=block.dtype, pin_memory=True)
        staging.copy_(block, non_blocking=True)
        torch.cuda.synchronize(block.device)
        return staging.numpy()

    def from_host(self, array: np.ndarray, device: Device | None = None) -> torch.Tensor:
        if not array.flags.writeable:
            array = array.copy()
        tensor = torch.from_numpy(np.ascontiguousarray(array) if array.ndim else array)
        if device is None or device.kind == "cpu":
            return tensor
        return tensor.to(self.native_device(device), non_blocking=False)

    def sum_dtype(self, dtype: np.dtype) -> np.dtype:
        """Torch has no uint64: unsigned integers accumulate in int64, as Torch's own sum
        gives them."""
        if dtype.kind == "u":
            return np.dtype("int64")
        return super().sum_dtype(dtype)

    def matmul_into(self, a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
        """Real float CPU tensors by NumPy's BLAS writing into ``out`` itself, as ``matmul``
        (``_blas_views``)."""
        views = _blas_views(a, b, out)
        if views is None:
            super().matmul_into(a, b, out)
        else:
            va, vb, vout = views
            np.matmul(va, gemm_operand(va, vb), out=vout)

    def blas_views(self, a: torch.Tensor, b: torch.Tensor) -> tuple[np.ndarray, ...] | None:
        """Views of real float CPU tensors where NumPy's BLAS makes the backend's products
        (``_blas_views``)."""
        views = _blas_views(a, b)
        return None if views is None else (views[0], views[1])

    def solve_upper_right(self, b: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        """On the CPU, LAPACK's triangular solve through SciPy on the tensors' memory (Torch's
        own ``solve_triangular`` copies a C-ordered ``b`` first); on a GPU, Torch's."""
        if b.device.type == "cpu" and not (b.requires_grad or r.requires_grad):
            found = host_solve_upper_right(self.to_host(b), self.to_host(r))
            if found is not None:
                return torch.from_numpy(found)
        return torch.linalg.solve_triangular(r, b, upper=True, left=False)

    def special_function(self, name: str) -> Any:
        """``torch.special``'s function where it agrees with SciPy (``SPECIAL_FUNCTIONS``)."""
        native = SPECIAL_FUNCTIONS.get(name)
        if native is None:
            return None
        fn = getattr(torch.special, native)
        return _scipy_on_cpu(name, fn) if name in _SPECIAL_ANYWHERE else fn

    def in_place(self, op, block: torch.Tensor, value) -> bool:
        """Torch's in-place operators, where nothing aliases: a number, or a tensor that is
        the block itself or holds memory of its own (Torch refuses a partial overlap), and
        no autograd."""
        if block.requires_grad:
            return False
        if isinstance(value, torch.Tensor) and value is not block:
            if value.requires_grad or self.may_alias(block, value):
                return False
        op(block, value)
        return True

    def host_view(self, block: torch.Tensor) -> np.ndarray | None:
        """``Tensor.numpy()`` of a CPU tensor of a NumPy dtype outside autograd with no
        conjugate or negative bit pending (its own memory), else ``None``."""
        return _own_view(block, _COPIED_DTYPES)

    def write_number(self, block: torch.Tensor, key: tuple, value: Any) -> None:
        """``block[key] = value`` through NumPy's view of a CPU tensor (``host_view``) where the
        value converts alike (a float into a float tensor, an int into an integer one, a bool
        into a bool one: one rounding, or none), then the tensor's version counter bumped, as
        Torch's own write bumps it (autograd checks it for tensors saved for a backward
        pass): 1.2 against 2.1 us for Torch's write; elsewhere Torch's write. The Lasso
        descent writes one coefficient per changed coordinate so."""
        view = _own_view(block, _WRITTEN_NUMBERS.get(type(value), ()))
        if view is None:
            block[key] = value
            return
        view[key] = value
        increment_version(block)

    def may_alias(self, block: torch.Tensor, value: torch.Tensor) -> bool:
        """Where the two share a storage: Torch refuses to write from a partly overlapping
        tensor (and copying from the same memory it writes could read written values)."""
        return value.untyped_storage().data_ptr() == block.untyped_storage().data_ptr()

    def moments(self, block: torch.Tensor, axes: tuple[int, ...], n: int):
        """The moments of ``BackendBase.moments``: for a float CPU block, NumPy's one read in
        cache-sized chunks (``moments.chunked``) on a view of it, since Torch's one-pass
        ``var_mean`` loses digits on data with a large offset and its two passes read the
        block five times; on other devices (GPUs) Torch's one read (``welford``) where the
        data allow it; else two passes in Torch."""
        if block.device.type == "cpu":
            view = _numpy_view(block, (torch.float32, torch.float64))
            found = None if view is None else chunked(view, axes)
            if found is not None:
                return tuple(torch.from_numpy(np.ascontiguousarray(r)) for r in found)
        else:
            found = welford(block, axes, n)
            if found is not None:
                return found
        return super().moments(block, axes, n)

    def item(self, block: torch.Tensor) -> Any:
        """Torch's ``item`` (a view's negation and conjugation applied; a GPU tensor waits):
        one element read directly, with none of the NumPy copy that ``to_host`` makes."""
        return block.item()

    def unstack(self, block: torch.Tensor, axis: int) -> tuple[torch.Tensor, ...]:
        """Torch's ``unbind``: one call for every slice, not one indexing call per slice."""
        return block.unbind(axis)

    def arg_best(self, block: torch.Tensor, axis: int | None, keepdims: bool, want_max: bool):
        """``BackendBase.arg_best``; a real CPU block outside autograd by NumPy's backend on a
        view of it (the same positions): its passes over many short lines are slower in
        Torch, whose transposing copy and ``(v == best) * weights`` cost more than NumPy's."""
        view = _numpy_view(block, _REAL_DTYPES)
        if view is None:
            return super().arg_best(block, axis, keepdims, want_max)
        return torch.from_numpy(np.asarray(_HOST.arg_best(view, axis, keepdims, want_max)))

    def select(self, block: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """On the CPU outside autograd, a mask over the whole block (no axis left) or over
        the leading axes of a contiguous block is NumPy's backend on views (its
        ``compress``): the same elements, 2-5x faster than Torch's boolean indexing and
        than ``index_select`` of the mask's positions (100000 rows of 65 float32, 2% or
        30% selected: 49 against 159 us, 0.54 against 1.1 ms). Elsewhere ``index_select``
        of the positions, faster than boolean indexing of a contiguous block with more than
        one axis."""
        view, where = _numpy_view(block, _COPIED_DTYPES), _numpy_view(mask, (torch.bool,))
        if (
            view is not None
            and where is not None
            and (block.ndim == mask.ndim or view.flags.c_contiguous)
        ):
            return torch.from_numpy(_HOST.select(view, where))
        if (
            mask.ndim == 0
            or block.ndim == mask.ndim
            or block.device.type != "cpu"
            or not block.is_contiguous()
        ):
            return super().select(block, mask)
        rows = block.reshape((math.prod(mask.shape), *block.shape[mask.ndim :]))
        return torch.index_select(rows, 0, torch.nonzero(mask.reshape(-1)).reshape(-1))

    def vecdot_last_axis(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor | None:
        """Real floating CPU blocks outside autograd by NumPy's ``vecdot`` on views, one pass
        with no product array: k-means' |x|^2 of a strided view, where Torch's product and
        sum would first write (and page in) a product as large as the operands
        (docs/benchmarks.md has the fit's times). Elsewhere ``None`` (a product and a sum)."""
        va, vb = _numpy_view(a, _FLOATS), _numpy_view(b, _FLOATS)
        if va is None or vb is None:
            return None
        return torch.from_numpy(np.asarray(_HOST.vecdot_last_axis(va, vb)))

    # -- transport buffers (see BackendBase.to_buffer) -------------------------------------
    def is_c_contiguous(self, block: torch.Tensor) -> bool:
        return block.is_contiguous()

    def device_contiguous(self, block: torch.Tensor) -> torch.Tensor:
        return block.detach().resolve_conj().resolve_neg().contiguous()

    def synchronize(self, device: Device) -> None:
        if device.kind == "cuda":
            torch.cuda.synchronize(self.native_device(device))

    def move_block(self, block: torch.Tensor, device: Device) -> torch.Tensor:
        return block.to(self.native_device(device), copy=True)


_HOST = NumPyBackend()  # NumPy's kernels on views of CPU tensors, where they are faster


def backend() -> TorchBackend:
    return TorchBackend()
