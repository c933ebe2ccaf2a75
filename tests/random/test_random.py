"""xdist.random: the same seed gives bitwise the same array at every rank count, split and
backend; the distributions are what they claim; bad arguments raise the same error on every
rank before anything is drawn or sent."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from helpers import (
    BACKEND,
    COMM,
    DEFAULTS,
    RANK,
    SIZE,
    UNSUPPORTED,
    assert_layout_consistent,
    distribute,
    uneven_counts,
)

import xdist
import xdist.random as xr
from xdist import Layout
from xdist.random._engine import Engine
from xdist.random._layouts import RUN_MIN, draw_layout

SEED = 20240611


def crc(a) -> int:
    """CRC-32 of an array's values (C order, native little-endian bytes)."""
    return zlib.crc32(np.ascontiguousarray(a).tobytes())


def same_on_all_ranks(value: int) -> bool:
    return len(set(COMM.allgather_ints([int(value)])[:, 0].tolist())) == 1


# -- what each drawing call is: (method, positional args, keywords) ------------------------------
DRAWS = {
    "random64": ("random", (), {"dtype": "float64"}),
    "random32": ("random", (), {"dtype": "float32"}),
    "uniform": ("uniform", (-2.0, 3.0), {"dtype": "float64"}),
    "uniform32": ("uniform", (-2.0, 3.0), {"dtype": "float32"}),
    "normal64": ("standard_normal", (), {"dtype": "float64"}),
    "normal32": ("standard_normal", (), {"dtype": "float32"}),
    "normal": ("normal", (1.5, 2.0), {"dtype": "float64"}),
    "int10": ("integers", (0, 10), {"dtype": "int64"}),
    "int8": ("integers", (-128, 127), {"dtype": "int8", "endpoint": True}),
    "uint8": ("integers", (3, 250), {"dtype": "uint8"}),
    "int_big": ("integers", (-(2**62), 2**62 + 12345), {"dtype": "int64"}),
    "int_full": ("integers", (-(2**63), 2**63 - 1), {"dtype": "int64", "endpoint": True}),
}


def draw(name, shape, split, seed=SEED, skip=0):
    """The call ``name`` of a fresh generator (after ``skip`` other calls)."""
    rng = xr.default_rng(seed)
    for _ in range(skip):
        rng.random(3)
    method, args, kw = DRAWS[name]
    return getattr(rng, method)(*args, shape, split=split, **kw)


# The replicated draw of shape (6, 5), computed at one rank on the NumPy backend when the
# tests were written (the integers of at most 2**16 values again when they moved to 32-bit
# draws; test_engine_is_philox_by_index pins both definitions): every rank count, split and
# backend must give these bytes. (Normals
# depend on NumPy's log/cos/sin, whose last bit may differ between builds: see
# test_normal_reference.)
REFERENCE = {
    "random64": 4259792328,
    "random32": 1504595587,
    "uniform": 298416375,
    "uniform32": 1933064821,
    "int10": 1720178834,
    "int8": 472183313,
    "uint8": 4061186435,
    "int_big": 90324562,
    "int_full": 2533914642,
}

SHAPES = [(), (0,), (1,), (7,), (5, 3), (2, 9), (0, 4), (3, 5, 7), (1, 2, 50), (2, 3 * RUN_MIN + 5)]
SHAPE_SPLITS = [(s, a) for s in SHAPES for a in range(len(s))]


def ss_id(case):
    shape, split = case
    return f"{'x'.join(map(str, shape)) or '0d'}-s{split}"


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_reference_bytes(name):
    x = draw(name, (6, 5), None)
    assert x.dtype == np.dtype(DRAWS[name][2]["dtype"])
    assert crc(x.to_numpy()) == REFERENCE[name]


