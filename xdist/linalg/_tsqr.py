"""QR and singular value decompositions: ``qr``, ``svd``, ``svdvals``.

A tall-skinny matrix (``M >= N``) split along its rows is factored by TSQR, with ONE
``allgatherv`` of small triangular factors and no gather of the matrix:

    x = [x_0; ...; x_{p-1}]          rank i's rows, m_i of them
    x_i = Q_i R_i                    local reduced QR: Q_i is m_i x k_i, k_i = min(m_i, N)
    S = [R_0; ...; R_{p-1}] = Q_S R  (sum k_i) x N, sum k_i >= N; QR'd identically on every rank
    x = diag(Q_i) S = (diag(Q_i) Q_S) R

``Q = diag(Q_i) Q_S`` has orthonormal columns since both factors do (a block with fewer rows
than columns, or none, simply sends fewer rows), and rank i's rows of ``Q`` are
``Q_i @ Q_S[rows of R_i]``: ``Q`` is split like ``x``, ``R`` replicated. The message holds
``sum k_i * N <= M * N`` elements: never more than gathering ``x``.

``svd`` of such a matrix is TSQR, then the SVD of the small ``R`` on every rank:
``U = Q @ U_R`` (split like ``x``), ``S`` and ``Vh`` replicated. A wide matrix (``M < N``)
split along its columns is factored through its conjugate transpose (split along rows), so
``Vh`` is split like ``x`` and ``U`` replicated. Every other layout goes through ``gathered``
(no message for replicated or batch-split stacks; the whole matrix on every rank otherwise).

Conventions, applied on every path so that the result does not depend on the layout or the
number of ranks (up to rounding): ``qr``'s ``R`` has a real non-negative diagonal; in ``svd``
the largest-magnitude entry of each singular vector is real and positive (of each row of
``Vh`` when ``M >= N``, of each column of ``U`` when ``M < N``).
"""

from __future__ import annotations

import math
from typing import Any

import array_api_compat
import numpy as np

from .._array import Array, wrap_block
from .._layout import Layout
from .._movement.collectives import allgather_block
from ._common import QRResult, SVDResult, check_matrices, positive_diagonal
from ._gathered import gathered, place

__all__ = ["qr", "svd", "svdvals"]


# -- TSQR --------------------------------------------------------------------------------------
def _tall_on_rows(x: Array) -> bool:
    return x.split == x.ndim - 2 and x.shape[-2] >= x.shape[-1] and x._comm.size > 1


def _wide_on_columns(x: Array, *, strict: bool) -> bool:
    m, n = x.shape[-2:]
    wide = m < n if strict else m <= n
    return x.split == x.ndim - 1 and wide and x._comm.size > 1


def _stack_factors(r: Any, ks: list[int], like: Array) -> Any:
    """Every rank's ``R_i`` (``(..., k_i, N)``) stacked along the rows, the same on every rank:
    the one message of TSQR (an ``allgatherv``)."""
    backend, comm = like._backend, like._comm
    batch, n = tuple(r.shape[:-2]), r.shape[-1]
    per_row = math.prod(batch) * n
    flat = allgather_block(r, [k * per_row for k in ks], comm, backend)
    parts, start = [], 0
    for k in ks:
        parts.append(flat[start : start + k * per_row].reshape((*batch, k, n)))
        start += k * per_row
    return backend.from_host(np.concatenate(parts, axis=-2), backend.device_of(r))


def tsqr(block: Any, counts: tuple[int, ...], like: Array, *, want_q: bool = True):
    """``(Q block, R)`` of the matrix whose rank-i rows are ``block`` (``counts[i]`` rows
    each, at least as many rows as columns in all): see the module's docstring."""
    xp, rank = like._backend.xp, like._comm.rank
    n = block.shape[-1]
    ks = [min(c, n) for c in counts]
    q_local, r_local = xp.linalg.qr(block)
    q_s, r = xp.linalg.qr(_stack_factors(r_local, ks, like))
    if not want_q:
        return None, r
    lo = sum(ks[:rank])
    return xp.matmul(q_local, q_s[..., lo : lo + ks[rank], :]), r


