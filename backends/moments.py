"""The local moments of a block over some of its axes: mean and M2 (the sum of squared
deviations from the mean), in float64, for ``var`` and ``std``.

``two_pass`` is the corrected two-pass algorithm in any library: the mean, then the deviations
from it, whose mean corrects the rounded mean and M2. It reads the block three times and
writes two temporaries of its size.

``chunked`` (NumPy blocks) reads the block from memory once. It takes the block in chunks of
about ``CHUNK`` elements, small enough to stay in the cache, and for each chunk forms the sum
``s`` and the sum of squares ``q`` (a BLAS dot product): ``M2 = q - s * s / n``. That
difference loses digits when the mean is large next to the spread, so a chunk whose
``M2 < q / 8`` (the mean more than about 2.6 standard deviations from zero) is taken again by
the two-pass algorithm, from the cache: the error of a chunk's M2 stays within 8 times that
of the dot product. The chunks are merged all at once,
``M2 = sum(M2_i) + sum(n_i * (mean_i - mean)**2)`` (Chan et al.'s merge of many parts), and
the correction returned is the mean of the deviations of the chunk means from the rounded
mean. Handled: every axis, or the leading axes, or the trailing axes of a C-contiguous block
of float64 or float32 (float32 chunks are widened to float64 in the cache first); anything else
returns ``None`` and the caller takes ``two_pass``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["chunked", "two_pass"]

CHUNK = 1 << 17  # elements: 1 MiB of float64, with its work buffer in a 2 MiB L2 cache
MIN_ROWS = 64  # rows per chunk, at least, when the rows are reduced
_WELL_CONDITIONED = 8.0  # q / M2 above this: the chunk is taken again by two passes


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
    if axes == tuple(range(len(axes))):  # the leading axes: rows of (R, C), merged
        rows, cols = int(np.prod(block.shape[: len(axes)])), int(np.prod(block.shape[len(axes) :]))
        m, c, m2 = _over_rows(block.reshape(rows, cols))
    elif axes == tuple(range(ndim - len(axes), ndim)):  # the trailing axes: each row whole
        cols = int(np.prod(block.shape[ndim - len(axes) :]))
        m, c, m2 = _within_rows(block.reshape(-1, cols))
    else:
        return None
    return m.reshape(kept), c.reshape(kept), m2.reshape(kept)


def _over_rows(v: np.ndarray):
    """Moments of the columns of ``v`` (R x C) over its rows, chunk by chunk: ``MIN_ROWS``
    rows or more per chunk (few rows would make many columns' sample means large next to
    their spread, and send them to the two-pass fallback), and blocks of columns."""
    rows, cols = v.shape
    width = min(cols, max(1, CHUNK // MIN_ROWS))
    step = max(1, CHUNK // width)
    starts = range(0, rows, step)
    n = np.empty(len(starts))
    means = np.empty((len(starts), cols))
    corrections = np.zeros((len(starts), cols))
    m2 = np.empty((len(starts), cols))
    wide = np.empty((min(step, rows), width)) if v.dtype != np.float64 else None
    work = np.empty((min(step, rows), width))
    for i, start in enumerate(starts):
        k = min(step, rows - start)
        n[i] = k
        for left in range(0, cols, width):
            piece = v[start : start + k, left : left + width]
            w = piece.shape[1]
            if wide is not None:
                np.copyto(wide[:k, :w], piece)
                piece = wide[:k, :w]
            total = piece.sum(axis=0)
            square = np.multiply(piece, piece, out=work[:k, :w]).sum(axis=0)
            part = slice(left, left + w)
            means[i, part], corrections[i, part], m2[i, part] = _from_sums(
                piece, total, square, k, 0
            )
    return _merge(n, means, corrections, m2)


def _within_rows(v: np.ndarray):
    """Moments of each row of ``v`` (R x C) over its columns, chunk by chunk of rows."""
    rows, cols = v.shape
    step = max(1, CHUNK // max(cols, 1))
    mean = np.empty(rows)
    correction = np.empty(rows)
    m2 = np.empty(rows)
    wide = np.empty((min(step, rows), cols)) if v.dtype != np.float64 else None
    for start in range(0, rows, step):
        piece = v[start : start + step]
        k = piece.shape[0]
        if wide is not None:
            np.copyto(wide[:k], piece)
            piece = wide[:k]
        total = piece.sum(axis=1)
        square = np.einsum("ij,ij->i", piece, piece)
        rows_k = slice(start, start + k)
        mean[rows_k], correction[rows_k], m2[rows_k] = _from_sums(piece, total, square, cols, 1)
    return mean, correction, m2


def _from_sums(piece: np.ndarray, total, square, k: int, axis: int):
    """``(mean, correction, M2)`` of the ``k`` values along ``axis`` of ``piece``, from their
    sum and sum of squares; where that would lose digits (a mean large next to the spread),
    by the corrected two-pass algorithm."""
    mean = total / k
    m2 = square - total * mean
    correction = np.zeros_like(mean)
    bad = m2 * _WELL_CONDITIONED < square
    if np.any(bad):
        m = piece.mean(axis=axis, keepdims=True)
        dev = piece - m
        c = dev.mean(axis=axis)
        m2 = np.where(bad, np.square(dev).sum(axis=axis) - k * c * c, m2)
        mean = np.where(bad, np.squeeze(m, axis=axis), mean)
        correction = np.where(bad, c, correction)
    return mean, correction, m2


def _merge(n: np.ndarray, means: np.ndarray, corrections: np.ndarray, m2: np.ndarray):
    """Merge chunk records (counts ``n``; rounded means, their corrections and M2, one row
    per chunk) into the ``(mean, correction, M2)`` of the whole."""
    total_n = n.sum()
    weights = (n / total_n)[:, None]
    mean = (weights * means).sum(axis=0)
    dev = (means - mean) + corrections  # exact differences of close means, plus the small parts
    correction = (weights * dev).sum(axis=0)
    merged = m2.sum(axis=0) + (n[:, None] * dev * dev).sum(axis=0) - total_n * correction**2
    return mean, correction, merged
