"""The linalg extension against numpy.linalg over every layout: TSQR (qr / svd / svdvals of
tall-skinny matrices split along rows), the whole-matrix functions, norms, diagonal, trace,
outer and cross; what each sends, and errors raised before any message."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    BACKEND,
    COMM,
    ON_HOST,
    SIZE,
    assert_equal,
    assert_layout_consistent,
    distribute,
    layout_id,
    layout_pair_params,
    layouts,
    random_array,
    uneven_counts,
)

import xdist
import xdist.linalg as la
import xdist.linalg._tsqr as tsqr_module
from xdist._pending import kept
from xdist.linalg._common import linalg_error

RTOL = {"float64": 1e-9, "complex128": 1e-9, "float32": 2e-3, "complex64": 2e-3}


def _cases(shapes, dtypes=("float64",)):
    return [
        pytest.param(shape, lay, dtype, id=f"{shape}-{layout_id(lay)}-{dtype}")
        for shape in shapes
        for lay in layouts(shape)
        for dtype in dtypes
    ]


def _close(x: xdist.Array, expected, dtype) -> None:
    """``assert_equal`` with ``dtype``'s tolerance, relative and absolute (for entries that
    are zero in exact arithmetic)."""
    tol = RTOL[str(np.dtype(dtype))]
    assert_equal(x, np.asarray(expected), rtol=tol, atol=tol)


def _well_conditioned(shape, dtype, seed=0):
    """Random matrices with a dominant diagonal (full rank, invertible when square)."""
    a = random_array(shape, dtype, seed)
    m, n = shape[-2:]
    k = min(m, n)
    a[..., range(k), range(k)] += 2 * max(m, n)
    return a


def _rows_split(x: xdist.Array) -> bool:
    return x.split == x.ndim - 2


# -- qr ----------------------------------------------------------------------------------------
QR_SHAPES = [(7, 3), (3, 3), (2, 3), (3, 7, 3), (4, 0), (0, 3)]


@pytest.mark.parametrize("mode", ["reduced", "complete"])
@pytest.mark.parametrize(
    "shape,lay,dtype", _cases(QR_SHAPES) + _cases([(7, 3)], ("complex128", "float32"))
)
def test_qr_matches_numpy(shape, lay, dtype, mode):
    """NumPy's factors entry by entry (R's diagonal signs are LAPACK's, not all positive)."""
    a = _well_conditioned(shape, dtype, seed=1)
    x = distribute(a, *lay)
    q, r = la.qr(x, mode=mode)
    eq, er = np.linalg.qr(a, mode=mode)
    _close(r, er, dtype)
    _close(q, eq, dtype)
    if x.split is not None and x.split < x.ndim - 2:  # batch split: kept, no gather
        assert (q.split, q.counts, r.split, r.counts) == (x.split, x.counts, x.split, x.counts)
    elif _rows_split(x):
        assert (q.split, q.counts) == (x.split, x.counts)


class _Recording:
    """A communicator that records the total size of each allgatherv (test only)."""

    def __init__(self, comm):
        self._comm, self.gathered = comm, []

    def allgatherv(self, buf, counts):
        self.gathered.append(int(sum(counts)))
        return self._comm.allgatherv(buf, counts)

    def __getattr__(self, name):
        return getattr(self._comm, name)


@pytest.fixture
def householder(monkeypatch):
    """TSQR by Householder QR alone: Cholesky QR declines every matrix."""
    monkeypatch.setattr(tsqr_module, "cholesky_proxy", lambda *args: None)


def _rows_sent(counts, n):
    """Each rank's rows among the first ``n`` (``tops``) and its rows below them."""
    starts = np.cumsum((0, *counts))[:-1]
    tops = [max(0, min(c, n - s)) for c, s in zip(counts, starts)]
    return tops, [c - t for c, t in zip(counts, tops)]


def _below_conditioned(shape, cond, seed):
    """Random matrices whose rows below the first N (those Cholesky QR factors) have
    singular values from 1 to ``1 / cond``."""
    rng = np.random.default_rng(seed)
    *batch, m, n = shape
    a = rng.standard_normal(shape)
    q = np.linalg.qr(rng.standard_normal((*batch, m - n, n)))[0]
    a[..., n:, :] = q * np.geomspace(1, 1 / cond, n)
    return a


@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
def test_choleskyqr2_divides_double_rows_by_a_product_and_single_by_a_solve(monkeypatch, dtype):
    """CholeskyQR2's ``Q_1 = B R_1^{-1}``: one product with ``R_1``'s inverse for a double-
    precision block (GEMM; as accurate there as the triangular solve), the backend's
    triangular solve for a single-precision one (an inverse rounded to single precision
    would leave ``QR - A`` several of its units off); LAPACK's factors either way."""
    a = _below_conditioned((60, 4), 100.0, seed=5).astype(dtype)
    if dtype == "complex128":
        a = a + 1j * _below_conditioned((60, 4), 100.0, seed=6)
    solves = []
    real = type(BACKEND).solve_upper_right

    def spy(self, b, r):
        solves.append(b.shape)
        return real(self, b, r)

    monkeypatch.setattr(type(BACKEND), "solve_upper_right", spy)
    x = distribute(a, 0)
    q, r = la.qr(x)
    assert bool(solves) is (dtype == "float32"), solves
    _close(q, np.linalg.qr(a)[0], dtype)
    _close(r, np.linalg.qr(a)[1], dtype)


