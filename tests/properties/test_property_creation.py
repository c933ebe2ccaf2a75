"""Property tests of the creation functions: random arguments, dtypes and split axes (given
with ``split=``, or as the configured default split), against array-api-strict."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import SIZE, defaulted, require_dtypes
from hypothesis import assume, given
from hypothesis import strategies as st
from property_strategies import (
    ALL,
    COMPLEX,
    INTEGER,
    NUMERIC,
    REAL_FLOAT,
    call,
    check,
    compare,
    distributed,
    oracle,
    shapes,
)

import xdist


@st.composite
def _split_kwargs(draw, ndim: int) -> dict:
    """``split=`` for a result of ``ndim`` dimensions: absent (the default), None or an axis."""
    choices = [{}, {"split": None}] + [{"split": a} for a in range(-ndim, ndim)]
    return draw(st.sampled_from(choices))


@st.composite
def _default_split(draw):
    """A configured default split (``XDIST_DEFAULT_SPLIT``) for the test's creations."""
    return draw(st.sampled_from([None, 0, 1, -1]))


def _check_split(x: xdist.Array, kwargs: dict, default) -> None:
    """The result is split as asked: along ``split=`` when given, else along the default
    (when the result has that axis), else replicated."""
    if "split" in kwargs:
        axis = kwargs["split"]
    elif default is not None and -x.ndim <= default < x.ndim:
        axis = default
    else:
        axis = None
    assert x.split == (None if axis is None else axis % x.ndim)


def _create(func: str, *args, default=None, split_kwargs=None, **kwargs):
    """xdist's ``func`` under the default split ``default`` and ``split_kwargs``, checked
    against array-api-strict (values and layout)."""
    split_kwargs = split_kwargs or {}
    with xdist.config_context(default_split=default):
        got = call(func, *args, **kwargs, **split_kwargs)
    expected = oracle(func, *args, **kwargs)
    compare(got, expected if "dtype" in kwargs else defaulted(expected))
    _check_split(got, split_kwargs, default)
    return got


@given(data=st.data())
def test_arange(data):
    kind = data.draw(st.sampled_from(["int", "float"]))
    if kind == "int":
        start, stop = data.draw(st.integers(-30, 30)), data.draw(st.integers(-30, 30))
        step = data.draw(st.integers(-7, 7).filter(bool))
        dtype = data.draw(st.sampled_from([None, "int8", "int32", "int64", "float64"]))
    else:
        start, stop = data.draw(st.floats(-30, 30)), data.draw(st.floats(-30, 30))
        step = data.draw(st.floats(0.25, 5) | st.floats(-5, -0.25))
        dtype = data.draw(st.sampled_from([None, "float32", "float64"]))
    kwargs = {} if dtype is None else {"dtype": getattr(xdist, dtype)}
    _create(
        "arange",
        start,
        stop,
        step,
        default=data.draw(_default_split()),
        split_kwargs=data.draw(_split_kwargs(1)),
        **kwargs,
    )


@given(data=st.data())
def test_linspace(data):
    cplx = data.draw(st.booleans())
    number = st.floats(-100, 100)
    if cplx:
        number = st.builds(complex, number, number)
    start, stop = data.draw(number), data.draw(number)
    num = data.draw(st.integers(0, 20))
    endpoint = data.draw(st.booleans())
    dtypes = COMPLEX if cplx else REAL_FLOAT + COMPLEX
    dtype = data.draw(st.sampled_from((None,) + dtypes))
    kwargs = {"endpoint": endpoint}
    if dtype is not None:
        kwargs["dtype"] = getattr(xdist, dtype)
    with xdist.config_context(default_split=data.draw(_default_split())):
        got = xdist.linspace(start, stop, num, **kwargs, **data.draw(_split_kwargs(1)))
    expected = oracle("linspace", start, stop, num, **kwargs)
    expected = expected if dtype is not None else defaulted(expected)
    compare(got, expected, rtol=1e-6 if expected.dtype in (np.float32, np.complex64) else 1e-13)


@given(data=st.data())
def test_eye(data):
    n_rows = data.draw(st.integers(0, 8))
    n_cols = data.draw(st.none() | st.integers(0, 8))
    k = data.draw(st.integers(-9, 9))
    dtype = data.draw(st.sampled_from(ALL))
    _create(
        "eye",
        n_rows,
        n_cols,
        k=k,
        dtype=getattr(xdist, dtype),
        default=data.draw(_default_split()),
        split_kwargs=data.draw(_split_kwargs(2)),
    )


def _fill_value(draw, dtype: np.dtype):
    if dtype.kind == "b":
        return draw(st.booleans())
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return draw(st.integers(int(info.min), int(info.max)))
    if dtype.kind == "f":
        return draw(st.floats(width=dtype.itemsize * 8))
    half = dtype.itemsize * 4
    return complex(draw(st.floats(width=half)), draw(st.floats(width=half)))


