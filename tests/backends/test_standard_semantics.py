"""The standard's special values where NumPy and Torch differ from it
(``backends/standard_semantics.py``, Torch's ``_acos``/``_log1p`` in ``backends/torch.py``):
``floor_divide`` with infinite operands (the preferred ``floor(x1 / x2)``), complex ``expm1``
and ``tanh`` at infinite and NaN parts, complex ``acos`` at zero and ``log1p`` at infinities
with a NaN part. Grids of special values and drawn data, on every layout (uneven and empty
blocks included), through functions, operators and in-place operators.

The expected values are the standard's cases written out element by element (``_expm1``,
``_tanh`` below, from the text of the 2025.12 edition); where every input is finite the
library's own result is the answer, so there xdist must equal NumPy on the same data."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from helpers import BACKEND, distribute, layout_id, layouts, require_dtypes
from hypothesis import given
from hypothesis import strategies as st
from property_strategies import laid_out

import xdist

inf, nan = math.inf, math.nan
_REAL = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.5, -3.0, 1e300, -1e300, inf, -inf, nan]
_PARTS = [0.0, -0.0, 0.5, -0.5, 1.0, 2.5, -3.0, 1e300, inf, -inf, nan]
FREE = None  # a sign the standard leaves unspecified


def _quiet():
    return np.errstate(all="ignore")


# -- the standard's cases, element by element -----------------------------------------------------
def _conj_case(ref, a: float, b: float):
    """``ref`` for ``b >= 0`` (or NaN) extended by conjugate symmetry to ``b < 0``."""
    if not math.isnan(b) and math.copysign(1, b) < 0:
        re, im = ref(a, -b)
        return re, (FREE if im is FREE else -im)
    return ref(a, b)


def _expm1_upper(a: float, b: float):
    """``expm1(a + bj)`` for ``b`` non-negative or NaN and a non-finite part."""
    if math.isnan(a):
        return (nan, b) if b == 0 else (nan, nan)
    if math.isfinite(a):
        return nan, nan  # b infinite or NaN
    if a > 0:
        if b == 0:
            return inf, 0.0
        if math.isfinite(b):
            return inf * math.cos(b) - 1, inf * math.sin(b)
        return FREE, nan  # infinity + NaN j, the real part's sign unspecified
    # a = -inf: +0 * cis(b) - 1
    if math.isfinite(b):
        return -1.0, math.copysign(0.0, math.sin(b))
    return -1.0, FREE


def _expm1(z: complex):
    if z == 0:
        return 0.0, z.imag  # 0 + 0j at either zero real part, conjugate-symmetric
    return _conj_case(_expm1_upper, z.real, z.imag)


def _tanh(z: complex):
    """``tanh(a + bj)`` for a zero or a non-finite part: odd and conjugate-symmetric."""
    a, b = z.real, z.imag
    if z == 0:
        return a, b
    if math.isnan(a):
        return (nan, b) if b == 0 else (nan, nan)
    if math.isinf(a):
        return math.copysign(1.0, a), (math.copysign(0.0, b) if math.isfinite(b) else FREE)
    return (a, nan) if a == 0 else (nan, nan)  # b infinite or NaN


def _same_part(got: float, want, tol: float) -> bool:
    if want is FREE:
        return math.isinf(got) or got == 0  # only its sign is free
    if math.isnan(want):
        return math.isnan(got)
    if math.isinf(want) or want == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(got - want) <= tol * abs(want) or (BACKEND.name != "numpy" and abs(got) < 1e-300)


def _check_complex(got: np.ndarray, z: np.ndarray, reference, numpy_result) -> None:
    """Non-finite inputs and zeros: the standard's value (``reference``; ``None``: NumPy's);
    other finite ones: NumPy's (within the backend's rounding)."""
    tol = 4 * np.finfo(got.real.dtype).eps
    if BACKEND.name != "numpy":
        tol = 1e-5 if got.dtype == np.complex64 else 1e-12
    for g, x, e in zip(got.reshape(-1), z.reshape(-1), numpy_result.reshape(-1)):
        x = complex(x)
        if reference is None or (math.isfinite(x.real) and math.isfinite(x.imag) and x != 0):
            # NumPy's value; another library may sign a zero the standard leaves open
            # (Torch: log1p(-0 + 0j) is -0 + 0j, NumPy's +0 + 0j)
            free = BACKEND.name != "numpy"
            want = tuple(FREE if p == 0 and free else p for p in (e.real, e.imag))
        else:
            want = reference(x)
        ok = _same_part(g.real, want[0], tol) and _same_part(g.imag, want[1], tol)
        assert ok, f"at {x!r}: got {complex(g)!r}, the standard's value is {want}"


def _complex_grid(dtype: str) -> np.ndarray:
    with _quiet():  # 1e300 is inf in complex64
        return np.array([complex(a, b) for a in _PARTS for b in _PARTS], dtype=dtype)


# -- complex expm1 and tanh ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name, reference", [("expm1", _expm1), ("tanh", _tanh)])
def test_complex_special_values_on_every_layout(name, reference, dtype):
    z = _complex_grid(dtype).reshape(11, 11)
    with _quiet():
        numpy_result = getattr(np, name)(z)
    for case in layouts(z.shape):
        x = distribute(z, *case)
        with _quiet():
            got = getattr(xdist, name)(x)
        assert got.layout == x.layout and got.dtype == np.dtype(dtype), layout_id(case)
        _check_complex(got.to_numpy(), z, reference, numpy_result)


def test_expm1_and_tanh_spelled_out():
    """The cases the suite checks, as literal values."""
    z = distribute(
        np.array([complex(inf, 0), complex(-inf, inf), complex(nan, 0), complex(inf, nan)]), 0
    )
    with _quiet():
        e = xdist.expm1(z).to_numpy()
        t = xdist.tanh(distribute(np.array([complex(inf, 1e300), complex(0.0, inf)]), 0))
    assert e[0] == inf and math.copysign(1, e[0].imag) == 1
    assert e[1].real == -1 and e[1].imag == 0
    assert math.isnan(e[2].real) and e[2].imag == 0 and math.copysign(1, e[2].imag) == 1
    assert math.isinf(e[3].real) and math.isnan(e[3].imag)
    t = t.to_numpy()
    assert t[0] == 1 and math.copysign(1, t[0].imag) == 1  # NumPy's sign of sin(2y) is -0
    assert t[1].real == 0 and math.isnan(t[1].imag)


# -- Torch's acos and log1p (NumPy is right there: the oracle) ------------------------------------
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", ["acos", "log1p"])
def test_acos_log1p_match_numpy_at_special_values(name, dtype):
    parts = [0.0, -0.0, 0.5, -0.5, 1.0, 2.5, -3.0, inf, -inf, nan]
    z = np.array([complex(a, b) for a in parts for b in parts], dtype=dtype)
    with _quiet():
        want = getattr(np, {"acos": "arccos"}.get(name, name))(z)
    for case in layouts(z.shape):
        with _quiet():
            got = getattr(xdist, name)(distribute(z, *case)).to_numpy()
        _check_complex(got, z, None, want)
        # the zeros' signs exactly: acos(+-0 + 0j) is pi/2 - 0j (Torch's complex128 gave +0j)
        zero = (z.imag == 0) & np.isfinite(z.real)
        assert np.array_equal(np.signbit(got.imag[zero]), np.signbit(want.imag[zero]))


# -- floor_divide with infinite operands -------------------------------------------------------
def _floor_divide_standard(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The standard's preferred ``floor(x1 / x2)`` where an operand is infinite, NumPy's
    quotient elsewhere."""
    with _quiet():
        return np.where(np.isinf(a) | np.isinf(b), np.floor(a / b), np.floor_divide(a, b))


