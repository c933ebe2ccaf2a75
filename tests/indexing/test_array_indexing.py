"""Integer-array and boolean-mask indexing (``xdist/_indexing/integer_arrays.py``,
``xdist/_indexing/masks.py``) against NumPy on every layout, and what it sends: integer arrays
along the split axis one alltoall of counts and two alltoallv, nothing of ``x`` otherwise;
masks split like ``x`` along axis 0 one allgather of counts and no data. Basic indexing is in
test_indexing.py."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers import (
    COMM,
    SIZE,
    assert_equal,
    distribute,
    host,
    layout_id,
    layouts,
    random_array,
)
from test_indexing import S, global_data, key_id

import xdist
from xdist._indexing import integer_arrays
from xdist._layout import Layout

RANK = COMM.rank

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


# Backends select from C-contiguous blocks by their own faster paths (NumPy's ``compress``,
# Torch's ``index_select`` on the CPU) and from other layouts by boolean indexing.
@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "float32", "complex128"])
def test_mask_getitem_every_block_layout(dtype):
    g = random_array((31, 6, 3), dtype, 11)
    views = {
        "whole": (lambda a: a, lambda a: a),
        "strided": (lambda a: a[:, ::2], lambda a: a[:, ::2]),
        "transposed": (lambda a: xdist.permute_dims(a, (0, 2, 1)), lambda a: a.transpose(0, 2, 1)),
    }
    for split, counts in layouts(g.shape):
        x = distribute(g, split, counts)
        for view, np_view in views.values():
            v, expected = view(x), np_view(g)
            for m in (1, 2):
                for mask in _masks(expected.shape[:m], seed=m):
                    for ml in layouts(mask.shape)[:2]:
                        y = v[distribute(mask, *ml)]
                        assert_equal(y, expected[mask])


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
        np.testing.assert_array_equal(host(y.local), host(x.local[m.local]))  # data stayed
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


@pytest.mark.parametrize("counts", [None, "uneven"])
@pytest.mark.parametrize(
    "idx",
    [[0, 1, 2, 5, 6], [2, 2, 3], [-3, -1], [], [1, 4], [0, 1, 2, 3, 4, 5, 6], [4, 5, 5, 6, 6, 6]],
    ids=str,
)
def test_sorted_replicated_indices_on_the_split_axis_keep_the_selection_split(counts, idx):
    """xarray's groupby selects each group with sorted indices, scikit-learn's unshuffled
    folds their training rows: the result stays split where its rows live (the indices each
    block holds), with no message, unless those counts are uneven (the largest more than
    ``_UNEVEN`` times the balanced one): then the rows move to balanced counts, each rank
    sending only its rows beyond its balanced share, in one ``alltoallv``."""
    g = global_data((7, 5))
    x = distribute(g, 0, None if counts is None else layouts((7, 5))[-1][1])
    r = distribute(A(idx, dtype=np.int64), None)
    with xdist.count_collectives() as sent, xdist.config_context(gather_warning_elements=0):
        y = x[r, 1:]
    want = g[A(idx, dtype=np.int64), 1:]
    if SIZE > 1:
        owners = [x.layout.owner(i % 7) for i in idx]
        held = tuple(owners.count(k) for k in range(SIZE))
        balanced = Layout.balanced((len(idx),), 0, SIZE).counts
        assert y.split == 0
        if max(held, default=0) <= max(balanced) * integer_arrays._UNEVEN:
            assert sent == Counter() and y.counts == held
        else:
            assert sent == Counter(alltoallv=1) and y.counts == balanced
            start, stop = sum(held[:RANK]), sum(held[: RANK + 1])
            lo, hi = sum(balanced[:RANK]), sum(balanced[: RANK + 1])
            stays = max(0, min(stop, hi) - max(start, lo))
            assert sent.bytes["alltoallv"] == (held[RANK] - stays) * 4 * 8  # rows of 4 float64
    assert_equal(y, want)
    with xdist.config_context(gather_warning_elements=0):
        assert_equal(xdist.take(x, r, axis=0), g[A(idx, dtype=np.int64)])
        with pytest.raises(IndexError, match="out of bounds"):
            x[distribute(A([1, 9]), None)]
    # a selection of at most gather_warning_elements meets whole on every rank, as before
    if SIZE > 1 and idx:
        with xdist.count_collectives() as sent:
            y = x[r, 1:]
        assert sent == Counter(allgatherv=1) and y.split is None
        assert_equal(y, want)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("runs", ["one run", "two runs", "every other", "repeats"])
def test_sorted_selection_copies_runs_and_rows_and_shares_no_memory(axis, runs):
    """A sorted selection is copied run by run where it has few runs of consecutive indices
    and gathered row by row where it has many (more than ``_FEW_RUNS`` on a rank), on
    either split axis, kept where it lives or moved to balanced counts: the values are
    NumPy's, and the result owns its memory (a write to it leaves the source alone)."""
    n = 120
    idx = {
        "one run": np.arange(10, 100),
        "two runs": np.r_[0:40, 80:120],
        "every other": np.arange(0, n, 2),
        "repeats": np.repeat(np.arange(30, 70), 2),
    }[runs]
    shape = (n, 4) if axis == 0 else (4, n)
    g = global_data(shape)
    x = distribute(g, axis)
    r = distribute(A(idx, dtype=np.int64), None)
    with xdist.config_context(gather_warning_elements=0):
        y = xdist.take(x, r, axis=axis)
    assert_equal(y, np.take(g, idx, axis=axis))
    if SIZE > 1:
        assert y.split == axis
    y[...] = -1.0
    assert_equal(x, g)