@pytest.mark.parametrize("method", ["householder", "cholesky", "one_pass"])
@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize("shape", [(20, 4), (4, 20, 3)], ids=["2d", "batched"])
def test_tsqr_sends_only_small_pieces(monkeypatch, method, shape, counts):
    """Householder TSQR: one allgatherv of each rank's rows among the first N as they are
    and the R factor of its other rows. CholeskyQR2 of the rows below the first N: one
    allgatherv of those rows with each rank's Gram matrix, one of the Gram matrices of
    ``Q_1``; one Cholesky QR (those rows conditioned within ``_ONE_PASS_LIMIT``): the first
    alone. Every way LAPACK's factors, R's diagonal signs included."""
    if method == "householder":
        monkeypatch.setattr(tsqr_module, "cholesky_proxy", lambda *args: None)
    a = _below_conditioned(shape, 2.0 if method == "one_pass" else 100.0, seed=2)
    axis = len(shape) - 2
    comm = _Recording(COMM)
    x = distribute(a, axis, uneven_counts(shape[axis], SIZE) if counts else None, comm=comm)
    with xdist.count_collectives() as calls:
        q, r = la.qr(x)
    n, batch = shape[-1], int(np.prod(shape[:-2]))
    if SIZE > 1 and method == "householder":
        assert dict(calls) == {"allgatherv": 1}, calls
        tops, below = _rows_sent(x.counts, n)
        rows = sum(t + min(b, n) for t, b in zip(tops, below))
        assert comm.gathered == [rows * n * batch] and rows <= shape[axis]
    elif SIZE > 1 and method == "one_pass":
        assert dict(calls) == {"allgatherv": 1}, calls
        assert comm.gathered == [(n + SIZE * n) * n * batch]
    elif SIZE > 1:
        assert dict(calls) == {"allgatherv": 2}, calls
        assert comm.gathered == [(n + SIZE * n) * n * batch, SIZE * n * n * batch]
    else:
        assert sum(calls.values()) == 0, calls
    assert (q.split, q.counts, r.split) == (x.split, x.counts, None)
    eq, er = np.linalg.qr(a)
    _close(q, eq, "float64")
    _close(r, er, "float64")
    rn = r.to_numpy()
    assert np.all(np.tril(rn, -1) == 0) and np.any(np.diagonal(rn, 0, -2, -1) < 0)


TREE_SHAPES = [(40, 4), (6, 4), (4, 4), (2, 9, 3), (30, 3)]


@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("shape", TREE_SHAPES, ids=str)
def test_tsqr_by_a_tree_of_r_factors(monkeypatch, householder, shape, dtype, counts):
    """Past ``STACKED_ELEMENTS`` (forced here) the ranks' R factors are combined up a binary
    tree rather than stacked on every rank: the same LAPACK factors (signs included, on
    random data: R's diagonal of both signs), the rows of the first N gathered alone, and
    per rank at most 2 ceil(log2 p) sendrecvs of at most N x N and one broadcast."""
    monkeypatch.setattr(tsqr_module, "STACKED_ELEMENTS", 0)
    a = random_array(shape, dtype, seed=7)
    axis = len(shape) - 2
    comm = _Recording(COMM)
    x = distribute(a, axis, uneven_counts(shape[axis], SIZE) if counts else None, comm=comm)
    with xdist.count_collectives() as calls:
        q, r = la.qr(x)
    gathered = list(comm.gathered)
    eq, er = np.linalg.qr(a)
    _close(r, er, dtype)
    _close(q, eq, dtype)
    u, sv, vh = la.svd(x, full_matrices=False)
    eu, es, evh = np.linalg.svd(a, full_matrices=False)
    _close(sv, es, dtype)
    _close(vh, evh, dtype)
    _close(u, eu, dtype)
    _close(la.svdvals(x), es, dtype)
    assert (q.split, q.counts, u.split, u.counts) == (x.split, x.counts, x.split, x.counts)
    n, batch = shape[-1], int(np.prod(shape[:-2]))
    if SIZE > 1 and shape[axis] == n:  # no rows below the first N: nothing to combine
        assert dict(calls) == {"allgatherv": 1}, calls
    elif SIZE > 1:
        levels = int(np.ceil(np.log2(SIZE)))
        assert set(calls) <= {"allgatherv", "sendrecv", "bcast"}, calls
        assert calls["bcast"] == 1 and calls["allgatherv"] == 1 and calls["sendrecv"] <= 2 * levels
        assert calls.bytes["sendrecv"] <= 2 * levels * n * n * batch * np.dtype(dtype).itemsize
        assert gathered == [n * n * batch], gathered  # the first N rows, nothing else
    else:
        assert sum(calls.values()) == 0, calls


# -- svd, svdvals ------------------------------------------------------------------------------
SVD_SHAPES = [(7, 3), (3, 7), (3, 3), (2, 3), (3, 5, 2), (0, 3)]


@pytest.mark.parametrize("full", [False, True], ids=["reduced", "full"])
@pytest.mark.parametrize(
    "shape,lay,dtype", _cases(SVD_SHAPES) + _cases([(7, 3), (3, 7)], ("complex128",))
)
def test_svd_matches_numpy(shape, lay, dtype, full):
    a = random_array(shape, dtype, seed=3)
    x = distribute(a, *lay)
    u, s, vh = la.svd(x, full_matrices=full)
    eu, es, evh = np.linalg.svd(a, full_matrices=full)
    _close(s, es, dtype)
    m, n = shape[-2:]
    k = min(m, n)
    _close(u, eu, dtype)  # NumPy's singular vectors, signs included
    _close(vh, evh, dtype)
    un, vhn = u.to_numpy(), vh.to_numpy()
    recon = (un[..., :k] * s.to_numpy()[..., None, :]) @ vhn[..., :k, :]
    np.testing.assert_allclose(recon, a, atol=1e-9)
    if (not full or m == n) and SIZE > 1:
        if _rows_split(x) and m >= n:  # TSQR: U split like x, S and Vh replicated
            assert (u.split, u.counts, s.split, vh.split) == (x.split, x.counts, None, None)
        if x.split == x.ndim - 1 and m < n:  # TSQR of x^H: Vh split like x
            assert (vh.split, vh.counts, u.split) == (x.split, x.counts, None)


