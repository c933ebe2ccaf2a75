"""matmul and matrix_transpose: every layout of both operands against NumPy, what the planner
picks, how much it communicates, and errors raised before any message."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    SIZE,
    assert_equal,
    comm_params,
    distribute,
    layout_id,
    layout_pair_params,
    layouts,
    random_array,
    uneven_counts,
)

import xdist
from xdist import Layout
from xdist._layout import intersect, resolve
from xdist._ops.matmul_plan import Cost, Plan, choose_plan, move_cost, plan_cost, ring_cost

SHAPES = [
    ((7, 5), (5, 3)),
    ((2, 3), (3, 2)),  # empty blocks at 3 ranks
    ((5,), (5, 4)),
    ((4, 5), (5,)),
    ((5,), (5,)),
    ((3, 7, 5), (3, 5, 2)),
    ((1, 7, 5), (3, 5, 2)),  # broadcast batch
    ((7, 0), (0, 3)),
]
DTYPES = [("float64", "float64"), ("int64", "int64"), ("float32", "float64")]


def _cases():
    for s1, s2 in SHAPES:
        for l1 in layouts(s1):
            for l2 in layouts(s2):
                yield pytest.param(s1, s2, l1, l2, id=f"{s1}@{s2}-{layout_id(l1)}-{layout_id(l2)}")


def _rtol(dtype) -> float:
    return 0.0 if np.dtype(dtype).kind in "iu" else 1e-12


@pytest.mark.parametrize("dtypes", DTYPES, ids=["f8", "i8", "f4f8"])
@pytest.mark.parametrize("s1,s2,l1,l2", list(_cases()))
def test_matmul_matches_numpy(s1, s2, l1, l2, dtypes):
    g1 = random_array(s1, dtypes[0], seed=1)
    g2 = random_array(s2, dtypes[1], seed=2)
    expected = np.matmul(g1, g2)
    got = xdist.matmul(distribute(g1, *l1), distribute(g2, *l2))
    assert_equal(got, expected, rtol=_rtol(expected.dtype))


def test_matmul_complex():
    g1 = random_array((7, 5), "complex128", seed=3)
    g2 = random_array((5, 3), "complex128", seed=4)
    got = xdist.matmul(distribute(g1, 1), distribute(g2, 0))
    assert_equal(got, g1 @ g2, rtol=1e-12)


@comm_params
@pytest.mark.parametrize("splits", [(1, 0), (0, 1), (0, None)], ids=["K", "R-gather", "R"])
def test_matmul_on_every_communicator(comm, splits):
    g1, g2 = random_array((7, 5), seed=1), random_array((5, 3), seed=2)
    x1 = distribute(g1, splits[0], comm=comm)
    x2 = distribute(g2, splits[1], comm=comm)
    y = x1 @ x2
    assert y.comm is comm
    assert_equal(y, g1 @ g2, rtol=1e-12)


# -- communication ------------------------------------------------------------------------------


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_rows_split_times_replicated_sends_nothing(counts):
    g1, g2 = random_array((7, 5), seed=1), random_array((5, 3), seed=2)
    x1 = distribute(g1, 0, layouts(g1.shape)[-1][1] if counts else None)
    x2 = distribute(g2)
    with xdist.count_collectives() as sent:
        y = xdist.matmul(x1, x2)
    assert sum(sent.values()) == 0, sent
    assert (y.split, y.counts) == (0, x1.counts)
    assert_equal(y, g1 @ g2, rtol=1e-12)


@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_vector_dot_of_one_layout_is_one_allreduce(n, dtype):
    """Two vectors of one layout (the steps of coordinate descent): the local dots and,
    when split over several ranks, one allreduce of one element; uneven and empty blocks."""
    g1 = random_array((n,), dtype, seed=1)
    g2 = random_array((n,), dtype, seed=2)
    for case in layouts((n,)):
        x1, x2 = distribute(g1, *case), distribute(g2, *case)
        with xdist.count_collectives() as sent:
            y = x1 @ x2
        split = case[0] is not None and SIZE > 1
        assert sent == (Counter({"allreduce": 1}) if split else Counter()), (case, sent)
        assert (y.shape, y.split, y.dtype) == ((), None, np.dtype(dtype))
        assert_equal(y, np.asarray(g1 @ g2), rtol=1e-12)


def test_replicated_times_columns_split_sends_nothing():
    g1, g2 = random_array((4, 5), seed=1), random_array((5, 7), seed=2)
    x2 = distribute(g2, 1)
    with xdist.count_collectives() as sent:
        y = xdist.matmul(distribute(g1), x2)
    assert sum(sent.values()) == 0, sent
    assert (y.split, y.counts) == (1, x2.counts)
    assert_equal(y, g1 @ g2, rtol=1e-12)


@pytest.mark.parametrize(
    "s1,s2", [((3, 7, 5), (3, 5, 2)), ((3, 7, 5), (1, 5, 2)), ((3, 7, 5), (5, 2))]
)
def test_batch_split_sends_nothing(s1, s2):
    g1, g2 = random_array(s1, seed=1), random_array(s2, seed=2)
    x1 = distribute(g1, 0)
    x2 = distribute(g2, 0) if s2[0] == s1[0] else distribute(g2)
    with xdist.count_collectives() as sent:
        y = xdist.matmul(x1, x2)
    assert sum(sent.values()) == 0, sent
    assert (y.split, y.counts) == (0, x1.counts)
    assert_equal(y, g1 @ g2, rtol=1e-12)


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_gram_matrix_is_one_allreduce(counts):
    # X.mT @ X with X split on rows: both operands split on the contraction axis, same counts.
    g = random_array((20, 3), seed=5)
    x = distribute(g, 0, layouts(g.shape)[-1][1] if counts else None)
    with xdist.count_collectives() as sent:
        y = x.mT @ x
    assert dict(sent) == ({"allreduce": 1} if SIZE > 1 else {}), sent
    assert y.split is None
    assert_equal(y, g.T @ g, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("counts", [None, "uneven"])
def test_cluster_sums_of_a_long_split_axis_match_numpy(counts, dtype):
    """k-means' cluster sums: the k x n membership matrix split on its columns times the
    n x (d + 1) samples split on rows, a long contraction of few rows (which the NumPy
    backend sums over slices of each rank's part: ``backends/numpy.py: _sliced_product``),
    then one allreduce; within float rounding of NumPy's float64 product at every rank
    count."""
    n = 3 * 9001
    rng = np.random.default_rng(9)
    labels = rng.integers(0, 8, n)
    samples = np.concatenate([rng.standard_normal((n, 64)), np.ones((n, 1))], axis=1)
    samples = samples.astype(dtype)
    member = (np.arange(8)[:, None] == labels).astype(dtype)
    c = uneven_counts(n, SIZE) if counts else None
    x1, x2 = distribute(member, 1, c), distribute(samples, 0, c)
    with xdist.count_collectives() as sent:
        y = x1 @ x2
    assert dict(sent) == ({"allreduce": 1} if SIZE > 1 else {}), sent
    exact = member.astype(np.float64) @ samples.astype(np.float64)
    assert y.split is None and y.dtype == dtype
    np.testing.assert_allclose(np.asarray(y.local), exact, rtol=0, atol=n * np.finfo(dtype).eps * 4)
    assert np.array_equal(np.asarray(y.local)[:, -1], np.bincount(labels, minlength=8))


@pytest.mark.parametrize("big_first", [True, False])
def test_planner_gathers_the_small_operand(big_first):
    # x1 split on rows, x2 split on columns: the smaller of the two is gathered, once.
    s1, s2 = ((40, 6), (6, 3)) if big_first else ((3, 6), (6, 40))
    g1, g2 = random_array(s1, seed=1), random_array(s2, seed=2)
    x1, x2 = distribute(g1, 0), distribute(g2, 1)
    with xdist.count_collectives() as sent:
        y = x1 @ x2
    if SIZE > 1:
        # at 2 ranks the ring over x2's column blocks moves as much in one sendrecv, and
        # never makes x2 whole: the tie goes to it
        ring = big_first and SIZE == 2
        assert dict(sent) == ({"sendrecv": 1} if ring else {"allgatherv": 1}), sent
        assert (y.split, y.counts) == ((0, x1.counts) if big_first else (1, x2.counts))
    else:
        assert sum(sent.values()) == 0, sent
    assert_equal(y, g1 @ g2, rtol=1e-12)


# -- rows @ rows: x2's blocks passed around a ring ------------------------------------------------

RING_SHAPES = [
    ((40, 6), (6, 3)),
    ((40, 6), (6,)),  # x2 1-D
    ((2, 40, 6), (6, 3)),  # batched x1
    ((2, 40, 6), (2, 6, 3)),
    ((1, 40, 6), (3, 6, 3)),  # broadcast batch
]  # "uneven": x1's and x2's first blocks are empty (at 2 and 3 ranks)


def _rows(shape, uneven):
    axis = len(shape) - 2 if len(shape) > 1 else 0
    return axis, (uneven_counts(shape[axis], SIZE) if uneven else None)


@pytest.mark.parametrize("dtypes", DTYPES, ids=["f8", "i8", "f4f8"])
@pytest.mark.parametrize("uneven", [False, True], ids=["balanced", "uneven"])
@pytest.mark.parametrize("s1,s2", RING_SHAPES, ids=[f"{a}@{b}" for a, b in RING_SHAPES])
def test_rows_times_rows_passes_blocks_around_a_ring(s1, s2, uneven, dtypes):
    # Budget 0: no plan may gather a split operand, so even these small x2 go around the
    # ring (p - 1 sendrecv, never an allgatherv of x2); the result is split like x1.
    g1, g2 = random_array(s1, dtypes[0], seed=1), random_array(s2, dtypes[1], seed=2)
    x1, x2 = distribute(g1, *_rows(s1, uneven)), distribute(g2, *_rows(s2, uneven))
    with xdist.config_context(gather_warning_elements=0), xdist.count_collectives() as sent:
        y = x1 @ x2
    assert dict(sent) == ({"sendrecv": SIZE - 1} if SIZE > 1 else {}), sent
    assert (y.split, y.counts) == (len(y.shape) - 2 if len(s2) > 1 else y.ndim - 1, x1.counts)
    expected = np.matmul(g1, g2)
    assert_equal(y, expected, rtol=_rtol(expected.dtype))


def test_large_rows_times_rows_never_gathers_x2():
    # x2 above the gather budget (default 2**16 elements): passed around, not gathered.
    g1, g2 = random_array((200, 3000), seed=1), random_array((3000, 25), seed=2)
    x1, x2 = distribute(g1, 0), distribute(g2, 0, uneven_counts(3000, SIZE))
    with xdist.count_collectives() as sent:
        y = x1 @ x2
    assert dict(sent) == ({"sendrecv": SIZE - 1} if SIZE > 1 else {}), sent
    assert (y.split, y.counts) == (0, x1.counts)
    assert_equal(y, g1 @ g2, rtol=1e-12, atol=1e-12)  # sums of 3000 terms: atol near 0


COLUMN_RING_SHAPES = [
    ((40, 6), (6, 30)),
    ((2, 40, 6), (6, 30)),  # batched x1
    ((2, 40, 6), (2, 6, 30)),
    ((1, 40, 6), (3, 6, 30)),  # broadcast batch
]


@pytest.mark.parametrize("dtypes", DTYPES, ids=["f8", "i8", "f4f8"])
@pytest.mark.parametrize("uneven", [False, True], ids=["balanced", "uneven"])
@pytest.mark.parametrize(
    "s1,s2", COLUMN_RING_SHAPES, ids=[f"{a}@{b}" for a, b in COLUMN_RING_SHAPES]
)
def test_rows_times_columns_fills_the_result_around_a_ring(s1, s2, uneven, dtypes):
    # x2 split on its columns (as a.T of an a split on rows), budget 0: its column blocks go
    # around the ring (p - 1 sendrecv, no all-to-all to rows, no allgatherv), each filling
    # its columns of the result, which is split like x1; uneven: empty first blocks.
    g1, g2 = random_array(s1, dtypes[0], seed=1), random_array(s2, dtypes[1], seed=2)
    c2 = uneven_counts(s2[-1], SIZE)[::-1] if uneven else None
    x1, x2 = distribute(g1, *_rows(s1, uneven)), distribute(g2, len(s2) - 1, c2)
    with xdist.config_context(gather_warning_elements=0), xdist.count_collectives() as sent:
        y = x1 @ x2
    assert dict(sent) == ({"sendrecv": SIZE - 1} if SIZE > 1 else {}), sent
    assert (y.split, y.counts) == (y.ndim - 2, x1.counts)
    expected = np.matmul(g1, g2)
    assert y.dtype == expected.dtype
    assert_equal(y, expected, rtol=_rtol(expected.dtype))


def test_gram_of_rows_is_the_column_ring():
    # a @ a.T with a split on rows and a.T above the budget: a.T is passed around as it is
    # laid out (split on its columns), p - 1 sendrecv of its blocks, no all-to-all.
    g = random_array((3000, 30), seed=3)
    a = distribute(g, 0, uneven_counts(3000, SIZE))
    with xdist.count_collectives() as sent:
        y = a @ a.T
    assert dict(sent) == ({"sendrecv": SIZE - 1} if SIZE > 1 else {}), sent
    assert (y.split, y.counts) == (0, a.counts)
    assert_equal(y, g @ g.T, rtol=1e-12, atol=1e-12)


# -- the planner on its own (pure functions of global metadata) -------------------------------


def test_choose_plan_asymmetric():
    x1 = Layout.balanced((40, 6), 0, 4)  # big, split on rows
    x2 = Layout.balanced((6, 3), 1, 4)  # small, split on columns
    plan = choose_plan(x1, x2, (40, 3), 4)
    assert plan.name == "R" and plan.x1 == x1 and plan.x2 == Layout.replicated((6, 3))
    plan = choose_plan(Layout.balanced((3, 6), 0, 4), Layout.balanced((6, 40), 1, 4), (3, 40), 4)
    assert plan.name == "C"


def test_choose_plan_contraction_for_tall_skinny():
    xt = Layout((3, 20), 1, (7, 7, 6))
    x = Layout((20, 3), 0, (7, 7, 6))
    plan = choose_plan(xt, x, (3, 3), 3)
    assert plan.name == "K" and plan.reduce and plan.x1 == xt and plan.x2 == x


def test_choose_plan_prefers_no_messages():
    rep = Layout.replicated
    assert choose_plan(rep((4, 5)), rep((5, 3)), (4, 3), 3).name == "N"
    x1 = Layout.balanced((4, 5), 0, 3)
    assert choose_plan(x1, rep((5, 3)), (4, 3), 3).name == "R"
    # one rank: no plan sends anything, the one using the operands as they are wins
    assert choose_plan(Layout((4, 5), 0, (4,)), rep((5, 3)), (4, 3), 1).name == "R"


def test_move_cost():
    a = Layout((6, 4), 0, (2, 2, 2))
    assert move_cost(a, a, 3) == Cost()
    assert move_cost(Layout.replicated((6, 4)), a, 3) == Cost(relayouts=1)  # local slice
    assert move_cost(a, Layout.replicated((6, 4)), 3) == Cost(16, 1, 1)  # allgather
    assert move_cost(a, Layout((6, 4), 1, (2, 1, 1)), 3) == Cost(8, 1, 1)  # all-to-all


@pytest.mark.parametrize("nranks", [3, 64])
def test_move_and_ring_costs_are_the_busiest_ranks_by_brute_force(nranks):
    """``move_cost`` and ``ring_cost`` (NumPy over the ranks' bounds) against a loop over
    every rank's boxes (``intersect``) for uneven layouts with empty blocks, on every pair of
    split axes."""
    rng = np.random.default_rng(nranks)
    shape = (int(3 * nranks), 5, 7)

    def layouts():
        yield Layout.replicated(shape)
        for axis in range(3):
            counts = rng.multinomial(shape[axis], np.ones(nranks) / nranks)
            yield Layout(shape, axis, tuple(int(c) for c in counts))

    def box(layout, r):
        return resolve(layout.local_slice(r), shape)

    def size(b):
        return int(np.prod([s.stop - s.start for s in b])) if b is not None else 0

    for src in layouts():
        for dst in layouts():
            got = move_cost(src, dst, nranks)
            if src == dst or src.split is None:
                continue
            want = max(
                size(box(dst, r)) - size(intersect(box(src, r), box(dst, r))) for r in range(nranks)
            )
            assert got == Cost(want, 1, 1), (src, dst)
        own = min(size(box(src, r)) for r in range(nranks))
        assert ring_cost(src, nranks) == Cost(int(np.prod(shape)) - own, nranks - 1)


def test_choose_plan_ring_for_a_large_x2():
    x1, x2 = Layout.balanced((300, 3000), 0, 3), Layout.balanced((3000, 40), 0, 3)
    plan = choose_plan(x1, x2, (300, 40), 3)
    assert plan == Plan("ring", x1, x2, Layout((300, 40), 0, x1.counts), ring=True)
    # within the budget the one allgatherv of x2 wins (fewer messages, the same elements)
    assert choose_plan(x1, x2, (300, 40), 3, budget=3000 * 40).name == "R"
    small = Layout.balanced((300, 40), 0, 3)
    assert choose_plan(Layout.balanced((300, 300), 0, 3), small, (300, 40), 3).name == "R"
    # x2 split on its columns: the ring over its column blocks (no all-to-all to rows)
    x2c = Layout.balanced((3000, 40), 1, 3)
    plan = choose_plan(x1, x2c, (300, 40), 3)
    assert plan == Plan("ringn", x1, x2c, Layout((300, 40), 0, x1.counts), ring=True, columns=True)
    assert choose_plan(x1, x2c, (300, 40), 3, budget=3000 * 40).name == "R"


def test_plan_cost_prices_memory_first():
    x1, x2 = Layout((30, 12), 0, (10, 10, 10)), Layout((12, 5), 0, (0, 4, 8))
    ring = Plan("ring", x1, x2, Layout((30, 5), 0, x1.counts), ring=True)
    assert ring_cost(x2, 3) == Cost(60, 2) == plan_cost(ring, x1, x2, 3, budget=0)
    gather = Plan("R", x1, Layout.replicated((12, 5)), Layout((30, 5), 0, x1.counts))
    assert plan_cost(gather, x1, x2, 3, budget=0) == Cost(60, 1, 1, excess=60)
    assert plan_cost(gather, x1, x2, 3, budget=60) == Cost(60, 1, 1)
    assert ring_cost(x2, 1) == Cost()
    assert Cost(excess=1) > Cost(10**9, 10, 2)  # memory before elements
    assert Cost(5, 2) > Cost(5, 1, 1)  # then messages, then relayouts


# -- matrix_transpose, operators ----------------------------------------------------------------


@pytest.mark.parametrize(
    "shape,lay",
    [
        pytest.param(shape, lay, id=f"{shape}-{layout_id(lay)}")
        for shape in [(7, 5), (2, 7, 3), (3, 0)]
        for lay in layouts(shape)
    ],
)
def test_matrix_transpose(shape, lay):
    g = random_array(shape, seed=7)
    x = distribute(g, *lay)
    with xdist.count_collectives() as sent:
        y, z = xdist.matrix_transpose(x), x.mT
    assert sum(sent.values()) == 0, sent
    assert y.counts == x.counts
    assert_equal(y, np.swapaxes(g, -1, -2))
    assert_equal(z, np.swapaxes(g, -1, -2))


def test_matrix_transpose_split_moves_with_its_axis():
    x = distribute(random_array((2, 7, 3)), 1)
    assert xdist.matrix_transpose(x).split == 2
    assert xdist.matrix_transpose(distribute(random_array((2, 7, 3)), 0)).split == 0


def test_matmul_operator_and_rmatmul():
    g1, g2 = random_array((7, 5), seed=1), random_array((5, 3), seed=2)
    x1, x2 = distribute(g1, 0), distribute(g2, 1)
    assert_equal(x1 @ x2, g1 @ g2, rtol=1e-12)
    assert_equal(x2.__rmatmul__(x1), g1 @ g2, rtol=1e-12)
    assert x1.__matmul__(g2) is NotImplemented
    with pytest.raises(TypeError):
        x1 @ 2


def test_imatmul_keeps_the_layout():
    g1, g2 = random_array((7, 4), seed=1), random_array((4, 4), seed=2)
    x = distribute(g1, 0, layouts(g1.shape)[-1][1])
    layout = x.layout
    x @= distribute(g2, 1)
    assert x.layout == layout
    assert_equal(x, g1 @ g2, rtol=1e-12)


# -- errors, all before any message -------------------------------------------------------------


@pytest.mark.parametrize(
    "s1,s2,exc,words",
    [
        ((7, 5), (4, 3), ValueError, ["5", "4", "contracted"]),
        ((5,), (4,), ValueError, ["5", "4"]),
        ((2, 3, 4), (3, 4, 5), ValueError, ["(2, 3, 4)", "(3, 4, 5)"]),
        ((), (3,), ValueError, ["x1", "0-d"]),
        ((3,), (), ValueError, ["x2", "0-d"]),
    ],
)
def test_matmul_errors_before_messages(s1, s2, exc, words):
    x1 = distribute(random_array(s1), 0 if s1 else None)
    x2 = distribute(random_array(s2), 0 if s2 else None)
    with xdist.count_collectives() as sent, pytest.raises(exc) as info:
        xdist.matmul(x1, x2)
    assert sum(sent.values()) == 0, sent
    assert "matmul" in str(info.value)
    for word in words:
        assert word in str(info.value)


def test_matmul_type_errors():
    x = distribute(random_array((3, 3)), 0)
    b = distribute(random_array((3, 3), "bool"), 0)
    with xdist.count_collectives() as sent:
        with pytest.raises(TypeError, match="matmul: x2 must have a numeric dtype"):
            xdist.matmul(x, b)
        with pytest.raises(TypeError, match="matmul: x1 must be an xdist array"):
            xdist.matmul(np.ones((3, 3)), x)
    assert sum(sent.values()) == 0, sent


@pytest.mark.parametrize("shape", [(), (4,)])
def test_matrix_transpose_needs_2d(shape):
    x = distribute(random_array(shape))
    with pytest.raises(ValueError, match="matrix_transpose: x must be at least 2-D"):
        xdist.matrix_transpose(x)
    with pytest.raises(ValueError):
        _ = x.mT


# -- tensordot ----------------------------------------------------------------------------------

TENSORDOT_CASES = [
    ((3, 4, 5), (4, 5, 2), 2),
    ((7, 5), (5, 3), 1),
    ((3, 4, 5), (5, 4, 2), ([1, 2], [1, 0])),
    ((2, 3, 4), (4, 3, 2), ((0, 2), (2, 0))),
    ((4, 3), (4, 3), ([0, 1], [0, 1])),  # full contraction: 0-d
    ((4,), (3,), 0),  # outer product
    ((2, 0, 3), (3, 2), ([2], [0])),
    ((5, 2), (2, 3, 2), ([-1], [-1])),
    ((), (2, 3), 0),  # a 0-d operand: a scalar times x2
    ((2,), (2, 3, 4), ([0], [0])),  # x1 has no free axis, x2 several
]


@pytest.mark.parametrize("s1,s2,axes,l1,l2", list(layout_pair_params(TENSORDOT_CASES, 3)))
def test_tensordot_matches_numpy(s1, s2, axes, l1, l2):
    g1, g2 = random_array(s1, seed=1), random_array(s2, "int32", seed=2)
    got = xdist.tensordot(distribute(g1, *l1), distribute(g2, *l2), axes=axes)
    assert_equal(got, np.tensordot(g1, g2, axes=axes), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int8", "int64", "complex128"])
def test_tensordot_dtypes(dtype):
    g1, g2 = random_array((3, 4), dtype, seed=3), random_array((4, 2), dtype, seed=4)
    got = xdist.tensordot(distribute(g1, 0), distribute(g2, 1), axes=1)
    assert_equal(got, np.tensordot(g1, g2, axes=1), rtol=1e-12)


def test_tensordot_split_free_axes_send_nothing():
    # x1 split along a free axis, x2 replicated: every reshape is local, plan R or B.
    g1, g2 = random_array((6, 4, 5), seed=5), random_array((4, 5, 3), seed=6)
    x1 = distribute(g1, 0)
    with xdist.count_collectives() as sent:
        got = xdist.tensordot(x1, distribute(g2), axes=2)
    assert sum(sent.values()) == 0, sent
    assert (got.split, got.counts) == (0, x1.counts)
    assert_equal(got, np.tensordot(g1, g2), rtol=1e-12)


def test_tensordot_split_contracted_axes_is_one_allreduce():
    # both operands split along the same contracted axis: merged locally, plan K.
    g1, g2 = random_array((3, 8, 2), seed=7), random_array((8, 2, 4), seed=8)
    x1, x2 = distribute(g1, 1), distribute(g2, 0)
    with xdist.count_collectives() as sent:
        got = xdist.tensordot(x1, x2, axes=([1, 2], [0, 1]))
    assert dict(sent) == ({"allreduce": 1} if SIZE > 1 else {}), sent
    assert_equal(got, np.tensordot(g1, g2, axes=([1, 2], [0, 1])), rtol=1e-12)


@pytest.mark.parametrize(
    "s1,s2,axes,exc,words",
    [
        ((3, 4), (5, 2), 1, ValueError, ["contracted axes differ", "4", "5"]),
        ((3, 4), (4, 2), 3, ValueError, ["axes=3"]),
        ((3, 4), (4, 2), -1, ValueError, ["axes=-1"]),
        ((3, 4), (4, 2), ([1], [0, 1]), ValueError, ["equal length"]),
        ((3, 4), (4, 4), ([1, 1], [0, 1]), ValueError, ["repeats"]),
        ((3, 4), (4, 2), ([2], [0]), IndexError, ["axes[0] 2"]),
        ((3, 4), (4, 2), "1", TypeError, ["axes"]),
        ((3, 1), (4, 2), ([1], [0]), ValueError, ["contracted axes differ"]),  # no broadcasting
    ],
)
def test_tensordot_errors_before_messages(s1, s2, axes, exc, words):
    x1, x2 = distribute(random_array(s1), 0), distribute(random_array(s2), 1)
    with xdist.count_collectives() as sent, pytest.raises(exc) as info:
        xdist.tensordot(x1, x2, axes=axes)
    assert sum(sent.values()) == 0, sent
    assert str(info.value).startswith("tensordot:"), info.value
    for word in words:
        assert word in str(info.value)


def test_tensordot_needs_numeric():
    x = distribute(random_array((3, 3), "bool"), 0)
    with pytest.raises(TypeError, match="tensordot: x1 must have a numeric dtype"):
        xdist.tensordot(x, x)


# -- vecdot -------------------------------------------------------------------------------------

VECDOT_CASES = [
    ((7, 5), (7, 5), -1),
    ((7, 5), (7, 5), -2),
    ((7, 5), (5,), -1),
    ((3, 1, 5), (4, 5), -1),
    ((5,), (5,), -1),
    ((2, 0), (2, 0), -1),
]


@pytest.mark.parametrize("s1,s2,axis,l1,l2", list(layout_pair_params(VECDOT_CASES, 3)))
def test_vecdot_matches_numpy(s1, s2, axis, l1, l2):
    g1, g2 = random_array(s1, "complex128", seed=9), random_array(s2, "complex128", seed=10)
    got = xdist.vecdot(distribute(g1, *l1), distribute(g2, *l2), axis=axis)
    expected = np.sum(np.conj(g1) * g2, axis=axis)
    assert_equal(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint8"])
def test_vecdot_keeps_the_promoted_dtype(dtype):
    g = random_array((6, 4), dtype, seed=11)
    got = xdist.vecdot(distribute(g, 0), distribute(g, 0))
    assert_equal(got, np.sum(g * g, axis=-1, dtype=dtype), rtol=1e-6)


def test_vecdot_conjugates_x1():
    x1 = distribute(np.array([1j, 2j, 3j]), 0)
    x2 = distribute(np.array([1, 2j, 3]), 0)
    assert complex(xdist.vecdot(x1, x2)) == 4 - 10j


@pytest.mark.parametrize("axis,split,expected", [(-1, 1, {"allreduce": 1}), (-1, 0, {})])
def test_vecdot_communication(axis, split, expected):
    g1, g2 = random_array((7, 5), seed=12), random_array((7, 5), seed=13)
    x1, x2 = distribute(g1, split), distribute(g2, split)
    with xdist.count_collectives() as sent:
        got = xdist.vecdot(x1, x2, axis=axis)
    assert dict(sent) == (expected if SIZE > 1 else {}), sent
    assert_equal(got, np.sum(g1 * g2, axis=axis), rtol=1e-12)


@pytest.mark.parametrize(
    "s1,s2,axis,exc,words",
    [
        ((7, 5), (7, 5), 0, ValueError, ["negative", "0"]),
        ((7, 5), (5,), -2, ValueError, ["-2"]),
        ((7, 5), (7, 4), -1, ValueError, ["contracted axes differ", "5", "4"]),
        ((7, 5), (6, 5), -1, ValueError, ["broadcast"]),
        ((7, 5), (7, 5), 1.0, TypeError, ["axis"]),
    ],
)
def test_vecdot_errors_before_messages(s1, s2, axis, exc, words):
    x1, x2 = distribute(random_array(s1), 0), distribute(random_array(s2), 0)
    with xdist.count_collectives() as sent, pytest.raises(exc) as info:
        xdist.vecdot(x1, x2, axis=axis)
    assert sum(sent.values()) == 0, sent
    assert str(info.value).startswith("vecdot:"), info.value
    for word in words:
        assert word in str(info.value)


def test_tensordot_takes_a_numpy_operand_as_replicated():
    # opt_einsum (xarray's dot) calls xdist.tensordot with NumPy weights beside a split array
    a = np.arange(21.0).reshape(7, 3)
    w = np.array([0.2, 0.3, 0.5])
    x = xdist.asarray(a, split=0)
    np.testing.assert_allclose(xdist.tensordot(x, w, axes=1).to_numpy(), a @ w)
    np.testing.assert_allclose(xdist.tensordot(w, x, axes=([0], [1])).to_numpy(), a @ w)


def test_tensordot_promotes_a_boolean_operand_beside_a_numeric_one():
    a = np.arange(21.0).reshape(7, 3) > 8
    w = np.array([0.2, 0.3, 0.5])
    x = xdist.asarray(a, split=0)
    np.testing.assert_allclose(xdist.tensordot(x, xdist.asarray(w), axes=1).to_numpy(), a @ w)
    with pytest.raises(TypeError, match="tensordot: x1 must have a numeric dtype"):
        xdist.tensordot(x, xdist.asarray(np.ones(3, bool)), axes=1)
