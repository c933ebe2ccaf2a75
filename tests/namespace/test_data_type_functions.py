"""Data type functions: promotion against the standard's table (written out here from the
standard's rules, not from NumPy), casting, limits, kinds, and ``astype`` on every layout."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import assert_equal, distribute, layout_id, layouts, random_array, shares_memory

import xdist
from xdist._dtypes import ALL_DTYPES

INTS = ["int8", "int16", "int32", "int64"]
UINTS = ["uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
NAMES = ["bool", *INTS, *UINTS, *FLOATS, *COMPLEX]


def bits(name: str) -> int:
    return int("".join(c for c in name if c.isdigit()) or 8)


def standard_promotion(a: str, b: str) -> str | None:
    """The standard's type promotion table; ``None`` where it has no entry."""
    if a == b:
        return a
    if a in INTS + UINTS and b in INTS + UINTS:
        if (a in INTS) == (b in INTS):
            return a if bits(a) >= bits(b) else b
        signed, unsigned = (a, b) if a in INTS else (b, a)
        need = max(bits(signed), 2 * bits(unsigned))
        return f"int{need}" if need <= 64 else None
    if a in FLOATS + COMPLEX and b in FLOATS + COMPLEX:
        # precision of the real component; complex if either is
        prec = max(bits(a) // (2 if a in COMPLEX else 1), bits(b) // (2 if b in COMPLEX else 1))
        return f"complex{2 * prec}" if a in COMPLEX or b in COMPLEX else f"float{prec}"
    return None


PAIRS = list(itertools.product(NAMES, NAMES))


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_result_type_table(a, b):
    da, db = getattr(xdist, a), getattr(xdist, b)
    expected = standard_promotion(a, b)
    got = xdist.result_type(da, db)
    if expected is not None:
        assert got == np.dtype(expected)
    else:  # mixed kinds: NumPy's answer (documented)
        assert got == np.result_type(np.dtype(a), np.dtype(b))
    # arrays count as their dtype
    assert xdist.result_type(xdist.zeros((), dtype=da), db) == got


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_can_cast_table(a, b):
    in_table = standard_promotion(a, b)
    if in_table is not None:  # the standard decides
        expected = in_table == b
    else:  # across kinds: the cast result_type makes (documented), NumPy's safe casts
        expected = bool(np.can_cast(np.dtype(a), np.dtype(b), "safe"))
    assert xdist.can_cast(getattr(xdist, a), getattr(xdist, b)) is expected
    assert expected is (xdist.result_type(getattr(xdist, a), getattr(xdist, b)) == np.dtype(b))
    assert xdist.can_cast(xdist.zeros(2, dtype=a), getattr(xdist, b)) is expected


@pytest.mark.parametrize(
    "args,expected",
    [
        ((xdist.int8, 1), "int8"),
        ((xdist.uint16, 7), "uint16"),
        ((xdist.float32, 1.0), "float32"),
        ((xdist.float32, 1), "float32"),
        ((xdist.float32, 1j), "complex64"),
        ((xdist.float64, 1j), "complex128"),
        ((xdist.complex64, 2.5), "complex64"),
        ((xdist.bool, True), "bool"),
        ((xdist.int8, xdist.int16, 1), "int16"),
        ((1, xdist.int32, 2.0), "float64"),
        ((xdist.int8, 1.0), "float64"),
        ((xdist.int16, xdist.uint8, xdist.float32), "float32"),
    ],
)
def test_result_type_scalars(args, expected):
    assert xdist.result_type(*args) == np.dtype(expected)


def test_result_type_many():
    assert xdist.result_type(xdist.int8, xdist.uint8, xdist.int32) == xdist.int32
    assert xdist.result_type(xdist.float32) == xdist.float32


@pytest.mark.parametrize(
    "args,exc",
    [
        ((), ValueError),
        ((1, 2.0), TypeError),
        (("x",), TypeError),
        ((None,), TypeError),
        ((np.dtype("float16"),), TypeError),
    ],
)
def test_result_type_errors(args, exc):
    with pytest.raises(exc, match="result_type"):
        xdist.result_type(*args)


def test_result_type_of_scalars_alone_is_both_errors_that_callers_catch():
    """Python scalars alone have no dtype to promote with: xarray catches a TypeError there,
    SciPy a ValueError (array-api-strict's), then takes its default; one error is both."""
    for catch in (TypeError, ValueError):
        with pytest.raises(catch, match="at least one argument must be an array or a dtype"):
            xdist.result_type(1.5, 2)


def test_can_cast_errors():
    with pytest.raises(TypeError, match="can_cast: to"):
        xdist.can_cast(xdist.int8, "float16")
    with pytest.raises(TypeError, match="can_cast: from_"):
        xdist.can_cast([1], xdist.int8)


# -- finfo, iinfo -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", FLOATS + COMPLEX)
def test_finfo(name):
    ref = np.finfo(np.dtype(name))
    for arg in (getattr(xdist, name), xdist.zeros(3, dtype=name, split=0)):
        info = xdist.finfo(arg)
        assert info.bits == ref.bits == (32 if name in ("float32", "complex64") else 64)
        for field in ("eps", "max", "min", "smallest_normal"):
            value = getattr(info, field)
            assert type(value) is float and value == float(getattr(ref, field))
        assert info.dtype == np.dtype("float32" if name in ("float32", "complex64") else "float64")
        assert info.dtype == ref.dtype


@pytest.mark.parametrize("name", INTS + UINTS)
def test_iinfo(name):
    ref = np.iinfo(np.dtype(name))
    for arg in (getattr(xdist, name), xdist.zeros(3, dtype=name)):
        info = xdist.iinfo(arg)
        got = (info.bits, info.min, info.max, info.dtype)
        assert got == (bits(name), ref.min, ref.max, np.dtype(name))
        assert type(info.min) is int and type(info.max) is int


@pytest.mark.parametrize(
    "func,arg",
    [
        ("finfo", xdist.int32),
        ("finfo", xdist.bool),
        ("iinfo", xdist.float64),
        ("iinfo", "float16"),
        ("finfo", None),
    ],
)
def test_info_errors(func, arg):
    with pytest.raises(TypeError, match=func):
        getattr(xdist, func)(arg)


# -- isdtype ------------------------------------------------------------------------------------
KINDS = {
    "bool": ["bool"],
    "signed integer": INTS,
    "unsigned integer": UINTS,
    "integral": INTS + UINTS,
    "real floating": FLOATS,
    "complex floating": COMPLEX,
    "numeric": INTS + UINTS + FLOATS + COMPLEX,
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("name", NAMES)
def test_isdtype_kinds(name, kind):
    assert xdist.isdtype(getattr(xdist, name), kind) is (name in KINDS[kind])


@pytest.mark.parametrize("name", NAMES)
def test_isdtype_dtype_and_tuples(name):
    d = getattr(xdist, name)
    assert xdist.isdtype(d, d)
    assert xdist.isdtype(d, (xdist.int8, d))
    assert xdist.isdtype(d, ("bool", "numeric"))
    assert xdist.isdtype(d, ()) is False
    others = [o for o in ALL_DTYPES if o != d]
    assert not any(xdist.isdtype(d, o) for o in others)
    assert xdist.isdtype(d, ("real floating", "complex floating")) is (name in FLOATS + COMPLEX)


@pytest.mark.parametrize(
    "dtype,kind,exc",
    [
        (xdist.int8, "integer", ValueError),
        (xdist.int8, ("numeric", "floats"), ValueError),
        (xdist.int8, 5, TypeError),
        (xdist.int8, (("bool",),), TypeError),
        ("not a dtype", "numeric", TypeError),
        (None, "bool", TypeError),
    ],
)
def test_isdtype_errors(dtype, kind, exc):
    with pytest.raises(exc, match="isdtype"):
        xdist.isdtype(dtype, kind)


# -- astype ---------------------------------------------------------------------------------------
CASTS = [
    ("float64", "float32"),
    ("float64", "int32"),
    ("int64", "float64"),
    ("int16", "uint8"),
    ("bool", "int8"),
    ("int32", "bool"),
    ("float32", "complex128"),
    ("complex64", "complex128"),
]


@pytest.mark.parametrize("case", layouts((7, 3)), ids=layout_id)
@pytest.mark.parametrize("src,dst", CASTS, ids=[f"{a}-{b}" for a, b in CASTS])
def test_astype(case, src, dst):
    a = random_array((7, 3), src, seed=1)
    x = distribute(a, *case)
    with xdist.count_collectives() as counts:
        y = xdist.astype(x, getattr(xdist, dst))
    assert not counts, dict(counts)
    assert y.layout == x.layout
    assert_equal(y, a.astype(dst))


@pytest.mark.parametrize("shape", [(), (0,), (2, 0)])
def test_astype_small(shape):
    a = np.ones(shape, dtype="int32")
    assert_equal(xdist.astype(xdist.asarray(a), xdist.float64), a.astype("float64"))


@pytest.mark.parametrize("case", layouts((7,)), ids=layout_id)
def test_astype_copy(case):
    x = distribute(random_array((7,), seed=2), *case)
    assert xdist.astype(x, x.dtype, copy=False) is x
    y = xdist.astype(x, x.dtype)  # copy=True: a new block
    assert y is not x and y.layout == x.layout
    assert y.local.size == 0 or not shares_memory(y.local, x.local)
    assert xdist.astype(x, x.dtype, device=x.device, copy=False) is x
    assert xdist.astype(x, "float32", copy=False).dtype == np.dtype("float32")


@pytest.mark.parametrize(
    "call,exc,match",
    [
        (lambda x: xdist.astype(x, "float16"), TypeError, "astype: dtype"),
        (
            lambda x: xdist.astype(xdist.astype(x, "complex64"), "float64"),
            TypeError,
            "astype: casting complex",
        ),
        (lambda x: xdist.astype(x, "float32", device="gpu"), ValueError, "astype: device"),
        (lambda x: xdist.astype(np.zeros(2), "float32"), TypeError, "astype: x"),
    ],
    ids=["dtype", "complex", "device", "not-xdist"],
)
def test_astype_errors(call, exc, match):
    x = distribute(np.arange(7.0), 0)
    with xdist.count_collectives() as counts:
        with pytest.raises(exc, match=match):
            call(x)
    assert not counts, dict(counts)
