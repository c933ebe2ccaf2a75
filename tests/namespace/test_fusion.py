"""Fused elementwise chains (``xdist/_fusion.py``): a chain of elementwise functions of NumPy
blocks is recorded and made in one pass of tiles when its value is needed. Each rule against
the eager path (``fuse_min_elements=0``), bit for bit, at every rank count, on every layout
(uneven and empty blocks), with NaN and infinities; what a chain reads when its operands are
written (through xdist, through ``.local``, through the user's NumPy data); in-place operators
and views over a pending chain; errors and NumPy's error state at the call; memory."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
from helpers import (
    BACKEND,
    ON_HOST,
    RANK,
    SIZE,
    assert_host_bits,
    assert_same_bits,
    distribute,
    layout_id,
    layouts,
    random_array,
)

import xdist
from xdist import _fusion, _pending
from xdist._fusion import Pending

SHAPE = (37, 11)
FUSES = BACKEND.name == "numpy" or (BACKEND.name == "torch" and ON_HOST)  # fused blocks


def _fusing(x) -> bool:
    """Whether ``x``'s block is fused here: the NumPy backend with fusion on, and a first
    axis to tile."""
    return FUSES and xdist.get_config().fuse_min_elements > 0 and x.lshape[0] > 1


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch):
    """Fusion for every block of these small arrays, in tiles of a few rows, so that every
    chain crosses tile boundaries."""
    monkeypatch.setattr(_fusion, "_TILE", 24)
    with xdist.config_context(fuse_min_elements=1):
        yield


def _special(dtype) -> np.ndarray:
    a = random_array(SHAPE, dtype, seed=3) * 2.0
    if np.dtype(dtype).kind == "f":
        a.flat[::7] = np.nan
        a.flat[3::11] = np.inf
        a.flat[5::13] = -np.inf
        a.flat[1::17] = 0.0
    return a


def _both(make):
    """``make()`` fused and eager, each as NumPy arrays (the fused one also made lazily)."""
    fused = make()
    with xdist.config_context(fuse_min_elements=0):
        eager = make()
    return fused, eager


_CHAINS = {
    "scale": lambda x, m: ((x - m) / (m + 3.0)) * 2.0 + 1.0,
    "transcendental": lambda x, m: xdist.exp(-0.5 * (x * 1.0) ** 2) / xdist.sqrt(m * m + 1.0),
    "where_clip": lambda x, m: (
        xdist.where(x * 1.0 > 0, xdist.log1p(xdist.abs(x)), -x) + xdist.clip(x * 2.0, -1.0, 1.0)
    ),
    "compare_logical": lambda x, m: xdist.logical_and(x * 1.0 > m, xdist.isfinite(x + 0.0)),
    "mixed_kinds": lambda x, m: xdist.astype(x * 1.0 > 0, x.dtype) * x + xdist.sign(x - m),
    # functions whose Torch CPU kernels give a call's last elements other bits (the Torch
    # backend's are NumPy's, or built of kernels that do not)
    "hyperbolic": lambda x, m: (
        xdist.sinh(x * 0.5) + xdist.cosh(m * 1.0 + x) - xdist.atanh(xdist.tanh(x * 1.0) * 0.5)
    ),
    "two_arguments": lambda x, m: (
        xdist.atan2(x * 1.0, m)
        + xdist.hypot(x * 2.0, m)
        + xdist.logaddexp(x * 1.0, m)
        + xdist.pow(xdist.abs(x * 1.0), 1.5)
        + xdist.abs(x * 1.0) ** m
    ),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(_CHAINS))
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_chains_give_the_eager_bits(lay, name, dtype):
    a = _special(dtype)
    row = random_array(SHAPE[1:], dtype, seed=4)

    def make():
        x, m = distribute(a, *lay), distribute(row, None)
        return [_CHAINS[name](x, m)]

    fused, eager = _both(make)
    if _fusing(fused[0]):
        assert isinstance(make()[0], Pending)
    assert_same_bits(fused, eager)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(_CHAINS))
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_chains_give_the_bits_of_one_block(lay, name, dtype):
    """An element's value does not depend on where its block or tile starts and ends: each
    chain gives the bits of the replicated array's (one call of each function over the
    whole array), at every rank count, fused and eager."""
    a = _special(dtype)
    row = random_array(SHAPE[1:], dtype, seed=4)

    def make(lay):
        x, m = distribute(a, *lay), distribute(row, None)
        return [_CHAINS[name](x, m)]

    with xdist.config_context(fuse_min_elements=0):
        whole = make((None, None))[0].to_numpy()
    fused, eager = _both(lambda: make(lay))
    for got in (fused[0], eager[0]):
        assert_host_bits(got.to_numpy(), whole)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_short_row_operand_is_copied_into_the_tiles_rows(lay, monkeypatch):
    """A row operand (``x - m`` with ``m`` a row of 11 elements) is copied once into a tile's
    rows, so that each tile's function runs on two blocks of the tile's shape (NumPy runs a
    broadcast row one row at a time): used on every block of more than one tile, and the
    eager bits, NaN and infinities included."""
    a = _special("float64")
    row = random_array(SHAPE[1:], "float64", seed=5)
    made = []
    real = _fusion._rows_of

    def counting(leaf, shape, rows):
        found = real(leaf, shape, rows)
        if isinstance(leaf, np.ndarray):  # (not the chain's numbers)
            made.append(found is not None)
        return found

    monkeypatch.setattr(_fusion, "_rows_of", counting)

    def make():
        x, m = distribute(a, *lay), distribute(row, None)
        return [(x - m) * 2.0 + m]

    fused, eager = _both(make)
    assert_same_bits(fused, eager)  # (the chains run here)
    tiles = -(-fused[0].lshape[0] // max(1, 24 // fused[0].lshape[1]))  # the fixture's tiles
    if BACKEND.name == "numpy" and fused[0].lshape[1] > 1 and tiles > 1:
        assert made and all(made)
    else:
        assert not any(made)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_integer_chains_and_division_by_zero(lay):
    a = random_array(SHAPE, "int64", seed=5)

    def make():
        x = distribute(a, *lay)
        y = x * 3 - 7
        return [y // (x % 4), (y % 5) ** 2, xdist.bitwise_and(y, 6) << 1]

    assert_same_bits(*_both(make))


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_intermediates_that_are_kept_are_made_in_the_same_pass(lay):
    """A pending array that is still referenced when another chain reading it is made gets
    its block in that pass; one that is gone is never written."""
    a = _special("float64")

    def make():
        x = distribute(a, *lay)
        t = x * 2.0
        u = t + 1.0  # kept, read by w
        w = xdist.sqrt(xdist.abs(u)) * t
        w.local  # noqa: B018  (makes w; u and t are made in the same pass)
        if _fusing(w):
            assert u.formed and t.formed
        return [w, u, t]

    assert_same_bits(*_both(make))


def test_a_chain_reads_the_values_at_the_call():
    """Writes after a function was recorded never reach its result: through xdist, through a
    block handed out by ``.local``, through the user's NumPy data."""
    a = random_array(SHAPE, "float64", seed=6)
    for lay in layouts(SHAPE):
        x = distribute(a, *lay)
        t = x + 1.0  # made now from the user's block; t's own block is xdist's
        y = t * 2.0  # pending, reads t's block
        t[...] = 0.0  # a write through xdist makes y first
        np.testing.assert_array_equal(y.to_numpy(), (a + 1.0) * 2.0)
        np.testing.assert_array_equal(t.to_numpy(), np.zeros(SHAPE))

        t = x + 1.0
        y = t * 2.0
        block = t.local  # handed out: y is made first, and t's block is no longer read later
        z = t * 3.0
        block[...] = -1.0
        np.testing.assert_array_equal(y.to_numpy(), (a + 1.0) * 2.0)
        np.testing.assert_array_equal(z.to_numpy(), (a + 1.0) * 3.0)

        t = x + 1.0
        y = t * 2.0
        t += 5.0  # an in-place operator on an array a chain reads
        np.testing.assert_array_equal(y.to_numpy(), (a + 1.0) * 2.0)
        np.testing.assert_array_equal(t.to_numpy(), (a + 1.0) + 5.0)

    host = a.copy()
    x = xdist.asarray(host)  # may share the user's memory
    y = x * 2.0
    z = y + 1.0
    host[...] = 0.0
    np.testing.assert_array_equal(z.to_numpy(), a * 2.0 + 1.0)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_in_place_operators_on_a_pending_array(lay):
    """``g op= v`` on a pending ``g`` extends its chain; chains recorded before read the value
    before; a dtype the operator cannot keep raises as the eager operator does."""
    a = random_array(SHAPE, "float64", seed=7)
    row = random_array(SHAPE[1:], "float64", seed=8)

    def make():
        x, m = distribute(a, *lay), distribute(row, None)
        g = x * -2.0
        h = g + 1.0
        g += m
        g *= 3.0
        g /= x * 0.0 + 2.0
        g -= m
        if _fusing(g):
            assert isinstance(g, Pending)
        return [g, h]

    assert_same_bits(*_both(make))
    x = distribute(random_array(SHAPE, "int64", 9), *lay)
    g = x * 2
    with pytest.raises(TypeError):
        g /= 2.0  # float64 result into an int64 array, as eager
    np.testing.assert_array_equal(g.to_numpy(), random_array(SHAPE, "int64", 9) * 2)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_views_and_writes_over_a_pending_chain(lay):
    a = random_array(SHAPE, "float64", seed=10)
    x = distribute(a, *lay)
    y = (x * 2.0) + 1.0
    v = y[2:5]  # a view of y: y is made
    v[...] = 0.0
    expected = a * 2.0 + 1.0
    expected[2:5] = 0.0
    np.testing.assert_array_equal(y.to_numpy(), expected)
    z = (x * 2.0) - 1.0
    z[:, 0] = 7.0
    expected = a * 2.0 - 1.0
    expected[:, 0] = 7.0
    np.testing.assert_array_equal(z.to_numpy(), expected)
    w = xdist.exp(x * 1.0)
    r = xdist.reshape(w, (-1,))
    np.testing.assert_array_equal(r.to_numpy(), w.to_numpy().reshape(-1))


