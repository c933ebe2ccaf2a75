"""Random programs through fused execution (``xdist/_fusion.py``): seeded sequences of
elementwise functions, Python scalars, broadcast rows and columns, casts, products, row
reductions, in-place operators, views and writes through them, mask writes and column
writes, run fused (tiles of a few rows, so that every chain crosses tile boundaries), eager
(``fuse_min_elements=0``) and, on the NumPy backend, by NumPy on the same global data.

Every value of every program is compared, at every rank count, on replicated, balanced and
uneven (an empty block at 3 ranks) layouts: fused and eager bit for bit (NaN's sign and
payload apart), and both bit for bit with the one-block values (the program on a replicated
array), so an element's value depends neither on the tiles nor on where its block starts and
ends; on the NumPy backend, bit for bit with NumPy's (the row sums and means of float32 are
xdist's documented float64 accumulations: compared by value). Each rule has its own test in
``test_fusion.py``; these programs find the rules' interplay (an outer product heading a
chain raised, before the product's operand was kept out of the tiles' row copies; on the
Torch backend, ``sinh``, ``atan2`` and ``hypot`` gave a tile's last elements other bits,
before they were NumPy's on views)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BACKEND, ON_HOST, SIZE, assert_host_bits, distribute, uneven_counts

import xdist
from xdist import _fusion

if not (BACKEND.name == "numpy" or (BACKEND.name == "torch" and ON_HOST)):
    pytest.skip("fused chains run on the host only", allow_module_level=True)

PROGRAMS = 40  # per layout; each of a few to 15 steps


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch):
    monkeypatch.setattr(_fusion, "_TILE", 24)
    monkeypatch.setattr(_fusion, "_PRODUCT_ROWS", 3)


def _program(seed: int) -> tuple[int, int, list[tuple]]:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 70)), int(rng.integers(1, 6))
    kinds = ["binary", "binary", "unary", "scalar", "in_place", "view", "write_view", "mask",
             "row_reduction", "cast", "compare", "column", "product"]  # fmt: skip
    steps = [
        (
            str(rng.choice(kinds)),
            int(rng.integers(100)),
            int(rng.integers(100)),
            int(rng.integers(100)),
        )
        for _ in range(int(rng.integers(2, 15)))
    ]
    return n, m, steps


_BINARY = (
    lambda ns, x, y: x + y,
    lambda ns, x, y: x - y,
    lambda ns, x, y: x * y,
    lambda ns, x, y: x / y,
    lambda ns, x, y: ns.maximum(x, y),
    lambda ns, x, y: ns.where(x > y, x, y),
    lambda ns, x, y: x * x + y,
    lambda ns, x, y: ns.atan2(x, y),
    lambda ns, x, y: ns.hypot(x, y),
)
_UNARY = (
    lambda ns, x: -x,
    lambda ns, x: ns.abs(x),
    lambda ns, x: ns.sqrt(ns.abs(x)),
    lambda ns, x: ns.exp(-ns.abs(x)),
    lambda ns, x: ns.floor(x),
    lambda ns, x: ns.sign(x),
    lambda ns, x: ns.sinh(x * 0.25),
    lambda ns, x: ns.clip(x, -1.0, 1.5),
)
_REDUCTIONS = ("sum", "max", "min", "mean", "argmin", "argmax")


def _run(ns, values: list, steps: list[tuple]) -> tuple[list, list[bool]]:
    """The program on ``values`` (NumPy's or xdist's namespace ``ns``); each value's flag says
    whether NumPy's bits are expected (not a float32 row sum or mean)."""
    exact = [True] * len(values)
    for kind, a, b, r in steps:
        i, j = a % len(values), b % len(values)
        x, y = values[i], values[j]
        try:
            shape = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
        except ValueError:
            shape = None
        new, flag = None, exact[i] and exact[j]
        if kind == "binary" and shape is not None:
            new = _BINARY[r % len(_BINARY)](ns, x, y)
        elif kind == "unary":
            new = _UNARY[r % len(_UNARY)](ns, x)
        elif kind == "scalar":
            c = (2.0, -0.5, 3, 0.0)[r % 4]
            new = (x + c, x * c, c - x)[r % 3]
        elif kind == "in_place" and shape == tuple(x.shape):
            if r % 3 == 0:
                x += y
            elif r % 3 == 1:
                x *= y
            else:
                x -= y
        elif kind == "view":
            new = x[:, ::2]
        elif kind == "write_view" and x.shape[1] > 1:
            v = x[:, 1:]
            v += (1.0, -2.0)[r % 2]
        elif kind == "mask":
            x[x > 0.5] = 0.25
        elif kind == "row_reduction":
            op = _REDUCTIONS[r % len(_REDUCTIONS)]
            new = getattr(ns, op)(x, axis=1)
            if op in ("argmin", "argmax"):
                new = ns.astype(new, ns.float64)
            new = new[:, None]
            flag = flag and not (op in ("sum", "mean") and x.dtype == ns.float32)
        elif kind == "cast":
            new = ns.astype(ns.astype(x, (ns.float32, ns.float64)[r % 2]), ns.float64)
        elif kind == "compare" and shape is not None:
            new = ns.astype(x < y, ns.float64)
        elif kind == "column":
            x[:, 0] = 7.0
        elif kind == "product":
            w = np.linspace(-1.0, 1.0, x.shape[1] * 3).reshape(x.shape[1], 3)
            new = (x @ ns.asarray(w, dtype=x.dtype)) * 2.0 + 1.0
            flag = False  # a GEMM's rounding differs with the rows of a call
        if new is not None:
            values.append(new)
            exact.append(flag)
    return values, exact


def _data(seed: int, n: int, m: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed + 1000)
    a = rng.standard_normal((n, m))
    a.flat[::5] = np.nan
    b = rng.standard_normal((n, m)).astype(np.float32).astype(np.float64)
    b.flat[::7] = np.inf
    b.flat[3::11] = -0.0
    return [a, b, rng.standard_normal((1, m)), rng.standard_normal((n, 1))]


def _xdist_run(data, steps, lay, fuse):
    with xdist.config_context(fuse_min_elements=fuse), np.errstate(all="ignore"):
        arrays = [distribute(d, *(lay if d.shape[0] > 1 else (None, None))) for d in data]
        values, _ = _run(xdist, arrays, steps)
        return [v.to_numpy() for v in values]


def _same(got, want, exact, where):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, where
    if exact:
        assert_host_bits(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=str(where))


@pytest.mark.parametrize("layout", ["replicated", "balanced", "uneven"])
def test_random_programs(layout):
    for seed in range(PROGRAMS):
        n, m, steps = _program(seed)
        data = _data(seed, n, m)
        lay = {"replicated": (None, None), "balanced": (0, None)}.get(layout)
        if lay is None:
            lay = (0, uneven_counts(n, SIZE))
        one_block = _xdist_run(data, steps, (None, None), 0)
        fused = _xdist_run(data, steps, lay, 1)
        eager = _xdist_run(data, steps, lay, 0)
        with np.errstate(all="ignore"):
            numpy_values, exact = _run(np, [d.copy() for d in data], steps)
        assert len(fused) == len(eager) == len(one_block) == len(numpy_values)
        products = any(kind == "product" for kind, *_ in steps)
        for k, (f, e, o, w) in enumerate(zip(fused, eager, one_block, numpy_values)):
            where = (seed, k, steps)
            _same(f, e, not products or exact[k], where)
            _same(e, o, not products or exact[k], where)
            if BACKEND.name == "numpy":
                _same(e, w, exact[k], where)
