"""An array that a creation function made replicated only because no split was asked for
(``xp.empty(shape)``) takes the split of split data written into it whole along an axis,
instead of gathering that data to every rank (``_indexing.basic._takes_split``): what
scikit-learn's ``PolynomialFeatures`` does, filling ``xp.empty`` column by column. Against
NumPy at every rank count, uneven and empty blocks, with what is sent; and the cases that
keep the replicated layout and gather: a split asked for, a view or a handed-out block, a
part of the split axis whose rows do not lie where a balanced split puts them, a small
array. Batches of rows written in turn (scikit-learn's float32 ``pairwise_distances``) make
the array split with balanced counts where each rank's rows of each batch are its own."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import SIZE, distribute, random_array, uneven_counts

import xdist

N, F = 23, 4


def _x(counts=None, split=0):
    return distribute(random_array((N, F), "float64", seed=1), split, counts)


def _fill(XP, x):
    """PolynomialFeatures' order: a scalar column, then split columns, then products."""
    XP[:, 0] = 1.0
    XP[:, 1 : 1 + F] = x
    XP[:, 1 + F : 1 + 2 * F] = XP[:, 1 : 1 + F] * x[:, 0:1]


def _expected():
    a = random_array((N, F), "float64", seed=1)
    out = np.empty((N, 1 + 2 * F))
    out[:, 0] = 1.0
    out[:, 1 : 1 + F] = a
    out[:, 1 + F :] = a * a[:, 0:1]
    return out


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_an_empty_array_filled_by_split_columns_is_split(counts):
    counts = uneven_counts(N, SIZE) if counts else None
    x = _x(counts)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)  # nothing is gathered
        XP = xdist.empty((N, 1 + 2 * F), dtype=xdist.float64)
        _fill(XP, x)
    assert XP.split == 0 and XP.counts == x.counts
    np.testing.assert_array_equal(XP.to_numpy(), _expected())


def test_it_sends_one_flag():
    x = _x()
    with xdist.config_context(gather_warning_elements=0):
        XP = xdist.zeros((N, 1 + 2 * F), dtype=xdist.float64)
        XP[:, 0] = 1.0
        with xdist.count_collectives() as counts:
            XP[:, 1 : 1 + F] = x  # the agreement that every rank may split it, no data
        assert dict(counts) == ({"allreduce": 1} if SIZE > 1 else {})
        assert sum(counts.bytes.values()) <= 8
        XP[:, 1 + F :] = XP[:, 1 : 1 + F] * x[:, 0:1]
    np.testing.assert_array_equal(XP.to_numpy(), _expected())


def test_a_second_axis_is_taken_too():
    a = random_array((F, N), "float64", seed=2)
    x = distribute(a, 1)
    with xdist.config_context(gather_warning_elements=0):
        Z = xdist.full((2, F, N), 3.0, dtype=xdist.float64)
        Z[1] = x
    assert Z.split == 2
    expected = np.full((2, F, N), 3.0)
    expected[1] = a
    np.testing.assert_array_equal(Z.to_numpy(), expected)


@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize("n", [2 * N, 2 * N + 1])
def test_an_interleaved_fill_makes_it_split_where_each_stride_lands(counts, n):
    """``out[::2] = a; out[1::2] = b; out[-1] = c`` along the split axis (SciPy's
    ``cumulative_simpson``, upsampling): the first stride makes the array split with the
    blocks starting where each rank's rows of ``a`` land; the second stride moves only its
    own elements, and nothing is gathered; uneven and empty blocks of ``a``."""
    half = (n + 1) // 2
    ga = random_array((half, 3), "float64", seed=4)
    gb = random_array((n - half, 3), "float64", seed=5)
    a = distribute(ga, 0, uneven_counts(half, SIZE) if counts else None)
    b = distribute(gb, 0)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        out = xdist.empty((n, 3), dtype=xdist.float64)
        out[::2] = a
        assert out.split == 0
        out[1::2] = b
        out[-1] = b[-1] if n % 2 == 0 else a[-1]
    expected = np.empty((n, 3))
    expected[::2], expected[1::2] = ga, gb
    expected[-1] = gb[-1] if n % 2 == 0 else ga[-1]
    assert out.split == 0
    lo, hi = out.layout.local_range(xdist.default_comm().rank)
    assert all(lo <= 2 * i < hi for i in range(*a.layout.local_range(xdist.default_comm().rank)))
    np.testing.assert_array_equal(out.to_numpy(), expected)