def test_long_chains_are_cut():
    a = random_array(SHAPE, "float64", seed=11)
    x = distribute(a, 0)
    y, ref = x * 1.0, a * 1.0
    for k in range(3 * _fusion._MAX_NODES):
        y = y * 1.0001 + (k % 3)
        ref = ref * 1.0001 + (k % 3)
    if _fusing(y):
        assert isinstance(y, Pending) and y._node.count <= _fusion._MAX_NODES
    np.testing.assert_array_equal(y.to_numpy(), ref)


def test_errors_are_raised_by_the_call_that_caused_them():
    x = distribute(random_array(SHAPE, "float64", seed=12), 0)
    y = x * 2.0
    with pytest.raises(ValueError, match="broadcast|shape"):
        y + distribute(random_array((5,), "float64"), None)
    with pytest.raises(TypeError):
        xdist.bitwise_and(y, 1)
    with pytest.raises(TypeError):
        xdist.add(y, "a")  # type: ignore[arg-type]


def test_numpy_error_state_is_the_calls():
    """A division by zero recorded under ``np.errstate(divide="ignore")`` is silent when the
    chain is made outside it, as the eager call was; one recorded outside it warns."""
    x = distribute(random_array(SHAPE, "float64", seed=13), 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = (x * 0.0) / 0.0 + 1.0 / (x * 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y.to_numpy()
    if BACKEND.name == "numpy" and SIZE == 1:  # (Torch does not warn)
        z = 1.0 / (x * 0.0)
        with pytest.warns(RuntimeWarning):
            z.local  # noqa: B018


def test_the_temporaries_of_a_chain_never_reach_memory():
    """The peak memory of a fused chain of five functions is one block (its result) and a few
    tiles; eager, each function allocates a block while the one before is held."""
    if BACKEND.name != "numpy":
        pytest.skip("tracemalloc sees the allocations of NumPy only")
    n = 400_000
    x = distribute(np.ones((n, 4)), 0) * 1.0
    xdist.sum(x)  # makes x's block (xdist's own, not handed out: the chain reads it)
    block = 8 * 4 * x.lshape[0]

    def chain():
        return ((((x * 2.0) + 1.0) * 3.0 - 4.0) / 5.0).local

    peaks = []
    # fused by the library's calls on tiles, fused by a compiled loop (where numba is
    # installed: compiled, and numba imported, before the traced call), eager
    for fuse, compiled in ((1, 0), (1, 1), (0, 0)):
        with xdist.config_context(fuse_min_elements=fuse, fuse_compile_min_elements=compiled):
            for _ in range(2 if compiled else 0):
                chain()
            tracemalloc.start()
            chain()
            peaks.append(tracemalloc.get_traced_memory()[1])
            tracemalloc.stop()
    fused, looped, eager = peaks
    assert max(fused, looped) < 1.5 * block < eager, (fused, looped, eager, block)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_product_and_its_in_place_epilogue(lay):
    """A matmul's new block starts a chain: the in-place operators and functions after it run
    in one pass over the product (the distance expression), the eager bits."""
    a = random_array(SHAPE, "float64", seed=14)

    def make():
        x = distribute(a, *lay)
        g = x @ x.T
        sq = xdist.vecdot(x, x)
        g *= -2.0
        g += sq[:, None]
        g += sq[None, :]
        d = xdist.sqrt(xdist.maximum(g, 0.0))
        if _fusing(d) and d.split == 0:
            # the product is the chain's first function (its tiles: one, of 32 rows) or,
            # where the ring holds only parts of ``x.T``, a block made already
            assert isinstance(d, Pending) and d._node.count == 5 + _has_product(d._node)
        return [d, g]

    assert_same_bits(*_both(make))


def _has_product(node) -> bool:
    """Whether the chain that ends in ``node`` starts with a product yet to be made."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.product and n.block is None:
            return True
        stack.extend(a for a in n.args if isinstance(a, _fusion.Node))
    return False


def _tiled_reference(a, c, rows, epilogue, product=np.matmul):
    """``epilogue`` of ``a @ c`` (NumPy arrays or Torch tensors) made by tiles of ``rows``
    rows, each tile's product the library's on those rows: what a product-headed chain
    computes, bit for bit."""
    parts = [
        epilogue(product(a[i : i + rows], c), slice(i, i + rows)) for i in range(0, len(a), rows)
    ]
    if not parts:
        return epilogue(product(a[:0], c), slice(0, 0))
    if isinstance(a, np.ndarray):
        return np.concatenate(parts)
    import torch

    return torch.cat(parts)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_chain_that_starts_with_a_product(lay, dtype, monkeypatch):
    """``X @ C.T`` (``C`` replicated) is the first function of the chain after it: each tile of
    rows is BLAS's product of those rows, then the epilogue on the tile, so the product never
    reaches memory. The epilogue's bits are eager's on the tiles' products; against the whole
    block's product, the GEMM's rounding (which differs with the rows of a call, as between
    rank counts)."""
    monkeypatch.setattr(_fusion, "_PRODUCT_ROWS", 3)  # tiles of 3 rows: the fewest allowed,
    monkeypatch.setattr(_fusion, "_TILE", 1)  # the most the tile's size allows
    a = random_array(SHAPE, dtype, seed=21)
    c = random_array((7, SHAPE[1]), dtype, seed=22)
    n = xdist.vecdot(xdist.asarray(c), xdist.asarray(c)).to_numpy()
    headed, operands = [], []

    def epilogue(p, rows):
        p = p * np.asarray(-2.0, dtype)
        p = p + n[None, :]
        return np.sqrt(np.maximum(p, np.asarray(0.0, dtype)))

    def make():
        x = distribute(a, *lay)
        cc = xdist.asarray(c)
        g = x @ cc.T
        headed.append(isinstance(g, Pending) and _has_product(g._node))
        operands.append(g._node.args if headed[-1] else None)
        g *= -2.0
        g += xdist.vecdot(cc, cc)[None, :]
        return [xdist.sqrt(xdist.maximum(g, 0.0))]

    def torch_epilogue(p, rows):  # the same functions, in Torch: the Torch backend's
        p = p * -2.0 + torch.from_numpy(n)[None, :]
        return BACKEND.xp.sqrt(torch.maximum(p, p.new_zeros(())))  # (correctly rounded)

    fused, eager = _both(make)
    # tiles of rows (each rank's rows, where it has more than one); never eagerly
    assert headed[1] is False
    if not FUSES or fused[0].lshape[0] < 2:
        assert headed[0] is False
    elif lay[0] == 0:
        assert headed[0] is True
    np.testing.assert_allclose(fused[0].to_numpy(), eager[0].to_numpy(), rtol=1e-5, atol=1e-5)
    if fused[0].split == 0 and FUSES:
        block = BACKEND.to_host(fused[0].local)
        rows = slice(sum(fused[0].counts[:RANK]), sum(fused[0].counts[: RANK + 1]))
        if BACKEND.name == "numpy":
            product = np.matmul
            mine, ct = a[rows], c.T
        else:  # the Torch backend's own product (NumPy's BLAS on its float tensors, or
            # MKL's, whose rounding depends on where the operands lie): of the very blocks
            import torch  # the chain read

            def product(x, y):
                out = x.new_empty((x.shape[0], y.shape[1]))
                BACKEND.matmul_into(x, y, out)
                return out

            mine, ct = operands[0] or (torch.from_numpy(a[rows]), torch.from_numpy(c.T))
            epilogue = torch_epilogue
        if headed[0]:
            want = _tiled_reference(mine, ct, 3, epilogue, product)
        else:
            want = epilogue(product(mine, ct), rows)
        np.testing.assert_array_equal(block, np.asarray(want), strict=True)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_product_chain_ending_in_a_reduction(lay, monkeypatch):
    """``argmin(-2 * (X @ C.T) + n, axis=1)``: the product, its epilogue and the search, tile
    by tile (k-means' assignment), with the labels of NumPy's tiled products."""
    monkeypatch.setattr(_fusion, "_PRODUCT_ROWS", 4)  # tiles of 4 rows
    monkeypatch.setattr(_fusion, "_TILE", 1)
    a = random_array(SHAPE, "float64", seed=26)
    c = random_array((5, SHAPE[1]), "float64", seed=27)
    n = xdist.vecdot(xdist.asarray(c), xdist.asarray(c)).to_numpy()

    def make():
        x = distribute(a, *lay)
        cc = xdist.asarray(c)
        g = x @ cc.T
        headed.append(isinstance(g, Pending) and _has_product(g._node))
        return [xdist.argmin(-2.0 * g + xdist.vecdot(cc, cc)[None, :], axis=1)]

    headed = []
    fused, eager = _both(make)
    assert headed[1] is False
    if FUSES and lay[0] == 0 and fused[0].lshape[0] > 4:  # rows split: the product heads
        assert headed[0] is True
    want = np.argmin(_tiled_reference(a, c.T, 4, lambda p, rows: -2.0 * p + n[None, :]), axis=1)
    np.testing.assert_array_equal(fused[0].to_numpy(), want)
    np.testing.assert_array_equal(eager[0].to_numpy(), want)


@pytest.mark.parametrize("lay", layouts((SHAPE[0], 1)), ids=layout_id)
def test_an_outer_product_heads_a_chain(lay, monkeypatch):
    """``x @ w`` of a column by a row (an outer product: a 1 x m right operand, the shape of a
    row the tiles would broadcast) heads the chain after it: each tile multiplies its rows by
    the whole row. Each element is one product, so every path has NumPy's ``outer`` bits."""
    monkeypatch.setattr(_fusion, "_PRODUCT_ROWS", 3)
    monkeypatch.setattr(_fusion, "_TILE", 1)
    a = random_array((SHAPE[0], 1), "float64", seed=28)
    w = random_array((1, 5), "float64", seed=29)
    headed = []

    def make():
        x = distribute(a, *lay)
        g = x @ xdist.asarray(w)
        headed.append(isinstance(g, Pending) and _has_product(g._node))
        h = x[:, 0][:, None] @ xdist.asarray(w[0])[None, :]
        return [xdist.sqrt(xdist.abs(g * 2.0 + 1.0)), h - 0.5]

    fused, eager = _both(make)
    assert headed[1] is False
    if FUSES and lay[0] == 0 and fused[0].lshape[0] > 3:
        assert headed[0] is True
    outer = np.outer(a[:, 0], w[0])
    for got in (fused, eager):
        np.testing.assert_array_equal(got[0].to_numpy(), np.sqrt(np.abs(outer * 2.0 + 1.0)))
        np.testing.assert_array_equal(got[1].to_numpy(), outer - 0.5)


def test_a_product_reads_its_operands_at_the_call():
    """A product yet to be made reads its operands as they were at the call: a write into
    ``X`` after ``g = X @ C.T`` (through xdist, through the user's NumPy data) is not seen."""
    a = random_array(SHAPE, "float64", seed=23)
    c = random_array((7, SHAPE[1]), "float64", seed=24)
    want = a @ c.T
    for lay in layouts(SHAPE):
        x = distribute(a, *lay) * 1.0  # xdist's own block: read later without a copy
        g = x @ xdist.asarray(c).T
        x[...] = 0.0
        np.testing.assert_allclose(g.to_numpy(), want, rtol=1e-12, atol=1e-12)
        data = a.copy()
        y = xdist.asarray(data) if lay[0] is None else distribute(data, *lay)
        h = y @ xdist.asarray(c).T
        data[...] = 0.0
        if y.split == 0 and isinstance(y.local, np.ndarray):
            y.local[...] = 0.0
        np.testing.assert_allclose(h.to_numpy(), want, rtol=1e-12, atol=1e-12)


def test_a_product_of_narrow_user_rows_reads_a_copy_of_them(monkeypatch):
    """The rows of ``X @ C.T`` from the user's NumPy data, at most half as wide as the
    product, are copied so that the product heads the chain after it (the copy moves no more
    memory than the eager product's block): the product is ``X``'s value at the call, after
    writes into the user's data; wider rows run the product at once."""
    monkeypatch.setattr(_fusion, "_PRODUCT_ROWS", 2)
    monkeypatch.setattr(_fusion, "_TILE", 1)
    a = random_array((3000, 3), "float64", seed=28)  # more than a few elements (_SNAPSHOT)
    c = random_array((7, 3), "float64", seed=29)
    want = -2.0 * (a @ c.T)
    data = a.copy()
    x = distribute(data, 0)
    g = -2.0 * (x @ xdist.asarray(c).T)
    headed = isinstance(g, Pending) and _has_product(g._node)
    assert headed is (FUSES and x.lshape[0] > 2)
    data[...] = 0.0  # the user's rows, written through their NumPy data
    if isinstance(x.local, np.ndarray):
        x.local[...] = 0.0  # (handing the block out makes the chain first)
    np.testing.assert_allclose(g.to_numpy(), want, rtol=1e-12, atol=1e-12)
    # rows wider than half the product, and more than a few elements (``_SNAPSHOT``)
    wide = distribute(random_array((3000, 5), "float64", seed=30), 0)
    h = wide @ xdist.asarray(random_array((7, 5), "float64", seed=31)).T
    assert not (isinstance(h, Pending) and _has_product(h._node))


def test_a_product_of_an_array_and_its_own_transpose_runs_at_once():
    """``x @ x.T`` of one block (one rank, or replicated) is NumPy's ``syrk`` or a product
    with a copy of ``x.T``: the eager path's call, never a tile of it."""
    x = xdist.asarray(random_array(SHAPE, "float64", seed=25))
    g = x @ x.T
    assert not (isinstance(g, Pending) and _has_product(g._node))


def test_writes_into_a_product_after_a_chain_read_it():
    a = random_array(SHAPE, "float64", seed=15)
    for lay in layouts(SHAPE):
        x = distribute(a, *lay)
        g = x @ x.T
        h = g * 2.0
        g[0, :] = 0.0  # makes h first
        expected = a @ a.T
        np.testing.assert_allclose(h.to_numpy(), expected * 2.0, rtol=1e-13, atol=1e-13)
        expected[0, :] = 0.0
        np.testing.assert_allclose(g.to_numpy(), expected, rtol=1e-13, atol=1e-13)
        g = x @ x.T
        block = g.local  # handed out: chains on g now start from a copy of what it holds
        h = g + 1.0
        block[...] = 5.0
        np.testing.assert_allclose(h.to_numpy(), a @ a.T + 1.0, rtol=1e-13, atol=1e-13)
        np.testing.assert_array_equal(g.to_numpy(), np.full((SHAPE[0],) * 2, 5.0))


_ROW_REDUCTIONS = {
    "sum": lambda t: xdist.sum(t, axis=1),
    "sum_keepdims": lambda t: xdist.sum(t, axis=-1, keepdims=True),
    "prod": lambda t: xdist.prod(t, axis=1),
    "max": lambda t: xdist.max(t, axis=1),
    "min": lambda t: xdist.min(t, axis=1),
    "mean": lambda t: xdist.mean(t, axis=1),
    "argmin": lambda t: xdist.argmin(t, axis=1),
    "argmax": lambda t: xdist.argmax(t, axis=-1, keepdims=True),
}


@pytest.mark.parametrize("name", sorted(_ROW_REDUCTIONS))
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_chain_ending_in_a_reduction_along_its_rows(lay, name):
    """A reduction that keeps the first axis reduces each tile of the chain as it is made
    (each row's result is the same bits as the eager one's); the other reductions read the
    block. A temporary is never written; a named chain is not written by its first such
    reduction either (it stays pending, and runs again), and is written, in the same pass,
    by its second."""
    a = _special("float64")
    reduce = _ROW_REDUCTIONS[name]

    def make():
        x = distribute(a, *lay)
        kept = xdist.exp(xdist.abs(x) * -0.5) + 1.0
        r_temp = reduce(xdist.exp(xdist.abs(x) * -0.5) + 1.0)
        r_named = reduce(kept)
        if _fusing(kept) and kept.split != 1:  # (along the split axis: a collective's block)
            assert not kept.formed
        r_again = reduce(kept)
        if _fusing(kept):
            assert kept.formed
        return [r_temp, r_named, r_again, kept]

    assert_same_bits(*_both(make))


def _written_blocks(patch) -> list:
    """The shapes of the blocks that chains write (``block_pool.empty``) from now on, while
    ``patch`` (a monkeypatch context) holds."""
    written = []
    real = _fusion.block_pool.empty

    def spy(like, shape):
        written.append(shape)
        return real(like, shape)

    patch.setattr(_fusion.block_pool, "empty", spy)
    return written


def _bell(x):
    """A chain of four functions of ``x`` (its intermediate results held by nothing else)."""
    return xdist.exp(xdist.abs(x) * -0.5) + 1.0


_FIRST_AXIS_REDUCTIONS = {
    # name: (reduction of a chain of x, exact): the extremes, the logical ones and counts
    # combine the tiles' partials exactly; a sum or a product adds one level of blocking
    "sum_all": (lambda x: xdist.sum(_bell(x)), False),
    "sum_0": (lambda x: xdist.sum(_bell(x), axis=0), False),
    "sum_keepdims": (lambda x: xdist.sum(_bell(x), axis=(0, 1), keepdims=True), False),
    "sum_float32": (lambda x: xdist.sum(_bell(xdist.astype(x, xdist.float32)), axis=0), False),
    "prod_0": (lambda x: xdist.prod(_bell(x) * 0.5 + 0.25, axis=0), False),
    "mean_all": (lambda x: xdist.mean(_bell(x)), False),
    "mean_0": (lambda x: xdist.mean(_bell(x), axis=0, keepdims=True), False),
    "max_all": (lambda x: xdist.max(_bell(x)), True),
    "min_0": (lambda x: xdist.min(_bell(x), axis=0), True),
    "all_0": (lambda x: xdist.all(_bell(x) < 1.5, axis=0), True),
    "any_all": (lambda x: xdist.any(_bell(x) > 1.9), True),
    "count_0": (lambda x: xdist.count_nonzero(_bell(x) > 1.3, axis=0), True),
}


@pytest.mark.parametrize("finite", [True, False], ids=["finite", "special"])
@pytest.mark.parametrize("name", sorted(_FIRST_AXIS_REDUCTIONS))
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_chain_ending_in_a_reduction_over_its_first_axis(lay, name, finite, monkeypatch):
    """A reduction over the first axis (or all axes) of a chain reduces each tile as it is
    made, and the tiles' partials by the same reduction (then the ranks' by the one
    collective): the eager values (the extremes, the logical ones and counts bit for bit, a
    sum or a product within a few roundings), a temporary never written."""
    a = _special("float64") if not finite else random_array(SHAPE, "float64", seed=4)
    reduce, exact = _FIRST_AXIS_REDUCTIONS[name]
    x = distribute(a, *lay) * 1.0  # (a block only xdist writes: chains read it as it is)
    xdist.synchronize()  # (made: the pass below writes nothing that is held)
    with monkeypatch.context() as patch:
        written = _written_blocks(patch)
        fused = reduce(x)
        assert written == []
    with xdist.config_context(fuse_min_elements=0):
        eager = reduce(x)
    assert fused.dtype == eager.dtype and fused.shape == eager.shape
    assert fused.split == eager.split
    if exact:
        assert_host_bits(fused.to_numpy(), eager.to_numpy())
    else:
        rtol = 1e-5 if fused.dtype == xdist.float32 else 1e-13
        np.testing.assert_allclose(fused.to_numpy(), eager.to_numpy(), rtol=rtol, equal_nan=True)


def test_a_named_chain_reduced_over_its_first_axis_twice_is_written_once(monkeypatch):
    """As along its rows: a named chain's first reduction over the first axis leaves it
    pending (one pass, no block written); its second writes its block in the pass that
    reduces it; later reductions read the block."""
    if not FUSES:
        pytest.skip("the eager path writes every result")
    a = random_array((4000, 8), "float64", seed=17)
    x = distribute(a, 0) * 1.0
    xdist.synchronize()
    with monkeypatch.context() as patch:
        written = _written_blocks(patch)
        t = xdist.exp(x * 2.0) - 1.0
        s = xdist.sum(t)
        assert written == [] and not t.formed
        m = xdist.max(t, axis=0)
        assert written == ([t.lshape] if t.lshape[0] > 1 else [])
        assert t.formed
        n = xdist.min(t)
    e = t.to_numpy()  # (the backend's exp: Torch's is not NumPy's)
    np.testing.assert_allclose(e, np.exp(a * 2.0) - 1.0, rtol=1e-13)
    np.testing.assert_allclose(float(s), e.sum(), rtol=1e-13)
    np.testing.assert_array_equal(m.to_numpy(), e.max(axis=0))
    assert float(n) == e.min()


def test_tiles_are_written_into_buffers_reused_from_tile_to_tile(monkeypatch):
    """Each function of a chain that takes ``out=`` (NumPy's ufuncs, Torch's own functions)
    writes its tiles into one buffer, reused from tile to tile, or over an argument's that
    no one else reads: a chain of four functions over many tiles makes at most one buffer
    per function, and the eager bits. A function that takes no ``out=`` returns its tiles."""
    if not FUSES:
        pytest.skip("the eager path has no tiles")
    monkeypatch.setattr(_fusion, "_TILE", 64)  # tiles of 8 rows of 8 float64
    a = random_array((4000, 8), "float64", seed=31)
    made = []
    real = _fusion._scratch

    def spy(like, shape):
        made.append(shape)
        return real(like, shape)

    def make():
        x = distribute(a, 0)
        y = xdist.sqrt(xdist.abs(x * 2.0 + 1.0) + 0.5)
        writes = [n.writes for n in _fusion._order(y._node)] if _fusing(y) else []
        return [y], writes

    monkeypatch.setattr(_fusion, "_scratch", spy)
    (fused, writes), (eager, _) = _both(make)
    assert_same_bits(fused, eager)
    if writes:
        assert all(writes), writes
        assert 1 <= len(made) <= 4, made  # never one per tile
        assert all(shape == (8, 8) for shape in made)
    no_out = _fusion._writes(lambda t: t * 2.0, [BACKEND.asarray(a[:0])], BACKEND.asarray(a[:0]))
    assert no_out is False


def test_a_reduced_temporary_is_not_written(monkeypatch):
    if not FUSES:
        pytest.skip("the eager path writes every result")
    x = distribute(random_array((4000, 8), "float64", seed=16), 0) * 1.0
    with monkeypatch.context() as patch:
        written = _written_blocks(patch)
        s = xdist.sum(xdist.exp(x * 2.0) - 1.0, axis=1)
        assert written == []
        t = xdist.exp(x * 2.0) - 1.0
        m = xdist.max(t, axis=1)  # a named chain's first reduction: not written either
        assert written == []
        n = xdist.min(t, axis=1)  # its second: written in the same pass
        assert written == ([t.lshape] if t.lshape[0] > 1 else [])
        assert t.formed
    with xdist.config_context(fuse_min_elements=0):
        e = xdist.exp(x * 2.0) - 1.0
        assert_same_bits(
            [s, m, n, t], [xdist.sum(e, axis=1), xdist.max(e, axis=1), xdist.min(e, axis=1), e]
        )


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_in_place_operators_with_an_operand_laid_out_otherwise(lay):
    """``g op= v`` on a pending ``g`` where ``v`` has another layout (whole on every rank
    against split, or split against whole): aligning ``v`` must not lose the operator (it
    once made ``g`` and then extended the chain of the value ``g`` no longer had)."""
    a = random_array(SHAPE, "float64", seed=17)
    b = random_array(SHAPE, "float64", seed=18)

    def make():
        x, other = distribute(a, *lay), distribute(b, None if lay[0] is not None else 0)
        g = x * 2.0 + 1.0
        g -= other
        g *= other
        h = distribute(b, None) * 3.0
        h += x
        return [g, h]

    assert_same_bits(*_both(make))


def test_a_result_that_views_a_private_temporary_is_kept():
    """A library call may return a view of its own temporary (NumPy's ``reshape`` of a
    joined result, as NumPy's backend's ``max`` along a short last axis does): chains read
    such a result without a copy. A view of memory that something else holds is not kept."""
    from xdist._pending import keep_result, kept

    fresh = np.arange(12.0).reshape(3, 4)
    assert fresh.base is not None
    keep_result(fresh)
    assert kept(fresh)
    held = np.arange(12.0)
    view = held.reshape(3, 4)
    keep_result(view)
    assert not kept(view) and not kept(held)
    x = distribute(random_array((30000, 3), "float64", seed=1), 0)  # >= 8192 lines per rank
    m = xdist.max(x, axis=1, keepdims=True)
    assert kept(m._local)
    np.testing.assert_array_equal(m.to_numpy(), np.max(x.to_numpy(), axis=1, keepdims=True))


def test_a_block_laid_out_by_columns_runs_at_once():
    """A tile of rows of a transposed block (``x.T``, an axis moved last) is memory scattered
    over the whole block: functions of such a block run eagerly, with the eager bits."""
    x = distribute(random_array((SHAPE[1], 4000), "float64", seed=2), 1)
    t = x.T * 1.0  # a new block, laid out as the library lays out a function of a transpose
    y = xdist.exp(t - 0.5) * 2.0
    assert not isinstance(y, Pending) or y.formed or not _fusing(y)
    with xdist.config_context(fuse_min_elements=0):
        eager = xdist.exp(t - 0.5) * 2.0
    assert_same_bits([y], [eager])


class _Reader:
    """A stand-in for an array noted by ``_pending.read_later``: made when its block is read."""

    made = False

    @property
    def _local(self):
        self.made = True


def test_a_write_makes_the_arrays_that_read_memory_it_overlaps():
    """``settle(written)`` makes the arrays noted as reading memory that ``written`` may
    share, whatever views the two are (a NumPy block over a foreign buffer, whose views do
    not name one owner; Torch views of one storage), and leaves the others unmade."""
    raw = np.frombuffer(bytearray(8 * 12), dtype=np.float64)  # its base: a buffer
    blocks = [raw, BACKEND.asarray(np.zeros(12))]
    for block in blocks:
        other = BACKEND.asarray(np.zeros(12))
        for written, overlaps in [(block[1:5], True), (block, True), (other[1:], False)]:
            reader = _Reader()
            _pending.read_later(reader, block[:2])
            _pending.settle(written)
            assert reader.made is overlaps, (type(block), written.shape)
            _pending.settle()  # (none left noted)
            assert reader.made
