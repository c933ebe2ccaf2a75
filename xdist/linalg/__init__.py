"""The standard's ``linalg`` extension, distributed.

What moves, by family (``x`` of shape ``(..., M, N)``):

- ``matmul``, ``matrix_transpose``, ``tensordot``, ``vecdot``: the main namespace's
  functions (the matmul planner; ``vecdot`` is one local product and one reduction).
- ``vector_norm``, ``matrix_norm`` ('fro', 1, -1, inf, -inf), ``trace``, ``diagonal``,
  ``outer``, ``cross`` (``_norms``, ``_products``): local work plus at most one collective
  (the ``allreduce`` of a reduction over the split axis); ``diagonal`` sends nothing.
- ``qr``, ``svd``, ``svdvals`` (``_tsqr``): a tall-skinny matrix split along its rows (or a
  wide one along its columns, for ``svd``/``svdvals``) is factored by TSQR with one
  ``allgatherv`` of small pieces (at most ``2N`` rows of ``N`` per rank; past ``p N^2 =
  2^22`` a binary tree of the R factors, ``2 log2 p`` messages of ``N x N``); the factors are
  LAPACK's (NumPy's) for the whole matrix, signs included, on every layout. ``matrix_rank``,
  ``pinv`` and the 2 / -2 / 'nuc' matrix norms are built on them (``_rank``, ``_norms``).
- ``cholesky``, ``det``, ``slogdet``, ``inv``, ``solve``, ``eigh``, ``eigvalsh``,
  ``matrix_power``, 2025.12's ``eig`` and ``eigvals`` (``_dense``), and the factorizations
  above on other layouts: whole matrices, through the one gathering helper
  ``_gathered.gathered`` (memory: a matrix split along a matrix axis is gathered whole on
  every rank).

Everywhere: a replicated stack, or a stack of matrices split along a batch axis, is computed
locally with no gather (results keep the batch split); argument errors are raised on every
rank before any message; data-dependent failures raise on every rank (see ``_gathered``).
"""

from __future__ import annotations

from .._linear_algebra_functions import matmul, matrix_transpose, tensordot, vecdot
from .._missing_names import hint as _hint
from ._dense import cholesky, det, eig, eigh, eigvals, eigvalsh, inv, matrix_power, slogdet, solve
from ._norms import matrix_norm, vector_norm
from ._numpy_linalg import lstsq, norm
from ._products import cross, diagonal, outer, trace
from ._rank import matrix_rank, pinv
from ._tsqr import qr, svd, svdvals

__all__ = [
    "cholesky",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "matrix_transpose",
    "norm",
    "outer",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensordot",
    "trace",
    "vecdot",
    "vector_norm",
]


def __getattr__(name: str):
    # NumPy's names that xdist.linalg lacks: the AttributeError says what to use instead.
    raise AttributeError(_hint(name, __name__))
