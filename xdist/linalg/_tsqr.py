"""QR and singular value decompositions: ``qr``, ``svd``, ``svdvals``.

The factors are LAPACK's for the whole matrix, on every layout and at every number of ranks
(up to rounding). ``qr`` gives what the backend's Householder QR gives for the whole matrix
(LAPACK's ``geqrf``, as ``np.linalg.qr``, under NumPy and CPU Torch; cuSOLVER's on a GPU), ``R``'s
diagonal signs included: they are not all positive, each reflection makes its diagonal entry
the opposite sign of the real part of the entry it starts from (and keeps that entry when the
column below it is zero). ``svd`` gives what ``np.linalg.svd`` (LAPACK ``gesdd``) gives for the
whole matrix, the singular vectors' signs included, on every backend: the SVD of the matrix
it factors runs on the host with NumPy (no copy for NumPy and CPU Torch blocks; a GPU block
travels to the host and its factors back). A sign is only as determined as LAPACK's own
choice: where that hinges on a value at rounding level (an entry that is zero in exact
arithmetic, as integer-valued data can give; equal singular values), it may differ.

A tall-skinny matrix (``M >= N``) split along its rows is factored by TSQR, with ONE
``allgatherv`` of small pieces and no gather of the matrix. Its first ``N`` rows ``T`` travel
as they are; each rank's other rows travel as the ``R`` factor of their local QR:

    x = [T; B]                     B: the rows below the first N, b_i of them on rank i
    B_i = Q_i R_i                  rank i's rows of B, local reduced QR (min(b_i, N) rows)
    [R_0; ...; R_{p-1}] = Q_S R_B  QR'd identically on every rank: R_B is min(M - N, N) x N
    P = [T; R_B]                   the proxy, min(M, 2N) x N, the same on every rank
    x = (I + Q_B) P                I on the first N rows, Q_B = diag(Q_i) Q_S below

Why ``P`` gives LAPACK's factors of ``x``: each step of Householder QR (``geqrf``) and of
bidiagonalization (``gebrd``, inside ``gesdd``) picks its reflection from entries in the first
``N`` rows and the norm of a column's part below the diagonal, and applies it by inner
products. Rows below ``N`` enter only through norms and inner products, which the isometry
``Q_B`` keeps (``B^H B = R_B^H R_B``). So LAPACK on ``P`` takes the same steps as on ``x``: the
same ``R`` and ``Q = (I + Q_B) Q_P``. ``gesdd`` of ``P`` takes the same path as ``x``'s, which
depends on the shape only: ``P`` has ``x``'s shape when ``M < 2N``, else ``2N`` rows, past
``gesdd``'s thresholds for a QR first (``11N/6`` real, ``17N/9`` complex) as ``M`` is; so it
gives the same ``S`` and ``Vh`` and ``U = (I + Q_B) U_P``. Rank i's rows of ``(I + Q_B) Z`` are its
rows of ``Z`` among the first ``N`` and ``Q_i (Q_S[rows of R_i] Z[N:])``: ``Q`` and ``U`` are
split like ``x``, ``R``, ``S`` and ``Vh`` replicated. Rank i sends at most its own rows
(``t_i + min(b_i, N)``, ``t_i`` its rows among the first ``N``): never more than gathering
``x``, and at most ``N`` rows more than the ``R`` factors alone.

Past ``STACKED_ELEMENTS`` of ``R`` factors in all (``p N^2``), stacking them on every rank
costs ``p N^2`` received and a QR of ``p N x N`` on every rank (330 MB and 9 s for ``N =
100`` at 4096 ranks): the ``R_i`` are combined up a binary tree instead (``_tree``), ``T``
alone gathered. The argument above needs of ``R_B`` only that ``B = Q_B R_B`` with ``Q_B``
an isometry; the tree's root ``R`` is one (each node's ``[R_a; R_b] = Q_m R_m``, ``Q_B`` the
product of the block-diagonal ``Q_m``), so ``P = [T; R_B]`` gives the same factors of ``x``,
signs included, whichever way ``R_B`` was found.

A wide matrix (``M < N``) split along its columns is factored through its conjugate
transpose (split along rows): its proxy's conjugate transpose ``[T^H, R_B^H]`` gives
``gesdd``'s factors of ``x`` (the same argument on columns: ``gesdd`` takes an LQ of a wide
matrix first), ``Vh`` split like ``x``, ``U`` replicated. Every other layout goes through
``gathered`` (no message for replicated or batch-split stacks; the whole matrix on every rank
otherwise), where LAPACK factors the whole matrix.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, NamedTuple

import numpy as np

from .._array import Array, wrap_block
from .._layout import Layout
from .._movement.collectives import allgather_block, bcast_block, sendrecv_block
from ._common import QRResult, SVDResult, check_matrices, linalg_error
from ._gathered import gathered, place

__all__ = ["STACKED_ELEMENTS", "qr", "svd", "svdvals"]

# TSQR stacks every rank's R factor on every rank up to this many elements in all (``p N^2``
# per matrix: 32 MiB of float64, N = 100 up to about 400 ranks); beyond, a binary tree.
STACKED_ELEMENTS = 1 << 22


# -- NumPy's SVD on every backend --------------------------------------------------------------
def numpy_svd(block: Any, full_matrices: bool, backend: Any) -> tuple[Any, Any, Any]:
    """``np.linalg.svd`` (LAPACK ``gesdd``) of ``block`` as the backend's blocks: the singular
    vectors signed as NumPy signs them on every backend (MKL's ``gesdd``, under Torch, signs
    some differently). The block goes to the host and the factors back: no copy for NumPy
    and CPU Torch blocks. A failure raises the backend's ``LinAlgError``."""
    device = backend.device_of(block)
    try:
        factors = np.linalg.svd(backend.to_host(block), full_matrices=full_matrices)
    except np.linalg.LinAlgError as exc:
        error = linalg_error(backend)
        if error is np.linalg.LinAlgError:
            raise
        raise error(f"svd: {exc}") from exc
    return tuple(backend.from_host(f, device) for f in factors)  # type: ignore[return-value]


