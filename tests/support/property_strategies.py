"""Hypothesis strategies and oracles shared by the property tests (``test_property_*.py``).

Arrays are drawn two ways, both giving the same data on every rank (the profile of
``conftest.py`` derandomizes Hypothesis):

- through ``make_strategies_namespace(xdist)`` (``xps``), i.e. xdist's own creation functions,
  under ``xdist.config_context(default_split=...)`` with a drawn default split, as the
  conformance suite makes them with ``XDIST_DEFAULT_SPLIT``;
- as NumPy data laid out by ``helpers.distribute`` along a drawn axis with drawn counts,
  uneven ones and empty blocks included.

The oracle is array-api-strict, the standard's reference implementation, called with the same
function names on the same global data (``oracle``); its result comes back as NumPy.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager

import array_api_strict as strict
import numpy as np
from array_api_strict._array_object import Array as StrictArray
from helpers import SIZE, assert_equal, distribute
from hypothesis import strategies as st
from hypothesis.extra import array_api
from hypothesis.extra import numpy as hnp

import xdist
from xdist._runtime import default_backend

xps = array_api.make_strategies_namespace(xdist, api_version="2024.12")
sxps = array_api.make_strategies_namespace(strict, api_version="2024.12")


def _supported(*names: str) -> tuple[str, ...]:
    """The dtypes among ``names`` that the backend under test has (Torch lacks uint16..64)."""
    backend = default_backend()
    have = getattr(backend, "supported_dtypes", None)
    if have is None:
        return names
    return tuple(n for n in names if np.dtype(n) in have())


REAL_FLOAT = _supported("float32", "float64")
COMPLEX = _supported("complex64", "complex128")
SIGNED = _supported("int8", "int16", "int32", "int64")
UNSIGNED = _supported("uint8", "uint16", "uint32", "uint64")
INTEGER = SIGNED + UNSIGNED
REAL = INTEGER + REAL_FLOAT
NUMERIC = REAL + COMPLEX
ALL = ("bool",) + NUMERIC


@contextmanager
def quiet():
    """NumPy's floating-point warnings off (inf, NaN and overflow are part of the data)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def shapes(min_dims=0, max_dims=3, min_side=0, max_side=6):
    return hnp.array_shapes(
        min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side
    )


@st.composite
def counts_for(draw, n: int) -> tuple[int, ...]:
    """Per-rank counts summing to ``n``: balanced, or any split (zeros included)."""
    if SIZE == 1 or draw(st.booleans()):
        return None
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=SIZE - 1, max_size=SIZE - 1)))
    bounds = [0, *cuts, n]
    return tuple(b - a for a, b in zip(bounds, bounds[1:]))


@st.composite
def layout_for(draw, shape: tuple[int, ...]):
    """A split axis (or ``None``) and counts for an array of ``shape``."""
    split = draw(st.sampled_from([None, *range(len(shape))]))
    if split is None:
        return None, None
    return split, draw(counts_for(shape[split]))


def _elements(dtype: np.dtype, finite: bool, elements):
    """Hypothesis elements for ``dtype``: edge values (0, -0, inf, NaN, limits) unless
    ``finite``; no subnormals (their handling is the platform's, not the standard's)."""
    if elements is not None or dtype.kind not in "fc":
        return elements
    if dtype.kind == "c" and default_backend().name != "numpy":
        # Complex infinities and NaNs: Torch's complex math does not give C99's special
        # values the way NumPy does (inf + 0j), a library difference, not xdist's.
        finite = True
    kind = st.floats if dtype.kind == "f" else st.complex_numbers
    extra = {}
    if dtype.kind == "c" and default_backend().name != "numpy":
        # ... nor near the largest numbers, where |z| overflows in one library and not the
        # other (Torch's log1p(1.9e300 + 1.8e308j) is 709.8 + 1.57j, NumPy's inf + 1.57j).
        extra["max_magnitude"] = float(np.sqrt(np.finfo(dtype).max)) / 4
    return kind(
        width=dtype.itemsize * 8,
        allow_nan=not finite,
        allow_infinity=not finite,
        allow_subnormal=False,
        **extra,
    )