@pytest.mark.parametrize("shape,lay,dtype", _cases([(7, 3), (3, 7), (3, 3), (3, 4, 2), (0, 2)]))
def test_svdvals_matches_numpy(shape, lay, dtype):
    a = random_array(shape, dtype, seed=4)
    x = distribute(a, *lay)
    with xdist.count_collectives() as calls:
        s = la.svdvals(x)
    _close(s, np.linalg.svd(a, compute_uv=False), dtype)
    if x.split is None:
        assert sum(calls.values()) == 0, calls
    elif x.split < x.ndim - 2:  # local, and the flag that agrees on a failure
        assert set(calls) <= {"allreduce"} and calls["allreduce"] <= 1, calls
    else:  # Cholesky QR's two Gram matrices, Householder TSQR or a gather
        assert set(calls) <= {"allgatherv"} and calls["allgatherv"] <= 2, calls


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_svd_of_tall_skinny_sends_only_small_messages(counts):
    """One Cholesky QR's Gram matrix (and the first N rows) for each of svd and svdvals of a
    well-conditioned matrix, two (CholeskyQR2) of one conditioned 100."""
    for cond, grams in ((2.0, 1), (100.0, 2)):
        a = _below_conditioned((30, 3), cond, seed=5)
        x = distribute(a, 0, uneven_counts(30, SIZE) if counts else None)
        with xdist.count_collectives() as calls:
            u, s, vh = la.svd(x, full_matrices=False)
            sv = la.svdvals(x)
        assert dict(calls) == ({"allgatherv": 2 * grams} if SIZE > 1 else {}), calls
        if SIZE > 1:  # per rank at most its rows among the first 3 and its Gram matrices
            assert calls.bytes["allgatherv"] <= 2 * (3 + grams * 3) * 3 * 8
        assert (u.split, u.counts) == (0, x.counts)
        _close(sv, np.linalg.svd(a, compute_uv=False), "float64")
        eu, es, evh = np.linalg.svd(a, full_matrices=False)
        _close(u, eu, "float64")
        _close(vh, evh, "float64")


@pytest.mark.parametrize("write", ["setitem", "inplace", "handout", "user"])
def test_deferred_u_of_one_cholesky_pass_keeps_the_factored_values(write):
    """One Cholesky QR pass leaves ``U`` deferred on the factored rows themselves: a write
    into the matrix after ``svd`` (xdist's ``__setitem__`` or in-place operator on a matrix
    xdist allocated, a write into its block handed out by ``.local``, or the user's own
    write into the NumPy block a matrix was made from) cannot reach ``U`` or ``U.T @ y``;
    a write into another array leaves ``U`` unformed."""
    a = _below_conditioned((40, 4), 2.0, seed=3)
    y = distribute(np.arange(40.0), 0)
    if write == "user":
        x = distribute(a, 0)
        assert not kept(x._local)  # the user's memory: the factored rows are copied
    else:
        with xdist.config_context(fuse_min_elements=1):  # a result of xdist's own memory
            x = distribute(a, 0) + 0.0
            x._local  # noqa: B018  (made)
        fuses = BACKEND.name == "numpy" or (BACKEND.name == "torch" and ON_HOST)
        assert kept(x._local) == fuses  # read in place, U settled before xdist writes
    eu, es, evh = np.linalg.svd(a, full_matrices=False)
    u, s, vh = la.svd(x, full_matrices=False)
    u2, _, _ = la.svd(x, full_matrices=False)
    other = xdist.zeros(3)
    other[0] = 1.0
    other *= 2.0
    assert not u.formed and not u2.formed
    if write == "setitem":
        x[...] = 7.0
    elif write == "inplace":
        x *= -3.0
    else:
        x.local[...] = 7.0
    assert np.all(x.to_numpy() != a)
    _close(u, eu, "float64")
    _close(u2.T @ y, eu.T @ np.arange(40.0), "float64")


def _with_condition(shape, cond, dtype, seed=0):
    """A matrix with singular values spaced geometrically from 1 to ``1 / cond`` (``inf``:
    the last two columns equal, rank-deficient), random singular vectors."""
    rng = np.random.default_rng(seed)
    m, n = shape
    complex_ = np.dtype(dtype).kind == "c"

    def orthonormal(rows, cols):
        g = rng.standard_normal((rows, cols))
        if complex_:
            g = g + 1j * rng.standard_normal((rows, cols))
        return np.linalg.qr(g)[0]

    if cond == np.inf:
        a = orthonormal(m, n) @ np.diag(np.geomspace(1, 1e-3, n)) @ orthonormal(n, n).conj().T
        a[:, -1] = a[:, -2]
    else:
        s = np.geomspace(1, 1 / cond, n)
        a = orthonormal(m, n) @ np.diag(s) @ orthonormal(n, n).conj().T
    return a.astype(dtype)


