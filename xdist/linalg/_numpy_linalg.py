"""NumPy's ``linalg.norm`` and ``linalg.lstsq``, beyond the standard.

``norm`` is the standard's ``vector_norm`` or ``matrix_norm`` chosen by NumPy's rules for
``ord`` and ``axis``, so it sends what they send: one ``allreduce`` where the split axis is
reduced (the 2 / -2 / 'nuc' matrix norms: ``svdvals``'s TSQR).

``lstsq`` solves a tall matrix split along its rows without gathering it, from its thin QR by
TSQR (``qr``: ``a = Q R``, ``Q`` split like ``a``, ``R`` replicated). Since ``Q`` has
orthonormal columns, ``a``'s pseudo-inverse is ``R^+ Q^H``, and with ``R = U S Vh`` (a small
SVD, the same on every rank) the minimum-norm least-squares solution is

    x = Vh^H S^+ U^H (Q^H b)        S^+: 1/s where s > rcond * s_max, else 0

which is NumPy's (LAPACK ``gelsd``'s) answer for full-rank and rank-deficient ``a`` alike;
``s`` are ``a``'s singular values and their count above the cut-off its rank.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import _elementwise_functions as ew
from .. import _statistical_functions as stats
from .._array import Array, replicated_operand, wrap_block
from .._data_type_functions import astype
from .._distribution_functions import resplit
from .._layout import Layout
from .._linear_algebra_functions import matmul, matrix_transpose
from .._manipulation_functions import moveaxis, reshape, squeeze
from .._validation import check_array, normalize_axis
from ._common import check_matrices, real_dtype
from ._norms import matrix_norm, vector_norm
from ._tsqr import qr

__all__ = ["lstsq", "norm"]


def norm(x: Array, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Array:
    """NumPy's ``linalg.norm`` (xdist's extension). ``axis=None``: the 2-norm of all elements
    for ``ord=None``, else the vector norm of a 1-D ``x`` or the matrix norm of a 2-D one; an
    int ``axis``: vector norms (``ord`` any real, default 2); two axes: matrix norms (``'fro'``
    default, ``'nuc'``, ±1, ±2, ±inf). Integer and boolean ``x`` in the default floating dtype.
    Communication of ``vector_norm``/``matrix_norm``: none unless the split axis is reduced,
    then one ``allreduce``; the 2 / -2 / 'nuc' matrix norms: ``svdvals``'s TSQR, after one
    all-to-all for a tall matrix split along its columns (a wide one along its rows)."""
    check_array(x, "norm")
    if not isinstance(keepdims, bool):
        raise TypeError(f"norm: keepdims must be a bool, got {keepdims!r}")
    if x.dtype.kind in "biu":
        x = astype(x, x._backend.default_dtypes()["real floating"])
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        if x.ndim not in (1, 2):
            raise ValueError(f"norm: ord={ord!r} needs a 1-D or 2-D x or an axis, got {x.ndim}-D")
        axis = tuple(range(x.ndim))
    # In the order given: (1, 0) is the transposed matrix's norm.
    axes = tuple(
        normalize_axis(a, x.ndim, "norm") for a in (axis if isinstance(axis, tuple) else (axis,))
    )
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
        return vector_norm(x, axis=axes[0], keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axes) != 2 or axes[0] == axes[1]:
        raise ValueError(f"norm: axis must be an int or two different axes, got {axis!r}")
    y = moveaxis(x, axes, (-2, -1))
    if ord in (2, -2, "nuc") and y.split is not None and y.split >= y.ndim - 2:
        # The singular values by TSQR: a tall matrix split along its rows, a wide one along
        # its columns (one all-to-all to get there), never gathered.
        rows = y.shape[-2] >= y.shape[-1]
        y = resplit(y, y.ndim - 2 if rows else y.ndim - 1)
    mat = matrix_norm(y, keepdims=True, ord="fro" if ord is None else ord)
    return moveaxis(mat, (-2, -1), axes) if keepdims else squeeze(mat, axis=(-2, -1))


class LstsqResult(NamedTuple):
    x: Array
    residuals: Array
    rank: int
    s: Array


def lstsq(a: Array, b: Any, rcond: float | None = None) -> LstsqResult:
    """NumPy's ``linalg.lstsq`` (xdist's extension): the minimum-norm ``x`` minimizing
    ``||b - a x||`` for a tall ``a`` (``M >= N``), and NumPy's ``(x, residuals, rank, s)``:
    ``residuals`` the squared 2-norm of each column of ``b - a x`` (shape ``(K,)``, ``(1,)``
    for a 1-D ``b``; empty when the rank is below ``N`` or ``M == N``), ``rank`` a Python int,
    ``s`` ``a``'s singular values. Singular values at most ``rcond * s_max`` count as zero
    (``rcond=None``: machine epsilon times ``max(M, N)``), so rank-deficient ``a`` gives NumPy's
    minimum-norm answer. ``b``: ``(M,)`` or ``(M, K)``, an xdist array or NumPy data
    (replicated). ``x``, ``residuals`` and ``s`` are replicated.

    Communication: ``qr``'s TSQR for ``a`` split along its rows (one or two allgathervs of
    ``N x N`` pieces; never the matrix), one ``allreduce`` of ``Q^H b`` (``N x K``), and one
    of the residuals (``K``) when they are computed. An ``a`` split along its columns moves
    to its rows first (one all-to-all); a replicated one is solved locally.

    A wide ``a`` (``M < N``, an underdetermined system) is solved through its conjugate
    transpose, which is tall: ``a^H = Q R`` and ``R = U S V^H`` give ``a = V S (Q U)^H``, so
    the minimum-norm ``x = Q U S^+ V^H b`` (``_wide``); ``x`` is then laid out as ``Q``'s rows
    (split where ``a`` is split along its columns) and ``residuals`` is empty, as NumPy's."""
    check_matrices(a, "lstsq", name="a")
    if a.ndim != 2:
        raise ValueError(f"lstsq: a must be 2-D, got shape {a.shape}")
    m, n = a.shape
    shape = b.shape if isinstance(b, Array) else np.shape(b)
    if len(shape) not in (1, 2) or shape[0] != m:
        raise ValueError(f"lstsq: b must have shape ({m},) or ({m}, K), got {shape}")
    if rcond is not None and (not isinstance(rcond, (int, float)) or isinstance(rcond, bool)):
        raise TypeError(f"lstsq: rcond must be a float or None, got {rcond!r}")
    if not isinstance(b, Array):
        b = replicated_operand(a, np.asarray(b), "lstsq")
    vector = b.ndim == 1
    dtype = np.result_type(a.dtype, b.dtype)
    a, b = astype(a, dtype), astype(reshape(b, (m, 1)) if vector else b, dtype)
    if m < n:
        return _wide(a, b, rcond, vector)
    q, u, s, vh, inv, rank = _factors(a, rcond, m, n)
    c = matmul(ew.conj(matrix_transpose(q)), b)  # Q^H b: one allreduce over the split rows
    if c.split is not None:  # N x K, wanted whole on every rank (a plan may have split it)
        c = resplit(c, None)
    xp = a._backend.xp
    sol = xp.conj(xp.matrix_transpose(vh)) @ (
        inv[:, None] * (xp.conj(xp.matrix_transpose(u)) @ c._local)
    )
    x = wrap_block(sol, Layout.replicated((n, b.shape[1])), a)
    residuals = None
    if rank == n and m > n:
        d = ew.abs(b - matmul(a, x))
        residuals = stats.sum(d * d, axis=0)
    return _result(a, x, residuals, rank, s, vector)


