"""``cov`` and ``corrcoef``: NumPy's, beyond the standard, for data split along observations.

One pass, one message. Each rank centres its own observations on their (weighted) mean, two
passes over its block: ``mean``, then the centred cross-products ``C = Xc^T (w Xc)``; then one
``allreduce`` merges the ranks' records ``(W, V2, mean, C)`` (``2 + D + D^2`` float64 values,
D the number of variables) pairwise, Chan, Golub & LeVeque's update for co-moments:

    W = Wa + Wb;  d = mean_b - mean_a;  mean = mean_a + d Wb / W;
    C = Ca + Cb + d d^T Wa Wb / W;  V2 = V2a + V2b

It never forms a difference of large sums of products, so data with a large offset keeps its
accuracy (the error is that of NumPy's own two passes, a few ulps of ``sum w |x - mean|^2``,
plus one rounding per merge). ``W`` sums the weights (``fweights * aweights``, else 1 each),
``V2`` sums ``w * aweights`` for NumPy's degrees of freedom with ``aweights``.

A data matrix split along its variables moves to its observations first (``resplit``: one
``alltoallv``); a replicated one sends nothing. The result, ``D x D``, is replicated.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ._array import Array, replicated_operand
from ._distribution_functions import resplit
from ._layout import Layout
from ._manipulation_functions import concat, expand_dims, permute_dims, reshape
from ._movement.collectives import allreduce_host
from ._movement.redistribute import redistribute_block
from ._transport.comm import ReduceOp
from ._utility_functions import any as any_true
from ._validation import check_array, check_same_context
from .backends import Backend

__all__ = ["corrcoef", "cov"]

_float64 = np.dtype("float64")


def _merge_comoments(d: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Merge rows of records ``(W, V2, mean (d), C (d x d))`` of disjoint observations."""
    wa, wb = a[:, 0], b[:, 0]
    w = wa + wb
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.divide(wb, w, out=np.zeros_like(w), where=w > 0)  # Wb / W
    ma, mb = a[:, 2 : 2 + d], b[:, 2 : 2 + d]
    delta = mb - ma
    ca = a[:, 2 + d :].reshape(-1, d, d)
    cb = b[:, 2 + d :].reshape(-1, d, d)
    c = ca + cb + (wa * f)[:, None, None] * delta[:, :, None] * delta[:, None, :]
    out = np.concatenate(
        [w[:, None], (a[:, 1] + b[:, 1])[:, None], ma + delta * f[:, None], c.reshape(-1, d * d)],
        axis=1,
    )
    out[wb == 0] = a[wb == 0]  # an empty part's mean is meaningless: take the other record
    out[wa == 0] = b[wa == 0]
    return out


@functools.cache
def _comoments(d: int) -> ReduceOp:
    """The record op for ``d`` variables (one per ``d``: the transport builds its MPI op once
    per value)."""
    return ReduceOp(f"comoments{d}", 2 + d + d * d, functools.partial(_merge_comoments, d))


# NumPy 2.2 reads ``rowvar=False`` for a 2-D ``m`` of one row as one observation of each
# column (earlier, as one variable, as it still reads ``y``): numpy/numpy#27661.
_ONE_ROW_TRANSPOSED = np.lib.NumpyVersion(np.__version__) >= "2.2.0"


def _observations(m: Any, rowvar: bool, name: str) -> Array:
    """``m`` as ``(observations, variables)``, the installed NumPy's reading of ``rowvar``: a
    single row of ``y`` (and of ``m`` before NumPy 2.2) is one variable either way; no
    message (the split axis moves with its data)."""
    check_array(m, "cov", name)
    if m.ndim > 2:
        raise ValueError(f"cov: {name} has more than 2 dimensions: shape {m.shape}")
    if m.dtype.kind not in "biuf":
        raise NotImplementedError(f"cov: {name} of dtype {m.dtype} is not supported (real only)")
    if m.ndim < 2:
        return expand_dims(m, axis=-1) if m.ndim == 1 else reshape(m, (1, 1))
    if rowvar or (m.shape[0] == 1 and (name == "y" or not _ONE_ROW_TRANSPOSED)):
        return permute_dims(m, (1, 0))
    return m


def _weights(v: Any, like: Array, n: int, name: str) -> Array | None:
    if v is None:
        return None
    v = v if isinstance(v, Array) else replicated_operand(like, v, "cov")
    check_same_context([(like, "m"), (v, name)], "cov")
    if v.ndim != 1:
        raise RuntimeError(f"cov: {name} must be 1-D, got shape {v.shape}")
    if v.shape[0] != n:
        raise RuntimeError(f"cov: incompatible numbers of samples ({n}) and {name} ({v.shape[0]})")
    if name == "fweights" and v.dtype.kind not in "biu":
        raise TypeError(f"cov: fweights must be integer, got dtype {v.dtype}")
    if v.dtype.kind not in "biuf":
        raise TypeError(f"cov: {name} must be real, got dtype {v.dtype}")
    if any_true(v < 0):
        raise ValueError(f"cov: {name} cannot be negative")
    return v