@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "float32"])
@pytest.mark.parametrize("cond", [4, 1e2, 1e5, 1e9, 1e13, np.inf], ids=str)
def test_tall_factors_as_accurate_as_lapack(dtype, cond, counts):
    """At every condition number (one Cholesky QR, plain CholeskyQR2, shifted CholeskyQR3,
    Householder for a rank-deficient matrix), ``svd`` and ``qr`` of a tall matrix split along
    its rows are as accurate as LAPACK's on the whole matrix: singular values to a few
    units of rounding of the largest, ``U`` and ``Q`` orthonormal and the factors
    reproducing ``a`` to within a small multiple of LAPACK's own errors."""
    a = _with_condition((90, 6), cond, dtype)
    x = distribute(a, 0, uneven_counts(90, SIZE) if counts else None)
    u_err = np.finfo(dtype).eps
    eu, es, evh = np.linalg.svd(a, full_matrices=False)
    u, s, vh = (f.to_numpy() for f in la.svd(x, full_matrices=False))
    np.testing.assert_allclose(s, es, rtol=0, atol=30 * u_err * es[0])

    def orthogonality(q):
        return np.abs(q.conj().T @ q - np.eye(q.shape[1])).max()

    def residual(left, right):
        return np.abs(left @ right - a).max() / np.abs(a).max()

    assert orthogonality(u) <= max(10 * orthogonality(eu), 30 * u_err)
    assert residual(u * s, vh) <= max(10 * residual(eu * es, evh), 30 * u_err)
    q, r = (f.to_numpy() for f in la.qr(x))
    eq, er = np.linalg.qr(a)
    assert orthogonality(q) <= max(10 * orthogonality(eq), 30 * u_err)
    assert residual(q, r) <= max(10 * residual(eq, er), 30 * u_err)
    if cond <= 1e5:  # well enough conditioned for the factors to be determined: NumPy's
        _close(x=xdist.asarray(s), expected=es, dtype=dtype)
        np.testing.assert_allclose(np.abs(u.conj().T @ eu).diagonal(), 1, atol=1e-3)


# -- LAPACK's signs, entry by entry -------------------------------------------------------------
# Random (not diagonally dominant) matrices: R's diagonal has both signs, and the singular
# vectors' signs are whatever gesdd makes them. Shapes: M >= 2N (gesdd QRs first), N <= M < 2N
# (it bidiagonalizes x itself), square, a stack.
SIGN_SHAPES = [(40, 4), (6, 4), (4, 4), (2, 9, 3)]
SIGN_DTYPES = ["float32", "float64", "complex64", "complex128"]


def _sign_cases(shapes, axis):
    return [
        pytest.param(shape, lay, dtype, id=f"{shape}-{layout_id(lay)}-{dtype}")
        for shape in shapes
        for lay in [(None, None), (len(shape) + axis, None), (len(shape) + axis, "uneven")]
        for dtype in SIGN_DTYPES
    ]


def _laid_out(a, lay):
    split, counts = lay
    if counts is not None:
        counts = uneven_counts(a.shape[split], SIZE)
    return distribute(a, split, counts)


@pytest.mark.parametrize("shape,lay,dtype", _sign_cases(SIGN_SHAPES, -2))
def test_tall_factors_are_numpys_entry_by_entry(shape, lay, dtype):
    """TSQR's Q, R, U, S, Vh are NumPy's for the whole matrix, not only up to signs."""
    for seed in range(3):
        a = random_array(shape, dtype, seed=10 + seed)
        x = _laid_out(a, lay)
        q, r = la.qr(x)
        eq, er = np.linalg.qr(a)
        _close(q, eq, dtype)
        _close(r, er, dtype)
        u, s, vh = la.svd(x, full_matrices=False)
        for got, expected in zip((u, s, vh), np.linalg.svd(a, full_matrices=False)):
            _close(got, expected, dtype)
        if lay[0] is not None and SIZE > 1:
            assert (q.split, r.split, u.split, vh.split) == (x.split, None, x.split, None)


@pytest.mark.parametrize("shape,lay,dtype", _sign_cases([(4, 40), (4, 6), (2, 3, 9)], -1))
def test_wide_factors_are_numpys_entry_by_entry(shape, lay, dtype):
    """The SVD of a wide matrix split along its columns (TSQR of its conjugate transpose) is
    NumPy's, ``gesdd``'s LQ-first path included."""
    for seed in range(3):
        a = random_array(shape, dtype, seed=20 + seed)
        x = _laid_out(a, lay)
        u, s, vh = la.svd(x, full_matrices=False)
        for got, expected in zip((u, s, vh), np.linalg.svd(a, full_matrices=False)):
            _close(got, expected, dtype)
        if lay[0] is not None and SIZE > 1:
            assert (u.split, vh.split, vh.counts) == (None, x.split, x.counts)


@pytest.mark.parametrize("counts", ["balanced", "uneven"])
@pytest.mark.parametrize("seed", [0, 2, 5, 6])
def test_lda_svd_solver_is_not_mirrored(seed, counts):
    """scikit-learn's LinearDiscriminantAnalysis(solver="svd") with array API dispatch on
    split xdist arrays gives NumPy's fit, signs included (these seeds came out mirrored while
    xdist signed singular vectors its own way)."""
    sklearn = pytest.importorskip("sklearn")
    from interop_support import host, no_gather, split_rows
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    rng = np.random.default_rng(seed)
    X = rng.standard_normal((61, 6)) * np.arange(1, 7) + 3.0
    y = rng.integers(0, 3, 61)
    ref = LinearDiscriminantAnalysis(solver="svd").fit(X, y)
    with sklearn.config_context(array_api_dispatch=True), no_gather():
        Xs = split_rows(X, counts)
        got = LinearDiscriminantAnalysis(solver="svd").fit(Xs, split_rows(y, counts))
        transformed = got.transform(Xs)
    for name in ("scalings_", "coef_", "intercept_"):
        np.testing.assert_allclose(
            host(getattr(got, name)), getattr(ref, name), rtol=1e-8, atol=1e-10, err_msg=name
        )
    np.testing.assert_allclose(host(transformed), ref.transform(X), rtol=1e-8, atol=1e-10)


# -- whole-matrix functions --------------------------------------------------------------------
def _spd(shape, dtype, seed=6):
    a = random_array(shape, dtype, seed)
    n = shape[-1]
    return a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n, dtype=dtype)


def _np_upper_cholesky(a):
    return np.conj(np.swapaxes(np.linalg.cholesky(a), -1, -2))


