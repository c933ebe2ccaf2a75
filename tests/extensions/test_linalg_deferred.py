"""``svd``'s ``U`` of a tall matrix is a ``Deferred`` array (``xdist/_deferred.py``): made on
first use, and ``U.T @ y`` taken without making it. Against NumPy on every layout that takes
the path (split along rows at any rank count, uneven and empty blocks; whole at one rank),
with what it sends, and the cases where it must be made: writes into ``U``, into its
transpose, into the factored matrix, other operands."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, random_array, uneven_counts

import xdist
import xdist.linalg as la
from xdist._deferred import Deferred

M, N = 40, 5
RTOL = 1e-10


def _matrix(seed=0) -> np.ndarray:
    a = random_array((M, N), "float64", seed)
    a[range(N), range(N)] += 3.0
    return a


def _layouts():
    out = [pytest.param(0, None, id="s0"), pytest.param(0, uneven_counts(M, SIZE), id="s0u")]
    if SIZE == 1:
        out.append(pytest.param(None, None, id="rep"))
    return out


def _u(a: np.ndarray) -> np.ndarray:
    return np.linalg.svd(a, full_matrices=False)[0]


@pytest.mark.parametrize(("split", "counts"), _layouts())
def test_u_is_deferred_and_made_as_numpy_gives_it(split, counts):
    a = _matrix()
    u, s, vh = la.svd(distribute(a, split, counts), full_matrices=False)
    assert isinstance(u, Deferred) and not u.formed
    # what is known without making it
    assert u.shape == (M, N) and u.dtype == np.float64 and u.split == split
    assert u.device == s.device and not u.formed
    un, sn, vhn = np.linalg.svd(a, full_matrices=False)
    assert_equal(u, un, rtol=RTOL, atol=RTOL)
    assert u.formed
    assert_equal(s, sn, rtol=RTOL, atol=RTOL)
    assert_equal(vh, vhn, rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize("ncols", [None, 1, 3])
@pytest.mark.parametrize(("split", "counts"), _layouts())
def test_u_transpose_times_y_without_making_u(split, counts, ncols):
    a = _matrix()
    yn = random_array((M,) if ncols is None else (M, ncols), "float64", 1)
    x, y = distribute(a, split, counts), distribute(yn, split, counts)
    u, _, _ = la.svd(x, full_matrices=False)
    ut = u.T
    assert isinstance(ut, Deferred) and ut.shape == (N, M)
    with xdist.count_collectives() as calls:
        got = ut @ y
    assert not u.formed and not ut.formed
    # the eager product sums the ranks' parts with one allreduce; this sends the same
    assert dict(calls) == ({"allreduce": 1} if split is not None and SIZE > 1 else {})
    assert got.split is None
    assert_equal(got, _u(a).T @ yn, rtol=RTOL, atol=RTOL)
    assert_equal(u.mT @ y, _u(a).T @ yn, rtol=RTOL, atol=RTOL)
    assert not u.formed


@pytest.mark.parametrize(("split", "counts"), _layouts())
def test_transpose_made_is_the_eager_transpose(split, counts):
    a = _matrix()
    u, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    ut = u.T
    eager = xdist.permute_dims(la.svd(distribute(a, split, counts), full_matrices=False)[0], (1, 0))
    assert ut.layout == eager.layout
    assert_equal(ut, _u(a).T, rtol=RTOL, atol=RTOL)
    assert ut.formed


@pytest.mark.parametrize(("split", "counts"), _layouts())
def test_writes_reach_the_products(split, counts):
    """A write into ``U`` makes it, and a transpose taken before sees the write, as the
    eager transpose (a view) does; a write into the transpose reaches ``U``."""
    a = _matrix()
    yn = random_array((M,), "float64", 1)
    y = distribute(yn, split, counts)
    u, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    ut = u.T
    u *= -1.0
    assert u.formed
    assert_equal(ut @ y, -(_u(a).T @ yn), rtol=RTOL, atol=RTOL)
    u2, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    ut2 = u2.T
    ut2[0, :] = 0.0
    expected = _u(a)
    expected[:, 0] = 0.0
    assert_equal(u2, expected, rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize(("split", "counts"), _layouts())
def test_a_later_write_into_the_matrix_does_not_reach_u(split, counts):
    a = _matrix()
    x = distribute(a, split, counts)
    yn = random_array((M,), "float64", 1)
    y = distribute(yn, split, counts)
    u, _, _ = la.svd(x, full_matrices=False)
    ut = u.T
    x[...] = 0.0
    x.local[...] = 7.0  # the block itself, as a user may write it
    assert_equal(ut @ y, _u(a).T @ yn, rtol=RTOL, atol=RTOL)
    assert_equal(u, _u(a), rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize(("split", "counts"), _layouts())
def test_other_operands_make_u(split, counts):
    """Another dtype, another layout, a 3-D operand: ``U`` is made and the product is the
    eager one (promotion, moves and errors included)."""
    a = _matrix()
    yn = random_array((M, 2), "float64", 1)
    u, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    y32 = distribute(yn.astype(np.float32), split, counts)
    assert_equal(u.T @ y32, _u(a).T @ yn.astype(np.float32), rtol=RTOL, atol=RTOL)
    assert u.formed
    u, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    rep = distribute(yn)
    assert_equal(u.T @ rep, _u(a).T @ yn, rtol=RTOL, atol=RTOL)
    u, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    with pytest.raises(ValueError):
        u.T @ distribute(random_array((M + 1,), "float64", 2), split)
    u, _, _ = la.svd(distribute(a, split, counts), full_matrices=False)
    stack = distribute(random_array((2, M, 3), "float64", 3))
    assert_equal(u.T @ stack, _u(a).T @ stack.to_numpy(), rtol=RTOL, atol=RTOL)


def test_only_tall_matrices_defer():
    """Stacks and matrices less than twice as tall as wide (at one rank) are made at once."""
    stack = la.svd(distribute(random_array((2, M, N), "float64", 0), 1), full_matrices=False)
    assert not isinstance(stack[0], Deferred)
    square = la.svd(distribute(random_array((N, N), "float64", 0)), full_matrices=False)
    assert not isinstance(square[0], Deferred)
