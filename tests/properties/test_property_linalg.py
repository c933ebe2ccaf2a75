"""Property tests of the linear algebra functions (main namespace and the ``linalg``
extension) against array-api-strict, on random stacks of small well-conditioned matrices in
random layouts. qr and svd are compared factor by factor (their signs are LAPACK's, as NumPy
gives them; singular vectors where the singular values are apart); eigh, unique only up to
signs, by its defining property and its eigenvalues."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_strategies import (
    INTEGER,
    REAL_FLOAT,
    check,
    compare,
    distributed,
    laid_out,
    oracle,
)

import xdist

_FLOATS = REAL_FLOAT + ("complex64", "complex128")


def _tol(dtype) -> dict:
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return {"rtol": 2e-4, "atol": 2e-4} if single else {"rtol": 1e-9, "atol": 1e-9}


def _entries(dtype: str):
    kind = np.dtype(dtype).kind
    if kind in "iu":
        return st.integers(0 if kind == "u" else -3, 3)
    part = st.floats(-1, 1, width=32)
    return st.builds(complex, part, part) if kind == "c" else part


@st.composite
def _matrices(draw, dtype: str, square=True, min_side=1, max_side=5, batch=True, spd=False):
    """A stack of matrices, diagonally dominant (full rank, well conditioned; square ones
    invertible); ``spd`` ones Hermitian positive definite."""
    stack = draw(hnp.array_shapes(min_dims=0, max_dims=1 if batch else 0, max_side=3))
    n = draw(st.integers(min_side, max_side))
    m = n if square else draw(st.integers(min_side, max_side))
    a = draw(hnp.arrays(np.dtype(dtype), (*stack, n, m), elements=_entries(dtype)))
    if np.dtype(dtype).kind in "fc":
        if spd:
            a = a @ np.conj(np.swapaxes(a, -1, -2))
        # A dominant (rectangular) diagonal: singular values near max(n, m) + 1, so results
        # are well conditioned and comparable across libraries (pinv of float32 included).
        a = a + (max(n, m) + 1) * np.eye(n, m, dtype=dtype)
    return draw(laid_out(a))


@given(data=st.data())
def test_matmul_and_operator(data):
    dtype = data.draw(st.sampled_from(INTEGER[:4] + _FLOATS))
    a = data.draw(_matrices(dtype, square=False))
    n = a.shape[-1]
    vector = data.draw(st.booleans())
    shape = (n,) if vector else (n, data.draw(st.integers(1, 4)))
    b = data.draw(distributed(dtype, shape, elements=_entries(dtype)))
    check("matmul", a, b, **_tol(dtype))
    compare(a @ b, oracle("matmul", a, b), **_tol(dtype))


@given(data=st.data())
def test_tensordot_vecdot(data):
    dtype = data.draw(st.sampled_from(_FLOATS))
    a = data.draw(_matrices(dtype, square=False, batch=False))
    b = data.draw(distributed(dtype, (a.shape[-1], 3), elements=_entries(dtype)))
    axes = data.draw(st.sampled_from([0, 1, ((1,), (0,))]))
    if axes == 0:
        b = data.draw(distributed(dtype, (2,), elements=_entries(dtype)))
    check("tensordot", a, b, axes=axes, **_tol(dtype))
    c = data.draw(distributed(dtype, a.shape, elements=_entries(dtype)))
    axis = data.draw(st.sampled_from([-1, -2]))
    check("vecdot", a, c, axis=axis, **_tol(dtype))


@given(data=st.data())
def test_matrix_transpose(data):
    a = data.draw(_matrices(data.draw(st.sampled_from(INTEGER + _FLOATS)), square=False))
    check("matrix_transpose", a)
    compare(a.mT, oracle("matrix_transpose", a))


_SQUARE = ["linalg.det", "linalg.inv", "linalg.slogdet", "linalg.eigvalsh", "linalg.cholesky"]


@pytest.mark.parametrize("func", _SQUARE)
@given(data=st.data())
def test_square_functions(func, data):
    dtype = data.draw(st.sampled_from(_FLOATS))
    spd = func in ("linalg.eigvalsh", "linalg.cholesky")
    a = data.draw(_matrices(dtype, spd=spd))
    check(func, a, **_tol(dtype))


@given(data=st.data())
def test_solve(data):
    dtype = data.draw(st.sampled_from(_FLOATS))
    a = data.draw(_matrices(dtype, batch=False))
    n = a.shape[-1]
    b = data.draw(distributed(dtype, (n, data.draw(st.integers(1, 3))), elements=_entries(dtype)))
    check("linalg.solve", a, b, **_tol(dtype))


@given(data=st.data())
def test_matrix_power(data):
    dtype = data.draw(st.sampled_from(REAL_FLOAT))
    a = data.draw(_matrices(dtype))
    check("linalg.matrix_power", a, data.draw(st.integers(-2, 3)), **_tol(dtype))


def _close(got, expected, dtype):
    compare(got, np.asarray(expected, dtype=got.dtype), **_tol(dtype))


@given(data=st.data())
def test_qr(data):
    """Q R = A, Q has orthonormal columns, R is upper triangular, and both are NumPy's
    (LAPACK's Householder QR of the whole matrix: R's diagonal signs included)."""
    dtype = data.draw(st.sampled_from(_FLOATS))
    a = data.draw(_matrices(dtype, square=False))
    g = a.to_numpy()
    mode = data.draw(st.sampled_from(["reduced", "complete"]))
    q, r = check("linalg.qr", a, mode=mode, **_tol(dtype))
    _close(q @ r, g, dtype)
    eye = np.broadcast_to(np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2)
    _close(xdist.matrix_transpose(xdist.conj(q)) @ q, eye, dtype)
    assert np.all(np.tril(r.to_numpy(), -1) == 0)


def _separated(s: np.ndarray, dtype) -> bool:
    """Whether the singular values ``s`` (stacked, descending) are far enough apart for the
    singular vectors to be compared entry by entry at ``dtype``'s tolerance."""
    if s.shape[-1] < 2:
        return True
    single = np.dtype(dtype) in (np.float32, np.complex64)
    gaps = -np.diff(s, axis=-1) / np.maximum(s[..., :1], np.finfo(s.dtype).tiny)
    return bool(np.all(gaps > (1e-2 if single else 1e-5)))