# -- TSQR --------------------------------------------------------------------------------------
def _tall_on_rows(x: Array) -> bool:
    return x.split == x.ndim - 2 and x.shape[-2] >= x.shape[-1] and x._comm.size > 1


def _wide_on_columns(x: Array, *, strict: bool) -> bool:
    m, n = x.shape[-2:]
    wide = m < n if strict else m <= n
    return x.split == x.ndim - 1 and wide and x._comm.size > 1


class Proxy(NamedTuple):
    """The small matrix ``p`` of the module's docstring (the same on every rank) and what
    maps a factor of it back to this rank's rows: ``top`` rows of it from row ``start``, then
    ``q_local @ (q_stack @ factor[n:])`` for the rank's other rows."""

    p: Any
    n: int
    start: int
    top: int
    q_local: Any
    q_stack: Any


def _allgather_rows(block: Any, rows: list[int], like: Array) -> list[np.ndarray]:
    """Every rank's ``block`` (``(..., rows[i], N)`` on rank i), the same list on every rank:
    the one message of TSQR (an ``allgatherv``), as host arrays."""
    batch, n = tuple(block.shape[:-2]), block.shape[-1]
    per_row = math.prod(batch) * n
    flat = allgather_block(block, [r * per_row for r in rows], like._comm, like._backend)
    bounds = list(itertools.accumulate((r * per_row for r in rows), initial=0))
    return [flat[a:b].reshape((*batch, r, n)) for a, b, r in zip(bounds, bounds[1:], rows)]


def tsqr(block: Any, counts: tuple[int, ...], like: Array) -> Proxy:
    """The proxy of the matrix whose rank-i rows are ``block`` (``counts[i]`` rows each, at
    least as many rows as columns in all): see the module's docstring. The ``R`` factors
    are stacked on every rank while there are at most ``STACKED_ELEMENTS`` of them in all,
    else combined up a binary tree (``_tree``)."""
    backend, rank = like._backend, like._comm.rank
    xp, device, n = backend.xp, backend.device_of(block), block.shape[-1]
    starts = list(itertools.accumulate(counts, initial=0))[:-1]
    tops = [max(0, min(c, n - s)) for c, s in zip(counts, starts)]
    ks = [min(c - t, n) for c, t in zip(counts, tops)]
    t = tops[rank]
    q_local, r_local = xp.linalg.qr(block[..., t:, :])
    if sum(ks) * n * math.prod(block.shape[:-2]) > STACKED_ELEMENTS:
        parts = _allgather_rows(block[..., :t, :], tops, like)
        top = backend.from_host(np.concatenate(parts, axis=-2), device)
        r_b, q_stack = _tree(r_local, ks, like)
        return Proxy(xp.concat([top, r_b], axis=-2), n, starts[rank], t, q_local, q_stack)
    sent = xp.concat([block[..., :t, :], r_local], axis=-2)
    parts = _allgather_rows(sent, [a + b for a, b in zip(tops, ks)], like)
    top = np.concatenate([part[..., :a, :] for part, a in zip(parts, tops)], axis=-2)
    stack = np.concatenate([part[..., a:, :] for part, a in zip(parts, tops)], axis=-2)
    q_s, r_b = xp.linalg.qr(backend.from_host(stack, device))
    p = xp.concat([backend.from_host(top, device), r_b], axis=-2)
    lo = sum(ks[:rank])
    return Proxy(p, n, starts[rank], t, q_local, q_s[..., lo : lo + ks[rank], :])