@pytest.mark.parametrize("make", ["empty", "zeros"])
def test_batches_of_rows_make_it_split_where_their_rows_are_balanced(make):
    """scikit-learn's float32 distances fill ``xp.empty((n, m))`` by batches of rows of the
    split data: the first batch makes the array split with balanced counts (the rows each
    rank holds of it are its own), and no batch is gathered. Rows not written keep their
    values (``zeros``)."""
    x = _x()
    expected = np.zeros((N, 1 + 2 * F)) if make == "zeros" else _expected()
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        XP = getattr(xdist, make)((N, 1 + 2 * F), dtype=xdist.float64)
        with xdist.count_collectives() as counts:
            for lo, hi in ((0, 5), (5, 14), (14, N)) if make == "empty" else ((3, 9),):
                XP[lo:hi, 1 : 1 + F] = x[lo:hi]
                XP[lo:hi, 1 + F :] = x[lo:hi] * x[lo:hi, 0:1]
                XP[lo:hi, 0] = 1.0
    if make == "zeros":
        a = random_array((N, F), "float64", seed=1)
        expected[3:9, 0] = 1.0
        expected[3:9, 1 : 1 + F] = a[3:9]
        expected[3:9, 1 + F :] = a[3:9] * a[3:9, 0:1]
    assert XP.split == 0 and XP.counts == x.counts
    assert dict(counts) == ({"allreduce": 1} if SIZE > 1 else {})  # the flag, no data
    np.testing.assert_array_equal(XP.to_numpy(), expected)


@pytest.mark.parametrize("case", ["split_none", "view", "handed_out", "part", "small"])
def test_what_keeps_it_replicated(case):
    """A layout asked for, a block something else refers to, a part of the split axis whose
    rows lie elsewhere than a balanced split would put them, or an array no larger than
    ``gather_warning_elements``: the data is gathered, as before."""
    x = _x(uneven_counts(N, SIZE) if case == "part" else None)
    threshold = 10**9 if case == "small" else 0
    with xdist.config_context(gather_warning_elements=threshold), warnings.catch_warnings():
        warnings.simplefilter("ignore", xdist.GatherWarning)
        kwargs = {"split": None} if case == "split_none" else {}
        XP = xdist.empty((N, 1 + 2 * F), dtype=xdist.float64, **kwargs)
        held = XP[:, 2] if case == "view" else XP.local if case == "handed_out" else None
        if case == "part":
            XP[:, 0] = 1.0
            for lo, hi in ((5, N), (0, 9)):  # some rank's rows of each outside its share
                XP[lo:hi, 1 : 1 + F] = x[lo:hi]
                XP[lo:hi, 1 + F :] = x[lo:hi] * x[lo:hi, 0:1]
        else:
            _fill(XP, x)
    assert XP.split is None or (case == "part" and SIZE == 1)  # one rank holds them all
    np.testing.assert_array_equal(XP.to_numpy(), _expected())
    if case == "view":
        np.testing.assert_array_equal(xdist.to_numpy(held), _expected()[:, 2])
    del held


def _mask_and_rows(counts):
    """A split mask over the rows of ``_x`` and the selected rows (SciPy's elementwise
    solvers: ``x_eval[ir] = work.x[ir][:, None] + hr[ir]``)."""
    a = random_array((N, F), "float64", seed=1)
    x = _x(uneven_counts(N, SIZE) if counts else None)
    return a, x, x[:, 0] > 0.0