@given(data=st.data())
def test_svd_svdvals(data):
    """U S Vh = A, and U, S, Vh are NumPy's (signs included) where the singular vectors are
    determined (separated singular values)."""
    dtype = data.draw(st.sampled_from(_FLOATS))
    a = data.draw(_matrices(dtype, square=False))
    check("linalg.svdvals", a, **_tol(dtype))
    u, s, vh = xdist.linalg.svd(a, full_matrices=False)
    expected = oracle("linalg.svd", a, full_matrices=False)
    compare(s, expected.S, **_tol(dtype))
    if _separated(expected.S, dtype):
        compare(u, expected.U, **_tol(dtype))
        compare(vh, expected.Vh, **_tol(dtype))
    us = u.to_numpy() * s.to_numpy()[..., None, :]
    np.testing.assert_allclose(us @ vh.to_numpy(), a.to_numpy(), **_tol(dtype))


@given(data=st.data())
def test_eigh(data):
    dtype = data.draw(st.sampled_from(_FLOATS))
    a = data.draw(_matrices(dtype, spd=True))
    w, v = xdist.linalg.eigh(a)
    compare(w, oracle("linalg.eigvalsh", a), **_tol(dtype))
    vn = v.to_numpy()
    np.testing.assert_allclose(a.to_numpy() @ vn, vn * w.to_numpy()[..., None, :], **_tol(dtype))


@given(data=st.data())
def test_pinv_matrix_rank(data):
    dtype = data.draw(st.sampled_from(REAL_FLOAT))
    a = data.draw(_matrices(dtype, square=False))
    check("linalg.pinv", a, **_tol(dtype))
    check("linalg.matrix_rank", a)


@given(data=st.data())
def test_norms(data):
    dtype = data.draw(st.sampled_from(_FLOATS))
    a = data.draw(_matrices(dtype, square=False))
    matrix_ord = data.draw(st.sampled_from(["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]))
    check("linalg.matrix_norm", a, ord=matrix_ord, keepdims=data.draw(st.booleans()), **_tol(dtype))
    vector_ord = data.draw(st.sampled_from([2, 1, 0, -1, 3, np.inf, -np.inf]))
    axis = data.draw(st.sampled_from([None, -1, 0, (-2, -1)]))
    check("linalg.vector_norm", a, ord=vector_ord, axis=axis, **_tol(dtype))


@given(data=st.data())
def test_diagonal_trace_outer_cross(data):
    dtype = data.draw(st.sampled_from(INTEGER[:4] + _FLOATS))
    a = data.draw(_matrices(dtype, square=False))
    offset = data.draw(st.integers(-3, 3))
    check("linalg.diagonal", a, offset=offset)
    check("linalg.trace", a, offset=offset, **_tol(dtype))
    x = data.draw(distributed(dtype, (data.draw(st.integers(0, 5)),), elements=_entries(dtype)))
    y = data.draw(distributed(dtype, (data.draw(st.integers(0, 5)),), elements=_entries(dtype)))
    check("linalg.outer", x, y)
    u = data.draw(distributed(dtype, (data.draw(st.integers(1, 4)), 3), elements=_entries(dtype)))
    v = data.draw(distributed(dtype, u.shape, elements=_entries(dtype)))
    check("linalg.cross", u, v, **_tol(dtype))
    check("linalg.matrix_transpose", a)
