"""Dense factorizations of whole matrices: cholesky, det, slogdet, inv, solve, eigh,
eigvalsh, matrix_power, and (2025.12) eig and eigvals.

Each runs the backend's ``linalg`` function on whole matrices through ``gathered`` (see
``_gathered``): no message for a replicated stack or a stack split along a batch axis; ONE
``allgatherv`` for a matrix split along its rows or columns, after which every rank holds the
whole stack (memory: all of ``x`` on every rank).
"""

from __future__ import annotations

import numpy as np

from .._array import Array, wrap_block
from .._dtypes import check_category
from .._layout import Layout
from .._movement.broadcast import broadcast_shapes
from .._movement.redistribute import slice_replicated
from .._validation import check_int, check_same_context
from ._common import EighResult, EigResult, SlogdetResult, agreed_result, check_matrices
from ._gathered import align_to, batch_layout, gathered, place, whole

__all__ = [
    "cholesky",
    "det",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "matrix_power",
    "slogdet",
    "solve",
]

_LIKE_X = {-2: -2, -1: -1}  # a result of x's shape is split like x


def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """The standard's ``cholesky`` (lower, or upper with ``upper=True``). Whole matrices:
    a matrix split along a matrix axis is gathered (memory: all of ``x`` on every rank) and
    the factor is split like ``x`` again (a local slice). A matrix that is not positive
    definite raises ``LinAlgError`` on every rank."""
    check_matrices(x, "cholesky", square=True)
    if not isinstance(upper, bool):
        raise TypeError(f"cholesky: upper must be a bool, got {upper!r}")
    linalg = x._backend.xp.linalg
    block, work = gathered(x, "cholesky", lambda b: linalg.cholesky(b, upper=upper))
    return place(block, work, x, x.shape, _LIKE_X)


def det(x: Array, /) -> Array:
    """The standard's ``det``: replicated, or split like a batch-split stack. A matrix split
    along a matrix axis is gathered (memory: all of ``x`` on every rank)."""
    check_matrices(x, "det", square=True)
    linalg = x._backend.xp.linalg
    block, work = gathered(x, "det", linalg.det, may_fail=False)
    return place(block, work, x, x.shape[:-2])


def slogdet(x: Array, /) -> SlogdetResult:
    """The standard's ``slogdet`` as ``(sign, logabsdet)``, laid out like ``det``'s result
    (a matrix split along a matrix axis is gathered: all of ``x`` on every rank)."""
    check_matrices(x, "slogdet", square=True)
    linalg = x._backend.xp.linalg
    (sign, logabs), work = gathered(x, "slogdet", linalg.slogdet, may_fail=False)
    shape = x.shape[:-2]
    return SlogdetResult(place(sign, work, x, shape), place(logabs, work, x, shape))


def inv(x: Array, /) -> Array:
    """The standard's ``inv``. A matrix split along a matrix axis is gathered (memory: all of
    ``x`` on every rank); the inverse is split like ``x`` again (a local slice). A singular
    matrix raises ``LinAlgError`` on every rank."""
    check_matrices(x, "inv", square=True)
    block, work = gathered(x, "inv", x._backend.xp.linalg.inv)
    return place(block, work, x, x.shape, _LIKE_X)


def eigh(x: Array, /) -> EighResult:
    """The standard's ``eigh`` as ``(eigenvalues, eigenvectors)``, eigenvalues ascending. A
    matrix split along a matrix axis is gathered (memory: all of ``x`` on every rank); the
    eigenvalues are then replicated and the eigenvectors split like ``x`` (a local slice)."""
    check_matrices(x, "eigh", square=True)
    (w, v), work = gathered(x, "eigh", x._backend.xp.linalg.eigh)
    return EighResult(place(w, work, x, x.shape[:-1]), place(v, work, x, x.shape, _LIKE_X))


def eigvalsh(x: Array, /) -> Array:
    """The standard's ``eigvalsh`` (ascending): replicated, or split like a batch-split
    stack. A matrix split along a matrix axis is gathered (all of ``x`` on every rank)."""
    check_matrices(x, "eigvalsh", square=True)
    block, work = gathered(x, "eigvalsh", x._backend.xp.linalg.eigvalsh)
    return place(block, work, x, x.shape[:-1])


def _complex(x: Array) -> np.dtype:
    single = x.dtype in (np.float32, np.complex64)
    return np.dtype(np.complex64 if single else np.complex128)


def eig(x: Array, /) -> EigResult:
    """``eig`` (2025.12) as ``(eigenvalues, eigenvectors)``, both complex of ``x``'s
    precision, in the backend's order. Layouts and the gather as ``eigh``: a matrix split
    along a matrix axis is gathered (memory: all of ``x`` on every rank)."""
    check_matrices(x, "eig", square=True)
    xp, dtype = x._backend.xp, x._backend.native_dtype(_complex(x))

    def compute(b):
        w, v = xp.linalg.eig(b)  # NumPy gives real results when every eigenvalue is real
        return xp.astype(w, dtype), xp.astype(v, dtype)

    (w, v), work = gathered(x, "eig", compute)
    return EigResult(place(w, work, x, x.shape[:-1]), place(v, work, x, x.shape, _LIKE_X))


