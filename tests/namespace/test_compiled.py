"""A fused chain's tiles as one compiled loop (``xdist/_compiled.py``, numba): each rule
against the eager path (``fuse_min_elements=0``) bit for bit, and against the same chain run
as the library's calls on the same tiles, at every rank count, on every layout (uneven and
empty blocks), with NaN, infinities and signed zeros; the values a loop writes (kept
intermediates, a product's epilogue, a result written over the block it reads); NumPy's
error state; which chains are compiled, and when."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import BACKEND, ON_HOST, assert_same_bits, distribute, layout_id, layouts, random_array

import xdist
from xdist import _compiled, _fusion

pytest.importorskip("numba", reason="compiled loops need numba (the jit extra)")

SHAPE = (37, 11)
FUSES = BACKEND.name == "numpy" or (BACKEND.name == "torch" and ON_HOST)  # fused blocks


@pytest.fixture(autouse=True)
def compiled_tiles(monkeypatch):
    """Fusion and compilation for every block of these small arrays, in tiles of a few rows,
    so that every chain crosses tile boundaries; the tiles the loops made are counted."""
    monkeypatch.setattr(_fusion, "_TILE", 24)
    monkeypatch.setattr(_compiled, "_SEEN", {})
    runs = []
    run = _compiled.Tiles.run

    def counted(self, r0, r1, values):
        value = run(self, r0, r1, values)
        runs.append(value is not None)
        return value

    monkeypatch.setattr(_compiled.Tiles, "run", counted)
    with xdist.config_context(fuse_min_elements=1, fuse_compile_min_elements=1):
        yield runs


def _special(dtype) -> np.ndarray:
    a = random_array(SHAPE, dtype, seed=3) * 2.0
    a.flat[::7] = np.nan
    a.flat[3::11] = np.inf
    a.flat[5::13] = -np.inf
    a.flat[1::17] = 0.0
    a.flat[2::19] = -0.0
    return a


def _three(make, runs):
    """``make()`` three times: by the library's calls on tiles (a chain's first run), by the
    compiled loop (its second), and eagerly; whether a loop made a tile of the second."""
    first = _made(make())
    runs.clear()
    second = _made(make())
    looped = any(runs)
    with xdist.config_context(fuse_min_elements=0):
        eager = make()
    return first, second, eager, looped


def _made(arrays):
    """``arrays``, their chains run."""
    for x in arrays:
        x.local  # noqa: B018
    return arrays


def _compiles(x) -> bool:
    """Whether a chain of ``x``'s block is compiled here: fused, with rows to tile."""
    return FUSES and x.lshape[0] > 1


