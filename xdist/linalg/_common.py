"""What the linalg functions share: argument checks, result tuples, the batch/matrix split of a
stack of matrices, agreement on a data-dependent failure (``agreed_result``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._array import Array
from .._dtypes import check_category
from .._movement.collectives import any_rank
from .._validation import check_array
from ..backends import Backend


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# -- checks (global metadata only: they raise on every rank before any message) -------------
def check_matrices(x: Any, func: str, *, square: bool = False, name: str = "x") -> None:
    """``x`` is a floating-point xdist array of (stacked) matrices, square if asked."""
    check_array(x, func, name)
    check_category(x.dtype, "floating-point", func, name)
    if x.ndim < 2:
        raise ValueError(f"{func}: {name} must be at least 2-D, got {x.ndim} dimensions")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{func}: {name} must hold square matrices, got shape {x.shape}")


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The real floating-point dtype of the same precision (float32 for complex64)."""
    return np.dtype(np.float32) if dtype in (np.float32, np.complex64) else np.dtype(np.float64)


def split_on_matrix(x: Array) -> bool:
    """Whether ``x`` is split along one of its last two (matrix) axes."""
    return x.split is not None and x.split >= x.ndim - 2


def linalg_error(backend: Backend) -> type[Exception]:
    """The backend library's error for a failed factorization (NumPy's ``LinAlgError``)."""
    return getattr(backend.xp.linalg, "LinAlgError", np.linalg.LinAlgError)


def agreed_result(func: str, compute, like: Array, *, local: bool) -> Any:
    """``compute()`` on this rank's matrices. When the ranks compute on different matrices
    (``local``: a stack split along a batch axis), a failure on one rank (a singular matrix,
    no convergence) is agreed with one ``allreduce`` of a flag, so that every rank raises
    instead of the others waiting in the next collective. When every rank holds the same
    matrices, every rank computes the same thing and raises the same error by itself."""
    comm = like._comm
    checked = like._backend.linalg_errors  # CuPy reports failures only when asked to
    if not local or comm.size == 1:
        with checked():
            return compute()
    error: Exception | None = None
    try:
        with checked():
            result = compute()
    except Exception as exc:  # noqa: BLE001 (any failure must reach the other ranks)
        error = exc
    failed = any_rank(error is not None, comm)
    if error is not None:
        raise error
    if failed:
        raise linalg_error(like._backend)(
            f"{func}: the computation failed on another rank's part of the stack "
            "(a singular or not positive-definite matrix, or no convergence)"
        )
    return result