def _factors(t: Array, rcond: Any, m: int, n: int):
    """``(Q, U, s, V^H, 1 / s, rank)`` of a tall ``t``: TSQR's ``t = Q R`` (``t`` split along
    its columns moved to its rows first: one all-to-all) and the SVD ``R = U S V^H`` of the
    small ``R`` on every rank; ``1 / s`` where a singular value counts, 0 where it is at most
    ``rcond * s_max`` (``rcond=None``: machine epsilon times ``max(M, N)``, NumPy's)."""
    if t.split == 1:
        t = resplit(t, 0)
    q, r = qr(t)
    xp = t._backend.xp
    u, s, vh = xp.linalg.svd(r._local, full_matrices=False)
    top = s[0] if s.shape[0] else 0
    keep = s > (np.finfo(t.dtype).eps * max(m, n) if rcond is None else rcond) * top
    rank = int(xp.sum(xp.astype(keep, xp.int64))) if s.shape[0] else 0
    inv = xp.where(keep, 1 / xp.where(keep, s, xp.ones_like(s)), xp.zeros_like(s))
    return q, u, s, vh, inv, rank


def _result(a: Array, x: Array, residuals: Array | None, rank: int, s: Any, vector: bool):
    """NumPy's ``(x, residuals, rank, s)``: ``residuals`` empty where None, in ``a``'s real
    dtype; ``s`` replicated; ``x`` 1-D for a 1-D ``b``."""
    xp = a._backend.xp
    if residuals is None:
        residuals = wrap_block(xp.zeros_like(s[:0]), Layout.replicated((0,)), a)
    residuals = astype(residuals, real_dtype(a.dtype))
    s = wrap_block(s, Layout.replicated(tuple(s.shape)), a)
    return LstsqResult(reshape(x, (x.shape[0],)) if vector else x, residuals, rank, s)


def _wide(a: Array, b: Array, rcond: Any, vector: bool) -> LstsqResult:
    """``lstsq`` of a wide ``a`` (M < N) and ``b`` (M x K) of one dtype: the minimum-norm
    solution through the tall ``a^H = Q R`` (see ``lstsq``). Communication: ``qr``'s of the
    transpose (split along its rows where ``a`` is split along its columns), none for ``b``
    (M x K, made whole) and the small SVD, none for ``Q @ (...)`` (Q's rows times a replicated
    M x K)."""
    m, n = a.shape
    q, u, s, vh, inv, rank = _factors(ew.conj(matrix_transpose(a)), rcond, m, n)
    if b.split is not None:  # M x K, with M < N: small beside a
        b = resplit(b, None)
    small = u @ (inv[:, None] * (vh @ b._local))  # U S^+ V^H b, M x K
    x = matmul(q, wrap_block(small, Layout.replicated(small.shape), a))
    return _result(a, x, None, rank, s, vector)