def _np_power(n):
    return lambda a: np.linalg.matrix_power(a, n)


def _power(n):
    return lambda x: la.matrix_power(x, n)


# name: (xdist function, NumPy oracle, input kind, whether the result has x's shape)
DENSE = {
    "cholesky": (la.cholesky, np.linalg.cholesky, "spd", True),
    "cholesky_upper": (lambda x: la.cholesky(x, upper=True), _np_upper_cholesky, "spd", True),
    "inv": (la.inv, np.linalg.inv, "general", True),
    "det": (la.det, np.linalg.det, "general", False),
    "slogdet": (la.slogdet, np.linalg.slogdet, "general", False),
    "eigvalsh": (la.eigvalsh, np.linalg.eigvalsh, "spd", False),
    "matrix_power_3": (_power(3), _np_power(3), "general", True),
    "matrix_power_-2": (_power(-2), _np_power(-2), "general", True),
    "matrix_power_0": (_power(0), _np_power(0), "general", True),
}
DENSE_CASES = _cases([(4, 4), (2, 2), (3, 3, 3), (0, 0)]) + [
    pytest.param((3, 3), lay, dtype, id=f"(3, 3)-{layout_id(lay)}-{dtype}")
    for lay in [(None, None), (0, None)]
    for dtype in ("complex128", "float32")
]


@pytest.mark.parametrize("name", list(DENSE))
@pytest.mark.parametrize("shape,lay,dtype", DENSE_CASES)
def test_dense_matches_numpy(name, shape, lay, dtype):
    func, oracle, kind, same_shape = DENSE[name]
    a = _spd(shape, dtype) if kind == "spd" else _well_conditioned(shape, dtype, seed=7)
    x = distribute(a, *lay)
    with xdist.count_collectives() as calls:
        got = func(x)
    expected = oracle(a)
    results = list(got) if isinstance(got, tuple) else [got]
    for g, e in zip(results, expected if isinstance(got, tuple) else [expected]):
        _close(g, e, dtype)
    if x.split is not None and x.split < x.ndim - 2:  # batch split: local, a failure flag
        assert set(calls) <= {"allreduce"} and calls["allreduce"] <= 1, calls
        assert all((g.split, g.counts) == (x.split, x.counts) for g in results)
    elif x.split is not None and SIZE > 1:  # gathered once; identical on every rank
        assert dict(calls) == {"allgatherv": 1}, calls
        if same_shape:  # re-split like x by a local slice
            assert (got.split, got.counts) == (x.split, x.counts)
    else:
        assert sum(calls.values()) == 0, calls


@pytest.mark.parametrize("shape,lay,dtype", _cases([(4, 4), (3, 3, 3)], ("float64", "complex128")))
def test_eigh(shape, lay, dtype):
    a = _spd(shape, dtype)
    x = distribute(a, *lay)
    res = la.eigh(x)
    w, v = res
    assert res.eigenvalues is w and res.eigenvectors is v
    _close(w, np.linalg.eigvalsh(a), dtype)
    assert_layout_consistent(v)
    vn, wn = v.to_numpy(), w.to_numpy()
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], atol=1e-9)
    eye = np.broadcast_to(np.eye(shape[-1]), a.shape)
    np.testing.assert_allclose(np.conj(np.swapaxes(vn, -1, -2)) @ vn, eye, atol=1e-9)


@pytest.mark.parametrize("shape,lay,dtype", _cases([(4, 4), (3, 3, 3)], ("float64", "float32")))
def test_eig_and_eigvals(shape, lay, dtype):
    a = random_array(shape, dtype, seed=25)
    x = distribute(a, *lay)
    res = la.eig(x)
    w, v = res
    assert res.eigenvalues is w and res.eigenvectors is v
    complex_dtype = np.dtype("complex64" if dtype == "float32" else "complex128")
    assert w.dtype == v.dtype == la.eigvals(x).dtype == complex_dtype
    expected = np.linalg.eigvals(a).astype(complex_dtype)
    _close(w, expected, dtype)
    _close(la.eigvals(x), expected, dtype)
    assert_layout_consistent(v)
    vn = v.to_numpy()
    np.testing.assert_allclose(a @ vn, vn * w.to_numpy()[..., None, :], atol=RTOL[dtype] * 10)


SOLVE_CASES = [
    ((4, 4), (4,)),
    ((4, 4), (4, 2)),
    ((3, 4, 4), (3, 4, 2)),
    ((3, 4, 4), (4, 2)),
    ((3, 4, 4), (4,)),
    ((1, 4, 4), (3, 4, 1)),
    ((2, 2), (2, 3)),
]


def _solve_cases():
    for s1, s2 in SOLVE_CASES:
        for l1 in layouts(s1):
            for l2 in layouts(s2)[:3]:
                yield pytest.param(s1, s2, l1, l2, id=f"{s1}-{s2}-{layout_id(l1)}-{layout_id(l2)}")


@pytest.mark.parametrize("s1,s2,l1,l2", list(_solve_cases()))
def test_solve_matches_numpy(s1, s2, l1, l2):
    a, b = _well_conditioned(s1, "float64", seed=8), random_array(s2, seed=9)
    x1, x2 = distribute(a, *l1), distribute(b, *l2)
    got = la.solve(x1, x2)
    expected = np.linalg.solve(a, b[..., None])[..., 0] if b.ndim == 1 else np.linalg.solve(a, b)
    _close(got, expected, "float64")


def test_solve_batch_split_is_local():
    a, b = _well_conditioned((5, 3, 3), "float64"), random_array((5, 3, 2), seed=1)
    x1, x2 = distribute(a, 0), distribute(b)
    with xdist.count_collectives() as calls:
        got = la.solve(x1, x2)
    assert dict(calls) == ({"allreduce": 1} if SIZE > 1 else {}), calls  # the failure flag
    assert (got.split, got.counts) == (0, x1.counts)
    _close(got, np.linalg.solve(a, b), "float64")