def _tree(r_local: Any, ks: list[int], like: Array) -> tuple[Any, Any]:
    """``R_B`` (on every rank) and this rank's rows of ``Q_S`` for the ranks' ``R`` factors
    (``ks[i]`` rows on rank i) combined up a binary tree rooted at rank 0.

    Upward, at distance ``d = 1, 2, 4, ...``: rank ``r + d`` (``r`` a multiple of ``2d``)
    sends its subtree's ``R`` to rank ``r``, which factors the two stacked, in rank order
    (``[R_a; R_b] = Q_m R_m``; a side without rows is taken as it is). ``R_m`` is an ``R``
    of the stacked rows of both subtrees, so the root's is an ``R_B`` with ``B = Q_B R_B``
    and ``Q_B`` an isometry: all the module docstring's argument needs, the same ``x``
    factors whatever the tree. One broadcast gives every rank the root's ``R_B``.
    Downward, each node's rows ``F`` of ``Q_S`` (the identity at the root) split as
    ``Q_m[:k_a] F`` kept and ``Q_m[k_a:] F`` sent to rank ``r + d``. Messages: at most
    ``2 ceil(log2 p)`` sendrecvs of ``N x N`` per rank and one broadcast, where stacking
    receives ``p N x N`` and factors ``p N x N`` on every rank."""
    backend, comm = like._backend, like._comm
    xp, device, p, me = backend.xp, backend.device_of(r_local), comm.size, comm.rank
    batch, n = tuple(r_local.shape[:-2]), r_local.shape[-1]
    dtype = backend.dtype_of(r_local)
    prefix = list(itertools.accumulate(ks, initial=0))

    def rows(lo: int, hi: int) -> int:  # the rows of the R of ranks lo..hi-1's subtree
        return min(prefix[min(hi, p)] - prefix[lo], n)

    def nothing(cols: int) -> Any:
        return backend.empty((*batch, 0, cols), dtype, device)

    r, merges, parent, d = r_local, [], None, 1
    while d < p:
        if me % (2 * d) == d:  # send this subtree's R up; done going up
            sendrecv_block(r, me - d, (*batch, 0, n), me - d, comm, backend, device)
            parent = d
            break
        if me + d < p:
            k_b = rows(me + d, me + 2 * d)
            other = sendrecv_block(
                nothing(n), me + d, (*batch, k_b, n), me + d, comm, backend, device
            )
            k_a, q_m = r.shape[-2], None
            if k_a and k_b:
                q_m, r = xp.linalg.qr(xp.concat([r, other], axis=-2))
            elif k_b:
                r = other
            merges.append((d, k_a, q_m))
        d *= 2
    k_root = rows(0, p)
    r_b = bcast_block(r, (*batch, k_root, n), dtype, 0, comm, backend, device)
    if parent is None:  # the root
        f = xp.broadcast_to(
            backend.from_host(np.eye(k_root, dtype=dtype), device), (*batch, k_root, k_root)
        )
    else:
        shape = (*batch, r.shape[-2], k_root)
        f = sendrecv_block(nothing(k_root), me - parent, shape, me - parent, comm, backend, device)
    for d, k_a, q_m in reversed(merges):
        if q_m is not None:
            f, f_b = xp.matmul(q_m[..., :k_a, :], f), xp.matmul(q_m[..., k_a:, :], f)
        else:
            f, f_b = (f, nothing(k_root)) if k_a else (nothing(k_root), f)
        sendrecv_block(f_b, me + d, (*batch, 0, k_root), me + d, comm, backend, device)
    return r_b, f


def rows_of(factor: Any, proxy: Proxy, xp: Any) -> Any:
    """This rank's rows of ``(I + Q_B) factor`` for ``factor`` with the proxy's rows."""
    head = factor[..., proxy.start : proxy.start + proxy.top, :]
    tail = xp.matmul(proxy.q_local, xp.matmul(proxy.q_stack, factor[..., proxy.n :, :]))
    return xp.concat([head, tail], axis=-2)


# -- qr ----------------------------------------------------------------------------------------
def qr(x: Array, /, *, mode: str = "reduced") -> QRResult:
    """The standard's ``qr``: the backend's Householder QR of the whole matrix (NumPy's
    ``np.linalg.qr`` on NumPy blocks), ``R``'s diagonal signs included.

    A tall-skinny matrix split along its rows (``mode='reduced'``, or a square one): TSQR,
    one ``allgatherv`` of small pieces (see the module's docstring); ``Q`` split like ``x``,
    ``R`` replicated. Replicated or batch-split stacks: local. Otherwise (``'complete'`` on a
    tall matrix, a wide one split on rows, any split along columns) the matrix is gathered
    (memory: all of ``x`` on every rank); ``Q`` is then split like ``x``'s rows, ``R`` like
    its columns.
    """
    check_matrices(x, "qr")
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    xp = x._backend.xp
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    if _tall_on_rows(x) and (mode == "reduced" or m == n):
        proxy = tsqr(x._local, x.counts, x)
        q_p, r = xp.linalg.qr(proxy.p)
        q_layout = Layout((*batch, m, n), x.ndim - 2, x.counts)
        return QRResult(
            wrap_block(rows_of(q_p, proxy, xp), q_layout, x),
            wrap_block(r, Layout.replicated((*batch, n, n)), x),
        )
    (q, r), work = gathered(x, "qr", lambda b: xp.linalg.qr(b, mode=mode), may_fail=False)
    k = m if mode == "complete" else min(m, n)
    return QRResult(
        place(q, work, x, (*batch, m, k), {-2: -2}), place(r, work, x, (*batch, k, n), {-1: -1})
    )


