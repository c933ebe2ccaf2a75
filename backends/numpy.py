"""The NumPy backend: blocks are ``numpy.ndarray`` in host memory, sent to MPI as they are."""

from __future__ import annotations

import math
from typing import Any

import array_api_compat.numpy as xp_numpy
import numpy as np

from . import compiled_lines
from .base import (
    LINE_CHUNK_BYTES,
    STANDARD_DTYPES,
    BackendBase,
    Device,
    host_solve_upper_right,
    many_short_lines,
)
from .moments import chunked
from .standard_semantics import corrected_namespace

__all__ = ["NumPyBackend", "backend", "matmul"]

_CPU = Device("numpy", "cpu")

# NumPy multiplies a matrix by its own transpose (``a @ a.T``: one memory, transposed
# strides) by BLAS's ``syrk`` and then copies the triangle across, which beats a general
# product only for wide operands: for a narrow ``a`` the product is an outer product, whose
# n x n output ``syrk`` writes half of and then copies, slower than a general product of ``a``
# and a contiguous copy of ``a.T``. Below this many columns (where the two measured equal)
# the second operand is copied (k x n elements, small beside the n x n out).
_SYRK_MIN_COLUMNS = 512


def gemm_operand(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``b``, or a contiguous copy of it where ``a @ b`` would take NumPy's ``syrk`` path
    (``b`` is ``a.T``) with fewer than ``_SYRK_MIN_COLUMNS`` columns in ``a``."""
    if (
        a.ndim == 2
        and b.ndim == 2
        and a.shape[1] < _SYRK_MIN_COLUMNS
        and a.shape == b.shape[::-1]
        and a.strides == b.strides[::-1]
        and a.dtype == b.dtype
        and a.ctypes.data == b.ctypes.data
    ):
        return np.ascontiguousarray(b)
    return b


_SUMMED = (np.dtype(np.float32), np.dtype(np.float64))  # the floats of the fast paths below

# A product of a few rows by a narrow matrix along a long contracted axis (k-means' cluster
# sums: the k x n membership matrix times the n x (d + 1) samples) runs in OpenBLAS at a
# third to a half of the speed of the same product summed over slices of the contracted
# axis whose part of ``x2`` stays in the L2 cache (one thread, 100000 long, 8 x 65: float32
# 1.4-2.0 against 3.3-4.8 ms, float64 4.1-6.1 against 8.1-10.0 ms; 2 to 24 rows, rows of
# ``x2`` up to 160 float32 or 80 float64: 0.3-0.8 of the time; 1 row or a wider ``x2``: no
# gain). Slices of 256 KiB of ``x2`` up to 12 rows, 128 KiB above (where 256 KiB lost to
# BLAS on some widths). The slices' products add in order: a sum blocked once more, as BLAS
# blocks its own.
_SLICED_ROWS = (2, 24)  # the rows of x1 where slicing pays
_SLICED_ROW_BYTES = 640  # the widest row of x2
_SLICE_BYTES = ((12, 256 * 1024), (24, 128 * 1024))  # (rows of x1 up to, bytes of x2 a slice)
_SLICES_MIN = 8  # slices at least, else one call


def _sliced_product(x1: np.ndarray, x2: np.ndarray) -> np.ndarray | None:
    """``x1 @ x2`` summed over slices of the contracted axis where that is faster (above),
    else ``None``."""
    if x1.ndim != 2 or x2.ndim != 2 or x1.dtype != x2.dtype or x1.dtype not in _SUMMED:
        return None
    (m, k), n, size = x1.shape, x2.shape[1], x2.dtype.itemsize
    if not _SLICED_ROWS[0] <= m <= _SLICED_ROWS[1] or not 0 < n * size <= _SLICED_ROW_BYTES:
        return None
    if x2.strides[1] != size:  # (measured on rows of x2 contiguous)
        return None
    part_bytes = next(b for rows, b in _SLICE_BYTES if m <= rows)
    step = max(64, part_bytes // (n * size) // 64 * 64)
    if k < _SLICES_MIN * step:
        return None
    if np.may_share_memory(x1, x2):  # ``X.T @ X``: BLAS's ``syrk`` on each slice, 10% slower
        return None
    out = np.matmul(x1[:, :step], x2[:step])
    part = np.empty_like(out)
    for s in range(step, k, step):
        np.matmul(x1[:, s : s + step], x2[s : s + step], out=part)
        out += part
    return out


def matmul(x1: Any, x2: Any, /) -> Any:
    """``matmul`` with ``gemm_operand``'s choice of the second operand, a long contraction of
    a few rows by slices (``_sliced_product``); Torch's CPU blocks borrow it."""
    if isinstance(x1, np.ndarray) and isinstance(x2, np.ndarray):
        found = _sliced_product(x1, x2)
        if found is not None:
            return found
    return xp_numpy.matmul(x1, gemm_operand(x1, x2))


# Lines of at most this many elements NumPy sums one after another, each from +0.0 (its
# pairwise sum starts at 8), at a fixed cost per line: ``_sum`` adds their columns instead.
_SEQUENTIAL_SUM = 7
_SUM_LINES = 1024  # lines from which the columns' adds are faster


def _sum(x: Any, /, *, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Any:
    """``sum``; a float32 or float64 block summed into float32 or float64 along a short last
    axis (2 to ``_SEQUENTIAL_SUM`` elements: class scores, a few features) by adding its
    columns from +0.0, in the order NumPy adds each line's elements, so the same bits, 5-25x
    faster (500000 x 3 float64: 0.8 against 9.9 ms; 7 columns: 6.1 against 12 ms); lines
    of 8 to 128 by one compiled loop in NumPy's pairwise order where numba is installed
    (``compiled_lines.line_sums``: the same bits, up to 2.5x faster); a float32 matrix's
    columns into float64 likewise (``compiled_lines.column_sums``: the same bits, 4-5x
    faster)."""
    last = (
        isinstance(x, np.ndarray) and x.ndim >= 2 and axis in (-1, x.ndim - 1, (-1,), (x.ndim - 1,))
    )
    if (
        last
        and 2 <= x.shape[-1] <= _SEQUENTIAL_SUM
        and x.dtype in _SUMMED
        and np.dtype(dtype or x.dtype) in _SUMMED
        and x.size >= _SUM_LINES * x.shape[-1]
    ):
        acc = np.dtype(dtype or x.dtype)
        out = np.add(acc.type(0), x[..., 0], dtype=acc)
        for j in range(1, x.shape[-1]):
            np.add(out, x[..., j], out=out, dtype=acc)
        return out[..., None] if keepdims else out
    if last:
        found = compiled_lines.line_sums(x, np.dtype(dtype or x.dtype))
        if found is not None:  # lines of 8 to 128: NumPy's pairwise order, compiled
            return found[..., None] if keepdims else found
    elif dtype is not None and axis in (0, (0,), -2, (-2,)):
        found = compiled_lines.column_sums(x, np.dtype(dtype))
        if found is not None:  # float32 rows into float64: NumPy's order, compiled
            return found[None, :] if keepdims else found
    return xp_numpy.sum(x, axis=axis, dtype=dtype, keepdims=keepdims)


# chunks of fewer columns than this write too little of each row of the copy at a time to
# beat NumPy's copy (a 3000 x 3000 transpose: 10 columns, as fast; 16 x 500000: 1, 4x slower)
_FEW_COLUMNS = 32

# array-api-compat's numpy namespace with the standard's special values where NumPy's differ
# (standard_semantics: floor_divide with infinities, complex expm1, tan and tanh), ``matmul``
# and ``sum`` as above.
_NAMESPACE = corrected_namespace(f"{__name__}.namespace", xp_numpy)
_NAMESPACE.matmul = matmul  # type: ignore[attr-defined]
_NAMESPACE.sum = _sum  # type: ignore[attr-defined]


def _c_order(block: np.ndarray) -> np.ndarray:
    """``block`` in C order: itself if it is, else a copy (``np.ascontiguousarray`` would
    turn a 0-d array into a 1-d one). A 2-d block whose memory runs down its columns (the
    transpose of a C-ordered one: ``x.T``, an axis moved last) is copied by chunks of
    columns, each read from cache: NumPy copies it row by row, each row one pass over all of
    the block's memory (a 500000 x 16 float64 transpose: 57 ms, 21 ms by chunks)."""
    if block.flags.c_contiguous:
        return block
    if block.ndim == 2 and 0 < block.strides[0] < block.strides[1]:
        step = LINE_CHUNK_BYTES // max(1, block.shape[0] * block.itemsize)
        if step >= _FEW_COLUMNS and block.shape[1] > step:
            out = np.empty(block.shape, block.dtype)
            for j in range(0, block.shape[1], step):
                out[:, j : j + step] = block[:, j : j + step]
            return out
    return np.array(block, order="C")


class NumPyBackend(BackendBase):
    name = "numpy"
    xp = _NAMESPACE
    _dtypes = {d: d for d in STANDARD_DTYPES}

    def devices(self) -> list[Device]:
        return [_CPU]

    def device_of(self, block: Any) -> Device:
        return _CPU

    def is_block(self, obj: Any) -> bool:
        return isinstance(obj, np.ndarray)

    def dtype_of(self, block: np.ndarray) -> np.dtype:
        return block.dtype

    def native_dtype(self, dtype: np.dtype) -> np.dtype:
        return np.dtype(dtype)

    def asarray(self, obj, dtype=None, device=None, copy=None) -> np.ndarray:
        self.check_device(device, "asarray")
        return xp_numpy.asarray(obj, dtype=dtype, copy=copy)

    def empty(self, shape, dtype, device=None) -> np.ndarray:
        self.check_device(device, "empty")
        return np.empty(shape, dtype=dtype)

    def native_device(self, device: Device) -> str:
        return "cpu"

    def to_host(self, block: np.ndarray) -> np.ndarray:
        return _c_order(block)

    def from_host(self, array: np.ndarray, device=None) -> np.ndarray:
        return array

    def is_c_contiguous(self, block: np.ndarray) -> bool:
        return block.flags.c_contiguous

    def host_view(self, block: np.ndarray) -> np.ndarray:
        return block

    def may_alias(self, block: np.ndarray, value: np.ndarray) -> bool:
        """Never: NumPy's assignment copies a source that overlaps its destination itself."""
        return False

    def in_place(self, op, block: np.ndarray, value) -> bool:
        """NumPy's in-place operators: a ufunc with ``out=block``, which buffers a value that
        overlaps the block, so every operand is safe (a read-only block raises, as the
        general path's write would)."""
        op(block, value)
        return True

    def moments(self, block: np.ndarray, axes: tuple[int, ...], n: int):
        """The moments of ``BackendBase.moments`` reading the block once, in chunks that stay
        in the cache (``moments.chunked``), where its layout allows; else two passes."""
        found = chunked(block, axes)
        return found if found is not None else super().moments(block, axes, n)

    def arg_best(self, block: np.ndarray, axis: int | None, keepdims: bool, want_max: bool):
        """``BackendBase.arg_best``; along the short last axis of a large C-contiguous block,
        one compiled loop over the lines where numba is installed (``compiled_lines``: the
        same positions, several times faster)."""
        if axis is not None and block.ndim and axis in (-1, block.ndim - 1):
            found = compiled_lines.first_best(block, want_max)
            if found is not None:
                return np.expand_dims(found, axis=-1) if keepdims else found
        return super().arg_best(block, axis, keepdims, want_max)

    def min_max(self, block: np.ndarray, axes: tuple[int, ...], want_max: bool) -> np.ndarray:
        """NumPy reduces the short last axis of a C-contiguous block line by line, at a
        fixed cost per line; transposing copies of chunks of lines and a ``min`` of each
        over its first axis (vectorized across lines; ``by_line_chunks``) avoid it. So such
        blocks (the limits of ``arg_best``'s moved axis) are reduced that way; the result
        is exact either way (NaN propagates)."""
        if (
            block.ndim >= 2
            and axes == (block.ndim - 1,)
            and many_short_lines(block.shape, -1)
            and block.dtype.kind in "iuf"
            and block.flags.c_contiguous
        ):
            best = (np.maximum if want_max else np.minimum).reduce
            return self.by_line_chunks(block, lambda v: best(v, axis=0)).reshape(
                block.shape[:-1] + (1,)
            )
        return super().min_max(block, axes, want_max)

    def select(self, block: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """NumPy's boolean indexing copies with a branch per element of the mask; ``compress``
        of the C-contiguous block seen as (mask elements) x (the rest) gives the same array
        without a branch per element (a random mask defeats branch prediction). On other
        layouts ``compress`` is slower."""
        if mask.ndim == 0 or not block.flags.c_contiguous:
            return super().select(block, mask)
        rows = block.reshape((math.prod(mask.shape), *block.shape[mask.ndim :]))
        return np.compress(mask.reshape(-1), rows, axis=0)

    def matmul_into(self, a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
        """BLAS writes into the columns of the result block directly (its rows strided),
        which saves writing the product and then copying it."""
        np.matmul(a, gemm_operand(a, b), out=out)

    def blas_views(self, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The blocks themselves."""
        return a, b

    def solve_upper_right(self, b: np.ndarray, r: np.ndarray) -> np.ndarray:
        """LAPACK's triangular solve through SciPy where it is installed (one pass over
        ``b``, where NumPy's general ``solve`` first copies ``b`` transposed); else the
        general solve."""
        found = host_solve_upper_right(b, r)
        return found if found is not None else super().solve_upper_right(b, r)

    def vecdot_last_axis(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # One pass with no product array along the last axis (along other axes NumPy's vecdot
        # is slower than a product and a sum; Torch's CPU blocks borrow this one on views).
        return self.xp.vecdot(a, b, axis=-1)

    def device_contiguous(self, block: np.ndarray) -> np.ndarray:
        return _c_order(block)


def backend() -> NumPyBackend:
    return NumPyBackend()