@pytest.mark.parametrize("case", SHAPE_SPLITS, ids=ss_id)
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_every_split_equals_the_whole(name, case):
    """A split draw holds exactly the elements of the replicated one (which is what one
    process draws): the values depend on the global flat index only."""
    shape, split = case
    if np.dtype(DRAWS[name][2]["dtype"]).name in UNSUPPORTED:
        pytest.skip("dtype not in this backend")
    whole = draw(name, shape, None).to_numpy()
    x = draw(name, shape, split)
    assert x.layout == Layout.balanced(shape, split, SIZE)
    assert_layout_consistent(x)
    local = np.asarray(BACKEND.to_host(x.local))
    np.testing.assert_array_equal(local, whole[x.layout.local_slice(RANK)], strict=True)
    np.testing.assert_array_equal(x.to_numpy(), whole, strict=True)


def test_normal_reference():
    """Box-Muller as documented, from the uniforms of the same stream (pinned by
    REFERENCE), to a few units in the last place: the engine evaluates the angle through
    ``tan`` and NumPy's transcendental functions may differ in the last bit between builds."""
    z = draw("normal64", (6, 5), None).to_numpy().ravel()
    u = draw("random64", (30,), None).to_numpy()
    r = np.sqrt(-2.0 * np.log(1.0 - u[0::2]))
    psi = 2 * np.pi * u[1::2] - np.pi / 2
    expected = np.empty(30)
    expected[0::2] = r * np.cos(psi)
    expected[1::2] = r * np.sin(psi)
    np.testing.assert_allclose(z, expected, rtol=0, atol=1e-14)
    z32 = draw("normal32", (6, 5), None).to_numpy().ravel()
    np.testing.assert_array_equal(z32, z.astype(np.float32))


def test_engine_is_philox_by_index():
    """The engine's definition in terms of NumPy's Philox outputs (guards NumPy changes)."""
    key = np.array([12345, 67890], dtype=np.uint64)
    eng, stream = Engine(key), 5
    raw = np.random.Philox(key=key, counter=stream << 128).random_raw(64)
    np.testing.assert_array_equal(eng.raw(stream, 0, 64), raw)
    np.testing.assert_array_equal(
        eng.uniform(stream, 0, 64, np.dtype("float64")), (raw >> 11) * 2.0**-53
    )
    halves = np.stack([raw & 0xFFFFFFFF, raw >> 32], axis=1).ravel()
    f32 = ((halves >> 8) * 2.0**-24).astype(np.float32)
    for lo in range(5):
        for hi in range(lo, 13):
            np.testing.assert_array_equal(eng.raw(stream, lo, hi), raw[lo:hi])
            np.testing.assert_array_equal(
                eng.uniform(stream, lo, hi, np.dtype("float32")), f32[lo:hi]
            )
    for span in (2**16 + 1, 2**32, 2**32 + 1, 3 * 2**61, 2**64 - 1, 2**64):
        got = eng.integers(stream, 0, 64, 0, span, np.uint64)
        want = np.array([(int(w) * span) >> 64 for w in raw], dtype=np.uint64)
        np.testing.assert_array_equal(got, want)
    for span in (1, 2, 3, 10, 1000, 2**16 - 1, 2**16):  # a 32-bit half per element
        want = np.array([(int(h) * span) >> 32 for h in halves], dtype=np.int64)
        for lo, hi in [(0, 64), (1, 64), (3, 8), (5, 5), (2, 127)]:
            got = eng.integers(stream, lo, hi, -7, span, np.int64)
            np.testing.assert_array_equal(got, want[lo:hi] - 7)


def test_default_dtypes():
    rng = xr.default_rng(SEED)
    assert rng.random(3).dtype == DEFAULTS["real floating"]
    assert rng.standard_normal(3).dtype == DEFAULTS["real floating"]
    assert rng.integers(5, size=3).dtype == DEFAULTS["integral"]
    assert rng.permutation(3).dtype == np.dtype("int64")