# -- svd ---------------------------------------------------------------------------------------
def _conj_t(a: Any, xp: Any) -> Any:
    return xp.conj(xp.matrix_transpose(a))


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """The standard's ``svd`` as ``(U, S, Vh)``: NumPy's ``np.linalg.svd`` of the whole
    matrix on every backend, the singular vectors' signs included (the SVD runs on the host).

    Reduced factors (``full_matrices=False``, or a square matrix) of a tall-skinny matrix
    split along its rows: TSQR (one ``allgatherv`` of small pieces), ``U`` split like
    ``x``, ``S`` and ``Vh`` replicated; of a wide matrix split along its columns: the same
    on its conjugate transpose, ``Vh`` split like ``x``, ``U`` and ``S`` replicated.
    Replicated or batch-split stacks: local. Otherwise the matrix is gathered (memory: all
    of ``x``, and the full ``U`` or ``Vh``, on every rank); ``U`` is then split like ``x``'s
    rows and ``Vh`` like its columns.
    """
    check_matrices(x, "svd")
    if not isinstance(full_matrices, bool):
        raise TypeError(f"svd: full_matrices must be a bool, got {full_matrices!r}")
    backend = x._backend
    xp = backend.xp
    m, n = x.shape[-2:]
    k, batch, nd = min(m, n), x.shape[:-2], x.ndim
    reduced = not full_matrices or m == n
    rep = Layout.replicated
    if reduced and _tall_on_rows(x):  # x = (I + Q_B) P = (I + Q_B) U_P S Vh
        proxy = tsqr(x._local, x.counts, x)
        u_p, s, vh = numpy_svd(proxy.p, False, backend)
        u_layout = Layout((*batch, m, k), nd - 2, x.counts)
        return SVDResult(
            wrap_block(rows_of(u_p, proxy, xp), u_layout, x),
            wrap_block(s, rep(s.shape), x),
            wrap_block(vh, rep(vh.shape), x),
        )
    if reduced and _wide_on_columns(x, strict=True):  # x = P^H (I + Q_B)^H = U S Vh_P (...)^H
        proxy = tsqr(_conj_t(x._local, xp), x.counts, x)
        u, s, vh_p = numpy_svd(_conj_t(proxy.p, xp), False, backend)
        vh = _conj_t(rows_of(_conj_t(vh_p, xp), proxy, xp), xp)
        vh_layout = Layout((*batch, k, n), nd - 1, x.counts)
        return SVDResult(
            wrap_block(u, rep(u.shape), x),
            wrap_block(s, rep(s.shape), x),
            wrap_block(vh, vh_layout, x),
        )
    (u, s, vh), work = gathered(x, "svd", lambda b: numpy_svd(b, full_matrices, backend))
    ucols, vrows = (m, n) if full_matrices else (k, k)
    return SVDResult(
        place(u, work, x, (*batch, m, ucols), {-2: -2}),
        place(s, work, x, (*batch, k)),
        place(vh, work, x, (*batch, vrows, n), {-1: -1}),
    )


def svdvals(x: Array, /) -> Array:
    """The standard's ``svdvals`` (descending), replicated or split like a batch-split
    stack. A tall-skinny matrix split along its rows, or a wide one along its columns: TSQR
    (of ``x`` or of its transpose), one ``allgatherv`` of small pieces, and the singular
    values of the small proxy. Other matrices split along a matrix axis are gathered
    (memory: all of ``x`` on every rank)."""
    check_matrices(x, "svdvals")
    xp = x._backend.xp
    block = None
    if _tall_on_rows(x):
        block = x._local
    elif _wide_on_columns(x, strict=False):
        block = xp.matrix_transpose(x._local)
    if block is not None:
        s = xp.linalg.svdvals(tsqr(block, x.counts, x).p)
        return wrap_block(s, Layout.replicated(s.shape), x)
    s, work = gathered(x, "svdvals", xp.linalg.svdvals)
    return place(s, work, x, (*x.shape[:-2], min(x.shape[-2:])))
