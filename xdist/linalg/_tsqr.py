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
costs ``p N^2`` received and a QR of ``p N x N`` on every rank, both growing with the rank
count (docs/scaling.md gives them for ``N = 100`` at 4096 ranks): the ``R_i`` are combined up
a binary tree instead (``_tree``), ``T`` alone gathered. The argument above needs of
``R_B`` only that ``B = Q_B R_B`` with ``Q_B`` an isometry; the tree's root ``R`` is one
(each node's ``[R_a; R_b] = Q_m R_m``, ``Q_B`` the product of the block-diagonal ``Q_m``),
so ``P = [T; R_B]`` gives the same factors of ``x``, signs included, whichever way ``R_B``
was found.

A wide matrix (``M < N``) split along its columns is factored through its conjugate
transpose (split along rows): its proxy's conjugate transpose ``[T^H, R_B^H]`` gives
``gesdd``'s factors of ``x`` (the same argument on columns: ``gesdd`` takes an LQ of a wide
matrix first), ``Vh`` split like ``x``, ``U`` replicated. Every other layout goes through
``gathered`` (no message for replicated or batch-split stacks; the whole matrix on every rank
otherwise), where LAPACK factors the whole matrix.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, NamedTuple

import numpy as np

from .._array import Array, wrap_block
from .._deferred import deferred
from .._layout import Layout
from .._movement.collectives import (
    allgather_block,
    allreduce_block,
    allreduce_host,
    bcast_block,
    sendrecv_block,
)
from .._pending import kept, read_later
from ..backends import Backend
from ._common import QRResult, SVDResult, check_matrices, linalg_error
from ._gathered import gathered, place

__all__ = ["STACKED_ELEMENTS", "qr", "svd", "svdvals"]

# TSQR stacks every rank's R factor on every rank up to this many elements in all (``p N^2``
# per matrix: 32 MiB of float64, N = 100 up to about 400 ranks); beyond, a binary tree.
STACKED_ELEMENTS = 1 << 22


# -- NumPy's SVD on every backend --------------------------------------------------------------
def numpy_svd(block: Any, full_matrices: bool, backend: Backend) -> tuple[Any, Any, Any]:
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
    # ``q_local`` is a view of the factored block (one Cholesky QR pass: ``Q_i = B_i R^{-1}``
    # is never formed), not memory ``tsqr`` allocated
    borrowed: bool = False


def _allgather_rows(block: Any, rows: list[int], like: Array) -> list[np.ndarray]:
    """Every rank's ``block`` (``(..., rows[i], N)`` on rank i), the same list on every rank:
    the one message of TSQR (an ``allgatherv``), as host arrays."""
    return _gather_rows(block, rows, like._comm, like._backend)


def _gather_rows(block: Any, rows: list[int], comm: Any, backend: Backend) -> list[np.ndarray]:
    """``_allgather_rows`` on ``comm`` (``None``: one block is the whole matrix, no message)."""
    if comm is None:
        return [np.asarray(backend.to_host(block))]
    batch, n = tuple(block.shape[:-2]), block.shape[-1]
    per_row = math.prod(batch) * n
    flat = allgather_block(block, [r * per_row for r in rows], comm, backend)
    bounds = list(itertools.accumulate((r * per_row for r in rows), initial=0))
    return [flat[a:b].reshape((*batch, r, n)) for a, b, r in zip(bounds, bounds[1:], rows)]


def tsqr(block: Any, counts: tuple[int, ...], like: Array) -> Proxy:
    """The proxy of the matrix whose rank-i rows are ``block`` (``counts[i]`` rows each, at
    least as many rows as columns in all): see the module's docstring. Cholesky QR
    (``cholesky_proxy``) where it is as accurate as Householder's, else Householder TSQR
    (``householder_proxy``). Every rank takes the same branch: the decision reads only the
    Gram matrices, which every rank sums alike."""
    found = cholesky_proxy(block, counts, like._backend, like._comm)
    return found if found is not None else householder_proxy(block, counts, like)


