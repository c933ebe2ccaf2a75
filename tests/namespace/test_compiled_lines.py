"""``argmin``/``argmax`` along a short last axis as one compiled loop over the lines
(``backends/compiled_lines.py``, numba): NumPy's positions (ties, signed zeros, infinities,
every dtype kind it takes), at every rank count and layout (uneven and empty blocks), inside
a fused product's tiles too; NaN, long lines, other axes and the setting ``0`` left to the
library's search; compiled only from a dtype's second search."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import (
    BACKEND,
    ON_HOST,
    assert_equal,
    distribute,
    layout_id,
    layouts,
    odd_block,
    record_answers,
)

import xdist
from xdist.backends import compiled_lines

pytest.importorskip("numba", reason="compiled searches need numba (the jit extra)")

SHAPE = (45, 7)
HOST = BACKEND.name == "numpy" or (BACKEND.name == "torch" and ON_HOST)  # blocks NumPy reads


@pytest.fixture(autouse=True)
def searches(monkeypatch):
    """The loop for blocks of any size, every dtype compiled at its first search; each
    search's answer (whether the loop gave it) recorded."""
    monkeypatch.setattr(compiled_lines, "MIN_ELEMENTS", 1)
    monkeypatch.setattr(compiled_lines, "_SEEN", dict.fromkeys(map(np.dtype, _DTYPES), 2))
    return record_answers(monkeypatch, compiled_lines, "first_best")


def _looped(x) -> bool:
    """Whether this rank's search of ``x`` along its last axis takes the loop."""
    lines = x.lshape[-1]
    return HOST and 2 <= lines <= compiled_lines.MAX_LINE and 0 not in x.lshape


_DTYPES = ["float64", "float32", "int8", "int64", "uint8", "uint64"]


def _values(shape, dtype, seed) -> np.ndarray:
    """Few distinct values (many ties), with signed zeros and infinities for floats."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "f":
        pool = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, 3.0, -2.0], dtype=dt)
        return pool[rng.integers(0, len(pool), size=shape)]
    info = np.iinfo(dt)
    pool = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dt)
    return pool[rng.integers(0, len(pool), size=shape)]


@pytest.mark.parametrize("func", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", _DTYPES)
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_searches_give_numpys_positions(lay, dtype, func, searches):
    split, counts = lay
    g = _values(SHAPE, dtype, seed=3)
    g[::4] = g[::4, :1]  # lines of one value: the first position
    x = distribute(g, split, counts)
    for keepdims in (False, True):
        got = getattr(xdist, func)(x, axis=1, keepdims=keepdims)
        assert_equal(got, getattr(np, func)(g, axis=1, keepdims=keepdims).astype(np.int64))
    assert any(searches) == _looped(x)


@pytest.mark.parametrize("lay", layouts((40, 3, 32)), ids=layout_id)
def test_longest_lines_and_leading_axes(lay, searches):
    """Lines of ``MAX_LINE`` elements behind two leading axes; a block's lines one element
    longer are the library's."""
    split, counts = lay
    for k in (compiled_lines.MAX_LINE, compiled_lines.MAX_LINE + 1):
        g = _values((40, 3, k), "float64", seed=k)
        x = distribute(g, split, counts)
        searches.clear()
        assert_equal(xdist.argmin(x, axis=-1), np.argmin(g, axis=-1).astype(np.int64))
        assert any(searches) == _looped(x)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_nan_other_axes_and_the_setting_are_the_librarys(lay, searches):
    """A block holding NaN (NumPy answers the first NaN), a search along the first axis,
    and ``fuse_compile_min_elements=0`` never take the loop, and give NumPy's positions."""
    split, counts = lay
    g = _values(SHAPE, "float64", seed=5)
    rows = np.arange(SHAPE[0])
    g[rows, rows % SHAPE[1]] = np.nan  # (in every block of either split)
    g[2, 6] = g[9, 0] = np.nan
    for func in ("argmin", "argmax"):
        got = getattr(xdist, func)(distribute(g, split, counts), axis=1)
        assert_equal(got, getattr(np, func)(g, axis=1).astype(np.int64))
    assert not any(searches)
    g = _values(SHAPE, "float64", seed=6)
    x = distribute(g, split, counts)
    assert_equal(xdist.argmin(x, axis=0), np.argmin(g, axis=0).astype(np.int64))
    with xdist.config_context(fuse_compile_min_elements=0):
        assert_equal(xdist.argmax(x, axis=1), np.argmax(g, axis=1).astype(np.int64))
    assert not any(searches)


@pytest.mark.parametrize("lay", layouts((300, 16)), ids=layout_id)
def test_a_fused_products_tiles(lay, searches, monkeypatch):
    """``argmin(X @ C.T + n, axis=1)`` of a pending product searches each tile of it by the
    loop: the positions of NumPy's ``argmin`` of the same chain made eagerly."""
    from xdist import _fusion

    monkeypatch.setattr(_fusion, "_TILE", 64)
    split, counts = lay
    rng = np.random.default_rng(7)
    g = rng.standard_normal((300, 16))
    c = rng.standard_normal((6, 16))
    n = rng.standard_normal(6)
    X, C, N = distribute(g, split, counts), xdist.asarray(c), xdist.asarray(n)
    with xdist.config_context(fuse_min_elements=0):
        eager = np.asarray(xdist.argmin(X @ C.T + N, axis=1))
    with xdist.config_context(fuse_min_elements=1):
        got = xdist.argmin(X @ C.T + N, axis=1)
    assert_equal(got, eager)
    assert any(searches) == _looped(X)


def test_compiled_from_a_dtypes_second_search(monkeypatch, searches):
    """One search of a dtype runs the library's; the second compiles the loop."""
    if not HOST:
        pytest.skip("the loop reads host blocks only (NumPy, Torch on the CPU)")
    monkeypatch.setattr(compiled_lines, "_SEEN", {})
    x = xdist.asarray(_values((64, 5), "float32", seed=1))
    expected = np.argmax(np.asarray(x), axis=1).astype(np.int64)
    for want in ([False], [True], [True]):
        searches.clear()
        assert_equal(xdist.argmax(x, axis=1), expected)
        assert searches == want


@pytest.mark.parametrize("kind", ["float16", "big-endian", "unaligned", "read-only", "strided"])
def test_blocks_the_loop_does_not_take_are_searched_by_the_library(kind, searches):
    """Blocks numba cannot type (float16, a byte order not the machine's) or the loop does not
    read (not C-contiguous) get NumPy's positions from the library's search; read-only
    memory and memory not aligned to its elements are the loop's."""
    from xdist.backends.numpy import NumPyBackend

    g = _values((600, 7), "float64", seed=8)
    block = odd_block(g, kind)
    assert np.array_equal(block, g.astype(block.dtype))
    backend = NumPyBackend()
    for want_max, func in ((False, np.argmin), (True, np.argmax)):
        got = backend.arg_best(block, 1, False, want_max)
        assert got.dtype == np.int64
        assert np.array_equal(got, func(block, axis=1))
    assert searches == [kind in ("read-only", "unaligned")] * 2
