"""Keys of ``x[key]`` read from global metadata only: no message.

Every rank reads the same key against the same shape, so a bad key raises the same error on
every rank before anything is sent. Here: checks of the items and slices, the kind of a key
(basic, integer arrays, a sole mask), ``normalize_key`` (one ``Part`` per axis), and the
arithmetic of parts against a layout (which positions of a selection each rank holds, and
the key of that selection in a rank's block).
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from typing import Any

import numpy as np

from .. import _array
from .._layout import Layout

__all__: list[str] = []

# One selector per axis of x, or None for a new axis.
Part = int | range | None

BASIC = (int, slice, type(None), type(Ellipsis))  # exact types: bool is refused later


# -- items --------------------------------------------------------------------------------------
def short(k: Any) -> str:
    """``repr(k)``, cut to fit an error message."""
    text = repr(k)
    return text if len(text) <= 60 else text[:57] + "..."


def _bad_item(k: Any, func: str) -> IndexError:
    what = type(k).__name__
    if isinstance(k, (np.ndarray, list)) or isinstance(k, (bool, np.bool_)):
        return IndexError(
            f"{func}: lists, Python booleans and NumPy arrays of other than integers or "
            f"booleans are not valid indices; use integer or boolean arrays; got a {what} key "
            f"{short(k)}"
        )
    if isinstance(k, _array.Array):
        return IndexError(
            f"{func}: an array index must have an integer or boolean dtype, got {k.dtype}"
        )
    return IndexError(
        f"{func}: only integers, slices, None, Ellipsis and 0-d integer arrays are valid "
        f"indices, got {what} {short(k)}"
    )


def as_int(k: Any) -> int | None:
    """``k`` as a Python int when it is an integer index, else ``None``."""
    if isinstance(k, (bool, np.bool_)):
        return None
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, _array.Array) and k.ndim == 0 and k.dtype.kind in "iu":
        # A 0-d array is never split, so __index__ reads the local block (no message).
        return operator.index(k)
    return None


def check_slice(s: slice, func: str) -> slice:
    """``s`` with Python int bounds (or ``None``), and a nonzero step."""
    if all(v is None or type(v) is int for v in (s.start, s.stop, s.step)):  # the common case
        out = s
    else:
        bounds = []
        for name in ("start", "stop", "step"):
            v = getattr(s, name)
            if v is not None:
                v = as_int(v)
                if v is None:
                    bad = short(getattr(s, name))
                    raise TypeError(f"{func}: slice {name} must be an integer or None, got {bad}")
            bounds.append(v)
        out = slice(*bounds)
    if out.step == 0:
        raise ValueError(f"{func}: slice step cannot be zero in {s}")
    return out


def _check_item(k: Any, func: str) -> Any:
    if k is None or k is Ellipsis or type(k) is int:
        return k
    if isinstance(k, slice):
        return check_slice(k, func)
    i = as_int(k)
    if i is None:
        raise _bad_item(k, func)
    return i


def expand_ellipsis(items: list[Any], ndim: int, func: str) -> list[Any]:
    """Checked ``items`` with the Ellipsis (or the end) filled with full slices, so that
    every axis of an array of ``ndim`` dimensions has one item (``None`` adds no axis)."""
    n_ellipsis = sum(k is Ellipsis for k in items)
    if n_ellipsis > 1:
        raise IndexError(f"{func}: an index can only have a single Ellipsis, got {n_ellipsis}")
    n_index = sum(k is not None and k is not Ellipsis for k in items)
    if n_index > ndim:
        raise IndexError(
            f"{func}: too many indices for an array of {ndim} dimensions: {n_index} given"
        )
    fill = [slice(None)] * (ndim - n_index)
    if n_ellipsis:
        at = next(i for i, k in enumerate(items) if k is Ellipsis)
        return [*items[:at], *fill, *items[at + 1 :]]
    return [*items, *fill]


def normalize_key(key: Any, shape: tuple[int, ...], func: str) -> list[Part]:
    """One part per item of the expanded key: an in-range int or a ``range`` of indices for
    each axis of ``shape`` (in order), and ``None`` for each new axis."""
    items = [_check_item(k, func) for k in (key if isinstance(key, tuple) else (key,))]
    parts: list[Part] = []
    axis = 0
    for k in expand_ellipsis(items, len(shape), func):
        if k is None:
            parts.append(None)
            continue
        n = shape[axis]
        if isinstance(k, slice):
            parts.append(range(*k.indices(n)))
        elif -n <= k < n:
            parts.append(k % n)
        else:
            raise IndexError(f"{func}: index {k} is out of bounds for axis {axis} with size {n}")
        axis += 1
    return parts


def selected_shape(parts: list[Part]) -> tuple[int, ...]:
    """The shape of the selection ``parts`` (an int drops its axis, ``None`` adds one)."""
    return tuple(1 if p is None else len(p) for p in parts if not isinstance(p, int))


# -- the kind of a key --------------------------------------------------------------------------
def host_keys(x: _array.Array, key: Any) -> Any:
    """``key`` with NumPy integer and boolean arrays made replicated xdist arrays (no
    message: under SPMD every rank passes the same key). Libraries written against the
    standard sometimes index with NumPy arrays they computed on the host (scikit-learn's
    discriminant analysis does); the standard does not require accepting them."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(k, np.ndarray) for k in items):
        return key

    def convert(k):
        if not isinstance(k, np.ndarray) or k.dtype.kind not in "biu":
            return k
        block = x._backend.from_host(np.ascontiguousarray(k), x.device)
        return _array.Array._new(block, Layout.replicated(k.shape), x._comm, x._backend)

    items = tuple(convert(k) for k in items)
    return items if isinstance(key, tuple) else items[0]