def _starts_tops(counts: tuple[int, ...], n: int) -> tuple[list[int], list[int]]:
    """Each rank's first row, and how many of its rows are among the matrix's first ``n``."""
    starts = list(itertools.accumulate(counts, initial=0))[:-1]
    return starts, [max(0, min(c, n - s)) for c, s in zip(counts, starts)]


def householder_proxy(block: Any, counts: tuple[int, ...], like: Array) -> Proxy:
    """The proxy by Householder TSQR: each rank's rows below the first ``N`` travel as the
    ``R`` of their local QR, stacked on every rank while there are at most
    ``STACKED_ELEMENTS`` of them in all, else combined up a binary tree (``_tree``)."""
    backend, rank = like._backend, like._comm.rank
    xp, device, n = backend.xp, backend.device_of(block), block.shape[-1]
    starts, tops = _starts_tops(counts, n)
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


# -- Cholesky QR -------------------------------------------------------------------------------
# Rows per chunk of a single-precision block whose Gram matrix is summed in double precision:
# about 512 KiB of float64 per chunk (in cache while it is multiplied).
_CHUNK_ELEMENTS = 1 << 16


def _wide(dtype: np.dtype) -> np.dtype:
    """The double-precision dtype in which Gram matrices of ``dtype`` blocks are summed."""
    return np.dtype("complex128") if dtype.kind == "c" else np.dtype("float64")