SPREAD_KEYS = {
    "permutation": lambda n: np.random.default_rng(1).permutation(n),
    "with repeats": lambda n: np.random.default_rng(2).integers(-n, n, size=n + 3),
    "2-D": lambda n: np.random.default_rng(3).integers(0, n, size=(3, 4)),
    "empty": lambda n: np.zeros(0, dtype=np.int64),
}


@pytest.mark.parametrize("split", [0, 1])
@pytest.mark.parametrize("make", list(SPREAD_KEYS.values()), ids=list(SPREAD_KEYS))
@pytest.mark.parametrize("lay", ["balanced", "uneven"])
def test_replicated_indices_on_the_split_axis_keep_the_result_split(make, split, lay):
    """``train_test_split``, shuffled folds and bootstrap samples index the samples with a
    replicated integer array in any order: the result is split along the first index axis
    with balanced counts, and each rank receives its rows from their owners in one
    ``alltoallv``, at most its own part of the result (no allgatherv of the selection)."""
    shape = (9, 4) if split == 0 else (4, 9)
    g = global_data(shape)
    lay_counts = None if lay == "balanced" else layouts(shape)[-1 if split == 0 else -2][1]
    x = distribute(g, split, lay_counts)
    idx = make(9)
    r = distribute(idx.astype(np.int64), None)
    key = (r, slice(1, None)) if split == 0 else (slice(None), r)
    with xdist.count_collectives() as sent, xdist.config_context(gather_warning_elements=0):
        y = x[key]
        if idx.ndim == 1:
            t = xdist.take(x, r, axis=split)
    want = g[idx, 1:] if split == 0 else g[:, idx]
    assert_equal(y, want)
    if idx.ndim == 1:
        assert_equal(t, np.take(g, idx, axis=split))
    if SIZE > 1 and idx.size:
        axis = split  # the index axes stand where the split axis stood
        assert y.split == axis
        assert y.counts == xdist.Layout.balanced(y.shape, axis, SIZE).counts
        assert sent == Counter(alltoallv=idx.ndim == 1 and 2 or 1), sent  # x[key], take
        # each owner sends exactly the selected rows it holds that another rank's part needs
        owners = x.layout.owners(idx.reshape(-1) % 9)
        dest = np.repeat(np.arange(SIZE), np.array(y.counts) * (idx.size // idx.shape[0]))
        rows = int(np.sum((owners == COMM.rank) & (dest != COMM.rank)))
        widths = (3 if split == 0 else 4) + (4 if idx.ndim == 1 else 0)  # x[key], take's
        assert sent.bytes["alltoallv"] == rows * widths * g.itemsize
    bad = distribute(A([1, 99, 2]), None)
    with pytest.raises(IndexError, match="out of bounds"):
        with xdist.config_context(gather_warning_elements=0):
            x[(bad,) if split == 0 else (slice(None), bad)]


def test_replicated_indices_hold_about_two_blocks():
    """Peak memory of ``x[idx]`` for a replicated permutation of the rows: about this rank's
    block sent and its part of the result received, never the whole selection (measured by
    tracemalloc, which NumPy reports its allocations to)."""
    import tracemalloc

    rows, cols = 6000, 64
    g = np.random.default_rng(0).standard_normal((rows, cols))
    x = distribute(g, 0)
    r = distribute(np.random.default_rng(1).permutation(rows), None)
    block = x.lshape[0] * cols * 8
    index_bytes = rows * 8
    tracemalloc.start()
    try:
        y = x[r]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert_equal(y, g[r.to_numpy()])
    if SIZE > 1:
        assert peak <= 2.2 * block + 6 * index_bytes, (peak, block)
    if SIZE > 2:  # two blocks are less than the whole selection
        assert peak < rows * cols * 8


@pytest.mark.parametrize("owners", [2, 3, 9, 40, 40000])
def test_rows_arrived_by_owner_are_put_in_position_order(owners):
    """``fetch_spread``'s last step, by the inverse of a stable sort of the owners (16-bit
    keys, or 64-bit ones past 32767 ranks; more ranks than the test command runs), against
    NumPy's indexing."""
    from xdist._indexing.gather_scatter import _interleaved

    rng = np.random.default_rng(owners)
    held = rng.integers(0, owners, size=500)
    held[held == 1] = 0  # an owner that sends nothing
    rows = rng.standard_normal((500, 3))
    order = np.argsort(held, kind="stable")  # as they arrive: grouped by owner, in order
    got = _interleaved(rows[order], held, owners)
    np.testing.assert_array_equal(got, rows, strict=True)
