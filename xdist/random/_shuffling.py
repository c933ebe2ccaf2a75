"""Permutations and sampling: random keys per index, ordered by a stable sort.

A permutation of ``n`` indices is the stable argsort of ``n`` random keys, key ``i`` being a
function of (key, stream, i) only. The order of the pairs (key, index) is total, so every way
of sorting them (NumPy's argsort on one rank, xdist's distributed ``argsort`` at any rank
count, on any backend) gives the same permutation. Sampling without replacement takes the
first ``k`` of such a permutation; with weights ``p`` the keys are ``E_i / p_i`` with ``E_i``
standard exponential (Efraimidis and Spirakis: the order of these keys is sequential sampling
by weight, NumPy's ``choice(replace=False, p=...)``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _array
from .._indexing_functions import take
from .._layout import Layout
from .._movement.redistribute import redistribute_block, slice_replicated
from .._placement import Placement
from .._sorting_functions import argsort
from ._engine import Engine
from ._layouts import draw_block, from_flat

__all__ = ["choose", "order_keys", "permuted", "weighted_keys"]

Keys = Callable[[int, int], np.ndarray]


def order_keys(engine: Engine, stream: int) -> Keys:
    """Uniform 64-bit keys (int64 bit patterns: every backend sorts int64)."""
    return lambda lo, hi: engine.raw(stream, lo, hi).view(np.int64)


def weighted_keys(engine: Engine, stream: int, p: np.ndarray) -> Keys:
    """Keys ``-log(1 - u_i) / p_i`` (``inf`` where ``p_i == 0``: drawn last)."""

    def keys(lo: int, hi: int) -> np.ndarray:
        e = -np.log1p(-engine.uniform(stream, lo, hi, np.dtype(np.float64)))
        w = p[lo:hi]
        out = np.full(hi - lo, np.inf)
        np.divide(e, w, out=out, where=w > 0)
        return out

    return keys


def _split_order(keys: Keys, n: int, t: Placement) -> _array.Array:
    """The permutation, split along 0 in balanced blocks: the keys drawn by range and sorted
    by xdist's distributed stable ``argsort``."""
    layout = Layout.balanced((n,), 0, t.comm.size)
    lo, hi = layout.local_range(t.comm.rank)
    return argsort(t.array(t.backend.from_host(keys(lo, hi), t.device), layout))


def permuted(x: _array.Array, axis: int, keys: Keys, func: str) -> _array.Array:
    """``x`` with its indices along ``axis`` permuted, in ``x``'s layout.

    Along an axis that is not split, every rank computes the permutation itself and reorders
    its block: no message. Along the split axis: a distributed argsort of the keys, ``take``
    (each slice fetched from its owner) and, for unbalanced blocks, one all-to-all back to
    ``x``'s counts."""
    comm, backend, n = x._comm, x._backend, x.shape[axis]
    if x.split != axis or comm.size == 1:
        perm = backend.from_host(np.argsort(keys(0, n), kind="stable"), x.device)
        block = backend.xp.take(x._local, perm, axis=axis)
        return _array.Array._new(block, x._layout, comm, backend)
    perm = _split_order(keys, n, Placement(comm, x.device, func, backend=backend))
    out = take(x, perm, axis=axis)
    if out._layout == x._layout:
        return out
    block = redistribute_block(out._local, out._layout, x._layout, comm, backend)
    return _array.Array._new(block, x._layout, comm, backend)


def _prefix(perm: _array.Array, k: int) -> _array.Array:
    """The first ``k`` elements of a 1-D split array, left where they are (no message)."""
    counts = []
    for lo, hi in (perm._layout.local_range(r) for r in range(perm._comm.size)):
        counts.append(max(0, min(hi, k) - lo))
    block = perm._local[: counts[perm._comm.rank]]
    return _array.Array._new(block, Layout((k,), 0, tuple(counts)), perm._comm, perm._backend)


def _flat_indices(
    n: int, k: int, replace: bool, index_fill: Any, keys: Keys, spread: bool, t: Placement
) -> _array.Array:
    """``k`` sample indices in ``[0, n)`` as a flat int64 array: replicated (every rank draws
    or orders everything) unless ``spread``, then split along 0."""
    if not spread:
        if replace:
            host = index_fill(0, k)
        else:
            host = np.argsort(keys(0, n), kind="stable")[:k]
        return t.array(t.backend.from_host(host, t.device), Layout.replicated((k,)))
    if replace:
        layout = Layout.balanced((k,), 0, t.comm.size)
        host = draw_block(index_fill, layout, np.dtype(np.int64), t.comm)
        return t.array(t.backend.from_host(host, t.device), layout)
    return _prefix(_split_order(keys, n, t), k)


def choose(
    pool: _array.Array | None,
    n: int,
    layout: Layout,
    replace: bool,
    index_fill: Any,
    keys: Keys,
    t: Placement,
) -> _array.Array:
    """Samples of ``range(n)`` (``pool`` None) or of the 1-D ``pool``, in ``layout``.

    ``index_fill(lo, hi)`` draws the sample indices ``lo:hi`` with replacement; ``keys`` order
    the population for sampling without. With replacement from ``range(n)`` or a replicated
    pool, each rank draws its block's indices: no message. Otherwise the indices are a flat
    array (split when ``layout`` is), values are taken from the pool (``take``: fetched from
    their owners) and the flat result is reshaped into ``layout`` (``from_flat``)."""
    comm, backend, xp = t.comm, t.backend, t.xp
    k = math.prod(layout.shape)
    local_pool = pool is None or pool.split is None or comm.size == 1
    if replace and local_pool:
        block = draw_block(index_fill, layout, np.dtype(np.int64), comm)
        block = backend.from_host(block, t.device)
        if pool is not None:
            picked = xp.take(pool._local, xp.reshape(block, (-1,)), axis=0)
            block = xp.reshape(picked, layout.local_shape(comm.rank))
        return t.array(block, layout)
    spread = layout.split is not None and comm.size > 1
    flat = _flat_indices(n, k, replace, index_fill, keys, spread, t)
    if pool is not None:
        flat = take(pool, flat) if pool.split is not None else _local_take(pool, flat)
    if flat.split is None:
        block = slice_replicated(xp.reshape(flat._local, layout.shape), layout, comm.rank)
    else:
        block = from_flat(flat._local, flat.counts, layout, comm, backend)
    return t.array(block, layout)


def _local_take(pool: _array.Array, idx: _array.Array) -> _array.Array:
    """``take`` from a replicated pool: each rank reads its own copy."""
    block = pool._backend.xp.take(pool._local, idx._local, axis=0)
    return _array.Array._new(block, idx._layout, idx._comm, idx._backend)