# -- qr ----------------------------------------------------------------------------------------
def qr(x: Array, /, *, mode: str = "reduced") -> QRResult:
    """The standard's ``qr``, with ``R``'s diagonal real and non-negative.

    A tall-skinny matrix split along its rows (``mode='reduced'``, or a square one): TSQR,
    one ``allgatherv`` of the small ``R`` factors; ``Q`` split like ``x``, ``R`` replicated.
    Replicated or batch-split stacks: local. Otherwise (``'complete'`` on a tall matrix, a
    wide one split on rows, any split along columns) the matrix is gathered (memory: all of
    ``x`` on every rank); ``Q`` is then split like ``x``'s rows, ``R`` like its columns.
    """
    check_matrices(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    xp = x._backend.xp
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    if _tall_on_rows(x) and (mode == "reduced" or m == n):
        q, r = positive_diagonal(*tsqr(x._local, x.counts, x), xp)
        q_layout = Layout((*batch, m, n), x.ndim - 2, x.counts)
        return QRResult(
            wrap_block(q, q_layout, x), wrap_block(r, Layout.replicated((*batch, n, n)), x)
        )

    def compute(b):
        return positive_diagonal(*xp.linalg.qr(b, mode=mode), xp)

    (q, r), work = gathered(x, "qr", compute, may_fail=False)
    k = m if mode == "complete" else min(m, n)
    return QRResult(
        place(q, work, x, (*batch, m, k), {-2: -2}), place(r, work, x, (*batch, k, n), {-1: -1})
    )


# -- svd ---------------------------------------------------------------------------------------
def _phases(rows: Any, xp: Any) -> Any:
    """``p_k = a / |a|`` for ``a`` the largest-magnitude entry of row ``k`` (1 for zero rows)."""
    idx = xp.argmax(xp.abs(rows), axis=-1, keepdims=True)
    pick = xp.take_along_axis(rows, idx, axis=-1)[..., 0]
    mag = xp.abs(pick)
    ok = mag > 0
    safe = xp.astype(xp.where(ok, mag, xp.ones_like(mag)), pick.dtype)
    return xp.where(ok, pick / safe, xp.ones_like(pick))


def _pad(d: Any, length: int, xp: Any) -> Any:
    if d.shape[-1] == length:
        return d
    shape = (*d.shape[:-1], length - d.shape[-1])
    ones = xp.ones(shape, dtype=d.dtype, device=array_api_compat.device(d))
    return xp.concat([d, ones], axis=-1)


def svd_signs(u: Any, vh: Any, m: int, n: int, xp: Any) -> tuple[Any, Any]:
    """``(U D, D^H Vh)`` for the unitary diagonal ``D`` of the convention in the module's
    docstring. When ``M >= N`` it is read from ``Vh`` (whole on every rank on each path),
    else from ``U``; the other factor may be any rank's block."""
    k = min(m, n)
    if k == 0:
        return u, vh
    if m >= n:
        d = _phases(vh[..., :k, :], xp)
    else:
        d = xp.conj(_phases(xp.matrix_transpose(u[..., :, :k]), xp))
    du, dv = _pad(d, u.shape[-1], xp), _pad(d, vh.shape[-2], xp)
    return u * du[..., None, :], vh * xp.conj(dv)[..., :, None]


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """The standard's ``svd`` as ``(U, S, Vh)``, singular vectors signed by the module's
    convention.

    Reduced factors (``full_matrices=False``, or a square matrix) of a tall-skinny matrix
    split along its rows: TSQR (one ``allgatherv`` of small factors), ``U`` split like
    ``x``, ``S`` and ``Vh`` replicated; of a wide matrix split along its columns: the same
    on its conjugate transpose, ``Vh`` split like ``x``, ``U`` and ``S`` replicated.
    Replicated or batch-split stacks: local. Otherwise the matrix is gathered (memory: all
    of ``x``, and the full ``U`` or ``Vh``, on every rank); ``U`` is then split like ``x``'s
    rows and ``Vh`` like its columns.
    """
    check_matrices(x, "svd")
    if not isinstance(full_matrices, bool):
        raise TypeError(f"svd: full_matrices must be a bool, got {full_matrices!r}")
    xp = x._backend.xp
    m, n = x.shape[-2:]
    k, batch, nd = min(m, n), x.shape[:-2], x.ndim
    reduced = not full_matrices or m == n
    rep = Layout.replicated
    if reduced and _tall_on_rows(x):
        q, r = tsqr(x._local, x.counts, x)
        u_r, s, vh = xp.linalg.svd(r, full_matrices=False)
        u, vh = svd_signs(xp.matmul(q, u_r), vh, m, n, xp)
        u_layout = Layout((*batch, m, k), nd - 2, x.counts)
        return SVDResult(
            wrap_block(u, u_layout, x),
            wrap_block(s, rep(s.shape), x),
            wrap_block(vh, rep(vh.shape), x),
        )
    if reduced and _wide_on_columns(x, strict=True):  # x^H = (Q U_R) S Vh_R
        q, r = tsqr(xp.conj(xp.matrix_transpose(x._local)), x.counts, x)
        u_r, s, vh_r = xp.linalg.svd(r, full_matrices=False)
        u = xp.conj(xp.matrix_transpose(vh_r))
        vh = xp.conj(xp.matrix_transpose(xp.matmul(q, u_r)))
        u, vh = svd_signs(u, vh, m, n, xp)
        vh_layout = Layout((*batch, k, n), nd - 1, x.counts)
        return SVDResult(
            wrap_block(u, rep(u.shape), x),
            wrap_block(s, rep(s.shape), x),
            wrap_block(vh, vh_layout, x),
        )

    def compute(b):
        u, s, vh = xp.linalg.svd(b, full_matrices=full_matrices)
        return (*svd_signs(u, vh, m, n, xp), s)

    (u, vh, s), work = gathered(x, "svd", compute)
    ucols, vrows = (m, n) if full_matrices else (k, k)
    return SVDResult(
        place(u, work, x, (*batch, m, ucols), {-2: -2}),
        place(s, work, x, (*batch, k)),
        place(vh, work, x, (*batch, vrows, n), {-1: -1}),
    )


def svdvals(x: Array, /) -> Array:
    """The standard's ``svdvals`` (descending), replicated or split like a batch-split
    stack. A tall-skinny matrix split along its rows, or a wide one along its columns: TSQR
    (of ``x`` or of its transpose), one ``allgatherv`` of small factors. Other matrices split
    along a matrix axis are gathered (memory: all of ``x`` on every rank)."""
    check_matrices(x, "svdvals")
    xp = x._backend.xp
    block = None
    if _tall_on_rows(x):
        block = x._local
    elif _wide_on_columns(x, strict=False):
        block = xp.matrix_transpose(x._local)
    if block is not None:
        _, r = tsqr(block, x.counts, x, want_q=False)
        s = xp.linalg.svdvals(r)
        return wrap_block(s, Layout.replicated(s.shape), x)
    s, work = gathered(x, "svdvals", xp.linalg.svdvals)
    return place(s, work, x, (*x.shape[:-2], min(x.shape[-2:])))