def test_size_none_and_shape_keyword():
    x = xr.default_rng(SEED).random(dtype="float64")
    assert x.shape == () and x.split is None
    a = xr.default_rng(SEED).random((2, 3), "float64").to_numpy()
    b = xr.default_rng(SEED).random(shape=(2, 3), dtype="float64").to_numpy()
    c = xr.default_rng(SEED).random(size=[2, 3], dtype="float64").to_numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    assert float(x) == a.ravel()[0]


def test_default_split_follows_the_config():
    with xdist.config_context(default_split=0):
        x = xr.default_rng(SEED).random((5, 2))
        y = xr.default_rng(SEED).random(())
    assert x.layout == Layout.balanced((5, 2), 0, SIZE)
    assert y.split is None


def test_draw_layout_plan():
    """Short runs are drawn along an earlier axis and moved; long runs are drawn in place."""
    assert draw_layout(Layout.balanced((3, 5, 7), 2, 3), 3) == Layout.balanced((3, 5, 7), 0, 3)
    assert draw_layout(Layout.balanced((2, 3, 7), 2, 3), 3) == Layout.balanced((2, 3, 7), 1, 3)
    for layout in (
        Layout.balanced((2, 3 * RUN_MIN + 5), 1, 3),  # long runs
        Layout.balanced((1, 2, 50), 2, 3),  # no earlier axis with a row per rank
        Layout.balanced((4, 9), 0, 3),
        Layout.replicated((4, 9)),
        Layout.balanced((4, 9), 1, 1),
    ):
        assert draw_layout(layout, layout.counts and len(layout.counts) or 3) == layout


# -- messages -----------------------------------------------------------------------------------
@pytest.mark.parametrize("split", [None, 0])
def test_drawing_sends_nothing(split):
    rng = xr.default_rng(SEED)
    with xdist.count_collectives() as counts:
        rng.random((40, 3), split=split)
        rng.standard_normal((40, 3), split=split)
        rng.integers(0, 7, (40, 3), split=split)
        rng.permutation(40)
        rng.choice(9, 17, split=split)
    assert not counts, dict(counts)


def test_seed_none_agrees():
    with xdist.count_collectives() as counts:
        rng = xr.default_rng()
    assert sum(counts.values()) == (1 if SIZE > 1 else 0), dict(counts)
    assert same_on_all_ranks(crc(rng.key))
    x = rng.random(50, dtype="float64", split=None)
    assert same_on_all_ranks(crc(np.asarray(BACKEND.to_host(x.local))))
    # The entropy reproduces the generator.
    again = xr.default_rng(rng.seed_seq.entropy)
    again.random(50)
    np.testing.assert_array_equal(
        again.random(5, dtype="float64").to_numpy(), rng.random(5, dtype="float64").to_numpy()
    )


def test_seeds_that_differ_between_ranks_are_caught():
    if SIZE == 1:
        pytest.skip("needs several ranks")
    with xdist.config_context(check_replicated=True):
        with pytest.raises(ValueError, match="seed differs between ranks"):
            xr.default_rng(RANK)


def test_seed_forms():
    a = xr.default_rng(7).random(4, dtype="float64").to_numpy()
    b = xr.default_rng(np.random.SeedSequence(7)).random(4, dtype="float64").to_numpy()
    c = xr.default_rng(np.int64(7)).random(4, dtype="float64").to_numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    d = xr.default_rng([7, 8]).random(4, dtype="float64").to_numpy()
    e = xr.default_rng(8).random(4, dtype="float64").to_numpy()
    assert not np.array_equal(a, d) and not np.array_equal(a, e)
    rng = xr.default_rng(7)
    assert xr.default_rng(rng) is rng


def test_successive_calls_and_spawn_differ():
    rng = xr.default_rng(SEED)
    a, b = rng.random(8).to_numpy(), rng.random(8).to_numpy()
    assert not np.array_equal(a, b)
    kids = xr.default_rng(SEED).spawn(2)
    again = xr.default_rng(SEED).spawn(2)
    draws = [k.random(8, dtype="float64").to_numpy() for k in kids]
    assert not np.array_equal(draws[0], draws[1])
    np.testing.assert_array_equal(draws[0], again[0].random(8, dtype="float64").to_numpy())


