"""Basic indexing (``x[key]``, ``x[key] = value``) against NumPy on every layout, and what it
sends: a positive-step slice nothing, an int on the split axis one bcast, a replicated value
nothing. Integer arrays and boolean masks are in test_array_indexing.py."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    RANK,
    SIZE,
    assert_equal,
    assert_same_on_every_rank,
    comm_params,
    distribute,
    host,
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


@pytest.mark.parametrize("shape,split,counts,key", cases(lambda shape, key: shape != ()))
def test_fast_paths_match_the_general_path(shape, split, counts, key):
    """The hot paths of basic indexing (``replicated_basic``, ``split_basic``: the library
    slices the block) give what the general path gives: values, layout, and the strides
    NumPy would have (which ``reshape`` reads to decide view or copy), or decline."""
    from xdist._indexing.basic import getitem_basic, model_strides, replicated_basic, split_basic

    g = global_data(shape)
    x = distribute(g, split, counts)
    items = key if isinstance(key, tuple) else (key,)
    fast = (replicated_basic if x.split is None else split_basic)(x, items)
    if fast is None:
        return  # declined: the general path answers (test_getitem_matches_numpy)
    slow = getitem_basic(x, key)
    assert fast.layout == slow.layout
    if x.split is not None:  # a replicated result's block shows NumPy's strides itself
        assert model_strides(fast) == model_strides(slow)
    assert_equal(fast, g[key])
    if x.split is not None and isinstance(key, (slice, tuple)) and fast.size:
        fast[...] = -1  # a view of x's block: the write is seen in x, as in NumPy
        expected = g.copy()
        expected[key] = -1
        assert_equal(x, expected)


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
    np.testing.assert_array_equal(host(y.local), g[key, 1:][lo:hi])
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
    np.testing.assert_array_equal(host(y.local), g[index])
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
        (0, np.float64(2.0), TypeError),  # a NumPy scalar is taken as the Python one it holds
        (0, np.int64(40000), OverflowError),
        (0, np.datetime64("2020"), TypeError),
        (0, np.array(["a"] * 5), TypeError),
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


@pytest.mark.parametrize("value", [-3.5, 7, True, "0-d"])
@pytest.mark.parametrize("shape,split,counts,key", cases(lambda shape, key: shape != ()))
def test_setitem_hot_path_matches_the_general_path(shape, split, counts, key, value):
    """``setitem_direct`` (a basic key, a scalar value: no message) writes what the general
    path writes, sends nothing, and declines (writing nothing) what it does not handle, on
    every rank alike, so the general path's errors stay the same."""
    from xdist._indexing.basic import setitem_basic, setitem_direct

    g = global_data(shape)
    if value == "0-d":
        value = xdist.asarray(np.float64(-1.25))
    fast, slow = distribute(g, split, counts), distribute(g, split, counts)
    items = key if isinstance(key, tuple) else (key,)
    with xdist.count_collectives() as counted:
        done = setitem_direct(fast, items, value)
    assert not counted
    assert_same_on_every_rank(done)
    if not done:
        assert_equal(fast, g)  # nothing written
        return
    setitem_basic(slow, key, value)
    assert_equal(fast, slow.to_numpy())


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


@pytest.mark.parametrize("lay", layouts((7, 5)), ids=layout_id)
def test_setitem_numpy_values(lay):
    """NumPy's scalars are written as the Python scalars they hold (``x[i] = a.max()``: the
    standard's rules for Python scalars, no message), NumPy arrays (0-d too) as replicated
    values, as NumPy writes them; an array that differs between ranks raises on every rank."""
    g = global_data((7, 5))
    i = random_array((7, 5), "int16", seed=3)
    b = np.zeros((7, 5), bool)
    x, xi, xb = (distribute(a, *lay) for a in (g, i, b))
    want, want_i, want_b = g.copy(), i.copy(), b.copy()
    writes = [
        (x, want, (2, 3), np.float32(2.5)),
        (x, want, (slice(None), 1), np.int64(-4)),
        (x, want, (slice(1, 6, 2),), np.array(7.25)),
        (x, want, (slice(None, None, -3),), np.arange(5.0)),
        (x, want, (x > 0.5,), np.float64(0.125)),
        (xi, want_i, (slice(None), slice(None, None, 2)), np.int8(-3)),
        (xi, want_i, (0,), np.arange(5, dtype=np.int16)),
        (xb, want_b, (slice(2, None),), np.bool_(True)),
    ]
    for arr, ref, key, value in writes:
        with xdist.count_collectives() as sent:
            arr[key] = value
        if isinstance(value, np.generic) and all(type(k) in (int, slice) for k in key):
            assert sum(sent.values()) == 0, (key, value)
        ref[tuple(k.to_numpy() if hasattr(k, "to_numpy") else k for k in key)] = value
    assert_equal(x, want)
    assert_equal(xi, want_i)
    assert_equal(xb, want_b)
    for value, error in [(np.float32(1.5), TypeError), (np.int64(1 << 40), OverflowError)]:
        with pytest.raises(error, match="__setitem__"):
            xi[0, 0] = value
    if SIZE > 1:
        with pytest.raises(ValueError, match="__setitem__: an operand that is not an xdist"):
            x[0] = np.full(5, float(RANK))


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
