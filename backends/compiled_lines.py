"""``argmin`` and ``argmax`` along the short last axis of a host block, as one compiled loop
(numba, where it is installed).

NumPy searches a block line by line at a fixed cost per line, which dwarfs the few
comparisons of a short line (k-means' k scores per sample, a classifier's classes,
scikit-learn's distances to a few centres); ``BackendBase.arg_best``'s whole-array passes
halve that cost. One loop over the lines, each line's best kept in registers and chosen
without a branch, reads the block once. Measured on one core over 4 MiB blocks (float32
lines of k, NumPy's ``argmin`` / the passes / the loop, ms): k=8 6.0 / 2.1 / 1.1, k=16 4.5 /
2.8 / 0.76, k=32 3.4 / 3.3 / 0.84, k=64 1.5 / 1.5 / 1.1, k=128 0.79 / 0.79 / 1.4 (NumPy's
vector loop wins on long lines); float64 and int64 alike up to k=32. So lines of at most
``MAX_LINE`` elements take the loop.

Each line's answer is NumPy's: the first position of the least (or greatest) value, equal
values (``-0.0`` and ``0.0``) never replacing an earlier one. A block holding NaN, where
NumPy answers the first NaN's position, is left to the library's search (one ``isnan``
pass finds it; the loop compares without it, twice as fast), as are blocks of other dtypes
than float32, float64 and the 8- to 64-bit integers in the machine's byte order (numba's
numbers) and blocks not C-contiguous. So the positions are the same at any rank count and
with or without numba.

Sums along a last axis of ``SUM_LINES`` (8 to 128 elements: a row's squared features, a
sample's class scores) are NumPy's own order, compiled: NumPy sums each line pairwise
(eight running sums over the line, then ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 +
r7))``, then the remainder one by one, added to ``+0.0``) at a fixed cost per line, and
``line_sums`` runs the same additions in that order over every line in one loop: the same
bits, signed zeros, infinities and NaN included (float32 and float64 lines, float32 ones
also into float64). 250000 lines of 16 float64: 1.9 ms against NumPy's 4.9 ms; of 32
float32: 2.2 against 5.6 ms; of 128 float64 (100000): 3.4 against 4.0 ms.

Float32 blocks summed into float64 along their first axis (the column sums of samples x
features: k-means' and the scalers' means) are NumPy's order too: NumPy adds each row to
the running float64 sums, from ``+0.0``, one row after the other, but casts the float32
rows through a buffer; ``column_sums`` adds them in that order in one loop, the same bits
(checked on signed zeros, infinities, NaN, float32's largest values and 60 shapes from 1
x 2 to 1000000 x 4). 100000 x 64: 1.2 ms against NumPy's 4.7 ms; 20000 x 16: 0.07 against
0.38 ms. (A single column NumPy sums pairwise: not taken.)

Compiling a loop costs about half a second, once per dtype and process; a dtype is
compiled the second time a block of it with at least ``MIN_ELEMENTS`` elements is searched
(a single search does not repay it), where ``fuse_compile_min_elements`` (the compiled
loops' setting) is not ``0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._config import get_config

__all__ = [
    "MAX_LINE",
    "MIN_ELEMENTS",
    "SUM_LINES",
    "column_sums",
    "first_best",
    "line_sums",
    "numba_available",
]

MAX_LINE = 32  # the longest line the loop searches (see the module)
MIN_ELEMENTS = 1 << 16  # the fewest elements of a block searched or summed by a loop
SUM_LINES = range(8, 129)  # the line lengths ``line_sums`` adds (NumPy's pairwise below 129)

# the dtypes the loop is compiled for: numba's native numbers (not float16, nor a byte order
# not the machine's)
_NUMBERS = "float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64"
_DTYPES = frozenset(np.dtype(name) for name in _NUMBERS.split())
_NUMBA: list[bool] = []  # whether numba imports (tried once)
_SEEN: dict[np.dtype, int] = {}  # searches of large blocks per dtype (2: compiled)
_LOOP: list[Any] = []  # the loop (numba compiles it for a dtype at its first call of it)
_SUMS: dict[np.dtype, Any] = {}  # accumulator dtype -> the sums' loop
_COLUMNS: list[Any] = []  # the column sums' loop
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def numba_available() -> bool:
    """Whether numba imports in this process (tried once)."""
    if not _NUMBA:
        try:
            import numba  # noqa: F401
        except ImportError:
            _NUMBA.append(False)
        else:
            _NUMBA.append(True)
    return _NUMBA[0]


def _ready(block: Any, key: Any) -> bool:
    """Whether a loop may run on ``block`` (large, C-contiguous, the setting on, numba not
    known missing) and has been asked for ``key`` before (compiled at the second time)."""
    if block.size < MIN_ELEMENTS or not block.flags.c_contiguous:
        return False
    if not get_config().fuse_compile_min_elements or _NUMBA == [False]:
        return False
    seen = _SEEN.get(key, 0)
    if seen < 2:
        _SEEN[key] = seen = seen + 1
    return seen >= 2 and numba_available()


def first_best(block: Any, want_max: bool) -> np.ndarray | None:
    """The position (int64) of the first greatest (``want_max``) or least value of each line
    along the last axis of a C-contiguous NumPy ``block``, of the shape of the block without
    that axis; ``None`` where the loop does not search it (see the module)."""
    if not isinstance(block, np.ndarray) or block.ndim == 0 or block.dtype not in _DTYPES:
        return None
    if not 2 <= block.shape[-1] <= MAX_LINE or not _ready(block, block.dtype):
        return None
    k = block.shape[-1]
    if not _LOOP:
        _LOOP.append(_loop())
    if block.dtype.kind == "f" and bool(np.isnan(block).any()):
        return None
    lines = block.reshape(-1, k)
    out = np.empty(lines.shape[0], np.int64)
    _LOOP[0](lines, want_max, out)
    return out.reshape(block.shape[:-1])


def _loop() -> Any:
    """The loop, which numba compiles at its first call with a dtype."""
    from numba import njit

    @njit(nogil=True)
    def search(lines, want_max, out):  # pragma: no cover (compiled)
        n, k = lines.shape
        for i in range(n):
            best, at = lines[i, 0], 0
            if want_max:
                for j in range(1, k):
                    v = lines[i, j]
                    better = v > best
                    best = v if better else best
                    at = j if better else at
            else:
                for j in range(1, k):
                    v = lines[i, j]
                    better = v < best
                    best = v if better else best
                    at = j if better else at
            out[i] = at

    return search


def line_sums(block: Any, dtype: np.dtype) -> np.ndarray | None:
    """The sum of each line along the last axis of a C-contiguous float32 or float64 NumPy
    ``block`` (at least 2-d, lines of ``SUM_LINES``) in ``dtype`` (the block's, or float64
    for float32 lines), NumPy's bits; ``None`` where the loop does not sum it (see the
    module)."""
    if not isinstance(block, np.ndarray) or block.ndim < 2 or block.dtype not in _FLOATS:
        return None
    if dtype not in _FLOATS or dtype.itemsize < block.dtype.itemsize:
        return None
    if block.shape[-1] not in SUM_LINES or not _ready(block, ("sum", block.dtype, dtype)):
        return None
    if dtype not in _SUMS:
        _SUMS[dtype] = _sums(dtype.type)
    lines = block.reshape(-1, block.shape[-1])
    out = np.empty(lines.shape[0], dtype)
    _SUMS[dtype](lines, out)
    return out.reshape(block.shape[:-1])


def column_sums(block: Any, dtype: np.dtype) -> np.ndarray | None:
    """The float64 sums of the columns of a 2-d C-contiguous float32 NumPy ``block`` of at
    least 2 columns (its sum over the first axis), NumPy's bits; ``None`` where the loop does
    not sum it (see the module)."""
    if not isinstance(block, np.ndarray) or block.ndim != 2 or block.dtype != _FLOATS[0]:
        return None
    if dtype != _FLOATS[1] or block.shape[1] < 2:
        return None
    if not _ready(block, ("columns", block.dtype, dtype)):
        return None
    if not _COLUMNS:
        _COLUMNS.append(_columns())
    out = np.empty(block.shape[1], np.float64)
    _COLUMNS[0](block, out)
    return out


def _columns() -> Any:
    """The loop of NumPy's float64 sums of float32 rows (``column_sums``), compiled at its
    first call."""
    from numba import njit

    @njit(nogil=True)
    def columns(rows, out):  # pragma: no cover (compiled)
        n, m = rows.shape
        for j in range(m):
            out[j] = 0.0
        for i in range(n):
            for j in range(m):
                out[j] += np.float64(rows[i, j])

    return columns


def _sums(acc: Any) -> Any:
    """The loop of NumPy's pairwise sum of each line (``pairwise_sum`` in NumPy's
    ``loops_utils.h``, for lines of 8 to 128 elements) into ``acc``, which numba compiles at
    its first call with a dtype of lines."""
    from numba import njit

    @njit(nogil=True)
    def sums(lines, out):  # pragma: no cover (compiled)
        n, k = lines.shape
        tail = k - k % 8
        for i in range(n):
            a = lines[i]
            r0, r1, r2, r3 = acc(a[0]), acc(a[1]), acc(a[2]), acc(a[3])
            r4, r5, r6, r7 = acc(a[4]), acc(a[5]), acc(a[6]), acc(a[7])
            for j in range(8, tail, 8):
                r0 += acc(a[j])
                r1 += acc(a[j + 1])
                r2 += acc(a[j + 2])
                r3 += acc(a[j + 3])
                r4 += acc(a[j + 4])
                r5 += acc(a[j + 5])
                r6 += acc(a[j + 6])
                r7 += acc(a[j + 7])
            total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
            for j in range(tail, k):
                total += acc(a[j])
            out[i] = acc(0.0) + total

    return sums