@given(data=st.data())
def test_full_zeros_ones(data):
    shape = data.draw(shapes())
    dtype = np.dtype(data.draw(st.sampled_from(ALL)))
    default = data.draw(_default_split())
    split = data.draw(_split_kwargs(len(shape)))
    assume(len(shape) > 0 or split.get("split") is None)
    fill = _fill_value(data.draw, dtype)
    _create("full", shape, fill, dtype=dtype, default=default, split_kwargs=split)
    _create("zeros", shape, dtype=dtype, default=default, split_kwargs=split)
    _create("ones", shape, dtype=dtype, default=default, split_kwargs=split)
    with xdist.config_context(default_split=default):
        e = xdist.empty(shape, dtype=dtype, **split)
    assert e.shape == shape and e.dtype == dtype
    _check_split(e, split, default)


@given(data=st.data())
def test_like_functions_keep_the_layout(data):
    x = data.draw(distributed(data.draw(st.sampled_from(ALL)), shapes()))
    dtype = data.draw(st.sampled_from((None,) + NUMERIC))
    kwargs = {} if dtype is None else {"dtype": getattr(xdist, dtype)}
    out = np.dtype(dtype) if dtype else x.dtype
    for func in ("zeros_like", "ones_like", "empty_like"):
        y = call(func, x, **kwargs)
        assert y.layout == x.layout and y.dtype == out and y.shape == x.shape
        if func != "empty_like":
            compare(y, oracle(func, x, **kwargs))
    fill = _fill_value(data.draw, out)
    compare(call("full_like", x, fill, **kwargs), oracle("full_like", x, fill, **kwargs))


@given(data=st.data())
def test_tril_triu(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    x = data.draw(distributed(dtype, shapes(min_dims=2, max_dims=3)))
    k = data.draw(st.integers(-6, 6))
    for func in ("tril", "triu"):
        y = check(func, x, k=k)
        assert y.layout == x.layout  # from global indices: nothing moves


@given(data=st.data())
def test_meshgrid(data):
    dtype = data.draw(st.sampled_from(NUMERIC))
    n = data.draw(st.integers(0, 3))
    arrays = [data.draw(distributed(dtype, shapes(1, 1, max_side=5))) for _ in range(n)]
    indexing = data.draw(st.sampled_from(["xy", "ij"]))
    got = check("meshgrid", *arrays, indexing=indexing)
    assert len({g.layout for g in got}) <= 1  # one layout for all outputs


@given(data=st.data())
def test_asarray_from_python_and_numpy(data):
    dtype = np.dtype(data.draw(st.sampled_from(ALL)))
    shape = data.draw(shapes(max_dims=2, max_side=4))
    values = data.draw(distributed(dtype.name, shape)).to_numpy()
    # Nested lists lose the shape of empty arrays, and their dtype is that of Python's
    # numbers (int64, float64, complex128): pass the dtype with them.
    python = values.size > 0 and data.draw(st.booleans())
    obj = values.tolist() if python else values
    kwargs = {"dtype": dtype} if python or data.draw(st.booleans()) else {}
    default = data.draw(_default_split())
    split = data.draw(_split_kwargs(len(shape)))
    with xdist.config_context(default_split=default):
        got = xdist.asarray(obj, **kwargs, **split)
    compare(got, values.astype(kwargs.get("dtype", values.dtype)))
    _check_split(got, split, default)


@given(data=st.data())
def test_asarray_of_an_xdist_array(data):
    """``asarray(x)`` is ``x``; ``copy=True`` is new storage; ``split=`` moves to that axis."""
    x = data.draw(distributed(data.draw(st.sampled_from(INTEGER)), shapes(min_dims=1)))
    g = x.to_numpy()
    assert xdist.asarray(x) is x
    y = xdist.asarray(x, copy=True)
    assert y is not x and y.layout == x.layout
    compare(y, g)
    axis = data.draw(st.sampled_from([None, *range(x.ndim)]))
    z = xdist.asarray(x, split=axis)
    compare(z, g)
    assert z.split == axis
    if SIZE == 1 or x.split is None:
        assert x.__dlpack_device__() == z.__dlpack_device__()


@given(data=st.data())
def test_from_dlpack(data):
    dtype = data.draw(st.sampled_from(ALL))
    x = data.draw(distributed(dtype, shapes(min_dims=1)))
    g = x.to_numpy()
    split = data.draw(_split_kwargs(x.ndim))
    y = xdist.from_dlpack(g, **split)  # a NumPy array, the same on every rank
    compare(y, g)
    if x.split is None or SIZE == 1:  # an xdist array exports its block: no message
        compare(xdist.from_dlpack(x), g)


def test_asarray_python_ints_beyond_int64():
    """Python ints above int64 fill a uint64 array when the dtype says so."""
    require_dtypes("uint64")
    big = [2**64 - 1, 2**63 + 1, 0]
    x = xdist.asarray(big, dtype=xdist.uint64)
    compare(x, np.asarray(big, dtype=np.uint64))
    with pytest.raises(OverflowError, match="^asarray: "):
        xdist.asarray([-1], dtype=xdist.uint8)
