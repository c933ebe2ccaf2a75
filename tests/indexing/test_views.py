"""Writes through views: a write into the result of basic indexing, of a reshape or of a
permutation is seen in the base wherever NumPy shows it, and nowhere else, at every rank
count and on every layout (a result that had to move writes itself back). The same program
on the same data must leave the base as NumPy leaves it."""

from __future__ import annotations

import importlib
import weakref
from collections import Counter, deque

import numpy as np
import pytest
from helpers import SIZE, assert_equal, distribute, layout_id, layouts

import xdist
from xdist._array import WriteBack
from xdist._indexing.basic import Selection
from xdist._manipulation_functions.shapes import Permutation, Reshape

SHAPE = (4, 5, 6)


def _data() -> np.ndarray:
    return np.arange(np.prod(SHAPE), dtype=np.float64).reshape(SHAPE)


# The views, written once for both namespaces (NumPy 2 has the standard's names).
VIEWS = {
    "c[1]": lambda xp, c: c[1],
    "c[-1]": lambda xp, c: c[-1],
    "c[:,2]": lambda xp, c: c[:, 2],
    "c[...,3]": lambda xp, c: c[..., 3],
    "c[1,3]": lambda xp, c: c[1, 3],
    "c[2,:,4]": lambda xp, c: c[2, :, 4],
    "c[::-1]": lambda xp, c: c[::-1],
    "c[:,::-2]": lambda xp, c: c[:, ::-2],
    "c[1:][::2]": lambda xp, c: c[1:][::2],
    "c[2][::-1,1:]": lambda xp, c: c[2][::-1, 1:],
    "c[None,1:3]": lambda xp, c: c[None, 1:3],
    "reshape(c[1],-1)": lambda xp, c: xp.reshape(c[1], (-1,)),
    "reshape(c,(2,-1))": lambda xp, c: xp.reshape(c, (2, -1)),
    "reshape(c,(8,-1))": lambda xp, c: xp.reshape(c, (8, -1)),
    "reshape(c,(20,6))": lambda xp, c: xp.reshape(c, (20, 6)),
    "reshape(c,-1)": lambda xp, c: xp.reshape(c, (-1,)),
    "reshape(c[:,1:3],(4,-1))": lambda xp, c: xp.reshape(c[:, 1:3], (4, -1)),
    "reshape(reshape(c,-1)[::2],(3,-1))": lambda xp, c: xp.reshape(
        xp.reshape(c, (-1,))[::2], (3, -1)
    ),
    # NumPy copies these (the elements are not evenly spaced): the write must not be seen.
    "reshape(c[:,1],-1)": lambda xp, c: xp.reshape(c[:, 1], (-1,)),
    "reshape(c[::-1],-1)": lambda xp, c: xp.reshape(c[::-1], (-1,)),
    "reshape(c.T-ish,-1)": lambda xp, c: xp.reshape(xp.permute_dims(c, (2, 0, 1)), (-1,)),
    "permute_dims(c)": lambda xp, c: xp.permute_dims(c, (2, 0, 1)),
    "permute_dims(c[1])": lambda xp, c: xp.permute_dims(c[1], (1, 0)),
    "moveaxis(c,0,-1)": lambda xp, c: xp.moveaxis(c, 0, -1),
    "c[1].mT": lambda xp, c: c[1].mT,
    "matrix_transpose(c[::-1])": lambda xp, c: xp.matrix_transpose(c[::-1]),
    "c.mT": lambda xp, c: c.mT,
    "squeeze(c[1:2],0)": lambda xp, c: xp.squeeze(c[1:2], axis=0),
    "squeeze(c[:,:,2:3],2)": lambda xp, c: xp.squeeze(c[:, :, 2:3], axis=2),
    "expand_dims(c[:,1],1)": lambda xp, c: xp.expand_dims(c[:, 1], axis=1),
}


def _value(v_shape, make):
    return make(np.arange(np.prod(v_shape), dtype=np.float64).reshape(v_shape) * 0.5 - 3)


