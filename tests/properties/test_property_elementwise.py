"""Property tests of the elementwise functions and the array's operators: random dtypes,
shapes, values (NaN, infinities and signed zeros included) and layouts, against
array-api-strict on the same global data."""

from __future__ import annotations

import operator

import array_api_strict as strict
import numpy as np
import pytest
from helpers import BACKEND, backend_rtol
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_strategies import (
    ALL,
    COMPLEX,
    INTEGER,
    NUMERIC,
    REAL,
    REAL_FLOAT,
    call,
    check,
    compare,
    distributed,
    oracle,
    quiet,
    shapes,
    shapes_broadcasting_to,
    to_numpy,
    to_strict,
)

import xdist
from xdist._elementwise_functions import _BINARY, _UNARY

_DTYPES = {
    "all": ALL,
    "numeric": NUMERIC,
    "real numeric": REAL,
    "integer": INTEGER,
    "integer or boolean": ("bool",) + INTEGER,
    "boolean": ("bool",),
    "floating-point": REAL_FLOAT + COMPLEX,
    "real floating-point": REAL_FLOAT,
}
# The standard's input dtypes where they are narrower than the category xdist accepts.
_INPUTS = {"imag": COMPLEX, "divide": REAL_FLOAT + COMPLEX}
# Integer operations whose result the standard leaves undefined for some values.
_NO_ZERO_DIVISOR = {"floor_divide", "remainder"}
_SHIFTS = {"bitwise_left_shift", "bitwise_right_shift"}
# Functions whose non-finite values xdist gives as the standard prefers, where NumPy (and so
# array-api-strict, the oracle here) does not: drawn finite here, their infinities and NaN
# are compared with the standard's cases in test_standard_semantics.py.
_STANDARD_VALUES = {"floor_divide", "expm1", "tan", "tanh"}


def _promotes(a: str, b: str, into: str | None = None) -> bool:
    """Whether dtypes ``a`` and ``b`` promote (to ``into``, when given) in the standard."""
    try:
        out = strict.result_type(getattr(strict, a), getattr(strict, b))
    except TypeError:
        return False
    return into is None or out == getattr(strict, into)


@st.composite
def _operands(draw, name: str, category: str, inplace: bool = False):
    """Two broadcastable operands for the binary function ``name``, or one and a scalar.
    With ``inplace``, ``x1`` is an array that the result fits in (its shape and dtype)."""
    dtypes = _INPUTS.get(name, _DTYPES[category])
    d1 = draw(st.sampled_from(dtypes))
    d2 = draw(st.sampled_from([d for d in dtypes if _promotes(d1, d, d1 if inplace else None)]))
    if inplace:
        shape1 = draw(shapes())
        shape2 = draw(shapes_broadcasting_to(shape1))
    else:
        pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=5))
        shape1, shape2 = pair.input_shapes
    # Complex with real infinities: Torch's complex math differs from NumPy's special values
    # (a library difference); under other backends such pairs are drawn finite.
    finite = BACKEND.name != "numpy" and "c" in (np.dtype(d1).kind, np.dtype(d2).kind)
    finite = finite or name in _STANDARD_VALUES
    x1 = draw(distributed(d1, shape1, finite=finite))
    integer = np.dtype(d1).kind in "iu" and np.dtype(d2).kind in "iu"
    if name in _SHIFTS:
        x2 = draw(distributed(d2, shape2, elements=st.integers(0, 7)))
    elif integer and name in _NO_ZERO_DIVISOR:
        x2 = draw(distributed(d2, shape2, elements=st.integers(1, 100)))
    elif integer and name == "pow":
        x2 = draw(distributed(d2, shape2, elements=st.integers(0, 3)))
    else:
        x2 = draw(distributed(d2, shape2, finite=finite))
    if draw(st.integers(0, 3)) == 0:  # a Python scalar of the kind of x1 for one operand
        scalar = _scalar_like(draw, x1.dtype, name)
        # Shift amounts and integer exponents must be non-negative: the scalar goes second.
        int_pow = name == "pow" and x1.dtype.kind in "iu"
        first = inplace or int_pow or name in _SHIFTS or draw(st.booleans())
        return (x1, scalar) if first else (scalar, x1)
    return x1, x2


def _scalar_like(draw, dtype: np.dtype, name: str):
    if dtype.kind == "b":
        return draw(st.booleans())
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = 1 if name in _NO_ZERO_DIVISOR | {"pow"} | _SHIFTS else max(info.min, -100)
        return draw(st.integers(low, min(info.max, 7 if name in _SHIFTS | {"pow"} else 100)))
    finite = name in _STANDARD_VALUES
    if dtype.kind == "f":
        return draw(st.floats(width=32, allow_subnormal=False, allow_infinity=not finite))
    return complex(draw(st.floats(width=32)), draw(st.floats(width=32)))


@pytest.mark.parametrize("name", sorted(_UNARY))
@given(data=st.data())
def test_unary(name, data):
    dtypes = _INPUTS.get(name, _DTYPES[_UNARY[name]])
    dtype = data.draw(st.sampled_from(dtypes), label="dtype")
    x = data.draw(distributed(dtype, shapes(), finite=name in _STANDARD_VALUES), label="x")
    if BACKEND.name != "numpy" and x.dtype.kind == "c":
        y = _check_overflowing(name, x)
    else:
        y = check(name, x)
    assert y.layout == x.layout  # unary functions never move data


@pytest.mark.parametrize("name", sorted(_BINARY))
@given(data=st.data())
def test_binary(name, data):
    x1, x2 = data.draw(_operands(name, _BINARY[name]), label="operands")
    if name == "pow" and BACKEND.name != "numpy" and "c" in (_kind(x1), _kind(x2)):
        _check_overflowing("pow", x1, x2)
    else:
        check(name, x1, x2)


