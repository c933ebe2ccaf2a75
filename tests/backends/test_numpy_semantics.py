"""backends/numpy_semantics.py (NumPy's special values for the functions CuPy computes
differently) against NumPy's own loops, on every pair of special values: run on NumPy
everywhere (the algorithms), and on CuPy where a GPU is present (the corrections)."""

from __future__ import annotations

import contextlib
import itertools
import warnings

import numpy as np
import pytest
from test_gpu import HAVE_CUPY_GPU

from xdist.backends import numpy_semantics as sem

_BINARY = {"divide", "floor_divide", "hypot", "pow", "remainder"}
_NUMPY_NAME = {"pow": "power"}
_REAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, "max", "-max", "tiny"]
_PARTS = [0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan, "max"]


def _values(dtype: np.dtype, values) -> list:
    fi = np.finfo(dtype)
    named = {"max": fi.max, "-max": -fi.max, "tiny": fi.tiny}
    return [named[v] if isinstance(v, str) else v for v in values]


def _grid(dtype: str, nin: int) -> list[np.ndarray]:
    """Every tuple of ``nin`` special values (complex: every pair of special parts)."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        parts = _values(dt, _PARTS)
        base = [complex(a, b) for a in parts for b in parts]
    else:
        base = _values(dt, _REAL)
    return [np.array(col, dtype=dt) for col in zip(*itertools.product(base, repeat=nin))]


def _assert_same(got: np.ndarray, want: np.ndarray, args, ulps: float = 2, gpu=False) -> None:
    """Equal values (NaN equal to NaN, infinities and zeros with their sign), ``ulps`` units
    of rounding allowed between finite values, and subnormal differences (``divide`` divides
    where NumPy multiplies by a reciprocal; CUDA flushes float32 subnormals to 0). ``gpu``:
    complex values compared by distance (``|g - w| <= tol |w|``, the suite's rule)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    pairs = [(got.real, want.real), (got.imag, want.imag)] if got.dtype.kind == "c" else []
    tol = ulps * np.finfo(got.dtype).eps
    tiny = np.finfo(got.dtype).tiny
    with np.errstate(all="ignore"):
        near = np.isfinite(got) & np.isfinite(want) & (np.abs(got - want) <= tol * np.abs(want))
    for g, w in pairs or [(got, want)]:
        same = (np.isnan(g) & np.isnan(w)) | ((g == w) & (np.signbit(g) == np.signbit(w)))
        with np.errstate(all="ignore"):
            close = np.isfinite(g) & np.isfinite(w) & (np.abs(g - w) <= tol * np.abs(w) + tiny)
        bad = np.flatnonzero(~(same | close | (near if gpu else False)))
        cases = [(tuple(a[i].item() for a in args), got[i].item(), want[i].item()) for i in bad]
        assert not cases, cases[:5]


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _numpy_result(name: str, args: list[np.ndarray]):
    """NumPy's own result, or None where NumPy has no such loop (complex ``floor_divide``,
    ``hypot``, ...)."""
    with _quiet():
        try:
            return getattr(np, _NUMPY_NAME.get(name, name))(*args)
        except TypeError:
            return None


def _cases():
    for name in sem.__all__:
        for dtype in ("float32", "float64", "complex64", "complex128"):
            yield pytest.param(name, dtype, id=f"{name}-{dtype}")


@pytest.mark.parametrize("name,dtype", list(_cases()))
def test_numpy_semantics_on_numpy(name, dtype):
    args = _grid(dtype, 2 if name in _BINARY else 1)
    ours = getattr(sem, name)
    want = _numpy_result(name, args)
    with _quiet():
        if want is None:  # no such loop in NumPy: ours raises as NumPy does
            with pytest.raises(TypeError):
                ours(np, *args)
            return
        _assert_same(ours(np, *args), want, args)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scaled_hypot_matches_numpy_to_overflow(dtype):
    """The recomputation ``hypot`` uses where the library's overflowed (never on NumPy)."""
    big = np.finfo(dtype).max
    a = np.array([0.0, 3.0, -3.0, 1.0, big, big / 2, big / 2, 1e-30, 0.0], dtype)
    b = np.array([0.0, 4.0, 4.0, big, 1.0, big / 2, big / 8, 1e-30, -2.5], dtype)
    got = sem._scaled_hypot(np, a, b)
    np.testing.assert_allclose(got, np.hypot(a, b), rtol=4 * np.finfo(dtype).eps)


_ON_GPU = pytest.mark.skipif(not HAVE_CUPY_GPU, reason="CuPy or a CUDA GPU is missing")


@_ON_GPU
@pytest.mark.parametrize("name,dtype", list(_cases()))
def test_numpy_semantics_on_cupy(name, dtype):
    """The corrected CuPy functions give NumPy's answers (CuPy's own do not; see the module)."""
    import cupy

    args = _grid(dtype, 2 if name in _BINARY else 1)
    want = _numpy_result(name, args)
    if want is None:
        pytest.skip(f"NumPy has no {name} loop for {dtype}")
    complex_ = dtype.startswith("complex")
    if name in ("pow", "divide") and complex_:
        # Left to the library, seen on an H100 (CuPy 14.2): pow of infinite or NaN operands
        # (CuPy's exp(x2 * log(x1)), as the standard suggests) and of operands whose
        # intermediate products overflow (CuPy's and NumPy's infinities and NaNs differ);
        # an infinite dividend (CUDA flushes a float32 ratio like 1 / 3e38 to 0, so
        # inf * ratio is NaN where NumPy's is inf).
        limit = np.sqrt(np.finfo(dtype).max) if name == "pow" else np.inf
        keep = np.isfinite(args[0]) & (np.abs(args[0]) < limit)
        if name == "pow":
            keep &= np.isfinite(args[1]) & (np.abs(args[1]) < limit)
        args = [a[keep] for a in args]
        want = want[keep]
    if name == "log1p" and complex_:
        # NumPy's log1p(max + max j) overflows to inf; ours gives the finite log|z|.
        big = np.finfo(dtype).max
        keep = args[0] != complex(big, big)
        args, want = [args[0][keep]], want[keep]
    got = getattr(sem, name)(cupy, *[cupy.asarray(a) for a in args]).get()
    # CUDA's math library rounds differently from the C library's in the last bits.
    _assert_same(got, want, args, ulps=64, gpu=True)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("lib", ["numpy", pytest.param("cupy", marks=_ON_GPU)])
def test_expm1_keeps_tiny_arguments(lib, dtype):
    """expm1(z) ~ z near 0 (CuPy's own exp(z) - 1 gives 0 at 1.2e-38 + 0j in complex64)."""
    m = np if lib == "numpy" else pytest.importorskip("cupy")
    tiny = float(np.finfo(dtype).tiny)
    z = np.array([tiny, 1e-20 + 1e-20j, -3e-9j, 1e-7 - 2e-8j, 0.5 + 0.25j], dtype)
    got = sem.expm1(m, m.asarray(z))
    got = got if lib == "numpy" else got.get()
    np.testing.assert_allclose(got, np.expm1(z), rtol=8 * np.finfo(dtype).eps, atol=0)