def _record(block: Any, w: Any, aw: Any, backend: Backend) -> np.ndarray:
    """This rank's ``(W, V2, mean, C)`` by two passes over its observations (float64)."""
    xp = backend.xp
    n, d = int(block.shape[0]), int(block.shape[1])
    out = np.zeros(2 + d + d * d)
    total = float(n) if w is None or n == 0 else float(backend.to_host(xp.sum(w)))
    if total == 0:  # no observation here (or none with weight): the merge skips this record
        return out
    if w is None:
        mean = xp.mean(block, axis=0)
        centred = block - mean
        c = xp.matmul(xp.matrix_transpose(centred), centred)
    else:
        mean = xp.sum(block * w[:, None], axis=0) / total
        centred = block - mean
        c = xp.matmul(xp.matrix_transpose(centred * w[:, None]), centred)
    out[0] = total
    out[1] = float(backend.to_host(xp.sum(w * aw))) if aw is not None else 0.0
    out[2 : 2 + d] = backend.to_host(mean)
    out[2 + d :] = np.asarray(backend.to_host(c)).reshape(-1)
    return out


def _cov(m, y, rowvar, bias, ddof, fweights, aweights, func) -> tuple[np.ndarray, Array]:
    """NumPy's covariance matrix on the host (float64, before squeezing), and ``m``."""
    if not isinstance(rowvar, (bool, np.bool_)):
        raise TypeError(f"{func}: rowvar must be a bool, got {rowvar!r}")
    if ddof is not None and ddof != int(ddof):
        raise ValueError(f"{func}: ddof must be an integer, got {ddof!r}")
    obs = _observations(m, rowvar, "m")
    if y is not None:
        check_same_context([(m, "m"), (y, "y")], func)
        other = _observations(y, rowvar, "y")
        if other.shape[0] != obs.shape[0]:
            raise ValueError(
                f"{func}: m and y have different numbers of observations: "
                f"{obs.shape[0]} != {other.shape[0]}"
            )
        obs = concat([obs, other], axis=1)
    n, d = obs.shape
    f = _weights(fweights, m, n, "fweights")
    a = _weights(aweights, m, n, "aweights")
    if d == 0:
        return np.zeros((0, 0)), m
    if obs.split == 1:
        obs = resplit(obs, 0)
    comm, backend, xp = m._comm, m._backend, m._backend.xp
    line = Layout.replicated((n,)) if obs.split is None else Layout((n,), 0, obs.counts)
    wide = backend.native_dtype(_float64)

    def aligned(v: Array | None) -> Any:
        if v is None:
            return None
        block = redistribute_block(v._local, v._layout, line, comm, backend)
        return xp.astype(block, wide)

    fb, ab = aligned(f), aligned(a)
    w = ab if fb is None else (fb if ab is None else fb * ab)
    record = _record(xp.astype(obs._local, wide), w, ab, backend)
    if obs.split is not None and comm.size > 1:
        record = allreduce_host(record[None], _comoments(d), comm)[0]
    total, v2 = record[0], record[1]
    c = record[2 + d :].reshape(d, d)
    if ddof is None:
        ddof = 0 if bias else 1
    fact = total - ddof if a is None else total - ddof * v2 / total
    with np.errstate(divide="ignore", invalid="ignore"):
        c = c * np.true_divide(1, max(fact, 0.0))
    return c, m


def _result(c: np.ndarray, like: Array, dtype: Any) -> Array:
    if dtype is not None:
        c = c.astype(dtype)
    backend = like._backend
    block = backend.from_host(np.array(c, dtype=c.dtype, order="C"), like.device)
    return Array._new(block, Layout.replicated(c.shape), like._comm, backend)


def cov(
    m: Array,
    y: Array | None = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> Array:
    """NumPy's ``cov`` (xdist's extension): the covariance matrix of the variables (rows, or
    columns with ``rowvar=False``) of ``m`` and ``y``, with NumPy's ``bias``, ``ddof``,
    ``fweights`` and ``aweights``; float64 (or ``dtype``), replicated, squeezed as NumPy's.

    Communication: none for replicated data. Observations split over the ranks: one
    ``allreduce`` of one ``(W, V2, mean, C)`` record (``8 (2 + D + D^2)`` bytes) merged
    pairwise (Chan et al.), after one ``alltoallv`` when the variables are the split axis;
    each weight array given also sends one small ``allreduce`` to agree that none is
    negative."""
    c, like = _cov(m, y, rowvar, bias, ddof, fweights, aweights, "cov")
    return _result(c.squeeze() if c.size else c, like, dtype)


def corrcoef(x: Array, y: Array | None = None, rowvar: bool = True, *, dtype: Any = None) -> Array:
    """NumPy's ``corrcoef`` (xdist's extension): ``cov`` normalised by the standard deviations
    and clipped to ``[-1, 1]``; replicated. Communication of ``cov``."""
    c, like = _cov(x, y, rowvar, False, None, None, None, "corrcoef")
    c = c.squeeze() if c.size else c
    if c.ndim == 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _result(c / c, like, dtype)
    stddev = np.sqrt(np.diag(c))
    with np.errstate(divide="ignore", invalid="ignore"):
        c = c / stddev[:, None] / stddev[None, :]
    return _result(np.clip(c, -1, 1), like, dtype)