# Each write takes the view and ``make`` (NumPy data to an array of the namespace).
WRITES = {
    "elem": lambda v, make: v.__setitem__((0,) * v.ndim, 9.5),
    "last": lambda v, make: v.__setitem__((-1,) * v.ndim, -9.5),
    "slice": lambda v, make: v.__setitem__((slice(None, None, 2),), 7.0),
    "all-array": lambda v, make: v.__setitem__(Ellipsis, _value(v.shape, make)),
    "row-array": lambda v, make: v.__setitem__(-1, _value(v.shape[1:], make)),
    "+=": lambda v, make: v.__iadd__(1.5),
    "*=array": lambda v, make: v.__imul__(_value(v.shape, make)),
}


def _makers():
    """How the value of a write is made: replicated, or split along its first axis."""
    return {
        "rep": lambda a: distribute(a, None),
        "split": lambda a: distribute(a, 0 if a.ndim else None),
    }


CASES = [(name, w) for name in VIEWS for w in WRITES]


@pytest.mark.parametrize("layout", layouts(SHAPE), ids=layout_id)
@pytest.mark.parametrize("view,write", CASES, ids=[f"{v}-{w}" for v, w in CASES])
def test_write_through_view(view, write, layout):
    g = _data()
    nv = VIEWS[view](np, g)
    WRITES[write](nv, np.asarray)
    for how, make in _makers().items():
        c = distribute(_data(), *layout)
        v = VIEWS[view](xdist, c)
        WRITES[write](v, make)
        assert_equal(v, nv)
        assert_equal(c, g), how


@pytest.mark.parametrize("layout", layouts(SHAPE), ids=layout_id)
def test_a_write_through_a_row_and_through_a_flat_reshape(layout):
    c = distribute(_data(), *layout)
    v = c[0, :, :]
    v[0, 0] = 5
    f = xdist.reshape(c[1], (-1,))
    f[::4] = 7
    g = _data()
    g[0, 0, 0] = 5
    g[1].reshape(-1)[::4] = 7
    assert_equal(c, g)


@pytest.mark.parametrize("layout", layouts(SHAPE), ids=layout_id)
def test_writes_in_sequence_and_views_of_views(layout):
    """Views of views pass writes on to the base, each made after the writes before it."""
    g = _data()
    c = distribute(_data(), *layout)
    for ns, a in ((np, g), (xdist, c)):
        v = a[2]
        v[1, 1] = -2.0
        w = v[::-1, 1:]
        w[0] = -1.0  # reaches v, then a
        w += 10.0
        w[1:3, ::2] *= 3.0
        f = ns.reshape(v, (-1,))
        f[3::7] = -3.0
        u = ns.permute_dims(v, (1, 0))
        u[0] *= 2.0
        ns.reshape(u, (-1,))[2:5] = 8.0  # NumPy copies u: not seen
    assert_equal(c, g)


@pytest.mark.parametrize("layout", layouts(SHAPE), ids=layout_id)
def test_a_write_goes_back_alone(layout):
    """A write through a moved view writes back only what it wrote: a write into the base
    since the view was made is kept (the view itself does not see it)."""
    g = _data()
    c = distribute(_data(), *layout)
    for a in (g, c):
        v = a[1]
        r = a[::-1, 2]
        a[1, 0, 0] = 100.0
        a[3, 2, 1] = 200.0
        v[2, 2] = 5.0
        v[3, 1:4] = 6.0
        r[1, 2] = 7.0
    assert_equal(c, g)


# -- the write-back: a value held by the view, naming its base and how the view maps onto it -----
def test_a_views_write_back_names_its_base_and_mapping():
    c = distribute(_data(), 0)
    # Arrays that view nothing, and views of a plain array's blocks, hold none.
    assert c._writeback is None
    assert c[1:3]._writeback is None
    assert distribute(_data(), None)[1]._writeback is None
    full = (slice(0, 5, 1), slice(0, 6, 1))
    r = c[::-1]  # a flip: a copy (some libraries copy flips; at several ranks it moves)
    back = r._writeback
    assert type(back) is Selection and back.base is c and back.copied
    assert back.key == (slice(3, None, -1), *full)
    assert repr(back).startswith("Selection(base shape (4, 5, 6), parts=")
    w = r[1:3]  # a view of the copy's blocks: it passes writes on to the copy
    assert type(w._writeback) is Selection and w._writeback.base is r
    assert w._writeback.key == (slice(1, 3, 1), *full) and not w._writeback.copied
    t = xdist.permute_dims(r, (2, 0, 1))
    assert type(t._writeback) is Permutation and t._writeback.base is r
    assert t._writeback.axes == (2, 0, 1)
    e = xdist.expand_dims(r, axis=1)
    assert type(e._writeback) is Reshape and e._writeback.base is r
    assert (e._writeback.shape, e._writeback.how) == ((4, 1, 5, 6), "shared")
    v = c[1]  # an int on the split axis: the owner's piece moves at several ranks
    if SIZE > 1:
        assert type(v._writeback) is Selection and v._writeback.base is c
        assert v._writeback.key == (1, *full) and v._writeback.copied
    else:
        assert v._writeback is None
    c1 = distribute(_data(), 1)
    m = xdist.reshape(c1, (20, 6))  # split along axis 1: the rows move at several ranks
    if SIZE > 1:
        assert type(m._writeback) is Reshape and m._writeback.base is c1
        assert (m._writeback.shape, m._writeback.how) == ((20, 6), "moved")
    else:
        assert m._writeback is None
    for x in (r, w, t, e, v, m):
        assert x._writeback is None or isinstance(x._writeback, WriteBack)