@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize("value", ["rows", "scalar"])
def test_a_split_mask_written_through_makes_it_split_like_the_mask(counts, value):
    """``z[mask] = rows`` (or a scalar) into ``zeros`` with a split mask: ``z`` takes the
    mask's split, and neither the mask nor the rows are gathered; the flag and the rows'
    counts are all that is sent."""
    a, x, m = _mask_and_rows(counts)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        rows = x[m] * 2.0 if value == "rows" else 7.0
        z = xdist.zeros((N, F), dtype=xdist.float64)
        with xdist.count_collectives() as sent:
            z[m] = rows
        z[~m] = -1.0  # a second write, into the split array
    assert z.split == 0 and z.counts == x.counts
    assert sum(sent.bytes.values()) <= 16 * SIZE  # a flag and the counts of rows, no data
    expected = np.zeros((N, F))
    expected[a[:, 0] > 0] = a[a[:, 0] > 0] * 2.0 if value == "rows" else 7.0
    expected[~(a[:, 0] > 0)] = -1.0
    np.testing.assert_array_equal(z.to_numpy(), expected)


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_split_indices_in_rank_order_make_it_split_where_each_ranks_indices_are(counts):
    """``res[active] = val`` with ``active = arange(n)[~stop]`` split (SciPy's
    ``_update_active``): each rank's indices lie in a run of its own, so ``res`` takes a
    split whose blocks hold them (the data's own counts when every index is there) and
    nothing is gathered; a later write with fewer indices keeps that layout."""
    a, x, m = _mask_and_rows(counts)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("error", xdist.GatherWarning)
        everything = xdist.arange(N)[x[:, 0] < 9]  # every index, split like x
        res = xdist.zeros(N, dtype=xdist.float64)
        res[everything] = x[:, 1]
        assert res.split == 0 and res.counts == x.counts
        active = xdist.arange(N)[m]
        some = xdist.full(N, -1.0, dtype=xdist.float64)
        some[active] = x[:, 2][m]
        assert some.split == 0
        lo, hi = some.layout.local_range(xdist.default_comm().rank)
        assert all(lo <= i < hi for i in active.local.tolist())
        res[active] = 5.0
    expected = a[:, 1].copy()
    expected[a[:, 0] > 0] = 5.0
    np.testing.assert_array_equal(res.to_numpy(), expected)
    expected = np.full(N, -1.0)
    expected[a[:, 0] > 0] = a[a[:, 0] > 0, 2]
    np.testing.assert_array_equal(some.to_numpy(), expected)


@pytest.mark.parametrize("case", ["shuffled", "view", "out_of_bounds"])
def test_indices_that_keep_it_replicated(case):
    """Indices out of rank order (a shuffle, at more than one rank), a view of the array
    held, or an index out of bounds (the same IndexError as any write): the array keeps its
    replicated layout."""
    a = random_array((N,), "float64", seed=3)
    order = np.random.default_rng(0).permutation(N) if case == "shuffled" else np.arange(N)
    if case == "out_of_bounds":
        order[-1] = N
    idx = distribute(order, 0)
    v = distribute(a, 0)
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("ignore", xdist.GatherWarning)
        z = xdist.zeros(N, dtype=xdist.float64)
        held = z[1:] if case == "view" else None
        if case == "out_of_bounds":
            with pytest.raises(IndexError, match="out of bounds"):
                z[idx] = v
            return
        z[idx] = v
    assert z.split is None or (case == "shuffled" and SIZE == 1)  # one rank: one run
    expected = np.zeros(N)
    expected[order] = a
    np.testing.assert_array_equal(z.to_numpy(), expected)
    if case == "view":
        np.testing.assert_array_equal(xdist.to_numpy(held), a[1:])


@pytest.mark.parametrize("held", [False, True])
def test_a_flattened_array_made_replicated_by_default_takes_the_split_too(held):
    """``xp.reshape(xp.full((n, m), v), (-1,))`` (SciPy's ``xp_ravel`` of 2-D work arrays in
    ``tanhsinh``) is made replicated by default as well: a split mask written through it
    splits it, nothing gathered. While the 2-D array is held, the flat one is its view:
    writes through it must reach the 2-D array, so both keep the replicated layout."""
    a, x, _ = _mask_and_rows(None)
    flat_mask = xdist.reshape(x > 0.0, (-1,))  # split, N * F
    with xdist.config_context(gather_warning_elements=0), warnings.catch_warnings():
        warnings.simplefilter("ignore" if held else "error", xdist.GatherWarning)
        full = xdist.full((N, F), 2.0, dtype=xdist.float64)
        z = xdist.reshape(full, (-1,))
        if not held:
            del full
        z[flat_mask] = -1.0
    expected = np.full(N * F, 2.0)
    expected[(a > 0).ravel()] = -1.0
    np.testing.assert_array_equal(z.to_numpy(), expected)
    if held:
        assert z.split is None and full.split is None
        np.testing.assert_array_equal(full.to_numpy(), expected.reshape(N, F))
    else:
        assert z.split == 0 and z.counts == flat_mask.counts