_CHAINS = {
    # scikit-learn's euclidean_distances: a column and a row of norms around a scaled block
    "distances": lambda x, n, m: xdist.sqrt(xdist.maximum((x * -2.0 + n) + m, 0.0)),
    "scale": lambda x, n, m: ((x - m) / (m + 3.0)) * 2.0 + 1.0,
    # maximum and minimum of signed zeros, NaNs and infinities (NumPy's: the first argument
    # where it is greater, or less, or NaN, else the second)
    "min_max": lambda x, n, m: (
        xdist.minimum(xdist.abs(-x * 1.5), x * 0.0) - xdist.maximum(x / 3.0, -0.0 * m)
    ),
    "divide_negative": lambda x, n, m: -(x * 1.0) / (n - 0.5) + (+m),
    # ``** 2`` is ``square`` (the power's bits), a product of a value with itself in a loop
    "squares": lambda x, n, m: (x - m) ** 2 + xdist.pow(n * 0.5, 2.0) - xdist.square(x * 1e200),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_power_of_two_is_the_square_with_the_powers_bits(lay, dtype):
    """``x ** 2`` and ``pow(x, 2.0)`` of a floating array run as ``square`` (NumPy's own
    ``x ** 2``; its ``power`` runs a general loop at twice the cost): NumPy's ``power`` bit
    for bit, NaN, infinities, signed zeros and overflow included, fused or not."""
    a = _special(dtype)
    a.flat[4::23] = np.finfo(dtype).max
    with np.errstate(over="ignore"):
        want = np.power(a, 2)
        for fuse in (1, 0):
            with xdist.config_context(fuse_min_elements=fuse):
                x = distribute(a, *lay)
                for got in (x**2, xdist.pow(x, 2.0), (x * 1.0) ** 2):
                    np.testing.assert_array_equal(
                        got.to_numpy().view(f"u{a.itemsize}"), want.view(f"u{a.itemsize}")
                    )


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(_CHAINS))
@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_loops_give_the_eager_bits(lay, name, dtype, compiled_tiles):
    a = _special(dtype)
    col = random_array(SHAPE[:1] + (1,), dtype, seed=4)
    col[::5] = -0.0
    row = random_array(SHAPE[1:], dtype, seed=5)

    def make():
        x, n = distribute(a, *lay), distribute(col, lay[0] if lay[0] == 0 else None, lay[1])
        with np.errstate(all="ignore"):
            return [_CHAINS[name](x, n, distribute(row, None))]

    first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is _compiles(second[0])
    if BACKEND.name == "torch" and name == "min_max":
        # Torch's own maximum and minimum of +0.0 and -0.0 differ with an element's place
        # in its vector loop (as NaN payloads): equal values only
        for got in (first, second):
            np.testing.assert_array_equal(got[0].to_numpy(), eager[0].to_numpy())
        return
    assert_same_bits(second, eager)
    assert_same_bits(first, eager)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_mixed_dtypes_and_numbers_are_the_librarys_casts(lay, compiled_tiles):
    """float32 beside float64, Python numbers (cast to the function's dtype, as the library
    casts them: ``0.1`` to float32 in a float32 function) and a 0-d array."""
    a = random_array(SHAPE, "float32", seed=6)
    b = random_array(SHAPE, "float64", seed=7)

    def make():
        x, y = distribute(a, *lay), distribute(b, *lay)
        s = xdist.asarray(np.float64(0.3))
        return [(x * 0.1 + 1) / 3.0 + y * s, x - True]

    first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is _compiles(second[0])
    assert second[0].dtype == xdist.float64 and second[1].dtype == xdist.float32
    assert_same_bits(second, eager)


