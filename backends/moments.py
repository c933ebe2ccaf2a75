"""The local moments of a block over some of its axes: mean and M2 (the sum of squared
deviations from the mean), in float64, for ``var`` and ``std``.

``two_pass`` is the corrected two-pass algorithm in any library: the mean, then the deviations
from it, whose mean corrects the rounded mean and M2. It reads the block three times and
writes two temporaries of its size.

``chunked`` (NumPy blocks) reads the block from memory once, by the shifted-data algorithm:
with ``K`` the mean of the first chunk of rows, it sums ``d = x - K`` and ``d * d`` chunk by
chunk (a chunk of about ``CHUNK`` elements stays in the cache while it is subtracted, summed
and squared-and-summed by ``einsum``/BLAS), and ``M2 = Q - S * S / n``. That difference loses
digits only when the mean is far from ``K`` next to the spread; where ``M2 < Q / 8`` (the mean
more than about 2.6 standard deviations from ``K``: data that drifts along the rows) the
result is taken again by ``two_pass``, so the error stays within 8 times that of the sums.
Where every mean of the first chunk lies within two of its standard deviations of zero,
``K`` is 0 and the subtraction pass is skipped (the same guard applies): a fifth less time
for data centred near zero.
Handled: every axis, or the leading axes, or the trailing axes of a C-contiguous block of
float64 or float32 (float32 is widened chunk by chunk in the cache); anything else returns
``None`` and the caller takes ``two_pass``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["chunked", "from_shifted_sums", "two_pass"]

CHUNK = 1 << 17  # elements: 1 MiB of float64, with its work buffer in a 2 MiB L2 cache
MIN_ROWS = 16  # rows per chunk, at least, when the rows are reduced (the shift's sample)
_WELL_CONDITIONED = 8.0  # Q / M2 above this: taken again by two passes


def two_pass(xp: Any, block: Any, axes: tuple[int, ...], n: int, wide: Any):
    """``(mean, correction, M2)`` of ``block`` over ``axes`` (kept, length 1) in ``wide``
    (the library's float64): the corrected two-pass algorithm."""
    if block.dtype != wide:
        block = xp.astype(block, wide)
    m = xp.mean(block, axis=axes, keepdims=True)
    dev = block - m
    c = xp.mean(dev, axis=axes, keepdims=True)  # the rounding of m, made visible
    m2 = xp.sum(xp.square(dev), axis=axes, keepdims=True) - n * c * c
    return m, c, m2


def chunked(block: np.ndarray, axes: tuple[int, ...]):
    """``(mean, correction, M2)`` of a NumPy block over ``axes`` (kept, length 1) in float64,
    reading the block once; ``None`` where the layout is not one handled here (see the
    module docstring)."""
    if block.dtype not in (np.float64, np.float32) or not block.flags.c_contiguous:
        return None
    ndim = block.ndim
    axes = tuple(sorted(a % ndim for a in axes)) if ndim else ()
    if not axes or block.size == 0:
        return None
    kept = tuple(1 if a in axes else n for a, n in enumerate(block.shape))
    size = int(np.prod([block.shape[a] for a in axes]))
    if axes == tuple(range(len(axes))):  # the leading axes: the columns of (R, C)
        found = _columns(block.reshape(size, -1))
    elif axes == tuple(range(ndim - len(axes), ndim)):  # the trailing axes: the rows
        found = _rows(block.reshape(-1, size))
    else:
        return None
    if found is None:
        return two_pass(np, block, axes, size, np.dtype(np.float64))
    return tuple(r.reshape(kept) for r in found)


def _chunks(v: np.ndarray, step: int):
    """``v``'s chunks of ``step`` whole rows, in float64 (float32 widened in a buffer)."""
    wide = np.empty((min(step, v.shape[0]), v.shape[1])) if v.dtype != np.float64 else None
    for start in range(0, v.shape[0], step):
        piece = v[start : start + step]
        if wide is not None:
            np.copyto(wide[: piece.shape[0]], piece)
            piece = wide[: piece.shape[0]]
        yield start, piece


def _columns(v: np.ndarray):
    """``(mean, correction, M2)`` of the columns of ``v`` (R x C) by the shifted-data
    algorithm over chunks of whole rows; ``None`` where a result would lose digits."""
    rows, cols = v.shape
    step = max(MIN_ROWS, CHUNK // max(cols, 1))
    sample = v[:step]
    shift = sample.mean(axis=0, dtype=np.float64)
    centred = bool(np.all(shift * shift <= 4 * sample.var(axis=0, dtype=np.float64)))
    if centred:  # the sample means within two deviations of zero: x itself, no subtraction
        shift = np.zeros(cols)
    total, square = np.zeros(cols), np.zeros(cols)
    work = None if centred else np.empty((min(step, rows), cols))
    ones = np.ones(min(step, rows))
    for _, piece in _chunks(v, step):
        d = piece if centred else np.subtract(piece, shift, out=work[: piece.shape[0]])
        if cols == 1:  # every axis reduced: a flat chunk, its squares by BLAS
            flat = d.reshape(-1)
            total += flat.sum()
            square += np.dot(flat, flat)
        else:  # the column sums by BLAS (gemv streams the chunk in faster than sum(axis=0))
            total += ones[: d.shape[0]] @ d
            square += np.einsum("ij,ij->j", d, d)
    return from_shifted_sums(np, shift, total, square, rows)


def from_shifted_sums(xp: Any, shift: Any, total: Any, square: Any, n: int):
    """``(mean, correction, M2)`` from the sums of ``d = x - shift`` (``total``) and of
    ``d * d`` (``square``) over ``n`` values each, in any library; ``None`` where some M2 is
    below ``square / 8`` (the shift far from the mean: the difference would lose digits)."""
    offset = total / n  # the mean of x - shift
    m2 = square - total * offset
    if bool(xp.any(m2 * _WELL_CONDITIONED < square)):
        return None
    mean = shift + offset
    return mean, offset - (mean - shift), m2  # the correction: what rounding the mean lost


def _rows(v: np.ndarray):
    """``(mean, correction, M2)`` of the rows of ``v`` (R x C), chunk by chunk of whole rows:
    the corrected two-pass algorithm on each chunk while it is in the cache."""
    rows, cols = v.shape
    mean, correction, m2 = np.empty(rows), np.empty(rows), np.empty(rows)
    step = max(1, CHUNK // max(cols, 1))
    work = np.empty((min(step, rows), cols))
    for start, piece in _chunks(v, step):
        mine = slice(start, start + piece.shape[0])
        m = piece.mean(axis=1, keepdims=True)
        d = np.subtract(piece, m, out=work[: piece.shape[0]])
        c = d.sum(axis=1) / cols
        mean[mine], correction[mine] = m[:, 0], c
        m2[mine] = np.einsum("ij,ij->i", d, d) - cols * c * c
    return mean, correction, m2
