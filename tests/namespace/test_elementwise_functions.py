"""Elementwise functions and operators against NumPy, over every layout and broadcasting
between operands of different layouts."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
from helpers import (
    SIZE,
    UNSUPPORTED,
    assert_equal,
    distribute,
    layout_id,
    layouts,
    random_array,
)
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import xdist
from xdist._elementwise_functions import _BINARY, _UNARY

# A representative input dtype for each category of the standard.
_DTYPE_OF = {
    "numeric": "float64",
    "floating-point": "float64",
    "real floating-point": "float64",
    "real numeric": "float64",
    "integer": "int32",
    "integer or boolean": "int64",
    "boolean": "bool",
    "all": "int16",
}
# NumPy names of the standard's functions where they differ.
_NP_NAME = {
    "acos": "arccos",
    "acosh": "arccosh",
    "asin": "arcsin",
    "asinh": "arcsinh",
    "atan": "arctan",
    "atanh": "arctanh",
    "atan2": "arctan2",
    "bitwise_invert": "invert",
    "bitwise_left_shift": "left_shift",
    "bitwise_right_shift": "right_shift",
    "pow": "power",
}


def _np_func(name):
    return getattr(np, _NP_NAME.get(name, name))


def _input(category, shape, seed):
    dtype = _DTYPE_OF[category]
    data = random_array(shape, dtype, seed)
    if dtype.startswith("int") and category == "integer":
        data = np.abs(data) % 8  # valid shift amounts
    return data


@pytest.mark.parametrize("name", sorted(_UNARY))
def test_unary_all_functions(name):
    g = _input(_UNARY[name], (7, 3), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _np_func(name)(g)
        for split, counts in layouts(g.shape):
            x = distribute(g, split, counts)
            with xdist.count_collectives() as c:
                y = getattr(xdist, name)(x)
            assert sum(c.values()) == 0
            assert y.layout == x.layout
            assert_equal(y, expected)


@pytest.mark.parametrize("name", sorted(_BINARY))
def test_binary_all_functions_same_layout(name):
    a = _input(_BINARY[name], (7, 3), 2)
    b = _input(_BINARY[name], (7, 3), 3)
    if name in ("floor_divide", "remainder", "divide"):
        b = np.where(b == 0, 1, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _np_func(name)(a, b)
        for split, counts in layouts(a.shape):
            x, y = distribute(a, split, counts), distribute(b, split, counts)
            with xdist.count_collectives() as c:
                z = getattr(xdist, name)(x, y)
            assert sum(c.values()) == 0, "equal layouts must not communicate"
            assert_equal(z, expected)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_subtract_and_diff_part_by_part(dtype):
    """Differences of complex numbers with infinite parts are taken part by part, as NumPy
    does (Torch's own turned ``(1+2j) - (1+infj)`` into ``nan-infj``)."""
    inf = np.inf
    a = np.array([1 + 2j, complex(1, inf), 3 - 1j, complex(-inf, 2), 5 + 5j, 2 + 0j, 1j], dtype)
    b = np.array([complex(1, inf), 1 + 2j, complex(0, -inf), 1 + 1j, complex(inf, 0), 2j, 1], dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_sub, want_diff = a - b, np.diff(a, n=2)
    for split, counts in layouts(a.shape):
        x, y = distribute(a, split, counts), distribute(b, split, counts)
        assert_equal(x - y, want_sub)
        assert_equal(xdist.subtract(x, y), want_sub)
        assert_equal(xdist.diff(x, n=2), want_diff)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sqrt_is_correctly_rounded(dtype):
    """``sqrt`` is correctly rounded, as the standard requires: NumPy's bits on every backend
    (Torch's own CPU kernel gave 1.3% of float64 and 17% of float32 results a last place
    off), eagerly and in place (``out=``, as fused chains call it)."""
    rng = np.random.default_rng(14)
    a = (rng.random(4001) * 10.0 ** rng.integers(-30, 30, 4001)).astype(dtype)
    a[:4] = [0.0, -0.0, np.inf, 4.0]
    want = np.sqrt(a)
    for split, counts in layouts(a.shape):
        got = xdist.sqrt(distribute(a, split, counts)).to_numpy()
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8), strict=True)
    with np.errstate(invalid="ignore"):
        assert np.isnan(xdist.sqrt(distribute(np.array([-1.0], dtype), 0)).to_numpy()).all()


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_power_zero_is_one(dtype):
    """``x ** 0`` is 1 for every complex ``x``, zero included (Torch's own gives NaN for
    ``0j ** 0j``; found by the property test in CI)."""
    a = np.array([0j, 1 + 2j, -3j, 0j], dtype)
    zero = np.zeros(4, dtype)
    for split, counts in layouts(a.shape):
        x, z = distribute(a, split, counts), distribute(zero, split, counts)
        assert_equal(xdist.pow(x, z), np.ones(4, dtype))
        assert_equal(xdist.pow(0j, z), np.ones(4, dtype))
        assert_equal(x**0j, np.ones(4, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_remainder_zero_has_the_divisor_sign(dtype):
    """A zero remainder is signed as the divisor (the standard's special cases, NumPy);
    Torch's own remainder signs it as the dividend."""
    a = np.array([-0.0, 0.0, 4.0, -4.0, 0.0, -0.0, 3.0], dtype)
    b = np.array([1.0, -1.0, -2.0, 2.0, 5.0, -5.0, np.inf], dtype)
    expected = np.remainder(a, b)
    for split, counts in layouts(a.shape):
        x, y = distribute(a, split, counts), distribute(b, split, counts)
        for z, want in (
            (xdist.remainder(x, y), expected),
            (x % y, expected),
            (x % -2.0, np.remainder(a, np.asarray(-2.0, dtype))),
        ):
            assert_equal(z, want)
            np.testing.assert_array_equal(np.signbit(z.to_numpy()), np.signbit(want))
        x %= y
        np.testing.assert_array_equal(np.signbit(x.to_numpy()), np.signbit(expected))


_SHAPES = [
    ((7, 5), (7, 5)),
    ((7, 5), (5,)),
    ((7, 1), (1, 5)),
    ((2, 3), (3,)),
    ((4, 7, 5), (7, 5)),
    ((), (7,)),
    ((0, 3), (3,)),
    ((7,), ()),
    ((8, 1), (7,)),
    ((3, 1, 5), (7, 1)),
]


@pytest.mark.parametrize("shapes", _SHAPES, ids=str)
def test_broadcast_between_layouts(shapes):
    sa, sb = shapes
    a, b = random_array(sa, seed=4), random_array(sb, seed=5)
    expected = a - b
    for la in layouts(sa):
        for lb in layouts(sb):
            x, y = distribute(a, *la), distribute(b, *lb)
            assert_equal(x - y, expected)
            assert_equal(y - x, -expected)


def test_replicated_operand_costs_nothing():
    a, b = random_array((7, 5), seed=6), random_array((5,), seed=7)
    for la in layouts(a.shape):
        x, y = distribute(a, *la), distribute(b, None)
        with xdist.count_collectives() as c:
            z = x * y
        assert sum(c.values()) == 0
        assert z.layout == x.layout
        assert_equal(z, a * b)


def test_replicated_operand_of_length_one_along_the_split_costs_nothing():
    # k-means' one-hot rows: a replicated (k, 1) column against samples split along their
    # axis: the blocks broadcast as they are, into a result split along its last axis.
    a, b = np.arange(8)[:, None], np.arange(7) % 5
    for lb in layouts(b.shape):
        x, y = distribute(a, None), distribute(b, *lb)
        want = (None, None) if lb[0] is None else (1, y.layout.counts)
        for op in (operator.eq, operator.sub):
            for args, expected in (((x, y), op(a, b)), ((y, x), op(b, a))):
                with xdist.count_collectives() as c:
                    z = op(*args)
                assert sum(c.values()) == 0
                assert (z.layout.split, z.layout.counts) == want
                assert_equal(z, expected)


def test_different_counts_move_only_with_one_alltoall():
    moved = {"alltoallv": 1} if SIZE > 1 else {}  # one rank holds everything: nothing moves
    a, b = random_array((7, 5), seed=8), random_array((7, 5), seed=9)
    x = distribute(a, 0)
    y = distribute(b, 0, counts=(0,) * (SIZE - 1) + (7,))
    with xdist.count_collectives() as c:
        z = x + y
    assert c == moved
    assert z.layout == x.layout
    assert_equal(z, a + b)
    w = distribute(b, 1)
    with xdist.count_collectives() as c:
        z = x + w
    assert c == moved
    assert_equal(z, a + b)


@pytest.mark.parametrize("case", layouts((7, 4)), ids=layout_id)
@pytest.mark.parametrize(
    "scalar", [2, -3, 1.5, True, 2 + 1j], ids=["int", "negint", "float", "bool", "complex"]
)
def test_operators_with_python_scalars(case, scalar):
    g = random_array((7, 4), seed=10)
    x = distribute(g, *case)
    ops = [
        "__add__",
        "__sub__",
        "__mul__",
        "__truediv__",
        "__radd__",
        "__rsub__",
        "__rmul__",
        "__rtruediv__",
        "__pow__",
        "__eq__",
        "__ne__",
    ]
    if not isinstance(scalar, complex):
        ops += [
            "__lt__",
            "__le__",
            "__gt__",
            "__ge__",
            "__floordiv__",
            "__mod__",
            "__rfloordiv__",
            "__rmod__",
        ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in ops:
            assert_equal(getattr(x, op)(scalar), getattr(g, op)(scalar), rtol=1e-13)


@pytest.mark.parametrize("case", layouts((7, 4)), ids=layout_id)
def test_integer_division_by_python_numbers(case):
    # An int divisor takes the direct path unless it is 0 (then 0, as NumPy gives); a float
    # one gives a floating result, with NumPy's infinities and NaN for 0.0. The backend's
    # default floating dtype holds it (Torch's float32).
    g = random_array((7, 4), "int64", seed=12)
    g[0] = 0
    x = distribute(g, *case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for op in ("__floordiv__", "__mod__", "__rfloordiv__", "__rmod__"):
            for divisor in (3, -2, 0):
                assert_equal(getattr(x, op)(divisor), getattr(g, op)(divisor))
            for divisor in (2.5, 0.0):
                got, want = getattr(x, op)(divisor), getattr(g, op)(divisor)
                assert got.dtype.kind == "f"
                np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("case", layouts((7, 4)), ids=layout_id)
def test_integer_and_bitwise_operators(case):
    g = random_array((7, 4), "int64", seed=11)
    s = np.abs(g) % 5
    x, sh = distribute(g, *case), distribute(s, *case)
    for op in [
        "__and__",
        "__or__",
        "__xor__",
        "__lshift__",
        "__rshift__",
        "__floordiv__",
        "__mod__",
    ]:
        other = sh if "shift" in op else distribute(s + 1, *case)
        expected = getattr(g, op)(s if "shift" in op else s + 1)
        assert_equal(getattr(x, op)(other), expected)
    assert_equal(~x, ~g)
    assert_equal(-x, -g)
    assert_equal(+x, g)
    assert_equal(abs(x), np.abs(g))
    assert_equal(3 & x, 3 & g)
    assert_equal(1 << sh, 1 << s)


@pytest.mark.parametrize("case", layouts((7, 4)), ids=layout_id)
def test_inplace_operators_keep_layout_and_dtype(case):
    g = random_array((7, 4), seed=12)
    x = distribute(g, *case)
    block_id = id(x.local)
    x += 1
    x *= distribute(g, None)  # replicated operand: sliced locally
    x -= distribute(g, 1)  # differently split operand: moved
    x /= 2.0
    x **= 2
    expected = (((g + 1) * g - g) / 2.0) ** 2
    assert id(x.local) == block_id, "in-place operators write into the block"
    assert x.layout.split == case[0]
    assert_equal(x, expected, rtol=1e-14)
    i = distribute(random_array((7, 4), "int32", seed=13), *case)
    with pytest.raises(TypeError):
        i += 1.5  # would change the dtype of an integer array
    with pytest.raises(ValueError):
        y = distribute(g[:1], None)
        y += x  # would change the shape


def test_dtype_promotion_follows_numpy():
    for d1 in ["int8", "uint8", "int32", "float32", "float64", "complex64"]:
        for d2 in ["int16", "uint16", "float32", "complex128"]:
            if {d1, d2} & UNSUPPORTED:
                continue  # the backend has no uint16 (Torch): nothing to promote
            a, b = np.ones(3, d1), np.ones(3, d2)
            z = distribute(a, 0) + distribute(b, None)
            assert z.dtype == np.result_type(a, b), (d1, d2)


def test_zero_dim_and_empty():
    for g in [np.array(3.0), np.empty((0, 4)), np.empty((4, 0))]:
        for case in layouts(g.shape):
            x = distribute(g, *case)
            assert_equal(xdist.exp(x), np.exp(g))
            assert_equal(x * 2 + x, g * 2 + g)


def test_clip_with_scalars_and_arrays():
    g = random_array((7, 5), seed=14)
    lo, hi = random_array((5,), seed=15) - 1, 0.5
    for case in layouts(g.shape):
        x = distribute(g, *case)
        assert_equal(xdist.clip(x, -0.5, 0.5), np.clip(g, -0.5, 0.5))
        assert_equal(xdist.clip(x, max=0.0), np.minimum(g, 0.0))
        assert_equal(xdist.clip(x, distribute(lo, 0), hi), np.clip(g, lo, hi))
    i = distribute(np.arange(10), 0)
    assert_equal(xdist.clip(i, 2, 7), np.clip(np.arange(10), 2, 7))


@pytest.mark.parametrize(
    "call,error",
    [
        (lambda x, y: xdist.sin(np.ones(3)), TypeError),
        (lambda x, y: xdist.add(x, [1, 2]), TypeError),
        (lambda x, y: xdist.bitwise_and(x, x), TypeError),
        (lambda x, y: xdist.logical_not(x), TypeError),
        (lambda x, y: xdist.add(x, y), ValueError),
        (lambda x, y: xdist.clip(x, y), ValueError),
    ],
)
def test_errors_before_any_message(call, error):
    x = distribute(random_array((7, 4)), 0)
    y = distribute(random_array((7, 3)), 1)
    with xdist.count_collectives() as c, pytest.raises(error, match=r"^\w+: "):
        call(x, y)
    assert sum(c.values()) == 0


@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=5),
    data=st.data(),
)
def test_property_broadcast_any_layouts(shapes, data):
    """Random broadcastable shapes and random split axes (derandomized: every rank draws the
    same examples) give NumPy's result."""
    sa, sb = shapes.input_shapes
    a, b = random_array(sa, seed=16), random_array(sb, seed=17)
    split_a = data.draw(st.sampled_from([None, *range(len(sa))]))
    split_b = data.draw(st.sampled_from([None, *range(len(sb))]))
    x, y = distribute(a, split_a), distribute(b, split_b)
    assert_equal(x * y + x, a * b + a)
