"""Sums along a last axis of 8 to 128 elements as one compiled loop in NumPy's pairwise order
(``backends/compiled_lines.py: line_sums``, numba): NumPy's bits (signed zeros, infinities,
NaN, magnitudes that cancel), float32 lines into float32 or float64 (``mean``), at every
rank count and layout that keeps the lines whole (uneven and empty blocks), inside a fused
chain's tiles too; shorter and longer lines, other dtypes, blocks that are not C-contiguous
and the setting ``0`` left to the library; compiled only from the second sum. Float32
columns summed into float64 (``column_sums``): NumPy's bits likewise, on both backends."""

from __future__ import annotations

import helpers
import numpy as np
import pytest
from helpers import BACKEND, SIZE, assert_equal, distribute, layout_id, layouts

import xdist
from xdist.backends import compiled_lines

pytest.importorskip("numba", reason="compiled sums need numba (the jit extra)")

ROWS = 45
LOOPED = BACKEND.name == "numpy"  # the NumPy backend's sums (Torch sums with its own kernels)


def _looped(pair) -> bool:
    """Whether a sum of ``pair`` (block dtype, sum dtype) takes the NumPy backend's loops:
    on the NumPy backend, and on the Torch backend where float32 is summed into float64
    (on NumPy views, by the NumPy backend's sum)."""
    return LOOPED or tuple(pair) == ("float32", "float64")


_PAIRS = [("float32", "float32"), ("float32", "float64"), ("float64", "float64")]


@pytest.fixture(autouse=True)
def sums(monkeypatch):
    """The loop for blocks of any size, every pair of dtypes compiled at its first sum; each
    sum's answer (whether the loop gave it) recorded."""
    monkeypatch.setattr(compiled_lines, "MIN_ELEMENTS", 1)
    seen = {("sum", np.dtype(a), np.dtype(b)): 2 for a, b in _PAIRS}
    monkeypatch.setattr(compiled_lines, "_SEEN", seen)
    return helpers.record_answers(monkeypatch, compiled_lines, "line_sums")