@st.composite
def distributed(draw, dtype: str, shape, *, finite: bool = False, elements=None) -> xdist.Array:
    """An xdist array of ``dtype`` and ``shape`` (a shape or a strategy of shapes): made by
    xdist's own creation functions (``xps``) under a drawn default split, or from NumPy data
    laid out along a drawn axis with drawn counts (uneven ones and empty blocks included)."""
    dt = np.dtype(dtype)
    if not isinstance(shape, tuple):
        shape = draw(shape)
    values = _elements(dt, finite, elements)
    if draw(st.booleans()):
        data = draw(hnp.arrays(dt, shape, elements=values))
        split, counts = draw(layout_for(shape))
        return distribute(data, split, counts)
    split = draw(st.sampled_from([None, 0, -1]))
    with xdist.config_context(default_split=split):
        return draw(xps.arrays(dt, shape, elements=values))


@st.composite
def shapes_broadcasting_to(draw, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``shape`` (fewer dimensions, or 1 for some)."""
    ndim = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - ndim :]
    return tuple(draw(st.sampled_from([1, n])) for n in tail)


@st.composite
def laid_out(draw, values: np.ndarray) -> xdist.Array:
    """NumPy ``values`` as an xdist array laid out along a drawn axis with drawn counts."""
    split, counts = draw(layout_for(values.shape))
    return distribute(values, split, counts)


# -- the oracle ----------------------------------------------------------------------------------
def to_strict(value):
    """Arguments for array-api-strict: xdist and NumPy arrays as its arrays, xdist dtypes as
    its dtypes, sequences item by item."""
    if isinstance(value, np.dtype):
        return getattr(strict, value.name)
    if isinstance(value, xdist.Array):
        return strict.asarray(value.to_numpy())
    if isinstance(value, np.ndarray):
        return strict.asarray(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_strict(v) for v in value)
    return value


def to_numpy(value):
    """array-api-strict results (arrays, tuples and named tuples of them) as NumPy."""
    if isinstance(value, StrictArray):
        return np.from_dlpack(value) if value.ndim else np.asarray(np.from_dlpack(value))
    if isinstance(value, tuple):
        items = [to_numpy(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [to_numpy(v) for v in value]
    return value


def oracle(func: str, *args, **kwargs):
    """``func`` (a dotted name like ``"linalg.solve"``) of array-api-strict on the same data."""
    target = strict
    for part in func.split("."):
        target = getattr(target, part)
    with quiet():
        return to_numpy(target(*to_strict(args), **{k: to_strict(v) for k, v in kwargs.items()}))


def call(func: str, *args, **kwargs):
    """``func`` of xdist (a dotted name)."""
    target = xdist
    for part in func.split("."):
        target = getattr(target, part)
    with quiet():
        return target(*args, **kwargs)


def check(func: str, *args, rtol: float = 0.0, atol: float = 0.0, **kwargs):
    """xdist's ``func`` on ``args`` equals the oracle's (shape, dtype, values; results that
    are tuples compared item by item). Returns xdist's result."""
    got = call(func, *args, **kwargs)
    expected = oracle(func, *args, **kwargs)
    compare(got, expected, rtol=rtol, atol=atol)
    return got


def compare(got, expected, *, rtol: float = 0.0, atol: float = 0.0) -> None:
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)), type(got)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            compare(g, e, rtol=rtol, atol=atol)
        return
    assert_equal(got, expected, rtol=rtol, atol=atol)


def tolerance(dtype) -> float:
    """A relative tolerance for results that depend on the order of floating-point sums."""
    dt = np.dtype(dtype)
    return 1e-4 if dt in (np.float32, np.complex64) else 1e-10