def _solve_ones(x):
    return la.solve(x, xdist.ones(x.shape[-1:], dtype=x.dtype))


@pytest.mark.parametrize(
    "func,bad",
    [
        (la.inv, np.ones((4, 4))),
        (la.cholesky, -np.eye(4)),
        (_solve_ones, np.zeros((4, 4))),
        (_power(-1), np.zeros((4, 4))),
    ],
    ids=["inv", "cholesky", "solve", "matrix_power"],
)
@pytest.mark.parametrize("split", [None, 0, 1, "batch"])
def test_failure_raises_on_every_rank(func, bad, split):
    if split == "batch":  # the bad matrix lies on the last rank only
        x = distribute(np.stack([np.eye(4)] * (2 * SIZE - 1) + [bad]), 0)
    else:
        x = distribute(bad, split)
    with pytest.raises(linalg_error(x.backend)):  # the backend's LinAlgError
        func(x)
    COMM.barrier()  # every rank got here: nobody waits in a collective


# -- matrix_rank, pinv -------------------------------------------------------------------------
def _rank_deficient(shape, seed=10):
    """Matrices of rank min(M, N) - 1: a column (tall) or row (wide) repeated."""
    a = random_array(shape, seed=seed)
    if min(shape[-2:]) > 1:
        if shape[-2] >= shape[-1]:
            a[..., :, -1] = a[..., :, 0]
        else:
            a[..., -1, :] = a[..., 0, :]
    return a


RANK_CASES = _cases([(7, 3), (3, 7), (2, 5, 3), (0, 2)])


@pytest.mark.parametrize("rtol", [None, 1e-3, "array"])
@pytest.mark.parametrize("shape,lay,dtype", RANK_CASES)
def test_matrix_rank(shape, lay, dtype, rtol):
    a = _rank_deficient(shape)
    x = distribute(a, *lay)
    if rtol == "array":
        r = np.full(shape[:-2], 1e-3)
        kw, tol = {"rtol": distribute(r)}, r[..., None]
    else:
        kw = {} if rtol is None else {"rtol": rtol}
        tol = max(shape[-2:]) * np.finfo(float).eps if rtol is None else rtol
    s = np.linalg.svd(a, compute_uv=False)
    smax = s.max(axis=-1, keepdims=True) if s.size else 0
    assert_equal(la.matrix_rank(x, **kw), np.count_nonzero(s > smax * tol, axis=-1))


@pytest.mark.parametrize("deficient", [False, True], ids=["full", "deficient"])
@pytest.mark.parametrize("shape,lay,dtype", RANK_CASES)
def test_pinv(shape, lay, dtype, deficient):
    a = _rank_deficient(shape) if deficient else random_array(shape, seed=10)
    x = distribute(a, *lay)
    if deficient:  # a cutoff far from the tiny singular value
        got, expected = la.pinv(x, rtol=1e-8), np.linalg.pinv(a, rcond=1e-8)
    else:
        got, expected = la.pinv(x), np.linalg.pinv(a, rcond=max(shape[-2:]) * 2.3e-16)
    _close(got, expected, dtype)


def test_pinv_of_tall_skinny_sends_only_small_messages():
    """``pinv`` through ``svd``: Cholesky QR's Gram matrices (one for a well-conditioned
    matrix, two for one conditioned 100), nothing else."""
    for cond, grams in ((2.0, 1), (100.0, 2)):
        a = _below_conditioned((30, 3), cond, seed=11)
        x = distribute(a, 0)
        with xdist.count_collectives() as calls:
            got = la.pinv(x)
        assert dict(calls) == ({"allgatherv": grams} if SIZE > 1 else {}), calls
        assert (got.split, got.counts) == (1, x.counts)
        _close(got, np.linalg.pinv(a), "float64")


# -- norms -------------------------------------------------------------------------------------
def _np_vector_norm(a, axis, ord, keepdims):
    axes = range(a.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = tuple(ax % a.ndim for ax in axes)
    rest = [i for i in range(a.ndim) if i not in axes]
    flat = np.transpose(a, (*axes, *rest)).reshape(-1, *[a.shape[i] for i in rest])
    out = np.linalg.norm(flat, ord=ord, axis=0)
    return np.expand_dims(out, axes) if keepdims else out


@pytest.mark.parametrize("ord", [2, 1, 0, np.inf, -np.inf, -1, 3.5], ids=str)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)], ids=str)
@pytest.mark.parametrize("shape,lay,dtype", _cases([(7, 5)]))
def test_vector_norm(shape, lay, dtype, axis, ord):
    a = random_array(shape, dtype, seed=12)
    a[0, 1] = 0  # a zero for ord 0 and the negative orders
    x = distribute(a, *lay)
    with xdist.count_collectives() as calls, np.errstate(divide="ignore"):
        got = la.vector_norm(x, axis=axis, ord=ord, keepdims=axis == 0)
        expected = _np_vector_norm(a, axis, ord, axis == 0)
    _close(got, expected, dtype)
    assert set(calls) <= {"allreduce"} and calls["allreduce"] <= 1, calls


@pytest.mark.parametrize("axis", [None, (0, 2), 1, ()], ids=str)
@pytest.mark.parametrize("shape,lay,dtype", _cases([(2, 3, 4), ()]))
def test_vector_norm_axes(shape, lay, dtype, axis):
    if shape == () and axis not in (None, ()):
        return
    a = random_array(shape, dtype, seed=13)
    got = la.vector_norm(distribute(a, *lay), axis=axis, keepdims=True)
    _close(got, _np_vector_norm(a, axis, 2, True), dtype)