# -- statistics ---------------------------------------------------------------------------------
N = 120_000


def sample(method, *args, **kw):
    rng = xr.default_rng(SEED)
    return getattr(rng, method)(*args, N, split=0, **kw).to_numpy()


def within(value, expected, sigma, k=5.0):
    assert abs(value - expected) <= k * sigma, (value, expected, sigma)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_uniform_moments(dtype):
    u = sample("random", dtype=dtype)
    assert u.dtype == np.dtype(dtype) and u.min() >= 0 and u.max() < 1
    within(u.mean(), 0.5, math.sqrt(1 / 12 / N))
    within(u.var(), 1 / 12, math.sqrt(1 / 180 / N))
    v = sample("uniform", -3.0, 5.0, dtype=dtype)
    assert v.min() >= -3 and v.max() <= 5
    within(v.mean(), 1.0, 8 * math.sqrt(1 / 12 / N))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_normal_moments(dtype):
    z = sample("standard_normal", dtype=dtype).astype(np.float64)
    within(z.mean(), 0.0, math.sqrt(1 / N))
    within(z.var(), 1.0, math.sqrt(2 / N))
    within(np.mean(z**3), 0.0, math.sqrt(15 / N))
    within(np.mean(z**4), 3.0, math.sqrt(96 / N))
    within(np.mean(np.abs(z) < 1), 0.682689, math.sqrt(0.22 / N))
    # Neighbours (the cos and sin of one pair) are uncorrelated.
    within(np.mean(z[0::2] * z[1::2]), 0.0, math.sqrt(2 / N))
    y = sample("normal", -2.0, 3.0, dtype=dtype)
    within(y.mean(), -2.0, 3 * math.sqrt(1 / N))
    within(y.std(), 3.0, 3 * math.sqrt(1 / (2 * N)))


def test_integers_hit_every_value_evenly():
    x = sample("integers", -4, 6)
    assert x.min() == -4 and x.max() == 5
    counts = np.bincount(x + 4, minlength=10)
    chi2 = float(((counts - N / 10) ** 2 / (N / 10)).sum())
    assert chi2 < 40, counts  # 9 degrees of freedom: p ~ 1e-5
    y = sample("integers", 0, 3, endpoint=True, dtype="int8")
    assert sorted(set(y.tolist())) == [0, 1, 2, 3]
    big = sample("integers", 0, 3 * 2**61).astype(np.float64)
    within(big.mean(), 1.5 * 2**61, 3 * 2**61 / math.sqrt(12 * N))
    full = sample("integers", -(2**63), 2**63 - 1, endpoint=True)
    assert full.min() < -(2**62) and full.max() > 2**62


# -- permutations and sampling ------------------------------------------------------------------
PERM_CRC = 2129212588


@pytest.mark.parametrize("split", [None, 0])
@pytest.mark.parametrize("n", [0, 1, 7, 100])
def test_permutation_of_n(n, split):
    p = xr.default_rng(SEED).permutation(n, split=split)
    assert p.layout == Layout.balanced((n,), split, SIZE)
    got = p.to_numpy()
    np.testing.assert_array_equal(np.sort(got), np.arange(n))
    assert got.dtype == np.int64
    if n == 100:
        assert crc(got) == PERM_CRC


def permutation_cases():
    for shape in [(7, 4), (2, 9, 3)]:
        for axis in range(len(shape)):
            for split, counts in [(None, None), (0, None), (1, None), (0, "uneven")]:
                yield shape, axis, split, counts