def _values(shape, dtype, seed) -> np.ndarray:
    """Magnitudes from 1e-5 to 1e5 of both signs (sums that cancel and round), lines of
    signed zeros, infinities of both signs (their sum NaN), NaN, and the largest finite
    values (their sum overflows)."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    g = rng.standard_normal(shape) * 10.0 ** rng.uniform(-5, 5, shape)
    g = g.astype(dt)
    g[0] = -0.0
    g[1, 0] = -0.0
    g[2, 1] = np.inf
    g[3, 2], g[3, 3] = np.inf, -np.inf
    g[4, 5] = np.nan
    g[5, :2] = np.finfo(dt).max
    return g


def _same(got, want, g) -> None:
    """``got`` (an xdist array) is NumPy's ``want``, bit for bit on the NumPy backend; Torch
    sums with its own kernels, within their rounding (the rows' sums of magnitudes ``g``)."""
    got = xdist.to_numpy(got)
    assert got.dtype == want.dtype
    if LOOPED:
        helpers.assert_host_bits(got, want)
        return
    with np.errstate(all="ignore"):
        scale = np.abs(g.astype(np.float64)).sum(axis=-1).reshape(want.shape)
    eps = np.finfo(want.dtype).eps
    finite = np.isfinite(want) & np.isfinite(scale)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    assert np.all(np.abs(got[finite] - want[finite]) <= 8 * eps * scale[finite])


def _row_layouts(shape):
    return [lay for lay in layouts(shape) if lay[0] != 1]  # the lines whole on each rank


@pytest.mark.parametrize("k", [8, 9, 16, 31, 64, 128])
@pytest.mark.parametrize("pair", _PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
@pytest.mark.parametrize("lay", _row_layouts((ROWS, 8)), ids=layout_id)
def test_row_sums_are_numpys_bits(lay, pair, k, sums):
    split, counts = lay
    dtype, acc = pair
    g = _values((ROWS, k), dtype, seed=k)
    x = distribute(g, split, counts)
    with np.errstate(all="ignore"):
        want = np.sum(g, axis=1, dtype=acc)
    for keepdims in (False, True):
        got = xdist.sum(x, axis=1, dtype=acc, keepdims=keepdims)
        expected = want[:, None] if keepdims else want
        _same(got, expected, g[:, None] if keepdims else g)
    assert any(sums) == (_looped(pair) and 0 not in x.lshape)


@pytest.mark.parametrize("lay", _row_layouts((ROWS, 8)), ids=layout_id)
def test_mean_of_float32_rows_sums_them_into_float64(lay, sums):
    """``mean`` sums float32 lines into float64 (the loop's ``float32 -> float64``), then
    divides and casts back: NumPy's ``mean`` in float64, cast."""
    split, counts = lay
    g = _values((ROWS, 24), "float32", seed=3)
    with np.errstate(all="ignore"):
        want = np.mean(g, axis=1, dtype=np.float64).astype(np.float32)
        got = xdist.mean(distribute(g, split, counts), axis=1)
    _same(got, want, g)
    looped = _looped(("float32", "float64"))
    assert any(sums) == (looped and 0 not in distribute(g, split, counts).lshape)


@pytest.mark.parametrize("lay", _row_layouts((300, 8)), ids=layout_id)
def test_a_fused_chains_tiles(lay, sums, monkeypatch):
    """``sum(x * x, axis=1)`` of a pending chain sums each tile of it by the loop: the bits of
    NumPy's ``sum`` of the same product (scikit-learn's squared row norms)."""
    from xdist import _fusion

    monkeypatch.setattr(_fusion, "_TILE", 64)
    split, counts = lay
    g = np.random.default_rng(7).standard_normal((300, 16))
    x = distribute(g, split, counts)
    with xdist.config_context(fuse_min_elements=1):
        got = xdist.sum(x * x, axis=1)
    _same(got, np.sum(g * g, axis=1), g * g)
    assert any(sums) == (LOOPED and 0 not in x.lshape)


@pytest.mark.parametrize("k", [7, 129])
def test_shorter_and_longer_lines_are_the_librarys(k, sums):
    g = _values((ROWS, k), "float64", seed=k)
    with np.errstate(all="ignore"):
        got = xdist.sum(distribute(g, 0), axis=1)
        assert_equal(got, np.sum(g, axis=1))
    assert not any(sums)


def test_columns_the_setting_and_integers_are_the_librarys(sums):
    """A sum along the first axis, ``fuse_compile_min_elements=0`` and integer lines never
    take the loop, and give NumPy's values."""
    g = _values((ROWS, 16), "float64", seed=4)
    g[:6] = 1.0  # no infinities: the column sums are finite
    x = distribute(g, 0)
    assert_equal(xdist.sum(x, axis=0), np.sum(g, axis=0), atol=1e-13 * np.abs(g).sum())
    with xdist.config_context(fuse_compile_min_elements=0):
        with np.errstate(all="ignore"):
            assert_equal(xdist.sum(x, axis=1), np.sum(g, axis=1))
    ints = np.arange(ROWS * 16, dtype=np.int64).reshape(ROWS, 16)
    assert_equal(xdist.sum(distribute(ints, 0), axis=1), np.sum(ints, axis=1))
    assert not any(sums)


def test_compiled_from_the_second_sum(monkeypatch, sums):
    """One sum of a pair of dtypes runs the library's; the second compiles the loop."""
    if not LOOPED:
        pytest.skip("the NumPy backend's sums only")
    monkeypatch.setattr(compiled_lines, "_SEEN", {})
    g = _values((64, 12), "float32", seed=1)
    x = xdist.asarray(g)
    with np.errstate(all="ignore"):
        want = np.sum(g, axis=1)
    for expected in ([False], [True], [True]):
        sums.clear()
        helpers.assert_host_bits(xdist.to_numpy(xdist.sum(x, axis=1)), want)
        assert sums == expected


@pytest.mark.parametrize("kind", ["float16", "big-endian", "strided", "read-only", "1-d"])
def test_blocks_the_loop_does_not_take_are_summed_by_the_library(kind, sums):
    """Blocks numba does not type or the loop does not read (float16, a byte order not the
    machine's, not C-contiguous, 1-d) are summed by the library, NumPy's bits; read-only
    memory is the loop's."""
    from xdist.backends.numpy import NumPyBackend

    block = helpers.odd_block(_values((600, 16), "float64", seed=8), kind)
    with np.errstate(all="ignore"):
        got = NumPyBackend().xp.sum(block, axis=-1)
        want = np.sum(block, axis=-1)
    helpers.assert_host_bits(np.asarray(got), want)
    assert sums == ([True] if kind == "read-only" else [False] * (kind != "1-d"))


@pytest.mark.skipif(SIZE < 2, reason="a split along the lines needs a second rank")
def test_lines_split_between_ranks(sums):
    """Lines split along the summed axis: each rank sums its part of each line (the loop
    where its part is 8 to 128 elements long), one ``allreduce`` adds the parts."""
    g = _values((ROWS, 48), "float64", seed=9)[6:]  # finite
    x = distribute(g, 1)
    assert_equal(xdist.sum(x, axis=1), np.sum(g, axis=1), rtol=1e-12, atol=1e-9 * np.abs(g).max())


@pytest.fixture
def columns(monkeypatch):
    """``column_sums`` for blocks of any size, compiled at its first sum; its answers
    recorded."""
    monkeypatch.setattr(compiled_lines, "MIN_ELEMENTS", 1)
    monkeypatch.setitem(
        compiled_lines._SEEN, ("columns", np.dtype("float32"), np.dtype("float64")), 2
    )
    return helpers.record_answers(monkeypatch, compiled_lines, "column_sums")


@pytest.mark.parametrize("k", [2, 3, 16, 65])
@pytest.mark.parametrize("lay", [lay for lay in layouts((ROWS, 8)) if lay[0] != 0], ids=layout_id)
def test_float32_columns_summed_into_float64_are_numpys_bits(lay, k, columns):
    """``sum(x, axis=0, dtype=float64)`` of float32 columns (the means k-means and the
    scalers take): each rank's columns summed by the loop in NumPy's order, the same bits as
    NumPy's sum of the whole columns, where the columns are whole on each rank; on both
    backends (the Torch backend sums float32 into float64 on NumPy views)."""
    split, counts = lay
    g = np.ascontiguousarray(_values((ROWS, max(k, 8)), "float32", seed=k)[:, :k])
    x = distribute(g, split, counts)
    with np.errstate(all="ignore"):
        want = np.sum(g, axis=0, dtype=np.float64)
        for keepdims in (False, True):
            got = xdist.sum(x, axis=0, dtype=xdist.float64, keepdims=keepdims)
            helpers.assert_host_bits(xdist.to_numpy(got), want[None, :] if keepdims else want)
    assert any(columns) == (x.lshape[1] >= 2)


@pytest.mark.parametrize("kind", ["one column", "float64", "no dtype", "strided"])
def test_columns_the_loop_does_not_take(kind, columns):
    """A single column (NumPy sums it pairwise), float64 blocks, float32 sums and blocks not
    C-contiguous are the library's: NumPy's bits."""
    from xdist.backends.numpy import NumPyBackend

    g = _values((600, 16), "float32", seed=5)
    g = np.ascontiguousarray(g[:, :1]) if kind == "one column" else g
    block = g.astype(np.float64) if kind == "float64" else g[:, ::2] if kind == "strided" else g
    dtype = None if kind == "no dtype" else np.float64
    with np.errstate(all="ignore"):
        got = NumPyBackend().xp.sum(block, axis=0, dtype=dtype)
        want = np.sum(block, axis=0, dtype=dtype)
    helpers.assert_host_bits(np.asarray(got), want)
    assert not any(columns)