# Chains of views, each made from the one before: a view of a moved view, reshapes and
# permutations of slices. NumPy shows every write in the base (but where it copies).
CHAINS = {
    "c[::-1][1:3]": lambda xp, c: c[::-1][1:3],
    "c[::-1][1:3][::-1,2]": lambda xp, c: c[::-1][1:3][::-1, 2],
    "c[1][::2][:,1:]": lambda xp, c: c[1][::2][:, 1:],
    "reshape(c[1:3],(2,-1))": lambda xp, c: xp.reshape(c[1:3], (2, -1)),
    "reshape(c[::-1][2],-1)": lambda xp, c: xp.reshape(c[::-1][2], (-1,)),
    "reshape(c[::-1][1:3],(10,6))": lambda xp, c: xp.reshape(c[::-1][1:3], (10, 6)),
    "permute_dims(c[1:3])": lambda xp, c: xp.permute_dims(c[1:3], (2, 0, 1)),
    "permute_dims(c[::-1][:,1:4])": lambda xp, c: xp.permute_dims(c[::-1][:, 1:4], (1, 2, 0)),
    "expand_dims(c[-1],0)[:,::2]": lambda xp, c: xp.expand_dims(c[-1], axis=0)[:, ::2],
    "reshape(permute_dims(c[2]),-1)[3:]": lambda xp, c: xp.reshape(
        xp.permute_dims(c[2], (1, 0)), (-1,)
    )[3:],
}


@pytest.mark.parametrize("layout", layouts(SHAPE), ids=layout_id)
@pytest.mark.parametrize("chain", CHAINS)
def test_writes_through_chains_of_views_land_in_the_base(chain, layout):
    g = _data()
    c = distribute(_data(), *layout)
    nv, v = CHAINS[chain](np, g), CHAINS[chain](xdist, c)
    for write in ("elem", "+=", "slice", "row-array", "last"):
        WRITES[write](nv, np.asarray)
        WRITES[write](v, _makers()["split"])
        assert_equal(v, nv)
        assert_equal(c, g)


# The modules that make views and carry writes back. Tables filled once when xdist is
# imported and only read after are not state that one call leaves for the next.
_WRITE_MODULES = [
    "xdist._array",
    "xdist._indexing",
    "xdist._indexing.basic",
    "xdist._indexing.strides",
    "xdist._manipulation_functions.shapes",
]
_TABLES = {"OPERATORS", "_IN_PLACE"}


@pytest.mark.parametrize("name", _WRITE_MODULES)
def test_no_module_level_write_state(name):
    """A write's way back is held by the view alone: no module keeps a mutable value (a
    list, dict, set, queue or weak reference) that one call could set and the next read."""
    module = importlib.import_module(name)
    mutable = (list, dict, set, bytearray, deque, weakref.ref, weakref.WeakValueDictionary)
    found = [
        k
        for k, value in vars(module).items()
        if not k.startswith("__") and k not in _TABLES and isinstance(value, mutable)
    ]
    assert not found, f"{name}: module-level mutable values {found}"


def test_advanced_indexing_gives_copies():
    for layout in layouts(SHAPE):
        c = distribute(_data(), *layout)
        idx = distribute(np.array([0, 2]), None)
        v = c[idx]
        v[...] = 0.0
        m = c[c > 50.0]
        m[...] = 0.0
        assert_equal(c, _data())


