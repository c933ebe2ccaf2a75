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

Compiling the loop costs about half a second, once per dtype and process; a dtype is
compiled the second time a block of it with at least ``MIN_ELEMENTS`` elements is searched
(a single search does not repay it), where ``fuse_compile_min_elements`` (the compiled
loops' setting) is not ``0``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._config import get_config

__all__ = ["MAX_LINE", "MIN_ELEMENTS", "first_best", "numba_available"]

MAX_LINE = 32  # the longest line the loop searches (see the module)
MIN_ELEMENTS = 1 << 16  # the fewest elements of a block searched by the loop

# the dtypes the loop is compiled for: numba's native numbers (not float16, nor a byte order
# not the machine's)
_NUMBERS = "float32 float64 int8 int16 int32 int64 uint8 uint16 uint32 uint64"
_DTYPES = frozenset(np.dtype(name) for name in _NUMBERS.split())
_NUMBA: list[bool] = []  # whether numba imports (tried once)
_SEEN: dict[np.dtype, int] = {}  # searches of large blocks per dtype (2: compiled)
_LOOP: list[Any] = []  # the loop (numba compiles it for a dtype at its first call of it)


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


def first_best(block: Any, want_max: bool) -> np.ndarray | None:
    """The position (int64) of the first greatest (``want_max``) or least value of each line
    along the last axis of a C-contiguous NumPy ``block``, of the shape of the block without
    that axis; ``None`` where the loop does not search it (see the module)."""
    if not isinstance(block, np.ndarray) or block.ndim == 0 or block.dtype not in _DTYPES:
        return None
    k = block.shape[-1]
    if not 2 <= k <= MAX_LINE or block.size < MIN_ELEMENTS or not block.flags.c_contiguous:
        return None
    if not get_config().fuse_compile_min_elements or _NUMBA == [False]:
        return None
    seen = _SEEN.get(block.dtype, 0)
    if seen < 2:
        _SEEN[block.dtype] = seen = seen + 1
        if seen < 2:
            return None
    if not _LOOP:
        if not numba_available():
            return None
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