@pytest.mark.parametrize("dtype", ["float32", "complex128", "complex64"])
def test_vector_norm_dtypes(dtype):
    a = random_array((7, 3), dtype, seed=13)
    got = la.vector_norm(distribute(a, 0))
    real = "float32" if dtype in ("float32", "complex64") else "float64"
    assert got.dtype == np.dtype(real)
    _close(got, np.linalg.norm(a.reshape(-1)).astype(real), "float32")


MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("ord", MATRIX_ORDS, ids=str)
@pytest.mark.parametrize("shape,lay,dtype", _cases([(7, 5), (3, 4, 5), (2, 3)]))
def test_matrix_norm(shape, lay, dtype, ord):
    a = random_array(shape, dtype, seed=14)
    x = distribute(a, *lay)
    keepdims = ord in ("fro", 1)
    with xdist.count_collectives() as calls:
        got = la.matrix_norm(x, ord=ord, keepdims=keepdims)
    _close(got, np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims), dtype)
    if ord in ("nuc", 2, -2):  # svdvals: TSQR or a gather, or a failure flag
        assert sum(calls.values()) <= 1, calls
    else:  # one allreduce over a split matrix axis, else nothing
        assert dict(calls) == ({"allreduce": 1} if split_on_matrix(x) else {}), calls


def split_on_matrix(x):
    return x.split is not None and x.split >= x.ndim - 2 and SIZE > 1


def test_matrix_norm_complex():
    a = random_array((6, 4), "complex128", seed=15)
    got = la.matrix_norm(distribute(a, 1), ord="fro")
    assert got.dtype == np.float64
    _close(got, np.linalg.norm(a, "fro"), "float64")


# -- diagonal, trace, outer, cross -------------------------------------------------------------
@pytest.mark.parametrize("offset", [-3, -1, 0, 1, 4, 10])
@pytest.mark.parametrize("shape,lay,dtype", _cases([(7, 5), (5, 7), (3, 4, 5), (2, 3)]))
def test_diagonal_sends_nothing(shape, lay, dtype, offset):
    a = random_array(shape, dtype, seed=16)
    x = distribute(a, *lay)
    with xdist.count_collectives() as calls:
        got = la.diagonal(x, offset=offset)
    assert sum(calls.values()) == 0, calls
    assert_equal(got, np.diagonal(a, offset, -2, -1))
    if x.split is not None and x.split >= x.ndim - 2:
        assert got.split == got.ndim - 1  # each rank holds the entries of its block
    got.local[...] = 0  # blocks are writable


@pytest.mark.parametrize("offset", [-1, 0, 2])
@pytest.mark.parametrize("shape,lay,dtype", _cases([(7, 5), (3, 4, 5)], ("float64", "int32")))
def test_trace(shape, lay, dtype, offset):
    a = random_array(shape, dtype, seed=17)
    x = distribute(a, *lay)
    with xdist.count_collectives() as calls:
        got = la.trace(x, offset=offset)
    acc = "int64" if dtype == "int32" else dtype  # the dtype rules of sum
    assert_equal(got, np.trace(a, offset, -2, -1, dtype=acc), rtol=1e-12)
    assert dict(calls) == ({"allreduce": 1} if split_on_matrix(x) else {}), calls


@pytest.mark.parametrize(
    "dtype,kw,expected",
    [
        ("int8", {}, "int64"),
        ("float32", {}, "float32"),
        ("int16", {"dtype": "float64"}, "float64"),
        ("complex128", {}, "complex128"),
    ],
)
def test_trace_dtypes(dtype, kw, expected):
    a = random_array((5, 5), dtype, seed=18)
    got = la.trace(distribute(a, 0), **kw)
    assert_equal(got, np.trace(a, dtype=expected), rtol=1e-5)


def _outer_cases():
    for l1 in layouts((7,)):
        for l2 in layouts((4,)):
            yield pytest.param(l1, l2, id=f"{layout_id(l1)}-{layout_id(l2)}")


@pytest.mark.parametrize("l1,l2", list(_outer_cases()))
def test_outer(l1, l2):
    a, b = random_array((7,), seed=18), random_array((4,), "int32", seed=19)
    x1, x2 = distribute(a, *l1), distribute(b, *l2)
    with xdist.count_collectives() as calls:
        got = la.outer(x1, x2)
    assert_equal(got, np.outer(a, b))
    if x1.split is not None:
        assert (got.split, got.counts) == (0, x1.counts)
    elif x2.split is not None:
        assert (got.split, got.counts) == (1, x2.counts)
    both = x1.split is not None and x2.split is not None and SIZE > 1
    assert dict(calls) == ({"allgatherv": 1} if both else {}), calls


CROSS_CASES = [
    ((5, 3), (5, 3), -1),
    ((5, 3), (3,), -1),
    ((3,), (3,), -1),
    ((3, 4), (3, 1), -2),
    ((2, 3), (4, 1, 3), -1),
]


@pytest.mark.parametrize("s1,s2,axis,l1,l2", list(layout_pair_params(CROSS_CASES, 2)))
def test_cross(s1, s2, axis, l1, l2):
    a, b = random_array(s1, seed=20), random_array(s2, "int64", seed=21)
    got = la.cross(distribute(a, *l1), distribute(b, *l2), axis=axis)
    assert_equal(got, np.cross(a, b, axis=axis), rtol=1e-12)


def test_cross_of_rows_sends_nothing():
    a, b = random_array((7, 3), seed=22), random_array((7, 3), seed=23)
    x1, x2 = distribute(a, 0), distribute(b, 0)
    with xdist.count_collectives() as calls:
        got = la.cross(x1, x2)
    assert sum(calls.values()) == 0, calls
    assert (got.split, got.counts) == (0, x1.counts)
    assert_equal(got, np.cross(a, b), rtol=1e-12)