def _kind(x) -> str:
    return x.dtype.kind if isinstance(x, xdist.Array) else np.asarray(x).dtype.kind


def _check_overflowing(name, *args):
    """A complex function of another library beside NumPy's: where NumPy's result overflows
    (finite operands, a part beyond the largest number), only that it overflows too. What
    the other part is there is the library's: ``(240j) ** (5e13 - 2e18j)`` is the phase of
    a huge angle (CuPy's inf + inf j, NumPy's inf - inf j); Torch-CUDA's complex64
    ``cos(90j)`` is inf + nan j, NumPy's inf - 0j (``-sin(0) * sinh(90)``). A result at the
    edge of the range may overflow in one library's intermediate and not in another's:
    ``(3.4e38 + 0j) ** 8`` is 1.7975e308, finite, where NumPy's gives inf + nan j; so where
    NumPy overflows, the other library's part may also be finite within a factor 4 of the
    largest number."""
    got = call(name, *args)
    return _compare_overflowing(got, np.asarray(oracle(name, *args)))


def _compare_overflowing(got, want):
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    host = got.to_numpy()
    over = ~np.isfinite(want)
    edge = np.finfo(want.dtype).max / 4 if want.dtype.kind in "fc" else np.inf
    assert (~np.isfinite(host[over]) | (np.abs(host[over]) >= edge)).all(), (
        host[over],
        want[over],
    )
    tol = backend_rtol(want.dtype)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(
            np.where(over, 0, host), np.where(over, 0, want), rtol=tol, atol=tol, equal_nan=True
        )
    return got


_OPERATORS = {
    "add": "__add__",
    "subtract": "__sub__",
    "multiply": "__mul__",
    "divide": "__truediv__",
    "floor_divide": "__floordiv__",
    "remainder": "__mod__",
    "pow": "__pow__",
    "bitwise_and": "__and__",
    "bitwise_or": "__or__",
    "bitwise_xor": "__xor__",
    "bitwise_left_shift": "__lshift__",
    "bitwise_right_shift": "__rshift__",
    "equal": "__eq__",
    "not_equal": "__ne__",
    "less": "__lt__",
    "less_equal": "__le__",
    "greater": "__gt__",
    "greater_equal": "__ge__",
}


@pytest.mark.parametrize("name", sorted(_OPERATORS))
@given(data=st.data())
def test_binary_operator(name, data):
    """``x1 op x2`` (reflected when ``x1`` is a scalar) equals the function of that name."""
    x1, x2 = data.draw(_operands(name, _BINARY[name]), label="operands")
    op = getattr(operator, _OPERATORS[name])
    with quiet():
        got = op(x1, x2)
        expected = op(to_strict(x1), to_strict(x2))
    if name == "pow" and BACKEND.name != "numpy" and "c" in (_kind(x1), _kind(x2)):
        _compare_overflowing(got, to_numpy(expected))  # as test_binary's pow
    else:
        compare(got, to_numpy(expected))


_COMPARISONS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


@pytest.mark.parametrize("name", sorted(set(_OPERATORS) - _COMPARISONS))
@given(data=st.data())
def test_inplace_operator(name, data):
    """``x1 op= x2`` writes into ``x1`` (its layout stays) when the result has its dtype and
    shape; the values are those of the function."""
    x1, x2 = data.draw(_operands(name, _BINARY[name], inplace=True), label="operands")
    expected = oracle(name, x1, x2)
    layout, iop = x1.layout, "__i" + _OPERATORS[name][2:]
    with quiet():
        out = getattr(x1, iop)(x2)
    assert out is x1 and x1.layout == layout
    compare(x1, expected)


@pytest.mark.parametrize("op", ["__neg__", "__pos__", "__abs__", "__invert__"])
@given(data=st.data())
def test_unary_operator(op, data):
    name = {"__neg__": "negative", "__pos__": "positive", "__abs__": "abs"}.get(
        op, "bitwise_invert"
    )
    dtype = data.draw(st.sampled_from(_DTYPES[_UNARY[name]]))
    x = data.draw(distributed(dtype, shapes()))
    with quiet():
        got = getattr(x, op)()
    compare(got, oracle(name, x))


def _bound(draw, dtype: np.dtype, shape, side: int):
    """A bound for ``clip``: None, a scalar or an array of ``dtype`` and ``shape``, below 0
    for ``side=-1`` and above for ``side=1`` (so ``min <= max``: the standard leaves
    ``min > max`` unspecified)."""
    kind = draw(st.sampled_from(["none", "scalar", "array"]))
    if kind == "none":
        return None
    if dtype.kind == "f":
        values = st.floats(-50, 0) if side < 0 else st.floats(0, 50)
        values = values.map(lambda v: float(np.asarray(v, dtype=dtype)))
    else:
        low = max(int(np.iinfo(dtype).min), -50)
        values = st.integers(low, 0) if side < 0 else st.integers(0, 50)
    if kind == "scalar":
        return draw(values)
    return draw(distributed(dtype.name, shape, elements=values))


@given(data=st.data())
def test_clip(data):
    """Bounds may broadcast the result to a larger shape than that of ``x``."""
    dtype = data.draw(st.sampled_from(REAL))
    x = data.draw(distributed(dtype, shapes(max_dims=2)))
    pair = data.draw(
        hnp.mutually_broadcastable_shapes(num_shapes=2, base_shape=x.shape, max_side=4)
    )
    lo = _bound(data.draw, x.dtype, pair.input_shapes[0], -1)
    hi = _bound(data.draw, x.dtype, pair.input_shapes[1], 1)
    check("clip", x, min=lo, max=hi)