@pytest.mark.parametrize("lay", layouts((53,)), ids=layout_id)
def test_one_dimensional_chains(lay, compiled_tiles):
    a = random_array((53,), "float64", seed=8)

    def make():
        v = distribute(a, *lay)
        return [xdist.sqrt(v * v + 1.0) - xdist.abs(v) / 2.0]

    first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is _compiles(second[0])
    assert_same_bits(second, eager)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_kept_intermediates_are_written_by_the_loop(lay, compiled_tiles):
    """Pending arrays still referenced when the chain runs get their blocks from the same
    loop."""
    a = _special("float64")

    def make():
        x = distribute(a, *lay)
        with np.errstate(all="ignore"):
            t = x * 2.0
            u = t + 1.0
            w = xdist.maximum(xdist.abs(u), 0.5) * t
            w.local  # noqa: B018  (makes w; u and t in the same pass)
        return [w, u, t]

    first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is _compiles(second[0])
    assert_same_bits(second, eager)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_a_product_epilogue_and_its_reduction(lay, compiled_tiles, monkeypatch):
    """``argmin(sqrt(maximum(-2 * (X @ C.T) + n + m, 0)), axis=1)``: each tile's product by
    BLAS, the epilogue by the loop, the search by the library; the distances and the labels
    are those of the same tiles run as the library's calls."""
    monkeypatch.setattr(_fusion, "_PRODUCT_ROWS", 4)
    monkeypatch.setattr(_fusion, "_TILE", 1)
    a = random_array(SHAPE, "float64", seed=9)
    c = random_array((6, SHAPE[1]), "float64", seed=10)

    def make():
        x, cc = distribute(a, *lay), xdist.asarray(c)
        n = xdist.vecdot(x, x)[:, None]
        d = xdist.sqrt(xdist.maximum(-2.0 * (x @ cc.T) + n + xdist.vecdot(cc, cc), 0.0))
        return [d, xdist.argmin(d, axis=1)]

    with xdist.config_context(fuse_compile_min_elements=0):
        tiled = _made(make())
    first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is _compiles(second[0])
    assert_same_bits(second, tiled)
    np.testing.assert_allclose(second[0].to_numpy(), eager[0].to_numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("lay", layouts(SHAPE), ids=layout_id)
def test_the_functions_after_the_loop_run_on_its_tile(lay, compiled_tiles):
    """A chain whose last functions the loop does not compute (``exp``; Torch's ``sqrt``,
    which is not rounded correctly) runs them on the tile the loop made."""
    a = _special("float64")

    def make():
        x = distribute(a, *lay)
        with np.errstate(all="ignore"):
            return [xdist.exp(xdist.sqrt(xdist.abs(x * 2.0 + 1.0)) * 0.5)]

    first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is _compiles(second[0])
    assert_same_bits(second, eager)


def test_a_result_written_over_the_block_it_reads(compiled_tiles):
    """``G = X @ X.T; G *= -2; G += n ...`` at one block: the chain's result goes over the
    product's block (no array holds it), from a tile buffer once the tile's values are
    known finite, so that a tile with an infinity runs again from the values it read."""
    a = random_array((40, 3), "float64", seed=11)
    a[7, 1] = 1e300  # squares overflow: an infinity in its tile

    def make():
        x = xdist.asarray(a)
        g = x @ x.T
        g *= -2.0
        g += xdist.vecdot(x, x)[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            g += 1.0
            return [xdist.sqrt(xdist.maximum(g, 0.0))]

    with np.errstate(over="ignore", invalid="ignore"):
        first, second, eager, looped = _three(make, compiled_tiles)
    assert looped is FUSES
    assert_same_bits(second, eager)


def test_numpy_error_state_is_the_calls(compiled_tiles):
    """A tile whose values are not all finite runs again as NumPy's calls under the errstate
    of the chain's functions: a division by zero raises where it did eagerly, and a chain
    recorded under ``errstate(all="ignore")`` is not checked."""
    x = distribute(random_array(SHAPE, "float64", seed=12), 0)

    def divided():
        return (x * 2.0 + 1.0) / (x * 0.0)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        divided().to_numpy()  # (the first run of its kind)
    if FUSES and x.lshape[0] > 1 and BACKEND.name == "numpy":  # (Torch does not warn)
        compiled_tiles.clear()
        with np.errstate(divide="raise"), pytest.raises(FloatingPointError):
            divided().to_numpy()
        assert compiled_tiles and not any(compiled_tiles)  # (the loop found an infinity)
    with np.errstate(all="ignore"):
        quiet = [divided(), divided()]
    with xdist.config_context(fuse_min_elements=0), np.errstate(all="ignore"):
        assert_same_bits(quiet, [divided(), divided()])


def test_what_is_compiled(compiled_tiles):
    """A chain is compiled from the second run of its kind, on blocks of at least
    ``fuse_compile_min_elements``; not one with a function outside the loop's (``exp``), of
    integers, or of one function."""
    x = distribute(random_array(SHAPE, "float64", seed=13), 0)
    i = distribute(np.arange(np.prod(SHAPE)).reshape(SHAPE), 0)
    rows = FUSES and x.lshape[0] > 1

    def runs(make):
        compiled_tiles.clear()
        make().to_numpy()
        return any(compiled_tiles)

    assert runs(lambda: (x + 1.0) * 2.0) is False  # the first of its kind
    assert runs(lambda: (x + 1.0) * 2.0) is rows
    assert runs(lambda: (x + 2.0) * 3.0) is rows  # (numbers are arguments of one loop)
    for _ in range(2):
        assert runs(lambda: xdist.exp(x + 1.0) * 2.0) is False
        assert runs(lambda: xdist.exp(x * 1.0) * 2.0) is False  # (one function before exp)
        assert runs(lambda: (i + 1) * 2) is False
    with xdist.config_context(fuse_compile_min_elements=x.size + 1):
        assert runs(lambda: (x + 1.0) * 2.0) is False
    with xdist.config_context(fuse_compile_min_elements=0):
        assert runs(lambda: (x + 1.0) * 2.0) is False


def test_the_setting_is_checked():
    with pytest.raises(ValueError, match="fuse_compile_min_elements must be an int >= 0"):
        xdist.set_config(fuse_compile_min_elements=-1)