def test_copy_true_and_numpy_copies_do_not_write_back():
    for layout in layouts(SHAPE):
        c = distribute(_data(), *layout)
        f = xdist.reshape(c, (-1,), copy=True)
        f[...] = 0.0
        t = xdist.reshape(xdist.permute_dims(c, (1, 0, 2)), (-1,))
        t[...] = 0.0
        assert_equal(c, _data())


def test_copy_false_raises_where_numpy_copies_at_every_rank_count():
    for layout in layouts(SHAPE):
        c = distribute(_data(), *layout)
        with pytest.raises(ValueError, match="copy=False"):
            xdist.reshape(c[:, 1], (-1,), copy=False)
        with pytest.raises(ValueError, match="copy=False"):
            xdist.reshape(c[::-1], (-1,), copy=False)


# -- scikit-learn's GaussianMixture: reg_covar added through a view of one covariance ----------
def _estimate_covariances_full(xp, X, resp, nk, means, reg_covar, split):
    """scikit-learn's _estimate_gaussian_covariances_full with its _add_to_diagonal for a
    namespace other than NumPy's (each diagonal element written through ``covariances[k]``)."""
    n_components, n_features = means.shape
    shape = (n_components, n_features, n_features)
    if xp is np:
        covariances = np.empty(shape)
    else:
        covariances = xdist.empty(shape, dtype=X.dtype, split=split)
    for k in range(n_components):
        diff = X - means[k, :]
        covariances[k, :, :] = ((resp[:, k] * diff.T) @ diff) / nk[k]
        array = covariances[k, :, :]
        value = xp.linalg.diagonal(array) + reg_covar
        for i in range(n_features):
            array[i, i] = value[i]
    return covariances