def mask_key(key: Any, ndim: int) -> Any:
    """``mask`` for ``mask``, ``(mask,)``, ``(mask, ...)`` or ``(mask, :, ..., :)`` (with
    no more axes than the array has): trailing full slices select nothing more, so they are
    the sole-mask case of the standard. ``None`` for any other key."""
    items = key if isinstance(key, tuple) else (key,)
    mask, rest = items[0], items[1:]
    if not isinstance(mask, _array.Array) or mask.dtype != np.bool_:
        return None
    slices = sum(k == slice(None) for k in rest if k is not Ellipsis)
    ellipses = sum(k is Ellipsis for k in rest)
    if slices + ellipses != len(rest) or ellipses > 1 or mask.ndim + slices > ndim:
        return None
    return mask


def key_kind(key: Any, ndim: int, func: str) -> str:
    """``"mask"`` (a sole boolean array), ``"array"`` (integer arrays) or ``"basic"``."""
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, _array.Array) and k.dtype == np.bool_ for k in items):
        if mask_key(key, ndim) is None:
            raise IndexError(
                f"{func}: a boolean array must be the sole index (or be followed only by full "
                f"slices), got a key of {len(items)} items"
            )
        return "mask"
    if any(isinstance(k, _array.Array) and k.ndim > 0 for k in items):
        return "array"
    return "basic"


# -- parts against a layout ---------------------------------------------------------------------
def split_part(parts: list[Part], split: int) -> tuple[int, int | None]:
    """Where the split axis is in ``parts``, and the result axis it becomes (None for an int)."""
    in_axis = out_axis = 0
    for i, p in enumerate(parts):
        if p is not None and in_axis == split:
            return i, None if isinstance(p, int) else out_axis
        if p is not None:
            in_axis += 1
        if not isinstance(p, int):
            out_axis += 1
    raise AssertionError("unreachable: every axis has a part")


def _positions(r: range, lo: int, hi: int) -> tuple[int, int]:
    """The positions ``[k0, k1)`` in ``r`` (a negative step) of its elements within
    ``[lo, hi)`` (contiguous)."""
    ascending = r[::-1]
    n = len(r)
    return n - bisect_left(ascending, hi), n - bisect_left(ascending, lo)