def eigvals(x: Array, /) -> Array:
    """``eigvals`` (2025.12): complex eigenvalues of ``x``'s precision, laid out like
    ``eigvalsh``'s (a matrix split along a matrix axis is gathered)."""
    check_matrices(x, "eigvals", square=True)
    xp, dtype = x._backend.xp, x._backend.native_dtype(_complex(x))
    block, work = gathered(x, "eigvals", lambda b: xp.astype(xp.linalg.eigvals(b), dtype))
    return place(block, work, x, x.shape[:-1])


def matrix_power(x: Array, n: int, /) -> Array:
    """The standard's ``matrix_power`` (``n < 0``: powers of the inverse). A matrix split
    along a matrix axis is gathered (memory: all of ``x`` on every rank) and the result is
    split like ``x`` again (a local slice); ``n < 0`` with a singular matrix raises
    ``LinAlgError`` on every rank."""
    check_matrices(x, "matrix_power", square=True)
    n = check_int(n, "matrix_power", "n")
    linalg = x._backend.xp.linalg
    block, work = gathered(x, "matrix_power", lambda b: linalg.matrix_power(b, n))
    return place(block, work, x, x.shape, _LIKE_X)


# -- solve ------------------------------------------------------------------------------------
def _solve_shape(x1: Array, x2: Array) -> tuple[int, ...]:
    """The result shape, after checking the operands (before any message)."""
    check_matrices(x1, "solve", square=True, name="x1")
    if not isinstance(x2, Array):
        raise TypeError(f"solve: x2 must be an xdist array, got {type(x2).__name__}")
    check_category(x2.dtype, "floating-point", "solve", "x2")
    check_same_context([(x1, "x1"), (x2, "x2")], "solve")
    m = x1.shape[-1]
    if x2.ndim == 0:
        raise ValueError("solve: x2 must be at least 1-D, got a 0-d array")
    rows = x2.shape[0] if x2.ndim == 1 else x2.shape[-2]
    if rows != m:
        raise ValueError(f"solve: x2 has {rows} rows, x1 holds {m} x {m} matrices")
    if x2.ndim == 1:
        return (*x1.shape[:-2], m)
    try:
        batch = broadcast_shapes([x1.shape[:-2], x2.shape[:-2]], "solve")
    except ValueError:
        raise ValueError(
            f"solve: the batch dimensions of x1 {x1.shape} and x2 {x2.shape} do not broadcast"
        ) from None
    return (*batch, m, x2.shape[-1])


def solve(x1: Array, x2: Array, /) -> Array:
    """The standard's ``solve`` of ``x1 @ x = x2`` (``x2`` of shape ``(M,)`` is one vector
    for every matrix; otherwise ``(..., M, K)``, batch axes broadcast).

    A batch axis along which an operand is split (and which it does not broadcast) splits
    the work: the other operand moves to the same split (free when replicated, a gather
    where it broadcasts), each rank solves its own systems and the ranks agree on failure
    with one ``allreduce``. Otherwise both operands are gathered (memory: all of ``x1`` and
    ``x2`` on every rank) and the solution is laid out like ``x2`` when it has ``x2``'s
    shape (a local slice), else replicated. A singular matrix raises ``LinAlgError`` on
    every rank.
    """
    shape = _solve_shape(x1, x2)
    xp = x1._backend.xp
    vector = x2.ndim == 1

    def local_solve(a, b):
        # The batch axes broadcast explicitly: CuPy's solve does not broadcast them.
        if not vector:
            batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
            a = xp.broadcast_to(a, (*batch, *a.shape[-2:]))
            b = xp.broadcast_to(b, (*batch, *b.shape[-2:]))
        return xp.linalg.solve(a, b)

    nbatch = len(shape) - (1 if vector else 2)
    operands = [(x1._layout, 2)] if vector else [(x1._layout, 2), (x2._layout, 2)]
    batch = batch_layout(shape[:nbatch], operands)
    if batch is not None:
        b1 = align_to(x1, batch, 2, "solve")
        b2 = align_to(x2, batch, 1 if vector else 2, "solve")
        block = agreed_result("solve", lambda: local_solve(b1, b2), x1, local=True)
        return wrap_block(block, Layout(shape, batch.split, batch.counts), x1)
    a, b = whole(x1, "solve"), whole(x2, "solve")
    block = agreed_result("solve", lambda: local_solve(a, b), x1, local=False)
    layout = Layout.replicated(shape)
    if x2.split is not None and x2.shape == shape:
        layout = x2._layout
        block = slice_replicated(block, layout, x1._comm.rank)
    return wrap_block(block, layout, x1)
