"""Property tests of the ``fft`` extension against array-api-strict: random lengths (primes
and lengths that do not divide among the ranks included), axes, ``n``/``s`` (cropping and
zero padding), norms and layouts."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import DEFAULTS
from hypothesis import given
from hypothesis import strategies as st
from property_strategies import call, check, compare, distributed, oracle, shapes

_NORMS = st.sampled_from(["backward", "ortho", "forward"])


def _tol(dtype) -> dict:
    single = np.dtype(dtype) in (np.float32, np.complex64)
    return {"rtol": 1e-3, "atol": 1e-3} if single else {"rtol": 1e-9, "atol": 1e-9}


def _signal(dtype: str, shape):
    width = np.dtype(dtype).itemsize * 8
    if np.dtype(dtype).kind == "c":
        part = st.floats(-1, 1, width=width // 2)
        elements = st.builds(complex, part, part)
    else:
        elements = st.floats(-1, 1, width=width)
    return distributed(dtype, shape, elements=elements)


@pytest.mark.parametrize("func", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@given(data=st.data())
def test_one_dimensional(func, data):
    real_input = func in ("rfft", "ihfft")
    dtype = data.draw(
        st.sampled_from(["float32", "float64"] if real_input else ["complex64", "complex128"])
    )
    x = data.draw(_signal(dtype, shapes(min_dims=1, max_dims=2, min_side=1, max_side=9)))
    kwargs = {"axis": data.draw(st.integers(-x.ndim, x.ndim - 1)), "norm": data.draw(_NORMS)}
    if data.draw(st.booleans()) or func in ("irfft", "hfft"):
        kwargs["n"] = data.draw(st.integers(2 if func in ("irfft", "hfft") else 1, 11))
    check(f"fft.{func}", x, **kwargs, **_tol(dtype))


@pytest.mark.parametrize("func", ["fftn", "ifftn", "rfftn", "irfftn"])
@given(data=st.data())
def test_n_dimensional(func, data):
    dtype = data.draw(st.sampled_from(["float64"] if func == "rfftn" else ["complex128"]))
    x = data.draw(_signal(dtype, shapes(min_dims=1, max_dims=3, min_side=1, max_side=6)))
    axes = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True, min_size=1))
    kwargs = {"axes": tuple(axes), "norm": data.draw(_NORMS)}
    if data.draw(st.booleans()) or func == "irfftn":
        kwargs["s"] = tuple(data.draw(st.integers(2, 7)) for _ in axes)
    check(f"fft.{func}", x, **kwargs, **_tol(dtype))


@pytest.mark.parametrize("func", ["fftfreq", "rfftfreq"])
@given(n=st.integers(1, 20), d=st.sampled_from([1.0, 0.5, 3.0]))
def test_frequencies(func, n, d):
    # Without dtype: the backend's default (Torch: float32); array-api-strict's is float64.
    default = DEFAULTS["real floating"]
    got = call(f"fft.{func}", n, d=d)
    compare(got, oracle(f"fft.{func}", n, d=d, dtype=default), **_tol(default))


@pytest.mark.parametrize("func", ["fftshift", "ifftshift"])
@given(data=st.data())
def test_shifts(func, data):
    x = data.draw(_signal("float64", shapes(min_dims=1, max_dims=3)))
    axes = data.draw(
        st.none()
        | st.integers(-x.ndim, x.ndim - 1)
        | st.lists(st.integers(0, x.ndim - 1), unique=True, min_size=1).map(tuple)
    )
    check(f"fft.{func}", x, axes=axes)