@pytest.mark.parametrize("split", [None, 0, 1, 2])
def test_gaussian_mixture_reg_covar(split):
    rng = np.random.default_rng(0)
    X, resp = rng.standard_normal((30, 4)), rng.random((30, 3))
    nk = resp.sum(axis=0)
    means = (resp.T @ X) / nk[:, None]
    expected = _estimate_covariances_full(np, X, resp, nk, means, 0.25, None)
    args = [distribute(X, 0), distribute(resp, 0), distribute(nk), distribute(means)]
    got = _estimate_covariances_full(xdist, *args, 0.25, split)
    assert_equal(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("split", [None, 0, 1, 2])
def test_diagonal_through_flat_reshape(split):
    """The fast form of _add_to_diagonal: ``reshape(covariances[k], (-1,))[::n + 1] += r``."""
    g = np.arange(2 * 3 * 3, dtype=np.float64).reshape(2, 3, 3)
    c = distribute(g, split)
    for ns, a in ((np, g), (xdist, c)):
        for k in range(2):
            flat = ns.reshape(a[k, :, :], (-1,))
            flat[::4] += 0.5
    assert_equal(c, g)


# -- what travels ----------------------------------------------------------------------------
def _sent(counts: Counter) -> int:
    return sum(counts.values())


@pytest.mark.parametrize("layout", layouts(SHAPE), ids=layout_id)
def test_real_views_send_nothing(layout):
    """Views of the block (every key on a replicated array; an int off the split axis, a
    positive step on it; a local reshape; a permutation) and writes into them: no message."""
    split = layout[0]
    c = distribute(_data(), *layout)
    g = _data()
    other = 1 if split is None else (split + 1) % 3  # an axis the data is not split along
    keys = [(slice(1, None, 2),), (slice(None),) * other + (1,), (Ellipsis, slice(None, None, 3))]
    if split is None:
        keys += [(1,), (2, slice(None, None, -1)), (0, 1, 2)]
    for key in keys:
        with xdist.count_collectives() as counts:
            v = c[key]
            v[...] = -1.0
            v += 2.0
        assert _sent(counts) == 0, (key, counts)
        g[key] = 1.0
    with xdist.count_collectives() as counts:
        f = xdist.reshape(c, (4, 30)) if split != 2 else xdist.reshape(c, (20, 6))
        f[:, 0] = 5.0
        t = xdist.permute_dims(c, (2, 1, 0))
        tkey = (slice(None),) * (1 if t.split is None else (t.split + 1) % 3) + (0,)
        t[tkey] *= 2.0
    assert _sent(counts) == 0, counts
    g[:, 0, 0] = 5.0 if split != 2 else g[:, 0, 0]
    if split == 2:
        g.reshape(20, 6)[:, 0] = 5.0
    g.transpose(2, 1, 0)[tkey] *= 2.0
    assert_equal(c, g)


def test_moved_views_write_back_with_the_least_messages():
    """An int on the split axis: one bcast to make the view, no message for each write (the
    owner writes its own replicated copy); a reversed split axis: one all-to-all back."""
    c = distribute(_data(), 0)
    with xdist.count_collectives() as counts:
        v = c[1]
    assert counts == (Counter(bcast=1) if SIZE > 1 else Counter())
    with xdist.count_collectives() as counts:
        v[0, 0] = 5.0
        v += 1.0
    assert _sent(counts) == 0, counts
    r = c[::-1]
    with xdist.count_collectives() as counts:
        r[0] = 3.0
    moved = SIZE > 1
    assert (_sent(counts) <= 2) if moved else _sent(counts) == 0, counts
    g = _data()
    g[1, 0, 0] = 5.0
    g[1] += 1.0
    g[::-1][0] = 3.0
    assert_equal(c, g)


# -- random chains of views, each written into, against NumPy ---------------------------------
def _random_key(rng, shape):
    """Ints, slices of any step and bounds, full slices and new axes (an Ellipsis ends the
    key so that NumPy gives a 0-d view, not a scalar, for all ints)."""
    key = []
    for n in shape:
        r = rng.random()
        if r < 0.25 and n:
            key.append(int(rng.integers(-n, n)))
        elif r < 0.8:
            bounds = [None if rng.random() < 0.5 else int(rng.integers(0, n + 1)) for _ in "ab"]
            key.append(slice(*bounds, int(rng.choice([1, 1, 2, -1, -2, 3]))))
        else:
            key.append(slice(None))
        if rng.random() < 0.05:
            key.append(None)
    return (*key, Ellipsis)


def _random_view(rng, v):
    """A random view of ``v`` as ``(name, function of (namespace, array))``."""
    r = rng.random()
    if r < 0.5 or v.ndim == 0:
        key = _random_key(rng, v.shape)
        return lambda xp, a: a[key]
    if r < 0.65:
        ones = tuple(i for i, n in enumerate(v.shape) if n == 1)
        axis = int(rng.integers(-v.ndim - 1, v.ndim + 1))
        if ones:
            return lambda xp, a: xp.squeeze(a, axis=ones)
        return lambda xp, a: xp.expand_dims(a, axis=axis)
    if r < 0.85:
        dims = [d for d in range(1, v.size + 1) if v.size % d == 0] or [1]
        first = int(rng.choice(dims))
        new = (first, -1) if v.size else (-1,)
        return lambda xp, a: xp.reshape(a, new)
    perm = tuple(int(i) for i in rng.permutation(v.ndim))
    return lambda xp, a: xp.permute_dims(a, perm)


def _random_writes(rng, v):
    """One to three writes: a scalar into a random selection, ``+=``, or all of it."""
    writes = []
    for _ in range(int(rng.integers(1, 4))):
        r, value = rng.random(), float(rng.integers(-50, 50)) + 0.5
        if r < 0.4 and v.ndim:
            key = _random_key(rng, v.shape)
            writes.append(lambda a, key=key, value=value: a.__setitem__(key, value))
        elif r < 0.6:
            writes.append(lambda a, value=value: a.__iadd__(value))
        else:
            writes.append(lambda a, value=value: a.__setitem__(Ellipsis, value))
    return writes


@pytest.mark.parametrize("seed", range(6))
def test_random_chains_of_views_match_numpy(seed):
    """Chains of up to three views (keys, reshapes, permutations, squeezes), each written into
    right after it is made: the base and the last view equal NumPy's on every layout."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        shape = [(4, 5, 6), (6, 4), (7,), (3, 1, 4), (2, 3, 0)][int(rng.integers(5))]
        layout = layouts(shape)[int(rng.integers(len(layouts(shape))))]
        g = np.arange(np.prod(shape), dtype=np.float64).reshape(shape)
        c = distribute(g, *layout)
        nv, v = g, c
        for _ in range(int(rng.integers(1, 4))):
            make = _random_view(rng, nv)
            nv, v = make(np, nv), make(xdist, v)
            for write in _random_writes(rng, nv):
                write(nv)
                write(v)
        assert_equal(v, nv)
        assert_equal(c, g)