@pytest.mark.parametrize(
    "shape, axis, split, counts",
    list(permutation_cases()),
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v),
)
@pytest.mark.parametrize("inplace", [False, True])
def test_permutation_of_array(shape, axis, split, counts, inplace):
    """Along any axis, for any layout (uneven included): the array's slices in the order of
    ``permutation(n)`` of the same stream; the layout is kept."""
    g = np.arange(math.prod(shape), dtype=np.float64).reshape(shape)
    if counts is not None:
        counts = uneven_counts(shape[split], SIZE)
    x = distribute(g, split, counts)
    rng = xr.default_rng(SEED)
    if inplace:
        before = x.layout
        assert rng.shuffle(x, axis=axis) is None
        out = x
        assert out.layout == before
    else:
        out = rng.permutation(x, axis=axis)
        assert out.layout == x.layout
    order = xr.default_rng(SEED).permutation(shape[axis]).to_numpy()
    assert_layout_consistent(out)
    np.testing.assert_array_equal(out.to_numpy(), np.take(g, order, axis=axis))


def test_choice_with_replacement():
    a = xr.default_rng(SEED).choice(10, (30, 4), split=1).to_numpy()
    b = xr.default_rng(SEED).integers(0, 10, (30, 4)).to_numpy()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("split", [None, 0, 1])
def test_choice_without_replacement(split):
    got = xr.default_rng(SEED).choice(50, (4, 5), replace=False, split=split)
    assert got.layout == Layout.balanced((4, 5), split, SIZE)
    prefix = xr.default_rng(SEED).permutation(50).to_numpy()[:20]
    np.testing.assert_array_equal(got.to_numpy().ravel(), prefix)
    whole = xr.default_rng(SEED).choice(6, 6, replace=False, split=split and 0).to_numpy()
    np.testing.assert_array_equal(np.sort(whole), np.arange(6))


@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("pool_split, counts", [(None, None), (0, None), (0, "uneven")])
@pytest.mark.parametrize("split", [None, 0, 1])
def test_choice_from_an_array(replace, pool_split, counts, split):
    values = np.arange(100, 123, dtype=np.int64) * 3
    if counts is not None:
        counts = uneven_counts(values.size, SIZE)
    pool = distribute(values, pool_split, counts)
    got = xr.default_rng(SEED).choice(pool, (3, 4), replace=replace, split=split)
    assert got.layout == Layout.balanced((3, 4), split, SIZE)
    assert_layout_consistent(got)
    idx = xr.default_rng(SEED).choice(values.size, (3, 4), replace=replace).to_numpy()
    np.testing.assert_array_equal(got.to_numpy(), values[idx])


@pytest.mark.parametrize("split", [None, 0])
def test_choice_with_weights(split):
    p = np.array([0.1, 0.0, 0.6, 0.3])
    x = xr.default_rng(SEED).choice(4, 40_000, p=p, split=split).to_numpy()
    freq = np.bincount(x, minlength=4) / x.size
    assert freq[1] == 0
    np.testing.assert_allclose(freq, p, atol=0.01)
    y = xr.default_rng(SEED).choice(4, 3, replace=False, p=p, split=split).to_numpy()
    assert sorted(y.tolist()) == [0, 2, 3]
    # The heaviest weight comes first most often, as one-at-a-time sampling by weight gives.
    firsts = [xr.default_rng(s).choice(4, 2, replace=False, p=p).to_numpy()[0] for s in range(200)]
    assert np.mean(np.array(firsts) == 2) > 0.45
    z = xr.default_rng(SEED).choice(4, (2, 3), p=p, split=None).to_numpy()
    np.testing.assert_array_equal(
        z, xr.default_rng(SEED).choice(4, (2, 3), p=p, split=0).to_numpy()
    )


def test_device_and_comm_keywords():
    rng = xr.default_rng(SEED, comm=xdist.SelfComm())
    x = rng.random(5, split=0, device=BACKEND.default_device())
    assert x.comm.size == 1 and x.counts == (5,)
    y = xr.default_rng(SEED).random(5, split=0, comm=xdist.SelfComm())
    np.testing.assert_array_equal(x.to_numpy(), y.to_numpy())


# -- bad arguments ------------------------------------------------------------------------------
def _x():
    return distribute(np.arange(6.0), 0)


