"""Indexing (``x[key]``, ``x[key] = value``) against NumPy on every layout, and what it sends.

Basic indexing: a positive-step slice nothing, an int on the split axis one bcast, a replicated
value nothing. Integer arrays: along the split axis one alltoall of counts and two alltoallv
(split indices), nothing of ``x`` otherwise. Boolean masks: with ``x`` and the mask split alike
along axis 0, one allgather of counts and no data."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    RANK,
    SIZE,
    assert_equal,
    comm_params,
    distribute,
    layout_id,
    layouts,
    random_array,
)

import xdist

S = slice

# Curated keys per shape: ints (negative too), slices with steps 1/2/3/-1/-2, empty slices,
# out-of-bounds bounds, None, Ellipsis and mixtures.
KEYS: dict[tuple[int, ...], list] = {
    (7,): [
        0,
        3,
        -1,
        -7,
        6,
        S(None),
        S(1, 5),
        S(None, None, 2),
        S(1, None, 3),
        S(None, None, -1),
        S(5, 0, -2),
        S(-2, None, -1),
        S(4, 2),
        S(-100, 100),
        S(100, 200),
        S(None, None, -3),
        S(3, 4, -1),
        S(6, 5, -1),
        None,
        Ellipsis,
        (),
        (None, S(2, 6)),
        (Ellipsis, 2),
        (S(1, 6, 2), None),
        (None, S(None, None, -2), None),
    ],
    (2,): [
        0,
        -1,
        1,
        S(None),
        S(1, None),
        S(None, None, -1),
        S(0, 0),
        S(-5, 5, 3),
        None,
        (None, Ellipsis, None),
        (Ellipsis, -2),
    ],
    (7, 5): [
        2,
        -1,
        (3, 4),
        (-7, -5),
        (S(None), 2),
        (S(1, 6, 2), S(None, None, -2)),
        (S(None, None, -1), 1),
        (Ellipsis, S(1, 3)),
        (None, 4, Ellipsis),
        (S(2, 2), S(None)),
        (S(-3, None), None, S(4, 0, -1)),
        (S(6, None, -3), -2),
        (Ellipsis, None),
        (S(10, -10, -1), S(None, None, 3)),
        (S(0, 7, 3), S(1, 2)),
    ],
    (2, 3): [
        0,
        (1, -1),
        (S(None, None, -1), S(None)),
        (S(None), S(None, None, -2)),
        (None, S(1, 2), 2),
        (S(3, 5),),
        (Ellipsis, S(0, 0)),
        (-2, None, S(None, None, -1)),
    ],
    (3, 4, 5): [
        1,
        (Ellipsis, 2),
        (S(None), -1, S(None, None, 2)),
        (None, 2, None, S(1, 3)),
        (S(None, None, -1), S(3, 0, -2), S(4, None, -3)),
        (0, 1, 2),
        (S(1, None), Ellipsis, None),
        (S(None), S(None), S(None, None, -1)),
        (Ellipsis, S(1, 3), 4),
        (S(2, 1), 0, Ellipsis),
    ],
    (4, 0): [
        1,
        -4,
        (S(None), S(None)),
        S(None, None, -1),
        (S(1, 3), Ellipsis),
        (None, S(0, 3, 2)),
        (Ellipsis, None),
        (S(None, None, -2), S(None)),
    ],
    (): [(), Ellipsis, None, (None, Ellipsis, None), (Ellipsis, None)],
}


def key_id(key) -> str:
    def one(k):
        if k is None:
            return "N"
        if k is Ellipsis:
            return "E"
        if isinstance(k, slice):
            return ":".join("" if v is None else str(v) for v in (k.start, k.stop, k.step))
        if isinstance(k, np.ndarray):
            return "a" + "x".join(map(str, k.shape)) + "[" + ",".join(map(str, k.ravel())) + "]"
        return str(k)

    return "(" + ",".join(one(k) for k in key) + ")" if isinstance(key, tuple) else one(key)


def cases(select=None):
    """(shape, split, counts, key) for every shape, layout and key (``select`` filters keys)."""
    out = []
    for shape, keys in KEYS.items():
        for split, counts in layouts(shape):
            for key in keys:
                if select is None or select(shape, key):
                    case_id = f"{shape}-{layout_id((split, counts))}-{key_id(key)}"
                    out.append(pytest.param(shape, split, counts, key, id=case_id))
    return out


def global_data(shape, dtype="float64"):
    return random_array(shape, dtype, seed=len(shape) * 10 + sum(shape))


# -- getitem ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,split,counts,key", cases())
def test_getitem_matches_numpy(shape, split, counts, key):
    g = global_data(shape)
    x = distribute(g, split, counts)
    assert_equal(x[key], g[key])


@pytest.mark.parametrize("dtype", ["int32", "bool", "complex64", "uint8"])
def test_getitem_dtypes(dtype):
    g = global_data((7, 5), dtype)
    x = distribute(g, 0)
    for key in [(S(None, None, -2), 3), 4, (S(1, 5), None, S(None, None, 2))]:
        assert_equal(x[key], g[key])


def _selected_counts(n, key, layout_counts):
    """The exact per-rank counts a slice on the split axis must give (computed by brute force)."""
    chosen = list(range(n))[key]
    offsets = np.concatenate([[0], np.cumsum(layout_counts)])
    return tuple(sum(offsets[r] <= i < offsets[r + 1] for i in chosen) for r in range(SIZE))


@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize("key", [S(None), S(1, 6, 2), S(2, 100), S(0, 7, 3), S(4, 4), S(-3, None)])
def test_positive_step_slice_sends_nothing(key, counts):
    g = global_data((7, 5))
    x = distribute(g, 0, None if counts is None else layouts((7, 5))[-1][1])
    with xdist.count_collectives() as sent:
        y = x[key, 1:]
    assert sum(sent.values()) == 0
    assert y.split == 0
    assert y.counts == _selected_counts(7, key, x.counts)
    lo, hi = y.layout.local_range(RANK)
    np.testing.assert_array_equal(y.local, g[key, 1:][lo:hi])
    assert_equal(y, g[key, 1:])


def test_slice_along_split_axis_after_new_axes():
    g = global_data((3, 4, 5))
    x = distribute(g, 1)
    with xdist.count_collectives() as sent:
        y = x[None, 0, 1:4, None]
    assert sum(sent.values()) == 0
    assert y.split == 1 and y.shape == (1, 3, 1, 5)
    assert y.counts == _selected_counts(4, S(1, 4), x.counts)
    assert_equal(y, g[None, 0, 1:4, None])


def test_non_split_axis_is_local():
    g = global_data((3, 4, 5))
    x = distribute(g, 2)
    with xdist.count_collectives() as sent:
        y = x[1, ::-1, None]
    assert sum(sent.values()) == 0
    assert y.split == 2 and y.counts == x.counts
    assert_equal(y, g[1, ::-1, None])


@pytest.mark.parametrize("index", [0, 3, -1, 6])
def test_int_on_split_axis_is_one_bcast(index):
    g = global_data((7, 5))
    x = distribute(g, 0, layouts((7, 5))[-1][1])
    with xdist.count_collectives() as sent:
        y = x[index]
    assert sent == (Counter(bcast=1) if SIZE > 1 else Counter())
    assert y.split is None
    np.testing.assert_array_equal(y.local, g[index])
    with xdist.count_collectives() as sent:
        z = x[index, 2]  # a 0-d result is replicated too
    assert sent == (Counter(bcast=1) if SIZE > 1 else Counter())
    assert z.split is None and z.shape == ()
    assert float(z) == g[index, 2]


@pytest.mark.parametrize("key", [S(None, None, -1), S(5, 0, -2), S(None, None, -3)])
def test_negative_step_is_one_alltoall_to_balanced(key):
    g = global_data((7, 5))
    x = distribute(g, 0)
    with xdist.count_collectives() as sent:
        y = x[key]
    assert sent == (Counter(alltoallv=1) if SIZE > 1 else Counter())
    assert y.layout.is_balanced
    assert_equal(y, g[key])


def test_negative_step_held_by_one_rank_sends_nothing():
    g = global_data((7, 5))
    x = distribute(g, 0, layouts((7, 5))[-1][1])  # the last rank holds rows 2..6 (or all)
    with xdist.count_collectives() as sent:
        y = x[6:3:-1]
    assert sum(sent.values()) == 0
    assert_equal(y, g[6:3:-1])


def test_zero_d_integer_arrays_as_indices():
    g = global_data((7, 5))
    x = distribute(g, 1)
    i = xdist.from_local(np.array(2, dtype=np.int64), split=None)
    j = xdist.from_local(np.array(-1, dtype=np.int32), split=None)
    assert_equal(x[i], g[2])
    assert_equal(x[i:j, j], g[2:-1, -1])
    assert_equal(x[S(None, None, i)], g[::2])


def test_iteration_uses_getitem():
    g = global_data((4, 3))
    x = distribute(g, 0)
    rows = list(x)
    assert len(rows) == 4
    for row, expected in zip(rows, g):
        assert_equal(row, expected)


@comm_params
def test_indexing_on_every_communicator(comm):
    g = global_data((7, 5))
    x = distribute(g, 0, comm=comm)
    assert_equal(x[1:6:2, ::-1], g[1:6:2, ::-1])
    assert_equal(x[::-2], g[::-2])
    assert_equal(x[3], g[3])
    x[::-3] = distribute(g[::-3] * 2, 1, comm=comm)
    g = g.copy()
    g[::-3] *= 2
    assert_equal(x, g)


# -- errors: raised on every rank before any message ----------------------------------------
def _bad_keys():
    floats = distribute(np.arange(3.0), 0)
    ints = distribute(np.arange(3), 0)
    mask = distribute(np.ones(7, bool), 0)
    return [
        (floats, IndexError),
        ((ints, ints), IndexError),
        ((ints, 0), IndexError),
        ((ints, 9), IndexError),
        ((mask, 0), IndexError),
        ((mask, None), IndexError),
        (distribute(np.ones((7, 1), bool), 0), IndexError),
        (distribute(np.ones(6, bool), 0), IndexError),
        ((ints, "a"), IndexError),
        ((ints, Ellipsis, Ellipsis), IndexError),
        ((ints, S(0, 1.5)), TypeError),
        (7, IndexError),
        (-8, IndexError),
        ((0, 0), IndexError),
        ((Ellipsis, Ellipsis), IndexError),
        ([0, 1], IndexError),
        (1.5, IndexError),
        (True, IndexError),
        ("a", IndexError),
        (np.array([1.0]), IndexError),
        (np.ones((7, 1), bool), IndexError),
        (xdist.from_local(np.array(1.0), split=None), IndexError),
        (S(0, 1.5), TypeError),
        (S(None, None, 0), ValueError),
        ((None, 3, 0), IndexError),
    ]


@pytest.mark.parametrize("split", [None, 0])
def test_bad_keys_raise_before_any_message(split):
    x = distribute(global_data((7,)), split)
    bad = _bad_keys()
    for key, error in bad:
        with xdist.count_collectives() as sent:
            with pytest.raises(error, match="__getitem__"):
                x[key]
            with pytest.raises(error, match="__setitem__"):
                x[key] = 1.0
        assert sum(sent.values()) == 0, key


def test_bad_values_raise_before_any_message():
    x = distribute(global_data((7, 5), "int16"), 0)
    bad = [
        (S(None), 1.5, TypeError),
        (S(None), True, TypeError),
        (0, [1, 2], TypeError),
        (0, 40000, OverflowError),
        (0, np.ones(5), TypeError),
        (0, distribute(np.ones(5), 0), TypeError),
        (0, distribute(np.ones(5, "int32"), 0), TypeError),
        (0, distribute(np.ones(5, bool), 0), TypeError),
        (0, distribute(np.ones(4, "int8"), 0), ValueError),
        (S(1, 3), distribute(np.ones((3, 5), "int8"), 0), ValueError),
        (S(1, 3), distribute(np.ones((1, 2, 5), "int8"), 0), ValueError),
    ]
    for key, value, error in bad:
        with xdist.count_collectives() as sent:
            with pytest.raises(error, match="__setitem__"):
                x[key] = value
        assert sum(sent.values()) == 0, (key, value)


# -- setitem ---------------------------------------------------------------------------------
def _expected_after(g, key, value):
    out = g.copy()
    out[key] = value
    return out


@pytest.mark.parametrize("shape,split,counts,key", cases())
def test_setitem_scalar(shape, split, counts, key):
    g = global_data(shape)
    x = distribute(g, split, counts)
    before = x.layout
    x[key] = -3.5
    assert x.layout == before
    assert_equal(x, _expected_after(g, key, -3.5))


@pytest.mark.parametrize("shape,split,counts,key", cases(lambda shape, key: shape != ()))
def test_setitem_array_every_value_layout(shape, split, counts, key):
    g = global_data(shape)
    sel = g[key].shape
    v = np.asarray(random_array(sel, "float32", seed=7))
    for vsplit, vcounts in layouts(sel):
        x = distribute(g, split, counts)
        x[key] = distribute(v, vsplit, vcounts)
        assert x.dtype == np.float64 and x.layout == distribute(g, split, counts).layout
        assert_equal(x, _expected_after(g, key, v))


@pytest.mark.parametrize("split", [None, 0, 1])
@pytest.mark.parametrize(
    "vshape,vsplit", [((5,), None), ((5,), 0), ((1, 5), 1), ((3, 1), 0), ((1, 1), None), ((), None)]
)
def test_setitem_broadcast_value(split, vshape, vsplit):
    g = global_data((7, 5))
    v = random_array(vshape, seed=3)
    for key in [S(1, 4), S(None, None, -3), (S(2, 5), S(None))]:
        x = distribute(g, split)
        x[key] = distribute(v, vsplit)
        assert_equal(x, _expected_after(g, key, v))


@pytest.mark.parametrize("key", [S(1, 6, 2), 3, S(None, None, -1), (Ellipsis, 2), -1])
def test_setitem_replicated_value_sends_nothing(key):
    g = global_data((7, 5))
    x = distribute(g, 0, layouts((7, 5))[-1][1])
    v = random_array(g[key].shape, seed=5)
    with xdist.count_collectives() as sent:
        x[key] = distribute(v, None)
        x[key] = 2.5
    assert sum(sent.values()) == 0
    assert_equal(x, _expected_after(g, key, 2.5))


def test_setitem_split_value_already_in_place_sends_nothing():
    g = global_data((7, 5))
    x = distribute(g, 0)
    v = distribute(random_array((7, 5), seed=4), 0)
    with xdist.count_collectives() as sent:
        x[:] = v
        x[:, 1:3] = v[:, 1:3]
    assert sum(sent.values()) == 0
    assert_equal(x, v.to_numpy())


def test_setitem_int_on_split_axis_writes_on_the_owner():
    g = global_data((7, 5))
    x = distribute(g, 0, layouts((7, 5))[-1][1])
    v = distribute(random_array((5,), seed=6), 0)
    with xdist.count_collectives() as sent:
        x[4] = v  # one all-to-all brings the split value to the owner of row 4
    assert sent == (Counter(alltoallv=1) if SIZE > 1 else Counter())
    assert_equal(x, _expected_after(g, 4, v.to_numpy()))


@pytest.mark.parametrize("split,counts", layouts((7, 5)))
def test_setitem_from_an_overlapping_view_of_itself(split, counts):
    g = global_data((7, 5))
    x = distribute(g, split, counts)
    x[1:] = x[:-1]
    x[::-1, 0] = x[:, 1]
    expected = g.copy()
    expected[1:] = expected[:-1].copy()
    expected[::-1, 0] = expected[:, 1].copy()
    assert_equal(x, expected)


def test_setitem_int_and_scalar_types():
    g = global_data((7, 5), "int16")
    x = distribute(g, 0)
    x[2, 3] = 7
    x[-1] = distribute(np.full(5, 9, "int8"), None)  # int8 is promoted to int16
    z = distribute(np.zeros((2, 3), complex), 1)
    z[1] = 1.5
    z[0, :2] = 2j
    b = distribute(np.zeros(4, bool), 0)
    b[::-2] = True
    expected = g.copy()
    expected[2, 3] = 7
    expected[-1] = 9
    assert_equal(x, expected)
    assert_equal(z, np.array([[2j, 2j, 0], [1.5, 1.5, 1.5]]))
    assert_equal(b, np.array([False, True, False, True]))


# -- integer array indexing ------------------------------------------------------------------
A = np.array


INDEX_LAYOUTS = ["rep", "s0", "s0u"]  # of every index array of a key (0-d ones replicated)


def _index_layout(kind, ishape):
    """Replicated, balanced or uneven (empty blocks) along axis 0 of an index array."""
    if kind == "rep" or ishape == ():
        return None, None
    return (0, None) if kind == "s0" else layouts(ishape)[-1]


ARRAY_KEYS = {
    (7,): [
        (A([0, 6, -1, 3, 3]),),
        (A([[1, -7], [6, 2]]),),
        (A([], dtype=np.int64),),
        (Ellipsis, A([5, 1])),
    ],
    (7, 5): [
        (A([6, 0, -2, 0]),),
        (S(None), A([4, -5, 1])),
        (A([1, 5, 2]), A([0, 4, -1])),
        (A([[1], [6]]), A([0, 4, 2])),
        (A([3, 1]), S(None, None, -2)),
        (S(5, 0, -2), A([3])),
        (2, A([4, 0])),
        (A([0, 6]), -1),
        (None, A([2, 2]), S(1, 3)),
        (A([6, 0]), None, A([1, 2])),
    ],
    (3, 4, 5): [
        (A([2, 0]), S(None), A([4, 1])),
        (S(None), A([[3, 0], [1, 1]]), A([0, 4])),
        (1, S(None), A([2, -1])),
        (Ellipsis, A([0, 3]), 2),
        (A([1]), A([0, 3, 2]), S(None, None, -1)),
    ],
    (4, 0): [(A([3, 0, 0]),), (A([1]), S(None))],
}


def array_cases():
    out = []
    for shape, keys in ARRAY_KEYS.items():
        for key in keys:
            for split, counts in layouts(shape):
                out.append(
                    pytest.param(
                        shape,
                        split,
                        counts,
                        key,
                        id=f"{shape}-{layout_id((split, counts))}-{key_id(key)}",
                    )
                )
    return out


def _with_arrays(key, kind):
    return tuple(
        distribute(k, *_index_layout(kind, k.shape)) if isinstance(k, np.ndarray) else k
        for k in key
    )


@pytest.mark.parametrize("shape,split,counts,key", array_cases())
def test_getitem_integer_arrays_match_numpy(shape, split, counts, key):
    g = global_data(shape)
    x = distribute(g, split, counts)
    for kind in INDEX_LAYOUTS:
        assert_equal(x[_with_arrays(key, kind)], g[key])


def test_getitem_index_arrays_with_different_layouts():
    g = global_data((7, 5))
    i, j = A([[1, 6, 0], [2, 2, 5]]), A([4, 0, -1])
    for xl in layouts((7, 5)):
        for il, jl in [
            ((0, None), (None, None)),
            ((1, None), (0, None)),
            ((0, (2,) + (0,) * (SIZE - 1)), (0, None)),
        ]:
            if il[1] is not None and len(il[1]) != SIZE:
                continue
            x = distribute(g, *xl)
            assert_equal(x[distribute(i, *il), distribute(j, *jl)], g[i, j])


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_index_array_on_split_axis_routes_requests(counts):
    g = global_data((7, 5))
    x = distribute(g, 0, None if counts is None else layouts((7, 5))[-1][1])
    idx = A([6, 0, 3, -1, 2, 2, 5])
    i, r = distribute(idx, 0, layouts(idx.shape)[-1][1]), distribute(idx, None)
    with xdist.count_collectives() as sent:
        y = x[i, 1:]
    assert sent == (Counter(alltoall=1, alltoallv=2) if SIZE > 1 else Counter())
    assert y.split == 0 and y.counts == i.counts
    assert_equal(y, g[idx, 1:])
    with xdist.count_collectives() as sent:
        y = x[r, ::2]
    assert sent == (Counter(allgatherv=1) if SIZE > 1 else Counter())
    assert y.split is None
    assert_equal(y, g[idx, ::2])
    with xdist.count_collectives() as sent:
        y = x[:, r[:3] % 5]
    assert sum(sent.values()) == 0  # another axis: each rank takes from its block
    assert y.counts == x.counts
    assert_equal(y, g[:, idx[:3] % 5])


@pytest.mark.parametrize("xsplit,isplit", [(0, 0), (0, None), (None, 0), (1, 0), (None, None)])
def test_out_of_bounds_index_array_raises_on_every_rank(xsplit, isplit):
    g = global_data((7, 5))
    for bad in [7, -8]:
        x, i = distribute(g, xsplit), distribute(A([0, 1, 2, 3, bad]), isplit)
        with xdist.count_collectives() as sent:
            with pytest.raises(IndexError, match="__getitem__: an index is out of bounds"):
                x[i, :]
            with pytest.raises(IndexError, match="__setitem__: an index is out of bounds"):
                x[i, :] = 1.0
        assert "alltoallv" not in sent and "bcast" not in sent


# -- boolean masks ---------------------------------------------------------------------------
MASK_SHAPES = [(7,), (2,), (7, 5), (2, 3), (3, 4, 5), (4, 0), (0, 3)]


def mask_cases():
    out = []
    for shape in MASK_SHAPES:
        for m in range(1, len(shape) + 1):
            for split, counts in layouts(shape):
                out.append(
                    pytest.param(
                        shape, m, split, counts, id=f"{shape}-m{m}-{layout_id((split, counts))}"
                    )
                )
    return out


def _masks(shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.random(shape) > 0.5, np.zeros(shape, bool), np.ones(shape, bool)]


@pytest.mark.parametrize("shape,m,split,counts", mask_cases())
def test_mask_getitem_matches_numpy(shape, m, split, counts):
    g = global_data(shape)
    x = distribute(g, split, counts)
    for mask in _masks(shape[:m], seed=m):
        for ml in layouts(mask.shape):
            y = x[distribute(mask, *ml)]
            assert_equal(y, g[mask])


@pytest.mark.parametrize("shape", [(7,), (3, 4), (0, 2)])
def test_zero_d_mask_adds_an_axis_without_messages(shape):
    g = global_data(shape)
    for split, counts in layouts(shape):
        x = distribute(g, split, counts)
        for value in [True, False]:
            mask = distribute(np.array(value))
            with xdist.count_collectives() as sent:
                y = x[mask]
            assert sum(sent.values()) == 0
            assert_equal(y, g[np.array(value)])


def test_mask_with_zero_length_axis_selects_nothing():
    g = global_data((7, 5))
    for shape in [(0,), (0, 5), (7, 0)]:
        assert_equal(distribute(g, 0)[distribute(np.zeros(shape, bool))], g[np.zeros(shape, bool)])


@pytest.mark.parametrize("counts", [None, "uneven"])
def test_aligned_mask_sends_one_allgather_and_no_data(counts):
    g = global_data((7, 5))
    c = None if counts is None else layouts((7, 5))[-1][1]
    x = distribute(g, 0, c)
    mask = g > 0
    for m in [distribute(mask, 0, c), distribute(mask[:, 0], 0, c)]:
        with xdist.count_collectives() as sent:
            y = x[m]
        assert sent == Counter(allgather=1)
        assert y.split == 0
        np.testing.assert_array_equal(y.local, x.local[m.local])  # data stayed where it was
        assert_equal(y, g[m.to_numpy()])


def test_mask_in_another_layout_moves_the_mask_only():
    g = global_data((7, 5))
    x = distribute(g, 0, layouts((7, 5))[-1][1])
    m = distribute(g > 0, 1)
    with xdist.count_collectives() as sent:
        y = x[m]
    assert sent == (Counter(alltoallv=1, allgather=1) if SIZE > 1 else Counter(allgather=1))
    assert_equal(y, g[g > 0])
    x = distribute(g, 1)  # split along an axis the mask does not cover
    with xdist.count_collectives() as sent:
        y = x[distribute(g[:, 0] > 0, None)]
    assert sum(sent.values()) == 0
    assert y.split == 1 and y.counts == x.counts
    assert_equal(y, g[g[:, 0] > 0])


def test_mask_over_inner_split_axis_moves_only_selected_elements():
    g = global_data((3, 4, 5))
    x = distribute(g, 1)
    mask = g[:, :, 0] > 0
    m = distribute(mask, 1)
    with xdist.count_collectives() as sent:
        y = x[m]
    if SIZE > 1:
        assert sent == Counter(exscan=1, allreduce=1, alltoall=1, alltoallv=2)
    assert y.layout.is_balanced
    assert_equal(y, g[mask])


# -- setitem with masks and integer arrays ---------------------------------------------------
@pytest.mark.parametrize("shape,m,split,counts", mask_cases())
def test_mask_setitem_matches_numpy(shape, m, split, counts):
    g = global_data(shape)
    mask = _masks(shape[:m], seed=m + 5)[0]
    n = int(mask.sum())
    rest = shape[m:]
    values = [2.5, distribute(np.array(-1.0)), distribute(random_array((n, *rest), seed=3), 0)]
    if rest:
        values.append(distribute(random_array(rest, "float32", seed=4), len(rest) - 1))
    for value in values:
        for ml in layouts(mask.shape)[:2]:
            x = distribute(g, split, counts)
            x[distribute(mask, *ml)] = value
            expected = g.copy()
            expected[mask] = value if isinstance(value, float) else value.to_numpy()
            assert x.layout == distribute(g, split, counts).layout
            assert_equal(x, expected)


def test_aligned_mask_setitem_with_a_scalar_sends_nothing():
    g = global_data((7, 5))
    c = layouts((7, 5))[-1][1]
    x, m = distribute(g, 0, c), distribute(g > 0, 0, c)
    with xdist.count_collectives() as sent:
        x[m] = 0.0
    assert sum(sent.values()) == 0
    assert_equal(x, np.where(g > 0, 0.0, g))


def test_zero_d_mask_setitem():
    g = global_data((3, 4))
    for value in [True, False]:
        x = distribute(g, 0)
        x[distribute(np.array(value))] = distribute(np.full((1, 4), 9.0), 1)
        expected = g.copy()
        expected[np.array(value)] = 9.0
        assert_equal(x, expected)


SET_KEYS = [
    (A([0, 3, -1]),),
    (S(None), A([4, 0])),
    (A([1, 5]), A([0, 4])),
    (A([[1], [5]]), A([0, 4])),
    (A([6, 2]), S(None, None, -2)),
    (S(5, 0, -2), A([3])),
    (A([2, 6, 4]), 1),
]


@pytest.mark.parametrize("key", SET_KEYS, ids=[key_id(k) for k in SET_KEYS])
@pytest.mark.parametrize(
    "split,counts", layouts((7, 5)), ids=[layout_id(c) for c in layouts((7, 5))]
)
def test_setitem_integer_arrays_match_numpy(key, split, counts):
    g = global_data((7, 5))
    sel = g[key].shape
    v = random_array(sel, "float32", seed=6)
    for il in INDEX_LAYOUTS:
        for value in [-1.0, *(distribute(v, *vl) for vl in layouts(sel))]:
            x = distribute(g, split, counts)
            x[_with_arrays(key, il)] = value
            expected = g.copy()
            expected[key] = value if isinstance(value, float) else v
            assert_equal(x, expected)


def test_setitem_index_array_on_split_axis_routes_writes():
    g = global_data((7, 5))
    x = distribute(g, 0, layouts((7, 5))[-1][1])
    idx = A([6, 0, 3, 1, 5])
    i = distribute(idx, 0)
    v = distribute(random_array((5, 5), seed=8), 0)
    with xdist.count_collectives() as sent:
        x[i, :] = v
    assert sent == (Counter(alltoall=1, alltoallv=2) if SIZE > 1 else Counter())
    r, w = distribute(idx, None), distribute(random_array((5, 5), seed=9), None)
    with xdist.count_collectives() as sent:
        x[r, :] = w  # replicated indices and values: each owner writes its own rows
    assert sum(sent.values()) == 0
    expected = g.copy()
    expected[idx] = w.to_numpy()
    assert_equal(x, expected)


def test_setitem_mask_errors():
    g = global_data((7, 5))
    x = distribute(g, 0)
    m = distribute(g[:, 0] > 0, 0)
    n = int((g[:, 0] > 0).sum())
    rows, wrong = distribute(np.ones((n, 5)), 0), distribute(np.ones((n + 1, 5)), 0)
    x[m] = rows
    with pytest.raises(ValueError, match="__setitem__: value with"):
        x[m] = wrong
    with pytest.raises(TypeError, match="__setitem__"):
        x[m] = distribute(np.ones(5, complex))


@pytest.mark.parametrize("case", layouts((7, 4)), ids=layout_id)
def test_numpy_and_trailing_slice_keys(case):
    """Extensions libraries rely on: NumPy integer and boolean arrays index like replicated
    xdist arrays (no message to convert them), and a boolean mask may be followed by full
    slices (``x[mask, :]``, scikit-learn's idiom)."""
    g = global_data((7, 4))
    mask = g[:, 0] > np.median(g[:, 0])
    rows = np.array([5, 0, 6, 0])
    for key in (rows, (rows, slice(None)), mask, (mask, slice(None)), (mask, Ellipsis)):
        assert_equal(distribute(g, *case)[key], g[key])
        x = distribute(g, *case)
        x[key] = -1.0
        expected = g.copy()
        expected[key] = -1.0
        assert_equal(x, expected)
    x = distribute(g, *case)
    with xdist.count_collectives() as sent:
        for key in ((mask, slice(None), slice(None)), (mask, slice(1, None)), (mask, 0)):
            with pytest.raises(IndexError, match="sole index"):
                x[distribute(mask, None), *key[1:]]
    assert sum(sent.values()) == 0