def _assert_identical(got: np.ndarray, want: np.ndarray) -> None:
    """Equal values with NaN equal to NaN and zeros by their sign."""
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    zero = want == 0  # NaN's sign bit is the library's
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_floor_divide_infinities_on_every_layout(dtype):
    with _quiet():  # 1e300 is inf in float32
        pairs = np.array(list(itertools.product(_REAL, repeat=2)), dtype=dtype)
    a, b = pairs[:, 0].copy(), pairs[:, 1].copy()
    want = _floor_divide_standard(a, b)
    for case in layouts(a.shape):
        x1, x2 = distribute(a, *case), distribute(b, *case)
        with _quiet():
            outs = [xdist.floor_divide(x1, x2), x1 // x2]
            y = distribute(a, *case)
            y //= x2
            outs.append(y)
        for out in outs:
            assert out.layout == x1.layout
            _assert_identical(out.to_numpy(), want)


def test_floor_divide_literal_values():
    """The 18 cases the suite checks (functions, operators, in-place), as literal values,
    with Python scalars on either side."""
    x = distribute(np.array([inf, -inf, inf, -inf, 1.0, -1.0, 1.0, -1.0]), 0)
    y = distribute(np.array([2.0, 2.0, -2.0, -2.0, inf, inf, -inf, -inf]), 0)
    by_two = np.array([inf, -inf, inf, -inf, 0.0, -1.0, 0.0, -1.0])
    cases = [
        (lambda: xdist.floor_divide(x, y), [inf, -inf, -inf, inf, 0.0, -0.0, -0.0, 0.0]),
        (lambda: x // y, [inf, -inf, -inf, inf, 0.0, -0.0, -0.0, 0.0]),
        (lambda: x // 2.0, by_two),
        (lambda: x // 2, by_two),
        (lambda: -1.0 // y, [-1.0, -1.0, 0.0, 0.0, -0.0, -0.0, 0.0, 0.0]),
        (lambda: 1.0 // y, [0.0, 0.0, -1.0, -1.0, 0.0, 0.0, -0.0, -0.0]),
    ]
    for make, want in cases:
        with _quiet():
            got = make()
        _assert_identical(got.to_numpy(), np.array(want))
    z = distribute(np.array([1.0, -1.0]), 0)
    z //= inf
    _assert_identical(z.to_numpy(), np.array([0.0, -0.0]))


def test_floor_divide_finite_operands_keep_the_library_quotient():
    """Without infinities the quotient is NumPy's (Python's): ``1 // 0.1 == 9``, not
    ``floor(1 / 0.1) == 10``; integers divide as before (0 for a zero divisor)."""
    a = np.array([1.0, -7.5, 0.0, -0.0, 5.0, 3.0])
    b = np.array([0.1, 2.0, -3.0, 3.0, 0.0, -0.0])
    with _quiet():
        want = np.floor_divide(a, b)
    for case in layouts(a.shape):
        with _quiet():
            got = xdist.floor_divide(distribute(a, *case), distribute(b, *case))
        _assert_identical(got.to_numpy(), want)
    i = distribute(np.array([7, -7, 3], dtype=np.int32), 0)
    j = distribute(np.array([2, 2, 0], dtype=np.int32), 0)
    np.testing.assert_array_equal((i // j).to_numpy(), np.array([3, -4, 0], dtype=np.int32))


def test_no_collective_is_added():
    """The corrections are local: an elementwise operation on equal layouts sends nothing,
    with or without infinities."""
    a = distribute(np.array([inf, 1.0, -2.0, nan, 3.0, -inf, 7.0]), 0)
    z = distribute(np.array([complex(inf, nan), 1j, complex(nan, 0)] * 2 + [0j]), 0)
    with xdist.count_collectives() as counts, _quiet():
        a // a
        xdist.expm1(z)
        xdist.tanh(z)
        xdist.acos(z)
        xdist.log1p(z)
    assert sum(counts.values()) == 0, dict(counts)


# -- drawn data ---------------------------------------------------------------------------------
_SPECIAL = st.sampled_from([0.0, -0.0, inf, -inf, nan, 1e300, -1e300])


@given(data=st.data())
def test_property_floor_divide(data):
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    n = data.draw(st.integers(0, 9))
    values = st.floats(-1e6, 1e6, width=np.dtype(dtype).itemsize * 8) | _SPECIAL
    with _quiet():  # 1e300 is inf in float32
        a = np.array(data.draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype)
        b = np.array(data.draw(st.lists(values, min_size=n, max_size=n)), dtype=dtype)
    x1, x2 = data.draw(laid_out(a)), data.draw(laid_out(b))
    with _quiet():
        got = xdist.floor_divide(x1, x2)
    _assert_identical(got.to_numpy(), _floor_divide_standard(a, b))


@given(data=st.data())
def test_property_complex_expm1_tanh(data):
    dtype = data.draw(st.sampled_from(["complex64", "complex128"]))
    require_dtypes(dtype)
    parts = st.floats(-30, 30, width=np.dtype(dtype).itemsize * 4) | _SPECIAL
    n = data.draw(st.integers(0, 9))
    with _quiet():  # 1e300 is inf in complex64
        z = np.array([complex(data.draw(parts), data.draw(parts)) for _ in range(n)], dtype=dtype)
    z = z.reshape(data.draw(st.sampled_from([(n,), (1, n)])))
    x = data.draw(laid_out(z))
    for name, reference in (("expm1", _expm1), ("tanh", _tanh)):
        with _quiet():
            got = getattr(xdist, name)(x)
            numpy_result = getattr(np, name)(z)
        _check_complex(got.to_numpy(), z, reference, numpy_result)
