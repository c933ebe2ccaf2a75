"""Property tests of indexing against array-api-strict: ``take``, ``take_along_axis``, basic
indices (ints, slices with any step, ``None``, ``...``), integer-array indices, boolean masks,
and ``__setitem__`` with each of them, over random layouts of the array and of the index."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_strategies import (
    ALL,
    check,
    compare,
    distributed,
    laid_out,
    oracle,
    quiet,
    shapes,
    to_numpy,
    to_strict,
    xps,
)

_DTYPES = st.sampled_from(ALL)


def _positions(n: int):
    """Valid indices into an axis of length ``n``, negative ones included."""
    return st.integers(-n, n - 1)


@st.composite
def _index_array(draw, n: int, shape):
    values = draw(hnp.arrays(np.int64, shape, elements=_positions(n)))
    return draw(laid_out(values))


@given(data=st.data())
def test_take(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes(min_dims=1, min_side=1)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1)) if x.ndim > 1 else None
    n = x.shape[0 if axis is None else axis]
    indices = data.draw(_index_array(n, data.draw(shapes(1, 1, max_side=8))))
    check("take", x, indices, **({} if axis is None else {"axis": axis}))


@given(data=st.data())
def test_take_along_axis(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes(min_dims=1, min_side=1)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    shape = list(x.shape)
    shape[axis] = data.draw(st.integers(0, 6))
    indices = data.draw(_index_array(x.shape[axis], tuple(shape)))
    check("take_along_axis", x, indices, axis=axis)


def _getitem(x, key):
    with quiet():
        got = x[key]
        expected = to_numpy(to_strict(x)[to_strict(key)])
    compare(got, expected)


def _setitem(data, x, key):
    """``x[key] = value`` (a scalar or an array broadcast to ``x[key]``) as in strict."""
    target_shape = x[key].shape
    if data.draw(st.booleans()):
        value = {"b": True, "i": 7, "u": 7, "f": -1.5, "c": 2j}[x.dtype.kind]
    else:
        value = data.draw(distributed(x.dtype.name, data.draw(_broadcasting_to(target_shape))))
    expected = to_strict(x)
    expected[to_strict(key)] = to_strict(value)
    layout = x.layout
    x[key] = value
    assert x.layout == layout
    compare(x, to_numpy(expected))


@st.composite
def _broadcasting_to(draw, shape):
    ndim = draw(st.integers(0, len(shape)))
    return tuple(draw(st.sampled_from([1, n])) for n in shape[len(shape) - ndim :])


@given(data=st.data())
def test_basic_indices(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes()))
    _getitem(x, data.draw(xps.indices(x.shape, allow_newaxis=True)))
    # The standard's keys for __setitem__ have no None.
    _setitem(data, x, data.draw(xps.indices(x.shape, allow_newaxis=False)))


@st.composite
def _array_key(draw, shape):
    """Every axis indexed by an int or an integer array (at least one), the arrays of
    broadcastable shapes: the standard's integer-array indexing."""
    array_axes = draw(st.lists(st.integers(0, len(shape) - 1), unique=True, min_size=1))
    arrays = draw(hnp.mutually_broadcastable_shapes(num_shapes=len(array_axes), max_side=4))
    key = []
    for axis, n in enumerate(shape):
        if axis in array_axes:
            key.append(draw(_index_array(n, arrays.input_shapes[array_axes.index(axis)])))
        else:
            key.append(draw(_positions(n)))
    return tuple(key)


@given(data=st.data())
def test_integer_array_indices(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes(min_dims=1, min_side=1, max_dims=3)))
    key = data.draw(_array_key(x.shape))
    _getitem(x, key)


@given(data=st.data())
def test_boolean_masks(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes(min_dims=1)))
    ndim = data.draw(st.integers(1, x.ndim))
    mask = data.draw(distributed("bool", x.shape[:ndim]))
    _getitem(x, mask)
    _setitem(data, x, mask)


def test_oracle_is_array_api_strict():
    """The oracle of this file indexes array-api-strict arrays (a guard for the helpers)."""
    g = np.arange(6).reshape(2, 3)
    assert oracle("take", g, np.array([1, 0]), axis=1).tolist() == [[1, 0], [4, 3]]
