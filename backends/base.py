"""The backend protocol and the device value shared by all backends."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

import numpy as np

from .moments import two_pass

__all__ = [
    "STANDARD_DTYPES",
    "Backend",
    "BackendBase",
    "Block",
    "Device",
    "DeviceBuffer",
    "host_solve_upper_right",
]


# ``arg_best`` searches lines by whole-array passes where that beats NumPy's and Torch's own
# line-by-line search, whose cost is a fixed amount per line: for many lines (below this many
# the line-by-line search runs in cache and wins), each short. With the axis already first
# and the block C-contiguous nothing is copied, so lines up to ``_LEADING_AXIS`` long gain;
# otherwise the axis is first moved to the front by a copy, which pays for itself only on
# lines of at most ``_MOVED_AXIS``. The limits are where the two measured equal (float32).
_LEADING_AXIS, _LEADING_LINES = 256, 4096
_MOVED_AXIS, _MOVED_LINES = 16, 8192
# Lines moved by chunks of this many bytes (``BackendBase.by_line_chunks``): a chunk's
# transposed copy must stay in L2 to be read back from cache; larger chunks measured slower.
LINE_CHUNK_BYTES = 1 << 18


def many_short_lines(shape: tuple[int, ...], axis: int, leading: bool = False) -> bool:
    """Whether a block of ``shape`` has enough lines along ``axis``, each short enough,
    that whole-array passes beat the libraries' line-by-line searches and reductions (the
    limits measured for ``arg_best``; ``leading``: the axis already first and contiguous)."""
    most, lines = (_LEADING_AXIS, _LEADING_LINES) if leading else (_MOVED_AXIS, _MOVED_LINES)
    k = shape[axis]
    return 2 <= k <= most and math.prod(shape) >= k * lines


_INT64, _UINT64 = np.dtype("int64"), np.dtype("uint64")


def host_solve_upper_right(b: np.ndarray, r: np.ndarray) -> np.ndarray | None:
    """``b r^{-1}`` for host arrays by LAPACK's ``trtrs`` through SciPy (``b`` read in place
    as the transposed system ``r^T y = b^T``: no copy of ``b`` beyond the result), or
    ``None`` where SciPy is not installed. A stack is solved matrix by matrix."""
    try:
        from scipy.linalg import solve_triangular
    except ImportError:
        return None
    if b.ndim == 2:
        return solve_triangular(r, b.T, trans="T", lower=False, check_finite=False).T
    r = np.broadcast_to(r, (*b.shape[:-2], *r.shape[-2:]))
    out = np.empty(b.shape, dtype=np.result_type(b, r))
    for i in np.ndindex(*b.shape[:-2]):
        out[i] = solve_triangular(r[i], b[i].T, trans="T", lower=False, check_finite=False).T
    return out


# The standard's dtypes, as NumPy dtype objects (xdist's dtypes).
STANDARD_DTYPES = tuple(
    np.dtype(name)
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)


@dataclass(frozen=True, slots=True)
class Device:
    """Where a block lives: the backend's name, the kind of memory and its index.

    Two devices compare equal only when all three agree, so a NumPy CPU array and a Torch CPU
    array are on different devices (mixing them is an error, as the standard asks).
    """

    backend: str
    kind: str = "cpu"
    index: int | None = None

    def __repr__(self) -> str:
        where = self.kind if self.index is None else f"{self.kind}:{self.index}"
        return f"Device({self.backend!r}, {where!r})"

    def __str__(self) -> str:
        return self.kind if self.index is None else f"{self.kind}:{self.index}"


# One rank's block: an array of the backend's library (``numpy.ndarray``, ``torch.Tensor``,
# ``cupy.ndarray``). Typed ``Any`` because each backend has its own array type.
Block: TypeAlias = Any


class Backend(Protocol):
    """What xdist asks of a local array library: every member that xdist's code uses on a
    backend object (``DeviceBuffer`` included). tests/backends/test_backend_contract.py checks
    every backend against it, and the code's uses against it. xdist dtypes are NumPy
    ``dtype`` objects. ``BackendBase`` implements what the libraries share."""

    name: str  # the backend's name: "numpy", "torch" or "cupy"
    xp: Any  # the library's array-API namespace (array-api-compat), with xdist's corrections

    # -- devices ----------------------------------------------------------------------------
    def devices(self) -> list[Device]:
        """Every device of this backend, the default one first unless another was set."""
        ...

    def default_device(self) -> Device:
        """The device a new block goes to when none is given."""
        ...

    def synchronize(self, device: Device) -> None:
        """Wait for the work queued on ``device`` (nothing to wait for on the CPU)."""
        ...

    def set_default_device(self, device: Device | str | None) -> Device:
        """Make ``device`` the default (None: the first device); return the previous default."""
        ...

    def check_device(self, device: Device | str | None, func: str) -> Device:
        """``device`` (None, a Device or its name) as a device of this backend, else ValueError."""
        ...

    def device_of(self, block: Block) -> Device:
        """The device that holds ``block``."""
        ...

    def native_device(self, device: Device) -> Any:
        """The library's own device object for ``device``."""
        ...

    def move_block(self, block: Block, device: Device) -> Block:
        """``block`` copied to another ``device`` of this backend."""
        ...

    # -- dtypes ------------------------------------------------------------------------------
    def default_dtypes(self) -> dict[str, np.dtype]:
        """The standard's default dtypes for this library, by the keys of the standard."""
        ...

    def supported_dtypes(self) -> tuple[np.dtype, ...]:
        """The xdist dtypes this library holds, in ``STANDARD_DTYPES`` order."""
        ...

    def dtype_of(self, block: Block) -> np.dtype:
        """The xdist (NumPy) dtype of a block."""
        ...

    def native_dtype(self, dtype: np.dtype) -> Any:
        """The library's dtype for an xdist dtype, or a TypeError naming the supported ones."""
        ...

    def sum_dtype(self, dtype: np.dtype) -> np.dtype:
        """The dtype in which ``sum``, ``prod`` and the scans accumulate ``dtype`` by default."""
        ...

    # -- blocks and the host -----------------------------------------------------------------
    def is_block(self, obj: Any) -> bool:
        """Whether ``obj`` is an array of this library."""
        ...

    def asarray(
        self,
        obj: Any,
        dtype: np.dtype | None = None,
        device: Device | str | None = None,
        copy: bool | None = None,
    ) -> Block:
        """A block from ``obj`` on ``device``, ``dtype`` and ``copy`` as in the standard's."""
        ...

    def empty(self, shape: tuple[int, ...], dtype: np.dtype, device: Device | None = None) -> Block:
        """An uninitialized block of ``shape`` and ``dtype`` on ``device``."""
        ...

    def to_host(self, block: Block) -> np.ndarray:
        """The block's data as a C-contiguous NumPy array for MPI (device work done first)."""
        ...

    def from_host(self, array: np.ndarray, device: Device | None = None) -> Block:
        """A block on ``device`` holding ``array``'s data."""
        ...

    def is_c_contiguous(self, block: Block) -> bool:
        """Whether ``block`` is C-contiguous (False where the library cannot tell)."""
        ...

    def item(self, block: Block) -> bool | int | float | complex:
        """The one element of a block as a Python scalar (device work completes first)."""
        ...

    def unstack(self, block: Block, axis: int) -> tuple[Block, ...]:
        """The block's slices along ``axis``, each a block (views where the library makes them)."""
        ...

    # -- transport buffers -------------------------------------------------------------------
    def to_buffer(self, block: Block, cuda_aware: bool) -> np.ndarray | DeviceBuffer:
        """What the transport sends: a ``DeviceBuffer`` under a CUDA-aware MPI, else ``to_host``."""
        ...

    def from_buffer(self, buf: np.ndarray | DeviceBuffer, device: Device | None) -> Block:
        """A block on ``device`` from what the transport returned (host array or buffer)."""
        ...

    def empty_buffer(self, n: int, dtype: np.dtype, like: DeviceBuffer) -> DeviceBuffer:
        """A flat receive ``DeviceBuffer`` of ``n`` elements on ``like``'s device."""
        ...

    # -- local computations ------------------------------------------------------------------
    def select(self, block: Block, mask: Block) -> Block:
        """``block[mask]`` for a boolean ``mask`` over the leading axes, as a new block."""
        ...

    def arg_best(self, block: Block, axis: int | None, keepdims: bool, want_max: bool) -> Block:
        """``argmax`` (``want_max``) or ``argmin`` of a block in int64, the first NaN winning."""
        ...

    def min_max(self, block: Block, axes: tuple[int, ...], want_max: bool) -> Block:
        """``max`` (``want_max``) or ``min`` of a block over ``axes``, kept with length 1."""
        ...

    def moments(self, block: Block, axes: tuple[int, ...], n: int) -> tuple[Block, Block, Block]:
        """``(mean, correction, M2)`` over ``axes`` (kept) in float64, ``n`` values each."""
        ...

    def count_nonzero(self, block: Block, axes: tuple[int, ...]) -> Block:
        """How many elements are nonzero over ``axes`` (kept with length 1), in int64."""
        ...

    def imag(self, block: Block) -> Block:
        """The imaginary part of a block; zeros of its dtype, as a new block, for a real one."""
        ...

    def integer_division(self, fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        """``fn`` (floor_divide or remainder) on integers, 0 where the divisor is 0 (NumPy's)."""
        ...

    def may_alias(self, block: Block, value: Block) -> bool:
        """Whether writing ``value`` into ``block`` may read memory it writes (copy it first)."""
        ...

    def host_view(self, block: Block) -> np.ndarray | None:
        """A NumPy array on ``block``'s own memory (no copy) where it lives in host memory
        and NumPy may read and write it, else ``None``."""
        ...

    def in_place(self, op: Callable[[Any, Any], Any], block: Block, value: Any) -> bool:
        """Apply ``op`` (``operator.iadd``, ...) in place where exact; else write nothing, False."""
        ...

    def write_number(self, block: Block, key: tuple, value: Any) -> None:
        """``block[key] = value`` for a Python number of the block's kind and a key of ints
        and slices (a loop's one-element writes)."""
        ...

    def matmul_into(self, a: Block, b: Block, out: Block) -> None:
        """``out[...] = a @ b`` for ``out`` a view of a larger block."""
        ...

    def blas_views(self, a: Block, b: Block) -> tuple[np.ndarray, np.ndarray] | None:
        """NumPy arrays on ``a``'s and ``b``'s own memory whose ``np.matmul`` is the
        backend's ``a @ b`` (the same values and dtype: the backend's product is NumPy's
        BLAS call), so that it may write into a block it is given (``out=``); else ``None``."""
        ...

    def solve_upper_right(self, b: Block, r: Block) -> Block:
        """``b r^{-1}`` for ``r`` upper triangular with a nonzero diagonal (stacks allowed)."""
        ...

    def vecdot_last_axis(self, a: Block, b: Block) -> Block | None:
        """The library's ``vecdot`` along the last axis where it is faster, else ``None``."""
        ...

    def special_function(self, name: str) -> Callable[..., Any] | None:
        """The library's own ``scipy.special.<name>`` where it agrees with SciPy, else ``None``."""
        ...

    def linalg_errors(self) -> contextlib.AbstractContextManager[None]:
        """A context in which the library's ``linalg`` raises LinAlgError on a singular matrix."""
        ...


@dataclass(frozen=True, slots=True)
class DeviceBuffer:
    """A flat, contiguous device array handed to a CUDA-aware MPI as it is, and its backend.

    The transport never converts ``data`` to NumPy: it slices it, passes it to MPI (mpi4py
    reads ``__cuda_array_interface__`` or DLPack) and asks ``backend.empty_buffer`` for
    receive buffers on the same device. ``backend.to_buffer`` makes one after synchronizing
    the device, so MPI never reads memory that a kernel is still writing.
    """

    data: Any
    backend: Backend

    @property
    def dtype(self) -> np.dtype:
        return self.backend.dtype_of(self.data)

    @property
    def size(self) -> int:
        return math.prod(self.data.shape)

    def flat(self) -> DeviceBuffer:
        return DeviceBuffer(self.data.reshape(-1), self.backend)

    def empty(self, n: int) -> DeviceBuffer:
        """A flat receive buffer of ``n`` elements of this dtype on this buffer's device."""
        return self.backend.empty_buffer(n, self.dtype, self)


class BackendBase:
    """What every backend shares; a backend module adds only its library's deviations.

    Subclasses set ``name``, ``xp`` and ``_dtypes`` (xdist dtype -> the library's dtype, for
    the dtypes the library supports) and implement ``devices``, ``device_of``, ``is_block``,
    ``to_host`` and ``from_host``.
    """

    name: str
    xp: Any
    _dtypes: dict[np.dtype, Any]

    _default: Device | None = None

    def default_device(self) -> Device:
        return self._default if self._default is not None else self.devices()[0]

    def set_default_device(self, device: Any) -> Device:
        """Make ``device`` (a Device or its name) the default; returns the previous one."""
        previous = self.default_device()
        self._default = None if device is None else self.check_device(device, "set_backend")
        return previous

    def devices(self) -> list[Device]:
        raise NotImplementedError

    def check_device(self, device: Any, func: str) -> Device:
        """``device`` (None, a Device, or its name such as ``"cpu"`` / ``"cuda:1"``) as one of
        this backend's devices, or a ValueError naming the function."""
        if device is None:
            return self.default_device()
        for known in self.devices():
            if device == known or (isinstance(device, str) and device == str(known)):
                return known
        raise ValueError(
            f"{func}: device {device!r} is not a device of the {self.name} backend "
            f"(devices: {[str(d) for d in self.devices()]})"
        )

    def native_dtype(self, dtype: np.dtype) -> Any:
        try:
            return self._dtypes[np.dtype(dtype)]
        except KeyError:
            have = ", ".join(d.name for d in self.supported_dtypes())
            raise TypeError(
                f"the {self.name} backend does not support dtype {np.dtype(dtype).name}: use one "
                f"of {have}, or the NumPy backend (XDIST_BACKEND=numpy), which has them all"
            ) from None

    def dtype_of(self, block: Any) -> np.dtype:
        return self._from_native[block.dtype]

    @property
    def _from_native(self) -> dict[Any, np.dtype]:
        return {v: k for k, v in self._dtypes.items()}

    def supported_dtypes(self) -> tuple[np.dtype, ...]:
        return tuple(self._dtypes)

    def default_dtypes(self) -> dict[str, np.dtype]:
        """The standard's default dtypes for this library (NumPy: float64; Torch: float32)."""
        return {
            "real floating": np.dtype("float64"),
            "complex floating": np.dtype("complex128"),
            "integral": np.dtype("int64"),
            "indexing": np.dtype("int64"),
        }

    def asarray(self, obj: Any, dtype=None, device=None, copy=None) -> Any:
        dev = self.check_device(device, "asarray")
        native = None if dtype is None else self.native_dtype(dtype)
        return self.xp.asarray(obj, dtype=native, copy=copy, device=self.native_device(dev))

    def empty(self, shape: tuple[int, ...], dtype: np.dtype, device=None) -> Any:
        dev = self.check_device(device, "empty")
        return self.xp.empty(shape, dtype=self.native_dtype(dtype), device=self.native_device(dev))

    def native_device(self, device: Device) -> Any:
        """The library's own device object for ``device``."""
        return str(device)

    # -- transport buffers (the redistribution layer's interface to MPI) -------------------
    def to_buffer(self, block: Any, cuda_aware: bool) -> Any:
        """What the transport sends for ``block``: with a CUDA-aware MPI and a GPU block, a
        ``DeviceBuffer`` of the contiguous device array (device work synchronized first, so
        MPI never reads memory a kernel is still writing); otherwise ``to_host(block)``."""
        device = self.device_of(block)
        if not cuda_aware or device.kind == "cpu":
            return self.to_host(block)
        data = self.device_contiguous(block)
        self.synchronize(device)
        return DeviceBuffer(data, self)

    def from_buffer(self, buf: Any, device: Device | None) -> Any:
        """A block on ``device`` from what the transport returned (host array or buffer)."""
        if isinstance(buf, DeviceBuffer):
            return buf.data
        return self.from_host(buf, device)

    def empty_buffer(self, n: int, dtype: np.dtype, like: Any) -> Any:
        """A flat receive ``DeviceBuffer`` of ``n`` elements on ``like``'s device."""
        return DeviceBuffer(self.empty((n,), dtype, self.device_of(like.data)), self)

    def device_contiguous(self, block: Any) -> Any:
        """``block`` as a C-contiguous array on its own device (no copy where it is one)."""
        raise NotImplementedError(f"the {self.name} backend has no device buffers")

    def is_c_contiguous(self, block: Any) -> bool:
        """Whether ``block`` is C-contiguous (False where the library cannot tell)."""
        return False

    # -- local computations that xdist does better than the library ------------------------
    def item(self, block: Any) -> Any:
        """The one element of a block as a Python scalar (device work completes first)."""
        return self.to_host(block).reshape(()).item()

    def unstack(self, block: Any, axis: int) -> tuple[Any, ...]:
        """The block's slices along ``axis`` (views where the library makes them), each a
        block, 0-d ones included."""
        before = (slice(None),) * axis
        return tuple(block[(*before, i, Ellipsis)] for i in range(block.shape[axis]))

    def select(self, block: Any, mask: Any) -> Any:
        """``block[mask]`` for a boolean ``mask`` over the leading ``mask.ndim`` axes of
        ``block`` (of that shape): the selected elements in row-major order of the mask, a
        new block. The library's boolean indexing here."""
        out = block[mask]
        return out if self.is_block(out) else self.asarray(out)

    def arg_best(self, block: Any, axis: int | None, keepdims: bool, want_max: bool) -> Any:
        """``argmax`` (``want_max``) or ``argmin`` of a block, in int64.

        NumPy and Torch search line by line: along a short axis (k-means' k scores per
        sample) the fixed cost of each line dwarfs its few comparisons. Real CPU blocks of
        many short lines (the limits above) are therefore searched by whole-array passes
        instead: the axis moved first and made contiguous, the best value of every line
        (``min`` over the first axis, vectorized across lines), then the first position
        holding it, as the maximum of ``(v == best) * (k, k - 1, ..., 1)``. NaN: ``min`` and
        ``max`` propagate it and ``NaN == NaN`` is false, so only a line holding one has no
        position equal to its best (the maximum is 0); it gets the first NaN's position
        from the same maximum over ``isnan``, as NumPy's answer.
        """
        xp = self.xp
        shape, kind = tuple(block.shape), self.dtype_of(block).kind
        passes = axis is not None and kind in "iuf" and self.device_of(block).kind == "cpu"
        if passes:
            k = shape[axis]
            leading = axis == 0 and self.is_c_contiguous(block)
            passes = many_short_lines(shape, axis, leading)
        if not passes:
            found = (xp.argmax if want_max else xp.argmin)(block, axis=axis, keepdims=keepdims)
            return xp.astype(found, xp.int64) if found.dtype != xp.int64 else found
        small = xp.int8 if k <= 127 else xp.int16  # holds k
        weights = xp.arange(k, 0, -1, dtype=small, device=self.native_device(self.device_of(block)))

        def first_best(v):  # v: the lines' axis first, contiguous
            best = (xp.max if want_max else xp.min)(v, axis=0)
            w = xp.reshape(weights, (k,) + (1,) * (v.ndim - 1))
            first = xp.max((v == best) * w, axis=0)  # k - index; 0 only for lines with NaN
            if kind == "f":
                nan = first == 0
                if bool(xp.any(nan)):
                    first = xp.where(nan, xp.max(xp.isnan(v) * w, axis=0), first)
            return k - xp.astype(first, xp.int64)

        if leading:
            found = first_best(block)
        elif axis in (-1, len(shape) - 1) and self.is_c_contiguous(block):
            found = xp.reshape(self.by_line_chunks(block, first_best), shape[:-1])
        else:
            found = first_best(self.device_contiguous(xp.moveaxis(block, axis, 0)))
        return xp.expand_dims(found, axis=axis) if keepdims else found

    def by_line_chunks(self, block: Any, reduce: Any) -> Any:
        """``reduce`` of the lines along the last axis of a C-contiguous block, computed by
        chunks of lines: each chunk copied with the axis first (``reduce`` takes that
        ``(k, lines)`` array, contiguous, and returns a value per line), one result per
        line, flat. A chunk is ``LINE_CHUNK_BYTES`` (L2-sized), so its copy is written and
        read in cache rather than through memory as a whole transposed block is."""
        xp = self.xp
        k = block.shape[-1]
        rows = xp.reshape(block, (-1, k))
        n = rows.shape[0]
        step = max(1, LINE_CHUNK_BYTES // (k * self.dtype_of(block).itemsize))
        if n <= step:
            return reduce(self.device_contiguous(rows.T))
        parts = [reduce(self.device_contiguous(rows[i : i + step].T)) for i in range(0, n, step)]
        return xp.concat(parts)

    def min_max(self, block: Any, axes: tuple[int, ...], want_max: bool) -> Any:
        """``max`` (``want_max``) or ``min`` of a block over ``axes``, keeping them (length
        1): the library's own here (NumPy's backend searches short last axes faster)."""
        return (self.xp.max if want_max else self.xp.min)(block, axis=axes, keepdims=True)

    def may_alias(self, block: Any, value: Any) -> bool:
        """Whether writing ``value`` (a block) into ``block`` may read memory it writes, so
        that ``value`` must be copied first. Here any block may (the caller copies)."""
        return True

    def host_view(self, block: Any) -> np.ndarray | None:
        """A NumPy array on ``block``'s own memory, or ``None``: here none."""
        return None

    def write_number(self, block: Any, key: tuple, value: Any) -> None:
        """``block[key] = value``: the library's own write."""
        block[key] = value

    def in_place(self, op: Any, block: Any, value: Any) -> bool:
        """``op`` (``operator.iadd``, ``isub``, ``imul`` or ``itruediv``) applied to ``block``
        in place with ``value`` (a Python number, or a block of the same shape and dtype),
        where the library does it as its out-of-place operator would; ``False``, having
        written nothing, where it may not (here: every library not known to)."""
        return False

    def moments(self, block: Any, axes: tuple[int, ...], n: int) -> tuple[Any, Any, Any]:
        """``(mean, correction, M2)`` of a block over ``axes`` (kept, length 1) in float64:
        the rounded mean, the mean of the deviations from it, and the sum of squared
        deviations (``n`` values per result). The corrected two-pass algorithm here
        (``moments.two_pass``); NumPy's backend reads the block once (``moments.chunked``)."""
        return two_pass(self.xp, block, axes, n, self.native_dtype(np.dtype(np.float64)))

    def count_nonzero(self, block: Any, axes: tuple[int, ...]) -> Any:
        """How many elements of a block are nonzero over ``axes``, keeping them (length 1),
        in int64 (complex: either part nonzero; NaN counts). A sum of nonzero flags here:
        array-api-compat's ``count_nonzero`` of Torch mishandles ``axis=()``."""
        xp = self.xp
        return xp.sum(xp.astype(block != 0, xp.int64), axis=axes, keepdims=True)

    def imag(self, block: Any) -> Any:
        """The imaginary part of a block; for a real block, zeros of its dtype as a new block
        (NumPy's answer, which it gives read-only and Torch refuses)."""
        if self.dtype_of(block).kind != "c":
            return self.xp.zeros_like(block)
        return self.xp.imag(block)

    def integer_division(self, fn: Any) -> Any:
        """``fn`` (the library's ``floor_divide`` or ``remainder``) for integer operands
        (blocks or Python numbers), giving 0 where the divisor is 0, as NumPy does (without
        its warning; Torch raises ZeroDivisionError): the divisor 0 is replaced by 1 and
        the result there by 0. A Python float operand gives NumPy's floating result."""
        xp = self.xp

        def local(a, b):
            if isinstance(a, float) or isinstance(b, float):  # a floating result: NumPy's
                return fn(a, b)  # infinities and NaN
            if isinstance(b, int):
                return fn(a, b) if b != 0 else xp.zeros_like(fn(a, 1))
            zero = b == 0
            out = fn(a, xp.where(zero, xp.ones_like(b), b))
            return xp.where(zero, xp.zeros_like(out), out)

        return local

    def sum_dtype(self, dtype: np.dtype) -> np.dtype:
        """The dtype in which ``sum``, ``prod`` and the cumulative scans accumulate ``dtype``
        when none is given: the standard's (signed integers and booleans, counted as NumPy
        and array-api-compat count them, in int64; unsigned in uint64; others their own)."""
        if dtype.kind in "ib":
            return _INT64
        if dtype.kind == "u":
            return _UINT64
        return dtype

    def matmul_into(self, a: Any, b: Any, out: Any) -> None:
        """``out[...] = a @ b`` for ``out`` a view of a larger block (columns of a result
        block) of the product's shape and dtype; the library's ``matmul`` then a copy here."""
        out[...] = self.xp.matmul(a, b)

    def blas_views(self, a: Any, b: Any) -> tuple[np.ndarray, np.ndarray] | None:
        """Here none: the library makes its own products."""
        return None

    def solve_upper_right(self, b: Any, r: Any) -> Any:
        """``b r^{-1}`` for ``r`` upper triangular with a nonzero diagonal (stacks of both
        allowed): the triangular solve of Cholesky QR. Here by the library's general
        ``solve`` of the transposed system; backends with a triangular solve use it."""
        xp = self.xp
        return xp.matrix_transpose(xp.linalg.solve(xp.matrix_transpose(r), xp.matrix_transpose(b)))

    def vecdot_last_axis(self, a: Any, b: Any) -> Any:
        """The library's own ``vecdot`` of two blocks of one dtype and shape along their last
        axis, when it beats a product and a sum; ``None`` where it does not (the caller then
        multiplies and sums)."""
        return None

    def special_function(self, name: str) -> Any:
        """The library's own ``scipy.special.<name>`` for blocks of this backend, where it
        agrees with SciPy (real floating loops only), or ``None``: SciPy then computes on
        the host copy of the blocks (for NumPy blocks, the blocks themselves)."""
        return None

    def synchronize(self, device: Device) -> None:
        """Wait for the work queued on ``device`` (nothing to wait for on the CPU)."""

    def linalg_errors(self) -> contextlib.AbstractContextManager[None]:
        """A context in which the library's ``linalg`` raises ``LinAlgError`` on a singular or
        not positive-definite matrix (NumPy and Torch always do)."""
        return contextlib.nullcontext()

    def move_block(self, block: Any, device: Device) -> Any:
        """``block`` copied to another ``device`` of this backend (through the host here;
        libraries with a direct copy override it)."""
        return self.from_host(self.to_host(block).copy(), device)