# Above this many ranks, the per-rank positions of a slice are computed by NumPy (one
# vectorized pass over the ranks' bounds) rather than a Python loop over the ranks, whose
# cost grows with the ranks (docs/scaling.md: loops over ranks).
LOOP_RANKS = 32


def slice_positions(layout: Layout, r: range) -> tuple[np.ndarray, np.ndarray]:
    """``rank_positions`` as two int64 arrays ``(k0, k1)`` over the ranks: the elements of
    ``r`` below ``v`` (in its ascending order) number ``ceil((v - start) / step)``, clipped
    to ``[0, len(r)]``, for ``v`` each block's first index and one past its last; a negative
    step counts on ``r`` reversed and turns the positions around."""
    n = len(r)
    ascending = r if r.step > 0 else r[::-1]
    k = np.clip(-(-(layout.bounds - ascending.start) // abs(r.step)), 0, n)
    if r.step > 0:
        return k[:-1], k[1:]
    return n - k[1:], n - k[:-1]


def split_counts(layout: Layout, r: range, rank: int) -> tuple[tuple[int, ...], int, int]:
    """How many indices of ``r`` each rank's block holds, and ``rank``'s own positions
    ``[k0, k1)`` in ``r`` (``rank_positions``; by NumPy past ``LOOP_RANKS`` ranks)."""
    if len(layout.counts) > LOOP_RANKS:
        k0, k1 = slice_positions(layout, r)
        return tuple((k1 - k0).tolist()), int(k0[rank]), int(k1[rank])
    ranks = rank_positions(layout, r)
    return tuple(b - a for a, b in ranks), *ranks[rank]


def rank_positions(layout: Layout, r: range) -> list[tuple[int, int]]:
    """For every rank, the positions ``[k0, k1)`` in ``r`` of the indices its block holds.
    A positive step by arithmetic (the hot path of slicing a split array): the elements of
    ``r`` below ``v`` number ``ceil((v - start) / step)``, clipped to ``[0, len(r)]``; by
    NumPy over the ranks past ``LOOP_RANKS`` (``slice_positions``)."""
    if len(layout.counts) > LOOP_RANKS:
        k0, k1 = slice_positions(layout, r)
        return list(zip(k0.tolist(), k1.tolist()))
    if r.step < 0:
        return [_positions(r, lo, lo + c) for lo, c in zip(layout.offsets, layout.counts)]
    start, step, n = r.start, r.step, len(r)
    out = []
    for lo, c in zip(layout.offsets, layout.counts):
        hi = lo + c
        k0 = 0 if lo <= start else min(n, -(-(lo - start) // step))
        k1 = 0 if hi <= start else min(n, -(-(hi - start) // step))
        out.append((k0, k1))
    return out


def local_parts(parts: list[Part], at: int, k0: int, k1: int, offset: int) -> list[Part]:
    """``parts`` with the split axis part keeping positions ``[k0, k1)``, in block indices."""
    sub = parts[at][k0:k1]  # type: ignore[index]
    out = list(parts)
    out[at] = range(sub.start - offset, sub.stop - offset, sub.step)
    return out


def local_key(parts: list[Part]) -> tuple[tuple, tuple[int, ...]]:
    """A key every backend accepts (positive steps only) and the result axes to flip."""
    key: list[Any] = []
    flips: list[int] = []
    out_axis = 0
    for p in parts:
        if isinstance(p, int):
            key.append(p)
            continue
        if isinstance(p, range):
            if p.step < 0:
                if len(p) > 1:
                    flips.append(out_axis)
                p = p[::-1]
            key.append(slice(p.start, p.stop, p.step) if len(p) else slice(0, 0))
        else:
            key.append(None)
        out_axis += 1
    return tuple(key), tuple(flips)