def _gram(a: Any, backend: Backend) -> Any:
    """``a^H a`` (a stack allowed) in double precision, on ``a``'s device: BLAS's ``syrk``/
    ``gemm`` of the block, or of chunks of rows converted to double (single precision)."""
    xp, dtype = backend.xp, backend.dtype_of(a)
    wide = _wide(dtype)

    def product(c: Any) -> Any:  # c^H c (no conjugate copy of a real block)
        return xp.matmul(_conj_t(c, xp) if dtype.kind == "c" else xp.matrix_transpose(c), c)

    if dtype == wide:
        return product(a)
    native = backend.native_dtype(wide)
    rows, n = a.shape[-2], a.shape[-1]
    step = max(1, _CHUNK_ELEMENTS // max(1, n))
    total = None
    for lo in range(0, max(rows, 1), step):
        g = product(xp.astype(a[..., lo : lo + step, :], native))
        total = g if total is None else total + g
    return total


def _upper_cholesky(g: np.ndarray) -> np.ndarray | None:
    """``R`` upper triangular with a positive diagonal and ``R^H R = g`` (every matrix of a
    stack), or ``None`` where ``g`` is not numerically positive definite."""
    try:
        lower = np.linalg.cholesky(g)
    except np.linalg.LinAlgError:
        return None
    if not np.isfinite(lower).all():
        return None
    return _conj_t(lower, np)


def _condition(r: np.ndarray) -> float:
    """The largest 2-norm condition number of the triangular factors in ``r``."""
    s = np.linalg.svd(r, compute_uv=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = s[..., 0] / s[..., -1]
    return float(np.max(np.where(np.isnan(ratio), np.inf, ratio), initial=1.0))


def _summed_grams(
    g: Any, rows: Any, tops: list[int], comm: Any, backend: Backend
) -> tuple[np.ndarray, np.ndarray | None]:
    """Every rank's Gram matrix ``g`` summed in rank order, the same on every rank, and with
    ``rows`` (this rank's rows among the matrix's first ``N``, or ``None``) the first ``N``
    rows of the matrix: one ``allgatherv``, both in double precision (exact for the rows).
    Past ``STACKED_ELEMENTS`` of Gram matrices in all, one ``allreduce`` of them (and an
    ``allgatherv`` of the rows). ``comm`` ``None``: this block is the whole matrix."""
    batch, n = tuple(g.shape[:-2]), g.shape[-1]
    p = 1 if comm is None else comm.size
    top = None
    if comm is not None and p * n * n * math.prod(batch) > STACKED_ELEMENTS:
        if rows is not None:
            top = np.concatenate(_gather_rows(rows, tops, comm, backend), axis=-2)
        return allreduce_host(backend.to_host(g), "sum", comm), top
    if rows is None:
        parts = _gather_rows(g, [n] * p, comm, backend)
    else:
        rows = backend.xp.astype(rows, backend.native_dtype(backend.dtype_of(g)))
        parts = _gather_rows(
            backend.xp.concat([rows, g], axis=-2), [t + n for t in tops], comm, backend
        )
        top = np.concatenate([part[..., :t, :] for part, t in zip(parts, tops)], axis=-2)
        parts = [part[..., t:, :] for part, t in zip(parts, tops)]
    return functools.reduce(np.add, parts), top


def cholesky_proxy(
    block: Any, counts: tuple[int, ...], backend: Backend, comm: Any
) -> Proxy | None:
    """The proxy with ``R_B`` by Cholesky QR of the rows below the first ``N`` (``B``), or
    ``None`` (before any message) where ``B`` has fewer than ``N`` rows, or (after the Gram
    matrices) where ``B`` is too ill-conditioned for it: the caller then takes Householder's.

    CholeskyQR2 (Yamamoto, Nakatsukasa, Yanagisawa, Fukaya 2015): ``G = B^H B = R_1^H R_1``,
    ``Q_1 = B R_1^{-1}``, then once more on ``Q_1``: ``Q_1^H Q_1 = R_2^H R_2``, so that
    ``B = (Q_1 R_2^{-1}) (R_2 R_1)``. One Cholesky QR loses orthogonality as ``u kappa(B)^2``;
    the second starts from ``Q_1``, whose condition number is near 1, and leaves ``Q`` as
    orthogonal and ``R`` as accurate as Householder's, for ``kappa(B)`` up to about
    ``u^{-1/2}`` (``u`` the unit roundoff of the Gram matrices). Past ``_PLAIN_LIMIT`` the
    first step is shifted (shifted CholeskyQR3, Fukaya, Kannan, Nakatsukasa, Zhang, Yamamoto
    2020): ``G + s I`` with ``s = 11 (m N + N (N + 1)) u ||B||_F^2`` always has a Cholesky
    factor and makes ``kappa(Q_1)`` at most about ``u^{-1/2}``, then CholeskyQR2 of ``Q_1``:
    accurate for ``kappa(B)`` up to about ``u^{-1}``. The Gram matrices are summed in double
    precision (single-precision blocks by chunks converted to double); ``Q_1 = B R_1^{-1}``
    is one product with ``R_1``'s inverse for a double-precision block, a triangular solve
    in the block's precision for a single-precision one (``_times_inverse``); the last
    factor must be nearly orthogonal already (``kappa(R_last) <= 2``), or the matrix is
    given to Householder. A well-conditioned ``B`` (``kappa(R_1) <= _ONE_PASS_LIMIT``) takes
    one Cholesky QR: ``R_B = R_1``, and ``Q_i = B_i R_1^{-1}`` is not formed: the proxy holds
    ``B_i`` itself (``borrowed``) and ``R_1^{-1}`` as ``q_stack``, so that a factor's rows
    are ``B_i (R_1^{-1} F)``, one product, and ``U^T y`` is ``(R_1^{-1} F)^H (B_i^H y)``.

    Passes over the rows: one ``syrk`` (a well-conditioned ``B``), else, per further step,
    one product (or triangular solve) and one ``syrk`` (two BLAS-3 passes for CholeskyQR2,
    against Householder's ``geqrf`` and forming ``Q``); messages: one ``allgatherv`` per
    Gram matrix (``N^2`` elements per rank, the first ``N`` rows of the matrix riding along
    with the first). ``comm`` ``None``: ``block`` is the whole matrix (``counts == (M,)``), factored
    with no message.
    """
    xp, device, n = backend.xp, backend.device_of(block), block.shape[-1]
    rank = 0 if comm is None else comm.rank
    dtype, m = backend.dtype_of(block), sum(counts)
    if m - n < n or n == 0:
        return None
    starts, tops = _starts_tops(counts, n)
    t = tops[rank]
    b = block[..., t:, :]
    u = np.finfo(_wide(dtype)).eps / 2
    g, top = _summed_grams(_gram(b, backend), block[..., :t, :], tops, comm, backend)
    r1 = _upper_cholesky(g)
    condition = np.inf if r1 is None else _condition(r1)
    if condition <= _ONE_PASS_LIMIT:  # B R_1^{-1} as orthogonal as Householder's Q
        q_stack = backend.from_host(np.linalg.inv(r1).astype(dtype), device)
        p = xp.concat([backend.from_host(f.astype(dtype), device) for f in (top, r1)], axis=-2)
        return Proxy(p, n, starts[rank], t, b, q_stack, borrowed=True)
    shifted = condition > _plain_limit(n, dtype)
    if shifted:
        trace = np.trace(g, axis1=-2, axis2=-1).real.max(initial=0.0)
        shift = 11 * ((m - n) * n + n * (n + 1)) * u * trace
        r1 = _upper_cholesky(g + shift * np.eye(n))
        if r1 is None:
            return None
    factors = [r1]
    q = _times_inverse(b, r1, backend)
    for step in range(2 if shifted else 1):
        g, _ = _summed_grams(_gram(q, backend), None, tops, comm, backend)
        r = _upper_cholesky(g)
        last = step == (1 if shifted else 0)
        if r is None or _condition(r) > (2 if last else _plain_limit(n, dtype)):
            return None
        factors.append(r)
        if not last:
            q = _times_inverse(q, r, backend)
    r_b = functools.reduce(lambda acc, f: np.matmul(f, acc), factors)
    p = xp.concat([backend.from_host(f.astype(dtype), device) for f in (top, r_b)], axis=-2)
    q_stack = backend.from_host(np.linalg.inv(factors[-1]).astype(dtype), device)
    return Proxy(p, n, starts[rank], t, q, q_stack)


def _times_inverse(b: Any, r: np.ndarray, backend: Backend) -> Any:
    """``b r^{-1}`` (``r`` upper triangular, on the host in double precision). A double-
    precision block takes one product with ``r``'s inverse: GEMM, where a triangular solve is
    1.3-3.5x slower (OpenBLAS, 500000 rows at one thread: 16 columns 9 against 33 ms, 100
    columns 285 against 438 ms). The computed inverse ``X`` has ``X r = I + E`` with ``|E|``
    of order ``u |X| |r|`` (Higham, ch. 14), so ``b X = (b r^{-1}) (I + E)``: a change of
    basis of the exact ``Q``, which loses orthogonality as ``u kappa(r)``, the order of a
    triangular solve's rows' backward errors, and which the next Cholesky QR step measures
    and removes (200000 x 16, condition numbers 1e2 to 1e13: ``|Q^T Q - I|`` 5-9 u and
    ``|QR - A|`` 74-99 u, as with the solve; LAPACK's 4-7 u and 98-157 u). A single-precision
    block keeps the triangular solve: an inverse rounded to single precision left ``QR - A``
    at 2.5-6.5 of its units, against the solve's 0.7-1.1 and LAPACK's 0.4-0.7."""
    xp, device, dtype = backend.xp, backend.device_of(b), backend.dtype_of(b)
    if dtype != _wide(dtype):
        return backend.solve_upper_right(b, backend.from_host(r.astype(dtype), device))
    return xp.matmul(b, backend.from_host(np.linalg.inv(r), device))


# The largest condition number of the first Cholesky factor for which one Cholesky QR pass
# is taken: ``Q = B R_1^{-1}`` loses orthogonality as ``u kappa^2`` (of the Gram matrix's
# rounding), at most 64 u here, and ``B - Q R_1`` is at rounding level whatever ``kappa``.
# Measured on 1,000,000 x 16 float64 (``|Q^T Q - I|`` largest entry): 4.7e-15, 4.4e-15,
# 8.9e-15, 8.7e-15 at kappa 1, 2, 4, 8, against 3.3e-15, 2.9e-15, 3.8e-15, 2.6e-15 for
# LAPACK's Householder Q (``np.linalg.qr``), whose reconstruction errs 100 times more; a
# float32 block's Q (its Gram matrix in double) is orthogonal to a few of its own units.
_ONE_PASS_LIMIT = 8.0


def _plain_limit(n: int, dtype: np.dtype) -> float:
    """The largest condition number of a first Cholesky factor for which CholeskyQR2 needs
    no shift: ``u kappa^2`` small beside ``1 / (64 N)`` for the Gram matrix (double
    precision), and the triangular solve's forward error (``u kappa`` in the block's
    precision) at most 5%."""
    u_gram = np.finfo(np.float64).eps / 2
    u_block = np.finfo(dtype).eps / 2
    return min(1 / math.sqrt(64 * max(n, 1) * u_gram), 0.05 / u_block)


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


def rows_of(factor: Any, proxy: Proxy, backend: Backend) -> Any:
    """This rank's rows of ``(I + Q_B) factor`` for ``factor`` with the proxy's rows: the
    product of its rows below the first ``N`` written into the result in place (no concat
    of the whole block)."""
    xp = backend.xp
    small = xp.matmul(proxy.q_stack, factor[..., proxy.n :, :])
    if proxy.top == 0:
        return xp.matmul(proxy.q_local, small)
    head = factor[..., proxy.start : proxy.start + proxy.top, :]
    rows = proxy.top + proxy.q_local.shape[-2]
    shape = (*small.shape[:-2], rows, small.shape[-1])
    out = backend.empty(shape, backend.dtype_of(small), backend.device_of(small))
    out[..., : proxy.top, :] = head
    backend.matmul_into(proxy.q_local, small, out[..., proxy.top :, :])
    return out


def _private(proxy: Proxy, block: Any, backend: Backend) -> Proxy:
    """``proxy`` with a ``q_local`` that no one can write before a deferred factor reads it:
    a borrowed view of ``block`` as it is where ``block`` is xdist's own memory (``kept``:
    xdist settles the deferred factor before it writes there), else a copy of that view."""
    if not proxy.borrowed or kept(block):
        return proxy
    return proxy._replace(q_local=backend.xp.asarray(proxy.q_local, copy=True), borrowed=False)


def deferred_rows(factor: Any, proxy: Proxy, layout: Layout, like: Array) -> Array:
    """The array whose blocks are ``rows_of(factor, proxy)`` (``svd``'s ``U``), formed on
    first use (``xdist/_deferred.py``). ``U.T @ y`` with ``y`` laid out as ``U``'s rows is
    taken without forming ``U``: ``factor``'s rows among the first ``N`` times ``y``'s, plus
    ``(Q_S F)^T (Q_i^T y)`` for the rank's other rows (``F`` the factor's rows below ``N``),
    summed over the ranks by one ``allreduce``, as the eager product sums its parts. ``make``
    holds only the proxy: its ``q_local`` is memory ``tsqr`` allocated, or (``borrowed``,
    ``_private``) rows of the factored block that only xdist can write, and the result is
    then noted as reading them (``_pending.read_later``): ``settle``, which runs before xdist
    writes into that block or hands it out, forms it while the rows hold the factored
    values."""
    backend = like._backend
    xp = backend.xp
    dtype, device = backend.dtype_of(factor), backend.device_of(factor)

    def transpose_left(other: Array) -> Array | None:
        if (
            other.ndim not in (1, 2)
            or other._layout.split != layout.split
            or other._layout.counts != layout.counts
            or other.dtype != dtype
            or other.device != device
        ):
            return None
        y = other._local
        small = xp.matmul(proxy.q_stack, factor[proxy.n :, :])
        part = xp.matmul(
            xp.matrix_transpose(small),
            xp.matmul(xp.matrix_transpose(proxy.q_local), y[proxy.top :, ...]),
        )
        if proxy.top:
            head = factor[proxy.start : proxy.start + proxy.top, :]
            part = part + xp.matmul(xp.matrix_transpose(head), y[: proxy.top, ...])
        comm = like._comm
        if layout.split is not None and comm.size > 1:
            part = allreduce_block(part, "sum", comm, backend)
        return Array._new(part, Layout.replicated(tuple(part.shape)), comm, backend)

    u = deferred(
        lambda: rows_of(factor, proxy, backend),
        layout,
        like,
        dtype,
        device,
        transpose_left=transpose_left,
    )
    if proxy.borrowed:
        read_later(u, proxy.q_local)
    return u


# -- whole matrices on one rank ----------------------------------------------------------------
def _local_proxy(block: Any, backend: Backend) -> Proxy | None:
    """The Cholesky QR proxy of whole matrices (no message) where they have at least twice
    as many rows as columns: its factors cost a few BLAS-3 passes over ``block`` where
    LAPACK's Householder QR and ``gesdd`` of a tall matrix are bound by BLAS-2 panels."""
    m, n = block.shape[-2:]
    return cholesky_proxy(block, (m,), backend, None) if m >= 2 * n else None


def _local_qr(block: Any, mode: str, backend: Backend) -> tuple[Any, Any]:
    proxy = _local_proxy(block, backend) if mode == "reduced" else None
    if proxy is None:
        return backend.xp.linalg.qr(block, mode=mode)
    q_p, r = backend.xp.linalg.qr(proxy.p)
    return rows_of(q_p, proxy, backend), r


def _local_svd(block: Any, full_matrices: bool, backend: Backend) -> tuple[Any, Any, Any]:
    proxy = _local_proxy(block, backend) if not full_matrices else None
    if proxy is None:
        return numpy_svd(block, full_matrices, backend)
    u_p, s, vh = numpy_svd(proxy.p, False, backend)
    return rows_of(u_p, proxy, backend), s, vh


def _local_svdvals(block: Any, backend: Backend) -> Any:
    proxy = _local_proxy(block, backend)
    return backend.xp.linalg.svdvals(block if proxy is None else proxy.p)


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
            wrap_block(rows_of(q_p, proxy, x._backend), q_layout, x),
            wrap_block(r, Layout.replicated((*batch, n, n)), x),
        )
    (q, r), work = gathered(x, "qr", lambda b: _local_qr(b, mode, x._backend), may_fail=False)
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
    proxy = None
    if reduced and _tall_on_rows(x):  # x = (I + Q_B) P = (I + Q_B) U_P S Vh
        proxy = tsqr(x._local, x.counts, x)
        u_layout = Layout((*batch, m, k), nd - 2, x.counts)
    elif reduced and nd == 2 and x._comm.size == 1 and x.split in (0, None):
        proxy = _local_proxy(x._local, backend)  # None: not twice as tall as wide
        u_layout = x._layout.with_shape((m, k), x.split)
    if proxy is not None:
        u_p, s, vh = numpy_svd(proxy.p, False, backend)
        if nd == 2:
            u = deferred_rows(u_p, _private(proxy, x._local, backend), u_layout, x)
        else:
            u = wrap_block(rows_of(u_p, proxy, backend), u_layout, x)
        return SVDResult(u, wrap_block(s, rep(s.shape), x), wrap_block(vh, rep(vh.shape), x))
    if reduced and _wide_on_columns(x, strict=True):  # x = P^H (I + Q_B)^H = U S Vh_P (...)^H
        proxy = tsqr(_conj_t(x._local, xp), x.counts, x)
        u, s, vh_p = numpy_svd(_conj_t(proxy.p, xp), False, backend)
        vh = _conj_t(rows_of(_conj_t(vh_p, xp), proxy, backend), xp)
        vh_layout = Layout((*batch, k, n), nd - 1, x.counts)
        return SVDResult(
            wrap_block(u, rep(u.shape), x),
            wrap_block(s, rep(s.shape), x),
            wrap_block(vh, vh_layout, x),
        )
    (u, s, vh), work = gathered(x, "svd", lambda b: _local_svd(b, full_matrices, backend))
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
    s, work = gathered(x, "svdvals", lambda b: _local_svdvals(b, x._backend))
    return place(s, work, x, (*x.shape[:-2], min(x.shape[-2:])))