# -- the namespace, result types, and errors before any message --------------------------------
def test_namespace():
    names = """cholesky cross det diagonal eig eigh eigvals eigvalsh inv matmul matrix_norm
        matrix_power
        matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace
        vecdot vector_norm""".split()
    numpy_names = ["lstsq", "norm"]  # NumPy's, beyond the standard's extension
    assert sorted(la.__all__) == sorted(names + numpy_names)
    assert all(callable(getattr(la, name)) for name in names)
    assert la.matmul is xdist.matmul and la.tensordot is xdist.tensordot
    assert la.vecdot is xdist.vecdot and la.matrix_transpose is xdist.matrix_transpose


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "complex64"])
def test_result_types(dtype):
    x = distribute(_spd((3, 3), dtype), 0)
    real = np.dtype("float32" if dtype in ("float32", "complex64") else "float64")
    assert la.inv(x).dtype == dtype and la.det(x).dtype == dtype
    assert la.svdvals(x).dtype == real and la.eigvalsh(x).dtype == real
    assert la.matrix_norm(x).dtype == real and la.vector_norm(x).dtype == real
    q, r = res = la.qr(x)
    assert (res.Q, res.R) == (q, r) and r.dtype == dtype
    sign, logabs = res = la.slogdet(x)
    assert (res.sign, res.logabsdet) == (sign, logabs) and logabs.dtype == real
    u, s, vh = res = la.svd(x)
    assert (res.U, res.S, res.Vh) == (u, s, vh) and s.dtype == real and u.dtype == dtype
    assert la.matrix_rank(x).dtype == np.int64


class _m:  # noqa: N801 (an operand to build before counting messages)
    def __init__(self, shape=(4, 4), dtype="float64", split=0):
        self.shape, self.dtype, self.split = shape, dtype, split

    def build(self):
        return distribute(random_array(self.shape, self.dtype, seed=24), self.split)


ERRORS = [
    (la.qr, [_m(dtype="int64")], TypeError, "qr: x must have a floating-point dtype"),
    (lambda *a: la.qr(*a, mode="r"), [_m()], ValueError, "qr: mode must be"),
    (la.svd, [_m((4,))], ValueError, "svd: x must be at least 2-D"),
    (
        lambda *a: la.svd(*a, full_matrices=1),
        [_m()],
        TypeError,
        "svd: full_matrices must be a bool",
    ),
    (la.svdvals, [_m(dtype="bool")], TypeError, "svdvals: x must have a floating"),
    (la.inv, [_m((4, 3))], ValueError, "inv: x must hold square matrices"),
    (la.det, [_m((3,))], ValueError, "det: x must be at least 2-D"),
    (lambda *a: la.cholesky(*a, upper=1), [_m()], TypeError, "cholesky: upper must be a bool"),
    (la.eigh, [_m((3, 4))], ValueError, "eigh: x must hold square matrices"),
    (lambda *a: la.matrix_power(*a, 1.5), [_m()], TypeError, "matrix_power: n must be an int"),
    (la.solve, [_m(), _m((3,))], ValueError, "solve: x2 has 3 rows"),
    (la.solve, [_m((2, 4, 4)), _m((3, 4, 1))], ValueError, "solve: the batch dimensions"),
    (la.solve, [_m(), _m(dtype="int32")], TypeError, "solve: x2 must have a floating"),
    (la.matrix_rank, [_m((4,))], ValueError, "matrix_rank: x must be at least 2-D"),
    (lambda *a: la.pinv(*a, rtol="big"), [_m()], TypeError, "pinv: rtol must be"),
    (
        lambda x, r: la.pinv(x, rtol=r),
        [_m((2, 3, 3)), _m((4,), split=None)],
        ValueError,
        "pinv: rtol",
    ),
    (lambda *a: la.matrix_norm(*a, ord=3), [_m()], ValueError, "matrix_norm: ord must be one of"),
    (lambda *a: la.matrix_norm(*a, keepdims=None), [_m()], TypeError, "matrix_norm: keepdims"),
    (lambda *a: la.vector_norm(*a, axis=2), [_m()], IndexError, "vector_norm: axis 2"),
    (lambda *a: la.vector_norm(*a, ord="fro"), [_m()], ValueError, "vector_norm: ord"),
    (la.vector_norm, [_m(dtype="int64")], TypeError, "vector_norm: x must have"),
    (la.diagonal, [_m((4,))], ValueError, "diagonal: x must be at least 2-D"),
    (lambda *a: la.diagonal(*a, offset=1.0), [_m()], TypeError, "diagonal: offset must be an int"),
    (la.trace, [_m(dtype="bool")], TypeError, "trace: x must have a numeric dtype"),
    (lambda *a: la.trace(*a, dtype="bogus"), [_m()], TypeError, "trace: dtype"),
    (la.outer, [_m(), _m((4,))], ValueError, "outer: x1 and x2 must be 1-D"),
    (la.outer, [_m((4,)), _m((4,), dtype="bool")], TypeError, "outer: x2"),
    (
        lambda *a: la.cross(*a, axis=1),
        [_m((4, 3)), _m((4, 3))],
        ValueError,
        "cross: axis 1 must be",
    ),
    (la.cross, [_m((4, 2)), _m((4, 2))], ValueError, "cross: axis -1 must have 3"),
    (la.cross, [_m((4, 3)), _m((5, 3))], ValueError, "cross: shapes"),
]


@pytest.mark.parametrize("func,operands,exc,match", ERRORS, ids=[e[3] for e in ERRORS])
def test_errors_before_any_message(func, operands, exc, match):
    arrays = [op.build() for op in operands]
    with xdist.count_collectives() as calls, pytest.raises(exc) as info:
        func(*arrays)
    assert match in str(info.value), info.value
    assert sum(calls.values()) == 0, calls