BAD = [
    ("random", lambda r: r.random(-1), ValueError, "random: size must be >= 0"),
    ("random", lambda r: r.random(3, shape=3), TypeError, "give size or shape"),
    ("random", lambda r: r.random(3, "int64"), TypeError, "random: dtype must be a real float"),
    ("random", lambda r: r.random(3, split=1), IndexError, "random: split 1 is out of bounds"),
    ("random", lambda r: r.random(split=0), ValueError, "0-d array cannot be split"),
    ("uniform", lambda r: r.uniform(np.nan, 1.0, 3), ValueError, "uniform: low must be finite"),
    ("uniform", lambda r: r.uniform("a", 1.0, 3), TypeError, "uniform: low must be a real"),
    ("uniform", lambda r: r.uniform(-1e308, 1e308), ValueError, "high - low overflows"),
    ("normal", lambda r: r.normal(0.0, -1.0, 3), ValueError, "normal: scale must be >= 0"),
    ("integers", lambda r: r.integers(5, 5), ValueError, "integers: low >= high"),
    ("integers", lambda r: r.integers(0, 300, dtype="int8"), ValueError, "does not fit dtype"),
    ("integers", lambda r: r.integers(1.5), TypeError, "integers: low must be an int"),
    ("integers", lambda r: r.integers(0, 3, dtype="float64"), TypeError, "an integer dtype"),
    ("integers", lambda r: r.integers(0, 3, endpoint=1), TypeError, "endpoint must be a bool"),
    ("permutation", lambda r: r.permutation(-1), ValueError, "permutation: x must be >= 0"),
    ("permutation", lambda r: r.permutation(2.5), TypeError, "permutation: x must be an int"),
    ("permutation", lambda r: r.permutation(_x(), axis=1), IndexError, "axis 1 is out of"),
    ("permutation", lambda r: r.permutation(_x(), split=0), TypeError, "an int x only"),
    ("shuffle", lambda r: r.shuffle(np.arange(3)), TypeError, "shuffle: x must be an xdist"),
    ("choice", lambda r: r.choice(0, 3), ValueError, "choice: a is empty"),
    ("choice", lambda r: r.choice(3, 5, replace=False), ValueError, "cannot take 5 samples"),
    ("choice", lambda r: r.choice(3, p=[0.5, 0.5]), ValueError, "p must be 1-D with 3"),
    ("choice", lambda r: r.choice(3, p=[1.0, 1.0, -1.0]), ValueError, "probabilities >= 0"),
    ("choice", lambda r: r.choice(3, p=[0.2, 0.2, 0.2]), ValueError, "sum to"),
    ("choice", lambda r: r.choice(2, 2, False, p=[1.0, 0.0]), ValueError, "non-zero entries"),
    ("default_rng", lambda r: xr.default_rng(-1), ValueError, "seed must be >= 0"),
    ("default_rng", lambda r: xr.default_rng(1.5), TypeError, "seed must be an int"),
    ("default_rng", lambda r: xr.default_rng([]), ValueError, "empty sequence"),
    ("default_rng", lambda r: xr.default_rng(np.random.default_rng(1)), TypeError, "NumPy"),
]


@pytest.mark.parametrize(
    "func, call, error, match", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)]
)
def test_bad_arguments(func, call, error, match):
    """The same error on every rank, and no stream used: the next call is the first one."""
    rng = xr.default_rng(SEED)
    with pytest.raises(error, match=match) as info:
        call(rng)
    assert same_on_all_ranks(zlib.crc32(str(info.value).encode()))
    first = xr.default_rng(SEED).random(4, dtype="float64").to_numpy()
    np.testing.assert_array_equal(rng.random(4, dtype="float64").to_numpy(), first)


def test_dtype_the_backend_lacks():
    if "uint32" not in UNSUPPORTED:
        pytest.skip("the backend has uint32")
    with pytest.raises(TypeError, match="integers: the .* backend has no dtype uint32"):
        xr.default_rng(SEED).integers(0, 3, 4, dtype="uint32")
