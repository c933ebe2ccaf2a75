"""Property tests of the manipulation functions against array-api-strict: random shapes,
axes, dtypes and layouts (inputs of one call laid out independently of each other)."""

from __future__ import annotations

import math

from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from property_strategies import ALL, check, distributed, shapes

_DTYPES = st.sampled_from(ALL)


@given(data=st.data())
def test_broadcast_to_and_arrays(data):
    dtype = data.draw(_DTYPES)
    pair = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
    x = data.draw(distributed(dtype, pair.input_shapes[0]))
    y = data.draw(distributed(data.draw(_DTYPES), pair.input_shapes[1]))
    check("broadcast_to", x, pair.result_shape)
    check("broadcast_arrays", x, y)


@given(data=st.data())
def test_concat(data):
    dtype = data.draw(_DTYPES)
    base = list(data.draw(shapes(min_dims=1)))
    axis = data.draw(st.none() | st.integers(-len(base), len(base) - 1))
    arrays = []
    for _ in range(data.draw(st.integers(1, 3))):
        shape = list(base)
        if axis is not None:
            shape[axis] = data.draw(st.integers(0, 4))
        else:
            shape = list(data.draw(shapes()))
        arrays.append(data.draw(distributed(dtype, tuple(shape))))
    check("concat", arrays, axis=axis)


@given(data=st.data())
def test_stack_unstack(data):
    dtype = data.draw(_DTYPES)
    shape = data.draw(shapes())
    arrays = [data.draw(distributed(dtype, shape)) for _ in range(data.draw(st.integers(1, 3)))]
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    check("stack", arrays, axis=axis)
    x = data.draw(distributed(dtype, data.draw(shapes(min_dims=1))))
    check("unstack", x, axis=data.draw(st.integers(-x.ndim, x.ndim - 1)))


@given(data=st.data())
def test_expand_dims_squeeze(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes()))
    check("expand_dims", x, axis=data.draw(st.integers(-x.ndim - 1, x.ndim)))
    ones = tuple(i for i, n in enumerate(x.shape) if n == 1)
    if ones:
        axes = data.draw(st.lists(st.sampled_from(ones), min_size=1, unique=True).map(tuple))
        check("squeeze", x, axis=axes if len(axes) > 1 else axes[0])


@given(data=st.data())
def test_flip_roll(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes()))
    axes = st.lists(st.integers(0, max(x.ndim - 1, 0)), unique=True, max_size=x.ndim).map(tuple)
    if x.ndim == 0:
        axes = st.just(())
    check("flip", x, axis=data.draw(st.none() | axes))
    shift = data.draw(st.integers(-9, 9))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    check("roll", x, shift, axis=axis)
    if x.ndim:
        several = data.draw(st.lists(st.integers(0, x.ndim - 1), min_size=1, max_size=3))
        shifts = tuple(data.draw(st.integers(-9, 9)) for _ in several)
        check("roll", x, shifts, axis=tuple(several))


@given(data=st.data())
def test_permute_dims_moveaxis(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes()))
    check("permute_dims", x, tuple(data.draw(st.permutations(range(x.ndim)))))
    if x.ndim:
        source = data.draw(st.lists(st.integers(0, x.ndim - 1), unique=True, min_size=1))
        dest = data.draw(st.permutations(range(x.ndim)))[: len(source)]
        check("moveaxis", x, tuple(source), tuple(dest))


@given(data=st.data())
def test_reshape(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes(max_side=4)))
    target = data.draw(shapes(max_dims=4, max_side=x.size or 1))
    assume(math.prod(target) == x.size)
    check("reshape", x, target)
    if x.size and target:  # one -1 for the inferred length
        i = data.draw(st.integers(0, len(target) - 1))
        check("reshape", x, target[:i] + (-1,) + target[i + 1 :])


@given(data=st.data())
def test_repeat_tile(data):
    x = data.draw(distributed(data.draw(_DTYPES), shapes(max_side=4)))
    axis = data.draw(st.none() | st.integers(-x.ndim, x.ndim - 1)) if x.ndim else None
    n = x.size if axis is None else x.shape[axis]
    if data.draw(st.booleans()) and (axis is not None or x.ndim <= 1):
        repeats = data.draw(distributed("int64", (n,), elements=st.integers(0, 3)))
    else:
        repeats = data.draw(st.integers(0, 3))
    check("repeat", x, repeats, axis=axis)
    check("tile", x, tuple(data.draw(st.lists(st.integers(0, 3), max_size=4))))
